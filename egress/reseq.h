/* SPDX-License-Identifier: BSD-2-Clause */
/* The egress resequencer ("Multipath bonding at Layer 3", 4.3, extended).
 *
 * Packets are identified by their global sequence number; the resequencer
 * keeps only metadata and an opaque cookie per packet (the daemon's slot and
 * kernel packet id, the simulator's packet record), and hands cookies back
 * through the release callback: in order per flow, where the header says
 * which packet of its flow came before (fgap, FLOW_FIRST), and in global
 * sequence order otherwise.
 *
 * Rules:
 * - the next expected packet is released at once, with every buffered
 *   packet that then follows in order;
 * - a packet of a flow is released as soon as its flow's previous packet
 *   is released or given up, whatever other flows still wait for: one
 *   flow never waits for another flow's packets on a slower path, nor for
 *   another flow's hole;
 * - an early packet is buffered with its arrival time;
 * - the hole at the head is given up (counted as lost) when
 *   a) it has waited t_lto since the first packet beyond it arrived (or
 *      longer for a path fallen silent: egr_reseq_set_resend_wait), or
 *   b) early_release is on and it is known lost: the path that carried it
 *      has already delivered a later local sequence number (learnt from the
 *      header's pgap), or every path that is up has delivered a later global
 *      sequence number (FIFO paths cannot bring it any more), unless a
 *      copy was asked for (repair): then only a), and not before the
 *      repair wait after the request;
 * - a packet behind the head is dropped as a duplicate if it was released;
 *   one that comes at most t_lto (or the late window, if longer: the
 *   egress's t_lto_ms) after its hole was given up is released
 *   at once, out of order (late: the hole's timeout was shorter than its
 *   path's lag, e.g. behind a mobile queue that filled while the other
 *   path was down; late is better than lost); it is dropped (too_old)
 *   when it comes later than that (its path is bloated: the drop is its
 *   senders' congestion signal) or its slot was reused since (it cannot
 *   tell late from duplicate); one stamped (now_us) at or before the
 *   moment its hole was given up came in time, read after the timeout
 *   fired, and is released late whatever the window;
 * - a copy sent again after its path failed (WIRE_F_RESENT) is a packet
 *   like its original: it fills the hole, or is dropped when the other
 *   copy came first, counted apart (resent_dup); one that comes after its
 *   hole was given up is released out of order as above (resent_late: the
 *   sender sends copies only once it found the path suspect, which is
 *   usually after the hole's timeout), or dropped (resent_too_old);
 * - a RESENT copy whose slot was reused since (the head moved on by
 *   capacity with the live traffic while the survivor's spare rate carried
 *   the copies) is still released late if one bit per sequence number,
 *   kept over RESEQ_HIST_MUL capacities behind the head, says its hole
 *   was given up (resent_far); dropped (resent_too_old) when further
 *   behind, or not given up;
 * - capacity is a power of two; a packet that lies capacity or more ahead of
 *   the head forces the head forward (holes counted as overflow losses,
 *   buffered packets released in order), in at most capacity steps however
 *   far it jumps.
 *
 * Memory is allocated once, at the first packet (or egr_reseq_alloc), and
 * kept.  The release callback must not call back
 * into the resequencer.
 */
#ifndef L3BOND_RESEQ_H
#define L3BOND_RESEQ_H

#include <stdbool.h>
#include <stdint.h>

#include "common/params.h" /* struct egr_reseq_params */
#include "common/wire.h"

typedef void (*egr_release_fn)(void *ctx, uint64_t cookie, uint32_t gseq);

/* What happened to a pushed packet.  On EGR_DROP_* the resequencer keeps
 * nothing: the caller drops the packet. */
enum egr_verdict {
	EGR_RELEASED = 0, /* released now (maybe with followers) */
	EGR_BUFFERED,
	EGR_DROP_LATE,
	EGR_DROP_DUP,
	EGR_DROP_PATH, /* path index out of range (egr_on_data only) */
	EGR_DROP_NOMEM, /* the first packet, and no memory for the buffer */
};

struct egr_reseq_stats {
	uint64_t in_order;	/* released on arrival at the head */
	uint64_t buffered;	/* buffered on arrival */
	uint64_t released;	/* all releases */
	uint64_t late;		/* released out of order: behind the head,
				 * after its hole was given up (also in
				 * released) */
	uint64_t too_old;	/* dropped: behind the head, more than
				 * t_lto (or the late window) after its
				 * hole was given up, or
				 * its slot reused (capacity or more
				 * behind: late or dup, it cannot tell) */
	uint64_t dup;		/* dropped: duplicate */
	uint64_t hole_timeout;	/* holes given up after t_lto */
	uint64_t hole_early;	/* holes given up early (known lost) */
	uint64_t hole_overflow; /* holes given up because the window was full */
	uint64_t overflow;	/* packets that forced the window forward */
	uint64_t hole_path_down; /* holes given up when a path went down */
	uint64_t hole_flush;	 /* holes given up by flush/reset */
	uint64_t flow_now;	 /* released on arrival ahead of the head: its
				  * flow had nothing outstanding */
	uint64_t flow_early;	 /* released from the buffer ahead of the
				  * head, when their flow's hole was filled */
	uint64_t held;		 /* packets released after waiting */
	uint64_t hold_us;	 /* the time they waited, in all */
	/* copies sent again after their path failed (WIRE_F_RESENT) */
	uint64_t resent_filled;	 /* kept: they filled a hole */
	uint64_t resent_dup;	 /* dropped: the packet was here already,
				  * either copy RESENT (not in dup) */
	uint64_t resent_late;	 /* released out of order: a RESENT copy
				  * after its hole was given up (also in
				  * released) */
	uint64_t resent_too_old; /* dropped: a RESENT copy behind the head
				  * that was not given up there, or more
				  * than RESEQ_HIST_MUL capacities behind
				  * (not in too_old) */
	uint64_t resent_far;	 /* released out of order: a RESENT copy
				  * whose slot was reused since, known
				  * given up by the history bits (also in
				  * resent_late) */
	uint64_t repair_filled;	 /* holes whose copy was asked for (repair)
				  * filled by it (also in resent_filled) */
	uint64_t repair_timeout; /* ... given up without it (also in
				  * hole_timeout) */
	uint64_t resend_waits;	 /* holes given up after waiting past t_lto
				  * for a path fallen silent (also in
				  * hole_timeout) */
	/* a redundant class's copies (WIRE_F_DUP) */
	uint64_t copy_dup;	 /* dropped: another copy came first (not in
				  * dup, resent_dup or too_old) */
};

struct egr_reseq_slot;

/* How far behind the head, in capacities, the history bits say which
 * sequence numbers were given up: a cut's copies come over the
 * survivor's spare rate, up to a second after their holes (failover.sh
 * case a: 700 copies over the LTE's 10 Mbit/s to spare, while the live
 * flow moved the head by 4096 packets in 0.9 s).  capacity / 8 bytes
 * per RESEQ_HIST_MUL, against the ring's 48 per slot. */
enum { RESEQ_HIST_MUL = 8 };

struct egr_reseq {
	struct egr_reseq_params p;
	egr_release_fn release;
	void *ctx;
	unsigned npaths;
	uint32_t mask;
	struct egr_reseq_slot *slot; /* capacity slots, by gseq & mask */
	uint64_t *gone; /* RESEQ_HIST_MUL * capacity bits, by gseq: given
			 * up at the head, not released since */
	uint32_t *arrivals;	     /* gseq in arrival order, 2 * capacity */
	uint32_t arr_head, arr_tail;
	bool started;
	uint32_t next;	/* head: next expected gseq */
	uint32_t count; /* packets buffered */
	uint32_t ahead; /* packets released ahead of the head */
	uint64_t now_us; /* of the call in progress (hold times) */
	bool path_up[WIRE_MAX_PATHS];
	bool path_seen[WIRE_MAX_PATHS];
	uint32_t path_top[WIRE_MAX_PATHS]; /* highest gseq delivered per path */
	uint64_t path_last_us[WIRE_MAX_PATHS]; /* its last delivery */
	uint32_t resend_wait_us; /* egr_reseq_set_resend_wait */
	uint32_t repair_wait_us; /* egr_reseq_set_repair_wait */
	uint32_t late_window_us; /* egr_reseq_set_late_window */
	uint64_t late_grace_us;	 /* egr_reseq_late_grace: until then */
	/* the longest wait a hole given up would have needed, by the late
	 * packets since the caller last took it (egr_reseq_take_late_need;
	 * not a copy sent again: its wait is the repair's), 0 if none */
	uint32_t late_need_us;
	struct egr_reseq_stats st;
};

/* Returns 0 or -EINVAL (bad params).  The slots are allocated at the
 * first push (EGR_DROP_NOMEM if they cannot be) or by egr_reseq_alloc. */
int egr_reseq_init(struct egr_reseq *r, const struct egr_reseq_params *p,
		   unsigned npaths, egr_release_fn fn, void *ctx);
/* The slots now (a CPE: its one session's memory from the start); 0 or
 * -ENOMEM */
int egr_reseq_alloc(struct egr_reseq *r);
void egr_reseq_free(struct egr_reseq *r);

/* Timeout and early_release can change at run time; capacity cannot.
 * Returns 0 or -EINVAL. */
int egr_reseq_set_params(struct egr_reseq *r, const struct egr_reseq_params *p);

/* Until until_us, a packet whose hole was given up is released out of
 * order however late it comes (its slot still records the hole), not
 * dropped as too_old: a path back from a cut (egress.h,
 * EGR_HEAL_SILENCE_US). */
void egr_reseq_late_grace(struct egr_reseq *r, uint64_t until_us);

/* The longest wait the holes given up for their timeout since the last
 * call would have needed for the packets that came late to them (from the
 * first packet beyond the hole to the late one's arrival: the timeout and
 * more, or less for a packet that came in time and was read after the
 * timeout fired), 0 if none; starts again. */
uint32_t egr_reseq_take_late_need(struct egr_reseq *r);

/* One DATA packet arrives.  missing: packets missing on its path just before
 * it (from egr_loss_on_packet); pgap: from its header. */
enum egr_verdict egr_reseq_push(struct egr_reseq *r, uint32_t gseq,
				unsigned path, uint32_t missing, uint16_t pgap,
				uint64_t now_us, uint64_t cookie);

/* The same for a packet of a flow: fgap and flags from its header (fgap 0
 * and no WIRE_F_FLOW_FIRST: global order, as egr_reseq_push).  repair:
 * the caller asked the peer for copies of the missing packets (a NACK):
 * their holes are not given up early but wait for the copies until the
 * timeout, and at least the repair wait after now (egr_reseq_set_repair_
 * wait). */
enum egr_verdict egr_reseq_push_flow(struct egr_reseq *r, uint32_t gseq,
				     unsigned path, uint32_t missing,
				     uint16_t pgap, bool repair, uint16_t fgap,
				     uint8_t flags, uint64_t now_us,
				     uint64_t cookie);

/* Gives up holes whose time is over and releases what follows. */
void egr_reseq_poll(struct egr_reseq *r, uint64_t now_us);

/* When the next timeout falls due; false if nothing is waiting. */
bool egr_reseq_deadline(const struct egr_reseq *r, uint64_t *when_us);

/* Failover (issue 14): a hole whose timeout is over still waits while a
 * path that is up has delivered nothing since the first packet beyond the
 * hole arrived, until us after that path's last delivery: the hole may be
 * that path's, cut, and its sender sends it again once it notices (its
 * detector's T after the last report that acknowledged the path, a
 * report interval), on a path whose delay and queue the copy crosses.  A
 * path idle for longer extends nothing.  0 (the default): off. */
void egr_reseq_set_resend_wait(struct egr_reseq *r, uint32_t us);

/* Repair: a hole whose copy was asked for waits at least us after the
 * request (the round trip of a NACK and its copy on the fastest path),
 * however short the reorder timeout. */
void egr_reseq_set_repair_wait(struct egr_reseq *r, uint32_t us);

/* A packet whose hole was given up is released out of order (late) if it
 * comes at most the reorder timeout after, or us if that is longer (the
 * egress: t_lto_ms, the longest the timeout may grow to); later, it is
 * dropped (too_old).  0 by default: the timeout. */
void egr_reseq_set_late_window(struct egr_reseq *r, uint32_t us);

/* A path goes down or comes back.  Down: its holes are not waited for. */
void egr_reseq_set_path_up(struct egr_reseq *r, unsigned path, bool up);

/* Releases everything buffered, in order, giving up the holes (shutdown). */
void egr_reseq_flush(struct egr_reseq *r);

/* Forgets the sequence state (peer restarted): buffered packets are
 * released in order first. */
void egr_reseq_reset(struct egr_reseq *r);

static inline uint32_t egr_reseq_depth(const struct egr_reseq *r)
{
	return r->count;
}

#endif
