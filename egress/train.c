/* SPDX-License-Identifier: BSD-2-Clause */
/* The peer's packet train on one path (see train.h). */
#include "egress/train.h"

bool egr_train_rx(struct egr_train *r, const struct wire_train *t,
		  uint64_t at_us, uint64_t now_us, uint64_t rx_bytes,
		  uint64_t rx_pkts, uint32_t extra,
		  struct wire_train_ack *a)
{
	uint64_t b, dt;

	if (!r->on || r->id != t->id || t->idx <= r->last_idx) {
		uint64_t answered = r->answered_us;

		*r = (struct egr_train){.on = true, .id = t->id};
		r->answered_us = answered;
	}
	r->got++;
	r->last_idx = t->idx;
	r->untimed = r->untimed || at_us == 0;
	if (t->idx == t->count / 2) {
		r->have_mid = true;
		r->mid_us = at_us;
		r->mid_bytes = rx_bytes;
		r->mid_pkts = rx_pkts;
	}
	if (t->idx != t->count - 1) {
		return false;
	}
	r->on = false;
	if (r->answered_us && now_us - r->answered_us < EGR_TRAIN_ANSWER_GAP_US) {
		return false;
	}
	r->answered_us = now_us;
	*a = (struct wire_train_ack){
		.id = t->id,
		.got = r->got < t->count ? r->got : t->count,
		.count = t->count,
	};
	if (!r->have_mid || r->untimed || at_us <= r->mid_us) {
		return true;
	}
	/* what arrived after the middle packet, the last one's included (a
	 * packet lost before the line's bottleneck took no time there) */
	b = rx_bytes - r->mid_bytes - (rx_pkts - r->mid_pkts) * extra;
	dt = at_us - r->mid_us;
	a->bytes = b < UINT32_MAX ? (uint32_t)b : UINT32_MAX;
	a->dt_us = dt < UINT32_MAX ? (uint32_t)dt : UINT32_MAX;
	return true;
}
