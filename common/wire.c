/* SPDX-License-Identifier: BSD-2-Clause */
/* Encoding and validation of the l3bond wire format (see wire.h).
 *
 * Parsing copies fields into host structs through the be*() readers; every
 * read is preceded by a length check, so no input can make us read past the
 * buffer.  Each way a packet can be malformed has its own reason, which the
 * daemon counts.
 */
#include "common/wire.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

_Static_assert(WIRE_OVERHEAD == 76, "tunnel overhead must stay at 76 bytes");
_Static_assert(WIRE_TYPE_MAX < 16, "type must fit its nibble");
_Static_assert(WIRE_VERSION < 16, "version must fit its nibble");
_Static_assert(WIRE_MAX_PATHS <= 32, "report path set is a 32-bit mask");

enum {
	OFF_VERTYPE = 0,
	OFF_PATH = 1,
	OFF_PGAP = 2,
	OFF_SESSION = 4,
	OFF_PN = 8,
	OFF_GSEQ = 16,
	OFF_LSEQ = 20,
	OFF_TSTAMP = 24,
	OFF_FGAP = 28,
	OFF_FLAGS = 30,
	OFF_CLS = 31,
	OFF_END = 32,
};
_Static_assert((int)OFF_END == (int)WIRE_HDR_LEN, "header layout");

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = (v >> 16) & 0xff;
	p[2] = (v >> 8) & 0xff;
	p[3] = v & 0xff;
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

void wire_put_hdr(uint8_t *buf, const struct wire_hdr *h)
{
	buf[OFF_VERTYPE] = (uint8_t)(WIRE_VERSION << 4 | (h->type & 0x0f));
	buf[OFF_PATH] = h->path;
	put16(buf + OFF_PGAP, h->pgap);
	put32(buf + OFF_SESSION, h->session);
	put64(buf + OFF_PN, h->pn);
	put32(buf + OFF_GSEQ, h->gseq);
	put32(buf + OFF_LSEQ, h->lseq);
	put32(buf + OFF_TSTAMP, h->tstamp);
	put16(buf + OFF_FGAP, h->fgap);
	buf[OFF_FLAGS] = h->flags;
	buf[OFF_CLS] = h->cls;
}

static void get_hdr(const uint8_t *buf, struct wire_hdr *h)
{
	h->version = buf[OFF_VERTYPE] >> 4;
	h->type = buf[OFF_VERTYPE] & 0x0f;
	h->path = buf[OFF_PATH];
	h->pgap = be16(buf + OFF_PGAP);
	h->session = be32(buf + OFF_SESSION);
	h->pn = be64(buf + OFF_PN);
	h->gseq = be32(buf + OFF_GSEQ);
	h->lseq = be32(buf + OFF_LSEQ);
	h->tstamp = be32(buf + OFF_TSTAMP);
	h->fgap = be16(buf + OFF_FGAP);
	h->flags = buf[OFF_FLAGS];
	h->cls = buf[OFF_CLS];
}

/* The inner packet must be one whole IPv4 or IPv6 packet: the egress hands
 * it to the kernel as it is, so its length fields must match exactly. */
static enum wire_drop check_inner(const uint8_t *p, size_t len)
{
	if (len < WIRE_MIN_INNER) {
		return WIRE_E_INNER_SHORT;
	}
	if (len > WIRE_MAX_INNER) {
		return WIRE_E_INNER_LEN;
	}
	switch (p[0] >> 4) {
	case 4: {
		size_t ihl = (size_t)(p[0] & 0x0f) * 4;

		if (ihl < 20 || ihl > len || be16(p + 2) != len) {
			return WIRE_E_INNER_LEN;
		}
		return WIRE_OK;
	}
	case 6:
		if (len < 40) {
			return WIRE_E_INNER_SHORT;
		}
		if (40 + (size_t)be16(p + 4) != len) {
			return WIRE_E_INNER_LEN;
		}
		return WIRE_OK;
	default:
		return WIRE_E_INNER_VERSION;
	}
}

static enum wire_drop get_report(const uint8_t *p, size_t len,
				 struct wire_report *r)
{
	if (len < 4) {
		return WIRE_E_BODY_LEN;
	}
	if (p[0] > WIRE_MAX_PATHS) {
		return WIRE_E_REPORT_COUNT;
	}
	if (len != 4 + (size_t)p[0] * WIRE_REPORT_ENTRY) {
		return WIRE_E_BODY_LEN;
	}
	uint32_t seen = 0;

	r->n = p[0];
	for (unsigned i = 0; i < r->n; i++) {
		const uint8_t *e = p + 4 + i * WIRE_REPORT_ENTRY;

		/* one entry per path: the ingress takes deltas per entry */
		if (e[0] >= WIRE_MAX_PATHS || (seen & 1u << e[0])) {
			return WIRE_E_REPORT_COUNT;
		}
		/* an unknown flag: a bit gets its meaning only with a new
		 * version */
		if (e[1] & ~WIRE_RF_ALL) {
			return WIRE_E_REPORT_COUNT;
		}
		seen |= 1u << e[0];
		r->p[i].path = e[0];
		r->p[i].flags = e[1];
		r->p[i].rx_pkts = be32(e + 4);
		r->p[i].lost_pkts = be32(e + 8);
		r->p[i].delay_us = be32(e + 12);
		r->p[i].lseq_next = be32(e + 16);
	}
	return WIRE_OK;
}

/* PROBE and PROBE_ACK bodies are two u32 each. */
static enum wire_drop get_pair(const uint8_t *p, size_t len, uint32_t *a,
			       uint32_t *b)
{
	if (len != WIRE_PROBE_LEN) {
		return WIRE_E_BODY_LEN;
	}
	*a = be32(p);
	*b = be32(p + 4);
	return WIRE_OK;
}

static enum wire_drop get_hello(const uint8_t *p, size_t len, bool ack,
				struct wire_hello *h)
{
	if (len != (ack ? WIRE_HELLO_ACK_LEN : WIRE_HELLO_LEN)) {
		return WIRE_E_BODY_LEN;
	}
	h->r_cpe = be64(p);
	h->r_conc = ack ? be64(p + 8) : 0;
	return WIRE_OK;
}

static enum wire_drop get_nack(const uint8_t *p, size_t len,
			       struct wire_nack *n)
{
	if (len != WIRE_NACK_LEN) {
		return WIRE_E_BODY_LEN;
	}
	n->path = p[0];
	n->count = be16(p + 2);
	n->lseq = be32(p + 4);
	if (p[1] != 0 || n->path >= WIRE_MAX_PATHS || n->count == 0 ||
	    n->count > WIRE_NACK_MAX) {
		return WIRE_E_NACK;
	}
	return WIRE_OK;
}

static bool train_count_ok(uint16_t count)
{
	return count >= 2 && count <= WIRE_TRAIN_MAX;
}

/* TRAIN: its fields, then padding (not read) up to WIRE_MAX_INNER in all,
 * as for DATA. */
static enum wire_drop get_train(const uint8_t *p, size_t len,
				struct wire_train *t)
{
	if (len < WIRE_TRAIN_LEN || len > WIRE_MAX_INNER) {
		return WIRE_E_BODY_LEN;
	}
	t->id = be32(p);
	t->idx = be16(p + 4);
	t->count = be16(p + 6);
	if (!train_count_ok(t->count) || t->idx >= t->count) {
		return WIRE_E_TRAIN;
	}
	return WIRE_OK;
}

static enum wire_drop get_train_ack(const uint8_t *p, size_t len,
				    struct wire_train_ack *a)
{
	if (len != WIRE_TRAIN_ACK_LEN) {
		return WIRE_E_BODY_LEN;
	}
	a->id = be32(p);
	a->got = be16(p + 4);
	a->count = be16(p + 6);
	a->bytes = be32(p + 8);
	a->dt_us = be32(p + 12);
	if (!train_count_ok(a->count) || a->got > a->count) {
		return WIRE_E_TRAIN;
	}
	return WIRE_OK;
}

enum wire_drop wire_parse_hdr(const uint8_t *pkt, size_t len,
			      struct wire_msg *m)
{
	if (len < WIRE_HDR_LEN + WIRE_TAG_LEN) {
		return WIRE_E_SHORT;
	}
	get_hdr(pkt, &m->hdr);
	if (m->hdr.version != WIRE_VERSION) {
		return WIRE_E_VERSION;
	}
	if (m->hdr.type == 0 || m->hdr.type > WIRE_TYPE_MAX) {
		return WIRE_E_TYPE;
	}
	if (m->hdr.path >= WIRE_MAX_PATHS) {
		return WIRE_E_PATH;
	}
	m->body = pkt + WIRE_HDR_LEN;
	m->body_len = len - WIRE_HDR_LEN - WIRE_TAG_LEN;
	m->tag = pkt + len - WIRE_TAG_LEN;
	if (m->hdr.type != WIRE_DATA) {
		if (m->hdr.lseq != 0 || m->hdr.pgap != 0 || m->hdr.fgap != 0 ||
		    m->hdr.flags != 0 || m->hdr.cls != 0) {
			return WIRE_E_CONTROL_SEQ;
		}
		return WIRE_OK;
	}
	/* A flow's first packet waits for no earlier one, so it cannot also
	 * name one. */
	if ((m->hdr.flags & ~WIRE_F_ALL) != 0 ||
	    ((m->hdr.flags & WIRE_F_FLOW_FIRST) && m->hdr.fgap != 0)) {
		return WIRE_E_FLAGS;
	}
	return WIRE_OK;
}

enum wire_drop wire_parse_body(struct wire_msg *m)
{
	switch (m->hdr.type) {
	case WIRE_DATA:
		return check_inner(m->body, m->body_len);
	case WIRE_REPORT:
		return get_report(m->body, m->body_len, &m->u.report);
	case WIRE_PROBE:
	case WIRE_PROBE_ACK:
		return get_pair(m->body, m->body_len, &m->u.probe.id,
				&m->u.probe.value);
	case WIRE_HELLO:
	case WIRE_HELLO_ACK:
		return get_hello(m->body, m->body_len,
				 m->hdr.type == WIRE_HELLO_ACK, &m->u.hello);
	case WIRE_NACK:
		return get_nack(m->body, m->body_len, &m->u.nack);
	case WIRE_TRAIN:
		return get_train(m->body, m->body_len, &m->u.train);
	case WIRE_TRAIN_ACK:
		return get_train_ack(m->body, m->body_len, &m->u.train_ack);
	default:
		return WIRE_E_TYPE;
	}
}

enum wire_drop wire_parse(const uint8_t *pkt, size_t len, struct wire_msg *m)
{
	enum wire_drop d = wire_parse_hdr(pkt, len, m);

	return d != WIRE_OK ? d : wire_parse_body(m);
}

int wire_build(uint8_t *out, size_t cap, const struct wire_hdr *h,
	       const uint8_t *body, size_t body_len)
{
	size_t total = WIRE_HDR_LEN + body_len + WIRE_TAG_LEN;

	if (h->type == 0 || h->type > WIRE_TYPE_MAX ||
	    h->path >= WIRE_MAX_PATHS || body_len > WIRE_MAX_INNER) {
		return -EINVAL;
	}
	if (total > cap) {
		return -ENOSPC;
	}
	wire_put_hdr(out, h);
	if (body_len) {
		memcpy(out + WIRE_HDR_LEN, body, body_len);
	}
	memset(out + WIRE_HDR_LEN + body_len, 0, WIRE_TAG_LEN);
	return (int)total;
}

int wire_put_report(uint8_t *buf, size_t cap, const struct wire_report *r)
{
	size_t len = 4 + (size_t)r->n * WIRE_REPORT_ENTRY;

	if (r->n > WIRE_MAX_PATHS) {
		return -EINVAL;
	}
	for (unsigned i = 0; i < r->n; i++) {
		if (r->p[i].path >= WIRE_MAX_PATHS ||
		    (r->p[i].flags & ~WIRE_RF_ALL)) {
			return -EINVAL;
		}
	}
	if (len > cap) {
		return -ENOSPC;
	}
	memset(buf, 0, len);
	buf[0] = r->n;
	for (unsigned i = 0; i < r->n; i++) {
		uint8_t *e = buf + 4 + i * WIRE_REPORT_ENTRY;

		e[0] = r->p[i].path;
		e[1] = r->p[i].flags;
		put32(e + 4, r->p[i].rx_pkts);
		put32(e + 8, r->p[i].lost_pkts);
		put32(e + 12, r->p[i].delay_us);
		put32(e + 16, r->p[i].lseq_next);
	}
	return (int)len;
}

static int put_pair(uint8_t *buf, size_t cap, uint32_t a, uint32_t b)
{
	if (cap < WIRE_PROBE_LEN) {
		return -ENOSPC;
	}
	put32(buf, a);
	put32(buf + 4, b);
	return WIRE_PROBE_LEN;
}

int wire_put_probe(uint8_t *buf, size_t cap, const struct wire_probe *p)
{
	return put_pair(buf, cap, p->id, p->value);
}

int wire_put_hello(uint8_t *buf, size_t cap, const struct wire_hello *h)
{
	if (cap < WIRE_HELLO_LEN) {
		return -ENOSPC;
	}
	put64(buf, h->r_cpe);
	return WIRE_HELLO_LEN;
}

int wire_put_hello_ack(uint8_t *buf, size_t cap, const struct wire_hello *h)
{
	if (cap < WIRE_HELLO_ACK_LEN) {
		return -ENOSPC;
	}
	put64(buf, h->r_cpe);
	put64(buf + 8, h->r_conc);
	return WIRE_HELLO_ACK_LEN;
}

int wire_put_nack(uint8_t *buf, size_t cap, const struct wire_nack *n)
{
	if (n->path >= WIRE_MAX_PATHS || n->count == 0 ||
	    n->count > WIRE_NACK_MAX) {
		return -EINVAL;
	}
	if (cap < WIRE_NACK_LEN) {
		return -ENOSPC;
	}
	buf[0] = n->path;
	buf[1] = 0;
	put16(buf + 2, n->count);
	put32(buf + 4, n->lseq);
	return WIRE_NACK_LEN;
}

int wire_put_train(uint8_t *buf, size_t cap, const struct wire_train *t,
		   size_t len)
{
	if (!train_count_ok(t->count) || t->idx >= t->count ||
	    len < WIRE_TRAIN_LEN || len > WIRE_MAX_INNER) {
		return -EINVAL;
	}
	if (cap < len) {
		return -ENOSPC;
	}
	memset(buf, 0, len);
	put32(buf, t->id);
	put16(buf + 4, t->idx);
	put16(buf + 6, t->count);
	return (int)len;
}

int wire_put_train_ack(uint8_t *buf, size_t cap,
		       const struct wire_train_ack *a)
{
	if (!train_count_ok(a->count) || a->got > a->count) {
		return -EINVAL;
	}
	if (cap < WIRE_TRAIN_ACK_LEN) {
		return -ENOSPC;
	}
	put32(buf, a->id);
	put16(buf + 4, a->got);
	put16(buf + 6, a->count);
	put32(buf + 8, a->bytes);
	put32(buf + 12, a->dt_us);
	return WIRE_TRAIN_ACK_LEN;
}

const char *wire_drop_name(enum wire_drop d)
{
	static const char *const names[WIRE_DROP_MAX] = {
		[WIRE_OK] = "ok",
		[WIRE_E_SHORT] = "short",
		[WIRE_E_VERSION] = "bad_version",
		[WIRE_E_TYPE] = "bad_type",
		[WIRE_E_PATH] = "bad_path",
		[WIRE_E_INNER_SHORT] = "inner_short",
		[WIRE_E_INNER_VERSION] = "inner_bad_version",
		[WIRE_E_INNER_LEN] = "inner_bad_length",
		[WIRE_E_BODY_LEN] = "bad_body_length",
		[WIRE_E_REPORT_COUNT] = "bad_report",
		[WIRE_E_CONTROL_SEQ] = "control_with_seq",
		[WIRE_E_FLAGS] = "bad_flags",
		[WIRE_E_NACK] = "bad_nack",
		[WIRE_E_TRAIN] = "bad_train",
	};

	if ((unsigned)d >= WIRE_DROP_MAX || !names[d]) {
		return "unknown";
	}
	return names[d];
}

const char *wire_type_name(uint8_t type)
{
	static const char *const names[WIRE_TYPE_MAX + 1] = {
		[WIRE_DATA] = "data",	[WIRE_REPORT] = "report",
		[WIRE_PROBE] = "probe", [WIRE_PROBE_ACK] = "probe_ack",
		[WIRE_HELLO] = "hello", [WIRE_HELLO_ACK] = "hello_ack",
		[WIRE_NACK] = "nack",	[WIRE_TRAIN] = "train",
		[WIRE_TRAIN_ACK] = "train_ack",
	};

	if (type > WIRE_TYPE_MAX || !names[type]) {
		return "unknown";
	}
	return names[type];
}
