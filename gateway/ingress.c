/* SPDX-License-Identifier: BSD-2-Clause */
/* The ingress: the traffic to bond arrives on ingress_queue; each packet
 * is scheduled, encapsulated and sent on its path, and the original gets
 * NF_DROP.
 *
 * One drain takes up to GW_DRAIN packets from the queue; its batch holds
 * GW_BUDGET (a packet's fragments and copies take a slot each, and a
 * full batch is sent at once).  A packet handed over by
 * nfqueue_drain() lives in the netlink receive buffer only during the
 * callback, so its bytes are copied into buf[] (preallocated, one slot per
 * packet of the drain); the path batches point there.  After the drain:
 * one sendmmsg() per path, then the verdicts, in one netlink write.
 *
 * Inner packets are IPv4 or IPv6 (the ip6tables rules feed the same
 * queue).  The session: the CPE's own; on a concentrator, the one whose
 * CPE routes the destination (session.c).  No session for it (a rule matched an
 * address no CPE routes after a reload), no session keys yet, or no path
 * up (peer not heard from yet, or gone): NF_ACCEPT, the packet goes on
 * natively, counted by reason.  A packet too large for a slot also goes
 * natively (counted): with GSO off on the queue the kernel hands us segments,
 * so this only happens with an MTU above GW_INNER_MAX.
 */
#include <errno.h>
#include <linux/filter.h>
#include <netinet/icmp6.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gateway/gw.h"
#include "gateway/outer.h"
#include "gateway/path.h"
#include "gateway/secure.h"
#include "gateway/session.h"
#include "ingress/classify.h"
#include "ingress/mtu.h"

_Static_assert((int)MTU_FRAG_BUF == (int)GW_INNER_MAX,
	       "a fragment fits an inner slot");

/* Stamps and seals the messages of a batch as it goes: the timestamp is
 * the send time, so the time a packet spent in our drain behind the
 * others is not read by the peer as its path's queue (queue_msg). */
static void seal_batch(struct gw_path *p, uint64_t now_us)
{
	unsigned m;

	for (m = 0; m < p->nmsg; m++) {
		p->h[m].tstamp = (uint32_t)now_us;
		wire_put_hdr(p->hdr[m], &p->h[m]);
		/* over the header and our copy of the packet (encrypted in
		 * place with encrypt = true): no further copy */
		gw_sec_seal(p->sess[m], p->h[m].pn, p->hdr[m],
			    p->iov[m][1].iov_base, p->iov[m][1].iov_len,
			    p->tag[m]);
	}
}

static void send_batches(struct gw *gw)
{
	uint64_t now = gw_now_us();
	unsigned i, done;
	int n;

	for (i = 0; i < gw->npaths; i++) {
		struct gw_path *p = &gw->path[i];

		seal_batch(p, now);
		for (done = 0; done < p->nmsg; done += (unsigned)n) {
			struct gw_link *l;
			unsigned run = 1;

			/* a run of messages on the same socket (a
			 * concentrator's CPEs may use both families) */
			while (done + run < p->nmsg &&
			       p->mfd[done + run] == p->mfd[done]) {
				run++;
			}
			n = sendmmsg(p->mfd[done], p->msg + done, run,
				     MSG_DONTWAIT);
			if (n <= 0) {
				if (n < 0 && errno == EINTR) {
					n = 0;
					continue;
				}
				/* the datagram at done failed; the rest may
				 * still go.  The egress counts it as lost. */
				l = p->who[done];
				l->st.tx_errors++;
				l->st.tx_errno = errno;
				if (gw_ratelimit_ok(&gw->ing.rl,
						    gw->ing.now_us)) {
					gw_warn(gw, "path %s: send: %s",
						gw->conf.path[i].name,
						strerror(errno));
				}
				n = 1;
				continue;
			}
			for (int k = 0; k < n; k++) {
				uint32_t len =
					p->msg[done + (unsigned)k].msg_len;

				l = p->who[done + (unsigned)k];
				l->st.tx_pkts++;
				l->st.tx_bytes += len;
				gw_volume_count(&gw->vol, i,
						gw_path_ip_len(p, len));
			}
		}
		p->nmsg = 0;
	}
}

static void flush(struct gw *gw)
{
	struct gw_ing *ing = &gw->ing;

	send_batches(gw);
	/* The originals of what went through the tunnel: one batch verdict
	 * drops every packet still queued up to the drain's last id (ids
	 * rise in queue order).  The ones accepted natively in this drain
	 * already have their verdicts ahead of it in the same buffer. */
	if (ing->n &&
	    nfqueue_verdict_upto(&ing->q, ing->id[ing->n - 1], NFQ_DROP) < 0) {
		ing->st.verdict_errors++;
	}
	ing->n = 0;
	if (nfqueue_flush(&ing->q) < 0) {
		ing->st.verdict_errors++;
	}
}

static void accept_native(struct gw_ing *ing, uint32_t id)
{
	if (nfqueue_verdict(&ing->q, id, NFQ_ACCEPT, false, 0, NULL, 0) < 0) {
		ing->st.verdict_errors++;
	}
}

/* The original of a packet not sent (its reason counted): dropped. */
static void drop(struct gw_ing *ing, uint32_t id)
{
	if (nfqueue_verdict(&ing->q, id, NFQ_DROP, false, 0, NULL, 0) < 0) {
		ing->st.verdict_errors++;
	}
}

/* What bond() could not send of the original id: ret -ENOBUFS (the
 * overflow's AQM) drops it, any other lets it go natively. */
static void unbonded(struct gw_ing *ing, uint32_t id, int ret)
{
	if (ret == -ENOBUFS) {
		drop(ing, id);
	} else {
		accept_native(ing, id);
	}
}

/* A copy of m sent again: on the path the scheduler picks for it
 * (WIRE_F_RESENT, the original's gseq; repair: the lowest-delay path),
 * under a packet number of its own, sealed and sent at once like any
 * DATA, and kept in that path's store in turn.  Outside the ingress's
 * drain (from the resend timer, or a control packet): its batches are
 * empty. */
static int send_again(struct gw_sess *s, const struct ing_inflight_pkt *m,
		      const uint8_t *data, bool repair)
{
	uint64_t now = gw_now_us();
	/* m may be overwritten by the copy's own entry (the same path's
	 * store, full): its length is taken first */
	uint32_t len = m->len;
	struct wire_hdr h = {
		.type = WIRE_DATA,
		.session = s->id,
		.gseq = m->gseq,
		.fgap = m->fgap,
		.flags = m->flags,
		.cls = m->cls,
		.tstamp = (uint32_t)now,
	};
	uint8_t hdr[WIRE_HDR_LEN], tag[WIRE_TAG_LEN], buf[GW_INNER_MAX];
	struct iovec iov[3];
	struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 3};
	union gw_src_cmsg src;
	const struct sockaddr *to;
	struct gw_link *l;
	ssize_t n;
	int path, fd;

	if (len > sizeof(buf)) {
		return 0; /* cannot be: what is kept came from such a buffer */
	}
	if (gw_sec_next_pn(s, &h.pn) < 0) {
		return -ENOTCONN;
	}
	path = repair ? ing_sched_pick_repair(&s->sched, &h, len, now)
		      : ing_sched_pick_resend(&s->sched, &h, len, now);
	if (path < 0) {
		return path;
	}
	l = &s->link[path];
	memcpy(buf, data, len);
	gw_link_data_sent(s, l, h.lseq, now);
	ing_inflight_add(&s->infl, (unsigned)path, &h, buf, len);
	wire_put_hdr(hdr, &h);
	gw_sec_seal(s, h.pn, hdr, buf, len, tag);
	iov[0] = (struct iovec){.iov_base = hdr, .iov_len = sizeof(hdr)};
	iov[1] = (struct iovec){.iov_base = buf, .iov_len = len};
	iov[2] = (struct iovec){.iov_base = tag, .iov_len = sizeof(tag)};
	fd = gw_link_dst(s, l, &to, &msg.msg_namelen);
	msg.msg_name = (void *)(uintptr_t)to;
	gw_path_src(&msg, &src, gw_link_src(l), to->sa_family == AF_INET);
	n = sendmsg(fd, &msg, MSG_DONTWAIT);
	if (n < 0) {
		/* the survivor's socket is full: what is left waits for
		 * nothing better.  Its lseq is gone: the egress counts it
		 * lost on the survivor, as bond()'s failed sends (the
		 * survivor could not take it: congestion) */
		l->st.tx_errors++;
		l->st.tx_errno = errno;
		return -errno;
	}
	l->st.tx_pkts++;
	l->st.tx_bytes += (uint64_t)n;
	gw_volume_count(&s->gw->vol, l->idx,
			gw_path_ip_len(&s->gw->path[l->idx], (size_t)n));
	return 0;
}

/* ing_inflight_take's: a path turned suspect */
static int resend_one(void *ctx, const struct ing_inflight_pkt *m,
		      const uint8_t *data)
{
	return send_again(ctx, m, data, false);
}

/* ing_inflight_find's: the peer asked for it */
static int repair_one(void *ctx, const struct ing_inflight_pkt *m,
		      const uint8_t *data)
{
	return send_again(ctx, m, data, true);
}

void gw_ing_repair(struct gw_sess *s, const struct wire_nack *n)
{
	if (n->path >= s->gw->npaths) {
		s->ist.nack_bad_path++;
		return;
	}
	for (uint32_t i = 0; i < n->count; i++) {
		if (ing_inflight_find(&s->infl, n->path, n->lseq + i,
				      repair_one, s) < 0) {
			break; /* no path, or its socket is full */
		}
	}
}

/* What the paths that are not usable still keep goes again, as far as
 * the pace allows (ingress/inflight.h, ing_repace); the tick stops when
 * nothing is left.  A path usable again keeps its store: the peer's next
 * REPORT acknowledges what it got. */
static int refuse_copy(void *ctx, const struct ing_inflight_pkt *m,
		       const uint8_t *data)
{
	(void)ctx;
	(void)m;
	(void)data;
	return -1;
}

static void resend_paced(struct gw_sess *s, uint64_t now)
{
	bool abandon = ing_repace_abandon(&s->repace, now);
	uint64_t b0 = ing_repace_budget(&s->repace, now), b = b0;
	bool left = false;
	unsigned i;

	for (i = 0; i < s->gw->npaths; i++) {
		if (ing_detect_usable(&s->link[i].det) ||
		    ing_inflight_count(&s->infl, i) == 0) {
			continue;
		}
		if (abandon) {
			/* stopped too long: past use, dropped (untaken) */
			ing_inflight_take(&s->infl, i, NULL, refuse_copy, s);
			continue;
		}
		ing_inflight_take(&s->infl, i, &b, resend_one, s);
		left = left || ing_inflight_count(&s->infl, i) > 0;
	}
	ing_repace_spent(&s->repace, b0 - b);
	if (!left) {
		ing_repace_stop(&s->repace);
		ev_timer_stop(s->gw->loop, &s->resend_timer);
	}
}

static void on_resend_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	resend_paced(container_of(w, struct gw_sess, resend_timer),
		     gw_now_us());
}

/* on_link_suspect: what the suspect path carried since its last
 * acknowledgement goes again on the others, at a pace */
void gw_ing_resend(struct gw_sess *s, struct gw_link *l)
{
	uint64_t now = gw_now_us();

	if (ing_inflight_count(&s->infl, l->idx) == 0) {
		return;
	}
	ing_repace_start(&s->repace, ing_inflight_bytes(&s->infl, l->idx),
			 now);
	if (!ev_is_active(&s->resend_timer)) {
		ev_timer_again(s->gw->loop, &s->resend_timer);
	}
}

/* A REPORT from the peer: the survivors' queue, as the scheduler just
 * measured it, sets the pace. */
void gw_ing_resend_on_report(struct gw_sess *s)
{
	uint64_t hold = (uint64_t)s->gw->conf.sched.t_report_ms * 1000;
	uint32_t rtt = 0;
	unsigned i;

	if (!s->repace.active) {
		return;
	}
	/* a halving shows in the reports a round trip and a report later */
	for (i = 0; i < s->gw->npaths; i++) {
		if (ing_detect_usable(&s->link[i].det) &&
		    s->link[i].rtt.srtt_us > rtt) {
			rtt = s->link[i].rtt.srtt_us;
		}
	}
	ing_repace_on_report(&s->repace, ing_sched_queue_us(&s->sched),
			     s->gw->conf.sched.queue_target_us, gw_now_us(),
			     hold + rtt);
}

void gw_ing_resend_open(struct gw_sess *s)
{
	s->repace = (struct ing_repace){0};
	ev_timer_init(&s->resend_timer, on_resend_timer, 0.,
		      ING_REPACE_TICK_US / 1e6);
}

void gw_ing_resend_close(struct gw_sess *s)
{
	ev_timer_stop(s->gw->loop, &s->resend_timer);
	ing_repace_stop(&s->repace);
}

/* Queues the packet h describes (h->path's, sequence numbers taken) in
 * the drain's batch of its path: a slot of our own copy of data, stamped
 * and sealed in place when the batch goes (seal_batch); kept for sending
 * again when keep (not a redundant copy: its original is). */
static void queue_msg(struct gw *gw, struct gw_sess *s, struct wire_hdr *h,
		      uint32_t id, const uint8_t *data, size_t len, bool keep)
{
	struct gw_ing *ing = &gw->ing;
	const struct sockaddr *to;
	struct gw_link *l = &s->link[h->path];
	struct gw_path *p = &gw->path[h->path];
	unsigned slot = ing->n++, m;

	ing->id[slot] = id;
	memcpy(ing->buf[slot], data, len);
	gw_link_data_sent(s, l, h->lseq, ing->now_us);
	/* kept for sending again before the seal encrypts it in place (a
	 * packet the store refuses is counted there and goes all the
	 * same) */
	if (keep) {
		ing_inflight_add(&s->infl, h->path, h, ing->buf[slot],
				 (uint32_t)len);
	}
	m = p->nmsg++;
	p->who[m] = l;
	p->sess[m] = s;
	p->h[m] = *h;
	p->iov[m][0].iov_base = p->hdr[m];
	p->iov[m][0].iov_len = WIRE_HDR_LEN;
	p->iov[m][1].iov_base = ing->buf[slot];
	p->iov[m][1].iov_len = len;
	p->iov[m][2].iov_base = p->tag[m];
	p->iov[m][2].iov_len = WIRE_TAG_LEN;
	memset(&p->msg[m], 0, sizeof(p->msg[m]));
	p->mfd[m] = gw_link_dst(s, l, &to, &p->msg[m].msg_hdr.msg_namelen);
	p->msg[m].msg_hdr.msg_name = (void *)(uintptr_t)to;
	p->msg[m].msg_hdr.msg_iov = p->iov[m];
	p->msg[m].msg_hdr.msg_iovlen = 3;
	gw_path_src(&p->msg[m].msg_hdr, &p->src[m], gw_link_src(l),
		    to->sa_family == AF_INET);
}

/* Whether class ci (CLS_MAX: the default) sends copies on every path. */
static bool redundant(const struct gw *gw, unsigned ci)
{
	return ci < CLS_MAX && gw->conf.class[ci].mode == CLASS_REDUNDANT;
}

/* Room in this drain's batch for n packets of class ci and their copies:
 * a flush between a packet and its copies (or its fragments) would give
 * the original its verdict before they are all queued. */
static void room_for(struct gw *gw, unsigned n, unsigned ci)
{
	if (gw->ing.n + n * (redundant(gw, ci) ? gw->npaths : 1) > GW_BUDGET) {
		flush(gw);
	}
}

/* A redundant class's copies of the packet h describes (sent on h->path)
 * on every other path that is up and not a backup (nor one whose data
 * budget is spent): the same global sequence, flagged WIRE_F_DUP; the
 * egress keeps the first to arrive. */
static void copies(struct gw *gw, struct gw_sess *s, const struct wire_hdr *h,
		   uint32_t id, const uint8_t *data, size_t len, unsigned ci)
{
	unsigned q;

	for (q = 0; q < gw->npaths; q++) {
		struct wire_hdr c = *h;

		if (q == h->path || s->sched.path[q].cls == PATH_BACKUP ||
		    !s->sched.path[q].up) {
			continue;
		}
		/* the caller made room for them (room_for); a packet cut in
		 * more fragments than a batch holds with its copies goes
		 * with fewer, counted */
		if (gw->ing.n == GW_BUDGET) {
			s->ist.copies_skipped++;
			continue;
		}
		if (gw_sec_next_pn(s, &c.pn) < 0 ||
		    ing_sched_pick_copy(&s->sched, &c, q, (uint32_t)len) < 0) {
			continue;
		}
		s->cls[ci].pkts[q]++;
		s->cls[ci].bytes[q] += len;
		queue_msg(gw, s, &c, id, data, len, false);
	}
}

/* Queues one inner packet (len bytes at data, the original under id) of
 * traffic class ci (CLS_MAX: the default) on the path the scheduler picks
 * (a class in mode flow: its flow's path, ing_sched_pick_sticky), or on
 * path on when it is up (>= 0: the fragments of one packet go together, a
 * pinned class, ing_sched_pick_flow_on).  The path; -ENOBUFS when the
 * overflow's AQM drops it (counted by the scheduler, aqm_drops: the
 * caller drops the original); or -1 with the reason counted when it
 * cannot be bonded now (the caller lets the original go natively). */
static int bond(struct gw *gw, struct gw_sess *s, uint32_t id,
		const uint8_t *data, size_t len, int on, unsigned ci)
{
	struct gw_ing *ing = &gw->ing;
	struct wire_hdr h = {0};
	uint32_t hash;
	int path;

	if (ing->n == GW_BUDGET) {
		flush(gw);
	}
	/* a packet number first: a path's sequence must not skip one for a
	 * packet that was never sent */
	if (gw_sec_next_pn(s, &h.pn) < 0) {
		s->ist.no_session++;
		return -1;
	}
	hash = ing_flow_hash(data, len, gw->flow_seed);
	if (on < 0 && ci < CLS_MAX && gw->conf.class[ci].mode == CLASS_FLOW) {
		path = ing_sched_pick_sticky(&s->sched, &h, hash, (uint32_t)len,
					     ing->now_us);
	} else {
		path = ing_sched_pick_flow_on(&s->sched, &h, hash,
					      (uint32_t)len, ing->now_us, on);
	}
	if (path == -ENOBUFS) {
		return path;
	}
	if (path < 0) {
		s->ist.no_path++;
		return -1;
	}
	h.type = WIRE_DATA;
	h.session = s->id;
	/* h.tstamp: the send time, written by seal_batch */
	/* the class's number in our config, 1-based (0: the default) */
	h.cls = ci < CLS_MAX ? (uint8_t)(ci + 1) : 0;
	s->cls[ci].pkts[path]++;
	s->cls[ci].bytes[path] += len;
	queue_msg(gw, s, &h, id, data, len, true);
	if (redundant(gw, ci)) {
		copies(gw, s, &h, id, data, len, ci);
	}
	s->ist.bonded++;
	return path;
}

/* The largest inner packet that goes as it is.  IPv6 promises 1280 bytes
 * on every link (RFC 8200 5) and a host takes a smaller packet-too-big as
 * 1280 anyway: on paths too small for that, IPv6 packets up to 1280 go,
 * in fragmented outer packets (IP_PMTUDISC_DONT on the path sockets). */
static uint16_t inner_max(const struct gw *gw, bool v6)
{
	return v6 && gw->inner_max < 1280 ? 1280 : gw->inner_max;
}

/* At most GW_ICMP_PER_S frag-needed messages a second, as the kernel
 * limits its own: a flood of large DF packets is not answered in kind. */
static bool icmp_ok(struct gw *gw)
{
	struct gw_ratelimit *rl = &gw->icmp_rl;

	if (gw->ing.now_us - rl->window_us >= 1000000) {
		rl->window_us = gw->ing.now_us;
		rl->n = 0;
	}
	return ++rl->n <= GW_ICMP_PER_S;
}

/* The slot of an IPv6 (source, destination) pair in the told table. */
static struct gw_told *told_slot(struct gw_ing *ing, const uint8_t *pkt)
{
	uint32_t h = 2166136261u;
	unsigned i;

	for (i = 8; i < 40; i++) { /* both addresses: FNV-1a */
		h = (h ^ pkt[i]) * 16777619u;
	}
	return &ing->told[h % GW_TOLD];
}

/* An IPv6 packet too large whose source we told already (packet too big
 * sent within GW_TOLD_S): it is most likely the source's fragments,
 * sized as we told it, that connection tracking reassembled before our
 * queue (nf_defrag_ipv6 runs before any hook we can capture in, and the
 * queue does not say that a packet was reassembled).  The kernel would
 * fragment such a packet again when forwarding it (frag_max_size); we
 * send it whole and let the path socket fragment the outer packet
 * (IP_PMTUDISC_DONT), which the peer reassembles.  Answering it with
 * packet too big again would black-hole a source that did what it was
 * told.  A source that ignores the message gets the same: through,
 * in outer fragments. */
static bool told_before(struct gw *gw, const uint8_t *pkt)
{
	struct gw_told *t = told_slot(&gw->ing, pkt);

	return t->at_us && gw->ing.now_us - t->at_us < GW_TOLD_S * 1000000ULL &&
	       !memcmp(t->src, pkt + 8, 16) && !memcmp(t->dst, pkt + 24, 16);
}

static void told_now(struct gw *gw, const uint8_t *pkt)
{
	struct gw_told *t = told_slot(&gw->ing, pkt);

	memcpy(t->src, pkt + 8, 16);
	memcpy(t->dst, pkt + 24, 16);
	t->at_us = gw->ing.now_us ? gw->ing.now_us : 1;
}

/* Too large for the tunnel with DF set (IPv6: always, routers never
 * fragment it): dropped, and the sender told the size that passes (RFC
 * 1191, RFC 8201), so that its path MTU discovery works through the bond
 * instead of black-holing. */
static void frag_needed(struct gw *gw, const struct nfqueue_pkt *pk,
			uint16_t max)
{
	struct gw_ing *ing = &gw->ing;
	struct sockaddr_in to = {.sin_family = AF_INET};
	struct sockaddr_in6 to6 = {.sin6_family = AF_INET6};
	bool v6 = pk->data[0] >> 4 == 6;
	uint8_t msg[MTU_ICMP6_MAX > MTU_ICMP4_MAX ? MTU_ICMP6_MAX
						  : MTU_ICMP4_MAX];
	int n, fd = v6 ? gw->icmp6_fd : gw->icmp_fd;

	drop(ing, pk->id);
	if (fd < 0) {
		n = -EBADF;
	} else if (v6) {
		n = mtu_icmp6_too_big(pk->data, pk->len, max, msg, sizeof(msg));
	} else {
		n = mtu_icmp4_frag_needed(pk->data, pk->len, max, msg,
					  sizeof(msg));
	}
	if (n < 0 || !icmp_ok(gw)) {
		/* an ICMP error itself, a broadcast source, ... */
		ing->st.too_big_mute++;
		return;
	}
	memcpy(&to.sin_addr, pk->data + 12, 4);
	memcpy(&to6.sin6_addr, pk->data + 8, 16);
	if (sendto(fd, msg, (size_t)n, MSG_DONTWAIT,
		   v6 ? (const struct sockaddr *)&to6
		      : (const struct sockaddr *)&to,
		   v6 ? sizeof(to6) : sizeof(to)) < 0) {
		ing->st.icmp_errors++;
		return;
	}
	if (v6) {
		told_now(gw, pk->data);
	}
	ing->st.too_big++;
}

/* Too large for the tunnel without DF: fragmented here (RFC 791), each
 * fragment bonded as a packet of its own; the receiver reassembles. */
static void fragment(struct gw *gw, struct gw_sess *s,
		     const struct nfqueue_pkt *pk, int on, unsigned ci)
{
	struct gw_ing *ing = &gw->ing;
	uint8_t frag[GW_FRAG_MAX][MTU_FRAG_BUF];
	size_t len[GW_FRAG_MAX];
	int n, i, path = on;

	n = mtu_frag4(pk->data, pk->len, gw->inner_max, frag, len, GW_FRAG_MAX);
	if (n <= 0) {
		ing->st.unfit++;
		accept_native(ing, pk->id);
		return;
	}
	room_for(gw, (unsigned)n, ci);
	for (i = 0; i < n; i++) {
		path = bond(gw, s, pk->id, frag[i], len[i], path, ci);
		if (path < 0) {
			if (!i) {
				/* the AQM drops the whole packet: the rest
				 * follow the first fragment's path */
				unbonded(ing, pk->id, path);
				return;
			}
			/* cannot happen: the first one went a moment ago;
			 * the rest is lost with the original */
			break;
		}
	}
	ing->st.fragmented++;
}

/* The traffic class of an inner packet (ingress/classify.h; CLS_MAX: the
 * default) and the path its mode wants (-1: the scheduler's pick).  false:
 * it is not bonded (bypass: let go natively; a pin without fallback whose
 * path is not up: dropped), counted. */
static bool classify(struct gw *gw, struct gw_sess *s,
		     const struct nfqueue_pkt *pk, unsigned *ci, int *on)
{
	const struct conf_class *c;
	int k;

	*ci = CLS_MAX;
	*on = -1;
	if (!gw->conf.nclasses) {
		return true;
	}
	k = cls_classify(gw->cls_m, gw->conf.nclasses, pk->data, pk->len);
	if (k < 0) {
		return true;
	}
	*ci = (unsigned)k;
	c = &gw->conf.class[k];
	switch (c->mode) {
	case CLASS_BYPASS:
		s->cls[k].bypassed++;
		accept_native(&gw->ing, pk->id);
		return false;
	case CLASS_PIN:
		if (s->sched.path[c->path].up) {
			*on = c->path;
		} else if (!c->fallback) {
			s->cls[k].drops++;
			drop(&gw->ing, pk->id);
			return false;
		}
		return true;
	case CLASS_LOWEST_DELAY:
		*on = ing_sched_lowest_delay(&s->sched);
		return true;
	default:
		return true;
	}
}

void gw_ing_classes(struct gw *gw)
{
	unsigned i;

	for (i = 0; i < gw->conf.nclasses; i++) {
		gw->cls_m[i] = gw->conf.class[i].m;
	}
}

static void on_packet(void *ctx, const struct nfqueue_pkt *pk)
{
	struct gw *gw = ctx;
	struct gw_ing *ing = &gw->ing;
	struct gw_sess *s;
	unsigned ci;
	uint32_t dst;
	int on, ret;
	bool v6;

	/* The clock per packet, not per drain: the scheduler's pace and
	 * flows run on it (h.tstamp, what the peer reads this path's delay
	 * from, is the send time: seal_batch). */
	ing->now_us = gw_now_us();
	ing->st.pkts++;
	v6 = pk->len && pk->data[0] >> 4 == 6;
	if (pk->len > GW_INNER_MAX || pk->len != pk->orig_len ||
	    pk->len < (v6 ? 40u : WIRE_MIN_INNER) ||
	    (pk->data[0] >> 4 != 4 && !v6)) {
		ing->st.unfit++;
		accept_native(ing, pk->id);
		return;
	}
	if (v6) {
		s = gw_sess_by_addr6(gw, pk->data + 24);
	} else {
		memcpy(&dst, pk->data + 16, 4);
		s = gw_sess_by_addr(gw, dst);
	}
	if (!s) {
		ing->st.no_cpe++;
		accept_native(ing, pk->id);
		return;
	}
	if (!classify(gw, s, pk, &ci, &on)) {
		return;
	}
	if (pk->len > inner_max(gw, v6)) {
		switch (mtu_check(pk->data, pk->len, inner_max(gw, v6))) {
		case MTU_FRAG_NEEDED:
			if (v6 && told_before(gw, pk->data)) {
				break;
			}
			frag_needed(gw, pk, inner_max(gw, v6));
			return;
		case MTU_FRAGMENT:
			fragment(gw, s, pk, on, ci);
			return;
		default:
			ing->st.unfit++;
			accept_native(ing, pk->id);
			return;
		}
	}
	room_for(gw, 1, ci);
	ret = bond(gw, s, pk->id, pk->data, pk->len, on, ci);
	if (ret < 0) {
		unbonded(ing, pk->id, ret);
	} else if (pk->len > inner_max(gw, v6)) {
		ing->st.outer_frag++;
	}
}

static void drain_once(struct gw *gw, int *got)
{
	struct gw_ing *ing = &gw->ing;

	ing->now_us = gw_now_us();
	*got = nfqueue_drain(&ing->q, GW_DRAIN, on_packet, gw);
	flush(gw);
}

static void on_readable(struct ev_loop *loop, ev_io *w, int revents)
{
	struct gw *gw = container_of(w, struct gw, ing.io);
	int got;

	(void)loop;
	(void)revents;
	drain_once(gw, &got);
	if (got < 0) {
		gw_err(gw, "ingress queue %u: %s", gw_ingress_queue(gw),
		       strerror(-got));
	}
}

/* Shutdown: take what is still queued (rules are gone by then). */
void gw_ing_drain_all(struct gw *gw)
{
	int got, rounds = 0;

	do {
		drain_once(gw, &got);
	} while (got > 0 && ++rounds < 1000);
}

/* The raw sockets of frag-needed (ICMP) and packet-too-big (ICMPv6)
 * messages.  They would also receive a copy of every ICMP packet the box
 * gets: a filter that takes none keeps their buffers empty (ICMPv6 also
 * blocks every type: ICMP6_FILTER).  The kernel fills in the ICMPv6
 * checksum.  -1 (warned) if one cannot be had: too-big packets of its
 * family are then dropped without an answer (counted). */
static int icmp_open(struct gw *gw, bool v6)
{
	struct sock_filter none[] = {BPF_STMT(BPF_RET | BPF_K, 0)};
	struct sock_fprog prog = {.len = 1, .filter = none};
	struct icmp6_filter f6;
	int fd;

	fd = socket(v6 ? AF_INET6 : AF_INET,
		    SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP);
	if (fd < 0) {
		gw_warn(gw,
			"%s socket: %s: packets too large for the "
			"tunnel%s are dropped unanswered",
			v6 ? "ICMPv6" : "ICMP", strerror(errno),
			v6 ? " (IPv6)" : " with DF set");
		return -1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) <
	    0) {
		gw_warn(gw, "ICMP socket filter: %s", strerror(errno));
	}
	if (v6) {
		ICMP6_FILTER_SETBLOCKALL(&f6);
		setsockopt(fd, IPPROTO_ICMPV6, ICMP6_FILTER, &f6, sizeof(f6));
	}
	return fd;
}

int gw_ing_open(struct gw *gw)
{
	struct gw_ing *ing = &gw->ing;
	struct nfqueue_opts o = {
		.copy_range = 0xffff,
		.maxlen = 4096,
		.fail_open = false,
		.rcvbuf = GW_RCVBUF,
	};
	int err;

	ing->buf = malloc(sizeof(*ing->buf) * GW_BUDGET);
	if (!ing->buf) {
		return -ENOMEM;
	}
	gw->icmp_fd = icmp_open(gw, false);
	gw->icmp6_fd = icmp_open(gw, true);
	gw_commit_mem(ing->buf, sizeof(*ing->buf) * GW_BUDGET);
	err = nfqueue_open(&ing->q, gw_ingress_queue(gw), &o);
	if (err) {
		gw_err(gw, "ingress queue %u: %s%s", gw_ingress_queue(gw),
		       strerror(-err),
		       err == -EBUSY ? " (bound by another process)" : "");
		free(ing->buf);
		ing->buf = NULL;
		return err;
	}
	ev_io_init(&ing->io, on_readable, nfqueue_fd(&ing->q), EV_READ);
	ev_io_start(gw->loop, &ing->io);
	return 0;
}

void gw_ing_close(struct gw *gw)
{
	struct gw_ing *ing = &gw->ing;

	if (ing->q.nl) {
		ev_io_stop(gw->loop, &ing->io);
		nfqueue_close(&ing->q);
	}
	free(ing->buf);
	ing->buf = NULL;
	if (gw->icmp_fd >= 0) {
		close(gw->icmp_fd);
		gw->icmp_fd = -1;
	}
	if (gw->icmp6_fd >= 0) {
		close(gw->icmp6_fd);
		gw->icmp6_fd = -1;
	}
}
