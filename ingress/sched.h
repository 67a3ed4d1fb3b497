/* SPDX-License-Identifier: BSD-2-Clause */
/* The ingress scheduler: smooth weighted round robin over the paths, with
 * the mobile weight adapted to the loss the peer's egress reports (AWI, IWI,
 * DWD, from "Multipath bonding at Layer 3", section 3).
 *
 * Invariants:
 * - every fixed path has the constant weight w_fixed;
 * - the mobile weight w_mobile starts at 0 and stays in [0, w_mobile_max];
 *   it is shared equally by the mobile paths that are up;
 * - if no fixed path is up, the mobile paths that are up share the traffic
 *   equally, whatever w_mobile is;
 * - a backup path is picked only while no fixed or mobile path is up (a
 *   suspect one is not up); the backup paths that are up then share the
 *   traffic equally; its reports move no weight and its suspicion freezes
 *   none; if no path is up, nothing is picked;
 * - the pick is smooth (nginx-style SWRR): no path gets a run of picks longer
 *   than its weight ratio requires;
 * - each pick consumes one global and one local (per path) sequence number.
 *
 * Queue target (beyond the paper): a fixed path whose standing queue, as
 * the peer reports it, exceeds queue_target_us is congested like one that
 * drops: w_mobile grows with the excess and DWD waits (sched.c,
 * ing_sched_on_report; DESIGN.md, "Queue target").  Pacing (a fixed path's
 * rate known) and sparse flows: ing_sched_pick_flow.
 *
 * Reports carry cumulative per-path counters; the scheduler keeps the last
 * report's counters and reacts to the difference, so a lost report loses no
 * loss information, and a stale or duplicated report (by report sequence)
 * is ignored.  Time never comes from a clock here: callers pass it in.
 */
#ifndef L3BOND_SCHED_H
#define L3BOND_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "common/params.h" /* enum path_class, struct ing_sched_params */
#include "common/wire.h"
#include "ingress/flow.h"

enum {
	/* Loss on a fixed path that comes without a standing queue counts as
	 * congestion only from this ratio on (parts per million): under it,
	 * it is the line's own errors. */
	ING_LOSS_NOISE_PPM = 10000,
	/* ... judged over a window of reports (learn_rate, lossy): closed
	 * once it counts ING_LOSSY_LOST losses or ING_LOSSY_PKTS packets
	 * (delivered and lost), not over one report, whose count is small:
	 * a DSL losing 0.2 % at random lost 3 of 250 packets (1.2 %) in one
	 * report every few seconds, and its pace then yielded to the
	 * weights, which filled its buffer (46 packets dropped under a
	 * single cubic download).  At 0.2 % a window of 2000 reads 1 % or
	 * more about once in 30 000; at 50 % it closes within 20 packets. */
	ING_LOSSY_LOST = 10,
	ING_LOSSY_PKTS = 2000,
	/* A mobile path's floor is the smallest standing queue of the last
	 * one to two windows of this many reports (5 to 10 s at 50 ms). */
	ING_FLOOR_REPORTS = 100,
	/* A standing queue over the target is drained over this many
	 * report intervals (sched.c, queue_increase). */
	ING_QUEUE_REPORTS = 4,
	/* The weights wait for a suspect (down, held) path this long at
	 * most (sched.c, frozen): the longest hold after flapping. */
	ING_FREEZE_MS = 30000,
	/* A mobile path queues when its standing queue is this many targets
	 * over its floor (and over twice its variation). */
	ING_MOBILE_TARGETS = 4,
	/* A paced path is fed at this share of its rate (per mille), so that
	 * its line's buffer (the modem's, the DSLAM's) stays empty and the
	 * excess goes to the mobile paths at once; its bucket holds
	 * ING_PACE_BURST_US of the rate, at least ING_PACE_BURST_MIN bytes
	 * (two full packets).  What
	 * the bucket gathered while the daemon waited for its next drain
	 * goes on the line at once, and stands in its buffer as a queue that
	 * every packet after it waits for, pings and calls included: at 5
	 * ms, the RRUL load's pings were 1.7-12.1 ms over idle at p50 and
	 * 10.4-37.8 at p99 on the 2-core bed; at 2 ms, 1.1-4.0 and 7.3-17.8,
	 * with the same goodput (the drains there mostly come within 2 ms
	 * of each other, even on busy cores: the LTE carried 0-1 % more of
	 * the ramp). */
	ING_PACE_PERMILLE = 980,
	ING_PACE_BURST_US = 2000,
	ING_PACE_BURST_MIN = 3000,
	/* The queue a fixed line holds when its rate is measured is owed:
	 * paid with this share (1/n) of the pace's refill, so the line drains
	 * over n times the queue's length while still carrying the rest of
	 * its rate (all at once, the line took nothing new for the queue's
	 * length and the whole flow went to the mobile path: the LTE's queue
	 * grew by 20 ms and its packets came too late for the DSL's, 0-83 of
	 * a cold 90 Mbit/s flow's 40179 late where the weights alone had 0). */
	ING_DEBT_DIV = 4,
	/* One measurement lowers a learned rate by at most this factor: an
	 * episode that takes in a cut, a stall or a sender that stopped can
	 * read anything down to the floor (netns_failover_flap once left
	 * the DSL near 1 Mbit/s after its flapping), and a line that really
	 * got that much slower queues again and is measured again within a
	 * few reports. */
	ING_LEARN_MAX_DROP = 2,
	/* A fixed path's rate learned from its standing queue (rate_auto):
	 * while the pace holds bulk back and the line does not queue, the
	 * learned rate grows by ING_PROBE_PERMILLE per report, and by
	 * another 1/ING_PROBE_ACCEL of that for every such report in a row
	 * (a line whose rate went up is found again within seconds), at
	 * most ING_PROBE_MAX_PERMILLE; never under ING_RATE_MIN_BPS.  While
	 * the mobile paths queue (over ING_MOBILE_TARGETS targets) the pace
	 * is what holds the bond back: it grows by ING_PROBE_FULL_PERMILLE
	 * per report from the first (a rate learned low, by a busy box or a
	 * line that got faster since, is found again within seconds).  Not
	 * faster: the line's queue answers a probe a round trip and a
	 * report later, and at 6.2 % a report the pace stood 20-30 % over
	 * the DSL's rate by then under RRUL, whose LTE always queues: 30 ms
	 * of queue in the DSL every second or so. */
	ING_PROBE_PERMILLE = 2,
	ING_PROBE_ACCEL = 8,
	ING_PROBE_MAX_PERMILLE = 16,
	ING_PROBE_FULL_PERMILLE = 16,
	/* A probe that passed the line's rate shows as a queue a round trip
	 * and a report later, by when the probes went on: a queue over
	 * queue_target / ING_PROBE_BACK_DIV within ING_PROBE_LAG reports of
	 * a probe takes back the last ING_PROBE_LAG probes at once
	 * (rate_probe_backs), rather than letting the queue grow by the
	 * target to be measured (it peaked at 8-15 ms every second or so
	 * under RRUL: the pings' p99).  A queue that grows on is measured as
	 * before. */
	ING_PROBE_LAG = 3,
	ING_PROBE_BACK_DIV = 2,
	/* After a take-back the probes wait t_dwd_ms as after a measurement,
	 * and twice as long after each take-back in a row, up to
	 * ING_PROBE_WAIT_MAX_MS: a line whose rate stands is probed every 2 s
	 * or so, not every half second (each probe that passes it queues a
	 * few ms).  A measurement, or probes that climb more than twice
	 * ING_PROBE_LAG in a row (the line got faster), start again from
	 * t_dwd_ms. */
	ING_PROBE_WAIT_MAX_MS = 2000,
	/* A probe also needs the pace to have been used: over the last
	 * ING_PROBE_USE_REPORTS reports the line was sent at least
	 * ING_PROBE_USE_PERMILLE of what the bucket was refilled with (the
	 * pace's credit, measured over the same intervals of our clock, so a
	 * report's late arrival cancels out).  Bulk that overflows the
	 * bucket in bursts while the line carries less than its pace is not
	 * a load over the pace: probing on it took a 63.4 Mbit/s DSL's pace
	 * to 66-70 within a 30-s single cubic download over 0.2 % line
	 * errors (50 Mbit/s on the DSL), and the bursts then queued the
	 * DSL past the repairs' time.  Measured against the credit, not
	 * against the learned rate (a first try): a pace that climbs
	 * 1.6 % a report stays used, where an average of what was
	 * delivered lagged it and held a rate learned low there (the ramp
	 * lost 62 % of its 1492-byte packets). */
	ING_PROBE_USE_REPORTS = 4,
	ING_PROBE_USE_PERMILLE = 950,
	ING_RATE_MIN_BPS = 125000,
	/* An episode of a standing queue measures a rate after this many
	 * report intervals (sched.c, learn_rate). */
	ING_EPISODE_REPORTS = 4,
	/* The stood rule (sched.c, learn_rate) needs what was sent over an
	 * episode to exceed what the peer counted by this much, per mille:
	 * a pace over the line's rate, not a queue that is not the pace's. */
	ING_STOOD_PERMILLE = 5,
	/* A fixed path's queue over queue_target / ING_LEARN_DIV is an
	 * episode of a standing queue (measured); under queue_target /
	 * ING_PROBE_DIV, the line has room (probed). */
	ING_LEARN_DIV = 4,
	ING_PROBE_DIV = 8,
	/* A train (ing_sched_train_due) takes the line this long at most, at
	 * the rate the path was fed since the last look and at twice what
	 * it delivered meanwhile (a 1 Mbit/s uplink gets none: a 75-KB
	 * train would stand 600 ms of queue in it, and the detector would
	 * find the path suspect; a burst fed into it is fast for the first
	 * only); it has between
	 * ING_TRAIN_MIN_PKTS (the half timed must outlast a shaper's burst:
	 * the bed's tbf passes 16 KB at once) and ING_TRAIN_MAX_PKTS, and
	 * measures at most ING_RATE_MAX_BPS. */
	ING_TRAIN_SPAN_US = 40000,
	ING_TRAIN_MIN_PKTS = 32,
	ING_TRAIN_MAX_PKTS = 64,
	/* The overflow's AQM (sched.c, aqm_drop): from the report that
	 * shows a mobile path's standing queue over mobile_aqm_us, the bulk
	 * packets that overflow to it are dropped on CoDel's control law
	 * (RFC 8289: one, then one every ING_AQM_INTERVAL_US / sqrt(count)
	 * while the reports show it over), and a dropping state taken up
	 * again within ING_AQM_REENTER intervals of the last drop starts
	 * from the drops the last one added (count - lastcount, as
	 * Linux's codel does). */
	ING_AQM_INTERVAL_US = 100000,
	ING_AQM_REENTER = 16,
};

/* the fastest rate a train measures, bytes/s (10 Gbit/s) */
#define ING_RATE_MAX_BPS 1.25e9

/* How learn_rate measured a fixed path's rate, last time (the log and the
 * status say it: an operator asking why the DSL is paced where it is). */
enum ing_rate_rule {
	ING_RATE_NONE,	  /* not measured yet */
	/* what the peer counted while the line's queue: */
	ING_RATE_GROWTH,  /* grew by more than the target */
	ING_RATE_FULL,	  /* stood over the target and the line dropped */
	ING_RATE_HELD,	  /* stood, held still by the weights (not paced
			   * yet) */
	ING_RATE_STOOD,	  /* stood over the target throughout while paced
			   * (timed reports): the pace is over its rate */
	ING_RATE_TRAIN,	  /* a train of packets back to back, before any
			   * other rule measured it (ing_sched_train_rate) */
};

struct ing_rate_meas {
	enum ing_rate_rule rule;
	double got_Bps;		/* the rate taken (after the drop cap) */
	double sent_Bps;	/* sent to the line over the episode */
	double rx_Bps;		/* the peer counted over the episode */
	uint32_t q0_us, q_us;	/* its standing queue, first and last */
	uint32_t dt_ms;		/* the episode's length */
	uint32_t lost;		/* the line lost in it, packets */
	bool capped;		/* lowered by ING_LEARN_MAX_DROP at most */
	uint64_t n;		/* its number: the session's rate_learned */
};

struct ing_sched_path {
	enum path_class cls;	 /* as used now: cfg_cls, or PATH_BACKUP */
	enum path_class cfg_cls; /* as configured */
	bool up;	/* usable: neither down nor suspect */
	bool down;	/* ing_sched_set_up(false) */
	bool suspect;	/* ing_sched_set_suspect(true) */
	/* reports the weights still wait for it while it is suspect (down
	 * or held included): ING_FREEZE_MS */
	uint32_t freeze_left;
	/* the loss the peer reports for lseq before forgive_to was the cut
	 * that made the path suspect: it moves no weight (sched.c,
	 * forgive) */
	bool forgive;
	uint32_t forgive_to;
	double cur;	    /* SWRR running credit */
	uint32_t lseq;	    /* next local sequence number */
	uint32_t last_gseq; /* gseq of the previous packet on this path */
	uint64_t last_pick; /* s->picks when it was sent, for pgap */
	bool sent_any;
	uint64_t sent; /* packets picked for this path since start */
	/* last cumulative counters seen in a report */
	bool have_report;
	uint32_t rep_lost;
	uint32_t rep_qdelay_us; /* standing queue in the last report */
	uint32_t delay_us;	/* its delay now (the daemon: smoothed RTT),
				 * for sparse flows */
	/* pacing (a fixed path whose rate is known or learned): a token
	 * bucket in bytes, filled at ING_PACE_PERMILLE of the rate */
	double rate_Bps; /* the pace: the lower of the two below (0: none) */
	double cfg_Bps;	 /* rate_mbit (0: unknown) */
	double learn_Bps; /* learned (0: not yet, or rate_auto off) */
	double tokens;
	double owed; /* the line's queue when its rate was measured, bytes,
		      * paid with 1/ING_DEBT_DIV of the refill (learn_rate) */
	uint64_t tok_us;
	bool tok_any; /* refilled once: tok_us is set */
	bool limited;	/* bulk overflowed since the last report */
	bool filled;	/* the bucket filled up since the last report: the
			 * line idled its depth, so the bulk that overflowed
			 * came in bursts, not as a load over the pace
			 * (nothing to probe on) */
	/* the bucket's refill since the last report, bytes (refill), and
	 * over the last ING_PROBE_USE_REPORTS reports what the line was
	 * sent and that credit, a ring (use_i: the next slot) */
	double credit;
	double use_sent[ING_PROBE_USE_REPORTS], use_credit[ING_PROBE_USE_REPORTS];
	uint32_t use_i;
	uint32_t probes; /* reports in a row the learned rate grew */
	uint32_t since_learned; /* reports without a queue that could probe
				 * since the last measurement */
	/* the learned rate before each of the last probes (at most
	 * ING_PROBE_LAG, oldest first), and reports since the last one */
	double probe_from[ING_PROBE_LAG];
	uint32_t probe_hist;
	uint32_t since_probe;
	uint32_t backs; /* take-backs in a row (ING_PROBE_WAIT_MAX_MS) */
	/* line bytes and packets ing_sched_pick_flow sent on the path, and
	 * their values and the peer's rx count at the last report, for the
	 * rate the line delivered between two reports */
	uint64_t tx_bytes, tx_pkts, rep_tx_bytes, rep_tx_pkts;
	/* the current episode of a standing queue (sched.c, learn_rate):
	 * reports, packets delivered, packets and bytes sent, first queue */
	uint32_t ep_n;
	uint64_t ep_rx, ep_sent, ep_bytes;
	uint32_t ep_q0;
	uint32_t ep_qmin; /* its smallest queue */
	uint32_t ep_lost; /* packets the line lost in the episode */
	uint64_t ep_t0;	  /* when its first report came (timed reports) */
	uint32_t ep_peer_t0; /* ... and the peer's clock when it counted */
	struct ing_rate_meas meas; /* the last measurement */
	/* reports left in which the path's pace yields to the weights: it
	 * lost ING_LOSS_NOISE_PPM or more without a queue (learn_rate) */
	uint32_t lossy_left;
	/* the window that judges it: packets delivered and lost, and lost,
	 * in consecutive reports without a queue over the target */
	uint32_t lossy_pkts, lossy_lost;
	/* between the last two timed reports, B/s (0: not known): what the
	 * path was fed, and what the peer counted it delivered (a train is
	 * sized by both: ing_sched_train_due) */
	double fed_Bps, deliv_Bps;
	uint32_t rep_rx;
	bool have_rx;
	/* the path's floor and its variation (us): mobile paths are judged
	 * against it, a fixed path's learned rate too */
	bool have_floor;
	uint32_t floor_cur, floor_prev, floor_left;
	uint32_t qdev_us;
	/* the last measurement taken, and the peer's rx count then (a
	 * report of an interval without DATA is none: track_floor) */
	uint32_t floor_last_us, floor_rx;
	/* the overflow's AQM (a mobile path; sched.c, aqm_drop): the last
	 * report showed its queue over mobile_aqm_us (aqm_over); dropping,
	 * the next drop due at aqm_next_us, aqm_count drops since it began
	 * (aqm_last: at its previous beginning) */
	bool aqm_over;
	bool aqm_dropping;
	uint64_t aqm_next_us;
	uint32_t aqm_count, aqm_last;
};

struct ing_sched_stats {
	uint64_t reports;	/* reports applied */
	uint64_t stale_reports; /* ignored: not newer than the last one */
	uint64_t awi;
	uint64_t iwi;
	uint64_t dwd;
	uint64_t dwd_held; /* reports with a fixed path queueing over the
			    * target: DWD withheld */
	uint64_t qwi;	   /* increases for a fixed path's standing queue */
	uint64_t loss_noise; /* fixed-path loss taken as line errors */
	uint64_t mobile_full; /* increases withheld: a mobile path queues */
	uint64_t no_path;  /* picks refused: no path up */
	uint64_t sparse;   /* packets of sparse flows, on the lowest-delay
			    * path */
	uint64_t flows_shared; /* packets of a flow that shared another's
				* bucket: its set was busy (ingress/flow.h) */
	uint64_t paced;	   /* bulk packets a paced path took within its
			    * rate */
	uint64_t overflow; /* bulk packets sent on a mobile path because the
			    * paced fixed paths were at their rate */
	uint64_t aqm_drops; /* bulk packets that would have overflowed to a
			     * mobile path whose queue stood over its
			     * bound: dropped (sched.c, aqm_drop) */
	uint64_t rate_learned; /* reports that set a fixed path's pace to
				* what its queueing line delivered */
	uint64_t rate_probed;  /* reports that raised a learned pace */
	uint64_t rate_probed_full; /* ... by ING_PROBE_FULL_PERMILLE: the
				    * mobile paths queued */
	uint64_t rate_probe_backs; /* reports that took back the last probes:
				    * the line queued right after them */
	uint64_t rate_drop_capped; /* measurements under half the learned
				    * rate, taken as half (ING_LEARN_MAX_DROP) */
	uint64_t rate_lossy; /* windows in which a paced fixed path lost
			      * ING_LOSS_NOISE_PPM or more without a queue:
			      * its pace yielded to the weights */
	uint64_t resent;   /* copies sent again (ing_sched_pick_resend) */
	uint64_t repaired; /* copies of lost DATA the peer asked for
			    * (ing_sched_pick_repair) */
	uint64_t copies;   /* redundant copies (ing_sched_pick_copy) */
	uint64_t flow_starts; /* flows of mode flow given a path */
	uint64_t flow_moves;  /* ... moved: their path was down */
	uint64_t frozen;   /* reports that moved no weight: a path was
			    * suspect */
	uint64_t forgiven; /* lost packets of a cut, not taken as
			    * congestion */
};

struct ing_sched {
	struct ing_sched_params p;
	unsigned n;
	struct ing_sched_path path[WIRE_MAX_PATHS];
	double w_mobile;
	uint32_t gseq;		/* next global sequence number */
	uint64_t picks;		/* picks since start, never wraps */
	uint32_t fixed_sent;	/* sent on fixed paths since the last report */
	unsigned ovf_last;	/* the mobile path the last overflow took
				 * (paced: the next takes the one after) */
	uint32_t quiet_reports; /* consecutive loss-free reports */
	uint32_t prev_qf;	/* the fixed paths' standing queue in the
				 * previous report, us */
	uint32_t prev_qm;	/* the mobile paths' (over their floor) */
	bool have_report_seq;
	uint32_t report_seq; /* last applied report sequence */
	/* the last report: timed, when it came, the peer's stamp */
	bool rep_timed;
	uint64_t rep_now_us;
	uint32_t rep_peer_us;
	struct ing_flows flows;
	struct ing_sched_stats st;
};

/* Validates params (k >= 0, w_fixed > 0, w_mobile_max >= 0, t_report_ms >
 * 0, t_dwd_ms a multiple of t_report_ms) and n in [1, WIRE_MAX_PATHS].
 * All paths start up.  Returns 0 or -EINVAL. */
int ing_sched_init(struct ing_sched *s, const struct ing_sched_params *p,
		   unsigned n, const enum path_class *cls);

/* Replaces the tunables (reload) keeping weights, credits and sequence
 * numbers; w_mobile is re-clamped.  Returns 0 or -EINVAL (nothing changed). */
int ing_sched_set_params(struct ing_sched *s, const struct ing_sched_params *p);

void ing_sched_set_up(struct ing_sched *s, unsigned path, bool up);

/* A path turns suspect (ingress/detect.h) or is trusted again.  A suspect
 * path gets no new traffic, as if it were down: its weight goes to the
 * others.  While any path is suspect the reports move no weight (AWI,
 * IWI, DWD and the queue target wait: they describe a bond that lost a
 * path, not the load), and the loss the peer later reports for the
 * packets it carried until then (the cut) is forgiven, so w_mobile is
 * where it was when the path comes back (not for a backup path: the
 * weights are not its).  Independent of
 * ing_sched_set_up: a path is used when it is up and not suspect. */
void ing_sched_set_suspect(struct ing_sched *s, unsigned path, bool suspect);

/* The path with weight (up, and a backup path only while no other is)
 * whose delay (ing_sched_set_delay) is the lowest, or -1: the path of a
 * sparse flow, and of a class in mode lowest_delay. */
int ing_sched_lowest_delay(const struct ing_sched *s);

/* A path is used as a backup path (its data budget is spent: ours, or the
 * peer's, which asks so in its REPORTs) or as configured again.  Its
 * credit is cleared either way. */
void ing_sched_set_backup(struct ing_sched *s, unsigned path, bool backup);


/* The largest standing queue of the usable paths in the last report
 * (a mobile path's over its floor), us: what ing_sched_on_report judges
 * against queue_target_us, for the pace of the copies (ing_repace). */
static inline uint32_t ing_sched_queue_us(const struct ing_sched *s)
{
	return s->prev_qf > s->prev_qm ? s->prev_qf : s->prev_qm;
}

/* Picks the path for a copy sent again (ingress/inflight.h) of an inner
 * packet of len bytes, as ing_sched_pick_flow would for a bulk packet,
 * and consumes only a local sequence number: h->gseq, h->fgap and the
 * flow flag stay the original's, h->flags gains WIRE_F_RESENT, h->pgap
 * is 0 (the copy's gseq lies behind the path's), and so is the pgap of
 * the next packet on that path.  Returns the path or -ENETDOWN. */
int ing_sched_pick_resend(struct ing_sched *s, struct wire_hdr *h,
			  uint32_t len, uint64_t now_us);

/* The same for a copy of a packet the peer's egress asked for (a NACK:
 * its path lost it, "Repair" in DESIGN.md): on the path that is up with
 * the lowest delay, whatever its pace, into debt as a sparse packet
 * (counted repaired, not resent). */
int ing_sched_pick_repair(struct ing_sched *s, struct wire_hdr *h,
			  uint32_t len, uint64_t now_us);

/* A redundant copy (a traffic class in mode redundant) of the packet h
 * describes, on path: consumes a local sequence number of path only;
 * h->gseq, h->fgap and the flow flag stay the original's, h->flags gains
 * WIRE_F_DUP, h->pgap is 0, and so is the pgap of the next packet on
 * path.  Returns path, or -ENETDOWN when it is not up. */
int ing_sched_pick_copy(struct ing_sched *s, struct wire_hdr *h,
			unsigned path, uint32_t len);

/* Picks the path for the next DATA packet and fills h->path, h->gseq,
 * h->lseq and h->pgap.  Returns the path index, or -ENETDOWN if no path is
 * up (nothing consumed). */
int ing_sched_pick(struct ing_sched *s, struct wire_hdr *h);

/* The same for an inner packet of len bytes of flow hash (ing_flow_hash)
 * at now_us: also sets h->fgap and h->flags (per-flow ordering), and a
 * packet of a sparse flow takes the path that is up with the lowest delay
 * (ing_sched_set_delay) instead of the WRR pick. */
int ing_sched_pick_flow(struct ing_sched *s, struct wire_hdr *h,
			uint32_t hash, uint32_t len, uint64_t now_us);

/* The same on the given path when it is up (else as ing_sched_pick_flow):
 * the fragments of one inner packet after the first, which travel
 * together so that a late or lost fragment on another path cannot leave
 * its sibling to the receiver's reassembly, which holds such orphans
 * for 30 s and drops every fragment once they fill its memory (the
 * paper's ramp with 1492-byte packets lost 61 % that way upstream). */
int ing_sched_pick_flow_on(struct ing_sched *s, struct wire_hdr *h,
			   uint32_t hash, uint32_t len, uint64_t now_us,
			   int path);

/* The same for a class in mode flow (issue 13): the flow keeps one path,
 * so that its packets are never reordered and never wait at the egress
 * for another path's.  Its first packet takes a bulk packet's pick (the
 * weights, or the pace: a flow that starts while the DSL is full goes on
 * the LTE; sparse or not), which the flow's bucket keeps; the flow moves
 * only when that path is down (flow_moves), and picks again after
 * ING_FLOW_IDLE_MS of silence.  A flow that outgrows its path is not
 * moved: it gets that path's rate (TCP finds it). */
int ing_sched_pick_sticky(struct ing_sched *s, struct wire_hdr *h,
			  uint32_t hash, uint32_t len, uint64_t now_us);

/* A path's current delay, in any unit common to the paths (the daemon: its
 * smoothed RTT, us). */
void ing_sched_set_delay(struct ing_sched *s, unsigned path, uint32_t us);

/* A fixed path's line rate in kbit/s of IP packets (0: unknown).  With a
 * rate, ing_sched_pick_flow paces the path: bulk packets take it while its
 * token bucket allows and overflow to the mobile paths beyond (sparse ones
 * take it whatever, and are paid for by the bulk), so the line's own
 * buffer stays empty.  Without a mobile path up, or with w_mobile_max 0,
 * nothing overflows.  With rate_auto (and a queue target), the rate is
 * also learned from the reports (ing_sched_on_report): the pace is the
 * lower of the two, so a configured rate is a ceiling. */
void ing_sched_set_rate(struct ing_sched *s, unsigned path, uint32_t kbps);

/* Applies a REPORT from the peer's egress: seq is the report sequence (the
 * header's gseq).  Runs AWI/IWI on fixed-path loss and standing queue,
 * DWD otherwise, and learns the fixed paths' rates (rate_auto). */
void ing_sched_on_report(struct ing_sched *s, uint32_t seq,
			 const struct wire_report *r);
/* The same, timed: now_us, when it arrived (the clock of
 * ing_sched_pick_flow); peer_us, the peer's clock when it counted (the
 * header's tstamp).  A rate learned over reports counts the peer's
 * packets over the peer's time and ours over ours: a report timer that
 * fires late on a busy box, or a copy that came on a path with more
 * delay, reads no rate (untimed, every report is taken t_report_ms
 * after the one before, as in the simulator). */
void ing_sched_on_report_at(struct ing_sched *s, uint32_t seq,
			    const struct wire_report *r, uint64_t now_us,
			    uint32_t peer_us);

/* The pace of a path now, kbit/s of line bytes (0: not paced). */
uint32_t ing_sched_rate(const struct ing_sched *s, unsigned path);
/* The last measurement of a fixed path's rate (rate_auto), NULL for none
 * or a path out of range. */
const struct ing_rate_meas *ing_sched_rate_meas(const struct ing_sched *s,
						unsigned path);
/* A fixed path whose rate is to be learned (rate_auto, a queue target)
 * and has not been yet, and is up: a train of packets back to back on it
 * measures it before its line's buffer fills (gateway/control.c,
 * send_train; DESIGN.md, "The rate learned").  After a timed REPORT: the
 * packets of pkt_bytes (line bytes) a train on path should have now, 0
 * for none: as many as the line carries in ING_TRAIN_SPAN_US at the rate
 * it was fed since the report before and at twice what it delivered,
 * none under ING_TRAIN_MIN_PKTS, at most ING_TRAIN_MAX_PKTS. */
unsigned ing_sched_train_due(const struct ing_sched *s, unsigned path,
			     uint32_t pkt_bytes);
/* A train went on path: an episode of its queue measured across it would
 * read low (the train took line time that no count has), so it starts
 * again. */
void ing_sched_train_sent(struct ing_sched *s, unsigned path);
/* What the peer measured of a train on path: Bps, over dt_us.  Taken as
 * the path's learned rate (rule ING_RATE_TRAIN) if it still has none and
 * Bps lies in ING_RATE_MIN_BPS..ING_RATE_MAX_BPS; the queue the last
 * report showed is owed.  Until a queue measures it, the path's queue is
 * measured as a path not paced (two intervals).  true if taken. */
bool ing_sched_train_rate(struct ing_sched *s, unsigned path, double Bps,
			  uint32_t dt_us);

/* The name of a rule ("growth", "full", "held", "stood", "train"; "" for
 * none). */
const char *ing_rate_rule_name(enum ing_rate_rule r);

/* Effective SWRR weight of a path now (0 if down). */
double ing_sched_weight(const struct ing_sched *s, unsigned path);

/* Restarts sequence numbers, report baselines and the flows; weights are
 * kept. */
void ing_sched_reset_seq(struct ing_sched *s, uint32_t gseq0);

/* The peer restarted (a new session): its egress counters and report sequence
 * start again, so the report baselines are forgotten.  Our sequence
 * numbers go on: the peer's fresh egress follows whatever it sees first,
 * and may already have seen our current numbers. */
void ing_sched_peer_restarted(struct ing_sched *s);

#endif
