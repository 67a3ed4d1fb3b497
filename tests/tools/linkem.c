/* SPDX-License-Identifier: BSD-2-Clause */
/* l3b-linkem: a link emulator on an NFQUEUE.
 *
 *	l3b-linkem --queue N [--delay MS] [--jitter MS] [--loss P]
 *		   [--ge P,R,LOSS_BAD,LOSS_GOOD] [--seed S] [--ctl SOCK]
 *		   [--stats FILE] [--maxlen N] [--rcvbuf BYTES] [--down]
 *		   [--rt PRIO]
 *	l3b-linkem ctl SOCK COMMAND...
 *
 * Every packet the queue gets is held (its verdict withheld) until its
 * delivery time, then accepted; see linkem.h for the model.  The netlink
 * socket is drained until EAGAIN, due packets are released with one
 * NFQNL_MSG_VERDICT_BATCH (accept every id up to X: the ring is FIFO, so
 * "every id up to X" is exactly the due ones), drops go out as single
 * verdicts in the same write.  A timerfd armed at the head's delivery time
 * wakes us; timer slack is set to 1 ns for sub-ms precision.
 *
 * A packet's delay counts from the kernel's receive stamp, not from when
 * this process read it, and --rt runs it under SCHED_FIFO: a wire does not
 * stall when the CPUs are busy, and an emulator that did would add queue
 * the line does not have (the counters rx_lag_* and late_* say how far it
 * fell behind anyway).
 *
 * Packets are copied in NFQNL_COPY_META mode: we never look at payloads, so
 * the kernel copies nothing and does no checksum work for us.
 *
 * No fail-open: an emulator must never let a packet through undelayed.
 * When the kernel queue holds maxlen packets, or our socket buffer is full,
 * the kernel drops the packet; it counts those in
 * /proc/net/netfilter/nfnetlink_queue (queue_dropped, user_dropped), which
 * we report at exit as kernel_queue_dropped / kernel_user_dropped.  If this
 * process dies, the kernel drops what it held and, with no listener, every
 * later packet: a dead emulator is a cut link.
 *
 * Control: a UNIX datagram socket (--ctl) takes commands such as
 * "delay 25 jitter 20 loss 0.01", "down", "up", "stats", "mark" (how
 * late the most late release was, late_mark_max_us, counts again from
 * this answer on) and answers with one JSON object, the counters in it.
 * The ctl subcommand is its client.  SIGTERM/SIGINT end the process and
 * print the counters as JSON on stdout (and to --stats); SIGUSR1 prints
 * them without ending.
 */
#define _GNU_SOURCE
#include "linkem.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>

enum {
	TX_SIZE = 64 * 1024,
	TX_MSG_MAX = 128, /* room kept for one more verdict message */
	DRAIN_SLICE = 64, /* packets read between two releases */
	CTL_MAX = 1024,
	REPLY_MAX = 2048,
};

struct io_stats {
	uint64_t batches;	 /* netlink writes of verdicts */
	uint64_t verdict_errors; /* error acks from the kernel */
	uint64_t send_errors;
	uint64_t recv_errors;
	uint64_t ctl_commands;
	uint64_t ctl_errors;
};

struct emu {
	struct lk_link link;
	unsigned queue;
	struct mnl_socket *nl;
	int nlfd;
	uint32_t portid;
	int tfd;
	int sfd;
	int cfd;
	int ep;
	int stampfd; /* asks the kernel to stamp what it receives */
	uint64_t read_ns;	  /* the batch being parsed was read */
	uint64_t mono_to_real_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC then */
	char *rx;
	size_t rx_size;
	char tx[TX_SIZE];
	size_t tx_used;
	uint64_t armed_ns;
	uint32_t cfg_seq;
	int cfg_err;
	bool cfg_done;
	bool quit;
	const char *ctl_path;
	const char *stats_path;
	struct io_stats io;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int flush_tx(struct emu *e)
{
	ssize_t n;

	if (!e->tx_used) {
		return 0;
	}
	n = mnl_socket_sendto(e->nl, e->tx, e->tx_used);
	e->tx_used = 0;
	e->io.batches++;
	if (n < 0) {
		/* The verdicts are lost: those packets stay held in the kernel
		 * until we exit.  Counted; nothing better to do. */
		e->io.send_errors++;
		return -errno;
	}
	return 0;
}

static struct nlmsghdr *tx_msg(struct emu *e, int type)
{
	if (e->tx_used + TX_MSG_MAX > sizeof(e->tx)) {
		flush_tx(e);
	}
	return nfq_nlmsg_put(e->tx + e->tx_used, type, e->queue);
}

static void tx_commit(struct emu *e, struct nlmsghdr *nlh)
{
	e->tx_used += NLMSG_ALIGN(nlh->nlmsg_len);
}

static void verdict(struct emu *e, uint32_t id, int v)
{
	struct nlmsghdr *nlh = tx_msg(e, NFQNL_MSG_VERDICT);

	nfq_nlmsg_verdict_put(nlh, (int)id, v);
	tx_commit(e, nlh);
}

/* Every packet still in the kernel queue with an id up to last_id. */
static void verdict_upto(struct emu *e, uint32_t last_id, int v)
{
	struct nlmsghdr *nlh = tx_msg(e, NFQNL_MSG_VERDICT_BATCH);

	nfq_nlmsg_verdict_put(nlh, (int)last_id, v);
	tx_commit(e, nlh);
}

static void release_due(struct emu *e)
{
	uint32_t last;

	if (lk_release(&e->link, mono_ns(), &last)) {
		verdict_upto(e, last, NF_ACCEPT);
	}
}

/* When the packet reached the router: the kernel's receive stamp (setup
 * asks for stamps), so that the time this process took to get to it is
 * not added to the link's delay.  The stamp is on the realtime clock,
 * moved onto ours by the clocks' difference when the batch was read
 * (recv_once).  Without a stamp, or with an age past LK_LAG_MAX_NS (a
 * stamp from the future wraps round to a huge age: a stepped clock), the
 * time the batch was read. */
static uint64_t arrival_ns(struct emu *e, const struct nlattr *ts_attr)
{
	struct nfqnl_msg_packet_timestamp ts;
	uint64_t lag;

	if (!ts_attr ||
	    mnl_attr_get_payload_len(ts_attr) < (uint16_t)sizeof(ts)) {
		return e->read_ns;
	}
	memcpy(&ts, mnl_attr_get_payload(ts_attr), sizeof(ts));
	lag = e->read_ns + e->mono_to_real_ns -
	      (be64toh(ts.sec) * 1000000000ULL + be64toh(ts.usec) * 1000ULL);
	if (lag > LK_LAG_MAX_NS || lag > e->read_ns) {
		return e->read_ns;
	}
	e->link.st.rx_lag_1ms += lag > LK_LATE_1MS_NS;
	e->link.st.rx_lag_5ms += lag > LK_LATE_5MS_NS;
	if (lag > e->link.st.rx_lag_max_ns) {
		e->link.st.rx_lag_max_ns = lag;
	}
	return e->read_ns - lag;
}

static void on_packet(struct emu *e, const struct nlmsghdr *nlh)
{
	struct nlattr *attr[NFQA_MAX + 1] = {0};
	struct nfqnl_msg_packet_hdr *ph;
	uint32_t id;

	if (nfq_nlmsg_parse(nlh, attr) < 0 || !attr[NFQA_PACKET_HDR]) {
		e->io.recv_errors++;
		return;
	}
	ph = mnl_attr_get_payload(attr[NFQA_PACKET_HDR]);
	id = ntohl(ph->packet_id);
	if (lk_arrive(&e->link, id, arrival_ns(e, attr[NFQA_TIMESTAMP])) !=
	    LK_HOLD) {
		verdict(e, id, NF_DROP);
	}
}

static void on_message(struct emu *e, const struct nlmsghdr *nlh)
{
	uint16_t type = nlh->nlmsg_type;

	if (type == NLMSG_ERROR) {
		const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);

		if (e->cfg_seq && nlh->nlmsg_seq == e->cfg_seq) {
			e->cfg_err = err->error;
			e->cfg_done = true;
		} else if (err->error) {
			e->io.verdict_errors++;
		}
		return;
	}
	if (NFNL_SUBSYS_ID(type) == NFNL_SUBSYS_QUEUE &&
	    NFNL_MSG_TYPE(type) == NFQNL_MSG_PACKET) {
		on_packet(e, nlh);
	}
}

/* One recv: one or more netlink messages.  Returns bytes, 0 at EAGAIN, or
 * -errno. */
static ssize_t recv_once(struct emu *e, int flags)
{
	ssize_t n = recv(e->nlfd, e->rx, e->rx_size, flags);
	const struct nlmsghdr *nlh;
	struct timespec real;
	int left;

	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			return 0;
		}
		if (errno == ENOBUFS || errno == EINTR) {
			e->io.recv_errors++;
			return 1;
		}
		return -errno;
	}
	/* the batch's read time, and the clocks' difference for its stamps */
	clock_gettime(CLOCK_REALTIME, &real);
	e->read_ns = mono_ns();
	e->mono_to_real_ns = (uint64_t)real.tv_sec * 1000000000ULL +
			     (uint64_t)real.tv_nsec - e->read_ns;
	left = (int)n;
	for (nlh = (const struct nlmsghdr *)e->rx; mnl_nlmsg_ok(nlh, left);
	     nlh = mnl_nlmsg_next(nlh, &left)) {
		on_message(e, nlh);
	}
	return n ? n : 1;
}

static int drain(struct emu *e)
{
	unsigned slice = 0;
	ssize_t n;

	while ((n = recv_once(e, MSG_DONTWAIT)) > 0) {
		/* Under sustained load keep releasing on time. */
		if (++slice == DRAIN_SLICE) {
			slice = 0;
			release_due(e);
			flush_tx(e);
		}
	}
	return n < 0 ? (int)n : 0;
}

/* Bind the queue and set its parameters in one message: the kernel applies
 * the bind command first, then the rest, so the queue never runs in the
 * default copy mode. */
static int bind_queue(struct emu *e, uint32_t maxlen)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, e->queue);
	uint32_t flags = NFQA_CFG_F_FAIL_OPEN | NFQA_CFG_F_GSO;

	nfq_nlmsg_cfg_put_cmd(nlh, AF_INET, NFQNL_CFG_CMD_BIND);
	nfq_nlmsg_cfg_put_params(nlh, NFQNL_COPY_META, 0);
	nfq_nlmsg_cfg_put_qmaxlen(nlh, maxlen);
	/* Explicitly off: no fail-open (see top), no GSO (the kernel segments
	 * so that every wire packet gets its own fate). */
	mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS, htonl(0));
	mnl_attr_put_u32(nlh, NFQA_CFG_MASK, htonl(flags));
	nlh->nlmsg_flags |= NLM_F_ACK;
	nlh->nlmsg_seq = e->cfg_seq = (uint32_t)time(NULL) | 1;
	if (mnl_socket_sendto(e->nl, nlh, nlh->nlmsg_len) < 0) {
		return -errno;
	}
	/* Packets may already come before the ack: they are handled. */
	while (!e->cfg_done) {
		ssize_t n = recv_once(e, 0);

		if (n < 0) {
			return (int)n;
		}
	}
	e->cfg_seq = 0;
	return e->cfg_err;
}

static void arm_timer(struct emu *e)
{
	struct itimerspec its = {0};
	uint64_t t;

	if (!lk_next(&e->link, &t)) {
		t = 0; /* disarm */
	}
	if (t == e->armed_ns) {
		return;
	}
	its.it_value.tv_sec = (time_t)(t / 1000000000ULL);
	its.it_value.tv_nsec = (long)(t % 1000000000ULL);
	if (timerfd_settime(e->tfd, TFD_TIMER_ABSTIME, &its, NULL) == 0) {
		e->armed_ns = t;
	}
}

/* The kernel's counters for our queue.  Zero if not found. */
static void kernel_stats(unsigned queue, uint64_t *dropped,
			 uint64_t *user_dropped)
{
	FILE *f = fopen("/proc/net/netfilter/nfnetlink_queue", "r");
	unsigned q, portid, total, mode, range, d, ud, idseq, one;

	*dropped = 0;
	*user_dropped = 0;
	if (!f) {
		return;
	}
	while (fscanf(f, "%u %u %u %u %u %u %u %u %u", &q, &portid, &total,
		      &mode, &range, &d, &ud, &idseq, &one) == 9) {
		if (q == queue) {
			*dropped = d;
			*user_dropped = ud;
			break;
		}
	}
	fclose(f);
}

static int stats_json(struct emu *e, char *buf, size_t len)
{
	const struct lk_stats *s = &e->link.st;
	uint64_t kd = 0, kud = 0;
	char params[512];

	kernel_stats(e->queue, &kd, &kud);
	lk_params_str(&e->link.p, params, sizeof(params));
	return snprintf(
		buf, len,
		"{\"ok\":true,\"queue\":%u,\"packets\":%" PRIu64
		",\"delayed\":%" PRIu64 ",\"dropped\":%" PRIu64
		",\"dropped_loss\":%" PRIu64 ",\"dropped_down\":%" PRIu64
		",\"dropped_full\":%" PRIu64 ",\"flushed\":%" PRIu64
		",\"held\":%u,\"max_held\":%" PRIu64
		",\"verdict_batches\":%" PRIu64 ",\"verdict_errors\":%" PRIu64
		",\"send_errors\":%" PRIu64 ",\"recv_errors\":%" PRIu64
		",\"kernel_queue_dropped\":%" PRIu64
		",\"kernel_user_dropped\":%" PRIu64
		",\"rx_lag_1ms\":%" PRIu64 ",\"rx_lag_5ms\":%" PRIu64
		",\"rx_lag_max_us\":%" PRIu64 ",\"late_1ms\":%" PRIu64
		",\"late_5ms\":%" PRIu64 ",\"late_max_us\":%" PRIu64
		",\"late_mark_max_us\":%" PRIu64 ",%s}",
		e->queue, s->packets, s->released,
		s->dropped_loss + s->dropped_down + s->dropped_full +
			s->flushed,
		s->dropped_loss, s->dropped_down, s->dropped_full, s->flushed,
		lk_held(&e->link), s->max_held, e->io.batches,
		e->io.verdict_errors, e->io.send_errors, e->io.recv_errors, kd,
		kud, s->rx_lag_1ms, s->rx_lag_5ms, s->rx_lag_max_ns / 1000,
		s->late_1ms, s->late_5ms, s->late_max_ns / 1000,
		s->late_mark_max_ns / 1000, params);
}

static void write_stats(struct emu *e)
{
	char buf[REPLY_MAX];
	char tmp[4096];
	FILE *f;

	stats_json(e, buf, sizeof(buf));
	printf("%s\n", buf);
	fflush(stdout);
	if (!e->stats_path) {
		return;
	}
	/* Readers never see a half-written file. */
	snprintf(tmp, sizeof(tmp), "%s.tmp", e->stats_path);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "l3b-linkem: %s: %s\n", tmp, strerror(errno));
		return;
	}
	fprintf(f, "%s\n", buf);
	if (fclose(f) || rename(tmp, e->stats_path)) {
		fprintf(stderr, "l3b-linkem: %s: %s\n", e->stats_path,
			strerror(errno));
	}
}

static void on_ctl(struct emu *e)
{
	char cmd[CTL_MAX];
	char reply[REPLY_MAX];
	char err[256];
	struct sockaddr_un from;
	socklen_t flen;
	ssize_t n;

	for (;;) {
		unsigned what = 0;
		bool was_down = e->link.p.down;
		int len;

		flen = sizeof(from);
		n = recvfrom(e->cfd, cmd, sizeof(cmd) - 1, MSG_DONTWAIT,
			     (struct sockaddr *)&from, &flen);
		if (n < 0) {
			return;
		}
		cmd[n] = '\0';
		e->io.ctl_commands++;
		if (lk_parse(cmd, &e->link.p, &what, err, sizeof(err))) {
			e->io.ctl_errors++;
			len = snprintf(reply, sizeof(reply),
				       "{\"ok\":false,\"error\":\"%s\"}", err);
		} else {
			uint32_t last;

			if (e->link.p.down && !was_down &&
			    lk_flush(&e->link, &last)) {
				verdict_upto(e, last, NF_DROP);
			}
			len = stats_json(e, reply, sizeof(reply));
		}
		if (len < 0 || (size_t)len >= sizeof(reply)) {
			len = (int)strlen(reply);
		}
		if (flen > sizeof(sa_family_t)) {
			sendto(e->cfd, reply, (size_t)len, MSG_DONTWAIT,
			       (struct sockaddr *)&from, flen);
		}
		if (what & LK_CMD_MARK) {
			lk_mark(&e->link);
		}
	}
}

static void on_signal(struct emu *e)
{
	struct signalfd_siginfo si;

	while (read(e->sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGUSR1) {
			write_stats(e);
		} else {
			e->quit = true;
		}
	}
}

static int ep_add(int ep, int fd)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

static int loop(struct emu *e)
{
	struct epoll_event evs[8];
	uint64_t ticks;
	int ret = 0;

	while (!e->quit) {
		int n = epoll_wait(e->ep, evs, 8, -1);

		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}
			return -errno;
		}
		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd == e->nlfd) {
				ret = drain(e);
				if (ret) {
					return ret;
				}
			} else if (fd == e->tfd) {
				if (read(e->tfd, &ticks, sizeof(ticks)) < 0) {
					/* spurious: EAGAIN */
				}
				e->armed_ns = 0;
			} else if (fd == e->cfd) {
				on_ctl(e);
			} else if (fd == e->sfd) {
				on_signal(e);
			}
		}
		release_due(e);
		flush_tx(e);
		arm_timer(e);
	}
	return 0;
}

static int open_ctl(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		return -errno;
	}
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static int ctl_client(int argc, char **argv)
{
	struct sockaddr_un srv = {.sun_family = AF_UNIX};
	struct sockaddr_un me = {.sun_family = AF_UNIX};
	char cmd[CTL_MAX] = "";
	char reply[REPLY_MAX];
	struct pollfd pfd;
	size_t used = 0;
	ssize_t n;
	int fd;
	int ret = 1;

	if (argc < 2) {
		fprintf(stderr, "usage: l3b-linkem ctl SOCK COMMAND...\n");
		return 2;
	}
	if (strlen(argv[0]) + 16 >= sizeof(srv.sun_path)) {
		fprintf(stderr, "l3b-linkem: socket path too long: %s\n",
			argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		int w = snprintf(cmd + used, sizeof(cmd) - used, "%s%s",
				 i > 1 ? " " : "", argv[i]);

		if (w < 0 || (size_t)w >= sizeof(cmd) - used) {
			fprintf(stderr, "l3b-linkem: command too long\n");
			return 2;
		}
		used += (size_t)w;
	}
	strcpy(srv.sun_path, argv[0]);
	/* A path, not an abstract address: the emulator usually runs in
	 * another network namespace, where our abstract name is unknown. */
	snprintf(me.sun_path, sizeof(me.sun_path), "%s.c%d", argv[0],
		 (int)getpid());
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("l3b-linkem: socket");
		return 2;
	}
	unlink(me.sun_path);
	if (bind(fd, (struct sockaddr *)&me, sizeof(me)) < 0) {
		perror("l3b-linkem: bind");
		goto close_fd;
	}
	if (sendto(fd, cmd, used, 0, (struct sockaddr *)&srv, sizeof(srv)) <
	    0) {
		fprintf(stderr, "l3b-linkem: %s: %s\n", argv[0],
			strerror(errno));
		goto unlink_me;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 3000) != 1) {
		fprintf(stderr, "l3b-linkem: %s: no answer\n", argv[0]);
		goto unlink_me;
	}
	n = recv(fd, reply, sizeof(reply) - 1, 0);
	if (n < 0) {
		perror("l3b-linkem: recv");
		goto unlink_me;
	}
	reply[n] = '\0';
	printf("%s\n", reply);
	ret = strncmp(reply, "{\"ok\":true", 10) ? 1 : 0;
unlink_me:
	unlink(me.sun_path);
close_fd:
	close(fd);
	return ret;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: l3b-linkem --queue N [--delay MS] [--jitter MS] "
		"[--loss P]\n"
		"                  [--ge P,R,LOSS_BAD,LOSS_GOOD] [--seed S] "
		"[--ctl SOCK]\n"
		"                  [--stats FILE] [--maxlen N] [--rcvbuf "
		"BYTES] "
		"[--down] [--rt PRIO]\n"
		"       l3b-linkem ctl SOCK COMMAND...\n"
		"commands: delay MS | jitter MS | loss P | ge P R LB LG | "
		"down | up | stats | mark\n");
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || v > max) {
		fprintf(stderr, "l3b-linkem: bad number '%s'\n", s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

struct opts {
	uint64_t queue;
	bool have_queue;
	uint64_t seed;
	uint64_t maxlen;
	uint64_t rcvbuf;
	uint64_t rt_prio;
	const char *ctl;
	const char *stats;
	char model[512];
};

/* Options map onto the control language, so both go through lk_parse. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	size_t used = 0;

	o->seed = 1;
	o->maxlen = 65536;
	o->rcvbuf = 16 << 20;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		const char *key = NULL;
		char ge[128];
		int w;

		if (!strcmp(a, "--down")) {
			key = "down";
			v = "";
		} else if (!v) {
			fprintf(stderr, "l3b-linkem: %s needs a value\n", a);
			return -EINVAL;
		} else if (!strcmp(a, "--queue")) {
			if (parse_u64(v, 65535, &o->queue)) {
				return -EINVAL;
			}
			o->have_queue = true;
		} else if (!strcmp(a, "--seed")) {
			if (parse_u64(v, UINT64_MAX, &o->seed)) {
				return -EINVAL;
			}
		} else if (!strcmp(a, "--maxlen")) {
			if (parse_u64(v, 1 << 24, &o->maxlen) ||
			    o->maxlen == 0) {
				return -EINVAL;
			}
		} else if (!strcmp(a, "--rcvbuf")) {
			if (parse_u64(v, 1 << 30, &o->rcvbuf)) {
				return -EINVAL;
			}
		} else if (!strcmp(a, "--rt")) {
			if (parse_u64(v, 99, &o->rt_prio)) {
				return -EINVAL;
			}
		} else if (!strcmp(a, "--ctl")) {
			o->ctl = v;
		} else if (!strcmp(a, "--stats")) {
			o->stats = v;
		} else if (!strcmp(a, "--delay")) {
			key = "delay";
		} else if (!strcmp(a, "--jitter")) {
			key = "jitter";
		} else if (!strcmp(a, "--loss")) {
			key = "loss";
		} else if (!strcmp(a, "--ge")) {
			snprintf(ge, sizeof(ge), "%s", v);
			for (char *c = ge; *c; c++) {
				if (*c == ',') {
					*c = ' ';
				}
			}
			key = "ge";
			v = ge;
		} else {
			fprintf(stderr, "l3b-linkem: unknown option '%s'\n", a);
			return -EINVAL;
		}
		if (key) {
			w = snprintf(o->model + used, sizeof(o->model) - used,
				     " %s %s", key, v);
			if (w < 0 || (size_t)w >= sizeof(o->model) - used) {
				return -EINVAL;
			}
			used += (size_t)w;
		}
		if (strcmp(a, "--down")) {
			i++;
		}
	}
	if (!o->have_queue) {
		fprintf(stderr, "l3b-linkem: --queue is required\n");
		return -EINVAL;
	}
	return 0;
}

static int setup(struct emu *e, const struct opts *o)
{
	int one = 1;
	int rcvbuf = (int)o->rcvbuf;
	sigset_t mask;
	int ret;

	e->nl = mnl_socket_open(NETLINK_NETFILTER);
	if (!e->nl) {
		return -errno;
	}
	if (mnl_socket_bind(e->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		return -errno;
	}
	e->portid = mnl_socket_get_portid(e->nl);
	e->nlfd = mnl_socket_get_fd(e->nl);
	/* We read /proc for kernel drops; ENOBUFS would only interrupt us. */
	mnl_socket_setsockopt(e->nl, NETLINK_NO_ENOBUFS, &one, sizeof(one));
	if (rcvbuf && setsockopt(e->nlfd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
				 sizeof(rcvbuf)) < 0) {
		setsockopt(e->nlfd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
			   sizeof(rcvbuf));
	}
	/* With COPY_META a message is a few hundred bytes; this is room for
	 * a full packet anyway, should someone change the copy mode. */
	e->rx_size = 0xffff + MNL_SOCKET_BUFFER_SIZE / 2;
	e->rx = malloc(e->rx_size);
	if (!e->rx) {
		return -ENOMEM;
	}
	/* The kernel stamps what it receives only while some socket asks for
	 * stamps (the daemons' do): this one asks, so that a delay counts
	 * from the stamp with no daemon running too (the DSL alone).  The
	 * switch is the kernel's, not the namespace's. */
	e->stampfd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (e->stampfd < 0 || setsockopt(e->stampfd, SOL_SOCKET,
					 SO_TIMESTAMPNS, &one, sizeof(one))) {
		fprintf(stderr, "l3b-linkem: no kernel stamps (%s): delays count "
				"from when packets are read\n",
			strerror(errno));
	}
	ret = bind_queue(e, (uint32_t)o->maxlen);
	if (ret) {
		fprintf(stderr, "l3b-linkem: binding queue %u%s\n", e->queue,
			ret == -EPERM ? ": another process has it" : "");
		return ret;
	}
	if (fcntl(e->nlfd, F_SETFL, fcntl(e->nlfd, F_GETFL) | O_NONBLOCK)) {
		return -errno;
	}
	e->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (e->tfd < 0) {
		return -errno;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR1);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	e->sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (e->sfd < 0) {
		return -errno;
	}
	if (o->ctl) {
		e->cfd = open_ctl(o->ctl);
		if (e->cfd < 0) {
			fprintf(stderr, "l3b-linkem: %s: %s\n", o->ctl,
				strerror(-e->cfd));
			return e->cfd;
		}
	}
	e->ep = epoll_create1(EPOLL_CLOEXEC);
	if (e->ep < 0 || ep_add(e->ep, e->nlfd) || ep_add(e->ep, e->tfd) ||
	    ep_add(e->ep, e->sfd) || (e->cfd >= 0 && ep_add(e->ep, e->cfd))) {
		return -errno;
	}
	/* The default 50 us slack would be visible in the delays. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	return 0;
}

static void teardown(struct emu *e)
{
	if (e->ep >= 0) {
		close(e->ep);
	}
	if (e->cfd >= 0) {
		close(e->cfd);
		unlink(e->ctl_path);
	}
	if (e->sfd >= 0) {
		close(e->sfd);
	}
	if (e->tfd >= 0) {
		close(e->tfd);
	}
	if (e->stampfd >= 0) {
		close(e->stampfd);
	}
	if (e->nl) {
		mnl_socket_close(e->nl);
		e->nl = NULL;
	}
	free(e->rx);
	lk_free(&e->link);
}

int main(int argc, char **argv)
{
	static struct emu e;
	struct opts o = {0};
	unsigned what;
	char err[256];
	int ret;

	if (argc > 1 && !strcmp(argv[1], "ctl")) {
		return ctl_client(argc - 2, argv + 2);
	}
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    parse_opts(argc, argv, &o)) {
		usage();
		return 2;
	}
	e.nlfd = e.tfd = e.sfd = e.cfd = e.ep = e.stampfd = -1;
	e.queue = (unsigned)o.queue;
	e.ctl_path = o.ctl;
	e.stats_path = o.stats;
	/* The ring never fills: the kernel holds at most maxlen packets. */
	if (lk_init(&e.link, (uint32_t)o.maxlen, o.seed)) {
		fprintf(stderr, "l3b-linkem: out of memory\n");
		return 1;
	}
	if (lk_parse(o.model, &e.link.p, &what, err, sizeof(err))) {
		fprintf(stderr, "l3b-linkem: %s\n", err);
		lk_free(&e.link);
		return 2;
	}
	if (o.rt_prio) {
		struct sched_param sp = {.sched_priority = (int)o.rt_prio};

		/* refused where there is no CAP_SYS_NICE: said, and run on */
		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
			fprintf(stderr, "l3b-linkem: SCHED_FIFO %u: %s\n",
				(unsigned)o.rt_prio, strerror(errno));
		}
	}
	ret = setup(&e, &o);
	if (ret) {
		fprintf(stderr, "l3b-linkem: setup: %s\n", strerror(-ret));
		teardown(&e);
		return 1;
	}
	ret = loop(&e);
	if (ret) {
		fprintf(stderr, "l3b-linkem: %s\n", strerror(-ret));
	}
	/* Counters before we unbind: afterwards /proc forgets the queue. */
	write_stats(&e);
	teardown(&e);
	return ret ? 1 : 0;
}
