/* SPDX-License-Identifier: BSD-2-Clause */
/* The rtnetlink seam: watches a few interfaces by name and reports what
 * happens to them, so that the daemon can rebind a path's socket when its
 * WAN interface changes (a PPPoE reconnect destroys and recreates ppp0: a
 * socket bound with SO_BINDTODEVICE keeps the dead ifindex; a DHCP renewal
 * changes the address).
 *
 * One NETLINK_ROUTE socket, subscribed to link and IPv4/IPv6 address
 * notifications.  The module keeps per watched name the current ifindex,
 * flags and usable addresses, and reports transitions of that state, not
 * every message: the kernel repeats itself (statistics, operstate,
 * IPv6 DAD), and a missed message is repaired by a dump.
 *
 * Events for one name come in this order: NEW, then UP if the link is
 * already up, then ADDR_NEW for the addresses it already has; DOWN and
 * ADDR_DEL as they happen; DEL (which implies down and no addresses; it is
 * not preceded by a DOWN or ADDR_DEL unless the kernel said so first).
 * RESYNC replaces any of them when events were lost: the state in
 * w->link[idx] is right, what happened in between is not known.
 *
 * Nothing is allocated after rtnl_watch_open().
 */
#ifndef L3BOND_RTNL_H
#define L3BOND_RTNL_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

struct mnl_socket;

enum {
	RTNL_WATCH_MAX = 16, /* watched names */
	RTNL_ADDR_MAX = 16,  /* addresses remembered per name */
};

enum rtnl_event_type {
	/* The name now exists with ifindex ev->ifindex: created, renamed to
	 * this name, or recreated with another ifindex (the DEL was not
	 * seen).  Starts down with no addresses. */
	RTNL_LINK_NEW = 1,
	/* The name no longer exists (deleted or renamed away); ev->ifindex
	 * is the one it had. */
	RTNL_LINK_DEL,
	/* Up means IFF_UP and IFF_RUNNING (RFC 2863 operationally up: a
	 * carrier, a veth whose peer is up too, a PPP link with its
	 * network phase done).  Only changes are reported. */
	RTNL_LINK_UP,
	RTNL_LINK_DOWN,
	/* A usable address appeared / went (ev->family, ev->addr,
	 * ev->prefixlen).  IPv6 addresses become usable when duplicate
	 * address detection has passed: a tentative address is not
	 * reported until then, and one that fails DAD is an ADDR_DEL. */
	RTNL_ADDR_NEW,
	RTNL_ADDR_DEL,
	/* Events were lost (socket overrun) or came while nobody read
	 * (during rtnl_watch_add): the state was reread from the kernel,
	 * see w->link[idx].  The caller rebinds as on NEW. */
	RTNL_RESYNC,
	/* The link's MTU changed (ev->mtu; a PPPoE session, an operator's
	 * ip link set mtu).  Not reported with NEW, which carries it. */
	RTNL_LINK_MTU,
};

struct rtnl_event {
	enum rtnl_event_type type;
	uint32_t ifindex; /* the link's ifindex (0 for RESYNC of an absent
			   * name) */
	unsigned flags;	  /* the link's IFF_* flags after the event */
	uint32_t mtu;	  /* the link's MTU as last reported (0: unknown) */
	uint8_t family;	  /* ADDR_*: AF_INET or AF_INET6; else 0 */
	uint8_t prefixlen;
	uint8_t addr[16]; /* ADDR_*: 4 or 16 bytes, network order */
};

struct rtnl_addr {
	uint8_t family;
	uint8_t prefixlen;
	bool fresh; /* seen since the current address dump began */
	uint8_t addr[16];
};

/* What is known about one watched name.  Read-only for callers. */
struct rtnl_link {
	char name[IFNAMSIZ];
	uint32_t ifindex;   /* 0: no such interface */
	unsigned flags;	    /* IFF_* of the last message */
	uint32_t mtu;	    /* IFLA_MTU of the last message, 0: none */
	bool up;	    /* IFF_UP && IFF_RUNNING */
	bool seen;	    /* mentioned since the current link dump began */
	bool pending;	    /* changed while quiet: a RESYNC is due */
	bool addr_overflow; /* more addresses than RTNL_ADDR_MAX */
	unsigned naddr;
	struct rtnl_addr addr[RTNL_ADDR_MAX];
};

struct rtnl_watch_stats {
	uint64_t msgs;	    /* netlink messages handled */
	uint64_t events;    /* events reported */
	uint64_t bad;	    /* malformed messages, skipped */
	uint64_t overruns;  /* ENOBUFS: the kernel dropped notifications */
	uint64_t resyncs;   /* state reread by a dump */
	uint64_t addr_full; /* addresses not remembered: table full */
};

enum rtnl_dump_kind {
	RTNL_DUMP_NONE = 0,
	RTNL_DUMP_LINK_SYNC,  /* links, then unseen names are gone */
	RTNL_DUMP_ADDR_SYNC,  /* addresses, then unseen ones are gone */
	RTNL_DUMP_ADDR_FETCH, /* addresses of links just seen: report new */
};

typedef void rtnl_cb(void *ctx, int idx, const struct rtnl_event *ev);

struct rtnl_watch {
	struct mnl_socket *nl;
	uint32_t portid;
	uint8_t *rx; /* one receive buffer, RTNL_RX_SIZE */
	unsigned nlink;
	struct rtnl_link link[RTNL_WATCH_MAX];
	/* the one dump in flight (the kernel runs one per socket) */
	enum rtnl_dump_kind dump;
	uint32_t dump_seq;
	bool dump_started; /* its first message was seen */
	int dump_err;	   /* the kernel's answer if it refused */
	uint32_t seq;
	bool want_fetch; /* a NEW link's addresses are to be dumped */
	bool lost;	 /* overrun or interrupted dump during a sync */
	bool quiet;	 /* no callback: changes only mark links pending */
	bool stale;	 /* overrun: a resync is due */
	rtnl_cb *cb;
	void *ctx;
	int nev; /* events reported by the current rtnl_watch_read */
	struct rtnl_watch_stats st;
};

/* NETLINK_ROUTE socket, nonblocking and close-on-exec, subscribed to
 * link and address changes.  Returns 0 or -errno. */
int rtnl_watch_open(struct rtnl_watch *w);
void rtnl_watch_close(struct rtnl_watch *w);
int rtnl_watch_fd(const struct rtnl_watch *w);

/* Watches ifname and reads its current state from the kernel (blocks for
 * the dump, normally well under a millisecond).  Returns its index (0, 1,
 * ...), -EINVAL (empty or too long), -EEXIST (already watched), -ENOSPC
 * (RTNL_WATCH_MAX reached) or -errno.  Changes to other watched names
 * seen meanwhile are reported as RESYNC by the next rtnl_watch_read. */
int rtnl_watch_add(struct rtnl_watch *w, const char *ifname);

/* Reads everything pending and calls cb(ctx, idx, ev) for each change of
 * a watched name.  On an overrun (ENOBUFS) it rereads the state by a dump
 * and reports one RESYNC per watched name instead.  Returns the number of
 * events reported or -errno.  cb must not call rtnl_watch_add or
 * rtnl_watch_close (the receive buffer is in use). */
int rtnl_watch_read(struct rtnl_watch *w, rtnl_cb *cb, void *ctx);

/* The name's ifindex, 0 if it does not exist. */
static inline uint32_t rtnl_watch_ifindex(const struct rtnl_watch *w, int idx)
{
	return w->link[idx].ifindex;
}

/* Whether the name has a usable address of family (AF_INET, AF_INET6). */
bool rtnl_watch_has_addr(const struct rtnl_watch *w, int idx, int family);

#endif
