/* The ingress scheduler: smooth WRR with the paper's adaptive mobile weight.
 *
 * Weight adaptation runs once per applied report (AWI/IWI on fixed-path
 * loss, DWD after t_dwd_ms without loss); picking is nginx's smooth weighted
 * round robin, which spreads each path's share evenly over the cycle
 * instead of sending w packets in a burst.  See sched.h for the invariants.
 */
#include "ingress/sched.h"

#include <errno.h>
#include <math.h>

#include "common/seq.h"

static bool params_ok(const struct ing_sched_params *p)
{
	return isfinite(p->k) && p->k >= 0 && isfinite(p->w_fixed) &&
	       p->w_fixed > 0 && isfinite(p->w_mobile_max) &&
	       p->w_mobile_max >= 0 && p->t_report_ms > 0 &&
	       p->t_dwd_ms % p->t_report_ms == 0;
}

int ing_sched_init(struct ing_sched *s, const struct ing_sched_params *p,
		   unsigned n, const enum path_class *cls)
{
	if (!params_ok(p) || n == 0 || n > WIRE_MAX_PATHS) {
		return -EINVAL;
	}
	*s = (struct ing_sched){.p = *p, .n = n};
	for (unsigned i = 0; i < n; i++) {
		if (cls[i] != PATH_FIXED && cls[i] != PATH_MOBILE) {
			return -EINVAL;
		}
		s->path[i].cls = cls[i];
		s->path[i].up = true;
	}
	return 0;
}

int ing_sched_set_params(struct ing_sched *s, const struct ing_sched_params *p)
{
	if (!params_ok(p)) {
		return -EINVAL;
	}
	s->p = *p;
	if (s->w_mobile > p->w_mobile_max) {
		s->w_mobile = p->w_mobile_max;
	}
	return 0;
}

void ing_sched_set_up(struct ing_sched *s, unsigned path, bool up)
{
	if (path >= s->n) {
		return;
	}
	s->path[path].up = up;
	if (!up) {
		s->path[path].cur = 0;
	}
}

/* Paths up, per class. */
static void count_up(const struct ing_sched *s, unsigned up[2])
{
	up[PATH_FIXED] = up[PATH_MOBILE] = 0;
	for (unsigned i = 0; i < s->n; i++) {
		if (s->path[i].up) {
			up[s->path[i].cls]++;
		}
	}
}

static double weight(const struct ing_sched *s, unsigned path,
		     const unsigned up[2])
{
	const struct ing_sched_path *p = &s->path[path];

	if (!p->up) {
		return 0;
	}
	if (p->cls == PATH_FIXED) {
		return s->p.w_fixed;
	}
	/* Without a fixed path the mobile ones carry everything, evenly. */
	if (up[PATH_FIXED] == 0) {
		return 1.0;
	}
	return s->w_mobile / up[PATH_MOBILE];
}

double ing_sched_weight(const struct ing_sched *s, unsigned path)
{
	unsigned up[2];

	if (path >= s->n) {
		return 0;
	}
	count_up(s, up);
	return weight(s, path, up);
}

int ing_sched_pick(struct ing_sched *s, struct wire_hdr *h)
{
	double w[WIRE_MAX_PATHS], total = 0;
	int best = -1;
	struct ing_sched_path *p;
	unsigned up[2];
	uint64_t gap;

	count_up(s, up);
	for (unsigned i = 0; i < s->n; i++) {
		w[i] = weight(s, i, up);
		total += w[i];
	}
	if (total <= 0) {
		s->st.no_path++;
		return -ENETDOWN;
	}
	for (unsigned i = 0; i < s->n; i++) {
		if (w[i] <= 0) {
			s->path[i].cur = 0;
			continue;
		}
		s->path[i].cur += w[i];
		if (best < 0 || s->path[i].cur > s->path[best].cur) {
			best = (int)i;
		}
	}
	p = &s->path[best];
	p->cur -= total;

	/* counted in 64 bits: a path idle for 2^32 + k picks must not send
	 * pgap k */
	gap = s->picks - p->last_pick;
	h->path = (uint8_t)best;
	h->gseq = s->gseq;
	h->lseq = p->lseq++;
	h->pgap = p->sent_any && gap <= UINT16_MAX ? (uint16_t)gap : 0;
	p->last_gseq = s->gseq++;
	p->last_pick = s->picks++;
	p->sent_any = true;
	p->sent++;
	if (p->cls == PATH_FIXED) {
		s->fixed_sent++;
	}
	return best;
}

/* The largest queueing delay a fixed path reported.  Reports of unknown
 * paths are ignored. */
static uint32_t fixed_qdelay(const struct ing_sched *s,
			     const struct wire_report *r)
{
	uint32_t q = 0;

	for (unsigned i = 0; i < r->n; i++) {
		if (r->p[i].path < s->n &&
		    s->path[r->p[i].path].cls == PATH_FIXED &&
		    r->p[i].delay_us > q) {
			q = r->p[i].delay_us;
		}
	}
	return q;
}

/* Loss on the fixed paths since the last report, from cumulative counters.
 * The first report of a path only sets its baseline; a counter that went
 * backwards (peer egress restarted) resets it. */
static uint64_t fixed_loss(struct ing_sched *s, const struct wire_report *r)
{
	uint64_t lost = 0; /* 16 deltas of up to 2^31 each: no wrap */

	for (unsigned i = 0; i < r->n; i++) {
		const struct wire_report_path *e = &r->p[i];
		struct ing_sched_path *p;
		int32_t d;

		if (e->path >= s->n) {
			continue;
		}
		p = &s->path[e->path];
		d = seq_diff(e->lost_pkts, p->rep_lost);
		if (p->have_report && d > 0 && p->cls == PATH_FIXED) {
			lost += (uint32_t)d;
		}
		p->have_report = true;
		p->rep_lost = e->lost_pkts;
	}
	return lost;
}

void ing_sched_on_report(struct ing_sched *s, uint32_t seq,
			 const struct wire_report *r)
{
	uint64_t lost;

	if (s->have_report_seq && !seq_after(seq, s->report_seq)) {
		s->st.stale_reports++;
		return;
	}
	s->have_report_seq = true;
	s->report_seq = seq;
	s->st.reports++;

	lost = fixed_loss(s, r);
	if (lost > 0) {
		if (s->w_mobile == 0) {
			/* IWI: congestion is just arising, react at once. */
			s->w_mobile += (double)lost;
			s->st.iwi++;
		} else {
			double ratio = 1;

			if (s->fixed_sent > 0 && lost < s->fixed_sent) {
				ratio = (double)lost / s->fixed_sent;
			}
			s->w_mobile += s->p.k * ratio * s->p.w_fixed; /* AWI */
			s->st.awi++;
		}
		if (s->w_mobile > s->p.w_mobile_max) {
			s->w_mobile = s->p.w_mobile_max;
		}
		s->quiet_reports = 0;
	} else {
		/* DWD: only after t_dwd_ms without loss, one step a report. */
		if (s->quiet_reports < UINT32_MAX) {
			s->quiet_reports++;
		}
		if (s->quiet_reports <= s->p.t_dwd_ms / s->p.t_report_ms ||
		    s->w_mobile <= 0) {
			/* not yet, or nothing to take back */
		} else if (s->p.dwd_hold_us &&
			   fixed_qdelay(s, r) > s->p.dwd_hold_us) {
			s->st.dwd_held++;
		} else {
			s->w_mobile = s->w_mobile > 1 ? s->w_mobile - 1 : 0;
			s->st.dwd++;
		}
	}
	s->fixed_sent = 0;
}

void ing_sched_peer_restarted(struct ing_sched *s)
{
	for (unsigned i = 0; i < s->n; i++) {
		s->path[i].have_report = false;
	}
	s->have_report_seq = false;
	s->fixed_sent = 0;
	s->quiet_reports = 0;
}

void ing_sched_reset_seq(struct ing_sched *s, uint32_t gseq0)
{
	s->gseq = gseq0;
	for (unsigned i = 0; i < s->n; i++) {
		struct ing_sched_path *p = &s->path[i];

		p->lseq = 0;
		p->sent_any = false;
		p->have_report = false;
	}
	s->have_report_seq = false;
	s->fixed_sent = 0;
	s->quiet_reports = 0;
}
