/* SPDX-License-Identifier: BSD-2-Clause */
/* The failure detector of one path (see detect.h for the rules).
 *
 * Invariants: acked_next never passes sent_next; psent holds the send
 * times of the first min(pmiss, ING_DET_PROBE_MISSES) probes unanswered;
 * level is 0 outside a run of flaps and at most ING_DET_MAX_LEVEL.
 */
#include "ingress/detect.h"

#include <errno.h>

#include "common/seq.h"

void ing_detect_params_default(struct ing_detect_params *p,
			       uint32_t t_report_ms, uint32_t dead_after_ms,
			       uint32_t probe_ms)
{
	*p = (struct ing_detect_params){
		.t_report_ms = t_report_ms,
		.suspect_floor_ms = ING_DET_FLOOR_REPORTS * t_report_ms,
		.dead_after_ms = dead_after_ms,
		.probe_ms = probe_ms,
		.idle_probe_ms = ING_DET_IDLE_PROBE_MS,
		.idle_after_ms = ING_DET_IDLE_AFTER_MS,
		.flap_window_ms = ING_DET_FLAP_WINDOW_MS,
		.hold_base_ms = ING_DET_HOLD_BASE_MS,
		.hold_max_ms = ING_DET_HOLD_MAX_MS,
	};
}

int ing_detect_init(struct ing_detect *d, const struct ing_detect_params *p,
		    uint64_t now_us)
{
	if (!p->t_report_ms || !p->dead_after_ms || !p->probe_ms ||
	    !p->idle_probe_ms || !p->idle_after_ms || !p->flap_window_ms ||
	    !p->hold_base_ms || p->hold_base_ms > p->hold_max_ms) {
		return -EINVAL;
	}
	*d = (struct ing_detect){.p = *p,
				 .state = ING_DET_DOWN,
				 .last_answer_us = now_us};
	if (!d->p.suspect_floor_ms) {
		d->p.suspect_floor_ms = ING_DET_FLOOR_REPORTS * p->t_report_ms;
	}
	return 0;
}

void ing_detect_set_rtt(struct ing_detect *d, uint32_t srtt_us,
			uint32_t rttvar_us)
{
	d->srtt_us = srtt_us;
	d->rttvar_us = rttvar_us;
}

uint32_t ing_detect_ack_rtt_us(const struct ing_detect *d)
{
	return d->ack_max_us[0] > d->ack_max_us[1] ? d->ack_max_us[0]
						   : d->ack_max_us[1];
}

uint64_t ing_detect_timeout_us(const struct ing_detect *d)
{
	uint64_t floor = (uint64_t)d->p.suspect_floor_ms * 1000;
	uint32_t ack = ing_detect_ack_rtt_us(d);
	uint64_t rtt = (uint64_t)d->p.t_report_ms * 1000 +
		       (ack > d->srtt_us ? ack : d->srtt_us) +
		       4 * (uint64_t)d->rttvar_us;

	return rtt > floor ? rtt : floor;
}

static uint32_t unacked(const struct ing_detect *d)
{
	return d->have_sent ? d->sent_next - d->acked_next : 0;
}

static uint64_t hold_us(const struct ing_detect *d)
{
	uint64_t ms = (uint64_t)d->p.hold_base_ms << (d->level - 1);

	return (ms < d->p.hold_max_ms ? ms : d->p.hold_max_ms) * 1000;
}

static enum ing_det_event enter_up(struct ing_detect *d, uint64_t now_us)
{
	/* the first UP is no recovery, and opens no flap window */
	if (d->have_up) {
		d->st.recovered++;
		d->back_us = now_us;
		d->have_back = true;
	}
	d->state = ING_DET_UP;
	d->have_up = true;
	return ING_DET_EV_UP;
}

/* A flap: SUSPECT again soon after coming back, or while proving itself
 * in HOLD. */
static enum ing_det_event enter_suspect(struct ing_detect *d, uint64_t now_us,
					uint64_t *by)
{
	bool flap = d->state == ING_DET_HOLD ||
		    (d->have_back &&
		     now_us - d->back_us < (uint64_t)d->p.flap_window_ms * 1000);

	if (flap) {
		d->st.flaps++;
		if (d->level < ING_DET_MAX_LEVEL) {
			d->level++;
		}
	} else {
		d->level = 0;
	}
	d->state = ING_DET_SUSPECT;
	d->st.suspect++;
	(*by)++;
	/* the in-flight store owns what was unacknowledged */
	d->acked_next = d->sent_next;
	return ING_DET_EV_SUSPECT;
}

static enum ing_det_event answer(struct ing_detect *d, uint64_t now_us)
{
	d->last_answer_us = now_us;
	d->pmiss = 0;
	if (d->state != ING_DET_SUSPECT && d->state != ING_DET_DOWN) {
		return ING_DET_EV_NONE;
	}
	if (d->level == 0) {
		return enter_up(d, now_us);
	}
	d->state = ING_DET_HOLD;
	d->hold_until_us = now_us + hold_us(d);
	d->st.holddown++;
	return ING_DET_EV_HOLD;
}

void ing_detect_sent(struct ing_detect *d, uint32_t lseq, uint64_t now_us)
{
	if (!d->have_sent) {
		d->have_sent = true;
		d->sent_next = d->acked_next = lseq;
	}
	if (unacked(d) == 0) {
		d->wait_us = now_us;
	}
	if (d->nmarks == 0 ||
	    now_us - d->mark[(d->nmarks - 1) % ING_DET_MARKS].us >=
		    ING_DET_MARK_US) {
		d->mark[d->nmarks % ING_DET_MARKS].lseq = lseq;
		d->mark[d->nmarks % ING_DET_MARKS].us = now_us;
		d->nmarks++;
	}
	if (seq_after(lseq + 1, d->sent_next)) {
		d->sent_next = lseq + 1;
	}
	d->last_data_us = now_us;
}

/* When the packet lseq (sent, not yet acknowledged) was sent, or a little
 * later: the time of the oldest mark at or after it; none (it came after
 * the newest mark, within ING_DET_MARK_US of it): the last send. */
static uint64_t sent_at(const struct ing_detect *d, uint32_t lseq)
{
	uint32_t n = d->nmarks < ING_DET_MARKS ? d->nmarks : ING_DET_MARKS;
	uint32_t i;

	for (i = d->nmarks - n; i != d->nmarks; i++) {
		if (!seq_after(lseq, d->mark[i % ING_DET_MARKS].lseq)) {
			return d->mark[i % ING_DET_MARKS].us;
		}
	}
	return d->last_data_us;
}

/* A sample of the acknowledgements' round trip: now less the send time of
 * lseq, the newest packet acknowledged, taken from the newest mark at or
 * before it (a little early: the sample is a little long, never short);
 * none when it is older than the marks. */
static void ack_sample(struct ing_detect *d, uint32_t lseq, uint64_t now_us)
{
	uint32_t n = d->nmarks < ING_DET_MARKS ? d->nmarks : ING_DET_MARKS;
	uint32_t i;
	uint64_t rtt;

	for (i = d->nmarks; i != d->nmarks - n; i--) {
		if (!seq_after(d->mark[(i - 1) % ING_DET_MARKS].lseq, lseq)) {
			break;
		}
	}
	if (i == d->nmarks - n) {
		return;
	}
	rtt = now_us - d->mark[(i - 1) % ING_DET_MARKS].us;
	if (now_us - d->ack_bucket_us >= ING_DET_ACK_BUCKET_US) {
		/* a bucket older than the last one is forgotten */
		d->ack_max_us[1] = now_us - d->ack_bucket_us <
						   2 * ING_DET_ACK_BUCKET_US
					   ? d->ack_max_us[0]
					   : 0;
		d->ack_max_us[0] = 0;
		d->ack_bucket_us = now_us;
	}
	if (rtt > d->ack_max_us[0]) {
		d->ack_max_us[0] = rtt > UINT32_MAX ? UINT32_MAX
						    : (uint32_t)rtt;
	}
}

enum ing_det_event ing_detect_acked(struct ing_detect *d, uint32_t lseq_next,
				    uint64_t now_us)
{
	if (!d->have_sent || !seq_after(lseq_next, d->acked_next) ||
	    seq_after(lseq_next, d->sent_next)) {
		return ING_DET_EV_NONE;
	}
	ack_sample(d, lseq_next - 1, now_us);
	d->acked_next = lseq_next;
	d->wait_us = sent_at(d, lseq_next);
	return answer(d, now_us);
}

void ing_detect_probe_sent(struct ing_detect *d, uint64_t now_us)
{
	if (d->pmiss < ING_DET_PROBE_MISSES) {
		d->psent[d->pmiss] = now_us;
	}
	if (d->pmiss < UINT32_MAX) {
		d->pmiss++;
	}
}

enum ing_det_event ing_detect_answered(struct ing_detect *d, uint64_t now_us)
{
	return answer(d, now_us);
}

/* When the data rule fires (false: it cannot yet). */
static bool data_due(const struct ing_detect *d, uint64_t *at)
{
	if (unacked(d) < ING_DET_MIN_UNACKED || d->alone) {
		return false;
	}
	*at = d->wait_us + ing_detect_timeout_us(d);
	return true;
}

/* When the probe rule fires: in HOLD one miss is enough. */
static bool probe_due(const struct ing_detect *d, uint64_t *at)
{
	uint32_t need = d->state == ING_DET_HOLD ? 1 : ING_DET_PROBE_MISSES;

	if (d->pmiss < need) {
		return false;
	}
	*at = d->psent[need - 1] + ing_detect_timeout_us(d);
	return true;
}

enum ing_det_event ing_detect_tick(struct ing_detect *d, uint64_t now_us)
{
	uint64_t at;

	switch (d->state) {
	case ING_DET_UP:
	case ING_DET_HOLD:
		if (data_due(d, &at) && now_us >= at) {
			return enter_suspect(d, now_us, &d->st.by_data);
		}
		if (probe_due(d, &at) && now_us >= at) {
			return enter_suspect(d, now_us, &d->st.by_probe);
		}
		if (d->state == ING_DET_HOLD && now_us >= d->hold_until_us) {
			return enter_up(d, now_us);
		}
		break;
	case ING_DET_SUSPECT:
		if (now_us - d->last_answer_us >=
		    (uint64_t)d->p.dead_after_ms * 1000) {
			d->state = ING_DET_DOWN;
			d->st.down++;
			return ING_DET_EV_DOWN;
		}
		break;
	case ING_DET_DOWN:
		break;
	}
	return ING_DET_EV_NONE;
}

void ing_detect_set_alone(struct ing_detect *d, bool alone)
{
	d->alone = alone;
}

void ing_detect_mark_alone(struct ing_detect *const *d, unsigned n)
{
	unsigned i, j;

	for (i = 0; i < n; i++) {
		bool other = false;

		for (j = 0; j < n && !other; j++) {
			other = j != i && ing_detect_usable(d[j]);
		}
		ing_detect_set_alone(d[i], !other);
	}
}

static void earliest(bool *any, uint64_t *when, uint64_t at)
{
	if (!*any || at < *when) {
		*when = at;
	}
	*any = true;
}

bool ing_detect_deadline(const struct ing_detect *d, uint64_t *when_us)
{
	bool any = false;
	uint64_t at;

	switch (d->state) {
	case ING_DET_UP:
	case ING_DET_HOLD:
		if (data_due(d, &at)) {
			earliest(&any, when_us, at);
		}
		if (probe_due(d, &at)) {
			earliest(&any, when_us, at);
		}
		if (d->state == ING_DET_HOLD) {
			earliest(&any, when_us, d->hold_until_us);
		}
		break;
	case ING_DET_SUSPECT:
		earliest(&any, when_us,
			 d->last_answer_us + (uint64_t)d->p.dead_after_ms * 1000);
		break;
	case ING_DET_DOWN:
		break;
	}
	return any;
}

void ing_detect_data_in(struct ing_detect *d, uint64_t now_us)
{
	d->have_in = true;
	d->last_in_us = now_us;
}

bool ing_detect_quiet(const struct ing_detect *d, uint64_t now_us)
{
	uint64_t after = (uint64_t)d->p.idle_after_ms * 1000;

	return (!d->have_sent || now_us - d->last_data_us >= after) &&
	       (!d->have_in || now_us - d->last_in_us >= after);
}

bool ing_detect_idle(const struct ing_detect *d, uint64_t now_us)
{
	return d->state == ING_DET_UP &&
	       (d->pmiss == 0 ||
		(d->pmiss == 1 &&
		 now_us < d->psent[0] + ing_detect_timeout_us(d))) &&
	       ing_detect_quiet(d, now_us);
}

uint32_t ing_detect_busy_probe_ms(const struct ing_detect *d)
{
	uint32_t ms = d->p.probe_ms;

	if (d->state == ING_DET_SUSPECT) {
		ms /= ING_DET_SUSPECT_PROBE_DIV;
	}
	return ms ? ms : 1;
}

uint32_t ing_detect_probe_interval(const struct ing_detect *d,
				   uint64_t now_us)
{
	return ing_detect_idle(d, now_us) ? d->p.idle_probe_ms
					  : ing_detect_busy_probe_ms(d);
}

void ing_detect_reset_seq(struct ing_detect *d)
{
	d->have_sent = false;
	d->sent_next = d->acked_next = 0;
	d->nmarks = 0;
	d->ack_max_us[0] = d->ack_max_us[1] = 0;
}

enum ing_det_event ing_detect_forget_flaps(struct ing_detect *d,
					   uint64_t now_us)
{
	enum ing_det_event ev = ING_DET_EV_NONE;

	if (d->state == ING_DET_HOLD) {
		ev = enter_up(d, now_us);
	}
	/* no flap window open: the next suspect starts at level 0 */
	d->level = 0;
	d->have_back = false;
	return ev;
}

enum ing_det_event ing_detect_peer_restarted(struct ing_detect *d,
					     uint64_t now_us)
{
	ing_detect_reset_seq(d);
	return ing_detect_forget_flaps(d, now_us);
}

const char *ing_detect_state_name(enum ing_det_state s)
{
	switch (s) {
	case ING_DET_UP:
		return "up";
	case ING_DET_SUSPECT:
		return "suspect";
	case ING_DET_DOWN:
		return "down";
	case ING_DET_HOLD:
		return "hold";
	}
	return "?";
}
