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
	GW_CTRL_MAX = WIRE_HDR_LEN + WIRE_REPORT_MAX + WIRE_TAG_LEN,
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
/* an authentic REPORT, PROBE or PROBE_ACK of s on l */
void gw_on_control(struct gw_sess *s, struct gw_link *l,
		   const struct wire_msg *m, uint64_t now_us);

#endif
