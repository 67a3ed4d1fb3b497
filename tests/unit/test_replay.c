/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests for the replay window (common/replay.c).
 *
 * - a numbered vector table in the manner of WireGuard's counter selftest:
 *   in order, reordered within the window, duplicates, exactly at the edge
 *   of the window and one past it, word boundaries, jumps of one ring turn,
 *   huge jumps (2^63), pn 0 and numbers up to 2^64 - 1;
 *   each row is checked with replay_check() first (which must not change
 *   the window) and then with replay_update();
 * - a randomized differential test against a naive model (a hash set of
 *   every accepted number plus top), several 100k operations per seed,
 *   mixing steps, reorders, duplicates, jumps around one ring turn and
 *   huge jumps, one run ending next to 2^64.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/replay.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum { W = REPLAY_WINDOW };

#define TOP63 ((uint64_t)1 << 63)

struct vec {
	uint64_t pn;
	int want;
};

static void run_table(const struct vec *v, size_t n, const char *name)
{
	struct replay_win w, before;
	size_t i;
	int got;

	replay_init(&w);
	for (i = 0; i < n; i++) {
		before = w;
		got = replay_check(&w, v[i].pn);
		if (got != v[i].want) {
			fail_msg("%s row %zu: check(%" PRIu64 ") = %d, want %d",
				 name, i + 1, v[i].pn, got, v[i].want);
		}
		assert_memory_equal(&before, &w, sizeof(w));
		got = replay_update(&w, v[i].pn);
		if (got != v[i].want) {
			fail_msg("%s row %zu: update(%" PRIu64
				 ") = %d, want %d",
				 name, i + 1, v[i].pn, got, v[i].want);
		}
		if (got != 0) {
			/* a refused number changes nothing */
			assert_memory_equal(&before, &w, sizeof(w));
		}
	}
}

static void test_vectors_small(void **state)
{
	static const struct vec v[] = {
		{0, 0},			      /* 1: first packet, pn 0 */
		{0, -EALREADY},		      /* 2 */
		{1, 0},			      /* 3: in order */
		{1, -EALREADY},		      /* 4 */
		{9, 0},			      /* 5: gap */
		{8, 0},			      /* 6: reordered */
		{7, 0},			      /* 7 */
		{7, -EALREADY},		      /* 8 */
		{2, 0},			      /* 9 */
		{W + 9, 0},		      /* 10: top = W + 9 */
		{10, 0},		      /* 11: top - pn = W - 1: inside */
		{9, -ERANGE},		      /* 12: top - pn = W: outside */
		{10, -EALREADY},	      /* 13 */
		{11, 0},		      /* 14 */
		{W + 10, 0},		      /* 15: window moves by one */
		{10, -ERANGE},		      /* 16: now outside */
		{11, -EALREADY},	      /* 17: still inside, seen */
		{12, 0},		      /* 18 */
		{W + 9, -EALREADY},	      /* 19 */
		{W + 8, 0},		      /* 20 */
		{64 * 200, 0},		      /* 21: word aligned top */
		{64 * 200 - W + 1, 0},	      /* 22: lowest in window */
		{64 * 200 - W, -ERANGE},      /* 23 */
		{64 * 200 - 1, 0},	      /* 24 */
		{64 * 200 + 63, 0},	      /* 25: top at the end of a word */
		{64 * 200 + 63 - W + 1, 0},   /* 26 */
		{64 * 200 + 63 - W, -ERANGE}, /* 27 */
		{64 * 200 - 1, -EALREADY},    /* 28: survived the advance */
		{64 * 200 + 63 - W + 1, -EALREADY}, /* 29 */
	};

	(void)state;
	run_table(v, ARRAY_SIZE(v), "small");
}

/* Jumps of about one turn of the ring: the words that come back must be
 * cleared, the ones kept must keep their bits. */
static void test_vectors_ring_turn(void **state)
{
	enum { R = REPLAY_WORDS * 64 };
	static const struct vec v[] = {
		{1000, 0},		/* 1 */
		{999, 0},		/* 2 */
		{1000 + R, 0},		/* 3: exactly one ring turn */
		{1000, -ERANGE},	/* 4 */
		{1000 + R - 1, 0},	/* 5: same slot as 999: cleared */
		{1000 + R - W + 1, 0},	/* 6 */
		{1000 + 2 * R + 64, 0}, /* 7: more than a turn */
		{1000 + 2 * R + 64 - W + 1, 0},	 /* 8 */
		{1000 + 2 * R + 63, 0},		 /* 9 */
		{1000 + 2 * R + 63, -EALREADY},	 /* 10 */
		{1000 + 2 * R + 64 + W - 64, 0}, /* 11: W-64 ahead */
		{1000 + 2 * R + 63, -EALREADY},	 /* 12: top - pn = W - 63 */
		{1000 + 2 * R + 64 + W - 1, 0},	 /* 13 */
		{1000 + 2 * R + 63, -ERANGE},	 /* 14: top - pn = W */
		{1000 + 2 * R + 64, -EALREADY},	 /* 15: top - pn = W - 1:
						  * its word was kept */
	};

	(void)state;
	run_table(v, ARRAY_SIZE(v), "ring turn");
}

static void test_vectors_huge(void **state)
{
	static const struct vec v[] = {
		{5, 0},			     /* 1 */
		{TOP63, 0},		     /* 2: jump by 2^63 */
		{5, -ERANGE},		     /* 3 */
		{TOP63 - W + 1, 0},	     /* 4 */
		{TOP63 - W, -ERANGE},	     /* 5 */
		{TOP63, -EALREADY},	     /* 6 */
		{TOP63 - 1, 0},		     /* 7 */
		{UINT64_MAX - W, 0},	     /* 8: jump near the end */
		{UINT64_MAX, 0},	     /* 9: last number */
		{UINT64_MAX, -EALREADY},     /* 10 */
		{UINT64_MAX - 1, 0},	     /* 11 */
		{UINT64_MAX - W + 1, 0},     /* 12 */
		{UINT64_MAX - W, -ERANGE},   /* 13 */
		{0, -ERANGE},		     /* 14 */
		{UINT64_MAX - 1, -EALREADY}, /* 15 */
	};
	static const struct vec first_high[] = {
		{UINT64_MAX, 0},     /* 1: first packet at the very end */
		{UINT64_MAX - 5, 0}, /* 2 */
		{UINT64_MAX - 5, -EALREADY}, /* 3 */
		{0, -ERANGE},		     /* 4 */
	};

	(void)state;
	run_table(v, ARRAY_SIZE(v), "huge");
	run_table(first_high, ARRAY_SIZE(first_high), "first high");
}

/* Every number in the window, in descending order after the top: all
 * fresh once, all duplicates the second time, then all out when the top
 * moves on by a full window. */
static void test_full_window(void **state)
{
	struct replay_win w;
	uint64_t base = 12345, i;

	(void)state;
	replay_init(&w);
	assert_int_equal(replay_update(&w, base + W - 1), 0);
	for (i = W - 1; i-- > 0;) {
		assert_int_equal(replay_update(&w, base + i), 0);
	}
	for (i = 0; i < W; i++) {
		assert_int_equal(replay_check(&w, base + i), -EALREADY);
	}
	assert_int_equal(replay_check(&w, base - 1), -ERANGE);
	assert_int_equal(replay_update(&w, base + 2 * W - 1), 0);
	for (i = 0; i < W; i++) {
		assert_int_equal(replay_check(&w, base + i), -ERANGE);
	}
	for (i = W; i < 2 * W - 1; i++) {
		assert_int_equal(replay_check(&w, base + i), 0);
	}
}

/* ---- differential test against a naive model */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

struct model {
	bool started;
	uint64_t top;
	uint64_t *set; /* open addressing; 0 stored as its own flag */
	bool has_zero;
	size_t cap, n;
};

static size_t hash(uint64_t x, size_t cap)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x & (cap - 1);
}

static bool model_seen(const struct model *m, uint64_t pn)
{
	size_t i;

	if (pn == 0) {
		return m->has_zero;
	}
	for (i = hash(pn, m->cap); m->set[i] != 0; i = (i + 1) & (m->cap - 1)) {
		if (m->set[i] == pn) {
			return true;
		}
	}
	return false;
}

static void model_add(struct model *m, uint64_t pn)
{
	size_t i;

	if (pn == 0) {
		m->has_zero = true;
		return;
	}
	assert_true(m->n < m->cap / 2);
	for (i = hash(pn, m->cap); m->set[i] != 0; i = (i + 1) & (m->cap - 1)) {
	}
	m->set[i] = pn;
	m->n++;
}

static int model_check(const struct model *m, uint64_t pn)
{
	if (!m->started || pn > m->top) {
		return 0;
	}
	if (m->top - pn >= W) {
		return -ERANGE;
	}
	return model_seen(m, pn) ? -EALREADY : 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_sub(uint64_t a, uint64_t b)
{
	return a < b ? 0 : a - b;
}

static void differential(uint64_t seed, uint64_t start, size_t ops)
{
	struct replay_win w, before;
	struct model m = {0};
	size_t i, fresh = 0, dup = 0, old = 0;
	uint64_t pn, r, recent[64];
	int want, got;

	rng_state = seed;
	for (i = 0; i < ARRAY_SIZE(recent); i++) {
		recent[i] = start;
	}
	m.cap = (size_t)1 << 21;
	m.set = calloc(m.cap, sizeof(*m.set));
	assert_non_null(m.set);
	replay_init(&w);
	for (i = 0; i < ops; i++) {
		r = rnd();
		if (!m.started) {
			pn = start;
		} else {
			switch (r % 100) {
			case 0 ... 49: /* the next few */
				pn = sat_add(m.top, 1 + (r >> 32) % 3);
				break;
			case 50 ... 69: /* reordered, duplicate, too old */
				pn = sat_sub(m.top, (r >> 32) % (W + 64));
				break;
			case 70 ... 79: /* a replay of a recent one */
				pn = recent[(r >> 32) % ARRAY_SIZE(recent)];
				break;
			case 80 ... 89: /* right at the edge */
				pn = sat_sub(m.top, W - 2 + (r >> 32) % 4);
				break;
			case 90 ... 92: /* about one ring turn ahead */
				pn = sat_add(m.top,
					     (REPLAY_WORDS - 3) * 64 +
						     (r >> 32) % (6 * 64));
				break;
			case 93: /* a huge jump */
				pn = sat_add(m.top,
					     (r >> 20) % ((uint64_t)1 << 40));
				break;
			case 94 ... 95: /* anything below top, or anything */
				pn = rnd();
				if ((r >> 40) & 1) {
					pn %= m.top + (m.top < UINT64_MAX);
				}
				break;
			default: /* in order */
				pn = sat_add(m.top, 1);
				break;
			}
		}
		want = model_check(&m, pn);
		before = w;
		got = replay_check(&w, pn);
		if (got != want) {
			fail_msg("seed %" PRIu64 " op %zu: check(%" PRIu64
				 ") = %d, model %d (top %" PRIu64 ")",
				 seed, i, pn, got, want, m.top);
		}
		assert_memory_equal(&before, &w, sizeof(w));
		if (r & (1ULL << 63)) {
			continue; /* check only */
		}
		got = replay_update(&w, pn);
		if (got != want) {
			fail_msg("seed %" PRIu64 " op %zu: update(%" PRIu64
				 ") = %d, model %d",
				 seed, i, pn, got, want);
		}
		if (want == 0) {
			model_add(&m, pn);
			recent[fresh % ARRAY_SIZE(recent)] = pn;
			if (!m.started || pn > m.top) {
				m.top = pn;
			}
			m.started = true;
			fresh++;
		} else if (want == -EALREADY) {
			dup++;
		} else {
			old++;
		}
		assert_int_equal(w.top, m.top);
	}
	printf("# seed %" PRIu64 ": %zu ops, %zu fresh, %zu duplicate, "
	       "%zu too old, final top %" PRIu64 "\n",
	       seed, ops, fresh, dup, old, m.top);
	/* the mix must actually have exercised every outcome */
	assert_true(fresh > ops / 100);
	assert_true(dup > ops / 100);
	assert_true(old > ops / 100);
	free(m.set);
}

static void test_differential(void **state)
{
	(void)state;
	differential(0x9e3779b97f4a7c15ULL, 0, 400000);
	differential(12345, 77, 300000);
	/* starts 2^41 below the end: the huge jumps reach 2^64 - 1 and
	 * saturate there, so the end of the space is hit many times */
	differential(987654321, UINT64_MAX - ((uint64_t)1 << 41), 300000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors_small),
		cmocka_unit_test(test_vectors_ring_turn),
		cmocka_unit_test(test_vectors_huge),
		cmocka_unit_test(test_full_window),
		cmocka_unit_test(test_differential),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
