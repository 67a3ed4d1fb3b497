/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests of per-path loss accounting (egress/loss.c), written from
 * egress/loss.h and DESIGN.md (Loss accounting).
 *
 * A vector row is one packet on a path: its local sequence number, absolute
 * or relative to the expected next one (as the row before left it), and the
 * expected return value and counters of that path afterwards.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "egress/loss.h"

struct lrow {
	unsigned path;
	bool abs; /* lseq is val; else lseq = expected next + val */
	uint32_t val;
	uint32_t ret;
	uint32_t rx, lost;
	uint64_t jumps, behind;
	uint32_t next; /* expected next lseq afterwards (after started) */
};

/* expected next lseq of path 0 after rows 9..12 (each a resync) */
#define N9  ((uint32_t)(1009 + 65536 + 1 + 65537 + 1))
#define N10 ((uint32_t)(N9 + 0x80000000u + 1))
#define N11 ((uint32_t)(N10 + 0x7fffffffu + 1))
#define N12 ((uint32_t)(N11 + 0x80000001u + 1))

#define A(p_, l_) .path = (p_), .abs = true, .val = (l_)
#define D(p_, d_) .path = (p_), .abs = false, .val = (uint32_t)(d_)

enum { NPATHS = 4 }; /* the last one never sees a packet */

static const struct lrow rows[] = {
	/* 0: first packet: no loss whatever its number */
	{A(0, 1000), .ret = 0, .rx = 1, .next = 1001},
	/* 1, 2: in order */
	{D(0, 0), .ret = 0, .rx = 2, .next = 1002},
	{D(0, 0), .ret = 0, .rx = 3, .next = 1003},
	/* 3: 1003, 1004 missing */
	{D(0, 2), .ret = 2, .rx = 4, .lost = 2, .next = 1006},
	/* 4: one missing */
	{D(0, 1), .ret = 1, .rx = 5, .lost = 3, .next = 1008},
	/* 5: behind by one (a duplicate of the last): not taken back */
	{D(0, -1), .ret = 0, .rx = 6, .lost = 3, .behind = 1, .next = 1008},
	/* 6: far behind */
	{D(0, -1000), .ret = 0, .rx = 7, .lost = 3, .behind = 2, .next = 1008},
	/* 7: in order again */
	{D(0, 0), .ret = 0, .rx = 8, .lost = 3, .behind = 2, .next = 1009},
	/* 8: gap of exactly EGR_LOSS_MAX_GAP: loss */
	{D(0, 65536), .ret = 65536, .rx = 9, .lost = 3 + 65536, .behind = 2,
	 .next = 1009 + 65536 + 1},
	/* 9: gap of 65537: a jump, no loss, resynchronised */
	{D(0, 65537), .ret = 0, .rx = 10, .lost = 3 + 65536, .jumps = 1,
	 .behind = 2, .next = N9},
	/* 10: exactly 2^31 away: d = -2^31 < -65536, a jump (resync) */
	{D(0, 0x80000000u), .ret = 0, .rx = 11, .lost = 3 + 65536, .jumps = 2,
	 .behind = 2, .next = N10},
	/* 11: 2^31 - 1 ahead: a jump */
	{D(0, 0x7fffffffu), .ret = 0, .rx = 12, .lost = 3 + 65536, .jumps = 3,
	 .behind = 2, .next = N11},
	/* 12: 2^31 + 1 away, i.e. 2^31 - 1 behind: a jump too */
	{D(0, 0x80000001u), .ret = 0, .rx = 13, .lost = 3 + 65536, .jumps = 4,
	 .behind = 2, .next = N12},

	/* path 1: lseq wraps at 2^32 */
	/* 13 */
	{A(1, 0xfffffffeu), .ret = 0, .rx = 1, .next = 0xffffffffu},
	{D(1, 0), .ret = 0, .rx = 2, .next = 0},
	{D(1, 0), .ret = 0, .rx = 3, .next = 1},
	/* 16: 1 and 2 missing */
	{D(1, 2), .ret = 2, .rx = 4, .lost = 2, .next = 4},
	/* 17: 0xffffffff is behind 4 */
	{A(1, 0xffffffffu), .ret = 0, .rx = 5, .lost = 2, .behind = 1,
	 .next = 4},
	/* 18: a gap across the wrap */
	{A(1, 7), .ret = 3, .rx = 6, .lost = 5, .behind = 1, .next = 8},
	/* 19: behind across the wrap by 24 (within 65536): next unchanged;
	 * then a gap */
	{A(1, 0xfffffff0u), .ret = 0, .rx = 7, .lost = 5, .behind = 2,
	 .next = 8},
	{A(1, 10), .ret = 2, .rx = 8, .lost = 7, .behind = 2, .next = 11},

	/* path 0 unaffected by path 1: continues where it was */
	/* 21 */
	{D(0, 0), .ret = 0, .rx = 14, .lost = 3 + 65536, .jumps = 4,
	 .behind = 2, .next = N12 + 1},
	/* 22: exactly 65536 behind: still behind, next unchanged */
	{D(0, -65536), .ret = 0, .rx = 15, .lost = 3 + 65536, .jumps = 4,
	 .behind = 3, .next = N12 + 1},
	/* 23: 65537 behind: a jump; resynchronised to lseq + 1 */
	{D(0, -65537), .ret = 0, .rx = 16, .lost = 3 + 65536, .jumps = 5,
	 .behind = 3, .next = N12 + 1 - 65536},
	/* 24, 25, 26: after the resync packets count normally: in order,
	 * 3 missing, one behind */
	{D(0, 0), .ret = 0, .rx = 17, .lost = 3 + 65536, .jumps = 5,
	 .behind = 3, .next = N12 + 1 - 65535},
	{D(0, 3), .ret = 3, .rx = 18, .lost = 3 + 65536 + 3, .jumps = 5,
	 .behind = 3, .next = N12 + 1 - 65535 + 4},
	{D(0, -1), .ret = 0, .rx = 19, .lost = 3 + 65536 + 3, .jumps = 5,
	 .behind = 4, .next = N12 + 1 - 65535 + 4},

	/* path 2: a sender restarts, lseq back to 0 from 1,000,002 */
	/* 27 */
	{A(2, 1000000), .ret = 0, .rx = 1, .next = 1000001},
	{D(2, 0), .ret = 0, .rx = 2, .next = 1000002},
	{D(2, 0), .ret = 0, .rx = 3, .next = 1000003},
	/* 30: 0 is 1,000,003 behind: a jump, resynchronised */
	{A(2, 0), .ret = 0, .rx = 4, .jumps = 1, .next = 1},
	/* 31..33: then counted normally: in order, 2 missing, in order */
	{A(2, 1), .ret = 0, .rx = 5, .jumps = 1, .next = 2},
	{A(2, 4), .ret = 2, .rx = 6, .lost = 2, .jumps = 1, .next = 5},
	{A(2, 5), .ret = 0, .rx = 7, .lost = 2, .jumps = 1, .next = 6},
	/* 34: a stray packet of the old sender: a jump forward (no loss),
	 * and the next new packet jumps back (no loss either) */
	{A(2, 1000003), .ret = 0, .rx = 8, .lost = 2, .jumps = 2,
	 .next = 1000004},
	{A(2, 6), .ret = 0, .rx = 9, .lost = 2, .jumps = 3, .next = 7},
	{A(2, 8), .ret = 1, .rx = 10, .lost = 3, .jumps = 3, .next = 9},
};

static void check_path(unsigned ri, const struct egr_loss_path *p,
		       const struct lrow *w)
{
	if (!p->started || p->rx != w->rx || p->lost != w->lost ||
	    p->jumps != w->jumps || p->behind != w->behind ||
	    p->next_lseq != w->next) {
		fail_msg("row %u: started %d rx %" PRIu32 " lost %" PRIu32
			 " jumps %" PRIu64 " behind %" PRIu64 " next %" PRIu32
			 "; want rx %" PRIu32 " lost %" PRIu32 " jumps %" PRIu64
			 " behind %" PRIu64 " next %" PRIu32,
			 ri, p->started, p->rx, p->lost, p->jumps, p->behind,
			 p->next_lseq, w->rx, w->lost, w->jumps, w->behind,
			 w->next);
	}
}

static void test_vectors(void **state)
{
	struct egr_loss l;
	const struct lrow *last[WIRE_MAX_PATHS] = {NULL};
	unsigned ri, q;

	(void)state;
	memset(&l, 0xa5, sizeof(l)); /* init must not rely on zeroed memory */
	egr_loss_init(&l, NPATHS);
	for (q = 0; q < NPATHS; q++) {
		assert_false(l.p[q].started);
		assert_int_equal(l.p[q].rx, 0);
		assert_int_equal(l.p[q].lost, 0);
		assert_int_equal(l.p[q].jumps, 0);
		assert_int_equal(l.p[q].behind, 0);
		assert_false(l.p[q].have_base);
		assert_int_equal(l.p[q].qdelay_max, 0);
	}
	for (ri = 0; ri < sizeof(rows) / sizeof(rows[0]); ri++) {
		const struct lrow *w = &rows[ri];
		uint32_t lseq, got;

		if (w->abs) {
			lseq = w->val;
		} else {
			assert_non_null(last[w->path]);
			lseq = last[w->path]->next + w->val;
		}
		got = egr_loss_on_packet(&l, w->path, lseq);
		if (got != w->ret) {
			fail_msg("row %u: path %u lseq %" PRIu32
				 " returned %" PRIu32 ", want %" PRIu32,
				 ri, w->path, lseq, got, w->ret);
		}
		check_path(ri, &l.p[w->path], w);
		/* the other paths did not move */
		for (q = 0; q < NPATHS; q++) {
			if (q != w->path && last[q]) {
				check_path(ri, &l.p[q], last[q]);
			}
		}
		last[w->path] = w;
	}
	assert_false(l.p[NPATHS - 1].started);
	assert_int_equal(l.p[NPATHS - 1].rx, 0);
}

static void test_counters_wrap(void **state)
{
	struct egr_loss l;

	(void)state;
	egr_loss_init(&l, 1);
	assert_int_equal(egr_loss_on_packet(&l, 0, 5), 0);
	l.p[0].rx = 0xffffffffu;
	l.p[0].lost = 0xfffffffeu;
	assert_int_equal(egr_loss_on_packet(&l, 0, 6), 0);
	assert_int_equal(l.p[0].rx, 0);
	assert_int_equal(egr_loss_on_packet(&l, 0, 10), 3);
	assert_int_equal(l.p[0].rx, 1);
	assert_int_equal(l.p[0].lost, 1);
}

static void test_report(void **state)
{
	struct egr_loss l;
	struct wire_report r;
	unsigned i;

	(void)state;
	egr_loss_init(&l, 2);

	/* first report: seq 1, both paths, all zero */
	memset(&r, 0xa5, sizeof(r));
	assert_int_equal(egr_loss_report(&l, &r), 1);
	assert_int_equal(r.n, 2);
	for (i = 0; i < 2; i++) {
		assert_int_equal(r.p[i].path, i);
		assert_int_equal(r.p[i].rx_pkts, 0);
		assert_int_equal(r.p[i].lost_pkts, 0);
		assert_int_equal(r.p[i].delay_us, 0);
		/* nothing received yet */
		assert_int_equal(r.p[i].lseq_next, 0);
		/* no flag: the caller adds them (a stale byte here made
		 * wire_put_report refuse every REPORT) */
		assert_int_equal(r.p[i].flags, 0);
	}

	/* path 0: 10, 11, 14 (2 lost); path 1: 0, 1 */
	egr_loss_on_packet(&l, 0, 10);
	egr_loss_on_packet(&l, 0, 11);
	assert_int_equal(egr_loss_on_packet(&l, 0, 14), 2);
	egr_loss_on_packet(&l, 1, 0);
	egr_loss_on_packet(&l, 1, 1);
	assert_int_equal(egr_loss_report(&l, &r), 2);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.p[0].path, 0);
	assert_int_equal(r.p[0].rx_pkts, 3);
	assert_int_equal(r.p[0].lost_pkts, 2);
	assert_int_equal(r.p[1].path, 1);
	assert_int_equal(r.p[1].rx_pkts, 2);
	assert_int_equal(r.p[1].lost_pkts, 0);
	/* one past the highest received */
	assert_int_equal(r.p[0].lseq_next, 15);
	assert_int_equal(r.p[1].lseq_next, 2);

	/* cumulative: not reset by a report */
	assert_int_equal(egr_loss_on_packet(&l, 1, 5), 3);
	assert_int_equal(egr_loss_report(&l, &r), 3);
	assert_int_equal(r.p[0].rx_pkts, 3);
	assert_int_equal(r.p[0].lost_pkts, 2);
	assert_int_equal(r.p[1].rx_pkts, 3);
	assert_int_equal(r.p[1].lost_pkts, 3);
	assert_int_equal(r.p[1].lseq_next, 6);

	/* a packet behind the expected one does not take it back; a
	 * resync follows the sender */
	assert_int_equal(egr_loss_on_packet(&l, 1, 3), 0);
	assert_int_equal(egr_loss_on_packet(&l, 0, 14 + 100000), 0);
	assert_int_equal(egr_loss_report(&l, &r), 4);
	assert_int_equal(r.p[1].lseq_next, 6);
	assert_int_equal(r.p[0].lseq_next, 14 + 100000 + 1);
	assert_int_equal(r.p[0].rx_pkts, 4);
	assert_int_equal(r.p[1].rx_pkts, 4);

	/* a report without new packets repeats the counters */
	assert_int_equal(egr_loss_report(&l, &r), 5);
	assert_int_equal(r.p[1].lost_pkts, 3);
	assert_int_equal(r.p[1].lseq_next, 6);

	/* the interval's smallest queueing delay is carried, then restarts;
	 * an interval without packets reports 0 */
	l.p[1].qdelay_max = 23456;
	l.p[1].qdelay_min = 12345;
	l.p[1].qdelay_any = true;
	assert_int_equal(egr_loss_report(&l, &r), 6);
	assert_int_equal(r.p[1].delay_us, 12345);
	assert_int_equal(r.p[0].delay_us, 0);
	assert_int_equal(l.p[1].qdelay_max, 0);
	assert_false(l.p[1].qdelay_any);
	assert_int_equal(egr_loss_report(&l, &r), 7);
	assert_int_equal(r.p[1].delay_us, 0);

	/* the local sequence wraps: lseq 0xffffffff expects 0 next */
	l.p[1].next_lseq = 0xffffffffu;
	assert_int_equal(egr_loss_on_packet(&l, 1, 0xffffffffu), 0);
	assert_int_equal(egr_loss_report(&l, &r), 8);
	assert_int_equal(r.p[1].lseq_next, 0);
	assert_int_equal(egr_loss_on_packet(&l, 1, 0), 0);
	assert_int_equal(egr_loss_report(&l, &r), 9);
	assert_int_equal(r.p[1].lseq_next, 1);

	/* report seq wraps */
	l.report_seq = 0xffffffffu;
	assert_int_equal(egr_loss_report(&l, &r), 0);
	assert_int_equal(egr_loss_report(&l, &r), 1);
}

/* Queueing delay = (arrival - stamp) above its minimum over this and the
 * previous 10 s window, whatever the clock offset; the report carries the
 * smallest value since the previous report (a standing queue, not one
 * delayed packet).  Rows: arrival (us), stamp, the qdelay_max and
 * qdelay_min expected after the packet.  Offset between clocks: 1e9 - 5000
 * (the stamps wrap at 2^32). */
struct delay_row {
	uint64_t now;
	uint32_t stamp;
	uint32_t qmax;
	uint32_t qmin;
	int report; /* take a report after this row */
};

#define OFF	     4294962296u /* stamp = now - 5000 + OFF, mod 2^32 */
#define ST(now, owd) ((uint32_t)((now) - (owd) + OFF))

static const struct delay_row delay_rows[] = {
	{1000000, ST(1000000, 13000), 0, 0, 0},	      /* 0: base 13 ms */
	{1001000, ST(1001000, 15000), 2000, 0, 0},    /* 1: 2 ms queueing */
	{1002000, ST(1002000, 14000), 2000, 0, 1},    /* 2: report min 0 */
	{1003000, ST(1003000, 14000), 1000, 1000, 0}, /* 3: new interval */
	{1004000, ST(1004000, 12000), 1000, 0, 1},    /* 4: new min 12 ms */
	{1005000, ST(1005000, 12500), 500, 500, 0},   /* 5: 0.5 above it */
	/* 6: window rolls (> 11 s): the old min 12 ms still counts */
	{11500000, ST(11500000, 20000), 8000, 500, 1},
	/* 7: second roll: only the 20 ms of the last window counts now */
	{21600000, ST(21600000, 21000), 1000, 1000, 1},
};

static void test_queueing_delay(void **state)
{
	struct egr_loss l;
	struct wire_report r;

	(void)state;
	egr_loss_init(&l, 1);
	assert_int_equal(l.counted_us, 0);
	for (size_t i = 0; i < sizeof(delay_rows) / sizeof(delay_rows[0]);
	     i++) {
		const struct delay_row *d = &delay_rows[i];

		egr_loss_on_delay(&l, 0, d->stamp, d->now);
		/* when the latest DATA counted arrived: a report's stamp */
		assert_int_equal(l.counted_us, d->now);
		if (l.p[0].qdelay_max != d->qmax) {
			fail_msg("row %zu: qdelay_max %u, want %u", i,
				 l.p[0].qdelay_max, d->qmax);
		}
		if (l.p[0].qdelay_min != d->qmin) {
			fail_msg("row %zu: qdelay_min %u, want %u", i,
				 l.p[0].qdelay_min, d->qmin);
		}
		if (d->report) {
			egr_loss_report(&l, &r);
			assert_int_equal(r.p[0].delay_us, d->qmin);
		}
	}
	/* a packet stamped earlier than the latest (another path's, a
	 * stamp the kernel did not give) does not move it back */
	egr_loss_on_delay(&l, 0, ST(21500000, 13000), 21500000);
	assert_int_equal(l.counted_us, 21600000);
	/* out of range path: ignored */
	egr_loss_on_delay(&l, 1, 0, 30000000);
	assert_int_equal(l.counted_us, 21600000);
}

static void test_report_all_paths(void **state)
{
	struct egr_loss l;
	struct wire_report r;
	unsigned i;

	(void)state;
	egr_loss_init(&l, WIRE_MAX_PATHS);
	for (i = 0; i < WIRE_MAX_PATHS; i++) {
		egr_loss_on_packet(&l, i, 0);
		egr_loss_on_packet(&l, i, 1 + i); /* i lost */
	}
	assert_int_equal(egr_loss_report(&l, &r), 1);
	assert_int_equal(r.n, WIRE_MAX_PATHS);
	for (i = 0; i < WIRE_MAX_PATHS; i++) {
		assert_int_equal(r.p[i].path, i);
		assert_int_equal(r.p[i].rx_pkts, 2);
		assert_int_equal(r.p[i].lost_pkts, i);
	}
	egr_loss_init(&l, 1);
	assert_int_equal(egr_loss_report(&l, &r), 1);
	assert_int_equal(r.n, 1);
}

static void test_path_out_of_range(void **state)
{
	static const unsigned bad[] = {
		2, 3, WIRE_MAX_PATHS - 1, WIRE_MAX_PATHS, 1000, 0xffffffffu};
	struct egr_loss l, before;
	struct wire_report r;
	size_t i;

	(void)state;
	memset(&l, 0, sizeof(l));
	egr_loss_init(&l, 2);
	egr_loss_on_packet(&l, 0, 7);
	egr_loss_on_packet(&l, 1, 9);
	memcpy(&before, &l, sizeof(l));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(egr_loss_on_packet(&l, bad[i], 100), 0);
		assert_int_equal(egr_loss_on_packet(&l, bad[i], 5000), 0);
	}
	assert_memory_equal(&l, &before, sizeof(l));
	assert_int_equal(egr_loss_report(&l, &r), 1);
	assert_int_equal(r.n, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_counters_wrap),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_report_all_paths),
		cmocka_unit_test(test_queueing_delay),
		cmocka_unit_test(test_path_out_of_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
