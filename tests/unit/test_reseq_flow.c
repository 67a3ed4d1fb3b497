/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests of the resequencer's per-flow release (egress/reseq.c,
 * egr_reseq_push_flow), written from reseq.h's rules:
 * - vectors: a sparse flow is not held behind another flow's hole; a
 *   flow's packets wait for their own hole and go, in order, when it is
 *   filled or given up (timeout, early release, path down, flush);
 *   packets without flow information keep the global order; duplicates of
 *   packets released ahead of the head are refused;
 * - a randomized test over two paths of different delays with loss and
 *   duplicates, against the rules: every packet that arrives is released
 *   exactly once, in order within its flow; none waits once its flow's
 *   previous packet is out or given up; a packet without flow information
 *   is released only at the head of the global order;
 * - copies sent again after their path failed (WIRE_F_RESENT, issue 14): a
 *   copy that fills a hole is released as the original would be (at the
 *   head, or for its flow); a packet that arrived twice is dropped and
 *   counted resent_dup (not dup) when either copy was RESENT, a RESENT
 *   copy after its hole was given up released out of order, resent_late
 *   (not late), also when its slot was reused since (the history bits:
 *   resent_far), up to RESEQ_HIST_MUL capacities behind; with
 *   egr_reseq_set_resend_wait a hole waits for its copy while a path that
 *   may have carried it has fallen silent, and only then.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/seq.h"
#include "common/wire.h"
#include "egress/reseq.h"

enum { CAP = 256, MAXG = 4096 };

struct log {
	unsigned n;
	uint32_t g[MAXG];
	struct egr_reseq *r;
	/* randomized test: what is known of each gseq */
	bool global[MAXG]; /* no flow information */
	unsigned released[MAXG];
};

static void on_release(void *ctx, uint64_t cookie, uint32_t g)
{
	struct log *l = ctx;

	assert_int_equal(cookie, (uint64_t)g * 10 + 7);
	assert_true(l->n < MAXG);
	l->g[l->n++] = g;
	if (g < MAXG) {
		l->released[g]++;
		/* global order: only at the head */
		if (l->global[g]) {
			assert_int_equal(g, l->r->next);
		}
	}
}

static void setup(struct egr_reseq *r, struct log *l, bool early)
{
	struct egr_reseq_params p = {
		.t_lto_us = 50000, .early_release = early, .capacity = CAP};

	memset(l, 0, sizeof(*l));
	l->r = r;
	assert_int_equal(egr_reseq_init(r, &p, 2, on_release, l), 0);
}

static enum egr_verdict push(struct egr_reseq *r, uint32_t g, unsigned path,
			     uint16_t fgap, uint8_t flags, uint64_t t)
{
	return egr_reseq_push_flow(r, g, path, 0, 0, false, fgap, flags, t,
				   (uint64_t)g * 10 + 7);
}

/* The same with the early-release inputs of a path's loss: missing
 * packets just before g on its path, and pgap. */
static enum egr_verdict push_loss(struct egr_reseq *r, uint32_t g,
				  unsigned path, uint32_t missing,
				  uint16_t pgap, uint16_t fgap, uint8_t flags,
				  uint64_t t)
{
	return egr_reseq_push_flow(r, g, path, missing, pgap, false, fgap,
				   flags, t, (uint64_t)g * 10 + 7);
}

static void want(const struct log *l, const uint32_t *g, unsigned n)
{
	if (l->n != n) {
		fail_msg("released %u packets, want %u", l->n, n);
	}
	for (unsigned i = 0; i < n; i++) {
		if (l->g[i] != g[i]) {
			fail_msg("release %u: gseq %u, want %u", i, l->g[i],
				 g[i]);
		}
	}
}

#define WANT(l, ...)                                                           \
	do {                                                                   \
		const uint32_t w_[] = {__VA_ARGS__};                           \
		want(l, w_, sizeof(w_) / sizeof(w_[0]));                       \
	} while (0)

/* Flow A: 0, 2, 4 on the slow path (1); flow B: 1, 3, 5 on the fast path
 * (0), each naming its predecessor.  B goes at once although A's 0 is
 * not here; A's 2 and 4 wait for 0 and go with it. */
static void test_two_flows(void **state)
{
	struct egr_reseq r;
	struct log l;

	(void)state;
	setup(&r, &l, false);
	assert_int_equal(push(&r, 0, 0, 0, WIRE_F_FLOW_FIRST, 10), EGR_RELEASED);
	/* the head is 1 now; A's 2 goes before 1 arrives?  It names 0,
	 * which is out: yes */
	assert_int_equal(push(&r, 2, 0, 2, 0, 11), EGR_RELEASED);
	/* B: 1 first of its flow, at the head */
	assert_int_equal(push(&r, 3, 0, 2, 0, 12), EGR_BUFFERED); /* names 1 */
	assert_int_equal(push(&r, 1, 1, 0, WIRE_F_FLOW_FIRST, 13),
			 EGR_RELEASED);
	WANT(&l, 0, 2, 1, 3);
	assert_int_equal(r.next, 4);
	assert_int_equal(r.st.flow_now, 1);   /* 2 */
	/* 3 went when 1 did, ahead of the head (at 2, out already) */
	assert_int_equal(r.st.flow_early, 1);
	/* a hole at 4 (flow A, slow path); B's 5 and 7 go at once, A's 6
	 * waits */
	assert_int_equal(push(&r, 5, 0, 2, 0, 20), EGR_RELEASED);
	assert_int_equal(push(&r, 7, 0, 2, 0, 21), EGR_RELEASED);
	assert_int_equal(push(&r, 6, 1, 2, 0, 22), EGR_BUFFERED);
	assert_int_equal(egr_reseq_depth(&r), 1);
	assert_int_equal(r.next, 4);
	WANT(&l, 0, 2, 1, 3, 5, 7);
	/* 4 arrives: 4, then 6 (its flow), and the head passes 5..7 */
	assert_int_equal(push(&r, 4, 1, 2, 0, 30), EGR_RELEASED);
	WANT(&l, 0, 2, 1, 3, 5, 7, 4, 6);
	assert_int_equal(r.next, 8);
	assert_int_equal(egr_reseq_depth(&r), 0);
	assert_int_equal(r.ahead, 0);
	/* 3 waited 1 us, 6 waited 8 */
	assert_int_equal(r.st.held, 2);
	assert_int_equal(r.st.hold_us, 9);
	/* duplicates: 7 is behind the head (released), 9 out ahead of it */
	assert_int_equal(push(&r, 7, 0, 2, 0, 31), EGR_DROP_DUP);
	assert_int_equal(push(&r, 10, 0, 3, 0, 32), EGR_RELEASED); /* 7->10 */
	assert_int_equal(push(&r, 10, 1, 3, 0, 33), EGR_DROP_DUP);
	WANT(&l, 0, 2, 1, 3, 5, 7, 4, 6, 10);
	egr_reseq_free(&r);
}

/* A flow's hole given up by the timeout: its waiting packets go in order;
 * the hole is timed from the first packet beyond it, of any flow. */
static void test_timeout(void **state)
{
	struct egr_reseq r;
	struct log l;
	uint64_t when;

	(void)state;
	setup(&r, &l, false);
	assert_int_equal(push(&r, 0, 0, 0, WIRE_F_FLOW_FIRST, 0), EGR_RELEASED);
	/* 1 (flow A) lost; 2 (flow B) goes at 1000 us; 3, 4 (flow A) wait */
	assert_int_equal(push(&r, 2, 0, 0, WIRE_F_FLOW_FIRST, 1000),
			 EGR_RELEASED);
	assert_int_equal(push(&r, 3, 0, 2, 0, 2000), EGR_BUFFERED);
	assert_int_equal(push(&r, 4, 0, 1, 0, 3000), EGR_BUFFERED);
	assert_true(egr_reseq_deadline(&r, &when));
	assert_int_equal(when, 51000); /* from 2's arrival */
	egr_reseq_poll(&r, 50999);
	WANT(&l, 0, 2);
	egr_reseq_poll(&r, 51000);
	WANT(&l, 0, 2, 3, 4);
	assert_int_equal(r.st.hole_timeout, 1);
	assert_int_equal(r.next, 5);
	assert_false(egr_reseq_deadline(&r, &when));
	/* the lost packet comes after all, 9 ms after its hole was given
	 * up: late, out of order */
	assert_int_equal(push(&r, 1, 1, 1, 0, 60000), EGR_RELEASED);
	WANT(&l, 0, 2, 3, 4, 1);
	assert_int_equal(r.st.late, 1);
	/* one more than t_lto after: its path is bloated, dropped */
	assert_int_equal(push(&r, 6, 0, 0, 0, 70000), EGR_BUFFERED);
	egr_reseq_poll(&r, 70000 + 50000);
	WANT(&l, 0, 2, 3, 4, 1, 6);
	assert_int_equal(push(&r, 5, 1, 0, 0, 120000 + 50000), EGR_RELEASED);
	assert_int_equal(push(&r, 7, 0, 0, 0, 120000 + 50001), EGR_RELEASED);
	WANT(&l, 0, 2, 3, 4, 1, 6, 5, 7);
	assert_int_equal(r.st.late, 2);
	assert_int_equal(push(&r, 5, 1, 0, 0, 170002), EGR_DROP_DUP);
	egr_reseq_poll(&r, 170003);
	assert_int_equal(push(&r, 9, 0, 0, 0, 170010), EGR_BUFFERED);
	egr_reseq_poll(&r, 170010 + 50000);
	assert_int_equal(push(&r, 8, 1, 0, 0, 220010 + 50001),
			 EGR_DROP_LATE);
	assert_int_equal(r.st.too_old, 1);
	assert_int_equal(r.st.late, 2);
	egr_reseq_free(&r);
}

/* Without flow information a packet keeps the global order; a flow packet
 * naming a global one waits for it; flush releases everything in order. */
static void test_global_and_flush(void **state)
{
	struct egr_reseq r;
	struct log l;

	(void)state;
	setup(&r, &l, false);
	assert_int_equal(push(&r, 0, 0, 0, 0, 0), EGR_RELEASED);
	assert_int_equal(push(&r, 2, 0, 0, 0, 1), EGR_BUFFERED); /* global */
	assert_int_equal(push(&r, 3, 0, 1, 0, 2), EGR_BUFFERED); /* names 2 */
	assert_int_equal(push(&r, 4, 0, 0, WIRE_F_FLOW_FIRST, 3),
			 EGR_RELEASED);
	assert_int_equal(push(&r, 6, 0, 2, 0, 4), EGR_RELEASED); /* names 4 */
	WANT(&l, 0, 4, 6);
	egr_reseq_flush(&r);
	WANT(&l, 0, 4, 6, 2, 3);
	assert_int_equal(r.st.hole_flush, 2); /* 1 and 5 */
	assert_int_equal(egr_reseq_depth(&r), 0);
	assert_int_equal(r.ahead, 0);
	assert_int_equal(r.next, 7);
	egr_reseq_free(&r);
}

/* A path goes down: its holes are given up and the flows waiting for them
 * go. */
static void test_path_down(void **state)
{
	struct egr_reseq r;
	struct log l;

	(void)state;
	setup(&r, &l, false);
	assert_int_equal(push(&r, 0, 0, 0, WIRE_F_FLOW_FIRST, 0), EGR_RELEASED);
	assert_int_equal(push(&r, 2, 0, 1, 0, 1), EGR_BUFFERED); /* names 1 */
	assert_int_equal(push(&r, 3, 0, 0, WIRE_F_FLOW_FIRST, 1),
			 EGR_RELEASED);
	egr_reseq_set_path_up(&r, 1, false);
	WANT(&l, 0, 3, 2);
	assert_int_equal(r.st.hole_path_down, 1);
	assert_int_equal(r.next, 4);
	egr_reseq_free(&r);
}

/* Randomized: flows over two FIFO paths (delays 10 and 30 ms plus FIFO
 * jitter), with loss, duplicates and some packets without flow
 * information, checked against the rules after every call. */
static void test_random(void **state)
{
	struct arrival {
		uint64_t t;
		uint32_t g;
		unsigned path;
		uint32_t lseq;
		uint16_t pgap;
		uint16_t fgap;
		uint8_t flags;
	};
	static struct arrival a[MAXG + MAXG / 8];
	static uint32_t flow_of[MAXG], prev_of[MAXG];
	static bool arrived[MAXG], waslate[MAXG];
	struct egr_reseq r;
	struct log l;
	unsigned n = 0, late = 0;

	(void)state;
	for (unsigned seed = 1; seed <= 20; seed++) {
		uint32_t last[8], lseq[2] = {0, 0}, plast[2] = {0, 0};
		uint32_t expect[2] = {0, 0};
		bool used[8] = {false}, pused[2] = {false, false};
		uint64_t path_t[2] = {0, 0};

		srand(seed);
		setup(&r, &l, seed % 2);
		memset(arrived, 0, sizeof(arrived));
		memset(waslate, 0, sizeof(waslate));
		n = 0;
		for (uint32_t g = 0; g < 2000; g++) {
			unsigned f = (unsigned)rand() % 8;
			unsigned path = (unsigned)rand() % 3 == 0;
			uint64_t t = (uint64_t)g * 100 +
				     (path ? 30000 : 10000) +
				     (uint64_t)(rand() % 5000);
			struct arrival *x = &a[n];

			flow_of[g] = f;
			l.global[g] = f == 7; /* flow 7 sends no fgap */
			x->g = g;
			x->path = path;
			x->lseq = lseq[path]++;
			x->pgap = pused[path] && g - plast[path] <= 65535
					  ? (uint16_t)(g - plast[path])
					  : 0;
			pused[path] = true;
			plast[path] = g;
			x->fgap = 0;
			x->flags = 0;
			if (f != 7) {
				if (used[f] && g - last[f] <= 65535) {
					x->fgap = (uint16_t)(g - last[f]);
				} else {
					x->flags = WIRE_F_FLOW_FIRST;
				}
			}
			prev_of[g] = used[f] ? last[f] : UINT32_MAX;
			used[f] = true;
			last[f] = g;
			/* FIFO per path */
			if (t < path_t[path]) {
				t = path_t[path];
			}
			path_t[path] = t;
			x->t = t;
			if (rand() % 50 == 0) {
				continue; /* lost */
			}
			n++;
			if (rand() % 100 == 0) {
				a[n] = *x; /* a duplicate on the same path */
				a[n].t++;
				n++;
			}
		}
		/* arrival order: by time, stable (sort by t, then index) */
		for (unsigned i = 1; i < n; i++) {
			struct arrival k = a[i];
			unsigned j = i;

			while (j > 0 && a[j - 1].t > k.t) {
				a[j] = a[j - 1];
				j--;
			}
			a[j] = k;
		}
		memset(expect, 0, sizeof(expect));
		for (unsigned i = 0; i < n; i++) {
			struct arrival *x = &a[i];
			uint32_t missing = 0;
			enum egr_verdict v;
			uint64_t late0 = r.st.late;

			/* the egress's loss count: a gap in the path's lseq
			 * (a duplicate is behind: none) */
			if (seq_diff(x->lseq, expect[x->path]) >= 0) {
				missing = x->lseq - expect[x->path];
				expect[x->path] = x->lseq + 1;
			}
			egr_reseq_poll(&r, x->t);
			v = push_loss(&r, x->g, x->path, missing, x->pgap,
				      x->fgap, x->flags, x->t);
			if (arrived[a[i].g]) {
				assert_true(v == EGR_DROP_DUP ||
					    v == EGR_DROP_LATE);
			} else if (v == EGR_DROP_LATE) {
				/* its slot reused since: cannot tell */
				assert_true(r.st.too_old > 0);
			} else {
				if (r.st.late > late0) {
					/* its hole was given up before it
					 * came: released out of order */
					assert_int_equal(v, EGR_RELEASED);
					waslate[a[i].g] = true;
					late++;
				}
				assert_true(v == EGR_RELEASED ||
					    v == EGR_BUFFERED);
				arrived[a[i].g] = true;
			}
			/* nothing waits whose flow's previous packet is
			 * out or behind the head */
			for (uint32_t g = r.next; seq_before(g, r.next + CAP) &&
						  g < 2000;
			     g++) {
				uint32_t pv = prev_of[g];

				if (!arrived[g] || l.released[g] ||
				    l.global[g]) {
					continue;
				}
				if (pv == UINT32_MAX ||
				    seq_before(pv, r.next) ||
				    l.released[pv]) {
					/* FLOW_FIRST, or its predecessor
					 * done: must be out, unless 65535
					 * away (never here) */
					fail_msg("seed %u: %u waits, its "
						 "flow's %u is done",
						 seed, g, pv);
				}
			}
		}
		egr_reseq_flush(&r);
		/* exactly once, in order within each flow but for the late
		 * ones */
		for (uint32_t g = 0; g < 2000; g++) {
			assert_int_equal(l.released[g], arrived[g] ? 1 : 0);
		}
		{
			int64_t top[8];

			for (int f = 0; f < 8; f++) {
				top[f] = -1;
			}
			for (unsigned i = 0; i < l.n; i++) {
				uint32_t g = l.g[i];

				if (waslate[g]) {
					continue;
				}
				if ((int64_t)g <= top[flow_of[g]]) {
					fail_msg("seed %u: flow %u released "
						 "%u after %lld",
						 seed, flow_of[g], g,
						 (long long)top[flow_of[g]]);
				}
				top[flow_of[g]] = g;
			}
		}
		assert_true(r.st.flow_now + r.st.flow_early > 0);
		egr_reseq_free(&r);
	}
	/* the timeout gave up some holes whose packet was only slow */
	print_message("late after their hole was given up: %u\n", late);
}

/* ---- copies sent again (WIRE_F_RESENT, issue 14) */

/* The cut path (0) lost 1 and 2; their copies come on path 1 and fill the
 * holes: 1, 2 and the buffered 3, 4 go in order. */
static void test_fills_hole(void **state)
{
	struct egr_reseq r;
	struct log l;

	(void)state;
	setup(&r, &l, false);
	assert_int_equal(push(&r, 0, 0, 0, 0, 10), EGR_RELEASED);
	assert_int_equal(push(&r, 3, 1, 0, 0, 20), EGR_BUFFERED);
	assert_int_equal(push(&r, 4, 1, 0, 0, 21), EGR_BUFFERED);
	assert_int_equal(push(&r, 2, 1, 0, WIRE_F_RESENT, 30), EGR_BUFFERED);
	assert_int_equal(push(&r, 1, 1, 0, WIRE_F_RESENT, 31), EGR_RELEASED);
	WANT(&l, 0, 1, 2, 3, 4);
	assert_int_equal(r.st.resent_filled, 2);
	assert_int_equal(r.st.hole_timeout, 0);
	/* the originals come after all (the path was only slow): copies
	 * that arrived twice, not duplicates on the way */
	assert_int_equal(push(&r, 1, 0, 0, 0, 40), EGR_DROP_DUP);
	assert_int_equal(push(&r, 2, 0, 0, 0, 41), EGR_DROP_DUP);
	assert_int_equal(r.st.resent_dup, 2);
	assert_int_equal(r.st.dup, 0);
	egr_reseq_free(&r);
}

/* The original came first: its copy is dropped, resent_dup, whether the
 * original was released or is still buffered. */
static void test_copy_after_original(void **state)
{
	struct egr_reseq r;
	struct log l;

	(void)state;
	setup(&r, &l, false);
	assert_int_equal(push(&r, 0, 0, 0, 0, 10), EGR_RELEASED);
	assert_int_equal(push(&r, 2, 0, 0, 0, 11), EGR_BUFFERED);
	/* released */
	assert_int_equal(push(&r, 0, 1, 0, WIRE_F_RESENT, 20), EGR_DROP_DUP);
	/* buffered */
	assert_int_equal(push(&r, 2, 1, 0, WIRE_F_RESENT, 21), EGR_DROP_DUP);
	assert_int_equal(r.st.resent_dup, 2);
	assert_int_equal(r.st.dup, 0);
	assert_int_equal(r.st.resent_filled, 0);
	/* a plain duplicate is still a dup */
	assert_int_equal(push(&r, 0, 0, 0, 0, 22), EGR_DROP_DUP);
	assert_int_equal(push(&r, 2, 0, 0, 0, 23), EGR_DROP_DUP);
	assert_int_equal(r.st.dup, 2);
	assert_int_equal(r.st.resent_dup, 2);
	WANT(&l, 0);
	egr_reseq_free(&r);
}

/* A redundant class's copies (WIRE_F_DUP on the copy): whichever comes
 * first is released, the other is a copy_dup (not a dup, not late),
 * buffered or released; a packet lost on one path is filled by its copy
 * on the other. */
static void test_redundant_copies(void **state)
{
	struct egr_reseq r;
	struct log l;

	(void)state;
	setup(&r, &l, false);
	/* 0: the original first (path 0), then the copy (path 1) */
	assert_int_equal(push(&r, 0, 0, 0, 0, 10), EGR_RELEASED);
	assert_int_equal(push(&r, 0, 1, 0, WIRE_F_DUP, 12), EGR_DROP_DUP);
	/* 1: the copy first, the original second */
	assert_int_equal(push(&r, 1, 1, 0, WIRE_F_DUP, 20), EGR_RELEASED);
	assert_int_equal(push(&r, 1, 0, 0, 0, 21), EGR_DROP_DUP);
	/* 2 lost on path 0, 3 buffered behind it; their copies fill */
	assert_int_equal(push(&r, 3, 0, 0, 0, 30), EGR_BUFFERED);
	assert_int_equal(push(&r, 3, 1, 0, WIRE_F_DUP, 31), EGR_DROP_DUP);
	assert_int_equal(push(&r, 2, 1, 0, WIRE_F_DUP, 32), EGR_RELEASED);
	WANT(&l, 0, 1, 2, 3);
	assert_int_equal(r.st.copy_dup, 3);
	assert_int_equal(r.st.dup, 0);
	assert_int_equal(r.st.late, 0);
	assert_int_equal(r.st.too_old, 0);
	assert_int_equal(r.st.resent_dup, 0);
	egr_reseq_free(&r);
}

/* A flow's packet lost at the cut: its copy keeps fgap and goes for its
 * flow, ahead of the global head, releasing the flow's next packet that
 * waited for it; a copy of a packet released for its flow is a
 * resent_dup. */
static void test_flow_copy(void **state)
{
	struct egr_reseq r;
	struct log l;

	(void)state;
	setup(&r, &l, false);
	/* flow A: 0, 2, 5; flow B: 1 (lost on the cut path), 3 */
	assert_int_equal(push(&r, 0, 0, 0, WIRE_F_FLOW_FIRST, 10),
			 EGR_RELEASED);
	assert_int_equal(push(&r, 2, 0, 2, 0, 11), EGR_RELEASED);
	assert_int_equal(push(&r, 5, 0, 3, 0, 12), EGR_RELEASED);
	assert_int_equal(push(&r, 3, 1, 2, 0, 13), EGR_BUFFERED);
	WANT(&l, 0, 2, 5);
	/* B's first packet, sent again on path 1 */
	assert_int_equal(push(&r, 1, 1, 0, WIRE_F_FLOW_FIRST | WIRE_F_RESENT,
			      20),
			 EGR_RELEASED);
	WANT(&l, 0, 2, 5, 1, 3);
	assert_int_equal(r.st.resent_filled, 1);
	/* a copy of 5 (out for its flow, not yet behind the head) */
	assert_int_equal(push(&r, 5, 1, 3, WIRE_F_RESENT, 21), EGR_DROP_DUP);
	assert_int_equal(r.st.resent_dup, 1);
	assert_int_equal(r.st.dup, 0);
	egr_reseq_free(&r);
}

/* The copy comes after its hole was given up: released at once, out of
 * order (resent_late, not late); a second copy is a resent_dup; a plain
 * packet whose hole was given up is released out of order too (late); a
 * copy whose slot was reused since is dropped (resent_too_old). */
static void test_copy_too_late(void **state)
{
	struct egr_reseq r;
	struct log l;

	(void)state;
	setup(&r, &l, false);
	assert_int_equal(push(&r, 0, 0, 0, 0, 0), EGR_RELEASED);
	assert_int_equal(push(&r, 2, 1, 0, 0, 1000), EGR_BUFFERED);
	egr_reseq_poll(&r, 1000 + 50000);
	WANT(&l, 0, 2);
	assert_int_equal(r.st.hole_timeout, 1);
	assert_int_equal(push(&r, 1, 1, 0, WIRE_F_RESENT, 60000),
			 EGR_RELEASED);
	WANT(&l, 0, 2, 1);
	assert_int_equal(r.st.resent_late, 1);
	assert_int_equal(r.st.late, 0);
	/* its original after all, and a second copy: dups */
	assert_int_equal(push(&r, 1, 0, 0, 0, 60001), EGR_DROP_DUP);
	assert_int_equal(push(&r, 1, 1, 0, WIRE_F_RESENT, 60002),
			 EGR_DROP_DUP);
	assert_int_equal(r.st.resent_dup, 2);
	/* a plain packet whose hole was given up: late, out of order too */
	assert_int_equal(push(&r, 4, 1, 0, 0, 61000), EGR_BUFFERED);
	egr_reseq_poll(&r, 61000 + 50000);
	WANT(&l, 0, 2, 1, 4);
	assert_int_equal(push(&r, 3, 0, 0, 0, 120000), EGR_RELEASED);
	WANT(&l, 0, 2, 1, 4, 3);
	assert_int_equal(r.st.late, 1);
	assert_int_equal(r.st.resent_late, 1);
	/* and its copy after it: a dup */
	assert_int_equal(push(&r, 3, 1, 0, WIRE_F_RESENT, 120001),
			 EGR_DROP_DUP);
	/* a copy of a packet released, whose slot was reused since: its
	 * history bit says released, dropped */
	for (uint32_t g = 5; g <= CAP + 3; g++) {
		assert_int_equal(push(&r, g, 1, 0, 0, 120000 + g),
				 EGR_RELEASED);
	}
	assert_int_equal(push(&r, 3, 1, 0, WIRE_F_RESENT, 130000),
			 EGR_DROP_LATE);
	assert_int_equal(r.st.resent_too_old, 1);
	assert_int_equal(r.st.resent_late, 1);
	egr_reseq_free(&r);
}

/* A copy later than the ring remembers (issue 14's case a: the live flow
 * moved the head on by more than capacity while the survivor's spare rate
 * carried the copies): released out of order if its hole was given up,
 * once (resent_far, in resent_late); a plain packet that late is dropped;
 * a copy further behind than RESEQ_HIST_MUL capacities too; a reset
 * forgets the history. */
static void test_copy_far(void **state)
{
	struct egr_reseq r;
	struct log l;
	uint32_t g;

	(void)state;
	setup(&r, &l, false);
	/* holes 1 and 2 given up */
	assert_int_equal(push(&r, 0, 0, 0, 0, 0), EGR_RELEASED);
	assert_int_equal(push(&r, 3, 1, 0, 0, 1000), EGR_BUFFERED);
	egr_reseq_poll(&r, 1000 + 50000);
	assert_int_equal(r.st.hole_timeout, 2);
	/* the head moves on by more than the ring */
	for (g = 4; g <= 2 * CAP; g++) {
		assert_int_equal(push(&r, g, 1, 0, 0, 60000 + g),
				 EGR_RELEASED);
	}
	assert_int_equal(push(&r, 1, 0, 0, WIRE_F_RESENT, 70000),
			 EGR_RELEASED);
	assert_int_equal(l.g[l.n - 1], 1);
	assert_int_equal(r.st.resent_far, 1);
	assert_int_equal(r.st.resent_late, 1);
	/* a second copy: its bit says released now */
	assert_int_equal(push(&r, 1, 0, 0, WIRE_F_RESENT, 70001),
			 EGR_DROP_LATE);
	assert_int_equal(r.st.resent_too_old, 1);
	/* the original of 2, not a copy: too late, dropped */
	assert_int_equal(push(&r, 2, 0, 0, 0, 70002), EGR_DROP_LATE);
	assert_int_equal(r.st.too_old, 1);
	assert_int_equal(r.st.late, 0);
	/* a copy of a packet released at the head: dropped */
	assert_int_equal(push(&r, 5, 0, 0, WIRE_F_RESENT, 70003),
			 EGR_DROP_LATE);
	assert_int_equal(r.st.resent_too_old, 2);
	/* hole 2's copy, once the head is RESEQ_HIST_MUL capacities on:
	 * its bit was written again for 2 + RESEQ_HIST_MUL * CAP, dropped */
	for (; g <= 2 + RESEQ_HIST_MUL * CAP; g++) {
		assert_int_equal(push(&r, g, 1, 0, 0, 80000 + g),
				 EGR_RELEASED);
	}
	assert_int_equal(push(&r, 2, 0, 0, WIRE_F_RESENT, 90000),
			 EGR_DROP_LATE);
	assert_int_equal(r.st.resent_too_old, 3);
	assert_int_equal(r.st.resent_far, 1);
	/* a reset forgets what was given up */
	assert_int_equal(push(&r, g + 1, 1, 0, 0, 90001), EGR_BUFFERED);
	egr_reseq_poll(&r, 90001 + 50000);
	assert_int_equal(r.st.hole_timeout, 3);
	egr_reseq_reset(&r);
	assert_int_equal(push(&r, g + 2, 0, 0, 0, 150000), EGR_RELEASED);
	for (uint32_t k = g + 3; k <= g + 2 + 2 * CAP; k++) {
		assert_int_equal(push(&r, k, 1, 0, 0, 150000 + k),
				 EGR_RELEASED);
	}
	assert_int_equal(push(&r, g, 0, 0, WIRE_F_RESENT, 160000),
			 EGR_DROP_LATE);
	assert_int_equal(r.st.resent_far, 1);
	egr_reseq_free(&r);
}

/* A slot reused for a later sequence number forgets that its earlier one
 * was a copy. */
static void test_slot_reuse(void **state)
{
	struct egr_reseq r;
	struct log l;

	(void)state;
	setup(&r, &l, false);
	assert_int_equal(push(&r, 0, 0, 0, WIRE_F_RESENT, 0), EGR_RELEASED);
	for (uint32_t g = 1; g <= CAP; g++) {
		assert_int_equal(push(&r, g, 0, 0, 0, g), EGR_RELEASED);
	}
	/* CAP lands in 0's slot: a plain duplicate of it is a dup */
	assert_int_equal(push(&r, CAP, 1, 0, 0, 100), EGR_DROP_DUP);
	assert_int_equal(r.st.dup, 1);
	assert_int_equal(r.st.resent_dup, 0);
	egr_reseq_free(&r);
}

/* egr_reseq_set_resend_wait: path 0 delivers 0 and 1 by 1 ms and falls
 * silent (cut); 3 arrives on path 1 at 10 ms.  The hole 2 waits until
 * 1 ms + the wait, not 10 ms + t_lto, and its copy fills it. */
static void test_wait_for_copy(void **state)
{
	struct egr_reseq r;
	struct log l;
	uint64_t when;

	(void)state;
	setup(&r, &l, false);
	egr_reseq_set_resend_wait(&r, 200000);
	assert_int_equal(push(&r, 0, 0, 0, 0, 0), EGR_RELEASED);
	assert_int_equal(push(&r, 1, 0, 0, 0, 1000), EGR_RELEASED);
	assert_int_equal(push(&r, 3, 1, 0, 0, 10000), EGR_BUFFERED);
	assert_true(egr_reseq_deadline(&r, &when));
	assert_int_equal(when, 1000 + 200000);
	egr_reseq_poll(&r, 100000);
	WANT(&l, 0, 1);
	assert_int_equal(push(&r, 2, 1, 0, WIRE_F_RESENT, 150000),
			 EGR_RELEASED);
	WANT(&l, 0, 1, 2, 3);
	assert_int_equal(r.st.hole_timeout, 0);
	assert_int_equal(r.st.resent_filled, 1);
	egr_reseq_free(&r);
}

/* No copy comes: the hole is given up at the end of the wait, counted. */
static void test_wait_gives_up(void **state)
{
	struct egr_reseq r;
	struct log l;

	(void)state;
	setup(&r, &l, false);
	egr_reseq_set_resend_wait(&r, 200000);
	assert_int_equal(push(&r, 0, 0, 0, 0, 0), EGR_RELEASED);
	assert_int_equal(push(&r, 2, 1, 0, 0, 10000), EGR_BUFFERED);
	egr_reseq_poll(&r, 200000 - 1);
	WANT(&l, 0);
	egr_reseq_poll(&r, 200000);
	WANT(&l, 0, 2);
	assert_int_equal(r.st.hole_timeout, 1);
	assert_int_equal(r.st.resend_waits, 1);
	egr_reseq_free(&r);
}

/* Path 0 delivers 0 at 0 (at `silent` when given), path 1 the packet 2
 * beyond the hole 1 at `beyond`; the hole's deadline. */
static uint64_t wait_case(uint32_t wait, uint64_t beyond, bool down,
			  bool later)
{
	struct egr_reseq r;
	struct log l;
	uint64_t when = 0;

	setup(&r, &l, false);
	egr_reseq_set_resend_wait(&r, wait);
	assert_int_equal(push(&r, 0, 0, 0, 0, 0), EGR_RELEASED);
	assert_int_equal(push(&r, 2, 1, 0, 0, beyond), EGR_BUFFERED);
	if (later) {
		/* path 0 delivers after the packet beyond the hole */
		assert_int_equal(push(&r, 5, 0, 0, 0, beyond + 2000),
				 EGR_BUFFERED);
	}
	if (down) {
		/* as egr_reseq_set_path_up, without its drain */
		r.path_up[0] = false;
	}
	assert_true(egr_reseq_deadline(&r, &when));
	egr_reseq_free(&r);
	return when;
}

/* What extends nothing: a path idle for longer than the wait, a path that
 * delivered after the packet beyond the hole, a path down, the wait off. */
static void test_wait_not(void **state)
{
	(void)state;
	/* the case that waits, for reference */
	assert_int_equal(wait_case(200000, 10000, false, false), 200000);
	assert_int_equal(wait_case(200000, 500000, false, false),
			 500000 + 50000);
	assert_int_equal(wait_case(200000, 10000, false, true), 10000 + 50000);
	assert_int_equal(wait_case(200000, 10000, true, false), 10000 + 50000);
	assert_int_equal(wait_case(0, 10000, false, false), 10000 + 50000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_flows),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_global_and_flush),
		cmocka_unit_test(test_path_down),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_fills_hole),
		cmocka_unit_test(test_copy_after_original),
		cmocka_unit_test(test_flow_copy),
		cmocka_unit_test(test_copy_too_late),
		cmocka_unit_test(test_copy_far),
		cmocka_unit_test(test_slot_reuse),
		cmocka_unit_test(test_wait_for_copy),
		cmocka_unit_test(test_wait_gives_up),
		cmocka_unit_test(test_wait_not),
		cmocka_unit_test(test_redundant_copies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
