/* SPDX-License-Identifier: BSD-2-Clause */
/* Per-path loss accounting at the egress.
 *
 * Paths are FIFO, so a gap in a path's local sequence is loss on that path.
 * Counters are cumulative and wrap (u32); the REPORT carries them as they
 * are and the peer's ingress takes differences.
 *
 * A jump of more than EGR_LOSS_MAX_GAP either way is not counted as loss (a
 * restarted sender, or a forged packet): the path resynchronises and the
 * jump is counted.  A packet less far behind the expected local sequence
 * (duplicate, or a path that reordered) is counted and not taken back from
 * the loss.
 *
 * Queueing delay: the sender stamps each packet with its clock (us, u32);
 * receive time minus stamp is the one-way delay plus an unknown clock
 * offset.  Its minimum over the last one to two windows stands for the
 * path's base delay, so the difference is the delay spent in queues,
 * whatever the offset (and tolerant of slow clock drift).  Reports carry the
 * smallest such delay seen since the previous report: a standing queue
 * (the line is full) and not one packet held up by jitter, so that the
 * peer's queue target does not mistake a jittery, half-used line for a
 * full one.  The largest is kept too (qdelay_max), for the reorder timeout.
 */
#ifndef L3BOND_LOSS_H
#define L3BOND_LOSS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/wire.h"

enum {
	EGR_LOSS_MAX_GAP = 1 << 16,
	EGR_DELAY_WINDOW_US = 10 * 1000 * 1000,
};

struct egr_loss_path {
	bool started;
	uint32_t next_lseq;
	uint32_t rx;	 /* cumulative, wraps */
	uint32_t lost;	 /* cumulative, wraps */
	uint64_t jumps;	 /* resyncs on a too-large gap */
	uint64_t behind; /* packets behind the expected lseq */
	/* queueing delay */
	bool have_base;
	uint32_t base_cur;  /* min of (arrival - stamp) in this window */
	uint32_t base_prev; /* ... and in the previous one */
	uint64_t window_end;
	uint32_t qdelay_max; /* since the last report, us (reorder timeout) */
	uint32_t qdelay_min; /* since the last report, valid if qdelay_any */
	bool qdelay_any;
};

struct egr_loss {
	unsigned n;
	uint32_t report_seq;
	/* when the latest DATA counted arrived (egr_loss_on_delay's now_us,
	 * the kernel's receive stamp), 0 before any: the counts of a report
	 * are exact as of then, however late the report's timer fired or
	 * the daemon got to the packets (they queue in arrival order) */
	uint64_t counted_us;
	struct egr_loss_path p[WIRE_MAX_PATHS];
};

void egr_loss_init(struct egr_loss *l, unsigned npaths);

/* Accounts one DATA packet; returns how many packets are missing just before
 * it on its path (0 normally). */
uint32_t egr_loss_on_packet(struct egr_loss *l, unsigned path, uint32_t lseq);

/* Accounts the sender timestamp of one DATA packet that arrived at now_us;
 * returns its queueing delay, us (UINT32_MAX: path out of range). */
uint32_t egr_loss_on_delay(struct egr_loss *l, unsigned path, uint32_t tstamp,
			   uint64_t now_us);

/* Fills a report with the cumulative counters of every path and the local
 * sequence number each expects next (0 before its first packet); returns
 * the report sequence number to send in the header's gseq.  Starts a new
 * queueing-delay interval. */
uint32_t egr_loss_report(struct egr_loss *l, struct wire_report *r);

#endif
