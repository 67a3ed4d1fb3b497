/* SPDX-License-Identifier: BSD-2-Clause */
/* Bottleneck link model; see link.h for the exact rules. */
#include <math.h>
#include <string.h>

#include "sim/link.h"

static uint64_t limit_of(double rate_bps, uint32_t buffer_us)
{
	return (uint64_t)(rate_bps * buffer_us / 8e6);
}

void sim_link_init(struct sim_link *l, const struct sim_link_cfg *c,
		   uint64_t seed, uint64_t stream)
{
	memset(l, 0, sizeof(*l));
	l->c = *c;
	l->rate_bps = c->rate_bps;
	l->up = true;
	l->limit_bytes = limit_of(c->rate_bps, c->buffer_us);
	l->head = l->tail = SIM_NONE;
	sim_rng_seed(&l->rng, seed, stream);
}

static uint64_t ceil_us(uint64_t ns)
{
	return (ns + 999) / 1000;
}

/* Starts serialising the head packet at start_ns; returns the microsecond
 * at which it is done. */
static uint64_t start_tx(struct sim_link *l, struct sim_pool *pool,
			 uint64_t start_ns)
{
	struct sim_pkt *p = sim_pool_at(pool, l->head);
	uint64_t start_us = start_ns / 1000;
	uint64_t wait = start_us > p->t_enq_us ? start_us - p->t_enq_us : 0;

	l->busy = true;
	l->free_ns = start_ns + (uint64_t)llround(p->bytes * 8e9 / l->rate_bps);
	l->st.qdelay_sum_us += wait;
	if (wait > l->st.qdelay_max_us) {
		l->st.qdelay_max_us = wait;
	}
	return ceil_us(l->free_ns);
}

static uint32_t jitter(struct sim_link *l, uint64_t now_us)
{
	uint64_t period = l->c.jitter_period_us, dt;

	if (l->c.jitter_us == 0) {
		return 0;
	}
	if (period == 0) {
		return (uint32_t)sim_rng_below(&l->rng,
					       (uint64_t)l->c.jitter_us + 1);
	}
	if (now_us >= l->jit_t0 + 2 * period) {
		/* idle for a while: start a new segment from here */
		l->jit_t0 = now_us;
		l->jit_j0 = (uint32_t)sim_rng_below(&l->rng,
						    (uint64_t)l->c.jitter_us + 1);
		l->jit_j1 = (uint32_t)sim_rng_below(&l->rng,
						    (uint64_t)l->c.jitter_us + 1);
	} else if (now_us >= l->jit_t0 + period) {
		l->jit_t0 += period;
		l->jit_j0 = l->jit_j1;
		l->jit_j1 = (uint32_t)sim_rng_below(&l->rng,
						    (uint64_t)l->c.jitter_us + 1);
	}
	dt = now_us - l->jit_t0;
	return (uint32_t)((int64_t)l->jit_j0 +
			  ((int64_t)l->jit_j1 - l->jit_j0) * (int64_t)dt /
				  (int64_t)period);
}

enum sim_fate sim_link_enqueue(struct sim_link *l, struct sim_pool *pool,
			       uint32_t idx, uint64_t now_us, bool *started,
			       uint64_t *done_us)
{
	struct sim_pkt *p = sim_pool_at(pool, idx);

	*started = false;
	if (!l->up) {
		l->st.down_drops++;
		return SIM_FATE_DOWN;
	}
	if (l->qlen > 0 && l->qbytes + p->bytes > l->limit_bytes) {
		l->st.queue_drops++;
		return SIM_FATE_QUEUE;
	}
	l->st.enqueued++;
	p->t_enq_us = now_us;
	p->next = SIM_NONE;
	if (l->tail == SIM_NONE) {
		l->head = idx;
	} else {
		sim_pool_at(pool, l->tail)->next = idx;
	}
	l->tail = idx;
	l->qlen++;
	l->qbytes += p->bytes;
	if (!l->busy) {
		uint64_t now_ns = now_us * 1000;

		*done_us = start_tx(l, pool,
				    now_ns > l->free_ns ? now_ns : l->free_ns);
		*started = true;
	}
	return SIM_FATE_OK;
}

enum sim_fate sim_link_tx_done(struct sim_link *l, struct sim_pool *pool,
			       uint64_t now_us, uint32_t *idx,
			       uint64_t *deliver_us, bool *started,
			       uint64_t *done_us)
{
	struct sim_pkt *p;
	uint64_t at;

	*idx = l->head;
	p = sim_pool_at(pool, l->head);
	l->head = p->next;
	if (l->head == SIM_NONE) {
		l->tail = SIM_NONE;
	}
	p->next = SIM_NONE;
	l->qlen--;
	l->qbytes -= p->bytes;
	l->busy = false;
	*started = false;
	if (l->qlen > 0) {
		/* back to back: the next bit follows the last one exactly */
		*done_us = start_tx(l, pool, l->free_ns);
		*started = true;
	}

	if (!l->up) {
		l->st.down_drops++;
		return SIM_FATE_DOWN;
	}
	if (l->c.loss > 0 && sim_rng_uniform(&l->rng) < l->c.loss) {
		l->st.random_loss++;
		return SIM_FATE_RANDOM;
	}
	at = now_us + l->c.delay_us + jitter(l, now_us);
	if (at < l->last_deliver_us) {
		at = l->last_deliver_us;
	}
	l->last_deliver_us = at;
	*deliver_us = at;
	return SIM_FATE_OK;
}

enum sim_fate sim_link_arrive(struct sim_link *l)
{
	if (!l->up) {
		l->st.down_drops++;
		return SIM_FATE_DOWN;
	}
	l->st.delivered++;
	return SIM_FATE_OK;
}

uint32_t sim_link_probe_rtt(const struct sim_link *l,
			    const struct sim_pool *pool, uint64_t now_us)
{
	uint64_t period = l->c.jitter_period_us, queued = l->qbytes;
	uint64_t at_ns = now_us * 1000, at, jit = 0;

	if (l->busy) {
		/* the head is being serialised: it ends at free_ns */
		queued -= sim_pool_at(pool, l->head)->bytes;
		at_ns = l->free_ns > at_ns ? l->free_ns : at_ns;
	}
	at_ns += (uint64_t)llround((double)queued * 8e9 / l->rate_bps);
	if (period == 0) {
		jit = l->c.jitter_us / 2;
	} else if (now_us < l->jit_t0 + period) {
		jit = (uint64_t)((int64_t)l->jit_j0 +
				 ((int64_t)l->jit_j1 - l->jit_j0) *
					 (int64_t)(now_us - l->jit_t0) /
					 (int64_t)period);
	} else {
		jit = l->jit_j1;
	}
	at = (at_ns + 999) / 1000 + l->c.delay_us + jit;
	at = at < l->last_deliver_us ? l->last_deliver_us : at;
	return (uint32_t)(at - now_us + l->c.delay_us + jit);
}

void sim_link_set_rate(struct sim_link *l, double rate_bps)
{
	l->rate_bps = rate_bps;
	l->limit_bytes = limit_of(rate_bps, l->c.buffer_us);
}

void sim_link_set_up(struct sim_link *l, bool up)
{
	l->up = up;
}
