/* Unit tests for the wire format (common/wire.c).
 *
 * Written from common/wire.h and the semantics notes, not from the
 * implementation, so that they are an independent check:
 * - round trips of every type with extreme header values;
 * - one header and one whole packet compared byte for byte with arrays
 *   written by hand (big-endian, version in the high nibble);
 * - a numbered table of malformed packets, each with the reason it must be
 *   rejected for (every reason appears, and the order of the checks);
 * - truncation sweeps: each valid packet cut at every shorter length, parsed
 *   from a heap buffer of exactly that length so that the sanitizer build
 *   catches any read past the end;
 * - a randomized differential test against a naive reference parser written
 *   here, re-encoding every accepted packet and comparing the bytes.
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

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const uint32_t extremes[] = { 0, 1, 0x7fffffff, 0x80000000, 0xffffffff };

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

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* The test's own header encoder, so that malformed headers can be made. */
static void enc_hdr(uint8_t *b, uint8_t ver, uint8_t type, uint8_t path,
		    uint16_t pgap, uint32_t session, uint32_t gseq,
		    uint32_t lseq, uint32_t tstamp)
{
	b[0] = (uint8_t)(ver << 4 | (type & 15));
	b[1] = path;
	put16(b + 2, pgap);
	put32(b + 4, session);
	put32(b + 8, gseq);
	put32(b + 12, lseq);
	put32(b + 16, tstamp);
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

static void check_hdr(const struct wire_hdr *got, const struct wire_hdr *want)
{
	assert_int_equal(got->version, WIRE_VERSION);
	assert_int_equal(got->type, want->type);
	assert_int_equal(got->path, want->path);
	assert_int_equal(got->pgap, want->pgap);
	assert_int_equal(got->session, want->session);
	assert_int_equal(got->gseq, want->gseq);
	assert_int_equal(got->lseq, want->lseq);
	assert_int_equal(got->tstamp, want->tstamp);
}

/* Builds with wire_build into a buffer of exactly the needed capacity,
 * parses from an exact heap copy, checks header, body and tag pointers. */
static void round_trip(const struct wire_hdr *h, const uint8_t *body,
		       size_t body_len, struct wire_msg *m)
{
	size_t len = WIRE_HDR_LEN + body_len + WIRE_TAG_LEN;
	uint8_t *out = malloc(len);
	uint8_t *in;
	size_t i;
	int n;

	assert_non_null(out);
	n = wire_build(out, len, h, body, body_len);
	assert_int_equal(n, (int)len);
	for (i = len - WIRE_TAG_LEN; i < len; i++) {
		assert_int_equal(out[i], 0);
	}
	in = exact_copy(out, len);
	assert_int_equal(wire_parse(in, len, m), WIRE_OK);
	check_hdr(&m->hdr, h);
	assert_ptr_equal(m->body, in + WIRE_HDR_LEN);
	assert_int_equal(m->body_len, body_len);
	assert_ptr_equal(m->tag, in + len - WIRE_TAG_LEN);
	if (body_len) {
		assert_memory_equal(m->body, body, body_len);
	}
	free(in);
	free(out);
	m->body = NULL;
	m->tag = NULL;
}

static void test_overhead(void **state)
{
	(void)state;
	/* 28 outer IPv4+UDP + 20 header + 16 tag; README.md ("Wire format
	 * and overhead") and DESIGN.md quote 64 bytes, so it must not change
	 * silently. */
	assert_int_equal(WIRE_OVERHEAD, 64);
	assert_int_equal(WIRE_HDR_LEN, 20);
	assert_int_equal(WIRE_TAG_LEN, 16);
	assert_int_equal(WIRE_REPORT_MAX, 4 + 16 * 16);
}

static void test_hdr_bytes(void **state)
{
	static const uint8_t want_hdr[20] = {
		0x11, 0x03, 0x12, 0x34,       /* v1 DATA, path 3, pgap */
		0xde, 0xad, 0xbe, 0xef,       /* session */
		0x01, 0x02, 0x03, 0x04,       /* gseq */
		0x05, 0x06, 0x07, 0x08,       /* lseq */
		0x09, 0x0a, 0x0b, 0x0c,       /* tstamp */
	};
	static const uint8_t want_probe[44] = {
		0x13, 0x0f, 0x00, 0x00,       /* v1 PROBE, path 15, pgap 0 */
		0x80, 0x00, 0x00, 0x01,       /* session */
		0xff, 0xff, 0xff, 0xfe,       /* gseq */
		0x00, 0x00, 0x00, 0x00,       /* lseq */
		0xa0, 0xb0, 0xc0, 0xd0,       /* tstamp */
		0x11, 0x22, 0x33, 0x44,       /* probe id */
		0x88, 0x99, 0xaa, 0xbb,       /* value */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* tag */
	};
	static const uint8_t want_report[4 + 32] = {
		0x02, 0x00, 0x00, 0x00,       /* n = 2, reserved */
		0x05, 0x00, 0x00, 0x00,       /* path 5, reserved */
		0x01, 0x02, 0x03, 0x04,       /* rx */
		0xff, 0xff, 0xff, 0xfe,       /* lost */
		0x00, 0x00, 0x01, 0x00,       /* delay_us */
		0x0f, 0x00, 0x00, 0x00,       /* path 15 */
		0x80, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00,
		0xff, 0xff, 0xff, 0xff,
	};
	static const uint8_t want_hello[8] = {
		0xca, 0xfe, 0xba, 0xbe, 0x00, 0x00, 0x00, 0x07,
	};
	struct wire_hdr h = {
		.version = 9, /* ignored: always WIRE_VERSION */
		.type = WIRE_DATA, .path = 3, .pgap = 0x1234,
		.session = 0xdeadbeef, .gseq = 0x01020304,
		.lseq = 0x05060708, .tstamp = 0x090a0b0c,
	};
	struct wire_probe pr = { .id = 0x11223344, .value = 0x8899aabb };
	struct wire_hello he = { .epoch = 0xcafebabe, .value = 7 };
	struct wire_report r = { .n = 2 };
	uint8_t buf[64], body[8];
	uint8_t rep[64];

	(void)state;
	memset(buf, 0xaa, sizeof(buf));
	wire_put_hdr(buf, &h);
	assert_memory_equal(buf, want_hdr, sizeof(want_hdr));
	assert_int_equal(buf[20], 0xaa); /* nothing written past 20 bytes */

	h = (struct wire_hdr){ .version = 0, .type = WIRE_PROBE, .path = 15,
			       .session = 0x80000001, .gseq = 0xfffffffe,
			       .tstamp = 0xa0b0c0d0 };
	assert_int_equal(wire_put_probe(body, sizeof(body), &pr), 8);
	memset(buf, 0xaa, sizeof(buf));
	assert_int_equal(wire_build(buf, sizeof(buf), &h, body, 8), 44);
	assert_memory_equal(buf, want_probe, sizeof(want_probe));
	assert_int_equal(buf[44], 0xaa);

	r.p[0] = (struct wire_report_path){ 5, 0x01020304, 0xfffffffe, 0x100 };
	r.p[1] = (struct wire_report_path){ 15, 0x80000000, 0, 0xffffffff };
	memset(rep, 0xaa, sizeof(rep));
	assert_int_equal(wire_put_report(rep, sizeof(rep), &r), 36);
	assert_memory_equal(rep, want_report, sizeof(want_report));
	assert_int_equal(rep[36], 0xaa);

	memset(body, 0xaa, sizeof(body));
	assert_int_equal(wire_put_hello(body, sizeof(body), &he), 8);
	assert_memory_equal(body, want_hello, sizeof(want_hello));
}

/* Every combination of the extreme gseq, lseq and tstamp values and pgap 0
 * and 65535 survives encode/decode, on every path. */
static void test_round_trip_hdr_extremes(void **state)
{
	uint8_t inner[20];
	struct wire_msg m;
	unsigned a, b, c, g;

	(void)state;
	mk_ipv4(inner, sizeof(inner), 1);
	for (a = 0; a < ARRAY_SIZE(extremes); a++) {
		for (b = 0; b < ARRAY_SIZE(extremes); b++) {
			for (c = 0; c < ARRAY_SIZE(extremes); c++) {
				for (g = 0; g < 2; g++) {
					struct wire_hdr h = {
						.type = WIRE_DATA,
						.path = (uint8_t)((a * 5 + b + c) % 16),
						.pgap = g ? 65535 : 0,
						.session = extremes[(a + b + c) % 5],
						.gseq = extremes[a],
						.lseq = extremes[b],
						.tstamp = extremes[c],
					};
					round_trip(&h, inner, sizeof(inner), &m);
				}
			}
		}
	}
}

static void test_round_trip_data(void **state)
{
	static const size_t v4[] = { 20, 21, 64, 576, 1500, 65535 };
	static const size_t v6[] = { 40, 41, 1280, 1500, 65535 };
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
		for (j = 0; j < ARRAY_SIZE(extremes); j++) {
			struct wire_hdr h = {
				.type = WIRE_DATA,
				.path = (uint8_t)(j == 4 ? 15 : j * 3),
				.pgap = (j & 1) ? 65535 : (uint16_t)j,
				.session = extremes[(j + 3) % 5],
				.gseq = extremes[j],
				.lseq = extremes[(j + 1) % 5],
				.tstamp = extremes[(j + 2) % 5],
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
			}
			n = wire_put_report(body, sizeof(body), &r);
			assert_int_equal(n, 4 + 16 * r.n);
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
			}
		}
	}
}

static void test_round_trip_probe_hello(void **state)
{
	static const uint8_t types[] = {
		WIRE_PROBE, WIRE_PROBE_ACK, WIRE_HELLO, WIRE_HELLO_ACK,
	};
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
				.gseq = extremes[j],
				.tstamp = extremes[(j + 1) % 5],
			};
			uint32_t a = extremes[(j + 2) % 5];
			uint32_t b = extremes[(j + 3) % 5] ^ 0x5a5a;
			bool probe = types[t] <= WIRE_PROBE_ACK;
			int n;

			if (probe) {
				struct wire_probe p = { .id = a, .value = b };

				n = wire_put_probe(body, sizeof(body), &p);
			} else {
				struct wire_hello p = { .epoch = a, .value = b };

				n = wire_put_hello(body, sizeof(body), &p);
			}
			assert_int_equal(n, 8);
			/* body layout: be32 a, be32 b */
			assert_int_equal(get32(body), a);
			assert_int_equal(get32(body + 4), b);
			round_trip(&h, body, 8, &m);
			if (probe) {
				assert_int_equal(m.u.probe.id, a);
				assert_int_equal(m.u.probe.value, b);
			} else {
				assert_int_equal(m.u.hello.epoch, a);
				assert_int_equal(m.u.hello.value, b);
			}
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
};

struct patch {
	bool set;
	uint16_t off; /* from the start of the packet; body starts at 20 */
	uint8_t val;
};

#define P(o, v) { true, (o), (v) }
#define BODY 20

struct bad_row {
	unsigned id;
	const char *what;
	enum base kind;
	unsigned param;
	int body_len;  /* -1: the natural length */
	int cut;       /* >= 0: the whole packet is cut to this length */
	struct patch p[4];
	enum wire_drop want;
};

static const struct bad_row bad_rows[] = {
	{ 1, "probe one byte short of header+tag", B_PROBE, 0, 0, 35, {}, WIRE_E_SHORT },
	{ 2, "data one byte short of header+tag", B_DATA4, 20, -1, 35, {}, WIRE_E_SHORT },
	{ 3, "version 0", B_DATA4, 60, -1, -1, { P(0, 0x01) }, WIRE_E_VERSION },
	{ 4, "version 2", B_DATA4, 60, -1, -1, { P(0, 0x21) }, WIRE_E_VERSION },
	{ 5, "version 15", B_PROBE, 0, -1, -1, { P(0, 0xf3) }, WIRE_E_VERSION },
	{ 6, "version 0 and type 0: version first", B_PROBE, 0, -1, -1, { P(0, 0x00) }, WIRE_E_VERSION },
	{ 7, "version 2, path 200: version first", B_PROBE, 0, -1, -1, { P(0, 0x23), P(1, 200) }, WIRE_E_VERSION },
	{ 8, "type 0", B_DATA4, 60, -1, -1, { P(0, 0x10) }, WIRE_E_TYPE },
	{ 9, "type 7", B_DATA4, 60, -1, -1, { P(0, 0x17) }, WIRE_E_TYPE },
	{ 10, "type 15", B_PROBE, 0, -1, -1, { P(0, 0x1f) }, WIRE_E_TYPE },
	{ 11, "type 7, path 200: type first", B_PROBE, 0, -1, -1, { P(0, 0x17), P(1, 200) }, WIRE_E_TYPE },
	{ 12, "path 16", B_DATA4, 60, -1, -1, { P(1, 16) }, WIRE_E_PATH },
	{ 13, "path 255", B_PROBE, 0, -1, -1, { P(1, 255) }, WIRE_E_PATH },
	{ 14, "path 16 and inner version 5: path first", B_DATA4, 60, -1, -1, { P(1, 16), P(BODY, 0x55) }, WIRE_E_PATH },
	{ 15, "path 16 on a control packet with lseq: path first", B_REPORT, 1, -1, -1, { P(1, 16), P(15, 1) }, WIRE_E_PATH },
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
	{ 44, "DATA with lseq and pgap set is valid", B_DATA4, 20, -1, -1, { P(2, 0xff), P(12, 0xff) }, WIRE_OK },
	{ 45, "probe with lseq 1", B_PROBE, 0, -1, -1, { P(15, 1) }, WIRE_E_CONTROL_SEQ },
	{ 46, "probe with lseq 0x80000000", B_PROBE, 0, -1, -1, { P(12, 0x80) }, WIRE_E_CONTROL_SEQ },
	{ 47, "probe with pgap 1", B_PROBE, 0, -1, -1, { P(3, 1) }, WIRE_E_CONTROL_SEQ },
	{ 48, "probe with pgap 0x8000", B_PROBE, 0, -1, -1, { P(2, 0x80) }, WIRE_E_CONTROL_SEQ },
	{ 49, "report with lseq", B_REPORT, 2, -1, -1, { P(13, 1) }, WIRE_E_CONTROL_SEQ },
	{ 50, "probe-ack with pgap", B_PROBE_ACK, 0, -1, -1, { P(3, 9) }, WIRE_E_CONTROL_SEQ },
	{ 51, "hello with lseq", B_HELLO, 0, -1, -1, { P(14, 1) }, WIRE_E_CONTROL_SEQ },
	{ 52, "hello-ack with pgap and lseq", B_HELLO_ACK, 0, -1, -1, { P(2, 1), P(12, 1) }, WIRE_E_CONTROL_SEQ },
	{ 53, "probe lseq set and 9-byte body: seq first", B_PROBE, 0, 9, -1, { P(15, 1) }, WIRE_E_CONTROL_SEQ },
	{ 54, "report pgap set and n=17: seq first", B_REPORT, 2, -1, -1, { P(3, 1), P(BODY, 17) }, WIRE_E_CONTROL_SEQ },
	{ 55, "report n=17 with a 2-entry body", B_REPORT, 2, -1, -1, { P(BODY, 17) }, WIRE_E_REPORT_COUNT },
	{ 56, "report n=17 with a 17-entry body", B_REPORT, 16, 4 + 16 * 17, -1, { P(BODY, 17) }, WIRE_E_REPORT_COUNT },
	{ 57, "report n=255", B_REPORT, 0, -1, -1, { P(BODY, 255) }, WIRE_E_REPORT_COUNT },
	{ 58, "report empty body", B_REPORT, 0, 0, -1, {}, WIRE_E_BODY_LEN },
	{ 59, "report 3-byte body", B_REPORT, 0, 3, -1, {}, WIRE_E_BODY_LEN },
	{ 60, "report 3-byte body with n=17: length first", B_REPORT, 0, 3, -1, { P(BODY, 17) }, WIRE_E_BODY_LEN },
	{ 61, "report n=2, body one byte short", B_REPORT, 2, 35, -1, {}, WIRE_E_BODY_LEN },
	{ 62, "report n=2, body one byte long", B_REPORT, 2, 37, -1, {}, WIRE_E_BODY_LEN },
	{ 63, "report n=0, 4-byte body is valid", B_REPORT, 0, -1, -1, {}, WIRE_OK },
	{ 64, "report n=0, 5-byte body", B_REPORT, 0, 5, -1, {}, WIRE_E_BODY_LEN },
	{ 65, "report n=0 with one entry's bytes", B_REPORT, 1, -1, -1, { P(BODY, 0) }, WIRE_E_BODY_LEN },
	{ 66, "report n=2 with one entry's bytes", B_REPORT, 1, -1, -1, { P(BODY, 2) }, WIRE_E_BODY_LEN },
	{ 67, "report n=16, body one byte short", B_REPORT, 16, 259, -1, {}, WIRE_E_BODY_LEN },
	{ 68, "report n=16, body one byte long", B_REPORT, 16, 261, -1, {}, WIRE_E_BODY_LEN },
	{ 69, "report n=16 is valid", B_REPORT, 16, -1, -1, {}, WIRE_OK },
	{ 70, "report second entry path 16", B_REPORT, 2, -1, -1, { P(BODY + 4 + 16, 16) }, WIRE_E_REPORT_COUNT },
	{ 71, "report first entry path 255", B_REPORT, 2, -1, -1, { P(BODY + 4, 255) }, WIRE_E_REPORT_COUNT },
	{ 72, "report last of 16 entries path 16", B_REPORT, 16, -1, -1, { P(BODY + 4 + 15 * 16, 16) }, WIRE_E_REPORT_COUNT },
	{ 73, "report entry path 16 and body too long: length first", B_REPORT, 2, 37, -1, { P(BODY + 4, 16) }, WIRE_E_BODY_LEN },
	{ 74, "report reserved bytes nonzero are ignored", B_REPORT, 2, -1, -1, { P(BODY + 1, 0xff), P(BODY + 3, 1), P(BODY + 5, 0xff), P(BODY + 16 + 7, 0x80) }, WIRE_OK },
	{ 75, "probe 7-byte body", B_PROBE, 0, 7, -1, {}, WIRE_E_BODY_LEN },
	{ 76, "probe 9-byte body", B_PROBE, 0, 9, -1, {}, WIRE_E_BODY_LEN },
	{ 77, "probe empty body", B_PROBE, 0, 0, -1, {}, WIRE_E_BODY_LEN },
	{ 78, "probe-ack 7-byte body", B_PROBE_ACK, 0, 7, -1, {}, WIRE_E_BODY_LEN },
	{ 79, "probe-ack 9-byte body", B_PROBE_ACK, 0, 9, -1, {}, WIRE_E_BODY_LEN },
	{ 80, "hello 7-byte body", B_HELLO, 0, 7, -1, {}, WIRE_E_BODY_LEN },
	{ 81, "hello 9-byte body", B_HELLO, 0, 9, -1, {}, WIRE_E_BODY_LEN },
	{ 82, "hello-ack 7-byte body", B_HELLO_ACK, 0, 7, -1, {}, WIRE_E_BODY_LEN },
	{ 83, "hello-ack 9-byte body", B_HELLO_ACK, 0, 9, -1, {}, WIRE_E_BODY_LEN },
	{ 84, "hello 16-byte body", B_HELLO, 0, 16, -1, {}, WIRE_E_BODY_LEN },
	{ 85, "probe is valid", B_PROBE, 0, -1, -1, {}, WIRE_OK },
	{ 86, "probe-ack is valid", B_PROBE_ACK, 0, -1, -1, {}, WIRE_OK },
	{ 87, "hello is valid", B_HELLO, 0, -1, -1, {}, WIRE_OK },
	{ 88, "hello-ack is valid", B_HELLO_ACK, 0, -1, -1, {}, WIRE_OK },
	{ 89, "largest DATA (65535-byte IPv4) is valid", B_DATA4, 65535, -1, -1, {}, WIRE_OK },
	{ 90, "largest DATA (65535-byte IPv6) is valid", B_DATA6, 65535, -1, -1, {}, WIRE_OK },
	/* CHANGES after review: one entry per path in a REPORT */
	{ 91, "report two entries with the same path", B_REPORT, 2, -1, -1, { P(BODY + 4 + 16, 0) }, WIRE_E_REPORT_COUNT },
	{ 92, "report path 3 at entries 0 and 15 (only repeat)", B_REPORT, 16, -1, -1, { P(BODY + 4, 3), P(BODY + 4 + 3 * 16, 0), P(BODY + 4 + 15 * 16, 3) }, WIRE_E_REPORT_COUNT },
	{ 93, "report path 15 twice, n=2", B_REPORT, 2, -1, -1, { P(BODY + 4, 15), P(BODY + 4 + 16, 15) }, WIRE_E_REPORT_COUNT },
	{ 94, "report repeated path, body one byte long: length first", B_REPORT, 2, 37, -1, { P(BODY + 4 + 16, 0) }, WIRE_E_BODY_LEN },
	{ 95, "report repeated path, n=17: count first", B_REPORT, 16, 4 + 16 * 17, -1, { P(BODY, 17), P(BODY + 4 + 16, 0) }, WIRE_E_REPORT_COUNT },
	{ 96, "report entries in reverse path order are valid", B_REPORT, 2, -1, -1, { P(BODY + 4, 1), P(BODY + 4 + 16, 0) }, WIRE_OK },
	{ 97, "report paths 3 at entry 0, 0 at entry 3 (a permutation) is valid", B_REPORT, 16, -1, -1, { P(BODY + 4, 3), P(BODY + 4 + 3 * 16, 0) }, WIRE_OK },
	{ 98, "report repeat where the reserved bytes differ", B_REPORT, 2, -1, -1, { P(BODY + 4 + 16, 0), P(BODY + 4 + 16 + 1, 1) }, WIRE_E_REPORT_COUNT },
	/* CHANGES after review: DATA body larger than WIRE_MAX_INNER (the
	 * packets are > 65571 bytes; build_row makes them on the heap) */
	{ 99, "IPv6 of 65536 bytes, payload length 65496 consistent", B_DATA6, 65536, -1, -1, {}, WIRE_E_INNER_LEN },
	{ 100, "IPv6 payload length 65535 (65575-byte body) consistent", B_DATA6, 65575, -1, -1, {}, WIRE_E_INNER_LEN },
	{ 101, "65536-byte body, inner version 5: size before version", B_DATA4, 65536, -1, -1, { P(BODY, 0x55) }, WIRE_E_INNER_LEN },
	{ 102, "65536-byte body, inner version 0: size before version", B_DATA6, 65536, -1, -1, { P(BODY, 0x00) }, WIRE_E_INNER_LEN },
	{ 103, "IPv4 65536-byte body, total length 0xffff", B_DATA4, 65536, -1, -1, { P(BODY + 2, 0xff), P(BODY + 3, 0xff) }, WIRE_E_INNER_LEN },
	{ 104, "IPv6 of 65535 bytes plus one trailing byte", B_DATA6, 65535, 65536, -1, {}, WIRE_E_INNER_LEN },
	{ 105, "version 2 on a 65536-byte body: version first", B_DATA6, 65536, -1, -1, { P(0, 0x21) }, WIRE_E_VERSION },
	{ 106, "path 16 on a 65536-byte body: path first", B_DATA6, 65536, -1, -1, { P(1, 16) }, WIRE_E_PATH },
};

static const uint8_t base_type[] = {
	[B_DATA4] = WIRE_DATA, [B_DATA6] = WIRE_DATA, [B_REPORT] = WIRE_REPORT,
	[B_PROBE] = WIRE_PROBE, [B_PROBE_ACK] = WIRE_PROBE_ACK,
	[B_HELLO] = WIRE_HELLO, [B_HELLO_ACK] = WIRE_HELLO_ACK,
};

/* Builds the packet of a table row with the test's own encoder (so that the
 * table does not depend on wire_build).  Returns a malloc'd buffer of exactly
 * *len bytes. */
static uint8_t *build_row(const struct bad_row *row, size_t *len)
{
	size_t natural, body_len, total, i;
	uint8_t *body, *pkt;
	bool data = row->kind == B_DATA4 || row->kind == B_DATA6;

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
		natural = 4 + 16 * row->param;
		body[0] = (uint8_t)row->param;
		for (i = 0; i < row->param; i++) {
			uint8_t *e = body + 4 + 16 * i;

			e[0] = (uint8_t)i;
			put32(e + 4, 1000 + (uint32_t)i);
			put32(e + 8, 7 * (uint32_t)i);
			put32(e + 12, 0xffffffff - (uint32_t)i);
		}
		break;
	default:
		natural = 8;
		put32(body, 0x01020304);
		put32(body + 4, 0xfffffff0);
		break;
	}
	body_len = row->body_len >= 0 ? (size_t)row->body_len : natural;
	total = WIRE_HDR_LEN + body_len + WIRE_TAG_LEN;
	pkt = malloc(total);
	assert_non_null(pkt);
	enc_hdr(pkt, 1, base_type[row->kind], 2, data ? 7 : 0, 0x01020304,
		0x11223344, data ? 0x55667788 : 0, 0x99aabbcc);
	memcpy(pkt + WIRE_HDR_LEN, body, body_len);
	memset(pkt + WIRE_HDR_LEN + body_len, 0xee, WIRE_TAG_LEN);
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

static void test_malformed_table(void **state)
{
	bool seen[WIRE_DROP_MAX] = { false };
	unsigned i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad_rows); i++) {
		const struct bad_row *row = &bad_rows[i];
		struct wire_msg m;
		size_t len;
		uint8_t *pkt = build_row(row, &len);
		uint8_t *in = exact_copy(pkt, len);
		enum wire_drop got = wire_parse(in, len, &m);

		if (got != row->want) {
			fail_msg("row %u (%s): got %d (%s), want %d (%s)",
				 row->id, row->what, got, wire_drop_name(got),
				 row->want, wire_drop_name(row->want));
		}
		seen[row->want] = true;
		free(in);
		free(pkt);
	}
	/* the table covers every reason */
	for (i = 0; i < WIRE_DROP_MAX; i++) {
		if (!seen[i]) {
			fail_msg("reason %u not covered by the table", i);
		}
	}
}

/* Every length below header+tag is WIRE_E_SHORT, whatever the bytes. */
static void test_short_lengths(void **state)
{
	uint8_t pkt[64];
	struct wire_msg m;
	size_t len;
	unsigned v;

	(void)state;
	for (v = 0; v < 3; v++) {
		/* a valid DATA prefix, a valid PROBE prefix, garbage */
		if (v == 0) {
			enc_hdr(pkt, 1, WIRE_DATA, 0, 0, 0, 0, 0, 0);
			mk_ipv4(pkt + 20, 20, 0);
		} else if (v == 1) {
			memset(pkt, 0, sizeof(pkt));
			enc_hdr(pkt, 1, WIRE_PROBE, 0, 0, 0, 0, 0, 0);
		} else {
			memset(pkt, 0xff, sizeof(pkt));
		}
		for (len = 0; len < WIRE_HDR_LEN + WIRE_TAG_LEN; len++) {
			enum wire_drop d = parse_exact(pkt, len, &m);

			if (d != WIRE_E_SHORT) {
				fail_msg("variant %u len %zu: got %d, want SHORT",
					 v, len, d);
			}
		}
	}
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
		.session = 0x0a0b0c0d, .gseq = 0xfffffffe,
		.lseq = type == WIRE_DATA ? 0x12345678 : 0,
		.tstamp = 77,
	};
	size_t cap = WIRE_HDR_LEN + body_len + WIRE_TAG_LEN;
	int n;

	v->what = what;
	v->buf = malloc(cap);
	assert_non_null(v->buf);
	n = wire_build(v->buf, cap, &h, body, body_len);
	assert_int_equal(n, (int)cap);
	v->len = cap;
}

/* The reason a truncated packet must get, from the semantics: the length
 * fields that made the full packet valid now disagree with the body. */
static enum wire_drop truncated_reason(const uint8_t *pkt, size_t len)
{
	size_t body_len;

	if (len < WIRE_HDR_LEN + WIRE_TAG_LEN) {
		return WIRE_E_SHORT;
	}
	body_len = len - WIRE_HDR_LEN - WIRE_TAG_LEN;
	if ((pkt[0] & 15) != WIRE_DATA) {
		return WIRE_E_BODY_LEN;
	}
	if (body_len < 20) {
		return WIRE_E_INNER_SHORT;
	}
	if (pkt[WIRE_HDR_LEN] >> 4 == 6 && body_len < 40) {
		return WIRE_E_INNER_SHORT;
	}
	return WIRE_E_INNER_LEN;
}

static void test_truncation_sweep(void **state)
{
	struct valid_pkt v[11];
	uint8_t inner[1500];
	uint8_t body[WIRE_REPORT_MAX];
	struct wire_report r;
	struct wire_probe pr = { 1, 2 };
	struct wire_hello he = { 3, 4 };
	unsigned i, nv = 0;
	size_t len;

	(void)state;
	mk_ipv4(inner, 20, 1);
	make_valid(&v[nv++], "DATA IPv4 20", WIRE_DATA, inner, 20);
	mk_ipv4(inner, 1500, 2);
	make_valid(&v[nv++], "DATA IPv4 1500", WIRE_DATA, inner, 1500);
	mk_ipv6(inner, 40, 3);
	make_valid(&v[nv++], "DATA IPv6 40", WIRE_DATA, inner, 40);
	mk_ipv6(inner, 1500, 4);
	make_valid(&v[nv++], "DATA IPv6 1500", WIRE_DATA, inner, 1500);
	memset(&r, 0, sizeof(r));
	for (i = 0; i < 16; i++) {
		r.p[i] = (struct wire_report_path){ (uint8_t)i, i, i, i };
	}
	r.n = 0;
	assert_int_equal(wire_put_report(body, sizeof(body), &r), 4);
	make_valid(&v[nv++], "REPORT 0", WIRE_REPORT, body, 4);
	r.n = 1;
	assert_int_equal(wire_put_report(body, sizeof(body), &r), 20);
	make_valid(&v[nv++], "REPORT 1", WIRE_REPORT, body, 20);
	r.n = 16;
	assert_int_equal(wire_put_report(body, sizeof(body), &r), 260);
	make_valid(&v[nv++], "REPORT 16", WIRE_REPORT, body, 260);
	assert_int_equal(wire_put_probe(body, 8, &pr), 8);
	make_valid(&v[nv++], "PROBE", WIRE_PROBE, body, 8);
	make_valid(&v[nv++], "PROBE_ACK", WIRE_PROBE_ACK, body, 8);
	assert_int_equal(wire_put_hello(body, 8, &he), 8);
	make_valid(&v[nv++], "HELLO", WIRE_HELLO, body, 8);
	make_valid(&v[nv++], "HELLO_ACK", WIRE_HELLO_ACK, body, 8);
	assert_int_equal(nv, ARRAY_SIZE(v));

	for (i = 0; i < nv; i++) {
		struct wire_msg m;

		if (parse_exact(v[i].buf, v[i].len, &m) != WIRE_OK) {
			fail_msg("%s: full packet rejected", v[i].what);
		}
		for (len = 0; len < v[i].len; len++) {
			enum wire_drop d = parse_exact(v[i].buf, len, &m);
			enum wire_drop want = truncated_reason(v[i].buf, len);

			if (d == WIRE_OK) {
				fail_msg("%s cut to %zu: accepted", v[i].what, len);
			}
			if (d != want) {
				fail_msg("%s cut to %zu: got %d (%s), want %d (%s)",
					 v[i].what, len, d, wire_drop_name(d),
					 want, wire_drop_name(want));
			}
		}
		free(v[i].buf);
	}
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
	bool repeat; /* rejected for a repeated report path */
};

/* A naive parser written straight from the semantics notes. */
static enum wire_drop ref_parse(const uint8_t *p, size_t len, struct ref_msg *r)
{
	const uint8_t *body = p + 20;
	size_t bl, i;

	if (len < 36) {
		return WIRE_E_SHORT;
	}
	bl = len - 36;
	r->h.version = p[0] >> 4;
	r->h.type = p[0] & 15;
	r->h.path = p[1];
	r->h.pgap = get16(p + 2);
	r->h.session = get32(p + 4);
	r->h.gseq = get32(p + 8);
	r->h.lseq = get32(p + 12);
	r->h.tstamp = get32(p + 16);
	if (r->h.version != 1) {
		return WIRE_E_VERSION;
	}
	if (r->h.type == 0 || r->h.type > 6) {
		return WIRE_E_TYPE;
	}
	if (r->h.path >= 16) {
		return WIRE_E_PATH;
	}
	if (r->h.type == WIRE_DATA) {
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
	}
	if (r->h.lseq != 0 || r->h.pgap != 0) {
		return WIRE_E_CONTROL_SEQ;
	}
	if (r->h.type == WIRE_REPORT) {
		if (bl < 4) {
			return WIRE_E_BODY_LEN;
		}
		if (body[0] > 16) {
			return WIRE_E_REPORT_COUNT;
		}
		if (bl != 4 + 16 * (size_t)body[0]) {
			return WIRE_E_BODY_LEN;
		}
		r->rep.n = body[0];
		for (i = 0; i < body[0]; i++) {
			const uint8_t *e = body + 4 + 16 * i;
			size_t j;

			if (e[0] >= 16) {
				return WIRE_E_REPORT_COUNT;
			}
			/* one entry per path: compare with every earlier one */
			for (j = 0; j < i; j++) {
				if (body[4 + 16 * j] == e[0]) {
					r->repeat = true;
					return WIRE_E_REPORT_COUNT;
				}
			}
			r->rep.p[i].path = e[0];
			r->rep.p[i].rx_pkts = get32(e + 4);
			r->rep.p[i].lost_pkts = get32(e + 8);
			r->rep.p[i].delay_us = get32(e + 12);
		}
		return WIRE_OK;
	}
	if (bl != 8) {
		return WIRE_E_BODY_LEN;
	}
	r->a = get32(body);
	r->b = get32(body + 4);
	return WIRE_OK;
}

/* Random bytes, shaped most of the time towards a valid packet of a random
 * type so that every check is reached and many packets are accepted. */
static size_t gen_packet(uint8_t *p)
{
	unsigned type = 1 + below(6);
	size_t len, bl, i;

	if (below(4) == 0) {
		len = below(201);
	} else {
		switch (type) {
		case WIRE_DATA:
			bl = 20 + below(145);
			break;
		case WIRE_REPORT:
			bl = 4 + 16 * below(10);
			break;
		default:
			bl = 8;
			break;
		}
		len = 36 + bl;
		if (below(8) == 0) {
			len = len + below(3) - 1; /* one short, exact or one long */
		}
	}
	for (i = 0; i < len; i++) {
		p[i] = (uint8_t)rnd();
	}
	if (len < 36) {
		return len;
	}
	bl = len - 36;
	if (below(16)) {
		p[0] = (uint8_t)(0x10 | (below(16) ? type : below(16)));
	}
	if (below(16)) {
		p[1] &= 15;
	}
	if ((p[0] & 15) != WIRE_DATA && below(16)) {
		memset(p + 2, 0, 2);
		memset(p + 12, 0, 4);
	}
	if ((p[0] & 15) == WIRE_DATA && bl >= 20 && below(16)) {
		uint8_t *b = p + 20;

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
	if ((p[0] & 15) == WIRE_REPORT && bl >= 4 && below(16)) {
		uint8_t *b = p + 20;
		unsigned start = below(16), step = 1 + 2 * below(8);
		bool distinct = below(2);

		b[0] = (uint8_t)(below(16) ? (bl - 4) / 16 : below(256));
		for (i = 0; 4 + 16 * i + 16 <= bl; i++) {
			if (!below(32)) {
				continue;
			}
			/* half the time distinct paths (an odd step mod 16
			 * visits every path once), sometimes with one entry
			 * copied from an earlier one; else random paths,
			 * which repeat often */
			if (distinct) {
				b[4 + 16 * i] = (uint8_t)((start + step * i) & 15);
			} else {
				b[4 + 16 * i] &= 15;
			}
		}
		if (distinct && bl >= 4 + 32 && below(4) == 0) {
			size_t n = (bl - 4) / 16, dst = 1 + below((unsigned)n - 1);

			b[4 + 16 * dst] = b[4 + 16 * below((unsigned)dst)];
		}
	}
	return len;
}

/* Re-encodes an accepted message and compares it with the input; the tag is
 * not re-encoded (wire_build zeroes it) and reserved report bytes are
 * written as zero. */
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
	default:
		assert_int_equal(wire_put_hello(body, sizeof(body), &m->u.hello), 8);
		b = body;
		break;
	}
	n = wire_build(out, sizeof(out), &m->hdr, b, bl);
	assert_int_equal(n, (int)len);
	for (i = 0; i < len - WIRE_TAG_LEN; i++) {
		/* body offsets 1..3 and 1..3 of each entry (entries at 4) */
		size_t bo = i - WIRE_HDR_LEN;
		bool reserved = m->hdr.type == WIRE_REPORT && i >= WIRE_HDR_LEN &&
				((bo >= 1 && bo <= 3) ||
				 (bo >= 4 && (bo - 4) % 16 >= 1 &&
				  (bo - 4) % 16 <= 3));

		if (reserved) {
			assert_int_equal(out[i], 0);
		} else if (out[i] != in[i]) {
			fail_msg("re-encoding differs at byte %zu of %zu "
				 "(type %u): %02x != %02x", i, len,
				 m->hdr.type, out[i], in[i]);
		}
	}
}

static void test_random(void **state)
{
	unsigned long ok[WIRE_TYPE_MAX + 1] = { 0 };
	unsigned long reasons[WIRE_DROP_MAX] = { 0 };
	unsigned long repeats = 0;
	uint8_t tmp[256];
	unsigned iter, t;

	(void)state;
	rng = 20240611;
	for (iter = 0; iter < 200000; iter++) {
		size_t len = gen_packet(tmp);
		uint8_t *in = exact_copy(tmp, len);
		struct wire_msg m;
		struct ref_msg r = { .repeat = false };
		enum wire_drop want = ref_parse(in, len, &r);
		enum wire_drop got = wire_parse(in, len, &m);
		unsigned i;

		if (got != want) {
			fail_msg("iteration %u, len %zu, byte0 %02x: got %d (%s), "
				 "reference %d (%s)", iter, len,
				 len ? in[0] : 0, got, wire_drop_name(got),
				 want, wire_drop_name(want));
		}
		reasons[got]++;
		repeats += r.repeat;
		if (got == WIRE_OK) {
			ok[m.hdr.type]++;
			check_hdr(&m.hdr, &r.h);
			assert_ptr_equal(m.body, in + WIRE_HDR_LEN);
			assert_int_equal(m.body_len, len - 36);
			assert_ptr_equal(m.tag, in + len - WIRE_TAG_LEN);
			switch (m.hdr.type) {
			case WIRE_REPORT:
				assert_int_equal(m.u.report.n, r.rep.n);
				for (i = 0; i < r.rep.n; i++) {
					assert_int_equal(m.u.report.p[i].path, r.rep.p[i].path);
					assert_int_equal(m.u.report.p[i].rx_pkts, r.rep.p[i].rx_pkts);
					assert_int_equal(m.u.report.p[i].lost_pkts, r.rep.p[i].lost_pkts);
					assert_int_equal(m.u.report.p[i].delay_us, r.rep.p[i].delay_us);
				}
				break;
			case WIRE_PROBE:
			case WIRE_PROBE_ACK:
				assert_int_equal(m.u.probe.id, r.a);
				assert_int_equal(m.u.probe.value, r.b);
				break;
			case WIRE_HELLO:
			case WIRE_HELLO_ACK:
				assert_int_equal(m.u.hello.epoch, r.a);
				assert_int_equal(m.u.hello.value, r.b);
				break;
			}
			check_reencode(in, len, &m);
		}
		free(in);
	}
	print_message("random: accepted data %lu report %lu probe %lu "
		      "probe_ack %lu hello %lu hello_ack %lu\n", ok[1], ok[2],
		      ok[3], ok[4], ok[5], ok[6]);
	print_message("random: rejects");
	for (t = 1; t < WIRE_DROP_MAX; t++) {
		print_message(" %s %lu", wire_drop_name((enum wire_drop)t),
			      reasons[t]);
	}
	print_message("\nrandom: reports rejected for a repeated path %lu\n",
		      repeats);
	if (repeats < 1000) {
		fail_msg("repeated report paths reached only %lu times", repeats);
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
	static const uint8_t bad_types[] = { 0, 7, 15, 255 };
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
	assert_int_equal(wire_build(out, 65535 + 36, &h, big, 65535), 65535 + 36);
	assert_int_equal(wire_build(out, 65535 + 35, &h, big, 65535), -ENOSPC);
	/* small: exactly enough, one short, none */
	assert_int_equal(wire_build(out, 56, &h, inner, 20), 56);
	assert_int_equal(wire_build(out, 55, &h, inner, 20), -ENOSPC);
	assert_int_equal(wire_build(out, 0, &h, inner, 20), -ENOSPC);
	/* the body is not validated by the builder: an empty probe body */
	h.type = WIRE_PROBE;
	assert_int_equal(wire_build(out, 36, &h, inner, 0), 36);
	assert_int_equal(wire_build(out, 35, &h, inner, 0), -ENOSPC);

	/* version ignored, tag zeroed, nothing written past the packet */
	h = (struct wire_hdr){ .version = 0, .type = WIRE_DATA, .path = 4 };
	memset(out, 0xaa, 128);
	assert_int_equal(wire_build(out, 128, &h, inner, 20), 56);
	assert_int_equal(out[0], 0x11);
	for (i = 40; i < 56; i++) {
		assert_int_equal(out[i], 0);
	}
	for (i = 56; i < 128; i++) {
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
	assert_int_equal(wire_put_report(buf, 36, &r), 36);
	assert_int_equal(wire_put_report(buf, 35, &r), -ENOSPC);
	r.n = 16;
	assert_int_equal(wire_put_report(buf, 260, &r), 260);
	assert_int_equal(wire_put_report(buf, 259, &r), -ENOSPC);
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
	assert_string_equal(wire_type_name(0), "unknown");
	assert_string_equal(wire_type_name(7), "unknown");
	assert_string_equal(wire_type_name(15), "unknown");
	assert_string_equal(wire_type_name(255), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overhead),
		cmocka_unit_test(test_hdr_bytes),
		cmocka_unit_test(test_round_trip_hdr_extremes),
		cmocka_unit_test(test_round_trip_data),
		cmocka_unit_test(test_round_trip_report),
		cmocka_unit_test(test_round_trip_probe_hello),
		cmocka_unit_test(test_malformed_table),
		cmocka_unit_test(test_short_lengths),
		cmocka_unit_test(test_truncation_sweep),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_build_errors),
		cmocka_unit_test(test_put_errors),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
