/* SPDX-License-Identifier: BSD-2-Clause */
/* nfq-probe: drives one NFQUEUE through common/nfqueue.h for the namespace
 * tests (tests/netns/test_nfq.sh) and the accept-loop benchmark.
 *
 *   nfq-probe [options] QUEUE MODE
 *
 * MODE:
 *   accept  accept every packet
 *   drop    drop every packet
 *   mangle  IPv4 UDP: replace the packet by a copy whose UDP payload is
 *           uppercased, UDP checksum 0, IP checksum recomputed
 *   decap   IPv4 UDP whose payload is a whole IPv4 packet: replace the
 *           packet by that inner packet (what the egress does)
 *   mark    accept with --mark
 *   hold    keep each verdict --hold-ms, then accept (in arrival order);
 *           releases happen on a --tick-us grid (default 1000), so what
 *           became due within one tick leaves in one batch
 *
 * Prints "ready queue=N" once bound.  On SIGTERM or SIGINT it releases
 * what it holds, prints its counters as key=value lines and exits 0.
 * Exit 3 if the queue is taken by another process, 1 on other errors,
 * 2 on bad usage.
 */
#define _GNU_SOURCE /* ppoll */
#include "common/nfqueue.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/if_ether.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum mode {
	M_ACCEPT,
	M_DROP,
	M_MANGLE,
	M_DECAP,
	M_MARK,
	M_HOLD,
};

static const char *const mode_names[] = {
	[M_ACCEPT] = "accept", [M_DROP] = "drop", [M_MANGLE] = "mangle",
	[M_DECAP] = "decap",   [M_MARK] = "mark", [M_HOLD] = "hold",
};

enum {
	HOLD_SLOTS = 1 << 16, /* power of two, above any queue maxlen used */
	IP_HDR_MIN = 20,
	UDP_HDR = 8,
	PROTO_UDP = 17,
};

struct held {
	uint32_t id;
	int64_t due_ns;
};

struct probe {
	struct nfqueue q;
	enum mode mode;
	uint32_t mark;
	int64_t hold_ns;
	int64_t tick_ns;
	struct held *ring;
	uint32_t head, tail; /* free-running; tail - head = held */
	uint8_t out[65536];  /* rewritten packet, one at a time */

	uint64_t accepted, dropped, mangled, decapped, marked, passed;
	uint64_t hold_full, held_max, verdict_errors, drain_errors;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint16_t get16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static void put16(uint8_t *b, uint16_t v)
{
	b[0] = v >> 8;
	b[1] = v & 0xff;
}

static uint16_t ip_csum(const uint8_t *h, size_t len)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		sum += get16(h + i);
	}
	while (sum >> 16) {
		sum = (sum & 0xffff) + (sum >> 16);
	}
	return (uint16_t)~sum;
}

/* Length of the IPv4 header if p is a whole, unfragmented IPv4 UDP
 * packet, else 0. */
static size_t udp4_hdr(const struct nfqueue_pkt *p)
{
	const uint8_t *d = p->data;
	size_t ihl;

	if (p->hw_proto != ETH_P_IP || p->len < IP_HDR_MIN ||
	    p->len != p->orig_len || d[0] >> 4 != 4) {
		return 0;
	}
	ihl = (size_t)(d[0] & 0x0f) * 4;
	if (ihl < IP_HDR_MIN || p->len < ihl + UDP_HDR ||
	    get16(d + 2) != p->len || d[9] != PROTO_UDP ||
	    (get16(d + 6) & 0x3fff) != 0) {
		return 0;
	}
	return ihl;
}

static void verdict(struct probe *pr, uint32_t id, enum nfqueue_verdict_kind v,
		    bool set_mark, const void *payload, size_t len)
{
	if (nfqueue_verdict(&pr->q, id, v, set_mark, pr->mark, payload, len) <
	    0) {
		pr->verdict_errors++;
		return;
	}
	if (v == NFQ_ACCEPT) {
		pr->accepted++;
	} else {
		pr->dropped++;
	}
}

static void do_mangle(struct probe *pr, const struct nfqueue_pkt *p)
{
	size_t ihl = udp4_hdr(p);
	size_t i;

	if (!ihl) {
		pr->passed++;
		verdict(pr, p->id, NFQ_ACCEPT, false, NULL, 0);
		return;
	}
	memcpy(pr->out, p->data, p->len);
	for (i = ihl + UDP_HDR; i < p->len; i++) {
		pr->out[i] = (uint8_t)toupper(pr->out[i]);
	}
	put16(pr->out + ihl + 6, 0); /* IPv4 UDP: 0 means no checksum */
	put16(pr->out + 10, 0);
	put16(pr->out + 10, ip_csum(pr->out, ihl));
	pr->mangled++;
	verdict(pr, p->id, NFQ_ACCEPT, false, pr->out, p->len);
}

static void do_decap(struct probe *pr, const struct nfqueue_pkt *p)
{
	size_t ihl = udp4_hdr(p);
	const uint8_t *in;
	size_t in_len;

	if (!ihl) {
		pr->passed++;
		verdict(pr, p->id, NFQ_ACCEPT, false, NULL, 0);
		return;
	}
	in = p->data + ihl + UDP_HDR;
	in_len = p->len - ihl - UDP_HDR;
	if (in_len < IP_HDR_MIN || in[0] >> 4 != 4 || get16(in + 2) != in_len) {
		pr->passed++;
		verdict(pr, p->id, NFQ_ACCEPT, false, NULL, 0);
		return;
	}
	pr->decapped++;
	verdict(pr, p->id, NFQ_ACCEPT, false, in, in_len);
}

/* The tick at or after t: when a packet due at t is released. */
static int64_t tick_ceil(const struct probe *pr, int64_t t)
{
	return (t + pr->tick_ns - 1) / pr->tick_ns * pr->tick_ns;
}

static void release_due(struct probe *pr, int64_t now)
{
	while (pr->head != pr->tail) {
		struct held *h = &pr->ring[pr->head & (HOLD_SLOTS - 1)];

		if (tick_ceil(pr, h->due_ns) > now) {
			break;
		}
		verdict(pr, h->id, NFQ_ACCEPT, false, NULL, 0);
		pr->head++;
	}
}

static void on_pkt(void *ctx, const struct nfqueue_pkt *p)
{
	struct probe *pr = ctx;

	switch (pr->mode) {
	case M_ACCEPT:
		verdict(pr, p->id, NFQ_ACCEPT, false, NULL, 0);
		break;
	case M_DROP:
		verdict(pr, p->id, NFQ_DROP, false, NULL, 0);
		break;
	case M_MANGLE:
		do_mangle(pr, p);
		break;
	case M_DECAP:
		do_decap(pr, p);
		break;
	case M_MARK:
		pr->marked++;
		verdict(pr, p->id, NFQ_ACCEPT, true, NULL, 0);
		break;
	case M_HOLD:
		if (pr->tail - pr->head == HOLD_SLOTS) {
			pr->hold_full++;
			verdict(pr, p->id, NFQ_ACCEPT, false, NULL, 0);
			break;
		}
		pr->ring[pr->tail & (HOLD_SLOTS - 1)] = (struct held){
			.id = p->id,
			.due_ns = now_ns() + pr->hold_ns,
		};
		pr->tail++;
		if (pr->tail - pr->head > pr->held_max) {
			pr->held_max = pr->tail - pr->head;
		}
		break;
	}
}

static void print_counters(struct probe *pr, unsigned num)
{
	const struct nfqueue_stats *s = &pr->q.st;
	struct nfqueue_kstats ks;
	int err = nfqueue_kernel_stats(num, &ks);

	printf("mode=%s\n", mode_names[pr->mode]);
	printf("received=%" PRIu64 "\nverdicts=%" PRIu64 "\nbatches=%" PRIu64
	       "\nrecv_errors=%" PRIu64 "\nsend_errors=%" PRIu64
	       "\ntruncated=%" PRIu64 "\n",
	       s->received, s->verdicts, s->batches, s->recv_errors,
	       s->send_errors, s->truncated);
	printf("accepted=%" PRIu64 "\ndropped=%" PRIu64 "\nmangled=%" PRIu64
	       "\ndecapped=%" PRIu64 "\nmarked=%" PRIu64 "\npassed=%" PRIu64
	       "\nheld_max=%" PRIu64 "\nhold_full=%" PRIu64
	       "\nverdict_errors=%" PRIu64 "\ndrain_errors=%" PRIu64 "\n",
	       pr->accepted, pr->dropped, pr->mangled, pr->decapped, pr->marked,
	       pr->passed, pr->held_max, pr->hold_full, pr->verdict_errors,
	       pr->drain_errors);
	if (err == 0) {
		printf("kq_total=%" PRIu32 "\nkq_dropped=%" PRIu32
		       "\nk_user_dropped=%" PRIu32 "\nk_id_sequence=%" PRIu32
		       "\n",
		       ks.queue_total, ks.queue_dropped, ks.user_dropped,
		       ks.id_sequence);
	} else {
		printf("kstats_error=%s\n", strerror(-err));
	}
	fflush(stdout);
}

static int run(struct probe *pr)
{
	struct pollfd pfd = {.fd = nfqueue_fd(&pr->q), .events = POLLIN};
	sigset_t none;

	sigemptyset(&none);
	while (!stop) {
		struct timespec ts, *tmo = NULL;
		int n;

		if (pr->head != pr->tail) {
			int64_t wait =
				tick_ceil(pr,
					  pr->ring[pr->head & (HOLD_SLOTS - 1)]
						  .due_ns) -
				now_ns();

			if (wait < 0) {
				wait = 0;
			}
			ts.tv_sec = wait / 1000000000;
			ts.tv_nsec = wait % 1000000000;
			tmo = &ts;
		}
		/* Signals are blocked except inside ppoll: no lost wakeup. */
		n = ppoll(&pfd, 1, tmo, &none);
		if (n < 0 && errno != EINTR) {
			perror("ppoll");
			return -1;
		}
		if (n > 0 && (pfd.revents & POLLIN)) {
			if (nfqueue_drain(&pr->q, 1024, on_pkt, pr) < 0) {
				pr->drain_errors++;
			}
		}
		if (pr->mode == M_HOLD) {
			release_due(pr, now_ns());
		}
		nfqueue_flush(&pr->q);
	}
	release_due(pr, INT64_MAX);
	nfqueue_flush(&pr->q);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: nfq-probe [--mark=V] [--hold-ms=N] "
			"[--tick-us=N] [--fail-open]\n"
			"                 [--maxlen=N] [--copy=N] [--rcvbuf=N] "
			"QUEUE MODE\n"
			"MODE: accept drop mangle decap mark hold\n");
}

static int parse_u32(const char *s, uint32_t *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || end == s || *end || x > UINT32_MAX || s[0] == '-') {
		fprintf(stderr, "nfq-probe: bad number '%s'\n", s);
		return -1;
	}
	*v = (uint32_t)x;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"mark", required_argument, NULL, 'm'},
		{"hold-ms", required_argument, NULL, 'h'},
		{"tick-us", required_argument, NULL, 't'},
		{"fail-open", no_argument, NULL, 'f'},
		{"maxlen", required_argument, NULL, 'l'},
		{"copy", required_argument, NULL, 'c'},
		{"rcvbuf", required_argument, NULL, 'r'},
		{NULL, 0, NULL, 0},
	};
	static struct probe pr; /* 64 KiB buffer: not on the stack */
	struct nfqueue_opts opts = {0};
	uint32_t hold_ms = 20, tick_us = 1000, num;
	struct sigaction sa = {.sa_handler = on_signal};
	sigset_t block;
	size_t i;
	int c, err, rc = 0;

	pr.mark = 0x2a;
	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			rc = parse_u32(optarg, &pr.mark);
			break;
		case 'h':
			rc = parse_u32(optarg, &hold_ms);
			break;
		case 't':
			rc = parse_u32(optarg, &tick_us);
			if (rc == 0 && tick_us == 0) {
				fprintf(stderr,
					"nfq-probe: --tick-us must be > 0\n");
				rc = -1;
			}
			break;
		case 'f':
			opts.fail_open = true;
			break;
		case 'l':
			rc = parse_u32(optarg, &opts.maxlen);
			break;
		case 'c':
			rc = parse_u32(optarg, &opts.copy_range);
			break;
		case 'r':
			rc = parse_u32(optarg, &opts.rcvbuf);
			break;
		default:
			usage();
			return 2;
		}
		if (rc < 0) {
			return 2;
		}
	}
	if (argc - optind != 2 || parse_u32(argv[optind], &num) < 0) {
		usage();
		return 2;
	}
	for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++) {
		if (strcmp(argv[optind + 1], mode_names[i]) == 0) {
			break;
		}
	}
	if (i == sizeof(mode_names) / sizeof(mode_names[0])) {
		usage();
		return 2;
	}
	pr.mode = (enum mode)i;
	pr.hold_ns = (int64_t)hold_ms * 1000000;
	pr.tick_ns = (int64_t)tick_us * 1000;
	if (pr.mode == M_HOLD) {
		pr.ring = calloc(HOLD_SLOTS, sizeof(*pr.ring));
		if (!pr.ring) {
			perror("calloc");
			return 1;
		}
	}

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	err = nfqueue_open(&pr.q, num, &opts);
	if (err < 0) {
		fprintf(stderr, "nfq-probe: queue %u: %s\n", num,
			strerror(-err));
		free(pr.ring);
		return err == -EBUSY ? 3 : 1;
	}
	printf("ready queue=%u\n", num);
	fflush(stdout);

	if (run(&pr) < 0) {
		rc = 1;
	}
	print_counters(&pr, num);
	nfqueue_close(&pr.q);
	nfqueue_close(&pr.q); /* must be harmless */
	free(pr.ring);
	return rc;
}
