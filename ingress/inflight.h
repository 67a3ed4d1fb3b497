/* SPDX-License-Identifier: BSD-2-Clause */
/* Packets in flight per path, kept for sending again (issue 14).
 *
 * The ingress keeps, per path, a copy of every DATA packet it sent that
 * the peer's egress has not acknowledged yet (a REPORT entry's lseq_next:
 * everything before it on that path arrived or is lost for good).  When
 * the path turns suspect (ingress/detect.h), the caller takes what is
 * left and sends it again on the surviving paths with WIRE_F_RESENT,
 * under the original global sequence numbers, fgap and flags, so the
 * egress fills the holes and drops the copies that arrive twice.
 *
 * Invariants:
 * - per path, a ring of at most max_pkts packets and max_bytes bytes,
 *   both allocated once, when the path first keeps a packet (or
 *   ing_inflight_alloc); the packets are in increasing local
 *   sequence (serial arithmetic, across the 32-bit wrap);
 * - when either bound is reached the oldest packets are dropped to make
 *   room (counted overflow): the oldest are the likeliest to have arrived
 *   already, the newest the likeliest to be lost at a cut;
 * - an acknowledgement frees the packets before it; one that is old
 *   frees nothing, one beyond what was sent is ignored (counted).
 *
 * Size: the store needs what a path carries between two
 * acknowledgements: a report interval plus the path's RTT, a few hundred
 * ms at the path's rate (ing_inflight_bytes_for).
 */
#ifndef L3BOND_INFLIGHT_H
#define L3BOND_INFLIGHT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/wire.h"

enum {
	/* The smallest byte store: one largest inner packet of an Ethernet
	 * path and then some, whatever the rate says. */
	ING_INFLIGHT_MIN_BYTES = 4096,
	ING_INFLIGHT_MAX_PKTS = 1u << 20,
};

struct ing_inflight_params {
	uint32_t max_pkts;  /* per path, a power of two in [2, 2^20] */
	uint32_t max_bytes; /* per path, at least ING_INFLIGHT_MIN_BYTES */
};

/* One kept packet: what a copy needs besides its bytes. */
struct ing_inflight_pkt {
	uint32_t gseq;
	uint32_t lseq; /* on the path it was sent on */
	uint16_t fgap;
	uint8_t flags; /* as sent (WIRE_F_FLOW_FIRST) */
	uint8_t cls;
	uint32_t len;
	uint32_t off; /* into the path's byte ring */
	bool asked;   /* handed over by ing_inflight_find already */
};

struct ing_inflight_stats {
	uint64_t stored;    /* packets kept */
	uint64_t acked;	    /* freed by an acknowledgement */
	uint64_t overflow;  /* dropped, oldest first, to make room */
	uint64_t too_big;   /* not kept: larger than max_bytes */
	uint64_t nomem;	    /* not kept: the path's store could not be
			     * allocated */
	uint64_t reorder;   /* not kept: not after the last one kept */
	uint64_t ack_ahead; /* acknowledgements beyond what was sent */
	uint64_t taken;	    /* handed over for sending again */
	uint64_t untaken;   /* dropped at a take: the caller had no room */
	uint64_t found;	    /* asked for by a NACK, kept (ing_inflight_find) */
	uint64_t again;	    /* asked for again, not handed over again: the
			     * same NACK on another path (a copy that is
			     * lost is asked for from its own path) */
	uint64_t unknown;   /* asked for by a NACK, not kept: acknowledged,
			     * dropped to make room, or never kept */
};

struct ing_inflight_path {
	struct ing_inflight_pkt *pkt; /* max_pkts entries */
	uint8_t *buf;		      /* max_bytes */
	uint32_t head, count;	      /* oldest entry, entries */
	uint32_t bhead, btail;	      /* oldest byte kept, one past newest */
	uint32_t bytes;		      /* kept */
	bool have_next;
	uint32_t next_lseq; /* one past the last lseq seen by add */
	struct ing_inflight_stats st;
};

struct ing_inflight {
	struct ing_inflight_params p;
	unsigned n;
	struct ing_inflight_path path[WIRE_MAX_PATHS];
};

/* Bytes a path of rate_kbps carries in ms milliseconds (at least
 * ING_INFLIGHT_MIN_BYTES, at most UINT32_MAX). */
uint32_t ing_inflight_bytes_for(uint32_t rate_kbps, uint32_t ms);

/* Returns 0 or -EINVAL (params, npaths not in [1, WIRE_MAX_PATHS]).
 * Allocates nothing: a path's store is allocated when it first keeps a
 * packet (a concentrator's CPEs that send nothing cost nothing), or by
 * ing_inflight_alloc. */
int ing_inflight_init(struct ing_inflight *f,
		      const struct ing_inflight_params *p, unsigned npaths);
/* Allocates path's store now (idempotent).  0, -EINVAL or -ENOMEM. */
int ing_inflight_alloc(struct ing_inflight *f, unsigned path);
void ing_inflight_free(struct ing_inflight *f);

/* Keeps a copy of the inner packet data[0..len) sent on path under h
 * (h->lseq, h->gseq, h->fgap, h->flags, h->cls).  Returns 0, or -EINVAL
 * (path, len 0), -EMSGSIZE (len > max_bytes), -EALREADY (h->lseq not
 * after the last one kept): then nothing is kept. */
int ing_inflight_add(struct ing_inflight *f, unsigned path,
		     const struct wire_hdr *h, const uint8_t *data,
		     uint32_t len);

/* The peer expects lseq_next next on path: frees what came before.
 * Returns the number freed. */
uint32_t ing_inflight_ack(struct ing_inflight *f, unsigned path,
			  uint32_t lseq_next);

/* Called by ing_inflight_take for each packet, oldest first; data is valid
 * during the call only.  0 to go on, negative (no room on the survivors)
 * to drop the rest. */
typedef int (*ing_inflight_fn)(void *ctx, const struct ing_inflight_pkt *m,
			       const uint8_t *data);

/* Hands what is kept on path to fn, oldest first.  budget NULL:
 * everything, and the path is empty.  Else as many bytes (inner packet
 * lengths) as *budget, which is decreased: the rest stays kept (freed by
 * an acknowledgement, or taken later).  When fn fails the rest is dropped
 * (untaken).  Returns the number fn accepted, or -EINVAL (path). */
int ing_inflight_take(struct ing_inflight *f, unsigned path,
		      uint64_t *budget, ing_inflight_fn fn, void *ctx);

/* Hands the packet sent on path under lseq to fn, if it is kept and was
 * not handed over before (the NACK comes on every path: counted again);
 * it stays kept until acknowledged.  1 when fn took it, 0 when it is not
 * kept (counted unknown) or was handed over already, -EAGAIN when fn
 * failed (it is not handed over again either), -EINVAL (path). */
int ing_inflight_find(struct ing_inflight *f, unsigned path, uint32_t lseq,
		      ing_inflight_fn fn, void *ctx);

/* The pace of the copies.  What a path that turned suspect carried (a
 * report interval, its detection time and its RTT at its rate: 200 ms or
 * more) cannot all go at once on the others: they may be full already,
 * and their queue is smaller than that (a burst of 890 packets onto an
 * idle 60 Mbit/s LTE with a 50 ms buffer lost 600 of them: issue 14's
 * case a).  So the copies go at a pace, like a sender's congestion
 * control with the survivors' queue as its signal:
 * - an episode starts at the backlog spread over ING_REPACE_SPREAD_US;
 * - each REPORT (every t_report_ms) gives the largest standing queue of
 *   the usable paths (ing_sched_queue_us): over the target
 *   (queue_target_ms) halves the pace, once per hold (a report interval
 *   and the survivors' RTT: the reports that follow a halving still show
 *   the queue the old pace built; halved on each of them, 14 times after
 *   one overshoot in issue 14's case a, the pace fell to its floor and
 *   the copies came after the reorder window), at or under it raises it
 *   by a quarter; never under ING_REPACE_FLOOR of the start, so that an
 *   episode ends;
 * - a report whose queue exceeds ING_REPACE_PAUSE_MUL targets stops the
 *   copies at once, until one shows it back under that (then they go on
 *   at the pace, with no burst): the copies are the traffic that can
 *   wait, and the halving, once per hold, came too late for the live
 *   traffic behind them (case a: the LTE's buffer overflowed at the
 *   episode's start, 78-188 packets); not with the target 0; stopped
 *   for ING_REPACE_PAUSE_MAX_US, the rest is dropped (abandoned);
 * - the caller takes the budget every ING_REPACE_TICK_US; a budget is at
 *   most a tick's worth and a largest packet (no burst after a pause).
 * A copy that comes after its hole was given up is still delivered (out
 * of order: egress/reseq.h); one that comes too late for the reorder
 * window is dropped there (resent_too_old). */
enum {
	ING_REPACE_SPREAD_US = 400000,
	ING_REPACE_TICK_US = 2000,
	ING_REPACE_MIN_BPS = 125000, /* 1 Mbit/s */
	/* a budget holds a largest inner packet at least, else a slow pace
	 * would never reach one */
	ING_REPACE_PKT_MAX = 65536,
	/* a survivor's queue over this many targets stops the copies until
	 * a report shows it back (failover.sh case a, the same hour: lost
	 * at the cut 31-66 ms of the flow, median 39, in 11 runs, against
	 * 37-70, median 55, in 10 halving alone; 41-52 ms in 3 runs
	 * stopping at 2 targets, whose pauses sent more copies past the
	 * reorder window) */
	ING_REPACE_PAUSE_MUL = 4,
	/* stopped that long, what is left is past use (a TCP sender
	 * retransmitted it, a call played on): dropped, the episode ends
	 * (a survivor that a TCP flow keeps queued would stop the copies
	 * for as long as the cut lasts, the tick running all along) */
	ING_REPACE_PAUSE_MAX_US = 1000000,
};
#define ING_REPACE_FLOOR 0.05

struct ing_repace_stats {
	uint64_t episodes; /* paces started */
	uint64_t backoffs; /* halved on a survivor's queue */
	uint64_t pauses;   /* stopped: a survivor's queue far over target */
	uint64_t abandoned; /* ended: stopped for ING_REPACE_PAUSE_MAX_US */
	uint64_t bytes;	   /* inner bytes sent again */
};

struct ing_repace {
	bool active;
	bool paused; /* the last report: a queue over ING_REPACE_PAUSE_MUL */
	uint64_t paused_us; /* since */
	double rate_Bps, floor_Bps;
	double tokens;
	uint64_t t_us;
	uint64_t hold_until_us; /* no halving before (the last one's lag) */
	struct ing_repace_stats st;
};

/* Starts an episode for backlog_bytes, unless one goes on. */
void ing_repace_start(struct ing_repace *p, uint64_t backlog_bytes,
		      uint64_t now_us);
/* Nothing left to send again. */
void ing_repace_stop(struct ing_repace *p);
/* A REPORT at now_us: queue_us, the largest standing queue of the usable
 * paths; hold_us, how long a halving takes to show in the reports (a
 * report interval and the usable paths' largest RTT). */
void ing_repace_on_report(struct ing_repace *p, uint32_t queue_us,
			  uint32_t target_us, uint64_t now_us,
			  uint64_t hold_us);
/* True when the copies were stopped for ING_REPACE_PAUSE_MAX_US (counted
 * abandoned): the caller drops what is left and stops the episode. */
bool ing_repace_abandon(struct ing_repace *p, uint64_t now_us);
/* The bytes that may go now (0 when no episode). */
uint64_t ing_repace_budget(struct ing_repace *p, uint64_t now_us);
/* bytes of the budget went (what ing_inflight_take took from it). */
void ing_repace_spent(struct ing_repace *p, uint64_t bytes);

/* Forgets path (its local sequence restarted). */
void ing_inflight_reset(struct ing_inflight *f, unsigned path);

static inline uint32_t ing_inflight_count(const struct ing_inflight *f,
					  unsigned path)
{
	return path < f->n ? f->path[path].count : 0;
}

static inline uint32_t ing_inflight_bytes(const struct ing_inflight *f,
					  unsigned path)
{
	return path < f->n ? f->path[path].bytes : 0;
}

#endif
