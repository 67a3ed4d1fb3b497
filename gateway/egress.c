/* The egress: the tunnel's packets arrive on egress_queue (raw
 * PREROUTING, before conntrack and routing).
 *
 * Each packet is checked (outer IPv4 and UDP by hand, then the wire
 * header, the session and path ids, then session.c: replay window, tag,
 * body), each failure dropped and counted by reason, all before the packet
 * touches any state.  DATA: the inner packet takes a free slot and is pushed to
 * the resequencer with the slot index as cookie; the original waits in the
 * kernel queue under its id until the resequencer releases it, in order,
 * through release(), which gives NF_ACCEPT with the inner packet as the new
 * payload (and release_mark).  The inner bytes are copied into the slot
 * only when the resequencer keeps the packet: one released on arrival (in
 * order, the common case) goes into its verdict straight from the netlink
 * receive buffer, so it is copied once (into the verdict batch), not twice.
 * The kernel then carries on with the inner packet (conntrack, NAT,
 * routing) as if it had arrived on the WAN device.
 * Control packets are handled by path.c and dropped.
 *
 * Slots: the resequencer holds at most capacity packets, and a packet is
 * released or dropped within the call that pushed it otherwise, so
 * capacity + 1 slots never run out.  The kernel queue is sized capacity +
 * GW_EGR_QUEUE_EXTRA so held packets do not make it overflow.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gateway/gw.h"

static void verdict(struct gw_egr *e, uint32_t id, enum nfqueue_verdict_kind v,
		    bool mark, uint32_t markv, const void *pl, size_t len)
{
	if (nfqueue_verdict(&e->q, id, v, mark, markv, pl, len) < 0) {
		e->st.verdict_errors++;
	}
}

/* The resequencer hands a packet back, in global sequence order. */
static void release(void *ctx, uint64_t cookie, uint32_t gseq)
{
	struct gw *gw = ctx;
	struct gw_egr *e = &gw->egr;
	struct gw_slot *s = &e->slot[cookie];
	uint32_t mark = gw->conf.release_mark;

	(void)gseq;
	verdict(e, s->id, NFQ_ACCEPT, mark != 0, mark,
		s->ext ? s->ext : s->data, s->len);
	s->ext = NULL;
	e->free[e->nfree++] = (uint32_t)cookie;
	e->st.released++;
}

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

static void on_data(struct gw *gw, const struct nfqueue_pkt *pk,
		    const struct wire_msg *m)
{
	struct gw_egr *e = &gw->egr;
	enum egr_verdict v;
	struct gw_slot *s;
	uint32_t idx;

	if (m->body_len > GW_INNER_MAX) {
		e->st.oversize++;
		verdict(e, pk->id, NFQ_DROP, false, 0, NULL, 0);
		return;
	}

	if (!e->nfree) {
		e->st.no_slot++;
		verdict(e, pk->id, NFQ_DROP, false, 0, NULL, 0);
		return;
	}
	idx = e->free[--e->nfree];
	s = &e->slot[idx];
	s->id = pk->id;
	s->len = (uint32_t)m->body_len;
	/* the bytes stay where they are unless the resequencer keeps them:
	 * an in-order packet is released inside egr_on_data, straight from
	 * the receive buffer, which stays valid until we return */
	s->ext = m->body;
	v = egr_on_data(&e->egr, &m->hdr, arrival_us(e, pk), idx);
	switch (v) {
	case EGR_RELEASED:
		return;
	case EGR_BUFFERED:
		if (s->ext) {
			memcpy(s->data, m->body, m->body_len);
			s->ext = NULL;
		}
		return;
	case EGR_DROP_LATE:
		e->st.late++;
		break;
	case EGR_DROP_DUP:
		e->st.dup++;
		break;
	case EGR_DROP_PATH:
		e->st.path++;
		break;
	}
	verdict(e, pk->id, NFQ_DROP, false, 0, NULL, 0);
	s->ext = NULL;
	e->free[e->nfree++] = idx;
}

static void on_packet(void *ctx, const struct nfqueue_pkt *pk)
{
	struct gw *gw = ctx;
	struct gw_egr *e = &gw->egr;
	struct sockaddr_in from;
	enum gw_auth_drop ad;
	struct wire_msg m;
	enum wire_drop why;
	const uint8_t *pl;
	struct gw_path *p;
	bool newest;
	size_t plen;

	e->st.pkts++;
	if (pk->hw_proto != ETH_P_IP || pk->len != pk->orig_len ||
	    gw_outer_ipv4(pk->data, pk->len, &from, &pl, &plen) < 0) {
		e->st.outer_bad++;
		goto drop;
	}
	why = wire_parse_hdr(pl, plen, &m);
	if (why != WIRE_OK) {
		goto malformed;
	}
	if (m.hdr.session != gw->conf.session_id) {
		e->st.session++;
		goto drop;
	}
	if (m.hdr.path >= gw->npaths) {
		e->st.path++;
		goto drop;
	}
	/* The payload lies in our own netlink receive buffer: the tag check
	 * may decrypt it in place. */
	ad = gw_sess_open(gw, (uint8_t *)(uintptr_t)pl, &m, &why, &newest);
	if (ad == GW_AUTH_MAX) {
		goto malformed;
	}
	if (ad != GW_AUTH_OK) {
		e->st.auth[ad]++;
		if (gw_ratelimit_ok(&e->rl, e->now_us)) {
			gw_dbg(gw, "egress: dropped a %s from %s:%u: %s",
			       wire_type_name(m.hdr.type),
			       inet_ntoa(from.sin_addr), ntohs(from.sin_port),
			       gw_auth_drop_name(ad));
		}
		goto drop;
	}
	/* Authentic from here on.  The queued packet is an IPv4 one and
	 * the kernel goes on with it as such: an IPv6 payload cannot replace
	 * it (and our ingress only captures IPv4). */
	if (m.hdr.type == WIRE_DATA && m.body[0] >> 4 != 4) {
		e->st.inner_family++;
		goto drop;
	}
	p = &gw->path[m.hdr.path];
	p->st.rx_pkts++;
	p->st.rx_bytes += pk->len;
	if (m.hdr.type == WIRE_DATA) {
		gw_path_heard(gw, p, &from, newest, e->now_us);
		on_data(gw, pk, &m);
		return;
	}
	e->st.ctrl[m.hdr.type]++;
	if (m.hdr.type == WIRE_HELLO || m.hdr.type == WIRE_HELLO_ACK) {
		/* anyone can replay these: they prove nothing about the path */
		gw_sess_on_hello(gw, p, &from, &m, e->now_us);
		goto drop;
	}
	gw_path_heard(gw, p, &from, newest, e->now_us);
	gw_on_control(gw, p, &m, e->now_us);
	goto drop;
malformed:
	e->st.wire[why]++;
	if (gw_ratelimit_ok(&e->rl, e->now_us)) {
		gw_dbg(gw, "egress: dropped a packet from %s: %s",
		       inet_ntoa(from.sin_addr), wire_drop_name(why));
	}
drop:
	verdict(e, pk->id, NFQ_DROP, false, 0, NULL, 0);
}

static void arm_timer(struct gw *gw)
{
	struct gw_egr *e = &gw->egr;
	uint64_t when, now;

	ev_timer_stop(gw->loop, &e->reseq_timer);
	if (!egr_reseq_deadline(&e->egr.reseq, &when)) {
		return;
	}
	now = gw_now_us();
	ev_timer_set(&e->reseq_timer,
		     when > now ? (double)(when - now) / 1e6 : 0., 0.);
	ev_timer_start(gw->loop, &e->reseq_timer);
}

void gw_egr_settle(struct gw *gw)
{
	struct gw_egr *e = &gw->egr;

	if (!e->q.nl) {
		return;
	}
	if (nfqueue_flush(&e->q) < 0) {
		e->st.verdict_errors++;
	}
	arm_timer(gw);
}

static void on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct gw *gw = container_of(w, struct gw, egr.reseq_timer);

	(void)loop;
	(void)revents;
	egr_reseq_poll(&gw->egr.egr.reseq, gw_now_us());
	gw_egr_settle(gw);
}

static int drain_once(struct gw *gw)
{
	struct timespec real, mono;
	int got;

	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	gw->egr.real_to_mono_ns =
		((int64_t)mono.tv_sec - real.tv_sec) * 1000000000 +
		(mono.tv_nsec - real.tv_nsec);
	gw->egr.now_us = gw_now_us();
	got = nfqueue_drain(&gw->egr.q, GW_BUDGET, on_packet, gw);
	gw_egr_settle(gw);
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
		gw_err(gw, "egress queue %u: %s", gw->conf.egress_queue,
		       strerror(-got));
	}
}

void gw_egr_drain_all(struct gw *gw)
{
	int rounds = 0;

	while (drain_once(gw) > 0 && ++rounds < 1000) {
	}
}

void gw_egr_peer_restarted(struct gw *gw)
{
	struct gw_egr *e = &gw->egr;
	uint32_t report_seq = e->egr.loss.report_seq;

	e->st.peer_restarts++;
	/* what is buffered goes out in order first */
	egr_reseq_reset(&e->egr.reseq);
	/* the counters start again (the peer's fresh ingress takes new
	 * baselines) but our report sequence goes on: were the restart a
	 * false alarm, the peer would ignore a sequence that went back */
	egr_loss_init(&e->egr.loss, gw->npaths);
	e->egr.loss.report_seq = report_seq;
	gw_egr_settle(gw);
}

/* The kernel's own drops for our queues, logged when they grow. */
void gw_check_kstats(struct gw *gw)
{
	struct {
		unsigned num;
		struct nfqueue_kstats *last;
		const char *name;
	} q[2] = {
		{gw->conf.ingress_queue, &gw->ing.kst, "ingress"},
		{gw->conf.egress_queue, &gw->egr.kst, "egress"},
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

int gw_egr_open(struct gw *gw)
{
	struct gw_egr *e = &gw->egr;
	struct nfqueue_opts o = {
		.copy_range = 0xffff,
		.maxlen = gw->conf.reseq.capacity + GW_EGR_QUEUE_EXTRA,
		.fail_open = false,
		.rcvbuf = GW_RCVBUF,
	};
	uint32_t i;
	int err;

	err = egr_init(&e->egr, &gw->conf.reseq, gw->npaths, release, gw);
	if (err) {
		gw_err(gw, "egress: %s", strerror(-err));
		return err;
	}
	e->egr_ok = true;
	/* paths come up as the peer is heard on them */
	for (i = 0; i < gw->npaths; i++) {
		egr_reseq_set_path_up(&e->egr.reseq, i, false);
	}
	e->nslots = gw->conf.reseq.capacity + 1;
	e->slot = malloc(sizeof(*e->slot) * e->nslots);
	e->free = malloc(sizeof(*e->free) * e->nslots);
	if (!e->slot || !e->free) {
		return -ENOMEM;
	}
	/* committed now: the memory the daemon uses does not grow with the
	 * depth the resequencer happens to reach later */
	gw_commit_mem(e->slot, sizeof(*e->slot) * e->nslots);
	for (i = 0; i < e->nslots; i++) {
		e->free[i] = e->nslots - 1 - i;
		e->slot[i].ext = NULL;
	}
	e->nfree = e->nslots;
	ev_timer_init(&e->reseq_timer, on_timer, 0., 0.);
	err = nfqueue_open(&e->q, gw->conf.egress_queue, &o);
	if (err) {
		gw_err(gw, "egress queue %u: %s%s", gw->conf.egress_queue,
		       strerror(-err),
		       err == -EBUSY ? " (bound by another process)" : "");
		return err;
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
		ev_timer_stop(gw->loop, &e->reseq_timer);
		nfqueue_close(&e->q);
	}
	if (e->egr_ok) {
		egr_free(&e->egr);
		e->egr_ok = false;
	}
	free(e->slot);
	free(e->free);
	e->slot = NULL;
	e->free = NULL;
}
