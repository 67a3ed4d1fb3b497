/* Unit tests of the ingress's flows (ingress/flow.c) and of the scheduler's
 * per-flow pick (ing_sched_pick_flow):
 * - the hash: what keys a flow (addresses, protocol, ports of port
 *   protocols, not of fragments; IPv6's flow label), the seed, and that
 *   truncated or unknown packets hash without reading past their length;
 * - sparse or not: a vector table of packet sizes and times;
 * - fgap and FLOW_FIRST: first packet, followers, a gap over 65535, reset;
 * - the pick: a sparse flow takes the path with the lowest delay and never
 *   the WRR's, a bulk flow follows the weights; every packet of a bucket
 *   names its predecessor exactly (a randomized check against a map of
 *   the last gseq per bucket).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/wire.h"
#include "ingress/flow.h"
#include "ingress/sched.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* An IPv4 packet of len bytes: addresses, protocol, ports, fragment bits. */
static void ip4(uint8_t *p, size_t len, uint32_t src, uint32_t dst,
		uint8_t proto, uint16_t sport, uint16_t dport, uint16_t frag)
{
	memset(p, 0, len);
	p[0] = 0x45;
	p[2] = (uint8_t)(len >> 8);
	p[3] = (uint8_t)len;
	p[6] = (uint8_t)(frag >> 8);
	p[7] = (uint8_t)frag;
	p[8] = 64;
	p[9] = proto;
	for (int i = 0; i < 4; i++) {
		p[12 + i] = (uint8_t)(src >> (24 - 8 * i));
		p[16 + i] = (uint8_t)(dst >> (24 - 8 * i));
	}
	p[20] = (uint8_t)(sport >> 8);
	p[21] = (uint8_t)sport;
	p[22] = (uint8_t)(dport >> 8);
	p[23] = (uint8_t)dport;
}

static void ip6(uint8_t *p, size_t len, uint8_t last_src, uint32_t label,
		uint8_t next, uint16_t sport, uint16_t dport)
{
	memset(p, 0, len);
	p[0] = (uint8_t)(0x60 | (label >> 16 & 0x0f));
	p[1] = (uint8_t)(label >> 8);
	p[2] = (uint8_t)label;
	p[6] = next;
	p[7] = 64;
	p[8] = 0xfd;
	p[23] = last_src;
	p[24] = 0xfd;
	p[39] = 1;
	p[40] = (uint8_t)(sport >> 8);
	p[41] = (uint8_t)sport;
	p[42] = (uint8_t)(dport >> 8);
	p[43] = (uint8_t)dport;
}

static uint32_t h4(uint32_t src, uint32_t dst, uint8_t proto, uint16_t sport,
		   uint16_t dport, uint16_t frag, uint32_t seed)
{
	uint8_t p[64];

	ip4(p, sizeof(p), src, dst, proto, sport, dport, frag);
	return ing_flow_hash(p, sizeof(p), seed);
}

static void test_hash(void **state)
{
	uint32_t a = 0x0a000102, b = 0x0a000202, base;
	uint8_t p[64];

	(void)state;
	base = h4(a, b, 17, 1000, 53, 0, 1);
	/* ports key UDP and TCP flows, and the protocol keys them */
	assert_int_not_equal(base, h4(a, b, 17, 1001, 53, 0, 1));
	assert_int_not_equal(base, h4(a, b, 17, 1000, 54, 0, 1));
	assert_int_not_equal(base, h4(a, b, 6, 1000, 53, 0, 1));
	assert_int_not_equal(base, h4(b, a, 17, 1000, 53, 0, 1));
	assert_int_not_equal(base, h4(a, b, 17, 1000, 53, 0, 2)); /* seed */
	assert_int_equal(base, h4(a, b, 17, 1000, 53, 0, 1));
	/* ICMP (1) has no ports: the bytes where they would be do not count */
	assert_int_equal(h4(a, b, 1, 1, 2, 0, 1), h4(a, b, 1, 3, 4, 0, 1));
	/* fragments (MF, or an offset) are keyed without ports, so every
	 * fragment of a datagram is one flow */
	assert_int_equal(h4(a, b, 17, 1000, 53, 0x2000, 1),
			 h4(a, b, 17, 7, 8, 0x00b9, 1));
	assert_int_not_equal(h4(a, b, 17, 1000, 53, 0x2000, 1), base);
	/* DF alone is not a fragment */
	assert_int_equal(h4(a, b, 17, 1000, 53, 0x4000, 1), base);
	/* a packet too short for its ports hashes without them, within len */
	ip4(p, sizeof(p), a, b, 17, 1000, 53, 0);
	assert_int_equal(ing_flow_hash(p, 23, 1), ing_flow_hash(p, 20, 1));
	/* unparseable: one flow, whatever the bytes */
	memset(p, 0xff, sizeof(p));
	p[0] = 0x50;
	assert_int_equal(ing_flow_hash(p, sizeof(p), 9),
			 ing_flow_hash(p, 3, 9));
	assert_int_equal(ing_flow_hash(p, 0, 9), ing_flow_hash(p, 19, 9));
}

static void test_hash6(void **state)
{
	uint8_t p[80];
	uint32_t base;

	(void)state;
	ip6(p, sizeof(p), 2, 0, 17, 1000, 53);
	base = ing_flow_hash(p, sizeof(p), 1);
	ip6(p, sizeof(p), 2, 0, 17, 1001, 53);
	assert_int_not_equal(base, ing_flow_hash(p, sizeof(p), 1));
	ip6(p, sizeof(p), 3, 0, 17, 1000, 53);
	assert_int_not_equal(base, ing_flow_hash(p, sizeof(p), 1));
	ip6(p, sizeof(p), 2, 0x12345, 17, 1000, 53); /* flow label */
	assert_int_not_equal(base, ing_flow_hash(p, sizeof(p), 1));
	/* a fragment header (44) as next header: no ports */
	ip6(p, sizeof(p), 2, 0, 44, 1, 2);
	base = ing_flow_hash(p, sizeof(p), 1);
	ip6(p, sizeof(p), 2, 0, 44, 3, 4);
	assert_int_equal(base, ing_flow_hash(p, sizeof(p), 1));
	/* 39 bytes are no IPv6 header */
	assert_int_equal(ing_flow_hash(p, 39, 1), ing_flow_hash(p, 0, 1));
}

/* Sparse or not: packets of one flow at given times.  Row: size, time (us),
 * sparse after it.  The bucket drains 125 bytes a ms, holds 4500. */
struct sparse_row {
	uint32_t len;
	uint64_t t_us;
	bool sparse;
};

static const struct sparse_row sparse_rows[] = {
	{1500, 1000000, true},	/* 0: 1500 */
	{1500, 1000000, true},	/* 1: 3000 */
	{1500, 1000000, true},	/* 2: 4500, at the limit */
	{1, 1000000, false},	/* 3: 4501 */
	{1500, 1004000, false}, /* 4: 4501 - 500 + 1500 = 5501 */
	{100, 1050000, true},	/* 5: drained to 0 (46 ms), 100 */
	{100, 1060000, true},	/* 6: a ping every 10 ms stays sparse */
	{100, 1070000, true},	/* 7 */
	{4400, 1070000, true},	/* 8: 100 + 4400 = 4500 */
	{1, 1070000, false},	/* 9 */
	{100, 4000000000ULL, true}, /* 10: hours later */
};

static void test_sparse(void **state)
{
	struct ing_flows *f = calloc(1, sizeof(*f));
	bool sparse;

	(void)state;
	assert_non_null(f);
	for (size_t i = 0; i < ARRAY_SIZE(sparse_rows); i++) {
		struct ing_flow *b = ing_flow_note(f, 5, sparse_rows[i].len,
						   sparse_rows[i].t_us, &sparse);
		uint16_t fgap;
		uint8_t flags;

		ing_flow_sent(b, (uint32_t)i, &fgap, &flags);
		if (sparse != sparse_rows[i].sparse) {
			fail_msg("row %zu: sparse %d, want %d (backlog %u)", i,
				 sparse, sparse_rows[i].sparse, b->backlog);
		}
	}
	/* another bucket is another flow: fresh */
	ing_flow_note(f, 6, 1500, 4000000000ULL, &sparse);
	assert_true(sparse);
	free(f);
}

static void test_fgap(void **state)
{
	struct ing_flows *f = calloc(1, sizeof(*f));
	struct ing_flow *b;
	uint16_t fgap;
	uint8_t flags;
	bool sparse;

	(void)state;
	assert_non_null(f);
	b = ing_flow_note(f, 77, 100, 0, &sparse);
	ing_flow_sent(b, 1000, &fgap, &flags);
	assert_int_equal(fgap, 0);
	assert_int_equal(flags, WIRE_F_FLOW_FIRST);
	ing_flow_sent(b, 1001, &fgap, &flags);
	assert_int_equal(fgap, 1);
	assert_int_equal(flags, 0);
	ing_flow_sent(b, 1001 + 65535, &fgap, &flags);
	assert_int_equal(fgap, 65535);
	assert_int_equal(flags, 0);
	/* more than 65535 since the flow's last packet: first again */
	ing_flow_sent(b, 1001 + 65535 + 65536, &fgap, &flags);
	assert_int_equal(fgap, 0);
	assert_int_equal(flags, WIRE_F_FLOW_FIRST);
	/* across the wrap of gseq */
	ing_flow_sent(b, UINT32_MAX - 1, &fgap, &flags);
	ing_flow_sent(b, 2, &fgap, &flags);
	assert_int_equal(fgap, 4);
	/* the same number again (sequence restarted under us): first */
	ing_flow_sent(b, 2, &fgap, &flags);
	assert_int_equal(flags, WIRE_F_FLOW_FIRST);
	/* buckets by the hash's low bits */
	assert_ptr_equal(ing_flow_note(f, 77 + ING_FLOW_BUCKETS, 1, 0, &sparse),
			 b);
	ing_flows_reset(f);
	ing_flow_sent(b, 3, &fgap, &flags);
	assert_int_equal(flags, WIRE_F_FLOW_FIRST);
	free(f);
}

static struct ing_sched_params params(void)
{
	struct ing_sched_params p = {
		.k = 0.5, .t_dwd_ms = 250, .t_report_ms = 50,
		.w_fixed = 50, .w_mobile_max = 45,
	};

	return p;
}

/* A sparse flow goes on the path with the lowest delay, whatever the
 * weights; a bulk one follows the weights; fgap names, for every packet,
 * the previous packet of its bucket (checked against a map). */
static void test_pick_flow(void **state)
{
	enum path_class cls[2] = {PATH_FIXED, PATH_MOBILE};
	struct ing_sched_params p = params();
	struct ing_sched *s = calloc(1, sizeof(*s));
	uint32_t *last = calloc(ING_FLOW_BUCKETS, sizeof(*last));
	bool *seen = calloc(ING_FLOW_BUCKETS, sizeof(*seen));
	unsigned on[2] = {0, 0};
	struct wire_hdr h;
	uint64_t t = 1000000;

	(void)state;
	assert_non_null(s);
	assert_non_null(last);
	assert_non_null(seen);
	assert_int_equal(ing_sched_init(s, &p, 2, cls), 0);
	s->w_mobile = 45;
	/* mobile faster now: the sparse flow goes there */
	ing_sched_set_delay(s, 0, 40000);
	ing_sched_set_delay(s, 1, 30000);
	srand(7);
	for (int i = 0; i < 20000; i++) {
		/* flow 1: 100 bytes every 10 ms; flows 2..9: bulk */
		bool ping = i % 100 == 0;
		uint32_t hash = ping ? 1 : 2 + (uint32_t)rand() % 8;
		uint32_t bkt = hash & (ING_FLOW_BUCKETS - 1);
		uint64_t sparse0 = s->st.sparse;
		int path;

		t += 100;
		path = ing_sched_pick_flow(s, &h, hash, ping ? 100 : 1400, t);
		assert_true(path == 0 || path == 1);
		if (s->st.sparse != sparse0) {
			/* sparse: the pings, and a bulk flow's first three */
			assert_int_equal(path, 1);
		} else {
			assert_false(ping);
			on[path]++;
		}
		if (seen[bkt]) {
			assert_int_equal(h.flags, 0);
			assert_int_equal(h.fgap, h.gseq - last[bkt]);
		} else {
			assert_int_equal(h.flags, WIRE_F_FLOW_FIRST);
			assert_int_equal(h.fgap, 0);
		}
		seen[bkt] = true;
		last[bkt] = h.gseq;
	}
	assert_int_equal(s->st.sparse, 200 + 8 * 3);
	/* bulk: 50:45 by the weights, within a packet */
	assert_true(abs((int)on[0] * 45 - (int)on[1] * 50) <= 50);
	/* the fixed path faster again; the mobile one down: sparse on the
	 * fixed one either way */
	ing_sched_set_delay(s, 0, 10000);
	assert_int_equal(ing_sched_pick_flow(s, &h, 1, 100, t + 1000000), 0);
	ing_sched_set_delay(s, 0, 90000);
	ing_sched_set_up(s, 1, false);
	assert_int_equal(ing_sched_pick_flow(s, &h, 1, 100, t + 2000000), 0);
	ing_sched_set_up(s, 0, false);
	assert_int_equal(ing_sched_pick_flow(s, &h, 1, 100, t + 3000000),
			 -ENETDOWN);
	/* reset: every flow starts again */
	ing_sched_set_up(s, 0, true);
	ing_sched_reset_seq(s, 5);
	assert_int_equal(ing_sched_pick_flow(s, &h, 3, 100, t + 4000000), 0);
	assert_int_equal(h.flags, WIRE_F_FLOW_FIRST);
	assert_int_equal(h.gseq, 5);
	free(seen);
	free(last);
	free(s);
}


/* Pacing: a fixed path with a rate takes bulk packets while its bucket
 * allows (98 % of the rate, a 5 ms burst, outer bytes counted) and the
 * rest overflows to the mobile path at once; sparse packets take it
 * whatever (into debt); without a mobile path up, or with w_mobile_max 0,
 * nothing overflows; rate 0 is the weighted round robin. */
static void test_pace(void **state)
{
	enum path_class cls[2] = {PATH_FIXED, PATH_MOBILE};
	struct ing_sched_params p = params();
	struct ing_sched *s = calloc(1, sizeof(*s));
	struct wire_hdr h;
	double fixed_bytes = 0, want;
	uint64_t t = 1000000, n = 0;
	int path;

	(void)state;
	assert_non_null(s);
	assert_int_equal(ing_sched_init(s, &p, 2, cls), 0);
	ing_sched_set_rate(s, 0, 10000); /* 10 Mbit/s */
	ing_sched_set_rate(s, 1, 10000); /* a mobile path is never paced */
	assert_true(s->path[1].rate_Bps == 0);
	/* 20 Mbit/s of 1424-byte packets for 2 s: one every 569.6 us */
	for (uint64_t us = 0; us < 2000000; us += 570, n++) {
		path = ing_sched_pick_flow(s, &h, 9, 1424, t + us);
		assert_true(path == 0 || path == 1);
		if (path == 0) {
			fixed_bytes += 1424 + WIRE_OVERHEAD;
		}
	}
	/* 98 % of 10 Mbit/s for 2 s plus the first bucket (6250 bytes; the
	 * first three packets, sparse, are paid from it) */
	want = 10e6 / 8 * 0.98 * 2 + 6250;
	if (fixed_bytes > want + 1500 || fixed_bytes < want - 3000) {
		fail_msg("fixed path: %.0f bytes, want about %.0f",
			 fixed_bytes, want);
	}
	assert_int_equal(s->st.sparse, 3);
	assert_int_equal(s->st.paced + s->st.overflow + 3, n);
	assert_true(s->st.overflow > n / 3);
	/* a sparse packet takes the paced path at any time */
	ing_sched_set_delay(s, 0, 1000);
	ing_sched_set_delay(s, 1, 9000);
	t += 2000000 + 100000; /* the bucket full again, flow 9 still bulk */
	for (int i = 0; i < 3; i++) {
		assert_int_equal(ing_sched_pick_flow(s, &h, 77, 1400, t), 0);
	}
	/* ... and the bulk pays: 6250 - 3 * 1476 leaves 1822 bytes, less
	 * than a 2000-byte packet needs (a 1424-byte one would still go) */
	assert_int_equal(ing_sched_pick_flow(s, &h, 9, 2000, t), 1);
	assert_int_equal(ing_sched_pick_flow(s, &h, 9, 1424, t), 0);
	/* w_mobile_max 0: never overflow */
	p.w_mobile_max = 0;
	assert_int_equal(ing_sched_set_params(s, &p), 0);
	assert_int_equal(ing_sched_pick_flow(s, &h, 9, 1424, t), 0);
	p.w_mobile_max = 45;
	assert_int_equal(ing_sched_set_params(s, &p), 0);
	/* the mobile path down: the paced path queues it */
	ing_sched_set_up(s, 1, false);
	assert_int_equal(ing_sched_pick_flow(s, &h, 9, 1424, t), 0);
	ing_sched_set_up(s, 1, true);
	/* rate 0: the weights again (w_mobile 0: all on the fixed path) */
	ing_sched_set_rate(s, 0, 0);
	for (int i = 0; i < 100; i++) {
		assert_int_equal(ing_sched_pick_flow(s, &h, 9, 1424, t), 0);
	}
	free(s);
}

/* A report of the fixed path 0 (and an empty mobile path 1): report
 * sequence seq, rx packets received so far, standing queue q us. */
static void learn_report(struct ing_sched *s, uint32_t seq, uint32_t rx,
			 uint32_t q)
{
	struct wire_report r = {.n = 2};

	r.p[0] = (struct wire_report_path){.path = 0, .rx_pkts = rx,
					   .delay_us = q};
	r.p[1] = (struct wire_report_path){.path = 1};
	ing_sched_on_report(s, seq, &r);
}

/* n bulk packets of flow 9, len bytes each, at t_us */
static void learn_send(struct ing_sched *s, int n, uint32_t len, uint64_t t_us)
{
	struct wire_hdr h;

	for (int i = 0; i < n; i++) {
		assert_true(ing_sched_pick_flow(s, &h, 9, len, t_us) >= 0);
	}
}

/* rate_auto: a fixed path whose standing queue is over half the target
 * and grows (it delivered fewer packets than were sent to it) over a
 * whole report interval (consecutive reports) is paced at what it
 * delivered (rx times the mean size sent, per t_report), averaged with
 * the previous estimate; a queue over half the target that stands still
 * under a pace that holds bulk back steps it down 1 %; while the pace
 * holds bulk back and the line does not queue, the pace grows (0.2 % a
 * report, more when it keeps growing), up to rate_mbit when that is set;
 * off with rate_auto false or without a queue target. */
static void test_pace_learn(void **state)
{
	enum path_class cls[2] = {PATH_FIXED, PATH_MOBILE};
	struct ing_sched_params p = params();
	struct ing_sched *s = calloc(1, sizeof(*s));
	uint64_t t = 1000000;
	uint32_t rx = 0, seq = 1, r0;

	(void)state;
	assert_non_null(s);
	p.queue_target_us = 5000;
	p.rate_auto = true;
	assert_int_equal(ing_sched_init(s, &p, 2, cls), 0);
	assert_int_equal(ing_sched_rate(s, 0), 0);
	/* unpaced, w_mobile 0: everything on the fixed path, 1424 + 76 line
	 * bytes a packet */
	learn_send(s, 200, 1424, t);
	assert_int_equal(s->path[0].sent, 200);
	learn_report(s, seq++, rx, 0); /* the baseline */
	learn_send(s, 200, 1424, t);
	learn_report(s, seq++, rx += 150, 8000);
	/* 150 * 1500 bytes in 50 ms: 4.5 MB/s = 36 Mbit/s */
	assert_int_equal(s->st.rate_learned, 1);
	assert_int_equal(ing_sched_rate(s, 0), 36000);
	/* the mobile path down for a while: everything on the fixed path
	 * whatever its pace (what a line delivers is compared with what was
	 * sent to it) */
	ing_sched_set_up(s, 1, false);
	/* a queue under half the target: nothing measured (and no probe:
	 * over a quarter of it) */
	learn_send(s, 200, 1424, t);
	learn_report(s, seq++, rx += 170, 2500);
	assert_int_equal(ing_sched_rate(s, 0), 36000);
	/* a queue that stands while everything sent arrives is not the
	 * line's: nothing measured (nothing overflowed, the mobile path is
	 * down: the pace held nothing back, no step either) */
	learn_send(s, 200, 1424, t);
	learn_report(s, seq++, rx += 200, 9000);
	assert_int_equal(s->st.rate_learned, 1);
	assert_int_equal(ing_sched_rate(s, 0), 36000);
	/* 170 of 200 arrived: 40.8 Mbit/s, averaged: 38.4 */
	learn_send(s, 200, 1424, t);
	learn_report(s, seq++, rx += 170, 2600);
	assert_int_equal(s->st.rate_learned, 2);
	assert_int_equal(ing_sched_rate(s, 0), 38400);
	/* a report lost in between: the interval is not known to have been
	 * busy, nothing is measured */
	seq++;
	learn_send(s, 200, 1424, t);
	learn_report(s, seq++, rx += 150, 9000);
	assert_int_equal(s->st.rate_learned, 2);
	assert_int_equal(ing_sched_rate(s, 0), 38400);
	/* the mobile path up: bulk overflows, the pace holds it back; a
	 * queue over half the target that does not grow: a step of 1 % */
	ing_sched_set_up(s, 1, true);
	learn_send(s, 200, 1424, t);
	learn_report(s, seq++, rx += 100, 9000);
	assert_int_equal(s->st.rate_learned, 3);
	assert_int_equal(ing_sched_rate(s, 0), 38016);

	/* no queue, but nothing held back: no probe */
	learn_report(s, seq++, rx += 100, 0);
	assert_int_equal(s->st.rate_probed, 0);
	/* 20 Mbit/s over the pace for the next 50 ms: bulk overflows (the
	 * pace held it back), the line does not queue: +0.2 % */
	t += 100000;
	for (uint64_t us = 0; us < 50000; us += 200) {
		learn_send(s, 1, 1424, t + us);
	}
	assert_true(s->st.overflow > 0);
	learn_report(s, seq++, rx += 100, 1000);
	assert_int_equal(s->st.rate_probed, 1);
	assert_int_equal(ing_sched_rate(s, 0), 38092);
	/* held back again and again: the steps grow (0.2 % a report, plus an
	 * eighth of that for every report in a row, at most 1.6 %) */
	r0 = ing_sched_rate(s, 0);
	for (int i = 1; i <= 60; i++) {
		t += 50000;
		for (uint64_t us = 0; us < 50000; us += 100) {
			learn_send(s, 1, 1424, t + us);
		}
		learn_report(s, seq++, rx += 100, 0);
	}
	assert_int_equal(s->st.rate_probed, 61);
	if (ing_sched_rate(s, 0) < r0 * 1.5 || ing_sched_rate(s, 0) > r0 * 2.0) {
		fail_msg("60 probes: %u kbit/s from %u", ing_sched_rate(s, 0),
			 r0);
	}
	/* a queue over the target that grows: measured, probes reset */
	learn_send(s, 300, 1424, t);
	learn_report(s, seq++, rx += 200, 7000);
	assert_int_equal(s->st.rate_learned, 4);
	assert_int_equal(s->path[0].probes, 0);

	/* rate_mbit caps it: the pace is the lower of the two */
	ing_sched_set_rate(s, 0, 30000);
	assert_int_equal(ing_sched_rate(s, 0), 30000);
	ing_sched_set_rate(s, 0, 1000000);
	assert_true(ing_sched_rate(s, 0) > 30000);
	assert_true(ing_sched_rate(s, 0) < 1000000);
	/* ... and a probe stops there (10 kbit/s over the learned rate) */
	r0 = ing_sched_rate(s, 0);
	ing_sched_set_rate(s, 0, r0 + 10);
	assert_int_equal(ing_sched_rate(s, 0), r0);
	for (int i = 0; i < 2; i++) {
		t += 100000;
		for (uint64_t us = 0; us < 50000; us += 100) {
			learn_send(s, 1, 1424, t + us);
		}
		learn_report(s, seq++, rx += 100, 0);
		assert_int_equal(ing_sched_rate(s, 0), r0 + 10);
	}
	ing_sched_set_rate(s, 0, 0);

	/* rate_auto off: forgotten at once, the path unpaced */
	p.rate_auto = false;
	assert_int_equal(ing_sched_set_params(s, &p), 0);
	assert_int_equal(ing_sched_rate(s, 0), 0);
	learn_send(s, 200, 1424, t);
	learn_report(s, seq++, rx += 150, 8000);
	assert_int_equal(ing_sched_rate(s, 0), 0);
	/* ... and without a queue target */
	p.rate_auto = true;
	p.queue_target_us = 0;
	assert_int_equal(ing_sched_set_params(s, &p), 0);
	learn_send(s, 200, 1424, t);
	learn_report(s, seq++, rx += 150, 8000);
	assert_int_equal(ing_sched_rate(s, 0), 0);
	assert_int_equal(s->st.rate_learned, 4);
	/* a line that delivers next to nothing is still paced at 1 Mbit/s */
	p.queue_target_us = 5000;
	assert_int_equal(ing_sched_set_params(s, &p), 0);
	learn_send(s, 10, 100, t);
	learn_report(s, seq++, rx += 1, 8000);
	assert_int_equal(ing_sched_rate(s, 0), 1000);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash),
		cmocka_unit_test(test_hash6),
		cmocka_unit_test(test_sparse),
		cmocka_unit_test(test_fgap),
		cmocka_unit_test(test_pick_flow),
		cmocka_unit_test(test_pace),
		cmocka_unit_test(test_pace_learn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
