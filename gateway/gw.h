/* l3bondd: the daemon's context.
 *
 * One struct gw holds everything the daemon owns (config, path sockets, the
 * two queues with the scheduler and the egress, timers, signal watchers);
 * there are no other globals.  Watchers are embedded in their owners and
 * recovered with container_of.  Files:
 *
 *	main.c     options, start, signals, reload, shutdown
 *	session.c  the sessions (one per CPE), lookup by id and address
 *	secure.c   a session's keys, handshake, sealing and opening
 *	path.c     per-path UDP sockets, liveness, control packets
 *	ingress.c  queue of the traffic to bond -> tunnel
 *	egress.c   queue of the tunnel -> resequenced inner packets
 *	outer.c    outer IPv4 or IPv6 and UDP headers of a tunnel packet
 *	rules.c    iptables/nft rules, rp_filter
 *	stats.c    every counter and state as one list (stats.h)
 *	status.c   that list as key=value lines (--status-file)
 *	ctl.c      the control socket of l3bondctl: that list as data
 *	facts.c    the control socket's status data format (facts.h)
 *	show.c     its presentations, made by the clients (show.h)
 *	notify.c   readiness notification to systemd (sd_notify protocol)
 *	log.c      leveled logging to stderr
 *
 * Both directions are independent: this box's ingress (scheduler) sends
 * to the peer's egress, which reports loss back to it; this box's egress
 * reports to the peer's ingress.
 */
#ifndef L3BOND_GW_H
#define L3BOND_GW_H

#include <ev.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "common/auth.h"
#include "common/conf.h"
#include "common/nfqueue.h"
#include "common/replay.h"
#include "common/rtnl.h"
#include "common/tun.h"
#include "common/wire.h"
#include "gateway/handshake.h"
#include "egress/egress.h"
#include "ingress/sched.h"

#define container_of(ptr, type, member)                                        \
	((type *)((char *)(ptr)-offsetof(type, member)))

enum gw_limits {
	GW_BUDGET = 64,	     /* packets per queue drain */
	GW_INNER_MAX = 2048, /* largest inner packet carried */
	GW_CTRL_MAX = WIRE_HDR_LEN + WIRE_REPORT_MAX + WIRE_TAG_LEN,
	GW_KSTATS_MS = 1000,	 /* kernel queue counters, status file */
	GW_RP_MAX = WIRE_MAX_PATHS + 1, /* rp_filter entries: paths + all */
	GW_RULES_MAX = 1 << 20,		/* bytes of generated rules */
	GW_EGR_QUEUE_EXTRA = 1024, /* kernel queue room beyond the buffer */
	GW_SLOT_CHUNK = 256,	   /* egress slots allocated together */
	GW_RCVBUF = 8 << 20,	   /* netlink receive buffer of each queue */
	GW_ICMP_PER_S = 100, /* frag-needed + too-big messages per second */
	GW_FRAG_MAX = 8,     /* fragments of one inner packet */
	GW_TOLD = 256,	 /* IPv6 packet-too-big sent: (source, destination) */
	GW_TOLD_S = 600, /* remembered this long (Linux\'s PMTU expiry) */
};

/* A token bucket for debug messages on the packet path. */
struct gw_ratelimit {
	uint64_t window_us;
	unsigned n;
};

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
};

struct gw_sess;

/* A path of this box: its socket, and the DATA the ingress queued on it in
 * this drain, for any session (each message has its own destination). */
struct gw_path {
	unsigned idx;
	int fd;		  /* IPv4; -1: none (the interface is absent) */
	int fd6;	  /* IPv6 (V6ONLY); -1: none (also: no IPv6) */
	bool outer6;	  /* a peer on it is IPv6: its MTU counts 40 bytes
			   * of outer IP header, not 20 */
	uint32_t mtu;	  /* configured, else the interface's */
	uint64_t reopens; /* socket opened again (interface changed) */
	unsigned nmsg;
	struct mmsghdr msg[GW_BUDGET];
	struct iovec iov[GW_BUDGET][3];
	uint8_t hdr[GW_BUDGET][WIRE_HDR_LEN];
	uint8_t tag[GW_BUDGET][WIRE_TAG_LEN];
	struct gw_link *who[GW_BUDGET]; /* the link each message counts on */
	int mfd[GW_BUDGET];		/* the socket each goes on */
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
	bool alive; /* heard from the peer within dead_after_ms */
	uint64_t last_rx_us;
	uint32_t rtt_us;	     /* last PROBE round trip, 0: none */
	struct egr_rtt rtt; /* smoothed (egress/lto.h) */
	struct gw_path_stats st;
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
};

struct gw_ing {
	struct nfqueue q;
	ev_io io;
	unsigned n; /* packets in this drain */
	uint32_t id[GW_BUDGET];
	uint8_t (*buf)[GW_INNER_MAX]; /* GW_BUDGET inner copies */
	uint64_t now_us;
	struct nfqueue_kstats kst;
	struct gw_ratelimit rl; /* log lines about failed sends */
	struct gw_told told[GW_TOLD];
	struct gw_ing_stats st;
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
	uint64_t auth[GW_AUTH_MAX];   /* dropped by secure.c, by reason */
	uint64_t oversize;	      /* inner larger than GW_INNER_MAX */
	uint64_t inner_family; /* inner of the other family, no TUN device */
	uint64_t via_tun;      /* released through the TUN device */
	uint64_t tun_errors;   /* the TUN device refused it (full, down) */
	uint64_t spoofed;      /* concentrator: inner source not the CPE's */
	uint64_t no_slot;      /* no free slot (cannot happen) */
	uint64_t late;
	uint64_t dup;
	uint64_t released;
	uint64_t ctrl[WIRE_TYPE_MAX + 1];
	uint64_t peer_restarts;
};

/* One CPE's session: on a CPE the one with its concentrator, on a
 * concentrator one per configured CPE (session.c).  Everything that is
 * per peer lives here: keys, the scheduler towards it, the resequencer of
 * what it sends, its view of every path. */
struct gw_sess {
	struct gw *gw;
	struct gw_sess *hnext; /* session.c: chain of the id table */
	uint32_t id;
	char name[CONF_NAME_MAX]; /* "": the one CPE of a plain config */
	unsigned nprefixes;	  /* concentrator: its routed prefixes */
	struct conf_prefix prefix[CONF_PREFIX_MAX];
	char label[CONF_NAME_MAX + 8]; /* "cpe NAME: " or "" */
	struct gw_sec sec;
	struct gw_link link[WIRE_MAX_PATHS];
	uint32_t probe_id;
	struct ing_sched sched;
	struct gw_sing_stats ist;
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

struct gw_rp {
	char ifname[IF_NAMESIZE]; /* "all" for the global switch */
	int old;
};

struct gw_rules {
	bool installed;
	bool v6;      /* the ip6tables rules too */
	unsigned mss; /* of the installed TCPMSS clamp */
	unsigned nrp;
	struct gw_rp rp[GW_RP_MAX];
};

struct gw {
	struct ev_loop *loop;
	struct conf conf;
	const char *conf_file;
	const char *status_file;
	enum conf_log_level log_level; /* conf's, or debug with -v */
	bool verbose;
	uint64_t start_us;
	uint32_t flow_seed; /* of the ingress's flow hash (ingress/flow.h) */
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
	ev_signal sig_term;
	ev_signal sig_int;
	ev_signal sig_hup;
	ev_signal sig_usr1;
	bool stopping;
	const char *ctl_path_opt;   /* --control-socket, overrides the conf */
	struct gw_ctl *ctl;	    /* ctl.c, NULL when there is none */
	/* What a module tells the others that sit above it, named after
	 * the event; main.c sets them (NULL: nobody listens). */
	void (*on_session_established)(struct gw_sess *s);
	void (*on_peer_restarted)(struct gw_sess *s);
};

/* Touches every page of len bytes at p, so that the memory counts now
 * and not when the traffic first reaches it (a zeroing memset after malloc
 * may become a calloc, whose pages stay untouched). */
static inline void gw_commit_mem(void *p, size_t len)
{
	volatile uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i += 4096) {
		b[i] = 0;
	}
}

/* log.c */
void gw_log(const struct gw *gw, enum conf_log_level lv, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define gw_err(gw, ...)	 gw_log(gw, CONF_LOG_ERROR, __VA_ARGS__)
#define gw_warn(gw, ...) gw_log(gw, CONF_LOG_WARNING, __VA_ARGS__)
#define gw_info(gw, ...) gw_log(gw, CONF_LOG_INFO, __VA_ARGS__)
#define gw_dbg(gw, ...)	 gw_log(gw, CONF_LOG_DEBUG, __VA_ARGS__)
/* true if a message may go out now (at most 10 a second) */
bool gw_ratelimit_ok(struct gw_ratelimit *rl, uint64_t now_us);
uint64_t gw_now_us(void);

/* A session's messages start with its label ("cpe NAME: "; "" for the
 * one CPE of a plain config). */
#define gw_slog(s, lv, fmt, ...)                                               \
	gw_log((s)->gw, lv, "%s" fmt, (s)->label, ##__VA_ARGS__)
#define gw_serr(s, ...)	 gw_slog(s, CONF_LOG_ERROR, __VA_ARGS__)
#define gw_swarn(s, ...) gw_slog(s, CONF_LOG_WARNING, __VA_ARGS__)
#define gw_sinfo(s, ...) gw_slog(s, CONF_LOG_INFO, __VA_ARGS__)
#define gw_sdbg(s, ...)	 gw_slog(s, CONF_LOG_DEBUG, __VA_ARGS__)

/* path.c */
/* The socket of l's path for its peer's family (-1: none), and the
 * address to send to (*to, *len) */
int gw_link_dst(const struct gw_sess *s, const struct gw_link *l,
		const struct sockaddr **to, socklen_t *len);
/* The same for any address a of path p; an IPv4 one is built in a4. */
int gw_path_dst(const struct gw_path *p, const struct sockaddr_in6 *a,
		struct sockaddr_in *a4, const struct sockaddr **to,
		socklen_t *len);
/* l's peer is a (both peer and peer4) */
void gw_link_set_peer(struct gw_link *l, const struct sockaddr_in6 *a);
/* the sockets (a path whose interface is absent waits for it), the
 * rtnetlink watch of the interfaces, the MTUs */
int gw_paths_open(struct gw *gw);
void gw_paths_close(struct gw *gw);
/* the paths' MTUs again (start, interface back, reload): inner_max, mss,
 * the clamp rule */
void gw_paths_update_mtu(struct gw *gw);
/* the link's peer is known and the path has a socket */
bool gw_link_can_send(const struct gw_sess *s, const struct gw_link *l);
/* sets up s's links from the config (the CPE's peers; all down) */
void gw_links_init(struct gw_sess *s);
/* an authentic packet of s arrived on l from the address from; newest:
 * its packet number is the highest yet on the path */
void gw_link_heard(struct gw_sess *s, struct gw_link *l,
		   const struct sockaddr_in6 *from, bool newest,
		   uint64_t now_us);
void gw_paths_check_alive(struct gw *gw, uint64_t now_us);
void gw_send_reports(struct gw *gw, uint64_t now_us);
void gw_send_keepalives(struct gw *gw, uint64_t now_us);
void gw_on_control(struct gw_sess *s, struct gw_link *l,
		   const struct wire_msg *m, uint64_t now_us);
int gw_send_ctrl(struct gw_sess *s, struct gw_link *l, uint8_t type,
		 uint32_t gseq, const uint8_t *body, size_t len,
		 uint64_t now_us);
/* on_session_established: a CPE probes every path at once */
void gw_links_on_established(struct gw_sess *s);
/* sends s's PROBE on l now */
void gw_send_probe(struct gw_sess *s, struct gw_link *l, uint64_t now_us);

/* secure.c */
void gw_sec_init(struct gw_sess *s, const struct auth_key *psk, bool encrypt);
void gw_sec_wipe(struct gw_sess *s);
/* Next packet number under the session's sending key, or -ENOTCONN (no
 * session) / -EOVERFLOW (exhausted: a new handshake is under way). */
int gw_sec_next_pn(struct gw_sess *s, uint64_t *pn);
/* Seals a packet under the session's sending key: hdr is the encoded
 * header (with pn), body is encrypted in place with encrypt = true. */
void gw_sec_seal(struct gw_sess *s, uint64_t pn, const uint8_t *hdr,
		 uint8_t *body, size_t bodylen, uint8_t tag[WIRE_TAG_LEN]);
/* The checks between the header and any state: chooses the key for m's
 * type, checks the replay window, the tag (decrypting), records pn, and
 * parses the body.  pkt: the wire header m was parsed from (writable: the
 * body is decrypted in place).  Returns GW_AUTH_OK, a reason, or
 * GW_AUTH_MAX when the authentic body is malformed (the reason in *wire).
 * On OK, *newest tells whether pn is the highest seen on the path. */
enum gw_auth_drop gw_sec_open(struct gw_sess *s, uint8_t *pkt,
			      struct wire_msg *m, enum wire_drop *wire,
			      bool *newest);
/* The CPE's HELLO on every path (keepalive tick, or at once) */
void gw_sec_send_hellos(struct gw_sess *s, uint64_t now_us, bool force);
/* an authentic HELLO (concentrator) or HELLO_ACK (CPE) */
void gw_sec_on_hello(struct gw_sess *s, struct gw_link *l,
		     const struct sockaddr_in6 *from, const struct wire_msg *m,
		     uint64_t now_us);

/* session.c: the sessions of the config, their tables */
int gw_sessions_open(struct gw *gw);
void gw_sessions_close(struct gw *gw);
/* what every resequencer holds goes out in order (shutdown) */
void gw_sessions_flush(struct gw *gw);
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

/* ingress.c */
int gw_ing_open(struct gw *gw);
void gw_ing_close(struct gw *gw);
void gw_ing_drain_all(struct gw *gw);

/* egress.c */
int gw_egr_open(struct gw *gw);
void gw_egr_close(struct gw *gw);
/* a session's resequencer, slots and timer */
int gw_segr_open(struct gw_sess *s);
void gw_segr_close(struct gw_sess *s);
/* after anything that may have released packets of s: verdicts out,
 * its timer */
void gw_egr_settle(struct gw_sess *s);
void gw_egr_drain_all(struct gw *gw);
/* on_peer_restarted: the egress's sequence state reset */
void gw_egr_peer_restarted(struct gw_sess *s);
/* stats.c */
const char *gw_auth_drop_name(enum gw_auth_drop d);
void gw_check_kstats(struct gw *gw);

/* outer.c: "a.b.c.d:port" for a v4-mapped address, "[x:y::z]:port"
 * otherwise */
const char *gw_addr_str(const struct sockaddr_in6 *a, char *buf, size_t len);
enum { GW_ADDR_STR = INET6_ADDRSTRLEN + 8 };
/* a is v4-mapped */
bool gw_addr_is4(const struct sockaddr_in6 *a);
/* outer.c: the outer IPv4 + UDP headers of a tunnel packet: the source
 * address (v4-mapped) and port, and the UDP payload.  0 or -EINVAL
 * (malformed). */
int gw_outer_ipv4(const uint8_t *d, size_t len, struct sockaddr_in6 *from,
		  const uint8_t **pl, size_t *plen);
/* The same for an outer IPv6 packet: UDP must follow the fixed header
 * directly; -EPROTONOSUPPORT for any extension header (a fragment
 * header included: the kernel reassembles before the egress), -EINVAL
 * when malformed. */
int gw_outer_ipv6(const uint8_t *d, size_t len, struct sockaddr_in6 *from,
		  const uint8_t **pl, size_t *plen);

/* rules.c */
/* the TCP MSS the rules clamp to for c's paths: their mtu, 1500 if not
 * configured (the daemon uses the interfaces' own: gw->mss) */
unsigned gw_conf_mss(const struct conf *c);
enum gw_rules_kind {
	GW_RULES_IPTABLES = 0, /* iptables-restore text (IPv4) */
	GW_RULES_NFT = 1,      /* one nft table, both families */
	GW_RULES_IP6TABLES = 2,
};
/* mss: the IPv4 clamp; IPv6 gets 20 less (its header is 20 longer) */
int gw_rules_text(const struct conf *c, enum gw_rules_kind kind, unsigned mss,
		  char *buf, size_t len);
int gw_rules_install(struct gw *gw);
/* reload, MTU change: L3B_ING replaced in one transaction if c bonds
 * other prefixes or gw->mss changed; 0 or -errno */
int gw_rules_update(struct gw *gw, const struct conf *c);
void gw_rules_remove(struct gw *gw);
void gw_rp_filter_set(struct gw *gw);
void gw_rp_filter_restore(struct gw *gw);

/* main.c: apply c's tunables to the running daemon (SIGHUP, l3bondctl
 * set/reload).  0, or -EINVAL with why in err when c changes what needs a
 * restart (role, session, paths, queues, ...); nothing applied then. */
int gw_apply_conf(struct gw *gw, const struct conf *c, char *err, size_t len);
/* read the config file again and apply it; 0 or -errno with err */
int gw_reload(struct gw *gw, char *err, size_t len);

/* ctl.c: the control socket (gw->conf.control_socket, or --control-socket)
 * in the loop; nothing when the path is "".  0 or -errno. */
int gw_ctl_open(struct gw *gw);
void gw_ctl_close(struct gw *gw);

/* notify.c: one sd_notify message ("READY=1", "RELOADING=1", ...) to
 * $NOTIFY_SOCKET; nothing without it.  0 or -errno. */
int gw_notify(const char *state);

/* status.c */
int gw_status_write(struct gw *gw, int fd);
void gw_status_dump(struct gw *gw);

#endif
