/* SPDX-License-Identifier: BSD-2-Clause */
/* What the ingress does with an inner packet too large for the tunnel.
 *
 * Each path carries inner packets of at most mtu_inner_max() bytes: its MTU
 * less the outer IP and UDP headers, our header and the tag.  A packet
 * larger than that (mtu_check()) is
 * - IPv4 with DF, or any IPv6 (IPv6 routers never fragment): dropped, and
 *   its sender told the size that fits: mtu_icmp4_frag_needed() (RFC 1191)
 *   or mtu_icmp6_too_big() (RFC 4443, RFC 8201);
 * - IPv4 without DF: split by mtu_frag4() into fragments that each fit,
 *   every fragment then bonded as a packet of its own (the receiver
 *   reassembles, as it would after any router on the way).
 * TCP through the tunnel should not get there at all: its SYNs are clamped
 * to mtu_mss4() / mtu_mss6().
 *
 * All of it is pure: no allocation, no I/O, no clock.  Inputs are whole
 * packets as NFQUEUE hands them over (length fields equal to the buffer
 * length); anything else is MTU_BAD or -EINVAL, and nothing is ever read
 * outside [pkt, pkt + len) nor written outside the output given.
 *
 * The ICMP errors are built without an IP header: the daemon sends them on
 * a raw socket (IPPROTO_ICMP, IPPROTO_ICMPV6) to the source address of the
 * packet that did not fit, and the kernel adds the header.  They are never
 * sent about a packet whose source is not one host, nor about ICMP errors
 * (RFC 1812 4.3.2.7, RFC 4443 2.4 (e)), so they cannot feed a storm.
 */
#ifndef L3BOND_MTU_H
#define L3BOND_MTU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mtu_limits {
	/* one fragment buffer; equal to the daemon's largest inner packet
	 * (GW_INNER_MAX in gateway/path.h) */
	MTU_FRAG_BUF = 2048,
	/* ICMPv4 message: 8-byte header + at most this much of the original
	 * (576 - IPv4 20 - ICMP 8, RFC 1812 4.3.2.3) */
	MTU_ICMP4_QUOTE = 576 - 20 - 8,
	/* ICMPv6 message: 8-byte header + at most this much of the original
	 * (1280 - IPv6 40 - ICMPv6 8, RFC 4443 2.4 (c)) */
	MTU_ICMP6_QUOTE = 1280 - 40 - 8,
	MTU_ICMP4_MAX = 8 + MTU_ICMP4_QUOTE,
	MTU_ICMP6_MAX = 8 + MTU_ICMP6_QUOTE,
};

enum mtu_verdict {
	MTU_FITS = 0,	     /* len <= max_inner: send as it is */
	MTU_FRAG_NEEDED = 1, /* IPv4 with DF, or IPv6: drop, answer ICMP */
	MTU_FRAGMENT = 2,    /* IPv4 without DF: mtu_frag4() */
	MTU_BAD = 3,	     /* not one whole IPv4/IPv6 packet: drop */
};

/* Classify an inner packet for a path that carries max_inner bytes.  A
 * packet is whole when it is IPv4 with 20 <= IHL * 4 <= total length ==
 * len, or IPv6 with 40 + payload length == len; anything else is MTU_BAD
 * whatever its size (the peer's egress would drop it: common/wire.c). */
enum mtu_verdict mtu_check(const uint8_t *pkt, size_t len, size_t max_inner);

/* Build into out the ICMPv4 "fragmentation needed and DF set" (type 3,
 * code 4) about pkt, with next_mtu in the RFC 1191 next-hop MTU field,
 * checksum computed, no IP header.  It quotes as much of pkt as fits in a
 * 576-byte datagram (up to MTU_ICMP4_QUOTE bytes, fewer if cap is smaller
 * but never fewer than the IP header + 8 bytes: RFC 792).
 *
 * Returns the message length, or
 * -EINVAL: pkt not a whole IPv4 packet; DF not set; not the first fragment;
 *	source in 0.0.0.0/8, 127.0.0.0/8, multicast or 240.0.0.0/4 (class E
 *	and 255.255.255.255); destination multicast or 240.0.0.0/4; pkt is an
 *	ICMP error (types 3, 4, 5, 11, 12) or an ICMP packet too short to tell;
 *	next_mtu < 68 (RFC 791) or next_mtu >= the packet's length;
 * -ENOSPC: cap too small for the header + the minimum quote. */
int mtu_icmp4_frag_needed(const uint8_t *pkt, size_t len, uint16_t next_mtu,
			  uint8_t *out, size_t cap);

/* Build into out the ICMPv6 "packet too big" (type 2, code 0) about pkt,
 * with mtu in its MTU field, no IP header.  It quotes as much of pkt as
 * fits in a 1280-byte IPv6 packet (up to MTU_ICMP6_QUOTE bytes, fewer if
 * cap is smaller but never fewer than the IPv6 header + 8 bytes).  The
 * checksum is left 0: it covers a pseudo-header with the source address
 * the kernel picks, and a raw IPPROTO_ICMPV6 socket always fills it in
 * (RFC 3542 3.1).
 *
 * Packet too big is sent also about a packet to a multicast group (RFC
 * 4443 2.4 (e.3)) and about a fragment that is not the first (its source
 * made fragments too large: RFC 8200 4.5; Linux does the same).
 *
 * Returns the message length, or
 * -EINVAL: pkt not a whole IPv6 packet; source unspecified (::), loopback
 *	(::1) or multicast; pkt is an ICMPv6 error (type < 128), or its
 *	extension headers run past its end, or it is ICMPv6 too short to
 *	tell; mtu < 1280 (IPv6 links carry 1280 bytes, RFC 8200 5: a host
 *	would take it as 1280 anyway, RFC 8201 4) or mtu >= the packet's
 *	length;
 * -ENOSPC: cap too small for the header + the minimum quote. */
int mtu_icmp6_too_big(const uint8_t *pkt, size_t len, uint32_t mtu,
		      uint8_t *out, size_t cap);

/* Split an IPv4 packet without DF into fragments of at most max_inner
 * bytes (and at most MTU_FRAG_BUF) into out[0..], their lengths into
 * out_len[0..].  Every fragment but the last carries a multiple of 8 bytes
 * of payload.  The input may itself be a fragment: its offset is added,
 * and the last fragment keeps its MF flag.  The first fragment keeps all
 * options, the later ones only those with the copied flag (RFC 791), the
 * header padded to 4 bytes with end-of-options.  Each header checksum is
 * computed anew.  A packet that fits already comes back as one unchanged
 * fragment.
 *
 * Returns the number of fragments, or
 * -EINVAL: pkt not a whole IPv4 packet; DF set; its options malformed (an
 *	option length under 2 or past the header); max_inner too small for
 *	the header + 8 bytes; fragment offset + payload over 65535;
 * -E2BIG: more than max_frags fragments would be needed (nothing is
 *	written). */
int mtu_frag4(const uint8_t *pkt, size_t len, size_t max_inner,
	      uint8_t (*out)[MTU_FRAG_BUF], size_t *out_len,
	      unsigned max_frags);

/* Largest inner packet a path of path_mtu bytes carries: path_mtu less
 * the outer IPv4 (20) or IPv6 (40) header, UDP (8), our header and the
 * tag.  0 when path_mtu is smaller than all of that; at most 65535. */
uint16_t mtu_inner_max(uint32_t path_mtu, bool outer6);

/* TCP MSS to clamp SYNs to, for a path of path_mtu bytes with an outer
 * IPv4 header (the only outer the daemon speaks now: WIRE_OUTER4_LEN): the
 * inner maximum less IPv4 + TCP (40) or IPv6 + TCP (60) headers; 0 when
 * the inner maximum is smaller.  1500 -> 1384 and 1364. */
uint16_t mtu_mss4(uint32_t path_mtu);
uint16_t mtu_mss6(uint32_t path_mtu);

#endif
