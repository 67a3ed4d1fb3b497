/* SPDX-License-Identifier: BSD-2-Clause */
/* l3b-hostile: hostile traffic at a tunnel port, for the namespace tests.
 *
 *	l3b-hostile --to ADDR:PORT [options] MODE [N]
 *
 *	random N	N datagrams of random length 0..1500, random bytes
 *	truncated N	well-formed v2 packets of every type, cut at every
 *			length from 0 to their full length, in turn
 *	badtag N	well-formed packets of every type (DATA with a valid
 *			inner IPv4/UDP packet) with random tags; every path id
 *			0..15, pn, gseq and lseq jumping by 2^31 and 2^63
 *	wrongkey N	packets sealed correctly (common/auth.h) under keys
 *			derived from another PSK: the tag is valid, for the
 *			wrong key
 *	capture+replay	captures tunnel packets to ADDR:PORT on an interface
 *			(AF_PACKET), then sends their UDP payloads again
 *	replay-hello	the same for HELLOs only, and listens for answers
 *	capture		captures as capture+replay does, into a file (--out)
 *	replay FILE	sends the packets of such a file again (say after
 *			the peer restarted: replays from an earlier session)
 *
 * The forged packets are built with common/wire.h and sealed with
 * common/auth.h, so they are what the daemon parses, bit for bit, except
 * for what each mode breaks on purpose.  A replay sends the captured UDP
 * payload unchanged: from the tool's own socket (--from), or with --spoof
 * from the original source address and port (raw socket) so that only its
 * packet number gives it away.
 *
 * --listen-ms counts what comes back to the tool's socket afterwards,
 * HELLO_ACKs apart: anything else would mean that the target took the
 * tool's address for its peer's.
 *
 * Randomness: a 64-bit seed from getrandom(), or --seed; the seed is in
 * the report, so any run can be repeated.  Output: one JSON line of what
 * was sent, counted per kind; exit 0, 1 on an error that stopped the run
 * (nothing captured, a socket that could not be opened), 2 on usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/wire.h"

enum {
	MAX_DGRAM = 1500,	/* random mode: payload 0..1500 */
	PKT_MAX = 2048,		/* largest packet built here */
	INNER_MAX = 1200,	/* inner packets of forged DATA */
	CAPTURE_MAX = 100000,	/* packets kept by a capture */
	SOCK_BUF = 4 << 20,
	MIN_WIRE = WIRE_HDR_LEN + WIRE_TAG_LEN,
};

#define TOP_BIT (UINT64_C(1) << 63)
#define BIT31 (UINT64_C(1) << 31)

enum mode {
	M_RANDOM,
	M_TRUNCATED,
	M_BADTAG,
	M_WRONGKEY,
	M_REPLAY,
	M_REPLAY_HELLO,
	M_CAPTURE,
	M_REPLAY_FILE,
};

struct opts {
	struct sockaddr_in to;
	struct sockaddr_in from;	/* sin_port 0: any */
	bool have_from;
	uint32_t session;
	unsigned paths;		/* path ids below this are the box's paths */
	unsigned path;		/* truncated: path id of the packets */
	uint64_t seed;
	bool have_seed;
	double pps;		/* 0: as fast as the socket takes them */
	int ttl;		/* 0: the system's */
	enum auth_dir dir;	/* wrongkey: the direction the target opens */
	const char *key;	/* wrongkey: this PSK instead of a random one */
	uint64_t pn_base;
	struct in_addr inner_src, inner_dst;
	uint16_t inner_port;
	/* capture */
	const char *cap_if;
	const char *cap_netns;
	unsigned cap_count;
	unsigned cap_port;
	unsigned cap_timeout_ms;
	unsigned delay_ms;
	unsigned repeat;
	unsigned listen_ms;
	bool spoof;
	const char *file;	/* capture: written; replay: read */
};

struct counts {
	uint64_t sent;
	uint64_t bytes;
	uint64_t errors;
	uint64_t type[WIRE_TYPE_MAX + 1]; /* [0]: not a v2 header */
	uint64_t path_in;	/* path id < --paths */
	uint64_t path_out;	/* path id >= --paths */
	uint64_t short_;	/* shorter than header + tag */
	uint64_t hello_key;	/* HELLO/HELLO_ACK (hello keys, no window) */
	uint64_t pn_jump;	/* pn 2^31 or 2^63 away from --pn-base */
	uint64_t pn_old;	/* pn at or just above 0 */
	uint64_t seq_jump;	/* gseq/lseq 2^31 away */
	uint64_t encrypted;
	uint64_t answers;	/* datagrams received back */
	uint64_t answers_ack;	/* of which v2 HELLO_ACKs */
};

/* ---- randomness: splitmix64 from one seed -------------------------------- */

static uint64_t rng_state;

static uint64_t rnd64(void)
{
	uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* uniform in 0..n-1 (n > 0); the bias of a 64-bit modulo is negligible */
static uint64_t rnd_below(uint64_t n)
{
	return rnd64() % n;
}

static void rnd_fill(uint8_t *p, size_t len)
{
	while (len >= 8) {
		uint64_t v = rnd64();

		memcpy(p, &v, 8);
		p += 8;
		len -= 8;
	}
	if (len) {
		uint64_t v = rnd64();

		memcpy(p, &v, len);
	}
}

static int seed_init(struct opts *o)
{
	if (!o->have_seed) {
		if (getrandom(&o->seed, sizeof(o->seed), 0) !=
		    (ssize_t)sizeof(o->seed)) {
			fprintf(stderr, "l3b-hostile: getrandom: %s\n",
				strerror(errno));
			return -EIO;
		}
	}
	rng_state = o->seed;
	return 0;
}

/* ---- time and pacing ----------------------------------------------------- */

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_until(int64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000LL),
		.tv_nsec = (long)(ns % 1000000000LL),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR) {
	}
}

struct pacer {
	int64_t t0;
	double gap_ns;
	uint64_t n;
};

static void pacer_init(struct pacer *p, double pps)
{
	p->t0 = now_ns();
	p->gap_ns = pps > 0 ? 1e9 / pps : 0;
	p->n = 0;
}

/* Waits for the next slot: packet n leaves at t0 + n / pps.  A sender
 * that fell behind (a busy machine) does not catch up in a burst: the
 * schedule starts again from now, so that the rate never goes above pps
 * (a burst would overflow the rate limiter of the line the attack shares
 * with the flow under test, and the test would measure that). */
static void pacer_wait(struct pacer *p)
{
	int64_t due, now;

	if (p->gap_ns > 0) {
		due = p->t0 + (int64_t)(p->gap_ns * (double)p->n);
		now = now_ns();
		if (now > due + (int64_t)p->gap_ns) {
			p->t0 = now;
			p->n = 0;
		} else {
			sleep_until(due);
		}
	}
	p->n++;
}

/* ---- sending ------------------------------------------------------------- */

struct sender {
	int udp;	/* our own socket (bound per --from) */
	int raw;	/* -1, or IPPROTO_RAW for --spoof */
	const struct opts *o;
	struct pacer pace;
};

static int sender_open(struct sender *s, const struct opts *o, bool spoof)
{
	int v = SOCK_BUF, pmtu = IP_PMTUDISC_DONT;

	s->o = o;
	s->raw = -1;
	s->udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s->udp < 0) {
		return -errno;
	}
	if (setsockopt(s->udp, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v))) {
		setsockopt(s->udp, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	}
	/* datagrams over the MTU leave as fragments (random mode sends up
	 * to 1500 bytes of payload): the receiver reassembles them */
	setsockopt(s->udp, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu));
	if (o->ttl > 0 &&
	    setsockopt(s->udp, IPPROTO_IP, IP_TTL, &o->ttl, sizeof(o->ttl))) {
		return -errno;
	}
	if (o->have_from &&
	    bind(s->udp, (const struct sockaddr *)&o->from, sizeof(o->from))) {
		int err = -errno;

		fprintf(stderr, "l3b-hostile: bind %s:%u: %s\n",
			inet_ntoa(o->from.sin_addr), ntohs(o->from.sin_port),
			strerror(-err));
		return err;
	}
	if (spoof) {
		s->raw = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
		if (s->raw < 0) {
			return -errno;
		}
	}
	pacer_init(&s->pace, o->pps);
	return 0;
}

static void sender_close(struct sender *s)
{
	if (s->udp >= 0) {
		close(s->udp);
	}
	if (s->raw >= 0) {
		close(s->raw);
	}
}

static void count_result(struct counts *c, ssize_t r, size_t len)
{
	if (r < 0) {
		c->errors++;
		return;
	}
	c->sent++;
	c->bytes += len;
}

/* Sends one datagram from our own socket, paced. */
static void send_udp(struct sender *s, struct counts *c, const uint8_t *p,
		     size_t len)
{
	ssize_t r;

	pacer_wait(&s->pace);
	r = sendto(s->udp, p, len, 0, (const struct sockaddr *)&s->o->to,
		   sizeof(s->o->to));
	count_result(c, r, len);
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16) {
		sum = (sum & 0xffff) + (sum >> 16);
	}
	return (uint16_t)~sum;
}

static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	}
	if (len & 1) {
		sum += (uint32_t)p[len - 1] << 8;
	}
	return sum;
}

/* An IPv4 + UDP header for payload len at buf (20 + 8 bytes), checksums
 * included (the kernel would fill in the IP one anyway). */
static void put_ip_udp(uint8_t *buf, struct in_addr src, uint16_t sport,
		       struct in_addr dst, uint16_t dport, size_t len, int ttl,
		       uint16_t id)
{
	uint8_t *u = buf + 20;
	size_t ulen = 8 + len;
	uint32_t sum;

	buf[0] = 0x45;
	buf[1] = 0;
	buf[2] = (uint8_t)((20 + ulen) >> 8);
	buf[3] = (uint8_t)(20 + ulen);
	buf[4] = (uint8_t)(id >> 8);
	buf[5] = (uint8_t)id;
	buf[6] = 0;
	buf[7] = 0;
	buf[8] = (uint8_t)(ttl > 0 ? ttl : 64);
	buf[9] = IPPROTO_UDP;
	buf[10] = 0;
	buf[11] = 0;
	memcpy(buf + 12, &src, 4);
	memcpy(buf + 16, &dst, 4);
	sum = csum_fold(csum_add(0, buf, 20));
	buf[10] = (uint8_t)(sum >> 8);
	buf[11] = (uint8_t)sum;

	u[0] = (uint8_t)(sport >> 8);
	u[1] = (uint8_t)sport;
	u[2] = (uint8_t)(dport >> 8);
	u[3] = (uint8_t)dport;
	u[4] = (uint8_t)(ulen >> 8);
	u[5] = (uint8_t)ulen;
	u[6] = 0;
	u[7] = 0;
	/* pseudo header: addresses, protocol, UDP length */
	sum = csum_add(0, buf + 12, 8);
	sum += IPPROTO_UDP + (uint32_t)ulen;
	sum = csum_fold(csum_add(sum, u, ulen));
	if (sum == 0) {
		sum = 0xffff;
	}
	u[6] = (uint8_t)(sum >> 8);
	u[7] = (uint8_t)sum;
}

/* Sends a payload as if from src:sport (raw socket, --spoof), paced. */
static void send_spoofed(struct sender *s, struct counts *c, struct in_addr src,
			 uint16_t sport, const uint8_t *p, size_t len)
{
	uint8_t buf[20 + 8 + PKT_MAX];
	ssize_t r;

	if (len > PKT_MAX) {
		c->errors++;
		return;
	}
	memcpy(buf + 28, p, len);
	put_ip_udp(buf, src, sport, s->o->to.sin_addr, ntohs(s->o->to.sin_port),
		   len, s->o->ttl, (uint16_t)rnd64());
	pacer_wait(&s->pace);
	r = sendto(s->raw, buf, 28 + len, 0, (const struct sockaddr *)&s->o->to,
		   sizeof(s->o->to));
	count_result(c, r, len);
}

/* Counts the datagrams that come back to our socket within ms: HELLO_ACKs
 * (answers to replayed HELLOs) apart from anything else (which would mean
 * that the target took our address for its peer's). */
static void drain_answers(int fd, unsigned ms, struct counts *c)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;
	uint8_t buf[PKT_MAX];
	ssize_t r;

	for (;;) {
		int64_t left = (end - now_ns()) / 1000000;
		struct pollfd pfd = {.fd = fd, .events = POLLIN};

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0) {
			break;
		}
		while ((r = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) >= 0) {
			c->answers++;
			if (r >= 1 && buf[0] == (WIRE_VERSION << 4 |
						 WIRE_HELLO_ACK)) {
				c->answers_ack++;
			}
		}
	}
}

/* ---- forged packets ------------------------------------------------------ */

/* A valid inner IPv4/UDP packet of len bytes (28..INNER_MAX) to the
 * --inner-dst port: if the egress ever released one, the test sees it. */
static size_t make_inner(const struct opts *o, uint8_t *buf, size_t len)
{
	if (len < 28) {
		len = 28;
	}
	rnd_fill(buf + 28, len - 28);
	put_ip_udp(buf, o->inner_src, (uint16_t)(1024 + rnd_below(60000)),
		   o->inner_dst, o->inner_port, len - 28, 64,
		   (uint16_t)rnd64());
	return len;
}

/* The body of a packet of type t into body; returns its length. */
static size_t make_body(const struct opts *o, uint8_t t, uint8_t *body,
			size_t cap)
{
	struct wire_report r;
	struct wire_probe pr;
	struct wire_hello h;
	int n = 0;

	switch (t) {
	case WIRE_DATA:
		return make_inner(o, body, 28 + rnd_below(INNER_MAX - 28 + 1));
	case WIRE_REPORT:
		memset(&r, 0, sizeof(r));
		r.n = (uint8_t)rnd_below(4);
		for (unsigned i = 0; i < r.n; i++) {
			r.p[i].path = (uint8_t)i;
			r.p[i].rx_pkts = (uint32_t)rnd64();
			r.p[i].lost_pkts = (uint32_t)rnd64();
			r.p[i].delay_us = (uint32_t)rnd64();
			r.p[i].lseq_next = (uint32_t)rnd64();
		}
		n = wire_put_report(body, cap, &r);
		break;
	case WIRE_PROBE:
	case WIRE_PROBE_ACK:
		pr.id = (uint32_t)rnd64();
		pr.value = (uint32_t)rnd64();
		n = wire_put_probe(body, cap, &pr);
		break;
	case WIRE_HELLO:
		h.r_cpe = rnd64();
		h.r_conc = 0;
		n = wire_put_hello(body, cap, &h);
		break;
	case WIRE_HELLO_ACK:
		h.r_cpe = rnd64();
		h.r_conc = rnd64();
		n = wire_put_hello_ack(body, cap, &h);
		break;
	}
	return n > 0 ? (size_t)n : 0;
}

static bool is_hello_type(uint8_t t)
{
	return t == WIRE_HELLO || t == WIRE_HELLO_ACK;
}

/* A header for type t: control types carry no lseq/pgap/fgap/flags/cls
 * (else the parser stops them at control_with_seq, before the tag); DATA
 * carries valid flow fields (else bad_flags stops it). */
static void make_hdr(struct wire_hdr *h, const struct opts *o, uint8_t t,
		     uint8_t path, uint64_t pn, uint32_t gseq, uint32_t lseq)
{
	memset(h, 0, sizeof(*h));
	h->version = WIRE_VERSION;
	h->type = t;
	h->path = path;
	h->session = o->session;
	h->pn = pn;
	h->gseq = gseq;
	h->tstamp = (uint32_t)rnd64();
	if (t == WIRE_DATA) {
		h->lseq = lseq;
		h->pgap = (uint16_t)rnd_below(4);
		h->fgap = (uint16_t)rnd_below(4);
		h->flags = (uint8_t)(rnd_below(4) << 1); /* RESENT, DUP */
		if (h->fgap == 0 && rnd_below(2)) {
			h->flags |= WIRE_F_FLOW_FIRST;
		}
		h->cls = (uint8_t)rnd_below(4);
	}
}

/* A fresh-looking session pn: above anything a session of a test reaches,
 * below the hello range, so that the replay window lets it through to the
 * tag check. */
static uint64_t fresh_pn(void)
{
	return (UINT64_C(1) << 62) + rnd_below(UINT64_C(1) << 40);
}

/* Builds a complete packet (header, body, tag bytes zero) into pkt. */
static size_t build(uint8_t *pkt, const struct wire_hdr *h, const uint8_t *body,
		    size_t blen)
{
	int n = wire_build(pkt, PKT_MAX, h, body, blen);

	return n > 0 ? (size_t)n : 0;
}

static void count_type(struct counts *c, const struct opts *o,
		       const struct wire_hdr *h)
{
	c->type[h->type]++;
	if (h->path < o->paths) {
		c->path_in++;
	} else {
		c->path_out++;
	}
	if (is_hello_type(h->type)) {
		c->hello_key++;
	}
}

static int run_random(struct sender *s, struct counts *c, uint64_t n)
{
	uint8_t buf[MAX_DGRAM];

	for (uint64_t i = 0; i < n; i++) {
		size_t len = rnd_below(MAX_DGRAM + 1);

		rnd_fill(buf, len);
		if (len < MIN_WIRE) {
			c->short_++;
		}
		send_udp(s, c, buf, len);
	}
	return 0;
}

/* Every type in turn, each cut at every length 0..full, until n sent.
 * Path id --path, session pn fresh (so that a cut packet long enough for
 * a header and a tag meets the tag check, not the replay window). */
static int run_truncated(struct sender *s, struct counts *c, uint64_t n)
{
	uint8_t body[PKT_MAX], pkt[PKT_MAX];
	uint64_t i = 0;

	while (i < n) {
		for (uint8_t t = 1; t <= WIRE_TYPE_MAX && i < n; t++) {
			struct wire_hdr h;
			size_t blen, len;
			uint64_t pn;

			/* short DATA: more cuts of the header and tag */
			blen = t == WIRE_DATA ?
				       make_inner(s->o, body,
						  28 + rnd_below(100)) :
				       make_body(s->o, t, body, sizeof(body));
			pn = is_hello_type(t) ? TOP_BIT | rnd64() : fresh_pn();
			make_hdr(&h, s->o, t, (uint8_t)s->o->path, pn,
				 (uint32_t)rnd64(), (uint32_t)rnd64());
			len = build(pkt, &h, body, blen);
			rnd_fill(pkt + len - WIRE_TAG_LEN, WIRE_TAG_LEN);
			for (size_t cut = 0; cut <= len && i < n; cut++, i++) {
				count_type(c, s->o, &h);
				if (cut < MIN_WIRE) {
					c->short_++;
				}
				send_udp(s, c, pkt, cut);
			}
		}
	}
	return 0;
}

/* pn of the i-th forged packet: the jumps the issue names, around
 * --pn-base (a pn the session has reached, if the test knows one). */
static uint64_t badtag_pn(const struct opts *o, uint64_t k, struct counts *c)
{
	switch (k % 8) {
	case 0:
		return fresh_pn();
	case 1:
		c->pn_jump++;
		return o->pn_base + BIT31;
	case 2:
		c->pn_jump++;
		return o->pn_base + TOP_BIT;
	case 3:
		c->pn_jump++;
		return o->pn_base + BIT31 + rnd_below(64);
	case 4:
		return UINT64_MAX;
	case 5:
		c->pn_old++;
		return rnd_below(64);
	case 6:
		return TOP_BIT - 1;
	default:
		return TOP_BIT | rnd64();
	}
}

/* Type cycles fastest, then path 0..15, then the pn schedule: every
 * combination within 6 * 16 * 8 = 768 packets. */
static int run_badtag(struct sender *s, struct counts *c, uint64_t n)
{
	uint8_t body[PKT_MAX], pkt[PKT_MAX];
	uint32_t gseq = (uint32_t)rnd64(), lseq = (uint32_t)rnd64();

	for (uint64_t i = 0; i < n; i++) {
		uint8_t t = (uint8_t)(1 + i % WIRE_TYPE_MAX);
		uint8_t path = (uint8_t)(i / WIRE_TYPE_MAX % WIRE_MAX_PATHS);
		uint64_t k = i / (WIRE_TYPE_MAX * WIRE_MAX_PATHS);
		struct wire_hdr h;
		size_t blen, len;
		uint64_t pn = badtag_pn(s->o, k, c);

		/* sequence numbers: every other packet half a wrap away */
		if (i & 1) {
			gseq += (uint32_t)BIT31;
			lseq += (uint32_t)BIT31;
			c->seq_jump++;
		} else {
			gseq++;
			lseq++;
		}
		blen = make_body(s->o, t, body, sizeof(body));
		make_hdr(&h, s->o, t, path, pn, gseq, lseq);
		len = build(pkt, &h, body, blen);
		if (!len) {
			c->errors++;
			continue;
		}
		rnd_fill(pkt + len - WIRE_TAG_LEN, WIRE_TAG_LEN);
		count_type(c, s->o, &h);
		send_udp(s, c, pkt, len);
	}
	return 0;
}

/* Sealed under another PSK's keys: hello keys for HELLO/HELLO_ACK, a
 * session key (random r_cpe, r_conc) for the rest, both modes in turn, on
 * the box's own paths, pn fresh, so that only the key is wrong. */
static int run_wrongkey(struct sender *s, struct counts *c, uint64_t n)
{
	uint8_t body[PKT_MAX], pkt[PKT_MAX];
	struct auth_key psk, hk, sk;
	uint64_t pn = fresh_pn();

	if (s->o->key) {
		const char *why = NULL;

		if (auth_key_parse(&psk, s->o->key, &why)) {
			fprintf(stderr, "l3b-hostile: --key: %s\n", why);
			return -EINVAL;
		}
	} else {
		rnd_fill(psk.b, sizeof(psk.b));
	}
	auth_hello_key(&hk, &psk, s->o->dir);
	auth_session_key(&sk, &psk, s->o->dir, rnd64(), rnd64());

	for (uint64_t i = 0; i < n; i++) {
		uint8_t t = (uint8_t)(1 + i % WIRE_TYPE_MAX);
		uint8_t path = (uint8_t)(i / WIRE_TYPE_MAX % s->o->paths);
		enum auth_mode mode = (i / 2) & 1 ? AUTH_ENCRYPT : AUTH_MAC;
		bool hello = is_hello_type(t);
		uint64_t p = hello ? TOP_BIT | rnd64() : pn++;
		struct wire_hdr h;
		size_t blen, len;

		blen = make_body(s->o, t, body, sizeof(body));
		make_hdr(&h, s->o, t, path, p, (uint32_t)i, (uint32_t)i);
		len = build(pkt, &h, body, blen);
		if (!len) {
			c->errors++;
			continue;
		}
		auth_seal(hello ? &hk : &sk, p, mode, pkt, WIRE_HDR_LEN,
			  pkt + WIRE_HDR_LEN, blen, pkt + len - WIRE_TAG_LEN);
		if (mode == AUTH_ENCRYPT) {
			c->encrypted++;
		}
		count_type(c, s->o, &h);
		send_udp(s, c, pkt, len);
	}
	auth_key_wipe(&psk);
	auth_key_wipe(&hk);
	auth_key_wipe(&sk);
	return 0;
}

/* ---- capture and replay -------------------------------------------------- */

struct captured {
	struct in_addr src;
	uint16_t sport;
	uint16_t len;
	uint8_t *data;
};

struct capture {
	struct captured *pkt;
	unsigned n;
	uint64_t seen;		/* IPv4 packets read on the interface */
	uint64_t first_pn, last_pn;
	int64_t ms;
};

/* The netns by name (/run/netns/NAME) or by path. */
static int open_netns(const char *ns)
{
	char path[512];

	if (strchr(ns, '/')) {
		snprintf(path, sizeof(path), "%s", ns);
	} else {
		snprintf(path, sizeof(path), "/run/netns/%s", ns);
	}
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* An AF_PACKET socket on interface ifname, in netns ns if given: a socket
 * stays in the namespace it was made in, so the tool enters ns for the
 * socket() and bind() only, and returns to its own for sending. */
static int capture_open(const struct opts *o)
{
	struct sockaddr_ll sll;
	int self = -1, fd = -1, err = 0;
	unsigned idx;

	if (o->cap_netns) {
		int nsfd = open_netns(o->cap_netns);

		self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (nsfd < 0 || self < 0 || setns(nsfd, CLONE_NEWNET)) {
			err = -errno;
			fprintf(stderr, "l3b-hostile: netns %s: %s\n",
				o->cap_netns, strerror(errno));
			if (nsfd >= 0) {
				close(nsfd);
			}
			if (self >= 0) {
				close(self);
			}
			return err;
		}
		close(nsfd);
	}
	idx = if_nametoindex(o->cap_if);
	/* protocol 0 until bound: nothing is queued from other interfaces */
	fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (!idx || fd < 0) {
		err = -(errno ? errno : ENODEV);
		fprintf(stderr, "l3b-hostile: capture on %s: %s\n", o->cap_if,
			strerror(-err));
	} else {
		memset(&sll, 0, sizeof(sll));
		sll.sll_family = AF_PACKET;
		sll.sll_protocol = htons(ETH_P_IP);
		sll.sll_ifindex = (int)idx;
		if (bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
			err = -errno;
			fprintf(stderr, "l3b-hostile: bind to %s: %s\n",
				o->cap_if, strerror(errno));
		}
	}
	if (self >= 0) {
		if (setns(self, CLONE_NEWNET) && !err) {
			err = -errno;
		}
		close(self);
	}
	if (err) {
		if (fd >= 0) {
			close(fd);
		}
		return err;
	}
	return fd;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++) {
		v = v << 8 | p[i];
	}
	return v;
}

/* The UDP payload of an IPv4 packet to --to with destination port
 * --capture-port, not a fragment; NULL for anything else. */
static const uint8_t *udp_payload(const struct opts *o, const uint8_t *p,
				  size_t len, size_t *plen,
				  struct in_addr *src, uint16_t *sport)
{
	size_t ihl, tot, ulen;
	const uint8_t *u;

	if (len < 28 || p[0] >> 4 != 4 || p[9] != IPPROTO_UDP) {
		return NULL;
	}
	ihl = (size_t)(p[0] & 0x0f) * 4;
	tot = get16(p + 2);
	if (ihl < 20 || tot > len || tot < ihl + 8 ||
	    (get16(p + 6) & 0x3fff)) {
		return NULL;
	}
	if (memcmp(p + 16, &o->to.sin_addr, 4)) {
		return NULL;
	}
	u = p + ihl;
	ulen = get16(u + 4);
	if (get16(u + 2) != o->cap_port || ulen < 8 || ulen > tot - ihl) {
		return NULL;
	}
	memcpy(src, p + 12, 4);
	*sport = get16(u);
	*plen = ulen - 8;
	return u + 8;
}

/* Reads packets until cap_count are kept or cap_timeout_ms passed.  Only
 * v2 tunnel packets are kept; with hello_only, only HELLOs. */
static int capture_run(const struct opts *o, struct capture *cap,
		       bool hello_only)
{
	int64_t t0 = now_ns(), end = t0 + (int64_t)o->cap_timeout_ms * 1000000;
	uint8_t buf[65536];
	int fd = capture_open(o);

	if (fd < 0) {
		return fd;
	}
	cap->pkt = calloc(o->cap_count, sizeof(*cap->pkt));
	if (!cap->pkt) {
		close(fd);
		return -ENOMEM;
	}
	while (cap->n < o->cap_count) {
		int64_t left = (end - now_ns()) / 1000000;
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		struct captured *k;
		const uint8_t *pl;
		struct in_addr src;
		uint16_t sport;
		size_t plen;
		ssize_t r;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0) {
			break;
		}
		r = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (r <= 0) {
			continue;
		}
		cap->seen++;
		pl = udp_payload(o, buf, (size_t)r, &plen, &src, &sport);
		if (!pl || plen < MIN_WIRE || plen > PKT_MAX ||
		    pl[0] >> 4 != WIRE_VERSION) {
			continue;
		}
		if (hello_only && (pl[0] & 0x0f) != WIRE_HELLO) {
			continue;
		}
		k = &cap->pkt[cap->n];
		k->data = malloc(plen);
		if (!k->data) {
			break;
		}
		memcpy(k->data, pl, plen);
		k->len = (uint16_t)plen;
		k->src = src;
		k->sport = sport;
		if (!cap->n) {
			cap->first_pn = get64(pl + 8);
		}
		cap->last_pn = get64(pl + 8);
		cap->n++;
	}
	close(fd);
	cap->ms = (now_ns() - t0) / 1000000;
	return 0;
}

static void capture_free(struct capture *cap)
{
	for (unsigned i = 0; i < cap->n; i++) {
		free(cap->pkt[i].data);
	}
	free(cap->pkt);
}

/* Capture file: "L3BHCAP1", then per packet the source address (4 bytes,
 * network order), the source port and the payload length (2 bytes each,
 * big-endian) and the payload. */
static const char cap_magic[8] = "L3BHCAP1";

static int capture_save(const struct capture *cap, const char *path)
{
	FILE *f = fopen(path, "wb");
	bool ok;

	if (!f) {
		fprintf(stderr, "l3b-hostile: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	ok = fwrite(cap_magic, sizeof(cap_magic), 1, f) == 1;
	for (unsigned i = 0; ok && i < cap->n; i++) {
		const struct captured *k = &cap->pkt[i];
		uint8_t h[8];

		memcpy(h, &k->src, 4);
		h[4] = (uint8_t)(k->sport >> 8);
		h[5] = (uint8_t)k->sport;
		h[6] = (uint8_t)(k->len >> 8);
		h[7] = (uint8_t)k->len;
		ok = fwrite(h, sizeof(h), 1, f) == 1 &&
		     fwrite(k->data, k->len, 1, f) == 1;
	}
	if (fclose(f) || !ok) {
		fprintf(stderr, "l3b-hostile: %s: write failed\n", path);
		return -EIO;
	}
	return 0;
}

static int capture_load(struct capture *cap, const char *path)
{
	FILE *f = fopen(path, "rb");
	char magic[sizeof(cap_magic)];
	uint8_t h[8];
	int err = 0;

	if (!f) {
		fprintf(stderr, "l3b-hostile: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	if (fread(magic, sizeof(magic), 1, f) != 1 ||
	    memcmp(magic, cap_magic, sizeof(magic))) {
		fprintf(stderr, "l3b-hostile: %s: not a capture file\n", path);
		fclose(f);
		return -EINVAL;
	}
	cap->pkt = calloc(CAPTURE_MAX, sizeof(*cap->pkt));
	if (!cap->pkt) {
		fclose(f);
		return -ENOMEM;
	}
	while (cap->n < CAPTURE_MAX && fread(h, sizeof(h), 1, f) == 1) {
		struct captured *k = &cap->pkt[cap->n];

		memcpy(&k->src, h, 4);
		k->sport = get16(h + 4);
		k->len = get16(h + 6);
		if (k->len < MIN_WIRE || k->len > PKT_MAX) {
			err = -EINVAL;
			break;
		}
		k->data = malloc(k->len);
		if (!k->data) {
			err = -ENOMEM;
			break;
		}
		if (fread(k->data, k->len, 1, f) != 1) {
			free(k->data);
			err = -EINVAL;
			break;
		}
		if (!cap->n) {
			cap->first_pn = get64(k->data + 8);
		}
		cap->last_pn = get64(k->data + 8);
		cap->n++;
	}
	fclose(f);
	if (err) {
		fprintf(stderr, "l3b-hostile: %s: truncated or bad record %u\n",
			path, cap->n);
	}
	return err;
}

/* Captures into cap (hello_only: HELLOs only); -ENODATA if nothing. */
static int capture_some(const struct opts *o, struct capture *cap,
			bool hello_only)
{
	int err = capture_run(o, cap, hello_only);

	if (!err && !cap->n) {
		fprintf(stderr, "l3b-hostile: nothing captured on %s in %u ms\n",
			o->cap_if, o->cap_timeout_ms);
		return -ENODATA;
	}
	return err;
}

/* Sends what cap holds (after --delay-ms, --repeat times). */
static int replay(struct sender *s, struct counts *c, const struct capture *cap)
{
	const struct opts *o = s->o;

	if (o->delay_ms) {
		sleep_until(now_ns() + (int64_t)o->delay_ms * 1000000);
	}
	pacer_init(&s->pace, o->pps);
	for (unsigned r = 0; r < o->repeat; r++) {
		for (unsigned i = 0; i < cap->n; i++) {
			const struct captured *k = &cap->pkt[i];
			uint8_t t = k->data[0] & 0x0f;

			c->type[t <= WIRE_TYPE_MAX ? t : 0]++;
			if (is_hello_type(t)) {
				c->hello_key++;
			}
			if (o->spoof) {
				send_spoofed(s, c, k->src, k->sport, k->data,
					     k->len);
			} else {
				send_udp(s, c, k->data, k->len);
			}
		}
	}
	if (o->listen_ms) {
		drain_answers(s->udp, o->listen_ms, c);
	}
	return 0;
}

/* ---- report and options -------------------------------------------------- */

static const char *mode_name(enum mode m)
{
	static const char *const names[] = {
		[M_RANDOM] = "random",	       [M_TRUNCATED] = "truncated",
		[M_BADTAG] = "badtag",	       [M_WRONGKEY] = "wrongkey",
		[M_REPLAY] = "capture+replay", [M_REPLAY_HELLO] = "replay-hello",
		[M_CAPTURE] = "capture",       [M_REPLAY_FILE] = "replay",
	};

	return names[m];
}

static void report(const struct opts *o, enum mode m, const struct counts *c,
		   const struct capture *cap)
{
	printf("{\"mode\":\"%s\",\"seed\":%" PRIu64 ",\"sent\":%" PRIu64
	       ",\"bytes\":%" PRIu64 ",\"errors\":%" PRIu64,
	       mode_name(m), o->seed, c->sent, c->bytes, c->errors);
	for (uint8_t t = 1; t <= WIRE_TYPE_MAX; t++) {
		printf(",\"%s\":%" PRIu64, wire_type_name(t), c->type[t]);
	}
	printf(",\"not_v2\":%" PRIu64 ",\"short\":%" PRIu64
	       ",\"path_in\":%" PRIu64 ",\"path_out\":%" PRIu64
	       ",\"hello_key\":%" PRIu64 ",\"pn_jump\":%" PRIu64
	       ",\"pn_old\":%" PRIu64 ",\"seq_jump\":%" PRIu64
	       ",\"encrypted\":%" PRIu64 ",\"answers\":%" PRIu64
	       ",\"answers_hello_ack\":%" PRIu64,
	       c->type[0], c->short_, c->path_in, c->path_out, c->hello_key,
	       c->pn_jump, c->pn_old, c->seq_jump, c->encrypted, c->answers,
	       c->answers_ack);
	if (cap) {
		printf(",\"captured\":%u,\"capture_seen\":%" PRIu64
		       ",\"capture_ms\":%" PRId64 ",\"first_pn\":%" PRIu64
		       ",\"last_pn\":%" PRIu64 ",\"spoofed\":%d",
		       cap->n, cap->seen, cap->ms, cap->first_pn,
		       cap->last_pn, o->spoof);
	}
	printf("}\n");
	fflush(stdout);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: l3b-hostile --to ADDR:PORT [options] MODE [N]\n"
		"modes: random N | truncated N | badtag N | wrongkey N |\n"
		"       capture+replay | replay-hello | capture | replay FILE\n"
		"options:\n"
		"  --to ADDR:PORT        target (a tunnel port)\n"
		"  --from ADDR[:PORT]    bind the sending socket\n"
		"  --from-port P         bind the sending socket to port P\n"
		"  --seed S              seed of the random modes (default: "
		"getrandom)\n"
		"  --pps R               packets per second (default: as fast "
		"as possible)\n"
		"  --ttl T               IP TTL of what is sent\n"
		"  --session ID          session id of forged packets "
		"(default 4242)\n"
		"  --paths N             the box's path ids are 0..N-1 "
		"(default 2)\n"
		"  --path P              truncated: path id (default 0)\n"
		"  --dir c2s|s2c         wrongkey: direction of the keys "
		"(default c2s)\n"
		"  --key B64             wrongkey: seal under this PSK "
		"(default: random)\n"
		"  --pn-base N           badtag: jumps of 2^31, 2^63 from N\n"
		"  --inner-src A --inner-dst A --inner-port P\n"
		"                        inner packets of forged DATA "
		"(10.0.1.2 -> 10.0.2.2:9)\n"
		"  --capture-if IF       interface to capture on\n"
		"  --capture-netns NS    its netns (name or path; default: "
		"ours)\n"
		"  --capture-count N     packets to capture (default 1000, "
		"HELLOs: 4)\n"
		"  --capture-port P      destination port (default: --to's)\n"
		"  --capture-timeout-ms  give up capturing after (default "
		"10000)\n"
		"  --delay-ms D          wait between capture and replay\n"
		"  --repeat R            replay everything R times (default "
		"1, HELLOs: 10)\n"
		"  --spoof               replay from the original source "
		"(raw socket)\n"
		"  --listen-ms M         count answers for M ms after "
		"sending\n"
		"  --out FILE            capture: the file to write\n");
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-') {
		return -EINVAL;
	}
	return 0;
}

static int parse_uint(const char *s, unsigned max, unsigned *v)
{
	uint64_t x;

	if (parse_u64(s, &x) || x > max) {
		return -EINVAL;
	}
	*v = (unsigned)x;
	return 0;
}

/* ADDR:PORT, or ADDR alone when port_optional */
static int parse_addr(const char *s, bool port_optional,
		      struct sockaddr_in *sa)
{
	char host[64];
	const char *colon = strrchr(s, ':');
	size_t hl = colon ? (size_t)(colon - s) : strlen(s);
	unsigned port = 0;

	if ((!colon && !port_optional) || hl == 0 || hl >= sizeof(host)) {
		return -EINVAL;
	}
	memcpy(host, s, hl);
	host[hl] = 0;
	if (colon && parse_uint(colon + 1, 65535, &port)) {
		return -EINVAL;
	}
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &sa->sin_addr) != 1) {
		return -EINVAL;
	}
	return 0;
}

static int parse_mode(const char *s, enum mode *m)
{
	static const struct {
		const char *name;
		enum mode m;
	} modes[] = {
		{"random", M_RANDOM},	  {"truncated", M_TRUNCATED},
		{"badtag", M_BADTAG},	  {"wrongkey", M_WRONGKEY},
		{"capture+replay", M_REPLAY}, {"replay-hello", M_REPLAY_HELLO},
		{"capture", M_CAPTURE},	      {"replay", M_REPLAY_FILE},
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (!strcmp(s, modes[i].name)) {
			*m = modes[i].m;
			return 0;
		}
	}
	return -EINVAL;
}

enum opt_id {
	OPT_TO = 1,
	OPT_FROM,
	OPT_FROM_PORT,
	OPT_SEED,
	OPT_PPS,
	OPT_TTL,
	OPT_SESSION,
	OPT_PATHS,
	OPT_PATH,
	OPT_DIR,
	OPT_KEY,
	OPT_PN_BASE,
	OPT_INNER_SRC,
	OPT_INNER_DST,
	OPT_INNER_PORT,
	OPT_CAP_IF,
	OPT_CAP_NETNS,
	OPT_CAP_COUNT,
	OPT_CAP_PORT,
	OPT_CAP_TIMEOUT,
	OPT_DELAY,
	OPT_REPEAT,
	OPT_SPOOF,
	OPT_LISTEN,
	OPT_OUT,
	OPT_HELP,
};

static const struct option long_opts[] = {
	{"to", required_argument, NULL, OPT_TO},
	{"from", required_argument, NULL, OPT_FROM},
	{"from-port", required_argument, NULL, OPT_FROM_PORT},
	{"seed", required_argument, NULL, OPT_SEED},
	{"pps", required_argument, NULL, OPT_PPS},
	{"ttl", required_argument, NULL, OPT_TTL},
	{"session", required_argument, NULL, OPT_SESSION},
	{"paths", required_argument, NULL, OPT_PATHS},
	{"path", required_argument, NULL, OPT_PATH},
	{"dir", required_argument, NULL, OPT_DIR},
	{"key", required_argument, NULL, OPT_KEY},
	{"pn-base", required_argument, NULL, OPT_PN_BASE},
	{"inner-src", required_argument, NULL, OPT_INNER_SRC},
	{"inner-dst", required_argument, NULL, OPT_INNER_DST},
	{"inner-port", required_argument, NULL, OPT_INNER_PORT},
	{"capture-if", required_argument, NULL, OPT_CAP_IF},
	{"capture-netns", required_argument, NULL, OPT_CAP_NETNS},
	{"capture-count", required_argument, NULL, OPT_CAP_COUNT},
	{"capture-port", required_argument, NULL, OPT_CAP_PORT},
	{"capture-timeout-ms", required_argument, NULL, OPT_CAP_TIMEOUT},
	{"delay-ms", required_argument, NULL, OPT_DELAY},
	{"repeat", required_argument, NULL, OPT_REPEAT},
	{"spoof", no_argument, NULL, OPT_SPOOF},
	{"listen-ms", required_argument, NULL, OPT_LISTEN},
	{"out", required_argument, NULL, OPT_OUT},
	{"help", no_argument, NULL, OPT_HELP},
	{NULL, 0, NULL, 0},
};

static const char *opt_name(int id)
{
	for (const struct option *l = long_opts; l->name; l++) {
		if (l->val == id) {
			return l->name;
		}
	}
	return "?";
}

/* One option into o; -EINVAL names nothing, the caller does. */
static int set_opt(struct opts *o, int id, const char *a, bool *have_to,
		   bool *have_count, bool *have_repeat)
{
	unsigned u;
	uint64_t x;
	char *end;

	switch (id) {
	case OPT_TO:
		*have_to = true;
		return parse_addr(a, false, &o->to);
	case OPT_FROM: {
		uint16_t keep = o->have_from ? o->from.sin_port : 0;

		if (parse_addr(a, true, &o->from)) {
			return -EINVAL;
		}
		if (!o->from.sin_port) {
			o->from.sin_port = keep;
		}
		o->have_from = true;
		return 0;
	}
	case OPT_FROM_PORT:
		if (parse_uint(a, 65535, &u)) {
			return -EINVAL;
		}
		if (!o->have_from) {
			o->from.sin_family = AF_INET;
			o->from.sin_addr.s_addr = htonl(INADDR_ANY);
		}
		o->from.sin_port = htons((uint16_t)u);
		o->have_from = true;
		return 0;
	case OPT_SEED:
		o->have_seed = true;
		return parse_u64(a, &o->seed);
	case OPT_PPS:
		errno = 0;
		o->pps = strtod(a, &end);
		return errno || end == a || *end || o->pps < 0 ? -EINVAL : 0;
	case OPT_TTL:
		if (parse_uint(a, 255, &u) || !u) {
			return -EINVAL;
		}
		o->ttl = (int)u;
		return 0;
	case OPT_SESSION:
		if (parse_u64(a, &x) || x > UINT32_MAX) {
			return -EINVAL;
		}
		o->session = (uint32_t)x;
		return 0;
	case OPT_PATHS:
		if (parse_uint(a, WIRE_MAX_PATHS, &o->paths) || !o->paths) {
			return -EINVAL;
		}
		return 0;
	case OPT_PATH:
		return parse_uint(a, WIRE_MAX_PATHS - 1, &o->path);
	case OPT_DIR:
		if (!strcmp(a, "c2s")) {
			o->dir = AUTH_C2S;
		} else if (!strcmp(a, "s2c")) {
			o->dir = AUTH_S2C;
		} else {
			return -EINVAL;
		}
		return 0;
	case OPT_KEY:
		o->key = a;
		return 0;
	case OPT_PN_BASE:
		return parse_u64(a, &o->pn_base);
	case OPT_INNER_SRC:
		return inet_pton(AF_INET, a, &o->inner_src) == 1 ? 0 : -EINVAL;
	case OPT_INNER_DST:
		return inet_pton(AF_INET, a, &o->inner_dst) == 1 ? 0 : -EINVAL;
	case OPT_INNER_PORT:
		if (parse_uint(a, 65535, &u)) {
			return -EINVAL;
		}
		o->inner_port = (uint16_t)u;
		return 0;
	case OPT_CAP_IF:
		o->cap_if = a;
		return 0;
	case OPT_CAP_NETNS:
		o->cap_netns = a;
		return 0;
	case OPT_CAP_COUNT:
		*have_count = true;
		if (parse_uint(a, CAPTURE_MAX, &o->cap_count) ||
		    !o->cap_count) {
			return -EINVAL;
		}
		return 0;
	case OPT_CAP_PORT:
		return parse_uint(a, 65535, &o->cap_port);
	case OPT_CAP_TIMEOUT:
		return parse_uint(a, 3600000, &o->cap_timeout_ms);
	case OPT_DELAY:
		return parse_uint(a, 3600000, &o->delay_ms);
	case OPT_REPEAT:
		*have_repeat = true;
		if (parse_uint(a, 100000, &o->repeat) || !o->repeat) {
			return -EINVAL;
		}
		return 0;
	case OPT_SPOOF:
		o->spoof = true;
		return 0;
	case OPT_LISTEN:
		return parse_uint(a, 600000, &o->listen_ms);
	case OPT_OUT:
		o->file = a;
		return 0;
	}
	return -EINVAL;
}

int main(int argc, char **argv)
{
	struct opts o = {
		.session = 4242,
		.paths = 2,
		.dir = AUTH_C2S,
		.inner_port = 9,
		.cap_count = 1000,
		.cap_timeout_ms = 10000,
		.repeat = 1,
	};
	bool have_to = false, have_count = false, have_repeat = false;
	struct capture cap = {0};
	struct counts c = {0};
	struct sender s = {.udp = -1, .raw = -1};
	uint64_t n = 0;
	enum mode m;
	int id, err;

	inet_pton(AF_INET, "10.0.1.2", &o.inner_src);
	inet_pton(AF_INET, "10.0.2.2", &o.inner_dst);
	while ((id = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		if (id == OPT_HELP) {
			usage(stdout);
			return 0;
		}
		if (id == '?' || set_opt(&o, id, optarg, &have_to, &have_count,
					 &have_repeat)) {
			if (id != '?') {
				fprintf(stderr,
					"l3b-hostile: bad value '%s' for "
					"--%s\n",
					optarg, opt_name(id));
			}
			usage(stderr);
			return 2;
		}
	}
	if (!have_to || optind >= argc || parse_mode(argv[optind], &m)) {
		usage(stderr);
		return 2;
	}
	optind++;
	if (m == M_REPLAY_FILE) {
		if (optind + 1 != argc) {
			fprintf(stderr, "l3b-hostile: replay needs a capture "
					"file\n");
			return 2;
		}
		o.file = argv[optind];
	} else if (m == M_REPLAY || m == M_REPLAY_HELLO || m == M_CAPTURE) {
		if (!o.cap_if || optind != argc || (m == M_CAPTURE && !o.file)) {
			fprintf(stderr, "l3b-hostile: %s needs --capture-if%s "
					"and no count\n",
				argv[optind - 1], m == M_CAPTURE ? ", --out" : "");
			return 2;
		}
		if (!o.cap_port) {
			o.cap_port = ntohs(o.to.sin_port);
		}
		if (m == M_REPLAY_HELLO && !have_count) {
			o.cap_count = 4;
		}
		if (m == M_REPLAY_HELLO && !have_repeat) {
			o.repeat = 10;
		}
	} else if (optind + 1 != argc || parse_u64(argv[optind], &n)) {
		fprintf(stderr, "l3b-hostile: %s needs a packet count\n",
			argv[optind - 1]);
		return 2;
	}
	if (auth_init() || seed_init(&o)) {
		return 1;
	}
	err = sender_open(&s, &o, o.spoof);
	if (err) {
		fprintf(stderr, "l3b-hostile: socket: %s\n", strerror(-err));
		sender_close(&s);
		return 1;
	}
	switch (m) {
	case M_RANDOM:
		err = run_random(&s, &c, n);
		break;
	case M_TRUNCATED:
		err = run_truncated(&s, &c, n);
		break;
	case M_BADTAG:
		err = run_badtag(&s, &c, n);
		break;
	case M_WRONGKEY:
		err = run_wrongkey(&s, &c, n);
		break;
	case M_REPLAY:
	case M_REPLAY_HELLO:
		err = capture_some(&o, &cap, m == M_REPLAY_HELLO);
		if (!err) {
			err = replay(&s, &c, &cap);
		}
		break;
	case M_CAPTURE:
		err = capture_some(&o, &cap, false);
		if (!err) {
			err = capture_save(&cap, o.file);
		}
		break;
	case M_REPLAY_FILE:
		err = capture_load(&cap, o.file);
		if (!err) {
			err = replay(&s, &c, &cap);
		}
		break;
	}
	if (m < M_REPLAY && o.listen_ms) {
		drain_answers(s.udp, o.listen_ms, &c);
	}
	report(&o, m, &c, m >= M_REPLAY ? &cap : NULL);
	capture_free(&cap);
	sender_close(&s);
	return err ? 1 : 0;
}
