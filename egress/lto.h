/* SPDX-License-Identifier: BSD-2-Clause */
/* The adaptive reorder timeout: how long the resequencer waits for a hole.
 *
 * It should be how much later than on the fastest live path a packet can
 * arrive on the slowest one, plus a margin.  Two measurements, the larger
 * wins:
 *  - the DATA this egress received: arrival minus the sender's stamp is the
 *    one-way delay plus the clock offset, the same offset on every path
 *    (one sender clock), so differences between paths are true one-way
 *    delay differences in the direction resequenced, asymmetric links
 *    included.  Spread: the largest (base + queueing delay of this report
 *    interval) minus the smallest base (egress/loss.h).  Only paths that
 *    carried DATA have a base;
 *  - the PROBE round trips, which every live path has whether or not it
 *    carries DATA (a mobile path the scheduler is about to use): half the
 *    srtt difference (assumes symmetric paths) plus 2 rttvar, the RFC 6298
 *    margin of 4 rttvar halved for one way: the jitter of the slowest path.
 * Plus EGR_LTO_MARGIN_US, at least EGR_LTO_MIN_US, at most t_lto (the
 * configured ceiling).  With nothing measured yet: t_lto.  Rises at once (a
 * hole given up too early loses a packet that was coming), decays by 1/8
 * per report (a timeout a little too long costs only delay while a hole
 * waits).  The egress keeps it at or above a floor that the packets which
 * came late to a hole given up taught (egress.h, EGR_LTO_FLOOR_DECAY):
 * what neither measurement saw coming (a mobile queue that grew within a
 * report interval, its jitter on top).
 *
 * Pure functions of the measurements: the daemon (with its PROBE round
 * trips) and the simulator (without) run this same code once per report
 * interval, before egr_loss_report starts a new interval.
 */
#ifndef L3BOND_LTO_H
#define L3BOND_LTO_H

#include <stdbool.h>
#include <stdint.h>

#include "egress/loss.h"

enum {
	EGR_LTO_MIN_US = 3000,	  /* floor */
	EGR_LTO_MARGIN_US = 2000, /* margin over the measured spread */
};

/* A path's PROBE round trips, smoothed as RFC 6298 does (alpha 1/8,
 * beta 1/4): what an operator compares paths by, and the second
 * measurement above. */
struct egr_rtt {
	uint32_t srtt_us;   /* valid if samples */
	uint32_t rttvar_us; /* its mean deviation */
	uint64_t samples;
};

void egr_rtt_sample(struct egr_rtt *r, uint32_t rtt_us);

/* What the egress knows of a path besides its loss accounting. */
struct egr_lto_path {
	bool up; /* live: only live paths count */
	struct egr_rtt rtt;
};

/* The timeout the measurements call for: paths 0 .. npaths-1 of p and of
 * l (those beyond l->n are not looked at), max_us the ceiling. */
uint32_t egr_lto_target(const struct egr_loss *l, const struct egr_lto_path *p,
			unsigned npaths, uint32_t max_us);

/* The next timeout from the current one cur towards target: up at once,
 * down by 1/8 of the difference (rounded up), never above max_us. */
uint32_t egr_lto_step(uint32_t cur, uint32_t target, uint32_t max_us);

#endif
