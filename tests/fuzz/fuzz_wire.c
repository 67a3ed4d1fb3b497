/* fuzz_wire: wire_parse() on arbitrary bytes.
 *
 * Any input must give WIRE_OK or one of the named reasons, reading nothing
 * past the buffer (ASan: the input is an exact-size heap copy).  A packet
 * that parses must satisfy what wire.h says a valid packet is, and must
 * survive the round trip: re-encoded with wire_put_*() and wire_build() it
 * gives the same bytes (the tag zeroed and the report's reserved bytes,
 * which the parser ignores, cleared) and parses to the same message.  The
 * encoders must also refuse a buffer one byte short without writing to it.
 */
#include <errno.h>
#include <string.h>

#include "common/wire.h"
#include "tests/fuzz/fuzz.h"

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
	FUZZ_CHECK(h->lseq == 0 && h->pgap == 0, "control with lseq %u pgap %u",
		   h->lseq, h->pgap);
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
			seen |= 1u << p;
		}
		break;
	case WIRE_PROBE:
	case WIRE_PROBE_ACK:
	case WIRE_HELLO:
	case WIRE_HELLO_ACK:
		FUZZ_CHECK(m->body_len == 8, "type %u body %zu", h->type,
			   m->body_len);
		break;
	default:
		FUZZ_CHECK(0, "type %u accepted", h->type);
	}
}

/* Encodes m's body with the wire_put_*() of its type into a heap buffer of
 * exactly the right size, after checking that a buffer one byte short is
 * refused (ASan: it is exactly that short). */
static uint8_t *encode_body(const struct wire_msg *m, size_t *len)
{
	size_t n = m->body_len;
	uint8_t *buf = malloc(n ? n : 1), *shorter = malloc(n > 1 ? n - 1 : 1);
	int ret, refused = -ENOSPC; /* DATA: nothing to encode */

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
	default:
		ret = wire_put_hello(buf, n, &m->u.hello);
		refused = wire_put_hello(shorter, n - 1, &m->u.hello);
		break;
	}
	free(shorter);
	FUZZ_CHECK(ret >= 0 && (size_t)ret == n, "put gave %d for %zu bytes",
		   ret, n);
	FUZZ_CHECK(refused == -ENOSPC, "one byte short gave %d", refused);
	*len = n;
	return buf;
}

static bool same_msg(const struct wire_msg *a, const struct wire_msg *b)
{
	const struct wire_hdr *x = &a->hdr, *y = &b->hdr;
	unsigned i;

	if (x->version != y->version || x->type != y->type ||
	    x->path != y->path || x->pgap != y->pgap ||
	    x->session != y->session || x->gseq != y->gseq ||
	    x->lseq != y->lseq || x->tstamp != y->tstamp ||
	    a->body_len != b->body_len) {
		return false;
	}
	switch (x->type) {
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
			    p->delay_us != q->delay_us) {
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
		return a->u.hello.epoch == b->u.hello.epoch &&
		       a->u.hello.value == b->u.hello.value;
	default:
		return false;
	}
}

/* The report's bytes that must be zero and that the parser ignores: the
 * three after the count and the three after each entry's path. */
static bool reserved(const struct wire_msg *m, size_t i)
{
	if (m->hdr.type != WIRE_REPORT) {
		return false;
	}
	if (i < 4) {
		return i >= 1;
	}
	return (i - 4) % WIRE_REPORT_ENTRY >= 1 &&
	       (i - 4) % WIRE_REPORT_ENTRY <= 3;
}

static void round_trip(const uint8_t *pkt, size_t len, const struct wire_msg *m)
{
	uint8_t *body, *out, *shorter, zero[WIRE_TAG_LEN] = {0};
	struct wire_msg again;
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

	memset(&again, 0xa5, sizeof(again));
	FUZZ_CHECK(wire_parse(out, len, &again) == WIRE_OK,
		   "re-encoded packet rejected: %s",
		   wire_drop_name(wire_parse(out, len, &again)));
	FUZZ_CHECK(again.body == out + WIRE_HDR_LEN, "body pointer");
	FUZZ_CHECK(same_msg(m, &again), "round trip changed the message");
	free(shorter);
	free(out);
	free(body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wire_msg m;
	enum wire_drop d;

	memset(&m, 0xa5, sizeof(m));
	d = wire_parse(data, size, &m);
	FUZZ_CHECK((unsigned)d < WIRE_DROP_MAX &&
			   strcmp(wire_drop_name(d), "unknown"),
		   "reason %d", (int)d);
	if (d != WIRE_OK) {
		FUZZ_CHECK(size >= WIRE_HDR_LEN + WIRE_TAG_LEN ||
				   d == WIRE_E_SHORT,
			   "%zu bytes rejected as %s", size, wire_drop_name(d));
		return 0;
	}

	/* where the parts are: all within the packet, nothing left over */
	FUZZ_CHECK(size >= WIRE_HDR_LEN + WIRE_TAG_LEN, "accepted %zu bytes",
		   size);
	FUZZ_CHECK(m.hdr.version == WIRE_VERSION, "version %u", m.hdr.version);
	FUZZ_CHECK(m.hdr.type >= 1 && m.hdr.type <= WIRE_TYPE_MAX &&
			   strcmp(wire_type_name(m.hdr.type), "unknown"),
		   "type %u", m.hdr.type);
	FUZZ_CHECK(m.hdr.path < WIRE_MAX_PATHS, "path %u", m.hdr.path);
	FUZZ_CHECK(m.body == data + WIRE_HDR_LEN, "body at offset %td",
		   m.body - data);
	FUZZ_CHECK(m.body_len == size - WIRE_HDR_LEN - WIRE_TAG_LEN,
		   "body_len %zu in %zu bytes", m.body_len, size);
	FUZZ_CHECK(m.tag == data + size - WIRE_TAG_LEN, "tag at offset %td",
		   m.tag - data);
	check_body(&m);
	round_trip(data, size, &m);
	return 0;
}
