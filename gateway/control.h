/* SPDX-License-Identifier: BSD-2-Clause */
/* Control messages (control.c): built, sealed under the session keys and
 * sent on a link; those received (REPORT, PROBE, PROBE_ACK, NACK, TRAIN,
 * TRAIN_ACK) taken in.
 */
#ifndef L3BOND_GW_CONTROL_H
#define L3BOND_GW_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/wire.h"

struct gw_link;
struct gw_sess;

enum {
	/* a TRAIN's body: its packets' outer size about 1176 bytes (IPv4),
	 * 1196 (IPv6), under the IPv6 minimum MTU of 1280 */
	GW_TRAIN_BODY = 1100,
	/* a train (sized by ing_sched_train_due), at most GW_TRAIN_TRIES a
	 * session, GW_TRAIN_RETRY_MS apart, GW_TRAIN_PER_SEC a second for
	 * the whole daemon (a concentrator's CPEs after its restart) */
	GW_TRAIN_TRIES = 4,
	GW_TRAIN_RETRY_MS = 2000,
	GW_TRAIN_PER_SEC = 20,
	/* a train's answer is refused with more than 1/n of it missing (what
	 * the line lost after its bottleneck took its time there), or timed
	 * over less than GW_TRAIN_MIN_DT_US (a line over about 290 Mbit/s,
	 * or a NIC's coalescing: the rate read is not the line's) */
	GW_TRAIN_MISS_DIV = 16,
	GW_TRAIN_MIN_DT_US = 1000,
	/* an IPv6 outer header's bytes over IPv4's: the pace counts every
	 * tunnel packet as IPv4's (WIRE_OVERHEAD) */
	GW_OUTER6_EXTRA = 20,
	GW_CTRL_MAX = WIRE_HDR_LEN + (WIRE_REPORT_MAX > GW_TRAIN_BODY
					      ? WIRE_REPORT_MAX
					      : GW_TRAIN_BODY) +
		      WIRE_TAG_LEN,
	/* a PROBE's id: a counter above the probed path's index */
	GW_PROBE_PATH_BITS = 4,
	GW_PROBE_PATH_MASK = (1u << GW_PROBE_PATH_BITS) - 1,
	/* the probe number above them, serial */
	GW_PROBE_SEQ_MASK = UINT32_MAX >> GW_PROBE_PATH_BITS,
};
_Static_assert(WIRE_MAX_PATHS <= GW_PROBE_PATH_MASK + 1,
	       "a probe id names every path");

/* Sends a control message of type with body on l's path to its peer.
 * gseq: the type's counter; now_us: the header's timestamp (now; a
 * REPORT's, when the latest DATA it counts arrived).  0 or -errno. */
int gw_send_ctrl(struct gw_sess *s, struct gw_link *l, uint8_t type,
		 uint32_t gseq, const uint8_t *body, size_t len,
		 uint64_t now_us);
/* sends s's PROBE on l now */
void gw_send_probe(struct gw_sess *s, struct gw_link *l, uint64_t now_us);
/* an authentic REPORT, PROBE, PROBE_ACK, NACK or TRAIN_ACK of s on l */
void gw_on_control(struct gw_sess *s, struct gw_link *l,
		   const struct wire_msg *m, uint64_t now_us);
/* an authentic TRAIN of s on l that arrived at at_us (the kernel's stamp,
 * 0: none) in an IPv6 (outer6) or IPv4 packet; l's rx counters count it
 * already */
void gw_on_train(struct gw_sess *s, struct gw_link *l,
		 const struct wire_train *t, uint64_t at_us, bool outer6,
		 uint64_t now_us);

#endif
