/* SPDX-License-Identifier: BSD-2-Clause */
/* The egress: the tunnel's packets arrive on egress_queue (raw
 * PREROUTING, before conntrack and routing).
 *
 * Each packet is checked (outer IPv4 or IPv6 and UDP by hand, outer.c;
 * then the wire header, the session and path ids, then handshake.c: replay
 * window, tag, body), each failure dropped and counted by reason, all
 * before the packet touches any state.  DATA: the inner packet takes a free slot and is pushed to
 * the resequencer with the slot index as cookie; the original waits in the
 * kernel queue under its id until the resequencer releases it, in order,
 * through release(), which gives NF_ACCEPT with the inner packet as the new
 * payload (and release_mark).  The inner bytes are copied into the slot
 * only when the resequencer keeps the packet: one released on arrival (in
 * order, the common case) goes into its verdict straight from the netlink
 * receive buffer, so it is copied once (into the verdict batch), not twice.
 * The kernel then carries on with the inner packet (conntrack, NAT,
 * routing) as if it had arrived on the WAN device.  An inner packet of the
 * other family than its outer one (IPv6 in IPv4, IPv4 in IPv6) cannot
 * replace it: release() writes it to the TUN device (common/tun.h), where
 * the kernel receives it as from a wire, and drops the outer packet; no
 * release_mark then.  Our raw PREROUTING rules match only the path
 * devices ("-i <wan>"), so what we write there is never captured again.
 * Control packets are taken in by control.c (REPORT, PROBE, PROBE_ACK,
 * NACK, TRAIN timed by the kernel's stamp, TRAIN_ACK) or secure.c (HELLO,
 * HELLO_ACK) and dropped.  Every t_report_ms the egress
 * adapts its reorder timeout (egress/lto.h) and reports its loss
 * accounting to the peer (gw_egr_send_reports).
 *
 * Sessions: the session id of the header selects the session (session.c),
 * whose keys, resequencer and slots the packet then meets; a concentrator
 * also checks that a CPE's DATA comes from that CPE's prefixes.
 *
 * Slots: a session's resequencer holds at most capacity packets, and a
 * packet is released or dropped within the call that pushed it otherwise,
 * so capacity + 1 slots per session never run out.  The kernel queue has
 * room for every session's full buffer (GW_EGR_QUEUE_EXTRA more) so held
 * packets do not make it overflow.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gateway/control.h"
#include "gateway/gw.h"
#include "gateway/link.h"
#include "gateway/outer.h"
#include "gateway/secure.h"
#include "gateway/session.h"
#include "gateway/stats.h"

static void verdict(struct gw_egr *e, uint32_t id, enum nfqueue_verdict_kind v,
		    bool mark, uint32_t markv, const void *pl, size_t len)
{
	if (nfqueue_verdict(&e->q, id, v, mark, markv, pl, len) < 0) {
		e->st.verdict_errors++;
	}
}

static struct gw_slot *slot_of(const struct gw_sess *s, uint32_t idx)
{
	return &s->chunk[idx / GW_SLOT_CHUNK][idx % GW_SLOT_CHUNK];
}

static int chunk_alloc(struct gw_sess *s, uint32_t c)
{
	size_t len = sizeof(**s->chunk) * GW_SLOT_CHUNK;
	uint32_t i;

	s->chunk[c] = malloc(len);
	if (!s->chunk[c]) {
		return -ENOMEM;
	}
	gw_commit_mem(s->chunk[c], len);
	for (i = 0; i < GW_SLOT_CHUNK; i++) {
		s->chunk[c][i].ext = NULL;
	}
	return 0;
}

/* The slots' index (chunk pointers, the free stack): a concentrator's
 * session takes it with its first DATA, a CPE's at open.  0 or -ENOMEM. */
static int slots_alloc(struct gw_sess *s)
{
	uint32_t i, nchunks = (s->nslots + GW_SLOT_CHUNK - 1) / GW_SLOT_CHUNK;

	s->chunk = calloc(nchunks, sizeof(*s->chunk));
	s->free = malloc(sizeof(*s->free) * s->nslots);
	if (!s->chunk || !s->free) {
		free(s->chunk);
		free(s->free);
		s->chunk = NULL;
		s->free = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < s->nslots; i++) {
		s->free[i] = s->nslots - 1 - i;
	}
	s->nfree = s->nslots;
	return 0;
}

static void flush(struct gw *gw);

/* The resequencer hands a packet back, in global sequence order. */
static void release(void *ctx, uint64_t cookie, uint32_t gseq)
{
	struct gw_sess *s = ctx;
	struct gw_egr *e = &s->gw->egr;
	struct gw_slot *sl = slot_of(s, (uint32_t)cookie);
	uint32_t mark = s->gw->conf.release_mark;
	const uint8_t *data = sl->ext ? sl->ext : sl->data;

	(void)gseq;
	if (sl->drop) {
		verdict(e, sl->id, NFQ_DROP, false, 0, NULL, 0);
	} else if (sl->tun) {
		/* The other family than the outer packet: the kernel gets it
		 * from the TUN device, at once, and the outer packet is
		 * dropped.  Packets released before it by a verdict still in
		 * the batch go first, or the write would overtake them (the
		 * same flow may come over paths of both outer families). */
		if (e->accepts) {
			flush(s->gw);
		}
		if (tun_write(&s->gw->tun, data, sl->len) < 0) {
			s->est.tun_errors++;
		} else {
			s->est.via_tun++;
		}
		verdict(e, sl->id, NFQ_DROP, false, 0, NULL, 0);
		s->est.released++;
	} else {
		verdict(e, sl->id, NFQ_ACCEPT, mark != 0, mark, data, sl->len);
		e->accepts = true;
		s->est.released++;
	}
	sl->ext = NULL;
	s->free[s->nfree++] = (uint32_t)cookie;
}

/* A copy of a packet this long after the fastest path's round trip is
 * past waiting for (repair: adapt_lto). */
enum { GW_REPAIR_SLACK_US = 5000 };

static void send_nack(struct gw_sess *s, uint64_t now_us);

/* When the packet reached this box: the kernel's receive stamp on the
 * monotonic clock, so that neither the resequencer's timeout nor the
 * queueing delay reported to the peer counts the time this process took to
 * get to it (a busy router would otherwise look like a queueing line and
 * hold DWD).  Without a stamp, the time of the drain. */
static uint64_t arrival_us(struct gw_egr *e, const struct nfqueue_pkt *pk)
{
	int64_t mono_ns;

	if (!pk->tstamp_ns) {
		e->st.no_kernel_time++;
		return e->now_us;
	}
	mono_ns = (int64_t)pk->tstamp_ns + e->real_to_mono_ns;
	if (mono_ns <= 0 || (uint64_t)mono_ns / 1000 > e->now_us) {
		return e->now_us; /* the clock was stepped meanwhile */
	}
	return (uint64_t)mono_ns / 1000;
}

/* Concentrator: what a CPE sends must come from its own addresses (its
 * prefixes), or any CPE could send as another through us. */
static bool spoofed(const struct gw_sess *s, const struct wire_msg *m)
{
	uint32_t src;

	if (s->gw->conf.role != ROLE_CONCENTRATOR) {
		return false;
	}
	/* a whole IPv4 or IPv6 packet: wire_parse_body checked it */
	if (m->body[0] >> 4 == 6) {
		return gw_sess_by_addr6(s->gw, m->body + 8) != s;
	}
	memcpy(&src, m->body + 12, 4);
	return gw_sess_by_addr(s->gw, src) != s;
}

/* DATA of the session.  drop: authentic, but not to be delivered (counted
 * by the caller): it still takes its place in the sequence and is dropped
 * when its turn comes, so that it is not a gap the resequencer waits for
 * and the loss count reports to the peer.  tun: the inner packet's family
 * is not the outer one's (released through the TUN device). */
static void on_data(struct gw_sess *s, const struct nfqueue_pkt *pk,
		    const struct wire_msg *m, bool drop, bool tun)
{
	struct gw_egr *e = &s->gw->egr;
	enum egr_verdict v;
	struct gw_slot *sl;
	uint32_t idx;
	uint64_t at;

	if (m->body_len > GW_INNER_MAX) {
		s->est.oversize++;
		drop = true;
	}
	if (!s->nfree && (s->free || slots_alloc(s) < 0)) {
		s->est.no_slot++;
		verdict(e, pk->id, NFQ_DROP, false, 0, NULL, 0);
		return;
	}
	idx = s->free[s->nfree - 1];
	if (!s->chunk[idx / GW_SLOT_CHUNK] &&
	    chunk_alloc(s, idx / GW_SLOT_CHUNK) < 0) {
		s->est.no_slot++;
		verdict(e, pk->id, NFQ_DROP, false, 0, NULL, 0);
		return;
	}
	s->nfree--;
	sl = slot_of(s, idx);
	sl->id = pk->id;
	sl->drop = drop;
	sl->tun = tun;
	sl->len = drop ? 0 : (uint32_t)m->body_len;
	/* the bytes stay where they are unless the resequencer keeps them:
	 * an in-order packet is released inside egr_on_data, straight from
	 * the receive buffer, which stays valid until we return */
	sl->ext = drop ? NULL : m->body;
	at = arrival_us(e, pk);
	v = egr_on_data(&s->egr, &m->hdr, at, idx);
	if (s->egr.nack.count) {
		send_nack(s, at);
	}
	switch (v) {
	case EGR_RELEASED:
		return;
	case EGR_BUFFERED:
		if (sl->ext) {
			memcpy(sl->data, m->body, m->body_len);
			sl->ext = NULL;
		}
		return;
	case EGR_DROP_LATE:
		break; /* counted by the resequencer: too_old, resent_too_old */
	case EGR_DROP_DUP:
		break; /* counted by the resequencer: dup, resent_dup,
			* copy_dup */
	case EGR_DROP_PATH:
		e->st.path++;
		break;
	case EGR_DROP_NOMEM:
		s->est.no_slot++;
		break;
	}
	verdict(e, pk->id, NFQ_DROP, false, 0, NULL, 0);
	sl->ext = NULL;
	s->free[s->nfree++] = idx;
}

static void touch(struct gw_egr *e, struct gw_sess *s)
{
	if (!s->touched && e->ntouched < GW_BUDGET) {
		s->touched = true;
		e->touched[e->ntouched++] = s;
	}
}

static void on_packet(void *ctx, const struct nfqueue_pkt *pk)
{
	struct gw *gw = ctx;
	struct gw_egr *e = &gw->egr;
	struct sockaddr_in6 from = {.sin6_family = AF_INET6};
	struct in6_addr to;
	enum gw_auth_drop ad;
	struct wire_msg m;
	enum wire_drop why;
	const uint8_t *pl;
	struct gw_link *l;
	struct gw_sess *s = NULL;
	char a[GW_ADDR_STR];
	bool newest, outer6, tun = false;
	size_t plen;
	int err;

	e->st.pkts++;
	outer6 = pk->hw_proto == ETH_P_IPV6;
	if ((pk->hw_proto != ETH_P_IP && !outer6) || pk->len != pk->orig_len) {
		e->st.outer_bad++;
		goto drop;
	}
	err = outer6 ? gw_outer_ipv6(pk->data, pk->len, &from, &pl, &plen)
		     : gw_outer_ipv4(pk->data, pk->len, &from, &pl, &plen);
	if (err == -EPROTONOSUPPORT) {
		e->st.outer_ext6++;
		goto drop;
	}
	if (err < 0) {
		e->st.outer_bad++;
		goto drop;
	}
	gw_outer_dst(pk->data, outer6, &to);
	why = wire_parse_hdr(pl, plen, &m);
	if (why != WIRE_OK) {
		goto malformed;
	}
	s = gw_sess_by_id(gw, m.hdr.session);
	if (!s) {
		e->st.session++;
		goto drop;
	}
	if (m.hdr.path >= gw->npaths) {
		e->st.path++;
		goto drop;
	}
	/* the carrier bills what arrives, authentic or not */
	gw_volume_count(&gw->vol, m.hdr.path, pk->len);
	/* The payload lies in our own netlink receive buffer: the tag check
	 * may decrypt it in place. */
	ad = gw_sec_open(s, (uint8_t *)(uintptr_t)pl, &m, &why, &newest);
	if (ad == GW_AUTH_MAX) {
		goto malformed;
	}
	touch(e, s);
	if (ad != GW_AUTH_OK) {
		s->est.auth[ad]++;
		if (gw_ratelimit_ok(&e->rl, e->now_us)) {
			gw_sdbg(s, "egress: dropped a %s from %s: %s",
				wire_type_name(m.hdr.type),
				gw_addr_str(&from, a, sizeof(a)),
				gw_auth_drop_name(ad));
		}
		goto drop;
	}
	/* Authentic from here on. */
	l = &s->link[m.hdr.path];
	l->st.rx_pkts++;
	l->st.rx_bytes += pk->len;
	if (m.hdr.type == WIRE_DATA) {
		/* The kernel goes on with the queued packet in its family:
		 * an inner packet of the other family cannot replace it and
		 * goes through the TUN device instead. */
		bool drop = false;

		if ((m.body[0] >> 4 == 6) != outer6) {
			if (gw->tun_ok) {
				tun = true;
			} else {
				s->est.inner_family++;
				drop = true;
			}
		}
		if (!drop && spoofed(s, &m)) {
			s->est.spoofed++;
			drop = true;
			if (gw_ratelimit_ok(&e->rl, e->now_us)) {
				gw_swarn(s, "egress: dropped DATA from an "
					    "address outside the CPE's "
					    "prefixes");
			}
		}
		gw_link_heard(s, l, &from, &to, newest, e->now_us);
		/* a path that brings DATA is in use: probed at the busy
		 * interval */
		ing_detect_data_in(&l->det, e->now_us);
		on_data(s, pk, &m, drop, tun);
		return;
	}
	s->est.ctrl[m.hdr.type]++;
	if (m.hdr.type == WIRE_HELLO || m.hdr.type == WIRE_HELLO_ACK) {
		/* anyone can replay these: they prove nothing about the path */
		gw_sec_on_hello(s, l, &from, &to, &m, e->now_us);
		goto drop;
	}
	gw_link_heard(s, l, &from, &to, newest, e->now_us);
	if (m.hdr.type == WIRE_TRAIN) {
		/* timed by the kernel's stamp alone: a drain's time would
		 * read a batch as a burst */
		gw_on_train(s, l, &m.u.train,
			    pk->tstamp_ns ? arrival_us(e, pk) : 0, outer6,
			    e->now_us);
	} else {
		gw_on_control(s, l, &m, e->now_us);
	}
	goto drop;
malformed:
	if (s) {
		/* authentic, but its body is not what its type says */
		s->est.wire[why]++;
	} else {
		e->st.wire[why]++;
	}
	if (gw_ratelimit_ok(&e->rl, e->now_us)) {
		gw_dbg(gw, "egress: dropped a packet from %s: %s",
		       gw_addr_str(&from, a, sizeof(a)), wire_drop_name(why));
	}
drop:
	verdict(e, pk->id, NFQ_DROP, false, 0, NULL, 0);
}

static void arm_timer(struct gw_sess *s)
{
	struct ev_loop *loop = s->gw->loop;
	uint64_t when, now;

	ev_timer_stop(loop, &s->reseq_timer);
	if (!egr_reseq_deadline(&s->egr.reseq, &when)) {
		return;
	}
	now = gw_now_us();
	ev_timer_set(&s->reseq_timer,
		     when > now ? (double)(when - now) / 1e6 : 0., 0.);
	ev_timer_start(loop, &s->reseq_timer);
}

/* The verdicts out, in one write. */
static void flush(struct gw *gw)
{
	struct gw_egr *e = &gw->egr;

	if (e->q.nl && nfqueue_flush(&e->q) < 0) {
		e->st.verdict_errors++;
	}
	e->accepts = false;
}

void gw_egr_settle(struct gw_sess *s)
{
	flush(s->gw);
	if (s->egr_ok) {
		arm_timer(s);
	}
}

static int drain_once(struct gw *gw);

/* A hole is due: first what the kernel has received already (the timer
 * may come before the queue's readable event in the same loop round, or
 * after a stall), one drain's worth: a packet that came in time should not
 * find its hole given up (it was dropped as too_old, its stamp before the
 * give-up: 6-12 a 30-s download on the busy bed; one read after a deeper
 * stall still can, and is released late: egr_reseq_push). */
static void on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct gw_sess *s = container_of(w, struct gw_sess, reseq_timer);

	(void)loop;
	(void)revents;
	if (s->gw->egr.q.nl) {
		drain_once(s->gw);
	}
	egr_reseq_poll(&s->egr.reseq, gw_now_us());
	gw_egr_settle(s);
}

static int drain_once(struct gw *gw)
{
	struct gw_egr *e = &gw->egr;
	struct timespec real, mono;
	unsigned i;
	int got;

	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	e->real_to_mono_ns = ((int64_t)mono.tv_sec - real.tv_sec) * 1000000000 +
			     (mono.tv_nsec - real.tv_nsec);
	e->now_us = gw_now_us();
	got = nfqueue_drain(&e->q, GW_DRAIN, on_packet, gw);
	flush(gw);
	for (i = 0; i < e->ntouched; i++) {
		e->touched[i]->touched = false;
		arm_timer(e->touched[i]);
	}
	e->ntouched = 0;
	return got;
}

static void on_readable(struct ev_loop *loop, ev_io *w, int revents)
{
	struct gw *gw = container_of(w, struct gw, egr.io);
	int got;

	(void)loop;
	(void)revents;
	got = drain_once(gw);
	if (got < 0) {
		gw_err(gw, "egress queue %u: %s", gw_egress_queue(gw),
		       strerror(-got));
	}
}

void gw_egr_drain_all(struct gw *gw)
{
	int rounds = 0;

	while (drain_once(gw) > 0 && ++rounds < 1000) {
	}
}

/* The reorder timeout from this interval's measurements and the PROBE
 * round trips (egress/lto.h). */
static void adapt_lto(struct gw_sess *s)
{
	struct egr_lto_path p[WIRE_MAX_PATHS];
	uint32_t rtt = 0, max = s->gw->conf.reseq.t_lto_us, wait;
	int fast = ing_sched_lowest_delay(&s->sched);
	unsigned i;

	if (!s->egr_ok) {
		return;
	}
	for (i = 0; i < s->gw->npaths; i++) {
		const struct gw_link *l = &s->link[i];

		p[i] = (struct egr_lto_path){.up = l->rx_up, .rtt = l->rtt};
	}
	/* a copy asked for comes a round trip on the lowest-delay path (the
	 * one sparse packets and copies take: its smoothed RTT) after the
	 * request, and some: at most t_lto_ms (the longest wait), t_lto_ms
	 * before a round trip is known */
	if (fast >= 0) {
		rtt = s->sched.path[fast].delay_us;
	}
	wait = rtt ? rtt + rtt / 4 + GW_REPAIR_SLACK_US : max;
	egr_reseq_set_repair_wait(&s->egr.reseq, wait < max ? wait : max);
	if (egr_adapt_lto(&s->egr, p, s->gw->npaths)) {
		/* a hole waiting now may be due sooner */
		gw_egr_settle(s);
	}
}

/* Whether the reports go on path i: every path, but a backup path while
 * another is usable (it would carry 20 reports a second on the costly
 * line while the others carry everything and the reports with it). */
static bool report_on(const struct gw_sess *s, unsigned i)
{
	unsigned j;

	if (s->sched.path[i].cls != PATH_BACKUP) {
		return true;
	}
	for (j = 0; j < s->gw->npaths; j++) {
		if (s->sched.path[j].cls != PATH_BACKUP &&
		    ing_detect_usable(&s->link[j].det)) {
			return false;
		}
	}
	return true;
}

/* The copies egr_on_data asked for (repair, DESIGN.md): a NACK on every
 * path the reports take.  The first to arrive comes on the fastest path,
 * and each comes ahead of the report that acknowledges past the packets
 * on its path (the peer keeps them until then). */
static void send_nack(struct gw_sess *s, uint64_t now_us)
{
	struct wire_nack n = {.path = (uint8_t)s->egr.nack.path,
			      .count = (uint16_t)s->egr.nack.count,
			      .lseq = s->egr.nack.lseq};
	uint8_t body[WIRE_NACK_LEN];
	unsigned i;

	s->egr.nack.count = 0;
	if (wire_put_nack(body, sizeof(body), &n) < 0) {
		return; /* cannot be: egr_on_data asks WIRE_NACK_MAX at most */
	}
	for (i = 0; i < s->gw->npaths; i++) {
		if (report_on(s, i)) {
			gw_send_ctrl(s, &s->link[i], WIRE_NACK, 0, body,
				     sizeof(body), now_us);
		}
	}
	s->est.nacks++;
}

/* The cumulative counters go on every path: a lost report loses nothing
 * and the peer ignores the copies by report sequence.  Before the report
 * resets the interval's queueing delays, they set the reorder timeout.
 * Every t_report_ms, if DATA arrived since the last one: an idle path
 * costs no REPORTs (the 50 MB a month), and the first DATA brings
 * them back.  The report after the last DATA still goes: it acknowledges
 * it (the peer's detector waits for that). */
static void send_report(struct gw_sess *s, uint64_t now_us)
{
	struct wire_report r;
	uint8_t body[WIRE_REPORT_MAX];
	uint32_t seq, rx = 0;
	unsigned i;
	int len;

	adapt_lto(s);
	for (i = 0; i < s->gw->npaths; i++) {
		rx += s->egr.loss.p[i].rx;
	}
	if (rx == s->est.report_rx) {
		/* the interval counts in the report sequence: the peer's DWD
		 * takes one step for each (ing_sched_on_report) */
		s->est.reports_idle++;
		s->egr.loss.report_seq++;
		return;
	}
	s->est.report_rx = rx;
	s->est.reports++;
	seq = egr_loss_report(&s->egr.loss, &r);
	/* a path whose data budget is spent: the peer uses it as a backup
	 * towards us (gateway/volume.h) */
	for (i = 0; i < r.n; i++) {
		if (gw_volume_spent(&s->gw->vol, r.p[i].path)) {
			r.p[i].flags |= WIRE_RF_BACKUP;
		}
	}
	len = wire_put_report(body, sizeof(body), &r);
	if (len < 0) {
		return;
	}
	/* the header's stamp: when the latest DATA counted arrived (the
	 * peer learns a line's rate over it, ing_sched_on_report_at) */
	for (i = 0; i < s->gw->npaths; i++) {
		if (!report_on(s, i)) {
			continue;
		}
		gw_send_ctrl(s, &s->link[i], WIRE_REPORT, seq, body,
			     (size_t)len,
			     s->egr.loss.counted_us ? s->egr.loss.counted_us
						    : now_us);
	}
}

void gw_egr_send_reports(struct gw *gw, uint64_t now_us)
{
	unsigned k;

	for (k = 0; k < gw->nsess; k++) {
		send_report(gw->sess[k], now_us);
	}
}

void gw_egr_peer_restarted(struct gw_sess *s)
{
	uint32_t report_seq = s->egr.loss.report_seq;

	s->est.peer_restarts++;
	/* what is buffered goes out in order first */
	egr_reseq_reset(&s->egr.reseq);
	/* the counters start again (the peer's fresh ingress takes new
	 * baselines) but our report sequence goes on: were the restart a
	 * false alarm, the peer would ignore a sequence that went back */
	egr_loss_init(&s->egr.loss, s->gw->npaths);
	s->est.report_rx = 0;
	s->egr.loss.report_seq = report_seq;
	gw_egr_settle(s);
}

/* The kernel's own drops for our queues, logged when they grow. */
void gw_check_kstats(struct gw *gw)
{
	struct {
		unsigned num;
		struct nfqueue_kstats *last;
		const char *name;
	} q[2] = {
		{gw_ingress_queue(gw), &gw->ing.kst, "ingress"},
		{gw_egress_queue(gw), &gw->egr.kst, "egress"},
	};
	struct nfqueue_kstats ks;
	unsigned i;

	for (i = 0; i < 2; i++) {
		if (nfqueue_kernel_stats(q[i].num, &ks) < 0) {
			continue;
		}
		if (ks.queue_dropped != q[i].last->queue_dropped ||
		    ks.user_dropped != q[i].last->user_dropped) {
			gw_warn(gw,
				"%s queue %u: kernel dropped %u (queue full) "
				"and %u (socket full) packets in total",
				q[i].name, q[i].num, ks.queue_dropped,
				ks.user_dropped);
		}
		*q[i].last = ks;
	}
}

/* Releases what every session holds, in order: at shutdown. */
void gw_egr_flush_all(struct gw *gw)
{
	unsigned k;

	for (k = 0; k < gw->nsess; k++) {
		struct gw_sess *s = gw->sess[k];

		if (s->egr_ok) {
			egr_reseq_flush(&s->egr.reseq);
			gw_egr_settle(s);
		}
	}
}

int gw_segr_open(struct gw_sess *s)
{
	const struct gw *gw = s->gw;
	uint32_t i, nchunks;
	int err;

	err = egr_init(&s->egr, &gw->conf.reseq, gw->npaths, release, s);
	if (err) {
		gw_serr(s, "egress: %s", strerror(-err));
		return err;
	}
	s->egr_ok = true;
	/* paths come up as the peer is heard on them */
	for (i = 0; i < gw->npaths; i++) {
		egr_reseq_set_path_up(&s->egr.reseq, i, false);
	}
	s->nslots = gw->conf.reseq.capacity + 1;
	nchunks = (s->nslots + GW_SLOT_CHUNK - 1) / GW_SLOT_CHUNK;
	/* A CPE has one session: its memory is committed now, so that what
	 * the daemon uses does not grow with the depth the resequencer
	 * happens to reach later.  A concentrator's sessions take the
	 * resequencer's slots and the slots' index at their first DATA and
	 * the slots' chunks as they need them: its CPEs that send nothing
	 * cost none of it (issue 15: 10,000 configured CPEs), and most CPEs
	 * never fill their buffer. */
	if (gw->conf.role == ROLE_CPE &&
	    (slots_alloc(s) < 0 || egr_reseq_alloc(&s->egr.reseq) < 0)) {
		return -ENOMEM;
	}
	for (i = 0; gw->conf.role == ROLE_CPE && i < nchunks; i++) {
		if (chunk_alloc(s, i) < 0) {
			return -ENOMEM;
		}
	}
	ev_timer_init(&s->reseq_timer, on_timer, 0., 0.);
	return 0;
}

void gw_segr_close(struct gw_sess *s, bool flush)
{
	uint32_t i;

	if (flush && s->egr_ok) {
		egr_reseq_flush(&s->egr.reseq);
		gw_egr_settle(s);
	}
	if (s->gw->loop) {
		ev_timer_stop(s->gw->loop, &s->reseq_timer);
	}
	if (s->egr_ok) {
		egr_free(&s->egr);
		s->egr_ok = false;
	}
	for (i = 0; s->chunk && i * GW_SLOT_CHUNK < s->nslots; i++) {
		free(s->chunk[i]);
	}
	free(s->chunk);
	free(s->free);
	s->chunk = NULL;
	s->free = NULL;
}

int gw_egr_open(struct gw *gw)
{
	struct gw_egr *e = &gw->egr;
	/* room for every session's full buffer, and what is in flight */
	uint64_t maxlen =
		(uint64_t)gw->conf.reseq.capacity *
			(gw->conf.role == ROLE_CPE ? 1 : CONF_CPE_MAX) +
		GW_EGR_QUEUE_EXTRA;
	struct nfqueue_opts o = {
		.copy_range = 0xffff,
		.maxlen = maxlen > UINT32_MAX ? UINT32_MAX : (uint32_t)maxlen,
		.fail_open = false,
		.rcvbuf = GW_RCVBUF,
	};
	int err;

	err = nfqueue_open(&e->q, gw_egress_queue(gw), &o);
	if (err) {
		gw_err(gw, "egress queue %u: %s%s", gw_egress_queue(gw),
		       strerror(-err),
		       err == -EBUSY ? " (bound by another process)" : "");
		return err;
	}
	/* Any path may carry inner packets of the other family (a CPE
	 * bonds its LAN's IPv6 over IPv4 paths): the device is always
	 * there.  Without it those are dropped (inner_family), the rest
	 * works. */
	err = tun_open(&gw->tun, "l3b%d", 0);
	if (err) {
		gw_warn(gw,
			"TUN device: %s: %s: inner packets of the other "
			"family than their path are dropped",
			gw->tun.fail ? gw->tun.fail : "open", strerror(-err));
	} else {
		gw->tun_ok = true;
		gw_info(gw,
			"TUN device %s for inner packets of the other "
			"family",
			gw->tun.name);
	}
	ev_io_init(&e->io, on_readable, nfqueue_fd(&e->q), EV_READ);
	ev_io_start(gw->loop, &e->io);
	return 0;
}

void gw_egr_close(struct gw *gw)
{
	struct gw_egr *e = &gw->egr;

	if (e->q.nl) {
		ev_io_stop(gw->loop, &e->io);
		nfqueue_close(&e->q);
	}
	tun_close(&gw->tun);
	gw->tun_ok = false;
}
