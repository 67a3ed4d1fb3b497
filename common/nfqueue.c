/* SPDX-License-Identifier: BSD-2-Clause */
/* One NFQUEUE driven over a libmnl netlink socket (API: nfqueue.h).
 *
 * Receive: the kernel sends each queued packet as its own netlink datagram.
 * nfqueue_drain() recv()s into one buffer sized for the largest message and
 * dispatches until EAGAIN or the budget, like Suricata's NFQRecvPkt loop.
 *
 * Send: verdicts are appended back to back in q->tx as complete nlmsghdr
 * messages and go out in one sendto() when the buffer cannot take the next
 * one or on nfqueue_flush().  The kernel handles them one by one and answers
 * only those it rejects (NLMSG_ERROR, seen by the next drain).
 *
 * Invariants: q->nl == NULL exactly when the queue is closed, so a zeroed
 * struct is closed and nfqueue_close() may run twice; q->tx holds q->tx_count
 * whole messages in q->tx_used bytes; nothing is allocated after
 * nfqueue_open().
 *
 * libnetfilter_queue is not used: its nfq_nlmsg_* helpers are one
 * mnl_attr_put() each, and put_cfg_*() and put_verdict() below build the
 * same attributes, parse_attr() validating like nfq_nlmsg_parse().  Our
 * prefix is nfqueue_ because that library's legacy API exports nfq_open(),
 * nfq_close() and nfq_fd(): a binary may link both.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* recvmmsg */
#endif
#include "common/nfqueue.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

enum {
	/* nla_len is 16 bits: the largest payload one attribute carries. */
	NFQ_PAYLOAD_MAX = 0xffff - MNL_ATTR_HDRLEN,
	NFQ_COPY_DEFAULT = 0xffff,
	/* Time to wait for the kernel's answer to a config message; it is
	 * queued before sendto() returns, so this only guards a lost ack. */
	NFQ_ACK_TIMEOUT_MS = 1000,
	/* Room for a verdict without payload: header + verdict + mark. */
	NFQ_SMALL_MSG = 64,
	NFQ_RX_MSGS = 16, /* datagrams per recvmmsg */
};

#define NFQ_PROC_PATH "/proc/net/netfilter/nfnetlink_queue"
#define NFQ_PKT_TYPE  ((NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET)

static struct nlmsghdr *put_hdr(void *buf, uint8_t type, uint16_t flags,
				uint32_t seq, uint16_t queue)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *nfg;

	nlh->nlmsg_type = (NFNL_SUBSYS_QUEUE << 8) | type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = seq;
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->nfgen_family = AF_UNSPEC;
	nfg->version = NFNETLINK_V0;
	nfg->res_id = htons(queue);
	return nlh;
}

static void put_cfg_cmd(struct nlmsghdr *nlh, uint8_t cmd)
{
	struct nfqnl_msg_config_cmd c = {
		.command = cmd,
		.pf = htons(AF_UNSPEC),
	};

	mnl_attr_put(nlh, NFQA_CFG_CMD, sizeof(c), &c);
}

static void put_cfg_params(struct nlmsghdr *nlh, uint8_t mode, uint32_t range)
{
	struct nfqnl_msg_config_params p = {
		.copy_range = htonl(range),
		.copy_mode = mode,
	};

	mnl_attr_put(nlh, NFQA_CFG_PARAMS, sizeof(p), &p);
}

static size_t verdict_size(bool set_mark, const void *payload, size_t len)
{
	size_t n = MNL_ALIGN(sizeof(struct nlmsghdr)) +
		   MNL_ALIGN(sizeof(struct nfgenmsg)) + MNL_ATTR_HDRLEN +
		   MNL_ALIGN(sizeof(struct nfqnl_msg_verdict_hdr));

	if (set_mark) {
		n += MNL_ATTR_HDRLEN + MNL_ALIGN(sizeof(uint32_t));
	}
	if (payload) {
		n += MNL_ATTR_HDRLEN + MNL_ALIGN(len);
	}
	return n;
}

/* Writes one verdict message at buf, which has room for verdict_size(). */
static struct nlmsghdr *put_verdict(void *buf, uint16_t queue, uint32_t id,
				    uint32_t verdict, bool set_mark,
				    uint32_t mark, const void *payload,
				    size_t len)
{
	struct nlmsghdr *nlh = put_hdr(buf, NFQNL_MSG_VERDICT, 0, 0, queue);
	struct nfqnl_msg_verdict_hdr vh = {
		.verdict = htonl(verdict),
		.id = htonl(id),
	};

	mnl_attr_put(nlh, NFQA_VERDICT_HDR, sizeof(vh), &vh);
	if (set_mark) {
		mnl_attr_put_u32(nlh, NFQA_MARK, htonl(mark));
	}
	if (payload) {
		mnl_attr_put(nlh, NFQA_PAYLOAD, len, payload);
	}
	return nlh;
}

static int send_all(struct nfqueue *q, const void *buf, size_t len)
{
	for (;;) {
		if (mnl_socket_sendto(q->nl, buf, len) >= 0) {
			return 0;
		}
		if (errno != EINTR) {
			return -errno;
		}
	}
}

/* The attribute checks of nfq_nlmsg_parse(): fixed-size attributes must
 * have their size, or the message is rejected; unknown ones are skipped. */
static int parse_attr(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, NFQA_MAX) < 0) {
		return MNL_CB_OK;
	}
	switch (type) {
	case NFQA_MARK:
	case NFQA_IFINDEX_INDEV:
	case NFQA_IFINDEX_OUTDEV:
	case NFQA_IFINDEX_PHYSINDEV:
	case NFQA_IFINDEX_PHYSOUTDEV:
	case NFQA_CAP_LEN:
	case NFQA_SKB_INFO:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0) {
			return MNL_CB_ERROR;
		}
		break;
	case NFQA_PACKET_HDR:
		if (mnl_attr_validate2(attr, MNL_TYPE_UNSPEC,
				       sizeof(struct nfqnl_msg_packet_hdr)) <
		    0) {
			return MNL_CB_ERROR;
		}
		break;
	case NFQA_TIMESTAMP:
		if (mnl_attr_validate2(
			    attr, MNL_TYPE_UNSPEC,
			    sizeof(struct nfqnl_msg_packet_timestamp)) < 0) {
			return MNL_CB_ERROR;
		}
		break;
	default:
		break;
	}
	tb[type] = attr;
	return MNL_CB_OK;
}

static uint32_t attr_u32(const struct nlattr *a)
{
	return a ? ntohl(mnl_attr_get_u32(a)) : 0;
}

static int parse_pkt(const struct nlmsghdr *nlh, struct nfqueue_pkt *p)
{
	const struct nlattr *tb[NFQA_MAX + 1] = {0};
	struct nfqnl_msg_packet_hdr ph;
	const struct nlattr *pl;

	if (mnl_attr_parse(nlh, sizeof(struct nfgenmsg), parse_attr, tb) < 0 ||
	    !tb[NFQA_PACKET_HDR]) {
		return -EBADMSG;
	}
	memcpy(&ph, mnl_attr_get_payload(tb[NFQA_PACKET_HDR]), sizeof(ph));
	p->id = ntohl(ph.packet_id);
	p->hw_proto = ntohs(ph.hw_protocol);
	p->mark = attr_u32(tb[NFQA_MARK]);
	p->ifindex_in = attr_u32(tb[NFQA_IFINDEX_INDEV]);
	p->ifindex_out = attr_u32(tb[NFQA_IFINDEX_OUTDEV]);
	p->tstamp_ns = 0;
	if (tb[NFQA_TIMESTAMP]) {
		/* copied out: attributes are only 4-byte aligned */
		struct nfqnl_msg_packet_timestamp ts;

		memcpy(&ts, mnl_attr_get_payload(tb[NFQA_TIMESTAMP]),
		       sizeof(ts));
		p->tstamp_ns = be64toh(ts.sec) * 1000000000ull +
			       be64toh(ts.usec) * 1000ull;
	}
	pl = tb[NFQA_PAYLOAD];
	p->data = pl ? mnl_attr_get_payload(pl) : NULL;
	p->len = pl ? mnl_attr_get_payload_len(pl) : 0;
	/* The kernel sends NFQA_CAP_LEN only when it cut the copy short. */
	p->orig_len = tb[NFQA_CAP_LEN] ? attr_u32(tb[NFQA_CAP_LEN]) : p->len;
	if (p->orig_len < p->len) {
		p->orig_len = p->len;
	}
	return 0;
}

/* A packet queued to us before nfqueue_open() has finished cannot be handed
 * to anyone; NF_REPEAT runs the hook again, which queues it anew. */
static void give_back(struct nfqueue *q, const struct nlmsghdr *nlh)
{
	uint8_t buf[NFQ_SMALL_MSG];
	struct nfqueue_pkt p;
	struct nlmsghdr *v;

	if (parse_pkt(nlh, &p) < 0) {
		q->st.recv_errors++;
		return;
	}
	v = put_verdict(buf, q->queue, p.id, NF_REPEAT, false, 0, NULL, 0);
	if (send_all(q, v, v->nlmsg_len) < 0) {
		q->st.send_errors++;
	}
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for the kernel's answer to request seq: 0 or its -errno. */
static int wait_ack(struct nfqueue *q, uint32_t seq)
{
	int64_t deadline = now_ms() + NFQ_ACK_TIMEOUT_MS;

	for (;;) {
		const struct nlmsghdr *nlh;
		ssize_t n = mnl_socket_recvfrom(q->nl, q->rx, q->rx_size);
		int left;

		if (n < 0) {
			int err = errno;
			struct pollfd pfd = {
				.fd = mnl_socket_get_fd(q->nl),
				.events = POLLIN,
			};
			int64_t wait = deadline - now_ms();

			if (err == EINTR) {
				continue;
			}
			if (err != EAGAIN && err != EWOULDBLOCK) {
				return -err;
			}
			if (wait <= 0) {
				return -ETIMEDOUT;
			}
			poll(&pfd, 1, (int)wait);
			continue;
		}
		left = (int)n;
		for (nlh = (const struct nlmsghdr *)q->rx;
		     mnl_nlmsg_ok(nlh, left);
		     nlh = mnl_nlmsg_next(nlh, &left)) {
			const struct nlmsgerr *e;

			if (nlh->nlmsg_type == NFQ_PKT_TYPE) {
				give_back(q, nlh);
				continue;
			}
			if (nlh->nlmsg_type != NLMSG_ERROR ||
			    nlh->nlmsg_seq != seq) {
				continue;
			}
			if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e))) {
				return -EBADMSG;
			}
			e = mnl_nlmsg_get_payload(nlh);
			return e->error;
		}
	}
}

static int set_rcvbuf(int fd, uint32_t bytes)
{
	int v = bytes > (uint32_t)(INT32_MAX / 2) ? INT32_MAX / 2 : (int)bytes;

	/* FORCE passes net.core.rmem_max but needs CAP_NET_ADMIN. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) == 0) {
		return 0;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)) == 0) {
		return 0;
	}
	return -errno;
}

/* netlink_sendmsg() refuses a write larger than the send buffer; make sure
 * a full tx batch fits.  Best effort: a failure shows as send errors. */
static void fit_sndbuf(int fd, size_t need)
{
	int cur = 0;
	socklen_t sl = sizeof(cur);
	int v = (int)need;

	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &cur, &sl) == 0 &&
	    (size_t)cur >= need) {
		return;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)) < 0) {
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	}
}

/* Bind, copy mode, queue length and flags in one message: the kernel
 * checks the flags before binding and applies the rest in the same call,
 * so no packet is queued to us with a half-done configuration. */
static int bind_queue(struct nfqueue *q, const struct nfqueue_opts *o)
{
	uint32_t seq = (uint32_t)time(NULL) | 1; /* 0 is for our verdicts */
	uint32_t flags = o->fail_open ? NFQA_CFG_F_FAIL_OPEN : 0;
	/* GSO stays off: every wire packet must reach us on its own. */
	uint32_t mask =
		NFQA_CFG_F_FAIL_OPEN | NFQA_CFG_F_GSO | NFQA_CFG_F_CONNTRACK;
	struct nlmsghdr *nlh;
	int err;

	nlh = put_hdr(q->tx, NFQNL_MSG_CONFIG, NLM_F_ACK, seq,
		      (uint16_t)q->queue);
	put_cfg_cmd(nlh, NFQNL_CFG_CMD_BIND);
	put_cfg_params(nlh, NFQNL_COPY_PACKET,
		       o->copy_range ? o->copy_range : NFQ_COPY_DEFAULT);
	if (o->maxlen) {
		mnl_attr_put_u32(nlh, NFQA_CFG_QUEUE_MAXLEN, htonl(o->maxlen));
	}
	mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS, htonl(flags));
	mnl_attr_put_u32(nlh, NFQA_CFG_MASK, htonl(mask));

	err = send_all(q, nlh, nlh->nlmsg_len);
	if (err == 0) {
		err = wait_ack(q, seq);
	}
	/* The kernel says EPERM when another socket owns the queue (and
	 * also when we lack CAP_NET_ADMIN); tell the two apart. */
	if (err == -EPERM) {
		struct nfqueue_kstats ks;

		if (nfqueue_kernel_stats(q->queue, &ks) == 0) {
			err = -EBUSY;
		}
	}
	return err;
}

int nfqueue_open(struct nfqueue *q, unsigned num,
		 const struct nfqueue_opts *opts)
{
	static const struct nfqueue_opts defaults;
	const struct nfqueue_opts *o = opts ? opts : &defaults;
	size_t bufsz = 0xffff + MNL_SOCKET_BUFFER_SIZE, stride;
	int one = 1;
	int err;
	int fd;

	memset(q, 0, sizeof(*q));
	if (num > 0xffff) {
		return -EINVAL;
	}
	q->queue = num;
	/* each receive buffer starts aligned: netlink headers are read in
	 * place (bufsz itself is odd) */
	stride = (bufsz + 63) & ~(size_t)63;
	q->rx = malloc(stride * NFQ_RX_MSGS);
	q->rxm = calloc(NFQ_RX_MSGS, sizeof(*q->rxm));
	q->rxv = calloc(NFQ_RX_MSGS, sizeof(*q->rxv));
	q->rxa = calloc(NFQ_RX_MSGS, sizeof(*q->rxa));
	if (!q->rx || !q->rxm || !q->rxv || !q->rxa) {
		err = -ENOMEM;
		goto fail;
	}
	for (int i = 0; i < NFQ_RX_MSGS; i++) {
		q->rxv[i].iov_base = q->rx + (size_t)i * stride;
		q->rxv[i].iov_len = bufsz;
		q->rxm[i].msg_hdr.msg_iov = &q->rxv[i];
		q->rxm[i].msg_hdr.msg_iovlen = 1;
		q->rxm[i].msg_hdr.msg_name = &q->rxa[i];
	}
	q->tx = malloc(bufsz);
	if (!q->rx || !q->tx) {
		err = -ENOMEM;
		goto fail;
	}
	q->rx_size = bufsz;
	q->tx_size = bufsz;

	q->nl = mnl_socket_open2(NETLINK_NETFILTER,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (!q->nl) {
		err = -errno;
		goto fail;
	}
	if (mnl_socket_bind(q->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		goto fail;
	}
	q->portid = mnl_socket_get_portid(q->nl);
	fd = mnl_socket_get_fd(q->nl);

	/* An overrun still loses packets (user_dropped in /proc), but an
	 * ENOBUFS error from recv() tells us nothing we could act on. */
	if (mnl_socket_setsockopt(q->nl, NETLINK_NO_ENOBUFS, &one,
				  sizeof(one)) < 0) {
		err = -errno;
		goto fail;
	}
	/* Error answers to rejected verdicts would otherwise echo the
	 * whole verdict, payload included, into our receive buffer. */
	mnl_socket_setsockopt(q->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	if (o->rcvbuf) {
		err = set_rcvbuf(fd, o->rcvbuf);
		if (err < 0) {
			goto fail;
		}
	}
	fit_sndbuf(fd, q->tx_size + 64);

	err = bind_queue(q, o);
	if (err < 0) {
		goto fail;
	}
	return 0;

fail:
	nfqueue_close(q);
	memset(&q->st, 0, sizeof(q->st));
	return err;
}

void nfqueue_close(struct nfqueue *q)
{
	if (q->nl) {
		uint8_t buf[NFQ_SMALL_MSG];
		struct nlmsghdr *nlh;

		/* Unbinding drops whatever is still queued: send what we
		 * decided first. */
		nfqueue_flush(q);
		nlh = put_hdr(buf, NFQNL_MSG_CONFIG, 0, 0, (uint16_t)q->queue);
		put_cfg_cmd(nlh, NFQNL_CFG_CMD_UNBIND);
		send_all(q, nlh, nlh->nlmsg_len);
		mnl_socket_close(q->nl);
		q->nl = NULL;
	}
	free(q->rx);
	free(q->tx);
	free(q->rxm);
	free(q->rxv);
	free(q->rxa);
	q->rxm = NULL;
	q->rxv = NULL;
	q->rxa = NULL;
	q->rx = NULL;
	q->tx = NULL;
	q->rx_size = 0;
	q->tx_size = 0;
	q->tx_used = 0;
	q->tx_count = 0;
}

int nfqueue_fd(const struct nfqueue *q)
{
	return q->nl ? mnl_socket_get_fd(q->nl) : -1;
}

struct drain {
	struct nfqueue *q;
	nfqueue_pkt_fn fn;
	void *ctx;
	unsigned n;
};

static int on_data(const struct nlmsghdr *nlh, void *data)
{
	struct drain *d = data;
	struct nfqueue_pkt p;

	if (nlh->nlmsg_type != NFQ_PKT_TYPE) {
		return MNL_CB_OK;
	}
	if (parse_pkt(nlh, &p) < 0) {
		/* Without an id there is no verdict to give: the packet
		 * stays queued until we unbind. */
		d->q->st.recv_errors++;
		return MNL_CB_OK;
	}
	d->q->st.received++;
	if (p.orig_len > p.len) {
		d->q->st.truncated++;
	}
	d->fn(d->ctx, &p);
	d->n++;
	return MNL_CB_OK;
}

/* The kernel answers a verdict only to reject it (unknown id, bad
 * payload); the verdict was counted as sent, count it as failed too. */
static int on_error(const struct nlmsghdr *nlh, void *data)
{
	struct drain *d = data;
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e)) || e->error != 0) {
		d->q->st.send_errors++;
	}
	return MNL_CB_OK;
}

int nfqueue_drain(struct nfqueue *q, unsigned budget, nfqueue_pkt_fn fn,
		  void *ctx)
{
	/* Not const: libmnl's prototype takes a mutable array. */
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = on_error,
	};
	struct drain d = {.q = q, .fn = fn, .ctx = ctx};
	int err = 0;

	if (!q->nl) {
		return -EBADF;
	}
	if (budget > INT32_MAX) {
		budget = INT32_MAX;
	}
	while (d.n < budget) {
		struct mmsghdr *mm = q->rxm;
		struct sockaddr_nl *sa = q->rxa;
		unsigned want =
			budget - d.n < NFQ_RX_MSGS ? budget - d.n : NFQ_RX_MSGS;
		int r, i;

		for (i = 0; i < (int)want; i++) {
			mm[i].msg_hdr.msg_namelen = sizeof(sa[i]);
		}
		r = recvmmsg(mnl_socket_get_fd(q->nl), mm, want, MSG_DONTWAIT,
			     NULL);
		if (r < 0) {
			if (errno == EINTR) {
				continue;
			}
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				break;
			}
			q->st.recv_errors++;
			/* ENOBUFS: the socket overran and the kernel dropped
			 * packets; ENOSPC: a message larger than rx (cannot
			 * happen with our sizes).  Both leave the socket
			 * usable. */
			if (errno == ENOBUFS || errno == ENOSPC) {
				continue;
			}
			err = -errno;
			break;
		}
		for (i = 0; i < r; i++) {
			/* only the kernel's messages, whole (as
			 * mnl_socket_recvfrom checks) */
			if (sa[i].nl_pid != 0 ||
			    (mm[i].msg_hdr.msg_flags & MSG_TRUNC)) {
				q->st.recv_errors++;
				continue;
			}
			if (mnl_cb_run2(q->rxv[i].iov_base, mm[i].msg_len, 0,
					q->portid, on_data, &d, ctl,
					NLMSG_MIN_TYPE) < 0) {
				q->st.recv_errors++;
			}
		}
		if ((unsigned)r < want) {
			break; /* empty now: no EAGAIN round trip */
		}
	}
	if (d.n == 0 && err < 0) {
		return err;
	}
	return (int)d.n;
}

int nfqueue_verdict(struct nfqueue *q, uint32_t id, enum nfqueue_verdict_kind v,
		    bool set_mark, uint32_t mark, const void *payload,
		    size_t len)
{
	size_t need;
	uint32_t nfv;
	struct nlmsghdr *nlh;

	if (!q->nl) {
		return -EBADF;
	}
	switch (v) {
	case NFQ_DROP:
		nfv = NF_DROP;
		break;
	case NFQ_ACCEPT:
		nfv = NF_ACCEPT;
		break;
	default:
		return -EINVAL;
	}
	if (payload && (len == 0 || len > NFQ_PAYLOAD_MAX)) {
		return len ? -EMSGSIZE : -EINVAL;
	}
	need = verdict_size(set_mark, payload, len);
	if (q->tx_used + need > q->tx_size) {
		/* A failed flush is counted in send_errors; this verdict
		 * still goes into the now empty batch. */
		nfqueue_flush(q);
	}
	nlh = put_verdict(q->tx + q->tx_used, (uint16_t)q->queue, id, nfv,
			  set_mark, mark, payload, len);
	q->tx_used += MNL_ALIGN(nlh->nlmsg_len);
	q->tx_count++;
	return 0;
}

int nfqueue_verdict_upto(struct nfqueue *q, uint32_t id,
			 enum nfqueue_verdict_kind v)
{
	size_t need = MNL_ALIGN(sizeof(struct nlmsghdr)) +
		      MNL_ALIGN(sizeof(struct nfgenmsg)) + MNL_ATTR_HDRLEN +
		      MNL_ALIGN(sizeof(struct nfqnl_msg_verdict_hdr));
	struct nfqnl_msg_verdict_hdr vh = {
		.verdict = htonl(v == NFQ_ACCEPT ? NF_ACCEPT : NF_DROP),
		.id = htonl(id),
	};
	struct nlmsghdr *nlh;

	if (!q->nl) {
		return -EBADF;
	}
	if (q->tx_used + need > q->tx_size) {
		nfqueue_flush(q);
	}
	nlh = put_hdr(q->tx + q->tx_used, NFQNL_MSG_VERDICT_BATCH, 0, 0,
		      (uint16_t)q->queue);
	mnl_attr_put(nlh, NFQA_VERDICT_HDR, sizeof(vh), &vh);
	q->tx_used += MNL_ALIGN(nlh->nlmsg_len);
	q->tx_count++;
	return 0;
}

int nfqueue_flush(struct nfqueue *q)
{
	int err;

	if (q->tx_count == 0) {
		return 0;
	}
	err = send_all(q, q->tx, q->tx_used);
	if (err < 0) {
		/* The packets stay queued in the kernel; nothing here can
		 * tell which, so the whole batch counts as failed. */
		q->st.send_errors += q->tx_count;
	} else {
		q->st.verdicts += q->tx_count;
		q->st.batches++;
	}
	q->tx_used = 0;
	q->tx_count = 0;
	return err;
}

/* One line per bound queue, as printed by the kernel's seq_show():
 * queue_number peer_portid queue_total copy_mode copy_range queue_dropped
 * user_dropped id_sequence 1 */
static int kstats_parse(FILE *f, unsigned num, struct nfqueue_kstats *ks)
{
	char line[256];

	while (fgets(line, sizeof(line), f)) {
		unsigned qn, portid, total, mode, range, qdrop, udrop, idseq;
		int one;
		char extra;

		if (sscanf(line, "%u %u %u %u %u %u %u %u %d %c", &qn, &portid,
			   &total, &mode, &range, &qdrop, &udrop, &idseq, &one,
			   &extra) != 9) {
			continue;
		}
		if (qn != num) {
			continue;
		}
		ks->queue_total = total;
		ks->queue_dropped = qdrop;
		ks->user_dropped = udrop;
		ks->id_sequence = idseq;
		return 0;
	}
	return ferror(f) ? -EIO : -ENOENT;
}

int nfqueue_kernel_stats(unsigned num, struct nfqueue_kstats *ks)
{
	FILE *f = fopen(NFQ_PROC_PATH, "re");
	int err;

	if (!f) {
		/* No file: nfnetlink_queue is not loaded, so nothing is
		 * bound. */
		return errno == ENOENT ? -ENOENT : -errno;
	}
	err = kstats_parse(f, num, ks);
	fclose(f);
	return err;
}
