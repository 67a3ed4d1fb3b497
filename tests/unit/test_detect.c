/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests for the path failure detector (ingress/detect.c).
 *
 * Written from ingress/detect.h.  Every transition runs on a fake clock
 * (times passed in, us): UP -> SUSPECT by the data rule and by the probe
 * rule, SUSPECT -> UP, SUSPECT -> DOWN, DOWN -> UP, the flap back-off
 * (HOLD, growing, capped, forgotten after the window), the idle probe
 * interval, and the bookkeeping of acknowledgements (old, beyond what was
 * sent, across the 32-bit wrap, late after SUSPECT).
 *
 * Parameters: t_report 50 ms, dead_after 1000 ms, probe 200 ms, so with
 * no RTT measured T = max(3 x 50, 50 + 0) = 150 ms.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ingress/detect.h"

#define MS(x) ((uint64_t)(x) * 1000)
#define T MS(150)

static struct ing_detect_params prm(void)
{
	struct ing_detect_params p;

	ing_detect_params_default(&p, 50, 1000, 200);
	return p;
}

/* A detector UP at 1 s (answered once). */
static void up_at_1s(struct ing_detect *d)
{
	struct ing_detect_params p = prm();

	assert_int_equal(ing_detect_init(d, &p, MS(0)), 0);
	assert_int_equal(ing_detect_answered(d, MS(1000)), ING_DET_EV_UP);
}

/* n packets from lseq on, all at now. */
static void send(struct ing_detect *d, uint32_t lseq, unsigned n, uint64_t now)
{
	for (unsigned i = 0; i < n; i++) {
		ing_detect_sent(d, lseq + i, now);
	}
}

/* 8 packets from lseq on at t, never acknowledged: SUSPECT at t + T, not
 * before. */
static void cut_at(struct ing_detect *d, uint32_t lseq, uint64_t t)
{
	send(d, lseq, 8, t);
	assert_int_equal(ing_detect_tick(d, t + T - 1), ING_DET_EV_NONE);
	assert_int_equal(ing_detect_tick(d, t + T), ING_DET_EV_SUSPECT);
}

static void test_init(void **state)
{
	struct ing_detect_params p = prm(), bad;
	struct ing_detect d;
	uint64_t when;

	(void)state;
	assert_int_equal(p.suspect_floor_ms, 150);
	assert_int_equal(ing_detect_init(&d, &p, MS(5)), 0);
	assert_int_equal(d.state, ING_DET_DOWN);
	assert_false(ing_detect_usable(&d));
	assert_false(ing_detect_deadline(&d, &when));
	/* floor 0: 3 report intervals */
	p.suspect_floor_ms = 0;
	assert_int_equal(ing_detect_init(&d, &p, 0), 0);
	assert_int_equal(d.p.suspect_floor_ms, 150);
	bad = prm();
	bad.t_report_ms = 0;
	assert_int_equal(ing_detect_init(&d, &bad, 0), -EINVAL);
	bad = prm();
	bad.dead_after_ms = 0;
	assert_int_equal(ing_detect_init(&d, &bad, 0), -EINVAL);
	bad = prm();
	bad.hold_base_ms = bad.hold_max_ms + 1;
	assert_int_equal(ing_detect_init(&d, &bad, 0), -EINVAL);
	bad = prm();
	bad.idle_probe_ms = 0;
	assert_int_equal(ing_detect_init(&d, &bad, 0), -EINVAL);
}

static void test_timeout(void **state)
{
	struct ing_detect d;

	(void)state;
	up_at_1s(&d);
	assert_int_equal(ing_detect_timeout_us(&d), T);
	/* 50 ms + 40 + 4 x 10 = 130 ms: still the floor */
	ing_detect_set_rtt(&d, 40000, 10000);
	assert_int_equal(ing_detect_timeout_us(&d), T);
	/* 50 ms + 300 + 4 x 50 = 550 ms */
	ing_detect_set_rtt(&d, 300000, 50000);
	assert_int_equal(ing_detect_timeout_us(&d), MS(550));
}

static void test_first_answer_up(void **state)
{
	struct ing_detect d;

	(void)state;
	up_at_1s(&d);
	assert_true(ing_detect_usable(&d));
	/* the first UP is no recovery */
	assert_int_equal(d.st.recovered, 0);
	/* answers while UP change nothing */
	assert_int_equal(ing_detect_answered(&d, MS(1100)), ING_DET_EV_NONE);
	assert_int_equal(ing_detect_tick(&d, MS(5000)), ING_DET_EV_NONE);
}

static void test_data_rule(void **state)
{
	struct ing_detect d;
	uint64_t when;

	(void)state;
	up_at_1s(&d);
	send(&d, 0, ING_DET_MIN_UNACKED, MS(2000));
	assert_true(ing_detect_deadline(&d, &when));
	assert_int_equal(when, MS(2000) + T);
	assert_int_equal(ing_detect_tick(&d, MS(2000) + T - 1),
			 ING_DET_EV_NONE);
	assert_int_equal(ing_detect_tick(&d, MS(2000) + T),
			 ING_DET_EV_SUSPECT);
	assert_int_equal(d.state, ING_DET_SUSPECT);
	assert_false(ing_detect_usable(&d));
	assert_int_equal(d.st.suspect, 1);
	assert_int_equal(d.st.by_data, 1);
	assert_int_equal(d.st.by_probe, 0);
	assert_int_equal(d.st.flaps, 0);
	/* the next thing due is DOWN, dead_after after the last answer */
	assert_true(ing_detect_deadline(&d, &when));
	assert_int_equal(when, MS(1000) + MS(1000));
}

static void test_data_rule_needs_packets(void **state)
{
	struct ing_detect d;
	uint64_t when;

	(void)state;
	up_at_1s(&d);
	/* one packet short: a lossy path's lost burst end, not a dead path */
	send(&d, 0, ING_DET_MIN_UNACKED - 1, MS(2000));
	assert_false(ing_detect_deadline(&d, &when));
	assert_int_equal(ing_detect_tick(&d, MS(2500)), ING_DET_EV_NONE);
	/* a fourth one, later, starts no new wait: the wait began with the
	 * oldest, so the path that stayed silent since is suspect at once */
	send(&d, ING_DET_MIN_UNACKED - 1, 1, MS(2600));
	assert_true(ing_detect_deadline(&d, &when));
	assert_int_equal(when, MS(2000) + T);
	assert_int_equal(ing_detect_tick(&d, MS(2600)), ING_DET_EV_SUSPECT);
}

static void test_acks_keep_up(void **state)
{
	struct ing_detect d;
	uint32_t lseq = 0;
	uint64_t t;

	(void)state;
	up_at_1s(&d);
	/* 10 packets every 10 ms, acknowledged every 50 ms up to what was
	 * sent 20 ms earlier: never suspect */
	for (t = MS(2000); t < MS(4000); t += MS(10)) {
		send(&d, lseq, 10, t);
		lseq += 10;
		if ((t / 1000) % 50 == 0) {
			ing_detect_acked(&d, lseq - 20, t);
		}
		assert_int_equal(ing_detect_tick(&d, t), ING_DET_EV_NONE);
	}
	/* the acknowledgement stops: suspect T after its last advance */
	send(&d, lseq, 10, t);
	ing_detect_acked(&d, lseq + 10, t);
	/* all acknowledged: the wait starts with the next packet */
	send(&d, lseq + 10, 10, t + MS(10));
	assert_int_equal(ing_detect_tick(&d, t + MS(10) + T - 1),
			 ING_DET_EV_NONE);
	assert_int_equal(ing_detect_tick(&d, t + MS(10) + T),
			 ING_DET_EV_SUSPECT);
}

/* T counts from the oldest unacknowledged packet's send time, known to a
 * mark (ING_DET_MARK_US), not from the acknowledgement's arrival: a path
 * cut just after a report is suspect T after the first packet it lost was
 * sent, not up to a report interval and a one-way delay later. */
static void test_wait_from_send(void **state)
{
	struct ing_detect d;
	uint32_t lseq = 0;
	uint64_t t, when;

	(void)state;
	up_at_1s(&d);
	/* a packet every ms from 2 s on: marks every 10 ms */
	for (t = MS(2000); t < MS(2100); t += MS(1)) {
		send(&d, lseq++, 1, t);
	}
	/* 2 s + 47 ms sent lseq 47: the mark at or after it is lseq 50,
	 * sent at 2.05 s (a little later, never earlier) */
	ing_detect_acked(&d, 47, MS(2090));
	assert_int_equal(d.wait_us, MS(2050));
	assert_true(ing_detect_deadline(&d, &when));
	assert_int_equal(when, MS(2050) + T);
	/* exactly a mark */
	ing_detect_acked(&d, 60, MS(2095));
	assert_int_equal(d.wait_us, MS(2060));
	/* after the newest mark (lseq 90 at 2.09 s): the last send */
	ing_detect_acked(&d, 95, MS(2099));
	assert_int_equal(d.wait_us, MS(2099));
	/* more sending than the marks cover: the oldest mark left, later
	 * than the packet (the wait only grows longer) */
	for (; t < MS(2100) + ING_DET_MARKS * MS(10); t += MS(1)) {
		send(&d, lseq++, 1, t);
	}
	ing_detect_acked(&d, 96, t);
	assert_int_equal(d.wait_us, MS(2100));
	assert_int_equal(ing_detect_tick(&d, MS(2100) + T - 1),
			 ING_DET_EV_NONE);
	assert_int_equal(ing_detect_tick(&d, MS(2100) + T),
			 ING_DET_EV_SUSPECT);
	/* a restarted sequence forgets the marks */
	ing_detect_reset_seq(&d);
	assert_int_equal(d.nmarks, 0);
}

/* The acknowledgements' round trip: a path whose queue grew (the REPORTs
 * come 120 ms after the packets they acknowledge were sent, where the
 * probes knew none) gets T from it at once, and it is forgotten once
 * REPORTs show less for two buckets. */
static void test_ack_rtt(void **state)
{
	struct ing_detect d;
	uint32_t lseq = 0, acked = 0;
	uint64_t t;

	(void)state;
	up_at_1s(&d);
	assert_int_equal(ing_detect_ack_rtt_us(&d), 0);
	/* a packet every ms; every 50 ms a REPORT of what was sent 120 ms
	 * before */
	for (t = MS(2000); t < MS(2500); t += MS(1)) {
		send(&d, lseq++, 1, t);
		if (t >= MS(2120) && t % MS(50) == 0) {
			acked = lseq - 120;
			ing_detect_acked(&d, acked, t);
			assert_int_equal(ing_detect_tick(&d, t),
					 ING_DET_EV_NONE);
		}
	}
	/* the newest acknowledged packet's mark is at or before it: the
	 * sample is 120 ms and up to a mark interval more */
	assert_true(ing_detect_ack_rtt_us(&d) >= MS(120));
	assert_true(ing_detect_ack_rtt_us(&d) <= MS(130));
	assert_int_equal(ing_detect_timeout_us(&d),
			 MS(50) + ing_detect_ack_rtt_us(&d));
	/* the queue drains: REPORTs 20 ms after; the 120-ms samples stay
	 * for the rest of their bucket and the next, then go */
	for (; t < MS(4000); t += MS(1)) {
		send(&d, lseq++, 1, t);
		if (t % MS(50) == 0) {
			acked = lseq - 20;
			ing_detect_acked(&d, acked, t);
		}
		assert_int_equal(ing_detect_tick(&d, t), ING_DET_EV_NONE);
	}
	assert_true(ing_detect_ack_rtt_us(&d) <= MS(30));
	assert_int_equal(ing_detect_timeout_us(&d), T);
	/* a restarted sequence forgets it */
	ing_detect_reset_seq(&d);
	assert_int_equal(ing_detect_ack_rtt_us(&d), 0);
}

/* The last usable path: the data rule waits (nowhere to move its traffic
 * to), the probe rule does not, and the data rule applies again as soon
 * as another path is usable. */
static void test_alone(void **state)
{
	struct ing_detect a, b, c;
	struct ing_detect *all[] = {&a, &b, &c};
	uint64_t when;

	(void)state;
	up_at_1s(&a);
	up_at_1s(&b);
	up_at_1s(&c);
	ing_detect_mark_alone(all, 3);
	assert_false(a.alone || b.alone || c.alone);
	cut_at(&b, 0, MS(2000));
	ing_detect_mark_alone(all, 3);
	assert_false(a.alone || b.alone || c.alone);
	cut_at(&c, 0, MS(2000));
	ing_detect_mark_alone(all, 3);
	/* a is the last one up: alone; b and c have a to go to */
	assert_true(a.alone);
	assert_false(b.alone || c.alone);
	send(&a, 0, 8, MS(2500));
	assert_false(ing_detect_deadline(&a, &when));
	assert_int_equal(ing_detect_tick(&a, MS(2500) + 10 * T),
			 ING_DET_EV_NONE);
	/* another answers: the wait long over, a is suspect at once */
	assert_int_equal(ing_detect_answered(&b, MS(4000)), ING_DET_EV_UP);
	ing_detect_mark_alone(all, 3);
	assert_false(a.alone);
	assert_int_equal(ing_detect_tick(&a, MS(4000)), ING_DET_EV_SUSPECT);
	assert_int_equal(a.st.by_data, 1);
	/* alone, the probes still decide */
	up_at_1s(&a);
	ing_detect_set_alone(&a, true);
	ing_detect_probe_sent(&a, MS(5000));
	ing_detect_probe_sent(&a, MS(5200));
	ing_detect_probe_sent(&a, MS(5400));
	assert_int_equal(ing_detect_tick(&a, MS(5400) + T),
			 ING_DET_EV_SUSPECT);
	assert_int_equal(a.st.by_probe, 1);
}

static void test_ack_old_and_beyond(void **state)
{
	struct ing_detect d;

	(void)state;
	up_at_1s(&d);
	/* nothing sent: nothing to acknowledge */
	assert_int_equal(ing_detect_acked(&d, 5, MS(1500)), ING_DET_EV_NONE);
	assert_false(d.have_sent);
	send(&d, 100, 10, MS(2000));
	ing_detect_acked(&d, 105, MS(2050));
	assert_int_equal(d.acked_next, 105);
	/* old, equal, and beyond what was sent (110): ignored */
	ing_detect_acked(&d, 103, MS(2060));
	ing_detect_acked(&d, 105, MS(2060));
	ing_detect_acked(&d, 111, MS(2060));
	assert_int_equal(d.acked_next, 105);
	/* the wait counts from when 105 was sent, not from the ack */
	assert_int_equal(d.wait_us, MS(2000));
	/* exactly what was sent: all acknowledged */
	ing_detect_acked(&d, 110, MS(2070));
	assert_int_equal(d.acked_next, 110);
}

static void test_wrap(void **state)
{
	struct ing_detect d;
	uint64_t when;

	(void)state;
	up_at_1s(&d);
	send(&d, UINT32_MAX - 5, 10, MS(2000)); /* up to 3, next 4 */
	assert_int_equal(d.sent_next, 4);
	ing_detect_acked(&d, UINT32_MAX, MS(2050));
	assert_int_equal(d.acked_next, UINT32_MAX);
	ing_detect_acked(&d, 2, MS(2060));
	assert_int_equal(d.acked_next, 2);
	ing_detect_acked(&d, 5, MS(2070)); /* beyond */
	assert_int_equal(d.acked_next, 2);
	/* two unacked: under the minimum */
	assert_int_equal(ing_detect_tick(&d, MS(5000)), ING_DET_EV_NONE);
	send(&d, 4, 2, MS(5000));
	/* the wait started when the oldest unacknowledged (2) was sent */
	assert_true(ing_detect_deadline(&d, &when));
	assert_int_equal(when, MS(2000) + T);
	assert_int_equal(ing_detect_tick(&d, MS(5000)), ING_DET_EV_SUSPECT);
}

static void test_suspect_recovers(void **state)
{
	struct ing_detect d;

	(void)state;
	up_at_1s(&d);
	cut_at(&d, 0, MS(2000));
	/* the unacknowledged data belongs to the in-flight store now: its
	 * late acknowledgement is no answer */
	assert_int_equal(ing_detect_acked(&d, 8, MS(2200)), ING_DET_EV_NONE);
	assert_int_equal(d.state, ING_DET_SUSPECT);
	/* a probe answered: UP at once */
	assert_int_equal(ing_detect_answered(&d, MS(2300)), ING_DET_EV_UP);
	assert_true(ing_detect_usable(&d));
	assert_int_equal(d.st.recovered, 1);
	assert_int_equal(d.level, 0);
	/* no stale wait: new data starts a new one */
	assert_int_equal(ing_detect_tick(&d, MS(2300)), ING_DET_EV_NONE);
	send(&d, 8, 4, MS(2400));
	assert_int_equal(ing_detect_tick(&d, MS(2400) + T - 1),
			 ING_DET_EV_NONE);
	/* an acknowledgement of new data is an answer too */
	assert_int_equal(ing_detect_acked(&d, 12, MS(2450)), ING_DET_EV_NONE);
	assert_int_equal(ing_detect_tick(&d, MS(2450) + T), ING_DET_EV_NONE);
}

static void test_suspect_ack_recovers(void **state)
{
	struct ing_detect d;

	(void)state;
	up_at_1s(&d);
	cut_at(&d, 0, MS(2000));
	/* sent on it anyway (e.g. the only path): its acknowledgement
	 * answers */
	send(&d, 8, 2, MS(2200));
	assert_int_equal(ing_detect_acked(&d, 9, MS(2250)), ING_DET_EV_UP);
}

static void test_down_and_back(void **state)
{
	struct ing_detect d;
	uint64_t when;

	(void)state;
	up_at_1s(&d);
	send(&d, 0, 8, MS(1500));
	ing_detect_acked(&d, 4, MS(1600)); /* last answer at 1.6 s */
	assert_int_equal(ing_detect_tick(&d, MS(1600) + T),
			 ING_DET_EV_SUSPECT);
	/* probed four times as often while suspect */
	assert_int_equal(ing_detect_busy_probe_ms(&d), 50);
	assert_int_equal(ing_detect_probe_interval(&d, MS(1600) + T), 50);
	assert_true(ing_detect_deadline(&d, &when));
	assert_int_equal(when, MS(2600));
	assert_int_equal(ing_detect_tick(&d, MS(2600) - 1), ING_DET_EV_NONE);
	assert_int_equal(ing_detect_tick(&d, MS(2600)), ING_DET_EV_DOWN);
	assert_int_equal(d.st.down, 1);
	assert_false(ing_detect_usable(&d));
	assert_false(ing_detect_deadline(&d, &when));
	assert_int_equal(ing_detect_tick(&d, MS(9000)), ING_DET_EV_NONE);
	/* down: back to the busy interval */
	assert_int_equal(ing_detect_probe_interval(&d, MS(9000)), 200);
	assert_int_equal(ing_detect_busy_probe_ms(&d), 200);
	assert_int_equal(ing_detect_answered(&d, MS(9000)), ING_DET_EV_UP);
	assert_int_equal(d.st.recovered, 1);
}

static void test_probe_rule(void **state)
{
	struct ing_detect d;
	uint64_t when;

	(void)state;
	up_at_1s(&d);
	/* two misses: nothing */
	ing_detect_probe_sent(&d, MS(2000));
	ing_detect_probe_sent(&d, MS(2200));
	assert_false(ing_detect_deadline(&d, &when));
	assert_int_equal(ing_detect_tick(&d, MS(3000)), ING_DET_EV_NONE);
	/* an answer clears them */
	ing_detect_answered(&d, MS(3000));
	assert_int_equal(d.pmiss, 0);
	ing_detect_probe_sent(&d, MS(3000));
	ing_detect_probe_sent(&d, MS(3200));
	ing_detect_probe_sent(&d, MS(3400));
	ing_detect_probe_sent(&d, MS(3600)); /* a fourth changes nothing */
	assert_true(ing_detect_deadline(&d, &when));
	assert_int_equal(when, MS(3400) + T);
	assert_int_equal(ing_detect_tick(&d, MS(3400) + T - 1),
			 ING_DET_EV_NONE);
	assert_int_equal(ing_detect_tick(&d, MS(3400) + T),
			 ING_DET_EV_SUSPECT);
	assert_int_equal(d.st.by_probe, 1);
	/* last answer at 3.0 s: DOWN at 4.0 s */
	assert_int_equal(ing_detect_tick(&d, MS(4000)), ING_DET_EV_DOWN);
}

static void test_ack_clears_probe_misses(void **state)
{
	struct ing_detect d;

	(void)state;
	up_at_1s(&d);
	send(&d, 0, 4, MS(2000));
	ing_detect_probe_sent(&d, MS(2000));
	ing_detect_probe_sent(&d, MS(2010));
	ing_detect_probe_sent(&d, MS(2020));
	/* the data got through (the answers were lost on the way back):
	 * the path carries our packets */
	ing_detect_acked(&d, 4, MS(2100));
	assert_int_equal(ing_detect_tick(&d, MS(2500)), ING_DET_EV_NONE);
}

static void test_idle_interval(void **state)
{
	struct ing_detect d;

	(void)state;
	up_at_1s(&d);
	/* never sent: idle */
	assert_int_equal(ing_detect_probe_interval(&d, MS(1000)),
			 ING_DET_IDLE_PROBE_MS);
	send(&d, 0, 1, MS(2000));
	assert_int_equal(ing_detect_probe_interval(&d, MS(2000)), 200);
	assert_int_equal(ing_detect_probe_interval(&d, MS(2999)), 200);
	assert_int_equal(ing_detect_probe_interval(&d, MS(3000)),
			 ING_DET_IDLE_PROBE_MS);
	/* data coming in on the path: in use too, for idle_after_ms */
	ing_detect_data_in(&d, MS(3500));
	assert_false(ing_detect_idle(&d, MS(3500)));
	assert_int_equal(ing_detect_probe_interval(&d, MS(4499)), 200);
	assert_true(ing_detect_idle(&d, MS(4500)));
	/* a probe unanswered is not missing before T (a slow answer);
	 * missing: fast again, to decide soon */
	ing_detect_probe_sent(&d, MS(5000));
	assert_true(ing_detect_idle(&d, MS(5000) + T - 1));
	assert_false(ing_detect_idle(&d, MS(5000) + T));
	assert_int_equal(ing_detect_probe_interval(&d, MS(5000) + T), 200);
	/* answered: idle again; not up: never idle */
	assert_int_equal(ing_detect_answered(&d, MS(5050)), ING_DET_EV_NONE);
	assert_true(ing_detect_idle(&d, MS(5050)));
	ing_detect_reset_seq(&d);
	d.state = ING_DET_DOWN;
	assert_false(ing_detect_idle(&d, MS(6000)));
}

/* The probe tick's rule: none sent, due at once; else interval after the
 * last, half a tick early at most. */
static void test_probe_due(void **state)
{
	(void)state;
	assert_true(ing_detect_probe_due(false, 0, 200, 200, 0));
	assert_false(ing_detect_probe_due(true, MS(1000), 200, 200,
					  MS(1099)));
	assert_true(ing_detect_probe_due(true, MS(1000), 200, 200, MS(1100)));
	assert_true(ing_detect_probe_due(true, MS(1000), 200, 200, MS(1200)));
	/* an idle interval on the same tick */
	assert_false(ing_detect_probe_due(true, MS(1000), 20000, 200,
					  MS(20899)));
	assert_true(ing_detect_probe_due(true, MS(1000), 20000, 200,
					 MS(20900)));
}

/* An idle path is cut: its idle probe misses (T), the next two come fast,
 * and the last answer is long past: SUSPECT, then DOWN at once. */
static void test_idle_cut(void **state)
{
	struct ing_detect d;
	uint64_t t = MS(11000);

	(void)state;
	up_at_1s(&d);
	ing_detect_probe_sent(&d, t);
	/* the answer to a single idle probe: no change */
	ing_detect_answered(&d, t + MS(30));
	t += MS(ING_DET_IDLE_PROBE_MS);
	ing_detect_probe_sent(&d, t); /* the cut: never answered */
	assert_int_equal(ing_detect_probe_interval(&d, t + T - 1),
			 ING_DET_IDLE_PROBE_MS);
	assert_int_equal(ing_detect_probe_interval(&d, t + T), 200);
	t += T;
	ing_detect_probe_sent(&d, t);
	ing_detect_probe_sent(&d, t + MS(200));
	assert_int_equal(ing_detect_tick(&d, t + MS(200) + T - 1),
			 ING_DET_EV_NONE);
	assert_int_equal(ing_detect_tick(&d, t + MS(200) + T),
			 ING_DET_EV_SUSPECT);
	assert_int_equal(ing_detect_tick(&d, t + MS(200) + T),
			 ING_DET_EV_DOWN);
	/* noticed within the idle interval plus 2 T and a busy interval */
}

/* Suspect, back, suspect again within the window: a flap, HOLD. */
static void flap_once(struct ing_detect *d, uint64_t *t)
{
	up_at_1s(d);
	cut_at(d, 0, MS(2000));
	assert_int_equal(ing_detect_answered(d, MS(2300)), ING_DET_EV_UP);
	cut_at(d, 8, MS(2400));
	assert_int_equal(d->st.flaps, 1);
	assert_int_equal(d->level, 1);
	assert_int_equal(ing_detect_answered(d, MS(2800)), ING_DET_EV_HOLD);
	*t = MS(2800);
}

static void test_flap_hold(void **state)
{
	struct ing_detect d;
	uint64_t t, when;

	(void)state;
	flap_once(&d, &t);
	assert_int_equal(d.state, ING_DET_HOLD);
	assert_false(ing_detect_usable(&d));
	assert_int_equal(d.st.holddown, 1);
	/* probed fast while it proves itself */
	assert_int_equal(ing_detect_probe_interval(&d, t), 200);
	assert_true(ing_detect_deadline(&d, &when));
	assert_int_equal(when, t + MS(ING_DET_HOLD_BASE_MS));
	/* every probe answered */
	for (uint64_t p = t; p < t + MS(1000); p += MS(200)) {
		ing_detect_probe_sent(&d, p);
		assert_int_equal(ing_detect_answered(&d, p + MS(20)),
				 ING_DET_EV_NONE);
		assert_int_equal(ing_detect_tick(&d, p + MS(20)),
				 ING_DET_EV_NONE);
	}
	assert_int_equal(ing_detect_tick(&d, t + MS(1000) - 1),
			 ING_DET_EV_NONE);
	assert_int_equal(ing_detect_tick(&d, t + MS(1000)), ING_DET_EV_UP);
	assert_true(ing_detect_usable(&d));
	assert_int_equal(d.st.recovered, 2);
}

static void test_flap_backoff_grows(void **state)
{
	struct ing_detect d;
	uint64_t t;
	uint32_t level;

	(void)state;
	flap_once(&d, &t);
	/* each probe missing in HOLD: a flap, and the hold doubles up to
	 * its ceiling, the level up to its own */
	for (level = 2; level <= ING_DET_MAX_LEVEL + 3; level++) {
		uint64_t want_ms = (uint64_t)ING_DET_HOLD_BASE_MS
				   << ((level > ING_DET_MAX_LEVEL
						? ING_DET_MAX_LEVEL
						: level) - 1);

		if (want_ms > ING_DET_HOLD_MAX_MS) {
			want_ms = ING_DET_HOLD_MAX_MS;
		}
		ing_detect_probe_sent(&d, t + MS(100));
		assert_int_equal(ing_detect_tick(&d, t + MS(100) + T),
				 ING_DET_EV_SUSPECT);
		t += MS(100) + T + MS(50);
		assert_int_equal(ing_detect_answered(&d, t), ING_DET_EV_HOLD);
		assert_int_equal(d.hold_until_us, t + MS(want_ms));
	}
	assert_int_equal(d.level, ING_DET_MAX_LEVEL);
	assert_int_equal(d.st.flaps, 1 + ING_DET_MAX_LEVEL + 2);
	assert_int_equal(d.st.holddown, 1 + ING_DET_MAX_LEVEL + 2);
}

static void test_flap_window_forgets(void **state)
{
	struct ing_detect d;
	uint64_t t;

	(void)state;
	flap_once(&d, &t);
	t += MS(ING_DET_HOLD_BASE_MS);
	assert_int_equal(ing_detect_tick(&d, t), ING_DET_EV_UP);
	/* UP for the whole window: the next SUSPECT is no flap */
	t += MS(ING_DET_FLAP_WINDOW_MS);
	send(&d, 100, 8, t);
	assert_int_equal(ing_detect_tick(&d, t + T), ING_DET_EV_SUSPECT);
	assert_int_equal(d.level, 0);
	assert_int_equal(d.st.flaps, 1);
	assert_int_equal(ing_detect_answered(&d, t + T + 1), ING_DET_EV_UP);
	/* just inside the window: a flap again */
	t += T + 1;
	send(&d, 108, 8, t + MS(ING_DET_FLAP_WINDOW_MS) - T - 1);
	assert_int_equal(ing_detect_tick(&d, t + MS(ING_DET_FLAP_WINDOW_MS) - 1),
			 ING_DET_EV_SUSPECT);
	assert_int_equal(d.level, 1);
	assert_int_equal(d.st.flaps, 2);
}

static void test_reset_seq(void **state)
{
	struct ing_detect d;

	(void)state;
	up_at_1s(&d);
	send(&d, 500, 8, MS(2000));
	ing_detect_reset_seq(&d);
	/* the restarted numbering starts a fresh count */
	assert_int_equal(ing_detect_tick(&d, MS(3000)), ING_DET_EV_NONE);
	send(&d, 0, 2, MS(3000));
	assert_int_equal(d.acked_next, 0);
	assert_int_equal(d.sent_next, 2);
	assert_int_equal(d.state, ING_DET_UP);
}

/* A new session (the peer restarted): the flaps were the peer's, not the
 * path's: a path held comes UP at once, and its next suspect is no flap;
 * one not held is left as it is. */
static void test_peer_restarted(void **state)
{
	struct ing_detect d;
	uint64_t t;

	(void)state;
	flap_once(&d, &t);
	assert_int_equal(d.state, ING_DET_HOLD);
	assert_int_equal(ing_detect_peer_restarted(&d, t + MS(10)),
			 ING_DET_EV_UP);
	assert_int_equal(d.state, ING_DET_UP);
	assert_int_equal(d.level, 0);
	assert_int_equal(d.sent_next, 0);
	cut_at(&d, 0, t + MS(100));
	assert_int_equal(d.st.flaps, 1);
	assert_int_equal(d.level, 0);
	assert_int_equal(ing_detect_answered(&d, t + MS(500)), ING_DET_EV_UP);
	assert_int_equal(ing_detect_peer_restarted(&d, t + MS(600)),
			 ING_DET_EV_NONE);
	assert_int_equal(d.state, ING_DET_UP);
}

/* A move (the peer's address behind NAT, our interface re-created): the
 * flaps forgotten as for a restart, but the sequence kept. */
static void test_forget_flaps(void **state)
{
	struct ing_detect d;
	uint64_t t;
	uint32_t sent;

	(void)state;
	flap_once(&d, &t);
	assert_int_equal(d.state, ING_DET_HOLD);
	sent = d.sent_next;
	assert_int_equal(ing_detect_forget_flaps(&d, t + MS(10)),
			 ING_DET_EV_UP);
	assert_int_equal(d.level, 0);
	assert_int_equal(d.sent_next, sent);
	/* the next suspect is no flap */
	cut_at(&d, sent, t + MS(100));
	assert_int_equal(d.st.flaps, 1);
	assert_int_equal(ing_detect_answered(&d, t + MS(500)), ING_DET_EV_UP);
	assert_int_equal(ing_detect_forget_flaps(&d, t + MS(600)),
			 ING_DET_EV_NONE);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(ing_detect_state_name(ING_DET_UP), "up");
	assert_string_equal(ing_detect_state_name(ING_DET_SUSPECT), "suspect");
	assert_string_equal(ing_detect_state_name(ING_DET_DOWN), "down");
	assert_string_equal(ing_detect_state_name(ING_DET_HOLD), "hold");
	assert_string_equal(ing_detect_state_name((enum ing_det_state)9), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_first_answer_up),
		cmocka_unit_test(test_data_rule),
		cmocka_unit_test(test_data_rule_needs_packets),
		cmocka_unit_test(test_acks_keep_up),
		cmocka_unit_test(test_wait_from_send),
		cmocka_unit_test(test_ack_rtt),
		cmocka_unit_test(test_alone),
		cmocka_unit_test(test_ack_old_and_beyond),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_suspect_recovers),
		cmocka_unit_test(test_suspect_ack_recovers),
		cmocka_unit_test(test_down_and_back),
		cmocka_unit_test(test_probe_rule),
		cmocka_unit_test(test_ack_clears_probe_misses),
		cmocka_unit_test(test_idle_interval),
		cmocka_unit_test(test_idle_cut),
		cmocka_unit_test(test_probe_due),
		cmocka_unit_test(test_flap_hold),
		cmocka_unit_test(test_flap_backoff_grows),
		cmocka_unit_test(test_flap_window_forgets),
		cmocka_unit_test(test_reset_seq),
		cmocka_unit_test(test_peer_restarted),
		cmocka_unit_test(test_forget_flaps),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
