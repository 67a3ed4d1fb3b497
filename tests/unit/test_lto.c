/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests of the adaptive reorder timeout (egress/lto.c), written from
 * egress/lto.h: a numbered table of measurements -> target, the step
 * towards it, RFC 6298 smoothing, and egr_adapt_lto on a resequencer.
 *
 * A row gives per path: up, the PROBE srtt/rttvar (0 samples when srtt is
 * 0), and the DATA base delays of this and the previous window with this
 * interval's largest queueing delay (no base when both bases are 0).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "egress/egress.h"
#include "egress/lto.h"

enum { MAX = 50000 }; /* t_lto_ms 50 */

struct lpath {
	bool up;
	uint32_t srtt, rttvar;		 /* us; srtt 0: no sample */
	uint32_t base_cur, base_prev, qmax; /* us; both bases 0: no DATA */
};

struct lrow {
	unsigned n;
	struct lpath p[3];
	uint32_t max;
	uint32_t want;
};

static const struct lrow rows[] = {
	/* 0: nothing measured: the ceiling */
	{2, {{true}, {true}}, MAX, MAX},
	/* 1: nothing up: the ceiling, whatever was measured */
	{2, {{false, 20000, 1000}, {false, 60000, 5000}}, MAX, MAX},
	/* 2: RTT only: (60 - 20) / 2 + 2 * 5 + 2 ms margin = 32 ms */
	{2, {{true, 20000, 1000}, {true, 60000, 5000}}, MAX, 32000},
	/* 3: the same paths, the slow one down: one path, spread 2 * 1 ms */
	{2, {{true, 20000, 1000}, {false, 60000, 5000}}, MAX, 4000},
	/* 4: equal paths, no jitter: the floor of 3 ms */
	{2, {{true, 20000, 0}, {true, 20000, 0}}, MAX, 3000},
	/* 5: DATA only: top 40 + 6 queue, lowest base 13: 33 + 2 ms */
	{2,
	 {{true, 0, 0, 13000, 13000, 0}, {true, 0, 0, 40000, 40000, 6000}},
	 MAX,
	 35000},
	/* 6: the base is the smaller of the two windows (prev 38 ms) */
	{2,
	 {{true, 0, 0, 13000, 13000, 0}, {true, 0, 0, 40000, 38000, 6000}},
	 MAX,
	 33000},
	/* 7: both measurements: the larger wins (DATA 35 over RTT 32) */
	{2,
	 {{true, 20000, 1000, 13000, 13000, 0},
	  {true, 60000, 5000, 40000, 40000, 6000}},
	 MAX,
	 35000},
	/* 8: ... and RTT when it is the larger (50 + 2 = 52 over 35) */
	{2,
	 {{true, 20000, 1000, 13000, 13000, 0},
	  {true, 100000, 5000, 40000, 40000, 6000}},
	 60000,
	 52000},
	/* 9: the ceiling caps it */
	{2,
	 {{true, 20000, 1000, 13000, 13000, 0},
	  {true, 100000, 5000, 40000, 40000, 6000}},
	 MAX,
	 MAX},
	/* 10: the base delays wrap (sender clock offset near 2^32) */
	{2,
	 {{true, 0, 0, 0xfffff000u, 0xfffff000u, 0},
	  {true, 0, 0, 0x00005000u, 0x00005000u, 1000}},
	 MAX,
	 0x6000 + 1000 + 2000},
	/* 11: a path beyond npaths is not looked at */
	{2,
	 {{true, 20000, 0}, {true, 20000, 0}, {true, 90000, 9000}},
	 MAX,
	 3000},
	/* 12: a live path with no sample yet among measured ones */
	{3,
	 {{true, 20000, 1000}, {true, 0, 0}, {true, 30000, 2000}},
	 MAX,
	 2000 + 5000 + 4000},
};

static void fill(const struct lrow *r, struct egr_loss *l,
		 struct egr_lto_path *p)
{
	unsigned i;

	egr_loss_init(l, 3);
	memset(p, 0, 3 * sizeof(*p));
	for (i = 0; i < 3; i++) {
		const struct lpath *lp = &r->p[i];

		p[i].up = lp->up;
		if (lp->srtt) {
			p[i].rtt.srtt_us = lp->srtt;
			p[i].rtt.rttvar_us = lp->rttvar;
			p[i].rtt.samples = 1;
		}
		if (lp->base_cur || lp->base_prev) {
			l->p[i].have_base = true;
			l->p[i].base_cur = lp->base_cur;
			l->p[i].base_prev = lp->base_prev;
			l->p[i].qdelay_max = lp->qmax;
		}
	}
}

static void test_target_table(void **state)
{
	struct egr_loss l;
	struct egr_lto_path p[3];
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint32_t got;

		fill(&rows[i], &l, p);
		got = egr_lto_target(&l, p, rows[i].n, rows[i].max);
		if (got != rows[i].want) {
			fail_msg("row %u: target %u, want %u", i, got,
				 rows[i].want);
		}
	}
}

/* Loss accounting for fewer paths than the caller has: those beyond it
 * are not looked at. */
static void test_target_loss_paths(void **state)
{
	struct egr_loss l;
	struct egr_lto_path p[3];

	(void)state;
	fill(&rows[12], &l, p);
	l.n = 2;
	assert_int_equal(egr_lto_target(&l, p, 3, MAX), 2000 + 2000);
}

static const struct {
	uint32_t cur, target, max, want;
} steps[] = {
	{50000, 50000, 50000, 50000}, /* 0: there */
	{10000, 30000, 50000, 30000}, /* 1: up at once */
	{50000, 10000, 50000, 45000}, /* 2: down by 1/8 of 40 ms */
	{10001, 10000, 50000, 10000}, /* 3: 1/8 rounded up: reaches it */
	{10008, 10000, 50000, 10007}, /* 4: (8 + 7) / 8 = 1 */
	{50000, 60000, 40000, 40000}, /* 5: a lowered ceiling, at once */
	{50000, 3000, 20000, 20000},  /* 6: ... also when going down */
};

static void test_step_table(void **state)
{
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		uint32_t got = egr_lto_step(steps[i].cur, steps[i].target,
					    steps[i].max);

		if (got != steps[i].want) {
			fail_msg("step %u: %u, want %u", i, got,
				 steps[i].want);
		}
	}
}

/* RFC 6298: first sample srtt = R, rttvar = R / 2; then rttvar = 3/4
 * rttvar + 1/4 |srtt - R|, srtt = 7/8 srtt + 1/8 R (rttvar first). */
static void test_rtt_sample(void **state)
{
	struct egr_rtt r = {0};

	(void)state;
	egr_rtt_sample(&r, 40000);
	assert_int_equal(r.samples, 1);
	assert_int_equal(r.srtt_us, 40000);
	assert_int_equal(r.rttvar_us, 20000);
	egr_rtt_sample(&r, 48000);
	assert_int_equal(r.rttvar_us, 15000 + 2000);
	assert_int_equal(r.srtt_us, 35000 + 6000);
	egr_rtt_sample(&r, 41000);
	assert_int_equal(r.rttvar_us, 17000 - 4250 + 0);
	assert_int_equal(r.srtt_us, 41000 - 5125 + 5125);
	assert_int_equal(r.samples, 3);
}

static void on_release(void *ctx, uint64_t cookie, uint32_t gseq)
{
	(void)ctx;
	(void)cookie;
	(void)gseq;
}

/* egr_adapt_lto sets the resequencer's timeout, says when it went down,
 * and a waiting hole's deadline follows. */
static void test_adapt(void **state)
{
	struct egr_reseq_params rp = {
		.capacity = 64, .t_lto_us = MAX, .early_release = false};
	struct egr_lto_path p[2] = {
		{.up = true, .rtt = {20000, 1000, 1}},
		{.up = true, .rtt = {60000, 5000, 1}},
	};
	struct wire_hdr h = {.type = WIRE_DATA, .gseq = 1, .lseq = 0};
	struct wire_hdr h3 = {.type = WIRE_DATA, .gseq = 3, .lseq = 1};
	struct egr e;
	uint64_t when;
	int i;

	(void)state;
	assert_int_equal(egr_init(&e, &rp, 2, on_release, NULL), 0);
	/* a hole at gseq 2: gseq 3 waits from t = 1000 */
	assert_int_equal(egr_on_data(&e, &h, 500, 1), EGR_RELEASED);
	assert_int_equal(egr_on_data(&e, &h3, 1000, 3), EGR_BUFFERED);
	assert_true(egr_reseq_deadline(&e.reseq, &when));
	assert_int_equal(when, 1000 + MAX);
	/* target 32 ms: down by (50 - 32) / 8 rounded up */
	assert_true(egr_adapt_lto(&e, p, 2));
	assert_int_equal(e.reseq.p.t_lto_us, MAX - 2250);
	assert_true(egr_reseq_deadline(&e.reseq, &when));
	assert_int_equal(when, 1000 + MAX - 2250);
	for (i = 0; i < 100; i++) {
		egr_adapt_lto(&e, p, 2);
	}
	assert_int_equal(e.reseq.p.t_lto_us, 32000);
	/* there: no change, nothing to say */
	assert_false(egr_adapt_lto(&e, p, 2));
	/* the slow path's jitter grows: up at once, and not "went down" */
	p[1].rtt.rttvar_us = 9000;
	assert_false(egr_adapt_lto(&e, p, 2));
	assert_int_equal(e.reseq.p.t_lto_us, 40000);
	/* the ceiling lowered (reload): down at once, and adapted under
	 * it */
	rp.t_lto_us = 30000;
	assert_int_equal(egr_set_params(&e, &rp), 0);
	assert_int_equal(e.reseq.p.t_lto_us, 30000);
	assert_false(egr_adapt_lto(&e, p, 2));
	assert_int_equal(e.reseq.p.t_lto_us, 30000);
	p[1].rtt.rttvar_us = 2000;
	assert_true(egr_adapt_lto(&e, p, 2));
	assert_true(e.reseq.p.t_lto_us < 30000);
	egr_free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target_table),
		cmocka_unit_test(test_target_loss_paths),
		cmocka_unit_test(test_step_table),
		cmocka_unit_test(test_rtt_sample),
		cmocka_unit_test(test_adapt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
