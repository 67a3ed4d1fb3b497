/* SPDX-License-Identifier: BSD-2-Clause */
/* The egress of one direction: per-path loss accounting feeding the
 * resequencer.  The daemon and the simulator both go through egr_on_data so
 * that they run the same logic. */
#ifndef L3BOND_EGRESS_H
#define L3BOND_EGRESS_H

#include "common/wire.h"
#include "egress/loss.h"
#include "egress/lto.h"
#include "egress/reseq.h"

enum {
	/* A path silent this long whose DATA comes again is back (after a
	 * cut, or from disuse): its packets lag the others' by what its
	 * delay and its buffer, filled while the others carried everything,
	 * add, which the reorder timeout adapted without it cannot know. */
	EGR_LTO_BACK_US = 100000,
	/* A path from which nothing at all (DATA, REPORT, PROBE or its
	 * answer) came for this long is back from a cut when anything comes
	 * on it again while the others carry DATA: a path in use hears its
	 * peer's probes and the answers to its own every probe_interval_ms
	 * (200) at least, so a path merely used lightly does not count (its
	 * DATA silence alone did: 1-7 times in every RRUL run), and the
	 * first packet of a healed path is a probe (its DATA follows when
	 * the sender has the answer).  For EGR_HEAL_GRACE_US a packet whose
	 * hole was given up is then released out of order however late it
	 * comes, not dropped as too_old (egr_path_heard).  The survivors'
	 * packets lag the healed path's by the queue they built while they
	 * carried everything (failover.sh case b: the LTE's full 50-ms
	 * buffer and its 20 ms of jitter against the DSL's 13 ms, 1-16
	 * packets a heal more than two timeouts late); that queue is the
	 * cut's, not a bloat to signal, and it drains once the healed path
	 * takes its share, well within the grace. */
	EGR_HEAL_SILENCE_US = 500000,
	EGR_HEAL_GRACE_US = 1000000,
	/* Repair (DESIGN.md): copies are asked for up to this share of the
	 * packets a path delivered, per mille, and EGR_REPAIR_BURST packets
	 * at once: a line's errors, not a path that lost its way (a cut,
	 * a loss of 10 %: the failover's and the senders' business) */
	EGR_REPAIR_PERMILLE = 20,
	EGR_REPAIR_BURST = 32,
	/* The reorder timeout's floor learned from late packets (egr_on_data):
	 * the wait a late packet would have needed plus EGR_LTO_MARGIN_US,
	 * at most t_lto; it goes 1/EGR_LTO_FLOOR_DECAY of itself a report
	 * interval (1024: halved in about 35 s at 50 ms), so that it
	 * outlives the episodes that taught it (an LTE's queue and jitter
	 * come back every few seconds under a bulk download, a cubic epoch
	 * is 5-10 s; decayed at the measurements' 1/8 a floor was gone
	 * before the next episode, at 1/256 (9 s) it had halved, and 6-15
	 * packets a 30-s download still came late) */
	EGR_LTO_FLOOR_DECAY = 1024,
};

/* a burst the credit allows fits one NACK */
_Static_assert((int)EGR_REPAIR_BURST <= (int)WIRE_NACK_MAX, "EGR_REPAIR_BURST");

/* A request for copies, for the caller to send (WIRE_NACK). */
struct egr_nack {
	unsigned path;
	uint32_t lseq;
	uint32_t count; /* 0: none */
};

struct egr {
	struct egr_loss loss;
	struct egr_reseq reseq;
	uint64_t bad_path; /* DATA dropped: path index out of range */
	uint32_t lto_max_us; /* the configured t_lto (egr_adapt_lto) */
	uint64_t lto_back;   /* paths back: the timeout raised to it */
	uint32_t lto_floor_us; /* learned from late packets, decays */
	uint64_t lto_late;     /* the timeout raised by a late packet */
	uint64_t heals;      /* paths back from a cut: a late grace begun */
	/* repair: a path's loss under a queueing delay of at most the
	 * resequencer's repair_queue_us (0: off) is its line's errors; the
	 * packets are asked for again (nack, which the caller sends and
	 * clears) */
	struct egr_nack nack;
	double repair_credit[WIRE_MAX_PATHS]; /* packets that may be asked */
	uint64_t repair_asked;	/* packets asked for */
	uint64_t repair_queued; /* lost under a queue over repair_queue_us:
				 * the senders' congestion signal, not asked */
	uint64_t repair_capped; /* lost past EGR_REPAIR_PERMILLE or
				 * EGR_REPAIR_BURST: not asked */
};

int egr_init(struct egr *e, const struct egr_reseq_params *p, unsigned npaths,
	     egr_release_fn fn, void *ctx);
void egr_free(struct egr *e);

/* New resequencer parameters at runtime (a reload): p->t_lto_us is the
 * configured t_lto, the ceiling of the adapted timeout, of the floor late
 * packets teach and of the late window, all of which follow it at once. */
int egr_set_params(struct egr *e, const struct egr_reseq_params *p);

/* A validated DATA header arrives; see egr_reseq_push.  A gap in its
 * path's local sequence under a queue of at most repair_queue_us, within
 * the path's repair credit, sets nack (the caller sends it) and makes
 * the resequencer wait for the copies (egr_reseq_push_flow's repair).
 * DATA on a path that delivered nothing for EGR_LTO_BACK_US raises the
 * reorder timeout to its ceiling at once (lto_back); egr_adapt_lto
 * brings it down again as the measurements allow, 1/8 a report interval. */
enum egr_verdict egr_on_data(struct egr *e, const struct wire_hdr *h,
			     uint64_t now_us, uint64_t cookie);

/* An authentic packet came on path after silent_us without any: after
 * EGR_HEAL_SILENCE_US, if the path delivered DATA just before it fell
 * silent (within EGR_HEAL_SILENCE_US: it carried when it was cut, not an
 * idle bond's path) and another path delivered DATA within
 * EGR_HEAL_GRACE_US, a late grace of EGR_HEAL_GRACE_US begins
 * (egr_reseq_late_grace), counted in heals. */
void egr_path_heard(struct egr *e, unsigned path, uint64_t silent_us,
		    uint64_t now_us);

/* The reorder timeout adapted to this interval's measurements (lto.h),
 * and not below the floor that late packets taught (egr_on_data: a packet
 * that came to a hole given up raises the timeout at once to the wait it
 * would have needed and a margin, lto_late), once per report interval
 * before egr_loss_report: p[i] what is known of
 * path i besides its loss accounting.  Never above the configured t_lto
 * (egr_init, egr_set_params: lto_max_us).  True when the timeout went
 * down: a hole waiting now may be due sooner (the caller polls, or
 * rearms its timer). */
bool egr_adapt_lto(struct egr *e, const struct egr_lto_path *p,
		   unsigned npaths);

#endif
