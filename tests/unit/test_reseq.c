/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests of the egress resequencer (egress/reseq.c).
 *
 * Written from egress/reseq.h and the contract in DESIGN.md (Resequencer), not
 * from the implementation, so that they check it independently:
 * - numbered vector tables: a row is a sequence of events (push, poll, path
 *   up/down, flush, reset, checks) with the expected verdicts, the released
 *   gseq list and the final stats;
 * - a randomized differential test against a naive reference (unsorted
 *   arrays and a log of slot writes, O(n) per operation, no ring), with the
 *   rules of the section "CHANGES after review" (the burst rule, stale path
 *   tops); the generator aims the missing count at the burst rule and
 *   reports how often it fired and how often stale tops were met;
 * - init and set_params validation.
 *
 * Cookies differ from gseq (gseq * 10 + 7) so that a mix-up shows; a push
 * that must be dropped carries another cookie, which must never come back.
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

#include "common/seq.h"
#include "egress/reseq.h"

#define COOKIE(g) ((uint64_t)(uint32_t)(g) * 10 + 7)
#define DROP_COOKIE(g) (COOKIE(g) + 1)

/* ---------------------------------------------------------------------- */
/* Stats comparison */

#define STAT_FIELDS(X)                                                         \
	X(in_order)                                                            \
	X(buffered)                                                            \
	X(released)                                                            \
	X(late)                                                                \
	X(dup)                                                                 \
	X(hole_timeout)                                                        \
	X(hole_early)                                                          \
	X(hole_overflow)                                                       \
	X(overflow)                                                            \
	X(hole_path_down)                                                      \
	X(hole_flush)

/* Returns true if all fields are equal; prints the differing ones if
 * verbose. */
static bool stats_match(const struct egr_reseq_stats *got,
			const struct egr_reseq_stats *want, bool verbose)
{
	bool ok = true;

#define CMP(f)                                                                 \
	if (got->f != want->f) {                                               \
		if (verbose) {                                                 \
			print_error("  stat %s: got %" PRIu64                  \
				    ", want %" PRIu64 "\n",                    \
				    #f, got->f, want->f);                      \
		}                                                              \
		ok = false;                                                    \
	}
	STAT_FIELDS(CMP)
#undef CMP
	return ok;
}

/* ---------------------------------------------------------------------- */
/* Vector tables */

enum op {
	OP_END = 0,
	OP_PUSH,  /* push g on path with missing/pgap at t, expect verdict v */
	OP_POLL,  /* poll at t */
	OP_UP,    /* set_path_up(path, true) */
	OP_DOWN,  /* set_path_up(path, false) */
	OP_FLUSH,
	OP_RESET,
	OP_NREL,  /* check: g packets released so far */
	OP_DL,    /* check: deadline() true and equal to t */
	OP_NODL,  /* check: deadline() false */
	OP_DEPTH, /* check: depth() == g */
	OP_SETP,  /* set_params(t_lto = t, early_release = path != 0) */
};

struct ev {
	enum op op;
	uint32_t g;
	unsigned path;
	uint32_t missing;
	uint16_t pgap;
	uint64_t t;
	int v; /* enum egr_verdict */
};

enum {
	R = EGR_RELEASED,
	B = EGR_BUFFERED,
	LATE = EGR_DROP_LATE,
	DUP = EGR_DROP_DUP,
};

#define PUSH(g_, p_, t_, v_)                                                   \
	{                                                                      \
		.op = OP_PUSH, .g = (g_), .path = (p_), .t = (t_), .v = (v_)   \
	}
#define PUSHL(g_, p_, miss_, pgap_, t_, v_)                                    \
	{                                                                      \
		.op = OP_PUSH, .g = (g_), .path = (p_), .missing = (miss_),    \
		.pgap = (pgap_), .t = (t_), .v = (v_)                          \
	}
#define POLL(t_) {.op = OP_POLL, .t = (t_)}
#define UP(p_) {.op = OP_UP, .path = (p_)}
#define DOWN(p_) {.op = OP_DOWN, .path = (p_)}
#define FLUSH {.op = OP_FLUSH}
#define RESET {.op = OP_RESET}
#define NREL(n_) {.op = OP_NREL, .g = (n_)}
#define DL(t_) {.op = OP_DL, .t = (t_)}
#define NODL {.op = OP_NODL}
#define DEPTH(n_) {.op = OP_DEPTH, .g = (n_)}
#define SETP(tlto_, early_) {.op = OP_SETP, .t = (tlto_), .path = (early_)}
#define END {.op = OP_END}

#define EVENTS(...) .ev = (const struct ev[]){__VA_ARGS__, END}
#define REL(...)                                                               \
	.rel = (const uint32_t[]){__VA_ARGS__},                                \
	.nrel = sizeof((const uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t)

struct vec {
	const char *name;
	unsigned npaths;  /* 0: 1 */
	bool early;
	uint32_t cap;     /* 0: 64 */
	uint32_t t_lto;   /* 0: 1000 */
	const struct ev *ev;
	const uint32_t *rel;
	size_t nrel;
	struct egr_reseq_stats st;
};

static const struct vec vectors[] = {
	/* 0 */
	{
		.name = "in order",
		EVENTS(PUSH(100, 0, 0, R), PUSH(101, 0, 1, R),
		       PUSH(102, 0, 2, R), PUSH(103, 0, 3, R), NODL,
		       DEPTH(0)),
		REL(100, 101, 102, 103),
		.st = {.in_order = 4, .released = 4},
	},
	/* 1 */
	{
		.name = "single gap then fill",
		EVENTS(PUSH(0, 0, 0, R), PUSH(2, 0, 10, B), PUSH(3, 0, 20, B),
		       DEPTH(2), NREL(1), DL(1010), PUSH(1, 0, 30, R),
		       DEPTH(0), NODL),
		REL(0, 1, 2, 3),
		.st = {.in_order = 2, .buffered = 2, .released = 4},
	},
	/* 2 */
	{
		.name = "gap given up by timeout: exactly at arrival + t_lto",
		EVENTS(PUSH(0, 0, 0, R), PUSH(2, 0, 100, B), PUSH(3, 0, 200, B),
		       DL(1100), POLL(1099), NREL(1), DEPTH(2), DL(1100),
		       POLL(1100), NREL(3), DEPTH(0), NODL,
		       PUSH(1, 0, 1200, R), PUSH(2, 0, 1300, DUP),
		       PUSH(1, 0, 1400, DUP)),
		REL(0, 2, 3, 1),
		.st = {.in_order = 1, .buffered = 2, .released = 4,
		       .hole_timeout = 1, .late = 1, .dup = 2},
	},
	/* 3 */
	{
		/* hole 3's wait started with packet 4 at t=0, before packet 2
		 * arrived: the one poll at 1000 gives up holes 1 and 3 */
		.name = "two gaps, the later one waiting since earlier",
		EVENTS(PUSH(0, 0, 0, R), PUSH(4, 0, 0, B), PUSH(2, 0, 500, B),
		       DL(1000), POLL(999), NREL(1), POLL(1000), NREL(3),
		       DEPTH(0), NODL),
		REL(0, 2, 4),
		.st = {.in_order = 1, .buffered = 2, .released = 3,
		       .hole_timeout = 2},
	},
	/* 4 */
	{
		.name = "two gaps, the later one waiting since later",
		EVENTS(PUSH(0, 0, 0, R), PUSH(2, 0, 0, B), PUSH(4, 0, 500, B),
		       DL(1000), POLL(1000), NREL(2), DEPTH(1), DL(1500),
		       POLL(1499), NREL(2), POLL(1500), NREL(3), NODL),
		REL(0, 2, 4),
		.st = {.in_order = 1, .buffered = 2, .released = 3,
		       .hole_timeout = 2},
	},
	/* 5 */
	{
		.name = "deadline is the earliest arrival, not the lowest gseq",
		EVENTS(PUSH(0, 0, 0, R), PUSH(5, 0, 10, B), PUSH(3, 0, 20, B),
		       DL(1010), POLL(1009), NREL(1), DEPTH(2), POLL(1010),
		       NREL(3), DEPTH(0), NODL, POLL(100000), NREL(3)),
		REL(0, 3, 5),
		.st = {.in_order = 1, .buffered = 2, .released = 3,
		       .hole_timeout = 3},
	},
	/* 6 */
	{
		.name = "burst loss of 10 given up by timeout",
		EVENTS(PUSH(0, 0, 0, R), PUSH(11, 0, 1, B), PUSH(12, 0, 2, B),
		       PUSH(13, 0, 3, B), PUSH(14, 0, 4, B), PUSH(15, 0, 5, B),
		       DL(1001), POLL(1000), NREL(1), POLL(1001), NREL(6),
		       NODL),
		REL(0, 11, 12, 13, 14, 15),
		.st = {.in_order = 1, .buffered = 5, .released = 6,
		       .hole_timeout = 10},
	},
	/* 7 */
	{
		/* one path, early release: the only path has passed them */
		.name = "burst loss of 10, single path, early release",
		.early = true,
		EVENTS(PUSH(0, 0, 0, R), PUSH(11, 0, 1, R), PUSH(12, 0, 2, R),
		       NODL),
		REL(0, 11, 12),
		.st = {.in_order = 2, .buffered = 1, .released = 3,
		       .hole_early = 10},
	},
	/* 8 */
	{
		/* CHANGES after review: path 0's top is 0, the head 1 =
		 * top + 1, span 10 (1..10) == missing 10 < capacity and none
		 * of 1..10 is buffered (unknown 10 == missing): the burst
		 * rule marks all ten LOST (the pgap rule, which would name
		 * only 10, is subsumed); the drain gives them up at once,
		 * although path 1, never seen, blocks the all-passed rule */
		.name = "burst loss of 10 on a path: the burst rule gives all "
			"up",
		.npaths = 2,
		.early = true,
		EVENTS(PUSH(0, 0, 0, R), PUSHL(11, 0, 10, 1, 1, R), DEPTH(0),
		       NODL),
		REL(0, 11),
		.st = {.in_order = 1, .buffered = 1, .released = 2,
		       .hole_early = 10},
	},
	/* 9 */
	{
		.name = "duplicates of a buffered and of released packets",
		EVENTS(PUSH(0, 0, 0, R), PUSH(2, 0, 1, B), PUSH(2, 0, 2, DUP),
		       DEPTH(1), PUSH(1, 0, 3, R), PUSH(1, 0, 4, DUP),
		       PUSH(0, 0, 5, DUP), PUSH(2, 0, 6, DUP), DEPTH(0)),
		REL(0, 1, 2),
		.st = {.in_order = 2, .buffered = 1, .released = 3, .dup = 4},
	},
	/* 10 */
	{
		.name = "late after a timeout skip vs duplicate",
		EVENTS(PUSH(0, 0, 0, R), PUSH(2, 0, 0, B), POLL(1000),
		       NREL(2), PUSH(1, 0, 1001, R), PUSH(2, 0, 1002, DUP),
		       PUSH(0, 0, 1003, DUP)),
		REL(0, 2, 1),
		.st = {.in_order = 1, .buffered = 1, .released = 3,
		       .hole_timeout = 1, .late = 1, .dup = 2},
	},
	/* 11 */
	{
		/* head 10: 3 is 7 behind (< capacity) -> dup; 2 is 8 behind
		 * (= capacity) -> too old */
		.name = "duplicate window is capacity",
		.cap = 8,
		EVENTS(PUSH(0, 0, 0, R), PUSH(1, 0, 1, R), PUSH(2, 0, 2, R),
		       PUSH(3, 0, 3, R), PUSH(4, 0, 4, R), PUSH(5, 0, 5, R),
		       PUSH(6, 0, 6, R), PUSH(7, 0, 7, R), PUSH(8, 0, 8, R),
		       PUSH(9, 0, 9, R), PUSH(3, 0, 10, DUP),
		       PUSH(2, 0, 11, LATE), PUSH(1, 0, 12, LATE),
		       PUSH(9, 0, 13, DUP)),
		REL(0, 1, 2, 3, 4, 5, 6, 7, 8, 9),
		.st = {.in_order = 10, .released = 10, .dup = 2, .too_old = 2},
	},
	/* 12 */
	{
		/* semantics: DUP only if the slot still holds g as released;
		 * buffered 9 took slot 1 */
		.name = "slot reused by a buffered packet: old one is too old",
		.cap = 8,
		EVENTS(PUSH(0, 0, 0, R), PUSH(1, 0, 1, R), PUSH(2, 0, 2, R),
		       PUSH(3, 0, 3, R), PUSH(9, 0, 4, B), PUSH(1, 0, 5, LATE),
		       PUSH(2, 0, 6, DUP), DEPTH(1)),
		REL(0, 1, 2, 3),
		.st = {.in_order = 4, .buffered = 1, .released = 4,
		       .too_old = 1, .dup = 1},
	},
	/* 13 */
	{
		.name = "wraparound 0xfffffffa .. 10 with gaps and reordering",
		EVENTS(PUSH(0xfffffffa, 0, 0, R), PUSH(0xfffffffb, 0, 1, R),
		       PUSH(0xfffffffd, 0, 2, B), PUSH(0xfffffffc, 0, 3, R),
		       PUSH(0xffffffff, 0, 4, B), PUSH(1, 0, 5, B),
		       PUSH(0xfffffffe, 0, 6, R), NREL(6), PUSH(0, 0, 7, R),
		       NREL(8), PUSH(3, 0, 8, B), PUSH(2, 0, 9, R),
		       PUSH(6, 0, 10, B), PUSH(5, 0, 11, B), DL(1010),
		       POLL(1010), NREL(12), PUSH(8, 0, 1011, B),
		       PUSH(7, 0, 1012, R), PUSH(10, 0, 1013, B),
		       PUSH(9, 0, 1014, R), DEPTH(0),
		       PUSH(0xffffffff, 0, 1015, DUP), PUSH(4, 0, 1016, R),
		       PUSH(0xfffffff9, 0, 1017, LATE)),
		REL(0xfffffffa, 0xfffffffb, 0xfffffffc, 0xfffffffd, 0xfffffffe,
		    0xffffffff, 0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 4),
		.st = {.in_order = 8, .buffered = 8, .released = 17,
		       .hole_timeout = 1, .dup = 1, .late = 1, .too_old = 1},
	},
	/* 14 */
	{
		/* head 1, 9 = head + 8 = head + capacity: forces the head to
		 * 2 (hole 1 overflow), then 2, 3 follow in order */
		.name = "capacity 8 full: head + 8 overflows",
		.cap = 8,
		EVENTS(PUSH(0, 0, 0, R), PUSH(2, 0, 1, B), PUSH(3, 0, 2, B),
		       PUSH(5, 0, 3, B), DEPTH(3), PUSH(9, 0, 4, B), NREL(3),
		       DEPTH(2), PUSH(4, 0, 5, R), NREL(5), PUSH(6, 0, 6, R),
		       PUSH(7, 0, 7, R), PUSH(8, 0, 8, R), DEPTH(0)),
		REL(0, 2, 3, 4, 5, 6, 7, 8, 9),
		.st = {.in_order = 5, .buffered = 4, .released = 9,
		       .overflow = 1, .hole_overflow = 1},
	},
	/* 15 */
	{
		.name = "capacity 8: head + 7 fits, head + 8 overflows",
		.cap = 8,
		EVENTS(PUSH(0, 0, 0, R), PUSH(8, 0, 1, B), DEPTH(1),
		       PUSH(9, 0, 2, B), DEPTH(2), NREL(1)),
		REL(0),
		.st = {.in_order = 1, .buffered = 2, .released = 1,
		       .overflow = 1, .hole_overflow = 1},
	},
	/* 16 */
	{
		/* walk: hole 1, hole 2, release 3, nothing left -> jump to
		 * 100 - 8 + 1 = 93 */
		.name = "overflow far ahead: walk until empty, then jump",
		.cap = 8,
		EVENTS(PUSH(0, 0, 0, R), PUSH(3, 0, 1, B), PUSH(100, 0, 2, B),
		       NREL(2), DEPTH(1), PUSH(92, 0, 3, LATE), DL(1002),
		       POLL(1002), NREL(3), DEPTH(0)),
		REL(0, 3, 100),
		.st = {.in_order = 1, .buffered = 2, .released = 3,
		       .overflow = 1, .hole_overflow = 2, .too_old = 1,
		       .hole_timeout = 7},
	},
	/* 17 */
	{
		.name = "overflow with nothing buffered: no hole walked",
		.cap = 8,
		EVENTS(PUSH(0, 0, 0, R), PUSH(1000, 0, 1, B), DEPTH(1),
		       PUSH(992, 0, 2, LATE), PUSH(993, 0, 3, R), DEPTH(1)),
		REL(0, 993),
		.st = {.in_order = 2, .buffered = 1, .released = 2,
		       .overflow = 1, .too_old = 1},
	},
	/* 18 */
	{
		/* head 1, push 1 + 2^31 - 1: at most capacity steps; the head
		 * ends at 0x80000000 - 65536 + 1 */
		.name = "jump of 2^31-1 ahead, capacity 2^16",
		.cap = 1u << 16,
		EVENTS(PUSH(0, 0, 0, R), PUSH(5, 0, 1, B),
		       PUSH(0x80000000u, 0, 2, B), NREL(2), DEPTH(1), DL(1002),
		       PUSH(0x7fff0001u, 0, 3, R),
		       PUSH(0x7fff0000u, 0, 4, LATE),
		       PUSH(5, 0, 5, LATE), PUSH(0x80000001u, 0, 6, B),
		       DEPTH(2)),
		REL(0, 5, 0x7fff0001u),
		.st = {.in_order = 2, .buffered = 3, .released = 3,
		       .overflow = 1, .hole_overflow = 4, .too_old = 2},
	},
	/* 19 */
	{
		/* distance exactly 2^31 is "not after": behind, never seen
		 * -> too old */
		.name = "jump of exactly 2^31 is late",
		.cap = 1u << 16,
		EVENTS(PUSH(0, 0, 0, R), PUSH(0x80000001u, 0, 1, LATE),
		       PUSH(3, 0, 2, B), PUSH(1, 0, 3, R),
		       PUSH(0x80000002u, 0, 4, LATE),
		       PUSH(0x80000003u, 0, 5, LATE), DEPTH(1)),
		REL(0, 1),
		.st = {.in_order = 2, .buffered = 1, .released = 2,
		       .too_old = 3},
	},
	/* 20 */
	{
		/* path 0 sent 0, 2, 3; 2 is lost; 3 arrives with missing 1,
		 * pgap 1 -> 2 (the head hole) is known lost */
		.name = "early release by pgap: released at once",
		.npaths = 2,
		.early = true,
		EVENTS(PUSH(0, 0, 0, R), PUSH(1, 1, 1, R),
		       PUSHL(3, 0, 1, 1, 2, R), DEPTH(0), NODL),
		REL(0, 1, 3),
		.st = {.in_order = 2, .buffered = 1, .released = 3,
		       .hole_early = 1},
	},
	/* 21 */
	{
		/* CHANGES after review, same inputs as before, now:
		 * push 3 (path 0, top 0, head 1, missing 1): range (0, 3) =
		 *   {1, 2}, span 2 >= missing, 2 buffered, unknown 1 ==
		 *   missing: burst rule, 1 marked (2 is buffered: not
		 *   marked), pgap not applied; drain: 1 given up, 2, 3
		 *   released; head 4;
		 * push 5 (top 3, head 4, missing 1): range {4}, unknown 1:
		 *   burst rule marks 4 (pgap 5 names 0, behind the head, not
		 *   applied); 4 given up, 5 released; head 6;
		 * push 1 (path 1): behind the head, slot 1 holds 1 as given
		 *   up: late, released out of order;
		 * push 6 (missing 0): in order, no rule;
		 * push 7 (top 6, head 7, missing 1): span 0 < missing: pgap
		 *   rule, pgap 0: nothing; in order.
		 * (path 2 never seen blocks the all-passed rule throughout) */
		.name = "burst rule on the former pgap-only vector",
		.npaths = 3,
		.early = true,
		EVENTS(PUSH(0, 0, 0, R), PUSH(2, 1, 1, B),
		       PUSHL(3, 0, 1, 1, 2, R), DEPTH(0),
		       PUSHL(5, 0, 1, 5, 3, R), DEPTH(0), PUSH(1, 1, 4, R),
		       NREL(5), DEPTH(0), PUSHL(6, 0, 0, 2, 5, R),
		       PUSHL(7, 0, 1, 0, 6, R), DEPTH(0)),
		REL(0, 2, 3, 5, 1, 6, 7),
		.st = {.in_order = 3, .buffered = 3, .released = 7,
		       .late = 1, .hole_early = 2},
	},
	/* 22 */
	{
		/* head 1; x = 20 - 5 = 15 lies 14 >= capacity ahead: not
		 * marked; the overflow moves the head to 13 */
		.name = "pgap beyond capacity of the head: no effect",
		.npaths = 3,
		.early = true,
		.cap = 8,
		EVENTS(PUSH(0, 0, 0, R), PUSHL(20, 0, 1, 5, 1, B), DEPTH(1),
		       PUSH(13, 1, 2, R), PUSH(14, 1, 3, R), DEPTH(1),
		       PUSH(15, 1, 4, R), DEPTH(1)),
		REL(0, 13, 14, 15),
		.st = {.in_order = 4, .buffered = 1, .released = 4,
		       .overflow = 1},
	},
	/* 23 */
	{
		.name = "early release by all paths passed; unseen path blocks",
		.npaths = 2,
		.early = true,
		EVENTS(PUSH(0, 0, 0, R), PUSH(2, 0, 1, B), DEPTH(1),
		       PUSH(3, 1, 2, R), DEPTH(0)),
		REL(0, 2, 3),
		.st = {.in_order = 1, .buffered = 2, .released = 3,
		       .hole_early = 1},
	},
	/* 24 */
	{
		.name = "no early release while an up path has not passed",
		.npaths = 2,
		.early = true,
		EVENTS(PUSH(0, 0, 0, R), PUSH(1, 1, 1, R), PUSH(3, 0, 2, B),
		       PUSH(4, 0, 3, B), DEPTH(2), PUSH(2, 1, 4, R), NREL(5),
		       PUSH(7, 0, 5, B), DEPTH(1), PUSH(6, 1, 6, R),
		       DEPTH(0)),
		REL(0, 1, 2, 3, 4, 6, 7),
		.st = {.in_order = 3, .buffered = 4, .released = 7,
		       .hole_early = 1},
	},
	/* 25 */
	{
		.name = "early_release off: pgap inputs wait for the timeout",
		.npaths = 2,
		EVENTS(PUSH(0, 0, 0, R), PUSH(1, 1, 1, R),
		       PUSHL(3, 0, 1, 1, 2, B), DEPTH(1), DL(1002),
		       POLL(1001), NREL(2), POLL(1002), NREL(3)),
		REL(0, 1, 3),
		.st = {.in_order = 2, .buffered = 1, .released = 3,
		       .hole_timeout = 1},
	},
	/* 26 */
	{
		.name = "early_release off: all-passed inputs wait too",
		.npaths = 2,
		EVENTS(PUSH(0, 0, 0, R), PUSH(2, 0, 1, B), PUSH(3, 1, 2, B),
		       DEPTH(2), POLL(1000), NREL(1), POLL(1001), NREL(3)),
		REL(0, 2, 3),
		.st = {.in_order = 1, .buffered = 2, .released = 3,
		       .hole_timeout = 1},
	},
	/* 27 */
	{
		.name = "path down (early off): its holes given up",
		.npaths = 2,
		EVENTS(PUSH(0, 0, 0, R), PUSH(1, 1, 1, R), PUSH(3, 0, 2, B),
		       PUSH(5, 0, 3, B), DEPTH(2), DOWN(1), NREL(4), DEPTH(0),
		       PUSH(7, 0, 4, B), DEPTH(1), POLL(1003), NREL(4),
		       POLL(1004), NREL(5)),
		REL(0, 1, 3, 5, 7),
		.st = {.in_order = 2, .buffered = 3, .released = 5,
		       .hole_path_down = 2, .hole_timeout = 1},
	},
	/* 28 */
	{
		.name = "path down (early on), then up again",
		.npaths = 2,
		.early = true,
		EVENTS(PUSH(0, 0, 0, R), PUSH(1, 1, 1, R), PUSH(3, 0, 2, B),
		       DOWN(1), NREL(3), PUSH(6, 0, 3, R), UP(1),
		       PUSH(8, 0, 4, B), DEPTH(1), PUSH(9, 1, 5, R),
		       DEPTH(0)),
		REL(0, 1, 3, 6, 8, 9),
		.st = {.in_order = 2, .buffered = 4, .released = 6,
		       .hole_path_down = 1, .hole_early = 3},
	},
	/* 29 */
	{
		.name = "all paths down: everything released",
		.npaths = 2,
		EVENTS(PUSH(0, 0, 0, R), PUSH(3, 1, 1, B), PUSH(6, 0, 2, B),
		       DOWN(0), NREL(2), DEPTH(1), DOWN(1), NREL(3), DEPTH(0),
		       NODL),
		REL(0, 3, 6),
		.st = {.in_order = 1, .buffered = 2, .released = 3,
		       .hole_path_down = 4},
	},
	/* 30 */
	{
		.name = "path down: a never seen up path still blocks",
		.npaths = 3,
		EVENTS(PUSH(0, 0, 0, R), PUSH(2, 0, 1, B), DOWN(1), DEPTH(1),
		       DOWN(2), DEPTH(0)),
		REL(0, 2),
		.st = {.in_order = 1, .buffered = 1, .released = 2,
		       .hole_path_down = 1},
	},
	/* 31 */
	{
		.name = "flush",
		EVENTS(PUSH(0, 0, 0, R), PUSH(2, 0, 1, B), PUSH(5, 0, 2, B),
		       FLUSH, NREL(3), DEPTH(0), NODL, PUSH(6, 0, 3, R),
		       PUSH(1, 0, 4, R), PUSH(5, 0, 5, DUP), FLUSH,
		       PUSH(7, 0, 6, R)),
		REL(0, 2, 5, 6, 1, 7),
		.st = {.in_order = 3, .buffered = 2, .released = 6,
		       .hole_flush = 3, .late = 1, .dup = 1},
	},
	/* 32 */
	{
		.name = "reset: flush, then a new head even behind the old one",
		EVENTS(PUSH(100, 0, 0, R), PUSH(102, 0, 1, B), RESET, NREL(2),
		       DEPTH(0), NODL, PUSH(50, 0, 2, R), PUSH(51, 0, 3, R),
		       PUSH(53, 0, 4, B), DL(1004), PUSH(52, 0, 5, R),
		       DEPTH(0)),
		REL(100, 102, 50, 51, 52, 53),
		.st = {.in_order = 4, .buffered = 2, .released = 6,
		       .hole_flush = 1},
	},
	/* 33 */
	{
		/* path 1's top 101 must be forgotten: after the reset it has
		 * not delivered anything, so it blocks */
		.name = "reset forgets the path tops",
		.npaths = 2,
		.early = true,
		EVENTS(PUSH(100, 0, 0, R), PUSH(101, 1, 1, R), RESET,
		       PUSH(10, 0, 2, R), PUSH(12, 0, 3, B), DEPTH(1)),
		REL(100, 101, 10),
		.st = {.in_order = 3, .buffered = 1, .released = 3},
	},
	/* 34 */
	{
		.name = "set_params: t_lto and early_release change at run "
			"time",
		EVENTS(PUSH(0, 0, 0, R), PUSH(2, 0, 0, B), DL(1000),
		       SETP(500, 0), DL(500), POLL(499), NREL(1), POLL(500),
		       NREL(2), PUSH(4, 0, 600, B), DL(1100), SETP(500, 1),
		       PUSH(6, 0, 700, R), NREL(4), SETP(500, 0),
		       PUSH(8, 0, 800, B), DEPTH(1)),
		REL(0, 2, 4, 6),
		.st = {.in_order = 1, .buffered = 4, .released = 4,
		       .hole_timeout = 1, .hole_early = 2},
	},
	/* 35 */
	{
		/* semantics: step 0 (path bookkeeping) runs for every push and
		 * step 2 (drain) follows step 1 whatever it decided: a
		 * duplicate on path 1 shows that path 1 has passed hole 1 */
		.name = "duplicate of a buffered packet still moves the path "
			"top",
		.npaths = 2,
		.early = true,
		EVENTS(PUSH(0, 0, 0, R), PUSH(2, 0, 1, B), DEPTH(1),
		       PUSH(2, 1, 2, DUP), DEPTH(0), NODL),
		REL(0, 2),
		.st = {.in_order = 1, .buffered = 1, .released = 2, .dup = 1,
		       .hole_early = 1},
	},
	/* 36 */
	{
		/* the same for a pgap carried by a duplicate: 2 is known
		 * lost (path 2 never seen blocks the all-passed rule) */
		.name = "duplicate of a buffered packet still marks pgap lost",
		.npaths = 3,
		.early = true,
		EVENTS(PUSH(0, 0, 0, R), PUSH(1, 1, 1, R), PUSH(3, 0, 2, B),
		       PUSHL(3, 0, 1, 1, 3, DUP), DEPTH(0), NODL),
		REL(0, 1, 3),
		.st = {.in_order = 2, .buffered = 1, .released = 3, .dup = 1,
		       .hole_early = 1},
	},
	/* 37 */
	{
		/* the old vector 21's intent, with inputs for which the burst
		 * rule does not fire (path 2 never seen blocks all-passed):
		 * push 3 (top 0, head 1): range {1, 2}, 2 buffered, unknown 1
		 *   != missing 2: pgap rule, pgap 1 names 2, buffered: no
		 *   effect;
		 * push 5 (top 3, head 1): range {4}, span 1 < missing 2:
		 *   pgap rule, pgap 5 names 0, behind the head: no effect;
		 * push 6: missing 0: no rule (pgap 2 would name 4);
		 * push 7 (top 6, head 4): span 0 < missing 1: pgap rule with
		 *   pgap 0: no effect */
		.name = "pgap rule only: at a buffered packet / behind the "
			"head / no missing / pgap 0: no effect",
		.npaths = 3,
		.early = true,
		EVENTS(PUSH(0, 0, 0, R), PUSH(2, 1, 1, B),
		       PUSHL(3, 0, 2, 1, 2, B), DEPTH(2),
		       PUSHL(5, 0, 2, 5, 3, B), DEPTH(3), PUSH(1, 1, 4, R),
		       NREL(4), DEPTH(1), PUSHL(6, 0, 0, 2, 5, B),
		       PUSHL(7, 0, 1, 0, 6, B), DEPTH(3), DL(1003)),
		REL(0, 1, 2, 3),
		.st = {.in_order = 2, .buffered = 5, .released = 4},
	},
	/* 38 */
	{
		/* (a) path 0 sent 2, 3, 4, 5; 3 and 4 are lost; path 1 last
		 * delivered 1 and idles (all-passed blocked).  5 comes with
		 * missing 2, pgap 1 (naming only 4): range (2, 5) = {3, 4},
		 * unknown 2 == missing: burst rule, both given up at once */
		.name = "burst of 2 on path 0, path 1 idle: both given up",
		.npaths = 2,
		.early = true,
		EVENTS(PUSH(0, 0, 0, R), PUSH(1, 1, 1, R), PUSH(2, 0, 2, R),
		       PUSHL(5, 0, 2, 1, 3, R), DEPTH(0), NODL),
		REL(0, 1, 2, 5),
		.st = {.in_order = 3, .buffered = 1, .released = 4,
		       .hole_early = 2},
	},
	/* 39 */
	{
		/* (a') as (a) but path 1's 4 inside the range has already
		 * arrived (buffered): path 0 lost 3 and 5; 6 comes with
		 * missing 2: range {3, 4, 5}, unknown 2 (4 buffered) ==
		 * missing: burst rule marks 3 and 5.  Path 2 never seen
		 * blocks all-passed, so only the marks free the head */
		.name = "burst of 2 with another path's packet buffered in "
			"the range",
		.npaths = 3,
		.early = true,
		EVENTS(PUSH(0, 0, 0, R), PUSH(1, 1, 1, R), PUSH(2, 0, 2, R),
		       PUSH(4, 1, 3, B), PUSHL(6, 0, 2, 1, 4, R), DEPTH(0),
		       NODL),
		REL(0, 1, 2, 4, 6),
		.st = {.in_order = 3, .buffered = 2, .released = 5,
		       .hole_early = 2},
	},
	/* 40 */
	{
		/* (b) path 0 lost 3 and 5, path 1's 4 is still in flight: 6
		 * comes with missing 2: range {3, 4, 5}, unknown 3 !=
		 * missing: pgap rule, pgap 1 marks 5 only.  3 waits until
		 * path 1 passes it: 4 arrives, all-passed gives up 3, 4 is
		 * released, then 5 (marked; all-passed would not: path 1's
		 * top 4 is not after 5) and 6 */
		.name = "burst of 2 with a packet in flight in the range: "
			"pgap rule only",
		.npaths = 2,
		.early = true,
		EVENTS(PUSH(0, 0, 0, R), PUSH(1, 1, 1, R), PUSH(2, 0, 2, R),
		       PUSHL(6, 0, 2, 1, 3, B), DEPTH(1), DL(1003),
		       PUSH(4, 1, 4, R), DEPTH(0), NODL),
		REL(0, 1, 2, 4, 6),
		.st = {.in_order = 3, .buffered = 2, .released = 5,
		       .hole_early = 2},
	},
	/* 41 */
	{
		/* (c) path 0's top 0 while holes 1 and 2 timed out (head 4):
		 * 6 comes with missing 5, pgap 1.  Range (0, 6) = 1..5 has
		 * unknown 5 == missing, but prev + 1 = 1 < head 4: pgap rule
		 * only, 5 marked; 4 waits (the burst rule would have marked
		 * 4 and 5).  4 arrives on path 1: 5 given up, 6 released */
		.name = "burst range partly behind the head: pgap rule only",
		.npaths = 3,
		.early = true,
		EVENTS(PUSH(0, 0, 0, R), PUSH(3, 1, 0, B), POLL(1000),
		       NREL(2), DEPTH(0), PUSHL(6, 0, 5, 1, 1001, B),
		       DEPTH(1), DL(2001), PUSH(4, 1, 1002, R), DEPTH(0)),
		REL(0, 3, 4, 6),
		.st = {.in_order = 2, .buffered = 2, .released = 4,
		       .hole_timeout = 2, .hole_early = 1},
	},
	/* 42 */
	{
		/* (d) capacity 8, path 0's top 0, head 1: 9 comes with
		 * missing 8, pgap 1: span 8 == capacity: pgap rule only, 8
		 * marked (7 ahead of the head: within capacity); then 9
		 * overflows: nothing buffered, the head jumps to 2 (no hole
		 * counted).  2..7 arrive on path 1 in order; then 8 is given
		 * up (marked) and 9 released.  (The burst rule would have
		 * marked 1..8 and released 9 at once.) */
		.name = "burst span == capacity: pgap rule only",
		.npaths = 3,
		.early = true,
		.cap = 8,
		EVENTS(PUSH(0, 0, 0, R), PUSHL(9, 0, 8, 1, 1, B), DEPTH(1),
		       PUSH(2, 1, 2, R), PUSH(3, 1, 3, R), PUSH(4, 1, 4, R),
		       PUSH(5, 1, 5, R), PUSH(6, 1, 6, R), DEPTH(1),
		       PUSH(7, 1, 7, R), DEPTH(0)),
		REL(0, 2, 3, 4, 5, 6, 7, 9),
		.st = {.in_order = 7, .buffered = 1, .released = 8,
		       .overflow = 1, .hole_early = 1},
	},
	/* 43 */
	{
		/* (d') capacity 8: span 7 == capacity - 1 == missing: the
		 * burst rule marks 1..7, 8 released at once */
		.name = "burst span == capacity - 1: burst rule",
		.npaths = 3,
		.early = true,
		.cap = 8,
		EVENTS(PUSH(0, 0, 0, R), PUSHL(8, 0, 7, 1, 1, R), DEPTH(0)),
		REL(0, 8),
		.st = {.in_order = 1, .buffered = 1, .released = 2,
		       .hole_early = 7},
	},
	/* 44 */
	{
		/* (e) capacity 8.  Path 1 delivers 1, then idles.  Path 0
		 * moves the head past 2^31 beyond it with two overflows:
		 *   0x40000000: head 2 -> 0x3ffffff9 (nothing buffered: a
		 *     jump), buffered;
		 *   0x80000005: walks 7 holes, releases 0x40000000, jumps
		 *     to 0x7ffffffe, buffered;
		 * then 0x7ffffffe..0x80000004 in order (with 0x80000005:
		 * head 0x80000006).  From head 0x80000002 on, path 1's top 1
		 * looks 0x7fffffff.. ahead, >= capacity: stale, so it blocks
		 * all-passed (it would "pass" every hole by serial
		 * arithmetic).  Hole 0x80000006 (0x80000007 buffered) waits.
		 * Path 1 delivers 0x80000009: its top was stale, so it is
		 * refreshed although 0x80000009 is not after 1; then both
		 * paths passed 0x80000006: given up; 0x80000007 released; 8
		 * waits (path 0's top 0x80000007 is not after it) until path
		 * 0 delivers 0x8000000a: 8 given up, 9, a released */
		.name = "stale top after 2^31: blocks, then refreshed",
		.npaths = 2,
		.early = true,
		.cap = 8,
		EVENTS(PUSH(0, 0, 0, R), PUSH(1, 1, 1, R),
		       PUSH(0x40000000u, 0, 2, B), DEPTH(1),
		       PUSH(0x80000005u, 0, 3, B), NREL(3), DEPTH(1),
		       PUSH(0x7ffffffeu, 0, 4, R), PUSH(0x7fffffffu, 0, 5, R),
		       PUSH(0x80000000u, 0, 6, R), PUSH(0x80000001u, 0, 7, R),
		       PUSH(0x80000002u, 0, 8, R), PUSH(0x80000003u, 0, 9, R),
		       PUSH(0x80000004u, 0, 10, R), NREL(11), DEPTH(0),
		       PUSH(0x80000007u, 0, 11, B), DEPTH(1), DL(1011),
		       PUSH(0x80000009u, 1, 12, B), NREL(12), DEPTH(1),
		       PUSH(0x8000000au, 0, 13, R), DEPTH(0), NODL),
		REL(0, 1, 0x40000000u, 0x7ffffffeu, 0x7fffffffu, 0x80000000u,
		    0x80000001u, 0x80000002u, 0x80000003u, 0x80000004u,
		    0x80000005u, 0x80000007u, 0x80000009u, 0x8000000au),
		.st = {.in_order = 9, .buffered = 5, .released = 14,
		       .overflow = 2, .hole_overflow = 7, .hole_early = 2},
	},
	/* 45 */
	{
		/* (f) holes 2 and 4, 3 and 5 buffered from path 0; path 1's
		 * top 1 blocks all-passed.  A duplicate of 5 on path 1 is
		 * dropped, but moves path 1's top to 5 and drains: both
		 * holes given up, 3 and 5 released (with their own
		 * cookies) */
		.name = "duplicate on the other path frees the head (drain "
			"after dup)",
		.npaths = 2,
		.early = true,
		EVENTS(PUSH(0, 0, 0, R), PUSH(1, 1, 1, R), PUSH(3, 0, 2, B),
		       PUSH(5, 0, 3, B), DEPTH(2), PUSH(5, 1, 4, DUP),
		       DEPTH(0), NODL, PUSH(5, 1, 5, DUP)),
		REL(0, 1, 3, 5),
		.st = {.in_order = 2, .buffered = 2, .released = 4, .dup = 2,
		       .hole_early = 2},
	},
	/* 46 */
	{
		/* (g) capacity 8, head 1, path 0's top 6 (buffered): 12
		 * comes with missing 5: range 7..11, unknown 5: burst rule,
		 * but only 7 and 8 are within capacity of the head as at the
		 * start of the push (9, 10, 11 are not marked).  Then 12
		 * overflows: target 5, holes 1..4 walked (hole_overflow 4).
		 * 5 arrives on path 1: 5, 6 released, 7, 8 given up (marked),
		 * 9 waits (path 2 never seen); the timeout gives up 9..11 */
		.name = "burst range beyond capacity: only marks within it",
		.npaths = 3,
		.early = true,
		.cap = 8,
		EVENTS(PUSH(0, 0, 0, R), PUSH(6, 0, 1, B),
		       PUSHL(12, 0, 5, 1, 2, B), NREL(1), DEPTH(2),
		       PUSH(5, 1, 3, R), NREL(3), DEPTH(1), DL(1002),
		       POLL(1001), NREL(3), POLL(1002), NREL(4), DEPTH(0)),
		REL(0, 5, 6, 12),
		.st = {.in_order = 2, .buffered = 2, .released = 4,
		       .overflow = 1, .hole_overflow = 4, .hole_early = 2,
		       .hole_timeout = 3},
	},
};

#define SINK_MAX 4096

struct sink {
	unsigned n;
	bool overrun;
	uint32_t g[SINK_MAX];
	uint64_t cookie[SINK_MAX];
	uint64_t now;            /* time of the current call (egress test) */
	uint64_t at[SINK_MAX];
};

static void sink_release(void *ctx, uint64_t cookie, uint32_t gseq)
{
	struct sink *s = ctx;

	if (s->n == SINK_MAX) {
		s->overrun = true;
		return;
	}
	s->g[s->n] = gseq;
	s->cookie[s->n] = cookie;
	s->at[s->n] = s->now;
	s->n++;
}

/* Reports a failed check and abandons the vector (the others still run). */
#define VFAIL(...)                                                             \
	do {                                                                   \
		print_error("vector %u (%s), event %u: ", vi, v->name, ei);    \
		print_error(__VA_ARGS__);                                      \
		print_error("\n");                                             \
		goto failed;                                                   \
	} while (0)

static const char *verdict_name(int v)
{
	switch (v) {
	case EGR_RELEASED: return "RELEASED";
	case EGR_BUFFERED: return "BUFFERED";
	case EGR_DROP_LATE: return "DROP_LATE";
	case EGR_DROP_DUP: return "DROP_DUP";
	case EGR_DROP_PATH: return "DROP_PATH";
	case EGR_DROP_NOMEM: return "DROP_NOMEM";
	}
	return "?";
}

static bool run_vector(unsigned vi, const struct vec *v)
{
	struct egr_reseq_params p = {
		.t_lto_us = v->t_lto ? v->t_lto : 1000,
		.early_release = v->early,
		.capacity = v->cap ? v->cap : 64,
	};
	struct egr_reseq r;
	struct sink *s = calloc(1, sizeof(*s));
	unsigned ei = 0;
	uint64_t when;
	size_t i;

	assert_non_null(s);
	if (egr_reseq_init(&r, &p, v->npaths ? v->npaths : 1, sink_release,
			   s) != 0) {
		print_error("vector %u (%s): init failed\n", vi, v->name);
		free(s);
		return false;
	}
	for (ei = 0; v->ev[ei].op != OP_END; ei++) {
		const struct ev *e = &v->ev[ei];
		enum egr_verdict got;
		bool drop = e->v == LATE || e->v == DUP;

		switch (e->op) {
		case OP_PUSH:
			got = egr_reseq_push(&r, e->g, e->path, e->missing,
					     e->pgap, e->t,
					     drop ? DROP_COOKIE(e->g)
						  : COOKIE(e->g));
			if ((int)got != (int)e->v) {
				VFAIL("push %" PRIu32 " path %u: verdict %s, "
				      "want %s",
				      e->g, e->path, verdict_name(got),
				      verdict_name(e->v));
			}
			break;
		case OP_POLL:
			egr_reseq_poll(&r, e->t);
			break;
		case OP_UP:
			egr_reseq_set_path_up(&r, e->path, true);
			break;
		case OP_DOWN:
			egr_reseq_set_path_up(&r, e->path, false);
			break;
		case OP_FLUSH:
			egr_reseq_flush(&r);
			break;
		case OP_RESET:
			egr_reseq_reset(&r);
			break;
		case OP_NREL:
			if (s->n != e->g) {
				VFAIL("%u released so far, want %" PRIu32,
				      s->n, e->g);
			}
			break;
		case OP_DL:
			if (!egr_reseq_deadline(&r, &when)) {
				VFAIL("no deadline, want %" PRIu64, e->t);
			}
			if (when != e->t) {
				VFAIL("deadline %" PRIu64 ", want %" PRIu64,
				      when, e->t);
			}
			break;
		case OP_NODL:
			if (egr_reseq_deadline(&r, &when)) {
				VFAIL("deadline %" PRIu64 ", want none", when);
			}
			break;
		case OP_DEPTH:
			if (egr_reseq_depth(&r) != e->g) {
				VFAIL("depth %" PRIu32 ", want %" PRIu32,
				      egr_reseq_depth(&r), e->g);
			}
			break;
		case OP_SETP: {
			struct egr_reseq_params np = p;

			np.t_lto_us = (uint32_t)e->t;
			np.early_release = e->path != 0;
			if (egr_reseq_set_params(&r, &np) != 0) {
				VFAIL("set_params failed");
			}
			break;
		}
		case OP_END:
			break;
		}
	}
	if (s->overrun || s->n != v->nrel) {
		VFAIL("%u released, want %zu", s->n, v->nrel);
	}
	for (i = 0; i < v->nrel; i++) {
		if (s->g[i] != v->rel[i]) {
			VFAIL("release #%zu is %" PRIu32 ", want %" PRIu32, i,
			      s->g[i], v->rel[i]);
		}
		if (s->cookie[i] != COOKIE(s->g[i])) {
			VFAIL("release #%zu (%" PRIu32 ") cookie %" PRIu64
			      ", want %" PRIu64,
			      i, s->g[i], s->cookie[i], COOKIE(s->g[i]));
		}
	}
	if (!stats_match(&r.st, &v->st, true)) {
		VFAIL("stats differ (above)");
	}
	egr_reseq_free(&r);
	free(s);
	return true;
failed:
	egr_reseq_free(&r);
	free(s);
	return false;
}

static void test_vectors(void **state)
{
	unsigned vi, bad = 0;

	(void)state;
	for (vi = 0; vi < sizeof(vectors) / sizeof(vectors[0]); vi++) {
		if (!run_vector(vi, &vectors[vi])) {
			bad++;
		}
	}
	if (bad) {
		fail_msg("%u of %zu vectors failed", bad,
			 sizeof(vectors) / sizeof(vectors[0]));
	}
}

/* ---------------------------------------------------------------------- */
/* Naive reference, from notes/semantics.md only.
 *
 * Buffered packets and LOST marks are unsorted arrays searched linearly.
 * The "slot holds g as released" test of a duplicate is answered from a log
 * of every write to a slot (buffer, LOST mark, release): a packet behind the
 * head is a duplicate iff the last write to its residue (gseq & mask) was its
 * own release and it is less than capacity behind. */

enum { W_BUF, W_LOST, W_REL, W_SKIP };

struct ref_pkt {
	uint32_t g;
	uint64_t cookie;
	uint64_t arr;
};

struct ref_write {
	uint32_t g;
	uint8_t kind;
	uint64_t t; /* when (W_SKIP: when the hole was given up) */
};

struct ref {
	uint32_t cap, t_lto;
	bool early;
	unsigned npaths;
	bool started;
	uint64_t now; /* of the last push or poll */
	uint32_t head;
	struct ref_pkt *buf;
	unsigned nbuf;
	uint32_t *lost;
	unsigned nlost;
	struct ref_write *log;
	unsigned nlog, logcap;
	bool up[WIRE_MAX_PATHS], seen[WIRE_MAX_PATHS];
	uint32_t top[WIRE_MAX_PATHS];
	struct egr_reseq_stats st;
	/* coverage of the generator (not compared) */
	uint64_t n_burst;       /* burst rule fired */
	uint64_t n_burst_miss;  /* span fine, unknown != missing: pgap rule */
	uint64_t n_stale_push;  /* push on a path whose top was stale */
	uint64_t n_stale_block; /* all-passed stopped by a stale top */
	/* released, in order */
	uint32_t *out_g;
	uint64_t *out_cookie;
	unsigned nout, outcap;
};

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n);

	assert_non_null(q);
	return q;
}

static void ref_log(struct ref *r, uint32_t g, uint8_t kind)
{
	if (r->nlog == r->logcap) {
		r->logcap = r->logcap ? 2 * r->logcap : 256;
		r->log = xrealloc(r->log, r->logcap * sizeof(*r->log));
	}
	r->log[r->nlog].g = g;
	r->log[r->nlog].kind = kind;
	r->log[r->nlog].t = r->now;
	r->nlog++;
}

static int ref_find(const struct ref *r, uint32_t g)
{
	unsigned i;

	for (i = 0; i < r->nbuf; i++) {
		if (r->buf[i].g == g) {
			return (int)i;
		}
	}
	return -1;
}

static bool ref_is_lost(const struct ref *r, uint32_t g)
{
	unsigned i;

	for (i = 0; i < r->nlost; i++) {
		if (r->lost[i] == g) {
			return true;
		}
	}
	return false;
}

static void ref_unmark(struct ref *r, uint32_t g)
{
	unsigned i;

	for (i = 0; i < r->nlost;) {
		if (r->lost[i] == g) {
			r->lost[i] = r->lost[--r->nlost];
		} else {
			i++;
		}
	}
}

/* mark_lost: x at or ahead of the head, within capacity, not buffered. */
static void ref_mark(struct ref *r, uint32_t x)
{
	int32_t dx = seq_diff(x, r->head);
	unsigned i;

	if (dx < 0 || (uint32_t)dx >= r->cap || ref_find(r, x) >= 0) {
		return;
	}
	ref_log(r, x, W_LOST);
	if (ref_is_lost(r, x)) {
		return;
	}
	/* marks the head has jumped over can never be the head again (it
	 * only moves forward here and never goes round 2^32): drop them so
	 * that the list stays short */
	for (i = 0; i < r->nlost;) {
		if (seq_before(r->lost[i], r->head)) {
			r->lost[i] = r->lost[--r->nlost];
		} else {
			i++;
		}
	}
	r->lost = xrealloc(r->lost, (r->nlost + 1) * sizeof(*r->lost));
	r->lost[r->nlost++] = x;
}

static void ref_emit(struct ref *r, uint32_t g, uint64_t cookie)
{
	if (r->nout == r->outcap) {
		r->outcap = r->outcap ? 2 * r->outcap : 256;
		r->out_g = xrealloc(r->out_g, r->outcap * sizeof(*r->out_g));
		r->out_cookie = xrealloc(r->out_cookie,
					 r->outcap * sizeof(*r->out_cookie));
	}
	r->out_g[r->nout] = g;
	r->out_cookie[r->nout] = cookie;
	r->nout++;
	r->st.released++;
	ref_log(r, g, W_REL);
}

/* Releases the buffered packet at index i (which must be the head). */
static void ref_release_at(struct ref *r, int i)
{
	struct ref_pkt pk = r->buf[i];

	r->buf[i] = r->buf[--r->nbuf];
	ref_emit(r, pk.g, pk.cookie);
}

/* A top that looks capacity or more ahead of the head is stale: the path
 * idled while 2^31 numbers passed. */
static bool ref_top_valid(const struct ref *r, unsigned p)
{
	return r->seen[p] && seq_diff(r->top[p], r->head) < (int32_t)r->cap;
}

static bool ref_all_passed(struct ref *r)
{
	unsigned p;

	for (p = 0; p < r->npaths; p++) {
		if (!r->up[p]) {
			continue;
		}
		if (r->seen[p] && !ref_top_valid(r, p)) {
			r->n_stale_block++;
			return false;
		}
		if (!ref_top_valid(r, p) || !seq_after(r->top[p], r->head)) {
			return false;
		}
	}
	return true;
}

/* passed: the counter for holes given up by the all-passed rule; force:
 * apply that rule even with early_release off (path down). */
static void ref_drain(struct ref *r, uint64_t *passed, bool force)
{
	while (r->nbuf > 0) {
		int i = ref_find(r, r->head);

		if (i >= 0) {
			ref_release_at(r, i);
		} else if (ref_is_lost(r, r->head)) {
			ref_unmark(r, r->head);
			ref_log(r, r->head, W_SKIP);
			r->st.hole_early++;
		} else if ((r->early || force) && ref_all_passed(r)) {
			ref_log(r, r->head, W_SKIP);
			(*passed)++;
		} else {
			break;
		}
		r->head++;
	}
}

static void ref_init(struct ref *r, uint32_t cap, uint32_t t_lto, bool early,
		     unsigned npaths)
{
	unsigned p;

	memset(r, 0, sizeof(*r));
	r->cap = cap;
	r->t_lto = t_lto;
	r->early = early;
	r->npaths = npaths;
	for (p = 0; p < WIRE_MAX_PATHS; p++) {
		r->up[p] = true;
	}
	r->buf = xrealloc(NULL, (size_t)(cap + 1) * sizeof(*r->buf));
}

static void ref_free(struct ref *r)
{
	free(r->buf);
	free(r->lost);
	free(r->log);
	free(r->out_g);
	free(r->out_cookie);
}

/* The last write of g (behind the head) to its slot if it was of kind:
 * the slot still tells what happened to it; NULL otherwise. */
static const struct ref_write *ref_slot_says(const struct ref *r, uint32_t g,
					     uint8_t kind)
{
	uint32_t mask = r->cap - 1;
	unsigned i;

	if (r->head - g >= r->cap) {
		return NULL;
	}
	for (i = r->nlog; i-- > 0;) {
		if ((r->log[i].g & mask) == (g & mask)) {
			return r->log[i].kind == kind && r->log[i].g == g
				       ? &r->log[i]
				       : NULL;
		}
	}
	return NULL;
}

/* The burst rule's conditions on the range (prev, g), other than the count
 * itself: prev_ok, g after prev, prev + 1 at or ahead of the head, and
 * missing <= span < capacity.  If they hold, *unknown is the number of x in
 * the range that are not buffered. */
static bool ref_burst_span(const struct ref *r, bool prev_ok, uint32_t prev,
			   uint32_t g, uint32_t missing, uint32_t *unknown)
{
	uint32_t span = g - prev - 1;
	unsigned i;

	if (!prev_ok || !seq_after(g, prev) || seq_diff(prev + 1, r->head) < 0 ||
	    missing > span || span >= r->cap) {
		return false;
	}
	*unknown = span;
	for (i = 0; i < r->nbuf; i++) {
		if (r->buf[i].g - prev - 1 < span) {
			(*unknown)--;
		}
	}
	return true;
}

static enum egr_verdict ref_push(struct ref *r, uint32_t g, unsigned path,
				 uint32_t missing, uint16_t pgap, uint64_t now,
				 uint64_t cookie)
{
	const struct ref_write *w;
	enum egr_verdict v;
	uint32_t prev;
	bool prev_ok;
	int32_t d;

	r->now = now;
	if (!r->started) {
		r->started = true;
		r->head = g;
	}
	/* step 0: path bookkeeping (head as at the start of this push) */
	prev_ok = ref_top_valid(r, path);
	prev = r->top[path];
	if (r->seen[path] && !prev_ok) {
		r->n_stale_push++;
	}
	if (!prev_ok || seq_after(g, prev)) {
		r->seen[path] = true;
		r->top[path] = g;
	}
	if (r->early && missing > 0) {
		uint32_t unknown;
		bool burst = false;

		if (ref_burst_span(r, prev_ok, prev, g, missing, &unknown)) {
			if (unknown == missing) {
				uint32_t x;

				/* the pgap rule is subsumed */
				for (x = prev + 1; x != g; x++) {
					ref_mark(r, x);
				}
				burst = true;
				r->n_burst++;
			} else {
				r->n_burst_miss++;
			}
		}
		if (!burst && pgap != 0) {
			ref_mark(r, g - pgap);
		}
	}
	d = seq_diff(g, r->head);
	if (d < 0) {
		if (ref_slot_says(r, g, W_REL)) {
			r->st.dup++;
			v = EGR_DROP_DUP;
		} else if ((w = ref_slot_says(r, g, W_SKIP)) &&
			   now - w->t <= r->t_lto) {
			/* given up a timeout ago at most: out of order */
			ref_emit(r, g, cookie);
			r->st.late++;
			v = EGR_RELEASED;
		} else {
			r->st.too_old++;
			v = EGR_DROP_LATE;
		}
		ref_drain(r, &r->st.hole_early, false);
		return v;
	}
	if ((uint32_t)d >= r->cap) {
		uint32_t target = g - r->cap + 1;

		r->st.overflow++;
		while (r->head != target && r->nbuf > 0) {
			int i = ref_find(r, r->head);

			if (i >= 0) {
				ref_release_at(r, i);
			} else {
				ref_unmark(r, r->head);
				ref_log(r, r->head, W_SKIP);
				r->st.hole_overflow++;
			}
			r->head++;
		}
		r->head = target;
		d = seq_diff(g, r->head);
	}
	if (d == 0) {
		ref_emit(r, g, cookie);
		r->st.in_order++;
		r->head++;
		v = EGR_RELEASED;
	} else if (ref_find(r, g) >= 0) {
		r->st.dup++;
		v = EGR_DROP_DUP;
	} else {
		r->buf[r->nbuf].g = g;
		r->buf[r->nbuf].cookie = cookie;
		r->buf[r->nbuf].arr = now;
		r->nbuf++;
		ref_unmark(r, g);
		ref_log(r, g, W_BUF);
		r->st.buffered++;
		v = EGR_BUFFERED;
	}
	ref_drain(r, &r->st.hole_early, false);
	if (v == EGR_BUFFERED && ref_find(r, g) < 0) {
		v = EGR_RELEASED;
	}
	return v;
}

static bool ref_deadline(const struct ref *r, uint64_t *when)
{
	uint64_t min = UINT64_MAX;
	unsigned i;

	if (r->nbuf == 0) {
		return false;
	}
	for (i = 0; i < r->nbuf; i++) {
		if (r->buf[i].arr < min) {
			min = r->buf[i].arr;
		}
	}
	*when = min + r->t_lto;
	return true;
}

static void ref_poll(struct ref *r, uint64_t now)
{
	uint64_t when;

	r->now = now;
	while (ref_deadline(r, &when) && when <= now) {
		ref_unmark(r, r->head);
		ref_log(r, r->head, W_SKIP);
		r->st.hole_timeout++;
		r->head++;
		ref_drain(r, &r->st.hole_early, false);
	}
}

static void ref_set_path_up(struct ref *r, unsigned path, bool up)
{
	r->up[path] = up;
	if (!up) {
		/* with no path up the all-passed rule holds vacuously:
		 * everything is released */
		ref_drain(r, &r->st.hole_path_down, true);
	}
}

static void ref_flush(struct ref *r)
{
	while (r->nbuf > 0) {
		int i = ref_find(r, r->head);

		if (i >= 0) {
			ref_release_at(r, i);
		} else {
			ref_unmark(r, r->head);
			ref_log(r, r->head, W_SKIP);
			r->st.hole_flush++;
		}
		r->head++;
	}
}

/* ---------------------------------------------------------------------- */
/* Randomized differential test */

static uint64_t rng_state;

static uint32_t rnd(void)
{
	/* xorshift64*: deterministic across platforms */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545F4914F6CDD1DULL) >> 32);
}

static uint32_t rnd_below(uint32_t n)
{
	return n ? rnd() % n : 0;
}

struct dsink {
	uint32_t *g;
	uint64_t *cookie;
	unsigned n, cap;
};

static void dsink_release(void *ctx, uint64_t cookie, uint32_t gseq)
{
	struct dsink *s = ctx;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->g = xrealloc(s->g, s->cap * sizeof(*s->g));
		s->cookie = xrealloc(s->cookie, s->cap * sizeof(*s->cookie));
	}
	s->g[s->n] = gseq;
	s->cookie[s->n] = cookie;
	s->n++;
}

enum { D_SCENARIOS = 3000, D_WITHHELD = 64, D_HIST = 64 };

/* The last events of a scenario, printed when it fails: each an event's
 * description (up to WHAT - 1 characters) and the reference's state, whole
 * (67 characters besides the description at most). */
enum { TRAIL = 24, WHAT = 96 };
static char trail[TRAIL][WHAT + 67];
static unsigned trail_n;

static void trail_add(unsigned ev, const char *what, const struct ref *r)
{
	snprintf(trail[trail_n % TRAIL], sizeof(trail[0]),
		 "  event %u: %s (ref after: head %" PRIu32 " depth %u)", ev,
		 what, r->head, r->nbuf);
	trail_n++;
}

static void trail_print(void)
{
	unsigned i = trail_n > TRAIL ? trail_n - TRAIL : 0;

	print_error("last events:\n");
	for (; i < trail_n; i++) {
		print_error("%s\n", trail[i % TRAIL]);
	}
}

#define DFAIL(...)                                                             \
	do {                                                                   \
		if (verbose) {                                                 \
			trail_print();                                         \
			print_error("scenario %u (seed %" PRIu64               \
				    ", cap %" PRIu32 ", t_lto %" PRIu32        \
				    ", early %d, npaths %u), event %u: ",      \
				    sc, seed, cap, t_lto, early, npaths, ev);  \
			print_error(__VA_ARGS__);                              \
			print_error("\n");                                     \
		}                                                              \
		goto failed;                                                   \
	} while (0)

/* One random scenario against the reference; false (after printing what
 * differed if verbose) at the first disagreement. */
struct dcover {
	uint64_t burst, burst_miss, stale_push, stale_block, aimed;
};

static bool run_scenario(unsigned sc, bool verbose, struct dcover *cov)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL * (sc + 1);
	uint32_t cap, t_lto, start, sent;
	uint32_t withheld[D_WITHHELD], hist[D_HIST];
	unsigned nwith = 0, nhist = 0, npaths, nev, ev, p;
	bool early, lazy, huge_done = false;
	struct egr_reseq_params prm;
	struct egr_reseq r;
	struct ref ref;
	struct dsink s = {0};
	uint64_t t = 1000;
	unsigned checked = 0;
	bool ok = false;

	rng_state = seed;
	trail_n = 0;
	cap = 8u << rnd_below(8);
	t_lto = 50 + rnd_below(2000);
	early = rnd() & 1;
	npaths = 1 + rnd_below(4);
	start = rnd_below(4) == 0 ? rnd() : 0xffffffffu - rnd_below(600);
	nev = 200 + rnd_below(200);
	sent = start;
	/* the last path carries little: its top falls behind (and goes stale
	 * after the 2^31 jump) */
	lazy = npaths >= 2 && (rnd() & 1);

	prm.t_lto_us = t_lto;
	prm.early_release = early;
	prm.capacity = cap;
	if (egr_reseq_init(&r, &prm, npaths, dsink_release, &s) != 0) {
		print_error("scenario %u: init failed\n", sc);
		return false;
	}
	ref_init(&ref, cap, t_lto, early, npaths);

	for (ev = 0; ev < nev; ev++) {
		uint32_t k = rnd_below(100);
		bool push = false, huge = false;
		uint32_t g = 0;
		char what[WHAT] = "";

		if (rnd_below(4) == 0) {
			t += rnd_below(t_lto / 3 + 1);
		}
		if (k < 55) {
			/* the next new packet, maybe after a gap */
			if (rnd_below(6) == 0) {
				uint32_t gap = 1 + rnd_below(5), j;

				for (j = 0; j < gap; j++) {
					if (nwith < D_WITHHELD &&
					    rnd_below(10) < 7) {
						withheld[nwith++] =
							sent;
					}
					sent++;
				}
			}
			g = sent++;
			push = true;
		} else if (k < 68 && nwith > 0) {
			/* a reordered one */
			uint32_t j = rnd_below(nwith);

			g = withheld[j];
			withheld[j] = withheld[--nwith];
			push = true;
		} else if (k < 74 && nhist > 0) {
			/* a duplicate of a recent push */
			g = hist[rnd_below(nhist)];
			push = true;
		} else if (k < 76) {
			/* something old */
			g = sent - 1 - rnd_below(2 * cap + 10);
			push = true;
		} else if (k < 78) {
			/* a jump ahead, beyond the window sometimes */
			sent += cap / 2 + rnd_below(cap + cap / 2);
			g = sent++;
			push = true;
		} else if (k < 79 && !huge_done && ref.started) {
			/* 2^31 - 1 ahead (forced window) or exactly
			 * 2^31 (behind) */
			huge_done = true;
			huge = true;
			if (rnd() & 1) {
				g = ref.head + 0x7fffffffu;
				sent = g + 1;
				/* old numbers would now be ~2^31
				 * ahead: one more jump would take the
				 * head round 2^32, where a slot's
				 * history is unspecified */
				nwith = 0;
				nhist = 0;
			} else {
				g = ref.head + 0x80000000u;
			}
			push = true;
		} else if (k < 90) {
			snprintf(what, sizeof(what), "poll %" PRIu64,
				 t);
			egr_reseq_poll(&r, t);
			ref_poll(&ref, t);
		} else if (k < 94) {
			t += rnd_below(3 * t_lto + 1);
			snprintf(what, sizeof(what), "poll %" PRIu64,
				 t);
			egr_reseq_poll(&r, t);
			ref_poll(&ref, t);
		} else if (k < 96) {
			bool up;

			p = rnd_below(npaths);
			up = !ref.up[p];
			if (up || rnd_below(3) == 0) {
				snprintf(what, sizeof(what),
					 "path %u up %d", p, up);
				egr_reseq_set_path_up(&r, p, up);
				ref_set_path_up(&ref, p, up);
			} else {
				snprintf(what, sizeof(what), "nop");
			}
		} else if (k < 97) {
			snprintf(what, sizeof(what), "flush");
			egr_reseq_flush(&r);
			ref_flush(&ref);
		} else {
			snprintf(what, sizeof(what), "nop");
		}

		if (push) {
			uint32_t missing = 0;
			uint16_t pgap = 0;
			uint32_t u = rnd_below(10);
			uint64_t cookie =
				((uint64_t)(ev + 1) << 32) | g;
			enum egr_verdict vi, vr;

			p = rnd_below(npaths);
			if (lazy && p == npaths - 1 && rnd_below(8) != 0) {
				p = rnd_below(npaths - 1);
			}
			if (rnd_below(4) == 0) {
				missing = 1 + rnd_below(3);
			}
			/* half the time aim missing at the burst rule: the
			 * number of unknown gseqs between the path's top and
			 * g (as the reference sees it), or one off */
			if (ref.started && rnd_below(2) == 0) {
				uint32_t un;

				if (ref_burst_span(&ref, ref_top_valid(&ref, p),
						   ref.top[p], g, 1, &un) &&
				    un > 0) {
					uint32_t a = rnd_below(10);

					missing = a < 6 ? un
						  : a < 8 || un == 1 ? un + 1
								     : un - 1;
					cov->aimed++;
				}
			}
			if (u < 3) {
				pgap = (uint16_t)(1 + rnd_below(20));
			} else if (u < 5 && ref.started &&
				   g - ref.head >= 1 &&
				   g - ref.head <= 65535) {
				/* at the head hole */
				pgap = (uint16_t)(g - ref.head);
			} else if (u < 6 && nwith > 0) {
				uint32_t x = withheld[rnd_below(nwith)];

				if (g - x >= 1 && g - x <= 65535) {
					pgap = (uint16_t)(g - x);
				}
			}
			snprintf(what, sizeof(what),
				 "push %" PRIu32 " path %u missing %"
				 PRIu32 " pgap %u t %" PRIu64,
				 g, p, missing, pgap, t);
			vi = egr_reseq_push(&r, g, p, missing, pgap, t,
					    cookie);
			vr = ref_push(&ref, g, p, missing, pgap, t,
				      cookie);
			if (vi != vr) {
				DFAIL("%s: verdict %s, reference %s",
				      what, verdict_name(vi),
				      verdict_name(vr));
			}
			if (huge) {
				/* replayed later it would be another
				 * jump of ~2^31 */
			} else if (nhist < D_HIST) {
				hist[nhist++] = g;
			} else {
				hist[rnd_below(D_HIST)] = g;
			}
		}

		trail_add(ev, what, &ref);

		/* released so far, stats, depth, deadline */
		if (s.n != ref.nout) {
			DFAIL("%s: %u released, reference %u", what,
			      s.n, ref.nout);
		}
		for (; checked < s.n; checked++) {
			if (s.g[checked] != ref.out_g[checked] ||
			    s.cookie[checked] !=
				    ref.out_cookie[checked]) {
				DFAIL("%s: release #%u is %" PRIu32
				      " cookie %#" PRIx64
				      ", reference %" PRIu32
				      " cookie %#" PRIx64,
				      what, checked, s.g[checked],
				      s.cookie[checked],
				      ref.out_g[checked],
				      ref.out_cookie[checked]);
			}
		}
		if (!stats_match(&r.st, &ref.st, verbose)) {
			DFAIL("%s: stats differ (got vs reference, "
			      "above)",
			      what);
		}
		if (egr_reseq_depth(&r) != ref.nbuf) {
			DFAIL("%s: depth %" PRIu32 ", reference %u",
			      what, egr_reseq_depth(&r), ref.nbuf);
		}
		{
			uint64_t wi = 0, wr = 0;
			bool di = egr_reseq_deadline(&r, &wi);
			bool dr = ref_deadline(&ref, &wr);

			if (di != dr || (di && wi != wr)) {
				DFAIL("%s: deadline %d/%" PRIu64
				      ", reference %d/%" PRIu64,
				      what, di, wi, dr, wr);
			}
		}
	}
	ok = true;
failed:
	cov->burst += ref.n_burst;
	cov->burst_miss += ref.n_burst_miss;
	cov->stale_push += ref.n_stale_push;
	cov->stale_block += ref.n_stale_block;
	egr_reseq_free(&r);
	ref_free(&ref);
	free(s.g);
	free(s.cookie);
	return ok;
}

static void test_differential(void **state)
{
	unsigned sc, bad = 0, first = 0;
	struct dcover cov = {0};

	(void)state;
	for (sc = 0; sc < D_SCENARIOS; sc++) {
		if (!run_scenario(sc, bad < 3, &cov)) {
			if (bad++ == 0) {
				first = sc;
			}
		}
	}
	print_message("differential: burst rule fired %" PRIu64
		      ", span fine but unknown != missing %" PRIu64
		      " (aimed %" PRIu64 "); pushes on a stale top %" PRIu64
		      ", all-passed stopped by a stale top %" PRIu64 "\n",
		      cov.burst, cov.burst_miss, cov.aimed, cov.stale_push,
		      cov.stale_block);
	if (bad) {
		fail_msg("%u of %u scenarios disagree with the reference "
			 "(first: %u)",
			 bad, D_SCENARIOS, first);
	}
	/* otherwise the new rules would hardly be checked */
	if (cov.burst < 300 || cov.burst_miss < 300) {
		fail_msg("burst rule fired %" PRIu64 " times, mismatched %"
			 PRIu64 " times: too few", cov.burst, cov.burst_miss);
	}
	if (cov.stale_push < 10 || cov.stale_block < 10) {
		fail_msg("stale tops reached too rarely (%" PRIu64 " pushes, %"
			 PRIu64 " blocks)", cov.stale_push, cov.stale_block);
	}
}

/* ---------------------------------------------------------------------- */
/* init / set_params */

static void nop_release(void *ctx, uint64_t cookie, uint32_t gseq)
{
	(void)ctx;
	(void)cookie;
	(void)gseq;
}

static void test_init_params(void **state)
{
	static const uint32_t bad_caps[] = {0, 1, 3, 6, 12, 1000,
					    (1u << 20) + 1, 1u << 21,
					    0x80000000u, 0xffffffffu};
	static const uint32_t good_caps[] = {2, 4, 8, 1024, 1u << 20};
	struct egr_reseq_params p = {.t_lto_us = 1000, .capacity = 64};
	struct egr_reseq r;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_caps) / sizeof(bad_caps[0]); i++) {
		p.capacity = bad_caps[i];
		if (egr_reseq_init(&r, &p, 2, nop_release, NULL) != -EINVAL) {
			fail_msg("capacity %" PRIu32 " accepted",
				 bad_caps[i]);
		}
	}
	for (i = 0; i < sizeof(good_caps) / sizeof(good_caps[0]); i++) {
		p.capacity = good_caps[i];
		if (egr_reseq_init(&r, &p, 2, nop_release, NULL) != 0) {
			fail_msg("capacity %" PRIu32 " refused",
				 good_caps[i]);
		}
		egr_reseq_free(&r);
	}
	p.capacity = 64;
	p.t_lto_us = 0;
	assert_int_equal(egr_reseq_init(&r, &p, 2, nop_release, NULL),
			 -EINVAL);
	/* no buffer until the first packet (a silent CPE costs none): the
	 * calls of an idle session work without one */
	p.t_lto_us = 1000;
	assert_int_equal(egr_reseq_init(&r, &p, 2, nop_release, NULL), 0);
	assert_null(r.slot);
	egr_reseq_set_path_up(&r, 1, false);
	egr_reseq_poll(&r, 5000);
	egr_reseq_flush(&r);
	egr_reseq_reset(&r);
	assert_null(r.slot);
	assert_int_equal(egr_reseq_push(&r, 7, 0, 0, 0, 6000, 1),
			 EGR_RELEASED);
	assert_non_null(r.slot);
	assert_int_equal(egr_reseq_alloc(&r), 0); /* once */
	egr_reseq_free(&r);
}

static void test_set_params(void **state)
{
	struct egr_reseq_params p = {.t_lto_us = 1000, .capacity = 64};
	struct egr_reseq_params q;
	struct egr_reseq r;
	struct sink *s = calloc(1, sizeof(*s));
	uint64_t when;

	(void)state;
	assert_non_null(s);
	assert_int_equal(egr_reseq_init(&r, &p, 1, sink_release, s), 0);
	assert_int_equal(egr_reseq_push(&r, 0, 0, 0, 0, 0, COOKIE(0)),
			 EGR_RELEASED);
	assert_int_equal(egr_reseq_push(&r, 2, 0, 0, 0, 100, COOKIE(2)),
			 EGR_BUFFERED);

	/* capacity change refused, nothing changed */
	q = p;
	q.capacity = 128;
	q.t_lto_us = 10;
	assert_int_equal(egr_reseq_set_params(&r, &q), -EINVAL);
	q = p;
	q.capacity = 32;
	assert_int_equal(egr_reseq_set_params(&r, &q), -EINVAL);
	/* bad t_lto refused */
	q = p;
	q.t_lto_us = 0;
	assert_int_equal(egr_reseq_set_params(&r, &q), -EINVAL);
	assert_true(egr_reseq_deadline(&r, &when));
	assert_int_equal(when, 1100);
	egr_reseq_poll(&r, 1099);
	assert_int_equal(s->n, 1);

	/* t_lto shorter: due at once */
	q = p;
	q.t_lto_us = 300;
	assert_int_equal(egr_reseq_set_params(&r, &q), 0);
	assert_true(egr_reseq_deadline(&r, &when));
	assert_int_equal(when, 400);
	egr_reseq_poll(&r, 400);
	assert_int_equal(s->n, 2);
	assert_int_equal(r.st.hole_timeout, 1);

	/* early_release on: a single path that has passed the hole */
	assert_int_equal(egr_reseq_push(&r, 5, 0, 0, 0, 500, COOKIE(5)),
			 EGR_BUFFERED);
	q.early_release = true;
	assert_int_equal(egr_reseq_set_params(&r, &q), 0);
	assert_int_equal(egr_reseq_push(&r, 7, 0, 0, 0, 600, COOKIE(7)),
			 EGR_RELEASED);
	assert_int_equal(s->n, 4);
	assert_int_equal(s->g[2], 5);
	assert_int_equal(s->g[3], 7);
	assert_int_equal(r.st.hole_early, 3);
	egr_reseq_free(&r);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_init_params),
		cmocka_unit_test(test_set_params),
		cmocka_unit_test(test_differential),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
