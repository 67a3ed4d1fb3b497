/* SPDX-License-Identifier: BSD-2-Clause */
/* The adaptive reorder timeout (lto.h). */
#include "egress/lto.h"

#include "common/seq.h"

uint32_t egr_lto_target(const struct egr_loss *l, const struct egr_lto_path *p,
			unsigned npaths, uint32_t max_us)
{
	uint32_t s_min = UINT32_MAX, s_max = 0, var_max = 0, lo = 0, hi = 0;
	uint64_t spread = 0, t;
	bool any = false, have_lo = false;
	unsigned i;

	for (i = 0; i < npaths && i < l->n; i++) {
		const struct egr_lto_path *pp = &p[i];
		const struct egr_loss_path *lp = &l->p[i];

		if (!pp->up) {
			continue;
		}
		if (pp->rtt.samples) {
			const struct egr_rtt *r = &pp->rtt;

			any = true;
			s_min = r->srtt_us < s_min ? r->srtt_us : s_min;
			s_max = r->srtt_us > s_max ? r->srtt_us : s_max;
			var_max = r->rttvar_us > var_max ? r->rttvar_us
							 : var_max;
		}
		if (lp->have_base) {
			uint32_t base = seq_before(lp->base_prev, lp->base_cur)
						? lp->base_prev
						: lp->base_cur;
			uint32_t top = base + lp->qdelay_max;

			any = true;
			if (!have_lo) {
				lo = base;
				hi = top;
				have_lo = true;
			}
			lo = seq_before(base, lo) ? base : lo;
			hi = seq_before(hi, top) ? top : hi;
		}
	}
	if (!any) {
		return max_us;
	}
	if (s_max) {
		spread = (uint64_t)(s_max - s_min) / 2 + 2ULL * var_max;
	}
	if (have_lo && (uint64_t)(hi - lo) > spread) {
		spread = hi - lo;
	}
	t = spread + EGR_LTO_MARGIN_US;
	t = t < EGR_LTO_MIN_US ? EGR_LTO_MIN_US : t;
	return t < max_us ? (uint32_t)t : max_us;
}

uint32_t egr_lto_step(uint32_t cur, uint32_t target, uint32_t max_us)
{
	uint32_t want = target;

	if (want < cur) {
		want = cur - (cur - want + 7) / 8;
	}
	/* a reload may have lowered the ceiling below the current value */
	return want > max_us ? max_us : want;
}

void egr_rtt_sample(struct egr_rtt *r, uint32_t rtt_us)
{
	uint32_t d;

	if (!r->samples++) {
		r->srtt_us = rtt_us;
		r->rttvar_us = rtt_us / 2;
		return;
	}
	d = rtt_us > r->srtt_us ? rtt_us - r->srtt_us : r->srtt_us - rtt_us;
	r->rttvar_us = r->rttvar_us - r->rttvar_us / 4 + d / 4;
	r->srtt_us = r->srtt_us - r->srtt_us / 8 + rtt_us / 8;
}
