/* SPDX-License-Identifier: BSD-2-Clause */
/* One path of one direction, as a bottleneck link:
 *
 *   enqueue -> FIFO (tail drop at rate * buffer) -> serialisation at rate
 *           -> random loss p -> propagation delay + jitter -> egress
 *
 * Serialisation runs on a nanosecond clock so that back-to-back packets keep
 * the exact rate although events are in whole microseconds.  Jitter never
 * reorders: a packet is not delivered before the one ahead of it (delivery
 * = max(previous delivery, tx end + delay + jitter)).  With jitter_period
 * 0 the jitter is drawn uniform in [0, jitter] per packet; the FIFO clamp
 * then pushes a busy link's delay towards delay + jitter.  With a period
 * (the default for LTE) the extra delay wanders: a new uniform target every
 * period, linearly interpolated, so that the delay really spans the range
 * (LTE's 25-45 ms) whatever the packet rate.  A link that is down loses every packet that
 * enters it, finishes serialisation, or would be delivered while it is down.
 * The queue limit counts the packet being serialised; a packet entering an
 * empty queue is always accepted.
 */
#ifndef L3BOND_SIM_LINK_H
#define L3BOND_SIM_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "ingress/sched.h"
#include "sim/pool.h"
#include "sim/rng.h"

enum { SIM_NAME_MAX = 16 };

struct sim_link_cfg {
	char name[SIM_NAME_MAX];
	enum path_class cls;
	double rate_bps;
	uint32_t delay_us;
	uint32_t jitter_us;
	uint32_t jitter_period_us; /* 0: per packet, else wandering */
	uint32_t buffer_us; /* queue limit, in time at the link's rate */
	double loss;	    /* random loss probability after the queue */
	uint32_t pace_kbps; /* the scheduler's rate_mbit of the path, kbit/s
			     * (0: not paced); not the link's own */
};

enum sim_fate {
	SIM_FATE_OK = 0,
	SIM_FATE_QUEUE,	 /* tail drop */
	SIM_FATE_RANDOM, /* random loss */
	SIM_FATE_DOWN,	 /* link down */
};

struct sim_link_stats {
	uint64_t enqueued;
	uint64_t queue_drops;
	uint64_t random_loss;
	uint64_t down_drops;
	uint64_t delivered;
	uint64_t qdelay_sum_us; /* waiting before serialisation starts */
	uint64_t qdelay_max_us;
};

struct sim_link {
	struct sim_link_cfg c;
	double rate_bps; /* current: the schedule may change it */
	bool up;
	uint64_t limit_bytes;
	uint64_t qbytes;
	uint32_t qlen;
	uint32_t head, tail; /* FIFO through sim_pkt.next */
	bool busy;
	uint64_t free_ns; /* end of the current serialisation */
	uint64_t last_deliver_us;
	/* wandering jitter: from j0 at t0 to j1 at t0 + period */
	uint64_t jit_t0;
	uint32_t jit_j0, jit_j1;
	struct sim_rng rng;
	struct sim_link_stats st;
};

void sim_link_init(struct sim_link *l, const struct sim_link_cfg *c,
		   uint64_t seed, uint64_t stream);

/* A packet enters the link at now.  On SIM_FATE_OK it is queued and, if the
 * link was idle, its serialisation starts: *started is set and *done_us is
 * when sim_link_tx_done must be called.  Otherwise the caller frees it. */
enum sim_fate sim_link_enqueue(struct sim_link *l, struct sim_pool *pool,
			       uint32_t idx, uint64_t now_us, bool *started,
			       uint64_t *done_us);

/* The head packet's serialisation ended at now: it is taken off the queue
 * (*idx).  On SIM_FATE_OK *deliver_us is its arrival time at the egress;
 * otherwise the caller frees it.  If another packet starts, *started and
 * *done_us are set as for sim_link_enqueue. */
enum sim_fate sim_link_tx_done(struct sim_link *l, struct sim_pool *pool,
			       uint64_t now_us, uint32_t *idx,
			       uint64_t *deliver_us, bool *started,
			       uint64_t *done_us);

/* A packet reaches the far end of the link at now: SIM_FATE_DOWN if the
 * link went down meanwhile (the caller frees it), else SIM_FATE_OK. */
enum sim_fate sim_link_arrive(struct sim_link *l);

/* The round trip a PROBE entering the link at now would measure: there,
 * the queue ahead of it at the current rate, the propagation delay and
 * the jitter as it stands (per-packet jitter: its mean); back, the same
 * propagation delay and jitter without a queue (the simulator carries
 * one direction's traffic).  Reads the link only: no random draw, so
 * probing does not change the rest of the run. */
uint32_t sim_link_probe_rtt(const struct sim_link *l,
			    const struct sim_pool *pool, uint64_t now_us);

/* The rate applies from the next packet to start serialisation on; the
 * queue limit follows at once. */
void sim_link_set_rate(struct sim_link *l, double rate_bps);
void sim_link_set_up(struct sim_link *l, bool up);

#endif
