/* SPDX-License-Identifier: BSD-2-Clause */
/* Control messages on a link: built, sealed under the session keys and
 * sent; those received taken in.  REPORT carries the egress's loss
 * accounting to the peer's scheduler; PROBE and PROBE_ACK measure each
 * path's round trip (RFC 6298 smoothing, egress/lto.h: what operators
 * compare paths by, and one measurement of the reorder timeout) and keep
 * paths heard (link.c); NACK asks for copies of lost DATA (egress.c,
 * ingress.c); TRAIN and TRAIN_ACK measure a fixed line's rate before its
 * queue can (send_train; egress/train.h).
 */
#include <errno.h>
#include <sys/socket.h>

#include "gateway/control.h"
#include "gateway/gw.h"
#include "gateway/link.h"
#include "gateway/path.h"
#include "gateway/secure.h"
#include "gateway/session.h"

/* Builds a control packet, seals it under the session keys and sends it
 * on l's path to the link's peer.  gseq: the type's counter. */
int gw_send_ctrl(struct gw_sess *s, struct gw_link *l, uint8_t type,
		 uint32_t gseq, const uint8_t *body, size_t len,
		 uint64_t now_us)
{
	struct wire_hdr h = {
		.type = type,
		.path = (uint8_t)l->idx,
		.session = s->id,
		.gseq = gseq,
		.tstamp = (uint32_t)now_us,
	};
	uint8_t pkt[GW_CTRL_MAX];
	const struct sockaddr *to;
	socklen_t tolen;
	int n, fd, err;

	if (!gw_link_can_send(s, l)) {
		return -ENOTCONN;
	}
	n = gw_sec_next_pn(s, &h.pn);
	if (n) {
		return n;
	}
	n = wire_build(pkt, sizeof(pkt), &h, body, len);
	if (n < 0) {
		l->st.ctrl_errors++;
		return n;
	}
	gw_sec_seal(s, h.pn, pkt, pkt + WIRE_HDR_LEN, len,
		    pkt + WIRE_HDR_LEN + len);
	fd = gw_link_dst(s, l, &to, &tolen);
	err = gw_path_sendto(fd, pkt, (size_t)n, to, tolen, gw_link_src(l));
	if (err < 0) {
		l->st.ctrl_errors++;
		return err;
	}
	l->st.ctrl_tx++;
	gw_volume_count(&s->gw->vol, l->idx,
			gw_path_ip_len(&s->gw->path[l->idx], (size_t)n));
	return 0;
}

void gw_send_probe(struct gw_sess *s, struct gw_link *l, uint64_t now_us)
{
	/* the probed path in the id's low bits: an answer that comes back
	 * on another path still names it (gw_on_control) */
	struct wire_probe pr = {
		.id = (++s->probe_id << GW_PROBE_PATH_BITS) | l->idx,
		.value = s->sched.path[l->idx].last_gseq,
	};
	uint8_t pb[WIRE_PROBE_LEN];

	/* a path down for months: its floor stays within the serial window
	 * (a probe a quarter of it old is stale anyway) */
	if (l->have_floor &&
	    ((s->probe_id - l->probe_floor) & GW_PROBE_SEQ_MASK) >
		    GW_PROBE_SEQ_MASK / 4) {
		l->probe_floor = s->probe_id - GW_PROBE_SEQ_MASK / 4;
	}
	wire_put_probe(pb, sizeof(pb), &pr);
	/* a probe that cannot go out (the path's socket is gone) is one
	 * unanswered all the same; a path with no peer is not fed to its
	 * detector (it never answered: nothing to lose) */
	if (l->have_peer) {
		gw_link_probe_sent(s, l, now_us);
	}
	l->last_probe_us = now_us;
	gw_send_ctrl(s, l, WIRE_PROBE, pr.id, pb, sizeof(pb), now_us);
}

/* A fixed line's rate measured before it is learned (DESIGN.md, "The rate
 * learned"): n TRAINs back to back on l.  The peer times the second half's
 * arrival and answers with what arrived meanwhile.  A train cut short (the
 * socket refused a packet) gets no answer: it is not awaited. */
static void send_train(struct gw_sess *s, struct gw_link *l, unsigned n,
		       uint64_t now_us)
{
	struct wire_train t = {.id = l->train_id + 1, .count = (uint16_t)n};
	uint8_t body[GW_TRAIN_BODY];

	for (t.idx = 0; t.idx < t.count; t.idx++) {
		if (wire_put_train(body, sizeof(body), &t, sizeof(body)) < 0 ||
		    gw_send_ctrl(s, l, WIRE_TRAIN, t.id, body, sizeof(body),
				 now_us) < 0) {
			break;
		}
	}
	if (l->train_out) {
		l->st.train_lost++; /* the last one was never answered */
	}
	gw_sdbg(s, "path %s: train %u of %u packets sent%s",
		s->gw->conf.path[l->idx].name, t.id, n,
		t.idx == t.count ? "" : ", cut short");
	l->train_id = t.id;
	l->train_pkts = t.count;
	l->train_us = now_us;
	l->train_out = t.idx == t.count;
	l->train_tries++;
	l->st.trains++;
	s->gw->trains_sec++;
	ing_sched_train_sent(&s->sched, l->idx);
}

/* After each REPORT applied: a train on each fixed path whose rate is
 * still to be learned, sized to what it was fed since the last REPORT and
 * to what it delivered (ing_sched_train_due): measured before a TCP start
 * fills its buffer, which the queue's growth (learn_rate) sees a round
 * trip and reports later, when the DSL's 30-ms buffer has overflowed (a
 * cold single cubic download: 61-82 Mbit/s, the DSL dropping 20-156
 * packets of its slow start).  At most GW_TRAIN_TRIES a session,
 * GW_TRAIN_RETRY_MS apart, and GW_TRAIN_PER_SEC a second for the whole
 * daemon (a concentrator's thousands of CPEs after its restart). */
static void trains_due(struct gw_sess *s, uint64_t now_us)
{
	struct gw *gw = s->gw;

	if (now_us - gw->trains_sec_us >= 1000000) {
		gw->trains_sec_us = now_us;
		gw->trains_sec = 0;
	}
	for (unsigned i = 0; i < gw->npaths; i++) {
		struct gw_link *l = &s->link[i];
		unsigned n = ing_sched_train_due(&s->sched, i,
						 GW_TRAIN_BODY + WIRE_OVERHEAD);

		if (!n || l->train_tries >= GW_TRAIN_TRIES ||
		    gw->trains_sec >= GW_TRAIN_PER_SEC ||
		    (l->train_tries > 0 &&
		     now_us - l->train_us < GW_TRAIN_RETRY_MS * 1000ull)) {
			continue;
		}
		send_train(s, l, n, now_us);
	}
}

/* The peer's answer to our last train on l. */
static void on_train_ack(struct gw_sess *s, struct gw_link *l,
			 const struct wire_train_ack *a)
{
	double Bps;

	if (!l->train_out || a->id != l->train_id ||
	    a->count != l->train_pkts) {
		l->st.train_stale++;
		return;
	}
	l->train_out = false;
	Bps = a->dt_us >= GW_TRAIN_MIN_DT_US ? (double)a->bytes * 1e6 / a->dt_us
					      : 0;
	if (a->got < a->count - a->count / GW_TRAIN_MISS_DIV ||
	    !ing_sched_train_rate(&s->sched, l->idx, Bps, a->dt_us)) {
		l->st.train_refused++;
		gw_sdbg(s,
			"path %s: train %u refused: %u of %u arrived, %u bytes "
			"in %u us",
			s->gw->conf.path[l->idx].name, a->id, a->got, a->count,
			a->bytes, a->dt_us);
		return;
	}
	l->st.train_rates++;
	gw_sinfo(s,
		 "path %s: rate %.1f Mbit/s, measured by a train (%u bytes in "
		 "%u us)",
		 s->gw->conf.path[l->idx].name, Bps * 8e-6, a->bytes, a->dt_us);
}

void gw_on_train(struct gw_sess *s, struct gw_link *l,
		 const struct wire_train *t, uint64_t at_us, bool outer6,
		 uint64_t now_us)
{
	struct wire_train_ack a;
	uint8_t body[WIRE_TRAIN_ACK_LEN];

	if (!egr_train_rx(&l->train_rx, t, at_us, now_us, l->st.rx_bytes,
			  l->st.rx_pkts, outer6 ? GW_OUTER6_EXTRA : 0, &a)) {
		return;
	}
	if (wire_put_train_ack(body, sizeof(body), &a) > 0 &&
	    gw_send_ctrl(s, l, WIRE_TRAIN_ACK, t->id, body, sizeof(body),
			 now_us) == 0) {
		l->st.train_acks++;
	}
}

/* A REPORT measured fixed paths' rates (rate_auto): how, at debug level
 * (a few a second at most under load; the status keeps the last).  since:
 * the session's rate_learned before the REPORT. */
static void log_rates(const struct gw_sess *s, uint64_t since)
{
	for (unsigned i = 0; i < s->gw->npaths; i++) {
		const struct ing_rate_meas *r = ing_sched_rate_meas(&s->sched, i);

		if (!r || r->n <= since) {
			continue;
		}
		gw_sdbg(s,
			"path %s: rate %.1f Mbit/s (%s%s): sent %.1f, the peer "
			"counted %.1f Mbit/s, queue %.1f -> %.1f ms over %u "
			"ms, %u lost",
			s->gw->conf.path[i].name, r->got_Bps * 8e-6,
			ing_rate_rule_name(r->rule),
			r->capped ? ", halved at most" : "",
			r->sent_Bps * 8e-6, r->rx_Bps * 8e-6, r->q0_us / 1e3,
			r->q_us / 1e3, r->dt_ms, r->lost);
	}
}

void gw_on_control(struct gw_sess *s, struct gw_link *l,
		   const struct wire_msg *m, uint64_t now_us)
{
	uint8_t body[WIRE_PROBE_LEN];

	switch (m->hdr.type) {
	case WIRE_REPORT: {
		uint64_t learned = s->sched.st.rate_learned;
		uint64_t applied = s->sched.st.reports;

		ing_sched_on_report_at(&s->sched, m->hdr.gseq, &m->u.report,
				       now_us, m->hdr.tstamp);
		if (s->sched.st.rate_learned != learned) {
			log_rates(s, learned);
		}
		gw_ing_resend_on_report(s);
		/* what each path delivered: the detectors' answers */
		gw_links_on_report(s, &m->u.report, now_us);
		/* once a report: its copies on the other paths are stale */
		if (s->sched.st.reports != applied) {
			trains_due(s, now_us);
		}
		break;
	}
	case WIRE_TRAIN_ACK:
		on_train_ack(s, l, &m->u.train_ack);
		break;
	case WIRE_NACK:
		gw_ing_repair(s, &m->u.nack);
		break;
	case WIRE_PROBE: {
		struct wire_probe ack = {.id = m->u.probe.id,
					 .value = m->hdr.tstamp};
		unsigned i;

		wire_put_probe(body, sizeof(body), &ack);
		gw_send_ctrl(s, l, WIRE_PROBE_ACK, m->hdr.gseq, body,
			     sizeof(body), now_us);
		/* Our direction of l does not answer (suspect, down or
		 * held): the answer may die on it while the peer's direction
		 * works.  A copy on a path of ours that works tells the peer
		 * its direction of l carries (a path dead one way only). */
		if (ing_detect_usable(&l->det)) {
			break;
		}
		for (i = 0; i < s->gw->npaths; i++) {
			struct gw_link *o = &s->link[i];

			if (o != l && ing_detect_usable(&o->det)) {
				gw_send_ctrl(s, o, WIRE_PROBE_ACK, m->hdr.gseq,
					     body, sizeof(body), now_us);
				l->st.acks_across++;
				break;
			}
		}
		break;
	}
	case WIRE_PROBE_ACK: {
		unsigned probed = m->u.probe.id & GW_PROBE_PATH_MASK;
		uint32_t n = m->u.probe.id >> GW_PROBE_PATH_BITS, d;

		if (probed >= s->gw->npaths) {
			break;
		}
		/* The answer to a probe sent before the path turned suspect
		 * (the answer queued behind a deep buffer) proves the path
		 * worked then, not now, as a late acknowledgement of data
		 * does not (ingress/detect.h).  Probe numbers are serial in
		 * the id's upper bits. */
		d = (n - s->link[probed].probe_floor) & GW_PROBE_SEQ_MASK;
		if (s->link[probed].have_floor &&
		    (d == 0 || d > GW_PROBE_SEQ_MASK / 2)) {
			s->link[probed].st.acks_stale++;
			break;
		}
		if (&s->link[probed] != l) {
			/* the answer to a probe on another path, sent back on
			 * this one: that path carries our packets (an answer),
			 * but the round trip crossed two paths (no sample) */
			gw_link_on_probe_ack(s, &s->link[probed], now_us);
			break;
		}
		/* our own clock came back: no clock sync needed */
		l->rtt_us = (uint32_t)now_us - m->u.probe.value;
		egr_rtt_sample(&l->rtt, l->rtt_us);
		/* sparse flows take the path with the lowest RTT now */
		ing_sched_set_delay(&s->sched, (unsigned)(l - s->link),
				    l->rtt.srtt_us);
		gw_link_on_probe_ack(s, l, now_us);
		break;
	}
	default:
		break;
	}
}
