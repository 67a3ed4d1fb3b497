/* SPDX-License-Identifier: BSD-2-Clause */
/* The failure detector of one path, as its sender sees it (issue 14).
 *
 * A state machine over a clock the caller passes in; no globals, no I/O.
 *
 *   UP       the path is used;
 *   SUSPECT  it stopped answering: the scheduler gives it no new traffic
 *            (ing_sched_set_suspect) and what it carried unacknowledged is
 *            sent again on the others (ingress/inflight.h);
 *   DOWN     it stayed silent for dead_after_ms;
 *   HOLD     it answers again, but flapped: it must stay good for the
 *            hold time before it is used again.
 *
 * What counts as an answer: the peer's egress acknowledging the path
 * (ing_detect_acked: a REPORT entry's lseq_next advanced) or a probe sent
 * on the path answered on it (ing_detect_answered).  Both prove that the
 * path carries our packets forward; a packet merely heard on the path only
 * proves the other direction, which the peer's detector watches.
 *
 * Rules (times in us, T = ing_detect_timeout_us()):
 * - data: a path with at least ING_DET_MIN_UNACKED packets unacknowledged,
 *   whose acknowledgement has not advanced for T since the oldest of them
 *   was sent, turns SUSPECT.  Its send time is known to ING_DET_MARK_US
 *   from the send-time marks, rounded later (and later still when it is
 *   older than the marks): T counts from the send, not from the
 *   acknowledgement's arrival, which came up to a report interval and a
 *   one-way delay after the packet before it was sent.  The egress
 *   acknowledges the highest local sequence it received, so random loss
 *   never holds the acknowledgement back while later packets get through:
 *   only a path that lost every packet since the last acknowledgement
 *   looks dead, and with several of them that is a dead path, not a lossy
 *   one (at 50 % loss, 1 in 16 burst ends);
 * - probes: ING_DET_PROBE_MISSES probes in a row unanswered for T turn the
 *   path SUSPECT whatever the data (an idle path: no data, no fast
 *   detection; its probes, every idle_probe_ms, decide);
 * - SUSPECT with no answer for dead_after_ms (since the last one) is DOWN;
 *   a SUSPECT path is probed ING_DET_SUSPECT_PROBE_DIV times as often as
 *   a busy one (ing_detect_busy_probe_ms), so that a lossy path that
 *   still carries is answered within dead_after_ms all but never (at 50 %
 *   loss both ways, some 17 probes a quarter answered each: 0.75^17,
 *   0.8 %, against 0.75^4, 32 %, at the busy interval) and a path back
 *   is seen a quarter of the interval sooner;
 * - an answer in SUSPECT or DOWN brings the path back UP at once, unless
 *   it flapped: it turned SUSPECT within flap_window_ms of coming back UP
 *   from SUSPECT, DOWN or HOLD (or from HOLD itself).  Each flap raises the level (at most ING_DET_MAX_LEVEL)
 *   and the path goes to HOLD for hold_base_ms << (level - 1), at most
 *   hold_max_ms; a SUSPECT after flap_window_ms UP starts again at level 0;
 * - HOLD becomes UP when its time is over; a single probe unanswered for
 *   T (it must be good all along) makes it SUSPECT again, a flap.
 *
 * Entering SUSPECT forgets the unacknowledged data: the in-flight store
 * owns it from then on, and a late acknowledgement of it is no answer (a
 * path that was only slow answers its probes).
 */
#ifndef L3BOND_DETECT_H
#define L3BOND_DETECT_H

#include <stdbool.h>
#include <stdint.h>

enum {
	/* The timeout's floor in report intervals: the peer acknowledges
	 * once a report interval, so less than a few of them is noise. */
	ING_DET_FLOOR_REPORTS = 3,
	/* Unacknowledged packets needed before the data rule applies. */
	ING_DET_MIN_UNACKED = 4,
	/* Probes in a row unanswered before the probe rule applies. */
	ING_DET_PROBE_MISSES = 3,
	/* Highest flap level: the hold time's shift never reaches the
	 * width of the type. */
	ING_DET_MAX_LEVEL = 16,
	/* A SUSPECT path's probe interval: probe_ms divided by this. */
	ING_DET_SUSPECT_PROBE_DIV = 4,
	/* Send-time marks (struct ing_detect): one per ING_DET_MARK_US of
	 * sending at most, ING_DET_MARKS of them (a power of two), so that
	 * the last ING_DET_MARKS x ING_DET_MARK_US (320 ms) of sending are
	 * known to ING_DET_MARK_US. */
	ING_DET_MARKS = 32,
	ING_DET_MARK_US = 10000,
	/* The acknowledgements' round trip (ack_rtt_us) is the largest
	 * sample of the current and the previous bucket of this length. */
	ING_DET_ACK_BUCKET_US = 500000,
	/* Defaults of ing_detect_params_default, explained in DESIGN.md
	 * ("Failure detection").  The daemon sets idle_probe_ms from its
	 * config key of that name, whose default this is: a PROBE and its
	 * answer (2 x 84 bytes over IPv4) every 20 s, 8.4 B/s, 22 MB a
	 * month, when only the CPE probes an idle path. */
	ING_DET_IDLE_PROBE_MS = 20000,
	ING_DET_IDLE_AFTER_MS = 1000,
	ING_DET_FLAP_WINDOW_MS = 10000,
	ING_DET_HOLD_BASE_MS = 1000,
	ING_DET_HOLD_MAX_MS = 30000,
};

enum ing_det_state {
	ING_DET_UP = 0,
	ING_DET_SUSPECT,
	ING_DET_DOWN,
	ING_DET_HOLD,
};

/* What an input or a tick changed: the state entered, or NONE. */
enum ing_det_event {
	ING_DET_EV_NONE = 0,
	ING_DET_EV_UP,
	ING_DET_EV_SUSPECT,
	ING_DET_EV_DOWN,
	ING_DET_EV_HOLD,
};

struct ing_detect_params {
	uint32_t t_report_ms;	   /* the peer's report interval */
	uint32_t suspect_floor_ms; /* T's floor (default 3 x t_report_ms) */
	uint32_t dead_after_ms;	   /* SUSPECT this long unanswered: DOWN */
	uint32_t probe_ms;	   /* probe interval of a busy path */
	uint32_t idle_probe_ms;	   /* probe interval of an idle one */
	uint32_t idle_after_ms;	   /* no data sent for this long: idle */
	uint32_t flap_window_ms;   /* SUSPECT this soon after UP: a flap */
	uint32_t hold_base_ms;	   /* HOLD after the first flap */
	uint32_t hold_max_ms;	   /* HOLD's ceiling */
};

struct ing_detect_stats {
	uint64_t suspect;   /* entries into SUSPECT */
	uint64_t recovered; /* back UP after SUSPECT, DOWN or HOLD (not
			     * the first UP) */
	uint64_t down;	    /* entries into DOWN */
	uint64_t flaps;	    /* SUSPECT within flap_window_ms of UP, or
			     * from HOLD */
	uint64_t holddown;  /* entries into HOLD */
	uint64_t by_data;   /* SUSPECT by the data rule */
	uint64_t by_probe;  /* SUSPECT by the probe rule */
};

struct ing_detect {
	struct ing_detect_params p;
	enum ing_det_state state;
	uint32_t srtt_us, rttvar_us;
	/* data: local sequence numbers sent and acknowledged */
	bool have_sent;
	uint32_t sent_next;	/* one past the last lseq sent */
	uint32_t acked_next;	/* the peer's lseq_next, as far as known */
	uint64_t wait_us;	/* the acknowledgement wait started: the
				 * oldest unacknowledged packet was sent */
	/* when some packets were sent: the first packet sent in each
	 * ING_DET_MARK_US at most, a ring (the newest at nmarks - 1) */
	struct {
		uint32_t lseq;
		uint64_t us;
	} mark[ING_DET_MARKS];
	uint32_t nmarks;
	/* the acknowledgements' round trip: a REPORT's arrival less the
	 * send time of the newest packet it acknowledges (a mark at or
	 * before it): the largest of the current bucket and the last */
	uint32_t ack_max_us[2];
	uint64_t ack_bucket_us; /* the current bucket began */
	/* no other path is usable: the data rule waits */
	bool alone;
	uint64_t last_data_us;	/* last data sent */
	bool have_in;
	uint64_t last_in_us;	/* last data received on the path */
	/* probes unanswered since the last answer: the first few send
	 * times */
	uint32_t pmiss;
	uint64_t psent[ING_DET_PROBE_MISSES];
	uint64_t last_answer_us;
	bool have_up;	  /* it was UP once */
	bool have_back;	  /* it came back UP once (back_us) */
	uint64_t back_us; /* when it last came back UP */
	uint32_t level; /* flap level; 0: no flap */
	uint64_t hold_until_us;
	struct ing_detect_stats st;
};

/* Fills p with the defaults above for the given report interval, dead
 * time and busy probe interval. */
void ing_detect_params_default(struct ing_detect_params *p,
			       uint32_t t_report_ms, uint32_t dead_after_ms,
			       uint32_t probe_ms);

/* Starts DOWN at now_us (a path is used once it answered).  Returns 0, or
 * -EINVAL if a parameter is 0 (but suspect_floor_ms: 0 is 3 x
 * t_report_ms) or hold_base_ms > hold_max_ms. */
int ing_detect_init(struct ing_detect *d, const struct ing_detect_params *p,
		    uint64_t now_us);

/* The path's RTT as the probes measure it (smoothed, and its variation). */
void ing_detect_set_rtt(struct ing_detect *d, uint32_t srtt_us,
			uint32_t rttvar_us);

/* T: max(suspect_floor_ms, t_report_ms + max(srtt, ack_rtt) + 4 rttvar).
 * The report interval is added to the RTT term because the peer
 * acknowledges only once an interval: the last packet before a report
 * waits that long for its acknowledgement on a path that works.  srtt is
 * the probes', ack_rtt the acknowledgements' (ing_detect_ack_rtt_us): a
 * path whose queue grew fast, an idle LTE that takes a cut DSL's
 * traffic, shows it in the next REPORT, where the probes, every
 * probe_interval_ms and smoothed, lag by a second. */
uint64_t ing_detect_timeout_us(const struct ing_detect *d);

/* The acknowledgements' round trip as the last second of REPORTs measured
 * it (0: none). */
uint32_t ing_detect_ack_rtt_us(const struct ing_detect *d);

/* No other path is usable (the caller's view of the session: see
 * ing_detect_mark_alone): the data rule waits.  Suspecting the last
 * usable path moves its traffic nowhere and stops it all (its queue grew
 * when it took over a cut path's traffic, not dead); a dead last path is
 * found by the probe rule, and the data rule applies again as soon as
 * another path is usable. */
void ing_detect_set_alone(struct ing_detect *d, bool alone);

/* Sets each of n detectors alone when none of the others is usable. */
void ing_detect_mark_alone(struct ing_detect *const *d, unsigned n);

/* Inputs.  Answers return the state they made the path enter, or
 * ING_DET_EV_NONE; the rules on silence run in ing_detect_tick. */
/* A DATA packet with local sequence lseq was sent on the path. */
void ing_detect_sent(struct ing_detect *d, uint32_t lseq, uint64_t now_us);
/* A REPORT's entry for the path: the peer expects lseq_next next.  Only
 * an advance over what was acknowledged, and not beyond what was sent,
 * counts. */
enum ing_det_event ing_detect_acked(struct ing_detect *d, uint32_t lseq_next,
				    uint64_t now_us);
/* A probe was sent on the path; one sent on it was answered. */
void ing_detect_probe_sent(struct ing_detect *d, uint64_t now_us);
enum ing_det_event ing_detect_answered(struct ing_detect *d, uint64_t now_us);
/* Timers: one transition per call; call until it returns NONE. */
enum ing_det_event ing_detect_tick(struct ing_detect *d, uint64_t now_us);

/* When ing_detect_tick next has something to do, as far as no input
 * comes before; false if nothing is pending. */
bool ing_detect_deadline(const struct ing_detect *d, uint64_t *when_us);

/* DATA from the peer arrived on the path: it is in use, not idle (the
 * peer's detector watches that direction, ours must see the path's death
 * within the busy probe interval for the resequencer's sake). */
void ing_detect_data_in(struct ing_detect *d, uint64_t now_us);

/* Quiet: no data sent or received for idle_after_ms (or ever).  Idle:
 * quiet, UP and no probe missing: none unanswered, or the one idle probe
 * unanswered for less than the timeout T (a slow answer, a radio waking
 * up, is not a miss; one T late switches to the busy interval). */
bool ing_detect_quiet(const struct ing_detect *d, uint64_t now_us);
bool ing_detect_idle(const struct ing_detect *d, uint64_t now_us);

/* The probe interval of a path in use (ms): probe_ms, or in SUSPECT
 * probe_ms / ING_DET_SUSPECT_PROBE_DIV (at least 1). */
uint32_t ing_detect_busy_probe_ms(const struct ing_detect *d);

/* The probe interval now (ms): idle_probe_ms when idle,
 * ing_detect_busy_probe_ms otherwise. */
uint32_t ing_detect_probe_interval(const struct ing_detect *d,
				   uint64_t now_us);

/* The scheduler may give it new traffic. */
static inline bool ing_detect_usable(const struct ing_detect *d)
{
	return d->state == ING_DET_UP;
}

/* The sender's local sequence restarted (ing_sched_reset_seq) or the
 * peer's egress did: forget the data bookkeeping, keep the state. */
void ing_detect_reset_seq(struct ing_detect *d);

/* Whether a probe is due at now_us: interval_ms after the last one (sent
 * at last_us; any false: none yet, due at once), judged on a tick every
 * tick_ms, half a tick early at most so that the ticks do not add up to
 * one interval late.  The daemon's keepalive tick (gateway/link.c) and
 * the simulator's. */
static inline bool ing_detect_probe_due(bool any, uint64_t last_us,
					uint32_t interval_ms, uint32_t tick_ms,
					uint64_t now_us)
{
	return !any || now_us + (uint64_t)tick_ms * 500 >=
			       last_us + (uint64_t)interval_ms * 1000;
}

/* The path's outage was a move, not the line flapping (the peer's address
 * behind NAT changed, our own interface came back under a new address or
 * index): the flaps forgotten, a path held comes UP at now_us (returned),
 * the next suspect is no flap. */
enum ing_det_event ing_detect_forget_flaps(struct ing_detect *d,
					   uint64_t now_us);

/* The peer restarted (a new session): ing_detect_reset_seq, and the
 * flaps forgotten, for the path did not flap, its peer did: a path held
 * comes UP at now_us (returned), the next suspect is no flap. */
enum ing_det_event ing_detect_peer_restarted(struct ing_detect *d,
					     uint64_t now_us);

const char *ing_detect_state_name(enum ing_det_state s);

#endif
