/* SPDX-License-Identifier: BSD-2-Clause */
/* The ingress (ingress.c): the queue of the traffic to bond, each packet
 * sent through the tunnel to its session's peer, or accepted natively.
 */
#ifndef L3BOND_GW_INGRESS_H
#define L3BOND_GW_INGRESS_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/nfqueue.h"
#include "gateway/log.h"
#include "gateway/path.h"

struct gw;
struct gw_link;
struct gw_sess;

enum gw_ing_limits {
	GW_ICMP_PER_S = 100, /* frag-needed + too-big messages per second */
	GW_FRAG_MAX = 8,     /* fragments of one inner packet */
	GW_TOLD = 256,	 /* IPv6 packet-too-big sent: (source, destination) */
	GW_TOLD_S = 600, /* remembered this long (Linux\'s PMTU expiry) */
};

/* The ingress queue's own counters (all sessions). */
struct gw_ing_stats {
	uint64_t pkts;	 /* packets taken from the queue */
	uint64_t no_cpe; /* accepted natively: no CPE routes the address */
	uint64_t unfit;	 /* accepted natively: cut short, tiny, huge */
	uint64_t verdict_errors;
	uint64_t too_big;      /* DF, too large: dropped, ICMP sent back */
	uint64_t too_big_mute; /* dropped, no ICMP (not allowed, limit) */
	uint64_t icmp_errors;  /* ICMP the socket refused */
	uint64_t fragmented;   /* no DF, too large: sent in fragments */
	uint64_t outer_frag;   /* IPv6, too large, its source already told:
				* sent whole in fragmented outer packets */
};

/* An IPv6 packet-too-big the ingress sent: to src, about dst. */
struct gw_told {
	uint8_t src[16];
	uint8_t dst[16];
	uint64_t at_us; /* 0: free */
};

/* A session's ingress counters. */
struct gw_sing_stats {
	uint64_t bonded;     /* sent through the tunnel */
	uint64_t no_path;    /* accepted natively: no path up */
	uint64_t no_session; /* accepted natively: no session keys yet */
	uint64_t copies_skipped; /* a redundant class's copies left out: a
				  * packet in more fragments than a batch
				  * holds with them */
	uint64_t nack_bad_path;	 /* NACKs naming a path we do not have */
};

/* A traffic class's packets of one session (the default class last,
 * CLS_MAX; gateway/ingress.c, classify). */
struct gw_cls_stats {
	uint64_t pkts[WIRE_MAX_PATHS];	/* bonded, per path */
	uint64_t bytes[WIRE_MAX_PATHS]; /* inner bytes, per path */
	uint64_t drops;	   /* a pin without fallback, its path down */
	uint64_t bypassed; /* mode bypass: let go natively */
};

struct gw_ing {
	struct nfqueue q;
	ev_io io;
	unsigned n; /* packets in this drain */
	uint32_t id[GW_BUDGET];
	uint8_t (*buf)[GW_INNER_MAX]; /* GW_BUDGET inner copies */
	uint64_t now_us; /* read per packet: its stamp (on_packet) */
	struct nfqueue_kstats kst;
	struct gw_ratelimit rl; /* log lines about failed sends */
	struct gw_told told[GW_TOLD];
	struct gw_ing_stats st;
};

int gw_ing_open(struct gw *gw);
/* The config's traffic classes' matches, in the order cls_classify wants
 * them (at start and after a reload) */
void gw_ing_classes(struct gw *gw);
void gw_ing_close(struct gw *gw);
void gw_ing_drain_all(struct gw *gw);
/* on_link_suspect: the DATA l carried that its peer did not acknowledge
 * yet goes again on the other paths, at the pace of s->repace
 * (ingress/inflight.h) */
void gw_ing_resend(struct gw_sess *s, struct gw_link *l);
/* a REPORT was applied to s->sched: the pace follows the survivors' queue */
void gw_ing_resend_on_report(struct gw_sess *s);
/* The peer's egress asks for copies of DATA a path lost (repair,
 * DESIGN.md): those still kept go at once on the lowest-delay path */
void gw_ing_repair(struct gw_sess *s, const struct wire_nack *n);
void gw_ing_resend_open(struct gw_sess *s);
void gw_ing_resend_close(struct gw_sess *s);

#endif
