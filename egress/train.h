/* SPDX-License-Identifier: BSD-2-Clause */
/* The peer's packet train on one path, as the egress receives it
 * (DESIGN.md, "The rate learned"): the ingress sends TRAINs back to back
 * on a fixed path whose rate it has not learned yet; the line is busy with
 * them throughout, so what arrives on the path between the train's middle
 * packet and its last, over the time between their arrivals, is the line's
 * rate, whatever DATA shared it.  The first half is not timed: a shaper's
 * burst (the bed's tbf lets 16 KB through at once) passes it at once.
 *
 * Pure: the caller passes the kernel's arrival stamp and the path's
 * counters with the packet counted, and sends the answer.
 */
#ifndef L3BOND_EGR_TRAIN_H
#define L3BOND_EGR_TRAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "common/wire.h"

enum {
	/* answers at most one train a path in this long: a peer sends one
	 * every 2 s at most, a hostile one gets no answer per packet */
	EGR_TRAIN_ANSWER_GAP_US = 1000000,
};

struct egr_train {
	bool on;       /* a train is arriving */
	bool have_mid; /* its middle packet arrived */
	bool untimed;  /* one of its packets had no kernel stamp */
	uint16_t got;  /* its packets arrived */
	uint16_t last_idx;
	uint32_t id;
	uint64_t mid_us;    /* the middle one's arrival */
	uint64_t mid_bytes; /* the path's counters with it */
	uint64_t mid_pkts;
	uint64_t answered_us; /* the last answer (0: none yet) */
};

/* A TRAIN t arrived at at_us (the kernel's stamp; 0: none) and now_us;
 * rx_bytes, rx_pkts: the path's received IP bytes and packets, t's
 * included; extra: the bytes each packet's outer header has over IPv4's
 * (20 over IPv6), taken off so that the rate is in the bytes the peer's
 * pace counts.  true when t ends a train and its answer is due: *a holds
 * it (bytes and dt_us 0 when its middle packet or a stamp was missing).
 * A train whose id or index goes back (a peer that restarted numbers
 * from 1 again) starts afresh. */
bool egr_train_rx(struct egr_train *r, const struct wire_train *t,
		  uint64_t at_us, uint64_t now_us, uint64_t rx_bytes,
		  uint64_t rx_pkts, uint32_t extra,
		  struct wire_train_ack *a);

#endif
