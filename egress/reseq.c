/* SPDX-License-Identifier: BSD-2-Clause */
/* The egress resequencer (see reseq.h for the rules it keeps).
 *
 * A ring of capacity slots indexed by gseq & mask holds, for each global
 * sequence number in [head, head + capacity), either a buffered packet, a
 * "known lost" mark, or nothing.  Slots behind the head keep what happened
 * to their last sequence number (released or given up) so that a duplicate
 * can be told from a late packet while its slot has not been reused.
 * Beyond that, for RESENT copies only, the history bits (gone) say which
 * sequence numbers the head gave up and nothing released since: every
 * sequence number passes the head once, released (release_head,
 * pass_out) or given up (skip_head), which writes its bit.
 *
 * A hole's wait starts when the first packet beyond it arrives, which is the
 * earliest arrival among buffered packets.  Arrivals are taken as monotonic
 * (the daemon passes kernel stamps, which may come a little out of order:
 * note_late guards the age it takes from them), so a
 * FIFO of buffered sequence numbers in arrival order, pruned lazily of the
 * ones already released, gives that earliest arrival in O(1) amortised.
 * While its front packet stays buffered every entry lies within two
 * capacities of sequence space, so 2 * capacity entries always suffice.
 *
 * Per-flow release: a packet whose header names its flow's previous packet
 * (fgap) or says it has none (FLOW_FIRST) goes out as soon as that packet
 * is out or given up, ahead of the head; its slot is then SLOT_OUT until
 * the head passes it.  A packet still waiting for its predecessor is
 * recorded in the predecessor's slot (waiter), which may still be empty:
 * w_of says whose waiter it is, so that a slot reused for a later sequence
 * number never wakes the wrong packet.  Each packet has at most one
 * successor in its flow, so the waiters form chains, woken in a loop.
 * Packets with fgap 0 and no flag keep the global order, as before.
 * Packets released ahead of the head stay in the arrival FIFO: a hole's
 * wait starts when the first packet beyond it arrived, whichever flow.
 */
#include "egress/reseq.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/seq.h"

enum slot_state {
	SLOT_EMPTY = 0,
	SLOT_PKT,      /* buffered packet */
	SLOT_LOST,     /* known lost (early release), not yet at the head */
	SLOT_REPAIR,   /* lost, a copy asked for (arrival_us: when): a hole
			* that waits for it */
	SLOT_RELEASED, /* behind the head: was released */
	SLOT_SKIPPED,  /* behind the head: was given up */
	SLOT_OUT,      /* ahead of the head: released for its flow */
};

struct egr_reseq_slot {
	uint32_t gseq;
	uint8_t state;
	bool flow;	 /* SLOT_PKT waits for dep only, not the head */
	bool has_waiter; /* waiter waits for w_of */
	bool resent;	 /* the copy kept came with WIRE_F_RESENT */
	bool copy;	 /* it was sent on several paths (WIRE_F_DUP on
			  * one of them): its other copies are no dup */
	uint32_t dep;
	uint32_t w_of;
	uint32_t waiter;
	uint64_t arrival_us; /* SLOT_SKIPPED: when its wait began (the first
			      * packet beyond it arrived) if it was given up
			      * for its timeout, 0 otherwise */
	uint64_t skip_us;    /* SLOT_SKIPPED: when it was given up */
	uint64_t cookie;
};

enum { RESEQ_MAX_CAPACITY = 1u << 20 };

static struct egr_reseq_slot *slot_of(const struct egr_reseq *r, uint32_t g)
{
	return &r->slot[g & r->mask];
}

static bool holds(const struct egr_reseq *r, uint32_t g, enum slot_state st)
{
	const struct egr_reseq_slot *s = slot_of(r, g);

	return s->state == st && s->gseq == g;
}

/* The history bits: RESEQ_HIST_MUL * capacity, at least one word. */
static uint32_t gone_bits(const struct egr_reseq *r)
{
	return r->p.capacity * RESEQ_HIST_MUL;
}

static size_t gone_words(const struct egr_reseq *r)
{
	return (gone_bits(r) + 63) / 64;
}

static void set_gone(struct egr_reseq *r, uint32_t g, bool gone)
{
	uint32_t i = g & (gone_bits(r) - 1);
	uint64_t bit = UINT64_C(1) << (i & 63);

	if (gone) {
		r->gone[i >> 6] |= bit;
	} else {
		r->gone[i >> 6] &= ~bit;
	}
}

static bool is_gone(const struct egr_reseq *r, uint32_t g)
{
	uint32_t i = g & (gone_bits(r) - 1);

	return (r->gone[i >> 6] >> (i & 63)) & 1;
}

static bool params_ok(const struct egr_reseq_params *p)
{
	return p->t_lto_us > 0 && p->capacity >= 2 &&
	       p->capacity <= RESEQ_MAX_CAPACITY &&
	       (p->capacity & (p->capacity - 1)) == 0;
}

int egr_reseq_init(struct egr_reseq *r, const struct egr_reseq_params *p,
		   unsigned npaths, egr_release_fn fn, void *ctx)
{
	if (!params_ok(p) || npaths == 0 || npaths > WIRE_MAX_PATHS || !fn) {
		return -EINVAL;
	}
	*r = (struct egr_reseq){.p = *p,
				.release = fn,
				.ctx = ctx,
				.npaths = npaths,
				.mask = p->capacity - 1};
	for (unsigned i = 0; i < npaths; i++) {
		r->path_up[i] = true;
	}
	return 0;
}

/* The buffer is taken when the first packet comes (or when the owner
 * asks): a concentrator's CPEs that send nothing cost none of it. */
int egr_reseq_alloc(struct egr_reseq *r)
{
	if (r->slot) {
		return 0;
	}
	r->slot = calloc(r->p.capacity, sizeof(*r->slot));
	r->arrivals = calloc(2 * (size_t)r->p.capacity, sizeof(*r->arrivals));
	r->gone = calloc(gone_words(r), sizeof(*r->gone));
	if (!r->slot || !r->arrivals || !r->gone) {
		egr_reseq_free(r);
		return -ENOMEM;
	}
	return 0;
}

void egr_reseq_free(struct egr_reseq *r)
{
	free(r->slot);
	free(r->arrivals);
	free(r->gone);
	r->slot = NULL;
	r->arrivals = NULL;
	r->gone = NULL;
}

int egr_reseq_set_params(struct egr_reseq *r, const struct egr_reseq_params *p)
{
	if (!params_ok(p) || p->capacity != r->p.capacity) {
		return -EINVAL;
	}
	r->p = *p;
	return 0;
}

static void wake(struct egr_reseq *r, uint32_t g);

/* A copy kept in slot s: whether it was sent again, and it filled a
 * hole (it is released as the original would be). */
static void note_resent(struct egr_reseq *r, struct egr_reseq_slot *s,
			uint32_t g, uint8_t flags)
{
	if (s->state == SLOT_REPAIR && s->gseq == g &&
	    (flags & WIRE_F_RESENT)) {
		r->st.repair_filled++;
	}
	s->resent = (flags & WIRE_F_RESENT) != 0;
	s->copy = (flags & WIRE_F_DUP) != 0;
	if (s->resent) {
		r->st.resent_filled++;
	}
}

/* A packet that arrived twice.  When either copy was sent again after
 * its path failed, that is the failover working (the original was only
 * late, or the copy was), not a duplicate on the way: counted apart; so
 * is a redundant class's second copy (WIRE_F_DUP on either). */
static enum egr_verdict drop_dup(struct egr_reseq *r,
				 const struct egr_reseq_slot *s, uint8_t flags)
{
	if ((flags & WIRE_F_DUP) || s->copy) {
		r->st.copy_dup++;
	} else if ((flags & WIRE_F_RESENT) || s->resent) {
		r->st.resent_dup++;
	} else {
		r->st.dup++;
	}
	return EGR_DROP_DUP;
}

/* A buffered packet leaves: the time it waited. */
static void account_hold(struct egr_reseq *r, const struct egr_reseq_slot *s)
{
	if (r->now_us > s->arrival_us) {
		r->st.hold_us += r->now_us - s->arrival_us;
	}
	r->st.held++;
}

/* Hands the head packet out and moves the head on. */
static void release_head(struct egr_reseq *r)
{
	struct egr_reseq_slot *s = slot_of(r, r->next);
	uint32_t g = r->next;

	if (s->arrival_us) {
		account_hold(r, s);
	}
	s->state = SLOT_RELEASED;
	set_gone(r, g, false);
	r->count--;
	r->st.released++;
	r->release(r->ctx, s->cookie, g);
	r->next++;
	wake(r, g);
}

/* Hands out packet g ahead of the head: its flow's previous packet is out
 * or given up.  waited: it was buffered (else it goes on arrival). */
static void release_flow(struct egr_reseq *r, uint32_t g, bool waited)
{
	struct egr_reseq_slot *s = slot_of(r, g);

	if (waited) {
		account_hold(r, s);
		r->st.flow_early++;
	} else {
		r->st.flow_now++;
	}
	s->state = SLOT_OUT;
	r->count--;
	r->ahead++;
	r->st.released++;
	r->release(r->ctx, s->cookie, g);
}

/* How long after its hole was given up a packet is still released late:
 * the timeout, or the longest it may grow to (egr_reseq_set_late_window)
 * if that is longer. */
static uint32_t late_window(const struct egr_reseq *r)
{
	return r->late_window_us > r->p.t_lto_us ? r->late_window_us
						 : r->p.t_lto_us;
}

/* A packet came to the hole of slot s, given up: the wait it would have
 * needed, for the reorder timeout's floor (egress.h), if the hole was
 * given up for its timeout (not a packet known lost that came after all:
 * no timeout would have been right; nor one given up in a heal's grace:
 * skip_head_from's 0) and came after the wait began: kernel stamps are
 * not read in their order (a packet held on another CPU's backlog, a
 * realtime clock stepped between two drains), and one stamped before the
 * first packet beyond its hole came in time; its age would wrap and set
 * the floor at the ceiling. */
static void note_late(struct egr_reseq *r, const struct egr_reseq_slot *s)
{
	uint64_t need;

	if (!s->arrival_us || r->now_us <= s->arrival_us ||
	    r->now_us < r->late_grace_us) {
		return; /* nor a heal's lag: the cut's queue, not the paths' */
	}
	need = r->now_us - s->arrival_us;
	need = need > UINT32_MAX ? UINT32_MAX : need;
	if (need > r->late_need_us) {
		r->late_need_us = (uint32_t)need;
	}
}

uint32_t egr_reseq_take_late_need(struct egr_reseq *r)
{
	uint32_t n = r->late_need_us;

	r->late_need_us = 0;
	return n;
}

/* Hands out packet g, behind the head, whose hole was given up. */
static enum egr_verdict release_late(struct egr_reseq *r, uint32_t g,
				     uint64_t cookie, uint8_t flags)
{
	set_gone(r, g, false);
	if (flags & WIRE_F_RESENT) {
		r->st.resent_late++;
	} else {
		r->st.late++;
	}
	r->st.released++;
	r->release(r->ctx, cookie, g);
	return EGR_RELEASED;
}

/* Gives up the hole at the head, whose wait began at from_us (its timeout;
 * 0: given up for another reason). */
static void skip_head_from(struct egr_reseq *r, uint64_t *counter,
			   uint64_t from_us)
{
	struct egr_reseq_slot *s = slot_of(r, r->next);
	uint32_t g = r->next;

	s->state = SLOT_SKIPPED;
	s->gseq = g;
	s->skip_us = r->now_us;
	s->arrival_us = from_us;
	set_gone(r, g, true);
	(*counter)++;
	r->next++;
	wake(r, g);
}

static void skip_head(struct egr_reseq *r, uint64_t *counter)
{
	skip_head_from(r, counter, 0);
}

/* The head reaches a packet already released for its flow. */
static void pass_out(struct egr_reseq *r)
{
	slot_of(r, r->next)->state = SLOT_RELEASED;
	set_gone(r, r->next, false);
	r->ahead--;
	r->next++;
}

/* Packet g is out or given up: the packets of its flow that waited for it
 * go, each in turn freeing the next.  One that reached the head meanwhile
 * is left to the head. */
static void wake(struct egr_reseq *r, uint32_t g)
{
	for (;;) {
		struct egr_reseq_slot *s = slot_of(r, g);
		struct egr_reseq_slot *w;
		uint32_t x;

		if (!s->has_waiter || s->w_of != g) {
			return;
		}
		s->has_waiter = false;
		x = s->waiter;
		w = slot_of(r, x);
		if (!holds(r, x, SLOT_PKT) || !w->flow || w->dep != g ||
		    x == r->next) {
			return;
		}
		release_flow(r, x, true);
		g = x;
	}
}

/* Whether packet g of a flow may go: its predecessor dep is behind the
 * head (released or given up) or out for its flow.  Not when dep is known
 * lost ahead of the head: dep's own header, which named the packet before
 * it in the flow, never came, so that one may still be on its way; the
 * flow waits until the head passes dep. */
static bool dep_done(const struct egr_reseq *r, uint32_t dep)
{
	return seq_before(dep, r->next) || holds(r, dep, SLOT_OUT);
}

/* A path's highest delivered gseq, if it still means something: a path
 * that stayed idle while 2^31 numbers went by would otherwise look ahead of
 * the head.  A real top is never capacity or more ahead of the head. */
static bool top_valid(const struct egr_reseq *r, unsigned path)
{
	return r->path_seen[path] &&
	       seq_diff(r->path_top[path], r->next) < (int32_t)r->p.capacity;
}

/* FIFO paths: once every path that is up has delivered something after g,
 * g cannot arrive any more.  With no path up, nothing is waited for. */
static bool all_passed(const struct egr_reseq *r, uint32_t g)
{
	for (unsigned i = 0; i < r->npaths; i++) {
		if (!r->path_up[i]) {
			continue;
		}
		if (!top_valid(r, i) || !seq_after(r->path_top[i], g)) {
			return false;
		}
	}
	return true;
}

static bool waiting_or_out(const struct egr_reseq *r, uint32_t g)
{
	return holds(r, g, SLOT_PKT) || holds(r, g, SLOT_OUT);
}

/* Drops the arrival FIFO's front entries that are no longer buffered, so
 * that the earliest arrival is found in O(1). */
static void prune_arrivals(struct egr_reseq *r)
{
	uint32_t amask = 2 * r->p.capacity - 1;

	while (r->arr_head != r->arr_tail &&
	       !waiting_or_out(r, r->arrivals[r->arr_head & amask])) {
		r->arr_head++;
	}
}

/* Releases what is in order at the head, giving up holes that are known
 * lost; passed_counter, when set, also gives up holes every live path has
 * passed. */
static void drain(struct egr_reseq *r, uint64_t *passed_counter)
{
	while (r->count + r->ahead > 0) {
		if (holds(r, r->next, SLOT_PKT)) {
			release_head(r);
		} else if (holds(r, r->next, SLOT_OUT)) {
			pass_out(r);
		} else if (holds(r, r->next, SLOT_LOST)) {
			skip_head(r, &r->st.hole_early);
		} else if (holds(r, r->next, SLOT_REPAIR)) {
			break; /* its copy may come: the timeout decides */
		} else if (passed_counter && all_passed(r, r->next)) {
			skip_head(r, passed_counter);
		} else {
			break;
		}
	}
	prune_arrivals(r);
}

static void drain_normal(struct egr_reseq *r)
{
	drain(r, r->p.early_release ? &r->st.hole_early : NULL);
}

static void mark_lost(struct egr_reseq *r, uint32_t g, bool repair)
{
	struct egr_reseq_slot *s = slot_of(r, g);
	int32_t d = seq_diff(g, r->next);

	if (d < 0 || (uint32_t)d >= r->p.capacity || holds(r, g, SLOT_PKT) ||
	    holds(r, g, SLOT_OUT)) {
		return;
	}
	s->state = repair ? SLOT_REPAIR : SLOT_LOST;
	s->gseq = g;
	s->arrival_us = r->now_us;
}

/* Packet g arrived on a path whose previous delivery was prev, with missing
 * packets lost in between on that path.  Those lie in (prev, g); if that
 * range (all at or after the head) holds exactly missing packets not yet
 * here, they are the ones: no other path can fill any of them.  Otherwise
 * pgap still names the last one.  With repair, every packet of the range
 * not here waits for a copy (SLOT_REPAIR).  The scan is bounded by the
 * capacity and happens only on loss. */
static void mark_path_loss(struct egr_reseq *r, bool prev_ok, uint32_t prev,
			   uint32_t g, uint32_t missing, uint16_t pgap,
			   bool repair)
{
	uint32_t span = g - prev - 1, unknown = 0;

	if (prev_ok && seq_diff(prev + 1, r->next) >= 0 && span >= missing &&
	    span < r->p.capacity) {
		/* here: waiting, or out ahead of the head for its flow */
		for (uint32_t x = prev + 1; x != g; x++) {
			unknown += !waiting_or_out(r, x);
		}
		if (unknown == missing || repair) {
			/* (copies asked for: every packet not here waits
			 * for its copy, not only the last; one in flight on
			 * another path fills its slot as before) */
			for (uint32_t x = prev + 1; x != g; x++) {
				mark_lost(r, x, repair);
			}
			return;
		}
	}
	if (pgap != 0) {
		mark_lost(r, g - pgap, repair);
	}
}

/* Moves the head forward to target, releasing buffered packets on the way.
 * At most capacity slots are walked however far target is. */
static void force_head(struct egr_reseq *r, uint32_t target)
{
	r->st.overflow++;
	while (r->count + r->ahead > 0 && seq_before(r->next, target)) {
		if (holds(r, r->next, SLOT_PKT)) {
			release_head(r);
		} else if (holds(r, r->next, SLOT_OUT)) {
			pass_out(r);
		} else {
			skip_head(r, &r->st.hole_overflow);
		}
	}
	if (seq_before(r->next, target)) {
		r->next = target;
	}
}

static void arrival_push(struct egr_reseq *r, uint32_t g)
{
	uint32_t amask = 2 * r->p.capacity - 1;

	if (r->arr_tail - r->arr_head > amask) {
		/* Cannot happen (see the top of the file); stay bounded. */
		r->arr_head++;
	}
	r->arrivals[r->arr_tail++ & amask] = g;
}

/* The buffered packet that arrived first, or NULL. */
static const struct egr_reseq_slot *first_arrival(const struct egr_reseq *r,
						  uint32_t *pos)
{
	uint32_t amask = 2 * r->p.capacity - 1;

	for (uint32_t i = *pos; i != r->arr_tail; i++) {
		uint32_t g = r->arrivals[i & amask];

		if (waiting_or_out(r, g)) {
			*pos = i;
			return slot_of(r, g);
		}
	}
	*pos = r->arr_tail;
	return NULL;
}

enum egr_verdict egr_reseq_push(struct egr_reseq *r, uint32_t g, unsigned path,
				uint32_t missing, uint16_t pgap,
				uint64_t now_us, uint64_t cookie)
{
	return egr_reseq_push_flow(r, g, path, missing, pgap, false, 0, 0,
				   now_us, cookie);
}

enum egr_verdict egr_reseq_push_flow(struct egr_reseq *r, uint32_t g,
				     unsigned path, uint32_t missing,
				     uint16_t pgap, bool repair, uint16_t fgap,
				     uint8_t flags, uint64_t now_us,
				     uint64_t cookie)
{
	struct egr_reseq_slot *s;
	bool prev_ok, flow;
	uint32_t prev, dep = 0;
	int32_t d;

	if (path >= r->npaths) {
		return EGR_DROP_PATH;
	}
	if (!r->slot && egr_reseq_alloc(r) < 0) {
		return EGR_DROP_NOMEM;
	}
	r->now_us = now_us;
	if (!r->started) {
		r->started = true;
		r->next = g;
	}
	r->path_last_us[path] = now_us;
	prev_ok = top_valid(r, path);
	prev = r->path_top[path];
	if (!prev_ok || seq_after(g, prev)) {
		r->path_seen[path] = true;
		r->path_top[path] = g;
	}
	if ((r->p.early_release || repair) && missing > 0) {
		mark_path_loss(r, prev_ok && seq_after(g, prev), prev, g,
			       missing, pgap, repair);
	}

	d = seq_diff(g, r->next);
	if (d < 0) {
		if ((uint32_t) - (int64_t)d < r->p.capacity &&
		    holds(r, g, SLOT_RELEASED)) {
			return drop_dup(r, slot_of(r, g), flags);
		}
		if ((uint32_t) - (int64_t)d < r->p.capacity &&
		    holds(r, g, SLOT_SKIPPED) &&
		    ((flags & WIRE_F_RESENT) || r->now_us < r->late_grace_us ||
		     r->now_us <= slot_of(r, g)->skip_us ||
		     r->now_us - slot_of(r, g)->skip_us <= late_window(r))) {
			/* after its hole was given up (the reorder timeout
			 * was shorter than this path's lag, or a copy sent
			 * again after its path failed): out of order is
			 * better than lost.  TCP takes it as reordering (a
			 * fast retransmit it undoes on the DSACK), a jitter
			 * buffer as a late packet; dropped, it would be a
			 * loss to repair.  Its slot says released so that
			 * another copy is a dup.  Not a packet that comes
			 * more than the longest timeout after that: its path
			 * is bloated (a queue far longer than the others'),
			 * and the drop is the congestion signal its TCP
			 * senders need, as an AQM drops what sat too long
			 * (released, cubic filled 200-ms buffers: 170 ms
			 * added to a ping under RRUL instead of 80).  One
			 * that arrived (its kernel stamp) before the hole was
			 * given up came in time, read after the timeout
			 * fired: late, however the clock wrapped. */
			if (!(flags & WIRE_F_RESENT)) {
				note_late(r, slot_of(r, g));
			}
			slot_of(r, g)->state = SLOT_RELEASED;
			slot_of(r, g)->resent = (flags & WIRE_F_RESENT) != 0;
			return release_late(r, g, cookie, flags);
		}
		if ((flags & WIRE_F_RESENT) &&
		    (uint32_t) - (int64_t)d < gone_bits(r) && is_gone(r, g)) {
			/* a copy later than the ring remembers: its hole was
			 * given up, nothing released since (gone) */
			r->st.resent_far++;
			return release_late(r, g, cookie, flags);
		}
		if ((flags & WIRE_F_DUP) &&
		    !((uint32_t) - (int64_t)d < r->p.capacity &&
		      holds(r, g, SLOT_SKIPPED))) {
			/* its other copy came first, its slot since reused
			 * (a hole given up: every copy was too late) */
			r->st.copy_dup++;
		} else if (flags & WIRE_F_RESENT) {
			r->st.resent_too_old++;
		} else {
			if ((uint32_t) - (int64_t)d < r->p.capacity &&
			    holds(r, g, SLOT_SKIPPED)) {
				/* its hole is known: the floor may grow to
				 * the ceiling, t_lto_ms (egress.h) */
				note_late(r, slot_of(r, g));
			}
			r->st.too_old++;
		}
		return EGR_DROP_LATE;
	}
	if ((uint32_t)d >= r->p.capacity) {
		force_head(r, g - r->p.capacity + 1);
	}

	s = slot_of(r, g);
	if (g == r->next) {
		note_resent(r, s, g, flags);
		s->state = SLOT_PKT;
		s->gseq = g;
		s->cookie = cookie;
		s->arrival_us = 0;
		r->count++;
		r->st.in_order++;
		release_head(r);
		drain_normal(r);
		return EGR_RELEASED;
	}
	if (holds(r, g, SLOT_PKT) || holds(r, g, SLOT_OUT)) {
		/* Its path bookkeeping above may still free the head. */
		drop_dup(r, s, flags);
		drain_normal(r);
		return EGR_DROP_DUP;
	}
	note_resent(r, s, g, flags);
	/* Per flow: FLOW_FIRST waits for nothing, fgap names the packet it
	 * waits for (never beyond the window: behind the head, it is done) */
	flow = (flags & WIRE_F_FLOW_FIRST) || fgap != 0;
	if (fgap != 0) {
		dep = g - fgap;
	}
	s->state = SLOT_PKT;
	s->gseq = g;
	s->flow = flow;
	s->dep = dep;
	s->arrival_us = now_us;
	s->cookie = cookie;
	r->count++;
	arrival_push(r, g);
	if (flow && ((flags & WIRE_F_FLOW_FIRST) || dep_done(r, dep))) {
		release_flow(r, g, false);
		wake(r, g);
		drain_normal(r);
		return EGR_RELEASED;
	}
	r->st.buffered++;
	if (flow) {
		struct egr_reseq_slot *ps = slot_of(r, dep);

		ps->has_waiter = true;
		ps->w_of = dep;
		ps->waiter = g;
	}
	drain_normal(r);
	return holds(r, g, SLOT_PKT) ? EGR_BUFFERED : EGR_RELEASED;
}

/* When the hole before the first packet that arrived (at first_us) is
 * given up: t_lto after it, or later while a path that may have carried
 * it fell silent and its copy may still come (egr_reseq_set_resend_wait). */
static uint64_t hole_deadline(const struct egr_reseq *r, uint64_t first_us)
{
	uint64_t t = first_us + r->p.t_lto_us, x;

	if (holds(r, r->next, SLOT_REPAIR)) {
		/* its copy comes a round trip after the request */
		x = slot_of(r, r->next)->arrival_us + r->repair_wait_us;
		if (x > t) {
			t = x;
		}
	}

	if (!r->resend_wait_us) {
		return t;
	}
	for (unsigned i = 0; i < r->npaths; i++) {
		if (!r->path_up[i] || !r->path_seen[i] ||
		    r->path_last_us[i] >= first_us) {
			continue;
		}
		x = r->path_last_us[i] + r->resend_wait_us;
		if (x > t) {
			t = x;
		}
	}
	return t;
}

void egr_reseq_poll(struct egr_reseq *r, uint64_t now_us)
{
	r->now_us = now_us;
	while (r->count + r->ahead > 0) {
		const struct egr_reseq_slot *first =
			first_arrival(r, &r->arr_head);
		uint64_t due;

		if (!first) {
			break;
		}
		due = hole_deadline(r, first->arrival_us);
		if (now_us < due) {
			break;
		}
		if (holds(r, r->next, SLOT_REPAIR)) {
			r->st.repair_timeout++;
		} else if (due > first->arrival_us + r->p.t_lto_us) {
			r->st.resend_waits++;
		}
		/* in a heal's grace the wait teaches nothing (note_late) */
		skip_head_from(r, &r->st.hole_timeout,
			       now_us < r->late_grace_us ? 0
							 : first->arrival_us);
		drain_normal(r);
	}
}

void egr_reseq_set_resend_wait(struct egr_reseq *r, uint32_t us)
{
	r->resend_wait_us = us;
}

void egr_reseq_set_late_window(struct egr_reseq *r, uint32_t us)
{
	r->late_window_us = us;
}

void egr_reseq_set_repair_wait(struct egr_reseq *r, uint32_t us)
{
	r->repair_wait_us = us;
}

void egr_reseq_late_grace(struct egr_reseq *r, uint64_t until_us)
{
	r->late_grace_us = until_us;
}

bool egr_reseq_deadline(const struct egr_reseq *r, uint64_t *when_us)
{
	uint32_t pos = r->arr_head;
	const struct egr_reseq_slot *first;

	if (r->count + r->ahead == 0) {
		return false;
	}
	first = first_arrival(r, &pos);
	if (!first) {
		return false;
	}
	*when_us = hole_deadline(r, first->arrival_us);
	return true;
}

void egr_reseq_set_path_up(struct egr_reseq *r, unsigned path, bool up)
{
	if (path >= r->npaths) {
		return;
	}
	r->path_up[path] = up;
	if (!up) {
		drain(r, &r->st.hole_path_down);
	}
}

void egr_reseq_flush(struct egr_reseq *r)
{
	while (r->count + r->ahead > 0) {
		if (holds(r, r->next, SLOT_PKT)) {
			release_head(r);
		} else if (holds(r, r->next, SLOT_OUT)) {
			pass_out(r);
		} else {
			skip_head(r, &r->st.hole_flush);
		}
	}
	r->arr_head = r->arr_tail;
}

void egr_reseq_reset(struct egr_reseq *r)
{
	egr_reseq_flush(r);
	if (r->slot) {
		memset(r->slot, 0, (size_t)r->p.capacity * sizeof(*r->slot));
		memset(r->gone, 0, gone_words(r) * sizeof(*r->gone));
	}
	r->arr_head = r->arr_tail = 0;
	r->started = false;
	r->late_grace_us = 0;
	r->late_need_us = 0;
	memset(r->path_seen, 0, sizeof(r->path_seen));
}
