/* SPDX-License-Identifier: BSD-2-Clause */
/* One direction's egress: loss accounting in front of the resequencer. */
#include "egress/egress.h"

/* The configured t_lto: the ceiling of the floor and of the late window
 * (a reload may lower it: the floor follows at once, not at the next
 * report interval, or a late packet meanwhile would raise the timeout
 * over the new ceiling). */
static void set_ceiling(struct egr *e, uint32_t max_us)
{
	e->lto_max_us = max_us;
	if (e->lto_floor_us > max_us) {
		e->lto_floor_us = max_us;
	}
	egr_reseq_set_late_window(&e->reseq, max_us);
}

int egr_init(struct egr *e, const struct egr_reseq_params *p, unsigned npaths,
	     egr_release_fn fn, void *ctx)
{
	int rc;

	e->bad_path = 0;
	e->lto_back = 0;
	e->lto_floor_us = 0;
	e->lto_late = 0;
	e->heals = 0;
	e->nack.count = 0;
	for (unsigned i = 0; i < WIRE_MAX_PATHS; i++) {
		e->repair_credit[i] = EGR_REPAIR_BURST;
	}
	e->repair_asked = e->repair_queued = e->repair_capped = 0;
	egr_loss_init(&e->loss, npaths);
	rc = egr_reseq_init(&e->reseq, p, npaths, fn, ctx);
	if (rc == 0) {
		set_ceiling(e, p->t_lto_us);
	}
	return rc;
}

int egr_set_params(struct egr *e, const struct egr_reseq_params *p)
{
	int rc = egr_reseq_set_params(&e->reseq, p);

	if (rc == 0) {
		set_ceiling(e, p->t_lto_us);
	}
	return rc;
}

void egr_free(struct egr *e)
{
	egr_reseq_free(&e->reseq);
}

/* missing packets were lost on path just before one whose queueing
 * delay is q: are they asked for again?  Sets e->nack if so. */
static bool repair(struct egr *e, const struct wire_hdr *h, uint32_t missing,
		   uint32_t q)
{
	double *c = &e->repair_credit[h->path];

	*c += EGR_REPAIR_PERMILLE / 1000.0;
	if (*c > EGR_REPAIR_BURST) {
		*c = EGR_REPAIR_BURST;
	}
	if (missing == 0 || e->reseq.p.repair_queue_us == 0) {
		return false;
	}
	if (q > e->reseq.p.repair_queue_us) {
		e->repair_queued += missing;
		return false;
	}
	if (missing > *c) {
		e->repair_capped += missing;
		return false;
	}
	*c -= missing;
	e->repair_asked += missing;
	e->nack = (struct egr_nack){
		.path = h->path, .lseq = h->lseq - missing, .count = missing};
	return true;
}

/* A late packet would have needed a wait of need_us: the floor rises to
 * it and a margin (at most the ceiling), and the timeout with it at once,
 * for the holes waiting now and the next ones (egr_adapt_lto). */
static void late_floor(struct egr *e, uint32_t need_us)
{
	uint64_t f = (uint64_t)need_us + EGR_LTO_MARGIN_US;
	struct egr_reseq_params rp = e->reseq.p;

	f = f < e->lto_max_us ? f : e->lto_max_us;
	if (f > e->lto_floor_us) {
		e->lto_floor_us = (uint32_t)f;
	}
	if (e->lto_floor_us > rp.t_lto_us) {
		rp.t_lto_us = e->lto_floor_us;
		if (!egr_reseq_set_params(&e->reseq, &rp)) {
			e->lto_late++;
		}
	}
}

/* How long ago then was, at now; 0 when then is later: a packet is timed
 * by its kernel stamp, one without a stamp by the drain that read it, so
 * a path's last delivery may be timed after the packet that follows it. */
static uint64_t since_us(uint64_t now_us, uint64_t then_us)
{
	return now_us > then_us ? now_us - then_us : 0;
}

enum egr_verdict egr_on_data(struct egr *e, const struct wire_hdr *h,
			     uint64_t now_us, uint64_t cookie)
{
	uint32_t missing, q, need;
	enum egr_verdict v;
	bool again;

	if (h->path >= e->loss.n || h->path >= e->reseq.npaths) {
		e->bad_path++;
		return EGR_DROP_PATH;
	}
	if (e->reseq.path_seen[h->path] &&
	    since_us(now_us, e->reseq.path_last_us[h->path]) >
		    EGR_LTO_BACK_US &&
	    e->reseq.p.t_lto_us < e->lto_max_us) {
		struct egr_reseq_params rp = e->reseq.p;

		rp.t_lto_us = e->lto_max_us;
		if (!egr_reseq_set_params(&e->reseq, &rp)) {
			e->lto_back++;
		}
	}
	missing = egr_loss_on_packet(&e->loss, h->path, h->lseq);
	q = egr_loss_on_delay(&e->loss, h->path, h->tstamp, now_us);
	again = repair(e, h, missing, q);
	v = egr_reseq_push_flow(&e->reseq, h->gseq, h->path, missing, h->pgap,
				again, h->fgap, h->flags, now_us, cookie);
	need = egr_reseq_take_late_need(&e->reseq);
	if (need) {
		late_floor(e, need);
	}
	return v;
}

void egr_path_heard(struct egr *e, unsigned path, uint64_t silent_us,
		    uint64_t now_us)
{
	const struct egr_reseq *r = &e->reseq;
	bool busy = false;

	if (silent_us <= EGR_HEAL_SILENCE_US || path >= r->npaths ||
	    !r->path_seen[path] ||
	    since_us(now_us, r->path_last_us[path]) >
		    silent_us + EGR_HEAL_SILENCE_US) {
		return;
	}
	for (unsigned i = 0; i < r->npaths; i++) {
		busy = busy || (i != path && r->path_seen[i] &&
				since_us(now_us, r->path_last_us[i]) <
					EGR_HEAL_GRACE_US);
	}
	if (busy) {
		egr_reseq_late_grace(&e->reseq, now_us + EGR_HEAL_GRACE_US);
		e->heals++;
	}
}

bool egr_adapt_lto(struct egr *e, const struct egr_lto_path *p,
		   unsigned npaths)
{
	struct egr_reseq_params rp = e->reseq.p;
	uint32_t cur = rp.t_lto_us, max_us = e->lto_max_us;
	uint32_t target = egr_lto_target(&e->loss, p, npaths, max_us);

	e->lto_floor_us -= (e->lto_floor_us + EGR_LTO_FLOOR_DECAY - 1) /
			   EGR_LTO_FLOOR_DECAY;
	target = target > e->lto_floor_us ? target : e->lto_floor_us;
	rp.t_lto_us = egr_lto_step(cur, target, max_us);
	if (rp.t_lto_us == cur || egr_reseq_set_params(&e->reseq, &rp)) {
		return false; /* the latter cannot happen: only the timeout */
	}
	return rp.t_lto_us < cur;
}
