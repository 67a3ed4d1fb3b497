/* SPDX-License-Identifier: BSD-2-Clause */
/* The egress (egress.c): the queue of the tunnel packets, each checked,
 * its inner packet resequenced per session and released in order; the
 * REPORTs that tell the peer's ingress what was lost.  (The core's
 * egress is egress/egress.h.)
 */
#ifndef L3BOND_GW_EGRESS_H
#define L3BOND_GW_EGRESS_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/nfqueue.h"
#include "common/wire.h"
#include "gateway/handshake.h"
#include "gateway/log.h"
#include "gateway/path.h"

struct gw;
struct gw_sess;

enum gw_egr_limits {
	GW_EGR_QUEUE_EXTRA = 1024, /* kernel queue room beyond the buffer */
	GW_SLOT_CHUNK = 256,	   /* egress slots allocated together */
};

/* An inner packet held while the resequencer buffers it; the original
 * waits in the kernel queue under id.  While the packet is being pushed,
 * its bytes are still in the netlink receive buffer at ext and are copied
 * to data only if the resequencer keeps it (most are released at once);
 * ext is NULL otherwise. */
struct gw_slot {
	uint32_t id;
	uint32_t len;
	bool drop; /* authentic but refused: dropped in its turn */
	bool tun;  /* the other family than its outer packet: the TUN device */
	const uint8_t *ext;
	uint8_t data[GW_INNER_MAX];
};

/* The egress queue's own counters: what is dropped before a session is
 * known. */
struct gw_egr_stats {
	uint64_t pkts;		      /* packets taken from the queue */
	uint64_t outer_bad;	      /* not IPv4/UDP, truncated, fragment */
	uint64_t outer_ext6;	      /* outer IPv6 with an extension header */
	uint64_t wire[WIRE_DROP_MAX]; /* wire_parse_hdr reasons */
	uint64_t session;	      /* no session with this id */
	uint64_t path;		      /* path id beyond the configured paths */
	uint64_t verdict_errors;
	uint64_t no_kernel_time; /* DATA without a kernel receive stamp */
};

struct gw_egr {
	struct nfqueue q;
	ev_io io;
	uint64_t now_us;
	int64_t real_to_mono_ns; /* CLOCK_MONOTONIC - CLOCK_REALTIME, now */
	struct nfqueue_kstats kst;
	struct gw_ratelimit rl;
	bool accepts; /* an NF_ACCEPT is in the verdict batch */
	struct gw_egr_stats st;
	/* sessions this drain touched: their timers are armed at its end */
	unsigned ntouched;
	struct gw_sess *touched[GW_BUDGET];
};

/* A session's egress counters. */
struct gw_segr_stats {
	uint64_t wire[WIRE_DROP_MAX]; /* authentic, body malformed */
	uint64_t auth[GW_AUTH_MAX];   /* dropped by handshake.c, by reason */
	uint64_t oversize;	      /* inner larger than GW_INNER_MAX */
	uint64_t inner_family; /* inner of the other family, no TUN device */
	uint64_t via_tun;      /* released through the TUN device */
	uint64_t tun_errors;   /* the TUN device refused it (full, down) */
	uint64_t spoofed;      /* concentrator: inner source not the CPE's */
	uint64_t no_slot;      /* no free slot (cannot happen) */
	uint64_t released;
	uint64_t ctrl[WIRE_TYPE_MAX + 1];
	uint64_t peer_restarts;
	uint64_t reports;      /* REPORTs sent (one per interval, on every
				* path) */
	uint64_t reports_idle; /* intervals without a REPORT: no DATA
				* arrived since the last one */
	uint32_t report_rx;    /* DATA received (all paths) at the last */
	uint64_t nacks;	       /* NACKs sent (each on every path) */
};

int gw_egr_open(struct gw *gw);
void gw_egr_close(struct gw *gw);
/* on_session_opened, on_session_closing: a session's resequencer, slots
 * and timer; flush: what it holds goes out in order first */
int gw_segr_open(struct gw_sess *s);
void gw_segr_close(struct gw_sess *s, bool flush);
/* what every resequencer holds goes out in order (shutdown) */
void gw_egr_flush_all(struct gw *gw);
/* after anything that may have released packets of s: verdicts out,
 * its timer */
void gw_egr_settle(struct gw_sess *s);
void gw_egr_drain_all(struct gw *gw);
/* every t_report_ms: the reorder timeout adapted, a REPORT of every
 * session on every path */
void gw_egr_send_reports(struct gw *gw, uint64_t now_us);
/* on_peer_restarted: the egress's sequence state reset */
void gw_egr_peer_restarted(struct gw_sess *s);
/* the kernel's drops for our queues, logged when they grow */
void gw_check_kstats(struct gw *gw);

#endif
