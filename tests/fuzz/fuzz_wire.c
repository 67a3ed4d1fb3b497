/* SPDX-License-Identifier: BSD-2-Clause */
/* fuzz_wire: the wire format v4 on arbitrary bytes, in both directions.
 *
 * Parse: the input is a packet.  wire_parse_hdr() gives WIRE_OK or one of
 * the header's reasons, reading nothing of the body (in the ASan build the
 * body is poisoned while it runs; in every build it must give the same
 * outcome with every body byte changed) and writing nothing to m->u; then
 * wire_parse_body() gives WIRE_OK or one of the body's reasons, and the two
 * steps together are wire_parse().  Nor does the body step read a TRAIN's
 * padding (poisoned, then changed: the same outcome and fields).  A packet
 * that parses must satisfy what wire.h says a valid packet is, and must
 * survive the round trip: re-encoded with wire_put_*() and wire_build() it
 * gives the same bytes (the tag zeroed; the report's zero bytes and a
 * TRAIN's padding, which the parser ignores, cleared) and parses to the
 * same message.  The encoders must also refuse a buffer one byte short.
 *
 * Build: the same bytes, read as the fields of a message of some type
 * (any header values, pn 0..2^64-1, DATA flags any valid combination, a
 * valid body made from them, a TRAIN padded to any length), are
 * encoded with wire_put_*() and wire_build() into a buffer of exactly the
 * size, and must parse back, in the two steps, to exactly those fields.
 * Every input is read both ways, reading nothing past the buffer (ASan: the
 * input is an exact-size heap copy).
 */
#include <errno.h>
#include <string.h>

#include "common/wire.h"
#include "tests/fuzz/fuzz.h"

#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif
#ifdef FUZZ_ASAN
#include <sanitizer/asan_interface.h>
#endif

enum { MINLEN = WIRE_HDR_LEN + WIRE_TAG_LEN };

/* The reasons of the header step; the others are the body step's. */
static bool hdr_reason(enum wire_drop d)
{
	return d == WIRE_E_SHORT || d == WIRE_E_VERSION || d == WIRE_E_TYPE ||
	       d == WIRE_E_PATH || d == WIRE_E_CONTROL_SEQ ||
	       d == WIRE_E_FLAGS;
}

static bool named(enum wire_drop d)
{
	return (unsigned)d < WIRE_DROP_MAX &&
	       strcmp(wire_drop_name(d), "unknown") != 0;
}

static bool same_hdr(const struct wire_hdr *x, const struct wire_hdr *y)
{
	return x->version == y->version && x->type == y->type &&
	       x->path == y->path && x->pgap == y->pgap &&
	       x->session == y->session && x->pn == y->pn &&
	       x->gseq == y->gseq && x->lseq == y->lseq &&
	       x->tstamp == y->tstamp && x->fgap == y->fgap &&
	       x->flags == y->flags && x->cls == y->cls;
}

/* Big-endian fields of a body, read here (not with wire.c's readers). */
static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* Is the body of a parsed packet what wire.h says it is? */
static void check_body(const struct wire_msg *m)
{
	const struct wire_hdr *h = &m->hdr;
	const uint8_t *b = m->body;
	uint32_t seen = 0;
	unsigned i;

	if (h->type == WIRE_DATA) {
		FUZZ_CHECK(m->body_len >= WIRE_MIN_INNER &&
				   m->body_len <= WIRE_MAX_INNER,
			   "inner of %zu bytes", m->body_len);
		if (b[0] >> 4 == 4) {
			FUZZ_CHECK((size_t)(b[0] & 0x0f) * 4 >= 20 &&
					   (size_t)(b[0] & 0x0f) * 4 <=
						   m->body_len &&
					   (size_t)(b[2] << 8 | b[3]) ==
						   m->body_len,
				   "IPv4 lengths against %zu", m->body_len);
		} else {
			FUZZ_CHECK(b[0] >> 4 == 6, "inner version %u",
				   b[0] >> 4);
			FUZZ_CHECK(40 + (size_t)(b[4] << 8 | b[5]) ==
					   m->body_len,
				   "IPv6 length against %zu", m->body_len);
		}
		return;
	}
	FUZZ_CHECK(h->lseq == 0 && h->pgap == 0 && h->fgap == 0 &&
			   h->flags == 0 && h->cls == 0,
		   "control with lseq %u pgap %u fgap %u flags %u cls %u",
		   h->lseq, h->pgap, h->fgap, h->flags, h->cls);
	switch (h->type) {
	case WIRE_REPORT:
		FUZZ_CHECK(m->u.report.n <= WIRE_MAX_PATHS, "report n %u",
			   m->u.report.n);
		FUZZ_CHECK(m->body_len == 4 + (size_t)m->u.report.n *
							  WIRE_REPORT_ENTRY,
			   "report of %u entries in %zu bytes", m->u.report.n,
			   m->body_len);
		for (i = 0; i < m->u.report.n; i++) {
			uint8_t p = m->u.report.p[i].path;

			FUZZ_CHECK(p < WIRE_MAX_PATHS && !(seen & 1u << p),
				   "report entry %u path %u", i, p);
			FUZZ_CHECK(!(b[4 + i * WIRE_REPORT_ENTRY + 1] &
				     ~WIRE_RF_ALL) &&
					   m->u.report.p[i].flags ==
						   b[4 + i * WIRE_REPORT_ENTRY +
						     1],
				   "report entry %u flags %u", i,
				   b[4 + i * WIRE_REPORT_ENTRY + 1]);
			seen |= 1u << p;
		}
		break;
	case WIRE_PROBE:
	case WIRE_PROBE_ACK:
		FUZZ_CHECK(m->body_len == WIRE_PROBE_LEN, "type %u body %zu",
			   h->type, m->body_len);
		break;
	case WIRE_HELLO:
		FUZZ_CHECK(m->body_len == WIRE_HELLO_LEN && m->u.hello.r_conc == 0,
			   "hello body %zu, r_conc %llu", m->body_len,
			   (unsigned long long)m->u.hello.r_conc);
		break;
	case WIRE_HELLO_ACK:
		FUZZ_CHECK(m->body_len == WIRE_HELLO_ACK_LEN,
			   "hello_ack body %zu", m->body_len);
		break;
	case WIRE_NACK:
		FUZZ_CHECK(m->body_len == WIRE_NACK_LEN && b[1] == 0 &&
				   m->u.nack.path < WIRE_MAX_PATHS &&
				   m->u.nack.count >= 1 &&
				   m->u.nack.count <= WIRE_NACK_MAX,
			   "nack body %zu, path %u, count %u", m->body_len,
			   m->u.nack.path, m->u.nack.count);
		break;
	case WIRE_TRAIN:
		FUZZ_CHECK(m->body_len >= WIRE_TRAIN_LEN &&
				   m->body_len <= WIRE_MAX_INNER,
			   "train body %zu", m->body_len);
		FUZZ_CHECK(m->u.train.count >= 2 &&
				   m->u.train.count <= WIRE_TRAIN_MAX &&
				   m->u.train.idx < m->u.train.count,
			   "train idx %u count %u", m->u.train.idx,
			   m->u.train.count);
		FUZZ_CHECK(m->u.train.id == be32(b) &&
				   m->u.train.idx == be16(b + 4) &&
				   m->u.train.count == be16(b + 6),
			   "train fields differ from the body's bytes");
		break;
	case WIRE_TRAIN_ACK:
		FUZZ_CHECK(m->body_len == WIRE_TRAIN_ACK_LEN,
			   "train_ack body %zu", m->body_len);
		FUZZ_CHECK(m->u.train_ack.count >= 2 &&
				   m->u.train_ack.count <= WIRE_TRAIN_MAX &&
				   m->u.train_ack.got <= m->u.train_ack.count,
			   "train_ack got %u count %u", m->u.train_ack.got,
			   m->u.train_ack.count);
		FUZZ_CHECK(m->u.train_ack.id == be32(b) &&
				   m->u.train_ack.got == be16(b + 4) &&
				   m->u.train_ack.count == be16(b + 6) &&
				   m->u.train_ack.bytes == be32(b + 8) &&
				   m->u.train_ack.dt_us == be32(b + 12),
			   "train_ack fields differ from the body's bytes");
		break;
	default:
		FUZZ_CHECK(0, "type %u accepted", h->type);
	}
}

/* Encodes m's body with the wire_put_*() of its type into a heap buffer of
 * exactly the right size, after checking that a buffer one byte short is
 * refused (ASan: it is exactly that short).  A TRAIN is padded to
 * m->body_len; padded to one byte less it fits the shorter buffer, or is
 * refused as too short for its fields. */
static uint8_t *encode_body(const struct wire_msg *m, size_t *len)
{
	size_t n = m->body_len;
	uint8_t *buf = malloc(n ? n : 1), *shorter = malloc(n > 1 ? n - 1 : 1);
	int ret = -1, refused = -ENOSPC; /* DATA: nothing to encode */
	int less;

	FUZZ_CHECK(buf && shorter, "out of memory");
	switch (m->hdr.type) {
	case WIRE_DATA:
		memcpy(buf, m->body, n);
		ret = (int)n;
		break;
	case WIRE_REPORT:
		ret = wire_put_report(buf, n, &m->u.report);
		refused = wire_put_report(shorter, n - 1, &m->u.report);
		break;
	case WIRE_PROBE:
	case WIRE_PROBE_ACK:
		ret = wire_put_probe(buf, n, &m->u.probe);
		refused = wire_put_probe(shorter, n - 1, &m->u.probe);
		break;
	case WIRE_HELLO:
		ret = wire_put_hello(buf, n, &m->u.hello);
		refused = wire_put_hello(shorter, n - 1, &m->u.hello);
		break;
	case WIRE_HELLO_ACK:
		ret = wire_put_hello_ack(buf, n, &m->u.hello);
		refused = wire_put_hello_ack(shorter, n - 1, &m->u.hello);
		break;
	case WIRE_NACK:
		ret = wire_put_nack(buf, n, &m->u.nack);
		refused = wire_put_nack(shorter, n - 1, &m->u.nack);
		break;
	case WIRE_TRAIN:
		ret = wire_put_train(buf, n, &m->u.train, n);
		refused = wire_put_train(shorter, n - 1, &m->u.train, n);
		less = wire_put_train(shorter, n - 1, &m->u.train, n - 1);
		FUZZ_CHECK(n - 1 >= WIRE_TRAIN_LEN ? less == (int)(n - 1)
						   : less == -EINVAL,
			   "train padded to %zu gave %d", n - 1, less);
		break;
	case WIRE_TRAIN_ACK:
		ret = wire_put_train_ack(buf, n, &m->u.train_ack);
		refused = wire_put_train_ack(shorter, n - 1, &m->u.train_ack);
		break;
	default:
		FUZZ_CHECK(0, "no encoder for type %u", m->hdr.type);
	}
	free(shorter);
	FUZZ_CHECK(ret >= 0 && (size_t)ret == n, "put gave %d for %zu bytes",
		   ret, n);
	FUZZ_CHECK(refused == -ENOSPC, "one byte short gave %d", refused);
	*len = n;
	return buf;
}

/* The decoded bodies of two messages of the same header are equal. */
static bool same_body(const struct wire_msg *a, const struct wire_msg *b)
{
	unsigned i;

	if (a->body_len != b->body_len) {
		return false;
	}
	switch (a->hdr.type) {
	case WIRE_DATA:
		return !memcmp(a->body, b->body, a->body_len);
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
			    p->lseq_next != q->lseq_next ||
			    p->flags != q->flags) {
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
	case WIRE_TRAIN: /* the padding's length is body_len's */
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
		return false;
	}
}

static bool same_msg(const struct wire_msg *a, const struct wire_msg *b)
{
	return same_hdr(&a->hdr, &b->hdr) && same_body(a, b);
}

/* The body bytes that the encoder writes as zero and that the parser
 * ignores (any value accepted): the report's three after the count and the
 * two after each entry's flags byte (the flags byte itself the parser
 * refuses with an unknown flag), and a TRAIN's padding after its fields.
 * (NACK's zero byte the parser refuses when set.) */
static bool reserved(const struct wire_msg *m, size_t i)
{
	if (m->hdr.type == WIRE_TRAIN) {
		return i >= WIRE_TRAIN_LEN;
	}
	if (m->hdr.type != WIRE_REPORT) {
		return false;
	}
	if (i < 4) {
		return i >= 1;
	}
	return (i - 4) % WIRE_REPORT_ENTRY >= 2 &&
	       (i - 4) % WIRE_REPORT_ENTRY <= 3;
}

/* Parses out (len bytes, a heap block of exactly that size) in the two
 * steps and checks they accept it as *m. */
static void parse_back(const uint8_t *out, size_t len, const struct wire_msg *m)
{
	struct wire_msg again, whole;
	enum wire_drop d;

	memset(&again, 0xa5, sizeof(again));
	d = wire_parse_hdr(out, len, &again);
	FUZZ_CHECK(d == WIRE_OK, "encoded packet: header step %s",
		   wire_drop_name(d));
	d = wire_parse_body(&again);
	FUZZ_CHECK(d == WIRE_OK, "encoded packet: body step %s",
		   wire_drop_name(d));
	FUZZ_CHECK(again.body == out + WIRE_HDR_LEN &&
			   again.tag == out + len - WIRE_TAG_LEN,
		   "body/tag pointers");
	FUZZ_CHECK(same_msg(m, &again), "encode + parse changed the message");
	memset(&whole, 0x5a, sizeof(whole));
	d = wire_parse(out, len, &whole);
	FUZZ_CHECK(d == WIRE_OK && same_msg(&again, &whole),
		   "wire_parse differs from the two steps: %s",
		   wire_drop_name(d));
}

/* parse -> build -> parse. */
static void round_trip(const uint8_t *pkt, size_t len, const struct wire_msg *m)
{
	uint8_t *body, *out, *shorter, zero[WIRE_TAG_LEN] = {0};
	size_t blen, i;
	int n;

	body = encode_body(m, &blen);
	out = malloc(len);
	shorter = malloc(len - 1);
	FUZZ_CHECK(out && shorter, "out of memory");
	FUZZ_CHECK(wire_build(shorter, len - 1, &m->hdr, body, blen) == -ENOSPC,
		   "wire_build into %zu bytes", len - 1);
	n = wire_build(out, len, &m->hdr, body, blen);
	FUZZ_CHECK(n >= 0 && (size_t)n == len, "wire_build gave %d, want %zu",
		   n, len);

	/* the same bytes but for what the parser does not look at */
	FUZZ_CHECK(!memcmp(out, pkt, WIRE_HDR_LEN), "header bytes differ");
	FUZZ_CHECK(!memcmp(out + len - WIRE_TAG_LEN, zero, WIRE_TAG_LEN),
		   "tag not zeroed");
	for (i = 0; i < blen; i++) {
		if (reserved(m, i)) {
			FUZZ_CHECK(out[WIRE_HDR_LEN + i] == 0,
				   "reserved byte %zu is %u", i,
				   out[WIRE_HDR_LEN + i]);
		} else {
			FUZZ_CHECK(
				out[WIRE_HDR_LEN + i] == pkt[WIRE_HDR_LEN + i],
				"body byte %zu: %u, was %u", i,
				out[WIRE_HDR_LEN + i], pkt[WIRE_HDR_LEN + i]);
		}
	}
	parse_back(out, len, m);
	free(shorter);
	free(out);
	free(body);
}

/* The header step must not read the body: run it on a copy whose body is
 * poisoned (ASan build; the tag placed on a granule boundary so that all
 * of the body is), then with every body byte changed; same outcome, same
 * header, and m->u untouched. */
static enum wire_drop hdr_blind(const uint8_t *data, size_t size,
				struct wire_msg *m)
{
	size_t bl = size >= MINLEN ? size - MINLEN : 0, off, i;
	struct wire_msg again;
	enum wire_drop d, d2;
	uint8_t *blk, *pkt, u[sizeof(m->u)];
	void *mem = NULL;

	off = (8 - (WIRE_HDR_LEN + bl) % 8) % 8;
	FUZZ_CHECK(posix_memalign(&mem, 16, off + (size ? size : 1)) == 0,
		   "out of memory");
	blk = mem;
	pkt = blk + off;
	if (size) {
		memcpy(pkt, data, size);
	}
#ifdef FUZZ_ASAN
	if (bl) {
		ASAN_POISON_MEMORY_REGION(pkt + WIRE_HDR_LEN, bl);
	}
#endif
	memset(m, 0xa5, sizeof(*m));
	memset(u, 0xa5, sizeof(u));
	d = wire_parse_hdr(pkt, size, m);
#ifdef FUZZ_ASAN
	if (bl) {
		ASAN_UNPOISON_MEMORY_REGION(pkt + WIRE_HDR_LEN, bl);
	}
#endif
	FUZZ_CHECK(!memcmp(&m->u, u, sizeof(u)), "header step wrote m->u");
	for (i = 0; i < bl; i++) {
		pkt[WIRE_HDR_LEN + i] = (uint8_t)~pkt[WIRE_HDR_LEN + i];
	}
	memset(&again, 0xa5, sizeof(again));
	d2 = wire_parse_hdr(pkt, size, &again);
	FUZZ_CHECK(d2 == d, "header step %s, with the body changed %s",
		   wire_drop_name(d), wire_drop_name(d2));
	if (d == WIRE_OK) {
		FUZZ_CHECK(same_hdr(&m->hdr, &again.hdr) &&
				   m->body_len == again.body_len,
			   "header differs with the body changed");
	}
	free(blk);
	return d;
}

/* The body step must not read a TRAIN's padding: run it on a copy of the
 * body whose padding is poisoned (ASan build; the copy is an exact-size
 * block, aligned so that all of the padding is), then with every padding
 * byte changed; each time the outcome is d, the one of the body step on
 * the packet, and an accepted TRAIN has the fields of m (parsed from the
 * packet). */
static void pad_blind(const struct wire_msg *m, enum wire_drop d)
{
	size_t n = m->body_len, i;
	struct wire_msg again;
	enum wire_drop d2;
	unsigned round;
	uint8_t *copy;
	void *mem = NULL;

	if (m->hdr.type != WIRE_TRAIN || n <= WIRE_TRAIN_LEN) {
		return;
	}
	FUZZ_CHECK(posix_memalign(&mem, 16, n) == 0, "out of memory");
	copy = mem;
	memcpy(copy, m->body, n);
	for (round = 0; round < 2; round++) {
		if (round) {
			for (i = WIRE_TRAIN_LEN; i < n; i++) {
				copy[i] = (uint8_t)~copy[i];
			}
		}
		again = *m;
		again.body = copy;
		memset(&again.u, 0xa5, sizeof(again.u));
#ifdef FUZZ_ASAN
		ASAN_POISON_MEMORY_REGION(copy + WIRE_TRAIN_LEN,
					  n - WIRE_TRAIN_LEN);
#endif
		d2 = wire_parse_body(&again);
#ifdef FUZZ_ASAN
		ASAN_UNPOISON_MEMORY_REGION(copy + WIRE_TRAIN_LEN,
					    n - WIRE_TRAIN_LEN);
#endif
		FUZZ_CHECK(d2 == d, "train body step %s, %s padding %s",
			   wire_drop_name(d), round ? "changed" : "poisoned",
			   wire_drop_name(d2));
		FUZZ_CHECK(d != WIRE_OK || same_body(m, &again),
			   "train fields differ with the padding %s",
			   round ? "changed" : "poisoned");
	}
	free(mem);
}

/* ---- build -> parse ---- */

/* Reads the input as a stream of big-endian fields; zeros when it ends. */
struct reader {
	const uint8_t *p;
	size_t left;
};

static uint64_t take(struct reader *r, unsigned bytes)
{
	uint64_t v = 0;

	while (bytes--) {
		v = v << 8 | (r->left ? (r->left--, *r->p++) : 0);
	}
	return v;
}

/* A valid message of a type the input picks, every field from the input;
 * body_len and body (DATA) or m->u (the others) set.  body has room for
 * WIRE_MAX_INNER bytes. */
static void make_msg(struct reader *r, struct wire_msg *m, uint8_t *body)
{
	struct wire_hdr *h = &m->hdr;
	unsigned i;

	memset(m, 0, sizeof(*m));
	h->version = WIRE_VERSION;
	h->type = (uint8_t)(1 + take(r, 1) % WIRE_TYPE_MAX);
	h->path = (uint8_t)(take(r, 1) % WIRE_MAX_PATHS);
	h->session = (uint32_t)take(r, 4);
	h->pn = take(r, 8);
	h->gseq = (uint32_t)take(r, 4);
	h->tstamp = (uint32_t)take(r, 4);
	switch (h->type) {
	case WIRE_DATA: {
		unsigned sel = (unsigned)take(r, 1);
		size_t min = sel & 1 ? 40 : 20, len, n;

		h->pgap = (uint16_t)take(r, 2);
		h->lseq = (uint32_t)take(r, 4);
		h->fgap = (uint16_t)take(r, 2);
		h->flags = (uint8_t)(take(r, 1) & WIRE_F_ALL);
		h->cls = (uint8_t)take(r, 1);
		if (h->flags & WIRE_F_FLOW_FIRST) {
			h->fgap = 0; /* the first of its flow names none */
		}
		/* one in 16 of any size up to the largest, else small:
		 * big bodies cost time that finds nothing new */
		if ((sel & 0x1e) == 0) {
			len = min + take(r, 2) % (WIRE_MAX_INNER - min + 1);
		} else {
			len = min + take(r, 1);
		}
		n = len < r->left ? len : r->left;
		memcpy(body, r->p, n);
		memset(body + n, 0, len - n);
		r->p += n;
		r->left -= n;
		if (sel & 1) {
			body[0] = (uint8_t)(0x60 | (body[0] & 0x0f));
			body[4] = (uint8_t)((len - 40) >> 8);
			body[5] = (uint8_t)(len - 40);
		} else {
			/* any header length that fits */
			unsigned ihl = 5 + (unsigned)(take(r, 1) % 11);

			if (ihl * 4 > len) {
				ihl = 5;
			}
			body[0] = (uint8_t)(0x40 | ihl);
			body[2] = (uint8_t)(len >> 8);
			body[3] = (uint8_t)len;
		}
		m->body = body;
		m->body_len = len;
		break;
	}
	case WIRE_REPORT: {
		uint8_t perm[WIRE_MAX_PATHS];

		for (i = 0; i < WIRE_MAX_PATHS; i++) {
			perm[i] = (uint8_t)i;
		}
		m->u.report.n = (uint8_t)(take(r, 1) % (WIRE_MAX_PATHS + 1));
		for (i = 0; i < m->u.report.n; i++) {
			/* distinct paths in an order from the input */
			unsigned j = i + (unsigned)(take(r, 1) %
						    (WIRE_MAX_PATHS - i));
			uint8_t t = perm[i];

			perm[i] = perm[j];
			perm[j] = t;
			m->u.report.p[i].path = perm[i];
			m->u.report.p[i].rx_pkts = (uint32_t)take(r, 4);
			m->u.report.p[i].lost_pkts = (uint32_t)take(r, 4);
			m->u.report.p[i].delay_us = (uint32_t)take(r, 4);
			m->u.report.p[i].lseq_next = (uint32_t)take(r, 4);
			m->u.report.p[i].flags =
				(uint8_t)(take(r, 1) & WIRE_RF_ALL);
		}
		m->body_len = 4 + (size_t)m->u.report.n * WIRE_REPORT_ENTRY;
		break;
	}
	case WIRE_PROBE:
	case WIRE_PROBE_ACK:
		m->u.probe.id = (uint32_t)take(r, 4);
		m->u.probe.value = (uint32_t)take(r, 4);
		m->body_len = WIRE_PROBE_LEN;
		break;
	case WIRE_HELLO:
		m->u.hello.r_cpe = take(r, 8);
		m->body_len = WIRE_HELLO_LEN;
		break;
	case WIRE_NACK:
		m->u.nack.path = (uint8_t)(take(r, 1) % WIRE_MAX_PATHS);
		m->u.nack.count = (uint16_t)(1 + take(r, 1) % WIRE_NACK_MAX);
		m->u.nack.lseq = (uint32_t)take(r, 4);
		m->body_len = WIRE_NACK_LEN;
		break;
	case WIRE_TRAIN: {
		unsigned sel = (unsigned)take(r, 1);

		m->u.train.id = (uint32_t)take(r, 4);
		m->u.train.count =
			(uint16_t)(2 + take(r, 2) % (WIRE_TRAIN_MAX - 1));
		m->u.train.idx = (uint16_t)(take(r, 2) % m->u.train.count);
		/* padding: as DATA's sizes, one in 16 up to the largest
		 * body, else at most 255 bytes */
		if ((sel & 0x0f) == 0) {
			m->body_len = WIRE_TRAIN_LEN +
				      take(r, 2) % (WIRE_MAX_INNER -
						    WIRE_TRAIN_LEN + 1);
		} else {
			m->body_len = WIRE_TRAIN_LEN + take(r, 1);
		}
		break;
	}
	case WIRE_TRAIN_ACK:
		m->u.train_ack.id = (uint32_t)take(r, 4);
		m->u.train_ack.count =
			(uint16_t)(2 + take(r, 2) % (WIRE_TRAIN_MAX - 1));
		m->u.train_ack.got = (uint16_t)(take(r, 2) %
						(m->u.train_ack.count + 1u));
		m->u.train_ack.bytes = (uint32_t)take(r, 4);
		m->u.train_ack.dt_us = (uint32_t)take(r, 4);
		m->body_len = WIRE_TRAIN_ACK_LEN;
		break;
	case WIRE_HELLO_ACK:
		m->u.hello.r_cpe = take(r, 8);
		m->u.hello.r_conc = take(r, 8);
		m->body_len = WIRE_HELLO_ACK_LEN;
		break;
	default:
		FUZZ_CHECK(0, "no generator for type %u", h->type);
	}
}

static void build_parse(const uint8_t *data, size_t size)
{
	static uint8_t inner[WIRE_MAX_INNER];
	struct reader r = { data, size };
	struct wire_msg m;
	uint8_t *body, *out;
	size_t blen, len, i;
	int n;

	make_msg(&r, &m, inner);
	body = encode_body(&m, &blen);
	for (i = 0; i < blen; i++) {
		FUZZ_CHECK(!reserved(&m, i) || body[i] == 0,
			   "type %u: reserved byte %zu is %u", m.hdr.type, i,
			   body[i]);
	}
	len = WIRE_HDR_LEN + blen + WIRE_TAG_LEN;
	out = malloc(len);
	FUZZ_CHECK(out, "out of memory");
	n = wire_build(out, len, &m.hdr, body, blen);
	FUZZ_CHECK(n >= 0 && (size_t)n == len, "wire_build gave %d, want %zu",
		   n, len);
	FUZZ_CHECK(out[0] == (WIRE_VERSION << 4 | m.hdr.type),
		   "version/type byte %02x", out[0]);
	/* a DATA body is compared by content: m.body is inner */
	parse_back(out, len, &m);
	free(out);
	free(body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wire_msg m, whole;
	enum wire_drop dh, db, d;

	build_parse(data, size);

	dh = hdr_blind(data, size, &m);
	memset(&m, 0xa5, sizeof(m));
	FUZZ_CHECK(wire_parse_hdr(data, size, &m) == dh, "header step unstable");
	FUZZ_CHECK(named(dh), "reason %d", (int)dh);
	memset(&whole, 0x5a, sizeof(whole));
	d = wire_parse(data, size, &whole);
	FUZZ_CHECK(named(d), "reason %d", (int)d);
	if (dh != WIRE_OK) {
		FUZZ_CHECK(hdr_reason(dh), "header step gave %s",
			   wire_drop_name(dh));
		FUZZ_CHECK(size >= MINLEN || dh == WIRE_E_SHORT,
			   "%zu bytes rejected as %s", size, wire_drop_name(dh));
		FUZZ_CHECK(d == dh, "wire_parse %s, header step %s",
			   wire_drop_name(d), wire_drop_name(dh));
		return 0;
	}

	/* where the parts are: all within the packet, nothing left over */
	FUZZ_CHECK(size >= MINLEN, "accepted %zu bytes", size);
	FUZZ_CHECK(m.hdr.version == WIRE_VERSION, "version %u", m.hdr.version);
	FUZZ_CHECK(m.hdr.type >= 1 && m.hdr.type <= WIRE_TYPE_MAX &&
			   strcmp(wire_type_name(m.hdr.type), "unknown"),
		   "type %u", m.hdr.type);
	FUZZ_CHECK(m.hdr.path < WIRE_MAX_PATHS, "path %u", m.hdr.path);
	FUZZ_CHECK(m.hdr.type == WIRE_DATA ||
			   (m.hdr.lseq == 0 && m.hdr.pgap == 0 &&
			    m.hdr.fgap == 0 && m.hdr.flags == 0 &&
			    m.hdr.cls == 0),
		   "control with lseq %u pgap %u fgap %u flags %u cls %u",
		   m.hdr.lseq, m.hdr.pgap, m.hdr.fgap, m.hdr.flags,
		   m.hdr.cls);
	FUZZ_CHECK(m.hdr.type != WIRE_DATA ||
			   (!(m.hdr.flags & ~WIRE_F_ALL) &&
			    !(m.hdr.flags & WIRE_F_FLOW_FIRST && m.hdr.fgap)),
		   "DATA flags %02x fgap %u", m.hdr.flags, m.hdr.fgap);
	FUZZ_CHECK(m.body == data + WIRE_HDR_LEN, "body at offset %td",
		   m.body - data);
	FUZZ_CHECK(m.body_len == size - MINLEN, "body_len %zu in %zu bytes",
		   m.body_len, size);
	FUZZ_CHECK(m.tag == data + size - WIRE_TAG_LEN, "tag at offset %td",
		   m.tag - data);

	db = wire_parse_body(&m);
	FUZZ_CHECK(named(db) && !hdr_reason(db), "body step gave %s",
		   wire_drop_name(db));
	pad_blind(&m, db);
	FUZZ_CHECK(d == db, "wire_parse %s, the two steps %s",
		   wire_drop_name(d), wire_drop_name(db));
	if (db != WIRE_OK) {
		return 0;
	}
	FUZZ_CHECK(same_msg(&m, &whole) && whole.body == m.body &&
			   whole.tag == m.tag,
		   "wire_parse and the two steps disagree");
	check_body(&m);
	round_trip(data, size, &m);
	return 0;
}
