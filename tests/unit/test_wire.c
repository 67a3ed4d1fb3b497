/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests for the wire format, version 4 (common/wire.c).
 *
 * Written from common/wire.h and the semantics notes, not from the
 * implementation, so that they are an independent check:
 * - round trips of every type with extreme header values (pn 0 and
 *   2^64 - 1 included);
 * - headers and whole packets compared byte for byte with arrays written by
 *   hand (big-endian, version in the high nibble, pn at offset 8), both
 *   ways: built and compared, and parsed from the hand-written bytes;
 * - a numbered table of malformed packets, each with the reason it must be
 *   rejected for (every reason appears, and the order of the checks), and
 *   the step that must reject it (wire_parse_hdr or wire_parse_body);
 * - truncation sweeps: each valid packet cut at every shorter length, parsed
 *   from a heap buffer of exactly that length so that the sanitizer build
 *   catches any read past the end (a TRAIN cut past its fields is still a
 *   TRAIN, with less padding);
 * - TRAIN's padding: any length up to the largest body, kept in body_len,
 *   never read (any bytes accepted), written as zeros;
 * - wire_parse_hdr() reads nothing of the body: a body on a PROT_NONE page,
 *   a body poisoned for ASan in the sanitizer build, and (every build) the
 *   same outcome with every body byte changed;
 * - a randomized differential test against a naive two-step reference
 *   parser written here, re-encoding every accepted packet and comparing
 *   the bytes, and checking that wire_parse() is wire_parse_hdr() then
 *   wire_parse_body().
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
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/wire.h"

/* In the sanitizer build the body of a packet is poisoned while
 * wire_parse_hdr() runs, so that reading any of it is a report. */
#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif
#ifdef TEST_ASAN
#include <sanitizer/asan_interface.h>
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Header offsets, written here from the layout in wire.h. */
enum {
	O_PGAP = 2,
	O_SESSION = 4,
	O_PN = 8,
	O_GSEQ = 16,
	O_LSEQ = 20,
	O_TSTAMP = 24,
	O_FGAP = 28,
	O_FLAGS = 30,
	O_CLS = 31,
	HDR = 32,
	TAG = 16,
	MINLEN = HDR + TAG,
	ENT = 20, /* report entry */
};

static const uint32_t extremes[] = { 0, 1, 0x7fffffff, 0x80000000, 0xffffffff };
static const uint64_t pn_extremes[] = {
	0, 1, 0x7fffffffffffffffull, 0x8000000000000000ull,
	0xffffffffffffffffull, 0x0102030405060708ull,
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void put64(uint8_t *p, uint64_t v)
{
	unsigned i;

	for (i = 0; i < 8; i++) {
		p[i] = (uint8_t)(v >> (56 - 8 * i));
	}
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < 8; i++) {
		v = v << 8 | p[i];
	}
	return v;
}

/* The test's own header encoder, so that malformed headers can be made.
 * The flow fields (fgap, flags, cls) are zero; enc_flow() sets them. */
static void enc_hdr(uint8_t *b, uint8_t ver, uint8_t type, uint8_t path,
		    uint16_t pgap, uint32_t session, uint64_t pn, uint32_t gseq,
		    uint32_t lseq, uint32_t tstamp)
{
	b[0] = (uint8_t)(ver << 4 | (type & 15));
	b[1] = path;
	put16(b + O_PGAP, pgap);
	put32(b + O_SESSION, session);
	put64(b + O_PN, pn);
	put32(b + O_GSEQ, gseq);
	put32(b + O_LSEQ, lseq);
	put32(b + O_TSTAMP, tstamp);
	put16(b + O_FGAP, 0);
	b[O_FLAGS] = 0;
	b[O_CLS] = 0;
}

static void enc_flow(uint8_t *b, uint16_t fgap, uint8_t flags, uint8_t cls)
{
	put16(b + O_FGAP, fgap);
	b[O_FLAGS] = flags;
	b[O_CLS] = cls;
}

static void fill(uint8_t *b, size_t len, uint8_t seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		b[i] = (uint8_t)(seed + i * 7 + (i >> 8));
	}
}

/* A well-formed IPv4 packet of len bytes (len >= 20), ihl 5. */
static void mk_ipv4(uint8_t *b, size_t len, uint8_t seed)
{
	fill(b, len, seed);
	b[0] = 0x45;
	b[1] = 0;
	put16(b + 2, (uint16_t)len);
	b[8] = 64;
	b[9] = 17;
}

/* A well-formed IPv6 packet of len bytes (len >= 40). */
static void mk_ipv6(uint8_t *b, size_t len, uint8_t seed)
{
	fill(b, len, seed);
	b[0] = 0x60;
	put16(b + 4, (uint16_t)(len - 40));
	b[6] = 17;
	b[7] = 64;
}

/* Copies len bytes into a fresh heap block of exactly len bytes, so that
 * ASan reports any read past the end. */
static uint8_t *exact_copy(const uint8_t *src, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	assert_non_null(p);
	if (len) {
		memcpy(p, src, len);
	}
	return p;
}

static enum wire_drop parse_exact(const uint8_t *src, size_t len,
				  struct wire_msg *m)
{
	uint8_t *p = exact_copy(src, len);
	enum wire_drop d = wire_parse(p, len, m);

	/* m->body and m->tag point into p: callers that need them parse
	 * themselves. */
	free(p);
	return d;
}

/* The reasons wire_parse_hdr() gives: everything decided by the header
 * and the length alone.  The others belong to wire_parse_body(). */
static bool hdr_reason(enum wire_drop d)
{
	return d == WIRE_E_SHORT || d == WIRE_E_VERSION || d == WIRE_E_TYPE ||
	       d == WIRE_E_PATH || d == WIRE_E_CONTROL_SEQ ||
	       d == WIRE_E_FLAGS;
}

static bool same_hdr(const struct wire_hdr *a, const struct wire_hdr *b)
{
	return a->version == b->version && a->type == b->type &&
	       a->path == b->path && a->pgap == b->pgap &&
	       a->session == b->session && a->pn == b->pn &&
	       a->gseq == b->gseq && a->lseq == b->lseq &&
	       a->tstamp == b->tstamp && a->fgap == b->fgap &&
	       a->flags == b->flags && a->cls == b->cls;
}

/* Two parses of the same buffer gave the same message: header, where the
 * parts are, and the decoded body of its type. */
static bool same_msg(const struct wire_msg *a, const struct wire_msg *b)
{
	unsigned i;

	if (!same_hdr(&a->hdr, &b->hdr) || a->body != b->body ||
	    a->body_len != b->body_len || a->tag != b->tag) {
		return false;
	}
	switch (a->hdr.type) {
	case WIRE_REPORT:
		if (a->u.report.n != b->u.report.n) {
			return false;
		}
		for (i = 0; i < a->u.report.n; i++) {
			const struct wire_report_path *p = &a->u.report.p[i];
			const struct wire_report_path *q = &b->u.report.p[i];

			if (p->path != q->path || p->rx_pkts != q->rx_pkts ||
			    p->lost_pkts != q->lost_pkts ||
			    p->delay_us != q->delay_us ||
			    p->lseq_next != q->lseq_next) {
				return false;
			}
		}
		return true;
	case WIRE_PROBE:
	case WIRE_PROBE_ACK:
		return a->u.probe.id == b->u.probe.id &&
		       a->u.probe.value == b->u.probe.value;
	case WIRE_HELLO:
	case WIRE_HELLO_ACK:
		return a->u.hello.r_cpe == b->u.hello.r_cpe &&
		       a->u.hello.r_conc == b->u.hello.r_conc;
	case WIRE_NACK:
		return a->u.nack.path == b->u.nack.path &&
		       a->u.nack.count == b->u.nack.count &&
		       a->u.nack.lseq == b->u.nack.lseq;
	case WIRE_TRAIN:
		return a->u.train.id == b->u.train.id &&
		       a->u.train.idx == b->u.train.idx &&
		       a->u.train.count == b->u.train.count;
	case WIRE_TRAIN_ACK:
		return a->u.train_ack.id == b->u.train_ack.id &&
		       a->u.train_ack.got == b->u.train_ack.got &&
		       a->u.train_ack.count == b->u.train_ack.count &&
		       a->u.train_ack.bytes == b->u.train_ack.bytes &&
		       a->u.train_ack.dt_us == b->u.train_ack.dt_us;
	default:
		return true;
	}
}

/* wire_parse_hdr() must not look at the body.  The packet is copied into a
 * heap block of exactly its size, placed so that the tag starts on an
 * 8-byte boundary (ASan's granule), and in the sanitizer build the body is
 * poisoned while wire_parse_hdr() runs: a read of any body byte is a
 * report.  In every build the header is parsed a second time with every
 * body byte changed and must give the same outcome.  Returns the reason;
 * *m holds the header (its pointers are into the freed copy: only
 * compared, never read). */
static enum wire_drop parse_hdr_blind(const uint8_t *src, size_t len,
				      struct wire_msg *m)
{
	size_t bl = len >= MINLEN ? len - MINLEN : 0, off, i;
	struct wire_msg again;
	enum wire_drop d, d2;
	uint8_t *blk, *pkt;
	void *mem = NULL;

	off = (8 - (HDR + bl) % 8) % 8;
	assert_int_equal(posix_memalign(&mem, 16, off + (len ? len : 1)), 0);
	blk = mem;
	pkt = blk + off;
	if (len) {
		memcpy(pkt, src, len);
	}
#ifdef TEST_ASAN
	if (bl) {
		ASAN_POISON_MEMORY_REGION(pkt + HDR, bl);
	}
#endif
	memset(m, 0xa5, sizeof(*m));
	d = wire_parse_hdr(pkt, len, m);
#ifdef TEST_ASAN
	if (bl) {
		ASAN_UNPOISON_MEMORY_REGION(pkt + HDR, bl);
	}
#endif
	for (i = 0; i < bl; i++) {
		pkt[HDR + i] = (uint8_t)~pkt[HDR + i];
	}
	memset(&again, 0xa5, sizeof(again));
	d2 = wire_parse_hdr(pkt, len, &again);
	if (d2 != d) {
		fail_msg("len %zu: header step gave %s, with the body changed %s",
			 len, wire_drop_name(d), wire_drop_name(d2));
	}
	if (d == WIRE_OK) {
		assert_true(same_hdr(&m->hdr, &again.hdr));
		assert_ptr_equal(m->body, pkt + HDR);
		assert_int_equal(m->body_len, bl);
		assert_ptr_equal(m->tag, pkt + len - TAG);
	}
	free(blk);
	return d;
}

static void check_hdr(const struct wire_hdr *got, const struct wire_hdr *want)
{
	assert_int_equal(got->version, WIRE_VERSION);
	assert_int_equal(got->type, want->type);
	assert_int_equal(got->path, want->path);
	assert_int_equal(got->pgap, want->pgap);
	assert_int_equal(got->session, want->session);
	assert_true(got->pn == want->pn);
	assert_int_equal(got->gseq, want->gseq);
	assert_int_equal(got->lseq, want->lseq);
	assert_int_equal(got->tstamp, want->tstamp);
	assert_int_equal(got->fgap, want->fgap);
	assert_int_equal(got->flags, want->flags);
	assert_int_equal(got->cls, want->cls);
}

/* Builds with wire_build into a buffer of exactly the needed capacity,
 * parses from an exact heap copy, once with wire_parse() and once in the
 * two steps; checks header, body and tag pointers.  m gets the message. */
static void round_trip(const struct wire_hdr *h, const uint8_t *body,
		       size_t body_len, struct wire_msg *m)
{
	size_t len = HDR + body_len + TAG;
	uint8_t *out = malloc(len);
	struct wire_msg split;
	uint8_t *in;
	size_t i;
	int n;

	assert_non_null(out);
	n = wire_build(out, len, h, body, body_len);
	assert_int_equal(n, (int)len);
	for (i = len - TAG; i < len; i++) {
		assert_int_equal(out[i], 0);
	}
	/* the header bytes, against the test's own encoder */
	{
		uint8_t want[HDR];

		enc_hdr(want, WIRE_VERSION, h->type, h->path, h->pgap,
			h->session, h->pn, h->gseq, h->lseq, h->tstamp);
		enc_flow(want, h->fgap, h->flags, h->cls);
		assert_memory_equal(out, want, HDR);
	}
	in = exact_copy(out, len);
	assert_int_equal(wire_parse(in, len, m), WIRE_OK);
	check_hdr(&m->hdr, h);
	assert_ptr_equal(m->body, in + HDR);
	assert_int_equal(m->body_len, body_len);
	assert_ptr_equal(m->tag, in + len - TAG);
	if (body_len) {
		assert_memory_equal(m->body, body, body_len);
	}
	memset(&split, 0x5a, sizeof(split));
	assert_int_equal(wire_parse_hdr(in, len, &split), WIRE_OK);
	assert_int_equal(wire_parse_body(&split), WIRE_OK);
	assert_true(same_msg(m, &split));
	free(in);
	free(out);
	m->body = NULL;
	m->tag = NULL;
}

static void test_overhead(void **state)
{
	(void)state;
	/* 28 outer IPv4+UDP + 32 header + 16 tag; README.md ("Wire format
	 * and overhead"), DESIGN.md and the TCP MSS clamp (1500 - 76 - 40 =
	 * 1384) quote 76 bytes, so it must not change silently. */
	assert_int_equal(WIRE_VERSION, 4);
	assert_int_equal(WIRE_OVERHEAD, 76);
	assert_int_equal(WIRE_HDR_LEN, HDR);
	assert_int_equal(WIRE_TAG_LEN, TAG);
	assert_int_equal(1500 - WIRE_OVERHEAD, 1424);
	assert_int_equal(1500 - WIRE_OVERHEAD - 40, 1384);
	assert_int_equal(WIRE_REPORT_ENTRY, ENT);
	assert_int_equal(WIRE_REPORT_MAX, 4 + 16 * 20);
	assert_int_equal(WIRE_F_FLOW_FIRST, 0x01);
	assert_int_equal(WIRE_F_RESENT, 0x02);
	assert_int_equal(WIRE_F_DUP, 0x04);
	assert_int_equal(WIRE_PROBE_LEN, 8);
	assert_int_equal(WIRE_HELLO_LEN, 8);
	assert_int_equal(WIRE_HELLO_ACK_LEN, 16);
	/* TRAIN: u32 id, u16 index, u16 count (padding after); TRAIN_ACK:
	 * u32 id, u16 got, u16 count, u32 bytes, u32 dt_us */
	assert_int_equal(WIRE_TRAIN_LEN, 8);
	assert_int_equal(WIRE_TRAIN_ACK_LEN, 16);
	assert_int_equal(WIRE_TRAIN_MAX, 256);
	assert_int_equal(WIRE_TRAIN, 8);
	assert_int_equal(WIRE_TRAIN_ACK, 9);
	assert_int_equal(WIRE_TYPE_MAX, WIRE_TRAIN_ACK);
}

/* ---- hand-written vectors ---- */

static const uint8_t vec_hdr[32] = {
	0x41, 0x03, 0x12, 0x34,       /* v4 DATA, path 3, pgap */
	0xde, 0xad, 0xbe, 0xef,       /* session */
	0x01, 0x23, 0x45, 0x67,       /* pn, high half */
	0x89, 0xab, 0xcd, 0xef,       /* pn, low half */
	0x01, 0x02, 0x03, 0x04,       /* gseq */
	0x05, 0x06, 0x07, 0x08,       /* lseq */
	0x09, 0x0a, 0x0b, 0x0c,       /* tstamp */
	0x56, 0x78, 0x06, 0x9a,       /* fgap, flags RESENT|DUP, cls */
};

static const uint8_t vec_probe[56] = {
	0x43, 0x0f, 0x00, 0x00,       /* v4 PROBE, path 15, pgap 0 */
	0x80, 0x00, 0x00, 0x01,       /* session */
	0xff, 0xff, 0xff, 0xff,       /* pn 2^64 - 1 */
	0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xfe,       /* gseq */
	0x00, 0x00, 0x00, 0x00,       /* lseq */
	0xa0, 0xb0, 0xc0, 0xd0,       /* tstamp */
	0x00, 0x00, 0x00, 0x00,       /* fgap, flags, cls: 0 */
	0x11, 0x22, 0x33, 0x44,       /* probe id */
	0x88, 0x99, 0xaa, 0xbb,       /* value */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* tag */
};

static const uint8_t vec_report[4 + 40] = {
	0x02, 0x00, 0x00, 0x00,       /* n = 2, reserved */
	0x05, 0x00, 0x00, 0x00,       /* path 5, flags 0, zero */
	0x01, 0x02, 0x03, 0x04,       /* rx */
	0xff, 0xff, 0xff, 0xfe,       /* lost */
	0x00, 0x00, 0x01, 0x00,       /* delay_us */
	0x0a, 0x0b, 0x0c, 0x0d,       /* lseq_next */
	0x0f, 0x00, 0x00, 0x00,       /* path 15 */
	0x80, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00,
	0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff,
};

static const uint8_t vec_report_pkt[32 + 44 + 16] = {
	0x42, 0x01, 0x00, 0x00,       /* v4 REPORT, path 1 */
	0x00, 0x00, 0x00, 0x2a,       /* session 42 */
	0x00, 0x00, 0x00, 0x00,       /* pn */
	0x00, 0x00, 0x10, 0x01,
	0x00, 0x00, 0x00, 0x63,       /* gseq: report number 99 */
	0x00, 0x00, 0x00, 0x00,       /* lseq */
	0x00, 0x00, 0x00, 0x05,       /* tstamp */
	0x00, 0x00, 0x00, 0x00,       /* fgap, flags, cls: 0 */
	0x02, 0x00, 0x00, 0x00,       /* n = 2 */
	0x00, 0x00, 0x00, 0x00,       /* path 0 */
	0x00, 0x00, 0x00, 0x00,       /* rx 0 */
	0x00, 0x00, 0x00, 0x00,       /* lost 0 */
	0x00, 0x00, 0x00, 0x00,       /* delay_us 0 */
	0x00, 0x00, 0x00, 0x00,       /* lseq_next 0: nothing received */
	0x07, 0x00, 0x00, 0x00,       /* path 7 */
	0x00, 0x00, 0x27, 0x10,       /* rx 10000 */
	0x00, 0x00, 0x00, 0x03,       /* lost 3 */
	0x00, 0x00, 0x13, 0x88,       /* delay_us 5000 */
	0x80, 0x00, 0x00, 0x01,       /* lseq_next */
	0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, /* tag */
	0xb8, 0xb9, 0xba, 0xbb, 0xbc, 0xbd, 0xbe, 0xbf,
};

static const uint8_t vec_hello_body[8] = {
	0xca, 0xfe, 0xba, 0xbe, 0xde, 0xad, 0xbe, 0xef, /* r_cpe */
};

static const uint8_t vec_hello_ack_body[16] = {
	0xca, 0xfe, 0xba, 0xbe, 0xde, 0xad, 0xbe, 0xef, /* r_cpe echoed */
	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, /* r_conc */
};

static const uint8_t vec_hello[56] = {
	0x45, 0x00, 0x00, 0x00,       /* v4 HELLO, path 0 */
	0x00, 0x00, 0x00, 0x2a,       /* session 42 */
	0x80, 0x00, 0x00, 0x00,       /* pn: random, top bit set */
	0x12, 0x34, 0x56, 0x01,
	0x00, 0x00, 0x00, 0x07,       /* gseq: control counter */
	0x00, 0x00, 0x00, 0x00,       /* lseq */
	0x00, 0x0f, 0x42, 0x40,       /* tstamp 1000000 */
	0x00, 0x00, 0x00, 0x00,       /* fgap, flags, cls: 0 */
	0xca, 0xfe, 0xba, 0xbe,       /* r_cpe */
	0xde, 0xad, 0xbe, 0xef,
	0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, /* tag */
	0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf,
};

static const uint8_t vec_hello_ack[64] = {
	0x46, 0x0e, 0x00, 0x00,       /* v4 HELLO_ACK, path 14 */
	0x00, 0x00, 0x00, 0x2a,       /* session 42 */
	0xfe, 0xdc, 0xba, 0x98,       /* pn */
	0x76, 0x54, 0x32, 0x10,
	0x00, 0x00, 0x00, 0x01,       /* gseq */
	0x00, 0x00, 0x00, 0x00,       /* lseq */
	0xff, 0xff, 0xff, 0xff,       /* tstamp */
	0x00, 0x00, 0x00, 0x00,       /* fgap, flags, cls: 0 */
	0xca, 0xfe, 0xba, 0xbe,       /* r_cpe echoed */
	0xde, 0xad, 0xbe, 0xef,
	0x00, 0x11, 0x22, 0x33,       /* r_conc */
	0x44, 0x55, 0x66, 0x77,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* tag */
};

/* the first packet of its flow: FLOW_FIRST, fgap 0 */
static const uint8_t vec_data[32 + 20 + 16] = {
	0x41, 0x03, 0x12, 0x34,       /* v4 DATA, path 3, pgap */
	0xde, 0xad, 0xbe, 0xef,       /* session */
	0x00, 0x00, 0x00, 0x00,       /* pn 0 */
	0x00, 0x00, 0x00, 0x00,
	0x01, 0x02, 0x03, 0x04,       /* gseq */
	0x05, 0x06, 0x07, 0x08,       /* lseq */
	0x09, 0x0a, 0x0b, 0x0c,       /* tstamp */
	0x00, 0x00, 0x01, 0x02,       /* fgap 0, FLOW_FIRST, cls 2 */
	0x45, 0x00, 0x00, 0x14,       /* inner IPv4, 20 bytes */
	0x00, 0x00, 0x40, 0x00,
	0x40, 0x11, 0x00, 0x00,
	0x0a, 0x00, 0x00, 0x01,
	0x0a, 0x00, 0x00, 0x02,
	0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, /* tag */
	0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff,
};

/* a later packet of its flow, sent again: fgap set, RESENT, cls 255 */
static const uint8_t vec_data_resent[32 + 40 + 16] = {
	0x41, 0x00, 0x00, 0x00,       /* v4 DATA, path 0, pgap 0 */
	0x00, 0x00, 0x00, 0x01,       /* session */
	0x00, 0x00, 0x00, 0x01,       /* pn 0x1000000ff */
	0x00, 0x00, 0x00, 0xff,
	0xff, 0xff, 0xff, 0xff,       /* gseq */
	0x00, 0x00, 0x00, 0x00,       /* lseq 0 */
	0x00, 0x00, 0x00, 0x00,       /* tstamp 0 */
	0x80, 0x01, 0x02, 0xff,       /* fgap 0x8001, RESENT, cls 255 */
	0x60, 0x00, 0x00, 0x00,       /* inner IPv6, 40 bytes */
	0x00, 0x00, 0x3b, 0x40,       /* payload 0, no next header */
	0xfd, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
	0xfd, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
	0xe0, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, /* tag */
	0xe8, 0xe9, 0xea, 0xeb, 0xec, 0xed, 0xee, 0xef,
};

/* the last packet of the largest train, padded with 16 zero bytes */
static const uint8_t vec_train[32 + 24 + 16] = {
	0x48, 0x02, 0x00, 0x00,       /* v4 TRAIN, path 2 */
	0x00, 0x00, 0x00, 0x2a,       /* session 42 */
	0x00, 0x00, 0x00, 0x00,       /* pn */
	0x00, 0x00, 0x10, 0x02,
	0x00, 0x00, 0x00, 0x64,       /* gseq: control counter 100 */
	0x00, 0x00, 0x00, 0x00,       /* lseq */
	0x00, 0x00, 0x00, 0x10,       /* tstamp */
	0x00, 0x00, 0x00, 0x00,       /* fgap, flags, cls: 0 */
	0xfe, 0xed, 0xf0, 0x0d,       /* train id */
	0x00, 0xff, 0x01, 0x00,       /* index 255, count 256 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* padding */
	0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, /* tag */
	0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf,
};

static const uint8_t vec_train_ack[32 + 16 + 16] = {
	0x49, 0x0d, 0x00, 0x00,       /* v4 TRAIN_ACK, path 13 */
	0x00, 0x00, 0x00, 0x2a,       /* session 42 */
	0x00, 0x00, 0x00, 0x01,       /* pn */
	0x00, 0x00, 0x00, 0x00,
	0xff, 0xff, 0xff, 0xff,       /* gseq */
	0x00, 0x00, 0x00, 0x00,       /* lseq */
	0x12, 0x34, 0x56, 0x78,       /* tstamp */
	0x00, 0x00, 0x00, 0x00,       /* fgap, flags, cls: 0 */
	0xfe, 0xed, 0xf0, 0x0d,       /* train id echoed */
	0x00, 0xfe, 0x01, 0x00,       /* got 254 of count 256 */
	0x00, 0x01, 0xd4, 0xc0,       /* bytes 120000 */
	0x00, 0x00, 0x03, 0xe8,       /* dt_us 1000 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* tag */
};

/* Parses a hand-written packet from an exact heap copy in both ways;
 * returns the copy (the caller frees it) and the message. */
static uint8_t *parse_vector(const uint8_t *vec, size_t len, struct wire_msg *m)
{
	uint8_t *in = exact_copy(vec, len);
	struct wire_msg split;

	assert_int_equal(wire_parse(in, len, m), WIRE_OK);
	assert_int_equal(wire_parse_hdr(in, len, &split), WIRE_OK);
	assert_int_equal(wire_parse_body(&split), WIRE_OK);
	assert_true(same_msg(m, &split));
	assert_int_equal(m->hdr.version, 4);
	assert_ptr_equal(m->body, in + HDR);
	assert_int_equal(m->body_len, len - MINLEN);
	assert_ptr_equal(m->tag, in + len - TAG);
	assert_memory_equal(m->tag, vec + len - TAG, TAG);
	return in;
}

/* wire_build() of h and body gives the hand-written packet vec, up to its
 * tag (wire_build zeroes the tag), and writes nothing past it. */
static void build_vector(const struct wire_hdr *h, const uint8_t *body,
			 size_t body_len, const uint8_t *vec, size_t len)
{
	uint8_t buf[128];

	assert_true(len < sizeof(buf));
	memset(buf, 0xaa, sizeof(buf));
	assert_int_equal(wire_build(buf, sizeof(buf), h, body, body_len),
			 (int)len);
	assert_memory_equal(buf, vec, len - TAG);
	assert_int_equal(buf[len], 0xaa);
}

static void test_vectors_build(void **state)
{
	struct wire_hdr h = {
		.version = 9, /* ignored: always WIRE_VERSION */
		.type = WIRE_DATA, .path = 3, .pgap = 0x1234,
		.session = 0xdeadbeef, .pn = 0x0123456789abcdefull,
		.gseq = 0x01020304, .lseq = 0x05060708, .tstamp = 0x090a0b0c,
		.fgap = 0x5678, .flags = WIRE_F_RESENT | WIRE_F_DUP,
		.cls = 0x9a,
	};
	struct wire_probe pr = { .id = 0x11223344, .value = 0x8899aabb };
	struct wire_hello he = { .r_cpe = 0xcafebabedeadbeefull,
				 .r_conc = 0x0011223344556677ull };
	struct wire_report r = { .n = 2 };
	struct wire_train tr = { .id = 0xfeedf00d, .idx = 255, .count = 256 };
	struct wire_train_ack ta = { .id = 0xfeedf00d, .got = 254,
				     .count = 256, .bytes = 120000,
				     .dt_us = 1000 };
	uint8_t buf[80], body[24];
	uint8_t rep[64];

	(void)state;
	memset(buf, 0xaa, sizeof(buf));
	wire_put_hdr(buf, &h);
	assert_memory_equal(buf, vec_hdr, sizeof(vec_hdr));
	assert_int_equal(buf[32], 0xaa); /* nothing written past 32 bytes */

	/* whole DATA packets with the flow fields */
	h = (struct wire_hdr){ .type = WIRE_DATA, .path = 3, .pgap = 0x1234,
			       .session = 0xdeadbeef, .pn = 0,
			       .gseq = 0x01020304, .lseq = 0x05060708,
			       .tstamp = 0x090a0b0c, .fgap = 0,
			       .flags = WIRE_F_FLOW_FIRST, .cls = 2 };
	build_vector(&h, vec_data + HDR, 20, vec_data, sizeof(vec_data));
	h = (struct wire_hdr){ .type = WIRE_DATA, .session = 1,
			       .pn = 0x1000000ffull, .gseq = 0xffffffff,
			       .fgap = 0x8001, .flags = WIRE_F_RESENT,
			       .cls = 255 };
	build_vector(&h, vec_data_resent + HDR, 40, vec_data_resent,
		     sizeof(vec_data_resent));

	h = (struct wire_hdr){ .version = 0, .type = WIRE_PROBE, .path = 15,
			       .session = 0x80000001, .pn = UINT64_MAX,
			       .gseq = 0xfffffffe, .tstamp = 0xa0b0c0d0 };
	assert_int_equal(wire_put_probe(body, sizeof(body), &pr), 8);
	memset(buf, 0xaa, sizeof(buf));
	assert_int_equal(wire_build(buf, sizeof(buf), &h, body, 8), 56);
	assert_memory_equal(buf, vec_probe, sizeof(vec_probe));
	assert_int_equal(buf[56], 0xaa);

	r.p[0] = (struct wire_report_path){ 5, 0x01020304, 0xfffffffe, 0x100,
					    0x0a0b0c0d };
	r.p[1] = (struct wire_report_path){ 15, 0x80000000, 0, 0xffffffff,
					    0xffffffff };
	memset(rep, 0xaa, sizeof(rep));
	assert_int_equal(wire_put_report(rep, sizeof(rep), &r), 44);
	assert_memory_equal(rep, vec_report, sizeof(vec_report));
	assert_int_equal(rep[44], 0xaa);

	/* a whole REPORT packet, body from wire_put_report */
	r.p[0] = (struct wire_report_path){ 0, 0, 0, 0, 0 };
	r.p[1] = (struct wire_report_path){ 7, 10000, 3, 5000, 0x80000001 };
	assert_int_equal(wire_put_report(rep, sizeof(rep), &r), 44);
	h = (struct wire_hdr){ .type = WIRE_REPORT, .path = 1, .session = 42,
			       .pn = 0x1001, .gseq = 99, .tstamp = 5 };
	build_vector(&h, rep, 44, vec_report_pkt, sizeof(vec_report_pkt));

	/* HELLO: r_cpe only, whatever r_conc holds */
	memset(body, 0xaa, sizeof(body));
	assert_int_equal(wire_put_hello(body, sizeof(body), &he), 8);
	assert_memory_equal(body, vec_hello_body, sizeof(vec_hello_body));
	assert_int_equal(body[8], 0xaa);
	memset(body, 0xaa, sizeof(body));
	assert_int_equal(wire_put_hello_ack(body, sizeof(body), &he), 16);
	assert_memory_equal(body, vec_hello_ack_body,
			    sizeof(vec_hello_ack_body));
	assert_int_equal(body[16], 0xaa);

	/* whole HELLO and HELLO_ACK packets (tags zero from wire_build) */
	h = (struct wire_hdr){ .type = WIRE_HELLO, .session = 42,
			       .pn = 0x8000000012345601ull, .gseq = 7,
			       .tstamp = 1000000 };
	build_vector(&h, vec_hello_body, 8, vec_hello, sizeof(vec_hello));
	h = (struct wire_hdr){ .type = WIRE_HELLO_ACK, .path = 14,
			       .session = 42, .pn = 0xfedcba9876543210ull,
			       .gseq = 1, .tstamp = 0xffffffff };
	memset(buf, 0xaa, sizeof(buf));
	assert_int_equal(wire_build(buf, sizeof(buf), &h, vec_hello_ack_body,
				    16),
			 64);
	assert_memory_equal(buf, vec_hello_ack, sizeof(vec_hello_ack));
	assert_int_equal(buf[64], 0xaa);

	/* TRAIN: the fields, then zeros up to the length asked for (the
	 * buffer's 0xaa shows that the padding is written, and nothing
	 * past it) */
	memset(rep, 0xaa, sizeof(rep));
	assert_int_equal(wire_put_train(rep, sizeof(rep), &tr, 24), 24);
	assert_memory_equal(rep, vec_train + HDR, 24);
	assert_int_equal(rep[24], 0xaa);
	h = (struct wire_hdr){ .type = WIRE_TRAIN, .path = 2, .session = 42,
			       .pn = 0x1002, .gseq = 100, .tstamp = 0x10 };
	build_vector(&h, rep, 24, vec_train, sizeof(vec_train));
	memset(rep, 0xaa, sizeof(rep));
	assert_int_equal(wire_put_train_ack(rep, sizeof(rep), &ta), 16);
	assert_memory_equal(rep, vec_train_ack + HDR, 16);
	assert_int_equal(rep[16], 0xaa);
	h = (struct wire_hdr){ .type = WIRE_TRAIN_ACK, .path = 13,
			       .session = 42, .pn = 1ull << 32,
			       .gseq = 0xffffffff, .tstamp = 0x12345678 };
	build_vector(&h, rep, 16, vec_train_ack, sizeof(vec_train_ack));
}

/* The hand-written packets, parsed: every field where the layout says. */
static void test_vectors_parse(void **state)
{
	struct wire_msg m;
	uint8_t *in;

	(void)state;
	in = parse_vector(vec_data, sizeof(vec_data), &m);
	assert_int_equal(m.hdr.type, WIRE_DATA);
	assert_int_equal(m.hdr.path, 3);
	assert_int_equal(m.hdr.pgap, 0x1234);
	assert_int_equal(m.hdr.session, 0xdeadbeef);
	assert_true(m.hdr.pn == 0);
	assert_int_equal(m.hdr.gseq, 0x01020304);
	assert_int_equal(m.hdr.lseq, 0x05060708);
	assert_int_equal(m.hdr.tstamp, 0x090a0b0c);
	assert_int_equal(m.hdr.fgap, 0);
	assert_int_equal(m.hdr.flags, WIRE_F_FLOW_FIRST);
	assert_int_equal(m.hdr.cls, 2);
	assert_int_equal(m.body_len, 20);
	assert_memory_equal(m.body, vec_data + 32, 20);
	free(in);

	in = parse_vector(vec_data_resent, sizeof(vec_data_resent), &m);
	assert_int_equal(m.hdr.type, WIRE_DATA);
	assert_int_equal(m.hdr.path, 0);
	assert_int_equal(m.hdr.pgap, 0);
	assert_int_equal(m.hdr.session, 1);
	assert_true(m.hdr.pn == 0x1000000ffull);
	assert_int_equal(m.hdr.gseq, 0xffffffff);
	assert_int_equal(m.hdr.lseq, 0);
	assert_int_equal(m.hdr.tstamp, 0);
	assert_int_equal(m.hdr.fgap, 0x8001);
	assert_int_equal(m.hdr.flags, WIRE_F_RESENT);
	assert_int_equal(m.hdr.cls, 255);
	assert_int_equal(m.body_len, 40);
	assert_memory_equal(m.body, vec_data_resent + 32, 40);
	free(in);

	in = parse_vector(vec_probe, sizeof(vec_probe), &m);
	assert_int_equal(m.hdr.type, WIRE_PROBE);
	assert_int_equal(m.hdr.path, 15);
	assert_int_equal(m.hdr.session, 0x80000001);
	assert_true(m.hdr.pn == UINT64_MAX);
	assert_int_equal(m.hdr.gseq, 0xfffffffe);
	assert_int_equal(m.hdr.lseq, 0);
	assert_int_equal(m.hdr.tstamp, 0xa0b0c0d0);
	assert_int_equal(m.hdr.fgap, 0);
	assert_int_equal(m.hdr.flags, 0);
	assert_int_equal(m.hdr.cls, 0);
	assert_int_equal(m.u.probe.id, 0x11223344);
	assert_int_equal(m.u.probe.value, 0x8899aabb);
	free(in);

	in = parse_vector(vec_report_pkt, sizeof(vec_report_pkt), &m);
	assert_int_equal(m.hdr.type, WIRE_REPORT);
	assert_int_equal(m.hdr.path, 1);
	assert_int_equal(m.hdr.session, 42);
	assert_true(m.hdr.pn == 0x1001);
	assert_int_equal(m.hdr.gseq, 99);
	assert_int_equal(m.hdr.tstamp, 5);
	assert_int_equal(m.body_len, 44);
	assert_int_equal(m.u.report.n, 2);
	assert_int_equal(m.u.report.p[0].path, 0);
	assert_int_equal(m.u.report.p[0].rx_pkts, 0);
	assert_int_equal(m.u.report.p[0].lost_pkts, 0);
	assert_int_equal(m.u.report.p[0].delay_us, 0);
	assert_int_equal(m.u.report.p[0].lseq_next, 0);
	assert_int_equal(m.u.report.p[1].path, 7);
	assert_int_equal(m.u.report.p[1].rx_pkts, 10000);
	assert_int_equal(m.u.report.p[1].lost_pkts, 3);
	assert_int_equal(m.u.report.p[1].delay_us, 5000);
	assert_int_equal(m.u.report.p[1].lseq_next, 0x80000001);
	free(in);

	in = parse_vector(vec_hello, sizeof(vec_hello), &m);
	assert_int_equal(m.hdr.type, WIRE_HELLO);
	assert_int_equal(m.hdr.path, 0);
	assert_int_equal(m.hdr.session, 42);
	assert_true(m.hdr.pn == 0x8000000012345601ull);
	assert_int_equal(m.hdr.gseq, 7);
	assert_int_equal(m.hdr.tstamp, 1000000);
	assert_int_equal(m.body_len, 8);
	assert_true(m.u.hello.r_cpe == 0xcafebabedeadbeefull);
	assert_true(m.u.hello.r_conc == 0);
	free(in);

	in = parse_vector(vec_hello_ack, sizeof(vec_hello_ack), &m);
	assert_int_equal(m.hdr.type, WIRE_HELLO_ACK);
	assert_int_equal(m.hdr.path, 14);
	assert_true(m.hdr.pn == 0xfedcba9876543210ull);
	assert_int_equal(m.hdr.gseq, 1);
	assert_int_equal(m.hdr.tstamp, 0xffffffff);
	assert_int_equal(m.body_len, 16);
	assert_true(m.u.hello.r_cpe == 0xcafebabedeadbeefull);
	assert_true(m.u.hello.r_conc == 0x0011223344556677ull);
	free(in);

	/* the padding stays in the body: body_len is the whole of it */
	in = parse_vector(vec_train, sizeof(vec_train), &m);
	assert_int_equal(m.hdr.type, WIRE_TRAIN);
	assert_int_equal(m.hdr.path, 2);
	assert_int_equal(m.hdr.session, 42);
	assert_true(m.hdr.pn == 0x1002);
	assert_int_equal(m.hdr.gseq, 100);
	assert_int_equal(m.hdr.tstamp, 0x10);
	assert_int_equal(m.body_len, 24);
	assert_int_equal(m.u.train.id, 0xfeedf00d);
	assert_int_equal(m.u.train.idx, 255);
	assert_int_equal(m.u.train.count, 256);
	free(in);

	in = parse_vector(vec_train_ack, sizeof(vec_train_ack), &m);
	assert_int_equal(m.hdr.type, WIRE_TRAIN_ACK);
	assert_int_equal(m.hdr.path, 13);
	assert_true(m.hdr.pn == 1ull << 32);
	assert_int_equal(m.hdr.gseq, 0xffffffff);
	assert_int_equal(m.hdr.tstamp, 0x12345678);
	assert_int_equal(m.body_len, 16);
	assert_int_equal(m.u.train_ack.id, 0xfeedf00d);
	assert_int_equal(m.u.train_ack.got, 254);
	assert_int_equal(m.u.train_ack.count, 256);
	assert_int_equal(m.u.train_ack.bytes, 120000);
	assert_int_equal(m.u.train_ack.dt_us, 1000);
	free(in);

	/* v1 (20-byte header) and v2 (28-byte header) packets of the same
	 * size are refused for their version, not read in an old layout */
	{
		uint8_t old[56];

		memcpy(old, vec_probe, sizeof(old));
		old[0] = 0x13;
		assert_int_equal(parse_exact(old, sizeof(old), &m),
				 WIRE_E_VERSION);
		old[0] = 0x23;
		assert_int_equal(parse_exact(old, sizeof(old), &m),
				 WIRE_E_VERSION);
	}
	/* a v2 DATA packet as v2 wrote it: 28-byte header, inner IPv4 at
	 * 28; the same bytes with version 4 (v3's layout) read the inner packet's first 4
	 * bytes as fgap/flags/cls and leave a 16-byte inner packet */
	{
		uint8_t v2[28 + 20 + 16];

		memcpy(v2, vec_data, 28);
		v2[0] = 0x21;
		memcpy(v2 + 28, vec_data + 32, 20 + 16);
		assert_int_equal(parse_exact(v2, sizeof(v2), &m),
				 WIRE_E_VERSION);
		v2[0] = 0x41; /* fgap 0x4500, flags 0x00, cls 0x14 */
		assert_int_equal(parse_exact(v2, sizeof(v2), &m),
				 WIRE_E_INNER_SHORT);
	}
}

/* Every combination of the extreme gseq, lseq and tstamp values, pgap and
 * fgap 0 and 65535, every flag, cls 0 and 255 and the extreme packet
 * numbers survives encode/decode, on every path. */
static void test_round_trip_hdr_extremes(void **state)
{
	static const struct {
		uint16_t pgap, fgap;
		uint8_t flags, cls;
	} flows[] = {
		{ 0, 0, WIRE_F_FLOW_FIRST, 0 },
		{ 65535, 65535, WIRE_F_RESENT | WIRE_F_DUP, 255 },
		{ 0, 1, 0, 1 },
		{ 65535, 0, WIRE_F_FLOW_FIRST | WIRE_F_RESENT | WIRE_F_DUP, 0x80 },
		{ 1, 0x8000, WIRE_F_DUP, 0x7f },
	};
	uint8_t inner[20];
	struct wire_msg m;
	unsigned a, b, c, g, p, n = 0;

	(void)state;
	mk_ipv4(inner, sizeof(inner), 1);
	for (a = 0; a < ARRAY_SIZE(extremes); a++) {
		for (b = 0; b < ARRAY_SIZE(extremes); b++) {
			for (c = 0; c < ARRAY_SIZE(extremes); c++) {
				for (g = 0; g < ARRAY_SIZE(flows); g++) {
					for (p = 0; p < ARRAY_SIZE(pn_extremes); p++) {
						struct wire_hdr h = {
							.type = WIRE_DATA,
							.path = (uint8_t)((a * 5 + b + c + p) % 16),
							.pgap = flows[g].pgap,
							.session = extremes[(a + b + c) % 5],
							.pn = pn_extremes[p],
							.gseq = extremes[a],
							.lseq = extremes[b],
							.tstamp = extremes[c],
							.fgap = flows[g].fgap,
							.flags = flows[g].flags,
							.cls = flows[g].cls,
						};
						round_trip(&h, inner, sizeof(inner), &m);
						n++;
					}
				}
			}
		}
	}
	assert_int_equal(n, 5 * 5 * 5 * ARRAY_SIZE(flows) *
				    ARRAY_SIZE(pn_extremes));
}

static void test_round_trip_data(void **state)
{
	static const size_t v4[] = { 20, 21, 64, 576, 1424, 1500, 65535 };
	static const size_t v6[] = { 40, 41, 1280, 1404, 1424, 1500, 65535 };
	uint8_t *inner = malloc(65535);
	struct wire_msg m;
	unsigned i, j;

	(void)state;
	assert_non_null(inner);
	for (i = 0; i < ARRAY_SIZE(v4) + ARRAY_SIZE(v6); i++) {
		bool six = i >= ARRAY_SIZE(v4);
		size_t len = six ? v6[i - ARRAY_SIZE(v4)] : v4[i];

		if (six) {
			mk_ipv6(inner, len, (uint8_t)i);
		} else {
			mk_ipv4(inner, len, (uint8_t)i);
		}
		for (j = 0; j < ARRAY_SIZE(pn_extremes); j++) {
			struct wire_hdr h = {
				.type = WIRE_DATA,
				.path = (uint8_t)(j == 4 ? 15 : j * 3),
				.pgap = (j & 1) ? 65535 : (uint16_t)j,
				.session = extremes[(j + 3) % 5],
				.pn = pn_extremes[(i + j) % ARRAY_SIZE(pn_extremes)],
				.gseq = extremes[j % 5],
				.lseq = extremes[(j + 1) % 5],
				.tstamp = extremes[(j + 2) % 5],
				/* a flow's first packet names no earlier one */
				.fgap = (j & 1) ? (uint16_t)(65535 - j) : 0,
				.flags = (j & 1) ? (uint8_t)(j & 6)
						 : WIRE_F_FLOW_FIRST,
				.cls = (uint8_t)(i * 37 + j),
			};
			round_trip(&h, inner, len, &m);
		}
	}
	free(inner);
}

static void test_round_trip_report(void **state)
{
	static const unsigned counts[] = { 0, 1, 16 };
	uint8_t body[WIRE_REPORT_MAX];
	struct wire_msg m;
	unsigned i, j, e;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		for (j = 0; j < ARRAY_SIZE(extremes); j++) {
			struct wire_hdr h = {
				.type = WIRE_REPORT,
				.path = (uint8_t)(j * 3),
				.session = extremes[(j + 1) % 5],
				.pn = pn_extremes[(i + j) % ARRAY_SIZE(pn_extremes)],
				.gseq = extremes[j],
				.tstamp = extremes[(j + 2) % 5],
			};
			struct wire_report r;
			int n;

			memset(&r, 0, sizeof(r));
			r.n = (uint8_t)counts[i];
			for (e = 0; e < r.n; e++) {
				/* paths in any order, 15 included */
				r.p[e].path = (uint8_t)(15 - e);
				r.p[e].rx_pkts = extremes[(e + j) % 5];
				r.p[e].lost_pkts = extremes[(e + j + 1) % 5];
				r.p[e].delay_us = extremes[(e + j + 2) % 5] ^ e;
				r.p[e].lseq_next = extremes[(e + j + 3) % 5] ^ e;
			}
			n = wire_put_report(body, sizeof(body), &r);
			assert_int_equal(n, 4 + 20 * r.n);
			/* the entry's flags byte and zero are written 0 */
			for (e = 0; e < r.n; e++) {
				assert_int_equal(body[4 + 20 * e + 1], 0);
				assert_int_equal(get16(body + 4 + 20 * e + 2), 0);
				assert_int_equal(get32(body + 4 + 20 * e + 16),
						 r.p[e].lseq_next);
			}
			round_trip(&h, body, (size_t)n, &m);
			assert_int_equal(m.u.report.n, r.n);
			for (e = 0; e < r.n; e++) {
				assert_int_equal(m.u.report.p[e].path, r.p[e].path);
				assert_int_equal(m.u.report.p[e].rx_pkts,
						 r.p[e].rx_pkts);
				assert_int_equal(m.u.report.p[e].lost_pkts,
						 r.p[e].lost_pkts);
				assert_int_equal(m.u.report.p[e].delay_us,
						 r.p[e].delay_us);
				assert_int_equal(m.u.report.p[e].lseq_next,
						 r.p[e].lseq_next);
			}
		}
	}
}

static void test_round_trip_probe(void **state)
{
	static const uint8_t types[] = { WIRE_PROBE, WIRE_PROBE_ACK };
	uint8_t body[8];
	struct wire_msg m;
	unsigned t, j;

	(void)state;
	for (t = 0; t < ARRAY_SIZE(types); t++) {
		for (j = 0; j < ARRAY_SIZE(extremes); j++) {
			struct wire_hdr h = {
				.type = types[t],
				.path = (uint8_t)(j == 4 ? 15 : j),
				.session = extremes[(j + 4) % 5],
				.pn = pn_extremes[(t + j) % ARRAY_SIZE(pn_extremes)],
				.gseq = extremes[j],
				.tstamp = extremes[(j + 1) % 5],
			};
			struct wire_probe p = {
				.id = extremes[(j + 2) % 5],
				.value = extremes[(j + 3) % 5] ^ 0x5a5a,
			};

			assert_int_equal(wire_put_probe(body, sizeof(body), &p), 8);
			/* body layout: be32 id, be32 value */
			assert_int_equal(get32(body), p.id);
			assert_int_equal(get32(body + 4), p.value);
			round_trip(&h, body, 8, &m);
			assert_int_equal(m.u.probe.id, p.id);
			assert_int_equal(m.u.probe.value, p.value);
		}
	}
}

/* NACK: u8 path, u8 zero, be16 count, be32 first lseq; what wire_put_nack
 * refuses (a count of 0 or over WIRE_NACK_MAX, a path over the last). */
static void test_round_trip_nack(void **state)
{
	static const uint16_t counts[] = {1, 2, 63, WIRE_NACK_MAX};
	uint8_t body[WIRE_NACK_LEN];
	struct wire_msg m;
	unsigned j;

	(void)state;
	for (j = 0; j < ARRAY_SIZE(extremes); j++) {
		struct wire_hdr h = {.type = WIRE_NACK,
				     .path = (uint8_t)j,
				     .session = extremes[j],
				     .pn = pn_extremes[j % ARRAY_SIZE(pn_extremes)],
				     .tstamp = extremes[(j + 1) % 5]};
		struct wire_nack n = {.path = (uint8_t)(j == 4 ? 15 : j),
				      .count = counts[j % ARRAY_SIZE(counts)],
				      .lseq = extremes[(j + 2) % 5]};

		assert_int_equal(wire_put_nack(body, sizeof(body), &n),
				 WIRE_NACK_LEN);
		assert_int_equal(body[0], n.path);
		assert_int_equal(body[1], 0);
		assert_int_equal(get16(body + 2), n.count);
		assert_int_equal(get32(body + 4), n.lseq);
		round_trip(&h, body, WIRE_NACK_LEN, &m);
		assert_int_equal(m.u.nack.path, n.path);
		assert_int_equal(m.u.nack.count, n.count);
		assert_int_equal(m.u.nack.lseq, n.lseq);
	}
	assert_int_equal(wire_put_nack(body, 7, &(struct wire_nack){.count = 1}),
			 -ENOSPC);
	assert_int_equal(wire_put_nack(body, 8, &(struct wire_nack){.count = 0}),
			 -EINVAL);
	assert_int_equal(
		wire_put_nack(body, 8,
			      &(struct wire_nack){.count = WIRE_NACK_MAX + 1}),
		-EINVAL);
	assert_int_equal(
		wire_put_nack(body, 8,
			      &(struct wire_nack){.path = WIRE_MAX_PATHS,
						  .count = 1}),
		-EINVAL);
}

/* TRAIN: be32 id, be16 index, be16 count, then zeros up to the length the
 * sender chose (a train's packets are as big as the data it measures the
 * line for): the whole length stays in body_len, the fields read back, on
 * the first, a middle and the last packet of trains of 2 to
 * WIRE_TRAIN_MAX, from no padding to the largest body. */
static void test_round_trip_train(void **state)
{
	static const uint16_t counts[] = { 2, 3, 100, 255, WIRE_TRAIN_MAX };
	static const size_t lens[] = {
		WIRE_TRAIN_LEN, WIRE_TRAIN_LEN + 1, 64,
		WIRE_TRAIN_LEN + 1000, 1424, WIRE_MAX_INNER,
	};
	uint8_t *body = malloc(WIRE_MAX_INNER + 1);
	struct wire_msg m;
	unsigned c, j, k;
	size_t i;

	(void)state;
	assert_non_null(body);
	for (c = 0; c < ARRAY_SIZE(counts); c++) {
		for (j = 0; j < ARRAY_SIZE(lens); j++) {
			for (k = 0; k < 3; k++) {
				uint16_t count = counts[c];
				struct wire_train t = {
					.id = extremes[(c + j + k) % 5],
					.idx = (uint16_t)(k == 0   ? 0
							  : k == 1 ? count / 2
								   : count - 1),
					.count = count,
				};
				struct wire_hdr h = {
					.type = WIRE_TRAIN,
					.path = (uint8_t)((c * 6 + j + k) % 16),
					.session = extremes[(j + 1) % 5],
					.pn = pn_extremes[(c + j + k) %
							  ARRAY_SIZE(pn_extremes)],
					.gseq = extremes[(c + k) % 5],
					.tstamp = extremes[(j + 2) % 5],
				};
				size_t len = lens[j];

				/* the buffer exactly as long as the body,
				 * one marker byte after it */
				memset(body, 0xaa, len + 1);
				assert_int_equal(wire_put_train(body, len, &t,
								len),
						 (int)len);
				assert_int_equal(get32(body), t.id);
				assert_int_equal(get16(body + 4), t.idx);
				assert_int_equal(get16(body + 6), t.count);
				for (i = WIRE_TRAIN_LEN; i < len; i++) {
					if (body[i] != 0) {
						fail_msg("padding byte %zu of %zu "
							 "is %02x", i, len,
							 body[i]);
					}
				}
				assert_int_equal(body[len], 0xaa);
				round_trip(&h, body, len, &m);
				assert_int_equal(m.body_len, len);
				assert_int_equal(m.u.train.id, t.id);
				assert_int_equal(m.u.train.idx, t.idx);
				assert_int_equal(m.u.train.count, t.count);
			}
		}
	}

	/* the parser does not read the padding: any bytes there (a sender
	 * that does not zero it, or a middlebox) give the same fields */
	assert_int_equal(wire_put_train(body, WIRE_TRAIN_LEN + 1000,
					&(struct wire_train){ .id = 7, .idx = 1,
							      .count = 2 },
					WIRE_TRAIN_LEN + 1000),
			 WIRE_TRAIN_LEN + 1000);
	fill(body + WIRE_TRAIN_LEN, 1000, 0xff);
	round_trip(&(struct wire_hdr){ .type = WIRE_TRAIN, .path = 15 }, body,
		   WIRE_TRAIN_LEN + 1000, &m);
	assert_int_equal(m.body_len, WIRE_TRAIN_LEN + 1000);
	assert_int_equal(m.u.train.id, 7);
	assert_int_equal(m.u.train.idx, 1);
	assert_int_equal(m.u.train.count, 2);
	free(body);
}

/* TRAIN_ACK: be32 id, be16 got, be16 count, be32 bytes, be32 dt_us; got
 * from none to all of the train, every field's extremes. */
static void test_round_trip_train_ack(void **state)
{
	static const struct {
		uint16_t got, count;
	} gc[] = {
		{ 2, 2 }, { 1, 2 }, { 0, 2 }, { 17, 100 },
		{ 255, WIRE_TRAIN_MAX }, { WIRE_TRAIN_MAX, WIRE_TRAIN_MAX },
	};
	uint8_t body[WIRE_TRAIN_ACK_LEN + 1];
	struct wire_msg m;
	unsigned g, j;

	(void)state;
	for (g = 0; g < ARRAY_SIZE(gc); g++) {
		for (j = 0; j < ARRAY_SIZE(extremes); j++) {
			struct wire_hdr h = {
				.type = WIRE_TRAIN_ACK,
				.path = (uint8_t)(j == 4 ? 15 : g + j),
				.session = extremes[(g + j) % 5],
				.pn = pn_extremes[(g + j) % ARRAY_SIZE(pn_extremes)],
				.gseq = extremes[(j + 3) % 5],
				.tstamp = extremes[(j + 4) % 5],
			};
			struct wire_train_ack a = {
				.id = extremes[j],
				.got = gc[g].got,
				.count = gc[g].count,
				.bytes = extremes[(j + 1) % 5],
				.dt_us = extremes[(j + 2) % 5] ^ 0x5a5a,
			};

			memset(body, 0xaa, sizeof(body));
			assert_int_equal(wire_put_train_ack(body,
							    WIRE_TRAIN_ACK_LEN,
							    &a),
					 WIRE_TRAIN_ACK_LEN);
			assert_int_equal(get32(body), a.id);
			assert_int_equal(get16(body + 4), a.got);
			assert_int_equal(get16(body + 6), a.count);
			assert_int_equal(get32(body + 8), a.bytes);
			assert_int_equal(get32(body + 12), a.dt_us);
			assert_int_equal(body[WIRE_TRAIN_ACK_LEN], 0xaa);
			round_trip(&h, body, WIRE_TRAIN_ACK_LEN, &m);
			assert_int_equal(m.u.train_ack.id, a.id);
			assert_int_equal(m.u.train_ack.got, a.got);
			assert_int_equal(m.u.train_ack.count, a.count);
			assert_int_equal(m.u.train_ack.bytes, a.bytes);
			assert_int_equal(m.u.train_ack.dt_us, a.dt_us);
		}
	}
}

/* Each way a TRAIN or TRAIN_ACK body is malformed, with bodies written by
 * the test's own encoder inside a packet from wire_build: its reason, and
 * the valid neighbours of each bad value. */
static void test_train_malformed(void **state)
{
	static const struct {
		const char *what;
		uint8_t type;
		uint16_t idx; /* TRAIN: index; TRAIN_ACK: got */
		uint16_t count;
		size_t body_len;
		enum wire_drop want;
	} cases[] = {
		{ "train, fields only", WIRE_TRAIN, 0, 2, 8, WIRE_OK },
		{ "train, 1000 bytes of padding", WIRE_TRAIN, 4, 5, 1008, WIRE_OK },
		{ "train, 7-byte body", WIRE_TRAIN, 0, 2, 7, WIRE_E_BODY_LEN },
		{ "train, empty body", WIRE_TRAIN, 0, 2, 0, WIRE_E_BODY_LEN },
		{ "train, count 0", WIRE_TRAIN, 0, 0, 8, WIRE_E_TRAIN },
		{ "train, count 1", WIRE_TRAIN, 0, 1, 8, WIRE_E_TRAIN },
		{ "train, count 1 behind 1000 bytes of padding", WIRE_TRAIN, 0, 1, 1008, WIRE_E_TRAIN },
		{ "train, count 2", WIRE_TRAIN, 1, 2, 8, WIRE_OK },
		{ "train, count 256", WIRE_TRAIN, 0, 256, 8, WIRE_OK },
		{ "train, count 257", WIRE_TRAIN, 0, 257, 8, WIRE_E_TRAIN },
		{ "train, count 65535", WIRE_TRAIN, 0, 65535, 8, WIRE_E_TRAIN },
		{ "train, index == count", WIRE_TRAIN, 5, 5, 8, WIRE_E_TRAIN },
		{ "train, index == count == 256", WIRE_TRAIN, 256, 256, 64, WIRE_E_TRAIN },
		{ "train, index past count", WIRE_TRAIN, 65535, 5, 8, WIRE_E_TRAIN },
		{ "train, index count - 1", WIRE_TRAIN, 4, 5, 8, WIRE_OK },
		{ "train, 7-byte body of count 1: length first", WIRE_TRAIN, 0, 1, 7, WIRE_E_BODY_LEN },
		{ "train-ack, got == count", WIRE_TRAIN_ACK, 5, 5, 16, WIRE_OK },
		{ "train-ack, got 0", WIRE_TRAIN_ACK, 0, 5, 16, WIRE_OK },
		{ "train-ack, got > count", WIRE_TRAIN_ACK, 6, 5, 16, WIRE_E_TRAIN },
		{ "train-ack, got 257 of 256", WIRE_TRAIN_ACK, 257, 256, 16, WIRE_E_TRAIN },
		{ "train-ack, got 65535 of 2", WIRE_TRAIN_ACK, 65535, 2, 16, WIRE_E_TRAIN },
		{ "train-ack, count 0", WIRE_TRAIN_ACK, 0, 0, 16, WIRE_E_TRAIN },
		{ "train-ack, count 1", WIRE_TRAIN_ACK, 1, 1, 16, WIRE_E_TRAIN },
		{ "train-ack, count 257", WIRE_TRAIN_ACK, 3, 257, 16, WIRE_E_TRAIN },
		{ "train-ack, count 256", WIRE_TRAIN_ACK, 256, 256, 16, WIRE_OK },
		{ "train-ack, 15-byte body", WIRE_TRAIN_ACK, 5, 5, 15, WIRE_E_BODY_LEN },
		{ "train-ack, 17-byte body", WIRE_TRAIN_ACK, 5, 5, 17, WIRE_E_BODY_LEN },
		{ "train-ack, 8-byte body (a TRAIN's fields)", WIRE_TRAIN_ACK, 5, 5, 8, WIRE_E_BODY_LEN },
		{ "train-ack, 24-byte body (padded like a TRAIN)", WIRE_TRAIN_ACK, 5, 5, 24, WIRE_E_BODY_LEN },
		{ "train-ack, empty body", WIRE_TRAIN_ACK, 5, 5, 0, WIRE_E_BODY_LEN },
		{ "train-ack, 17-byte body, got > count: length first", WIRE_TRAIN_ACK, 6, 5, 17, WIRE_E_BODY_LEN },
	};
	uint8_t body[WIRE_TRAIN_LEN + 1000];
	unsigned i;

	(void)state;
	assert_string_equal(wire_drop_name(WIRE_E_TRAIN), "bad_train");
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct wire_hdr h = { .type = cases[i].type, .path = 6,
				      .session = 0x0b0b0b0b, .pn = 1000 + i,
				      .gseq = i, .tstamp = 123456 };
		size_t len = MINLEN + cases[i].body_len;
		struct wire_msg m;
		uint8_t *pkt = malloc(len);
		enum wire_drop d;

		assert_non_null(pkt);
		assert_true(cases[i].body_len <= sizeof(body));
		memset(body, 0, sizeof(body));
		put32(body, 0xa5a5a5a5);
		put16(body + 4, cases[i].idx);
		put16(body + 6, cases[i].count);
		if (cases[i].type == WIRE_TRAIN_ACK) {
			put32(body + 8, 3 * 1500);
			put32(body + 12, 2000);
		}
		assert_int_equal(wire_build(pkt, len, &h, body,
					    cases[i].body_len),
				 (int)len);
		d = parse_exact(pkt, len, &m);
		if (d != cases[i].want) {
			fail_msg("%s: got %s, want %s", cases[i].what,
				 wire_drop_name(d),
				 wire_drop_name(cases[i].want));
		}
		if (d == WIRE_OK && cases[i].type == WIRE_TRAIN) {
			assert_int_equal(m.body_len, cases[i].body_len);
			assert_int_equal(m.u.train.id, 0xa5a5a5a5);
			assert_int_equal(m.u.train.idx, cases[i].idx);
			assert_int_equal(m.u.train.count, cases[i].count);
		} else if (d == WIRE_OK) {
			assert_int_equal(m.u.train_ack.id, 0xa5a5a5a5);
			assert_int_equal(m.u.train_ack.got, cases[i].idx);
			assert_int_equal(m.u.train_ack.count, cases[i].count);
			assert_int_equal(m.u.train_ack.bytes, 3 * 1500);
			assert_int_equal(m.u.train_ack.dt_us, 2000);
		}
		free(pkt);
	}
}

/* What the TRAIN encoders refuse: fields the parser would refuse and a
 * TRAIN shorter than its fields or longer than wire_build takes
 * (-EINVAL, found before the room is looked at), a buffer too small
 * (-ENOSPC); a refused encoder writes nothing, and one that fits exactly
 * writes exactly its length. */
static void test_put_train_errors(void **state)
{
	static const struct wire_train bad_t[] = {
		{ 1, 0, 0 },	 { 1, 0, 1 },	  { 1, 0, WIRE_TRAIN_MAX + 1 },
		{ 1, 0, 65535 }, { 1, 3, 3 },	  { 1, 4, 3 },
		{ 1, 256, 256 }, { 1, 65535, 256 },
	};
	static const struct wire_train_ack bad_a[] = {
		{ 1, 0, 0, 0, 0 },	 { 1, 0, 1, 0, 0 },
		{ 1, 1, 1, 0, 0 },	 { 1, 0, WIRE_TRAIN_MAX + 1, 0, 0 },
		{ 1, 3, 2, 0, 0 },	 { 1, 257, 256, 0, 0 },
		{ 1, 65535, 2, 0, 0 },
	};
	static const size_t fits[] = { WIRE_TRAIN_LEN, 9, 1008, WIRE_MAX_INNER };
	const struct wire_train t = { .id = 9, .idx = 1, .count = 2 };
	const struct wire_train_ack a = { .id = 9, .got = 2, .count = 2,
					  .bytes = 3000, .dt_us = 40 };
	size_t size = WIRE_MAX_INNER + 2, i;
	uint8_t *buf = malloc(size);
	unsigned k;

	(void)state;
	assert_non_null(buf);
	memset(buf, 0xaa, size);
	for (k = 0; k < ARRAY_SIZE(bad_t); k++) {
		assert_int_equal(wire_put_train(buf, 64, &bad_t[k], 8), -EINVAL);
		assert_int_equal(wire_put_train(buf, 0, &bad_t[k], 8), -EINVAL);
	}
	for (k = 0; k < ARRAY_SIZE(bad_a); k++) {
		assert_int_equal(wire_put_train_ack(buf, 64, &bad_a[k]),
				 -EINVAL);
		assert_int_equal(wire_put_train_ack(buf, 0, &bad_a[k]),
				 -EINVAL);
	}
	/* shorter than its own fields, longer than a body may be */
	assert_int_equal(wire_put_train(buf, 64, &t, 0), -EINVAL);
	assert_int_equal(wire_put_train(buf, 64, &t, WIRE_TRAIN_LEN - 1),
			 -EINVAL);
	assert_int_equal(wire_put_train(buf, size, &t, WIRE_MAX_INNER + 1),
			 -EINVAL);
	/* one byte short of the length asked for, none */
	for (k = 0; k < ARRAY_SIZE(fits); k++) {
		assert_int_equal(wire_put_train(buf, fits[k] - 1, &t, fits[k]),
				 -ENOSPC);
		assert_int_equal(wire_put_train(buf, 0, &t, fits[k]), -ENOSPC);
	}
	assert_int_equal(wire_put_train_ack(buf, WIRE_TRAIN_ACK_LEN - 1, &a),
			 -ENOSPC);
	assert_int_equal(wire_put_train_ack(buf, WIRE_TRAIN_LEN, &a), -ENOSPC);
	assert_int_equal(wire_put_train_ack(buf, 0, &a), -ENOSPC);
	for (i = 0; i < size; i++) {
		if (buf[i] != 0xaa) {
			fail_msg("a refused encoder wrote byte %zu", i);
		}
	}
	/* exactly enough: the length, nothing past it */
	for (k = 0; k < ARRAY_SIZE(fits); k++) {
		memset(buf, 0xaa, fits[k] + 1);
		assert_int_equal(wire_put_train(buf, fits[k], &t, fits[k]),
				 (int)fits[k]);
		assert_int_equal(buf[fits[k]], 0xaa);
	}
	memset(buf, 0xaa, WIRE_TRAIN_ACK_LEN + 1);
	assert_int_equal(wire_put_train_ack(buf, WIRE_TRAIN_ACK_LEN, &a),
			 WIRE_TRAIN_ACK_LEN);
	assert_int_equal(buf[WIRE_TRAIN_ACK_LEN], 0xaa);
	free(buf);
}

/* HELLO carries r_cpe (r_conc parses as 0 whatever the sender's struct
 * held); HELLO_ACK both, in that order. */
static void test_round_trip_hello(void **state)
{
	uint8_t body[16];
	struct wire_msg m;
	unsigned j, k;

	(void)state;
	for (j = 0; j < ARRAY_SIZE(pn_extremes); j++) {
		for (k = 0; k < ARRAY_SIZE(pn_extremes); k++) {
			struct wire_hello he = {
				.r_cpe = pn_extremes[j],
				.r_conc = pn_extremes[k] ^ 0x5a5a,
			};
			struct wire_hdr h = {
				.type = WIRE_HELLO,
				.path = (uint8_t)((j * 6 + k) % 16),
				.session = extremes[(j + k) % 5],
				/* handshake packets: random pn, top bit set */
				.pn = pn_extremes[k] | 1ull << 63,
				.gseq = extremes[k % 5],
				.tstamp = extremes[j % 5],
			};

			assert_int_equal(wire_put_hello(body, sizeof(body), &he), 8);
			assert_true(get64(body) == he.r_cpe);
			round_trip(&h, body, 8, &m);
			assert_true(m.u.hello.r_cpe == he.r_cpe);
			assert_true(m.u.hello.r_conc == 0);

			h.type = WIRE_HELLO_ACK;
			assert_int_equal(wire_put_hello_ack(body, sizeof(body), &he),
					 16);
			assert_true(get64(body) == he.r_cpe);
			assert_true(get64(body + 8) == he.r_conc);
			round_trip(&h, body, 16, &m);
			assert_true(m.u.hello.r_cpe == he.r_cpe);
			assert_true(m.u.hello.r_conc == he.r_conc);
		}
	}
}

/* ---- malformed packets ---- */

enum base {
	B_DATA4 = 1,  /* param: inner IPv4 length */
	B_DATA6,      /* param: inner IPv6 length */
	B_REPORT,     /* param: entry count */
	B_PROBE,
	B_PROBE_ACK,
	B_HELLO,
	B_HELLO_ACK,
	B_NACK,
	B_TRAIN,      /* param: bytes of padding after the 8 of the fields */
	B_TRAIN_ACK,
};

struct patch {
	bool set;
	uint16_t off; /* from the start of the packet; body starts at 32 */
	uint8_t val;
};

#define P(o, v) { true, (o), (v) }
#define BODY HDR
/* the eight bytes of the packet number set to v */
#define PN_ALL(v) P(O_PN, v), P(O_PN + 1, v), P(O_PN + 2, v), P(O_PN + 3, v), \
		  P(O_PN + 4, v), P(O_PN + 5, v), P(O_PN + 6, v), P(O_PN + 7, v)

struct bad_row {
	unsigned id;
	const char *what;
	enum base kind;
	unsigned param;
	int body_len;  /* -1: the natural length */
	int cut;       /* >= 0: the whole packet is cut to this length */
	struct patch p[12];
	enum wire_drop want;
};

static const struct bad_row bad_rows[] = {
	{ 1, "probe one byte short of header+tag", B_PROBE, 0, 0, 47, {}, WIRE_E_SHORT },
	{ 2, "data one byte short of header+tag", B_DATA4, 20, -1, 47, {}, WIRE_E_SHORT },
	{ 3, "version 0", B_DATA4, 60, -1, -1, { P(0, 0x01) }, WIRE_E_VERSION },
	{ 4, "version 1 (the 20-byte header of v1)", B_DATA4, 60, -1, -1, { P(0, 0x11) }, WIRE_E_VERSION },
	{ 5, "version 15", B_PROBE, 0, -1, -1, { P(0, 0xf3) }, WIRE_E_VERSION },
	{ 6, "version 0 and type 0: version first", B_PROBE, 0, -1, -1, { P(0, 0x00) }, WIRE_E_VERSION },
	{ 7, "version 1, path 200: version first", B_PROBE, 0, -1, -1, { P(0, 0x13), P(1, 200) }, WIRE_E_VERSION },
	{ 8, "type 0", B_DATA4, 60, -1, -1, { P(0, 0x40) }, WIRE_E_TYPE },
	{ 9, "type 10 (the first unknown)", B_DATA4, 60, -1, -1, { P(0, 0x4a) }, WIRE_E_TYPE },
	{ 10, "type 15", B_PROBE, 0, -1, -1, { P(0, 0x4f) }, WIRE_E_TYPE },
	{ 11, "type 10, path 200: type first", B_PROBE, 0, -1, -1, { P(0, 0x4a), P(1, 200) }, WIRE_E_TYPE },
	{ 12, "path 16", B_DATA4, 60, -1, -1, { P(1, 16) }, WIRE_E_PATH },
	{ 13, "path 255", B_PROBE, 0, -1, -1, { P(1, 255) }, WIRE_E_PATH },
	{ 14, "path 16 and inner version 5: path first", B_DATA4, 60, -1, -1, { P(1, 16), P(BODY, 0x55) }, WIRE_E_PATH },
	{ 15, "path 16 on a control packet with lseq: path first", B_REPORT, 1, -1, -1, { P(1, 16), P(O_LSEQ + 3, 1) }, WIRE_E_PATH },
	{ 16, "path 15 is valid", B_DATA4, 60, -1, -1, { P(1, 15) }, WIRE_OK },
	{ 17, "data, empty body", B_DATA4, 20, 0, -1, {}, WIRE_E_INNER_SHORT },
	{ 18, "data, 19-byte inner", B_DATA4, 20, 19, -1, {}, WIRE_E_INNER_SHORT },
	{ 19, "data, 19-byte inner version 7: short first", B_DATA4, 20, 19, -1, { P(BODY, 0x75) }, WIRE_E_INNER_SHORT },
	{ 20, "data, 20-byte minimal IPv4 is valid", B_DATA4, 20, -1, -1, {}, WIRE_OK },
	{ 21, "data, IPv6 of 39 bytes", B_DATA6, 40, 39, -1, {}, WIRE_E_INNER_SHORT },
	{ 22, "data, IPv6 of 20 bytes", B_DATA6, 40, 20, -1, {}, WIRE_E_INNER_SHORT },
	{ 23, "data, IPv6 of 39 bytes, payload length 0xffff", B_DATA6, 40, 39, -1, { P(BODY + 4, 0xff), P(BODY + 5, 0xff) }, WIRE_E_INNER_SHORT },
	{ 24, "inner version 5", B_DATA4, 60, -1, -1, { P(BODY, 0x55) }, WIRE_E_INNER_VERSION },
	{ 25, "inner version 0", B_DATA4, 60, -1, -1, { P(BODY, 0x05) }, WIRE_E_INNER_VERSION },
	{ 26, "inner version 15", B_DATA6, 60, -1, -1, { P(BODY, 0xf0) }, WIRE_E_INNER_VERSION },
	{ 27, "IPv4 ihl 4 (16 bytes)", B_DATA4, 60, -1, -1, { P(BODY, 0x44) }, WIRE_E_INNER_LEN },
	{ 28, "IPv4 ihl 0", B_DATA4, 60, -1, -1, { P(BODY, 0x40) }, WIRE_E_INNER_LEN },
	{ 29, "IPv4 ihl 6 (24) > 20-byte body", B_DATA4, 20, -1, -1, { P(BODY, 0x46) }, WIRE_E_INNER_LEN },
	{ 30, "IPv4 ihl 15 (60) > 56-byte body", B_DATA4, 56, -1, -1, { P(BODY, 0x4f) }, WIRE_E_INNER_LEN },
	{ 31, "IPv4 ihl 15 (60) == 60-byte body is valid", B_DATA4, 60, -1, -1, { P(BODY, 0x4f) }, WIRE_OK },
	{ 32, "IPv4 total length +1", B_DATA4, 60, -1, -1, { P(BODY + 2, 0), P(BODY + 3, 61) }, WIRE_E_INNER_LEN },
	{ 33, "IPv4 total length -1", B_DATA4, 60, -1, -1, { P(BODY + 2, 0), P(BODY + 3, 59) }, WIRE_E_INNER_LEN },
	{ 34, "IPv4 total length 0", B_DATA4, 60, -1, -1, { P(BODY + 2, 0), P(BODY + 3, 0) }, WIRE_E_INNER_LEN },
	{ 35, "IPv4 total length +256 (high byte)", B_DATA4, 60, -1, -1, { P(BODY + 2, 1) }, WIRE_E_INNER_LEN },
	{ 36, "IPv4 1500 cut to 1499 bytes of body", B_DATA4, 1500, 1499, -1, {}, WIRE_E_INNER_LEN },
	{ 37, "IPv4 60 with one trailing byte", B_DATA4, 60, 61, -1, {}, WIRE_E_INNER_LEN },
	{ 38, "IPv6 payload length +1", B_DATA6, 60, -1, -1, { P(BODY + 4, 0), P(BODY + 5, 21) }, WIRE_E_INNER_LEN },
	{ 39, "IPv6 payload length -1", B_DATA6, 60, -1, -1, { P(BODY + 4, 0), P(BODY + 5, 19) }, WIRE_E_INNER_LEN },
	{ 40, "IPv6 payload length +256 (high byte)", B_DATA6, 60, -1, -1, { P(BODY + 4, 1) }, WIRE_E_INNER_LEN },
	{ 41, "IPv6 60 with one trailing byte", B_DATA6, 60, 61, -1, {}, WIRE_E_INNER_LEN },
	{ 42, "IPv6 header only (payload 0) is valid", B_DATA6, 40, -1, -1, {}, WIRE_OK },
	{ 43, "IPv6 nonzero traffic class/flow nibble is valid", B_DATA6, 60, -1, -1, { P(BODY, 0x6f), P(BODY + 1, 0xff) }, WIRE_OK },
	{ 44, "DATA with lseq and pgap set is valid", B_DATA4, 20, -1, -1, { P(O_PGAP, 0xff), P(O_LSEQ, 0xff) }, WIRE_OK },
	{ 45, "probe with lseq 1", B_PROBE, 0, -1, -1, { P(O_LSEQ + 3, 1) }, WIRE_E_CONTROL_SEQ },
	{ 46, "probe with lseq 0x80000000", B_PROBE, 0, -1, -1, { P(O_LSEQ, 0x80) }, WIRE_E_CONTROL_SEQ },
	{ 47, "probe with pgap 1", B_PROBE, 0, -1, -1, { P(O_PGAP + 1, 1) }, WIRE_E_CONTROL_SEQ },
	{ 48, "probe with pgap 0x8000", B_PROBE, 0, -1, -1, { P(O_PGAP, 0x80) }, WIRE_E_CONTROL_SEQ },
	{ 49, "report with lseq", B_REPORT, 2, -1, -1, { P(O_LSEQ + 1, 1) }, WIRE_E_CONTROL_SEQ },
	{ 50, "probe-ack with pgap", B_PROBE_ACK, 0, -1, -1, { P(O_PGAP + 1, 9) }, WIRE_E_CONTROL_SEQ },
	{ 51, "hello with lseq", B_HELLO, 0, -1, -1, { P(O_LSEQ + 2, 1) }, WIRE_E_CONTROL_SEQ },
	{ 52, "hello-ack with pgap and lseq", B_HELLO_ACK, 0, -1, -1, { P(O_PGAP, 1), P(O_LSEQ, 1) }, WIRE_E_CONTROL_SEQ },
	{ 53, "probe lseq set and 9-byte body: seq first", B_PROBE, 0, 9, -1, { P(O_LSEQ + 3, 1) }, WIRE_E_CONTROL_SEQ },
	{ 54, "report pgap set and n=17: seq first", B_REPORT, 2, -1, -1, { P(O_PGAP + 1, 1), P(BODY, 17) }, WIRE_E_CONTROL_SEQ },
	{ 55, "report n=17 with a 2-entry body", B_REPORT, 2, -1, -1, { P(BODY, 17) }, WIRE_E_REPORT_COUNT },
	{ 56, "report n=17 with a 17-entry body", B_REPORT, 16, 4 + ENT * 17, -1, { P(BODY, 17) }, WIRE_E_REPORT_COUNT },
	{ 57, "report n=255", B_REPORT, 0, -1, -1, { P(BODY, 255) }, WIRE_E_REPORT_COUNT },
	{ 58, "report empty body", B_REPORT, 0, 0, -1, {}, WIRE_E_BODY_LEN },
	{ 59, "report 3-byte body", B_REPORT, 0, 3, -1, {}, WIRE_E_BODY_LEN },
	{ 60, "report 3-byte body with n=17: length first", B_REPORT, 0, 3, -1, { P(BODY, 17) }, WIRE_E_BODY_LEN },
	{ 61, "report n=2, body one byte short", B_REPORT, 2, 43, -1, {}, WIRE_E_BODY_LEN },
	{ 62, "report n=2, body one byte long", B_REPORT, 2, 45, -1, {}, WIRE_E_BODY_LEN },
	{ 63, "report n=0, 4-byte body is valid", B_REPORT, 0, -1, -1, {}, WIRE_OK },
	{ 64, "report n=0, 5-byte body", B_REPORT, 0, 5, -1, {}, WIRE_E_BODY_LEN },
	{ 65, "report n=0 with one entry's bytes", B_REPORT, 1, -1, -1, { P(BODY, 0) }, WIRE_E_BODY_LEN },
	{ 66, "report n=2 with one entry's bytes", B_REPORT, 1, -1, -1, { P(BODY, 2) }, WIRE_E_BODY_LEN },
	{ 67, "report n=16, body one byte short", B_REPORT, 16, 323, -1, {}, WIRE_E_BODY_LEN },
	{ 68, "report n=16, body one byte long", B_REPORT, 16, 325, -1, {}, WIRE_E_BODY_LEN },
	{ 69, "report n=16 is valid", B_REPORT, 16, -1, -1, {}, WIRE_OK },
	{ 70, "report second entry path 16", B_REPORT, 2, -1, -1, { P(BODY + 4 + ENT, 16) }, WIRE_E_REPORT_COUNT },
	{ 71, "report first entry path 255", B_REPORT, 2, -1, -1, { P(BODY + 4, 255) }, WIRE_E_REPORT_COUNT },
	{ 72, "report last of 16 entries path 16", B_REPORT, 16, -1, -1, { P(BODY + 4 + 15 * ENT, 16) }, WIRE_E_REPORT_COUNT },
	{ 73, "report entry path 16 and body too long: length first", B_REPORT, 2, 45, -1, { P(BODY + 4, 16) }, WIRE_E_BODY_LEN },
	{ 74, "report reserved zero bytes nonzero are ignored", B_REPORT, 2, -1, -1, { P(BODY + 1, 0xff), P(BODY + 3, 1), P(BODY + 4 + 2, 0xff), P(BODY + 4 + ENT + 3, 0x80) }, WIRE_OK },
	{ 75, "probe 7-byte body", B_PROBE, 0, 7, -1, {}, WIRE_E_BODY_LEN },
	{ 76, "probe 9-byte body", B_PROBE, 0, 9, -1, {}, WIRE_E_BODY_LEN },
	{ 77, "probe empty body", B_PROBE, 0, 0, -1, {}, WIRE_E_BODY_LEN },
	{ 78, "probe-ack 7-byte body", B_PROBE_ACK, 0, 7, -1, {}, WIRE_E_BODY_LEN },
	{ 79, "probe-ack 9-byte body", B_PROBE_ACK, 0, 9, -1, {}, WIRE_E_BODY_LEN },
	{ 80, "hello 7-byte body", B_HELLO, 0, 7, -1, {}, WIRE_E_BODY_LEN },
	{ 81, "hello 9-byte body", B_HELLO, 0, 9, -1, {}, WIRE_E_BODY_LEN },
	{ 82, "hello-ack 7-byte body", B_HELLO_ACK, 0, 7, -1, {}, WIRE_E_BODY_LEN },
	{ 83, "hello-ack 9-byte body", B_HELLO_ACK, 0, 9, -1, {}, WIRE_E_BODY_LEN },
	{ 84, "hello 16-byte body (a HELLO_ACK's)", B_HELLO, 0, 16, -1, {}, WIRE_E_BODY_LEN },
	{ 85, "probe is valid", B_PROBE, 0, -1, -1, {}, WIRE_OK },
	{ 86, "probe-ack is valid", B_PROBE_ACK, 0, -1, -1, {}, WIRE_OK },
	{ 87, "hello (8-byte body) is valid", B_HELLO, 0, -1, -1, {}, WIRE_OK },
	{ 88, "hello-ack (16-byte body) is valid", B_HELLO_ACK, 0, -1, -1, {}, WIRE_OK },
	{ 89, "largest DATA (65535-byte IPv4) is valid", B_DATA4, 65535, -1, -1, {}, WIRE_OK },
	{ 90, "largest DATA (65535-byte IPv6) is valid", B_DATA6, 65535, -1, -1, {}, WIRE_OK },
	/* CHANGES after review: one entry per path in a REPORT */
	{ 91, "report two entries with the same path", B_REPORT, 2, -1, -1, { P(BODY + 4 + ENT, 0) }, WIRE_E_REPORT_COUNT },
	{ 92, "report path 3 at entries 0 and 15 (only repeat)", B_REPORT, 16, -1, -1, { P(BODY + 4, 3), P(BODY + 4 + 3 * ENT, 0), P(BODY + 4 + 15 * ENT, 3) }, WIRE_E_REPORT_COUNT },
	{ 93, "report path 15 twice, n=2", B_REPORT, 2, -1, -1, { P(BODY + 4, 15), P(BODY + 4 + ENT, 15) }, WIRE_E_REPORT_COUNT },
	{ 94, "report repeated path, body one byte long: length first", B_REPORT, 2, 45, -1, { P(BODY + 4 + ENT, 0) }, WIRE_E_BODY_LEN },
	{ 95, "report repeated path, n=17: count first", B_REPORT, 16, 4 + ENT * 17, -1, { P(BODY, 17), P(BODY + 4 + ENT, 0) }, WIRE_E_REPORT_COUNT },
	{ 96, "report entries in reverse path order are valid", B_REPORT, 2, -1, -1, { P(BODY + 4, 1), P(BODY + 4 + ENT, 0) }, WIRE_OK },
	{ 97, "report paths 3 at entry 0, 0 at entry 3 (a permutation) is valid", B_REPORT, 16, -1, -1, { P(BODY + 4, 3), P(BODY + 4 + 3 * ENT, 0) }, WIRE_OK },
	{ 98, "report repeat where the reserved zero bytes differ", B_REPORT, 2, -1, -1, { P(BODY + 4 + ENT, 0), P(BODY + 4 + ENT + 2, 1) }, WIRE_E_REPORT_COUNT },
	/* CHANGES after review: DATA body larger than WIRE_MAX_INNER (the
	 * packets are > 65579 bytes; build_row makes them on the heap) */
	{ 99, "IPv6 of 65536 bytes, payload length 65496 consistent", B_DATA6, 65536, -1, -1, {}, WIRE_E_INNER_LEN },
	{ 100, "IPv6 payload length 65535 (65575-byte body) consistent", B_DATA6, 65575, -1, -1, {}, WIRE_E_INNER_LEN },
	{ 101, "65536-byte body, inner version 5: size before version", B_DATA4, 65536, -1, -1, { P(BODY, 0x55) }, WIRE_E_INNER_LEN },
	{ 102, "65536-byte body, inner version 0: size before version", B_DATA6, 65536, -1, -1, { P(BODY, 0x00) }, WIRE_E_INNER_LEN },
	{ 103, "IPv4 65536-byte body, total length 0xffff", B_DATA4, 65536, -1, -1, { P(BODY + 2, 0xff), P(BODY + 3, 0xff) }, WIRE_E_INNER_LEN },
	{ 104, "IPv6 of 65535 bytes plus one trailing byte", B_DATA6, 65535, 65536, -1, {}, WIRE_E_INNER_LEN },
	{ 105, "version 2 on a 65536-byte body: version first", B_DATA6, 65536, -1, -1, { P(0, 0x21) }, WIRE_E_VERSION },
	{ 106, "path 16 on a 65536-byte body: path first", B_DATA6, 65536, -1, -1, { P(1, 16) }, WIRE_E_PATH },
	/* v2: the header with the packet number (32 bytes since v3), the
	 * handshake bodies of 8 and 16 bytes */
	{ 107, "31-byte header + tag, no body (47 bytes)", B_HELLO, 0, 0, 47, {}, WIRE_E_SHORT },
	{ 108, "32-byte header + tag, no body (48 bytes): hello", B_HELLO, 0, 0, -1, {}, WIRE_E_BODY_LEN },
	{ 109, "a v2 hello's 52 bytes (28 + 8 + 16), version 2", B_HELLO, 0, 4, -1, { P(0, 0x25) }, WIRE_E_VERSION },
	{ 110, "hello 15-byte body", B_HELLO, 0, 15, -1, {}, WIRE_E_BODY_LEN },
	{ 111, "hello-ack empty body", B_HELLO_ACK, 0, 0, -1, {}, WIRE_E_BODY_LEN },
	{ 112, "hello-ack 8-byte body (a HELLO's)", B_HELLO_ACK, 0, 8, -1, {}, WIRE_E_BODY_LEN },
	{ 113, "hello-ack 15-byte body", B_HELLO_ACK, 0, 15, -1, {}, WIRE_E_BODY_LEN },
	{ 114, "hello-ack 17-byte body", B_HELLO_ACK, 0, 17, -1, {}, WIRE_E_BODY_LEN },
	{ 115, "hello-ack 17-byte body with lseq: seq first", B_HELLO_ACK, 0, 17, -1, { P(O_LSEQ + 3, 1) }, WIRE_E_CONTROL_SEQ },
	{ 116, "pn 0 is valid", B_DATA4, 20, -1, -1, { PN_ALL(0) }, WIRE_OK },
	{ 117, "pn 2^64-1 is valid", B_DATA6, 40, -1, -1, { PN_ALL(0xff) }, WIRE_OK },
	{ 118, "probe with pn 2^64-1: bytes 8-15 (v1's gseq, lseq) are not lseq", B_PROBE, 0, -1, -1, { PN_ALL(0xff) }, WIRE_OK },
	{ 119, "hello with pn 2^64-1 and lseq set", B_HELLO, 0, -1, -1, { PN_ALL(0xff), P(O_LSEQ + 3, 1) }, WIRE_E_CONTROL_SEQ },
	{ 120, "hello-ack with pn 0 (no top bit) is valid: the parser does not judge pn", B_HELLO_ACK, 0, -1, -1, { PN_ALL(0) }, WIRE_OK },
	{ 121, "report with pn 2^64-1, gseq and tstamp all ones is valid", B_REPORT, 3, -1, -1, { PN_ALL(0xff), P(O_GSEQ, 0xff), P(O_GSEQ + 3, 0xff), P(O_TSTAMP, 0xff) }, WIRE_OK },
	/* v3: fgap, flags and cls (DATA rows carry fgap 0x0102, flags 0,
	 * cls 5 unless patched) */
	{ 122, "version 2 (the 28-byte header of v2)", B_DATA4, 60, -1, -1, { P(0, 0x21) }, WIRE_E_VERSION },
	{ 123, "DATA flags 0x08 (the first unknown bit)", B_DATA4, 20, -1, -1, { P(O_FLAGS, 0x08) }, WIRE_E_FLAGS },
	{ 124, "DATA flags 0x10", B_DATA4, 20, -1, -1, { P(O_FLAGS, 0x10) }, WIRE_E_FLAGS },
	{ 125, "DATA flags 0x20", B_DATA6, 40, -1, -1, { P(O_FLAGS, 0x20) }, WIRE_E_FLAGS },
	{ 126, "DATA flags 0x40", B_DATA4, 20, -1, -1, { P(O_FLAGS, 0x40) }, WIRE_E_FLAGS },
	{ 127, "DATA flags 0x80", B_DATA6, 40, -1, -1, { P(O_FLAGS, 0x80) }, WIRE_E_FLAGS },
	{ 128, "DATA flags 0xff", B_DATA4, 20, -1, -1, { P(O_FLAGS, 0xff) }, WIRE_E_FLAGS },
	{ 129, "DATA flags 0xf8 with fgap 0", B_DATA4, 20, -1, -1, { P(O_FGAP, 0), P(O_FGAP + 1, 0), P(O_FLAGS, 0xf8) }, WIRE_E_FLAGS },
	{ 130, "DATA RESENT|DUP and an unknown bit 0x08", B_DATA4, 20, -1, -1, { P(O_FLAGS, 0x0e) }, WIRE_E_FLAGS },
	{ 131, "DATA FLOW_FIRST with fgap 1", B_DATA4, 20, -1, -1, { P(O_FGAP, 0), P(O_FGAP + 1, 1), P(O_FLAGS, 0x01) }, WIRE_E_FLAGS },
	{ 132, "DATA FLOW_FIRST with fgap 0x8000", B_DATA4, 20, -1, -1, { P(O_FGAP, 0x80), P(O_FGAP + 1, 0), P(O_FLAGS, 0x01) }, WIRE_E_FLAGS },
	{ 133, "DATA FLOW_FIRST|RESENT|DUP with fgap 65535", B_DATA6, 40, -1, -1, { P(O_FGAP, 0xff), P(O_FGAP + 1, 0xff), P(O_FLAGS, 0x07) }, WIRE_E_FLAGS },
	{ 134, "DATA FLOW_FIRST with fgap 0 is valid", B_DATA4, 20, -1, -1, { P(O_FGAP, 0), P(O_FGAP + 1, 0), P(O_FLAGS, 0x01) }, WIRE_OK },
	{ 135, "DATA RESENT with fgap is valid", B_DATA4, 20, -1, -1, { P(O_FLAGS, 0x02) }, WIRE_OK },
	{ 136, "DATA DUP with fgap 65535 is valid", B_DATA4, 20, -1, -1, { P(O_FGAP, 0xff), P(O_FGAP + 1, 0xff), P(O_FLAGS, 0x04) }, WIRE_OK },
	{ 137, "DATA all three flags, fgap 0, cls 255 is valid", B_DATA6, 40, -1, -1, { P(O_FGAP, 0), P(O_FGAP + 1, 0), P(O_FLAGS, 0x07), P(O_CLS, 0xff) }, WIRE_OK },
	{ 138, "DATA no flag, fgap 0 (unknown: global order), cls 0 is valid", B_DATA4, 20, -1, -1, { P(O_FGAP, 0), P(O_FGAP + 1, 0), P(O_CLS, 0) }, WIRE_OK },
	{ 139, "DATA bad flags, version 2: version first", B_DATA4, 20, -1, -1, { P(0, 0x21), P(O_FLAGS, 0x80) }, WIRE_E_VERSION },
	{ 140, "bad flags, type 10: type first", B_DATA4, 20, -1, -1, { P(0, 0x4a), P(O_FLAGS, 0x80) }, WIRE_E_TYPE },
	{ 141, "DATA bad flags, path 16: path first", B_DATA4, 20, -1, -1, { P(1, 16), P(O_FLAGS, 0x80) }, WIRE_E_PATH },
	{ 142, "DATA bad flags and inner version 5: flags (header) first", B_DATA4, 60, -1, -1, { P(O_FLAGS, 0x08), P(BODY, 0x55) }, WIRE_E_FLAGS },
	{ 143, "DATA FLOW_FIRST with fgap and a 19-byte inner: flags first", B_DATA4, 20, 19, -1, { P(O_FLAGS, 0x01) }, WIRE_E_FLAGS },
	{ 144, "probe with fgap 1", B_PROBE, 0, -1, -1, { P(O_FGAP + 1, 1) }, WIRE_E_CONTROL_SEQ },
	{ 145, "probe with fgap 0x8000", B_PROBE, 0, -1, -1, { P(O_FGAP, 0x80) }, WIRE_E_CONTROL_SEQ },
	{ 146, "report with flags FLOW_FIRST", B_REPORT, 2, -1, -1, { P(O_FLAGS, 0x01) }, WIRE_E_CONTROL_SEQ },
	{ 147, "probe-ack with flags RESENT", B_PROBE_ACK, 0, -1, -1, { P(O_FLAGS, 0x02) }, WIRE_E_CONTROL_SEQ },
	{ 148, "hello with flags DUP", B_HELLO, 0, -1, -1, { P(O_FLAGS, 0x04) }, WIRE_E_CONTROL_SEQ },
	{ 149, "hello-ack with the unknown flag 0x80: control first, not bad_flags", B_HELLO_ACK, 0, -1, -1, { P(O_FLAGS, 0x80) }, WIRE_E_CONTROL_SEQ },
	{ 150, "probe with cls 1", B_PROBE, 0, -1, -1, { P(O_CLS, 1) }, WIRE_E_CONTROL_SEQ },
	{ 151, "report with cls 255", B_REPORT, 0, -1, -1, { P(O_CLS, 0xff) }, WIRE_E_CONTROL_SEQ },
	{ 152, "report with cls and n=17: seq first", B_REPORT, 2, -1, -1, { P(O_CLS, 1), P(BODY, 17) }, WIRE_E_CONTROL_SEQ },
	{ 153, "hello 9-byte body with fgap: seq first", B_HELLO, 0, 9, -1, { P(O_FGAP, 1) }, WIRE_E_CONTROL_SEQ },
	{ 154, "probe with fgap, version 2: version first", B_PROBE, 0, -1, -1, { P(0, 0x23), P(O_FGAP, 1) }, WIRE_E_VERSION },
	{ 155, "probe with fgap, flags and cls all ones", B_PROBE, 0, -1, -1, { P(O_FGAP, 0xff), P(O_FGAP + 1, 0xff), P(O_FLAGS, 0xff), P(O_CLS, 0xff) }, WIRE_E_CONTROL_SEQ },
	{ 156, "report entry 0 with the unknown flag 2", B_REPORT, 2, -1, -1, { P(BODY + 4 + 1, 2) }, WIRE_E_REPORT_COUNT },
	{ 157, "report entry 1 of 2 with flags 0x80", B_REPORT, 2, -1, -1, { P(BODY + 4 + ENT + 1, 0x80) }, WIRE_E_REPORT_COUNT },
	{ 158, "report last of 16 entries with flags 0xff", B_REPORT, 16, -1, -1, { P(BODY + 4 + 15 * ENT + 1, 0xff) }, WIRE_E_REPORT_COUNT },
	{ 159, "report entry flags set, body one byte long: length first", B_REPORT, 2, 45, -1, { P(BODY + 4 + 1, 1) }, WIRE_E_BODY_LEN },
	{ 160, "report lseq_next all ones is valid", B_REPORT, 1, -1, -1, { P(BODY + 4 + 16, 0xff), P(BODY + 4 + 17, 0xff), P(BODY + 4 + 18, 0xff), P(BODY + 4 + 19, 0xff) }, WIRE_OK },
	{ 161, "report a v2 entry size (n=2, 36-byte body)", B_REPORT, 2, 36, -1, {}, WIRE_E_BODY_LEN },
	{ 162, "nack (path 1, count 3) is valid", B_NACK, 0, -1, -1, {}, WIRE_OK },
	{ 163, "nack count 64 is valid", B_NACK, 0, -1, -1, { P(BODY + 2, 0), P(BODY + 3, 64) }, WIRE_OK },
	{ 164, "nack count 0", B_NACK, 0, -1, -1, { P(BODY + 3, 0) }, WIRE_E_NACK },
	{ 165, "nack count 65", B_NACK, 0, -1, -1, { P(BODY + 3, 65) }, WIRE_E_NACK },
	{ 166, "nack count 0x0103", B_NACK, 0, -1, -1, { P(BODY + 2, 1) }, WIRE_E_NACK },
	{ 167, "nack path 16", B_NACK, 0, -1, -1, { P(BODY, 16) }, WIRE_E_NACK },
	{ 168, "nack path 15 is valid", B_NACK, 0, -1, -1, { P(BODY, 15) }, WIRE_OK },
	{ 169, "nack reserved byte set", B_NACK, 0, -1, -1, { P(BODY + 1, 1) }, WIRE_E_NACK },
	{ 170, "nack 7-byte body", B_NACK, 0, 7, -1, {}, WIRE_E_BODY_LEN },
	{ 171, "nack 9-byte body", B_NACK, 0, 9, -1, {}, WIRE_E_BODY_LEN },
	{ 172, "nack with lseq: control first", B_NACK, 0, -1, -1, { P(O_LSEQ, 1) }, WIRE_E_CONTROL_SEQ },
	{ 173, "nack 9-byte body, count 0: length first", B_NACK, 0, 9, -1, { P(BODY + 3, 0) }, WIRE_E_BODY_LEN },
	/* TRAIN (index 1 of 3 unless patched, padding zero) and TRAIN_ACK
	 * (got 3 of 3): types 8 and 9 within version 4 */
	{ 174, "train, fields only, is valid", B_TRAIN, 0, -1, -1, {}, WIRE_OK },
	{ 175, "train with 1000 bytes of padding is valid", B_TRAIN, 1000, -1, -1, {}, WIRE_OK },
	{ 176, "train padded to the largest body (65535) is valid", B_TRAIN, 65527, -1, -1, {}, WIRE_OK },
	{ 177, "train padding not zero is ignored", B_TRAIN, 16, -1, -1, { P(BODY + 8, 0xff), P(BODY + 15, 0x45), P(BODY + 23, 1) }, WIRE_OK },
	{ 178, "train 7-byte body", B_TRAIN, 0, 7, -1, {}, WIRE_E_BODY_LEN },
	{ 179, "train empty body", B_TRAIN, 0, 0, -1, {}, WIRE_E_BODY_LEN },
	{ 180, "train count 1, index 0", B_TRAIN, 0, -1, -1, { P(BODY + 5, 0), P(BODY + 7, 1) }, WIRE_E_TRAIN },
	{ 181, "train count 0, index 0", B_TRAIN, 0, -1, -1, { P(BODY + 5, 0), P(BODY + 7, 0) }, WIRE_E_TRAIN },
	{ 182, "train count 2, index 0 is valid", B_TRAIN, 0, -1, -1, { P(BODY + 5, 0), P(BODY + 7, 2) }, WIRE_OK },
	{ 183, "train count 257", B_TRAIN, 0, -1, -1, { P(BODY + 6, 1), P(BODY + 7, 1) }, WIRE_E_TRAIN },
	{ 184, "train count 256, index 255 is valid", B_TRAIN, 0, -1, -1, { P(BODY + 5, 0xff), P(BODY + 6, 1), P(BODY + 7, 0) }, WIRE_OK },
	{ 185, "train count 0xff03 (high byte)", B_TRAIN, 0, -1, -1, { P(BODY + 6, 0xff) }, WIRE_E_TRAIN },
	{ 186, "train index == count (3 of 3)", B_TRAIN, 0, -1, -1, { P(BODY + 5, 3) }, WIRE_E_TRAIN },
	{ 187, "train index 0x0101 of 3 (high byte)", B_TRAIN, 0, -1, -1, { P(BODY + 4, 1) }, WIRE_E_TRAIN },
	{ 188, "train index 2 of 3 (the last) is valid", B_TRAIN, 0, -1, -1, { P(BODY + 5, 2) }, WIRE_OK },
	{ 189, "train count 1 behind padding", B_TRAIN, 100, -1, -1, { P(BODY + 5, 0), P(BODY + 7, 1) }, WIRE_E_TRAIN },
	{ 190, "train 7-byte body, count high byte 0xff: length first", B_TRAIN, 0, 7, -1, { P(BODY + 6, 0xff) }, WIRE_E_BODY_LEN },
	{ 191, "train with lseq: control first", B_TRAIN, 0, -1, -1, { P(O_LSEQ, 1) }, WIRE_E_CONTROL_SEQ },
	{ 192, "train count 1 and cls set: control first", B_TRAIN, 0, -1, -1, { P(O_CLS, 1), P(BODY + 5, 0), P(BODY + 7, 1) }, WIRE_E_CONTROL_SEQ },
	{ 193, "train count 257 on path 16: path first", B_TRAIN, 0, -1, -1, { P(1, 16), P(BODY + 6, 1), P(BODY + 7, 1) }, WIRE_E_PATH },
	{ 194, "train-ack (got 3 of 3) is valid", B_TRAIN_ACK, 0, -1, -1, {}, WIRE_OK },
	{ 195, "train-ack 15-byte body", B_TRAIN_ACK, 0, 15, -1, {}, WIRE_E_BODY_LEN },
	{ 196, "train-ack 17-byte body", B_TRAIN_ACK, 0, 17, -1, {}, WIRE_E_BODY_LEN },
	{ 197, "train-ack 8-byte body (a TRAIN's fields)", B_TRAIN_ACK, 0, 8, -1, {}, WIRE_E_BODY_LEN },
	{ 198, "train-ack empty body", B_TRAIN_ACK, 0, 0, -1, {}, WIRE_E_BODY_LEN },
	{ 199, "train-ack got 4 of 3", B_TRAIN_ACK, 0, -1, -1, { P(BODY + 5, 4) }, WIRE_E_TRAIN },
	{ 200, "train-ack got 0x0103 of 3 (high byte)", B_TRAIN_ACK, 0, -1, -1, { P(BODY + 4, 1) }, WIRE_E_TRAIN },
	{ 201, "train-ack got 0 of 3 is valid", B_TRAIN_ACK, 0, -1, -1, { P(BODY + 5, 0) }, WIRE_OK },
	{ 202, "train-ack count 1, got 1", B_TRAIN_ACK, 0, -1, -1, { P(BODY + 5, 1), P(BODY + 7, 1) }, WIRE_E_TRAIN },
	{ 203, "train-ack count 0, got 0", B_TRAIN_ACK, 0, -1, -1, { P(BODY + 5, 0), P(BODY + 7, 0) }, WIRE_E_TRAIN },
	{ 204, "train-ack count 257, got 3", B_TRAIN_ACK, 0, -1, -1, { P(BODY + 6, 1), P(BODY + 7, 1) }, WIRE_E_TRAIN },
	{ 205, "train-ack got 256 of 256 is valid", B_TRAIN_ACK, 0, -1, -1, { P(BODY + 4, 1), P(BODY + 5, 0), P(BODY + 6, 1), P(BODY + 7, 0) }, WIRE_OK },
	{ 206, "train-ack bytes and dt_us all ones is valid", B_TRAIN_ACK, 0, -1, -1, { P(BODY + 8, 0xff), P(BODY + 9, 0xff), P(BODY + 10, 0xff), P(BODY + 11, 0xff), P(BODY + 12, 0xff), P(BODY + 13, 0xff), P(BODY + 14, 0xff), P(BODY + 15, 0xff) }, WIRE_OK },
	{ 207, "train-ack 17-byte body, got 4 of 3: length first", B_TRAIN_ACK, 0, 17, -1, { P(BODY + 5, 4) }, WIRE_E_BODY_LEN },
	{ 208, "train-ack with pgap: control first", B_TRAIN_ACK, 0, -1, -1, { P(O_PGAP + 1, 1) }, WIRE_E_CONTROL_SEQ },
	{ 209, "train-ack got 4 of 3, version 3: version first", B_TRAIN_ACK, 0, -1, -1, { P(0, 0x39), P(BODY + 5, 4) }, WIRE_E_VERSION },
};

static const uint8_t base_type[] = {
	[B_DATA4] = WIRE_DATA, [B_DATA6] = WIRE_DATA, [B_REPORT] = WIRE_REPORT,
	[B_PROBE] = WIRE_PROBE, [B_PROBE_ACK] = WIRE_PROBE_ACK,
	[B_HELLO] = WIRE_HELLO, [B_HELLO_ACK] = WIRE_HELLO_ACK,
	[B_NACK] = WIRE_NACK, [B_TRAIN] = WIRE_TRAIN,
	[B_TRAIN_ACK] = WIRE_TRAIN_ACK,
};

/* Builds the packet of a table row with the test's own encoder (so that the
 * table does not depend on wire_build).  Returns a malloc'd buffer of exactly
 * *len bytes. */
static uint8_t *build_row(const struct bad_row *row, size_t *len)
{
	size_t natural, body_len, total, i;
	uint8_t *body, *pkt;
	bool data = row->kind == B_DATA4 || row->kind == B_DATA6;
	bool hello = row->kind == B_HELLO || row->kind == B_HELLO_ACK;

	body = calloc(1, 70000);
	assert_non_null(body);
	switch (row->kind) {
	case B_DATA4:
		natural = row->param;
		mk_ipv4(body, natural, (uint8_t)row->id);
		break;
	case B_DATA6:
		natural = row->param;
		mk_ipv6(body, natural, (uint8_t)row->id);
		break;
	case B_REPORT:
		natural = 4 + ENT * row->param;
		body[0] = (uint8_t)row->param;
		for (i = 0; i < row->param; i++) {
			uint8_t *e = body + 4 + ENT * i;

			e[0] = (uint8_t)i;
			put32(e + 4, 1000 + (uint32_t)i);
			put32(e + 8, 7 * (uint32_t)i);
			put32(e + 12, 0xffffffff - (uint32_t)i);
			put32(e + 16, 0x80000000 + (uint32_t)i);
		}
		break;
	case B_HELLO:
		natural = 8;
		put64(body, 0x0102030405060708ull);
		put64(body + 8, 0xa1a2a3a4a5a6a7a8ull); /* beyond: for 9..16 */
		break;
	case B_HELLO_ACK:
		natural = 16;
		put64(body, 0x0102030405060708ull);
		put64(body + 8, 0xf0e0d0c0b0a09080ull);
		break;
	case B_NACK:
		natural = 8;
		body[0] = 1; /* path */
		body[3] = 3; /* count */
		put32(body + 4, 0xfffffff0);
		body[8] = 0x77; /* beyond: for 9 */
		break;
	case B_TRAIN:
		natural = 8 + row->param;
		put32(body, 0xa1b2c3d4);
		body[5] = 1; /* index */
		body[7] = 3; /* count; the padding stays zero */
		break;
	case B_TRAIN_ACK:
		natural = 16;
		put32(body, 0xa1b2c3d4);
		body[5] = 3; /* got */
		body[7] = 3; /* count */
		put32(body + 8, 0x0001d4c0);
		put32(body + 12, 0xfffffff0);
		body[16] = 0x77; /* beyond: for 17 */
		break;
	default:
		natural = 8;
		put32(body, 0x01020304);
		put32(body + 4, 0xfffffff0);
		break;
	}
	body_len = row->body_len >= 0 ? (size_t)row->body_len : natural;
	total = HDR + body_len + TAG;
	pkt = malloc(total);
	assert_non_null(pkt);
	enc_hdr(pkt, WIRE_VERSION, base_type[row->kind], 2, data ? 7 : 0, 0x01020304,
		hello ? 0x80000000deadbeefull : 0x1122334455667788ull,
		0x11223344, data ? 0x55667788 : 0, 0x99aabbcc);
	if (data) {
		enc_flow(pkt, 0x0102, 0, 5);
	}
	memcpy(pkt + HDR, body, body_len);
	memset(pkt + HDR + body_len, 0xee, TAG);
	free(body);
	for (i = 0; i < ARRAY_SIZE(row->p); i++) {
		if (row->p[i].set) {
			assert_true(row->p[i].off < total);
			pkt[row->p[i].off] = row->p[i].val;
		}
	}
	if (row->cut >= 0) {
		assert_true((size_t)row->cut <= total);
		total = (size_t)row->cut;
	}
	*len = total;
	return pkt;
}

/* Each row: wire_parse() gives its reason; the step that owns the reason
 * gives it (wire_parse_hdr() for the header's, else wire_parse_hdr() passes
 * and wire_parse_body() gives it), the header step reading no body; a
 * valid row parses to the fields at their v3 offsets. */
static void test_malformed_table(void **state)
{
	bool seen[WIRE_DROP_MAX] = { false };
	unsigned i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad_rows); i++) {
		const struct bad_row *row = &bad_rows[i];
		struct wire_msg m, s, b;
		size_t len;
		uint8_t *pkt = build_row(row, &len);
		uint8_t *in = exact_copy(pkt, len);
		enum wire_drop got = wire_parse(in, len, &m), dh, db;

		if (row->id != i + 1) {
			fail_msg("row %u is numbered %u", i + 1, row->id);
		}
		if (got != row->want) {
			fail_msg("row %u (%s): got %d (%s), want %d (%s)",
				 row->id, row->what, got, wire_drop_name(got),
				 row->want, wire_drop_name(row->want));
		}
		memset(&s, 0x5a, sizeof(s));
		dh = wire_parse_hdr(in, len, &s);
		db = dh == WIRE_OK ? wire_parse_body(&s) : dh;
		if (hdr_reason(row->want) ? dh != row->want
					  : dh != WIRE_OK || db != row->want) {
			fail_msg("row %u (%s): header step %s, body step %s",
				 row->id, row->what, wire_drop_name(dh),
				 wire_drop_name(db));
		}
		if (parse_hdr_blind(pkt, len, &b) != dh) {
			fail_msg("row %u (%s): header step differs with the "
				 "body hidden", row->id, row->what);
		}
		if (got == WIRE_OK) {
			assert_true(same_msg(&m, &s));
			assert_int_equal(m.hdr.type, in[0] & 15);
			assert_int_equal(m.hdr.path, in[1]);
			assert_int_equal(m.hdr.pgap, get16(in + O_PGAP));
			assert_int_equal(m.hdr.session, get32(in + O_SESSION));
			assert_true(m.hdr.pn == get64(in + O_PN));
			assert_int_equal(m.hdr.gseq, get32(in + O_GSEQ));
			assert_int_equal(m.hdr.lseq, get32(in + O_LSEQ));
			assert_int_equal(m.hdr.tstamp, get32(in + O_TSTAMP));
			assert_int_equal(m.hdr.fgap, get16(in + O_FGAP));
			assert_int_equal(m.hdr.flags, in[O_FLAGS]);
			assert_int_equal(m.hdr.cls, in[O_CLS]);
			if (m.hdr.type == WIRE_REPORT) {
				unsigned e;

				for (e = 0; e < m.u.report.n; e++) {
					const uint8_t *q = in + HDR + 4 + ENT * e;

					assert_int_equal(m.u.report.p[e].path, q[0]);
					assert_int_equal(m.u.report.p[e].rx_pkts, get32(q + 4));
					assert_int_equal(m.u.report.p[e].lost_pkts, get32(q + 8));
					assert_int_equal(m.u.report.p[e].delay_us, get32(q + 12));
					assert_int_equal(m.u.report.p[e].lseq_next, get32(q + 16));
				}
			}
			if (m.hdr.type == WIRE_HELLO ||
			    m.hdr.type == WIRE_HELLO_ACK) {
				assert_true(m.u.hello.r_cpe == get64(in + HDR));
				assert_true(m.u.hello.r_conc ==
					    (m.hdr.type == WIRE_HELLO
						     ? 0
						     : get64(in + HDR + 8)));
			}
			if (m.hdr.type == WIRE_TRAIN) {
				/* the padding is in the body, not read */
				assert_int_equal(m.body_len, len - MINLEN);
				assert_int_equal(m.u.train.id, get32(in + HDR));
				assert_int_equal(m.u.train.idx, get16(in + HDR + 4));
				assert_int_equal(m.u.train.count, get16(in + HDR + 6));
			}
			if (m.hdr.type == WIRE_TRAIN_ACK) {
				assert_int_equal(m.u.train_ack.id, get32(in + HDR));
				assert_int_equal(m.u.train_ack.got, get16(in + HDR + 4));
				assert_int_equal(m.u.train_ack.count, get16(in + HDR + 6));
				assert_int_equal(m.u.train_ack.bytes, get32(in + HDR + 8));
				assert_int_equal(m.u.train_ack.dt_us, get32(in + HDR + 12));
			}
		}
		seen[row->want] = true;
		free(in);
		free(pkt);
	}
	/* the packet number extremes are in the table */
	assert_true(seen[WIRE_OK]);
	/* the table covers every reason */
	for (i = 0; i < WIRE_DROP_MAX; i++) {
		if (!seen[i]) {
			fail_msg("reason %u not covered by the table", i);
		}
	}
	print_message("malformed table: %zu rows\n", ARRAY_SIZE(bad_rows));
}

/* Every length below header+tag is WIRE_E_SHORT, whatever the bytes. */
static void test_short_lengths(void **state)
{
	uint8_t pkt[64];
	struct wire_msg m;
	size_t len;
	unsigned v;

	(void)state;
	for (v = 0; v < 5; v++) {
		/* a valid DATA prefix, a valid PROBE prefix, garbage, a
		 * complete v1 PROBE (20 + 8 + 16 = 44 bytes) cut short, a
		 * complete v2 PROBE with no body (28 + 16 = 44 bytes) */
		if (v == 0) {
			enc_hdr(pkt, WIRE_VERSION, WIRE_DATA, 0, 0, 0, 0, 0, 0, 0);
			enc_flow(pkt, 0, WIRE_F_FLOW_FIRST, 1);
			mk_ipv4(pkt + HDR, 20, 0);
		} else if (v == 1) {
			memset(pkt, 0, sizeof(pkt));
			enc_hdr(pkt, WIRE_VERSION, WIRE_PROBE, 0, 0, 0, UINT64_MAX, 0, 0, 0);
		} else if (v == 2) {
			memset(pkt, 0xff, sizeof(pkt));
		} else {
			memset(pkt, 0, sizeof(pkt));
			pkt[0] = v == 3 ? 0x13 : 0x23;
		}
		for (len = 0; len < MINLEN; len++) {
			enum wire_drop d = parse_exact(pkt, len, &m);

			if (d != WIRE_E_SHORT) {
				fail_msg("variant %u len %zu: got %d, want SHORT",
					 v, len, d);
			}
			if (parse_hdr_blind(pkt, len, &m) != WIRE_E_SHORT) {
				fail_msg("variant %u len %zu: header step not SHORT",
					 v, len);
			}
		}
	}
}

/* ---- the two steps ---- */

/* wire_parse_hdr() with the body on a page that cannot be read: any read
 * of it faults.  Every type passes (the body is 4096 bytes, wrong for every
 * control type but TRAIN, whose padding may be any length: its fields, all
 * ones, are wrong instead), each header reason is found, m->u is not
 * written; with the page readable again the body step judges what is
 * there. */
static void test_parse_hdr_no_body_read(void **state)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE), len = HDR + ps + TAG;
	uint8_t *map, *pkt, *body, *tag;
	static const struct {
		uint8_t b0, path, lseq;
		uint16_t fgap;
		uint8_t flags, cls;
		enum wire_drop want;
	} hdrs[] = {
		{ 0x41, 0, 0, 0, 0, 0, WIRE_OK }, { 0x42, 1, 0, 0, 0, 0, WIRE_OK },
		{ 0x43, 2, 0, 0, 0, 0, WIRE_OK }, { 0x44, 3, 0, 0, 0, 0, WIRE_OK },
		{ 0x45, 4, 0, 0, 0, 0, WIRE_OK }, { 0x46, 15, 0, 0, 0, 0, WIRE_OK },
		{ 0x47, 5, 0, 0, 0, 0, WIRE_OK }, { 0x48, 6, 0, 0, 0, 0, WIRE_OK },
		{ 0x49, 7, 0, 0, 0, 0, WIRE_OK },
		{ 0x11, 0, 0, 0, 0, 0, WIRE_E_VERSION },
		{ 0x21, 0, 0, 0, 0, 0, WIRE_E_VERSION },
		{ 0x31, 0, 0, 0, 0, 0, WIRE_E_VERSION },
		{ 0x4a, 0, 0, 0, 0, 0, WIRE_E_TYPE },
		{ 0x40, 0, 0, 0, 0, 0, WIRE_E_TYPE },
		{ 0x48, 0, 0, 0, 0, 1, WIRE_E_CONTROL_SEQ },
		{ 0x49, 0, 2, 0, 0, 0, WIRE_E_CONTROL_SEQ },
		{ 0x41, 16, 0, 0, 0, 0, WIRE_E_PATH },
		{ 0x45, 0, 1, 0, 0, 0, WIRE_E_CONTROL_SEQ },
		{ 0x42, 0, 0, 1, 0, 0, WIRE_E_CONTROL_SEQ },
		{ 0x43, 0, 0, 0, WIRE_F_DUP, 0, WIRE_E_CONTROL_SEQ },
		{ 0x46, 0, 0, 0, 0, 9, WIRE_E_CONTROL_SEQ },
		{ 0x41, 0, 0, 0, 0x10, 0, WIRE_E_FLAGS },
		{ 0x41, 0, 0, 3, WIRE_F_FLOW_FIRST, 0, WIRE_E_FLAGS },
		/* DATA: lseq and the flow fields are its own */
		{ 0x41, 0, 1, 0, 0, 0, WIRE_OK },
		{ 0x41, 0, 1, 65535, WIRE_F_RESENT | WIRE_F_DUP, 255, WIRE_OK },
	};
	unsigned i, j;

	(void)state;
	map = mmap(NULL, 3 * ps, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(map != MAP_FAILED);
	pkt = map + ps - HDR;
	body = map + ps;
	tag = map + 2 * ps;
	memset(tag, 0xee, TAG);
	for (i = 0; i < ARRAY_SIZE(hdrs); i++) {
		struct wire_msg m;
		const uint8_t *u = (const uint8_t *)&m.u;

		/* garbage body: every byte 0xff, an inner version 15 */
		assert_int_equal(mprotect(body, ps, PROT_READ | PROT_WRITE), 0);
		memset(body, 0xff, ps);
		enc_hdr(pkt, hdrs[i].b0 >> 4, hdrs[i].b0 & 15, hdrs[i].path, 0,
			7, 0x8000000000000001ull, 9, hdrs[i].lseq, 11);
		enc_flow(pkt, hdrs[i].fgap, hdrs[i].flags, hdrs[i].cls);
		assert_int_equal(mprotect(body, ps, PROT_NONE), 0);
		memset(&m, 0xa5, sizeof(m));
		if (wire_parse_hdr(pkt, len, &m) != hdrs[i].want) {
			fail_msg("case %u: header step gave %s", i,
				 wire_drop_name(wire_parse_hdr(pkt, len, &m)));
		}
		for (j = 0; j < sizeof(m.u); j++) {
			if (u[j] != 0xa5) {
				fail_msg("case %u: header step wrote m->u", i);
			}
		}
		if (hdrs[i].want != WIRE_OK) {
			continue;
		}
		assert_ptr_equal(m.body, body);
		assert_int_equal(m.body_len, ps);
		assert_ptr_equal(m.tag, tag);
		assert_true(m.hdr.pn == 0x8000000000000001ull);
		assert_int_equal(m.hdr.fgap, hdrs[i].fgap);
		assert_int_equal(m.hdr.flags, hdrs[i].flags);
		assert_int_equal(m.hdr.cls, hdrs[i].cls);
		assert_int_equal(mprotect(body, ps, PROT_READ | PROT_WRITE), 0);
		if (m.hdr.type == WIRE_DATA) {
			assert_int_equal(wire_parse_body(&m), WIRE_E_INNER_VERSION);
			/* the body replaced in place (as decryption does):
			 * the body step reads what is there now */
			mk_ipv4(body, ps, 3);
			assert_int_equal(wire_parse_body(&m), WIRE_OK);
		} else if (m.hdr.type == WIRE_REPORT) {
			assert_int_equal(wire_parse_body(&m), WIRE_E_REPORT_COUNT);
		} else if (m.hdr.type == WIRE_TRAIN) {
			/* index and count 65535 */
			assert_int_equal(wire_parse_body(&m), WIRE_E_TRAIN);
			/* the fields written in place: the rest of the
			 * page is padding */
			assert_int_equal(wire_put_train(body, WIRE_TRAIN_LEN,
							&(struct wire_train){
								.id = 5,
								.idx = 9,
								.count = 10 },
							WIRE_TRAIN_LEN),
					 WIRE_TRAIN_LEN);
			assert_int_equal(wire_parse_body(&m), WIRE_OK);
			assert_int_equal(m.body_len, ps);
			assert_int_equal(m.u.train.idx, 9);
			assert_int_equal(m.u.train.count, 10);
		} else {
			assert_int_equal(wire_parse_body(&m), WIRE_E_BODY_LEN);
		}
	}
	assert_int_equal(munmap(map, 3 * ps), 0);
}

/* A packet whose body is garbage (or ciphertext) passes the header step
 * and fails the body step with the body's reason; replaced in place with
 * the plaintext, the body step accepts it.  wire_parse_body() on a header
 * that is no type refuses it. */
static void test_hdr_then_body(void **state)
{
	static const struct {
		uint8_t type;
		size_t body_len;
		uint8_t fill;
		enum wire_drop want;
	} cases[] = {
		{ WIRE_DATA, 60, 0xff, WIRE_E_INNER_VERSION },
		{ WIRE_DATA, 60, 0x45, WIRE_E_INNER_LEN },
		{ WIRE_DATA, 10, 0x45, WIRE_E_INNER_SHORT },
		{ WIRE_DATA, 39, 0x60, WIRE_E_INNER_SHORT },
		{ WIRE_REPORT, 44, 0xc8, WIRE_E_REPORT_COUNT },
		{ WIRE_REPORT, 44, 0x02, WIRE_E_REPORT_COUNT }, /* paths 2, 2 */
		{ WIRE_REPORT, 43, 0x02, WIRE_E_BODY_LEN },
		{ WIRE_REPORT, 24, 0x01, WIRE_OK }, /* path 1, flags BACKUP */
		{ WIRE_REPORT, 4, 0x00, WIRE_OK },
		{ WIRE_PROBE, 9, 0x00, WIRE_E_BODY_LEN },
		{ WIRE_PROBE_ACK, 8, 0x77, WIRE_OK },
		{ WIRE_HELLO, 9, 0x00, WIRE_E_BODY_LEN },
		{ WIRE_HELLO, 16, 0x00, WIRE_E_BODY_LEN },
		{ WIRE_HELLO, 8, 0x99, WIRE_OK },
		{ WIRE_HELLO_ACK, 8, 0x00, WIRE_E_BODY_LEN },
		{ WIRE_HELLO_ACK, 16, 0x99, WIRE_OK },
		{ WIRE_NACK, 8, 0x00, WIRE_E_NACK }, /* count 0 */
		{ WIRE_NACK, 8, 0x01, WIRE_E_NACK }, /* reserved byte */
		{ WIRE_TRAIN, 7, 0x00, WIRE_E_BODY_LEN },
		{ WIRE_TRAIN, 8, 0x00, WIRE_E_TRAIN },	  /* count 0 */
		{ WIRE_TRAIN, 64, 0x01, WIRE_E_TRAIN },	  /* 257 of 257 */
		{ WIRE_TRAIN, 64, 0x00, WIRE_E_TRAIN },	  /* padding no help */
		{ WIRE_TRAIN_ACK, 16, 0x00, WIRE_E_TRAIN }, /* count 0 */
		{ WIRE_TRAIN_ACK, 16, 0x01, WIRE_E_TRAIN }, /* count 257 */
		{ WIRE_TRAIN_ACK, 15, 0x00, WIRE_E_BODY_LEN },
		{ WIRE_TRAIN_ACK, 17, 0x00, WIRE_E_BODY_LEN },
	};
	uint8_t pkt[MINLEN + 64], body[64];
	struct wire_msg m, whole;
	unsigned i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		size_t len = MINLEN + cases[i].body_len;
		struct wire_hdr h = { .type = cases[i].type, .path = 5,
				      .session = 1, .pn = i };

		memset(body, cases[i].fill, cases[i].body_len);
		assert_int_equal(wire_build(pkt, sizeof(pkt), &h, body,
					    cases[i].body_len),
				 (int)len);
		memset(&m, 0xa5, sizeof(m));
		assert_int_equal(wire_parse_hdr(pkt, len, &m), WIRE_OK);
		assert_int_equal(m.body_len, cases[i].body_len);
		if (wire_parse_body(&m) != cases[i].want) {
			fail_msg("case %u: body step gave %s", i,
				 wire_drop_name(wire_parse_body(&m)));
		}
		assert_int_equal(wire_parse(pkt, len, &whole), cases[i].want);
		if (cases[i].want == WIRE_OK) {
			assert_true(same_msg(&m, &whole));
		}
	}

	/* ciphertext, then the plaintext written over it in place */
	{
		struct wire_hdr h = { .type = WIRE_HELLO_ACK, .session = 3,
				      .pn = 0x8000000000000005ull };
		struct wire_hello he = { 0x1111111111111111ull,
					 0x2222222222222222ull };
		size_t len = MINLEN + 16;

		memset(body, 0x3c, sizeof(body));
		assert_int_equal(wire_build(pkt, sizeof(pkt), &h, body, 7),
				 MINLEN + 7);
		/* a 7-byte ciphertext: not a HELLO_ACK's body */
		assert_int_equal(wire_parse_hdr(pkt, MINLEN + 7, &m), WIRE_OK);
		assert_int_equal(wire_parse_body(&m), WIRE_E_BODY_LEN);
		assert_int_equal(wire_build(pkt, sizeof(pkt), &h, body, 16),
				 (int)len);
		assert_int_equal(wire_parse_hdr(pkt, len, &m), WIRE_OK);
		assert_int_equal(wire_put_hello_ack(pkt + HDR, 16, &he), 16);
		assert_int_equal(wire_parse_body(&m), WIRE_OK);
		assert_true(m.u.hello.r_cpe == he.r_cpe);
		assert_true(m.u.hello.r_conc == he.r_conc);
	}

	/* the same for a padded TRAIN: the ciphertext's fields are no
	 * train, the plaintext's are, and the length is the ciphertext's */
	{
		struct wire_hdr h = { .type = WIRE_TRAIN, .path = 1,
				      .session = 3, .pn = 6 };
		struct wire_train t = { .id = 0xdeadbeef, .idx = 7,
					.count = 8 };

		memset(body, 0x3c, sizeof(body));
		assert_int_equal(wire_build(pkt, sizeof(pkt), &h, body, 64),
				 MINLEN + 64);
		assert_int_equal(wire_parse_hdr(pkt, MINLEN + 64, &m), WIRE_OK);
		assert_int_equal(wire_parse_body(&m), WIRE_E_TRAIN);
		assert_int_equal(wire_put_train(pkt + HDR, 64, &t, 64), 64);
		assert_int_equal(wire_parse_body(&m), WIRE_OK);
		assert_int_equal(m.body_len, 64);
		assert_int_equal(m.u.train.id, t.id);
		assert_int_equal(m.u.train.idx, t.idx);
		assert_int_equal(m.u.train.count, t.count);
	}

	/* the body step on a message whose type is none */
	memset(&m, 0, sizeof(m));
	m.body = pkt;
	m.body_len = 8;
	m.hdr.type = 0;
	assert_int_equal(wire_parse_body(&m), WIRE_E_TYPE);
	m.hdr.type = WIRE_TYPE_MAX + 1;
	assert_int_equal(wire_parse_body(&m), WIRE_E_TYPE);
	m.hdr.type = 15;
	assert_int_equal(wire_parse_body(&m), WIRE_E_TYPE);
}

/* ---- truncation sweeps ---- */

struct valid_pkt {
	const char *what;
	uint8_t *buf;
	size_t len;
};

static void make_valid(struct valid_pkt *v, const char *what, uint8_t type,
		       const uint8_t *body, size_t body_len)
{
	struct wire_hdr h = {
		.type = type, .path = 9,
		.pgap = type == WIRE_DATA ? 3 : 0,
		.session = 0x0a0b0c0d, .pn = 0xfffffffffffffffeull,
		.gseq = 0xfffffffe,
		.lseq = type == WIRE_DATA ? 0x12345678 : 0,
		.tstamp = 77,
		.fgap = type == WIRE_DATA ? 0xfff0 : 0,
		.flags = type == WIRE_DATA ? WIRE_F_RESENT | WIRE_F_DUP : 0,
		.cls = type == WIRE_DATA ? 0xc3 : 0,
	};
	size_t cap = HDR + body_len + TAG;
	int n;

	v->what = what;
	v->buf = malloc(cap);
	assert_non_null(v->buf);
	n = wire_build(v->buf, cap, &h, body, body_len);
	assert_int_equal(n, (int)cap);
	v->len = cap;
}

/* The reason a truncated packet must get, from the semantics: the length
 * fields that made the full packet valid now disagree with the body.  A
 * TRAIN has none: cut anywhere past its fields it is the same TRAIN with
 * less padding. */
static enum wire_drop truncated_reason(const uint8_t *pkt, size_t len)
{
	size_t body_len;

	if (len < MINLEN) {
		return WIRE_E_SHORT;
	}
	body_len = len - MINLEN;
	if ((pkt[0] & 15) == WIRE_TRAIN) {
		return body_len < 8 ? WIRE_E_BODY_LEN : WIRE_OK;
	}
	if ((pkt[0] & 15) != WIRE_DATA) {
		return WIRE_E_BODY_LEN;
	}
	if (body_len < 20) {
		return WIRE_E_INNER_SHORT;
	}
	if (pkt[HDR] >> 4 == 6 && body_len < 40) {
		return WIRE_E_INNER_SHORT;
	}
	return WIRE_E_INNER_LEN;
}

static void test_truncation_sweep(void **state)
{
	struct valid_pkt v[15];
	uint8_t inner[1500];
	uint8_t body[WIRE_REPORT_MAX];
	struct wire_report r;
	struct wire_probe pr = { 1, 2 };
	struct wire_hello he = { 0x0300000000000003ull, 0x0400000000000004ull };
	struct wire_train tr = { 0xffffffff, 255, 256 };
	struct wire_train_ack ta = { 0xffffffff, 256, 256, 1, 2 };
	unsigned i, nv = 0, cuts = 0, trains = 0;
	size_t len;

	(void)state;
	mk_ipv4(inner, 20, 1);
	make_valid(&v[nv++], "DATA IPv4 20", WIRE_DATA, inner, 20);
	mk_ipv4(inner, 1424, 5);
	make_valid(&v[nv++], "DATA IPv4 1424", WIRE_DATA, inner, 1424);
	mk_ipv4(inner, 1500, 2);
	make_valid(&v[nv++], "DATA IPv4 1500", WIRE_DATA, inner, 1500);
	mk_ipv6(inner, 40, 3);
	make_valid(&v[nv++], "DATA IPv6 40", WIRE_DATA, inner, 40);
	mk_ipv6(inner, 1500, 4);
	make_valid(&v[nv++], "DATA IPv6 1500", WIRE_DATA, inner, 1500);
	memset(&r, 0, sizeof(r));
	for (i = 0; i < 16; i++) {
		r.p[i] = (struct wire_report_path){ (uint8_t)i, i, i, i,
						    0xffffffff - i };
	}
	r.n = 0;
	assert_int_equal(wire_put_report(body, sizeof(body), &r), 4);
	make_valid(&v[nv++], "REPORT 0", WIRE_REPORT, body, 4);
	r.n = 1;
	assert_int_equal(wire_put_report(body, sizeof(body), &r), 24);
	make_valid(&v[nv++], "REPORT 1", WIRE_REPORT, body, 24);
	r.n = 16;
	assert_int_equal(wire_put_report(body, sizeof(body), &r), 324);
	make_valid(&v[nv++], "REPORT 16", WIRE_REPORT, body, 324);
	assert_int_equal(wire_put_probe(body, 8, &pr), 8);
	make_valid(&v[nv++], "PROBE", WIRE_PROBE, body, 8);
	make_valid(&v[nv++], "PROBE_ACK", WIRE_PROBE_ACK, body, 8);
	assert_int_equal(wire_put_hello(body, 8, &he), 8);
	make_valid(&v[nv++], "HELLO", WIRE_HELLO, body, 8);
	assert_int_equal(wire_put_hello_ack(body, 16, &he), 16);
	make_valid(&v[nv++], "HELLO_ACK", WIRE_HELLO_ACK, body, 16);
	assert_int_equal(wire_put_train(body, sizeof(body), &tr, 8), 8);
	make_valid(&v[nv++], "TRAIN", WIRE_TRAIN, body, 8);
	assert_int_equal(wire_put_train(body, sizeof(body), &tr, 300), 300);
	make_valid(&v[nv++], "TRAIN padded to 300", WIRE_TRAIN, body, 300);
	assert_int_equal(wire_put_train_ack(body, sizeof(body), &ta), 16);
	make_valid(&v[nv++], "TRAIN_ACK", WIRE_TRAIN_ACK, body, 16);
	assert_int_equal(nv, ARRAY_SIZE(v));

	for (i = 0; i < nv; i++) {
		struct wire_msg m, full;

		if (parse_exact(v[i].buf, v[i].len, &full) != WIRE_OK) {
			fail_msg("%s: full packet rejected", v[i].what);
		}
		for (len = 0; len < v[i].len; len++) {
			enum wire_drop want = truncated_reason(v[i].buf, len);
			enum wire_drop d = parse_exact(v[i].buf, len, &m);
			enum wire_drop dh, db;
			uint8_t *in;

			if (d == WIRE_OK && want != WIRE_OK) {
				fail_msg("%s cut to %zu: accepted", v[i].what, len);
			}
			if (d != want) {
				fail_msg("%s cut to %zu: got %d (%s), want %d (%s)",
					 v[i].what, len, d, wire_drop_name(d),
					 want, wire_drop_name(want));
			}
			/* a TRAIN cut short of its padding: the same fields,
			 * the body as long as what is left */
			if (d == WIRE_OK) {
				assert_int_equal(m.hdr.type, WIRE_TRAIN);
				assert_int_equal(m.body_len, len - MINLEN);
				assert_int_equal(m.u.train.id, full.u.train.id);
				assert_int_equal(m.u.train.idx, full.u.train.idx);
				assert_int_equal(m.u.train.count,
						 full.u.train.count);
				trains++;
			}
			/* the header is whole from 48 bytes on: the body
			 * step alone refuses the cut */
			in = exact_copy(v[i].buf, len);
			dh = wire_parse_hdr(in, len, &m);
			db = dh == WIRE_OK ? wire_parse_body(&m) : dh;
			free(in);
			if (dh != (len < MINLEN ? WIRE_E_SHORT : WIRE_OK) ||
			    db != want) {
				fail_msg("%s cut to %zu: header step %s, body "
					 "step %s", v[i].what, len,
					 wire_drop_name(dh), wire_drop_name(db));
			}
			assert_int_equal(parse_hdr_blind(v[i].buf, len, &m), dh);
			cuts++;
		}
		free(v[i].buf);
	}
	/* the padded TRAIN's 292 cuts that keep its fields */
	assert_int_equal(trains, 300 - 8);
	print_message("truncation: %u cuts of %u packets (%u still a TRAIN)\n",
		      cuts, nv, trains);
}

/* ---- randomized differential test ---- */

static uint64_t rng;

static uint64_t rnd(void)
{
	/* splitmix64: fixed seed, same sequence on every platform */
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static unsigned below(unsigned n)
{
	return (unsigned)(rnd() % n);
}

struct ref_msg {
	struct wire_hdr h;
	struct wire_report rep;
	uint32_t a, b;
	uint64_t r_cpe, r_conc;
	struct wire_nack nack;
	struct wire_train train;
	struct wire_train_ack train_ack;
	bool repeat; /* rejected for a repeated report path */
	bool eflags; /* rejected for a report entry's flags byte */
};

/* A naive parser written straight from the semantics notes, in the same
 * two steps.  The header: */
static enum wire_drop ref_hdr(const uint8_t *p, size_t len, struct ref_msg *r)
{
	if (len < 48) {
		return WIRE_E_SHORT;
	}
	r->h.version = p[0] >> 4;
	r->h.type = p[0] & 15;
	r->h.path = p[1];
	r->h.pgap = get16(p + 2);
	r->h.session = get32(p + 4);
	r->h.pn = get64(p + 8);
	r->h.gseq = get32(p + 16);
	r->h.lseq = get32(p + 20);
	r->h.tstamp = get32(p + 24);
	r->h.fgap = get16(p + 28);
	r->h.flags = p[30];
	r->h.cls = p[31];
	if (r->h.version != WIRE_VERSION) {
		return WIRE_E_VERSION;
	}
	if (r->h.type == 0 || r->h.type > 9) {
		return WIRE_E_TYPE;
	}
	if (r->h.path >= 16) {
		return WIRE_E_PATH;
	}
	if (r->h.type != WIRE_DATA) {
		if (r->h.lseq != 0 || r->h.pgap != 0 || r->h.fgap != 0 ||
		    r->h.flags != 0 || r->h.cls != 0) {
			return WIRE_E_CONTROL_SEQ;
		}
		return WIRE_OK;
	}
	/* known flags: 1, 2, 4; the first of a flow has no fgap */
	if (r->h.flags > 7 || (r->h.flags & 1 && r->h.fgap != 0)) {
		return WIRE_E_FLAGS;
	}
	return WIRE_OK;
}

/* and the body, once the header passed */
static enum wire_drop ref_body(const uint8_t *p, size_t len, struct ref_msg *r)
{
	const uint8_t *body = p + 32;
	size_t bl = len - 48, i;

	switch (r->h.type) {
	case WIRE_DATA:
		if (bl < 20) {
			return WIRE_E_INNER_SHORT;
		}
		if (bl > 65535) {
			return WIRE_E_INNER_LEN;
		}
		if (body[0] >> 4 == 4) {
			size_t ihl = (size_t)(body[0] & 15) * 4;

			if (ihl < 20 || ihl > bl || get16(body + 2) != bl) {
				return WIRE_E_INNER_LEN;
			}
			return WIRE_OK;
		}
		if (body[0] >> 4 == 6) {
			if (bl < 40) {
				return WIRE_E_INNER_SHORT;
			}
			if (40 + (size_t)get16(body + 4) != bl) {
				return WIRE_E_INNER_LEN;
			}
			return WIRE_OK;
		}
		return WIRE_E_INNER_VERSION;
	case WIRE_REPORT:
		if (bl < 4) {
			return WIRE_E_BODY_LEN;
		}
		if (body[0] > 16) {
			return WIRE_E_REPORT_COUNT;
		}
		if (bl != 4 + 20 * (size_t)body[0]) {
			return WIRE_E_BODY_LEN;
		}
		r->rep.n = body[0];
		for (i = 0; i < body[0]; i++) {
			const uint8_t *e = body + 4 + 20 * i;
			size_t j;

			if (e[0] >= 16) {
				return WIRE_E_REPORT_COUNT;
			}
			/* one entry per path: compare with every earlier one */
			for (j = 0; j < i; j++) {
				if (body[4 + 20 * j] == e[0]) {
					r->repeat = true;
					return WIRE_E_REPORT_COUNT;
				}
			}
			/* the entry's flags: known ones only */
			if (e[1] & ~WIRE_RF_ALL) {
				r->eflags = true;
				return WIRE_E_REPORT_COUNT;
			}
			r->rep.p[i].path = e[0];
			r->rep.p[i].rx_pkts = get32(e + 4);
			r->rep.p[i].lost_pkts = get32(e + 8);
			r->rep.p[i].delay_us = get32(e + 12);
			r->rep.p[i].lseq_next = get32(e + 16);
			r->rep.p[i].flags = e[1];
		}
		return WIRE_OK;
	case WIRE_PROBE:
	case WIRE_PROBE_ACK:
		if (bl != 8) {
			return WIRE_E_BODY_LEN;
		}
		r->a = get32(body);
		r->b = get32(body + 4);
		return WIRE_OK;
	case WIRE_HELLO:
		if (bl != 8) {
			return WIRE_E_BODY_LEN;
		}
		r->r_cpe = get64(body);
		r->r_conc = 0;
		return WIRE_OK;
	case WIRE_NACK:
		if (bl != 8) {
			return WIRE_E_BODY_LEN;
		}
		r->nack.path = body[0];
		r->nack.count = get16(body + 2);
		r->nack.lseq = get32(body + 4);
		if (body[1] != 0 || body[0] >= 16 || r->nack.count == 0 ||
		    r->nack.count > 64) {
			return WIRE_E_NACK;
		}
		return WIRE_OK;
	case WIRE_TRAIN:
		/* the fields, then padding of any length, not looked at */
		if (bl < 8) {
			return WIRE_E_BODY_LEN;
		}
		r->train.id = get32(body);
		r->train.idx = get16(body + 4);
		r->train.count = get16(body + 6);
		if (r->train.count < 2 || r->train.count > 256 ||
		    r->train.idx >= r->train.count) {
			return WIRE_E_TRAIN;
		}
		return WIRE_OK;
	case WIRE_TRAIN_ACK:
		if (bl != 16) {
			return WIRE_E_BODY_LEN;
		}
		r->train_ack.id = get32(body);
		r->train_ack.got = get16(body + 4);
		r->train_ack.count = get16(body + 6);
		r->train_ack.bytes = get32(body + 8);
		r->train_ack.dt_us = get32(body + 12);
		if (r->train_ack.count < 2 || r->train_ack.count > 256 ||
		    r->train_ack.got > r->train_ack.count) {
			return WIRE_E_TRAIN;
		}
		return WIRE_OK;
	default: /* HELLO_ACK */
		if (bl != 16) {
			return WIRE_E_BODY_LEN;
		}
		r->r_cpe = get64(body);
		r->r_conc = get64(body + 8);
		return WIRE_OK;
	}
}

/* Random bytes, shaped most of the time towards a valid packet of a random
 * type so that every check is reached and many packets are accepted. */
static size_t gen_packet(uint8_t *p)
{
	unsigned type = 1 + below(9);
	size_t len, bl, i;

	if (below(4) == 0) {
		len = below(209);
	} else {
		switch (type) {
		case WIRE_DATA:
			bl = 20 + below(145);
			break;
		case WIRE_REPORT:
			bl = 4 + 20 * below(10);
			break;
		case WIRE_HELLO:
			bl = below(16) ? 8 : 16; /* sometimes an ACK's */
			break;
		case WIRE_HELLO_ACK:
			bl = below(16) ? 16 : 8; /* sometimes a HELLO's */
			break;
		case WIRE_TRAIN:
			bl = below(2) ? 8 : 8 + below(128); /* padding */
			break;
		case WIRE_TRAIN_ACK:
			bl = below(16) ? 16 : 8; /* sometimes a TRAIN's */
			break;
		default:
			bl = 8;
			break;
		}
		len = 48 + bl;
		if (below(8) == 0) {
			len = len + below(3) - 1; /* one short, exact or one long */
		}
	}
	for (i = 0; i < len; i++) {
		p[i] = (uint8_t)rnd();
	}
	if (len < 48) {
		return len;
	}
	bl = len - 48;
	if (below(16)) {
		/* mostly v4, sometimes v1, v2 or v3 (the old formats), else any */
		unsigned ver = below(16) ? 4 : below(3) ? 1 + below(3) : below(16);

		p[0] = (uint8_t)(ver << 4 | (below(16) ? type : below(16)));
	}
	if (below(16)) {
		p[1] &= 15;
	}
	if (below(8) == 0) {
		/* the packet number's extremes, and the handshake's top bit */
		static const uint64_t pns[] = { 0, UINT64_MAX, 1ull << 63 };

		put64(p + 8, pns[below(3)]);
	}
	if ((p[0] & 15) != WIRE_DATA && below(16)) {
		memset(p + 2, 0, 2);
		memset(p + 20, 0, 4);
		/* fgap, flags, cls: mostly all 0, else one of them set */
		memset(p + 28, 0, 4);
		if (below(16) == 0) {
			p[28 + below(4)] = (uint8_t)(1 + below(255));
		}
	}
	if ((p[0] & 15) == WIRE_DATA && below(16)) {
		/* mostly known flags, FLOW_FIRST mostly without fgap; else
		 * a random byte */
		p[30] = (uint8_t)(below(8) ? below(8) : rnd());
		if (p[30] & 1 && below(8)) {
			memset(p + 28, 0, 2);
		}
	}
	if ((p[0] & 15) == WIRE_DATA && bl >= 20 && below(16)) {
		uint8_t *b = p + 32;

		if (bl >= 40 && below(2)) {
			b[0] = (uint8_t)(0x60 | (b[0] & 15));
			if (below(16)) {
				put16(b + 4, (uint16_t)(bl - 40));
			}
		} else {
			b[0] = (uint8_t)(0x40 | (below(8) ? 5 + below(11) : below(16)));
			if (below(16)) {
				put16(b + 2, (uint16_t)bl);
			}
		}
	}
	if ((p[0] & 15) == WIRE_NACK && bl >= 4 && below(16)) {
		/* mostly a known path, the reserved byte 0, a count in
		 * 1..64; else one of them wrong */
		p[32] &= 15;
		p[33] = 0;
		put16(p + 34, (uint16_t)(1 + below(64)));
		switch (below(8)) {
		case 0:
			p[32] = (uint8_t)(16 + below(240));
			break;
		case 1:
			p[33] = (uint8_t)(1 + below(255));
			break;
		case 2:
			put16(p + 34, below(2) ? 0 : (uint16_t)(65 + below(65471)));
			break;
		default:
			break;
		}
	}
	if (((p[0] & 15) == WIRE_TRAIN || (p[0] & 15) == WIRE_TRAIN_ACK) &&
	    bl >= 8 && below(16)) {
		/* mostly a count in 2..256 (its ends often) with an index
		 * below it (TRAIN) or a received count up to it
		 * (TRAIN_ACK); else the count or the index just or far
		 * out.  The padding stays random: it is not read. */
		bool ack = (p[0] & 15) == WIRE_TRAIN_ACK;
		unsigned count = below(8) ? 2 + below(255)
				 : below(2)  ? 2
					     : 256;
		unsigned idx = below(4) ? below(count + ack)
			       : below(2) ? 0
					  : count - !ack;

		switch (below(8)) {
		case 0:
			count = below(2) ? below(2)
			      : below(2) ? 257
					 : 257 + below(65279);
			break;
		case 1:
			idx = count + ack +
			      (below(2) ? 0 : below(65536 - count - ack));
			break;
		default:
			break;
		}
		put16(p + 36, (uint16_t)idx);
		put16(p + 38, (uint16_t)count);
	}
	if ((p[0] & 15) == WIRE_REPORT && bl >= 4 && below(16)) {
		uint8_t *b = p + 32;
		unsigned start = below(16), step = 1 + 2 * below(8);
		bool distinct = below(2);

		b[0] = (uint8_t)(below(16) ? (bl - 4) / 20 : below(256));
		for (i = 0; 4 + 20 * i + 20 <= bl; i++) {
			/* the reserved flags byte: mostly 0 */
			if (below(64)) {
				b[4 + 20 * i + 1] = 0;
			}
			if (!below(32)) {
				continue;
			}
			/* half the time distinct paths (an odd step mod 16
			 * visits every path once), sometimes with one entry
			 * copied from an earlier one; else random paths,
			 * which repeat often */
			if (distinct) {
				b[4 + 20 * i] = (uint8_t)((start + step * i) & 15);
			} else {
				b[4 + 20 * i] &= 15;
			}
		}
		if (distinct && bl >= 4 + 40 && below(4) == 0) {
			size_t n = (bl - 4) / 20, dst = 1 + below((unsigned)n - 1);

			b[4 + 20 * dst] = b[4 + 20 * below((unsigned)dst)];
		}
	}
	return len;
}

/* Re-encodes an accepted message and compares it with the input; the tag is
 * not re-encoded (wire_build zeroes it), reserved report bytes are written
 * as zero (an accepted entry's flags byte is 0 already), and so is a
 * TRAIN's padding, to the same length. */
static void check_reencode(const uint8_t *in, size_t len,
			   const struct wire_msg *m)
{
	uint8_t out[256], body[WIRE_REPORT_MAX];
	const uint8_t *b = m->body;
	size_t bl = m->body_len, i;
	int n;

	switch (m->hdr.type) {
	case WIRE_DATA:
		break;
	case WIRE_REPORT:
		n = wire_put_report(body, sizeof(body), &m->u.report);
		assert_int_equal(n, (int)bl);
		b = body;
		break;
	case WIRE_PROBE:
	case WIRE_PROBE_ACK:
		assert_int_equal(wire_put_probe(body, sizeof(body), &m->u.probe), 8);
		b = body;
		break;
	case WIRE_HELLO:
		assert_int_equal(wire_put_hello(body, sizeof(body), &m->u.hello), 8);
		b = body;
		break;
	case WIRE_NACK:
		assert_int_equal(wire_put_nack(body, sizeof(body), &m->u.nack),
				 8);
		b = body;
		break;
	case WIRE_TRAIN:
		assert_int_equal(wire_put_train(body, sizeof(body),
						&m->u.train, bl),
				 (int)bl);
		b = body;
		break;
	case WIRE_TRAIN_ACK:
		assert_int_equal(wire_put_train_ack(body, sizeof(body),
						    &m->u.train_ack),
				 16);
		b = body;
		break;
	default:
		assert_int_equal(wire_put_hello_ack(body, sizeof(body),
						    &m->u.hello),
				 16);
		b = body;
		break;
	}
	n = wire_build(out, sizeof(out), &m->hdr, b, bl);
	assert_int_equal(n, (int)len);
	for (i = 0; i < len - TAG; i++) {
		/* body offsets 1..3 and 2..3 of each entry (entries at 4) */
		size_t bo = i - HDR;
		bool reserved = (m->hdr.type == WIRE_REPORT && i >= HDR &&
				 ((bo >= 1 && bo <= 3) ||
				  (bo >= 4 && (bo - 4) % 20 >= 2 &&
				   (bo - 4) % 20 <= 3))) ||
				(m->hdr.type == WIRE_TRAIN && i >= HDR &&
				 bo >= 8);

		if (reserved) {
			assert_int_equal(out[i], 0);
		} else if (out[i] != in[i]) {
			fail_msg("re-encoding differs at byte %zu of %zu "
				 "(type %u): %02x != %02x", i, len,
				 m->hdr.type, out[i], in[i]);
		}
	}
}

/* A REPORT entry's flag (version 4): WIRE_RF_BACKUP written and read
 * back, an unknown one refused both ways. */
static void test_report_flags(void **state)
{
	struct wire_report r = { .n = 2 }, got;
	uint8_t body[WIRE_REPORT_MAX];
	struct wire_msg m;

	(void)state;
	r.p[0] = (struct wire_report_path){ .path = 0, .lseq_next = 7 };
	r.p[1] = (struct wire_report_path){ .path = 1, .rx_pkts = 3,
					    .flags = WIRE_RF_BACKUP };
	assert_int_equal(wire_put_report(body, sizeof(body), &r), 44);
	assert_int_equal(body[4 + 1], 0);
	assert_int_equal(body[4 + 20 + 1], WIRE_RF_BACKUP);
	m = (struct wire_msg){ .hdr = { .type = WIRE_REPORT },
			       .body = body, .body_len = 44 };
	assert_int_equal(wire_parse_body(&m), WIRE_OK);
	got = m.u.report;
	assert_int_equal(got.p[0].flags, 0);
	assert_int_equal(got.p[1].flags, WIRE_RF_BACKUP);
	assert_int_equal(got.p[1].rx_pkts, 3);
	body[4 + 20 + 1] = WIRE_RF_BACKUP | 0x02;
	assert_int_equal(wire_parse_body(&m), WIRE_E_REPORT_COUNT);
	r.p[1].flags = 0x02;
	assert_int_equal(wire_put_report(body, sizeof(body), &r), -EINVAL);
}

static void test_random(void **state)
{
	unsigned long ok[WIRE_TYPE_MAX + 1] = { 0 };
	unsigned long reasons[WIRE_DROP_MAX] = { 0 };
	unsigned long repeats = 0, pn_min = 0, pn_max = 0, v1 = 0, v2 = 0;
	unsigned long eflags = 0, first = 0, resent = 0, dup = 0, fgap = 0;
	unsigned long padded = 0, pad_set = 0;
	uint8_t tmp[256];
	unsigned iter, t;

	(void)state;
	rng = 20261122;
	for (iter = 0; iter < 200000; iter++) {
		size_t len = gen_packet(tmp);
		uint8_t *in = exact_copy(tmp, len);
		struct wire_msg m, s, blind;
		struct ref_msg r = { .repeat = false, .eflags = false };
		enum wire_drop want_hdr = ref_hdr(in, len, &r);
		enum wire_drop want = want_hdr != WIRE_OK ? want_hdr
							  : ref_body(in, len, &r);
		enum wire_drop got = wire_parse(in, len, &m), dh, db;
		unsigned i;

		if (got != want) {
			fail_msg("iteration %u, len %zu, byte0 %02x: got %d (%s), "
				 "reference %d (%s)", iter, len,
				 len ? in[0] : 0, got, wire_drop_name(got),
				 want, wire_drop_name(want));
		}
		/* the two steps: each against the reference's, and
		 * together the same as wire_parse() */
		memset(&s, 0x5a, sizeof(s));
		dh = wire_parse_hdr(in, len, &s);
		if (dh != want_hdr) {
			fail_msg("iteration %u: header step %s, reference %s",
				 iter, wire_drop_name(dh),
				 wire_drop_name(want_hdr));
		}
		db = dh == WIRE_OK ? wire_parse_body(&s) : dh;
		if (db != got) {
			fail_msg("iteration %u: the steps gave %s, wire_parse %s",
				 iter, wire_drop_name(db), wire_drop_name(got));
		}
		if (parse_hdr_blind(in, len, &blind) != dh) {
			fail_msg("iteration %u: header step differs with the "
				 "body hidden", iter);
		}
		reasons[got]++;
		repeats += r.repeat;
		eflags += r.eflags;
		v1 += len >= 48 && in[0] >> 4 == 1;
		v2 += len >= 48 && in[0] >> 4 == 2;
		if (got == WIRE_OK) {
			ok[m.hdr.type]++;
			pn_min += m.hdr.pn == 0;
			pn_max += m.hdr.pn == UINT64_MAX;
			if (m.hdr.type == WIRE_DATA) {
				first += (m.hdr.flags & WIRE_F_FLOW_FIRST) != 0;
				resent += (m.hdr.flags & WIRE_F_RESENT) != 0;
				dup += (m.hdr.flags & WIRE_F_DUP) != 0;
				fgap += m.hdr.fgap != 0;
			}
			assert_true(same_msg(&m, &s));
			check_hdr(&m.hdr, &r.h);
			assert_ptr_equal(m.body, in + HDR);
			assert_int_equal(m.body_len, len - MINLEN);
			assert_ptr_equal(m.tag, in + len - TAG);
			switch (m.hdr.type) {
			case WIRE_REPORT:
				assert_int_equal(m.u.report.n, r.rep.n);
				for (i = 0; i < r.rep.n; i++) {
					assert_int_equal(m.u.report.p[i].path, r.rep.p[i].path);
					assert_int_equal(m.u.report.p[i].rx_pkts, r.rep.p[i].rx_pkts);
					assert_int_equal(m.u.report.p[i].lost_pkts, r.rep.p[i].lost_pkts);
					assert_int_equal(m.u.report.p[i].delay_us, r.rep.p[i].delay_us);
					assert_int_equal(m.u.report.p[i].lseq_next, r.rep.p[i].lseq_next);
				}
				break;
			case WIRE_PROBE:
			case WIRE_PROBE_ACK:
				assert_int_equal(m.u.probe.id, r.a);
				assert_int_equal(m.u.probe.value, r.b);
				break;
			case WIRE_HELLO:
			case WIRE_HELLO_ACK:
				assert_true(m.u.hello.r_cpe == r.r_cpe);
				assert_true(m.u.hello.r_conc == r.r_conc);
				break;
			case WIRE_NACK:
				assert_int_equal(m.u.nack.path, r.nack.path);
				assert_int_equal(m.u.nack.count, r.nack.count);
				assert_int_equal(m.u.nack.lseq, r.nack.lseq);
				break;
			case WIRE_TRAIN:
				assert_int_equal(m.u.train.id, r.train.id);
				assert_int_equal(m.u.train.idx, r.train.idx);
				assert_int_equal(m.u.train.count, r.train.count);
				padded += m.body_len > 8;
				for (i = 8; i < m.body_len; i++) {
					if (m.body[i] != 0) {
						pad_set++;
						break;
					}
				}
				break;
			case WIRE_TRAIN_ACK:
				assert_int_equal(m.u.train_ack.id, r.train_ack.id);
				assert_int_equal(m.u.train_ack.got, r.train_ack.got);
				assert_int_equal(m.u.train_ack.count,
						 r.train_ack.count);
				assert_int_equal(m.u.train_ack.bytes,
						 r.train_ack.bytes);
				assert_int_equal(m.u.train_ack.dt_us,
						 r.train_ack.dt_us);
				break;
			}
			check_reencode(in, len, &m);
		}
		free(in);
	}
	print_message("random: accepted data %lu report %lu probe %lu "
		      "probe_ack %lu hello %lu hello_ack %lu nack %lu train %lu "
		      "train_ack %lu\n", ok[1], ok[2], ok[3], ok[4], ok[5],
		      ok[6], ok[7], ok[8], ok[9]);
	print_message("random: rejects");
	for (t = 1; t < WIRE_DROP_MAX; t++) {
		print_message(" %s %lu", wire_drop_name((enum wire_drop)t),
			      reasons[t]);
	}
	print_message("\nrandom: reports rejected for a repeated path %lu, "
		      "for an entry's flags %lu; accepted with pn 0 %lu, pn "
		      "2^64-1 %lu; v1 headers %lu, v2 %lu\n",
		      repeats, eflags, pn_min, pn_max, v1, v2);
	print_message("random: accepted DATA with FLOW_FIRST %lu, RESENT %lu, "
		      "DUP %lu, fgap set %lu\n", first, resent, dup, fgap);
	print_message("random: accepted TRAIN with padding %lu, not zero %lu\n",
		      padded, pad_set);
	if (repeats < 1000) {
		fail_msg("repeated report paths reached only %lu times", repeats);
	}
	if (eflags < 100) {
		fail_msg("report entry flags reached only %lu times", eflags);
	}
	if (pn_min < 100 || pn_max < 100 || v1 < 100 || v2 < 100) {
		fail_msg("pn extremes or v1/v2 headers reached too rarely");
	}
	if (first < 100 || resent < 100 || dup < 100 || fgap < 100) {
		fail_msg("accepted DATA flags or fgap reached too rarely");
	}
	/* TRAIN's padding: present, and any bytes in it accepted */
	if (padded < 1000 || pad_set < 1000) {
		fail_msg("padded TRAINs reached too rarely");
	}
	/* the generator reached every outcome, and accepted plenty of each
	 * type: otherwise this test would be checking little */
	for (t = 0; t < WIRE_DROP_MAX; t++) {
		if (reasons[t] < 100) {
			fail_msg("reason %u reached only %lu times", t, reasons[t]);
		}
	}
	for (t = 1; t <= WIRE_TYPE_MAX; t++) {
		if (ok[t] < 1000) {
			fail_msg("type %u accepted only %lu times", t, ok[t]);
		}
	}
}

/* ---- builders' errors ---- */

static void test_build_errors(void **state)
{
	static const uint8_t bad_types[] = { 0, 10, 15, 255 };
	struct wire_hdr h = { .type = WIRE_DATA, .path = 1, .gseq = 5 };
	uint8_t *big = calloc(1, 65536 + 64);
	uint8_t *out = malloc(65536 + 64);
	uint8_t inner[20];
	size_t i;
	unsigned t;

	(void)state;
	assert_non_null(big);
	assert_non_null(out);
	mk_ipv4(inner, 20, 0);
	for (t = 0; t < ARRAY_SIZE(bad_types); t++) {
		h.type = bad_types[t];
		assert_int_equal(wire_build(out, 1024, &h, inner, 20), -EINVAL);
	}
	h.type = WIRE_DATA;
	h.path = 16;
	assert_int_equal(wire_build(out, 1024, &h, inner, 20), -EINVAL);
	h.path = 255;
	assert_int_equal(wire_build(out, 1024, &h, inner, 20), -EINVAL);
	h.path = 15;
	assert_int_equal(wire_build(out, 65536 + 64, &h, big, 65536), -EINVAL);
	/* largest body: fits exactly, one byte less does not */
	mk_ipv4(big, 65535, 0);
	assert_int_equal(wire_build(out, 65535 + 48, &h, big, 65535), 65535 + 48);
	assert_int_equal(wire_build(out, 65535 + 47, &h, big, 65535), -ENOSPC);
	/* small: exactly enough, one short, none */
	assert_int_equal(wire_build(out, 68, &h, inner, 20), 68);
	assert_int_equal(wire_build(out, 67, &h, inner, 20), -ENOSPC);
	assert_int_equal(wire_build(out, 0, &h, inner, 20), -ENOSPC);
	/* the body is not validated by the builder: an empty probe body */
	h.type = WIRE_PROBE;
	assert_int_equal(wire_build(out, 48, &h, inner, 0), 48);
	assert_int_equal(wire_build(out, 47, &h, inner, 0), -ENOSPC);
	/* nor the flow fields: the parser judges them (so that tests and
	 * the fuzzer can build what a peer must refuse) */
	h = (struct wire_hdr){ .type = WIRE_DATA, .fgap = 1, .flags = 0xff,
			       .cls = 1 };
	assert_int_equal(wire_build(out, 68, &h, inner, 20), 68);
	assert_int_equal(out[28], 0);
	assert_int_equal(out[29], 1);
	assert_int_equal(out[30], 0xff);
	assert_int_equal(out[31], 1);

	/* version ignored, tag zeroed, nothing written past the packet, and
	 * nothing at all when refused */
	h = (struct wire_hdr){ .version = 0, .type = WIRE_DATA, .path = 4,
			       .pn = UINT64_MAX };
	memset(out, 0xaa, 128);
	assert_int_equal(wire_build(out, 128, &h, inner, 20), 68);
	assert_int_equal(out[0], 0x41);
	for (i = 8; i < 16; i++) {
		assert_int_equal(out[i], 0xff);
	}
	for (i = 52; i < 68; i++) {
		assert_int_equal(out[i], 0);
	}
	for (i = 68; i < 128; i++) {
		assert_int_equal(out[i], 0xaa);
	}
	memset(out, 0xaa, 128);
	assert_int_equal(wire_build(out, 67, &h, inner, 20), -ENOSPC);
	for (i = 0; i < 128; i++) {
		assert_int_equal(out[i], 0xaa);
	}
	free(big);
	free(out);
}

static void test_put_errors(void **state)
{
	struct wire_report r;
	struct wire_probe pr = { 1, 2 };
	struct wire_hello he = { 3, 4 };
	uint8_t buf[WIRE_REPORT_MAX + 16];
	unsigned i;

	(void)state;
	memset(&r, 0, sizeof(r));
	for (i = 0; i < 16; i++) {
		r.p[i].path = (uint8_t)i;
	}
	r.n = 17;
	assert_int_equal(wire_put_report(buf, sizeof(buf), &r), -EINVAL);
	r.n = 255;
	assert_int_equal(wire_put_report(buf, sizeof(buf), &r), -EINVAL);
	r.n = 2;
	r.p[1].path = 16;
	assert_int_equal(wire_put_report(buf, sizeof(buf), &r), -EINVAL);
	r.p[1].path = 255;
	assert_int_equal(wire_put_report(buf, sizeof(buf), &r), -EINVAL);
	r.p[1].path = 1;
	r.p[0].path = 16;
	assert_int_equal(wire_put_report(buf, sizeof(buf), &r), -EINVAL);
	r.p[0].path = 0;
	assert_int_equal(wire_put_report(buf, 44, &r), 44);
	assert_int_equal(wire_put_report(buf, 43, &r), -ENOSPC);
	r.n = 16;
	assert_int_equal(wire_put_report(buf, 324, &r), 324);
	assert_int_equal(wire_put_report(buf, 323, &r), -ENOSPC);
	r.n = 0;
	assert_int_equal(wire_put_report(buf, 4, &r), 4);
	assert_int_equal(wire_put_report(buf, 3, &r), -ENOSPC);
	assert_int_equal(wire_put_report(buf, 0, &r), -ENOSPC);

	assert_int_equal(wire_put_probe(buf, 8, &pr), 8);
	assert_int_equal(wire_put_probe(buf, 7, &pr), -ENOSPC);
	assert_int_equal(wire_put_probe(buf, 0, &pr), -ENOSPC);
	assert_int_equal(wire_put_hello(buf, 8, &he), 8);
	assert_int_equal(wire_put_hello(buf, 7, &he), -ENOSPC);
	assert_int_equal(wire_put_hello(buf, 0, &he), -ENOSPC);
	assert_int_equal(wire_put_hello_ack(buf, 16, &he), 16);
	assert_int_equal(wire_put_hello_ack(buf, 15, &he), -ENOSPC);
	assert_int_equal(wire_put_hello_ack(buf, 8, &he), -ENOSPC);
	assert_int_equal(wire_put_hello_ack(buf, 0, &he), -ENOSPC);
	/* a refused encoder writes nothing */
	memset(buf, 0xaa, sizeof(buf));
	assert_int_equal(wire_put_hello_ack(buf, 15, &he), -ENOSPC);
	assert_int_equal(wire_put_hello(buf, 7, &he), -ENOSPC);
	assert_int_equal(wire_put_probe(buf, 7, &pr), -ENOSPC);
	r.n = 16;
	assert_int_equal(wire_put_report(buf, 323, &r), -ENOSPC);
	for (i = 0; i < sizeof(buf); i++) {
		assert_int_equal(buf[i], 0xaa);
	}
}

static void test_names(void **state)
{
	const char *names[WIRE_DROP_MAX];
	const char *tnames[WIRE_TYPE_MAX + 1];
	unsigned i, j;

	(void)state;
	for (i = 0; i < WIRE_DROP_MAX; i++) {
		names[i] = wire_drop_name((enum wire_drop)i);
		assert_non_null(names[i]);
		assert_true(names[i][0] != '\0');
		if (strcmp(names[i], "unknown") == 0) {
			fail_msg("reason %u named \"unknown\"", i);
		}
		for (j = 0; j < i; j++) {
			if (strcmp(names[i], names[j]) == 0) {
				fail_msg("reasons %u and %u both named \"%s\"",
					 j, i, names[i]);
			}
		}
	}
	assert_string_equal(wire_drop_name(WIRE_DROP_MAX), "unknown");
	assert_string_equal(wire_drop_name((enum wire_drop)1000), "unknown");

	for (i = 1; i <= WIRE_TYPE_MAX; i++) {
		tnames[i] = wire_type_name((uint8_t)i);
		assert_non_null(tnames[i]);
		assert_true(tnames[i][0] != '\0');
		if (strcmp(tnames[i], "unknown") == 0) {
			fail_msg("type %u named \"unknown\"", i);
		}
		for (j = 1; j < i; j++) {
			if (strcmp(tnames[i], tnames[j]) == 0) {
				fail_msg("types %u and %u both named \"%s\"",
					 j, i, tnames[i]);
			}
		}
	}
	assert_string_equal(wire_type_name(WIRE_NACK), "nack");
	assert_string_equal(wire_type_name(WIRE_TRAIN), "train");
	assert_string_equal(wire_type_name(WIRE_TRAIN_ACK), "train_ack");
	assert_string_equal(wire_drop_name(WIRE_E_NACK), "bad_nack");
	assert_string_equal(wire_drop_name(WIRE_E_TRAIN), "bad_train");
	assert_string_equal(wire_type_name(0), "unknown");
	assert_string_equal(wire_type_name(10), "unknown");
	assert_string_equal(wire_type_name(15), "unknown");
	assert_string_equal(wire_type_name(255), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overhead),
		cmocka_unit_test(test_report_flags),
		cmocka_unit_test(test_vectors_build),
		cmocka_unit_test(test_vectors_parse),
		cmocka_unit_test(test_round_trip_hdr_extremes),
		cmocka_unit_test(test_round_trip_data),
		cmocka_unit_test(test_round_trip_report),
		cmocka_unit_test(test_round_trip_probe),
		cmocka_unit_test(test_round_trip_nack),
		cmocka_unit_test(test_round_trip_train),
		cmocka_unit_test(test_round_trip_train_ack),
		cmocka_unit_test(test_train_malformed),
		cmocka_unit_test(test_put_train_errors),
		cmocka_unit_test(test_round_trip_hello),
		cmocka_unit_test(test_malformed_table),
		cmocka_unit_test(test_short_lengths),
		cmocka_unit_test(test_parse_hdr_no_body_read),
		cmocka_unit_test(test_hdr_then_body),
		cmocka_unit_test(test_truncation_sweep),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_build_errors),
		cmocka_unit_test(test_put_errors),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
