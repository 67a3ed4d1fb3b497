/* SPDX-License-Identifier: BSD-2-Clause */
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
#include <string.h>

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
		if ((unsigned)cls[i] >= PATH_NCLASS) {
			return -EINVAL;
		}
		s->path[i].cls = s->path[i].cfg_cls = cls[i];
		s->path[i].up = true;
	}
	return 0;
}

/* The pace of a path: the lower of its configured and learned rates. */
static void set_pace(struct ing_sched_path *p)
{
	double r = p->cfg_Bps;

	if (p->learn_Bps > 0 && (r <= 0 || p->learn_Bps < r)) {
		r = p->learn_Bps;
	}
	p->rate_Bps = r;
	if (r <= 0) {
		p->owed = 0;
	}
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
	if (!p->rate_auto || !p->queue_target_us) {
		for (unsigned i = 0; i < s->n; i++) {
			s->path[i].learn_Bps = 0;
			s->path[i].probe_hist = 0;
			set_pace(&s->path[i]);
		}
	}
	return 0;
}

/* A path is used when it is neither down nor suspect; one that is not
 * loses its credit at once, and the episode its rate was being measured
 * from (what it delivered once we stopped feeding it is not its rate). */
static void set_usable(struct ing_sched_path *p)
{
	p->up = !p->down && !p->suspect;
	if (!p->up) {
		p->cur = 0;
		p->ep_n = 0;
	}
}

void ing_sched_set_up(struct ing_sched *s, unsigned path, bool up)
{
	if (path >= s->n) {
		return;
	}
	s->path[path].down = !up;
	set_usable(&s->path[path]);
}

void ing_sched_set_suspect(struct ing_sched *s, unsigned path, bool suspect)
{
	struct ing_sched_path *p;

	if (path >= s->n) {
		return;
	}
	p = &s->path[path];
	/* a backup path carries only while the others do not: its loss
	 * says nothing of their weights */
	if (suspect && !p->suspect && p->cls != PATH_BACKUP) {
		/* what it carried until now may be lost at the cut */
		p->forgive = true;
		p->forgive_to = p->lseq;
		p->freeze_left = ING_FREEZE_MS / s->p.t_report_ms;
		if (p->freeze_left == 0) {
			p->freeze_left = 1;
		}
	}
	p->suspect = suspect;
	set_usable(p);
}

void ing_sched_set_backup(struct ing_sched *s, unsigned path, bool backup)
{
	struct ing_sched_path *p;
	enum path_class cls;

	if (path >= s->n) {
		return;
	}
	p = &s->path[path];
	cls = backup ? PATH_BACKUP : p->cfg_cls;
	if (cls != p->cls) {
		/* learn_rates skipped it meanwhile: its counts at the last
		 * report it took are stale, the next only sets them again
		 * (not consecutive: learn_rate) */
		p->have_rx = false;
		p->ep_n = 0;
	}
	p->cls = cls;
	p->cur = 0;
}

/* While a path is suspect, down or held after flapping, the reports
 * describe a bond that lost a path, not the load: the weight waits, so
 * that it is where it was when the path comes back (let move during a 3-s
 * DSL cut, w_mobile rose from 20 to 32 and the LTE lost 250-380 packets
 * after the heal: failover.sh case b).  For ING_FREEZE_MS at most: a line
 * down for a day must not freeze the weights of the others for a day. */
static bool frozen(struct ing_sched *s)
{
	bool any = false;

	for (unsigned i = 0; i < s->n; i++) {
		struct ing_sched_path *p = &s->path[i];

		if (p->suspect && p->freeze_left > 0) {
			p->freeze_left--;
			any = true;
		}
	}
	if (any) {
		s->st.frozen++;
	}
	return any;
}

/* The loss d that a report shows for path p, less what the cut that made
 * it suspect lost (0 while that is forgiven): neither the weights
 * (fixed_loss) nor the pace (learn_rate, before it) take it. */
static int32_t cut_free(const struct ing_sched_path *p, int32_t d)
{
	return p->forgive && d > 0 ? 0 : d;
}

/* cut_free, counted: the egress counts the cut's gap when the first
 * packet after it arrives, so the report whose lseq_next reaches
 * forgive_to is the last one that can hold it. */
static int32_t forgive(struct ing_sched *s, struct ing_sched_path *p,
		       const struct wire_report_path *e, int32_t d)
{
	int32_t kept = cut_free(p, d);

	s->st.forgiven += (uint32_t)(d - kept);
	if (p->forgive && !seq_before(e->lseq_next, p->forgive_to)) {
		p->forgive = false;
	}
	return kept;
}

/* Paths up, per class. */
static void count_up(const struct ing_sched *s, unsigned up[PATH_NCLASS])
{
	up[PATH_FIXED] = up[PATH_MOBILE] = up[PATH_BACKUP] = 0;
	for (unsigned i = 0; i < s->n; i++) {
		if (s->path[i].up) {
			up[s->path[i].cls]++;
		}
	}
}

static double weight(const struct ing_sched *s, unsigned path,
		     const unsigned up[PATH_NCLASS])
{
	const struct ing_sched_path *p = &s->path[path];

	if (!p->up) {
		return 0;
	}
	if (p->cls == PATH_BACKUP) {
		/* only while no other path is up, evenly */
		return up[PATH_FIXED] + up[PATH_MOBILE] ? 0 : 1.0;
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
	unsigned up[PATH_NCLASS];

	if (path >= s->n) {
		return 0;
	}
	count_up(s, up);
	return weight(s, path, up);
}

/* The WRR choice: the path index, or -1 if no path is up. */
static int wrr(struct ing_sched *s)
{
	double w[WIRE_MAX_PATHS], total = 0;
	int best = -1;
	unsigned up[PATH_NCLASS];

	count_up(s, up);
	for (unsigned i = 0; i < s->n; i++) {
		w[i] = weight(s, i, up);
		total += w[i];
	}
	if (total <= 0) {
		return -1;
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
	s->path[best].cur -= total;
	return best;
}

/* The path that is up with the lowest delay (ties: the first), or -1; a
 * backup path only while no other is up. */
static int lowest_delay(const struct ing_sched *s)
{
	unsigned up[PATH_NCLASS];
	int best = -1;

	count_up(s, up);
	for (unsigned i = 0; i < s->n; i++) {
		if (weight(s, i, up) > 0 &&
		    (best < 0 || s->path[i].delay_us < s->path[best].delay_us)) {
			best = (int)i;
		}
	}
	return best;
}

int ing_sched_lowest_delay(const struct ing_sched *s)
{
	return lowest_delay(s);
}

/* Packet of path best: its global and local sequence numbers and pgap. */
static void consume(struct ing_sched *s, int best, struct wire_hdr *h)
{
	struct ing_sched_path *p = &s->path[best];
	/* counted in 64 bits: a path idle for 2^32 + k picks must not send
	 * pgap k */
	uint64_t gap = s->picks - p->last_pick;

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
}

int ing_sched_pick(struct ing_sched *s, struct wire_hdr *h)
{
	int best = wrr(s);

	if (best < 0) {
		s->st.no_path++;
		return -ENETDOWN;
	}
	consume(s, best, h);
	return best;
}

/* A paced path's bucket size, bytes: ING_PACE_BURST_US of its rate, at
 * least ING_PACE_BURST_MIN. */
static double pace_depth(const struct ing_sched_path *p)
{
	double depth = p->rate_Bps * ING_PACE_BURST_US / 1e6;

	return depth < ING_PACE_BURST_MIN ? ING_PACE_BURST_MIN : depth;
}

/* Path p carries a packet of len bytes (the tunnel's bytes on the line):
 * the rate it delivers counts it (rate_auto), and a paced path's bucket
 * pays for it, into debt if it must (a sparse packet, a repair, a copy:
 * the bulk waits), but not beyond a bucket deep: what goes on a paced
 * path with nowhere to overflow (no mobile path up) or a redundant class
 * over the pace must not leave a debt that starves it once that ends (a
 * queue owed, learn_rate, is paid apart: owed). */
static void carry(struct ing_sched_path *p, uint32_t len)
{
	uint32_t line = len + WIRE_OVERHEAD;

	if (p->rate_Bps > 0 && p->tokens > -pace_depth(p)) {
		p->tokens -= line;
	}
	p->tx_bytes += line;
	p->tx_pkts++;
}

/* Refills the token buckets of the paced paths; true if one is up and
 * its pace holds (not lossy: learn_rate). */
static bool refill(struct ing_sched *s, uint64_t now_us)
{
	bool any = false;

	for (unsigned i = 0; i < s->n; i++) {
		struct ing_sched_path *p = &s->path[i];
		double depth;

		if (p->rate_Bps <= 0) {
			continue;
		}
		depth = pace_depth(p);
		if (!p->tok_any) {
			/* the first refill starts the clock: the bucket
			 * fills from empty (no burst into a line that may
			 * hold a queue already) */
			p->tok_any = true;
		} else if (now_us > p->tok_us) {
			double add = p->rate_Bps * ING_PACE_PERMILLE / 1000 *
				     (double)(now_us - p->tok_us) / 1e6;
			double pay = add / ING_DEBT_DIV;

			if (p->owed > 0) {
				pay = pay < p->owed ? pay : p->owed;
				p->owed -= pay;
				add -= pay;
			}
			p->tokens += add;
			p->credit += add;
		}
		p->tok_us = now_us;
		if (p->tokens >= depth) {
			p->tokens = depth;
			p->filled = true;
		}
		any = any || (p->up && p->cls == PATH_FIXED && !p->lossy_left);
	}
	return any;
}

/* Whether the bulk packet that would overflow to mobile path p at now_us
 * is dropped instead: the overflow's AQM, CoDel's control law (RFC 8289)
 * on the standing queue the peer reports for p, its target mobile_aqm_us
 * (aqm_over).
 * The mobile path is not paced: a loss-based sender (cubic) fills its
 * buffer with the overflow until its lag passes the egress's reorder
 * timeout, and the egress then releases the fixed path's packets past
 * the mobile path's holes (12 700-129 000 packets given up late and
 * 37-4 064 retransmits, most spurious, in a 30-s download at 100-200 ms
 * link buffers).  A drop here tells the sender before that, as a queue
 * of its own would, and costs no sequence number: the peer sees no hole.
 * The first drop comes with the first report over the target, not after
 * CoDel's interval over it: a report's queue is already the smallest of
 * its interval, and that queue swings (the resequencer's releases make
 * the sender's bursts): 8 to 71 ms from one report to the next under a
 * single cubic download, never over 50 ms for two reports in a row, so
 * that with the interval the first drop came after 16 s and 8 000 late
 * packets; without it, 34-229 late in 30 s.
 * Only bulk packets get here: sparse flows take the lowest-delay path,
 * copies and fragments after the first take theirs. */
static bool aqm_drop(struct ing_sched *s, struct ing_sched_path *p,
		     uint64_t now_us)
{
	uint32_t delta;

	if (!p->aqm_over || !s->p.mobile_aqm_us) {
		return false;
	}
	if (p->aqm_dropping) {
		if (now_us < p->aqm_next_us) {
			return false;
		}
		p->aqm_count++;
	} else {
		/* taken up again soon after the last dropping state: near
		 * the drop rate that ended it */
		delta = p->aqm_count - p->aqm_last;
		/* (signed: before the drop the last state had next counts
		 * as soon) */
		p->aqm_count = delta > 1 && (int64_t)(now_us - p->aqm_next_us) <
				(int64_t)ING_AQM_REENTER * ING_AQM_INTERVAL_US
				       ? delta
				       : 1;
		p->aqm_last = p->aqm_count;
		p->aqm_dropping = true;
	}
	/* from now, not from when the drop was due (RFC 8289's
	 * drop_next): the overflow may have paused meanwhile, and CoDel's
	 * catching up would drop a burst of it at once */
	p->aqm_next_us = now_us + (uint64_t)(ING_AQM_INTERVAL_US /
					     sqrt((double)p->aqm_count));
	s->st.aqm_drops++;
	return true;
}

/* A bulk packet of len bytes with paced fixed paths: the first that is up
 * and has the tokens, else the mobile paths that are up in turn (the one
 * after the last overflow's: not the one that carried least since start,
 * which gave every overflow to a second LTE back from an hour down, its
 * buffer overflowing, until its count caught up), else (no mobile path,
 * or w_mobile_max 0) the first paced path up, which queues it.  With the
 * overflow's AQM (aqm, at now_us) a mobile path whose queue is over its
 * bound is passed over for one that is not; when all are, -ENOBUFS: the
 * AQM drops it (aqm_drop). */
static int paced(struct ing_sched *s, uint32_t len, bool aqm, uint64_t now_us)
{
	len += WIRE_OVERHEAD;
	int first = -1, mob = -1;

	for (unsigned i = 0; i < s->n; i++) {
		struct ing_sched_path *p = &s->path[i];

		if (p->up && p->cls == PATH_FIXED && p->rate_Bps > 0 &&
		    !p->lossy_left) {
			if (p->tokens >= len) {
				s->st.paced++;
				return (int)i;
			}
			if (first < 0) {
				first = (int)i;
			}
		}
	}
	for (unsigned k = 1; k <= s->n; k++) {
		unsigned i = (s->ovf_last + k) % s->n;
		const struct ing_sched_path *p = &s->path[i];

		if (!p->up || p->cls != PATH_MOBILE) {
			continue;
		}
		if (mob < 0) {
			mob = (int)i; /* all over the bound: the first in turn */
		}
		if (!aqm || !s->p.mobile_aqm_us || !p->aqm_over) {
			mob = (int)i;
			break;
		}
	}
	if (mob >= 0 && s->p.w_mobile_max > 0) {
		s->ovf_last = (unsigned)mob;
		/* the pace holds bulk back (ing_sched_on_report probes) */
		for (unsigned i = 0; i < s->n; i++) {
			if (s->path[i].cls == PATH_FIXED && s->path[i].rate_Bps > 0) {
				s->path[i].limited = true;
			}
		}
		if (aqm && aqm_drop(s, &s->path[mob], now_us)) {
			return -ENOBUFS;
		}
		s->st.overflow++;
		return mob;
	}
	return first;
}

/* ing_sched_pick_flow, ing_sched_pick_flow_on and ing_sched_pick_sticky:
 * force, when it is a path that is up, takes the packet whatever the
 * weights and the pace; sticky, the flow's own path while it is up (else
 * a bulk packet's pick, kept as the flow's path). */
static int pick_flow(struct ing_sched *s, struct wire_hdr *h, uint32_t hash,
		     uint32_t len, uint64_t now_us, int force, bool sticky)
{
	struct ing_flow *b;
	bool sparse, pace;
	int best;

	b = ing_flow_note(&s->flows, hash, len, now_us, &sparse);
	if (b->tag != hash) {
		s->st.flows_shared++;
	}
	pace = refill(s, now_us);
	sparse = sparse && !sticky;
	if (force >= 0 && (unsigned)force < s->n && s->path[force].up) {
		best = force;
	} else if (sticky && b->path && b->path <= s->n &&
		   s->path[b->path - 1].up) {
		best = b->path - 1;
	} else if (sparse) {
		best = lowest_delay(s);
	} else {
		best = pace ? paced(s, len, true, now_us) : wrr(s);
	}
	if (best == -ENOBUFS) {
		return best;
	}
	if (best < 0) {
		s->st.no_path++;
		return -ENETDOWN;
	}
	if (sparse) {
		s->st.sparse++;
	}
	if (sticky) {
		if (!b->path) {
			s->st.flow_starts++;
		} else if (b->path != best + 1) {
			s->st.flow_moves++;
		}
		b->path = (uint8_t)(best + 1);
	}
	carry(&s->path[best], len);
	consume(s, best, h);
	ing_flow_sent(b, h->gseq, &h->fgap, &h->flags);
	return best;
}

int ing_sched_pick_flow(struct ing_sched *s, struct wire_hdr *h,
			uint32_t hash, uint32_t len, uint64_t now_us)
{
	return pick_flow(s, h, hash, len, now_us, -1, false);
}

int ing_sched_pick_flow_on(struct ing_sched *s, struct wire_hdr *h,
			   uint32_t hash, uint32_t len, uint64_t now_us,
			   int path)
{
	return pick_flow(s, h, hash, len, now_us, path, false);
}

int ing_sched_pick_sticky(struct ing_sched *s, struct wire_hdr *h,
			  uint32_t hash, uint32_t len, uint64_t now_us)
{
	return pick_flow(s, h, hash, len, now_us, -1, true);
}

/* ing_sched_pick_resend and ing_sched_pick_repair: a copy on the path
 * a bulk packet would take, or (repair) on the lowest-delay path into
 * debt as a sparse packet. */
static int pick_again(struct ing_sched *s, struct wire_hdr *h, uint32_t len,
		      uint64_t now_us, bool repair)
{
	struct ing_sched_path *p;
	bool pace = refill(s, now_us);
	int best = repair ? lowest_delay(s)
		   : pace ? paced(s, len, false, now_us)
			  : wrr(s);

	if (best < 0) {
		s->st.no_path++;
		return -ENETDOWN;
	}
	p = &s->path[best];
	carry(p, len);
	h->path = (uint8_t)best;
	h->lseq = p->lseq++;
	h->pgap = 0;
	h->flags |= WIRE_F_RESENT;
	/* the next packet's pgap would name the copy's old gseq */
	p->sent_any = false;
	p->sent++;
	if (repair) {
		s->st.repaired++;
	} else {
		s->st.resent++;
	}
	return best;
}

int ing_sched_pick_resend(struct ing_sched *s, struct wire_hdr *h,
			  uint32_t len, uint64_t now_us)
{
	return pick_again(s, h, len, now_us, false);
}

int ing_sched_pick_repair(struct ing_sched *s, struct wire_hdr *h,
			  uint32_t len, uint64_t now_us)
{
	return pick_again(s, h, len, now_us, true);
}

int ing_sched_pick_copy(struct ing_sched *s, struct wire_hdr *h,
			unsigned path, uint32_t len)
{
	struct ing_sched_path *p;

	if (path >= s->n || !s->path[path].up) {
		return -ENETDOWN;
	}
	p = &s->path[path];
	carry(p, len);
	h->path = (uint8_t)path;
	h->lseq = p->lseq++;
	h->pgap = 0;
	h->flags |= WIRE_F_DUP;
	p->sent_any = false;
	p->sent++;
	if (p->cls == PATH_FIXED) {
		s->fixed_sent++;
	}
	s->st.copies++;
	return (int)path;
}

void ing_sched_set_delay(struct ing_sched *s, unsigned path, uint32_t us)
{
	if (path < s->n) {
		s->path[path].delay_us = us;
	}
}

void ing_sched_set_rate(struct ing_sched *s, unsigned path, uint32_t kbps)
{
	/* as configured: a fixed path used as a backup now (its data budget
	 * spent) keeps the rate a reload gives it for when it is back */
	if (path < s->n && s->path[path].cfg_cls == PATH_FIXED) {
		s->path[path].cfg_Bps = kbps * 125.0;
		set_pace(&s->path[path]);
	}
}

uint32_t ing_sched_rate(const struct ing_sched *s, unsigned path)
{
	return path < s->n ? (uint32_t)(s->path[path].rate_Bps / 125.0) : 0;
}

const struct ing_rate_meas *ing_sched_rate_meas(const struct ing_sched *s,
						unsigned path)
{
	return path < s->n && s->path[path].meas.rule != ING_RATE_NONE
		       ? &s->path[path].meas
		       : NULL;
}

const char *ing_rate_rule_name(enum ing_rate_rule r)
{
	static const char *const name[] = {
		[ING_RATE_NONE] = "",
		[ING_RATE_GROWTH] = "growth",
		[ING_RATE_FULL] = "full",
		[ING_RATE_HELD] = "held",
		[ING_RATE_STOOD] = "stood",
		[ING_RATE_TRAIN] = "train",
	};

	return (unsigned)r < sizeof(name) / sizeof(name[0]) ? name[r] : "";
}

/* A path's floor: the smallest standing queue reported over the last one
 * to two ING_FLOOR_REPORTS windows, and the report-to-report variation.
 * A mobile path's delay varies by itself (radio scheduling, retries): its
 * standing queue is measured against its floor and must exceed both the
 * target and twice its variation before it counts as a queue that grows
 * (queue_excess).  A fixed line has no such variation: for the weights,
 * whatever it queues is queue; the rate it learns counts from its floor
 * too (learn_rate: a receiver whose CPU is busy delays every packet, and
 * that is no queue of the line's). */
static void track_floor(struct ing_sched_path *p,
			const struct wire_report_path *e)
{
	uint32_t d = e->delay_us, step;

	/* no DATA came on a mobile path over the interval: its 0 is no
	 * measurement (taken as one, an idle LTE's floor was 0, and its
	 * first busy reports read its jitter as queue, and jumped into its
	 * variation).  A fixed path's floor of 0 counts its whole queue,
	 * as the weights do (fixed_queue). */
	if (p->cls == PATH_MOBILE && d == 0 && e->rx_pkts == p->floor_rx) {
		return;
	}
	p->floor_rx = e->rx_pkts;
	step = d > p->floor_last_us ? d - p->floor_last_us
				    : p->floor_last_us - d;
	p->floor_last_us = d;
	if (!p->have_floor) {
		p->floor_cur = p->floor_prev = d;
		p->floor_left = ING_FLOOR_REPORTS;
		p->have_floor = true;
		p->qdev_us = 0;
	} else {
		p->qdev_us = p->qdev_us - p->qdev_us / 8 + step / 8;
	}
	if (p->floor_left == 0) {
		p->floor_prev = p->floor_cur;
		p->floor_cur = d;
		p->floor_left = ING_FLOOR_REPORTS;
	}
	p->floor_left--;
	if (d < p->floor_cur) {
		p->floor_cur = d;
	}
}

/* A standing queue d (us) of path p over its floor. */
static uint32_t over_floor(const struct ing_sched_path *p, uint32_t d)
{
	uint32_t f;

	if (!p->have_floor) {
		return 0;
	}
	f = p->floor_cur < p->floor_prev ? p->floor_cur : p->floor_prev;
	return d > f ? d - f : 0;
}

/* A fixed path's standing queue for its learned rate: over its floor, but
 * a floor of at most the target (a busy receiver adds a few ms; a floor
 * that took in a line's own full buffer, standing for seconds, would hide
 * it and let the pace probe on while the line drops). */
static uint32_t fixed_queue(const struct ing_sched *s,
			    const struct ing_sched_path *p, uint32_t d)
{
	uint32_t q = over_floor(p, d), cap = s->p.queue_target_us;

	return d - q > cap ? (d > cap ? d - cap : 0) : q;
}

/* The standing queue of path p that counts against the target (us). */
static uint32_t queue_excess(const struct ing_sched *s,
			     const struct ing_sched_path *p)
{
	uint32_t excess, noise;

	if (p->cls == PATH_FIXED) {
		return p->rep_qdelay_us;
	}
	excess = over_floor(p, p->rep_qdelay_us);
	noise = 2 * p->qdev_us;
	/* A queue that grows on an overfed mobile path passes tens of ms
	 * within a few reports; under four targets, or under twice its own
	 * variation, it is the path's own delay (the bed's LTE: 20 ms of
	 * jitter reads as 3 to 15 ms over its floor at any load). */
	if (excess <= ING_MOBILE_TARGETS * s->p.queue_target_us || excess <= noise) {
		return 0;
	}
	return excess;
}

/* Whether mobile path p's standing queue stands over the AQM's bound
 * (mobile_aqm_us), and over twice its own variation.  The queue as the
 * peer measures it (over the smallest delay of the last 10 to 20 s), not
 * over the floor of the weights (queue_excess): a loss-based sender keeps
 * the mobile path's queue standing for seconds, and a floor of 5 to 10 s
 * took it in (the LTE's lag passed the reorder timeout while its queue
 * read 40 ms over its floor). */
static bool aqm_over(const struct ing_sched *s, const struct ing_sched_path *p)
{
	uint32_t q = p->rep_qdelay_us;

	return p->cls == PATH_MOBILE && s->p.mobile_aqm_us &&
	       q > s->p.mobile_aqm_us && q > 2 * p->qdev_us;
}

/* The largest standing queue (us) the report shows on a path of class cls
 * that is up.  Reports of unknown paths are ignored. */
static uint32_t class_qdelay(struct ing_sched *s, const struct wire_report *r,
			     enum path_class cls)
{
	uint32_t q = 0, x;

	for (unsigned i = 0; i < r->n; i++) {
		const struct wire_report_path *e = &r->p[i];
		struct ing_sched_path *p;

		if (e->path >= s->n || s->path[e->path].cls != cls) {
			continue;
		}
		p = &s->path[e->path];
		track_floor(p, e);
		p->rep_qdelay_us = e->delay_us;
		x = queue_excess(s, p);
		p->aqm_over = aqm_over(s, p);
		if (!p->aqm_over) {
			/* CoDel leaves its dropping state once the queue
			 * is under its bound */
			p->aqm_dropping = false;
		}
		if (p->up && x > q) {
			q = x;
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
		d = forgive(s, p, e, seq_diff(e->lost_pkts, p->rep_lost));
		if (p->have_report && d > 0 && p->cls == PATH_FIXED) {
			lost += (uint32_t)d;
		}
		p->have_report = true;
		p->rep_lost = e->lost_pkts;
	}
	return lost;
}

/* AWI and IWI on loss (the paper), and their queueing-delay counterpart:
 * a fixed line whose standing queue exceeds the target is at capacity as
 * surely as one that drops, and says so a buffer's worth earlier.  The
 * increase follows the excess: k * w_fixed * (queue - target) / (4
 * T_report), i.e. at k = 1 the weight moves by the share of the line's rate
 * that would drain the excess in four reports, capped like AWI at k *
 * w_fixed.  Four, not one: the report that shows the queue comes a report
 * interval and a one-way delay after the weight that made it, so a
 * controller that drains the excess in one report gives too much and
 * leaves the fixed line idle until DWD takes it back (the simulator's ramp:
 * fixed line 93-96 % used with one report, 96.5-99.9 % with four, loss
 * under 0.2 % either way). */
static double queue_increase(const struct ing_sched *s, uint32_t q)
{
	double x = (double)(q - s->p.queue_target_us) /
		   ((double)s->p.t_report_ms * 1000.0 * ING_QUEUE_REPORTS);

	if (x > 1) {
		x = 1;
	}
	return s->p.k * x * s->p.w_fixed;
}

/* When a REPORT came (now_us, our clock) and when the peer counted what it
 * says (peer_us, the peer's: its header's stamp); timed false: neither is
 * known (ing_sched_on_report). */
struct rep_time {
	bool timed;
	uint64_t now_us;
	uint32_t peer_us;
	/* since the report before, when both are timed and consecutive (0:
	 * not known): our clock, and the peer's */
	uint64_t dnow_us;
	uint32_t dpeer_us;
};

/* An episode's length in seconds: the time measured (us), unless it is
 * off the reports' count (nominal, s) by more than half of it either way
 * (a clock stepped, a peer restarted): then the nominal one. */
static double episode_time(double nominal, uint64_t us)
{
	double t = (double)us / 1e6;

	return t > nominal / 2 && t < nominal * 3 / 2 ? t : nominal;
}

/* Reports the probes of p wait after a measurement or a take-back:
 * t_dwd_ms, doubled for each take-back in a row up to
 * ING_PROBE_WAIT_MAX_MS (never under t_dwd_ms). */
static uint32_t probe_wait(const struct ing_sched *s,
			   const struct ing_sched_path *p)
{
	uint32_t base = s->p.t_dwd_ms / s->p.t_report_ms;
	uint32_t max = ING_PROBE_WAIT_MAX_MS / s->p.t_report_ms, w = base;

	for (uint32_t i = 0; i < p->backs && w < max; i++) {
		w = w ? 2 * w : 1;
	}
	return w > max && max > base ? max : w;
}

/* p's learned rate is now r (a measurement, or probes taken back) while
 * its line holds q us of queue: the queue is owed, paid with a share of
 * the refill (ING_DEBT_DIV: the line drains while the mobile paths take
 * that share more), and the probes start again after their wait. */
static void relearn(struct ing_sched_path *p, double r, uint32_t q)
{
	p->learn_Bps = r;
	p->owed = r * q / 1e6;
	p->probes = 0;
	p->probe_hist = 0;
	p->since_learned = 0;
}

/* A measurement of p's rate (p->meas, set by the caller) taken: r, with
 * the queue q (us) owed; the next needs evidence of its own. */
static void took(struct ing_sched *s, struct ing_sched_path *p, double r,
		 uint32_t q)
{
	relearn(p, r, q);
	p->backs = 0;
	p->ep_n = 0;
	p->meas.n = ++s->st.rate_learned;
}

/* p's rate was last measured by a train, not confirmed by a queue yet */
static bool by_train(const struct ing_sched_path *p)
{
	return p->meas.rule == ING_RATE_TRAIN;
}

/* The line was sent at least ING_PROBE_USE_PERMILLE of its pace's credit
 * over the last ING_PROBE_USE_REPORTS reports (learn_rate: a load over the
 * pace, not bursts of a lighter one) */
static bool pace_used(const struct ing_sched_path *p)
{
	double sent = 0, credit = 0;

	for (unsigned i = 0; i < ING_PROBE_USE_REPORTS; i++) {
		sent += p->use_sent[i];
		credit += p->use_credit[i];
	}
	return credit > 0 && sent * 1000 >= credit * ING_PROBE_USE_PERMILLE;
}

/* The loss of the report (dlost of dlost + drx packets) in p's window
 * (ING_LOSSY_*); true when the window closed at ING_LOSS_NOISE_PPM or
 * more: the pace yields for t_dwd_ms from now (lossy_left).  Loss under a
 * queue over the target is the buffer's (the rate's): the window starts
 * again; so it does when the peer restarted (no count yet, or one that
 * went back).  A report missed only makes the next one count two
 * intervals. */
static bool lossy(struct ing_sched *s, struct ing_sched_path *p,
		  int32_t dlost, int32_t drx, uint32_t q)
{
	uint32_t target = s->p.queue_target_us;

	if (drx < 0 || dlost < 0 || !p->have_rx || (target && q > target)) {
		p->lossy_pkts = p->lossy_lost = 0;
		return false;
	}
	p->lossy_lost += (uint32_t)dlost;
	p->lossy_pkts += (uint32_t)dlost + (uint32_t)drx;
	if (p->lossy_lost < ING_LOSSY_LOST && p->lossy_pkts < ING_LOSSY_PKTS) {
		return false;
	}
	bool broken = (uint64_t)p->lossy_lost * 1000000 >=
		      (uint64_t)ING_LOSS_NOISE_PPM * p->lossy_pkts;
	p->lossy_pkts = p->lossy_lost = 0;
	if (broken) {
		p->lossy_left = s->p.t_dwd_ms / s->p.t_report_ms + 1;
		s->st.rate_lossy++;
	}
	return broken;
}

/* A fixed path's rate, learned (rate_auto).  While the line's standing
 * queue (over its floor) stays over target / ING_LEARN_DIV in consecutive
 * reports, it was busy throughout: an episode.  Its rate is measured only
 * from evidence that a receiver's busy CPU cannot fake:
 * - a queue that grew by more than the target over ING_EPISODE_REPORTS
 *   intervals or more (two on a path not paced yet): what the peer
 *   counted over the episode (rx times the mean size sent, over the
 *   peer's time when the reports are timed) is the rate.
 *   A receiver that stalls delays a few packets and
 *   undercounts an interval, it does not make the smallest delay of
 *   every interval grow for a quarter of a second (the first version
 *   measured what the peer counted over two reports, with no growth: on
 *   the namespace bed, whose CPU is saturated, each stall read as a slow
 *   line and the pace fell to a tenth of the DSL's rate within a few
 *   seconds);
 * - a queue over the target that stood while the line dropped (its
 *   buffer full: it does not grow any more; loss under a smaller queue is
 *   the line's errors, not its rate), or, on a path not paced yet and
 *   without loss, a queue the weights
 *   already move traffic away from (w_mobile > 0: the queue target holds
 *   it still, it neither grows nor drains), for as long: what the peer
 *   counted over the episode (rx times the mean size sent) is the rate;
 * - with timed reports (ing_sched_on_report_at), on a paced path, a queue
 *   over the target in every report of ING_EPISODE_REPORTS intervals or
 *   more: the pace is over the line's rate; what the peer counted is it.
 * The pace takes the rate and owes the queue the line holds (paid with a
 * quarter of its refill, ING_DEBT_DIV: the line drains within four times
 * the queue's length, and the mobile paths take only that share more); then
 * pacing just below the rate (ING_PACE_PERMILLE) keeps the line's buffer
 * empty with the excess going to the mobile paths at once, as with
 * rate_mbit.  While the pace holds bulk back, its bucket never full
 * (filled: a lighter load's bursts), its credit used (pace_used,
 * ING_PROBE_USE_*), and the line does not queue, the
 * rate grows (probes, ING_PROBE_*), so a line that got faster is
 * found again and one that got slower queues and is measured again; a
 * queue right after probes takes them back (ING_PROBE_LAG).  Like DWD, the
 * probes wait t_dwd_ms after a measurement or a take-back (how soon the
 * fixed line takes traffic back from the mobile ones), longer after
 * take-backs in a row (probe_wait). */
static void learn_rate(struct ing_sched *s, struct ing_sched_path *p,
		       const struct wire_report_path *e, uint32_t dseq,
		       bool mobile_full, const struct rep_time *t)
{
	uint32_t target = s->p.queue_target_us, q = fixed_queue(s, p, e->delay_us);
	/* what a cut lost is not the line's errors nor its buffer's:
	 * counted, it closed the lossy window of a DSL back from a cut (200
	 * lost against 50 counted), and its pace yielded to weights the cut
	 * had not moved, which put every bulk packet on it unpaced */
	int32_t dlost = p->have_report
				? cut_free(p, seq_diff(e->lost_pkts, p->rep_lost))
				: 0;
	uint64_t db = p->tx_bytes - p->rep_tx_bytes;
	uint64_t dp = p->tx_pkts - p->rep_tx_pkts;
	int32_t drx = seq_diff(e->rx_pkts, p->rep_rx);
	bool consecutive = p->have_rx && dseq == 1 && drx >= 0;
	/* bursts of a lighter load overflow too, and say nothing of the
	 * line's rate: probing on them took the pace over the line (66.3
	 * Mbit/s for a 63.4 DSL, bbr under RRUL) with nothing to show it
	 * until the load grew */
	bool limited = p->limited && !p->filled;
	enum ing_rate_rule rule = ING_RATE_NONE;
	double got = 0, dt, dt_tx, rx_Bps = 0, sent_Bps = 0;

	/* what the line was fed since the report before, and what it
	 * delivered over the peer's time (a floor of its rate: every DATA
	 * counted now and not then arrived between the two stamps); a train
	 * is sized by both */
	p->fed_Bps = p->deliv_Bps = 0;
	if (consecutive && t->dnow_us && t->dpeer_us && dp > 0) {
		p->fed_Bps = (double)db / (t->dnow_us / 1e6);
		p->deliv_Bps = drx * ((double)db / (double)dp) /
			       (t->dpeer_us / 1e6);
	}
	/* A line that loses ING_LOSS_NOISE_PPM or more of what it carries
	 * without a queue over the target is broken, not at its rate: its
	 * pace yields to the weights, which move traffic off it as the paper
	 * does (AWI on the loss), until t_dwd_ms pass without such loss (a
	 * paced DSL at 50 % random loss went on carrying all of a 40 Mbit/s
	 * flow that fitted its pace: netns_failover_flap).  Judged over a
	 * window of reports (ING_LOSSY_*): one report's count is too small */
	if (!lossy(s, p, dlost, drx, q) && p->lossy_left > 0) {
		p->lossy_left--;
	}
	p->rep_rx = e->rx_pkts;
	p->have_rx = true;
	p->rep_tx_bytes = p->tx_bytes;
	p->rep_tx_pkts = p->tx_pkts;
	p->limited = p->filled = false;
	p->use_sent[p->use_i] = (double)db;
	p->use_credit[p->use_i] = p->credit;
	p->use_i = (p->use_i + 1) % ING_PROBE_USE_REPORTS;
	p->credit = 0;
	if (!s->p.rate_auto || !target || !p->up) {
		p->ep_n = 0;
		return;
	}
	if (q > target / ING_LEARN_DIV && consecutive) {
		if (p->ep_n == 0) {
			/* the episode starts at this report: its intervals
			 * are those after it */
			p->ep_q0 = p->ep_qmin = q;
			p->ep_rx = p->ep_sent = p->ep_bytes = 0;
			p->ep_lost = 0;
			p->ep_t0 = t->now_us;
			p->ep_peer_t0 = t->peer_us;
		} else {
			p->ep_lost += dlost > 0 ? (uint32_t)dlost : 0;
			p->ep_rx += (uint32_t)drx;
			p->ep_sent += dp;
			p->ep_bytes += db;
			if (q < p->ep_qmin) {
				p->ep_qmin = q;
			}
		}
		p->ep_n++;
	} else {
		p->ep_n = 0;
	}
	dt = dt_tx = (double)(p->ep_n > 0 ? p->ep_n - 1 : 0) *
		     s->p.t_report_ms / 1e3;
	if (t->timed && dt > 0) {
		/* the peer counted over its time, we sent over ours */
		dt = episode_time(dt, (uint32_t)(t->peer_us - p->ep_peer_t0));
		dt_tx = episode_time(dt_tx, t->now_us - p->ep_t0);
	}
	/* a path not paced yet measures sooner: its queue fills the line's
	 * buffer while it waits, and a low first estimate is probed up; so
	 * does one paced by a train alone (a shaper's burst over half the
	 * train, a NIC's coalescing, read high) */
	if (p->ep_n > (p->rate_Bps > 0 && !by_train(p) ? ING_EPISODE_REPORTS
							: 2u) &&
	    p->ep_bytes > 0) {
		rx_Bps = (double)p->ep_rx * (double)p->ep_bytes /
			 (double)p->ep_sent / dt;
		sent_Bps = (double)p->ep_bytes / dt_tx;
		if (q > p->ep_q0 + target) {
			/* the line was busy throughout, and not because the
			 * receiver stalled: what it delivered is its rate.
			 * Not what was sent less the queue's growth, which
			 * reads high while a sender speeds up (the queue
			 * grows a one-way delay and a report after the
			 * packets counted here: a TCP flow's start read 65.7
			 * Mbit/s for a DSL whose peer counted 63.4, and the
			 * pace over the line's rate stood 40 ms of queue in
			 * it for seconds) and low while it slows (a TCP
			 * download's end read 30-42 Mbit/s, 63 counted) */
			rule = ING_RATE_GROWTH;
		} else if (p->ep_rx > 0 &&
			   (p->ep_lost > 0 ? q > target
					   : p->rate_Bps <= 0 &&
						     s->w_mobile > 0)) {
			/* loss under a queue over the target is a full
			 * buffer's; under a smaller one, the line's own
			 * errors: what it delivered then is not its rate
			 * (a DSL at 50 % random loss, 2 ms of queue, read
			 * half of what the pace sent it, report after
			 * report, down to ING_RATE_MIN_BPS: netns_failover_
			 * flap's DSL then carried 184-197 packets of a
			 * 40 Mbit/s flow after its hold) */
			rule = p->ep_lost > 0 ? ING_RATE_FULL : ING_RATE_HELD;
		} else if (p->ep_rx > 0 && t->timed && p->rate_Bps > 0 &&
			   p->ep_qmin > target &&
			   sent_Bps > rx_Bps * (1000 + ING_STOOD_PERMILLE) /
						1000) {
			/* a paced line whose queue stood over the target
			 * throughout: the pace is over its rate, by less
			 * than the growth would show soon (a rate read 2.4 %
			 * high, from a 200-ms episode on a busy box, stood
			 * 31-45 ms of queue in the DSL for 4 s under RRUL).
			 * Only with timed reports: timed by the reports'
			 * count, a receiver that stalls reads as a slow line
			 * whose queue stands (below).  Only when more was
			 * sent than the peer counted: a line that delivered
			 * all it was sent kept up with the pace, and its
			 * queue is not the pace's (a DSL carrying a seventh
			 * of its rate read 5-7 ms of standing queue on the
			 * busy namespace bed, and this rule took its pace
			 * down to 9.4 Mbit/s, then in halves to 0.5) */
			rule = ING_RATE_STOOD;
		}
	}
	/* every rule takes what the peer counted */
	if (rule != ING_RATE_NONE) {
		got = rx_Bps;
	}
	if (got > 0) {
		p->meas = (struct ing_rate_meas){
			.rule = rule,
			.got_Bps = got,
			.sent_Bps = sent_Bps,
			.rx_Bps = rx_Bps,
			.q0_us = p->ep_q0,
			.q_us = q,
			.dt_ms = (uint32_t)(dt * 1e3 + 0.5),
			.lost = p->ep_lost,
		};
	}
	if (got > 0 && p->learn_Bps > 0 &&
	    got < p->learn_Bps / ING_LEARN_MAX_DROP) {
		got = p->meas.got_Bps = p->learn_Bps / ING_LEARN_MAX_DROP;
		p->meas.capped = true;
		s->st.rate_drop_capped++;
	}
	if (p->since_probe < UINT32_MAX) {
		p->since_probe++;
	}
	if (got > 0) {
		took(s, p, got, q);
	} else if (p->probe_hist > 0 && p->since_probe <= ING_PROBE_LAG &&
		   q > target / ING_PROBE_BACK_DIV) {
		/* the line queues right after probes: they passed its rate
		 * (ING_PROBE_LAG); back to before them */
		relearn(p, p->probe_from[0], q);
		if (p->backs < UINT32_MAX) {
			p->backs++;
		}
		s->st.rate_probe_backs++;
	} else if (p->learn_Bps > 0 && limited && q <= target / ING_PROBE_DIV &&
		   ++p->since_learned > probe_wait(s, p) && pace_used(p)) {
		uint32_t pm = ING_PROBE_PERMILLE *
			      (ING_PROBE_ACCEL + p->probes) / ING_PROBE_ACCEL;

		if (pm > ING_PROBE_MAX_PERMILLE) {
			pm = ING_PROBE_MAX_PERMILLE;
		}
		if (mobile_full) {
			/* the bulk the pace holds back fills the mobile
			 * paths while this line has room */
			pm = ING_PROBE_FULL_PERMILLE;
			s->st.rate_probed_full++;
		}
		if (p->probe_hist == ING_PROBE_LAG) {
			memmove(p->probe_from, p->probe_from + 1,
				sizeof(p->probe_from[0]) * (ING_PROBE_LAG - 1));
			p->probe_hist--;
		}
		p->probe_from[p->probe_hist++] = p->learn_Bps;
		p->since_probe = 0;
		p->learn_Bps *= 1 + pm / 1000.0;
		if (p->cfg_Bps > 0 && p->learn_Bps > p->cfg_Bps) {
			p->learn_Bps = p->cfg_Bps;
		}
		if (++p->probes > 2 * ING_PROBE_LAG) {
			p->backs = 0; /* it had room: it got faster */
		}
		s->st.rate_probed++;
	} else if (!limited) {
		p->probes = 0;
	}
	if (p->learn_Bps > 0 && p->learn_Bps < ING_RATE_MIN_BPS) {
		p->learn_Bps = ING_RATE_MIN_BPS;
	}
	set_pace(p);
}

static bool train_wanted(const struct ing_sched *s,
			 const struct ing_sched_path *p)
{
	return s->p.rate_auto && s->p.queue_target_us &&
	       p->cls == PATH_FIXED && p->learn_Bps <= 0;
}

unsigned ing_sched_train_due(const struct ing_sched *s, unsigned path,
			     uint32_t pkt_bytes)
{
	const struct ing_sched_path *p;
	double r;
	uint64_t n;

	if (path >= s->n || !pkt_bytes) {
		return 0;
	}
	p = &s->path[path];
	if (!p->up || !train_wanted(s, p)) {
		return 0;
	}
	/* as many as the line takes in the span at the rate it was fed, and
	 * at twice what it delivered (a slow start doubles): a burst fed
	 * into a slow line is fast for the first, not the second */
	r = p->fed_Bps < 2 * p->deliv_Bps ? p->fed_Bps : 2 * p->deliv_Bps;
	n = (uint64_t)(r * ING_TRAIN_SPAN_US / 1e6 / pkt_bytes);
	if (n < ING_TRAIN_MIN_PKTS) {
		return 0;
	}
	return n < ING_TRAIN_MAX_PKTS ? (unsigned)n : ING_TRAIN_MAX_PKTS;
}

void ing_sched_train_sent(struct ing_sched *s, unsigned path)
{
	if (path < s->n) {
		s->path[path].ep_n = 0;
	}
}

bool ing_sched_train_rate(struct ing_sched *s, unsigned path, double Bps,
			  uint32_t dt_us)
{
	struct ing_sched_path *p;

	if (path >= s->n || !train_wanted(s, &s->path[path]) ||
	    !(Bps >= ING_RATE_MIN_BPS && Bps <= ING_RATE_MAX_BPS)) {
		return false;
	}
	p = &s->path[path];
	p->meas = (struct ing_rate_meas){
		.rule = ING_RATE_TRAIN,
		.got_Bps = Bps,
		.rx_Bps = Bps,
		.dt_ms = (dt_us + 500) / 1000,
	};
	/* the train's own queue is gone by the answer; what the unpaced
	 * line queued meanwhile, as the last report saw it, is owed */
	took(s, p, Bps, fixed_queue(s, p, p->rep_qdelay_us));
	set_pace(p);
	return true;
}

static void learn_rates(struct ing_sched *s, const struct wire_report *r,
			uint32_t dseq, bool mobile_full,
			const struct rep_time *t)
{
	for (unsigned i = 0; i < r->n; i++) {
		const struct wire_report_path *e = &r->p[i];

		if (e->path < s->n && s->path[e->path].cls == PATH_FIXED) {
			learn_rate(s, &s->path[e->path], e, dseq, mobile_full,
				   t);
		}
	}
}

static void on_report(struct ing_sched *s, uint32_t seq,
		      const struct wire_report *r, const struct rep_time *t);

void ing_sched_on_report_at(struct ing_sched *s, uint32_t seq,
			    const struct wire_report *r, uint64_t now_us,
			    uint32_t peer_us)
{
	const struct rep_time t = {
		.timed = true, .now_us = now_us, .peer_us = peer_us};

	on_report(s, seq, r, &t);
}

void ing_sched_on_report(struct ing_sched *s, uint32_t seq,
			 const struct wire_report *r)
{
	const struct rep_time untimed = {.timed = false};

	on_report(s, seq, r, &untimed);
}

static void on_report(struct ing_sched *s, uint32_t seq,
		      const struct wire_report *r, const struct rep_time *t)
{
	uint32_t target = s->p.queue_target_us, qf, qm;
	bool queue, draining, mobile_full, loss_cong;
	double ratio = 1, inc = 0;
	struct rep_time tt;
	uint64_t lost;
	uint32_t dseq, dpeer;

	if (s->have_report_seq && !seq_after(seq, s->report_seq)) {
		s->st.stale_reports++;
		return;
	}
	/* report intervals since the last report: one, or more when reports
	 * were lost or the peer's egress had nothing to report (it counts
	 * those intervals in its sequence all the same) */
	dseq = s->have_report_seq ? seq - s->report_seq : 1;
	/* The mobile path queues too: the bond is full, and feeding it more
	 * would only fill its buffer (a paced fixed path probes faster). */
	qm = class_qdelay(s, r, PATH_MOBILE);
	mobile_full = target && qm > target;
	/* the time since the report before, on both clocks: within a
	 * second, or not known (a report lost, a clock stepped) */
	tt = *t;
	dpeer = t->peer_us - s->rep_peer_us;
	if (t->timed && s->rep_timed && dseq == 1 &&
	    t->now_us > s->rep_now_us && t->now_us - s->rep_now_us < 1000000 &&
	    dpeer > 0 && dpeer < 1000000) {
		tt.dnow_us = t->now_us - s->rep_now_us;
		tt.dpeer_us = dpeer;
	}
	s->rep_timed = t->timed;
	s->rep_now_us = t->now_us;
	s->rep_peer_us = t->peer_us;
	learn_rates(s, r, s->have_report_seq ? dseq : 0, mobile_full, &tt);
	s->have_report_seq = true;
	s->report_seq = seq;
	s->st.reports++;

	lost = fixed_loss(s, r);
	qf = class_qdelay(s, r, PATH_FIXED);
	if (s->fixed_sent > 0 && lost < s->fixed_sent) {
		ratio = (double)lost / s->fixed_sent;
	}
	/* With a target, loss without a standing queue and under the noise
	 * ratio is the line's own errors, not a full buffer: moving load to
	 * the mobile path would not avoid it. */
	loss_cong = lost > 0 &&
		    (!target || qf > target || ratio * 1e6 >= ING_LOSS_NOISE_PPM);
	if (lost > 0 && !loss_cong) {
		s->st.loss_noise++;
	}
	/* Over the target and not draining: the weight is short.  A queue
	 * over the target that shrank by more than the target since the last
	 * report (less is the measure's noise under TCP) is draining
	 * under the weight already given: more would overshoot and leave the
	 * fixed line idle until DWD takes it back. */
	queue = target && qf > target && qf + target >= s->prev_qf;
	draining = target && qf > target && !queue;
	s->prev_qf = qf;
	s->prev_qm = qm;

	if (frozen(s)) {
		s->fixed_sent = 0;
		return;
	}
	if (loss_cong || queue) {
		if (queue) {
			s->st.dwd_held++;
		}
		if (mobile_full) {
			s->st.mobile_full++;
		} else if (loss_cong && s->w_mobile == 0) {
			/* IWI: congestion is just arising, react at once. */
			inc = (double)lost;
			s->st.iwi++;
		} else if (loss_cong) {
			inc = s->p.k * ratio * s->p.w_fixed; /* AWI */
			s->st.awi++;
		}
		if (queue && !mobile_full) {
			double qi = queue_increase(s, qf);

			/* IWI's counterpart: at least one step from 0 */
			if (s->w_mobile == 0 && qi < 1) {
				qi = 1;
			}
			if (qi > inc) {
				inc = qi;
			}
			s->st.qwi++;
		}
		s->w_mobile += inc;
		if (s->w_mobile > s->p.w_mobile_max) {
			s->w_mobile = s->p.w_mobile_max;
		}
		s->quiet_reports = 0;
	} else if (draining) {
		/* neither more nor less: DWD waits */
		s->st.dwd_held++;
		s->quiet_reports = 0;
	} else {
		/* DWD: only after t_dwd_ms without congestion, one step a
		 * report interval: the intervals this report covers (its
		 * cumulative counters show no loss in any of them), so an
		 * idle session, which sends no reports, comes back with the
		 * weight its quiet time took off. */
		uint32_t hold = s->p.t_dwd_ms / s->p.t_report_ms;
		uint32_t before = s->quiet_reports;
		uint64_t steps;

		s->quiet_reports = before > UINT32_MAX - dseq ? UINT32_MAX
							      : before + dseq;
		steps = (uint64_t)(s->quiet_reports > hold
					   ? s->quiet_reports - hold
					   : 0) -
			(before > hold ? before - hold : 0);
		for (; steps > 0 && s->w_mobile > 0; steps--) {
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
		s->path[i].have_rx = false;
	}
	s->have_report_seq = false;
	s->fixed_sent = 0;
	s->quiet_reports = 0;
	ing_flows_reset(&s->flows);
}

void ing_sched_reset_seq(struct ing_sched *s, uint32_t gseq0)
{
	s->gseq = gseq0;
	for (unsigned i = 0; i < s->n; i++) {
		struct ing_sched_path *p = &s->path[i];

		p->lseq = 0;
		p->sent_any = false;
		p->have_report = false;
		p->have_rx = false;
		p->forgive = false; /* its forgive_to was of the old count */
	}
	s->have_report_seq = false;
	s->fixed_sent = 0;
	s->quiet_reports = 0;
	ing_flows_reset(&s->flows);
}
