/* SPDX-License-Identifier: BSD-2-Clause */
/* Control messages (control.c): built, sealed under the session keys and
 * sent on a link; those received (REPORT, PROBE, PROBE_ACK) taken in.
 */
#ifndef L3BOND_GW_CONTROL_H
#define L3BOND_GW_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#include "common/wire.h"

struct gw_link;
struct gw_sess;

enum {
	/* a TRAIN's body: its packets' outer size about 1176 bytes (IPv4),
	 * 1196 (IPv6), under the IPv6 minimum MTU of 1280 */
	GW_TRAIN_BODY = 1100,
	/* packets in a train: the peer times the second half (the first may
	 * pass a shaper's burst at once: the bed's tbf passes 16 KB) */
	GW_TRAIN_PKTS = 64,
	/* a path takes a train when it carried this many DATA packets since
	 * the last REPORT (traffic that may fill it: not a keepalive, nor an
	 * idle CPE among thousands at a concentrator's start), at most
	 * GW_TRAIN_TRIES a session, GW_TRAIN_RETRY_MS apart */
	GW_TRAIN_BUSY_PKTS = 8,
	GW_TRAIN_TRIES = 4,
	GW_TRAIN_RETRY_MS = 2000,
	/* a train's answer is refused with more than 1/n of it missing (what
	 * the line lost after its bottleneck took its time there) */
	GW_TRAIN_MISS_DIV = 16,
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
/* an authentic TRAIN of s on l that arrived at at_us (the kernel's stamp;
 * l's rx_bytes counts it already) */
void gw_on_train(struct gw_sess *s, struct gw_link *l,
		 const struct wire_train *t, uint64_t at_us, uint64_t now_us);

#endif
