/* SPDX-License-Identifier: BSD-2-Clause */
/* The outer headers of a tunnel packet, IPv4 or IPv6, parsed by hand with
 * bounds checks (the egress queue hands us the whole IP packet).  The
 * source comes out as a sockaddr_in6, v4-mapped for IPv4, as the paths'
 * dual-stack sockets take it. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gateway/outer.h"

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The kernel reassembles fragments before raw PREROUTING, so a fragment
 * here is malformed; so is anything whose length fields disagree with
 * what we were given.  Trailing bytes beyond the IP total length (none
 * from the kernel) are ignored. */
int gw_outer_ipv4(const uint8_t *d, size_t len, struct sockaddr_in6 *from,
		  const uint8_t **pl, size_t *plen)
{
	size_t ihl, tot, ulen;
	const uint8_t *udp;

	if (len < 20 || d[0] >> 4 != 4) {
		return -EINVAL;
	}
	ihl = (size_t)(d[0] & 15) * 4;
	tot = be16(d + 2);
	if (ihl < 20 || tot > len || tot < ihl + 8 || d[9] != IPPROTO_UDP ||
	    (be16(d + 6) & 0x3fff)) {
		return -EINVAL;
	}
	udp = d + ihl;
	ulen = be16(udp + 4);
	if (ulen < 8 || ihl + ulen > tot) {
		return -EINVAL;
	}
	memset(from, 0, sizeof(*from));
	from->sin6_family = AF_INET6;
	from->sin6_addr.s6_addr[10] = 0xff;
	from->sin6_addr.s6_addr[11] = 0xff;
	memcpy(&from->sin6_addr.s6_addr[12], d + 12, 4);
	memcpy(&from->sin6_port, udp, 2);
	*pl = udp + 8;
	*plen = ulen - 8;
	return 0;
}

/* The kernel reassembles before raw PREROUTING here too (nf_defrag_ipv6,
 * loaded with conntrack): what it hands over has no fragment header.  Our
 * peers send plain UDP; any extension header (hop-by-hop, routing,
 * destination options, ...) is refused rather than walked: a chain of
 * them is attacker-controlled length for nothing we need. */
int gw_outer_ipv6(const uint8_t *d, size_t len, struct sockaddr_in6 *from,
		  const uint8_t **pl, size_t *plen)
{
	size_t tot, ulen;
	const uint8_t *udp;

	if (len < 40 || d[0] >> 4 != 6) {
		return -EINVAL;
	}
	tot = 40 + (size_t)be16(d + 4);
	if (tot > len) {
		return -EINVAL;
	}
	if (d[6] != IPPROTO_UDP) {
		return -EPROTONOSUPPORT;
	}
	if (tot < 48) {
		return -EINVAL;
	}
	udp = d + 40;
	ulen = be16(udp + 4);
	if (ulen < 8 || 40 + ulen > tot) {
		return -EINVAL;
	}
	memset(from, 0, sizeof(*from));
	from->sin6_family = AF_INET6;
	memcpy(&from->sin6_addr, d + 8, 16);
	memcpy(&from->sin6_port, udp, 2);
	*pl = udp + 8;
	*plen = ulen - 8;
	return 0;
}

bool gw_addr_is4(const struct sockaddr_in6 *a)
{
	return IN6_IS_ADDR_V4MAPPED(&a->sin6_addr);
}

const char *gw_addr_str(const struct sockaddr_in6 *a, char *buf, size_t len)
{
	char t[INET6_ADDRSTRLEN];

	if (gw_addr_is4(a)) {
		inet_ntop(AF_INET, &a->sin6_addr.s6_addr[12], t, sizeof(t));
		snprintf(buf, len, "%s:%u", t, ntohs(a->sin6_port));
	} else {
		inet_ntop(AF_INET6, &a->sin6_addr, t, sizeof(t));
		snprintf(buf, len, "[%s]:%u", t, ntohs(a->sin6_port));
	}
	return buf;
}

void gw_outer_dst(const uint8_t *d, bool v6, struct in6_addr *to)
{
	if (v6) {
		memcpy(to, d + 24, 16);
		return;
	}
	memset(to, 0, sizeof(*to));
	to->s6_addr[10] = 0xff;
	to->s6_addr[11] = 0xff;
	memcpy(&to->s6_addr[12], d + 16, 4);
}
