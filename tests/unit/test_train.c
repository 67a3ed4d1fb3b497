/* SPDX-License-Identifier: BSD-2-Clause */
/* egress/train.c: the peer's packet train timed from its middle packet to
 * its last, the bytes that arrived in between (DATA sharing the line
 * included, IPv6's extra header bytes taken off), and when it is answered:
 * once, at its last packet, at most once a second a path; a train whose
 * id or index goes back starts afresh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "egress/train.h"

/* a path's receive counters and clock, as the egress keeps them */
struct line {
	uint64_t bytes, pkts, us;
};

/* TRAIN idx of count (id) arrives, len bytes, gap_us after the last
 * packet; at 0: no kernel stamp */
static bool arrive(struct egr_train *r, struct line *l, uint32_t id,
		   uint16_t idx, uint16_t count, uint32_t len, uint32_t gap_us,
		   bool stamped, uint32_t extra, struct wire_train_ack *a)
{
	struct wire_train t = {.id = id, .idx = idx, .count = count};

	l->bytes += len;
	l->pkts++;
	l->us += gap_us;
	return egr_train_rx(r, &t, stamped ? l->us : 0, l->us, l->bytes,
			    l->pkts, extra, a);
}

/* a whole train of count packets of len bytes, gap_us apart; skip: an
 * index not sent (count: none); true if answered */
static bool train(struct egr_train *r, struct line *l, uint32_t id,
		  uint16_t count, uint32_t len, uint32_t gap_us, unsigned skip,
		  uint32_t extra, struct wire_train_ack *a)
{
	bool answered = false;

	for (uint16_t i = 0; i < count; i++) {
		if (i == skip) {
			l->us += gap_us; /* lost on the way: no arrival */
			continue;
		}
		answered = arrive(r, l, id, i, count, len, gap_us, true, extra,
				  a);
		assert_true(!answered || i == count - 1);
	}
	return answered;
}

static void test_train_whole(void **state)
{
	struct egr_train r = {0};
	struct line l = {.us = 5000000};
	struct wire_train_ack a;

	(void)state;
	/* 64 packets of 1176 bytes, 147 us apart: 8 MB/s, 64 Mbit/s; timed
	 * from the middle (index 32) to the last: 31 gaps, 31 packets */
	assert_true(train(&r, &l, 1, 64, 1176, 147, 64, 0, &a));
	assert_int_equal(a.id, 1);
	assert_int_equal(a.got, 64);
	assert_int_equal(a.count, 64);
	assert_int_equal(a.bytes, 31 * 1176);
	assert_int_equal(a.dt_us, 31 * 147);
	assert_false(r.on);
}

/* DATA on the line between the middle and the last counts: the line was
 * busy with it; over IPv6 each packet's 20 extra bytes come off */
static void test_train_shared(void **state)
{
	struct egr_train r = {0};
	struct line l = {.us = 5000000};
	struct wire_train_ack a;

	(void)state;
	/* 32 packets of 1196 bytes (IPv6): the middle is 16, the last 31 */
	for (uint16_t i = 0; i < 31; i++) {
		assert_false(arrive(&r, &l, 8, i, 32, 1196, 150, true, 20, &a));
		if (i == 20) {
			l.bytes += 1520;
			l.pkts++;
		}
	}
	assert_true(arrive(&r, &l, 8, 31, 32, 1196, 150, true, 20, &a));
	assert_int_equal(a.bytes, 15 * 1176 + 1500);
	assert_int_equal(a.dt_us, 15 * 150);
	assert_int_equal(a.got, 32);
}

/* a packet lost in the first half costs nothing; the middle lost: no
 * time (bytes and dt 0, refused by the sender); the last lost: no answer
 * at all, and the next train starts afresh */
static void test_train_lost(void **state)
{
	struct egr_train r = {0};
	struct line l = {.us = 5000000};
	struct wire_train_ack a;

	(void)state;
	assert_true(train(&r, &l, 1, 64, 1176, 147, 3, 0, &a));
	assert_int_equal(a.got, 63);
	assert_int_equal(a.bytes, 31 * 1176);
	l.us += 2000000;
	assert_true(train(&r, &l, 2, 64, 1176, 147, 32, 0, &a));
	assert_int_equal(a.got, 63);
	assert_int_equal(a.bytes, 0);
	assert_int_equal(a.dt_us, 0);
	l.us += 2000000;
	assert_false(train(&r, &l, 3, 64, 1176, 147, 63, 0, &a));
	assert_true(r.on);
	l.us += 2000000;
	assert_true(train(&r, &l, 4, 64, 1176, 147, 64, 0, &a));
	assert_int_equal(a.id, 4);
	assert_int_equal(a.got, 64);
	assert_int_equal(a.bytes, 31 * 1176);
}

/* a packet without the kernel's stamp: the drain's time would read a
 * batch as a burst, so no time */
static void test_train_untimed(void **state)
{
	struct egr_train r = {0};
	struct line l = {.us = 5000000};
	struct wire_train_ack a;

	(void)state;
	for (uint16_t i = 0; i < 63; i++) {
		assert_false(arrive(&r, &l, 1, i, 64, 1176, 147, i != 40, 0,
				    &a));
	}
	assert_true(arrive(&r, &l, 1, 63, 64, 1176, 147, true, 0, &a));
	assert_int_equal(a.got, 64);
	assert_int_equal(a.bytes, 0);
	assert_int_equal(a.dt_us, 0);
}

/* at most one answer a second a path: a peer that sends the last packet
 * of a train over and over gets one */
static void test_train_answer_gap(void **state)
{
	struct egr_train r = {0};
	struct line l = {.us = 5000000};
	struct wire_train_ack a;

	(void)state;
	assert_true(train(&r, &l, 1, 64, 1176, 147, 64, 0, &a));
	assert_false(arrive(&r, &l, 2, 1, 2, 100, 10, true, 0, &a));
	assert_false(arrive(&r, &l, 3, 1, 2, 100, 10, true, 0, &a));
	l.us += EGR_TRAIN_ANSWER_GAP_US;
	assert_true(arrive(&r, &l, 4, 1, 2, 100, 10, true, 0, &a));
	assert_int_equal(a.id, 4);
	assert_int_equal(a.got, 1);
	/* the middle of 2 is the last: no time */
	assert_int_equal(a.dt_us, 0);
}

/* a peer that restarted numbers its trains from 1 again: an index that
 * goes back starts a new train, not one merged with the old */
static void test_train_restart(void **state)
{
	struct egr_train r = {0};
	struct line l = {.us = 5000000};
	struct wire_train_ack a;

	(void)state;
	for (uint16_t i = 0; i < 40; i++) {
		assert_false(arrive(&r, &l, 1, i, 64, 1176, 147, true, 0, &a));
	}
	l.us += 3000000;
	assert_true(train(&r, &l, 1, 64, 1176, 147, 64, 0, &a));
	assert_int_equal(a.got, 64);
	assert_int_equal(a.bytes, 31 * 1176);
	assert_int_equal(a.dt_us, 31 * 147);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_train_whole),
		cmocka_unit_test(test_train_shared),
		cmocka_unit_test(test_train_lost),
		cmocka_unit_test(test_train_untimed),
		cmocka_unit_test(test_train_answer_gap),
		cmocka_unit_test(test_train_restart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
