/* SPDX-License-Identifier: BSD-2-Clause */
/* Inner packets too large for the tunnel; see mtu.h.
 *
 * Invariants: every read of pkt is preceded by a check against len (the
 * header fields are trusted only after ip4_hlen() / ip6_whole() said the
 * packet is whole); every write into out stays below cap, or below
 * MTU_FRAG_BUF per fragment; on an error nothing was written that the
 * caller could mistake for a result (mtu_frag4() checks everything, the
 * fragment count included, before its first write).
 */
#include "ingress/mtu.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "common/wire.h"
#include "ingress/ip6.h"

enum {
	IP4_HDR = 20,
	IP4_HDR_MAX = 60,
	IP6_HDR = 40,
	UDP_HDR = 8,
	ICMP_HDR = 8,
	IP4_RF_DF_MF = 0xe000,
	IP4_DF = 0x4000,
	IP4_MF = 0x2000,
	IP4_OFFSET = 0x1fff,
	IP4_MIN_MTU = 68,
	IP6_MIN_MTU = 1280,
	IP_MAX_LEN = 65535,
	PROTO_ICMP = 1,
	PROTO_ICMPV6 = 58,
	OPT_EOL = 0,
	OPT_NOP = 1,
	OPT_COPIED = 0x80,
};

_Static_assert(IP4_HDR + UDP_HDR + WIRE_HDR_LEN + WIRE_TAG_LEN == WIRE_OVERHEAD,
	       "inner max agrees with the wire format's overhead");
_Static_assert(IP4_HDR_MAX + 8 <= MTU_ICMP4_QUOTE, "minimum quote fits");

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static size_t min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* RFC 1071 Internet checksum of n bytes (n < 2^17: no overflow). */
static uint16_t inet_csum(const uint8_t *p, size_t n)
{
	uint32_t acc = 0;

	for (; n > 1; p += 2, n -= 2) {
		acc += be16(p);
	}
	if (n) {
		acc += (uint32_t)p[0] << 8;
	}
	while (acc >> 16) {
		acc = (acc & 0xffff) + (acc >> 16);
	}
	return (uint16_t)~acc;
}

/* IPv4 header length if pkt is one whole IPv4 packet, else 0. */
static size_t ip4_hlen(const uint8_t *pkt, size_t len)
{
	size_t ihl;

	if (pkt == NULL || len < IP4_HDR || pkt[0] >> 4 != 4) {
		return 0;
	}
	ihl = (size_t)(pkt[0] & 0x0f) * 4;
	if (ihl < IP4_HDR || ihl > len || be16(pkt + 2) != len) {
		return 0;
	}
	return ihl;
}

static bool ip6_whole(const uint8_t *pkt, size_t len)
{
	return pkt != NULL && len >= IP6_HDR && pkt[0] >> 4 == 6 &&
	       IP6_HDR + (size_t)be16(pkt + 4) == len;
}

enum mtu_verdict mtu_check(const uint8_t *pkt, size_t len, size_t max_inner)
{
	if (ip4_hlen(pkt, len)) {
		if (len <= max_inner) {
			return MTU_FITS;
		}
		return be16(pkt + 6) & IP4_DF ? MTU_FRAG_NEEDED : MTU_FRAGMENT;
	}
	if (ip6_whole(pkt, len)) {
		return len <= max_inner ? MTU_FITS : MTU_FRAG_NEEDED;
	}
	return MTU_BAD;
}

/* 0/8 (this network), 127/8 (loopback), 224/4 (multicast), 240/4 (class E
 * and the limited broadcast) are not one host (RFC 1812 4.3.2.7).  A
 * directed broadcast cannot be told from here; the kernel's raw socket
 * refuses to send to one without SO_BROADCAST. */
static bool ip4_one_host(uint32_t a)
{
	uint32_t top = a >> 24;

	return top != 0 && top != 127 && top < 224;
}

static bool icmp4_is_error(uint8_t type)
{
	return type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
}

int mtu_icmp4_frag_needed(const uint8_t *pkt, size_t len, uint16_t next_mtu,
			  uint8_t *out, size_t cap)
{
	size_t ihl = ip4_hlen(pkt, len);
	size_t quote;
	uint16_t frag;

	if (!ihl || out == NULL) {
		return -EINVAL;
	}
	frag = be16(pkt + 6);
	if (!(frag & IP4_DF) || (frag & IP4_OFFSET)) {
		/* without DF it should have been fragmented; a later
		 * fragment quotes no transport header (RFC 1812 4.3.2.7) */
		return -EINVAL;
	}
	if (!ip4_one_host(be32(pkt + 12)) || pkt[16] >= 224) {
		return -EINVAL;
	}
	if (pkt[9] == PROTO_ICMP && (len == ihl || icmp4_is_error(pkt[ihl]))) {
		/* never an error about an error: no storms between two
		 * boxes that both think the other is too big */
		return -EINVAL;
	}
	if (next_mtu < IP4_MIN_MTU || next_mtu >= len) {
		return -EINVAL;
	}
	if (cap < ICMP_HDR + min_sz(len, ihl + 8)) {
		return -ENOSPC;
	}
	quote = min_sz(min_sz(len, MTU_ICMP4_QUOTE), cap - ICMP_HDR);

	out[0] = 3; /* destination unreachable */
	out[1] = 4; /* fragmentation needed and DF set */
	put16(out + 2, 0);
	put16(out + 4, 0); /* unused */
	put16(out + 6, next_mtu);
	memcpy(out + ICMP_HDR, pkt, quote);
	put16(out + 2, inet_csum(out, ICMP_HDR + quote));
	return (int)(ICMP_HDR + quote);
}

/* ::, ::1 and ff00::/8 are not one node (RFC 4443 2.4 (e.6)); a router
 * never forwards ::1 (RFC 4291 2.5.3). */
static bool ip6_one_host(const uint8_t *a)
{
	static const uint8_t zero[15];

	if (a[0] == 0xff) {
		return false;
	}
	return memcmp(a, zero, 15) != 0 || a[15] > 1;
}

int mtu_icmp6_too_big(const uint8_t *pkt, size_t len, uint32_t mtu,
		      uint8_t *out, size_t cap)
{
	uint8_t proto;
	size_t off, quote;
	bool later_frag;

	if (!ip6_whole(pkt, len) || out == NULL) {
		return -EINVAL;
	}
	if (!ip6_one_host(pkt + 8)) {
		return -EINVAL;
	}
	if (ip6_upper(pkt, len, UINT_MAX, IP6_WALK_AH, &proto, &off,
		      &later_frag) < 0) {
		return -EINVAL;
	}
	if (proto == PROTO_ICMPV6 && !later_frag &&
	    (off == len || pkt[off] < 128)) {
		return -EINVAL;
	}
	if (mtu < IP6_MIN_MTU || mtu >= len) {
		return -EINVAL;
	}
	if (cap < ICMP_HDR + min_sz(len, IP6_HDR + 8)) {
		return -ENOSPC;
	}
	quote = min_sz(min_sz(len, MTU_ICMP6_QUOTE), cap - ICMP_HDR);

	out[0] = 2; /* packet too big */
	out[1] = 0;
	put16(out + 2, 0); /* filled in by the kernel */
	put32(out + 4, mtu);
	memcpy(out + ICMP_HDR, pkt, quote);
	return (int)(ICMP_HDR + quote);
}

/* Header for the fragments after the first: the fixed 20 bytes and the
 * options with the copied flag, padded with end-of-options to 4 bytes.
 * Returns its length (<= ihl), or 0 if the options are malformed. */
static size_t later_header(const uint8_t *pkt, size_t ihl, uint8_t *hdr)
{
	size_t o = IP4_HDR;
	size_t n = IP4_HDR;
	size_t ol;

	memcpy(hdr, pkt, IP4_HDR);
	while (o < ihl && pkt[o] != OPT_EOL) {
		if (pkt[o] == OPT_NOP) {
			o++;
			continue;
		}
		if (ihl - o < 2) {
			return 0;
		}
		ol = pkt[o + 1];
		if (ol < 2 || ol > ihl - o) {
			return 0;
		}
		if (pkt[o] & OPT_COPIED) {
			memcpy(hdr + n, pkt + o, ol);
			n += ol;
		}
		o += ol;
	}
	while (n % 4) {
		hdr[n++] = OPT_EOL;
	}
	hdr[0] = (uint8_t)(0x40 | n / 4);
	return n;
}

int mtu_frag4(const uint8_t *pkt, size_t len, size_t max_inner,
	      uint8_t (*out)[MTU_FRAG_BUF], size_t *out_len, unsigned max_frags)
{
	uint8_t hdr2[IP4_HDR_MAX];
	size_t ihl = ip4_hlen(pkt, len);
	size_t ihl2, limit, step1, step2, plen, pos, chunk, hl, need;
	uint16_t frag, base, f;
	const uint8_t *h;
	unsigned i;

	if (!ihl || out == NULL || out_len == NULL) {
		return -EINVAL;
	}
	frag = be16(pkt + 6);
	if (frag & IP4_DF) {
		return -EINVAL;
	}
	limit = min_sz(max_inner, MTU_FRAG_BUF);
	if (len <= limit) {
		if (max_frags < 1) {
			return -E2BIG;
		}
		memcpy(out[0], pkt, len);
		out_len[0] = len;
		return 1;
	}
	ihl2 = later_header(pkt, ihl, hdr2);
	if (!ihl2 || limit < ihl + 8) {
		return -EINVAL;
	}
	plen = len - ihl;
	base = frag & IP4_OFFSET;
	if ((size_t)base * 8 + plen > IP_MAX_LEN) {
		/* the receiver could not reassemble it either */
		return -EINVAL;
	}
	step1 = (limit - ihl) & ~(size_t)7;
	step2 = (limit - ihl2) & ~(size_t)7;
	/* len > limit >= ihl + step1, so plen > step1: two at least */
	need = 1 + (plen - step1 + step2 - 1) / step2;
	if (need > max_frags) {
		return -E2BIG;
	}

	for (i = 0, pos = 0; pos < plen; i++) {
		h = i ? hdr2 : pkt;
		hl = i ? ihl2 : ihl;
		chunk = min_sz(i ? step2 : step1, plen - pos);
		f = (uint16_t)((frag & (IP4_RF_DF_MF & ~IP4_MF)) |
			       (base + pos / 8));
		if (pos + chunk < plen || (frag & IP4_MF)) {
			f |= IP4_MF;
		}
		memcpy(out[i], h, hl);
		memcpy(out[i] + hl, pkt + ihl + pos, chunk);
		put16(out[i] + 2, (uint16_t)(hl + chunk));
		put16(out[i] + 6, f);
		put16(out[i] + 10, 0);
		put16(out[i] + 10, inet_csum(out[i], hl));
		out_len[i] = hl + chunk;
		pos += chunk;
	}
	return (int)i;
}

uint16_t mtu_inner_max(uint32_t path_mtu, bool outer6)
{
	uint32_t over = (outer6 ? IP6_HDR : IP4_HDR) + UDP_HDR + WIRE_HDR_LEN +
			WIRE_TAG_LEN;

	if (path_mtu <= over) {
		return 0;
	}
	path_mtu -= over;
	return path_mtu > IP_MAX_LEN ? IP_MAX_LEN : (uint16_t)path_mtu;
}

static uint16_t less(uint16_t a, uint16_t b)
{
	return a > b ? (uint16_t)(a - b) : 0;
}

uint16_t mtu_mss4(uint32_t path_mtu)
{
	return less(mtu_inner_max(path_mtu, false), IP4_HDR + 20);
}

uint16_t mtu_mss6(uint32_t path_mtu)
{
	return less(mtu_inner_max(path_mtu, false), IP6_HDR + 20);
}
