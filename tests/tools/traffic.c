/* SPDX-License-Identifier: BSD-2-Clause */
/* l3b-traffic: test traffic for the namespace testbed.
 *
 *	send     paced UDP probes (constant rate, the paper's ramp, or a file)
 *	recv     counts loss, reordering, duplicates, corruption, one-way
 *		 delay and throughput; JSON report, optional per-interval CSV
 *	tcp-send / tcp-recv   bulk TCP transfer of a pattern, verified
 *	ping     ICMP echo (raw socket: the testbed needs no iputils)
 *	profile  prints a rate profile, step by step
 *
 * One-way delays use CLOCK_MONOTONIC, which every network namespace of the
 * machine shares.  Pacing sleeps until an absolute deadline
 * (clock_nanosleep TIMER_ABSTIME) and, when late, catches up in bursts of
 * at most BURST_MAX probes.  Run "l3b-traffic help" for the options.
 */
#define _GNU_SOURCE
#include "traffic.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

enum {
	BURST_MAX = 32,
	FIN_COUNT = 3,
	FIN_GAP_MS = 10,
	SOCK_BUF = 16 << 20,
	TCP_CHUNK = 64 * 1024,
	TCP_HDR_LEN = 16,
};

#define TCP_MAGIC 0x4c33424cu /* "L3BL" */

struct opts {
	const char *dst;
	const char *bind;
	unsigned port;
	double rate;
	double rate_high;
	unsigned size;
	double duration;
	enum tr_profile_kind profile;
	const char *profile_file;
	uint64_t seed;
	bool have_seed;
	const char *json;
	const char *csv;
	unsigned csv_interval_ms;
	const char *pkt_log;
	unsigned linger_ms;
	const char *ready;
	uint64_t bytes;
	unsigned count;
	unsigned interval_ms;
	unsigned timeout_ms;
	unsigned step_ms;
};

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static struct timespec to_ts(int64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000LL),
		.tv_nsec = (long)(ns % 1000000000LL),
	};

	return ts;
}

static void sleep_until(int64_t ns)
{
	struct timespec ts = to_ts(ns);

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
		       EINTR &&
	       !stop) {
	}
}

static uint32_t pick_run(const struct opts *o)
{
	uint32_t r = 0;

	if (o->have_seed) {
		return (uint32_t)(o->seed ^ (o->seed >> 32));
	}
	if (getrandom(&r, sizeof(r), 0) != sizeof(r)) {
		r = (uint32_t)now_ns() ^ (uint32_t)getpid();
	}
	return r;
}

static FILE *open_out(const char *path)
{
	FILE *f;

	if (!path || !strcmp(path, "-")) {
		return stdout;
	}
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "l3b-traffic: %s: %s\n", path, strerror(errno));
	}
	return f;
}

static int close_out(FILE *f)
{
	if (f == stdout) {
		return fflush(f) ? -errno : 0;
	}
	return fclose(f) ? -errno : 0;
}

static void touch_ready(const char *path)
{
	int fd;

	if (!path) {
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		close(fd);
	}
}

static int sockaddr_of(const char *ip, unsigned port, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	if (!ip) {
		sa->sin_addr.s_addr = htonl(INADDR_ANY);
		return 0;
	}
	if (inet_pton(AF_INET, ip, &sa->sin_addr) != 1) {
		fprintf(stderr, "l3b-traffic: bad IPv4 address '%s'\n", ip);
		return -EINVAL;
	}
	return 0;
}

static void big_buffers(int fd)
{
	int v = SOCK_BUF;

	/* FORCE works as root and ignores rmem_max; else take what we get. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v))) {
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	}
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v))) {
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	}
}

static int load_profile(const struct opts *o, struct tr_profile *pr)
{
	char err[512];

	memset(pr, 0, sizeof(*pr));
	pr->kind = o->profile;
	pr->rate = o->rate;
	pr->rate_high = o->rate_high;
	if (pr->kind == TR_PROF_FILE) {
		if (!o->profile_file) {
			fprintf(stderr, "l3b-traffic: --profile file needs "
					"--profile-file\n");
			return -EINVAL;
		}
		if (tr_profile_load(pr, o->profile_file, err, sizeof(err))) {
			fprintf(stderr, "l3b-traffic: %s\n", err);
			tr_profile_free(pr);
			return -EINVAL;
		}
	} else if (!(pr->rate > 0) ||
		   (pr->kind == TR_PROF_RAMP && !(pr->rate_high > 0))) {
		fprintf(stderr, "l3b-traffic: --rate must be > 0\n");
		return -EINVAL;
	}
	return 0;
}

/* --- UDP sender ------------------------------------------------------- */

static int cmd_send(const struct opts *o)
{
	static uint8_t pkt[TR_MAX_SIZE];
	size_t plen = o->size - TR_IPUDP_LEN;
	struct tr_profile pr;
	struct sockaddr_in sa;
	struct tr_hdr h = {0};
	uint64_t errors = 0;
	int64_t start, end, max_lag = 0, t;
	double next;
	FILE *out;
	int fd, ret = 0;

	if (!o->dst || !o->port || !(o->duration > 0)) {
		fprintf(stderr, "l3b-traffic send: needs --dst, --port, "
				"--duration\n");
		return 2;
	}
	if (sockaddr_of(o->dst, o->port, &sa) || load_profile(o, &pr)) {
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("l3b-traffic: socket");
		ret = 2;
		goto free_profile;
	}
	big_buffers(fd);
	h.run = pick_run(o);
	start = now_ns();
	end = start + (int64_t)(o->duration * 1e9);
	next = (double)start;
	while (!stop && (int64_t)next < end) {
		unsigned burst = 0;

		t = now_ns();
		if (t < (int64_t)next) {
			sleep_until((int64_t)next);
			t = now_ns();
		}
		if (t - (int64_t)next > max_lag) {
			max_lag = t - (int64_t)next;
		}
		while ((int64_t)next <= t && (int64_t)next < end &&
		       burst < BURST_MAX) {
			double rate = tr_profile_rate(
				&pr, ((int64_t)next - start) / 1e9);

			if (rate <= 0) {
				/* Silent step of a file profile. */
				next += 1e6;
				continue;
			}
			h.tx_ns = (uint64_t)now_ns();
			tr_probe_build(pkt, plen, &h);
			if (send(fd, pkt, plen, 0) == (ssize_t)plen) {
				h.seq++;
			} else {
				errors++;
			}
			next += o->size * 8.0 / (rate * 1e6) * 1e9;
			burst++;
		}
	}
	t = now_ns();
	h.flags = TR_FLAG_FIN;
	for (int i = 0; i < FIN_COUNT; i++) {
		h.tx_ns = (uint64_t)now_ns();
		tr_probe_build(pkt, TR_HDR_LEN, &h);
		if (send(fd, pkt, TR_HDR_LEN, 0) != TR_HDR_LEN) {
			errors++;
		}
		if (i + 1 < FIN_COUNT) {
			sleep_until(now_ns() + FIN_GAP_MS * 1000000LL);
		}
	}
	out = open_out(o->json);
	if (out) {
		double secs = (t - start) / 1e9;

		fprintf(out,
			"{\"run\":%" PRIu32 ",\"sent\":%" PRIu64
			",\"bytes\":%" PRIu64 ",\"seconds\":%.6f"
			",\"rate_mbit\":%.3f,\"send_errors\":%" PRIu64
			",\"max_lag_ms\":%.3f}\n",
			h.run, h.seq, h.seq * o->size, secs,
			secs > 0 ? h.seq * o->size * 8.0 / secs / 1e6 : 0.0,
			errors, max_lag / 1e6);
		close_out(out);
	} else {
		ret = 2;
	}
	close(fd);
free_profile:
	tr_profile_free(&pr);
	return ret;
}

/* --- UDP receiver ----------------------------------------------------- */

struct interval {
	uint64_t bytes;
	uint64_t pkts;
	int64_t delay_sum;
};

static void csv_row(FILE *f, double t_s, const struct interval *iv, double secs,
		    const struct tr_rx *rx)
{
	fprintf(f, "%.3f,%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.3f\n", t_s,
		iv->bytes * 8.0 / secs / 1e6, iv->pkts, tr_rx_lost(rx),
		rx->reordered,
		iv->pkts ? iv->delay_sum / 1e6 / (double)iv->pkts : 0.0);
	/* A live reader (the demo) tails the file: one row at a time. */
	fflush(f);
}

static void rx_report(FILE *f, struct tr_rx *rx, uint64_t sock_drops)
{
	double secs = rx->any ? (rx->last_ns - rx->first_ns) / 1e9 : 0;
	uint64_t exp = tr_rx_expected(rx);
	double mean = 0;

	for (size_t i = 0; i < rx->ndelay; i++) {
		mean += (double)rx->delay_ns[i];
	}
	if (rx->ndelay) {
		mean /= (double)rx->ndelay;
	}
	fprintf(f,
		"{\"run\":%" PRIu32 ",\"received\":%" PRIu64
		",\"unique\":%" PRIu64 ",\"expected\":%" PRIu64
		",\"lost\":%" PRIu64 ",\"loss_pct\":%.4f"
		",\"reordered\":%" PRIu64 ",\"duplicates\":%" PRIu64
		",\"corrupted\":%" PRIu64 ",\"foreign\":%" PRIu64
		",\"out_of_range\":%" PRIu64 ",\"fin\":%s"
		",\"socket_drops\":%" PRIu64 ",\"bytes\":%" PRIu64
		",\"seconds\":%.6f,\"throughput_mbit\":%.3f",
		rx->run, rx->received, rx->unique, exp, tr_rx_lost(rx),
		exp ? 100.0 * (double)tr_rx_lost(rx) / (double)exp : 0.0,
		rx->reordered, rx->dup, rx->corrupted, rx->foreign,
		rx->out_of_range, rx->fin ? "true" : "false", sock_drops,
		rx->bytes, secs, secs > 0 ? rx->bytes * 8.0 / secs / 1e6 : 0.0);
	/* Percentiles sort the delays: the mean is taken first. */
	fprintf(f,
		",\"delay_min_ms\":%.3f,\"delay_p50_ms\":%.3f"
		",\"delay_p90_ms\":%.3f,\"delay_p99_ms\":%.3f"
		",\"delay_max_ms\":%.3f,\"delay_mean_ms\":%.3f}\n",
		tr_percentile(rx->delay_ns, rx->ndelay, 0) / 1e6,
		tr_percentile(rx->delay_ns, rx->ndelay, 0.5) / 1e6,
		tr_percentile(rx->delay_ns, rx->ndelay, 0.9) / 1e6,
		tr_percentile(rx->delay_ns, rx->ndelay, 0.99) / 1e6,
		tr_percentile(rx->delay_ns, rx->ndelay, 1) / 1e6, mean / 1e6);
}

static int cmd_recv(const struct opts *o)
{
	static uint8_t buf[65536];
	char cbuf[CMSG_SPACE(sizeof(uint32_t))];
	struct interval iv = {0};
	struct sockaddr_in sa;
	struct tr_rx rx;
	uint64_t sock_drops = 0;
	int64_t start, end, fin_at = INT64_MAX, next_csv = INT64_MAX;
	int64_t ivl_ns = (int64_t)o->csv_interval_ms * 1000000LL;
	FILE *csv = NULL, *plog = NULL;
	FILE *out;
	int one = 1;
	int fd, ret = 0;

	if (!o->port || !(o->duration > 0)) {
		fprintf(stderr, "l3b-traffic recv: needs --port, --duration\n");
		return 2;
	}
	if (sockaddr_of(o->bind, o->port, &sa)) {
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("l3b-traffic: socket");
		return 2;
	}
	big_buffers(fd);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* The kernel tells us how many datagrams it dropped on our socket. */
	setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("l3b-traffic: bind");
		close(fd);
		return 2;
	}
	if (o->csv) {
		csv = open_out(o->csv);
		if (!csv) {
			close(fd);
			return 2;
		}
		fprintf(csv, "t_s,mbit_s,pkts,lost,reordered,delay_avg_ms\n");
	}
	if (o->pkt_log) {
		/* One line per new probe: what a benchmark needs to place a
		 * loss in time (scripts/failover.sh: the sender's and the
		 * receiver's CLOCK_MONOTONIC, the same clock on one host). */
		plog = open_out(o->pkt_log);
		if (!plog) {
			if (csv) {
				close_out(csv);
			}
			close(fd);
			return 2;
		}
	}
	tr_rx_init(&rx);
	touch_ready(o->ready);
	start = now_ns();
	end = start + (int64_t)(o->duration * 1e9);
	if (csv) {
		next_csv = start + ivl_ns;
	}
	while (!stop) {
		int64_t t = now_ns();
		int64_t stop_at = end < fin_at ? end : fin_at;
		int64_t wake = stop_at < next_csv ? stop_at : next_csv;
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		struct timespec ts;

		while (csv && t >= next_csv) {
			csv_row(csv, (next_csv - start) / 1e9, &iv,
				ivl_ns / 1e9, &rx);
			memset(&iv, 0, sizeof(iv));
			next_csv += ivl_ns;
		}
		if (t >= stop_at) {
			break;
		}
		if (wake > t) {
			ts = to_ts(wake - t);
			if (ppoll(&pfd, 1, &ts, NULL) <= 0) {
				continue;
			}
		}
		for (;;) {
			struct iovec iov = {.iov_base = buf,
					    .iov_len = sizeof(buf)};
			struct msghdr mh = {.msg_iov = &iov,
					    .msg_iovlen = 1,
					    .msg_control = cbuf,
					    .msg_controllen = sizeof(cbuf)};
			struct cmsghdr *cm;
			struct tr_hdr h;
			ssize_t n = recvmsg(fd, &mh, 0);
			int64_t d = 0;
			int k;

			if (n < 0) {
				break;
			}
			t = now_ns();
			for (cm = CMSG_FIRSTHDR(&mh); cm;
			     cm = CMSG_NXTHDR(&mh, cm)) {
				if (cm->cmsg_level == SOL_SOCKET &&
				    cm->cmsg_type == SO_RXQ_OVFL) {
					uint32_t v;

					memcpy(&v, CMSG_DATA(cm), sizeof(v));
					sock_drops = v;
				}
			}
			k = tr_rx_packet(&rx, buf, (size_t)n, t, &d);
			if (k < 0) {
				fprintf(stderr, "l3b-traffic: out of memory\n");
				ret = 2;
				stop = 1;
				break;
			}
			if (k == TR_RX_NEW) {
				iv.bytes += (uint64_t)n + TR_IPUDP_LEN;
				iv.pkts++;
				iv.delay_sum += d;
				if (plog && !tr_hdr_get(buf, (size_t)n, &h)) {
					fprintf(plog,
						"%" PRIu64 " %" PRIu64
						" %" PRId64 "\n",
						h.seq, h.tx_ns, t);
				}
			} else if (k == TR_RX_FIN && fin_at == INT64_MAX) {
				/* Stragglers of other paths may still come. */
				fin_at = t + (int64_t)o->linger_ms * 1000000LL;
			}
		}
	}
	close(fd);
	if (csv) {
		close_out(csv);
	}
	if (plog) {
		close_out(plog);
	}
	out = open_out(o->json);
	if (out) {
		rx_report(out, &rx, sock_drops);
		close_out(out);
	} else {
		ret = 2;
	}
	tr_rx_free(&rx);
	return ret;
}

/* --- TCP bulk transfer ------------------------------------------------ */

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR && !stop) {
				continue;
			}
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int cmd_tcp_send(const struct opts *o)
{
	static uint8_t buf[TCP_CHUNK];
	struct sockaddr_in sa;
	uint32_t run = pick_run(o);
	uint64_t off = 0;
	int64_t start, t;
	FILE *out;
	int fd, ret = 0;

	if (!o->dst || !o->port || !o->bytes) {
		fprintf(stderr,
			"l3b-traffic tcp-send: needs --dst, --port, --bytes\n");
		return 2;
	}
	if (sockaddr_of(o->dst, o->port, &sa)) {
		return 2;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("l3b-traffic: socket");
		return 2;
	}
	{
		/* Bounds connect and every send: a cut link fails the run
		 * instead of hanging it. */
		struct timeval tv = {.tv_sec = 10};

		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	}
	start = now_ns();
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("l3b-traffic: connect");
		close(fd);
		return 2;
	}
	{
		/* magic, run, total bytes; big-endian */
		uint8_t hdr[TCP_HDR_LEN];
		uint64_t w[2] = {(uint64_t)TCP_MAGIC << 32 | run, o->bytes};

		for (int i = 0; i < TCP_HDR_LEN; i++) {
			hdr[i] = (uint8_t)(w[i / 8] >> (56 - 8 * (i % 8)));
		}
		ret = write_all(fd, hdr, sizeof(hdr));
	}
	while (!ret && off < o->bytes && !stop) {
		size_t n = sizeof(buf);

		if (o->bytes - off < n) {
			n = (size_t)(o->bytes - off);
		}
		tr_pattern_fill(buf, n, run, 0, off);
		ret = write_all(fd, buf, n);
		off += n;
	}
	if (!ret) {
		/* Done when the receiver has it all and closes. */
		shutdown(fd, SHUT_WR);
		while (recv(fd, buf, sizeof(buf), 0) > 0) {
		}
	}
	t = now_ns();
	close(fd);
	if (ret) {
		fprintf(stderr, "l3b-traffic: tcp send: %s\n", strerror(-ret));
		ret = 1;
	}
	out = open_out(o->json);
	if (out) {
		double secs = (t - start) / 1e9;

		fprintf(out,
			"{\"run\":%" PRIu32 ",\"bytes\":%" PRIu64
			",\"seconds\":%.6f,\"goodput_mbit\":%.3f}\n",
			run, off, secs,
			secs > 0 ? off * 8.0 / secs / 1e6 : 0.0);
		close_out(out);
	}
	return ret;
}

static uint64_t be64_at(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++) {
		v = v << 8 | p[i];
	}
	return v;
}

/* Waits for fd to be readable until deadline.  Returns 1, 0 on timeout. */
static int wait_in(int fd, int64_t deadline)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	int64_t t = now_ns();
	struct timespec ts;

	if (t >= deadline || stop) {
		return 0;
	}
	ts = to_ts(deadline - t);
	return ppoll(&pfd, 1, &ts, NULL) > 0;
}

/* Per-interval goodput of tcp-recv: rows "t_s,mbit_s,bytes" for every
 * interval that ended by now, t_s counted from the connection's accept. */
struct tcp_csv {
	FILE *f;
	int64_t start;
	int64_t ivl_ns;
	int64_t next;
	uint64_t bytes;
};

static void tcp_csv_flush(struct tcp_csv *c, int64_t t)
{
	while (c->f && t >= c->next) {
		fprintf(c->f, "%.3f,%.3f,%" PRIu64 "\n",
			(c->next - c->start) / 1e9,
			c->bytes * 8.0 / (c->ivl_ns / 1e9) / 1e6, c->bytes);
		fflush(c->f);
		c->bytes = 0;
		c->next += c->ivl_ns;
	}
}

static int cmd_tcp_recv(const struct opts *o)
{
	static uint8_t buf[TCP_CHUNK];
	uint8_t hdr[TCP_HDR_LEN];
	size_t hlen = 0;
	struct sockaddr_in sa;
	struct tcp_csv csv = {0};
	uint64_t total = 0, got = 0, bad = 0;
	int64_t first_bad = -1;
	int64_t deadline, first = 0, last = 0;
	uint32_t run = 0;
	bool eof = false, header = false;
	FILE *out;
	int one = 1;
	int lfd, fd, ret = 0;

	if (!o->port || !(o->duration > 0)) {
		fprintf(stderr,
			"l3b-traffic tcp-recv: needs --port, --duration\n");
		return 2;
	}
	if (sockaddr_of(o->bind, o->port, &sa)) {
		return 2;
	}
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0) {
		perror("l3b-traffic: socket");
		return 2;
	}
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1)) {
		perror("l3b-traffic: bind");
		close(lfd);
		return 2;
	}
	touch_ready(o->ready);
	deadline = now_ns() + (int64_t)(o->duration * 1e9);
	if (!wait_in(lfd, deadline)) {
		fprintf(stderr, "l3b-traffic: tcp-recv: no connection\n");
		close(lfd);
		return 1;
	}
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	close(lfd);
	if (fd < 0) {
		perror("l3b-traffic: accept");
		return 2;
	}
	if (o->csv) {
		csv.f = open_out(o->csv);
		if (!csv.f) {
			close(fd);
			return 2;
		}
		fprintf(csv.f, "t_s,mbit_s,bytes\n");
		csv.start = now_ns();
		csv.ivl_ns = (int64_t)o->csv_interval_ms * 1000000LL;
		csv.next = csv.start + csv.ivl_ns;
	}
	while (!eof && !stop) {
		int64_t wake = csv.f && csv.next < deadline ? csv.next
							    : deadline;
		ssize_t n;
		size_t used = 0;

		if (!wait_in(fd, wake)) {
			tcp_csv_flush(&csv, now_ns());
			if (now_ns() >= deadline) {
				break;
			}
			continue;
		}
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR) {
				continue;
			}
			break;
		}
		if (n == 0) {
			eof = true;
			break;
		}
		last = now_ns();
		tcp_csv_flush(&csv, last);
		csv.bytes += (uint64_t)n;
		if (!first) {
			first = last;
		}
		if (!header) {
			used = sizeof(hdr) - hlen;
			if (used > (size_t)n) {
				used = (size_t)n;
			}
			memcpy(hdr + hlen, buf, used);
			hlen += used;
			if (hlen == sizeof(hdr)) {
				header = true;
				if (be64_at(hdr) >> 32 != TCP_MAGIC) {
					fprintf(stderr, "l3b-traffic: bad "
							"stream header\n");
					break;
				}
				run = (uint32_t)be64_at(hdr);
				total = be64_at(hdr + 8);
			}
		}
		if (header && (size_t)n > used) {
			size_t len = (size_t)n - used;
			size_t i =
				tr_pattern_check(buf + used, len, run, 0, got);

			if (i < len) {
				if (first_bad < 0) {
					first_bad = (int64_t)(got + i);
				}
				/* Count every bad byte of this read. */
				for (; i < len; i++) {
					size_t j = tr_pattern_check(
						buf + used + i, 1, run, 0,
						got + i);

					bad += j == 0;
				}
			}
			got += len;
		}
	}
	close(fd);
	if (csv.f) {
		/* the partial last interval is left out: its rate would lie */
		tcp_csv_flush(&csv, now_ns());
		close_out(csv.f);
	}
	out = open_out(o->json);
	if (out) {
		double secs = (last - first) / 1e9;

		fprintf(out,
			"{\"run\":%" PRIu32 ",\"bytes\":%" PRIu64
			",\"expected\":%" PRIu64 ",\"complete\":%s"
			",\"corrupted_bytes\":%" PRIu64
			",\"first_bad_offset\":%" PRId64
			",\"seconds\":%.6f,\"goodput_mbit\":%.3f}\n",
			run, got, total,
			header && eof && got == total ? "true" : "false", bad,
			first_bad, secs,
			secs > 0 ? got * 8.0 / secs / 1e6 : 0.0);
		close_out(out);
	}
	if (!(header && eof && got == total && !bad)) {
		ret = 1;
	}
	return ret;
}

/* --- ICMP echo -------------------------------------------------------- */

static uint16_t inet_csum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2) {
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	}
	if (len & 1) {
		sum += (uint32_t)p[len - 1] << 8;
	}
	while (sum >> 16) {
		sum = (sum & 0xffff) + (sum >> 16);
	}
	return (uint16_t)~sum;
}

static int cmd_ping(const struct opts *o)
{
	enum { ECHO_LEN = 64 };
	uint8_t pkt[ECHO_LEN];
	uint8_t buf[1500];
	struct sockaddr_in sa;
	uint16_t ident = (uint16_t)getpid();
	unsigned sent = 0, got = 0;
	double rmin = 0, rmax = 0, rsum = 0;
	int64_t next, deadline;
	unsigned count = o->count ? o->count : 3;
	int64_t ivl =
		(int64_t)(o->interval_ms ? o->interval_ms : 200) * 1000000LL;
	FILE *out;
	int fd;

	if (!o->dst || sockaddr_of(o->dst, 0, &sa)) {
		fprintf(stderr, "l3b-traffic ping: needs --dst\n");
		return 2;
	}
	fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
	if (fd < 0) {
		perror("l3b-traffic: raw socket (root needed)");
		return 2;
	}
	next = now_ns();
	deadline = next + (int64_t)(count - 1) * ivl +
		   (int64_t)(o->timeout_ms ? o->timeout_ms : 1000) * 1000000LL;
	while (!stop && got < count) {
		int64_t t = now_ns();
		int64_t wake =
			sent < count && next < deadline ? next : deadline;
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		struct timespec ts;

		if (sent < count && t >= next) {
			int64_t tx = now_ns();

			memset(pkt, 0, sizeof(pkt));
			pkt[0] = ICMP_ECHO;
			pkt[4] = (uint8_t)(ident >> 8);
			pkt[5] = (uint8_t)ident;
			pkt[6] = (uint8_t)(sent >> 8);
			pkt[7] = (uint8_t)sent;
			memcpy(pkt + 8, &tx, sizeof(tx));
			{
				uint16_t c = inet_csum(pkt, sizeof(pkt));

				pkt[2] = (uint8_t)(c >> 8);
				pkt[3] = (uint8_t)c;
			}
			if (sendto(fd, pkt, sizeof(pkt), 0,
				   (struct sockaddr *)&sa, sizeof(sa)) < 0) {
				/* ENETUNREACH and friends: a lost echo */
			}
			sent++;
			next += ivl;
			continue;
		}
		if (t >= deadline) {
			break;
		}
		ts = to_ts(wake - t);
		if (ppoll(&pfd, 1, &ts, NULL) <= 0) {
			continue;
		}
		for (;;) {
			ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
			size_t ihl;
			int64_t tx;
			double rtt;

			if (n < 0) {
				break;
			}
			ihl = (size_t)(buf[0] & 15) * 4;
			if ((size_t)n < ihl + ECHO_LEN ||
			    buf[ihl] != ICMP_ECHOREPLY ||
			    (uint16_t)(buf[ihl + 4] << 8 | buf[ihl + 5]) !=
				    ident ||
			    memcmp(buf + 12, &sa.sin_addr, 4)) {
				continue;
			}
			memcpy(&tx, buf + ihl + 8, sizeof(tx));
			rtt = (now_ns() - tx) / 1e6;
			if (!got || rtt < rmin) {
				rmin = rtt;
			}
			if (rtt > rmax) {
				rmax = rtt;
			}
			rsum += rtt;
			got++;
		}
	}
	close(fd);
	out = open_out(o->json);
	if (out) {
		fprintf(out,
			"{\"sent\":%u,\"received\":%u,\"rtt_min_ms\":%.3f,"
			"\"rtt_avg_ms\":%.3f,\"rtt_max_ms\":%.3f}\n",
			sent, got, rmin, got ? rsum / got : 0.0, rmax);
		close_out(out);
	}
	return got ? 0 : 1;
}

/* --- profile ---------------------------------------------------------- */

static int cmd_profile(const struct opts *o)
{
	struct tr_profile pr;
	unsigned step = o->step_ms ? o->step_ms : TR_RAMP_STEP_MS;

	if (!(o->duration > 0) || load_profile(o, &pr)) {
		fprintf(stderr, "l3b-traffic profile: needs --duration and a "
				"valid profile\n");
		return 2;
	}
	for (unsigned i = 0; i * (double)step < o->duration * 1000; i++) {
		double t = i * (double)step / 1000;

		printf("%.3f %.6f\n", t, tr_profile_rate(&pr, t));
	}
	tr_profile_free(&pr);
	return 0;
}

/* --- options ---------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: l3b-traffic send --dst IP --port P --rate MBIT "
		"--duration S\n"
		"           [--size BYTES] [--profile const|ramp|paper|file] "
		"[--rate-high MBIT]\n"
		"           [--profile-file F] [--seed N] [--json F]\n"
		"       l3b-traffic recv --port P --duration S [--bind IP] "
		"[--json F]\n"
		"           [--csv F --csv-interval-ms MS] [--linger-ms MS] "
		"[--ready-file F]\n"
		"           [--pkt-log F: 'seq tx_ns rx_ns' per new probe]\n"
		"       l3b-traffic tcp-send --dst IP --port P --bytes N "
		"[--json F]\n"
		"       l3b-traffic tcp-recv --port P --duration S [--json F] "
		"[--ready-file F]\n"
		"           [--csv F --csv-interval-ms MS]\n"
		"       l3b-traffic ping --dst IP [--count N] [--interval-ms "
		"MS] [--timeout-ms MS]\n"
		"       l3b-traffic profile --profile P --duration S "
		"[--step-ms MS]\n"
		"sizes are IPv4 packet bytes (default 1492), rates count IPv4 "
		"bytes;\n"
		"--profile paper = ramp 63 -> 105 -> 63 Mbit/s over 40 s with "
		"1492-byte packets\n");
}

static int num(const char *s, double lo, double hi, double *out,
	       const char *name)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi) {
		fprintf(stderr, "l3b-traffic: bad value '%s' for --%s\n", s,
			name);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{"dst", required_argument, NULL, 'd'},
		{"port", required_argument, NULL, 'p'},
		{"rate", required_argument, NULL, 'r'},
		{"rate-high", required_argument, NULL, 'R'},
		{"size", required_argument, NULL, 's'},
		{"duration", required_argument, NULL, 't'},
		{"profile", required_argument, NULL, 'P'},
		{"profile-file", required_argument, NULL, 'F'},
		{"seed", required_argument, NULL, 'S'},
		{"json", required_argument, NULL, 'j'},
		{"csv", required_argument, NULL, 'c'},
		{"csv-interval-ms", required_argument, NULL, 'i'},
		{"pkt-log", required_argument, NULL, 'L'},
		{"linger-ms", required_argument, NULL, 'l'},
		{"ready-file", required_argument, NULL, 'y'},
		{"bind", required_argument, NULL, 'b'},
		{"bytes", required_argument, NULL, 'B'},
		{"count", required_argument, NULL, 'n'},
		{"interval-ms", required_argument, NULL, 'I'},
		{"timeout-ms", required_argument, NULL, 'T'},
		{"step-ms", required_argument, NULL, 'e'},
		{NULL, 0, NULL, 0},
	};
	bool paper = false;
	bool have_rate = false, have_size = false, have_dur = false;
	double v;
	int c;

	o->size = 1492;
	o->rate_high = 105;
	o->csv_interval_ms = 100;
	o->linger_ms = 500;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		const char *name = lo[0].name;

		for (int i = 0; lo[i].name; i++) {
			if (lo[i].val == c) {
				name = lo[i].name;
			}
		}
		switch (c) {
		case 'd':
			o->dst = optarg;
			break;
		case 'b':
			o->bind = optarg;
			break;
		case 'p':
			if (num(optarg, 1, 65535, &v, name)) {
				return -EINVAL;
			}
			o->port = (unsigned)v;
			break;
		case 'r':
			if (num(optarg, 0.001, 100000, &o->rate, name)) {
				return -EINVAL;
			}
			have_rate = true;
			break;
		case 'R':
			if (num(optarg, 0.001, 100000, &o->rate_high, name)) {
				return -EINVAL;
			}
			break;
		case 's':
			if (num(optarg, TR_MIN_SIZE, TR_MAX_SIZE, &v, name)) {
				return -EINVAL;
			}
			o->size = (unsigned)v;
			have_size = true;
			break;
		case 't':
			if (num(optarg, 0.001, 86400, &o->duration, name)) {
				return -EINVAL;
			}
			have_dur = true;
			break;
		case 'P':
			if (!strcmp(optarg, "const")) {
				o->profile = TR_PROF_CONST;
			} else if (!strcmp(optarg, "ramp")) {
				o->profile = TR_PROF_RAMP;
			} else if (!strcmp(optarg, "paper")) {
				o->profile = TR_PROF_RAMP;
				paper = true;
			} else if (!strcmp(optarg, "file")) {
				o->profile = TR_PROF_FILE;
			} else {
				fprintf(stderr,
					"l3b-traffic: bad value '%s' for "
					"--profile\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'F':
			o->profile_file = optarg;
			o->profile = TR_PROF_FILE;
			break;
		case 'S':
			if (num(optarg, 0, 18446744073709551615.0, &v, name)) {
				return -EINVAL;
			}
			o->seed = (uint64_t)v;
			o->have_seed = true;
			break;
		case 'j':
			o->json = optarg;
			break;
		case 'c':
			o->csv = optarg;
			break;
		case 'L':
			o->pkt_log = optarg;
			break;
		case 'i':
			if (num(optarg, 1, 3600000, &v, name)) {
				return -EINVAL;
			}
			o->csv_interval_ms = (unsigned)v;
			break;
		case 'l':
			if (num(optarg, 0, 3600000, &v, name)) {
				return -EINVAL;
			}
			o->linger_ms = (unsigned)v;
			break;
		case 'y':
			o->ready = optarg;
			break;
		case 'B':
			if (num(optarg, 1, 1e15, &v, name)) {
				return -EINVAL;
			}
			o->bytes = (uint64_t)v;
			break;
		case 'n':
			if (num(optarg, 1, 1000000, &v, name)) {
				return -EINVAL;
			}
			o->count = (unsigned)v;
			break;
		case 'I':
			if (num(optarg, 1, 3600000, &v, name)) {
				return -EINVAL;
			}
			o->interval_ms = (unsigned)v;
			break;
		case 'T':
			if (num(optarg, 1, 3600000, &v, name)) {
				return -EINVAL;
			}
			o->timeout_ms = (unsigned)v;
			break;
		case 'e':
			if (num(optarg, 1, 3600000, &v, name)) {
				return -EINVAL;
			}
			o->step_ms = (unsigned)v;
			break;
		default:
			return -EINVAL;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "l3b-traffic: unexpected argument '%s'\n",
			argv[optind]);
		return -EINVAL;
	}
	if (paper) {
		/* The paper's flow, unless overridden. */
		if (!have_rate) {
			o->rate = 63;
		}
		if (!have_size) {
			o->size = 1492;
		}
		if (!have_dur) {
			o->duration = 40;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(const struct opts *o);
	} cmds[] = {
		{"send", cmd_send},	    {"recv", cmd_recv},
		{"tcp-send", cmd_tcp_send}, {"tcp-recv", cmd_tcp_recv},
		{"ping", cmd_ping},	    {"profile", cmd_profile},
	};
	struct sigaction sa = {.sa_handler = on_stop};
	struct opts o = {0};

	if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(argv[1], cmds[i].name)) {
			continue;
		}
		if (parse(argc - 1, argv + 1, &o)) {
			usage(stderr);
			return 2;
		}
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		return cmds[i].fn(&o);
	}
	fprintf(stderr, "l3b-traffic: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
