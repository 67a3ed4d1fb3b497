/* SPDX-License-Identifier: BSD-2-Clause */
/* nfq-blast: paced UDP sender for the NFQUEUE tests and benchmark.
 *
 *   nfq-blast [--size=B] [--rate=PPS] [--count=N] [--seconds=S]
 *             [--burst=N] [--sndbuf=B] DST_IPV4 PORT
 *
 * Sends B-byte UDP payloads (default 1400) with sendmmsg in bursts of up to
 * N (default 32), paced to PPS packets per second (0: as fast as it can),
 * until N packets or S seconds.  The socket send buffer is B bytes
 * (default 16 MiB): packets queued in NFQUEUE in another namespace of the
 * same machine stay charged to it, and a small buffer would turn the
 * queue's latency into backpressure on the sender, which a sender on
 * another machine never sees.  Each payload starts with a big-endian
 * 64-bit sequence number; the rest is lowercase letters.  Prints
 * sent=, failed=, seconds= and pps= as key=value lines.
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
	SIZE_MAX_UDP = 65507,
	SEQ_LEN = 8,
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-') {
		fprintf(stderr, "nfq-blast: bad number '%s'\n", s);
		return -1;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: nfq-blast [--size=B] [--rate=PPS] [--count=N] "
		"[--seconds=S] [--burst=N] [--sndbuf=B] DST_IPV4 PORT\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"size", required_argument, NULL, 's'},
		{"rate", required_argument, NULL, 'r'},
		{"count", required_argument, NULL, 'n'},
		{"seconds", required_argument, NULL, 't'},
		{"burst", required_argument, NULL, 'b'},
		{"sndbuf", required_argument, NULL, 'w'},
		{NULL, 0, NULL, 0},
	};
	static uint8_t bufs[BURST_MAX][SIZE_MAX_UDP];
	struct mmsghdr msgs[BURST_MAX];
	struct iovec iov[BURST_MAX];
	struct sockaddr_in dst = {.sin_family = AF_INET};
	uint64_t size = 1400, rate = 0, count = 0, seconds = 0, burst = 32;
	uint64_t sndbuf = 16 << 20;
	uint64_t port, sent = 0, failed = 0, seq = 0;
	int64_t start, end, elapsed;
	int c, fd, i;

	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		uint64_t *dstv = c == 's'   ? &size
				 : c == 'r' ? &rate
				 : c == 'n' ? &count
				 : c == 't' ? &seconds
				 : c == 'b' ? &burst
				 : c == 'w' ? &sndbuf
					    : NULL;

		if (!dstv) {
			usage();
			return 2;
		}
		if (parse_u64(optarg, dstv) < 0) {
			return 2;
		}
	}
	if (argc - optind != 2 ||
	    inet_pton(AF_INET, argv[optind], &dst.sin_addr) != 1 ||
	    parse_u64(argv[optind + 1], &port) < 0 || port == 0 ||
	    port > 65535 || size < SEQ_LEN || size > SIZE_MAX_UDP ||
	    burst == 0 || burst > BURST_MAX || sndbuf > INT32_MAX / 2 ||
	    (count == 0 && seconds == 0)) {
		usage();
		return 2;
	}
	dst.sin_port = htons((uint16_t)port);

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	/* Not connected: an ICMP error coming back must not fail the next
	 * send (ECONNREFUSED). */
	if (fd < 0) {
		perror("nfq-blast: socket");
		return 1;
	}
	c = (int)sndbuf;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &c, sizeof(c)) < 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &c, sizeof(c)) < 0) {
		perror("nfq-blast: SO_SNDBUF");
		return 1;
	}
	for (i = 0; i < (int)burst; i++) {
		memset(bufs[i], 'a' + i % 26, size);
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = size;
		memset(&msgs[i], 0, sizeof(msgs[i]));
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_name = &dst;
		msgs[i].msg_hdr.msg_namelen = sizeof(dst);
	}

	start = now_ns();
	end = seconds ? start + (int64_t)seconds * 1000000000 : INT64_MAX;
	for (;;) {
		int64_t now = now_ns();
		uint64_t due = burst, attempt = sent + failed;
		int n;

		if (now >= end || (count && attempt >= count)) {
			break;
		}
		if (rate) {
			uint64_t should =
				(uint64_t)((double)(now - start) * rate / 1e9);

			if (should <= attempt) {
				/* Ahead of schedule: sleep until the next one
				 * is due, but not for less than the timer
				 * slack is worth. */
				int64_t next = start +
					       (int64_t)((double)(attempt + 1) *
							 1e9 / rate);
				struct timespec ts = {0, next - now};

				if (next - now > 20000) {
					nanosleep(&ts, NULL);
				}
				continue;
			}
			due = should - attempt;
			if (due > burst) {
				due = burst;
			}
		}
		if (count && due > count - attempt) {
			due = count - attempt;
		}
		for (i = 0; i < (int)due; i++, seq++) {
			uint64_t be = htobe64(seq);

			memcpy(bufs[i], &be, SEQ_LEN);
		}
		n = sendmmsg(fd, msgs, (unsigned)due, 0);
		if (n < 0) {
			/* ENOBUFS and the like: those packets are gone;
			 * keep the pace. */
			failed += due;
			continue;
		}
		sent += (uint64_t)n;
		failed += due - (uint64_t)n;
	}
	elapsed = now_ns() - start;
	printf("sent=%" PRIu64 "\nfailed=%" PRIu64 "\nseconds=%.3f\npps=%.0f\n",
	       sent, failed, elapsed / 1e9,
	       elapsed > 0 ? sent * 1e9 / elapsed : 0.0);
	close(fd);
	return 0;
}
