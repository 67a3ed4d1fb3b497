/* SPDX-License-Identifier: BSD-2-Clause */
/* A path as one session sees it (link.c): the peer's address on it,
 * whether it is alive, its round trip, its counters; the PROBEs that keep
 * it measured and NAT bindings open, and the peer's address followed
 * when carrier NAT moves it.
 */
#ifndef L3BOND_GW_LINK_H
#define L3BOND_GW_LINK_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "egress/lto.h"
#include "egress/train.h"
#include "ingress/detect.h"

struct gw;
struct gw_sess;
struct wire_report;

struct gw_path_stats {
	uint64_t tx_pkts; /* DATA sent */
	uint64_t tx_bytes;
	uint64_t tx_errors; /* DATA the socket refused */
	int tx_errno;	    /* why, the last time (0: never) */
	uint64_t ctrl_tx;   /* control packets sent */
	uint64_t ctrl_errors;
	uint64_t rx_pkts; /* valid tunnel packets received */
	uint64_t rx_bytes;
	uint64_t up_events;
	uint64_t down_events;
	/* answers to the peer's PROBEs on this path that also went on
	 * another one: ours does not answer (control.c) */
	uint64_t acks_across;
	/* PROBE_ACKs of probes sent before the path turned suspect: no
	 * answer (control.c) */
	uint64_t acks_stale;
	/* TRAINs (control.c, send_train): trains sent on the path; their
	 * answers whose rate was taken, refused (packets missing, a rate out
	 * of bounds, the rate learned meanwhile) or not the last train's;
	 * trains never answered (another went, or the session ended); the
	 * peer's trains answered */
	uint64_t trains;
	uint64_t train_rates;
	uint64_t train_refused;
	uint64_t train_stale;
	uint64_t train_lost;
	uint64_t train_acks;
};

/* A path as one session sees it: the peer's address on it, liveness,
 * round trip, counters. */
struct gw_link {
	unsigned idx; /* the path's */
	/* cpe: configured; concentrator: learnt.  An IPv4 peer is held
	 * v4-mapped (::ffff:a.b.c.d), so that one comparison serves both
	 * families; peer4 is the same as the sockaddr_in the path's IPv4
	 * socket takes. */
	struct sockaddr_in6 peer;
	struct sockaddr_in peer4;
	bool have_peer;
	/* the concentrator: the address the CPE's newest authentic packet
	 * on the path went to (a VIP, ...): ours, where answers leave from
	 * (path.h, gw_path_src) */
	struct in6_addr local;
	bool have_local;
	bool alive; /* the detector brought it up and it is not down */
	/* the concentrator: the CPE's REPORTs ask to use the path as a
	 * backup towards it (WIRE_RF_BACKUP: its data budget is spent) */
	bool peer_backup;
	bool rx_up; /* our egress waits for its holes (link.c, rx_update) */
	uint64_t last_rx_us;
	uint64_t last_probe_us; /* its last PROBE (link.c, probe_due) */
	/* while the path is not up again: the session's probe counter when
	 * it turned suspect; the answer to a probe sent before is no answer
	 * (control.c) */
	uint32_t probe_floor;
	bool have_floor;
	struct ing_detect det; /* its failure detector (ingress/detect.h) */
	uint32_t rtt_us;       /* last PROBE round trip, 0: none */
	struct egr_rtt rtt;    /* smoothed (egress/lto.h) */
	/* our TRAINs on the path (control.c): the last one's id, packets
	 * and when it went, whether its answer is awaited, how many went
	 * since the session (or the peer) started */
	uint32_t train_id;
	uint16_t train_pkts;
	uint64_t train_us;
	bool train_out;
	uint32_t train_tries;
	struct egr_train train_rx; /* the peer's (egress/train.h) */
	struct gw_path_stats st;
};

/* an authentic packet of s arrived on l from the address from, sent to
 * the address to (ours); newest: its packet number is the highest yet on
 * the path */
void gw_link_heard(struct gw_sess *s, struct gw_link *l,
		   const struct sockaddr_in6 *from, const struct in6_addr *to,
		   bool newest, uint64_t now_us);
/* Failure detection (ingress/detect.h) on every link of s: the
 * detectors from the config, the session's timer (gw_sess.det_timer). */
void gw_links_detect_open(struct gw_sess *s);
void gw_links_detect_close(struct gw_sess *s);
/* reload: every session's detectors take the new tunables */
void gw_links_detect_tunables(struct gw *gw);
/* the detector's inputs: a DATA packet of local sequence lseq sent on l;
 * a REPORT's entries applied (after ing_sched_on_report); a PROBE_ACK on
 * l after its round trip was taken in; the peer's egress restarted */
void gw_link_data_sent(struct gw_sess *s, struct gw_link *l, uint32_t lseq,
		       uint64_t now_us);
void gw_links_on_report(struct gw_sess *s, const struct wire_report *r,
			uint64_t now_us);
void gw_link_probe_sent(struct gw_sess *s, struct gw_link *l, uint64_t now_us);
void gw_link_on_probe_ack(struct gw_sess *s, struct gw_link *l,
			  uint64_t now_us);
void gw_links_on_peer_restarted(struct gw_sess *s);
/* l is idle: it is (ing_detect_idle: up, answering, no data of its own)
 * and no path of s carried data in either direction for idle_after_ms.
 * While one path of a session is in use every path is probed at the busy
 * interval: each must be ready to take its traffic, the carrier NAT's
 * rebinding must be learnt at once, and the peer's must be seen gone. */
bool gw_link_idle(const struct gw_sess *s, const struct gw_link *l,
		  uint64_t now_us);
/* every probe_interval_ms: the CPE's HELLOs, a PROBE on every link that
 * is due one (busy or idle interval: link.c, probe_due) */
void gw_send_keepalives(struct gw *gw, uint64_t now_us);
/* on_session_established: a CPE probes every path at once */
void gw_links_on_established(struct gw_sess *s);
/* on_path_reopened: HELLO and PROBE of every session on the path now */
void gw_links_on_path_reopened(struct gw *gw, unsigned path);

#endif
