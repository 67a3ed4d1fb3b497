/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests for the ingress scheduler (ingress/sched.c).
 *
 * Written from ingress/sched.h and the semantics notes, not from the
 * implementation.  The weight adaptation (AWI, IWI, DWD) is checked against
 * numbered vector tables worked out by hand, the arithmetic in a comment on
 * each row; the smooth weighted round robin is checked pick by pick against
 * a naive reference written here, and by its shares and longest runs; the
 * sequence numbers (gseq, lseq, pgap) against counters kept by the test.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ingress/sched.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define assert_near(a, b) do {						\
	double got_ = (a), want_ = (b);					\
	if (!(fabs(got_ - want_) <= 1e-9)) {				\
		fail_msg("%s = %.12g, want %.12g", #a, got_, want_);	\
	}								\
} while (0)

static struct ing_sched_params prm(double k, uint32_t t_dwd, double w_fixed,
				   double w_max)
{
	struct ing_sched_params p = {
		.k = k, .t_dwd_ms = t_dwd, .t_report_ms = 50,
		.w_fixed = w_fixed, .w_mobile_max = w_max,
	};

	return p;
}

/* A scheduler plus the peer's cumulative counters, so that reports can be
 * written as "this much more loss on that path". */
struct fx {
	struct ing_sched s;
	unsigned n;
	enum path_class cls[WIRE_MAX_PATHS];
	uint32_t seq;                 /* last report sequence sent */
	uint32_t rx[WIRE_MAX_PATHS];
	uint32_t lost[WIRE_MAX_PATHS];
	uint32_t lnext[WIRE_MAX_PATHS]; /* lseq_next the peer acknowledges */
};

/* classes: one letter per path, F fixed, M mobile, B backup */
static void fx_init(struct fx *f, struct ing_sched_params p, const char *classes)
{
	unsigned i;

	memset(f, 0, sizeof(*f));
	f->n = (unsigned)strlen(classes);
	for (i = 0; i < f->n; i++) {
		f->cls[i] = classes[i] == 'M'	? PATH_MOBILE
			    : classes[i] == 'B' ? PATH_BACKUP
						: PATH_FIXED;
		/* nonzero start: the first report must only set baselines */
		f->lost[i] = 1000 + i;
		f->rx[i] = 50000;
	}
	assert_int_equal(ing_sched_init(&f->s, &p, f->n, f->cls), 0);
}

static void fx_loss(struct fx *f, unsigned path, uint32_t d)
{
	f->lost[path] += d; /* wraps like the peer's counter */
	f->rx[path] += 100;
}

static void fx_report_seq(struct fx *f, uint32_t seq)
{
	struct wire_report r;
	unsigned i;

	memset(&r, 0, sizeof(r));
	r.n = (uint8_t)f->n;
	for (i = 0; i < f->n; i++) {
		r.p[i].path = (uint8_t)i;
		r.p[i].rx_pkts = f->rx[i];
		r.p[i].lost_pkts = f->lost[i];
		r.p[i].delay_us = 10000;
		r.p[i].lseq_next = f->lnext[i];
	}
	ing_sched_on_report(&f->s, seq, &r);
}

static void fx_report(struct fx *f)
{
	fx_report_seq(f, ++f->seq);
}

static unsigned first_fixed(const struct fx *f)
{
	unsigned i;

	for (i = 0; i < f->n; i++) {
		if (f->cls[i] == PATH_FIXED) {
			return i;
		}
	}
	fail_msg("no fixed path");
	return 0;
}

/* w_mobile := min(L, max) by a baseline report and one IWI (L > 0). */
static void fx_set_w(struct fx *f, uint32_t L)
{
	fx_report(f);
	fx_loss(f, first_fixed(f), L);
	fx_report(f);
	assert_near(f->s.w_mobile, fmin((double)L, f->s.p.w_mobile_max));
}

static int pick(struct fx *f, struct wire_hdr *h)
{
	int r = ing_sched_pick(&f->s, h);

	assert_true(r >= 0 && (unsigned)r < f->n);
	assert_int_equal(h->path, r);
	return r;
}

/* cnt picks with every mobile path down, so that all go to fixed paths. */
static void fx_pick_fixed(struct fx *f, unsigned cnt)
{
	struct wire_hdr h;
	unsigned i;

	for (i = 0; i < f->n; i++) {
		if (f->cls[i] == PATH_MOBILE) {
			ing_sched_set_up(&f->s, i, false);
		}
	}
	for (i = 0; i < cnt; i++) {
		assert_int_equal(f->cls[pick(f, &h)], PATH_FIXED);
	}
	for (i = 0; i < f->n; i++) {
		if (f->cls[i] == PATH_MOBILE) {
			ing_sched_set_up(&f->s, i, true);
		}
	}
}

/* ---- init and params ---- */

struct init_row {
	unsigned id;
	struct ing_sched_params p;
	unsigned n;
	int want;
};

#define PR(k, dwd, rep, wf, wm) { (k), (dwd), (rep), (wf), (wm) }

static void test_init(void **state)
{
	const struct init_row rows[] = {
		{ 1, PR(0.5, 250, 50, 50, 45), 2, 0 },
		{ 2, PR(0.5, 250, 50, 50, 45), 0, -EINVAL },
		{ 3, PR(0.5, 250, 50, 50, 45), 17, -EINVAL },
		{ 4, PR(0.5, 250, 50, 50, 45), 1, 0 },
		{ 5, PR(0.5, 250, 50, 50, 45), 16, 0 },
		{ 6, PR(0.5, 251, 50, 50, 45), 2, -EINVAL },  /* 251 % 50 = 1 */
		{ 7, PR(0.5, 25, 50, 50, 45), 2, -EINVAL },   /* 25 % 50 = 25 */
		{ 8, PR(0.5, 0, 50, 50, 45), 2, 0 },          /* 0 % 50 = 0 */
		{ 9, PR(0.5, 1000, 50, 50, 45), 2, 0 },
		{ 10, PR(0.5, 0, 0, 50, 45), 2, -EINVAL },    /* t_report 0 */
		{ 11, PR(0.5, 250, 50, 0, 45), 2, -EINVAL },  /* w_fixed 0 */
		{ 12, PR(0.5, 250, 50, -1, 45), 2, -EINVAL },
		{ 13, PR(0.5, 250, 50, NAN, 45), 2, -EINVAL },
		{ 14, PR(-0.1, 250, 50, 50, 45), 2, -EINVAL },
		{ 15, PR(NAN, 250, 50, 50, 45), 2, -EINVAL },
		{ 16, PR(INFINITY, 250, 50, 50, 45), 2, -EINVAL },
		{ 17, PR(0, 250, 50, 50, 45), 2, 0 },          /* k 0 allowed */
		{ 18, PR(0.5, 250, 50, 50, -1), 2, -EINVAL },  /* w_mobile_max < 0 */
		{ 19, PR(0.5, 250, 50, 50, NAN), 2, -EINVAL },
		{ 20, PR(0.5, 250, 50, 50, 0), 2, 0 },         /* max 0 allowed */
		{ 21, PR(0.5, 250, 50, 0.001, 0), 2, 0 },
	};
	enum path_class cls[WIRE_MAX_PATHS + 1];
	unsigned i, j;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cls); i++) {
		cls[i] = i % 2 ? PATH_MOBILE : PATH_FIXED;
	}
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct ing_sched s;
		int r;

		memset(&s, 0x5a, sizeof(s));
		r = ing_sched_init(&s, &rows[i].p, rows[i].n, cls);
		if (r != rows[i].want) {
			fail_msg("row %u: init returned %d, want %d",
				 rows[i].id, r, rows[i].want);
		}
		if (r) {
			continue;
		}
		/* the documented initial state */
		assert_int_equal(s.n, rows[i].n);
		assert_near(s.w_mobile, 0);
		assert_int_equal(s.gseq, 0);
		assert_int_equal(s.fixed_sent, 0);
		assert_int_equal(s.quiet_reports, 0);
		assert_false(s.have_report_seq);
		for (j = 0; j < rows[i].n; j++) {
			assert_int_equal(s.path[j].cls, cls[j]);
			assert_true(s.path[j].up);
			assert_near(s.path[j].cur, 0);
			assert_int_equal(s.path[j].lseq, 0);
			assert_false(s.path[j].sent_any);
			assert_false(s.path[j].have_report);
			/* fixed: w_fixed; mobile: w_mobile / 1 = 0 */
			assert_near(ing_sched_weight(&s, j),
				    cls[j] == PATH_FIXED ? rows[i].p.w_fixed : 0);
		}
	}
}

static void test_set_params(void **state)
{
	const struct ing_sched_params bad[] = {
		PR(-0.1, 250, 50, 50, 45),
		PR(NAN, 250, 50, 50, 45),
		PR(INFINITY, 250, 50, 50, 45),
		PR(0.5, 251, 50, 50, 45),
		PR(0.5, 250, 0, 50, 45),
		PR(0.5, 250, 50, 0, 45),
		PR(0.5, 250, 50, -50, 45),
		PR(0.5, 250, 50, NAN, 45),
		PR(0.5, 250, 50, 50, -0.5),
		PR(0.5, 250, 50, 50, NAN),
	};
	struct ing_sched_params lower = prm(1.0, 100, 50, 10);
	struct ing_sched_params higher = prm(1.0, 100, 50, 100);
	struct fx f;
	struct ing_sched before;
	struct wire_hdr h;
	unsigned i;

	(void)state;
	fx_init(&f, prm(0.5, 250, 50, 45), "FM");
	fx_set_w(&f, 45);
	for (i = 0; i < 17; i++) {
		pick(&f, &h);
	}
	/* three quiet reports: quiet_reports = 3 (threshold 250/50 = 5) */
	fx_report(&f);
	fx_report(&f);
	fx_report(&f);
	assert_int_equal(f.s.quiet_reports, 3);
	for (i = 0; i < 5; i++) {
		pick(&f, &h);
	}

	memcpy(&before, &f.s, sizeof(before));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int r = ing_sched_set_params(&f.s, &bad[i]);

		if (r != -EINVAL) {
			fail_msg("bad params %u: returned %d", i, r);
		}
		if (memcmp(&before, &f.s, sizeof(before)) != 0) {
			fail_msg("bad params %u: scheduler changed", i);
		}
	}

	/* valid, lower max: w_mobile 45 -> 10, everything else kept */
	assert_int_equal(ing_sched_set_params(&f.s, &lower), 0);
	assert_near(f.s.w_mobile, 10);
	assert_near(f.s.p.k, 1.0);
	assert_int_equal(f.s.p.t_dwd_ms, 100);
	assert_near(f.s.p.w_mobile_max, 10);
	assert_int_equal(f.s.gseq, before.gseq);
	assert_int_equal(f.s.fixed_sent, before.fixed_sent);
	assert_int_equal(f.s.quiet_reports, 3);
	assert_int_equal(f.s.report_seq, before.report_seq);
	assert_memory_equal(&f.s.st, &before.st, sizeof(before.st));
	for (i = 0; i < f.n; i++) {
		assert_true(f.s.path[i].cur == before.path[i].cur);
		assert_int_equal(f.s.path[i].lseq, before.path[i].lseq);
		assert_int_equal(f.s.path[i].last_gseq, before.path[i].last_gseq);
		assert_int_equal(f.s.path[i].rep_lost, before.path[i].rep_lost);
	}
	assert_near(ing_sched_weight(&f.s, 1), 10);

	/* raising the max does not raise w_mobile */
	assert_int_equal(ing_sched_set_params(&f.s, &higher), 0);
	assert_near(f.s.w_mobile, 10);

	/* the quiet count survived: threshold now 100/50 = 2, so the next
	 * quiet report (quiet 4 > 2) decrements: 10 - 1 = 9 */
	fx_report(&f);
	assert_near(f.s.w_mobile, 9);
	assert_int_equal(f.s.st.dwd, 1);

	/* new k used by the next AWI: sent 0 -> ratio 1:
	 * 9 + 1.0 * 1 * 50 = 59 (max 100) */
	fx_loss(&f, 0, 1);
	fx_report(&f);
	assert_near(f.s.w_mobile, 59);
}

/* ---- AWI / IWI ---- */

struct awi_row {
	unsigned id;
	double k, w_fixed, w_max;
	uint32_t w0;    /* w_mobile before, reached by one IWI */
	uint32_t sent;  /* picks on the fixed path since the last report */
	uint32_t L;     /* fixed-path loss in the report */
	double want;
};

/* w += k * min(1, L / sent) * w_fixed (ratio 1 if sent == 0), then
 * min(w, w_max). */
static const struct awi_row awi_rows[] = {
	{ 1, 0.5, 50, 45, 10, 100, 5, 11.25 },  /* 10 + 0.5 * 0.05 * 50 = 10 + 1.25 */
	{ 2, 1.0, 50, 45, 10, 1000, 1, 10.05 }, /* 10 + 1 * 0.001 * 50 = 10 + 0.05 */
	{ 3, 0.1, 50, 45, 2, 10, 5, 4.5 },      /* 2 + 0.1 * 0.5 * 50 = 2 + 2.5 */
	{ 4, 0.5, 50, 45, 3, 4, 10, 28 },       /* L > sent: ratio 1: 3 + 0.5 * 50 */
	{ 5, 0.5, 50, 45, 3, 0, 1, 28 },        /* sent 0: ratio 1: 3 + 25 */
	{ 6, 0.5, 50, 45, 1, 5, 5, 26 },        /* L == sent: ratio 1: 1 + 25 */
	{ 7, 0.0, 50, 45, 7, 10, 5, 7 },        /* k 0: 7 + 0 */
	{ 8, 1.0, 50, 45, 30, 10, 5, 45 },      /* 30 + 1 * 0.5 * 50 = 55 -> 45 */
	{ 9, 0.5, 20, 45, 4, 40, 8, 6 },        /* 4 + 0.5 * 0.2 * 20 = 4 + 2 */
	{ 10, 0.5, 50, 45, 45, 100, 50, 45 },   /* 45 + 0.5 * 0.5 * 50 = 57.5 -> 45 */
	{ 11, 0.5, 50, 100, 40, 3, 1, 40 + 25.0 / 3 }, /* 40 + 0.5 * (1/3) * 50 */
	{ 12, 0.1, 50, 45, 1, 2000, 3, 1.0075 },/* 1 + 0.1 * 0.0015 * 50 = 1 + 0.0075 */
	{ 13, 1.0, 10, 45, 5, 7, 7, 15 },       /* 5 + 1 * 1 * 10 */
};

static void test_awi_table(void **state)
{
	unsigned i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(awi_rows); i++) {
		const struct awi_row *row = &awi_rows[i];
		struct fx f;

		fx_init(&f, prm(row->k, 250, row->w_fixed, row->w_max), "FM");
		fx_set_w(&f, row->w0);
		assert_int_equal(f.s.st.iwi, 1);
		fx_pick_fixed(&f, row->sent);
		assert_int_equal(f.s.fixed_sent, row->sent);
		fx_loss(&f, 0, row->L);
		fx_report(&f);
		if (!(fabs(f.s.w_mobile - row->want) <= 1e-9)) {
			fail_msg("row %u: w_mobile %.12g, want %.12g", row->id,
				 f.s.w_mobile, row->want);
		}
		assert_int_equal(f.s.st.awi, 1);
		assert_int_equal(f.s.st.iwi, 1);
		assert_int_equal(f.s.st.reports, 3);
		assert_int_equal(f.s.fixed_sent, 0);
		assert_int_equal(f.s.quiet_reports, 0);
	}
}

/* AWI with both paths up: the fixed picks are counted, the mobile ones are
 * not.  w 10 -> weights 50:10, one SWRR cycle of 60 picks gives exactly 50
 * fixed; L 5 -> 10 + 0.5 * (5/50) * 50 = 12.5. */
static void test_awi_mixed_picks(void **state)
{
	struct fx f;
	struct wire_hdr h;
	unsigned i, fixed = 0;

	(void)state;
	fx_init(&f, prm(0.5, 250, 50, 45), "FM");
	fx_set_w(&f, 10);
	for (i = 0; i < 60; i++) {
		fixed += pick(&f, &h) == 0;
	}
	assert_int_equal(fixed, 50);
	assert_int_equal(f.s.fixed_sent, 50);
	fx_loss(&f, 0, 5);
	fx_report(&f);
	assert_near(f.s.w_mobile, 12.5);
}

struct iwi_row {
	unsigned id;
	double k, w_max;
	uint32_t sent;
	uint32_t L;
	double want;
};

/* w_mobile == 0: w += L, then min(w, w_max); k and sent do not matter. */
static const struct iwi_row iwi_rows[] = {
	{ 1, 0.5, 45, 0, 1, 1 },             /* 0 + 1 */
	{ 2, 0.5, 45, 0, 7, 7 },             /* 0 + 7 */
	{ 3, 0.5, 45, 0, 45, 45 },           /* 0 + 45 = max */
	{ 4, 0.5, 45, 0, 46, 45 },           /* 46 -> 45 */
	{ 5, 0.5, 45, 0, 1000000, 45 },      /* 1e6 -> 45 */
	{ 6, 1.0, 45, 1000, 2, 2 },          /* 0 + 2 (AWI would give 0.1) */
	{ 7, 0.5, 0, 0, 3, 0 },              /* 3 -> max 0 */
	{ 8, 0.5, 2.5, 10, 3, 2.5 },         /* 3 -> 2.5 */
	{ 9, 0.1, 100, 5, 60, 60 },          /* 0 + 60 (L > sent irrelevant) */
};

static void test_iwi_table(void **state)
{
	unsigned i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(iwi_rows); i++) {
		const struct iwi_row *row = &iwi_rows[i];
		struct fx f;

		fx_init(&f, prm(row->k, 250, 50, row->w_max), "FM");
		fx_report(&f); /* baselines */
		fx_pick_fixed(&f, row->sent);
		assert_int_equal(f.s.fixed_sent, row->sent);
		fx_loss(&f, 0, row->L);
		fx_report(&f);
		if (!(fabs(f.s.w_mobile - row->want) <= 1e-9)) {
			fail_msg("row %u: w_mobile %.12g, want %.12g", row->id,
				 f.s.w_mobile, row->want);
		}
		assert_int_equal(f.s.st.iwi, 1);
		assert_int_equal(f.s.st.awi, 0);
		if (row->want == 0) {
			/* still 0: the next loss is an IWI again */
			fx_loss(&f, 0, 1);
			fx_report(&f);
			assert_int_equal(f.s.st.iwi, 2);
			assert_int_equal(f.s.st.awi, 0);
		}
	}
}

/* ---- DWD scripts ---- */

struct dwd_step {
	unsigned id;
	uint32_t fixed_loss;   /* added to path 0 (fixed) before the report */
	uint32_t mobile_loss;  /* added to path 1 (mobile) */
	double want_w;
	uint64_t want_dwd, want_iwi, want_awi;
};

/* T_dwd 250, T_report 50: threshold 250/50 = 5; k 0.5, w_fixed 50, max 45;
 * no picks, so AWI always has sent 0 -> ratio 1 -> += 0.5 * 50 = 25. */
static const struct dwd_step dwd_250[] = {
	{ 1, 0, 0, 0, 0, 0, 0 },    /* baselines only; quiet 1; w stays 0 */
	{ 2, 20, 0, 20, 0, 1, 0 },  /* IWI 0 + 20; quiet 0 */
	{ 3, 0, 0, 20, 0, 1, 0 },   /* quiet 1 <= 5 */
	{ 4, 0, 0, 20, 0, 1, 0 },   /* quiet 2 */
	{ 5, 0, 0, 20, 0, 1, 0 },   /* quiet 3 */
	{ 6, 0, 0, 20, 0, 1, 0 },   /* quiet 4 */
	{ 7, 0, 0, 20, 0, 1, 0 },   /* quiet 5: 5th quiet report, nothing */
	{ 8, 0, 0, 19, 1, 1, 0 },   /* quiet 6 > 5: 20 - 1 */
	{ 9, 0, 0, 18, 2, 1, 0 },   /* quiet 7: 19 - 1 */
	{ 10, 1, 0, 43, 2, 1, 1 },  /* AWI 18 + 25; quiet 0 */
	{ 11, 0, 0, 43, 2, 1, 1 },  /* quiet 1 */
	{ 12, 0, 0, 43, 2, 1, 1 },  /* quiet 2 */
	{ 13, 0, 0, 43, 2, 1, 1 },  /* quiet 3 */
	{ 14, 1, 0, 45, 2, 1, 2 },  /* loss mid-streak: AWI 43 + 25 = 68 -> 45; quiet 0 */
	{ 15, 0, 0, 45, 2, 1, 2 },  /* quiet 1 */
	{ 16, 0, 0, 45, 2, 1, 2 },  /* quiet 2 */
	{ 17, 0, 0, 45, 2, 1, 2 },  /* quiet 3 */
	{ 18, 0, 0, 45, 2, 1, 2 },  /* quiet 4 */
	{ 19, 0, 0, 45, 2, 1, 2 },  /* quiet 5 */
	{ 20, 0, 0, 44, 3, 1, 2 },  /* quiet 6: 45 - 1 */
	{ 21, 0, 9, 43, 4, 1, 2 },  /* mobile loss only: L 0, quiet 7: 44 - 1 */
};

/* T_dwd 50: threshold 1; k 0.5, max 45. */
static const struct dwd_step dwd_50[] = {
	{ 1, 0, 0, 0, 0, 0, 0 },    /* baselines; quiet 1, w 0 */
	{ 2, 3, 0, 3, 0, 1, 0 },    /* IWI 0 + 3 */
	{ 3, 0, 0, 3, 0, 1, 0 },    /* quiet 1 <= 1 */
	{ 4, 0, 0, 2, 1, 1, 0 },    /* quiet 2 > 1: 3 - 1 */
	{ 5, 0, 0, 1, 2, 1, 0 },    /* 2 - 1 */
	{ 6, 0, 0, 0, 3, 1, 0 },    /* 1 - 1 */
	{ 7, 0, 0, 0, 3, 1, 0 },    /* floor 0, not counted */
	{ 8, 2, 0, 2, 3, 2, 0 },    /* w 0: IWI again, 0 + 2 */
	{ 9, 0, 0, 2, 3, 2, 0 },    /* quiet 1 */
	{ 10, 0, 5, 1, 4, 2, 0 },   /* mobile loss only: quiet 2: 2 - 1 */
};

/* T_dwd 0: threshold 0; k 0.01 so that AWI adds 0.01 * 1 * 50 = 0.5. */
static const struct dwd_step dwd_0[] = {
	{ 1, 0, 0, 0, 0, 0, 0 },    /* quiet 1 > 0 but w 0: floor, not counted */
	{ 2, 2, 0, 2, 0, 1, 0 },    /* IWI 0 + 2 */
	{ 3, 0, 0, 1, 1, 1, 0 },    /* first quiet report decrements: 2 - 1 */
	{ 4, 0, 0, 0, 2, 1, 0 },    /* 1 - 1 */
	{ 5, 0, 0, 0, 2, 1, 0 },    /* floor, not counted */
	{ 6, 1, 0, 1, 2, 2, 0 },    /* IWI 0 + 1 */
	{ 7, 1, 0, 1.5, 2, 2, 1 },  /* AWI 1 + 0.5 */
	{ 8, 0, 0, 0.5, 3, 2, 1 },  /* 1.5 - 1 */
	{ 9, 0, 0, 0, 4, 2, 1 },    /* 0.5 - 1 -> floor 0, counted (was > 0) */
	{ 10, 0, 0, 0, 4, 2, 1 },   /* 0: not counted */
};

static void run_dwd(const char *name, struct ing_sched_params p,
		    const struct dwd_step *steps, unsigned nsteps)
{
	struct fx f;
	unsigned i;

	fx_init(&f, p, "FM");
	for (i = 0; i < nsteps; i++) {
		const struct dwd_step *st = &steps[i];

		fx_loss(&f, 0, st->fixed_loss);
		fx_loss(&f, 1, st->mobile_loss);
		fx_report(&f);
		if (!(fabs(f.s.w_mobile - st->want_w) <= 1e-9) ||
		    f.s.st.dwd != st->want_dwd || f.s.st.iwi != st->want_iwi ||
		    f.s.st.awi != st->want_awi) {
			fail_msg("%s step %u: w %.12g dwd %llu iwi %llu awi %llu, "
				 "want w %.12g dwd %llu iwi %llu awi %llu",
				 name, st->id, f.s.w_mobile,
				 (unsigned long long)f.s.st.dwd,
				 (unsigned long long)f.s.st.iwi,
				 (unsigned long long)f.s.st.awi, st->want_w,
				 (unsigned long long)st->want_dwd,
				 (unsigned long long)st->want_iwi,
				 (unsigned long long)st->want_awi);
		}
		assert_int_equal(f.s.st.reports, i + 1);
	}
}

static void test_dwd(void **state)
{
	(void)state;
	run_dwd("T_dwd 250", prm(0.5, 250, 50, 45), dwd_250, ARRAY_SIZE(dwd_250));
	run_dwd("T_dwd 50", prm(0.5, 50, 50, 45), dwd_50, ARRAY_SIZE(dwd_50));
	run_dwd("T_dwd 0", prm(0.01, 0, 50, 45), dwd_0, ARRAY_SIZE(dwd_0));
}

/* ---- what goes into L and fixed_sent ---- */

/* Queue target (beyond the paper): a fixed path's standing queue over the
 * target raises w_mobile by k * w_fixed * excess / T_report (at most k *
 * w_fixed, at least 1 from 0) and withholds DWD (st.dwd_held); a mobile
 * path's queue never raises it; loss under 1 % without a standing queue is
 * line noise; a mobile path that queues (four targets over its floor)
 * withholds every increase.  Each
 * row: the queueing delay reported for path 0 (fixed) and path 1 (mobile),
 * more loss on path 0, packets sent on path 0 before the report, and
 * w_mobile and the counters after it.  Start: w_mobile 10 by IWI, k 0.5,
 * w_fixed 50, T_dwd 0 (every quiet report may decrement), target 3000 us.
 * The mobile rows stay at 0 except row 9's, whose floor is 0 and whose
 * variation is 0 (a steady path): its whole queue counts. */
struct target_row {
	uint32_t q_fixed, q_mobile, lost, sent;
	double w_after;
	uint64_t held, qwi, noise, mfull, awi, dwd;
};

static const struct target_row target_rows[] = {
	/* 0: no queueing: 10 - 1 */
	{0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 1},
	/* 1: at the target: not above, 9 - 1 */
	{3000, 0, 0, 0, 8, 0, 0, 0, 0, 0, 2},
	/* 2: 2 ms over, growing: 8 + 0.5 * 50 * 2000 / 200000 */
	{5000, 0, 0, 0, 8.25, 1, 1, 0, 0, 0, 2},
	/* 3: 100 ms over: 0.5 * 50 * 100000 / 200000 = 12.5 more */
	{103000, 0, 0, 0, 20.75, 2, 2, 0, 0, 0, 2},
	/* 4: the mobile path queues alone: not congestion, DWD */
	{0, 50000, 0, 0, 19.75, 2, 2, 0, 0, 0, 3},
	/* 5: loss 2 of 1000 (0.2 %) without a queue: noise, DWD */
	{0, 0, 2, 1000, 18.75, 2, 2, 1, 0, 0, 4},
	/* 6: loss 10 of 1000 (1 %) without a queue: AWI 0.25 */
	{0, 0, 10, 1000, 19, 2, 2, 1, 0, 1, 4},
	/* 7: loss 2 of 1000 with a queue over the target: congestion;
	 * AWI 0.05, the queue's 25 * 1000 / 200000 = 0.125 is larger */
	{4000, 0, 2, 1000, 19.125, 3, 3, 1, 0, 2, 4},
	/* 8: loss and queue (growing), fixed_sent 0 (ratio 1): AWI 25 is
	 * larger than the queue's 0.75 */
	{9000, 0, 1, 0, 44.125, 4, 4, 1, 0, 3, 4},
	/* 9: over the target but shrunk by more than the target: draining,
	 * neither up nor DWD */
	{4000, 0, 0, 0, 44.125, 5, 4, 1, 0, 3, 4},
	/* 10: drained: DWD again */
	{0, 0, 0, 0, 43.125, 5, 4, 1, 0, 3, 5},
};

static void test_queue_target(void **state)
{
	struct ing_sched_params p = prm(0.5, 0, 50, 100);
	enum path_class cls[2] = {PATH_FIXED, PATH_MOBILE};
	struct ing_sched s;
	struct wire_report r = {.n = 2, .p = {{.path = 0}, {.path = 1}}};
	struct wire_hdr h;
	uint32_t seq = 0;

	(void)state;
	p.queue_target_us = 3000;
	assert_int_equal(ing_sched_init(&s, &p, 2, cls), 0);
	ing_sched_on_report(&s, ++seq, &r); /* baselines */
	r.p[0].lost_pkts = 10;
	ing_sched_on_report(&s, ++seq, &r); /* IWI: w 10 */
	assert_near(s.w_mobile, 10);
	for (size_t i = 0; i < ARRAY_SIZE(target_rows); i++) {
		const struct target_row *t = &target_rows[i];

		ing_sched_set_up(&s, 1, false); /* all picks on path 0 */
		for (uint32_t k = 0; k < t->sent; k++) {
			assert_int_equal(ing_sched_pick(&s, &h), 0);
		}
		ing_sched_set_up(&s, 1, true);
		r.p[0].delay_us = t->q_fixed;
		r.p[1].delay_us = t->q_mobile;
		r.p[0].lost_pkts += t->lost;
		ing_sched_on_report(&s, ++seq, &r);
		if (fabs(s.w_mobile - t->w_after) > 1e-9 ||
		    s.st.dwd_held != t->held || s.st.qwi != t->qwi ||
		    s.st.loss_noise != t->noise ||
		    s.st.mobile_full != t->mfull || s.st.awi != t->awi ||
		    s.st.dwd != t->dwd)
			fail_msg("row %zu: w %g held %llu qwi %llu noise %llu "
				 "mfull %llu awi %llu dwd %llu, want %g %llu "
				 "%llu %llu %llu %llu %llu",
				 i, s.w_mobile,
				 (unsigned long long)s.st.dwd_held,
				 (unsigned long long)s.st.qwi,
				 (unsigned long long)s.st.loss_noise,
				 (unsigned long long)s.st.mobile_full,
				 (unsigned long long)s.st.awi,
				 (unsigned long long)s.st.dwd, t->w_after,
				 (unsigned long long)t->held,
				 (unsigned long long)t->qwi,
				 (unsigned long long)t->noise,
				 (unsigned long long)t->mfull,
				 (unsigned long long)t->awi,
				 (unsigned long long)t->dwd);
	}
	/* target 0 is the paper: queues are ignored, loss is loss */
	p.queue_target_us = 0;
	assert_int_equal(ing_sched_set_params(&s, &p), 0);
	r.p[0].delay_us = 50000;
	ing_sched_on_report(&s, ++seq, &r);
	assert_near(s.w_mobile, 42.125);
	r.p[0].lost_pkts += 1; /* 1 of 1000: AWI all the same */
	for (uint32_t k = 0; k < 1000; k++) {
		ing_sched_set_up(&s, 1, false);
		ing_sched_pick(&s, &h);
	}
	ing_sched_set_up(&s, 1, true);
	ing_sched_on_report(&s, ++seq, &r);
	assert_near(s.w_mobile, 42.15);
	assert_int_equal(s.st.loss_noise, 1);
}

/* From w_mobile 0 a queue over the target raises it by at least 1 (the
 * IWI of queueing), with no loss at all; and the paper's algorithm (target
 * 0) never moves without loss, however long the queue. */
static void test_queue_from_zero(void **state)
{
	struct ing_sched_params p = prm(0.5, 250, 50, 45);
	enum path_class cls[2] = {PATH_FIXED, PATH_MOBILE};
	struct wire_report r = {.n = 2, .p = {{.path = 0}, {.path = 1}}};
	struct ing_sched s, paper;
	uint32_t seq = 0;

	(void)state;
	p.queue_target_us = 5000;
	assert_int_equal(ing_sched_init(&s, &p, 2, cls), 0);
	p.queue_target_us = 0;
	assert_int_equal(ing_sched_init(&paper, &p, 2, cls), 0);
	ing_sched_on_report(&s, ++seq, &r);
	ing_sched_on_report(&paper, seq, &r);
	r.p[0].delay_us = 5100; /* 0.1 ms over: 0.05, raised to 1 */
	ing_sched_on_report(&s, ++seq, &r);
	ing_sched_on_report(&paper, seq, &r);
	assert_near(s.w_mobile, 1);
	assert_near(paper.w_mobile, 0);
	/* a growing queue keeps raising it, with no loss at all */
	for (uint32_t q = 10000; q <= 50000; q += 10000) {
		r.p[0].delay_us = q;
		ing_sched_on_report(&s, ++seq, &r);
		ing_sched_on_report(&paper, seq, &r);
	}
	/* 1 + 25 * (5 + 15 + 25 + 35 + 45) / 200 */
	assert_near(s.w_mobile, 16.625);
	assert_near(paper.w_mobile, 0);
	assert_int_equal(s.st.qwi, 6);
	assert_int_equal(s.st.iwi + s.st.awi + paper.st.iwi + paper.st.awi,
			 0);
}

/* A mobile path is measured against its own floor and variation: a steady
 * 10 ms of jitter is no queue; reports jumping between 2 and 40 ms are
 * under their own noise; a queue that grows well past both withholds the
 * fixed path's increase (st.mobile_full), and entries are matched by path
 * id, an entry of a path >= n being ignored. */
static void test_mobile_floor(void **state)
{
	struct ing_sched_params p = prm(0.5, 250, 50, 45);
	enum path_class cls[2] = {PATH_FIXED, PATH_MOBILE};
	struct wire_report r = {.n = 2, .p = {{.path = 0}, {.path = 1}}};
	struct ing_sched s;
	uint32_t seq = 0;
	double w;

	(void)state;
	p.queue_target_us = 5000;
	assert_int_equal(ing_sched_init(&s, &p, 2, cls), 0);
	/* steady jitter floor of 10 ms on the mobile path, fixed queueing */
	r.p[1].delay_us = 10000;
	for (int i = 0; i < 20; i++) {
		r.p[0].delay_us = i < 10 ? 0 : 15000;
		ing_sched_on_report(&s, ++seq, &r);
	}
	assert_int_equal(s.st.mobile_full, 0);
	assert_int_equal(s.st.qwi, 10);
	/* the queue the copies' pace goes by: the fixed path's, the mobile
	 * one's jitter is no queue */
	assert_int_equal(ing_sched_queue_us(&s), 15000);
	/* jumping between 2 and 40 ms: the floor is 2; an excess of 38 is
	 * over four targets (20) but, once the variation is learnt (about
	 * 38 ms; the first jumps read as a queue), under twice it */
	for (int i = 0; i < 80; i++) {
		if (i == 40) {
			w = (double)s.st.mobile_full;
		}
		r.p[1].delay_us = i % 2 ? 40000 : 2000;
		ing_sched_on_report(&s, ++seq, &r);
	}
	assert_true(w > 0 && w < 10);
	assert_int_equal(s.st.mobile_full, (uint64_t)w);
	s.st.mobile_full = 0;
	/* a steady 22 ms over a floor of 2 with no variation: a queue */
	r.p[1].delay_us = 24000;
	for (int i = 0; i < 30; i++) {
		ing_sched_on_report(&s, ++seq, &r);
	}
	assert_true(s.st.mobile_full > 0);
	assert_int_equal(ing_sched_queue_us(&s), 22000);
	s.st.mobile_full = 0;
	/* the mobile queue grows to 100 ms: the fixed path's queue raises
	 * nothing any more */
	w = s.w_mobile;
	r.p[1].delay_us = 100000;
	ing_sched_on_report(&s, ++seq, &r);
	assert_int_equal(s.st.mobile_full, 1);
	assert_near(s.w_mobile, w);
	/* by path id: entry 0 names the mobile path, entry 1 the fixed; an
	 * entry for path 15 (>= n) changes nothing */
	r.n = 3;
	r.p[0] = (struct wire_report_path){.path = 1, .delay_us = 100000};
	r.p[1] = (struct wire_report_path){.path = 0, .delay_us = 15000};
	r.p[2] = (struct wire_report_path){.path = 15, .delay_us = 900000};
	ing_sched_on_report(&s, ++seq, &r);
	assert_int_equal(s.st.mobile_full, 2);
	assert_near(s.w_mobile, w);
	assert_int_equal(s.path[1].rep_qdelay_us, 100000);
	assert_int_equal(s.path[0].rep_qdelay_us, 15000);
}

/* A mobile path that carried no DATA over an interval reports 0 (the
 * egress had no delay to measure): no measurement of its floor.  An LTE
 * measured at 30 ms, idle for more than a floor window, then back at 30
 * ms has no queue; with the idle 0s taken as its floor it had 30 ms of
 * it, over four targets, and withheld the fixed path's increase. */
static void test_mobile_floor_idle(void **state)
{
	struct ing_sched_params p = prm(0.5, 250, 50, 45);
	enum path_class cls[2] = {PATH_FIXED, PATH_MOBILE};
	struct wire_report r = {.n = 2, .p = {{.path = 0}, {.path = 1}}};
	struct ing_sched s;
	uint32_t seq = 0;

	(void)state;
	p.queue_target_us = 5000;
	assert_int_equal(ing_sched_init(&s, &p, 2, cls), 0);
	for (int i = 0; i < 20; i++) {
		r.p[1].rx_pkts += 50;
		r.p[1].delay_us = 30000;
		ing_sched_on_report(&s, ++seq, &r);
	}
	r.p[1].delay_us = 0;
	for (int i = 0; i < 3 * ING_FLOOR_REPORTS; i++) {
		ing_sched_on_report(&s, ++seq, &r);
	}
	/* back, with the fixed path queueing */
	r.p[0].delay_us = 15000;
	for (int i = 0; i < 10; i++) {
		r.p[1].rx_pkts += 50;
		r.p[1].delay_us = 30000;
		ing_sched_on_report(&s, ++seq, &r);
	}
	assert_int_equal(s.st.mobile_full, 0);
	assert_true(s.st.qwi > 0);
	/* a report with DATA at 0 is a measurement: 30 ms over it is a
	 * queue */
	r.p[1].rx_pkts += 50;
	r.p[1].delay_us = 0;
	ing_sched_on_report(&s, ++seq, &r);
	r.p[1].rx_pkts += 50;
	r.p[1].delay_us = 30000;
	ing_sched_on_report(&s, ++seq, &r);
	assert_int_equal(s.st.mobile_full, 1);
}

/* Peer restarted: report baselines and report sequence are forgotten (its
 * counters and sequence start again), our numbering goes on. */
static void test_peer_restarted(void **state)
{
	struct fx f;
	struct wire_hdr h;
	uint32_t g;

	(void)state;
	fx_init(&f, prm(0.5, 250, 50, 45), "FM");
	fx_set_w(&f, 10); /* baseline report, then IWI: w 10, seq 2 */
	pick(&f, &h);
	g = h.gseq;
	ing_sched_peer_restarted(&f.s);
	pick(&f, &h);
	assert_int_equal(h.gseq, g + 1); /* numbering goes on */
	/* the fresh peer reports from seq 1 with small counters: not stale,
	 * and the first report only sets the baselines */
	f.lost[0] = 3;
	f.seq = 0;
	fx_report(&f);
	assert_int_equal(f.s.st.stale_reports, 0);
	assert_near(f.s.w_mobile, 10); /* weights kept, no loss applied */
	fx_loss(&f, 0, 2);
	fx_pick_fixed(&f, 100);
	fx_report(&f); /* AWI: 10 + 0.5 * 2/100 * 50 = 10.5 */
	assert_near(f.s.w_mobile, 10.5);
}

static void test_fixed_sent_and_loss_sum(void **state)
{
	struct fx f;
	struct wire_hdr h;
	unsigned i, fixed = 0;

	(void)state;
	fx_init(&f, prm(0.5, 250, 50, 100), "FFM");
	/* mobile loss alone never moves the weights: no IWI from 0 */
	fx_report(&f);
	fx_loss(&f, 2, 500);
	fx_report(&f);
	assert_near(f.s.w_mobile, 0);
	assert_int_equal(f.s.st.iwi, 0);

	fx_loss(&f, 1, 45); /* second fixed path counts too: IWI 0 + 45 */
	fx_report(&f);
	assert_near(f.s.w_mobile, 45);
	assert_int_equal(f.s.fixed_sent, 0);

	/* weights 50:50:45, one SWRR cycle of 145 picks: 100 fixed */
	for (i = 0; i < 145; i++) {
		fixed += f.cls[pick(&f, &h)] == PATH_FIXED;
	}
	assert_int_equal(fixed, 100);
	assert_int_equal(f.s.fixed_sent, 100);

	/* a stale report (same seq) does not reset it */
	fx_report_seq(&f, f.seq);
	assert_int_equal(f.s.st.stale_reports, 1);
	assert_int_equal(f.s.fixed_sent, 100);

	/* an applied one does */
	fx_report(&f);
	assert_int_equal(f.s.fixed_sent, 0);
	assert_near(f.s.w_mobile, 45);

	/* L = 1 + 1 (both fixed paths), mobile 1000 ignored, sent 10:
	 * 45 + 0.5 * (2/10) * 50 = 45 + 5 = 50 */
	fx_pick_fixed(&f, 10);
	assert_int_equal(f.s.fixed_sent, 10);
	fx_loss(&f, 0, 1);
	fx_loss(&f, 1, 1);
	fx_loss(&f, 2, 1000);
	fx_report(&f);
	assert_near(f.s.w_mobile, 50);
	assert_int_equal(f.s.st.awi, 1);
}

/* ---- report sequence ---- */

/* DWD over a gap in the report sequence: an idle egress sends no report
 * but counts the interval, so the weight comes back down as if every
 * interval had been reported loss-free; the hold (t_dwd_ms / t_report_ms
 * = 5 intervals) counts once. */
static void test_dwd_gap(void **state)
{
	struct fx f;

	(void)state;
	fx_init(&f, prm(0.5, 250, 50, 1000), "FM");
	fx_report_seq(&f, 0);
	f.s.w_mobile = 20;
	f.s.quiet_reports = 0;
	/* 15 intervals quiet: 5 held, 10 steps */
	fx_report_seq(&f, 15);
	assert_near(f.s.w_mobile, 10);
	assert_int_equal(f.s.st.dwd, 10);
	/* then one step a report, as before */
	fx_report_seq(&f, 16);
	assert_near(f.s.w_mobile, 9);
	/* a gap longer than the weight: 0, not below */
	fx_report_seq(&f, 16 + 1000);
	assert_near(f.s.w_mobile, 0);
	assert_int_equal(f.s.st.dwd, 20);
}

static void test_report_seq(void **state)
{
	struct fx f;
	uint64_t reports;

	(void)state;
	fx_init(&f, prm(0.5, 250, 50, 1000), "FM");
	/* first report: any seq, even 0 */
	fx_report_seq(&f, 0);
	assert_int_equal(f.s.st.reports, 1);
	fx_report_seq(&f, 0);
	assert_int_equal(f.s.st.stale_reports, 1);
	assert_int_equal(f.s.st.reports, 1);
	assert_int_equal(f.s.quiet_reports, 1); /* the duplicate is not quiet */
	fx_report_seq(&f, 10);
	fx_report_seq(&f, 10);
	fx_report_seq(&f, 9);
	assert_int_equal(f.s.st.reports, 2);
	assert_int_equal(f.s.st.stale_reports, 3);
	/* the report at 10 covers the ten intervals since 0 (lost reports,
	 * or none sent by an idle egress): all quiet */
	assert_int_equal(f.s.quiet_reports, 11);
	assert_int_equal(f.s.report_seq, 10);

	/* a stale report's counters are ignored, baseline included: the
	 * stale one says +100, the next fresh one +103 in all, so the loss
	 * is 103 (3 if the stale one had moved the baseline) */
	fx_loss(&f, 0, 100);
	fx_report_seq(&f, 5);
	assert_near(f.s.w_mobile, 0);
	assert_int_equal(f.s.st.iwi, 0);
	fx_loss(&f, 0, 3);
	fx_report_seq(&f, 11);
	assert_near(f.s.w_mobile, 103);
	assert_int_equal(f.s.st.iwi, 1);

	/* wraparound of the report sequence */
	fx_init(&f, prm(0.5, 250, 50, 1000), "FM");
	fx_report_seq(&f, 0xfffffffe);
	fx_report_seq(&f, 0xffffffff);
	fx_report_seq(&f, 0);
	fx_report_seq(&f, 1);
	assert_int_equal(f.s.st.reports, 4);
	assert_int_equal(f.s.st.stale_reports, 0);
	fx_report_seq(&f, 0xffffffff);
	fx_report_seq(&f, 0);
	fx_report_seq(&f, 1);
	assert_int_equal(f.s.st.stale_reports, 3);
	fx_report_seq(&f, 2);
	assert_int_equal(f.s.st.reports, 5);
	/* exactly 2^31 ahead is not after: stale */
	fx_report_seq(&f, 2 + 0x80000000u);
	assert_int_equal(f.s.st.stale_reports, 4);
	/* 2^31 - 1 ahead is after */
	fx_report_seq(&f, 2 + 0x7fffffffu);
	assert_int_equal(f.s.st.reports, 6);
	/* and now 2 is behind it */
	reports = f.s.st.reports;
	fx_report_seq(&f, 2);
	assert_int_equal(f.s.st.reports, reports);
	assert_int_equal(f.s.st.stale_reports, 5);
}

/* ---- cumulative counters ---- */

static void test_baselines(void **state)
{
	struct fx f;
	struct wire_report r;

	(void)state;
	fx_init(&f, prm(0.5, 250, 50, 1000), "FFM");
	f.lost[0] = 0xfffffffe;
	fx_report(&f); /* baselines: 0xfffffffe, 1001, 1002 */
	assert_near(f.s.w_mobile, 0);
	assert_int_equal(f.s.st.iwi, 0);
	assert_true(f.s.path[0].have_report);
	assert_int_equal(f.s.path[0].rep_lost, 0xfffffffe);

	/* 0xfffffffe + 5 wraps to 3: delta 5 -> IWI 0 + 5 */
	fx_loss(&f, 0, 5);
	assert_int_equal(f.lost[0], 3);
	fx_report(&f);
	assert_near(f.s.w_mobile, 5);

	/* path 1 goes back 1001 -> 991: baseline reset, no loss */
	f.lost[1] -= 10;
	fx_report(&f);
	assert_near(f.s.w_mobile, 5);
	assert_int_equal(f.s.path[1].rep_lost, 991);
	assert_int_equal(f.s.st.awi, 0);
	/* 991 -> 996: loss 5 (from the reset baseline; from 1001 it would be
	 * negative again): AWI, sent 0 -> ratio 1: 5 + 0.5 * 50 = 30 */
	fx_loss(&f, 1, 5);
	fx_report(&f);
	assert_near(f.s.w_mobile, 30);
	assert_int_equal(f.s.st.awi, 1);

	/* a jump of exactly 2^31 is negative as int32: reset, no loss */
	f.lost[0] += 0x80000000u;
	fx_report(&f);
	assert_near(f.s.w_mobile, 30);
	assert_int_equal(f.s.path[0].rep_lost, 3 + 0x80000000u);
	fx_loss(&f, 0, 1);
	fx_report(&f);
	assert_near(f.s.w_mobile, 55); /* 30 + 25 */

	/* 2^31 - 1 is positive: L huge, ratio 1: 55 + 25 = 80 */
	fx_loss(&f, 0, 0x7fffffff);
	fx_report(&f);
	assert_near(f.s.w_mobile, 80);
	assert_int_equal(f.s.st.awi, 3);

	/* entries for paths >= n are ignored */
	memset(&r, 0, sizeof(r));
	r.n = 2;
	r.p[0] = (struct wire_report_path){ 0, f.rx[0], f.lost[0], 0 };
	r.p[1] = (struct wire_report_path){ 5, 1, 7, 0 };
	ing_sched_on_report(&f.s, ++f.seq, &r);
	r.p[1].lost_pkts = 100000;
	ing_sched_on_report(&f.s, ++f.seq, &r);
	assert_near(f.s.w_mobile, 80);
	assert_int_equal(f.s.st.awi, 3);

	/* a path first seen in a later report only sets its baseline */
	fx_init(&f, prm(0.5, 250, 50, 1000), "FM");
	memset(&r, 0, sizeof(r));
	r.n = 1;
	r.p[0] = (struct wire_report_path){ 1, 10, 10, 0 };
	ing_sched_on_report(&f.s, 1, &r);
	assert_false(f.s.path[0].have_report);
	r.p[0] = (struct wire_report_path){ 0, 10, 50, 0 };
	ing_sched_on_report(&f.s, 2, &r);
	assert_near(f.s.w_mobile, 0);
	assert_int_equal(f.s.st.iwi, 0);
	r.p[0].lost_pkts = 52;
	ing_sched_on_report(&f.s, 3, &r);
	assert_near(f.s.w_mobile, 2); /* IWI 0 + (52 - 50) */
}

/* L is the sum of the fixed paths' deltas; each delta is at most 2^31 - 1,
 * but their sum over several fixed paths may exceed 2^32 and must not wrap
 * (a wrapped L of 0 would even count as a quiet report). */
static void test_loss_sum_large(void **state)
{
	struct fx f;

	(void)state;
	fx_init(&f, prm(0.5, 0, 50, 45), "FFFM");
	fx_report(&f); /* baselines */
	/* L = 0x7fffffff + 0x7fffffff + 2 = 2^32: IWI 0 + 2^32 -> 45 */
	fx_loss(&f, 0, 0x7fffffff);
	fx_loss(&f, 1, 0x7fffffff);
	fx_loss(&f, 2, 2);
	fx_report(&f);
	assert_int_equal(f.s.st.iwi, 1);
	assert_int_equal(f.s.st.dwd, 0);
	assert_near(f.s.w_mobile, 45);

	fx_init(&f, prm(0.5, 250, 50, 45), "FFFM");
	fx_report(&f);
	/* L = 2^32 + 1: IWI 0 + (2^32 + 1) -> 45 (a wrapped L would give 1) */
	fx_loss(&f, 0, 0x7fffffff);
	fx_loss(&f, 1, 0x7fffffff);
	fx_loss(&f, 2, 3);
	fx_report(&f);
	assert_near(f.s.w_mobile, 45);
}

/* ---- smooth weighted round robin ---- */

/* The nginx SWRR of the semantics notes, written naively. */
struct ref_wrr {
	unsigned n;
	double w[WIRE_MAX_PATHS];
	double cur[WIRE_MAX_PATHS];
};

static int ref_pick(struct ref_wrr *r)
{
	double total = 0;
	int best = -1;
	unsigned i;

	for (i = 0; i < r->n; i++) {
		total += r->w[i];
	}
	if (total == 0) {
		return -ENETDOWN;
	}
	for (i = 0; i < r->n; i++) {
		if (r->w[i] > 0) {
			r->cur[i] += r->w[i];
			if (best < 0 || r->cur[i] > r->cur[best]) {
				best = (int)i;
			}
		} else {
			r->cur[i] = 0;
		}
	}
	r->cur[best] -= total;
	return best;
}

struct wrr_result {
	unsigned long count[WIRE_MAX_PATHS];
	unsigned long maxrun[WIRE_MAX_PATHS];
};

/* picks times, checking every pick against the reference fed with the
 * weights w (the test's own idea of the effective weights).  The reference
 * keeps its own credits from one call to the next (ref zeroed by the caller
 * for a fresh scheduler, whose credits start at 0), so that what happens to
 * the credits of a path that goes down and up is checked too. */
static void run_wrr_ref(struct fx *f, struct ref_wrr *ref, const double *w,
			unsigned long picks, struct wrr_result *res)
{
	struct wire_hdr h;
	unsigned long i, run = 0;
	int prev = -1;
	unsigned j;

	memset(res, 0, sizeof(*res));
	ref->n = f->n;
	for (j = 0; j < f->n; j++) {
		ref->w[j] = w[j];
		if (!(fabs(ing_sched_weight(&f->s, j) - w[j]) <= 1e-12)) {
			fail_msg("weight of path %u: %.12g, want %.12g", j,
				 ing_sched_weight(&f->s, j), w[j]);
		}
	}
	for (i = 0; i < picks; i++) {
		int got = pick(f, &h);
		int want = ref_pick(ref);

		if (got != want) {
			fail_msg("pick %lu: path %d, reference %d", i, got, want);
		}
		res->count[got]++;
		run = got == prev ? run + 1 : 1;
		prev = got;
		if (run > res->maxrun[got]) {
			res->maxrun[got] = run;
		}
	}
}

/* Shares within 0.1 % absolute, and (tighter: SWRR is exact up to one
 * cycle) within 1 pick of picks * w_i / W; the longest run of path i is at
 * most ceil(w_i / (W - w_i)) + 1. */
static void check_shares(const char *name, unsigned n, const double *w,
			 unsigned long picks, const struct wrr_result *res)
{
	double total = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		total += w[i];
	}
	for (i = 0; i < n; i++) {
		double share = (double)res->count[i] / (double)picks;
		double expect = (double)picks * w[i] / total;
		double rest = total - w[i];
		unsigned long runmax;

		if (fabs(share - w[i] / total) > 0.001) {
			fail_msg("%s: path %u share %.6f, want %.6f", name, i,
				 share, w[i] / total);
		}
		if (fabs((double)res->count[i] - expect) > 1.0 + 1e-6) {
			fail_msg("%s: path %u got %lu picks, want %.3f +- 1",
				 name, i, res->count[i], expect);
		}
		if (w[i] > 0 && rest > 0) {
			runmax = (unsigned long)ceil(w[i] / rest) + 1;
			if (res->maxrun[i] > runmax) {
				fail_msg("%s: path %u run of %lu > %lu", name,
					 i, res->maxrun[i], runmax);
			}
		}
		if (w[i] == 0 && res->count[i]) {
			fail_msg("%s: path %u of weight 0 picked", name, i);
		}
	}
}

static void run_wrr(struct fx *f, const double *w, unsigned long picks,
		    struct wrr_result *res)
{
	struct ref_wrr ref;

	memset(&ref, 0, sizeof(ref));
	run_wrr_ref(f, &ref, w, picks, res);
}

struct wrr_row {
	unsigned id;
	double w_max;
	uint32_t L;     /* IWI loss: w_mobile = min(L, w_max) */
	double w;
};

static void test_wrr_two_paths(void **state)
{
	static const struct wrr_row rows[] = {
		{ 1, 45, 45, 45 },
		{ 2, 45, 12, 12 },
		{ 3, 45, 1, 1 },
		{ 4, 0.5, 1, 0.5 },    /* 1 -> max 0.5 */
		{ 5, 45, 100, 45 },    /* IWI overshoot 100 -> 45 */
	};
	unsigned i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct fx f;
		struct wrr_result res;
		double w[2] = { 50, rows[i].w };
		char name[32];

		snprintf(name, sizeof(name), "row %u", rows[i].id);
		fx_init(&f, prm(0.5, 250, 50, rows[i].w_max), "FM");
		fx_set_w(&f, rows[i].L);
		run_wrr(&f, w, 100000, &res);
		check_shares(name, 2, w, 100000, &res);
		if (rows[i].w == 45) {
			/* 50:45 never puts more than 2 in a row on a path */
			assert_true(res.maxrun[0] <= 2);
			assert_true(res.maxrun[1] <= 1);
		}
	}
}

static void test_wrr_more_paths(void **state)
{
	struct fx f;
	struct wrr_result res;
	const double w3[3] = { 50, 50, 45 };
	const double w4[4] = { 50, 50, 22.5, 22.5 };

	(void)state;
	/* 2 fixed + 1 mobile: 50:50:45 */
	fx_init(&f, prm(0.5, 250, 50, 45), "FFM");
	fx_set_w(&f, 45);
	run_wrr(&f, w3, 100000, &res);
	check_shares("FFM", 3, w3, 100000, &res);

	/* 2 fixed + 2 mobile: w_mobile 45 shared, 22.5 each */
	fx_init(&f, prm(0.5, 250, 50, 45), "FFMM");
	fx_set_w(&f, 45);
	run_wrr(&f, w4, 100000, &res);
	check_shares("FFMM", 4, w4, 100000, &res);
}

static void test_wrr_down(void **state)
{
	struct fx f;
	struct wrr_result res;
	struct ref_wrr ref;
	const double a[3] = { 50, 0, 45 };
	const double b[3] = { 0, 50, 45 };
	const double c[3] = { 50, 50, 0 };
	const double w3_all[3] = { 50, 50, 45 };
	const double d[4] = { 0, 0, 1, 1 };
	const double e[4] = { 0, 0, 0, 1 };
	const double g[2] = { 0, 1 };
	const double m2[2] = { 1, 1 };

	(void)state;
	fx_init(&f, prm(0.5, 250, 50, 45), "FFM");
	fx_set_w(&f, 45);
	memset(&ref, 0, sizeof(ref));
	ing_sched_set_up(&f.s, 1, false);
	run_wrr_ref(&f, &ref, a, 95000 + 17, &res);
	check_shares("fixed 1 down", 3, a, 95000 + 17, &res);
	ing_sched_set_up(&f.s, 1, true);
	ing_sched_set_up(&f.s, 0, false);
	run_wrr_ref(&f, &ref, b, 95000 + 33, &res);
	check_shares("fixed 0 down", 3, b, 95000 + 33, &res);
	ing_sched_set_up(&f.s, 0, true);
	ing_sched_set_up(&f.s, 2, false);
	run_wrr_ref(&f, &ref, c, 100000 + 1, &res);
	check_shares("mobile down", 3, c, 100000 + 1, &res);
	ing_sched_set_up(&f.s, 2, true);
	run_wrr_ref(&f, &ref, w3_all, 145 * 100, &res);
	check_shares("all up again", 3, w3_all, 145 * 100, &res);

	/* no fixed path up: the mobile paths share equally, whatever w is */
	fx_init(&f, prm(0.5, 250, 50, 45), "FFMM");
	fx_set_w(&f, 45);
	ing_sched_set_up(&f.s, 0, false);
	ing_sched_set_up(&f.s, 1, false);
	run_wrr(&f, d, 100000, &res);
	check_shares("all fixed down", 4, d, 100000, &res);
	assert_int_equal(res.count[2], 50000);
	assert_int_equal(res.maxrun[2], 1);
	assert_int_equal(res.maxrun[3], 1);
	ing_sched_set_up(&f.s, 2, false);
	run_wrr(&f, e, 1000, &res);
	assert_int_equal(res.count[3], 1000);

	/* also with w_mobile 0 */
	fx_init(&f, prm(0.5, 250, 50, 45), "FM");
	ing_sched_set_up(&f.s, 0, false);
	run_wrr(&f, g, 1000, &res);
	assert_int_equal(res.count[1], 1000);

	/* and with no fixed path configured at all */
	fx_init(&f, prm(0.5, 250, 50, 45), "MM");
	run_wrr(&f, m2, 1000, &res);
	assert_int_equal(res.count[0], 500);
}

static void test_all_down(void **state)
{
	struct fx f;
	struct wire_hdr h;
	unsigned i;

	(void)state;
	fx_init(&f, prm(0.5, 250, 50, 45), "FM");
	ing_sched_set_up(&f.s, 0, false);
	ing_sched_set_up(&f.s, 1, false);
	for (i = 0; i < 3; i++) {
		assert_int_equal(ing_sched_pick(&f.s, &h), -ENETDOWN);
	}
	assert_int_equal(f.s.st.no_path, 3);
	assert_int_equal(f.s.gseq, 0);
	assert_near(ing_sched_weight(&f.s, 0), 0);
	assert_near(ing_sched_weight(&f.s, 1), 0);

	ing_sched_set_up(&f.s, 0, true);
	for (i = 0; i < 5; i++) {
		pick(&f, &h);
	}
	ing_sched_set_up(&f.s, 0, false);
	assert_int_equal(ing_sched_pick(&f.s, &h), -ENETDOWN);
	assert_int_equal(f.s.st.no_path, 4);
	assert_int_equal(f.s.gseq, 5);
	assert_int_equal(f.s.path[0].lseq, 5);
	assert_int_equal(f.s.path[0].sent, 5);
	assert_int_equal(f.s.path[1].lseq, 0);
	assert_int_equal(f.s.fixed_sent, 5);
	/* nothing was consumed: the next pick continues where it was */
	ing_sched_set_up(&f.s, 0, true);
	assert_int_equal(pick(&f, &h), 0);
	assert_int_equal(h.gseq, 5);
	assert_int_equal(h.lseq, 5);
	assert_int_equal(h.pgap, 1);
}

/* ---- sequence numbers ---- */

struct seq_track {
	bool seen[WIRE_MAX_PATHS];
	uint32_t last[WIRE_MAX_PATHS];
	uint32_t lseq[WIRE_MAX_PATHS];
};

/* Checks one pick's numbers against the test's own bookkeeping. */
static void track(struct seq_track *t, const struct wire_hdr *h, uint32_t gseq)
{
	unsigned p = h->path;
	uint32_t dist = gseq - t->last[p];
	uint16_t want_pgap = t->seen[p] && dist <= 65535 ? (uint16_t)dist : 0;

	if (h->gseq != gseq || h->lseq != t->lseq[p] || h->pgap != want_pgap) {
		fail_msg("path %u: gseq %u lseq %u pgap %u, want %u %u %u",
			 p, h->gseq, h->lseq, h->pgap, gseq, t->lseq[p],
			 want_pgap);
	}
	t->seen[p] = true;
	t->last[p] = gseq;
	t->lseq[p]++;
}

static void test_seq_numbers(void **state)
{
	struct fx f;
	struct seq_track t;
	uint32_t i;
	unsigned long count[3] = { 0 };

	(void)state;
	memset(&t, 0, sizeof(t));
	fx_init(&f, prm(0.5, 250, 50, 45), "FFM");
	fx_set_w(&f, 12);
	for (i = 0; i < 20000; i++) {
		struct wire_hdr h = {
			.type = WIRE_DATA, .session = 0xabcdef01,
			.tstamp = 0x12345678,
		};

		count[pick(&f, &h)]++;
		track(&t, &h, i);
		/* the caller's fields are left alone */
		assert_int_equal(h.type, WIRE_DATA);
		assert_int_equal(h.session, 0xabcdef01);
		assert_int_equal(h.tstamp, 0x12345678);
	}
	assert_int_equal(f.s.gseq, 20000);
	for (i = 0; i < 3; i++) {
		assert_int_equal(f.s.path[i].lseq, count[i]);
		assert_int_equal(f.s.path[i].sent, count[i]);
		assert_true(count[i] > 0);
	}
}

/* pgap is the distance to the previous pick on the path if <= 65535, else
 * 0.  Driven exactly by taking the fixed path down and up: with w_mobile 0
 * the mobile path is picked only while the fixed one is down. */
static void test_pgap_limit(void **state)
{
	struct fx f;
	struct wire_hdr h;
	uint32_t i;

	(void)state;
	fx_init(&f, prm(0.5, 250, 50, 45), "FM");
	ing_sched_set_up(&f.s, 0, false);
	assert_int_equal(pick(&f, &h), 1); /* gseq 0 */
	assert_int_equal(h.gseq, 0);
	assert_int_equal(h.pgap, 0);
	ing_sched_set_up(&f.s, 0, true);
	for (i = 1; i <= 65534; i++) {
		assert_int_equal(pick(&f, &h), 0);
		assert_int_equal(h.pgap, i == 1 ? 0 : 1);
	}
	ing_sched_set_up(&f.s, 0, false);
	assert_int_equal(pick(&f, &h), 1); /* gseq 65535: distance 65535 */
	assert_int_equal(h.gseq, 65535);
	assert_int_equal(h.lseq, 1);
	assert_int_equal(h.pgap, 65535);
	ing_sched_set_up(&f.s, 0, true);
	for (i = 0; i < 65535; i++) {
		assert_int_equal(pick(&f, &h), 0);
	}
	ing_sched_set_up(&f.s, 0, false);
	assert_int_equal(pick(&f, &h), 1); /* gseq 131071: distance 65536 */
	assert_int_equal(h.gseq, 131071);
	assert_int_equal(h.lseq, 2);
	assert_int_equal(h.pgap, 0);
	assert_int_equal(pick(&f, &h), 1); /* history kept even when 0 */
	assert_int_equal(h.pgap, 1);
	ing_sched_set_up(&f.s, 0, true);
	assert_int_equal(pick(&f, &h), 0); /* gseq 131073, last 131070 */
	assert_int_equal(h.pgap, 3);
}

/* Tiny mobile weights: w 0.001 -> about one mobile pick in 50001 (pgap
 * carries the distance); w 0.0005 -> one in 100001 (pgap 0). */
static void test_pgap_tiny_weight(void **state)
{
	static const double wmax[] = { 0.001, 0.0005 };
	unsigned k;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(wmax); k++) {
		struct fx f;
		struct seq_track t;
		unsigned long mobile = 0;
		uint32_t i, last = 0, mind = UINT32_MAX, maxd = 0;

		memset(&t, 0, sizeof(t));
		fx_init(&f, prm(0.5, 250, 50, wmax[k]), "FM");
		fx_set_w(&f, 1);
		for (i = 0; i < 420000; i++) {
			struct wire_hdr h;

			if (pick(&f, &h) == 1) {
				if (mobile) {
					uint32_t d = i - last;

					mind = d < mind ? d : mind;
					maxd = d > maxd ? d : maxd;
					if (k == 0) {
						assert_int_equal(h.pgap, d);
					} else {
						assert_int_equal(h.pgap, 0);
					}
				}
				mobile++;
				last = i;
			}
			track(&t, &h, i);
		}
		assert_true(mobile >= 4);
		if (k == 0) {
			assert_true(mind >= 49000 && maxd <= 51000);
		} else {
			assert_true(mind >= 99000 && maxd <= 101000);
		}
	}
}

static void test_gseq_wrap(void **state)
{
	struct fx f;
	struct seq_track t;
	struct wire_hdr h;
	uint32_t i;

	(void)state;
	memset(&t, 0, sizeof(t));
	fx_init(&f, prm(0.5, 250, 50, 45), "FF");
	ing_sched_reset_seq(&f.s, 0xfffffff0);
	assert_int_equal(f.s.gseq, 0xfffffff0);
	for (i = 0; i < 32; i++) {
		/* 50:50 alternates, lowest index first on the tie */
		assert_int_equal(pick(&f, &h), (int)(i % 2));
		track(&t, &h, 0xfffffff0 + i);
		assert_int_equal(h.lseq, i / 2);
		assert_int_equal(h.pgap, i < 2 ? 0 : 2);
	}
	assert_int_equal(f.s.gseq, 0x10);
}

static void test_reset_seq(void **state)
{
	struct fx f;
	struct wire_hdr h;
	double cur[2];
	uint64_t reports;
	unsigned i;

	(void)state;
	/* T_dwd 50: threshold 1 */
	fx_init(&f, prm(0.5, 50, 50, 45), "FM");
	f.seq = 99;
	fx_set_w(&f, 20); /* reports 100, 101 */
	for (i = 0; i < 30; i++) {
		pick(&f, &h);
	}
	fx_report(&f); /* 102: quiet 1 */
	assert_int_equal(f.s.quiet_reports, 1);
	for (i = 0; i < 7; i++) {
		pick(&f, &h);
	}
	assert_true(f.s.fixed_sent > 0);
	cur[0] = f.s.path[0].cur;
	cur[1] = f.s.path[1].cur;

	ing_sched_reset_seq(&f.s, 1000);
	assert_int_equal(f.s.gseq, 1000);
	assert_int_equal(f.s.path[0].lseq, 0);
	assert_int_equal(f.s.path[1].lseq, 0);
	assert_int_equal(f.s.fixed_sent, 0);
	assert_int_equal(f.s.quiet_reports, 0);
	assert_near(f.s.w_mobile, 20);
	assert_true(f.s.path[0].cur == cur[0]);
	assert_true(f.s.path[1].cur == cur[1]);

	/* report seq forgotten: 5 < 102 is applied; baselines forgotten:
	 * +7 on path 0 only sets the baseline; quiet restarted: quiet 1 is
	 * not > 1, so no decrement (it would be quiet 2 otherwise) */
	reports = f.s.st.reports;
	fx_loss(&f, 0, 7);
	fx_report_seq(&f, 5);
	assert_int_equal(f.s.st.reports, reports + 1);
	assert_int_equal(f.s.st.stale_reports, 0);
	assert_near(f.s.w_mobile, 20);
	assert_int_equal(f.s.st.awi, 0);
	fx_report_seq(&f, 6); /* quiet 2 > 1: 20 - 1 */
	assert_near(f.s.w_mobile, 19);

	/* pgap history cleared: first pick on each path has pgap 0 */
	{
		bool seen[2] = { false, false };
		uint32_t g = 1000;

		while (!seen[0] || !seen[1]) {
			int p = pick(&f, &h);

			assert_int_equal(h.gseq, g);
			if (!seen[p]) {
				assert_int_equal(h.pgap, 0);
				assert_int_equal(h.lseq, 0);
				seen[p] = true;
			}
			g++;
			assert_true(g < 1200);
		}
	}
}

static void test_weights(void **state)
{
	struct fx f;

	(void)state;
	fx_init(&f, prm(0.5, 250, 50, 45), "FFMM");
	assert_near(ing_sched_weight(&f.s, 0), 50);
	assert_near(ing_sched_weight(&f.s, 2), 0);   /* 0 / 2 */
	fx_set_w(&f, 45);
	assert_near(ing_sched_weight(&f.s, 1), 50);
	assert_near(ing_sched_weight(&f.s, 2), 22.5); /* 45 / 2 */
	assert_near(ing_sched_weight(&f.s, 3), 22.5);
	ing_sched_set_up(&f.s, 3, false);
	assert_near(ing_sched_weight(&f.s, 2), 45);   /* 45 / 1 */
	assert_near(ing_sched_weight(&f.s, 3), 0);
	ing_sched_set_up(&f.s, 0, false);
	assert_near(ing_sched_weight(&f.s, 0), 0);
	assert_near(ing_sched_weight(&f.s, 2), 45);   /* fixed 1 still up */
	ing_sched_set_up(&f.s, 1, false);
	assert_near(ing_sched_weight(&f.s, 2), 1);    /* no fixed path up */
	ing_sched_set_up(&f.s, 3, true);
	assert_near(ing_sched_weight(&f.s, 3), 1);
	ing_sched_set_up(&f.s, 1, true);
	assert_near(ing_sched_weight(&f.s, 3), 22.5);
}

/* ---- issue 14: suspect paths and copies sent again */

/* A report acknowledging lnext on path. */
static void fx_report_lnext(struct fx *f, unsigned path, uint32_t lnext)
{
	f->lnext[path] = lnext;
	fx_report(f);
}

/* A suspect path gets nothing, its weight goes to the others as if it
 * were down; w_mobile and the other paths' state stay. */
static void test_suspect_no_traffic(void **state)
{
	struct fx f;
	struct wire_hdr h;
	unsigned got[3] = {0};

	(void)state;
	fx_init(&f, prm(0.5, 250, 50, 45), "FMM");
	fx_set_w(&f, 20);
	ing_sched_set_suspect(&f.s, 0, true);
	assert_false(f.s.path[0].up);
	assert_near(ing_sched_weight(&f.s, 0), 0);
	/* no fixed path usable: the mobile ones carry everything evenly */
	assert_near(ing_sched_weight(&f.s, 1), 1);
	assert_near(f.s.w_mobile, 20);
	for (unsigned i = 0; i < 100; i++) {
		got[pick(&f, &h)]++;
	}
	assert_int_equal(got[0], 0);
	assert_int_equal(got[1], 50);
	assert_int_equal(got[2], 50);
	/* a mobile path suspect: w_mobile goes to the other one */
	ing_sched_set_suspect(&f.s, 0, false);
	ing_sched_set_suspect(&f.s, 2, true);
	assert_near(ing_sched_weight(&f.s, 0), 50);
	assert_near(ing_sched_weight(&f.s, 1), 20);
	assert_near(ing_sched_weight(&f.s, 2), 0);
	assert_near(f.s.w_mobile, 20);
	/* independent of up/down: both must allow it */
	ing_sched_set_up(&f.s, 2, true);
	assert_false(f.s.path[2].up);
	ing_sched_set_up(&f.s, 2, false);
	ing_sched_set_suspect(&f.s, 2, false);
	assert_false(f.s.path[2].up);
	ing_sched_set_up(&f.s, 2, true);
	assert_true(f.s.path[2].up);
	assert_near(ing_sched_weight(&f.s, 2), 10);
	/* out of range: ignored */
	ing_sched_set_suspect(&f.s, 7, true);
	/* all suspect: nothing is picked */
	for (unsigned i = 0; i < 3; i++) {
		ing_sched_set_suspect(&f.s, i, true);
	}
	assert_int_equal(ing_sched_pick(&f.s, &h), -ENETDOWN);
}

/* While a path is suspect, reports move no weight: the fixed path's loss
 * raises nothing (AWI, IWI), quiet reports take nothing (DWD), for
 * ING_FREEZE_MS at most (down or held after flapping included). */
static void test_suspect_freezes_weight(void **state)
{
	struct fx f;
	double w;

	(void)state;
	fx_init(&f, prm(0.5, 0, 50, 45), "FM");
	fx_set_w(&f, 10);
	ing_sched_set_suspect(&f.s, 1, true);
	fx_loss(&f, 0, 30);
	fx_report(&f);
	assert_near(f.s.w_mobile, 10);
	fx_report(&f); /* t_dwd 0: DWD would take 1 at once */
	assert_near(f.s.w_mobile, 10);
	assert_int_equal(f.s.st.frozen, 2);
	/* trusted again: the next loss raises it (AWI, nothing sent: 1) */
	ing_sched_set_suspect(&f.s, 1, false);
	fx_loss(&f, 0, 5);
	fx_report(&f);
	assert_near(f.s.w_mobile, 10 + 0.5 * 50);
	assert_int_equal(f.s.st.frozen, 2);
	/* suspect, then down or held: the weights wait ING_FREEZE_MS, then
	 * the bond runs as it is (DWD takes 1) */
	w = f.s.w_mobile;
	ing_sched_set_suspect(&f.s, 1, true);
	ing_sched_set_up(&f.s, 1, false);
	for (unsigned i = 0; i < ING_FREEZE_MS / f.s.p.t_report_ms; i++) {
		fx_report(&f);
	}
	assert_near(f.s.w_mobile, w);
	assert_int_equal(f.s.st.frozen, 2 + ING_FREEZE_MS / f.s.p.t_report_ms);
	/* suspect again while still suspect (HOLD, then a miss): no new
	 * freeze */
	ing_sched_set_suspect(&f.s, 1, true);
	fx_report(&f);
	assert_near(f.s.w_mobile, w - 1);
	assert_int_equal(f.s.st.frozen, 2 + ING_FREEZE_MS / f.s.p.t_report_ms);
	/* back, and suspect anew: frozen again */
	ing_sched_set_up(&f.s, 1, true);
	ing_sched_set_suspect(&f.s, 1, false);
	assert_true(f.s.path[1].up);
	ing_sched_set_suspect(&f.s, 1, true);
	fx_report(&f);
	assert_near(f.s.w_mobile, w - 1);
	assert_int_equal(f.s.st.frozen, 3 + ING_FREEZE_MS / f.s.p.t_report_ms);
}

/* n picks; on[i]: how many went on path i. */
static void picks(struct ing_sched *s, unsigned n, unsigned *on)
{
	struct wire_hdr h;

	memset(on, 0, WIRE_MAX_PATHS * sizeof(*on));
	while (n--) {
		int p = ing_sched_pick(s, &h);

		assert_true(p >= 0);
		on[p]++;
	}
}

/* A backup path: nothing while a fixed or mobile path is up (suspect is
 * not up), everything (shared evenly between backups) while none is; no
 * weight of its own, its loss and its suspicion move and freeze nothing;
 * a sparse flow does not take it for its lower delay. */
static void test_backup(void **state)
{
	unsigned on[WIRE_MAX_PATHS];
	struct wire_hdr h;
	struct fx f;

	(void)state;
	fx_init(&f, prm(0.5, 0, 50, 45), "FMBB");
	fx_set_w(&f, 10);
	picks(&f.s, 600, on);
	assert_int_equal(on[0], 500);
	assert_int_equal(on[1], 100);
	assert_int_equal(on[2] + on[3], 0);
	assert_near(ing_sched_weight(&f.s, 2), 0);
	/* its loss moves no weight (DWD at t_dwd 0 takes 1), its suspicion
	 * freezes none */
	fx_loss(&f, 2, 50);
	fx_report(&f);
	fx_report(&f);
	assert_near(f.s.w_mobile, 8);
	ing_sched_set_suspect(&f.s, 3, true);
	fx_report(&f);
	assert_near(f.s.w_mobile, 7);
	assert_int_equal(f.s.st.frozen, 0);
	ing_sched_set_suspect(&f.s, 3, false);
	/* the fixed one suspect: the mobile one carries all */
	ing_sched_set_suspect(&f.s, 0, true);
	picks(&f.s, 100, on);
	assert_int_equal(on[1], 100);
	/* the mobile one down too: the backups, evenly */
	ing_sched_set_up(&f.s, 1, false);
	picks(&f.s, 100, on);
	assert_int_equal(on[2], 50);
	assert_int_equal(on[3], 50);
	assert_near(ing_sched_weight(&f.s, 2), 1);
	/* one backup suspect: the other */
	ing_sched_set_suspect(&f.s, 2, true);
	picks(&f.s, 10, on);
	assert_int_equal(on[3], 10);
	ing_sched_set_suspect(&f.s, 2, false);
	/* a sparse packet takes the lowest delay among the paths in use:
	 * a backup only while no other is up */
	ing_sched_set_delay(&f.s, 1, 40000);
	ing_sched_set_delay(&f.s, 2, 30000);
	ing_sched_set_delay(&f.s, 3, 5000);
	assert_int_equal(ing_sched_pick_flow(&f.s, &h, 7, 100, 1000000), 3);
	ing_sched_set_up(&f.s, 1, true);
	assert_int_equal(ing_sched_pick_flow(&f.s, &h, 7, 100, 2000000), 1);
	/* the fixed one back: the backups carry nothing again */
	ing_sched_set_suspect(&f.s, 0, false);
	picks(&f.s, 100, on);
	assert_int_equal(on[2] + on[3], 0);
	assert_int_equal(ing_sched_pick_flow(&f.s, &h, 7, 100, 3000000), 0);

	/* a mobile path used as a backup (its budget spent) and back */
	fx_init(&f, prm(0.5, 0, 50, 45), "FM");
	fx_set_w(&f, 10);
	ing_sched_set_backup(&f.s, 1, true);
	picks(&f.s, 100, on);
	assert_int_equal(on[1], 0);
	ing_sched_set_suspect(&f.s, 0, true);
	picks(&f.s, 10, on);
	assert_int_equal(on[1], 10);
	ing_sched_set_suspect(&f.s, 0, false);
	ing_sched_set_backup(&f.s, 1, false);
	assert_int_equal(f.s.path[1].cls, PATH_MOBILE);
	picks(&f.s, 600, on);
	assert_int_equal(on[1], 600 * 10 / 60);
}

/* A redundant copy: the original's gseq, the copy path's own lseq, DUP,
 * pgap 0 (and 0 for the next packet on that path); none on a path that is
 * not up. */
static void test_pick_copy(void **state)
{
	struct wire_hdr h = {0}, c, n;
	struct fx f;

	(void)state;
	fx_init(&f, prm(0.5, 0, 50, 45), "FM");
	assert_int_equal(ing_sched_pick(&f.s, &h), 0);
	c = h;
	assert_int_equal(ing_sched_pick_copy(&f.s, &c, 1, 100), 1);
	assert_int_equal(c.gseq, h.gseq);
	assert_int_equal(c.path, 1);
	assert_int_equal(c.lseq, 0);
	assert_int_equal(c.pgap, 0);
	assert_true(c.flags & WIRE_F_DUP);
	assert_int_equal(f.s.path[1].lseq, 1);
	assert_int_equal(f.s.st.copies, 1);
	/* the next pick on path 1 (all of them, path 0 down): pgap 0 */
	ing_sched_set_up(&f.s, 0, false);
	assert_int_equal(ing_sched_pick(&f.s, &n), 1);
	assert_int_equal(n.lseq, 1);
	assert_int_equal(n.pgap, 0);
	c = h;
	assert_int_equal(ing_sched_pick_copy(&f.s, &c, 0, 100), -ENETDOWN);
	assert_int_equal(ing_sched_pick_copy(&f.s, &c, 7, 100), -ENETDOWN);
	assert_int_equal(f.s.st.copies, 1);
}

/* The fixed path's cut: the loss the peer reports for what it carried
 * until it turned suspect is forgiven, up to the report whose lseq_next
 * passes the cut; loss after that counts again. */
static void test_suspect_forgives_cut(void **state)
{
	struct fx f;
	struct wire_hdr h;

	(void)state;
	fx_init(&f, prm(0.5, 250, 50, 45), "FM");
	fx_report(&f); /* baselines; w_mobile 0 */
	for (unsigned i = 0; i < 40; i++) {
		assert_int_equal(pick(&f, &h), 0); /* w_mobile 0: all fixed */
	}
	ing_sched_set_suspect(&f.s, 0, true); /* forgive_to: lseq 40 */
	fx_report_lnext(&f, 0, 20);
	ing_sched_set_suspect(&f.s, 0, false);
	/* back: the first packet after the cut arrives, the egress counts
	 * the 20 lost before it; lseq_next not yet past the cut in this
	 * report, past it in the next */
	fx_loss(&f, 0, 12);
	fx_report_lnext(&f, 0, 30);
	fx_loss(&f, 0, 8);
	fx_report_lnext(&f, 0, 41);
	assert_near(f.s.w_mobile, 0);
	assert_int_equal(f.s.st.iwi, 0);
	assert_int_equal(f.s.st.forgiven, 20);
	/* later loss is congestion again (IWI from 0) */
	fx_loss(&f, 0, 3);
	fx_report_lnext(&f, 0, 60);
	assert_near(f.s.w_mobile, 3);
	assert_int_equal(f.s.st.iwi, 1);
	/* a restart of our sequence forgets a pending forgiveness */
	ing_sched_set_suspect(&f.s, 0, true);
	ing_sched_set_suspect(&f.s, 0, false);
	ing_sched_reset_seq(&f.s, 0);
	assert_false(f.s.path[0].forgive);
}

/* A copy sent again keeps its gseq and flow fields, gains RESENT, takes a
 * local sequence number of the path it goes on and no global one. */
static void test_pick_resend(void **state)
{
	struct fx f;
	struct wire_hdr h, c;
	uint32_t gseq_next, lseq1;
	int p;

	(void)state;
	fx_init(&f, prm(0.5, 250, 50, 45), "FM");
	fx_set_w(&f, 45);
	for (unsigned i = 0; i < 10; i++) {
		pick(&f, &h);
	}
	ing_sched_set_suspect(&f.s, 0, true);
	gseq_next = f.s.gseq;
	lseq1 = f.s.path[1].lseq;
	c = (struct wire_hdr){.gseq = 3, .fgap = 2, .flags = 0, .pgap = 9};
	p = ing_sched_pick_resend(&f.s, &c, 1000, 0);
	assert_int_equal(p, 1);
	assert_int_equal(c.path, 1);
	assert_int_equal(c.gseq, 3);
	assert_int_equal(c.fgap, 2);
	assert_int_equal(c.flags, WIRE_F_RESENT);
	assert_int_equal(c.pgap, 0);
	assert_int_equal(c.lseq, lseq1);
	assert_int_equal(f.s.path[1].lseq, lseq1 + 1);
	assert_int_equal(f.s.gseq, gseq_next);
	assert_int_equal(f.s.st.resent, 1);
	/* a FLOW_FIRST copy stays one */
	c = (struct wire_hdr){.gseq = 4, .flags = WIRE_F_FLOW_FIRST};
	assert_int_equal(ing_sched_pick_resend(&f.s, &c, 1000, 0), 1);
	assert_int_equal(c.flags, WIRE_F_FLOW_FIRST | WIRE_F_RESENT);
	/* the next packet on that path cannot name its predecessor */
	assert_int_equal(pick(&f, &h), 1);
	assert_int_equal(h.pgap, 0);
	assert_int_equal(h.lseq, lseq1 + 2);
	assert_int_equal(h.gseq, gseq_next);
	/* nowhere to go */
	ing_sched_set_up(&f.s, 1, false);
	assert_int_equal(ing_sched_pick_resend(&f.s, &c, 1000, 0), -ENETDOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_set_params),
		cmocka_unit_test(test_awi_table),
		cmocka_unit_test(test_awi_mixed_picks),
		cmocka_unit_test(test_iwi_table),
		cmocka_unit_test(test_dwd),
		cmocka_unit_test(test_queue_target),
		cmocka_unit_test(test_queue_from_zero),
		cmocka_unit_test(test_mobile_floor),
		cmocka_unit_test(test_mobile_floor_idle),
		cmocka_unit_test(test_peer_restarted),
		cmocka_unit_test(test_fixed_sent_and_loss_sum),
		cmocka_unit_test(test_report_seq),
		cmocka_unit_test(test_dwd_gap),
		cmocka_unit_test(test_baselines),
		cmocka_unit_test(test_loss_sum_large),
		cmocka_unit_test(test_wrr_two_paths),
		cmocka_unit_test(test_wrr_more_paths),
		cmocka_unit_test(test_wrr_down),
		cmocka_unit_test(test_all_down),
		cmocka_unit_test(test_seq_numbers),
		cmocka_unit_test(test_pgap_limit),
		cmocka_unit_test(test_pgap_tiny_weight),
		cmocka_unit_test(test_gseq_wrap),
		cmocka_unit_test(test_reset_seq),
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_suspect_no_traffic),
		cmocka_unit_test(test_suspect_freezes_weight),
		cmocka_unit_test(test_suspect_forgives_cut),
		cmocka_unit_test(test_pick_resend),
		cmocka_unit_test(test_backup),
		cmocka_unit_test(test_pick_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
