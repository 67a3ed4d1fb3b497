/* SPDX-License-Identifier: BSD-2-Clause */
/* One simulation run: the event loop wiring the traffic source, the links
 * and the core (scheduler, egress) together.
 *
 * Invariants:
 * - every packet record is in exactly one place: a link's queue, an
 *   EV_DELIVER event, the resequencer, or the free list;
 * - at most one EV_POLL event is valid (poll_gen) and it is due no later
 *   than the resequencer's deadline;
 * - reports reach the ingress in the order they were sent (constant
 *   reverse delay), through a ring sized for the reports in flight.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/seq.h"
#include "egress/egress.h"
#include "sim/event.h"
#include "sim/pool.h"
#include "sim/rng.h"
#include "sim/sim.h"

enum ev_type {
	EV_SOURCE,
	EV_TX_DONE,   /* arg: path */
	EV_DELIVER,   /* arg: packet record */
	EV_POLL,      /* arg: poll generation */
	EV_REPORT,    /* egress builds a report */
	EV_REPORT_RX, /* the oldest report in flight reaches the ingress */
	EV_SAMPLE,    /* end of a 100 ms interval */
	EV_AT,	      /* arg: link schedule entry */
	EV_DETECT,    /* arg: path << 1 | up */
	EV_RTT,	      /* the round trips of the daemon's PROBEs, every path */
	EV_FO_TICK,   /* the detectors' timers */
	EV_PROBE,     /* arg: path */
	EV_PROBE_ACK, /* arg: path */
};

enum {
	FO_TICK_US = 1000,
	CUT_BIN_US = 10000,
	CUT_BEFORE_US = 1000000, /* losses counted from this before the cut */
	CUT_AFTER_US = 2000000,	 /* to this after the heal */
	CUT_OUTAGE_US = 3000000, /* outage looked for until this after it */
};

/* Random streams, one per process (links use their path index). */
enum { STREAM_REPORT = 1000 };

struct rep_msg {
	uint32_t seq;
	struct wire_report r;
};

struct interval {
	uint64_t offered_bytes;
	uint64_t path_bytes[WIRE_MAX_PATHS];
	uint64_t inorder_bytes;
	uint64_t lost;
	struct sim_hist reorder;
};

struct run {
	const struct sim_cfg *c;
	FILE *csv;
	struct sim_result *res;
	struct sim_evq q;
	struct sim_pool pool;
	struct sim_link link[WIRE_MAX_PATHS];
	struct ing_sched sched;
	struct egr egr;
	struct sim_rng rep_rng;
	uint64_t now;
	uint32_t bytes;	 /* accounted per packet */
	uint64_t src_ns; /* next departure, exact */
	bool src_done;
	uint64_t inflight; /* in a link or propagating */
	bool poll_armed;
	uint64_t poll_at;
	uint32_t poll_gen;
	struct rep_msg *rep;
	uint32_t rep_cap, rep_head, rep_n;
	uint64_t rep_delay_us;
	bool have_released;
	uint32_t last_released;
	struct interval iv;
	struct sim_hist reorder_all;
	double util_num, util_den;
	bool egr_ready;
	struct egr_rtt rtt[WIRE_MAX_PATHS]; /* the PROBE round trips (EV_RTT) */
	/* failover (c->failover) */
	struct ing_detect det[WIRE_MAX_PATHS];
	bool probed[WIRE_MAX_PATHS];	      /* a probe went on the path */
	uint64_t last_probe[WIRE_MAX_PATHS]; /* when */
	struct ing_inflight infl;
	bool infl_ready;
	uint8_t *payload; /* a packet's bytes: its emit time, then zeros */
	/* the cut's measures: 10-ms bins of offered and released bytes */
	uint64_t *bin_off, *bin_rel;
	uint32_t nbins;
	int err;
};

void sim_cfg_defaults(struct sim_cfg *c)
{
	static const struct sim_link_cfg dsl = {.name = "dsl",
						.cls = PATH_FIXED,
						.rate_bps = 64e6,
						.delay_us = 13000,
						.jitter_us = 0,
						.buffer_us = 50000,
						.loss = 0};
	static const struct sim_link_cfg lte = {.name = "lte",
						.cls = PATH_MOBILE,
						.rate_bps = 60e6,
						.delay_us = 25000,
						.jitter_us = 20000,
						.jitter_period_us = 100000,
						.buffer_us = 50000,
						.loss = 0};
	struct conf cf;

	memset(c, 0, sizeof(*c));
	c->pkt_size = 1492;
	c->overhead = true;
	c->npaths = 2;
	c->path[0] = dsl;
	c->path[1] = lte;
	/* the tunables default exactly as in the daemon's config */
	conf_defaults(&cf);
	c->sched = cf.sched;
	c->reseq = cf.reseq;
	c->seed = 1;
	c->report_path = 0;
	c->report_delay_us = -1;
	c->report_loss = 0;
	c->detect_us = 0;
	c->failover = false;
	c->probe_ms = cf.probe_interval_ms;
	c->dead_after_ms = cf.dead_after_ms;
	c->inflight_ms = 500;
}

static void push(struct run *r, uint64_t t, uint32_t type, uint32_t arg)
{
	int ret = sim_evq_push(&r->q, t, type, arg);

	if (ret && !r->err) {
		r->err = ret;
	}
}

static bool finished(const struct run *r)
{
	return r->src_done && r->inflight == 0 &&
	       egr_reseq_depth(&r->egr.reseq) == 0;
}

static void lose(struct run *r, uint32_t idx)
{
	r->iv.lost++;
	sim_pool_put(&r->pool, idx);
}

/* The cut's window for losses: from 1 s before it to 2 s after the
 * heal. */
static bool in_cut_window(const struct sim_cfg *c, uint64_t t)
{
	return c->cut.on && t + CUT_BEFORE_US >= c->cut.t_us &&
	       t < c->cut.t_us + c->cut.dur_us + CUT_AFTER_US;
}

/* bytes offered (emitted) or released at now, into the cut's bins */
static void cut_bin(struct run *r, uint64_t *bins, uint32_t bytes)
{
	uint64_t i;

	if (!r->nbins || r->now < r->c->cut.t_us) {
		return;
	}
	i = (r->now - r->c->cut.t_us) / CUT_BIN_US;
	if (i < r->nbins) {
		bins[i] += bytes;
	}
}

/* what the resequencer released out of order so far (late, resent late) */
static uint64_t late_released(const struct run *r)
{
	return r->egr.reseq.st.late + r->egr.reseq.st.resent_late;
}

static void on_release(void *ctx, uint64_t cookie, uint32_t gseq)
{
	struct run *r = ctx;
	struct sim_pkt *p = sim_pool_at(&r->pool, (uint32_t)cookie);
	uint64_t d = r->now - p->t_arrive_us;

	if (p->gseq != gseq) {
		r->res->order_errors++;
	}
	if (r->have_released && !seq_after(gseq, r->last_released)) {
		/* behind the head: only a packet the resequencer released
		 * late (its hole given up less than t_lto before) may be */
		if (late_released(r) > r->res->released_late) {
			r->res->released_late++;
		} else {
			r->res->order_errors++;
		}
		sim_pool_put(&r->pool, (uint32_t)cookie);
		return;
	}
	r->have_released = true;
	r->last_released = gseq;
	r->res->released++;
	if (in_cut_window(r->c, p->t_emit_us)) {
		r->res->cut.lost--; /* counted lost when emitted */
	}
	cut_bin(r, r->bin_rel, p->bytes);
	r->iv.inorder_bytes += p->bytes;
	sim_hist_add(&r->iv.reorder, d);
	sim_hist_add(&r->reorder_all, d);
	sim_pool_put(&r->pool, (uint32_t)cookie);
}

/* Keeps one poll pending at or before the resequencer's deadline.  The
 * deadline only moves later while packets wait (arrivals are in time
 * order), so an early poll finds nothing to do and re-arms. */
static void arm_poll(struct run *r)
{
	uint64_t d;

	if (!egr_reseq_deadline(&r->egr.reseq, &d)) {
		return;
	}
	if (d < r->now) {
		d = r->now;
	}
	if (r->poll_armed && r->poll_at <= d) {
		return;
	}
	r->poll_gen++;
	r->poll_armed = true;
	r->poll_at = d;
	push(r, d, EV_POLL, r->poll_gen);
}

/* ---- failover: the detectors and the in-flight store, as the daemon
 * would drive them (DESIGN.md, "Failure detection") */

/* A packet (an original or a copy) is sent on path: the detector waits
 * for its acknowledgement, the store keeps its bytes (data: its emit
 * time, then zeros). */
static void fo_sent(struct run *r, unsigned path, const struct wire_hdr *h,
		    const uint8_t *data)
{
	if (!r->c->failover) {
		return;
	}
	ing_detect_sent(&r->det[path], h->lseq, r->now);
	ing_inflight_add(&r->infl, path, h, data, r->c->pkt_size);
}

/* The packet under h, emitted at t_emit, enters path's link. */
static void send_on(struct run *r, int path, const struct wire_hdr *h,
		    uint64_t t_emit, const uint8_t *data)
{
	struct sim_pkt *p;
	enum sim_fate fate;
	uint64_t done;
	uint32_t idx;
	bool started;
	int ret;

	ret = sim_pool_get(&r->pool, &idx);
	if (ret) {
		r->err = ret;
		return;
	}
	p = sim_pool_at(&r->pool, idx);
	p->t_emit_us = t_emit;
	p->gseq = h->gseq;
	p->lseq = h->lseq;
	p->pgap = h->pgap;
	p->fgap = h->fgap;
	p->flags = h->flags;
	p->path = (uint8_t)path;
	p->bytes = r->bytes;
	r->res->bytes_sent += r->bytes;
	r->res->path_sent[path]++;
	if (r->c->path[path].cls == PATH_MOBILE) {
		r->res->bytes_mobile += r->bytes;
	}
	fo_sent(r, (unsigned)path, h, data);
	fate = sim_link_enqueue(&r->link[path], &r->pool, idx, r->now, &started,
				&done);
	if (fate != SIM_FATE_OK) {
		lose(r, idx);
		return;
	}
	r->inflight++;
	if (started) {
		push(r, done, EV_TX_DONE, (uint32_t)path);
	}
}

/* A copy of m goes out on the path the scheduler picks for it. */
static int resend_one(void *ctx, const struct ing_inflight_pkt *m,
		      const uint8_t *data)
{
	struct run *r = ctx;
	struct wire_hdr h = {.version = WIRE_VERSION,
			     .type = WIRE_DATA,
			     .session = 1,
			     .tstamp = (uint32_t)r->now,
			     .gseq = m->gseq,
			     .fgap = m->fgap,
			     .flags = m->flags,
			     .cls = m->cls};
	uint64_t emitted;
	int path;

	path = ing_sched_pick_resend(&r->sched, &h, m->len, r->now);
	if (path < 0) {
		return path;
	}
	memcpy(&emitted, data, sizeof(emitted));
	/* in flight on its new path in turn: kept again there */
	send_on(r, path, &h, emitted, data);
	return r->err;
}

static void fo_event(struct run *r, unsigned path, enum ing_det_event ev)
{
	const struct sim_cut *cut = &r->c->cut;
	struct sim_cut_result *cr = &r->res->cut;

	switch (ev) {
	case ING_DET_EV_NONE:
	case ING_DET_EV_HOLD:
		return;
	case ING_DET_EV_SUSPECT:
		if (cut->on && path == cut->path && !cr->detected &&
		    r->now >= cut->t_us) {
			cr->detected = true;
			cr->detect_ms = (double)(r->now - cut->t_us) / 1000;
		}
		ing_sched_set_suspect(&r->sched, path, true);
		ing_inflight_take(&r->infl, path, NULL, resend_one, r);
		return;
	case ING_DET_EV_DOWN:
		ing_sched_set_up(&r->sched, path, false);
		egr_reseq_set_path_up(&r->egr.reseq, path, false);
		arm_poll(r);
		return;
	case ING_DET_EV_UP:
		ing_sched_set_suspect(&r->sched, path, false);
		ing_sched_set_up(&r->sched, path, true);
		egr_reseq_set_path_up(&r->egr.reseq, path, true);
		return;
	}
}

static void on_fo_tick(struct run *r)
{
	enum ing_det_event ev;
	struct ing_detect *d[WIRE_MAX_PATHS];

	for (unsigned i = 0; i < r->c->npaths; i++) {
		d[i] = &r->det[i];
	}
	for (unsigned i = 0; i < r->c->npaths; i++) {
		/* another may have turned suspect */
		ing_detect_mark_alone(d, r->c->npaths);
		while ((ev = ing_detect_tick(&r->det[i], r->now)) !=
		       ING_DET_EV_NONE) {
			fo_event(r, i, ev);
		}
	}
	if (!finished(r)) {
		push(r, r->now + FO_TICK_US, EV_FO_TICK, 0);
	}
}

/* The probe check's tick: a suspect path's interval (ing_detect.h,
 * ING_DET_SUSPECT_PROBE_DIV), which the daemon's keepalive tick and its
 * suspect-probe timer (gateway/link.c) give between them. */
static uint32_t sprobe_ms(const struct run *r)
{
	uint32_t ms = r->c->probe_ms / ING_DET_SUSPECT_PROBE_DIV;

	return ms ? ms : 1;
}

/* Every sprobe_ms, as the daemon's timers (gateway/link.c, probe_due and
 * on_sprobe_timer): a probe on path when one is due at the interval the
 * detector gives now (an idle path's probe unanswered for T brings the
 * busy interval back), answered after a round trip if the link is up when
 * it leaves and when the answer comes (a cut takes both directions). */
static void on_probe(struct run *r, unsigned path)
{
	struct ing_detect *d = &r->det[path];
	uint64_t ms = ing_detect_probe_interval(d, r->now);

	if (ing_detect_probe_due(r->probed[path], r->last_probe[path],
				 (uint32_t)ms, sprobe_ms(r), r->now)) {
		r->probed[path] = true;
		r->last_probe[path] = r->now;
		ing_detect_probe_sent(d, r->now);
		if (r->link[path].up) {
			push(r,
			     r->now + 2 * (uint64_t)r->c->path[path].delay_us,
			     EV_PROBE_ACK, path);
		}
	}
	if (!finished(r)) {
		push(r, r->now + (uint64_t)sprobe_ms(r) * 1000, EV_PROBE,
		     path);
	}
}

static void on_probe_ack(struct run *r, unsigned path)
{
	if (r->link[path].up) {
		fo_event(r, path, ing_detect_answered(&r->det[path], r->now));
	}
}

/* The reports' acknowledgements. */
static void fo_report(struct run *r, const struct wire_report *rep)
{
	for (unsigned i = 0; i < rep->n; i++) {
		const struct wire_report_path *e = &rep->p[i];

		if (e->path >= r->c->npaths) {
			continue;
		}
		ing_inflight_ack(&r->infl, e->path, e->lseq_next);
		fo_event(r, e->path,
			 ing_detect_acked(&r->det[e->path], e->lseq_next,
					  r->now));
	}
}

static int fo_setup(struct run *r)
{
	const struct sim_cfg *c = r->c;
	struct ing_detect_params dp;
	struct ing_inflight_params ip = {.max_pkts = 1};
	uint64_t t = 0, far = 0;
	double rate = 0;
	int ret;

	ing_detect_params_default(&dp, c->sched.t_report_ms, c->dead_after_ms,
				  c->probe_ms);
	for (unsigned i = 0; i < c->npaths; i++) {
		ret = ing_detect_init(&r->det[i], &dp, 0);
		if (ret) {
			return ret;
		}
		/* the sim starts with every path working */
		ing_detect_answered(&r->det[i], 0);
		ing_detect_set_rtt(&r->det[i], 2 * c->path[i].delay_us,
				   c->path[i].jitter_us);
		if (c->path[i].rate_bps > rate) {
			rate = c->path[i].rate_bps;
		}
		if (ing_detect_timeout_us(&r->det[i]) > t) {
			t = ing_detect_timeout_us(&r->det[i]);
		}
		if ((uint64_t)c->path[i].delay_us + c->path[i].jitter_us +
			    c->path[i].buffer_us >
		    far) {
			far = (uint64_t)c->path[i].delay_us +
			      c->path[i].jitter_us + c->path[i].buffer_us;
		}
		push(r, 0, EV_PROBE, i);
	}
	/* a cut path's holes wait for their copies: the detector's T after
	 * the last report that acknowledged it (a report interval and a
	 * one-way delay after the cut), then the slowest path's delay and
	 * queue */
	egr_reseq_set_resend_wait(&r->egr.reseq,
				  (uint32_t)(t + c->sched.t_report_ms * 1000 +
					     2 * far));
	/* sized for the fastest path: its rate for inflight_ms, in packets
	 * of the configured size */
	ip.max_bytes = ing_inflight_bytes_for((uint32_t)(rate / 1000),
					      c->inflight_ms);
	while (ip.max_pkts < ip.max_bytes / sim_pkt_bytes(c) + 1) {
		ip.max_pkts <<= 1;
	}
	if (ip.max_pkts < 2) {
		ip.max_pkts = 2;
	}
	ret = ing_inflight_init(&r->infl, &ip, c->npaths);
	if (ret) {
		return ret;
	}
	r->infl_ready = true;
	r->payload = calloc(1, c->pkt_size);
	if (!r->payload) {
		return -ENOMEM;
	}
	push(r, FO_TICK_US, EV_FO_TICK, 0);
	return 0;
}

static void emit(struct run *r)
{
	const struct sim_cfg *c = r->c;
	struct wire_hdr h = {.version = WIRE_VERSION,
			     .type = WIRE_DATA,
			     .session = 1,
			     .tstamp = (uint32_t)r->now};
	int path;

	r->res->sent++;
	r->iv.offered_bytes += r->bytes;
	if (in_cut_window(c, r->now)) {
		r->res->cut.emitted++;
		r->res->cut.lost++;
	}
	cut_bin(r, r->bin_off, r->bytes);
	/* one flow (the profile's rates add up to one sender's), through the
	 * daemon's per-flow pick: fgap chains it, the egress orders it */
	path = ing_sched_pick_flow(&r->sched, &h, 1, r->c->pkt_size, r->now);
	if (path < 0) {
		if (path == -ENOBUFS) {
			r->res->aqm_drops++;
		} else {
			r->res->no_path++;
		}
		r->iv.lost++;
		return;
	}
	if (c->failover) {
		memcpy(r->payload, &r->now, sizeof(r->now));
	}
	send_on(r, path, &h, r->now, r->payload);
}

static void on_source(struct run *r)
{
	const struct sim_profile *pr = &r->c->profile;
	uint64_t next_change;
	double bps = sim_profile_rate(pr, r->now, &next_change);

	if (bps <= 0) {
		/* silent until the next step, if there is one */
		if (next_change >= pr->end_us) {
			r->src_done = true;
			return;
		}
		r->src_ns = next_change * 1000;
		push(r, next_change, EV_SOURCE, 0);
		return;
	}
	emit(r);
	r->src_ns += (uint64_t)llround(r->c->pkt_size * 8e9 / bps);
	if (r->src_ns >= pr->end_us * 1000) {
		r->src_done = true;
		return;
	}
	push(r, r->src_ns / 1000, EV_SOURCE, 0);
}

static void on_tx_done(struct run *r, unsigned path)
{
	enum sim_fate fate;
	uint64_t deliver = 0, done = 0;
	uint32_t idx;
	bool started;

	fate = sim_link_tx_done(&r->link[path], &r->pool, r->now, &idx,
				&deliver, &started, &done);
	if (started) {
		push(r, done, EV_TX_DONE, path);
	}
	if (fate != SIM_FATE_OK) {
		r->inflight--;
		lose(r, idx);
		return;
	}
	push(r, deliver, EV_DELIVER, idx);
}

static void on_deliver(struct run *r, uint32_t idx)
{
	struct sim_pkt *p = sim_pool_at(&r->pool, idx);
	struct wire_hdr h = {
		.version = WIRE_VERSION, .type = WIRE_DATA, .session = 1};
	enum egr_verdict v;

	r->inflight--;
	if (sim_link_arrive(&r->link[p->path]) != SIM_FATE_OK) {
		lose(r, idx);
		return;
	}
	r->iv.path_bytes[p->path] += p->bytes;
	if (r->c->cut.on && p->path == r->c->cut.path && !r->res->cut.back &&
	    r->now >= r->c->cut.t_us + r->c->cut.dur_us) {
		r->res->cut.back = true;
		r->res->cut.back_ms =
			(double)(r->now - r->c->cut.t_us - r->c->cut.dur_us) /
			1000;
	}
	p->t_arrive_us = r->now;
	h.path = p->path;
	h.gseq = p->gseq;
	h.lseq = p->lseq;
	h.pgap = p->pgap;
	h.fgap = p->fgap;
	h.flags = p->flags;
	h.tstamp = (uint32_t)p->t_enq_us;
	/* on EGR_RELEASED the record is already back in the pool */
	v = egr_on_data(&r->egr, &h, r->now, idx);
	switch (v) {
	case EGR_RELEASED:
	case EGR_BUFFERED:
		break;
	case EGR_DROP_LATE:
		r->res->late++;
		lose(r, idx);
		break;
	case EGR_DROP_DUP:
		r->res->dup++;
		lose(r, idx);
		break;
	case EGR_DROP_PATH:
	case EGR_DROP_NOMEM:
	default:
		/* cannot happen: paths are < npaths; memory (not counted
		 * apart: a simulation out of memory is no result) */
		r->res->bad_verdicts++;
		lose(r, idx);
		break;
	}
	arm_poll(r);
}

static void on_poll(struct run *r, uint32_t gen)
{
	if (!r->poll_armed || gen != r->poll_gen) {
		return;
	}
	r->poll_armed = false;
	egr_reseq_poll(&r->egr.reseq, r->now);
	arm_poll(r);
}

static void on_report(struct run *r)
{
	const struct sim_cfg *c = r->c;
	struct rep_msg *m;
	uint32_t seq;
	struct wire_report rep;
	struct egr_lto_path lp[WIRE_MAX_PATHS];
	unsigned i;

	/* the daemon's adaptive reorder timeout, from the same measurements;
	 * paths are live as the scheduler was last told (EV_DETECT) */
	for (i = 0; i < c->npaths; i++) {
		lp[i].up = r->sched.path[i].up;
		lp[i].rtt = r->rtt[i];
	}
	if (egr_adapt_lto(&r->egr, lp, c->npaths)) {
		arm_poll(r);
	}
	seq = egr_loss_report(&r->egr.loss, &rep);
	r->res->reports_sent++;
	if (c->report_loss > 0 &&
	    sim_rng_uniform(&r->rep_rng) < c->report_loss) {
		r->res->reports_lost++;
	} else if (r->rep_n == r->rep_cap) {
		r->err = -ENOBUFS; /* ring sized wrong: a bug */
	} else {
		m = &r->rep[(r->rep_head + r->rep_n) % r->rep_cap];
		m->seq = seq;
		m->r = rep;
		r->rep_n++;
		push(r, r->now + r->rep_delay_us, EV_REPORT_RX, 0);
	}
	if (!finished(r)) {
		push(r, r->now + (uint64_t)c->sched.t_report_ms * 1000,
		     EV_REPORT, 0);
	}
}

/* Every probe_ms: a PROBE on every path that is up, its round trip
 * (sim_link_probe_rtt) taken at once and smoothed as the daemon does, for
 * the reorder timeout.  (The detector's probes of --failover, on_probe,
 * are its own.) */
static void on_rtt(struct run *r)
{
	unsigned i;

	for (i = 0; i < r->c->npaths; i++) {
		const struct sim_link *l = &r->link[i];

		if (l->up) {
			egr_rtt_sample(&r->rtt[i], sim_link_probe_rtt(
							   l, &r->pool, r->now));
		}
	}
	if (!finished(r)) {
		push(r, r->now + (uint64_t)r->c->probe_ms * 1000, EV_RTT, 0);
	}
}

static void on_report_rx(struct run *r)
{
	struct rep_msg *m = &r->rep[r->rep_head];

	ing_sched_on_report(&r->sched, m->seq, &m->r);
	if (r->c->failover) {
		fo_report(r, &m->r);
	}
	r->rep_head = (r->rep_head + 1) % r->rep_cap;
	r->rep_n--;
}

static void on_sample(struct run *r)
{
	const struct sim_cfg *c = r->c;
	const double secs = SIM_INTERVAL_US / 1e6;
	double cap_bps = 0, fixed_bits = 0;
	double offered_bits = r->iv.offered_bytes * 8.0;
	unsigned i;

	for (i = 0; i < c->npaths; i++) {
		if (c->path[i].cls != PATH_FIXED) {
			continue;
		}
		if (r->link[i].up) {
			cap_bps += r->link[i].rate_bps;
		}
		fixed_bits += r->iv.path_bytes[i] * 8.0;
	}
	r->res->intervals++;
	if (cap_bps > 0 && offered_bits >= cap_bps * secs) {
		r->util_num += fixed_bits;
		r->util_den += cap_bps * secs;
		r->res->util_intervals++;
	}
	if (r->csv) {
		fprintf(r->csv, "%.1f,%.3f", r->now / 1e6,
			offered_bits / secs / 1e6);
		for (i = 0; i < c->npaths; i++) {
			fprintf(r->csv, ",%.3f",
				r->iv.path_bytes[i] * 8.0 / secs / 1e6);
		}
		fprintf(r->csv, ",%.3f,%llu,%.3f,%.1f,%.1f,%.2f\n",
			r->iv.inorder_bytes * 8.0 / secs / 1e6,
			(unsigned long long)r->iv.lost, r->sched.w_mobile,
			sim_hist_pct_ms(&r->iv.reorder, 0.5),
			sim_hist_pct_ms(&r->iv.reorder, 0.99),
			sim_hist_mean_ms(&r->iv.reorder));
	}
	memset(&r->iv, 0, sizeof(r->iv));
	if (!finished(r)) {
		push(r, r->now + SIM_INTERVAL_US, EV_SAMPLE, 0);
	}
}

static void on_at(struct run *r, uint32_t i)
{
	const struct sim_at *a = &r->c->at[i];
	struct sim_link *l = &r->link[a->path];

	if (finished(r)) {
		return;
	}
	switch (a->action) {
	case SIM_AT_RATE:
		sim_link_set_rate(l, a->rate_bps);
		return;
	case SIM_AT_DOWN:
	case SIM_AT_UP:
		sim_link_set_up(l, a->action == SIM_AT_UP);
		if (r->c->detect_us > 0) {
			push(r, r->now + r->c->detect_us, EV_DETECT,
			     a->path << 1 | (a->action == SIM_AT_UP));
		}
		return;
	}
}

static void on_detect(struct run *r, uint32_t arg)
{
	unsigned path = arg >> 1;
	bool up = arg & 1;

	const struct sim_cut *cut = &r->c->cut;

	if (!up && cut->on && path == cut->path && !r->res->cut.detected &&
	    r->now >= cut->t_us) {
		r->res->cut.detected = true;
		r->res->cut.detect_ms = (double)(r->now - cut->t_us) / 1000;
	}
	ing_sched_set_up(&r->sched, path, up);
	egr_reseq_set_path_up(&r->egr.reseq, path, up);
	arm_poll(r);
}

static void dispatch(struct run *r, const struct sim_ev *ev)
{
	switch (ev->type) {
	case EV_SOURCE:
		on_source(r);
		break;
	case EV_TX_DONE:
		on_tx_done(r, ev->arg);
		break;
	case EV_DELIVER:
		on_deliver(r, ev->arg);
		break;
	case EV_POLL:
		on_poll(r, ev->arg);
		break;
	case EV_REPORT:
		on_report(r);
		break;
	case EV_REPORT_RX:
		on_report_rx(r);
		break;
	case EV_RTT:
		on_rtt(r);
		break;
	case EV_SAMPLE:
		on_sample(r);
		break;
	case EV_AT:
		on_at(r, ev->arg);
		break;
	case EV_DETECT:
		on_detect(r, ev->arg);
		break;
	case EV_FO_TICK:
		on_fo_tick(r);
		break;
	case EV_PROBE:
		on_probe(r, ev->arg);
		break;
	case EV_PROBE_ACK:
		on_probe_ack(r, ev->arg);
		break;
	}
}

static int setup(struct run *r)
{
	const struct sim_cfg *c = r->c;
	enum path_class cls[WIRE_MAX_PATHS];
	unsigned i;
	struct egr_reseq_params rp;
	int ret;

	for (i = 0; i < c->npaths; i++) {
		cls[i] = c->path[i].cls;
		sim_link_init(&r->link[i], &c->path[i], c->seed, i);
	}
	sim_rng_seed(&r->rep_rng, c->seed, STREAM_REPORT);
	r->bytes = sim_pkt_bytes(c);
	r->rep_delay_us = c->report_delay_us >= 0
				  ? (uint64_t)c->report_delay_us
				  : c->path[c->report_path].delay_us;
	r->rep_cap = (uint32_t)(r->rep_delay_us /
				((uint64_t)c->sched.t_report_ms * 1000)) +
		     2;
	r->rep = calloc(r->rep_cap, sizeof(*r->rep));
	if (!r->rep) {
		return -ENOMEM;
	}
	ret = sim_evq_init(&r->q, 1024);
	if (ret) {
		return ret;
	}
	ret = sim_pool_init(&r->pool, 1024);
	if (ret) {
		return ret;
	}
	ret = ing_sched_init(&r->sched, &c->sched, c->npaths, cls);
	if (ret) {
		return ret;
	}
	for (unsigned p = 0; p < c->npaths; p++) {
		ing_sched_set_rate(&r->sched, p, c->path[p].pace_kbps);
	}
	/* the simulator does not model the copies a NACK asks for
	 * (DESIGN.md, "Repair"): its holes go as without them */
	rp = c->reseq;
	rp.repair_queue_us = 0;
	ret = egr_init(&r->egr, &rp, c->npaths, on_release, r);
	if (ret) {
		return ret;
	}
	r->egr_ready = true;
	if (c->failover) {
		ret = fo_setup(r);
		if (ret) {
			return ret;
		}
	}
	if (c->cut.on) {
		r->nbins = (uint32_t)((c->cut.dur_us + CUT_OUTAGE_US) /
				      CUT_BIN_US);
		r->bin_off = calloc(r->nbins, sizeof(*r->bin_off));
		r->bin_rel = calloc(r->nbins, sizeof(*r->bin_rel));
		if (!r->bin_off || !r->bin_rel) {
			return -ENOMEM;
		}
	}
	push(r, 0, EV_SOURCE, 0);
	push(r, (uint64_t)c->sched.t_report_ms * 1000, EV_REPORT, 0);
	if (c->probe_ms) {
		push(r, (uint64_t)c->probe_ms * 1000, EV_RTT, 0);
	}
	push(r, SIM_INTERVAL_US, EV_SAMPLE, 0);
	for (i = 0; i < c->nat; i++) {
		push(r, c->at[i].t_us, EV_AT, i);
	}
	return r->err;
}

/* The longest run of bins releasing less than half of what was offered
 * (a bin with nothing offered neither breaks nor extends a run). */
static double cut_outage_ms(const struct run *r)
{
	uint32_t run = 0, best = 0;

	for (uint32_t i = 0; i < r->nbins; i++) {
		if (r->bin_off[i] == 0) {
			continue;
		}
		if (2 * r->bin_rel[i] < r->bin_off[i]) {
			run++;
			best = run > best ? run : best;
		} else {
			run = 0;
		}
	}
	return best * (double)CUT_BIN_US / 1000;
}

static void collect(struct run *r)
{
	struct sim_result *res = r->res;
	unsigned i;

	for (i = 0; i < r->c->npaths; i++) {
		res->link[i] = r->link[i].st;
	}
	res->reseq = r->egr.reseq.st;
	res->sched = r->sched.st;
	res->w_mobile = r->sched.w_mobile;
	res->util_fixed = r->util_den > 0 ? r->util_num / r->util_den : 0;
	res->reorder_p50_ms = sim_hist_pct_ms(&r->reorder_all, 0.5);
	res->reorder_p99_ms = sim_hist_pct_ms(&r->reorder_all, 0.99);
	res->reorder_mean_ms = sim_hist_mean_ms(&r->reorder_all);
	res->reorder_max_ms = r->reorder_all.max_us / 1000.0;
	res->end_us = r->now;
	res->pool_peak = r->pool.peak;
	res->heap_peak = r->q.peak;
	for (i = 0; i < r->c->npaths && r->c->failover; i++) {
		res->detect[i] = r->det[i].st;
		res->inflight[i] = r->infl.path[i].st;
	}
	res->cut.outage_ms = cut_outage_ms(r);
}

int sim_run(const struct sim_cfg *c, FILE *csv, struct sim_result *res)
{
	struct run *r;
	struct sim_ev ev;
	int ret;

	memset(res, 0, sizeof(*res));
	r = calloc(1, sizeof(*r));
	if (!r) {
		return -ENOMEM;
	}
	r->c = c;
	r->csv = csv;
	r->res = res;
	ret = setup(r);
	if (ret) {
		goto free_run;
	}
	if (csv) {
		sim_csv_header(csv, c);
	}
	while (!r->err && sim_evq_pop(&r->q, &ev)) {
		if (ev.t_us > c->profile.end_us + SIM_DRAIN_MAX_US) {
			break;
		}
		r->now = ev.t_us;
		dispatch(r, &ev);
	}
	ret = r->err;
	res->stranded = r->inflight + egr_reseq_depth(&r->egr.reseq);
	collect(r);
free_run:
	if (r->egr_ready) {
		egr_free(&r->egr);
	}
	if (r->infl_ready) {
		ing_inflight_free(&r->infl);
	}
	free(r->payload);
	free(r->bin_off);
	free(r->bin_rel);
	sim_pool_free(&r->pool);
	sim_evq_free(&r->q);
	free(r->rep);
	free(r);
	return ret;
}
