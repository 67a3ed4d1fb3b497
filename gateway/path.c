/* SPDX-License-Identifier: BSD-2-Clause */
/* The paths: one UDP socket per outer family each, bound to the path's
 * WAN device and marked with its fwmark, all bound to the tunnel port;
 * their MTU; the rtnetlink watch of their interfaces.
 *
 * The sockets only send: what arrives for the tunnel port is taken by the
 * egress queue in raw PREROUTING before it reaches any socket.  When an
 * interface comes back or changes, its socket is opened again and the
 * sessions are told (on_path_reopened).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gateway/gw.h"
#include "gateway/link.h"
#include "gateway/outer.h"
#include "gateway/path.h"
#include "gateway/peers.h"
#include "gateway/rules.h"
#include "gateway/session.h"
#include "ingress/mtu.h"

void gw_link_set_peer(struct gw_link *l, const struct sockaddr_in6 *a)
{
	l->peer = *a;
	memset(&l->peer4, 0, sizeof(l->peer4));
	l->peer4.sin_family = AF_INET;
	l->peer4.sin_port = a->sin6_port;
	if (gw_addr_is4(a)) {
		memcpy(&l->peer4.sin_addr, &a->sin6_addr.s6_addr[12], 4);
	}
}

void gw_path_src(struct msghdr *msg, union gw_src_cmsg *buf,
		 const struct in6_addr *src, bool v4)
{
	struct cmsghdr *cm = &buf->h;

	if (!src) {
		msg->msg_control = NULL;
		msg->msg_controllen = 0;
		return;
	}
	memset(buf, 0, sizeof(*buf));
	if (v4) {
		struct in_pktinfo pi = {.ipi_ifindex = 0};

		memcpy(&pi.ipi_spec_dst, &src->s6_addr[12], 4);
		cm->cmsg_level = IPPROTO_IP;
		cm->cmsg_type = IP_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
		msg->msg_controllen = CMSG_SPACE(sizeof(pi));
	} else {
		struct in6_pktinfo pi = {.ipi6_addr = *src};

		cm->cmsg_level = IPPROTO_IPV6;
		cm->cmsg_type = IPV6_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
		msg->msg_controllen = CMSG_SPACE(sizeof(pi));
	}
	msg->msg_control = buf;
}

const struct in6_addr *gw_link_src(const struct gw_link *l)
{
	return l->have_local ? &l->local : NULL;
}

int gw_path_sendto(int fd, const void *buf, size_t len,
		   const struct sockaddr *to, socklen_t tolen,
		   const struct in6_addr *src)
{
	struct iovec iov = {.iov_base = (void *)(uintptr_t)buf,
			    .iov_len = len};
	struct msghdr msg = {
		.msg_name = (void *)(uintptr_t)to,
		.msg_namelen = tolen,
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	union gw_src_cmsg cm;

	gw_path_src(&msg, &cm, src, to->sa_family == AF_INET);
	return sendmsg(fd, &msg, MSG_DONTWAIT) < 0 ? -errno : 0;
}

int gw_path_dst(const struct gw_path *p, const struct sockaddr_in6 *a,
		struct sockaddr_in *a4, const struct sockaddr **to,
		socklen_t *len)
{
	if (!gw_addr_is4(a)) {
		*to = (const struct sockaddr *)a;
		*len = sizeof(*a);
		return p->fd6;
	}
	memset(a4, 0, sizeof(*a4));
	a4->sin_family = AF_INET;
	a4->sin_port = a->sin6_port;
	memcpy(&a4->sin_addr, &a->sin6_addr.s6_addr[12], 4);
	*to = (const struct sockaddr *)a4;
	*len = sizeof(*a4);
	return p->fd;
}

int gw_link_dst(const struct gw_sess *s, const struct gw_link *l,
		const struct sockaddr **to, socklen_t *len)
{
	const struct gw_path *p = &s->gw->path[l->idx];

	if (!gw_addr_is4(&l->peer)) {
		*to = (const struct sockaddr *)&l->peer;
		*len = sizeof(l->peer);
		return p->fd6;
	}
	*to = (const struct sockaddr *)&l->peer4;
	*len = sizeof(l->peer4);
	return p->fd;
}

bool gw_link_can_send(const struct gw_sess *s, const struct gw_link *l)
{
	const struct gw_path *p = &s->gw->path[l->idx];

	return l->have_peer && (gw_addr_is4(&l->peer) ? p->fd : p->fd6) >= 0;
}

void gw_links_init(struct gw_sess *s)
{
	unsigned i;

	for (i = 0; i < s->gw->npaths; i++) {
		memset(&s->link[i], 0, sizeof(s->link[i]));
		s->link[i].idx = i;
	}
	/* a CPE's peers: its concentrators' addresses */
	gw_peers_init(s);
}

/* A path has two sockets, one per outer family: IPv4, and IPv6 with
 * IPV6_V6ONLY (a kernel without IPv6 has only the first; IPv6 peers then
 * cannot be reached: gw_link_can_send).  One dual-stack socket would do
 * for both, but IPv4 sent through an IPv6 socket (v4-mapped) costs
 * enough more per packet to lose a few percent of a saturated line
 * (test_daemon's 90 Mbit/s: 94 % DSL utilisation instead of 98 %). */
static int open_sock(struct gw *gw, struct gw_path *p, bool v6)
{
	const struct conf_path *cp = &gw->conf.path[p->idx];
	struct sockaddr_in6 a6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(gw->conf.port),
		.sin6_addr = IN6ADDR_ANY_INIT,
	};
	struct sockaddr_in a4 = {
		.sin_family = AF_INET,
		.sin_port = htons(gw->conf.port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	int one = 1, pmtu = IP_PMTUDISC_DONT, pmtu6 = IPV6_PMTUDISC_DONT;
	int small = 4096, sndbuf = 4 << 20;
	int fd, err;

	fd = socket(v6 ? AF_INET6 : AF_INET,
		    SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		return -errno;
	}
	/* several per-device sockets share the tunnel port */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    (v6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
			      sizeof(one)) < 0) ||
	    setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, cp->ifname,
		       (socklen_t)strlen(cp->ifname)) < 0) {
		err = -errno;
		if (err != -ENODEV) {
			gw_err(gw, "path %s: socket on device %s: %s", cp->name,
			       cp->ifname, strerror(-err));
		}
		goto fail;
	}
	if (cp->fwmark && setsockopt(fd, SOL_SOCKET, SO_MARK, &cp->fwmark,
				     sizeof(cp->fwmark)) < 0) {
		err = -errno;
		gw_err(gw, "path %s: fwmark 0x%x: %s", cp->name, cp->fwmark,
		       strerror(-err));
		goto fail;
	}
	/* Fragment an oversized packet rather than lose it (see the README
	 * on MTU); nothing is read here, so keep the receive buffer small. */
	if (v6) {
		setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &pmtu6,
			   sizeof(pmtu6));
	} else {
		setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu,
			   sizeof(pmtu));
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	/* A drain sends up to GW_BUDGET datagrams at once; a short send
	 * buffer turns bursts into EAGAIN, i.e. loss.  Force it as root. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf,
		       sizeof(sndbuf)) < 0) {
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	}
	/* Only so that the kernel stamps every packet it receives: the egress
	 * reads that stamp from the queue (NFQA_TIMESTAMP) and so measures
	 * arrival, not when this process got round to the packet. */
	setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
	if (v6 ? bind(fd, (struct sockaddr *)&a6, sizeof(a6)) < 0
	       : bind(fd, (struct sockaddr *)&a4, sizeof(a4)) < 0) {
		err = -errno;
		gw_err(gw, "path %s: bind to port %u (%s): %s", cp->name,
		       gw->conf.port, v6 ? "IPv6" : "IPv4", strerror(-err));
		goto fail;
	}
	return fd;

fail:
	close(fd);
	return err;
}

static void close_socks(struct gw_path *p)
{
	if (p->fd >= 0) {
		close(p->fd);
		p->fd = -1;
	}
	if (p->fd6 >= 0) {
		close(p->fd6);
		p->fd6 = -1;
	}
}

static int open_one(struct gw *gw, struct gw_path *p)
{
	int fd, fd6;

	fd = open_sock(gw, p, false);
	if (fd < 0) {
		return fd;
	}
	fd6 = open_sock(gw, p, true);
	if (fd6 < 0 && fd6 != -EAFNOSUPPORT) {
		close(fd);
		return fd6;
	}
	p->fd = fd;
	p->fd6 = fd6;
	return 0;
}

/* The interface's MTU, or 0 if it cannot be read (absent). */
static uint32_t if_mtu(const char *ifname)
{
	struct ifreq ifr;
	int fd, ret;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		return 0;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ret = ioctl(fd, SIOCGIFMTU, &ifr);
	close(fd);
	return ret < 0 || ifr.ifr_mtu <= 0 ? 0 : (uint32_t)ifr.ifr_mtu;
}

/* The path's outer family: a CPE's configured peer; on a concentrator,
 * IPv6 as soon as any CPE's peer on the path is (its outer header is 20
 * bytes longer: the one MSS clamp and inner maximum fit everyone). */
static bool path_outer6(const struct gw *gw, unsigned i)
{
	unsigned k;

	if (gw->conf.role == ROLE_CPE) {
		return strchr(gw->conf.path[i].peers[0], ':') != NULL;
	}
	for (k = 0; k < gw->nsess; k++) {
		const struct gw_link *l = &gw->sess[k]->link[i];

		if (l->have_peer && !gw_addr_is4(&l->peer)) {
			return true;
		}
	}
	return false;
}

/* Every path's MTU (configured, else its interface's, else 1500 while it
 * is absent); the largest inner packet all of them carry once
 * encapsulated (with the path's outer header: IPv4 or IPv6), and the TCP
 * MSS that fits it.  An MSS that changed goes into the rules. */
void gw_paths_update_mtu(struct gw *gw)
{
	uint16_t inner = 0, mss;
	unsigned i;

	for (i = 0; i < gw->npaths; i++) {
		struct gw_path *p = &gw->path[i];
		const struct conf_path *cp = &gw->conf.path[i];
		uint32_t m = cp->mtu ? cp->mtu : if_mtu(cp->ifname);

		m = m ? m : 1500;
		if (p->mtu && p->mtu != m) {
			gw_info(gw, "path %s: MTU %u (was %u)", cp->name, m,
				p->mtu);
		}
		p->mtu = m;
		p->outer6 = path_outer6(gw, i);
		m = mtu_inner_max(m, p->outer6);
		inner = !i || m < inner ? (uint16_t)m : inner;
	}
	gw->inner_max = inner > GW_INNER_MAX ? GW_INNER_MAX : inner;
	/* the inner maximum less IPv4 + TCP; IPv6's is 20 less (rules.c) */
	mss = inner > 40 ? (uint16_t)(inner - 40) : 0;
	if (gw->mss != mss) {
		gw->mss = mss;
		if (gw->rules.installed) {
			gw_rules_update(gw, &gw->conf);
		}
	}
}

/* A path's socket again, after its interface appeared, came back with a
 * new index (a PPPoE reconnect makes a new ppp0), or got a new address:
 * SO_BINDTODEVICE holds the index it was given.  Then the sessions are
 * told (on_path_reopened: a PROBE of every session at once, so that the
 * peer sees the path, and its new address behind NAT, now rather than a
 * probe interval later). */
static void reopen(struct gw *gw, struct gw_path *p, const char *why)
{
	const struct conf_path *cp = &gw->conf.path[p->idx];
	int err;

	close_socks(p);
	err = open_one(gw, p);
	if (err) {
		gw_warn(gw, "path %s: %s: no socket on %s: %s", cp->name, why,
			cp->ifname, strerror(-err));
		return;
	}
	p->reopens++;
	gw_info(gw, "path %s: %s: socket on %s opened again", cp->name, why,
		cp->ifname);
	gw_paths_update_mtu(gw);
	if (gw->on_path_reopened) {
		gw->on_path_reopened(gw, p->idx);
	}
}

static void on_link_event(void *ctx, int idx, const struct rtnl_event *ev)
{
	struct gw *gw = ctx;
	const char *name = gw->rtnl.link[idx].name;
	unsigned i;

	for (i = 0; i < gw->npaths; i++) {
		struct gw_path *p = &gw->path[i];

		if (strcmp(gw->conf.path[i].ifname, name)) {
			continue;
		}
		switch (ev->type) {
		case RTNL_LINK_NEW:
			reopen(gw, p, "interface appeared");
			break;
		case RTNL_RESYNC:
			reopen(gw, p, "interface events lost");
			break;
		case RTNL_ADDR_NEW:
			if (ev->family == AF_INET ||
			    (ev->family == AF_INET6 && p->outer6)) {
				reopen(gw, p, "new address");
			}
			break;
		case RTNL_LINK_DEL:
			close_socks(p);
			gw_warn(gw,
				"path %s: interface %s gone; waiting for it",
				gw->conf.path[i].name, name);
			break;
		case RTNL_LINK_UP:
		case RTNL_LINK_MTU:
			gw_paths_update_mtu(gw);
			break;
		default:
			/* down, address gone: the probes tell */
			break;
		}
	}
}

static void on_rtnl(struct ev_loop *loop, ev_io *w, int revents)
{
	struct gw *gw = container_of(w, struct gw, rtnl_io);
	int n;

	(void)loop;
	(void)revents;
	n = rtnl_watch_read(&gw->rtnl, on_link_event, gw);
	if (n < 0 && n != -EAGAIN) {
		gw_err(gw, "rtnetlink: %s", strerror(-n));
	}
}

/* The watch first, so that nothing that happens to an interface after its
 * socket is opened goes unseen. */
static int watch_open(struct gw *gw)
{
	unsigned i;
	int err;

	err = rtnl_watch_open(&gw->rtnl);
	if (err) {
		gw_err(gw, "rtnetlink: %s", strerror(-err));
		return err;
	}
	gw->rtnl_ok = true;
	for (i = 0; i < gw->npaths; i++) {
		err = rtnl_watch_add(&gw->rtnl, gw->conf.path[i].ifname);
		if (err < 0 && err != -EEXIST) {
			gw_err(gw, "rtnetlink: watching %s: %s",
			       gw->conf.path[i].ifname, strerror(-err));
			return err;
		}
	}
	if (gw->loop) {
		ev_io_init(&gw->rtnl_io, on_rtnl, rtnl_watch_fd(&gw->rtnl),
			   EV_READ);
		ev_io_start(gw->loop, &gw->rtnl_io);
	}
	return 0;
}

int gw_paths_open(struct gw *gw)
{
	unsigned i;
	int err;

	for (i = 0; i < gw->npaths; i++) {
		gw->path[i].fd = -1;
		gw->path[i].fd6 = -1;
		gw->path[i].idx = i;
	}
	err = watch_open(gw);
	if (err) {
		return err;
	}
	for (i = 0; i < gw->npaths; i++) {
		struct gw_path *p = &gw->path[i];

		err = open_one(gw, p);
		if (err == -ENODEV) {
			/* a PPPoE or LTE interface may come later */
			gw_warn(gw,
				"path %s: interface %s absent; waiting for "
				"it",
				gw->conf.path[i].name, gw->conf.path[i].ifname);
			continue;
		}
		if (err) {
			return err;
		}
	}
	gw_paths_update_mtu(gw);
	return 0;
}

void gw_paths_close(struct gw *gw)
{
	unsigned i;

	if (gw->rtnl_ok) {
		if (gw->loop) {
			ev_io_stop(gw->loop, &gw->rtnl_io);
		}
		rtnl_watch_close(&gw->rtnl);
		gw->rtnl_ok = false;
	}
	for (i = 0; i < gw->npaths; i++) {
		close_socks(&gw->path[i]);
	}
}
