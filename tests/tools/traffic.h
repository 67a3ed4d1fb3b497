/* SPDX-License-Identifier: BSD-2-Clause */
/* l3b-traffic core: probe format, payload pattern, receiver accounting and
 * rate profiles, without sockets (unit-tested in test_testtools.c).
 *
 * A UDP probe is a 32-byte header, big-endian:
 *	0  magic "L3BT"      4  flags (FIN)  6  version (1)
 *	8  run id            12 reserved (0)
 *	16 sequence number (64 bits, from 0)
 *	24 send time, CLOCK_MONOTONIC ns (all namespaces share it)
 * followed by a pattern derived from (run, seq), so that the receiver checks
 * every byte.  A FIN probe carries in seq the number of data probes sent.
 *
 * Sizes are IPv4 packet sizes (the paper's 1492 bytes = 20 IP + 8 UDP +
 * 1464 payload) and rates count IPv4 bytes.
 */
#ifndef L3B_TRAFFIC_H
#define L3B_TRAFFIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TR_MAGIC 0x4c334254u /* "L3BT" */

enum {
	TR_HDR_LEN = 32,
	TR_IPUDP_LEN = 28,
	TR_VERSION = 1,
	TR_FLAG_FIN = 1,
	TR_MIN_SIZE = TR_IPUDP_LEN + TR_HDR_LEN,
	TR_MAX_SIZE = 65535 - 8, /* largest IPv4 UDP datagram */
};

/* Highest sequence number the receiver tracks: bounds its bitmap (32 MiB).
 * A test sending more than 2^28 probes is not one we run. */
#define TR_MAX_SEQ (1ULL << 28)

struct tr_hdr {
	uint16_t flags;
	uint32_t run;
	uint64_t seq;
	uint64_t tx_ns;
};

void tr_hdr_put(uint8_t *p, const struct tr_hdr *h);
/* Returns 0 or -EBADMSG (short, magic, version). */
int tr_hdr_get(const uint8_t *p, size_t len, struct tr_hdr *h);

/* The pattern: byte i of the stream for (run, base) is byte (i % 8) of
 * mix(run, base + i / 8).  UDP payloads use base = seq << 20 (room for a
 * 64 KiB datagram); the TCP stream uses base 0 and the stream offset. */
void tr_pattern_fill(uint8_t *p, size_t len, uint32_t run, uint64_t base,
		     uint64_t off);
/* Index of the first byte that differs, or len if none. */
size_t tr_pattern_check(const uint8_t *p, size_t len, uint32_t run,
			uint64_t base, uint64_t off);

/* Builds a whole probe payload of len bytes (len >= TR_HDR_LEN). */
void tr_probe_build(uint8_t *p, size_t len, const struct tr_hdr *h);

enum tr_rx_kind {
	TR_RX_NEW = 0, /* first copy of a data probe */
	TR_RX_DUP,     /* seen before */
	TR_RX_FIN,     /* end marker */
	TR_RX_CORRUPT, /* bad header or pattern */
	TR_RX_FOREIGN, /* another run */
	TR_RX_RANGE,   /* seq beyond TR_MAX_SEQ */
};

struct tr_rx {
	uint32_t run;
	bool have_run;	   /* locked on the first valid probe unless preset */
	uint64_t received; /* valid data probes, duplicates included */
	uint64_t unique;
	uint64_t dup;
	uint64_t reordered; /* new probes with seq below the highest seen */
	uint64_t corrupted;
	uint64_t foreign;
	uint64_t out_of_range;
	uint64_t bytes; /* IPv4 bytes of unique probes */
	uint64_t highest;
	bool any;
	uint64_t fin_total;
	bool fin;
	int64_t first_ns;
	int64_t last_ns;
	uint8_t *seen; /* bitmap by seq, grown by doubling */
	size_t seen_len;
	int64_t *delay_ns; /* one-way delay of each unique probe */
	size_t ndelay;
	size_t delay_cap;
};

void tr_rx_init(struct tr_rx *rx);
void tr_rx_free(struct tr_rx *rx);
/* Accounts for one datagram (UDP payload) arriving at now_ns.  *delay_ns is
 * set for TR_RX_NEW.  Returns the kind or -ENOMEM. */
int tr_rx_packet(struct tr_rx *rx, const uint8_t *p, size_t len, int64_t now_ns,
		 int64_t *delay_ns);
/* Probes the sender sent, as far as we know: the FIN's count, or the
 * highest seq + 1 if the FIN was lost. */
uint64_t tr_rx_expected(const struct tr_rx *rx);
uint64_t tr_rx_lost(const struct tr_rx *rx);

/* Nearest-rank percentile (q in [0, 1]) of v[0..n), sorted in place. */
int64_t tr_percentile(int64_t *v, size_t n, double q);

enum tr_profile_kind {
	TR_PROF_CONST = 0,
	TR_PROF_RAMP,
	TR_PROF_FILE,
};

/* The paper's ramp (section 5): starting at lo, the rate rises
 * exponentially in 200 ms steps for 15 s (75 steps, step i at
 * lo * (hi/lo)^(i/75)), holds hi for 10 s, then falls back as the exact
 * mirror image over 15 s (the rate at t equals the rate at 40 s - t, so
 * the last step is lo again).  After 40 s the rate stays at lo. */
enum {
	TR_RAMP_STEP_MS = 200,
	TR_RAMP_UP_STEPS = 75,
	TR_RAMP_HOLD_STEPS = 50,
	TR_RAMP_DOWN_STEPS = 75,
};

struct tr_profile {
	enum tr_profile_kind kind;
	double rate;	  /* Mbit/s: const rate, or ramp low */
	double rate_high; /* Mbit/s: ramp high */
	double *t;	  /* file: start of each step, seconds, ascending */
	double *r;	  /* file: rate of each step, Mbit/s */
	size_t n;
};

/* Rate in Mbit/s at t_s seconds after the start. */
double tr_profile_rate(const struct tr_profile *pr, double t_s);
/* Loads "SECONDS MBIT" lines ('#' comments).  Returns 0 or -errno; err
 * names the file, line and bad text. */
int tr_profile_load(struct tr_profile *pr, const char *path, char *err,
		    size_t errlen);
void tr_profile_free(struct tr_profile *pr);

#endif
