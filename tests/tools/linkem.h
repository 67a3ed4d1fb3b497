/* SPDX-License-Identifier: BSD-2-Clause */
/* l3b-linkem core: the link model, without any kernel access.
 *
 * A link delays each packet by delay + uniform jitter in [0, jitter] and
 * keeps FIFO order: the delivery time of a packet is
 *
 *	max(delivery time of the previous packet, arrival + delay + U[0,
 *jitter])
 *
 * so delivery times are monotonic and the held packets form a ring sorted by
 * time: release is "pop while head <= now", no heap, no per-packet malloc.
 * Losses are drawn from a seeded PRNG (uniform loss, and optionally a
 * Gilbert-Elliott two-state channel for bursts); "down" drops everything,
 * including what is held (the packets on a cut wire are gone).
 *
 * A consequence of FIFO jitter: when packets come closer together than the
 * jitter, the max() pulls their delays towards delay + jitter.  At 10
 * Mbit/s of 1400-byte packets, "delay 25 jitter 20" gives 31-45 ms with a
 * median near 40 ms.  To emulate a path whose delay wanders, change the
 * delay itself over time (the ctl command) rather than the jitter.
 *
 * The I/O half (linkem.c) maps "held" to an NFQUEUE packet whose verdict is
 * not given yet, and "release up to id X" to one NF_ACCEPT batch verdict.
 */
#ifndef L3B_LINKEM_H
#define L3B_LINKEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lk_params {
	double delay_ms;  /* fixed one-way delay */
	double jitter_ms; /* extra delay, uniform in [0, jitter_ms] */
	double loss;	  /* independent loss probability, 0..1 */
	/* Gilbert-Elliott: p = P(good -> bad), r = P(bad -> good) per packet,
	 * loss probability in each state.  Off while ge_p == 0. */
	double ge_p;
	double ge_r;
	double ge_loss_bad;
	double ge_loss_good;
	bool down; /* link cut: drop everything */
};

struct lk_rng {
	uint64_t s[4];
};

struct lk_slot {
	uint32_t id;
	uint64_t t_ns; /* delivery time, CLOCK_MONOTONIC */
};

/* What counts as late (lk_stats), and the largest lag believed. */
#define LK_LATE_1MS_NS 1000000ULL
#define LK_LATE_5MS_NS 5000000ULL
#define LK_LAG_MAX_NS 1000000000ULL

struct lk_stats {
	uint64_t packets;      /* seen */
	uint64_t released;     /* accepted after their delay */
	uint64_t dropped_loss; /* random loss (uniform or Gilbert-Elliott) */
	uint64_t dropped_down; /* arrived while the link was down */
	uint64_t dropped_full; /* ring full: cannot happen if ring >= maxlen */
	uint64_t flushed;      /* held when the link went down */
	uint64_t max_held;
	/* How far the emulator itself fell behind (its process shares the
	 * CPUs with everything it carries): a packet handed to us more than
	 * 1 ms after the kernel stamped it (rx_lag, counted from that stamp,
	 * so the delay is still exact) and one released more than 1 ms after
	 * its delivery time (late: the wire held it that much longer). */
	uint64_t rx_lag_1ms;
	uint64_t rx_lag_5ms;
	uint64_t rx_lag_max_ns;
	uint64_t late_1ms;
	uint64_t late_5ms;
	uint64_t late_max_ns;
	/* how late the most late release since the last "mark" (lk_parse)
	 * was: a bench marks each case's start and reads how far the bed
	 * stalled in it */
	uint64_t late_mark_max_ns;
};

struct lk_link {
	struct lk_params p;
	struct lk_rng rng;
	bool ge_bad; /* Gilbert-Elliott state */
	uint64_t last_t_ns;
	struct lk_slot *ring;
	uint32_t mask;
	uint32_t head; /* next to release */
	uint32_t tail; /* next free */
	struct lk_stats st;
};

enum lk_fate {
	LK_HOLD = 0,
	LK_DROP_LOSS,
	LK_DROP_DOWN,
	LK_DROP_FULL,
};

void lk_rng_seed(struct lk_rng *r, uint64_t seed);
uint64_t lk_rng_next(struct lk_rng *r);
/* Uniform in [0, 1). */
double lk_rng_unit(struct lk_rng *r);

/* capacity is rounded up to a power of two.  Returns 0 or -errno. */
int lk_init(struct lk_link *l, uint32_t capacity, uint64_t seed);
void lk_free(struct lk_link *l);

/* A packet arrives at now_ns.  LK_HOLD: it is in the ring; otherwise the
 * caller drops it now. */
enum lk_fate lk_arrive(struct lk_link *l, uint32_t id, uint64_t now_ns);

/* Pops every held packet due at now_ns.  Returns how many; *last_id is the
 * id of the last one (the batch verdict covers it and all before). */
uint32_t lk_release(struct lk_link *l, uint64_t now_ns, uint32_t *last_id);

/* Delivery time of the head.  Returns false if nothing is held. */
bool lk_next(const struct lk_link *l, uint64_t *t_ns);

/* Drops everything held (link cut).  Returns how many; *last_id as above. */
uint32_t lk_flush(struct lk_link *l, uint32_t *last_id);

/* Starts late_mark_max_ns again ("mark"). */
static inline void lk_mark(struct lk_link *l)
{
	l->st.late_mark_max_ns = 0;
}

static inline uint32_t lk_held(const struct lk_link *l)
{
	return l->tail - l->head;
}

/* What a control command asks besides parameters (lk_parse's *what). */
enum {
	LK_CMD_STATS = 1, /* "stats": the counters (every answer has them) */
	LK_CMD_MARK = 2,  /* "mark": late_mark_max_ns starts again, after
			   * this answer */
};

/* Parses a control command into *p, all or nothing:
 *	"delay 25 jitter 20 loss 0.01 ge 0.01 0.3 1 0 down|up"
 * Keys may come in any order; "stats" and "mark" set their LK_CMD_* bit in
 * *what and change nothing.  On error returns -EINVAL with a message
 * quoting the bad token in err. */
int lk_parse(const char *cmd, struct lk_params *p, unsigned *what, char *err,
	     size_t errlen);

/* Writes the parameters as JSON members ("delay_ms":25.000,...), without
 * braces.  Returns what snprintf returns. */
int lk_params_str(const struct lk_params *p, char *buf, size_t len);

#endif
