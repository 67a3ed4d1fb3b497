/* SPDX-License-Identifier: BSD-2-Clause */
/* The sessions (session.c): one per CPE, on a CPE the one with its
 * concentrator; their tables by session id and by routed prefix.
 */
#ifndef L3BOND_GW_SESSION_H
#define L3BOND_GW_SESSION_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/conf.h"
#include "egress/egress.h"
#include "gateway/gw_egress.h"
#include "gateway/handshake.h"
#include "gateway/ingress.h"
#include "gateway/link.h"
#include "gateway/peers.h"
#include "ingress/inflight.h"
#include "ingress/sched.h"

struct gw;

enum gw_sess_limits {
	/* the in-flight store (session.c, inflight_params) */
	GW_INFLIGHT_MS = 300,
	GW_INFLIGHT_KBPS = 50000,
	GW_INFLIGHT_MAX_BYTES = 4 << 20,
	GW_INFLIGHT_PKT_BYTES = 128,
};

/* One CPE's session: on a CPE the one with its concentrator, on a
 * concentrator one per configured CPE (session.c).  Everything that is
 * per peer lives here: keys, the scheduler towards it, the resequencer of
 * what it sends, its view of every path. */
struct gw_sess {
	struct gw *gw;
	struct gw_sess *hnext; /* session.c: chain of the id table */
	bool opened;	       /* on_session_opened was called */
	uint32_t id;
	char name[CONF_NAME_MAX]; /* "": the one CPE of a plain config */
	unsigned nprefixes;	  /* concentrator: its routed prefixes */
	struct conf_prefix prefix[CONF_PREFIX_MAX];
	char label[CONF_NAME_MAX + 8]; /* "cpe NAME: " or "" */
	struct gw_sec sec;
	struct gw_link link[WIRE_MAX_PATHS];
	struct gw_peers peers; /* a CPE's concentrators (peers.h) */
	/* the links' failure detectors' next deadline (link.c), 0: none */
	ev_timer det_timer;
	uint64_t det_at_us;
	/* the suspect links' quicker probes, while some are (link.c) */
	ev_timer sprobe_timer;
	uint32_t probe_id;
	struct ing_sched sched;
	/* DATA sent and not acknowledged yet, per path, for sending again
	 * when the path turns suspect (ingress/inflight.h) */
	struct ing_inflight infl;
	/* the pace of the copies, and its tick while some wait
	 * (gateway/ingress.c, gw_ing_resend) */
	struct ing_repace repace;
	ev_timer resend_timer;
	struct gw_sing_stats ist;
	struct gw_cls_stats cls[CLS_MAX + 1]; /* per traffic class */
	struct egr egr;
	bool egr_ok;
	/* capacity + 1 slots in chunks of GW_SLOT_CHUNK, allocated as the
	 * resequencer first reaches them (all at once on a CPE) */
	struct gw_slot **chunk;
	uint32_t *free; /* stack of free slot indices, lowest on top */
	uint32_t nfree;
	uint32_t nslots;
	ev_timer reseq_timer;
	bool touched;
	struct gw_segr_stats est;
};

/* This process serves the CPE of session_id: always, but with workers
 * (gw.h) the worker k of session_id modulo their number. */
bool gw_owns(const struct gw *gw, uint32_t session_id);
int gw_sessions_open(struct gw *gw);
void gw_sessions_close(struct gw *gw);
/* the session of a session id, NULL if none (O(1)) */
struct gw_sess *gw_sess_by_id(const struct gw *gw, uint32_t id);
/* concentrator: the session whose CPE routes the IPv4 address addr
 * (network order; longest prefix), NULL if none.  CPE: its session. */
struct gw_sess *gw_sess_by_addr(const struct gw *gw, uint32_t addr);
/* the same for the IPv6 address at addr (16 bytes) */
struct gw_sess *gw_sess_by_addr6(const struct gw *gw, const uint8_t *addr);
/* Reload: sessions of CPEs gone are closed (what they hold released in
 * order), new ones opened, changed keys give a fresh session; the others
 * are not touched.  0 or -errno (nothing changed then). */
int gw_sessions_update(struct gw *gw, const struct conf *c);

#endif
