/* SPDX-License-Identifier: BSD-2-Clause */
/* Per-path loss accounting from gaps in the local sequence (see loss.h). */
#include "egress/loss.h"

#include <string.h>

#include "common/seq.h"

void egr_loss_init(struct egr_loss *l, unsigned npaths)
{
	memset(l, 0, sizeof(*l));
	l->n = npaths > WIRE_MAX_PATHS ? WIRE_MAX_PATHS : npaths;
}

uint32_t egr_loss_on_packet(struct egr_loss *l, unsigned path, uint32_t lseq)
{
	struct egr_loss_path *p;
	int32_t d;

	if (path >= l->n) {
		return 0;
	}
	p = &l->p[path];
	p->rx++;
	if (!p->started) {
		p->started = true;
		p->next_lseq = lseq + 1;
		return 0;
	}
	d = seq_diff(lseq, p->next_lseq);
	if (d < 0 && d >= -EGR_LOSS_MAX_GAP) {
		p->behind++;
		return 0;
	}
	p->next_lseq = lseq + 1;
	if (d < 0 || d > EGR_LOSS_MAX_GAP) {
		/* Not loss we could have caused: a restarted sender (which
		 * starts again from 0) or a forged packet.  Follow it without
		 * reporting a gap. */
		p->jumps++;
		return 0;
	}
	p->lost += (uint32_t)d;
	return (uint32_t)d;
}

uint32_t egr_loss_on_delay(struct egr_loss *l, unsigned path, uint32_t tstamp,
			   uint64_t now_us)
{
	struct egr_loss_path *p;
	uint32_t raw = (uint32_t)now_us - tstamp, base;
	int32_t q;

	if (path >= l->n) {
		return UINT32_MAX;
	}
	p = &l->p[path];
	if (now_us > l->counted_us) {
		l->counted_us = now_us;
	}
	if (!p->have_base) {
		p->have_base = true;
		p->base_cur = p->base_prev = raw;
		p->window_end = now_us + EGR_DELAY_WINDOW_US;
	} else if (now_us >= p->window_end) {
		p->base_prev = p->base_cur;
		p->base_cur = raw;
		p->window_end = now_us + EGR_DELAY_WINDOW_US;
	}
	if (seq_before(raw, p->base_cur)) {
		p->base_cur = raw;
	}
	base = seq_before(p->base_prev, p->base_cur) ? p->base_prev
						     : p->base_cur;
	q = seq_diff(raw, base);
	if (q < 0) {
		q = 0;
	}
	if ((uint32_t)q > p->qdelay_max) {
		p->qdelay_max = (uint32_t)q;
	}
	if (!p->qdelay_any || (uint32_t)q < p->qdelay_min) {
		p->qdelay_min = (uint32_t)q;
		p->qdelay_any = true;
	}
	return (uint32_t)q;
}

uint32_t egr_loss_report(struct egr_loss *l, struct wire_report *r)
{
	r->n = (uint8_t)l->n;
	for (unsigned i = 0; i < l->n; i++) {
		/* whole entries: the flags are the caller's to add */
		r->p[i] = (struct wire_report_path){
			.path = (uint8_t)i,
			.rx_pkts = l->p[i].rx,
			.lost_pkts = l->p[i].lost,
			.delay_us = l->p[i].qdelay_any ? l->p[i].qdelay_min : 0,
			.lseq_next = l->p[i].started ? l->p[i].next_lseq : 0,
		};
		l->p[i].qdelay_max = 0;
		l->p[i].qdelay_any = false;
	}
	return ++l->report_seq;
}
