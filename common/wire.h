/* SPDX-License-Identifier: BSD-2-Clause */
/* The l3bond wire format: one header for every packet on the tunnel.
 *
 * Packet on the wire (inside outer IPv4/IPv6 + UDP):
 *
 *   0       1       2       3
 *   +-------+-------+-------+-------+
 *   |ver|typ| path  |     pgap      |   ver: high nibble, type: low nibble
 *   +-------+-------+-------+-------+
 *   |          session id           |
 *   +-------------------------------+
 *   |   packet number (pn, u64)     |
 *   |                               |
 *   +-------------------------------+
 *   |     global sequence (gseq)    |
 *   +-------------------------------+
 *   |     local sequence (lseq)     |
 *   +-------------------------------+
 *   |   sender timestamp (us, u32)  |
 *   +-------+-------+-------+-------+
 *   |     fgap      | flags |  cls  |
 *   +-------+-------+-------+-------+
 *   |  body (DATA: whole inner IP)  |
 *   +-------------------------------+
 *   |   authentication tag (16 B)   |
 *   +-------------------------------+
 *
 * All fields big-endian.  pgap is the distance in global sequence to the
 * previous DATA packet sent on the same path (0: unknown, first, or more
 * than 65535); with it the egress knows exactly which global sequence number
 * a one-packet gap in a path's local sequence was, and can give that hole up
 * at once instead of waiting for the reorder timeout (paths are FIFO).
 *
 * fgap does for flows what pgap does for paths: the distance in global
 * sequence to the previous DATA packet of the same flow (hash of the inner
 * 5-tuple) sent by this ingress (0: unknown or more than 65535).  The egress
 * orders per flow with it: a packet is released once its flow's previous
 * packet has been released or given up, so one flow never waits for another
 * flow's packets on the slower path (a ping sent on DSL does not wait for a
 * bulk packet that took LTE).  With fgap 0 the egress keeps global order for
 * that packet.
 *
 * flags (DATA):
 *   WIRE_F_FLOW_FIRST  the first packet of its flow the ingress remembers:
 *                      it waits for no earlier packet (fgap must be 0);
 *   WIRE_F_RESENT      a copy sent again after its path failed (failover,
 *                      under the original gseq: the resequencer counts
 *                      it apart, egress/reseq.h);
 *   WIRE_F_DUP         a redundant copy on another path of a packet of a
 *                      class in mode redundant (the resequencer keeps the
 *                      first copy, egress/reseq.h: copy_dup).
 * Any other bit is malformed (WIRE_E_FLAGS), so that a bit gets its meaning
 * only with a new version.  cls is the sender's traffic class id (0:
 * default), any value.
 *
 * For control types (REPORT, PROBE, ...) gseq carries the sender's control
 * counter; lseq, pgap, fgap, flags and cls are 0.
 *
 * pn is the sender's packet number, the nonce of the authentication tag
 * (common/auth.h): one counter per session key for every packet, data and
 * control, on every path; HELLO and HELLO_ACK carry a random one with the
 * top bit set (they are sealed under the handshake keys).  The tag covers
 * the whole header and the body.
 *
 * Parsing comes in two steps so that nothing is read from a body before it
 * is authenticated (with encryption it is not even readable before):
 * wire_parse_hdr() checks the header and the lengths, wire_parse_body() the
 * body for its type.
 *
 * Packets are parsed by copying into host structs; a packet pointer is never
 * cast to a struct.  Parsing never reads past the buffer; each malformed input
 * is rejected with its own reason.
 */
#ifndef L3BOND_WIRE_H
#define L3BOND_WIRE_H

#include <stddef.h>
#include <stdint.h>

enum wire_limits {
	WIRE_VERSION = 4,
	WIRE_HDR_LEN = 32,
	WIRE_TAG_LEN = 16,
	WIRE_OUTER4_LEN = 28, /* outer IPv4 20 + UDP 8 */
	WIRE_OVERHEAD = WIRE_OUTER4_LEN + WIRE_HDR_LEN + WIRE_TAG_LEN,
	WIRE_MAX_PATHS = 16,
	WIRE_MIN_INNER = 20,	/* smallest IPv4 packet */
	WIRE_MAX_INNER = 65535, /* largest inner packet we carry */
	WIRE_REPORT_ENTRY = 20,
	WIRE_REPORT_MAX = 4 + WIRE_MAX_PATHS * WIRE_REPORT_ENTRY,
	WIRE_PROBE_LEN = 8,
	WIRE_HELLO_LEN = 8,	 /* u64 r_cpe */
	WIRE_HELLO_ACK_LEN = 16, /* u64 r_cpe (echoed), u64 r_conc */
	WIRE_NACK_LEN = 8,
	WIRE_NACK_MAX = 64, /* packets one NACK asks for */
	WIRE_TRAIN_LEN = 8,	 /* TRAIN's fields; padding may follow */
	WIRE_TRAIN_ACK_LEN = 16,
	WIRE_TRAIN_MAX = 256,	 /* packets in one train */
};

/* DATA header flags (see the top of this file). */
enum wire_flags {
	WIRE_F_FLOW_FIRST = 0x01,
	WIRE_F_RESENT = 0x02,
	WIRE_F_DUP = 0x04,
	WIRE_F_ALL = WIRE_F_FLOW_FIRST | WIRE_F_RESENT | WIRE_F_DUP,
};

enum wire_type {
	WIRE_DATA = 1,
	WIRE_REPORT = 2,
	WIRE_PROBE = 3,
	WIRE_PROBE_ACK = 4,
	WIRE_HELLO = 5,
	WIRE_HELLO_ACK = 6,
	WIRE_NACK = 7,
	WIRE_TRAIN = 8,
	WIRE_TRAIN_ACK = 9,
	WIRE_TYPE_MAX = WIRE_TRAIN_ACK,
};

/* Why a packet was rejected.  Each value is its own counter. */
enum wire_drop {
	WIRE_OK = 0,
	/* shorter than header + tag */
	WIRE_E_SHORT,
	/* unknown version */
	WIRE_E_VERSION,
	/* unknown type */
	WIRE_E_TYPE,
	/* path id >= WIRE_MAX_PATHS */
	WIRE_E_PATH,
	/* DATA body shorter than an IP header */
	WIRE_E_INNER_SHORT,
	/* DATA body neither IPv4 nor IPv6 */
	WIRE_E_INNER_VERSION,
	/* IP length fields disagree with the body, or body over 65535 */
	WIRE_E_INNER_LEN,
	/* control body of the wrong size for its type */
	WIRE_E_BODY_LEN,
	/* REPORT: too many entries, a bad or a repeated path, or an entry
	 * with its reserved flags byte set */
	WIRE_E_REPORT_COUNT,
	/* control packet with lseq, pgap, fgap, flags or cls set */
	WIRE_E_CONTROL_SEQ,
	/* DATA: an unknown flag, or FLOW_FIRST with fgap set */
	WIRE_E_FLAGS,
	/* NACK: a bad path, a count of 0 or over WIRE_NACK_MAX, or its
	 * reserved byte set */
	WIRE_E_NACK,
	/* TRAIN: a count under 2 or over WIRE_TRAIN_MAX, or an index past
	 * it; TRAIN_ACK: the same count, or more received than sent */
	WIRE_E_TRAIN,
	WIRE_DROP_MAX,
};

struct wire_hdr {
	uint8_t version;
	uint8_t type;
	uint8_t path;
	uint16_t pgap;
	uint32_t session;
	uint64_t pn;
	uint32_t gseq;
	uint32_t lseq;
	uint32_t tstamp;
	uint16_t fgap;
	uint8_t flags;
	uint8_t cls;
};

/* REPORT entry flags (version 4): what the reporting end asks of the
 * path's sender. */
enum wire_report_flags {
	/* use the path towards me as a backup (carry on it only while no
	 * other path is up): its data budget is spent (common/budget.h) */
	WIRE_RF_BACKUP = 0x01,
	WIRE_RF_ALL = WIRE_RF_BACKUP,
};

struct wire_report_path {
	uint8_t path;
	uint32_t rx_pkts;   /* cumulative DATA packets received on the path */
	uint32_t lost_pkts; /* cumulative gaps in its local sequence */
	uint32_t delay_us;  /* queueing delay: the lowest one-way delay above
			     * its recent minimum seen since the last report
			     * (a standing queue) */
	uint32_t lseq_next; /* the next local sequence number expected on
			     * the path: one past the highest received (0
			     * before any); acknowledges what arrived */
	uint8_t flags;	    /* WIRE_RF_* */
};

/* Report body: u8 count, 3 bytes zero, then count entries of 20 bytes:
 * u8 path, u8 flags (WIRE_RF_*; another bit: WIRE_E_REPORT_COUNT), u16
 * zero, u32 rx, u32 lost, u32 delay_us, u32 lseq_next.  rx and lost are
 * cumulative (wrapping) so that a lost report loses no information; the
 * report sequence number travels in the header's gseq, and the header's
 * timestamp is when the latest DATA it counts arrived (the sender's clock,
 * as for every type: the peer learns a line's rate over it). */
struct wire_report {
	uint8_t n;
	struct wire_report_path p[WIRE_MAX_PATHS];
};

/* PROBE: u32 probe id, u32 last gseq sent on this path.
 * PROBE_ACK: u32 echoed probe id, u32 echoed sender timestamp. */
struct wire_probe {
	uint32_t id;
	uint32_t value;
};

/* HELLO (CPE -> concentrator): u64 r_cpe, the CPE's random contribution to
 * the session keys.  HELLO_ACK: u64 r_cpe echoed, u64 r_conc, the
 * concentrator's.  r_conc is 0 in a HELLO. */
struct wire_hello {
	uint64_t r_cpe;
	uint64_t r_conc;
};

/* NACK (the egress asks its peer's ingress for copies of DATA its path
 * lost, "Repair" in DESIGN.md): u8 path, u8 zero, u16 count, u32 the
 * first lost local sequence number on that path; count packets from it
 * (1..WIRE_NACK_MAX). */
struct wire_nack {
	uint8_t path;
	uint16_t count;
	uint32_t lseq;
};

/* TRAIN (the ingress measures a fixed line's rate before it has learned
 * it: DESIGN.md, "The rate learned"): u32 train id, u16 index, u16 count,
 * then padding (the sender writes zeros; the parser reads none of it) to
 * the size the sender chose (the body at most WIRE_MAX_INNER, as DATA's);
 * count of them go back to back on one path.  TRAIN_ACK (the egress, once the last
 * of a train arrived): u32 train id, u16 received, u16 count, u32 bytes
 * (outer IP bytes that arrived on the path after the train's middle packet,
 * count / 2, up to and with its last), u32 dt_us (between those two
 * arrivals, the kernel's stamps). */
struct wire_train {
	uint32_t id;
	uint16_t idx;
	uint16_t count;
};

struct wire_train_ack {
	uint32_t id;
	uint16_t got;
	uint16_t count;
	uint32_t bytes;
	uint32_t dt_us;
};

/* A parsed packet.  body points into the caller's buffer. */
struct wire_msg {
	struct wire_hdr hdr;
	const uint8_t *body;
	size_t body_len;
	const uint8_t *tag;
	union {
		struct wire_report report;
		struct wire_probe probe;
		struct wire_hello hello;
		struct wire_nack nack;
		struct wire_train train;
		struct wire_train_ack train_ack;
	} u;
};

/* Writes the WIRE_HDR_LEN header bytes of h into buf; the version written
 * is always WIRE_VERSION (h->version is ignored). */
void wire_put_hdr(uint8_t *buf, const struct wire_hdr *h);

/* Step 1: the header (version, type, path, no sequence, flow or flag fields
 * on control types, known DATA flags) and that a tag follows; sets m->hdr,
 * body, body_len and tag.  Reads nothing of the body.  WIRE_OK or the
 * reason. */
enum wire_drop wire_parse_hdr(const uint8_t *pkt, size_t len,
			      struct wire_msg *m);

/* Step 2, once the packet is authenticated (and decrypted): the body for
 * its type (DATA: one whole IPv4/IPv6 packet; control: exact sizes, report
 * entries) into m->u.  WIRE_OK or the reason. */
enum wire_drop wire_parse_body(struct wire_msg *m);

/* Both steps: wire_parse_hdr(), then wire_parse_body(). */
enum wire_drop wire_parse(const uint8_t *pkt, size_t len, struct wire_msg *m);

/* Builds a complete packet into out (header, body, zeroed tag).  Returns the
 * packet length, or -ENOSPC if cap is too small, -EINVAL on bad input. */
int wire_build(uint8_t *out, size_t cap, const struct wire_hdr *h,
	       const uint8_t *body, size_t body_len);

/* Encodes a REPORT/PROBE/HELLO/HELLO_ACK/NACK/TRAIN_ACK body, or a TRAIN
 * body padded with zeros to len (WIRE_TRAIN_LEN to WIRE_MAX_INNER).  Return the
 * body length or -ENOSPC / -EINVAL. */
int wire_put_report(uint8_t *buf, size_t cap, const struct wire_report *r);
int wire_put_probe(uint8_t *buf, size_t cap, const struct wire_probe *p);
int wire_put_hello(uint8_t *buf, size_t cap, const struct wire_hello *h);
int wire_put_hello_ack(uint8_t *buf, size_t cap, const struct wire_hello *h);
int wire_put_nack(uint8_t *buf, size_t cap, const struct wire_nack *n);
int wire_put_train(uint8_t *buf, size_t cap, const struct wire_train *t,
		   size_t len);
int wire_put_train_ack(uint8_t *buf, size_t cap,
		       const struct wire_train_ack *a);

const char *wire_drop_name(enum wire_drop d);
const char *wire_type_name(uint8_t type);

#endif
