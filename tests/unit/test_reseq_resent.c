/* Unit tests of the resequencer with copies sent again after their path
 * failed (WIRE_F_RESENT, issue 14), written from reseq.h's rules:
 * - a RESENT copy that fills a hole is released as the original would be
 *   (at the head with what follows, or for its flow ahead of the head);
 * - a copy of a packet that is here already (released, buffered, or
 *   released for its flow) is dropped and counted resent_dup, whichever
 *   copy came first, never as a plain dup;
 * - a RESENT copy behind the head whose hole was given up is resent_late,
 *   not late;
 * - packets without the flag are counted as before (dup, late);
 * - with egr_reseq_set_resend_wait, a hole waits for its copy while a path
 *   that may have carried it has fallen silent, and only then.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/wire.h"
#include "egress/reseq.h"

enum { CAP = 64 };

struct log {
	unsigned n;
	uint32_t g[256];
};

static void on_release(void *ctx, uint64_t cookie, uint32_t g)
{
	struct log *l = ctx;

	assert_int_equal(cookie, (uint64_t)g + 1000);
	assert_true(l->n < 256);
	l->g[l->n++] = g;
}

static void setup(struct egr_reseq *r, struct log *l)
{
	struct egr_reseq_params p = {
		.t_lto_us = 50000, .early_release = false, .capacity = CAP};

	memset(l, 0, sizeof(*l));
	assert_int_equal(egr_reseq_init(r, &p, 2, on_release, l), 0);
}

static enum egr_verdict push(struct egr_reseq *r, uint32_t g, unsigned path,
			     uint16_t fgap, uint8_t flags, uint64_t t)
{
	return egr_reseq_push_flow(r, g, path, 0, 0, fgap, flags, t,
				   (uint64_t)g + 1000);
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

/* The cut path (0) lost 1 and 2; their copies come on path 1 and fill the
 * holes: 1, 2 and the buffered 3, 4 go in order. */
static void test_fills_hole(void **state)
{
	struct egr_reseq r;
	struct log l;

	(void)state;
	setup(&r, &l);
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
	setup(&r, &l);
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

/* A flow's packet lost at the cut: its copy keeps fgap and goes for its
 * flow, ahead of the global head, releasing the flow's next packet that
 * waited for it; a copy of a packet released for its flow is a
 * resent_dup. */
static void test_flow_copy(void **state)
{
	struct egr_reseq r;
	struct log l;

	(void)state;
	setup(&r, &l);
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

/* The copy comes after its hole was given up: too late to help,
 * resent_late, not late. */
static void test_copy_too_late(void **state)
{
	struct egr_reseq r;
	struct log l;

	(void)state;
	setup(&r, &l);
	assert_int_equal(push(&r, 0, 0, 0, 0, 0), EGR_RELEASED);
	assert_int_equal(push(&r, 2, 1, 0, 0, 1000), EGR_BUFFERED);
	egr_reseq_poll(&r, 1000 + 50000);
	WANT(&l, 0, 2);
	assert_int_equal(r.st.hole_timeout, 1);
	assert_int_equal(push(&r, 1, 1, 0, WIRE_F_RESENT, 60000),
			 EGR_DROP_LATE);
	assert_int_equal(r.st.resent_late, 1);
	assert_int_equal(r.st.late, 0);
	/* without the flag: late, as before */
	assert_int_equal(push(&r, 1, 0, 0, 0, 60001), EGR_DROP_LATE);
	assert_int_equal(r.st.late, 1);
	assert_int_equal(r.st.resent_late, 1);
	egr_reseq_free(&r);
}

/* A slot reused for a later sequence number forgets that its earlier one
 * was a copy. */
static void test_slot_reuse(void **state)
{
	struct egr_reseq r;
	struct log l;

	(void)state;
	setup(&r, &l);
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
	setup(&r, &l);
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
	setup(&r, &l);
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

/* What extends nothing: a path idle for longer than the wait, a path that
 * delivered after the packet beyond the hole, a path down, the wait off. */
static void test_wait_not(void **state)
{
	struct egr_reseq r;
	struct log l;
	uint64_t when;

	(void)state;
	/* idle: path 0's last delivery at 0, the hole's wait starts at
	 * 500 ms */
	setup(&r, &l);
	egr_reseq_set_resend_wait(&r, 200000);
	assert_int_equal(push(&r, 0, 0, 0, 0, 0), EGR_RELEASED);
	assert_int_equal(push(&r, 2, 1, 0, 0, 500000), EGR_BUFFERED);
	assert_true(egr_reseq_deadline(&r, &when));
	assert_int_equal(when, 500000 + 50000);
	egr_reseq_free(&r);
	/* path 0 delivers after the packet beyond the hole */
	setup(&r, &l);
	egr_reseq_set_resend_wait(&r, 200000);
	assert_int_equal(push(&r, 0, 0, 0, 0, 0), EGR_RELEASED);
	assert_int_equal(push(&r, 2, 1, 0, 0, 10000), EGR_BUFFERED);
	assert_int_equal(push(&r, 5, 0, 0, 0, 12000), EGR_BUFFERED);
	assert_true(egr_reseq_deadline(&r, &when));
	assert_int_equal(when, 10000 + 50000);
	egr_reseq_free(&r);
	/* path 0 down */
	setup(&r, &l);
	egr_reseq_set_resend_wait(&r, 200000);
	assert_int_equal(push(&r, 0, 0, 0, 0, 0), EGR_RELEASED);
	assert_int_equal(push(&r, 2, 1, 0, 0, 10000), EGR_BUFFERED);
	r.path_up[0] = false; /* as egr_reseq_set_path_up, without its drain */
	assert_true(egr_reseq_deadline(&r, &when));
	assert_int_equal(when, 10000 + 50000);
	egr_reseq_free(&r);
	/* off */
	setup(&r, &l);
	assert_int_equal(push(&r, 0, 0, 0, 0, 0), EGR_RELEASED);
	assert_int_equal(push(&r, 2, 1, 0, 0, 10000), EGR_BUFFERED);
	assert_true(egr_reseq_deadline(&r, &when));
	assert_int_equal(when, 10000 + 50000);
	egr_reseq_poll(&r, 60000);
	WANT(&l, 0, 2);
	assert_int_equal(r.st.resend_waits, 0);
	egr_reseq_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fills_hole),
		cmocka_unit_test(test_copy_after_original),
		cmocka_unit_test(test_flow_copy),
		cmocka_unit_test(test_copy_too_late),
		cmocka_unit_test(test_slot_reuse),
		cmocka_unit_test(test_wait_for_copy),
		cmocka_unit_test(test_wait_gives_up),
		cmocka_unit_test(test_wait_not),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
