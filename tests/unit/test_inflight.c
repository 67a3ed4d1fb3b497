/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests for the in-flight store (ingress/inflight.c).
 *
 * Written from ingress/inflight.h: acknowledgement (new, old, beyond what
 * was sent, across the 32-bit wrap of local sequence numbers), taking
 * (order, what a copy needs, a caller without room, a byte budget), the
 * pace of the copies (ing_repace), both bounds with
 * their overflow counter, the refusals; and a randomized differential test
 * against a naive store (a plain list) over many wraps of the byte ring.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ingress/inflight.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A packet's bytes: its gseq, then a pattern of it. */
static void fill(uint8_t *b, uint32_t len, uint32_t gseq)
{
	for (uint32_t i = 0; i < len; i++) {
		b[i] = (uint8_t)(gseq * 7 + i);
	}
}

static int add(struct ing_inflight *f, unsigned path, uint32_t lseq,
	       uint32_t gseq, uint32_t len)
{
	static uint8_t b[70000];
	struct wire_hdr h = {.lseq = lseq,
			     .gseq = gseq,
			     .fgap = (uint16_t)(gseq % 5),
			     .flags = gseq % 3 == 0 ? WIRE_F_FLOW_FIRST : 0,
			     .cls = (uint8_t)(gseq % 4)};

	fill(b, len, gseq);
	return ing_inflight_add(f, path, &h, b, len);
}

/* What a take handed over; refuses after `room` packets. */
struct got {
	unsigned n, room;
	uint32_t gseq[4096], lseq[4096];
	bool ok[4096];
};

static int collect(void *ctx, const struct ing_inflight_pkt *m,
		   const uint8_t *data)
{
	struct got *g = ctx;
	uint8_t want[1600];

	if (g->n >= g->room) {
		return -ENOBUFS;
	}
	fill(want, m->len, m->gseq);
	g->ok[g->n] = m->len <= sizeof(want) &&
		      memcmp(want, data, m->len) == 0 &&
		      m->fgap == m->gseq % 5 && m->cls == m->gseq % 4 &&
		      m->flags == (m->gseq % 3 == 0 ? WIRE_F_FLOW_FIRST : 0);
	g->gseq[g->n] = m->gseq;
	g->lseq[g->n] = m->lseq;
	g->n++;
	return 0;
}

static void init(struct ing_inflight *f, uint32_t pkts, uint32_t bytes)
{
	struct ing_inflight_params p = {.max_pkts = pkts, .max_bytes = bytes};

	assert_int_equal(ing_inflight_init(f, &p, 2), 0);
}

static void test_params(void **state)
{
	struct ing_inflight f;
	struct ing_inflight_params p = {.max_pkts = 64, .max_bytes = 4096};

	(void)state;
	assert_int_equal(ing_inflight_init(&f, &p, 0), -EINVAL);
	assert_int_equal(ing_inflight_init(&f, &p, WIRE_MAX_PATHS + 1),
			 -EINVAL);
	p.max_pkts = 48;
	assert_int_equal(ing_inflight_init(&f, &p, 1), -EINVAL);
	p.max_pkts = 1;
	assert_int_equal(ing_inflight_init(&f, &p, 1), -EINVAL);
	p.max_pkts = 64;
	p.max_bytes = ING_INFLIGHT_MIN_BYTES - 1;
	assert_int_equal(ing_inflight_init(&f, &p, 1), -EINVAL);
	/* 64 Mbit/s for 300 ms: 2.4 MB; a slow path gets the floor */
	assert_int_equal(ing_inflight_bytes_for(64000, 300), 2400000);
	assert_int_equal(ing_inflight_bytes_for(10, 10),
			 ING_INFLIGHT_MIN_BYTES);
	assert_int_equal(ing_inflight_bytes_for(UINT32_MAX, UINT32_MAX),
			 UINT32_MAX);
}

static void test_refusals(void **state)
{
	struct ing_inflight f;

	(void)state;
	init(&f, 8, 4096);
	assert_int_equal(add(&f, 2, 0, 0, 100), -EINVAL);
	assert_int_equal(add(&f, 0, 0, 0, 0), -EINVAL);
	assert_int_equal(add(&f, 0, 0, 0, 4097), -EMSGSIZE);
	assert_int_equal(f.path[0].st.too_big, 1);
	assert_int_equal(add(&f, 0, 10, 0, 100), 0);
	/* not after the last one kept */
	assert_int_equal(add(&f, 0, 10, 1, 100), -EALREADY);
	assert_int_equal(add(&f, 0, 9, 1, 100), -EALREADY);
	assert_int_equal(f.path[0].st.reorder, 2);
	/* a gap (a packet not kept) is fine */
	assert_int_equal(add(&f, 0, 12, 2, 100), 0);
	assert_int_equal(ing_inflight_count(&f, 0), 2);
	assert_int_equal(ing_inflight_count(&f, 5), 0);
	assert_int_equal(ing_inflight_take(&f, 7, NULL, collect, NULL), -EINVAL);
	assert_int_equal(ing_inflight_ack(&f, 7, 1), 0);
	ing_inflight_free(&f);
}

static void test_ack(void **state)
{
	struct ing_inflight f;

	(void)state;
	init(&f, 16, 4096);
	/* nothing kept yet: a report's lseq_next 0 */
	assert_int_equal(ing_inflight_ack(&f, 0, 0), 0);
	assert_int_equal(f.path[0].st.ack_ahead, 0);
	for (uint32_t i = 0; i < 10; i++) {
		assert_int_equal(add(&f, 0, 100 + i, 1000 + i, 200), 0);
	}
	assert_int_equal(ing_inflight_bytes(&f, 0), 2000);
	assert_int_equal(ing_inflight_ack(&f, 0, 105), 5);
	assert_int_equal(ing_inflight_count(&f, 0), 5);
	assert_int_equal(ing_inflight_bytes(&f, 0), 1000);
	/* old values, and the same one again */
	assert_int_equal(ing_inflight_ack(&f, 0, 103), 0);
	assert_int_equal(ing_inflight_ack(&f, 0, 105), 0);
	assert_int_equal(ing_inflight_ack(&f, 0, 50), 0);
	/* beyond what was sent (110): ignored, counted */
	assert_int_equal(ing_inflight_ack(&f, 0, 111), 0);
	assert_int_equal(f.path[0].st.ack_ahead, 1);
	assert_int_equal(ing_inflight_count(&f, 0), 5);
	/* the other path is untouched */
	assert_int_equal(ing_inflight_ack(&f, 1, 110), 0);
	assert_int_equal(ing_inflight_count(&f, 0), 5);
	/* all */
	assert_int_equal(ing_inflight_ack(&f, 0, 110), 5);
	assert_int_equal(ing_inflight_bytes(&f, 0), 0);
	assert_int_equal(f.path[0].st.acked, 10);
	ing_inflight_free(&f);
}

static void test_wrap_lseq(void **state)
{
	struct ing_inflight f;
	struct got g = {.room = 100};

	(void)state;
	init(&f, 16, 4096);
	for (uint32_t i = 0; i < 8; i++) {
		assert_int_equal(add(&f, 1, UINT32_MAX - 3 + i, 7 + i, 100), 0);
	}
	/* the next expected is 4 */
	assert_int_equal(ing_inflight_ack(&f, 1, 5), 0);
	assert_int_equal(f.path[1].st.ack_ahead, 1);
	/* 2^32 - 4 .. 2^32 - 2 before 2^32 - 1; then it and 0 before 1 */
	assert_int_equal(ing_inflight_ack(&f, 1, UINT32_MAX), 3);
	assert_int_equal(ing_inflight_ack(&f, 1, 1), 2);
	assert_int_equal(ing_inflight_take(&f, 1, NULL, collect, &g), 3);
	assert_int_equal(g.lseq[0], 1);
	assert_int_equal(g.lseq[2], 3);
	assert_int_equal(g.gseq[0], 12);
	/* after the wrap, lseq 3 is not after 3: refused */
	assert_int_equal(add(&f, 1, 3, 20, 100), -EALREADY);
	assert_int_equal(add(&f, 1, 4, 20, 100), 0);
	ing_inflight_free(&f);
}

/* A budget hands over the oldest packets whose lengths fit and keeps the
 * rest (not untaken): a later take goes on where it stopped. */
static void test_take_budget(void **state)
{
	struct ing_inflight f;
	struct got g = {.room = 100};
	uint64_t b = 250;

	(void)state;
	init(&f, 16, 8192);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(add(&f, 0, i, 10 + i, 100), 0);
	}
	assert_int_equal(ing_inflight_take(&f, 0, &b, collect, &g), 2);
	assert_int_equal(b, 50);
	assert_int_equal(ing_inflight_count(&f, 0), 2);
	assert_int_equal(f.path[0].st.untaken, 0);
	/* 50 left: not enough for the next one */
	assert_int_equal(ing_inflight_take(&f, 0, &b, collect, &g), 0);
	assert_int_equal(ing_inflight_count(&f, 0), 2);
	b = 1000;
	assert_int_equal(ing_inflight_take(&f, 0, &b, collect, &g), 2);
	assert_int_equal(b, 800);
	assert_int_equal(g.n, 4);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(g.gseq[i], 10 + i);
		assert_true(g.ok[i]);
	}
	assert_int_equal(f.path[0].st.taken, 4);
	ing_inflight_free(&f);
}

/* The pace of the copies: the start spreads the backlog over
 * ING_REPACE_SPREAD_US, a survivor's queue over the target halves it
 * (down to the floor), one under it raises it; the budget grows with
 * time and is capped after a pause; an episode that goes on keeps its
 * pace when another path turns suspect. */
static void test_repace(void **state)
{
	struct ing_repace p = {0};
	uint64_t t = 1000000, b;
	double r0;

	(void)state;
	assert_int_equal(ing_repace_budget(&p, t), 0); /* no episode */
	ing_repace_start(&p, 400000, t);
	r0 = 400000.0 * 1e6 / ING_REPACE_SPREAD_US;
	assert_true(p.active);
	assert_true(p.rate_Bps == r0);
	assert_int_equal(p.st.episodes, 1);
	b = ing_repace_budget(&p, t + 2000);
	assert_int_equal(b, (uint64_t)(r0 * 0.002));
	ing_repace_spent(&p, b - 100); /* the take left 100 */
	assert_int_equal(p.st.bytes, b - 100);
	/* the rest is still there, and grows */
	assert_int_equal(ing_repace_budget(&p, t + 2000), 100);
	/* another suspect path while it goes on: the same episode */
	ing_repace_start(&p, 10000000, t + 2000);
	assert_true(p.rate_Bps == r0);
	assert_int_equal(p.st.episodes, 1);
	ing_repace_on_report(&p, 30000, 20000, t + 50000, 100000);
	assert_true(p.rate_Bps == r0 / 2);
	assert_int_equal(p.st.backoffs, 1);
	/* the next reports within the hold show the old pace's queue: no
	 * halving again */
	ing_repace_on_report(&p, 40000, 20000, t + 100000, 100000);
	ing_repace_on_report(&p, 40000, 20000, t + 149999, 100000);
	assert_true(p.rate_Bps == r0 / 2);
	assert_int_equal(p.st.backoffs, 1);
	/* at the target: up */
	ing_repace_on_report(&p, 20000, 20000, t + 150000, 100000);
	assert_true(p.rate_Bps == r0 / 2 * 1.25);
	for (int i = 0; i < 20; i++) {
		ing_repace_on_report(&p, 50000, 20000, t + 150000 + i * 100000,
				     100000);
	}
	assert_true(p.rate_Bps == r0 * ING_REPACE_FLOOR);
	/* a pause of a second: no burst beyond a tick and a packet */
	b = ing_repace_budget(&p, t + 1002000);
	assert_true(b <= (uint64_t)(p.rate_Bps * ING_REPACE_TICK_US / 1e6) +
			     ING_REPACE_PKT_MAX);
	ing_repace_stop(&p);
	assert_false(p.active);
	assert_int_equal(ing_repace_budget(&p, t + 2000000), 0);
	/* a small backlog still goes at 1 Mbit/s at least */
	ing_repace_start(&p, 1000, t + 2000000);
	assert_true(p.rate_Bps == ING_REPACE_MIN_BPS);
	assert_int_equal(p.st.episodes, 2);
	assert_int_equal(p.st.backoffs, 21);
}

/* A survivor's queue far over the target (ING_REPACE_PAUSE_MUL times)
 * stops the copies at once, until a report shows it back under that, for
 * ING_REPACE_PAUSE_MAX_US at most (then the rest is abandoned):
 * they are the traffic that can wait, and the halving, once per hold,
 * came too late for the live traffic behind them (issue 14's case a: the
 * LTE's buffer overflowed).  No pause with the target 0 (the paper's
 * loss-only mode). */
static void test_repace_pause(void **state)
{
	const uint32_t target = 5000, far = ING_REPACE_PAUSE_MUL * target;
	struct ing_repace p = {0};
	uint64_t t = 1000000;

	(void)state;
	ing_repace_start(&p, 400000, t);
	assert_true(ing_repace_budget(&p, t + 2000) > 0);
	/* far over: nothing goes, however long */
	ing_repace_on_report(&p, far + 1, target, t + 50000, 100000);
	assert_true(p.paused);
	assert_int_equal(p.st.pauses, 1);
	assert_int_equal(p.st.backoffs, 1);
	assert_int_equal(ing_repace_budget(&p, t + 52000), 0);
	assert_int_equal(ing_repace_budget(&p, t + 90000), 0);
	/* still far over: the same pause, no halving within the hold */
	ing_repace_on_report(&p, far + 1, target, t + 100000, 100000);
	assert_int_equal(p.st.pauses, 1);
	assert_int_equal(p.st.backoffs, 1);
	assert_int_equal(ing_repace_budget(&p, t + 102000), 0);
	/* back to far (not over it): the copies go again, at the halved
	 * pace, with no burst of what the pause held */
	ing_repace_on_report(&p, far, target, t + 150000, 100000);
	assert_false(p.paused);
	assert_int_equal(ing_repace_budget(&p, t + 150000), 0);
	assert_int_equal(ing_repace_budget(&p, t + 152000),
			 (uint64_t)(p.rate_Bps * 0.002));
	assert_false(ing_repace_abandon(&p, t + 152000)); /* not stopped */
	/* far over again: a second pause, which lasts: the rest is past
	 * use after ING_REPACE_PAUSE_MAX_US (reports within it that are
	 * still far over do not start it again) */
	ing_repace_on_report(&p, far + 1, target, t + 200000, 100000);
	assert_int_equal(p.st.pauses, 2);
	ing_repace_on_report(&p, far + 1, target, t + 700000, 100000);
	assert_false(ing_repace_abandon(&p, t + 200000 +
					       ING_REPACE_PAUSE_MAX_US - 1));
	assert_int_equal(p.st.abandoned, 0);
	assert_true(ing_repace_abandon(&p, t + 200000 +
					      ING_REPACE_PAUSE_MAX_US));
	assert_int_equal(p.st.abandoned, 1);
	ing_repace_stop(&p);
	assert_false(ing_repace_abandon(&p, t + 5000000)); /* no episode */
	/* a new episode starts unpaused */
	ing_repace_start(&p, 400000, t + 300000);
	assert_false(p.paused);
	assert_true(ing_repace_budget(&p, t + 302000) > 0);
	/* the target 0: a queue halves the pace, never stops it */
	ing_repace_on_report(&p, 1000000, 0, t + 350000, 100000);
	assert_false(p.paused);
	assert_true(ing_repace_budget(&p, t + 352000) > 0);
	assert_int_equal(p.st.pauses, 2);
}

static void test_take(void **state)
{
	struct ing_inflight f;
	struct got g = {.room = 100};

	(void)state;
	init(&f, 16, 8192);
	for (uint32_t i = 0; i < 6; i++) {
		assert_int_equal(add(&f, 0, i, 500 + 3 * i, 100 + 50 * i), 0);
	}
	ing_inflight_ack(&f, 0, 2);
	assert_int_equal(ing_inflight_take(&f, 0, NULL, collect, &g), 4);
	assert_int_equal(g.n, 4);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(g.lseq[i], i + 2);
		assert_int_equal(g.gseq[i], 500 + 3 * (i + 2));
		assert_true(g.ok[i]);
	}
	assert_int_equal(ing_inflight_count(&f, 0), 0);
	assert_int_equal(ing_inflight_bytes(&f, 0), 0);
	assert_int_equal(f.path[0].st.taken, 4);
	/* taken twice: nothing the second time */
	assert_int_equal(ing_inflight_take(&f, 0, NULL, collect, &g), 0);
	/* the sequence goes on after a take */
	assert_int_equal(add(&f, 0, 5, 1, 100), -EALREADY);
	assert_int_equal(add(&f, 0, 6, 1, 100), 0);
	ing_inflight_free(&f);
}

/* A NACK's packet by its local sequence (ing_inflight_find): handed over
 * once and still kept (the same NACK on another path: counted again);
 * one not kept (a hole in the store, acknowledged, never sent) is counted
 * unknown; a refusal is -EAGAIN. */
static void test_find(void **state)
{
	struct ing_inflight f;
	struct got g = {.room = 100};
	const uint32_t lseqs[] = {0xfffffffe, 0xffffffff, 0, 2, 3, 5};

	(void)state;
	init(&f, 16, 8192);
	for (uint32_t i = 0; i < ARRAY_SIZE(lseqs); i++) {
		assert_int_equal(add(&f, 0, lseqs[i], 700 + i, 100 + i), 0);
	}
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(ing_inflight_find(&f, 0, lseqs[i], collect, &g),
				 1);
		assert_int_equal(g.gseq[g.n - 1], 700 + i);
		assert_int_equal(g.lseq[g.n - 1], lseqs[i]);
		assert_true(g.ok[g.n - 1]);
	}
	assert_int_equal(ing_inflight_count(&f, 0), ARRAY_SIZE(lseqs));
	assert_int_equal(f.path[0].st.found, 4);
	/* asked again: not handed over again */
	assert_int_equal(ing_inflight_find(&f, 0, 0, collect, &g), 0);
	assert_int_equal(f.path[0].st.again, 1);
	assert_int_equal(g.n, 4);
	/* lseq 1 was never kept, 4 not either, path 1 holds nothing */
	assert_int_equal(ing_inflight_find(&f, 0, 1, collect, &g), 0);
	assert_int_equal(ing_inflight_find(&f, 0, 4, collect, &g), 0);
	assert_int_equal(ing_inflight_find(&f, 1, 2, collect, &g), 0);
	assert_int_equal(f.path[0].st.unknown, 2);
	assert_int_equal(f.path[1].st.unknown, 1);
	/* acknowledged: gone */
	ing_inflight_ack(&f, 0, 2);
	assert_int_equal(ing_inflight_find(&f, 0, 0xffffffff, collect, &g), 0);
	assert_int_equal(f.path[0].st.unknown, 3);
	assert_int_equal(ing_inflight_find(&f, 0, 3, collect, &g), 1);
	assert_int_equal(g.gseq[g.n - 1], 704);
	/* the caller refuses: -EAGAIN, and not again */
	g.room = g.n;
	assert_int_equal(ing_inflight_find(&f, 0, 5, collect, &g), -EAGAIN);
	assert_int_equal(ing_inflight_find(&f, 0, 5, collect, &g), 0);
	assert_int_equal(ing_inflight_find(&f, 2, 2, collect, &g), -EINVAL);
	ing_inflight_free(&f);
}

static void test_take_no_room(void **state)
{
	struct ing_inflight f;
	struct got g = {.room = 3};

	(void)state;
	init(&f, 16, 8192);
	for (uint32_t i = 0; i < 10; i++) {
		assert_int_equal(add(&f, 1, i, i, 300), 0);
	}
	assert_int_equal(ing_inflight_take(&f, 1, NULL, collect, &g), 3);
	assert_int_equal(f.path[1].st.taken, 3);
	assert_int_equal(f.path[1].st.untaken, 7);
	assert_int_equal(ing_inflight_count(&f, 1), 0);
	ing_inflight_free(&f);
}

static void test_overflow_count(void **state)
{
	struct ing_inflight f;
	struct got g = {.room = 100};

	(void)state;
	init(&f, 4, 65536);
	for (uint32_t i = 0; i < 7; i++) {
		assert_int_equal(add(&f, 0, i, i, 100), 0);
	}
	assert_int_equal(f.path[0].st.overflow, 3);
	assert_int_equal(ing_inflight_count(&f, 0), 4);
	assert_int_equal(ing_inflight_take(&f, 0, NULL, collect, &g), 4);
	/* the newest stay */
	assert_int_equal(g.gseq[0], 3);
	assert_int_equal(g.gseq[3], 6);
	ing_inflight_free(&f);
}

static void test_overflow_bytes(void **state)
{
	struct ing_inflight f;
	struct got g = {.room = 100};

	(void)state;
	init(&f, 64, 4096);
	/* 1500 + 1500 fit, the third does not: the first goes; the third
	 * starts again at 0 only once the first is gone */
	assert_int_equal(add(&f, 0, 0, 0, 1500), 0);
	assert_int_equal(add(&f, 0, 1, 1, 1500), 0);
	assert_int_equal(add(&f, 0, 2, 2, 1500), 0);
	assert_int_equal(f.path[0].st.overflow, 1);
	assert_int_equal(ing_inflight_bytes(&f, 0), 3000);
	/* a packet as large as the store: everything else goes */
	assert_int_equal(add(&f, 0, 3, 3, 4096), 0);
	assert_int_equal(f.path[0].st.overflow, 3);
	assert_int_equal(ing_inflight_count(&f, 0), 1);
	/* and a small one pushes it out too */
	assert_int_equal(add(&f, 0, 4, 4, 20), 0);
	assert_int_equal(f.path[0].st.overflow, 4);
	assert_int_equal(ing_inflight_take(&f, 0, NULL, collect, &g), 1);
	assert_int_equal(g.gseq[0], 4);
	assert_true(g.ok[0]);
	ing_inflight_free(&f);
}

static void test_reset(void **state)
{
	struct ing_inflight f;

	(void)state;
	init(&f, 8, 4096);
	assert_int_equal(add(&f, 0, 1000, 0, 100), 0);
	ing_inflight_reset(&f, 0);
	ing_inflight_reset(&f, 9);
	assert_int_equal(ing_inflight_count(&f, 0), 0);
	/* the local sequence restarted: 0 is accepted again */
	assert_int_equal(add(&f, 0, 0, 1, 100), 0);
	ing_inflight_free(&f);
}

/* The naive store: every packet kept, in a list; overflow drops the
 * oldest while the count or the bytes exceed the bounds.  The real
 * store may drop more than that on bytes (a packet that does not fit
 * before the end of the ring leaves the tail unused), never less, and
 * what it keeps is always the newest of what the naive one keeps. */
struct naive {
	uint32_t lseq[8192], gseq[8192], len[8192];
	unsigned head, tail;
};

static void test_differential(void **state)
{
	static struct naive nv;
	static struct got g;
	struct ing_inflight f;
	uint32_t lseq = UINT32_MAX - 5000, gseq = 1;

	(void)state;
	srand(14);
	init(&f, 64, 16384);
	memset(&nv, 0, sizeof(nv));
	for (unsigned step = 0; step < 200000; step++) {
		int r = rand() % 100;

		if (r < 70) {
			uint32_t len = 20 + (uint32_t)(rand() % 1481);

			assert_int_equal(add(&f, 0, lseq, gseq, len), 0);
			nv.lseq[nv.tail % 8192] = lseq;
			nv.gseq[nv.tail % 8192] = gseq;
			nv.len[nv.tail % 8192] = len;
			nv.tail++;
			lseq++;
			gseq += 1 + (uint32_t)(rand() % 3);
		} else if (r < 97) {
			/* an acknowledgement somewhere in what was sent, or
			 * old */
			uint32_t back = (uint32_t)(rand() % 80);
			uint32_t a = lseq - back;

			ing_inflight_ack(&f, 0, a);
			while (nv.head != nv.tail &&
			       (int32_t)(nv.lseq[nv.head % 8192] - a) < 0) {
				nv.head++;
			}
		} else {
			unsigned kept = nv.tail - nv.head;
			int n;

			g.n = 0;
			g.room = 4096;
			n = ing_inflight_take(&f, 0, NULL, collect, &g);
			assert_true((unsigned)n <= kept);
			/* the newest n of the naive store, in order */
			for (unsigned i = 0; i < (unsigned)n; i++) {
				unsigned k = nv.tail - (unsigned)n + i;

				assert_int_equal(g.lseq[i], nv.lseq[k % 8192]);
				assert_int_equal(g.gseq[i], nv.gseq[k % 8192]);
				assert_true(g.ok[i]);
			}
			nv.head = nv.tail;
		}
		assert_true(ing_inflight_count(&f, 0) <= 64);
		assert_true(ing_inflight_bytes(&f, 0) <= 16384);
		assert_true(ing_inflight_count(&f, 0) <= nv.tail - nv.head);
	}
	/* the bounds were reached, and the byte ring wrapped many times */
	assert_true(f.path[0].st.overflow > 1000);
	assert_true(f.path[0].st.taken > 1000);
	ing_inflight_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_ack),
		cmocka_unit_test(test_wrap_lseq),
		cmocka_unit_test(test_take),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_take_budget),
		cmocka_unit_test(test_repace),
		cmocka_unit_test(test_repace_pause),
		cmocka_unit_test(test_take_no_room),
		cmocka_unit_test(test_overflow_count),
		cmocka_unit_test(test_overflow_bytes),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_differential),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
