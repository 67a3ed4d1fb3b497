/* SPDX-License-Identifier: BSD-2-Clause */
/* l3bondd: the daemon's context.
 *
 * One struct gw holds everything the daemon owns (config, path sockets, the
 * two queues with the scheduler and the egress, timers, signal watchers);
 * there are no other globals.  Watchers are embedded in their owners and
 * recovered with container_of.  What a module offers the others is in its
 * header; a module that must tell one above it of an event calls a hook
 * here (on_*), which main.c sets.  Files, from the bottom up:
 *
 *	handshake.c  keys, handshake, packet checks: a state machine, no I/O
 *	outer.c      outer IPv4 or IPv6 and UDP headers of a tunnel packet
 *	log.c        leveled logging to stderr
 *	path.c       a path's sockets, MTU, interface (rtnetlink)
 *	secure.c     the handshake on a session: HELLOs sent, outputs acted on
 *	control.c    control messages sent and taken in (REPORT, PROBE)
 *	link.c       a session's view of a path: liveness, NAT rebinding
 *	peers.c      a CPE's list of concentrators: which one, when to move
 *	ingress.c    queue of the traffic to bond -> tunnel
 *	egress.c     queue of the tunnel -> resequenced inner packets; REPORTs
 *	session.c    the sessions (one per CPE), lookup by id and address
 *	rules.c      iptables/nft rules, rp_filter
 *	stats.c      every counter and state as one list (stats.h)
 *	status.c     that list as key=value lines (--status-file)
 *	ctl.c        the control socket of l3bondctl: that list as data
 *	reload.c     the configuration applied while running
 *	volume.c     the CPE's data budgets: bytes counted, state kept
 *	notify.c     readiness notification to systemd (sd_notify protocol)
 *	workers.c    a concentrator's worker processes: started, watched,
 *	             their status added up, reloads passed on
 *	main.c       options, start, signals, timers, shutdown; sets the hooks
 *	facts.c      the control socket's status data format (facts.h)
 *	show.c       its presentations, made by the clients (show.h)
 *
 * Both directions are independent: this box's ingress (scheduler) sends
 * to the peer's egress, which reports loss back to it; this box's egress
 * reports to the peer's ingress.
 */
#ifndef L3BOND_GW_H
#define L3BOND_GW_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/rtnl.h"
#include "common/tun.h"
#include "common/wire.h"
#include "gateway/gw_egress.h"
#include "gateway/ingress.h"
#include "gateway/log.h"
#include "gateway/path.h"
#include "gateway/rules.h"
#include "gateway/stats.h"
#include "gateway/volume.h"

#define container_of(ptr, type, member)                                        \
	((type *)((char *)(ptr)-offsetof(type, member)))

enum gw_limits {
	GW_KSTATS_MS = 1000, /* kernel queue counters, status file */
	GW_RCVBUF = 8 << 20, /* netlink receive buffer of each queue */
};

struct gw_link;
struct gw_sess;
struct gw_sess_table;
struct gw_ctl;
struct gw_workers;

struct gw {
	struct ev_loop *loop;
	struct conf conf;
	const char *conf_file;
	const char *status_file;
	uint64_t status_warned_us; /* its write was slow, said then */
	/* trains sent this second, by every session (control.c,
	 * trains_due), and when the second began */
	uint64_t trains_sec_us;
	unsigned trains_sec;
	enum conf_log_level log_level; /* conf's, or debug with -v */
	bool verbose;
	uint64_t start_us;
	uint64_t main_us;   /* main() entered: the config read from here */
	uint32_t start_ms;  /* main() to ready (READY=1), ms */
	uint64_t reloads;   /* reloads applied (SIGHUP, l3bondctl reload) */
	uint64_t reloads_refused;
	uint32_t reload_ms; /* the last reload, from its start to applied */
	uint32_t flow_seed; /* of the ingress's flow hash (ingress/flow.h) */
	/* A concentrator with workers (workers.c): the first process (wk
	 * set) holds the rules, the control socket and the status file, and
	 * runs no packet path; worker k (of nworkers) is a whole daemon for
	 * the CPEs whose session id is k modulo nworkers, on its own queues
	 * (conf_worker_queue).  nworkers 1: one process, worker 0. */
	unsigned nworkers;
	unsigned worker;
	struct gw_workers *wk;
	int ready_fd; /* a worker's: written to once started, else -1 */
	unsigned workers_up;	  /* the first process's: running */
	uint64_t worker_restarts; /* started again after they died */
	/* the first process's: the walk's values after the daemon scope,
	 * the workers' (workers.c; stats.c calls it, and nothing of libev);
	 * only as gw_stats_walk_only's */
	void (*stats_from_workers)(struct gw *gw, const char *only,
				   gw_stat_fn *fn, void *arg);
	unsigned npaths;
	struct gw_path path[WIRE_MAX_PATHS];
	/* sessions (session.c): an array, an id table, a prefix table */
	unsigned nsess;
	struct gw_sess **sess;
	struct gw_sess_table *table;
	struct gw_ing ing;
	struct gw_egr egr;
	/* inner packets of the other family than their outer one (egress) */
	struct tun tun;
	bool tun_ok;
	struct gw_rules rules;
	/* MTU: the largest inner packet every path carries, the TCP MSS
	 * that fits it (path.c) */
	uint16_t inner_max;
	uint16_t mss;
	int icmp_fd;  /* raw ICMP socket of frag-needed, -1: none */
	int icmp6_fd; /* raw ICMPv6 socket of packet-too-big, -1: none */
	struct gw_ratelimit icmp_rl;
	/* path interfaces over rtnetlink (path.c) */
	struct rtnl_watch rtnl;
	bool rtnl_ok;
	ev_io rtnl_io;
	ev_timer report_timer;	  /* t_report_ms: REPORT, liveness */
	ev_timer keepalive_timer; /* probe_interval_ms: PROBE, the CPE's
				   * HELLO, liveness */
	ev_timer stats_timer;	  /* GW_KSTATS_MS: kernel drops, status */
	struct gw_volume vol;	  /* the CPE's data budgets (volume.c) */
	/* conf.class[].m side by side, for cls_classify (ingress.c) */
	struct cls_match cls_m[CLS_MAX];
	ev_signal sig_term;
	ev_signal sig_int;
	ev_signal sig_hup;
	ev_signal sig_usr1;
	bool stopping;
	const char *ctl_path_opt;   /* --control-socket, overrides the conf */
	struct gw_ctl *ctl;	    /* ctl.c, NULL when there is none */
	/* What a module tells the others that sit above it, named after
	 * the event; main.c sets them (NULL: nobody listens). */
	void (*on_path_reopened)(struct gw *gw, unsigned path); /* path.c */
	/* session.c: a session's other parts (its egress), 0 or -errno;
	 * freed when it closes, flush: what it holds goes out first */
	int (*on_session_opened)(struct gw_sess *s);
	void (*on_session_closing)(struct gw_sess *s, bool flush);
	void (*on_session_established)(struct gw_sess *s);	/* secure.c */
	void (*on_peer_restarted)(struct gw_sess *s);		/* secure.c */
	void (*on_link_alive_changed)(struct gw_sess *s,	/* link.c */
				      struct gw_link *l);
	void (*on_link_suspect)(struct gw_sess *s,	/* link.c */
				struct gw_link *l);
	void (*on_tunables_applied)(struct gw *gw); /* reload.c */
};

/* This process's queue numbers (its worker's). */
static inline unsigned gw_ingress_queue(const struct gw *gw)
{
	return conf_worker_queue(&gw->conf, gw->conf.ingress_queue, gw->worker);
}

static inline unsigned gw_egress_queue(const struct gw *gw)
{
	return conf_worker_queue(&gw->conf, gw->conf.egress_queue, gw->worker);
}

#endif
