/* SPDX-License-Identifier: BSD-2-Clause */
/* l3b-bench-send: the paced UDP sender of the forwarding benchmark
 * (tests/bench/bench_fwd.sh).
 *
 *   l3b-bench-send [--size=B] [--rate=PPS] [--count=N] [--seconds=S]
 *                  [--burst=N] DST_IPV4 [DST_IPV4...] PORT
 *
 * Sends B-byte UDP payloads (default 1400) at PPS packets per second in
 * bursts of N (default 32, one sendmmsg each), until N packets or S
 * seconds, and prints sent=, failed=, seconds= and pps= as key=value lines.
 * With several destinations (the workers' benchmark: one flow per CPE
 * site) packet i goes to destination i modulo their number, so each gets
 * an equal share of the rate; pps= is the total.
 *
 * Why not nfq-blast: it sleeps until the next single packet is due and
 * spins when that is under 20 us away, so above 50 kpps it holds a whole
 * core.  On a 2-core machine that core is missing to the routers under
 * test, and it is missing more to a bonded path (two daemons) than to a
 * bare accept loop (one), which would bias the ratio the benchmark
 * reports.  Here the sender sleeps until the next whole burst is due
 * (absolute deadlines, so the long-term rate is exact and a late wake-up
 * is caught up by the next bursts), and its CPU time is only that of the
 * sends themselves.
 *
 * Each payload starts with a big-endian 64-bit sequence number; the
 * socket send buffer is 16 MiB, like nfq-blast's, so that packets held in
 * a queue of another namespace on this machine do not push back on us.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum {
	BURST_MAX = 256,
	DST_MAX = 64,
	SIZE_MAX_UDP = 65507,
	SEQ_LEN = 8,
	SNDBUF = 16 << 20,
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_until(int64_t t)
{
	struct timespec ts = {
		.tv_sec = t / 1000000000,
		.tv_nsec = t % 1000000000,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR) {
	}
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-') {
		fprintf(stderr, "l3b-bench-send: bad number '%s'\n", s);
		return -1;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: l3b-bench-send [--size=B] [--rate=PPS] "
			"[--count=N] [--seconds=S] [--burst=N] DST_IPV4 "
			"[DST_IPV4...] PORT\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"size", required_argument, NULL, 's'},
		{"rate", required_argument, NULL, 'r'},
		{"count", required_argument, NULL, 'n'},
		{"seconds", required_argument, NULL, 't'},
		{"burst", required_argument, NULL, 'b'},
		{NULL, 0, NULL, 0},
	};
	static uint8_t bufs[BURST_MAX][SIZE_MAX_UDP];
	static struct mmsghdr msgs[BURST_MAX];
	static struct iovec iov[BURST_MAX];
	static struct sockaddr_in dst[DST_MAX];
	unsigned ndst;
	uint64_t size = 1400, rate = 0, count = 0, seconds = 0, burst = 32;
	uint64_t sent = 0, failed = 0, seq = 0, port, k;
	int64_t start, end, next, elapsed;
	int c, fd, v = SNDBUF;
	unsigned i;

	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		uint64_t *dstv = c == 's'   ? &size
				 : c == 'r' ? &rate
				 : c == 'n' ? &count
				 : c == 't' ? &seconds
				 : c == 'b' ? &burst
					    : NULL;

		if (!dstv) {
			usage();
			return 2;
		}
		if (parse_u64(optarg, dstv) < 0) {
			return 2;
		}
	}
	if (argc - optind < 2 || argc - optind - 1 > DST_MAX) {
		usage();
		return 2;
	}
	ndst = (unsigned)(argc - optind - 1);
	for (i = 0; i < ndst; i++) {
		dst[i].sin_family = AF_INET;
		if (inet_pton(AF_INET, argv[optind + i], &dst[i].sin_addr) !=
		    1) {
			fprintf(stderr, "l3b-bench-send: bad address '%s'\n",
				argv[optind + i]);
			return 2;
		}
	}
	if (parse_u64(argv[argc - 1], &port) < 0 || port == 0 ||
	    port > 65535 || size < SEQ_LEN || size > SIZE_MAX_UDP ||
	    burst == 0 || burst > BURST_MAX || rate == 0 || rate > 100000000 ||
	    seconds > 86400 || (count == 0 && seconds == 0)) {
		usage();
		return 2;
	}
	for (i = 0; i < ndst; i++) {
		dst[i].sin_port = htons((uint16_t)port);
	}

	/* Not connected: an ICMP error coming back must not fail the next
	 * send (ECONNREFUSED). */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("l3b-bench-send: socket");
		return 1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)) < 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)) < 0) {
		perror("l3b-bench-send: SO_SNDBUF");
		return 1;
	}
	for (i = 0; i < burst; i++) {
		memset(bufs[i], 'a' + i % 26, size);
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = size;
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_namelen = sizeof(dst[0]);
	}

	start = now_ns();
	end = seconds ? start + (int64_t)seconds * 1000000000 : INT64_MAX;
	for (k = 0;; k++) {
		/* burst k is due at start + k * burst / rate */
		int64_t due_at = start + (int64_t)((double)k * (double)burst *
						   1e9 / (double)rate);
		uint64_t n = burst;
		int got;

		if (due_at >= end || (count && sent + failed >= count)) {
			/* the time the last burst stands for ends when the
			 * next one would be due */
			next = due_at < end ? due_at : end;
			break;
		}
		if (due_at > now_ns()) {
			sleep_until(due_at);
		}
		if (count && n > count - sent - failed) {
			n = count - sent - failed;
		}
		for (i = 0; i < n; i++, seq++) {
			uint64_t be = htobe64(seq);

			memcpy(bufs[i], &be, SEQ_LEN);
			msgs[i].msg_hdr.msg_name = &dst[seq % ndst];
		}
		got = sendmmsg(fd, msgs, (unsigned)n, 0);
		if (got < 0) {
			/* ENOBUFS and the like: those are gone; keep the
			 * pace */
			failed += n;
			continue;
		}
		sent += (uint64_t)got;
		failed += n - (uint64_t)got;
	}
	elapsed = (now_ns() > next ? now_ns() : next) - start;
	printf("sent=%" PRIu64 "\nfailed=%" PRIu64 "\nseconds=%.3f\npps=%.0f\n",
	       sent, failed, elapsed / 1e9,
	       elapsed > 0 ? (double)sent * 1e9 / (double)elapsed : 0.0);
	close(fd);
	return 0;
}
