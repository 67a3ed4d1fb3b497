/* SPDX-License-Identifier: BSD-2-Clause */
/* The walk over an IPv6 packet's extension headers to its upper layer,
 * shared by what looks past the fixed header (ingress/mtu.c: is it an
 * ICMPv6 error; ingress/classify.c: protocol and ports).
 *
 * Pure: no allocation, no I/O; nothing is read outside [pkt, pkt + len).
 */
#ifndef L3BOND_IP6_H
#define L3BOND_IP6_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ip6_walk_flags {
	/* walk through an authentication header too (RFC 4302): mtu.c looks
	 * for the ICMPv6 behind it; a classifier matches AH itself, as on
	 * IPv4 */
	IP6_WALK_AH = 1 << 0,
};

/* From the next header of the fixed header (pkt[6]), walks hop-by-hop,
 * routing, destination options and fragment headers (and AH with
 * IP6_WALK_AH), at most max_ext of them, to the first other header: its
 * protocol into *proto and offset into *off.  At a fragment header with a
 * non-zero offset the walk stops, *later_frag set: *proto is that header's
 * next header and *off where the fragment's data begins (not an upper-layer
 * header).
 * Needs len >= 40.  Returns 0, or -EINVAL when a header runs past len or
 * more than max_ext of them come before the upper layer.  Each step moves
 * at least 8 bytes on, so the walk ends. */
int ip6_upper(const uint8_t *pkt, size_t len, unsigned max_ext,
	      unsigned flags, uint8_t *proto, size_t *off, bool *later_frag);

#endif
