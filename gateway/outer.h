/* SPDX-License-Identifier: BSD-2-Clause */
/* The outer IPv4 or IPv6 and UDP headers of a tunnel packet, and the
 * addresses they carry (outer.c).  Addresses are held v4-mapped for IPv4
 * (::ffff:a.b.c.d), so that one comparison serves both families. */
#ifndef L3BOND_GW_OUTER_H
#define L3BOND_GW_OUTER_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "a.b.c.d:port" for a v4-mapped address, "[x:y::z]:port" otherwise */
const char *gw_addr_str(const struct sockaddr_in6 *a, char *buf, size_t len);
enum { GW_ADDR_STR = INET6_ADDRSTRLEN + 8 };
/* a is v4-mapped */
bool gw_addr_is4(const struct sockaddr_in6 *a);
/* the outer IPv4 + UDP headers of a tunnel packet: the source address
 * (v4-mapped) and port, and the UDP payload.  0 or -EINVAL (malformed). */
int gw_outer_ipv4(const uint8_t *d, size_t len, struct sockaddr_in6 *from,
		  const uint8_t **pl, size_t *plen);
/* The same for an outer IPv6 packet: UDP must follow the fixed header
 * directly; -EPROTONOSUPPORT for any extension header (a fragment
 * header included: the kernel reassembles before the egress), -EINVAL
 * when malformed. */
int gw_outer_ipv6(const uint8_t *d, size_t len, struct sockaddr_in6 *from,
		  const uint8_t **pl, size_t *plen);

/* The destination address of an outer packet that gw_outer_ipv4 (v6
 * false) or gw_outer_ipv6 took: v4-mapped for IPv4. */
void gw_outer_dst(const uint8_t *d, bool v6, struct in6_addr *to);

#endif
