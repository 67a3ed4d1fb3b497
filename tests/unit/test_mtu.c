/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests for the too-big inner packet module (ingress/mtu.c).
 *
 * - mtu_inner_max() / mtu_mss4() / mtu_mss6(): a table, and agreement with
 *   the wire format's WIRE_OVERHEAD;
 * - mtu_check(): a verdict table of hand-built packets, malformed ones too;
 * - mtu_icmp4_frag_needed(): one message worked out by hand and compared
 *   byte by byte (derivation of both checksums in the comment), the 548-byte
 *   quote limit, cap limits, and every case it must refuse;
 * - mtu_icmp6_too_big(): an expected vector, the 1232-byte quote, every
 *   refusal (error types behind extension headers too), fragments;
 * - mtu_frag4(): every fragment set is checked against the original by a
 *   reassembler written here (offsets contiguous from the input's offset,
 *   MF, payload multiple of 8 but the last, each fragment as full as it
 *   can be, headers and options, checksums by an independent sum), over
 *   all lengths up to 3000 bytes for many max_inner, with and without
 *   options, for inputs that are a first, middle or last fragment, and a
 *   few lengths up to 65535; its refusals (-EINVAL, -E2BIG writes nothing);
 * - robustness: every prefix of valid packets, the same with the length
 *   fields patched to the prefix length (so the option and extension
 *   header walks meet the end of the buffer everywhere), and random
 *   garbage; each input in a heap block of exactly its length, so ASan
 *   reports any read past it; outputs are checked for consistency.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/wire.h"
#include "ingress/mtu.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum {
	BIG = 65536,
	MAX_FRAGS = 8192, /* 65535 bytes in 8-byte pieces */
};

/* ---- independent helpers: byte-wise sum, modulo 0xffff ---- */

/* One's complement sum of 16-bit words is the plain sum modulo 0xffff
 * (with 0xffff standing for 0); a correct checksum makes it 0 mod 0xffff. */
static uint64_t ref_sum(const uint8_t *p, size_t n)
{
	uint64_t s = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		s += (i % 2) ? p[i] : (uint64_t)p[i] * 256;
	}
	return s;
}

static bool ref_csum_ok(const uint8_t *p, size_t n)
{
	uint64_t s = ref_sum(p, n);

	return s != 0 && s % 0xffff == 0;
}

/* value for a zeroed checksum field that makes the sum 0 mod 0xffff */
static uint16_t ref_csum(const uint8_t *p, size_t n)
{
	return (uint16_t)((0xffff - ref_sum(p, n) % 0xffff) % 0xffff);
}

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] * 256 + p[1]);
}

static void wr16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v / 256);
	p[1] = (uint8_t)(v % 256);
}

static uint32_t rng_state = 0x12345678;

static uint32_t rnd(void)
{
	/* xorshift32: reproducible */
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

/* ---- packet builders ---- */

struct p4 {
	uint8_t tos, ttl, proto;
	uint16_t id;
	uint16_t frag; /* flags and offset as on the wire */
	uint32_t src, dst;
	const uint8_t *opts; /* a multiple of 4 bytes */
	size_t optlen;
	size_t plen;
	uint8_t seed;
};

static size_t build4(uint8_t *b, const struct p4 *p)
{
	size_t hl = 20 + p->optlen;
	size_t i;

	assert_true(p->optlen % 4 == 0 && hl <= 60 && hl + p->plen <= 65535);
	b[0] = (uint8_t)(0x40 | hl / 4);
	b[1] = p->tos;
	wr16(b + 2, (unsigned)(hl + p->plen));
	wr16(b + 4, p->id);
	wr16(b + 6, p->frag);
	b[8] = p->ttl;
	b[9] = p->proto;
	wr16(b + 10, 0);
	for (i = 0; i < 4; i++) {
		b[12 + i] = (uint8_t)(p->src >> (24 - 8 * i));
		b[16 + i] = (uint8_t)(p->dst >> (24 - 8 * i));
	}
	if (p->optlen) {
		memcpy(b + 20, p->opts, p->optlen);
	}
	for (i = 0; i < p->plen; i++) {
		b[hl + i] = (uint8_t)(i * 31 + p->seed + (i >> 8));
	}
	wr16(b + 10, ref_csum(b, hl));
	return hl + p->plen;
}

static const struct p4 udp4 = {
	.ttl = 64,
	.proto = 17,
	.id = 0x1c46,
	.frag = 0x4000,
	.src = 0xc0a80102, /* 192.168.1.2 */
	.dst = 0x0a000001, /* 10.0.0.1 */
	.plen = 1380,
};

/* IPv6 with a chain of extension headers.  ext: bytes of the extension
 * headers, whose next-header fields the caller set; first: pkt[6]. */
static size_t build6(uint8_t *b, uint8_t first, const uint8_t *ext,
		     size_t extlen, size_t plen, const uint8_t *src,
		     const uint8_t *dst)
{
	size_t i;

	memset(b, 0, 40);
	b[0] = 0x60;
	wr16(b + 4, (unsigned)(extlen + plen));
	b[6] = first;
	b[7] = 64;
	memcpy(b + 8, src, 16);
	memcpy(b + 24, dst, 16);
	if (extlen) {
		memcpy(b + 40, ext, extlen);
	}
	for (i = 0; i < plen; i++) {
		b[40 + extlen + i] = (uint8_t)(i * 7 + 1);
	}
	return 40 + extlen + plen;
}

static const uint8_t a6_src[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
				   0,	 0,    0,    0,	   0, 0, 0, 2};
static const uint8_t a6_dst[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0,
				   0,	 0,    0,    0,	   0, 0, 0, 1};

/* ---- mtu_inner_max, mss ---- */

static void test_inner_max(void **state)
{
	static const struct {
		uint32_t mtu;
		bool outer6;
		uint16_t want;
	} v[] = {
		{1500, false, 1424},   {1500, true, 1404},
		{576, false, 500},     {1280, true, 1184},
		{1400, false, 1324},   {1400, true, 1304},
		{76, false, 0},	       {77, false, 1},
		{96, true, 0},	       {97, true, 1},
		{0, false, 0},	       {0, true, 0},
		{65535, false, 65459}, {65611, false, 65535},
		{65612, false, 65535}, {65610, false, 65534},
		{0xffffffff, true, 65535},
	};
	size_t i;
	uint32_t m;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(v); i++) {
		if (mtu_inner_max(v[i].mtu, v[i].outer6) != v[i].want) {
			fail_msg("row %zu: inner_max(%u, %d) = %u, want %u",
				 i + 1, v[i].mtu, v[i].outer6,
				 mtu_inner_max(v[i].mtu, v[i].outer6),
				 v[i].want);
		}
	}
	for (m = WIRE_OVERHEAD; m < 9000; m++) {
		assert_int_equal(mtu_inner_max(m, false), m - WIRE_OVERHEAD);
		assert_int_equal(mtu_inner_max(m + 20, true),
				 m - WIRE_OVERHEAD);
	}
	assert_int_equal(mtu_mss4(1500), 1384);
	assert_int_equal(mtu_mss6(1500), 1364);
	assert_int_equal(mtu_mss4(1400), 1284);
	assert_int_equal(mtu_mss6(1400), 1264);
	assert_int_equal(mtu_mss4(576), 460);
	assert_int_equal(mtu_mss6(576), 440);
	assert_int_equal(mtu_mss4(76 + 40), 0);
	assert_int_equal(mtu_mss4(76 + 41), 1);
	assert_int_equal(mtu_mss6(76 + 60), 0);
	assert_int_equal(mtu_mss6(76 + 61), 1);
	assert_int_equal(mtu_mss4(0), 0);
	assert_int_equal(mtu_mss6(30), 0);
}

/* ---- mtu_check ---- */

static void test_check(void **state)
{
	static uint8_t b[BIG];
	struct p4 p = udp4;
	size_t n;

	(void)state;
	n = build4(b, &p); /* 1400 bytes, DF */
	assert_int_equal(n, 1400);
	assert_int_equal(mtu_check(b, n, 1400), MTU_FITS);
	assert_int_equal(mtu_check(b, n, 65535), MTU_FITS);
	assert_int_equal(mtu_check(b, n, 1399), MTU_FRAG_NEEDED);
	assert_int_equal(mtu_check(b, n, 0), MTU_FRAG_NEEDED);
	/* trailing byte, short buffer: length field disagrees */
	assert_int_equal(mtu_check(b, n + 1, 1399), MTU_BAD);
	assert_int_equal(mtu_check(b, n - 1, 1399), MTU_BAD);
	assert_int_equal(mtu_check(b, n + 1, 65535), MTU_BAD);
	p.frag = 0;
	n = build4(b, &p);
	assert_int_equal(mtu_check(b, n, 1399), MTU_FRAGMENT);
	assert_int_equal(mtu_check(b, n, 1400), MTU_FITS);
	p.frag = 0x2000 | 100; /* a fragment itself: no DF */
	n = build4(b, &p);
	assert_int_equal(mtu_check(b, n, 1000), MTU_FRAGMENT);
	p.frag = 0x8000; /* reserved bit is not DF */
	n = build4(b, &p);
	assert_int_equal(mtu_check(b, n, 1000), MTU_FRAGMENT);

	/* bad IPv4 headers */
	n = build4(b, &p);
	b[0] = 0x44; /* IHL 16 bytes */
	assert_int_equal(mtu_check(b, n, 100), MTU_BAD);
	assert_int_equal(mtu_check(b, n, 65535), MTU_BAD);
	b[0] = 0x55; /* version 5 */
	assert_int_equal(mtu_check(b, n, 100), MTU_BAD);
	p.plen = 10;
	p.opts = (const uint8_t[40]){0};
	p.optlen = 40;
	n = build4(b, &p); /* 70 bytes, IHL 60 */
	assert_int_equal(mtu_check(b, n, 69), MTU_FRAGMENT);
	wr16(b + 2, 40); /* total length < IHL */
	assert_int_equal(mtu_check(b, 40, 100), MTU_BAD);
	assert_int_equal(mtu_check(b, 19, 100), MTU_BAD);
	assert_int_equal(mtu_check(b, 0, 100), MTU_BAD);
	assert_int_equal(mtu_check(NULL, 0, 100), MTU_BAD);
	assert_int_equal(mtu_check(NULL, 1400, 100), MTU_BAD);

	/* IPv6: never fragmented by us */
	n = build6(b, 17, NULL, 0, 1400, a6_src, a6_dst);
	assert_int_equal(mtu_check(b, n, n), MTU_FITS);
	assert_int_equal(mtu_check(b, n, n - 1), MTU_FRAG_NEEDED);
	assert_int_equal(mtu_check(b, n - 1, 100), MTU_BAD);
	assert_int_equal(mtu_check(b, 39, 10), MTU_BAD);
	n = build6(b, 59, NULL, 0, 0, a6_src, a6_dst); /* header only */
	assert_int_equal(mtu_check(b, n, 40), MTU_FITS);
	assert_int_equal(mtu_check(b, n, 39), MTU_FRAG_NEEDED);
	b[0] = 0x70;
	assert_int_equal(mtu_check(b, n, 39), MTU_BAD);
}

/* ---- ICMPv4 ---- */

/* The message about a 100-byte UDP datagram with DF, next-hop MTU 80,
 * worked out by hand:
 *
 * IPv4 header 45 00 00 64 | 1c 46 40 00 | 40 11 cc cc | c0 a8 01 02 |
 * 0a 00 00 01; its checksum: 4500 + 0064 + 1c46 + 4000 + 4011 + c0a8 +
 * 0102 + 0a00 + 0001 = 1ad66, folded ad67, complement 5298.
 * UDP 30 39 00 35 00 50 00 00 (12345 -> 53, length 80, no checksum),
 * then 72 bytes ab.
 *
 * ICMP 03 04 cc cc 00 00 00 50, then the 100 bytes (all under 548).  Sum:
 * header words 0304 + 0050 = 0354; the IP header with its correct
 * checksum sums to ffff, which adds nothing in one's complement; UDP
 * 3039 + 0035 + 0050 = 30be; payload 36 * abab = 18240c, folded 2424.
 * 0354 + 30be + 2424 = 5836, complement a7c9. */
/* clang-format off */
static const uint8_t icmp4_hand[108] = {
	0x03, 0x04, 0xa7, 0xc9, 0x00, 0x00, 0x00, 0x50,
	/* quoted IPv4 header */
	0x45, 0x00, 0x00, 0x64, 0x1c, 0x46, 0x40, 0x00, 0x40, 0x11,
	0x52, 0x98, 0xc0, 0xa8, 0x01, 0x02, 0x0a, 0x00, 0x00, 0x01,
	/* UDP header */
	0x30, 0x39, 0x00, 0x35, 0x00, 0x50, 0x00, 0x00,
	/* 72 bytes of payload */
	0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab,
	0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab,
	0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab,
	0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab,
	0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab,
	0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab,
	0xab, 0xab, 0xab, 0xab, 0xab, 0xab,
};
/* clang-format on */

static void test_icmp4_hand_vector(void **state)
{
	uint8_t pkt[100];
	uint8_t out[MTU_ICMP4_MAX];
	int n;

	(void)state;
	/* the datagram, from the vector itself */
	memcpy(pkt, icmp4_hand + 8, sizeof(pkt));
	assert_true(ref_csum_ok(pkt, 20));
	assert_int_equal(mtu_check(pkt, sizeof(pkt), 80), MTU_FRAG_NEEDED);
	memset(out, 0xee, sizeof(out));
	n = mtu_icmp4_frag_needed(pkt, sizeof(pkt), 80, out, sizeof(out));
	assert_int_equal(n, 108);
	assert_memory_equal(out, icmp4_hand, sizeof(icmp4_hand));
	assert_true(ref_csum_ok(out, (size_t)n));
	/* nothing written past the message */
	assert_int_equal(out[108], 0xee);
	assert_int_equal(out[sizeof(out) - 1], 0xee);
}

static void test_icmp4_quote(void **state)
{
	static uint8_t b[BIG];
	static uint8_t out[BIG];
	static const uint8_t opts[40] = {0x94, 0x04, 0, 0, 0x01, 0x07, 0x27};
	struct p4 p = udp4;
	size_t n, cap;
	int r;

	(void)state;
	p.proto = 6;
	n = build4(b, &p); /* 1400 bytes TCP, DF */
	r = mtu_icmp4_frag_needed(b, n, 1360, out, sizeof(out));
	assert_int_equal(r, 8 + 548);
	assert_int_equal(out[0], 3);
	assert_int_equal(out[1], 4);
	assert_int_equal(rd16(out + 4), 0);
	assert_int_equal(rd16(out + 6), 1360);
	assert_memory_equal(out + 8, b, 548);
	assert_true(ref_csum_ok(out, (size_t)r));

	/* a smaller cap quotes less, down to header + 8 bytes */
	for (cap = 0; cap < 600; cap++) {
		memset(out, 0xee, 700);
		r = mtu_icmp4_frag_needed(b, n, 1360, out, cap);
		if (cap < 8 + 28) {
			assert_int_equal(r, -ENOSPC);
			assert_int_equal(out[0], 0xee);
			continue;
		}
		assert_int_equal(r, cap < 556 ? cap : 556);
		assert_memory_equal(out + 8, b, (size_t)r - 8);
		assert_true(ref_csum_ok(out, (size_t)r));
		assert_int_equal(out[r], 0xee);
	}

	/* odd quote length: the last byte counts as a high byte */
	r = mtu_icmp4_frag_needed(b, n, 1360, out, 8 + 101);
	assert_int_equal(r, 109);
	assert_true(ref_csum_ok(out, 109));

	/* with 40 bytes of options the minimum quote is 60 + 8 */
	p.opts = opts;
	p.optlen = sizeof(opts);
	n = build4(b, &p);
	assert_int_equal(mtu_icmp4_frag_needed(b, n, 1400, out, 8 + 67),
			 -ENOSPC);
	r = mtu_icmp4_frag_needed(b, n, 1400, out, 8 + 68);
	assert_int_equal(r, 76);
	assert_memory_equal(out + 8, b, 68);
	assert_true(ref_csum_ok(out, 76));

	/* a packet shorter than header + 8 is quoted whole */
	p = udp4;
	p.plen = 3;
	n = build4(b, &p);
	r = mtu_icmp4_frag_needed(b, n, 68, out, 8 + 23);
	assert_int_equal(r, -EINVAL); /* next_mtu 68 >= length 23 */
	p.plen = 60;
	p.opts = opts;
	p.optlen = 40;
	n = build4(b, &p); /* 120 bytes */
	r = mtu_icmp4_frag_needed(b, n, 68, out, 8 + 68);
	assert_int_equal(r, 76);
	r = mtu_icmp4_frag_needed(b, n, 68, out, sizeof(out));
	assert_int_equal(r, 128);
	assert_memory_equal(out + 8, b, 120);
	assert_true(ref_csum_ok(out, 128));
}

#define IP4(a, b, c, d)                                                        \
	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

static void test_icmp4_refused(void **state)
{
	static uint8_t b[BIG];
	uint8_t out[MTU_ICMP4_MAX];
	struct p4 p;
	size_t n;
	unsigned t;
	static const struct {
		uint32_t src, dst;
		int want;
	} addr[] = {
		{0, IP4(10, 0, 0, 1), -EINVAL},
		{IP4(0, 1, 2, 3), IP4(10, 0, 0, 1), -EINVAL},
		{IP4(127, 0, 0, 1), IP4(10, 0, 0, 1), -EINVAL},
		{IP4(127, 255, 255, 254), IP4(10, 0, 0, 1), -EINVAL},
		{IP4(224, 0, 0, 1), IP4(10, 0, 0, 1), -EINVAL},
		{IP4(239, 255, 255, 250), IP4(10, 0, 0, 1), -EINVAL},
		{IP4(240, 0, 0, 1), IP4(10, 0, 0, 1), -EINVAL},
		{IP4(255, 255, 255, 255), IP4(10, 0, 0, 1), -EINVAL},
		{IP4(192, 168, 1, 2), IP4(224, 0, 0, 251), -EINVAL},
		{IP4(192, 168, 1, 2), IP4(255, 255, 255, 255), -EINVAL},
		{IP4(192, 168, 1, 2), IP4(240, 1, 1, 1), -EINVAL},
		/* the edges that are one host */
		{IP4(1, 0, 0, 0), IP4(10, 0, 0, 1), 8 + 548},
		{IP4(126, 255, 255, 255), IP4(10, 0, 0, 1), 8 + 548},
		{IP4(128, 0, 0, 1), IP4(10, 0, 0, 1), 8 + 548},
		{IP4(223, 255, 255, 255), IP4(223, 255, 255, 255), 8 + 548},
		{IP4(10, 0, 0, 1), IP4(0, 0, 0, 0), 8 + 548},
	};

	(void)state;
	for (t = 0; t < ARRAY_SIZE(addr); t++) {
		p = udp4;
		p.src = addr[t].src;
		p.dst = addr[t].dst;
		n = build4(b, &p);
		if (mtu_icmp4_frag_needed(b, n, 1300, out, sizeof(out)) !=
		    addr[t].want) {
			fail_msg("address row %u: got %d, want %d", t + 1,
				 mtu_icmp4_frag_needed(b, n, 1300, out,
						       sizeof(out)),
				 addr[t].want);
		}
	}

	/* ICMP errors are never answered; queries are */
	for (t = 0; t < 256; t++) {
		int want = (t == 3 || t == 4 || t == 5 || t == 11 || t == 12)
				   ? -EINVAL
				   : 8 + 548;

		p = udp4;
		p.proto = 1;
		n = build4(b, &p);
		b[20] = (uint8_t)t;
		assert_int_equal(
			mtu_icmp4_frag_needed(b, n, 1300, out, sizeof(out)),
			want);
	}
	/* ICMP without one byte of ICMP: cannot tell */
	p = udp4;
	p.proto = 1;
	p.plen = 0;
	n = build4(b, &p);
	assert_int_equal(mtu_icmp4_frag_needed(b, n, 68, out, sizeof(out)),
			 -EINVAL);
	p.plen = 1;
	n = build4(b, &p);
	b[20] = 8; /* echo request, one byte long: fine */
	assert_int_equal(mtu_icmp4_frag_needed(b, n, 68, out, sizeof(out)),
			 -EINVAL); /* 68 >= 21 */
	p.plen = 100;
	n = build4(b, &p);
	b[20] = 8;
	assert_int_equal(mtu_icmp4_frag_needed(b, n, 68, out, sizeof(out)),
			 128);
	/* UDP whose first byte is 3 is not ICMP */
	p = udp4;
	n = build4(b, &p);
	b[20] = 3;
	assert_int_equal(mtu_icmp4_frag_needed(b, n, 68, out, sizeof(out)),
			 556);

	/* fragments: the first is answered, later ones not; no DF: no */
	p = udp4;
	p.frag = 0x4000 | 0x2000;
	n = build4(b, &p);
	assert_int_equal(mtu_icmp4_frag_needed(b, n, 1300, out, sizeof(out)),
			 556);
	p.frag = 0x4000 | 0x2000 | 1;
	n = build4(b, &p);
	assert_int_equal(mtu_icmp4_frag_needed(b, n, 1300, out, sizeof(out)),
			 -EINVAL);
	p.frag = 0x4000 | 0x1fff;
	n = build4(b, &p);
	assert_int_equal(mtu_icmp4_frag_needed(b, n, 1300, out, sizeof(out)),
			 -EINVAL);
	p.frag = 0;
	n = build4(b, &p);
	assert_int_equal(mtu_icmp4_frag_needed(b, n, 1300, out, sizeof(out)),
			 -EINVAL);
	p.frag = 0x8000 | 0x2000;
	n = build4(b, &p);
	assert_int_equal(mtu_icmp4_frag_needed(b, n, 1300, out, sizeof(out)),
			 -EINVAL);

	/* next_mtu out of range */
	p = udp4;
	n = build4(b, &p); /* 1400 */
	assert_int_equal(mtu_icmp4_frag_needed(b, n, 67, out, sizeof(out)),
			 -EINVAL);
	assert_int_equal(mtu_icmp4_frag_needed(b, n, 0, out, sizeof(out)),
			 -EINVAL);
	assert_int_equal(mtu_icmp4_frag_needed(b, n, 68, out, sizeof(out)),
			 556);
	assert_int_equal(mtu_icmp4_frag_needed(b, n, 1399, out, sizeof(out)),
			 556);
	assert_int_equal(mtu_icmp4_frag_needed(b, n, 1400, out, sizeof(out)),
			 -EINVAL);
	assert_int_equal(mtu_icmp4_frag_needed(b, n, 65535, out, sizeof(out)),
			 -EINVAL);

	/* not a whole IPv4 packet; IPv6; no output */
	assert_int_equal(
		mtu_icmp4_frag_needed(b, n - 1, 1300, out, sizeof(out)),
		-EINVAL);
	assert_int_equal(mtu_icmp4_frag_needed(b, n, 1300, NULL, 1000),
			 -EINVAL);
	assert_int_equal(mtu_icmp4_frag_needed(NULL, n, 1300, out, 1000),
			 -EINVAL);
	n = build6(b, 17, NULL, 0, 1400, a6_src, a6_dst);
	assert_int_equal(mtu_icmp4_frag_needed(b, n, 1300, out, sizeof(out)),
			 -EINVAL);
}

/* ---- ICMPv6 ---- */

static void test_icmp6_vector(void **state)
{
	static uint8_t b[BIG];
	static uint8_t out[BIG];
	static uint8_t want[8 + 1232] = {0x02, 0x00, 0x00, 0x00,
					 0x00, 0x00, 0x05, 0x00};
	size_t n, cap;
	int r;

	(void)state;
	n = build6(b, 17, NULL, 0, 1400, a6_src, a6_dst); /* 1440 bytes */
	memcpy(want + 8, b, 1232);
	memset(out, 0xee, sizeof(out));
	r = mtu_icmp6_too_big(b, n, 1280, out, sizeof(out));
	assert_int_equal(r, 1240);
	assert_memory_equal(out, want, sizeof(want));
	assert_int_equal(out[1240], 0xee);

	/* MTU field: all 32 bits */
	r = mtu_icmp6_too_big(b, n, 1439, out, sizeof(out));
	assert_int_equal(r, 1240);
	assert_int_equal(out[4], 0);
	assert_int_equal(out[5], 0);
	assert_int_equal(out[6], 0x05);
	assert_int_equal(out[7], 0x9f);

	/* the smallest packet it answers (1281 bytes, mtu 1280) is already
	 * longer than the quote */
	n = build6(b, 59, NULL, 0, 1241, a6_src, a6_dst);
	r = mtu_icmp6_too_big(b, n, 1280, out, sizeof(out));
	assert_int_equal(r, 1240);
	assert_memory_equal(out + 8, b, 1232);

	/* cap */
	n = build6(b, 17, NULL, 0, 1400, a6_src, a6_dst);
	for (cap = 0; cap < 1300; cap++) {
		memset(out, 0xee, 1400);
		r = mtu_icmp6_too_big(b, n, 1280, out, cap);
		if (cap < 8 + 48) {
			assert_int_equal(r, -ENOSPC);
			assert_int_equal(out[0], 0xee);
			continue;
		}
		assert_int_equal(r, cap < 1240 ? cap : 1240);
		assert_memory_equal(out, want, (size_t)r);
		assert_int_equal(out[r], 0xee);
	}
}

static void test_icmp6_refused(void **state)
{
	static uint8_t b[BIG];
	static uint8_t out[MTU_ICMP6_MAX];
	uint8_t a[16];
	uint8_t ext[64];
	size_t n;
	unsigned t;

	(void)state;
	/* sources */
	memset(a, 0, 16);
	n = build6(b, 17, NULL, 0, 1400, a, a6_dst);
	assert_int_equal(mtu_icmp6_too_big(b, n, 1280, out, sizeof(out)),
			 -EINVAL);
	a[15] = 1; /* ::1 */
	n = build6(b, 17, NULL, 0, 1400, a, a6_dst);
	assert_int_equal(mtu_icmp6_too_big(b, n, 1280, out, sizeof(out)),
			 -EINVAL);
	a[15] = 2; /* ::2: odd, but one host */
	n = build6(b, 17, NULL, 0, 1400, a, a6_dst);
	assert_int_equal(mtu_icmp6_too_big(b, n, 1280, out, sizeof(out)), 1240);
	a[15] = 1;
	a[0] = 1; /* 100::1 */
	n = build6(b, 17, NULL, 0, 1400, a, a6_dst);
	assert_int_equal(mtu_icmp6_too_big(b, n, 1280, out, sizeof(out)), 1240);
	memcpy(a, a6_src, 16);
	a[0] = 0xff;
	a[1] = 0x02; /* ff02::...2 */
	n = build6(b, 17, NULL, 0, 1400, a, a6_dst);
	assert_int_equal(mtu_icmp6_too_big(b, n, 1280, out, sizeof(out)),
			 -EINVAL);
	a[0] = 0xfe;
	a[1] = 0x80; /* link-local: one host */
	n = build6(b, 17, NULL, 0, 1400, a, a6_dst);
	assert_int_equal(mtu_icmp6_too_big(b, n, 1280, out, sizeof(out)), 1240);
	/* multicast destination: packet too big is still sent */
	a[0] = 0xff;
	a[1] = 0x0e;
	n = build6(b, 17, NULL, 0, 1400, a6_src, a);
	assert_int_equal(mtu_icmp6_too_big(b, n, 1280, out, sizeof(out)), 1240);

	/* ICMPv6 errors (type < 128) refused, informational answered */
	for (t = 0; t < 256; t++) {
		n = build6(b, 58, NULL, 0, 1400, a6_src, a6_dst);
		b[40] = (uint8_t)t;
		assert_int_equal(
			mtu_icmp6_too_big(b, n, 1280, out, sizeof(out)),
			t < 128 ? -EINVAL : 1240);
	}
	/* ... also behind hop-by-hop (16 bytes), destination options (8),
	 * a first fragment header and an AH (12 bytes) */
	memset(ext, 0, sizeof(ext));
	ext[0] = 60;
	ext[1] = 1; /* hop-by-hop, 16 bytes */
	ext[16] = 44;
	ext[17] = 0;  /* destination options, 8 bytes */
	ext[24] = 51; /* fragment, offset 0, M set */
	ext[27] = 1;
	ext[32] = 58;
	ext[33] = 1; /* AH: (1 + 2) * 4 = 12 bytes */
	for (t = 0; t < 256; t++) {
		n = build6(b, 0, ext, 44, 1300, a6_src, a6_dst);
		b[84] = (uint8_t)t;
		assert_int_equal(
			mtu_icmp6_too_big(b, n, 1280, out, sizeof(out)),
			t < 128 ? -EINVAL : 1240);
	}
	/* ICMPv6 right after a first fragment header: looked at */
	ext[24] = 58;
	n = build6(b, 0, ext, 44, 1300, a6_src, a6_dst);
	b[72] = 1; /* destination unreachable */
	assert_int_equal(mtu_icmp6_too_big(b, n, 1280, out, sizeof(out)),
			 -EINVAL);
	b[72] = 129; /* echo reply */
	assert_int_equal(mtu_icmp6_too_big(b, n, 1280, out, sizeof(out)), 1240);
	/* a later fragment, ICMPv6 included: what follows its header is
	 * the middle of the payload, and the source still needs to know */
	ext[26] = 0x05;
	ext[27] = 0x01; /* offset 160 * 8, M */
	n = build6(b, 0, ext, 44, 1300, a6_src, a6_dst);
	b[72] = 1; /* would read as destination unreachable */
	assert_int_equal(mtu_icmp6_too_big(b, n, 1280, out, sizeof(out)), 1240);
	/* extension header running past the end */
	ext[0] = 60;
	ext[1] = 200;
	n = build6(b, 0, ext, 44, 1300, a6_src, a6_dst);
	assert_int_equal(mtu_icmp6_too_big(b, n, 1280, out, sizeof(out)),
			 -EINVAL);
	/* ICMPv6 with nothing after the header chain */
	n = build6(b, 58, NULL, 0, 0, a6_src, a6_dst);
	assert_int_equal(mtu_icmp6_too_big(b, n, 1280, out, sizeof(out)),
			 -EINVAL);
	/* no next header: answered */
	n = build6(b, 59, NULL, 0, 1300, a6_src, a6_dst);
	assert_int_equal(mtu_icmp6_too_big(b, n, 1280, out, sizeof(out)), 1240);

	/* mtu */
	n = build6(b, 17, NULL, 0, 1400, a6_src, a6_dst); /* 1440 */
	assert_int_equal(mtu_icmp6_too_big(b, n, 1279, out, sizeof(out)),
			 -EINVAL);
	assert_int_equal(mtu_icmp6_too_big(b, n, 0, out, sizeof(out)), -EINVAL);
	assert_int_equal(mtu_icmp6_too_big(b, n, 1439, out, sizeof(out)), 1240);
	assert_int_equal(mtu_icmp6_too_big(b, n, 1440, out, sizeof(out)),
			 -EINVAL);
	assert_int_equal(mtu_icmp6_too_big(b, n, 0xffffffffu, out, sizeof(out)),
			 -EINVAL);
	/* not whole, IPv4, NULL */
	assert_int_equal(mtu_icmp6_too_big(b, n - 1, 1280, out, sizeof(out)),
			 -EINVAL);
	assert_int_equal(mtu_icmp6_too_big(b, n, 1280, NULL, 2000), -EINVAL);
	assert_int_equal(mtu_icmp6_too_big(NULL, n, 1280, out, 2000), -EINVAL);
	{
		struct p4 p = udp4;

		n = build4(b, &p);
		assert_int_equal(
			mtu_icmp6_too_big(b, n, 1280, out, sizeof(out)),
			-EINVAL);
	}
}

/* ---- fragmentation ---- */

/* Options of the first fragment: NOP, record route (7, not copied, 11),
 * loose source route (0x83, copied, 7), router alert (0x94, copied, 4),
 * timestamp (0x44, not copied, 8), EOL, padding: 36 bytes. */
/* clang-format off */
static const uint8_t opts_mixed[36] = {
	0x01,			      /* NOP */
	0x07, 11, 4,  0,  0, 0, 0,    0, 0, 0, 0, /* RR */
	0x83, 7,  4,  10, 9, 8, 7,    /* LSRR 10.9.8.7 */
	0x94, 4,  0,  0,	      /* router alert */
	0x44, 8,  5,  0,  0, 0, 0, 0, /* timestamp */
	0x00, 0,  0,  0,	      /* EOL, padding */
};
/* ... and of the later ones, worked out by hand: LSRR, RA, 1 byte EOL */
static const uint8_t opts_mixed_later[12] = {
	0x83, 7, 4, 10, 9, 8, 7, 0x94, 4, 0, 0, 0x00,
};
static const uint8_t no_opts[1];
/* only copied options, as a middle fragment carries them */
static const uint8_t opts_copied[12] = {
	0x83, 7, 4, 10, 9, 8, 7, 0x94, 4, 0, 0, 0x00,
};
/* no copied option at all: later fragments get a bare header */
static const uint8_t opts_none_copied[12] = {
	0x07, 7, 4, 0, 0, 0, 0, 0x01, 0x44, 4, 5, 0,
};
/* clang-format on */

static uint8_t (*fbuf)[MTU_FRAG_BUF];
static size_t flen[MAX_FRAGS];

static int fr_setup(void **state)
{
	(void)state;
	fbuf = malloc(sizeof(*fbuf) * MAX_FRAGS);
	return fbuf ? 0 : -1;
}

static int fr_teardown(void **state)
{
	(void)state;
	free(fbuf);
	fbuf = NULL;
	return 0;
}

/* Check n fragments of orig against it; later_opts: the options every
 * fragment but the first must carry (NULL: do not check them). */
static void check_frags(const uint8_t *orig, size_t len, size_t max_inner,
			int n, const uint8_t *later_opts, size_t later_optlen,
			const char *what)
{
	static uint8_t re[BIG];
	static uint8_t seen[BIG];
	size_t ohl = (size_t)(orig[0] & 15) * 4;
	size_t limit = max_inner < MTU_FRAG_BUF ? max_inner : MTU_FRAG_BUF;
	size_t plen = len - ohl, pos = 0, hl, fp, room;
	unsigned ofrag = rd16(orig + 6), f;
	unsigned base = ofrag & 0x1fff;
	int i;

	if (len <= limit) {
		if (n != 1 || flen[0] != len ||
		    memcmp(fbuf[0], orig, len) != 0) {
			fail_msg("%s: len %zu max %zu: want it unchanged", what,
				 len, max_inner);
		}
		return;
	}
	if (n < 2) {
		fail_msg("%s: len %zu max %zu: %d fragments", what, len,
			 max_inner, n);
	}
	memset(seen, 0, plen);
	for (i = 0; i < n; i++) {
		const uint8_t *fr = fbuf[i];

		if (flen[i] > limit || flen[i] < 21 || fr[0] >> 4 != 4) {
			fail_msg(
				"%s: len %zu max %zu: fragment %d of %zu bytes",
				what, len, max_inner, i, flen[i]);
		}
		hl = (size_t)(fr[0] & 15) * 4;
		fp = flen[i] - hl;
		f = rd16(fr + 6);
		if (hl < 20 || hl >= flen[i] || rd16(fr + 2) != flen[i] ||
		    !ref_csum_ok(fr, hl)) {
			fail_msg("%s: len %zu max %zu: fragment %d header",
				 what, len, max_inner, i);
		}
		/* fields that never change */
		if (fr[1] != orig[1] || memcmp(fr + 4, orig + 4, 2) != 0 ||
		    memcmp(fr + 8, orig + 8, 2) != 0 ||
		    memcmp(fr + 12, orig + 12, 8) != 0 ||
		    (f & 0xc000) != (ofrag & 0xc000)) {
			fail_msg("%s: fragment %d: fixed fields changed", what,
				 i);
		}
		if (i == 0) {
			if (hl != ohl ||
			    memcmp(fr + 20, orig + 20, ohl - 20) != 0) {
				fail_msg("%s: first fragment options", what);
			}
		} else if (later_opts &&
			   (hl != 20 + later_optlen ||
			    memcmp(fr + 20, later_opts, later_optlen) != 0)) {
			fail_msg("%s: fragment %d options (%zu bytes)", what, i,
				 hl - 20);
		}
		/* offset contiguous from the input's, MF but on the last */
		if ((f & 0x1fff) * 8 != base * 8 + pos) {
			fail_msg("%s: len %zu max %zu: fragment %d offset %u, "
				 "want %zu",
				 what, len, max_inner, i, (f & 0x1fff) * 8,
				 base * 8 + pos);
		}
		if (i < n - 1) {
			room = (limit - hl) / 8 * 8;
			if (!(f & 0x2000) || fp % 8 != 0 || fp != room) {
				fail_msg("%s: len %zu max %zu: fragment %d: "
					 "%zu bytes, MF %u, room %zu",
					 what, len, max_inner, i, fp,
					 (f >> 13) & 1, room);
			}
		} else if ((f & 0x2000) != (ofrag & 0x2000)) {
			fail_msg("%s: last fragment MF", what);
		}
		if (pos + fp > plen) {
			fail_msg("%s: fragments longer than the payload", what);
		}
		memcpy(re + pos, fr + hl, fp);
		memset(seen + pos, 1, fp);
		pos += fp;
	}
	if (pos != plen || memchr(seen, 0, plen) != NULL ||
	    memcmp(re, orig + ohl, plen) != 0) {
		fail_msg("%s: len %zu max %zu: reassembly differs", what, len,
			 max_inner);
	}
}

static const size_t max_set[] = {28,   29,   35,   36,	 68,   69,   75,
				 76,   100,  128,  504,	 576,  577,  1000,
				 1280, 1424, 1500, 2047, 2048, 2049, 9000};

static void frag_sweep(const uint8_t *opts, size_t optlen, uint16_t frag,
		       const uint8_t *later, size_t laterlen, size_t maxlen,
		       const char *what)
{
	static uint8_t b[BIG];
	struct p4 p = udp4;
	size_t m, plen, n, hl = 20 + optlen;
	int r;

	p.opts = opts;
	p.optlen = optlen;
	p.frag = frag;
	for (m = 0; m < ARRAY_SIZE(max_set); m++) {
		for (plen = 0; hl + plen <= maxlen; plen++) {
			if (frag & 0x2000 && plen % 8) {
				continue; /* a fragment with MF: 8-byte units */
			}
			p.plen = plen;
			p.seed = (uint8_t)(plen + m);
			n = build4(b, &p);
			r = mtu_frag4(b, n, max_set[m], fbuf, flen, MAX_FRAGS);
			if (max_set[m] < hl + 8 && n > max_set[m]) {
				if (r != -EINVAL) {
					fail_msg("%s: len %zu max %zu: %d",
						 what, n, max_set[m], r);
				}
				continue;
			}
			if (r <= 0) {
				fail_msg("%s: len %zu max %zu: %d", what, n,
					 max_set[m], r);
			}
			check_frags(b, n, max_set[m], r, later, laterlen, what);
		}
	}
}

static void test_frag_no_options(void **state)
{
	(void)state;
	frag_sweep(NULL, 0, 0, no_opts, 0, 3000, "plain");
}

static void test_frag_options(void **state)
{
	(void)state;
	frag_sweep(opts_mixed, sizeof(opts_mixed), 0, opts_mixed_later,
		   sizeof(opts_mixed_later), 3000, "options");
	frag_sweep(opts_none_copied, sizeof(opts_none_copied), 0, no_opts, 0,
		   1600, "none copied");
}

/* Inputs that are themselves fragments: a middle one (MF, offset 185 * 8,
 * its options only copied ones), a last one (no MF), and a first one. */
static void test_frag_of_fragment(void **state)
{
	(void)state;
	frag_sweep(opts_copied, sizeof(opts_copied), 0x2000 | 185, opts_copied,
		   sizeof(opts_copied), 3000, "middle");
	frag_sweep(NULL, 0, 0x2000 | 185, no_opts, 0, 3000, "middle plain");
	frag_sweep(opts_copied, sizeof(opts_copied), 370, opts_copied,
		   sizeof(opts_copied), 3000, "last");
	frag_sweep(opts_mixed, sizeof(opts_mixed), 0x2000, opts_mixed_later,
		   sizeof(opts_mixed_later), 3000, "first");
	/* the reserved bit travels along */
	frag_sweep(NULL, 0, 0x8000 | 0x2000 | 7, NULL, 0, 1600, "evil bit");
}

static void test_frag_big(void **state)
{
	static uint8_t b[BIG];
	static const size_t lens[] = {65535, 65534, 65000, 40000, 9000};
	static const size_t maxs[] = {28, 68, 576, 1424, 2048, 65535};
	struct p4 p = udp4;
	size_t i, j, n;
	int r;

	(void)state;
	p.frag = 0;
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		for (j = 0; j < ARRAY_SIZE(maxs); j++) {
			p.plen = lens[i] - 20;
			n = build4(b, &p);
			r = mtu_frag4(b, n, maxs[j], fbuf, flen, MAX_FRAGS);
			assert_true(r > 0);
			check_frags(b, n, maxs[j], r, NULL, 0, "big");
		}
	}
	/* the largest offset a fragment can have: payload ending at 65535 */
	p.frag = 0x2000 | 8000; /* 64000 */
	p.plen = 1535;
	n = build4(b, &p);
	r = mtu_frag4(b, n, 28, fbuf, flen, MAX_FRAGS);
	assert_int_equal(r, 192);
	check_frags(b, n, 28, r, NULL, 0, "edge");
	assert_int_equal(rd16(fbuf[r - 1] + 6), 0x2000 | 8191);
	p.plen = 1536; /* one past */
	n = build4(b, &p);
	assert_int_equal(mtu_frag4(b, n, 28, fbuf, flen, MAX_FRAGS), -EINVAL);
}

static void test_frag_errors(void **state)
{
	static uint8_t b[BIG];
	static const uint8_t bad_len1[4] = {0x83, 1, 0, 0};
	static const uint8_t bad_len_past[4] = {0x44, 5, 0, 0};
	static const uint8_t bad_trunc[4] = {0x01, 0x01, 0x01, 0x83};
	static const uint8_t ok_eol[4] = {0x00, 0x99, 0xff, 0xff};
	struct p4 p = udp4;
	size_t n, i;
	int r, need;

	(void)state;
	/* DF set */
	n = build4(b, &p);
	assert_int_equal(mtu_frag4(b, n, 576, fbuf, flen, 64), -EINVAL);
	/* too small for header + 8 */
	p.frag = 0;
	n = build4(b, &p);
	assert_int_equal(mtu_frag4(b, n, 27, fbuf, flen, 64), -EINVAL);
	assert_int_equal(mtu_frag4(b, n, 0, fbuf, flen, 64), -EINVAL);
	assert_int_equal(mtu_frag4(b, n, 28, fbuf, flen, 1000), 173);
	/* malformed options; garbage after an EOL is fine */
	p.plen = 1000;
	p.optlen = 4;
	p.opts = bad_len1;
	n = build4(b, &p);
	assert_int_equal(mtu_frag4(b, n, 576, fbuf, flen, 64), -EINVAL);
	p.opts = bad_len_past;
	n = build4(b, &p);
	assert_int_equal(mtu_frag4(b, n, 576, fbuf, flen, 64), -EINVAL);
	p.opts = bad_trunc;
	n = build4(b, &p);
	assert_int_equal(mtu_frag4(b, n, 576, fbuf, flen, 64), -EINVAL);
	/* ... but a packet that fits is passed on as it is */
	assert_int_equal(mtu_frag4(b, n, 1024, fbuf, flen, 64), 1);
	p.opts = ok_eol;
	n = build4(b, &p);
	r = mtu_frag4(b, n, 576, fbuf, flen, 64);
	assert_int_equal(r, 2);
	check_frags(b, n, 576, r, NULL, 0, "eol");
	assert_int_equal(fbuf[1][0], 0x45);

	/* -E2BIG at exactly one fragment too few, and nothing written */
	p = udp4;
	p.frag = 0;
	p.plen = 5000;
	n = build4(b, &p);
	need = mtu_frag4(b, n, 1424, fbuf, flen, MAX_FRAGS);
	assert_int_equal(need, 4); /* 1400 * 3 + 800 */
	memset(fbuf, 0xee, sizeof(*fbuf) * 8);
	memset(flen, 0xee, sizeof(flen[0]) * 8);
	assert_int_equal(mtu_frag4(b, n, 1424, fbuf, flen, 3), -E2BIG);
	for (i = 0; i < 8; i++) {
		assert_int_equal(fbuf[i][0], 0xee);
		assert_int_equal(fbuf[i][MTU_FRAG_BUF - 1], 0xee);
	}
	assert_int_equal(flen[0], (size_t)0xeeeeeeeeeeeeeeeeULL);
	assert_int_equal(mtu_frag4(b, n, 1424, fbuf, flen, 4), 4);
	check_frags(b, n, 1424, 4, no_opts, 0, "e2big");
	/* max_inner above the buffer: fragments of MTU_FRAG_BUF */
	assert_int_equal(mtu_frag4(b, n, 9000, fbuf, flen, 2), -E2BIG);
	/* max_inner above the buffer: fragments of MTU_FRAG_BUF */
	r = mtu_frag4(b, n, 9000, fbuf, flen, MAX_FRAGS);
	assert_int_equal(r, 3);
	assert_int_equal(flen[0], 2044);
	check_frags(b, n, 9000, r, NULL, 0, "above buffer");
	/* a packet that fits still needs a slot */
	p.plen = 1000;
	n = build4(b, &p);
	assert_int_equal(mtu_frag4(b, n, 1020, fbuf, flen, 0), -E2BIG);
	assert_int_equal(mtu_frag4(b, n, 1020, fbuf, flen, 1), 1);
	assert_memory_equal(fbuf[0], b, n);

	/* not whole; NULLs */
	assert_int_equal(mtu_frag4(b, n - 1, 576, fbuf, flen, 64), -EINVAL);
	assert_int_equal(mtu_frag4(NULL, n, 576, fbuf, flen, 64), -EINVAL);
	assert_int_equal(mtu_frag4(b, n, 576, NULL, flen, 64), -EINVAL);
	assert_int_equal(mtu_frag4(b, n, 576, fbuf, NULL, 64), -EINVAL);
	n = build6(b, 17, NULL, 0, 1400, a6_src, a6_dst);
	assert_int_equal(mtu_frag4(b, n, 576, fbuf, flen, 64), -EINVAL);
}

/* ---- robustness ---- */

/* Run everything on pkt[0..len) held in a heap block of exactly len bytes,
 * the ICMP output in one of exactly cap bytes; check that the outcomes
 * agree with each other. */
static void run_all(const uint8_t *src, size_t len, size_t max_inner,
		    size_t cap)
{
	uint8_t *pkt = malloc(len ? len : 1);
	uint8_t *out = malloc(cap ? cap : 1);
	enum mtu_verdict v;
	int r4, r6, rf;

	assert_non_null(pkt);
	assert_non_null(out);
	memcpy(pkt, src, len);
	v = mtu_check(pkt, len, max_inner);
	r4 = mtu_icmp4_frag_needed(pkt, len, (uint16_t)(len > 68 ? 68 : 0), out,
				   cap);
	if (r4 > 0) {
		assert_true(v == MTU_FRAG_NEEDED || v == MTU_FITS);
		/* only for len > 68, so at least header + 8 quoted */
		assert_true((size_t)r4 <= cap && r4 >= 8 + 28);
		assert_memory_equal(out + 8, pkt, (size_t)r4 - 8);
		assert_true(ref_csum_ok(out, (size_t)r4));
	}
	r6 = mtu_icmp6_too_big(pkt, len, 1280, out, cap);
	if (r6 > 0) {
		assert_true(v == MTU_FRAG_NEEDED || v == MTU_FITS);
		assert_true((size_t)r6 <= cap);
		assert_memory_equal(out + 8, pkt, (size_t)r6 - 8);
	}
	rf = mtu_frag4(pkt, len, max_inner, fbuf, flen, MAX_FRAGS);
	if (rf > 0) {
		assert_true(v == MTU_FRAGMENT || v == MTU_FITS);
		check_frags(pkt, len, max_inner, rf, NULL, 0, "run_all");
	}
	if (v == MTU_BAD) {
		assert_int_equal(r4, -EINVAL);
		assert_int_equal(r6, -EINVAL);
		assert_int_equal(rf, -EINVAL);
	}
	if (v == MTU_FRAG_NEEDED) {
		/* DF or IPv6: never fragmented */
		assert_int_equal(rf, -EINVAL);
	}
	if (v == MTU_FITS) {
		/* unchanged if IPv4 without DF, refused otherwise */
		assert_int_equal(rf, (pkt[0] >> 4 == 4 && !(pkt[6] & 0x40))
					     ? 1
					     : -EINVAL);
	}
	assert_false(r4 > 0 && r6 > 0);
	free(out);
	free(pkt);
}

static size_t sample_packets(uint8_t (*s)[2048], size_t *len)
{
	/* clang-format off */
	static const uint8_t ext[24] = {
		60, 0, 1, 2, 3, 4, 5, 6, /* hop-by-hop, 8 */
		44, 0, 0, 0, 0, 0, 0, 0, /* destination options, 8 */
		58, 0, 0, 1, 1, 2, 3, 4, /* fragment: offset 0, M */
	};
	static const uint8_t ext_later[24] = {
		60, 0, 1, 2, 3, 4, 5, 6, 44, 0, 0, 0, 0, 0, 0, 0,
		58, 0, 0x10, 1, 1, 2, 3, 4, /* fragment: offset 512 */
	};
	struct p4 p = udp4;
	/* clang-format on */
	size_t k = 0;

	p.plen = 600;
	len[k] = build4(s[k], &p); /* DF UDP */
	k++;
	p.frag = 0;
	p.opts = opts_mixed;
	p.optlen = sizeof(opts_mixed);
	len[k] = build4(s[k], &p); /* no DF, options */
	k++;
	p.frag = 0x4000;
	p.proto = 1;
	p.optlen = 0;
	len[k] = build4(s[k], &p);
	s[k][20] = 8; /* ICMP echo */
	k++;
	len[k] = build6(s[k], 17, NULL, 0, 1300, a6_src, a6_dst);
	k++;
	len[k] = build6(s[k], 0, ext, sizeof(ext), 1300, a6_src, a6_dst);
	s[k][64] = 128; /* echo request behind the extension headers */
	k++;
	len[k] = build6(s[k], 0, ext_later, sizeof(ext_later), 1300, a6_src,
			a6_dst);
	k++;
	return k;
}

static void test_truncated(void **state)
{
	static uint8_t s[8][2048];
	static uint8_t tmp[2048];
	size_t len[8], k, i, l;

	(void)state;
	k = sample_packets(s, len);
	for (i = 0; i < k; i++) {
		for (l = 0; l <= len[i]; l++) {
			/* prefix: only the whole one is valid */
			run_all(s[i], l, 100, 600);
			if (l < len[i]) {
				assert_int_equal(mtu_check(s[i], l, 100),
						 MTU_BAD);
			}
			/* the prefix with its length field patched: whole
			 * by its header, the walks meet the end early */
			memcpy(tmp, s[i], l);
			if (l >= 20 && (tmp[0] >> 4) == 4) {
				wr16(tmp + 2, (unsigned)l);
				wr16(tmp + 10, 0);
				wr16(tmp + 10, ref_csum(tmp, 20));
			}
			if (l >= 40 && (tmp[0] >> 4) == 6) {
				wr16(tmp + 4, (unsigned)(l - 40));
			}
			run_all(tmp, l, 100, 600);
			run_all(tmp, l, 28, 8 + 48);
			run_all(tmp, l, 1000, 1240);
		}
	}
}

static void test_garbage(void **state)
{
	static uint8_t b[4096];
	size_t l, i, iter, ihl;
	uint32_t r;

	(void)state;
	for (iter = 0; iter < 200000; iter++) {
		l = rnd() % 400;
		for (i = 0; i < l; i++) {
			b[i] = (uint8_t)rnd();
		}
		r = rnd();
		if (l >= 40 && (r & 1)) {
			/* plausible headers: random inside */
			if (r & 2) {
				b[0] = (uint8_t)(0x40 | (5 + (r >> 8) % 11));
				wr16(b + 2, (unsigned)l);
				if (r & 4) {
					b[6] &= 0x3f; /* no DF */
				}
				ihl = (size_t)(b[0] & 15) * 4;
				if (ihl > l) {
					ihl = 20;
					b[0] = 0x45;
				}
			} else {
				b[0] = 0x60;
				wr16(b + 4, (unsigned)(l - 40));
				b[8] = (r & 4) ? 0x20 : b[8];
				b[6] = (uint8_t[]){0, 43, 44, 51, 58, 60, 17}
					[(r >> 3) % 7];
			}
		}
		run_all(b, l, 20 + (r >> 16) % 300, (r >> 12) % 700);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inner_max),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_icmp4_hand_vector),
		cmocka_unit_test(test_icmp4_quote),
		cmocka_unit_test(test_icmp4_refused),
		cmocka_unit_test(test_icmp6_vector),
		cmocka_unit_test(test_icmp6_refused),
		cmocka_unit_test(test_frag_no_options),
		cmocka_unit_test(test_frag_options),
		cmocka_unit_test(test_frag_of_fragment),
		cmocka_unit_test(test_frag_big),
		cmocka_unit_test(test_frag_errors),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_garbage),
	};

	return cmocka_run_group_tests(tests, fr_setup, fr_teardown);
}
