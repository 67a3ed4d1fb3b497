/* SPDX-License-Identifier: BSD-2-Clause */
/* Interface watcher over a libmnl NETLINK_ROUTE socket (see rtnl.h).
 *
 * Notifications: every RTM_NEWLINK / RTM_DELLINK / RTM_NEWADDR /
 * RTM_DELADDR goes through the same handlers as the answers of our own
 * dumps; the handlers compare the message with what is known of the name
 * and emit an event only for a change.
 *
 * Lost notifications (ENOBUFS) are repaired by a mark-and-sweep dump: when
 * the first answer of a link dump arrives, every name is marked unseen;
 * the dump and the notifications that follow it mark what they mention;
 * at NLMSG_DONE an unseen name no longer exists.  Addresses likewise.  The
 * mark is set at the first answer, not when the request is sent, because
 * messages queued before the request are older than the dump and must not
 * count as seen.
 *
 * A link that appears under a watched name (created, or renamed to it)
 * may already have addresses that no notification will mention: its NEW
 * asks for an address dump (ADDR_FETCH) whose answers go through the same
 * handler and so report the addresses not yet known.
 *
 * The kernel runs one dump per socket at a time; w->dump is that dump.
 *
 * Invariants: w->nl == NULL exactly when closed (a zeroed struct is
 * closed); link[i].ifindex == 0 implies flags == 0, !up, naddr == 0; the
 * addr[] of a link are distinct; nothing is allocated after open.
 */
#include "common/rtnl.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

enum {
	/* The kernel builds dump messages of up to 32 KiB when the reader's
	 * buffer is that large (netlink_recvmsg, max_recvmsg_len); a smaller
	 * buffer would truncate a link with many attributes. */
	RTNL_RX_SIZE = 32768,
	/* Dump answers are produced while we read; this only guards against
	 * a kernel that stops answering. */
	RTNL_DUMP_TIMEOUT_MS = 2000,
	/* Overruns during a resync start it again, this many times. */
	RTNL_SYNC_TRIES = 8,
};

static void emit(struct rtnl_watch *w, int idx, enum rtnl_event_type type,
		 const struct rtnl_addr *a)
{
	struct rtnl_link *l = &w->link[idx];
	struct rtnl_event ev = {
		.type = type,
		.ifindex = l->ifindex,
		.flags = l->flags,
		.mtu = l->mtu,
	};

	if (a) {
		ev.family = a->family;
		ev.prefixlen = a->prefixlen;
		memcpy(ev.addr, a->addr, sizeof(ev.addr));
	}
	if (w->quiet || !w->cb) {
		/* Nobody listens now: the caller learns by a RESYNC. */
		l->pending = true;
		return;
	}
	w->st.events++;
	w->nev++;
	w->cb(w->ctx, idx, &ev);
}

/* ---- state ------------------------------------------------------------ */

static int find_name(const struct rtnl_watch *w, const char *name)
{
	for (unsigned i = 0; i < w->nlink; i++) {
		if (strcmp(w->link[i].name, name) == 0) {
			return (int)i;
		}
	}
	return -1;
}

static int find_index(const struct rtnl_watch *w, uint32_t ifindex)
{
	for (unsigned i = 0; i < w->nlink; i++) {
		if (w->link[i].ifindex == ifindex) {
			return (int)i;
		}
	}
	return -1;
}

static bool is_up(unsigned flags)
{
	return (flags & IFF_UP) && (flags & IFF_RUNNING);
}

static void forget(struct rtnl_link *l)
{
	l->ifindex = 0;
	l->flags = 0;
	l->mtu = 0;
	l->up = false;
	l->naddr = 0;
	l->addr_overflow = false;
}

static void link_gone(struct rtnl_watch *w, int idx)
{
	struct rtnl_link *l = &w->link[idx];

	/* the event carries the ifindex the name had */
	l->flags = 0;
	l->up = false;
	emit(w, idx, RTNL_LINK_DEL, NULL);
	forget(l);
}

static void link_seen(struct rtnl_watch *w, int idx, uint32_t ifindex,
		      unsigned flags, uint32_t mtu)
{
	struct rtnl_link *l = &w->link[idx];
	bool up = is_up(flags);

	l->seen = true;
	if (l->ifindex != ifindex) {
		forget(l);
		l->ifindex = ifindex;
		l->flags = flags;
		l->mtu = mtu;
		emit(w, idx, RTNL_LINK_NEW, NULL);
		w->want_fetch = true;
		if (up) {
			l->up = true;
			emit(w, idx, RTNL_LINK_UP, NULL);
		}
		return;
	}
	l->flags = flags;
	if (mtu && mtu != l->mtu) {
		bool known = l->mtu != 0;

		l->mtu = mtu;
		if (known) {
			emit(w, idx, RTNL_LINK_MTU, NULL);
		}
	}
	if (up != l->up) {
		l->up = up;
		emit(w, idx, up ? RTNL_LINK_UP : RTNL_LINK_DOWN, NULL);
	}
}

static int find_addr(const struct rtnl_link *l, const struct rtnl_addr *a)
{
	size_t n = a->family == AF_INET ? 4 : 16;

	for (unsigned i = 0; i < l->naddr; i++) {
		const struct rtnl_addr *b = &l->addr[i];

		if (b->family == a->family && b->prefixlen == a->prefixlen &&
		    memcmp(b->addr, a->addr, n) == 0) {
			return (int)i;
		}
	}
	return -1;
}

static void addr_remove(struct rtnl_watch *w, int idx, unsigned i)
{
	struct rtnl_link *l = &w->link[idx];
	struct rtnl_addr a = l->addr[i];

	l->addr[i] = l->addr[--l->naddr];
	emit(w, idx, RTNL_ADDR_DEL, &a);
}

/* usable: present and not tentative (IPv6 DAD pending or failed) */
static void addr_seen(struct rtnl_watch *w, int idx, const struct rtnl_addr *a,
		      bool usable)
{
	struct rtnl_link *l = &w->link[idx];
	int i = find_addr(l, a);

	if (i >= 0) {
		if (usable) {
			l->addr[i].fresh = true;
		} else {
			addr_remove(w, idx, (unsigned)i);
		}
		return;
	}
	if (!usable) {
		return;
	}
	if (l->naddr < RTNL_ADDR_MAX) {
		l->addr[l->naddr] = *a;
		l->addr[l->naddr].fresh = true;
		l->naddr++;
	} else {
		/* Reported but not remembered: it may be reported again,
		 * and its removal is reported even if unknown. */
		l->addr_overflow = true;
		w->st.addr_full++;
	}
	emit(w, idx, RTNL_ADDR_NEW, a);
}

static void addr_gone(struct rtnl_watch *w, int idx, const struct rtnl_addr *a)
{
	struct rtnl_link *l = &w->link[idx];
	int i = find_addr(l, a);

	if (i >= 0) {
		addr_remove(w, idx, (unsigned)i);
	} else if (l->addr_overflow) {
		emit(w, idx, RTNL_ADDR_DEL, a);
	}
	/* else: never usable (tentative), so never reported */
}

bool rtnl_watch_has_addr(const struct rtnl_watch *w, int idx, int family)
{
	const struct rtnl_link *l = &w->link[idx];

	for (unsigned i = 0; i < l->naddr; i++) {
		if (l->addr[i].family == family) {
			return true;
		}
	}
	return false;
}

/* ---- message parsing -------------------------------------------------- */

static int link_attr(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;

	if (mnl_attr_get_type(attr) == IFLA_MTU) {
		/* a bad one is left out, not the message */
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0) {
			tb[IFLA_MTU] = attr;
		}
		return MNL_CB_OK;
	}
	if (mnl_attr_get_type(attr) != IFLA_IFNAME) {
		return MNL_CB_OK;
	}
	if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0 ||
	    mnl_attr_get_payload_len(attr) > IFNAMSIZ ||
	    strlen(mnl_attr_get_str(attr)) == 0) {
		return MNL_CB_ERROR;
	}
	tb[IFLA_IFNAME] = attr;
	return MNL_CB_OK;
}

static int on_link(struct rtnl_watch *w, const struct nlmsghdr *nlh)
{
	const struct nlattr *tb[IFLA_MAX + 1] = {0};
	const struct ifinfomsg *ifi;
	const char *name;
	uint32_t ifindex;
	int i;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifi))) {
		return -EBADMSG;
	}
	ifi = mnl_nlmsg_get_payload(nlh);
	/* AF_BRIDGE messages are about bridge ports (a DELLINK there is a
	 * port leaving its bridge, not a device going away). */
	if (ifi->ifi_family != AF_UNSPEC) {
		return 0;
	}
	if (ifi->ifi_index <= 0 ||
	    mnl_attr_parse(nlh, sizeof(*ifi), link_attr, tb) < 0 ||
	    !tb[IFLA_IFNAME]) {
		return -EBADMSG;
	}
	ifindex = (uint32_t)ifi->ifi_index;
	name = mnl_attr_get_str(tb[IFLA_IFNAME]);

	if (nlh->nlmsg_type == RTM_DELLINK) {
		i = find_index(w, ifindex);
		if (i >= 0) {
			w->link[i].seen = true;
			link_gone(w, i);
		}
		return 0;
	}
	/* A watched name that had this ifindex under another name has been
	 * renamed away. */
	i = find_index(w, ifindex);
	if (i >= 0 && strcmp(w->link[i].name, name) != 0) {
		w->link[i].seen = true;
		link_gone(w, i);
	}
	i = find_name(w, name);
	if (i >= 0) {
		link_seen(w, i, ifindex, ifi->ifi_flags,
			  tb[IFLA_MTU] ? mnl_attr_get_u32(tb[IFLA_MTU]) : 0);
	}
	return 0;
}

static int addr_attr(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	switch (type) {
	case IFA_ADDRESS:
	case IFA_LOCAL:
		/* the length is checked against the family by the caller */
		break;
	case IFA_FLAGS:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0) {
			return MNL_CB_ERROR;
		}
		break;
	default:
		return MNL_CB_OK;
	}
	tb[type] = attr;
	return MNL_CB_OK;
}

static int on_addr(struct rtnl_watch *w, const struct nlmsghdr *nlh)
{
	const struct nlattr *tb[IFA_MAX + 1] = {0};
	const struct ifaddrmsg *ifa;
	const struct nlattr *at;
	struct rtnl_addr a = {0};
	uint32_t flags;
	size_t alen;
	int i;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifa))) {
		return -EBADMSG;
	}
	ifa = mnl_nlmsg_get_payload(nlh);
	if (ifa->ifa_family == AF_INET) {
		alen = 4;
	} else if (ifa->ifa_family == AF_INET6) {
		alen = 16;
	} else {
		return 0;
	}
	if (ifa->ifa_index == 0 ||
	    (ifa->ifa_family == AF_INET && ifa->ifa_prefixlen > 32) ||
	    ifa->ifa_prefixlen > 128 ||
	    mnl_attr_parse(nlh, sizeof(*ifa), addr_attr, tb) < 0) {
		return -EBADMSG;
	}
	/* IFA_LOCAL is our address; on a point-to-point link (PPP)
	 * IFA_ADDRESS is the peer's.  IPv6 sends IFA_ADDRESS only. */
	at = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
	if (!at || mnl_attr_get_payload_len(at) != alen) {
		return -EBADMSG;
	}
	i = find_index(w, ifa->ifa_index);
	if (i < 0) {
		return 0;
	}
	a.family = ifa->ifa_family;
	a.prefixlen = ifa->ifa_prefixlen;
	memcpy(a.addr, mnl_attr_get_payload(at), alen);
	/* IFA_FLAGS holds all 32 bits; ifa_flags only the low 8 */
	flags = tb[IFA_FLAGS] ? mnl_attr_get_u32(tb[IFA_FLAGS])
			      : ifa->ifa_flags;

	if (nlh->nlmsg_type == RTM_DELADDR) {
		addr_gone(w, i, &a);
	} else {
		addr_seen(w, i, &a,
			  !(flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED)));
	}
	return 0;
}

/* ---- dumps ------------------------------------------------------------ */

static void dump_begins(struct rtnl_watch *w)
{
	w->dump_started = true;
	if (w->dump == RTNL_DUMP_LINK_SYNC) {
		for (unsigned i = 0; i < w->nlink; i++) {
			w->link[i].seen = false;
		}
	} else if (w->dump == RTNL_DUMP_ADDR_SYNC) {
		for (unsigned i = 0; i < w->nlink; i++) {
			for (unsigned j = 0; j < w->link[i].naddr; j++) {
				w->link[i].addr[j].fresh = false;
			}
		}
	}
}

static void dump_ends(struct rtnl_watch *w, int err)
{
	if (err == 0 && w->dump == RTNL_DUMP_LINK_SYNC) {
		for (unsigned i = 0; i < w->nlink; i++) {
			if (!w->link[i].seen && w->link[i].ifindex) {
				link_gone(w, (int)i);
			}
		}
	} else if (err == 0 && w->dump == RTNL_DUMP_ADDR_SYNC) {
		for (unsigned i = 0; i < w->nlink; i++) {
			struct rtnl_link *l = &w->link[i];

			for (unsigned j = l->naddr; j-- > 0;) {
				if (!l->addr[j].fresh) {
					addr_remove(w, (int)i, j);
				}
			}
			/* whatever was not remembered is gone or in the
			 * dump: the table is complete again */
			l->addr_overflow =
				l->addr_overflow && l->naddr == RTNL_ADDR_MAX;
		}
	}
	w->dump = RTNL_DUMP_NONE;
	w->dump_err = err;
}

static int dump_start(struct rtnl_watch *w, enum rtnl_dump_kind kind)
{
	uint8_t buf[128];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	if (w->dump != RTNL_DUMP_NONE) {
		return -EBUSY;
	}
	if (++w->seq == 0) {
		w->seq = 1; /* notifications may carry 0 */
	}
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = w->seq;
	if (kind == RTNL_DUMP_LINK_SYNC) {
		struct ifinfomsg *ifi;

		nlh->nlmsg_type = RTM_GETLINK;
		ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
		ifi->ifi_family = AF_UNSPEC;
	} else {
		struct ifaddrmsg *ifa;

		nlh->nlmsg_type = RTM_GETADDR;
		ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
		ifa->ifa_family = AF_UNSPEC;
	}
	for (;;) {
		if (mnl_socket_sendto(w->nl, nlh, nlh->nlmsg_len) >= 0) {
			break;
		}
		if (errno != EINTR) {
			return -errno;
		}
	}
	if (kind != RTNL_DUMP_LINK_SYNC) {
		/* this dump covers every address a NEW asked for */
		w->want_fetch = false;
	}
	w->dump = kind;
	w->dump_seq = nlh->nlmsg_seq;
	w->dump_started = false;
	w->dump_err = 0;
	return 0;
}

/* ---- receive ---------------------------------------------------------- */

static void handle_msg(struct rtnl_watch *w, const struct nlmsghdr *nlh)
{
	bool ours = w->dump != RTNL_DUMP_NONE &&
		    nlh->nlmsg_seq == w->dump_seq &&
		    nlh->nlmsg_pid == w->portid;
	int err = 0;

	w->st.msgs++;
	if (ours) {
		if (!w->dump_started) {
			dump_begins(w);
		}
		/* the kernel saw the table change under the dump */
		if (nlh->nlmsg_flags & NLM_F_DUMP_INTR) {
			w->lost = true;
		}
	}
	switch (nlh->nlmsg_type) {
	case RTM_NEWLINK:
	case RTM_DELLINK:
		err = on_link(w, nlh);
		break;
	case RTM_NEWADDR:
	case RTM_DELADDR:
		err = on_addr(w, nlh);
		break;
	case NLMSG_DONE:
		if (ours) {
			dump_ends(w, 0);
		}
		break;
	case NLMSG_ERROR:
		if (ours) {
			const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

			if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e))) {
				err = -EBADMSG;
				dump_ends(w, -EPROTO);
			} else {
				dump_ends(w, e->error < 0 ? e->error : -EPROTO);
			}
		}
		break;
	default:
		break; /* NLMSG_NOOP, other rtnetlink families */
	}
	if (err < 0) {
		w->st.bad++;
	}
}

static void handle_buf(struct rtnl_watch *w, const void *buf, size_t len)
{
	const struct nlmsghdr *nlh = buf;
	int left = (int)len;

	for (; mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
		handle_msg(w, nlh);
	}
	/* a header that claims more than the datagram holds */
	if (left > 0) {
		w->st.bad++;
	}
}

/* One datagram: >0 handled, 0 nothing to read, -ENOBUFS overrun (the
 * socket stays usable), -errno. */
static int recv_one(struct rtnl_watch *w)
{
	for (;;) {
		struct sockaddr_nl sa;
		struct iovec iov = {.iov_base = w->rx, .iov_len = RTNL_RX_SIZE};
		struct msghdr mh = {
			.msg_name = &sa,
			.msg_namelen = sizeof(sa),
			.msg_iov = &iov,
			.msg_iovlen = 1,
		};
		ssize_t n = recvmsg(mnl_socket_get_fd(w->nl), &mh, 0);

		if (n >= 0) {
			/* only the kernel's messages, and whole ones */
			if (mh.msg_namelen != sizeof(sa) || sa.nl_pid != 0 ||
			    (mh.msg_flags & MSG_TRUNC)) {
				w->st.bad++;
				continue;
			}
			handle_buf(w, w->rx, (size_t)n);
			return 1;
		}
		switch (errno) {
		case EINTR:
			continue;
		case EAGAIN:
#if EWOULDBLOCK != EAGAIN
		case EWOULDBLOCK:
#endif
			return 0;
		case ENOBUFS:
			w->st.overruns++;
			w->lost = true;
			return -ENOBUFS;
		default:
			return -errno;
		}
	}
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads until the socket is empty and no dump is in flight.  Overruns are
 * noted in w->lost. */
static int drain(struct rtnl_watch *w)
{
	int64_t deadline = now_ms() + RTNL_DUMP_TIMEOUT_MS;
	struct pollfd pfd = {.fd = mnl_socket_get_fd(w->nl), .events = POLLIN};

	for (;;) {
		int r = recv_one(w);
		int64_t wait;

		if (r == -ENOBUFS || r > 0) {
			continue;
		}
		if (r < 0) {
			return r;
		}
		if (w->dump == RTNL_DUMP_NONE) {
			return 0;
		}
		/* a dump in flight: its next part comes as we read */
		wait = deadline - now_ms();
		if (wait <= 0) {
			/* give up on it; a late answer has a stale seq */
			w->dump = RTNL_DUMP_NONE;
			return -ETIMEDOUT;
		}
		poll(&pfd, 1, (int)wait);
	}
}

static int dump_sync(struct rtnl_watch *w, enum rtnl_dump_kind kind)
{
	int err = dump_start(w, kind);

	if (err == 0) {
		err = drain(w);
	}
	return err < 0 ? err : w->dump_err;
}

/* Rereads links and addresses.  Changes are not reported but mark their
 * links pending.  Returns 0 or -errno (-ENOBUFS: overruns every time). */
static int resync(struct rtnl_watch *w)
{
	bool quiet = w->quiet;
	int err = -ENOBUFS;

	w->quiet = true;
	w->st.resyncs++;
	for (int t = 0; t < RTNL_SYNC_TRIES; t++) {
		/* Empty the socket first, and finish an address fetch: the
		 * kernel refuses a second dump (EBUSY), and messages
		 * queued before the request are then out of the way. */
		err = drain(w);
		if (err == -ETIMEDOUT) {
			continue;
		}
		if (err < 0) {
			break;
		}
		w->lost = false;
		err = dump_sync(w, RTNL_DUMP_LINK_SYNC);
		if (err == 0) {
			err = dump_sync(w, RTNL_DUMP_ADDR_SYNC);
		}
		if (err == 0 && w->lost) {
			err = -ENOBUFS;
		}
		if (err == 0 ||
		    (err != -ENOBUFS && err != -EBUSY && err != -ETIMEDOUT)) {
			break;
		}
	}
	w->quiet = quiet;
	return err;
}

/* ---- API -------------------------------------------------------------- */

int rtnl_watch_open(struct rtnl_watch *w)
{
	int err;

	memset(w, 0, sizeof(*w));
	w->rx = malloc(RTNL_RX_SIZE);
	if (!w->rx) {
		return -ENOMEM;
	}
	w->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (!w->nl) {
		err = -errno;
		goto fail;
	}
	if (mnl_socket_bind(w->nl,
			    RTMGRP_LINK | RTMGRP_IPV4_IFADDR |
				    RTMGRP_IPV6_IFADDR,
			    MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		goto fail;
	}
	w->portid = mnl_socket_get_portid(w->nl);
	/* the clock makes a restarted daemon's sequence unlike the last */
	w->seq = (uint32_t)time(NULL);
	return 0;

fail:
	rtnl_watch_close(w);
	return err;
}

void rtnl_watch_close(struct rtnl_watch *w)
{
	if (w->nl) {
		mnl_socket_close(w->nl);
		w->nl = NULL;
	}
	free(w->rx);
	w->rx = NULL;
	w->dump = RTNL_DUMP_NONE;
}

int rtnl_watch_fd(const struct rtnl_watch *w)
{
	return w->nl ? mnl_socket_get_fd(w->nl) : -1;
}

int rtnl_watch_add(struct rtnl_watch *w, const char *ifname)
{
	size_t n = ifname ? strlen(ifname) : 0;
	struct rtnl_link *l;
	int idx, err;

	if (!w->nl) {
		return -EBADF;
	}
	if (n == 0 || n >= IFNAMSIZ) {
		return -EINVAL;
	}
	if (find_name(w, ifname) >= 0) {
		return -EEXIST;
	}
	if (w->nlink >= RTNL_WATCH_MAX) {
		return -ENOSPC;
	}
	idx = (int)w->nlink;
	l = &w->link[idx];
	memset(l, 0, sizeof(*l));
	memcpy(l->name, ifname, n + 1);
	w->nlink++;

	err = resync(w);
	if (err < 0) {
		forget(l);
		w->nlink--;
		return err;
	}
	/* its first state is not a change */
	l->pending = false;
	if (w->stale) {
		/* the sync was the resync an overrun asked for */
		w->stale = false;
		for (unsigned i = 0; i < w->nlink; i++) {
			w->link[i].pending = (int)i != idx;
		}
	}
	return idx;
}

int rtnl_watch_read(struct rtnl_watch *w, rtnl_cb *cb, void *ctx)
{
	int err = 0;

	if (!w->nl) {
		return -EBADF;
	}
	if (!cb) {
		return -EINVAL;
	}
	w->cb = cb;
	w->ctx = ctx;
	w->nev = 0;
	for (;;) {
		int r;

		if (w->stale) {
			/* Notifications were dropped: reread everything and
			 * have the caller rebind every name. */
			err = resync(w);
			if (err < 0) {
				break; /* still stale: tried again next time */
			}
			w->stale = false;
			for (unsigned i = 0; i < w->nlink; i++) {
				w->link[i].pending = true;
			}
		}
		/* Changes seen while quiet (in rtnl_watch_add or a resync)
		 * before reading on: the state is current, so what comes
		 * next is compared against the right thing. */
		for (unsigned i = 0; i < w->nlink; i++) {
			if (w->link[i].pending) {
				w->link[i].pending = false;
				emit(w, (int)i, RTNL_RESYNC, NULL);
			}
		}
		if (w->want_fetch && w->dump == RTNL_DUMP_NONE) {
			err = dump_start(w, RTNL_DUMP_ADDR_FETCH);
			if (err < 0) {
				break;
			}
		}
		r = recv_one(w);
		if (r > 0) {
			continue;
		}
		if (r == 0) {
			break;
		}
		if (r != -ENOBUFS) {
			err = r;
			break;
		}
		w->stale = true;
	}
	w->cb = NULL;
	w->ctx = NULL;
	if (err < 0 && w->nev == 0) {
		return err;
	}
	return w->nev;
}
