/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests of the testbed tools' models: the link emulator's FIFO delay
 * and loss, and l3b-traffic's probe format, receiver accounting and rate
 * profiles.  No root, no sockets. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "linkem.h"
#include "traffic.h"

#define MS 1000000ULL

/* Jitter larger than the spacing of packets: delivery times must still be
 * monotonic, within [arrival + delay, max(prev, arrival + delay + jitter)],
 * and released in arrival order. */
static void test_linkem_fifo(void **state)
{
	struct lk_link l;
	uint64_t prev = 0;
	uint32_t next_id = 0;
	uint32_t last;

	(void)state;
	assert_int_equal(lk_init(&l, 4096, 7), 0);
	l.p.delay_ms = 25;
	l.p.jitter_ms = 20;
	for (uint32_t i = 0; i < 3000; i++) {
		uint64_t now = 1000 * MS + i * 100000ULL; /* 10 kpps */
		uint64_t t;

		assert_int_equal(lk_arrive(&l, 100 + i, now), LK_HOLD);
		t = l.ring[(l.tail - 1) & l.mask].t_ns;
		assert_true(t >= now + 25 * MS);
		assert_true(t >= prev);
		assert_true(t <= now + 45 * MS || t == prev);
		prev = t;
	}
	assert_int_equal(lk_held(&l), 3000);
	/* Release in steps of 1 ms: ids come out in order, none early. */
	for (uint64_t now = 1000 * MS; lk_held(&l); now += MS) {
		uint32_t n = lk_release(&l, now, &last);
		uint64_t t;

		if (n) {
			next_id += n;
			assert_int_equal(last, 100 + next_id - 1);
		}
		if (lk_next(&l, &t)) {
			assert_true(t > now);
		}
	}
	assert_int_equal(next_id, 3000);
	assert_int_equal(l.st.released, 3000);
	lk_free(&l);
}

/* A delay lowered at run time must not overtake packets already held. */
static void test_linkem_delay_change_keeps_order(void **state)
{
	struct lk_link l;
	uint64_t t1, t2;

	(void)state;
	assert_int_equal(lk_init(&l, 16, 1), 0);
	l.p.delay_ms = 40;
	lk_arrive(&l, 1, 0);
	t1 = l.ring[0].t_ns;
	l.p.delay_ms = 5;
	lk_arrive(&l, 2, MS);
	t2 = l.ring[1].t_ns;
	assert_int_equal(t1, 40 * MS);
	assert_int_equal(t2, 40 * MS);
	lk_free(&l);
}

/* What the emulator releases after its time is counted late, by how
 * much: on time, 2 ms and 7 ms after; and since a mark, 2 ms. */
static void test_linkem_late(void **state)
{
	struct lk_link l;
	uint32_t last;

	(void)state;
	assert_int_equal(lk_init(&l, 16, 1), 0);
	l.p.delay_ms = 10;
	lk_arrive(&l, 1, 0);
	lk_arrive(&l, 2, MS);
	lk_arrive(&l, 3, 10 * MS);
	assert_int_equal(lk_release(&l, 10 * MS, &last), 1);
	assert_int_equal(l.st.late_1ms, 0);
	assert_int_equal(lk_release(&l, 13 * MS, &last), 1);
	assert_int_equal(l.st.late_1ms, 1);
	assert_int_equal(l.st.late_5ms, 0);
	assert_int_equal(lk_release(&l, 27 * MS, &last), 1);
	assert_int_equal(last, 3);
	assert_int_equal(l.st.late_1ms, 2);
	assert_int_equal(l.st.late_5ms, 1);
	assert_int_equal(l.st.late_max_ns, 7 * MS);
	assert_int_equal(l.st.late_mark_max_ns, 7 * MS);
	/* a mark starts the case's maximum again, not the lifetime's */
	lk_mark(&l);
	assert_int_equal(l.st.late_mark_max_ns, 0);
	lk_arrive(&l, 4, 20 * MS);
	assert_int_equal(lk_release(&l, 32 * MS, &last), 1);
	assert_int_equal(l.st.late_mark_max_ns, 2 * MS);
	assert_int_equal(l.st.late_max_ns, 7 * MS);
	lk_free(&l);
}

static void test_linkem_loss_rate_and_seed(void **state)
{
	struct lk_link a, b;
	uint32_t last;

	(void)state;
	assert_int_equal(lk_init(&a, 1024, 42), 0);
	assert_int_equal(lk_init(&b, 1024, 42), 0);
	a.p.loss = b.p.loss = 0.01;
	for (uint32_t i = 0; i < 200000; i++) {
		enum lk_fate fa = lk_arrive(&a, i, i);
		enum lk_fate fb = lk_arrive(&b, i, i);

		assert_int_equal(fa, fb);
		lk_release(&a, i, &last);
		lk_release(&b, i, &last);
	}
	/* 2000 expected, sd 44.5: 5 sd either side. */
	assert_true(a.st.dropped_loss > 1778 && a.st.dropped_loss < 2222);
	assert_int_equal(a.st.dropped_loss + a.st.released + lk_held(&a),
			 200000);
	lk_free(&a);
	lk_free(&b);
}

/* Gilbert-Elliott with lossless good and lossy bad state: the loss rate is
 * the bad state's share p / (p + r) and losses come in bursts of mean
 * length 1 / r. */
static void test_linkem_gilbert_elliott(void **state)
{
	struct lk_link l;
	uint64_t bursts = 0;
	bool prev = false;
	const uint32_t n = 400000;

	(void)state;
	assert_int_equal(lk_init(&l, 1024, 3), 0);
	l.p.ge_p = 0.01;
	l.p.ge_r = 0.25;
	l.p.ge_loss_bad = 1;
	l.p.ge_loss_good = 0;
	for (uint32_t i = 0; i < n; i++) {
		bool lost = lk_arrive(&l, i, 0) == LK_DROP_LOSS;
		uint32_t last;

		bursts += lost && !prev;
		prev = lost;
		lk_flush(&l, &last);
	}
	{
		double rate = (double)l.st.dropped_loss / n;
		double mean_burst = (double)l.st.dropped_loss / (double)bursts;

		assert_true(fabs(rate - 0.01 / 0.26) < 0.005);
		assert_true(mean_burst > 3.5 && mean_burst < 4.5);
	}
	lk_free(&l);
}

static void test_linkem_down_flushes(void **state)
{
	struct lk_link l;
	uint32_t last = 0;

	(void)state;
	assert_int_equal(lk_init(&l, 16, 1), 0);
	l.p.delay_ms = 10;
	lk_arrive(&l, 5, 0);
	lk_arrive(&l, 6, 0);
	l.p.down = true;
	assert_int_equal(lk_arrive(&l, 7, 0), LK_DROP_DOWN);
	assert_int_equal(lk_flush(&l, &last), 2);
	assert_int_equal(last, 6);
	assert_int_equal(lk_held(&l), 0);
	assert_int_equal(l.st.flushed, 2);
	assert_int_equal(l.st.dropped_down, 1);
	lk_free(&l);
}

static void test_linkem_ring_full(void **state)
{
	struct lk_link l;

	(void)state;
	assert_int_equal(lk_init(&l, 3, 1), 0); /* rounded up to 4 */
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(lk_arrive(&l, i, 0), LK_HOLD);
	}
	assert_int_equal(lk_arrive(&l, 4, 0), LK_DROP_FULL);
	assert_int_equal(l.st.dropped_full, 1);
	lk_free(&l);
}

static void test_linkem_parse(void **state)
{
	struct lk_params p = {0};
	unsigned what;
	char err[256];

	(void)state;
	assert_int_equal(lk_parse("delay 25 jitter 20 loss 0.01 down", &p,
				  &what, err, sizeof(err)),
			 0);
	assert_true(p.delay_ms == 25 && p.jitter_ms == 20 && p.loss == 0.01);
	assert_true(p.down && !what);
	assert_int_equal(
		lk_parse("up ge 0.01 0.3 1 0", &p, &what, err, sizeof(err)),
		0);
	assert_true(!p.down && p.ge_p == 0.01 && p.ge_r == 0.3);
	assert_true(p.ge_loss_bad == 1 && p.ge_loss_good == 0);
	/* All or nothing: the valid delay before the bad loss is not kept. */
	assert_int_equal(
		lk_parse("delay 1 loss 1.5", &p, &what, err, sizeof(err)),
		-EINVAL);
	assert_true(p.delay_ms == 25);
	assert_non_null(strstr(err, "'1.5'"));
	assert_int_equal(lk_parse("delay", &p, &what, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(lk_parse("delay -1", &p, &what, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(lk_parse("bogus", &p, &what, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "'bogus'"));
	assert_int_equal(lk_parse("ge 0.1 0.2 1", &p, &what, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(lk_parse("stats", &p, &what, err, sizeof(err)), 0);
	assert_int_equal(what, LK_CMD_STATS);
	assert_int_equal(lk_parse("stats mark", &p, &what, err, sizeof(err)),
			 0);
	assert_int_equal(what, LK_CMD_STATS | LK_CMD_MARK);
}

static void test_pattern(void **state)
{
	uint8_t a[3000], b[3000];

	(void)state;
	tr_pattern_fill(a, sizeof(a), 9, 0, 0);
	/* The same stream written in odd chunks. */
	for (size_t off = 0; off < sizeof(b); off += 7) {
		size_t n = sizeof(b) - off < 7 ? sizeof(b) - off : 7;

		tr_pattern_fill(b + off, n, 9, 0, off);
	}
	assert_memory_equal(a, b, sizeof(a));
	assert_int_equal(tr_pattern_check(a, sizeof(a), 9, 0, 0), sizeof(a));
	assert_int_equal(tr_pattern_check(a + 101, 50, 9, 0, 101), 50);
	a[1234] ^= 0x10;
	assert_int_equal(tr_pattern_check(a, sizeof(a), 9, 0, 0), 1234);
	/* Another run gives another stream. */
	assert_int_not_equal(tr_pattern_check(b, sizeof(b), 10, 0, 0),
			     sizeof(b));
}

static void probe(uint8_t *buf, size_t len, uint32_t run, uint64_t seq,
		  uint16_t flags, uint64_t tx)
{
	struct tr_hdr h = {.flags = flags, .run = run, .seq = seq, .tx_ns = tx};

	tr_probe_build(buf, len, &h);
}

static void test_rx_accounting(void **state)
{
	static const struct {
		uint64_t seq;
		int kind;
	} v[] = {
		{0, TR_RX_NEW}, {1, TR_RX_NEW}, {3, TR_RX_NEW}, {2, TR_RX_NEW},
		{2, TR_RX_DUP}, {5, TR_RX_NEW}, {4, TR_RX_NEW}, {9, TR_RX_NEW},
	};
	struct tr_rx rx;
	uint8_t buf[200];
	int64_t d = 0;

	(void)state;
	tr_rx_init(&rx);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		probe(buf, sizeof(buf), 77, v[i].seq, 0, 1000);
		assert_int_equal(tr_rx_packet(&rx, buf, sizeof(buf),
					      1000 + 13 * (int64_t)MS, &d),
				 v[i].kind);
	}
	assert_int_equal(d, 13 * MS);
	assert_int_equal(rx.received, 8);
	assert_int_equal(rx.unique, 7);
	assert_int_equal(rx.dup, 1);
	assert_int_equal(rx.reordered, 2); /* 2 after 3, 4 after 5 */
	assert_int_equal(tr_rx_expected(&rx), 10);
	assert_int_equal(tr_rx_lost(&rx), 3); /* 6, 7, 8 */
	assert_int_equal(rx.bytes, 7 * (sizeof(buf) + TR_IPUDP_LEN));

	/* A corrupted byte, another run, a truncated header. */
	probe(buf, sizeof(buf), 77, 6, 0, 1000);
	buf[150] ^= 1;
	assert_int_equal(tr_rx_packet(&rx, buf, sizeof(buf), 0, &d),
			 TR_RX_CORRUPT);
	probe(buf, sizeof(buf), 78, 6, 0, 1000);
	assert_int_equal(tr_rx_packet(&rx, buf, sizeof(buf), 0, &d),
			 TR_RX_FOREIGN);
	assert_int_equal(tr_rx_packet(&rx, buf, 20, 0, &d), TR_RX_CORRUPT);
	assert_int_equal(rx.corrupted, 2);
	assert_int_equal(rx.foreign, 1);

	/* The FIN reveals tail loss. */
	probe(buf, TR_HDR_LEN, 77, 12, TR_FLAG_FIN, 0);
	assert_int_equal(tr_rx_packet(&rx, buf, TR_HDR_LEN, 0, &d), TR_RX_FIN);
	assert_int_equal(tr_rx_expected(&rx), 12);
	assert_int_equal(tr_rx_lost(&rx), 5);

	probe(buf, sizeof(buf), 77, TR_MAX_SEQ, 0, 0);
	assert_int_equal(tr_rx_packet(&rx, buf, sizeof(buf), 0, &d),
			 TR_RX_RANGE);
	tr_rx_free(&rx);
}

static void test_percentile(void **state)
{
	int64_t v[] = {5, 1, 4, 2, 3, 10, 9, 8, 7, 6};

	(void)state;
	assert_int_equal(tr_percentile(v, 10, 0.5), 5);
	assert_int_equal(tr_percentile(v, 10, 0.9), 9);
	assert_int_equal(tr_percentile(v, 10, 0.99), 10);
	assert_int_equal(tr_percentile(v, 10, 0), 1);
	assert_int_equal(tr_percentile(v, 10, 1), 10);
	assert_int_equal(tr_percentile(v, 0, 0.5), 0);
}

static void test_paper_ramp(void **state)
{
	struct tr_profile pr = {
		.kind = TR_PROF_RAMP, .rate = 63, .rate_high = 105};
	double prev = 0;

	(void)state;
	assert_true(fabs(tr_profile_rate(&pr, 0) - 63) < 1e-9);
	assert_true(fabs(tr_profile_rate(&pr, 0.199) - 63) < 1e-9);
	/* 75 exponential steps: constant ratio between steps. */
	for (int i = 0; i < 75; i++) {
		double r = tr_profile_rate(&pr, i * 0.2 + 0.1);

		assert_true(r > prev);
		if (i) {
			assert_true(fabs(r / prev - pow(105.0 / 63, 1.0 / 75)) <
				    1e-9);
		}
		prev = r;
	}
	assert_true(prev < 105);
	assert_true(fabs(tr_profile_rate(&pr, 15.0) - 105) < 1e-9);
	assert_true(fabs(tr_profile_rate(&pr, 24.9) - 105) < 1e-9);
	/* The fall mirrors the rise. */
	for (int i = 0; i < 200; i++) {
		assert_true(fabs(tr_profile_rate(&pr, i * 0.2 + 0.1) -
				 tr_profile_rate(&pr, (199 - i) * 0.2 + 0.1)) <
			    1e-9);
	}
	assert_true(fabs(tr_profile_rate(&pr, 39.9) - 63) < 1e-9);
	assert_true(fabs(tr_profile_rate(&pr, 50) - 63) < 1e-9);
}

static void test_profile_file(void **state)
{
	char path[] = "/tmp/l3b-profile-XXXXXX";
	struct tr_profile pr = {0};
	char err[512];
	FILE *f;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "# t rate\n0 10\n\n2.5 20 # more\n5 0\n");
	fclose(f);
	assert_int_equal(tr_profile_load(&pr, path, err, sizeof(err)), 0);
	assert_int_equal(pr.n, 3);
	assert_true(tr_profile_rate(&pr, 0) == 10);
	assert_true(tr_profile_rate(&pr, 2.49) == 10);
	assert_true(tr_profile_rate(&pr, 2.5) == 20);
	assert_true(tr_profile_rate(&pr, 7) == 0);
	tr_profile_free(&pr);

	f = fopen(path, "w");
	fprintf(f, "0 10\n1 x\n");
	fclose(f);
	assert_int_equal(tr_profile_load(&pr, path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":2:"));
	assert_non_null(strstr(err, "'1 x'"));
	tr_profile_free(&pr);

	f = fopen(path, "w");
	fprintf(f, "1 10\n1 20\n");
	fclose(f);
	assert_int_equal(tr_profile_load(&pr, path, err, sizeof(err)), -EINVAL);
	tr_profile_free(&pr);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linkem_fifo),
		cmocka_unit_test(test_linkem_delay_change_keeps_order),
		cmocka_unit_test(test_linkem_late),
		cmocka_unit_test(test_linkem_loss_rate_and_seed),
		cmocka_unit_test(test_linkem_gilbert_elliott),
		cmocka_unit_test(test_linkem_down_flushes),
		cmocka_unit_test(test_linkem_ring_full),
		cmocka_unit_test(test_linkem_parse),
		cmocka_unit_test(test_pattern),
		cmocka_unit_test(test_rx_accounting),
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_paper_ramp),
		cmocka_unit_test(test_profile_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
