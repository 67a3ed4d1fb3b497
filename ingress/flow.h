/* SPDX-License-Identifier: BSD-2-Clause */
/* Flows at the ingress: which packet of a flow went last, and whether the
 * flow is sparse.
 *
 * A flow is what its inner 5-tuple hashes to: a bucket of a fixed table,
 * set-associative like cake's (a hash may take any of the ING_FLOW_WAYS
 * buckets of its set, tagged with the whole hash), so that two flows share
 * a bucket only when all the buckets of their set are busy.  Flows that
 * share one are one flow here: they are ordered more than they need, and a
 * sparse flow that shares with a bulk one is bulk (a ping that shared with
 * a download travelled with it on the LTE, 30 ms slower than the DSL its
 * neighbours took: the rare RRUL run whose pings read 58.8 ms p50 where
 * irtt read 32.9).  Each bucket remembers the global sequence number of
 * its last packet, so the next one carries fgap, the distance to it, and
 * the egress releases it as soon as that one is out (common/wire.h), and a
 * leaky bucket of the flow's bytes: a flow that stays under
 * ING_SPARSE_BPS (pings, DNS, VoIP, games, TCP handshakes) is sparse and
 * travels on the lowest-delay path instead of the weighted round robin.
 *
 * Pure: no allocation, no clock (time is passed in), no I/O.
 */
#ifndef L3BOND_FLOW_H
#define L3BOND_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	ING_FLOW_BUCKETS = 1024, /* power of two */
	ING_FLOW_WAYS = 8,	 /* buckets of a set: a power of two */
	/* a flow is sparse while its bytes drain through a bucket of
	 * ING_SPARSE_BURST bytes at ING_SPARSE_BPS bytes a second (1 Mbit/s:
	 * a call, a game, a ping every ms fit; a download's data does not) */
	ING_SPARSE_BPS = 125000,
	ING_SPARSE_BURST = 4500,
	/* a flow of a class in mode flow keeps its path while it sends; one
	 * silent this long has nothing in flight and picks again */
	ING_FLOW_IDLE_MS = 2000,
};

struct ing_flow {
	uint32_t tag;	    /* the hash of the flow that took it */
	uint32_t last_gseq; /* of the flow's previous packet */
	uint32_t last_ms;   /* when it went (ms, wrapping); valid if used */
	uint32_t backlog;   /* bytes in its leaky bucket */
	bool used;
	uint8_t path; /* mode flow: the flow's path + 1 (0: none yet) */
};

struct ing_flows {
	struct ing_flow b[ING_FLOW_BUCKETS];
};

/* The flow of an inner IPv4 or IPv6 packet: a hash of addresses, protocol
 * and, for TCP, UDP, UDP-Lite, SCTP and DCCP packets that are not
 * fragments, the ports (fragments of a datagram carry none after the
 * first, so a fragmented flow is keyed without them).  seed keeps others
 * from choosing collisions.  Anything unparseable hashes as one flow. */
uint32_t ing_flow_hash(const uint8_t *pkt, size_t len, uint32_t seed);

/* A packet of len bytes of flow hash leaves at now_us: returns its bucket
 * and whether the flow is sparse (its bucket's backlog, this packet
 * included, within ING_SPARSE_BURST).  A flow without a bucket takes one
 * of its set that is free or silent for more than ING_FLOW_IDLE_MS (its
 * flow has nothing in flight: it starts afresh), else shares the bucket
 * its hash's low bits name (whose tag is then another flow's).  A bucket silent for more than
 * ING_FLOW_IDLE_MS forgets its path. */
struct ing_flow *ing_flow_note(struct ing_flows *f, uint32_t hash,
			       uint32_t len, uint64_t now_us, bool *sparse);

/* fgap and flags for a packet of bucket b sent with global sequence gseq
 * (WIRE_F_FLOW_FIRST when the bucket has no packet within 65535), and
 * records it as the bucket's last. */
void ing_flow_sent(struct ing_flow *b, uint32_t gseq, uint16_t *fgap,
		   uint8_t *flags);

/* Forgets every flow (our sequence numbers start again). */
void ing_flows_reset(struct ing_flows *f);

#endif
