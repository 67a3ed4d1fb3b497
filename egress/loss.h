/* Per-path loss accounting at the egress.
 *
 * Paths are FIFO, so a gap in a path's local sequence is loss on that path.
 * Counters are cumulative and wrap (u32); the REPORT carries them as they
 * are and the peer's ingress takes differences.
 *
 * A forward jump of more than EGR_LOSS_MAX_GAP is not counted as loss (a
 * restarted sender or a hostile packet): the path resynchronises and the
 * jump is counted.  A packet behind the expected local sequence (duplicate,
 * or a path that reordered) is counted and not taken back from the loss.
 */
#ifndef L3BOND_LOSS_H
#define L3BOND_LOSS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/wire.h"

enum { EGR_LOSS_MAX_GAP = 1 << 16 };

struct egr_loss_path {
	bool started;
	uint32_t next_lseq;
	uint32_t rx;      /* cumulative, wraps */
	uint32_t lost;    /* cumulative, wraps */
	uint64_t jumps;   /* resyncs on a too-large gap */
	uint64_t behind;  /* packets behind the expected lseq */
	uint32_t delay_us;/* last one-way delay estimate, 0: none */
};

struct egr_loss {
	unsigned n;
	uint32_t report_seq;
	struct egr_loss_path p[WIRE_MAX_PATHS];
};

void egr_loss_init(struct egr_loss *l, unsigned npaths);

/* Accounts one DATA packet; returns how many packets are missing just before
 * it on its path (0 normally). */
uint32_t egr_loss_on_packet(struct egr_loss *l, unsigned path, uint32_t lseq);

/* Fills a report with the cumulative counters of every path; returns the
 * report sequence number to send in the header's gseq. */
uint32_t egr_loss_report(struct egr_loss *l, struct wire_report *r);

#endif
