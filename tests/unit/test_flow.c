/* SPDX-License-Identifier: BSD-2-Clause */
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
#include <math.h>
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
	ing_flows_reset(f);
	ing_flow_sent(b, 3, &fgap, &flags);
	assert_int_equal(flags, WIRE_F_FLOW_FIRST);
	free(f);
}

/* The table is set-associative: flows whose hashes share their low bits
 * take the buckets of their set one each (a ping beside a download stays
 * sparse); with the set full of flows that sent within ING_FLOW_IDLE_MS,
 * one more shares the bucket its low bits name; a bucket silent
 * longer goes to a new flow, which starts afresh. */
static void test_flow_ways(void **state)
{
	struct ing_flows *f = calloc(1, sizeof(*f));
	struct ing_flow *b[ING_FLOW_WAYS], *x;
	uint32_t h0 = 77;
	uint16_t fgap;
	uint8_t flags;
	bool sparse;

	(void)state;
	assert_non_null(f);
	/* a download in the first bucket: bulk */
	for (int i = 0; i < 10; i++) {
		b[0] = ing_flow_note(f, h0, 1500, 0, &sparse);
		ing_flow_sent(b[0], (uint32_t)i, &fgap, &flags);
	}
	assert_false(sparse);
	/* a ping whose hash has the same low bits: its own bucket, sparse,
	 * first of its flow */
	x = ing_flow_note(f, h0 + ING_FLOW_BUCKETS, 84, 1000, &sparse);
	assert_true(sparse);
	assert_ptr_not_equal(x, b[0]);
	ing_flow_sent(x, 10, &fgap, &flags);
	assert_int_equal(flags, WIRE_F_FLOW_FIRST);
	b[1] = x;
	/* the download again: its own bucket, its order kept */
	assert_ptr_equal(ing_flow_note(f, h0, 1500, 1000, &sparse), b[0]);
	ing_flow_sent(b[0], 11, &fgap, &flags);
	assert_int_equal(fgap, 2);
	/* six more of the set: all distinct, none shared */
	for (uint32_t w = 2; w < ING_FLOW_WAYS; w++) {
		b[w] = ing_flow_note(f, h0 + w * ING_FLOW_BUCKETS, 84, 1000,
				     &sparse);
		ing_flow_sent(b[w], 20 + w, &fgap, &flags);
		for (uint32_t v = 0; v < w; v++) {
			assert_ptr_not_equal(b[w], b[v]);
		}
		assert_true(b[w] >= f->b && b[w] < f->b + ING_FLOW_BUCKETS);
		assert_int_equal((size_t)(b[w] - f->b) / ING_FLOW_WAYS,
				 (size_t)(b[0] - f->b) / ING_FLOW_WAYS);
	}
	/* a ninth within 2 s: shares the bucket its low bits name, whose
	 * tag is another flow's (what ing_sched counts: flows_shared) */
	x = ing_flow_note(f, h0 + 99 * ING_FLOW_BUCKETS, 84, 1500000, &sparse);
	assert_ptr_equal(x, &f->b[h0]);
	assert_int_not_equal(x->tag, h0 + 99 * ING_FLOW_BUCKETS);
	/* a ninth after the others were silent for more than 2 s (the
	 * download sent on): a silent bucket, afresh */
	assert_ptr_equal(ing_flow_note(f, h0, 1500, 2500000, &sparse), b[0]);
	ing_flow_sent(b[0], 40, &fgap, &flags);
	x = ing_flow_note(f, h0 + 99 * ING_FLOW_BUCKETS, 84, 3100000, &sparse);
	assert_ptr_not_equal(x, b[0]);
	assert_true(sparse);
	assert_int_equal(x->tag, h0 + 99 * ING_FLOW_BUCKETS);
	ing_flow_sent(x, 41, &fgap, &flags);
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


/* Mode flow (ing_sched_pick_sticky): every flow keeps the path its first
 * packet got (the weights split the flows, not their packets), sparse or
 * not; moves only when that path is down (counted), and picks again after
 * ING_FLOW_IDLE_MS of silence. */
static void test_pick_sticky(void **state)
{
	enum path_class cls[2] = {PATH_FIXED, PATH_MOBILE};
	struct ing_sched_params p = params();
	struct ing_sched *s = calloc(1, sizeof(*s));
	int first[64], path;
	unsigned on[2] = {0, 0}, i;
	uint64_t moves;
	struct wire_hdr h;
	uint64_t t = 1000000;

	(void)state;
	assert_non_null(s);
	assert_int_equal(ing_sched_init(s, &p, 2, cls), 0);
	s->w_mobile = 45;
	ing_sched_set_delay(s, 0, 10000); /* sparse would go on 0 */
	for (i = 0; i < 64; i++) {
		first[i] = -1;
	}
	srand(11);
	for (int k = 0; k < 20000; k++) {
		uint32_t f = (uint32_t)rand() % 64;

		t += 100;
		path = ing_sched_pick_sticky(s, &h, f, k % 3 ? 1400 : 80, t);
		assert_true(path == 0 || path == 1);
		if (first[f] < 0) {
			first[f] = path;
			on[path]++;
		}
		assert_int_equal(path, first[f]);
	}
	assert_int_equal(s->st.flow_starts, 64);
	assert_int_equal(s->st.flow_moves, 0);
	assert_int_equal(s->st.sparse, 0);
	/* the flows split by the weights (50:45), so both paths have some */
	assert_true(on[0] > 10 && on[1] > 10);
	/* path 1 down: its flows move to 0, counted once each, and stay
	 * there once it is back */
	ing_sched_set_up(s, 1, false);
	for (i = 0; i < 64; i++) {
		t += 100;
		assert_int_equal(ing_sched_pick_sticky(s, &h, i, 1400, t), 0);
	}
	assert_int_equal(s->st.flow_moves, on[1]);
	ing_sched_set_up(s, 1, true);
	for (i = 0; i < 64; i++) {
		t += 100;
		assert_int_equal(ing_sched_pick_sticky(s, &h, i, 1400, t), 0);
	}
	/* silent past ING_FLOW_IDLE_MS: a new pick (a start, not a move),
	 * and the weights give path 1 some of them again */
	moves = s->st.flow_moves;
	t += (ING_FLOW_IDLE_MS + 1) * 1000ull;
	memset(on, 0, sizeof(on));
	for (i = 0; i < 64; i++) {
		t += 100;
		on[ing_sched_pick_sticky(s, &h, i, 1400, t)]++;
	}
	assert_int_equal(s->st.flow_starts, 128);
	assert_int_equal(s->st.flow_moves, moves);
	assert_true(on[1] > 10);
	free(s);
}

/* A paced path's bucket at kbps kbit/s, bytes: ING_PACE_BURST_US of the
 * rate, at least ING_PACE_BURST_MIN (what sched.c's pace_depth is to
 * give, computed here apart) */
static uint32_t pace_depth_at(uint32_t kbps)
{
	uint32_t d = (uint32_t)((uint64_t)kbps * 1000 / 8 * ING_PACE_BURST_US /
				1000000);

	return d < ING_PACE_BURST_MIN ? ING_PACE_BURST_MIN : d;
}

/* Pacing: a fixed path with a rate takes bulk packets while its bucket
 * allows (98 % of the rate, ING_PACE_BURST_US deep, outer bytes counted)
 * and the rest overflows to the mobile path at once; sparse packets take it
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
	uint32_t left;
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
	/* 98 % of 10 Mbit/s for 2 s (the bucket starts empty; the first
	 * three packets, sparse, go into debt) */
	want = 10e6 / 8 * 0.98 * 2;
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
		assert_int_equal(ing_sched_pick_flow(s, &h, 77, 300, t), 0);
	}
	/* ... and the bulk pays: the bucket less 3 * 376 bytes is a byte
	 * short of the first bulk packet, and just enough for the second */
	left = pace_depth_at(10000) - 3 * (300 + WIRE_OVERHEAD);
	assert_int_equal(ing_sched_pick_flow(s, &h, 9,
					     left - WIRE_OVERHEAD + 1, t),
			 1);
	assert_int_equal(ing_sched_pick_flow(s, &h, 9, left - WIRE_OVERHEAD,
					     t),
			 0);
	/* w_mobile_max 0: never overflow */
	p.w_mobile_max = 0;
	assert_int_equal(ing_sched_set_params(s, &p), 0);
	assert_int_equal(ing_sched_pick_flow(s, &h, 9, 1424, t), 0);
	p.w_mobile_max = 45;
	assert_int_equal(ing_sched_set_params(s, &p), 0);
	/* the mobile path down: the paced path queues it, and 1000 packets
	 * more leave a debt of one bucket at most: 10 ms after the mobile
	 * path is back (12250 bytes at 98 % of the rate) the paced path
	 * takes bulk again */
	ing_sched_set_up(s, 1, false);
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(ing_sched_pick_flow(s, &h, 9, 1424, t), 0);
	}
	ing_sched_set_up(s, 1, true);
	assert_int_equal(ing_sched_pick_flow(s, &h, 9, 1424, t + 1000), 1);
	assert_int_equal(ing_sched_pick_flow(s, &h, 9, 1424, t + 12000), 0);
	t += 12000;
	/* the fragments of one packet after the first follow it: onto the
	 * paced path even without tokens (and its bucket pays), onto the
	 * mobile one even with tokens; a path that is down is not forced */
	t += 100000;
	assert_int_equal(ing_sched_pick_flow_on(s, &h, 9, 1424, t, 1), 1);
	for (int i = 0; i < 20; i++) {
		assert_int_equal(ing_sched_pick_flow_on(s, &h, 9, 1424, t, 0),
				 0);
	}
	assert_int_equal(ing_sched_pick_flow(s, &h, 9, 1424, t), 1);
	ing_sched_set_up(s, 1, false);
	assert_int_equal(ing_sched_pick_flow_on(s, &h, 9, 1424, t, 1), 0);
	ing_sched_set_up(s, 1, true);
	/* rate 0: the weights again (w_mobile 0: all on the fixed path) */
	ing_sched_set_rate(s, 0, 0);
	for (int i = 0; i < 100; i++) {
		assert_int_equal(ing_sched_pick_flow(s, &h, 9, 1424, t), 0);
	}
	free(s);
}

/* A report of the fixed path 0 and the mobile path 1: report sequence
 * seq, rx packets received so far on path 0, standing queues q and qm
 * us. */
static void learn_report_qm(struct ing_sched *s, uint32_t seq, uint32_t rx,
			    uint32_t q, uint32_t qm)
{
	struct wire_report r = {.n = 2};

	r.p[0] = (struct wire_report_path){.path = 0, .rx_pkts = rx,
					   .delay_us = q};
	/* the mobile path delivered something in every interval: its
	 * delay, 0 too, is a measurement (sched.c, track_floor) */
	r.p[1] = (struct wire_report_path){.path = 1, .rx_pkts = seq,
					   .delay_us = qm};
	ing_sched_on_report(s, seq, &r);
}

/* ... with an empty mobile path */
static void learn_report(struct ing_sched *s, uint32_t seq, uint32_t rx,
			 uint32_t q)
{
	learn_report_qm(s, seq, rx, q, 0);
}

/* ... timed: received at now_us, the peer's stamp peer_us */
static void learn_report_at(struct ing_sched *s, uint32_t seq, uint32_t rx,
			    uint32_t q, uint64_t now_us, uint32_t peer_us)
{
	struct wire_report r = {.n = 2};

	r.p[0] = (struct wire_report_path){.path = 0, .rx_pkts = rx,
					   .delay_us = q};
	r.p[1] = (struct wire_report_path){.path = 1};
	ing_sched_on_report_at(s, seq, &r, now_us, peer_us);
}

/* n bulk packets of flow 9, len bytes each, at t_us */
static void learn_send(struct ing_sched *s, int n, uint32_t len, uint64_t t_us)
{
	struct wire_hdr h;

	for (int i = 0; i < n; i++) {
		assert_true(ing_sched_pick_flow(s, &h, 9, len, t_us) >= 0);
	}
}

/* 50 ms of bulk from t_us: a 1424-byte packet every gap_us (170: 70
 * Mbit/s, 100: 120 Mbit/s) */
static void learn_50ms(struct ing_sched *s, uint64_t t_us, uint64_t gap_us)
{
	for (uint64_t us = 0; us < 50000; us += gap_us) {
		learn_send(s, 1, 1424, t_us + us);
	}
}

/* A scheduler of a fixed path 0 and a mobile path 1 (down), rate_auto on
 * with a 5 ms queue target (free it) */
static struct ing_sched *learn_sched(void)
{
	enum path_class cls[2] = {PATH_FIXED, PATH_MOBILE};
	struct ing_sched_params p = params();
	struct ing_sched *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	p.queue_target_us = 5000;
	p.rate_auto = true;
	assert_int_equal(ing_sched_init(s, &p, 2, cls), 0);
	ing_sched_set_up(s, 1, false);
	return s;
}

/* A report with no queue, then reports whose queue grows by 10 ms each,
 * from 2 ms to last_q, n packets of len bytes sent before each and four
 * fifths of that counted by the peer (a line that queues delivers less
 * than it is sent): an episode of a growing queue, which measures what
 * the peer counted (200 packets of 1500 line bytes a report: 38.4
 * Mbit/s). */
static void learn_grow(struct ing_sched *s, uint32_t *seq, uint32_t *rx,
		       int n, uint32_t len, uint32_t last_q)
{
	learn_report(s, (*seq)++, *rx, 0);
	for (uint32_t q = 2000; q <= last_q; q += 10000) {
		learn_send(s, n, len, 1000000);
		*rx += (uint32_t)n * 4 / 5;
		learn_report(s, (*seq)++, *rx, q);
	}
}

/* rate_auto (sched.c, learn_rate): an episode is a standing queue over a
 * quarter of the target (over the path's floor) in consecutive reports.
 * A queue that grew by more than the target over 4 intervals (2 on a path
 * not paced yet) sets the pace to what the peer counted meanwhile (not
 * what was sent: the line queued the rest), and puts the bucket into debt
 * by the queue's bytes; on a path
 * not paced yet, a queue the weights already move traffic from sets it
 * to what the peer counted; a queue that stands still sets nothing;
 * while the pace holds bulk back and the line does not queue, the pace
 * grows after t_dwd_ms (0.2 % a report, more when it keeps growing), up
 * to rate_mbit when that is set; off with rate_auto false or without a
 * queue target. */
static void test_pace_learn(void **state)
{
	enum path_class cls[2] = {PATH_FIXED, PATH_MOBILE};
	struct ing_sched_params p = params();
	struct ing_sched *s = calloc(1, sizeof(*s));
	struct wire_hdr h;
	uint64_t t = 1000000;
	uint32_t rx = 0, seq = 1, r0;

	(void)state;
	assert_non_null(s);
	p.queue_target_us = 5000;
	p.rate_auto = true;
	assert_int_equal(ing_sched_init(s, &p, 2, cls), 0);
	assert_int_equal(ing_sched_rate(s, 0), 0);
	/* the mobile path down: everything on the fixed path whatever the
	 * weights and the pace, 1424 + 76 line bytes a packet */
	ing_sched_set_up(s, 1, false);
	learn_send(s, 200, 1424, t);
	assert_int_equal(s->path[0].sent, 200);
	learn_report(s, seq++, rx, 0); /* the baseline; the floor 0 */
	/* the queue grows by 20 ms over two intervals (100 ms) while 400 *
	 * 1500 bytes were sent (6 MB/s) and the peer counted 160 a report:
	 * 4.8 MB/s = 38.4 Mbit/s */
	learn_send(s, 200, 1424, t);
	learn_report(s, seq++, rx += 160, 2000);
	learn_send(s, 200, 1424, t);
	learn_report(s, seq++, rx += 160, 12000);
	assert_int_equal(s->st.rate_learned, 0);
	learn_send(s, 200, 1424, t);
	learn_report(s, seq++, rx += 160, 22000);
	assert_int_equal(s->st.rate_learned, 1);
	assert_int_equal(ing_sched_rate(s, 0), 38400);
	/* the 22 ms of queue are owed: 105600 bytes, paid with a quarter
	 * of the refill (98 % of 4.8 MB/s: 1.176 MB/s, so 90 ms); the line
	 * still takes the other three quarters (the bucket starts empty: a
	 * packet of 1500 bytes after 425 us, not after the whole debt) */
	assert_true(s->path[0].owed > 105599 && s->path[0].owed < 105601);
	ing_sched_set_up(s, 1, true);
	t += 1000;
	assert_int_equal(ing_sched_pick_flow(s, &h, 9, 1424, t), 1);
	assert_int_equal(ing_sched_pick_flow(s, &h, 9, 1424, t + 300), 1);
	assert_int_equal(ing_sched_pick_flow(s, &h, 9, 1424, t + 500), 0);
	assert_true(s->path[0].owed > 105011 && s->path[0].owed < 105013);
	ing_sched_set_up(s, 1, false);
	/* a queue that stands still, however long and whatever the peer
	 * counts, is not measured: a receiver's busy CPU does that */
	for (int i = 0; i < 10; i++) {
		learn_send(s, 200, 1424, t);
		learn_report(s, seq++, rx += 100, 9000);
	}
	assert_int_equal(s->st.rate_learned, 1);
	assert_int_equal(ing_sched_rate(s, 0), 38400);
	/* a paced path needs 4 intervals: 10 ms a report for 4 reports
	 * while 4 * 250 * 1500 bytes were sent in 200 ms and the peer
	 * counted 200 a report: 6 MB/s = 48 Mbit/s */
	learn_report(s, seq++, rx, 0);
	for (uint32_t q = 2000; q <= 42000; q += 10000) {
		assert_int_equal(s->st.rate_learned, 1);
		learn_send(s, 250, 1424, t);
		learn_report(s, seq++, rx += 200, q);
	}
	assert_int_equal(s->st.rate_learned, 2);
	assert_int_equal(ing_sched_rate(s, 0), 48000);
	/* a report lost in the episode: it starts again */
	learn_report(s, seq++, rx, 0);
	for (uint32_t q = 2000; q <= 42000; q += 10000) {
		if (q == 22000) {
			seq++;
		}
		learn_send(s, 250, 1424, t);
		learn_report(s, seq++, rx += 200, q);
	}
	assert_int_equal(s->st.rate_learned, 2);
	ing_sched_set_up(s, 1, true);

	/* no queue, but nothing held back: no probe */
	learn_report(s, seq++, rx += 100, 0);
	assert_int_equal(s->st.rate_probed, 0);
	/* 50 ms over the pace after 50 ms without bulk: the bucket filled
	 * meanwhile, so it does not count (filled: test_pace_probe_busy) */
	t += 50000;
	learn_50ms(s, t, 170);
	assert_true(s->path[0].limited && s->path[0].filled);
	learn_report(s, seq++, rx += 100, 300);
	assert_false(s->path[0].filled);
	assert_int_equal(s->st.rate_probed, 0);
	/* 70 Mbit/s for 50 ms, over the pace: bulk overflows (the pace held
	 * it back), the line does not queue; the first t_dwd_ms (5 reports)
	 * after a measurement, nothing; then +0.2 % */
	for (int i = 0; i < 6; i++) {
		t += 50000;
		learn_50ms(s, t, 170);
		assert_true(s->path[0].limited);
		learn_report(s, seq++, rx += 100, 300);
		assert_int_equal(s->st.rate_probed, i < 5 ? 0 : 1);
	}
	assert_int_equal(ing_sched_rate(s, 0), 48096);
	/* held back again and again: the steps grow (0.2 % a report, plus an
	 * eighth of that for every report in a row, at most 1.6 %) */
	r0 = ing_sched_rate(s, 0);
	for (int i = 1; i <= 60; i++) {
		t += 50000;
		learn_50ms(s, t, 100);
		learn_report(s, seq++, rx += 100, 0);
	}
	assert_int_equal(s->st.rate_probed, 61);
	if (ing_sched_rate(s, 0) < r0 * 1.5 || ing_sched_rate(s, 0) > r0 * 2.0) {
		fail_msg("60 probes: %u kbit/s from %u", ing_sched_rate(s, 0),
			 r0);
	}

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
		t += 50000;
		learn_50ms(s, t, 100);
		learn_report(s, seq++, rx += 100, 0);
		assert_int_equal(ing_sched_rate(s, 0), r0 + 10);
	}
	ing_sched_set_rate(s, 0, 0);

	/* rate_auto off: forgotten at once, the path unpaced, nothing
	 * learned */
	p.rate_auto = false;
	assert_int_equal(ing_sched_set_params(s, &p), 0);
	assert_int_equal(ing_sched_rate(s, 0), 0);
	learn_grow(s, &seq, &rx, 200, 1424, 42000);
	assert_int_equal(ing_sched_rate(s, 0), 0);
	/* ... and without a queue target */
	p.rate_auto = true;
	p.queue_target_us = 0;
	assert_int_equal(ing_sched_set_params(s, &p), 0);
	learn_grow(s, &seq, &rx, 200, 1424, 42000);
	assert_int_equal(ing_sched_rate(s, 0), 0);
	assert_int_equal(s->st.rate_learned, 2);
	/* a line that delivers next to nothing is still paced at 1 Mbit/s */
	p.queue_target_us = 5000;
	assert_int_equal(ing_sched_set_params(s, &p), 0);
	learn_grow(s, &seq, &rx, 10, 100, 22000);
	assert_int_equal(s->st.rate_learned, 3);
	assert_int_equal(ing_sched_rate(s, 0), 1000);
	free(s);
}

/* A queue that grows while little is sent (the packets it grew from left
 * a one-way delay and a report before the reports' intervals: a sender
 * that slowed, a TCP download's end) is measured at what the peer
 * counted: 250 packets of 1500 bytes a report over 4 reports (200 ms) is
 * 60 Mbit/s, where the 50 a report sent, less the growth, would read 10;
 * when the line drops meanwhile, at what the peer counted; not when it
 * drops under a queue below the target (its errors). */
static void test_pace_learn_peer_count(void **state)
{
	struct ing_sched *s = learn_sched();
	uint32_t rx = 0, seq = 1;

	(void)state;
	/* paced at 38.4 Mbit/s first (an episode of 4 intervals then) */
	learn_grow(s, &seq, &rx, 200, 1424, 22000);
	assert_int_equal(ing_sched_rate(s, 0), 38400);
	learn_report(s, seq++, rx, 0);
	for (uint32_t q = 2000; q <= 42000; q += 10000) {
		learn_send(s, 50, 1424, 1000000);
		learn_report(s, seq++, rx += 250, q);
	}
	assert_int_equal(s->st.rate_learned, 2);
	assert_int_equal(ing_sched_rate(s, 0), 60000);
	/* a line that drops as its queue grows: what the peer counted too
	 * (200 a report: 48 Mbit/s) */
	learn_report(s, seq++, rx, 0);
	for (uint32_t q = 2000, lost = 0; q <= 42000; q += 10000) {
		struct wire_report r = {.n = 2};

		learn_send(s, 250, 1424, 1000000);
		r.p[0] = (struct wire_report_path){
			.path = 0, .rx_pkts = rx += 200, .delay_us = q,
			.lost_pkts = lost += 10};
		r.p[1] = (struct wire_report_path){.path = 1};
		ing_sched_on_report(s, seq++, &r);
	}
	assert_int_equal(s->st.rate_learned, 3);
	assert_int_equal(ing_sched_rate(s, 0), 48000);
	/* a path that turns suspect within an episode: measured from the
	 * reports after it is back only (what it delivered while not fed
	 * is not its rate: 10 packets a report here) */
	learn_report(s, seq++, rx, 0);
	for (uint32_t q = 2000; q <= 42000; q += 10000) {
		if (s->path[0].up) {
			learn_send(s, 250, 1424, 1000000);
		}
		if (q == 22000) {
			ing_sched_set_suspect(s, 0, true);
		}
		learn_report(s, seq++, rx += 10, q);
		if (q == 32000) {
			ing_sched_set_suspect(s, 0, false);
		}
	}
	assert_int_equal(s->st.rate_learned, 3);
	assert_int_equal(ing_sched_rate(s, 0), 48000);
	/* one measurement at most halves it: 20 counted a report with
	 * drops (4.8 Mbit/s, an episode across a cut reads such things) is
	 * taken as 24; the next, as 12 */
	for (uint32_t round = 0, lost = 1000; round < 2; round++) {
		learn_report(s, seq++, rx, 0);
		for (uint32_t q = 2000; q <= 42000; q += 10000) {
			struct wire_report r = {.n = 2};

			learn_send(s, 250, 1424, 1000000);
			r.p[0] = (struct wire_report_path){
				.path = 0, .rx_pkts = rx += 20, .delay_us = q,
				.lost_pkts = lost += 200};
			r.p[1] = (struct wire_report_path){.path = 1};
			ing_sched_on_report(s, seq++, &r);
		}
		assert_int_equal(s->st.rate_drop_capped, round + 1);
		assert_int_equal(ing_sched_rate(s, 0), round ? 12000 : 24000);
	}
	/* a line that loses half at random under a queue that stands at
	 * 2 ms (over a quarter of the target: an episode; under the
	 * target: not a full buffer): its errors, not its rate, nothing
	 * measured (taken, it would halve the pace report after report) */
	learn_report(s, seq++, rx, 2000);
	for (uint32_t i = 0, lost = 2000; i < 12; i++) {
		struct wire_report r = {.n = 2};

		learn_send(s, 100, 1424, 1000000);
		r.p[0] = (struct wire_report_path){
			.path = 0, .rx_pkts = rx += 50, .delay_us = 2000,
			.lost_pkts = lost += 50};
		r.p[1] = (struct wire_report_path){.path = 1};
		ing_sched_on_report(s, seq++, &r);
	}
	assert_int_equal(s->st.rate_drop_capped, 2);
	assert_int_equal(s->st.rate_learned, 5);
	assert_int_equal(ing_sched_rate(s, 0), 12000);
	free(s);
}

/* A timed report of the fixed path 0 (and the mobile path 1): 200 bulk
 * packets sent before it unless first, n more counted by the peer; queue
 * q us; ours 50 ms after the last one, the peer's peer_step us. */
static void timed_report(struct ing_sched *s, uint32_t *seq, uint32_t *rx,
			 uint64_t *now, uint32_t *peer, bool first, uint32_t n,
			 uint32_t q, uint32_t peer_step)
{
	struct wire_report r = {.n = 2};

	if (!first) {
		learn_send(s, 200, 1424, *now);
		*rx += n;
	}
	r.p[0] = (struct wire_report_path){.path = 0, .rx_pkts = *rx,
					   .delay_us = q};
	r.p[1] = (struct wire_report_path){.path = 1};
	ing_sched_on_report_at(s, (*seq)++, &r, *now += 50000,
			       *peer += peer_step);
}

/* Timed reports (ing_sched_on_report_at): what the peer counted is taken
 * over the peer's clock (the header's stamp: when the latest DATA it
 * counts arrived), what was sent over ours; a peer clock off the reports'
 * count by more than half (stepped, a peer restarted) is not used; a
 * paced line whose queue stands over the target throughout is measured
 * (untimed, test_pace_learn: not).  The measurement is kept for the
 * status and the log. */
static void test_pace_learn_timed(void **state)
{
	struct ing_sched *s = learn_sched();
	const struct ing_rate_meas *m;
	uint32_t rx = 0, seq = 1, peer = 4000000000u; /* wraps */
	uint64_t now = 1000000;

	(void)state;
	assert_null(ing_sched_rate_meas(s, 0));
	/* not paced yet: 2 intervals; the peer's are 60 ms long (its timer
	 * late, or its daemon behind), ours 50; 150 packets of 1500 line
	 * bytes counted in each: 3.75 MB/s = 30 Mbit/s, not the 36 the
	 * reports' count would read */
	for (uint32_t q = 0; q <= 22000; q += q ? 10000 : 2000) {
		timed_report(s, &seq, &rx, &now, &peer, !q, 150, q, 60000);
	}
	assert_int_equal(s->st.rate_learned, 1);
	assert_int_equal(ing_sched_rate(s, 0), 30000);
	m = ing_sched_rate_meas(s, 0);
	assert_non_null(m);
	assert_int_equal(m->rule, ING_RATE_GROWTH);
	assert_string_equal(ing_rate_rule_name(m->rule), "growth");
	assert_int_equal(m->dt_ms, 120);
	assert_int_equal(m->q0_us, 2000);
	assert_int_equal(m->q_us, 22000);
	assert_int_equal(m->n, 1);
	assert_false(m->capped);
	assert_true(m->sent_Bps > 5999999 && m->sent_Bps < 6000001);
	assert_true(m->rx_Bps > 3749999 && m->rx_Bps < 3750001);
	/* paced: 4 intervals, the peer's 200 ms each (more than half off
	 * the reports' count): the reports' count, 150 a report in 200 ms
	 * read as 4.5 MB/s = 36 Mbit/s */
	for (uint32_t q = 0; q <= 42000; q += q ? 10000 : 2000) {
		timed_report(s, &seq, &rx, &now, &peer, !q, 150, q, 200000);
	}
	assert_int_equal(s->st.rate_learned, 2);
	assert_int_equal(ing_sched_rate(s, 0), 36000);
	assert_int_equal(ing_sched_rate_meas(s, 0)->dt_ms, 200);
	assert_int_equal(ing_sched_rate_meas(s, 0)->n, 2);
	/* a queue that stands over the target (9 ms, not growing) in every
	 * report of 4 intervals: the pace is over the line's rate, measured
	 * by what the peer counted (140 a report: 33.6 Mbit/s); one report
	 * under the target (4 ms, still an episode) in the 4: not */
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i <= 4; i++) {
			timed_report(s, &seq, &rx, &now, &peer, i == 0, 140,
				     round == 0 && i == 2 ? 4000 : 9000, 50000);
		}
		assert_int_equal(s->st.rate_learned, 2 + round);
		/* the episode goes on after a report under the target: start
		 * the next one afresh */
		learn_report(s, seq++, rx, 0);
	}
	assert_int_equal(ing_sched_rate(s, 0), 33600);
	assert_int_equal(ing_sched_rate_meas(s, 0)->rule, ING_RATE_STOOD);
	assert_string_equal(ing_rate_rule_name(ING_RATE_STOOD), "stood");
	/* the same standing queue while the peer counted all that was sent
	 * (200 a report): the line kept up with the pace, not measured */
	for (int i = 0; i <= 4; i++) {
		timed_report(s, &seq, &rx, &now, &peer, i == 0, 200, 9000,
			     50000);
	}
	assert_int_equal(s->st.rate_learned, 3);
	assert_int_equal(ing_sched_rate(s, 0), 33600);
	learn_report(s, seq++, rx, 0);
	assert_null(ing_sched_rate_meas(s, 1));
	assert_null(ing_sched_rate_meas(s, 7));
	free(s);
}

/* While the mobile path queues (over four targets) and the pace holds
 * bulk back with the fixed line empty, the pace probes by 1.6 % a report
 * (after t_dwd_ms, as any probe), not from 0.2 %: a rate learned low is
 * found again before the mobile path's buffer overflows for seconds. */
static void test_pace_probe_full(void **state)
{
	struct ing_sched *s = learn_sched();
	uint64_t t = 1000000;
	uint32_t rx = 0, seq = 1, r0;

	(void)state;
	/* learned at 38.4 Mbit/s (as in test_pace_learn), both floors 0 */
	learn_send(s, 200, 1424, t);
	learn_grow(s, &seq, &rx, 200, 1424, 22000);
	assert_int_equal(ing_sched_rate(s, 0), 38400);
	ing_sched_set_up(s, 1, true);
	/* 70 Mbit/s, over the pace: the bulk overflows; the mobile path's
	 * queue 40 ms over its floor, the fixed line's none */
	for (int i = 0; i < 8; i++) {
		t += 50000;
		learn_50ms(s, t, 170);
		r0 = ing_sched_rate(s, 0);
		learn_report_qm(s, seq++, rx += 100, 0, 40000);
		assert_int_equal(s->st.rate_probed_full, i < 5 ? 0 : i - 4);
		if (i >= 5) {
			/* (kbit/s rounded down: one more at most) */
			assert_in_range(ing_sched_rate(s, 0),
					r0 + r0 * ING_PROBE_FULL_PERMILLE / 1000,
					r0 + r0 * ING_PROBE_FULL_PERMILLE / 1000 + 1);
		}
	}
	/* the mobile path under four targets over its floor: the slow
	 * probe again (0.2 % plus an eighth a report in a row) */
	t += 50000;
	learn_50ms(s, t, 170);
	r0 = ing_sched_rate(s, 0);
	learn_report_qm(s, seq++, rx += 100, 0, 15000);
	assert_int_equal(s->st.rate_probed_full, 3);
	assert_int_equal(s->st.rate_probed, 4);
	assert_true(ing_sched_rate(s, 0) > r0);
	assert_true(ing_sched_rate(s, 0) < r0 + r0 * 10 / 1000);
	free(s);
}

/* The scheduler counts the packets of a flow that shared another's bucket
 * (flows_shared): none while each flow of a set has its own, one each for
 * a ninth flow of a busy set. */
static void test_flows_shared(void **state)
{
	struct ing_sched *s = learn_sched();
	struct wire_hdr h;

	(void)state;
	for (uint32_t w = 0; w < ING_FLOW_WAYS; w++) {
		assert_true(ing_sched_pick_flow(s, &h, 77 + w * ING_FLOW_BUCKETS,
						84, 1000000) >= 0);
	}
	assert_int_equal(s->st.flows_shared, 0);
	for (int i = 1; i <= 2; i++) {
		assert_true(ing_sched_pick_flow(s, &h, 77 + 99 * ING_FLOW_BUCKETS,
						84, 1001000) >= 0);
		assert_int_equal(s->st.flows_shared, i);
	}
	free(s);
}

/* Probes that passed the line's rate (ING_PROBE_LAG): a queue over half
 * the target within ING_PROBE_LAG reports of a probe takes back the last
 * ING_PROBE_LAG probes at once, the queue owed; a queue that comes later
 * takes back nothing (it is measured as any episode), and a queue under
 * half the target neither. */
static void test_pace_probe_back(void **state)
{
	(void)state;
	for (unsigned c = 0; c < 3; c++) {
		struct ing_sched *s = learn_sched();
		uint64_t t = 1000000;
		uint32_t rx = 0, seq = 1, before[8], lag = c == 2 ? 4 : 1;

		learn_send(s, 200, 1424, t);
		learn_grow(s, &seq, &rx, 200, 1424, 22000);
		ing_sched_set_up(s, 1, true);
		/* the bulk overflows, the mobile path queues: 5 reports
		 * wait (t_dwd_ms), then 1.6 % a report */
		for (int i = 0; i < 8; i++) {
			t += 50000;
			learn_50ms(s, t, 170);
			before[i] = ing_sched_rate(s, 0);
			learn_report_qm(s, seq++, rx += 100, 0, 40000);
		}
		assert_int_equal(s->st.rate_probed_full, 3);
		/* reports between target / 8 and the queue: no probe */
		for (uint32_t i = 1; i < lag; i++) {
			t += 50000;
			learn_50ms(s, t, 170);
			learn_report_qm(s, seq++, rx += 100, 1000, 40000);
		}
		t += 50000;
		learn_50ms(s, t, 170);
		learn_report_qm(s, seq++, rx += 100, c ? 3000 : 2000, 40000);
		assert_int_equal(s->st.rate_probed_full, 3);
		if (c == 1) {
			/* back to before the three probes (reports 5-7) */
			assert_int_equal(s->st.rate_probe_backs, 1);
			assert_int_equal(ing_sched_rate(s, 0), before[5]);
			assert_true(before[5] < before[7]);
			/* the queue owed: the line's 3 ms at that rate */
			assert_true(s->path[0].owed > 0);
		} else {
			/* 2 ms (under half the target), or 3 ms four
			 * reports after the last probe */
			assert_int_equal(s->st.rate_probe_backs, 0);
			assert_true(ing_sched_rate(s, 0) > before[7]);
		}
		/* 3 ms a report later: taken back if it is within the lag
		 * (c 0: 2 reports after the last probe), once only (c 1:
		 * nothing left to take back) */
		t += 50000;
		learn_50ms(s, t, 170);
		learn_report_qm(s, seq++, rx += 100, 3000, 40000);
		assert_int_equal(s->st.rate_probe_backs, c < 2 ? 1 : 0);
		if (c == 0) {
			assert_int_equal(ing_sched_rate(s, 0), before[5]);
		}
		free(s);
	}
}

/* Reports without a queue, 70 Mbit/s offered, the mobile path full,
 * until the learned pace probes; returns how many came before it. */
static uint32_t until_probe(struct ing_sched *s, uint64_t *t, uint32_t *seq,
			    uint32_t *rx)
{
	uint64_t probed = s->st.rate_probed;
	uint32_t n = 0;

	while (s->st.rate_probed == probed) {
		*t += 50000;
		learn_50ms(s, *t, 170);
		learn_report_qm(s, (*seq)++, *rx += 100, 0, 40000);
		assert_true(++n <= 100);
	}
	return n - 1;
}

/* A load lighter than the pace, in bursts that overflow (limited), does
 * not probe: the bucket filled between them (filled), so nothing says
 * the line could carry more.  The same line loaded past its pace probes
 * after the wait. */
static void test_pace_probe_busy(void **state)
{
	struct ing_sched *s = learn_sched();
	uint32_t rx = 0, seq = 1;
	uint64_t t = 1000000, overflow;

	(void)state;
	learn_send(s, 200, 1424, t);
	learn_grow(s, &seq, &rx, 200, 1424, 22000);
	assert_int_equal(ing_sched_rate(s, 0), 38400);
	ing_sched_set_up(s, 1, true);
	/* 100 packets at once every 50 ms: 24 Mbit/s of line bytes, the
	 * pace's bucket takes some, the rest overflows */
	overflow = s->st.overflow;
	for (int i = 0; i < 40; i++) {
		t += 50000;
		learn_send(s, 100, 1424, t);
		learn_report_qm(s, seq++, rx += 100, 0, 40000);
	}
	assert_true(s->st.overflow > overflow + 40);
	assert_int_equal(s->st.rate_probed, 0);
	assert_int_equal(ing_sched_rate(s, 0), 38400);
	/* 70 Mbit/s: probes after t_dwd_ms (5 reports) */
	assert_int_equal(until_probe(s, &t, &seq, &rx), 5);
	free(s);
}

/* Bulk over the pace in bursts of a few reports, between which the load
 * falls under it (the bucket fills): in the second and third reports of
 * a burst the bucket never filled and bulk overflowed (limited), but over
 * the last ING_PROBE_USE_REPORTS reports the line was sent under
 * ING_PROBE_USE_PERMILLE of the pace's credit: no probe.  The same line
 * loaded past its pace for that long probes (its wait is over). */
static void test_pace_probe_used(void **state)
{
	struct ing_sched *s = learn_sched();
	uint32_t rx = 0, seq = 1;
	uint64_t t = 1000000;

	(void)state;
	learn_send(s, 200, 1424, t);
	learn_grow(s, &seq, &rx, 200, 1424, 22000);
	assert_int_equal(ing_sched_rate(s, 0), 38400);
	ing_sched_set_up(s, 1, true);
	/* the pace: 98 % of 4.8 MB/s; one report at half of it (a packet of
	 * 1500 line bytes every 640 us), then three at 70 Mbit/s */
	for (int i = 0; i <= 40; i++) {
		t += 50000;
		learn_50ms(s, t, i % 4 ? 170 : 640);
		if (i % 4 >= 2) {
			assert_true(s->path[0].limited);
			assert_false(s->path[0].filled);
		}
		learn_report_qm(s, seq++, rx += 100, 0, 40000);
	}
	assert_int_equal(s->st.rate_probed, 0);
	assert_int_equal(ing_sched_rate(s, 0), 38400);
	/* 70 Mbit/s from the report after the last one at half: the
	 * credit used over four reports, then a probe */
	assert_int_equal(until_probe(s, &t, &seq, &rx), 3);
	free(s);
}

/* After a take-back the probes wait t_dwd_ms (5 reports here), twice as
 * long for each take-back in a row, up to ING_PROBE_WAIT_MAX_MS (40
 * reports); a measurement starts again from t_dwd_ms. */
static void test_pace_probe_wait(void **state)
{
	struct ing_sched *s = learn_sched();
	uint32_t want[] = {5, 10, 20, 40, 40}, rx = 0, seq = 1;
	uint64_t t = 1000000;

	(void)state;
	learn_send(s, 200, 1424, t);
	learn_grow(s, &seq, &rx, 200, 1424, 22000);
	ing_sched_set_up(s, 1, true);
	for (unsigned k = 0; k < ARRAY_SIZE(want); k++) {
		assert_int_equal(until_probe(s, &t, &seq, &rx), want[k]);
		/* the line queues 3 ms a report later: taken back */
		t += 50000;
		learn_50ms(s, t, 170);
		learn_report_qm(s, seq++, rx += 100, 3000, 40000);
		assert_int_equal(s->st.rate_probe_backs, k + 1);
	}
	/* measured again (paced: 4 intervals of growth; the mobile path
	 * down, so that the line takes all): t_dwd_ms */
	ing_sched_set_up(s, 1, false);
	learn_grow(s, &seq, &rx, 200, 1424, 52000);
	ing_sched_set_up(s, 1, true);
	assert_int_equal(s->st.rate_learned, 2);
	/* (learn_grow sends at 1 s, long before t: the bucket's first
	 * refill after it fills it, and that interval does not count) */
	t += 50000;
	learn_50ms(s, t, 170);
	assert_true(s->path[0].filled);
	learn_report_qm(s, seq++, rx += 100, 0, 40000);
	assert_int_equal(until_probe(s, &t, &seq, &rx), 5);
	free(s);
}

/* The floor: a fixed path's learned rate counts its queue from the
 * smallest one of the last reports (a receiver whose CPU delays every
 * packet by 4 ms does not make a queue), a floor of at most the target;
 * on a path not paced yet, a queue
 * the weights already move traffic from (w_mobile > 0) is measured by
 * what the peer counted. */
static void test_pace_floor(void **state)
{
	struct ing_sched *s = learn_sched();
	uint32_t rx = 0, seq = 1;

	(void)state;
	learn_send(s, 200, 1424, 1000000);
	learn_report(s, seq++, rx, 4000); /* the floor: 4 ms */
	/* 1 ms over it: no episode (the weights judge the whole 5 ms: at
	 * the target, w_mobile does not grow) */
	for (int i = 0; i < 4; i++) {
		learn_send(s, 200, 1424, 1000000);
		learn_report(s, seq++, rx += 150, 5000);
	}
	assert_int_equal(s->st.rate_learned, 0);
	/* make w_mobile > 0: a report 12 ms over the target, a lost one
	 * before it (no episode over a gap) */
	seq++;
	learn_report(s, seq++, rx += 150, 17000);
	assert_true(s->w_mobile > 0);
	/* 2 ms over it, standing, with w_mobile > 0: two intervals after
	 * the first report, 300 packets of 1500 bytes counted in 100 ms:
	 * 36 Mbit/s */
	learn_send(s, 200, 1424, 1000000);
	learn_report(s, seq++, rx += 150, 6000);
	learn_send(s, 200, 1424, 1000000);
	learn_report(s, seq++, rx += 150, 6000);
	assert_int_equal(s->st.rate_learned, 0);
	learn_send(s, 200, 1424, 1000000);
	learn_report(s, seq++, rx += 150, 6000);
	assert_int_equal(s->st.rate_learned, 1);
	assert_int_equal(ing_sched_rate(s, 0), 36000);
	free(s);
}

/* The clocks and counts of test_pace_train's timed reports. */
struct train_bed {
	uint32_t rx, seq, peer;
	uint64_t t;
};

/* fed packets of 1500 line bytes sent on the fixed path, then a timed
 * report 10 ms later in which the peer counted delivered more of them:
 * the train ing_sched_train_due asks for then (1176 line bytes a
 * packet) */
static unsigned train_after(struct ing_sched *s, struct train_bed *b,
			    int fed, uint32_t delivered)
{
	learn_send(s, fed, 1424, b->t);
	b->t += 10000;
	b->peer += 10000;
	learn_report_at(s, b->seq++, b->rx += delivered, 0, b->t, b->peer);
	return ing_sched_train_due(s, 0, 1176);
}

/* A train (gateway/control.c, send_train) measures a fixed path's rate
 * before its queue can: due on a fixed path that is up and has no learned
 * rate, with rate_auto and a queue target, sized to what the path carries
 * in ING_TRAIN_SPAN_US at the rate it was fed since the last look (none
 * under ING_TRAIN_MIN_PKTS: a slow line would queue it for long); its
 * answer sets the pace (rule train, the last report's queue owed) unless
 * out of bounds or learned meanwhile, and the path's queue is then
 * measured as an unpaced one's until a queue rule confirms it. */
static void test_pace_train(void **state)
{
	struct ing_sched *s = learn_sched();
	struct ing_sched_params p = s->p;
	const struct ing_rate_meas *m;
	struct train_bed b = {.seq = 1, .peer = 500000, .t = 1000000};

	(void)state;
	/* the first report: no time since one before; the reports timed
	 * by the peer's clock */
	assert_int_equal(train_after(s, &b, 0, 0), 0);
	/* 40 packets fed in 10 ms and delivered: 6 MB/s, 204 packets in
	 * 40 ms: the most, 64 */
	assert_int_equal(train_after(s, &b, 40, 40), 64);
	/* 8 in 10 ms, delivered: 40 */
	assert_int_equal(train_after(s, &b, 8, 8), 40);
	/* 40 fed at once into a line that delivered 2 in 10 ms (a burst
	 * into a 2.4 Mbit/s line): twice that is 20, none */
	assert_int_equal(train_after(s, &b, 40, 2), 0);
	/* 5 in 10 ms: 25, under 32: none (a slow or idle line) */
	assert_int_equal(train_after(s, &b, 5, 5), 0);
	/* an untimed report: nothing known delivered, none; the next timed
	 * one has no stamp before it: none yet */
	learn_send(s, 40, 1424, b.t);
	learn_report(s, b.seq++, b.rx += 40, 0);
	assert_int_equal(ing_sched_train_due(s, 0, 1176), 0);
	b.t += 10000;
	assert_int_equal(train_after(s, &b, 40, 40), 0);
	assert_int_equal(train_after(s, &b, 40, 40), 64);
	/* the peer's clock stepped back, a report lost: not known */
	b.peer -= 30000;
	assert_int_equal(train_after(s, &b, 40, 40), 0);
	assert_int_equal(train_after(s, &b, 40, 40), 64);
	b.seq++;
	assert_int_equal(train_after(s, &b, 40, 40), 0);
	assert_int_equal(train_after(s, &b, 40, 40), 64);
	/* a mobile path, no such path */
	assert_int_equal(ing_sched_train_due(s, 1, 1176), 0);
	assert_int_equal(ing_sched_train_due(s, 2, 1176), 0);
	/* refused: out of bounds, not a number, not a fixed path */
	assert_false(ing_sched_train_rate(s, 0, ING_RATE_MIN_BPS - 1, 4000));
	assert_false(ing_sched_train_rate(s, 0, ING_RATE_MAX_BPS * 1.01, 4000));
	assert_false(ing_sched_train_rate(s, 0, NAN, 4000));
	assert_false(ing_sched_train_rate(s, 1, 7.9e6, 4000));
	assert_int_equal(ing_sched_rate(s, 0), 0);
	assert_int_equal(s->st.rate_learned, 0);
	/* the last report saw 4 ms of queue (over a floor of 0) */
	learn_report(s, b.seq++, b.rx, 0);
	learn_report(s, b.seq++, b.rx += 100, 4000);
	/* 34760 bytes in 4400 us: 7.9 MB/s, 63.2 Mbit/s; the 4 ms owed */
	assert_true(ing_sched_train_rate(s, 0, 34760 * 1e6 / 4400, 4400));
	assert_int_equal(ing_sched_rate(s, 0), 63200);
	assert_int_equal(s->st.rate_learned, 1);
	assert_true(s->path[0].owed > 31599 && s->path[0].owed < 31601);
	m = ing_sched_rate_meas(s, 0);
	assert_non_null(m);
	assert_int_equal(m->rule, ING_RATE_TRAIN);
	assert_string_equal(ing_rate_rule_name(m->rule), "train");
	assert_int_equal(m->dt_ms, 4);
	assert_int_equal(m->n, 1);
	/* learned: no more trains, and a late answer changes nothing */
	assert_int_equal(train_after(s, &b, 40, 40), 0);
	assert_false(ing_sched_train_rate(s, 0, 4e6, 4400));
	assert_int_equal(ing_sched_rate(s, 0), 63200);
	/* a train's rate alone: the queue's growth measures in two
	 * intervals, as on a path not paced (200 packets of 1500 bytes a
	 * report, four fifths counted: 38.4 Mbit/s) ... */
	learn_grow(s, &b.seq, &b.rx, 200, 1424, 22000);
	assert_int_equal(s->st.rate_learned, 2);
	assert_int_equal(ing_sched_rate_meas(s, 0)->rule, ING_RATE_GROWTH);
	/* ... and once a queue measured it, in four */
	learn_grow(s, &b.seq, &b.rx, 200, 1424, 22000);
	assert_int_equal(s->st.rate_learned, 2);
	learn_grow(s, &b.seq, &b.rx, 200, 1424, 42000);
	assert_int_equal(s->st.rate_learned, 3);
	/* rate_auto off forgets the rate: no train either */
	p.rate_auto = false;
	assert_int_equal(ing_sched_set_params(s, &p), 0);
	assert_int_equal(ing_sched_rate(s, 0), 0);
	assert_int_equal(train_after(s, &b, 40, 40), 0);
	assert_false(ing_sched_train_rate(s, 0, 7.9e6, 4400));
	/* on again: due again; not while the path is down, nor without a
	 * queue target (the paper's algorithm learns nothing) */
	p.rate_auto = true;
	assert_int_equal(ing_sched_set_params(s, &p), 0);
	assert_int_equal(train_after(s, &b, 40, 40), 64);
	ing_sched_set_up(s, 0, false);
	assert_int_equal(ing_sched_train_due(s, 0, 1176), 0);
	ing_sched_set_up(s, 0, true);
	p.queue_target_us = 0;
	assert_int_equal(ing_sched_set_params(s, &p), 0);
	assert_int_equal(train_after(s, &b, 40, 40), 0);
	assert_false(ing_sched_train_rate(s, 0, 7.9e6, 4400));
	free(s);
}

/* The report of the fixed path 0 with lost packets counted, and the
 * mobile path 1, both with no queue */
static void lossy_report(struct ing_sched *s, uint32_t seq, uint32_t rx,
			 uint32_t lost)
{
	struct wire_report r = {.n = 2};

	r.p[0] = (struct wire_report_path){.path = 0, .rx_pkts = rx,
					   .lost_pkts = lost};
	r.p[1] = (struct wire_report_path){.path = 1};
	ing_sched_on_report(s, seq, &r);
}

/* bulk packets picked at t_us: how many went on the mobile path 1 */
static unsigned on_mobile(struct ing_sched *s, int n, uint64_t t_us)
{
	struct wire_hdr h;
	unsigned m = 0;

	for (int i = 0; i < n; i++) {
		m += ing_sched_pick_flow(s, &h, 9, 1424, t_us) == 1;
	}
	return m;
}

/* The 1424-byte packets (1500 line bytes) a full bucket of 64 Mbit/s
 * holds (10 with a 2-ms bucket) */
static int full64(void)
{
	return (int)(pace_depth_at(64000) / (1424 + WIRE_OVERHEAD));
}

/* learn_sched with the mobile path up and the fixed path 0 paced at 64
 * Mbit/s (8 MB/s), its baseline report taken and the flow's first
 * (sparse) packets sent at *t; then, 100 ms on, a full bucket: full64()
 * packets fit, on the DSL. */
static struct ing_sched *paced_sched(uint32_t *seq, uint64_t *t)
{
	struct ing_sched *s = learn_sched();

	ing_sched_set_up(s, 1, true);
	ing_sched_set_rate(s, 0, 64000);
	lossy_report(s, (*seq)++, 0, 0);
	on_mobile(s, 20, *t);
	assert_int_equal(on_mobile(s, full64(), *t += 100000), 0);
	return s;
}

/* A paced fixed path that loses 1 % or more of what it carries without a
 * queue is broken, not at its rate: its pace yields to the weights (which
 * the loss raised) until t_dwd_ms pass without such loss; then the pace
 * takes it again.  Under 1 % (line errors the repair covers) it stays
 * paced; the ratio is judged over a window of reports (ING_LOSSY_*). */
static void test_pace_lossy(void **state)
{
	uint32_t rx = 0, lost = 0, seq = 1;
	uint64_t t = 1000000;
	struct ing_sched *s = paced_sched(&seq, &t);

	(void)state;
	/* 0.5 % lost: line errors, still paced */
	lossy_report(s, seq++, rx += 995, lost += 5);
	assert_int_equal(s->path[0].lossy_left, 0);
	assert_int_equal(on_mobile(s, full64(), t += 100000), 0);
	/* 3 lost of 250 in one report (1.2 %) amid 1 in 250 (0.4 %): judged
	 * over the window (it closes with its tenth loss, at 2000 packets:
	 * 0.55 %), not one report's count: still paced */
	for (int i = 0; i < 8; i++) {
		lossy_report(s, seq++, rx += i == 3 ? 247 : 249,
			     lost += i == 3 ? 3 : 1);
		assert_int_equal(s->path[0].lossy_left, 0);
	}
	assert_int_equal(s->st.rate_lossy, 0);
	/* 50 % lost without a queue: the weights split, the loss raised
	 * w_mobile (45 against 50), whatever the bucket holds */
	lossy_report(s, seq++, rx += 100, lost += 100);
	assert_true(s->path[0].lossy_left > 0);
	assert_int_equal(s->st.rate_lossy, 1);
	assert_true(s->w_mobile > 0);
	assert_true(on_mobile(s, 20, t += 100000) >= 5);
	/* t_dwd_ms (5 reports) without such loss: paced again */
	for (int i = 0; i < 5; i++) {
		lossy_report(s, seq++, rx += 100, lost);
		assert_true(s->path[0].lossy_left > 0);
	}
	lossy_report(s, seq++, rx += 100, lost);
	assert_int_equal(s->path[0].lossy_left, 0);
	assert_int_equal(on_mobile(s, full64(), t += 100000), 0);
	free(s);
}

/* The loss of a cut (the path suspect, then back: forgive) is neither the
 * line's errors nor its rate: a paced DSL back from a cut keeps its pace,
 * its excess on the mobile path, where the cut's gap would have closed
 * the lossy window and put every bulk packet on it unpaced (the weights,
 * which the cut did not move, give the mobile path nothing). */
static void test_pace_cut_forgiven(void **state)
{
	uint32_t rx = 0, lost = 0, seq = 1;
	uint64_t t = 1000000;
	struct ing_sched *s = paced_sched(&seq, &t);

	(void)state;
	/* cut and back: 200 of what it carried lost at the cut, 50 since */
	ing_sched_set_suspect(s, 0, true);
	ing_sched_set_suspect(s, 0, false);
	lossy_report(s, seq++, rx += 50, lost += 200);
	assert_int_equal(s->st.forgiven, 200);
	assert_int_equal(s->st.rate_lossy, 0);
	assert_int_equal(s->path[0].lossy_left, 0);
	/* still paced: a full bucket's worth on the DSL, the rest on the
	 * LTE */
	assert_int_equal(on_mobile(s, full64(), t += 100000), 0);
	assert_true(on_mobile(s, 40, t) > 0);
	free(s);
}

/* What overflows a paced fixed path goes to the mobile paths up in turn,
 * whatever they carried before: a second LTE back after a long time down
 * takes its half at once, not all of it until its count catches up. */
static void test_pace_overflow_turns(void **state)
{
	enum path_class cls[3] = {PATH_FIXED, PATH_MOBILE, PATH_MOBILE};
	struct ing_sched_params p = params();
	struct ing_sched *s = calloc(1, sizeof(*s));
	unsigned on[3] = {0, 0, 0};
	uint64_t t = 1000000;
	struct wire_hdr h;

	(void)state;
	assert_non_null(s);
	p.queue_target_us = 5000;
	assert_int_equal(ing_sched_init(s, &p, 3, cls), 0);
	ing_sched_set_rate(s, 0, 64000); /* 8 MB/s */
	ing_sched_set_up(s, 2, false);
	for (int i = 0; i < 1000; i++) {
		on[ing_sched_pick_flow(s, &h, 9, 1424, t)]++;
	}
	assert_int_equal(on[2], 0);
	assert_true(on[1] > 900);
	ing_sched_set_up(s, 2, true);
	on[0] = on[1] = on[2] = 0;
	for (int i = 0; i < 100; i++) {
		on[ing_sched_pick_flow(s, &h, 9, 1424, t)]++;
	}
	assert_int_equal(on[0], 0); /* the bucket is empty at t */
	assert_int_equal(on[1], 50);
	assert_int_equal(on[2], 50);
	/* a rate set while the fixed path is a backup (a reload while its
	 * budget is spent) holds when it is back */
	ing_sched_set_backup(s, 0, true);
	ing_sched_set_rate(s, 0, 32000);
	ing_sched_set_backup(s, 0, false);
	assert_int_equal(ing_sched_rate(s, 0), 32000);
	/* copies (a redundant class over the pace) take the bucket a bucket
	 * deep into debt at most (and a packet) */
	for (int i = 0; i < 10000; i++) {
		assert_int_equal(ing_sched_pick_copy(s, &h, 0, 1424), 0);
	}
	assert_true(s->path[0].tokens >= -(double)pace_depth_at(32000) - 1500);
	free(s);
}

/* bulk packets of flow 9 picked at t_us until one is dropped (-ENOBUFS),
 * at most n: how many went before it (n: none dropped).  Each that went
 * took the next gseq: a drop consumes none.  (Of a paced fixed path 0 and
 * a mobile path 1.) */
static int until_drop(struct ing_sched *s, int n, uint64_t t_us)
{
	struct wire_hdr h;
	int i, r;

	for (i = 0; i < n; i++) {
		uint32_t g = s->gseq;

		r = ing_sched_pick_flow(s, &h, 9, 1424, t_us);
		if (r == -ENOBUFS) {
			assert_int_equal(s->gseq, g);
			return i;
		}
		/* the pace's (a bucket refilled since), else overflow */
		assert_in_range(r, 0, 1);
		assert_int_equal(h.gseq, g);
	}
	return n;
}

/* The overflow's AQM (mobile_aqm_ms, sched.c, aqm_drop): from the report
 * that shows the mobile path's standing queue over the target (20 ms
 * here), the bulk that overflows to it is dropped on CoDel's law: one at
 * once, then one every ING_AQM_INTERVAL_US / sqrt(count); none once a
 * report shows the queue under again, none of a sparse flow, none with
 * mobile_aqm_ms 0, none of a copy sent again; count starts from the
 * drops the last dropping state added when the queue comes back soon;
 * and after a pause of the overflow no burst of drops catches up. */
static void test_pace_aqm(void **state)
{
	struct ing_sched_params p = params();
	uint32_t seq = 1;
	uint64_t t = 1000000, next;
	struct ing_sched *s = paced_sched(&seq, &t);
	struct wire_hdr h;

	(void)state;
	p.queue_target_us = 5000;
	p.rate_auto = true;
	p.mobile_aqm_us = 20000;
	assert_int_equal(ing_sched_set_params(s, &p), 0);
	/* under the target: nothing dropped */
	for (int i = 0; i < 4; i++) {
		learn_report_qm(s, seq++, 0, 0, 15000);
	}
	assert_int_equal(until_drop(s, 100, t += 1000), 100);
	/* 40 ms: one drop at once, then the rest go */
	learn_report_qm(s, seq++, 0, 0, 40000);
	t += 1000;
	/* (what the bucket took since goes first) */
	assert_in_range(until_drop(s, 100, t), 0, full64());
	assert_int_equal(until_drop(s, 100, t), 100);
	assert_int_equal(s->st.aqm_drops, 1);
	/* a sparse flow's packet is never dropped: the lowest-delay path */
	ing_sched_set_delay(s, 0, 10000);
	ing_sched_set_delay(s, 1, 30000);
	assert_int_equal(ing_sched_pick_flow(s, &h, 77, 100, t + 200000), 0);
	/* the law: the next drops an interval / sqrt(count) apart */
	next = t + ING_AQM_INTERVAL_US;
	for (uint32_t count = 2; count <= 5; count++) {
		assert_int_equal(until_drop(s, 50, next - 1), 50);
		assert_int_equal(until_drop(s, 50, next), 0);
		next += (uint64_t)(ING_AQM_INTERVAL_US / sqrt((double)count));
	}
	assert_int_equal(s->st.aqm_drops, 5);
	/* under its target again: no drop, whenever */
	learn_report_qm(s, seq++, 0, 0, 15000);
	assert_int_equal(until_drop(s, 100, next + 1000000), 100);
	/* over again within 16 intervals: dropping at once with count
	 * 5 - 1 = 4, so the next drop comes interval / 2 after */
	learn_report_qm(s, seq++, 0, 0, 40000);
	t = next + 1000000;
	assert_int_equal(until_drop(s, 10, t), 0);
	assert_int_equal(until_drop(s, 10, t + ING_AQM_INTERVAL_US / 2 - 1), 10);
	assert_int_equal(until_drop(s, 10, t + ING_AQM_INTERVAL_US / 2), 0);
	assert_int_equal(s->st.aqm_drops, 7);
	/* 0: the overflow goes, over the target or not */
	p.mobile_aqm_us = 0;
	assert_int_equal(ing_sched_set_params(s, &p), 0);
	assert_int_equal(until_drop(s, 100, t + 10 * ING_AQM_INTERVAL_US), 100);
	/* a copy sent again is never dropped either */
	p.mobile_aqm_us = 20000;
	assert_int_equal(ing_sched_set_params(s, &p), 0);
	for (int i = 0; i < 100; i++) {
		assert_true(ing_sched_pick_resend(s, &h, 1424,
						  t + 20 * ING_AQM_INTERVAL_US) >= 0);
	}
	assert_int_equal(s->st.aqm_drops, 7);
	assert_int_equal(until_drop(s, 100, t + 20 * ING_AQM_INTERVAL_US), 0);
	/* under, then over again before the next drop was due (count 6,
	 * 4 at the last start): dropping again at once with count 2, the
	 * next drop interval / sqrt(2) later (the time compared signed) */
	learn_report_qm(s, seq++, 0, 0, 15000);
	learn_report_qm(s, seq++, 0, 0, 40000);
	t += 20 * ING_AQM_INTERVAL_US + 1;
	next = t + (uint64_t)(ING_AQM_INTERVAL_US / sqrt(2.0));
	assert_int_equal(until_drop(s, 10, t), 0);
	assert_int_equal(until_drop(s, 10, next - 1), 10);
	assert_int_equal(until_drop(s, 10, next), 0);
	assert_int_equal(s->st.aqm_drops, 10);
	/* the overflow paused for 2 s, the queue still over: one drop, then
	 * the next interval / sqrt(count) on, not a burst catching up */
	t = next + 2000000;
	assert_in_range(until_drop(s, 100, t), 0, full64()); /* (the bucket) */
	assert_int_equal(until_drop(s, 100, t), 100);
	assert_int_equal(s->st.aqm_drops, 11);
	free(s);
}

/* Two mobile paths: the overflow passes over the one whose queue is
 * over mobile_aqm_ms for the other, and is dropped only when both are
 * (by each path's law, in turn); with the AQM off, in turn whatever. */
static void test_pace_aqm_two_mobile(void **state)
{
	enum path_class cls[3] = {PATH_FIXED, PATH_MOBILE, PATH_MOBILE};
	struct ing_sched_params p = params();
	struct ing_sched *s = calloc(1, sizeof(*s));
	unsigned on[3] = {0, 0, 0}, dropped = 0;
	uint64_t t = 1000000;
	struct wire_hdr h;
	int r;

	(void)state;
	assert_non_null(s);
	p.queue_target_us = 5000;
	p.mobile_aqm_us = 20000;
	assert_int_equal(ing_sched_init(s, &p, 3, cls), 0);
	ing_sched_set_rate(s, 0, 64000);
	/* (the peer's reports set it: class_qdelay) */
	s->path[1].aqm_over = true;
	for (int i = 0; i < 1000; i++) {
		on[ing_sched_pick_flow(s, &h, 9, 1424, t)]++;
	}
	assert_int_equal(on[1], 0);
	assert_true(on[2] > 900);
	assert_int_equal(s->st.aqm_drops, 0);
	/* both over: each path's law on its own, one drop at once from
	 * each; the rest in turn until a next drop is due */
	s->path[2].aqm_over = true;
	on[0] = on[1] = on[2] = 0;
	for (int i = 0; i < 100; i++) {
		r = ing_sched_pick_flow(s, &h, 9, 1424, t);
		if (r == -ENOBUFS) {
			dropped++;
		} else {
			assert_in_range(r, 0, 2);
			on[r]++;
		}
	}
	assert_int_equal(dropped, 2);
	assert_int_equal(s->st.aqm_drops, 2);
	assert_int_equal(on[0], 0);
	assert_int_equal(on[1], 49);
	assert_int_equal(on[2], 49);
	assert_int_equal(s->path[1].aqm_count, 1);
	assert_int_equal(s->path[2].aqm_count, 1);
	/* the AQM off: in turn, over or not */
	p.mobile_aqm_us = 0;
	assert_int_equal(ing_sched_set_params(s, &p), 0);
	s->path[2].aqm_over = false;
	on[0] = on[1] = on[2] = 0;
	for (int i = 0; i < 100; i++) {
		on[ing_sched_pick_flow(s, &h, 9, 1424, t)]++;
	}
	assert_int_equal(on[1], 50);
	assert_int_equal(on[2], 50);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash),
		cmocka_unit_test(test_hash6),
		cmocka_unit_test(test_sparse),
		cmocka_unit_test(test_fgap),
		cmocka_unit_test(test_flow_ways),
		cmocka_unit_test(test_pick_flow),
		cmocka_unit_test(test_pick_sticky),
		cmocka_unit_test(test_pace),
		cmocka_unit_test(test_pace_learn),
		cmocka_unit_test(test_pace_learn_peer_count),
		cmocka_unit_test(test_pace_learn_timed),
		cmocka_unit_test(test_pace_probe_full),
		cmocka_unit_test(test_flows_shared),
		cmocka_unit_test(test_pace_probe_back),
		cmocka_unit_test(test_pace_probe_wait),
		cmocka_unit_test(test_pace_probe_busy),
		cmocka_unit_test(test_pace_probe_used),
		cmocka_unit_test(test_pace_floor),
		cmocka_unit_test(test_pace_train),
		cmocka_unit_test(test_pace_lossy),
		cmocka_unit_test(test_pace_cut_forgiven),
		cmocka_unit_test(test_pace_overflow_turns),
		cmocka_unit_test(test_pace_aqm),
		cmocka_unit_test(test_pace_aqm_two_mobile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
