/* SPDX-License-Identifier: BSD-2-Clause */
/* Every counter and state of the daemon as one walk (stats.h).
 *
 * The order is fixed and is the contract of the renderers: daemon scope,
 * then per session its session, ingress and egress scopes and its paths,
 * each path's values together, and the values of one labelled name
 * ("wire" by reason, "ctrl" by type) one after the other.  Text values
 * live in buffers of this walk: a consumer that keeps one copies it.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "gateway/gw.h"
#include "gateway/outer.h"
#include "gateway/session.h"
#include "gateway/stats.h"

struct walker {
	gw_stat_fn *fn;
	void *arg;
	struct gw_stat st; /* scope, session and path of what comes next */
};

static void emit(struct walker *w, enum gw_stat_type type, const char *name,
		 const char *help)
{
	w->st.type = type;
	w->st.name = name;
	w->st.help = help;
	w->fn(w->arg, &w->st);
	w->st.label = NULL;
	w->st.label_value = NULL;
	w->st.is_float = false;
	w->st.u = 0;
	w->st.d = 0;
	w->st.text = NULL;
}

static void counter(struct walker *w, const char *name, const char *help,
		    uint64_t v)
{
	w->st.u = v;
	emit(w, GW_STAT_COUNTER, name, help);
}

static void gauge(struct walker *w, const char *name, const char *help,
		  uint64_t v)
{
	w->st.u = v;
	emit(w, GW_STAT_GAUGE, name, help);
}

static void gauge_f(struct walker *w, const char *name, const char *help,
		    double v)
{
	w->st.is_float = true;
	w->st.d = v;
	emit(w, GW_STAT_GAUGE, name, help);
}

static void text(struct walker *w, const char *name, const char *help,
		 const char *v)
{
	w->st.text = v;
	emit(w, GW_STAT_TEXT, name, help);
}

static void labelled(struct walker *w, const char *name, const char *help,
		     const char *label, const char *value, uint64_t v)
{
	w->st.label = label;
	w->st.label_value = value;
	counter(w, name, help, v);
}

/* A traffic class's name: the config's, or "default" (CLS_MAX). */
static const char *class_name(const struct gw *gw, unsigned c)
{
	return c < gw->conf.nclasses ? gw->conf.class[c].name : "default";
}

/* The classes of the config and the default one, in that order: c runs
 * over 0..nclasses - 1, then CLS_MAX. */
static unsigned next_class(const struct gw *gw, unsigned c)
{
	return c + 1 < gw->conf.nclasses ? c + 1
	       : c < CLS_MAX		 ? CLS_MAX
					 : CLS_MAX + 1;
}
#define FOR_CLASS(gw, c)                                                      \
	for ((c) = (gw)->conf.nclasses ? 0 : CLS_MAX; (c) <= CLS_MAX;         \
	     (c) = next_class((gw), (c)))

static void walk_daemon(struct gw *gw, struct walker *w)
{
	w->st.scope = GW_SCOPE_DAEMON;
	text(w, "role", "the daemon's role: cpe or concentrator",
	     conf_role_name(gw->conf.role));
	gauge(w, "uptime_ms", "time since the daemon started, ms",
	      (gw_now_us() - gw->start_us) / 1000);
	gauge(w, "start_ms",
	      "start-up: from reading the config to ready (READY=1), ms",
	      gw->start_ms);
	gauge(w, "cpes", "sessions configured (a CPE: 1)",
	      gw->stats_from_workers ? gw->conf.ncpes : gw->nsess);
	counter(w, "reloads", "reloads applied (SIGHUP, l3bondctl reload)",
		gw->reloads);
	counter(w, "reloads_refused",
		"reloads refused: the old configuration kept",
		gw->reloads_refused);
	gauge(w, "reload_ms",
	      "the last reload applied: from reading the config to done, ms",
	      gw->reload_ms);
	gauge(w, "workers", "worker processes (a concentrator's workers)",
	      gw->nworkers > 1 ? gw->nworkers : 1);
	gauge(w, "workers_up", "worker processes running",
	      gw->stats_from_workers ? gw->workers_up : 1);
	counter(w, "worker_restarts",
		"workers started again after they died (their CPEs "
		"handshake again)",
		gw->worker_restarts);
}

static void walk_session(struct gw_sess *se, struct walker *w)
{
	const struct gw *gw = se->gw;
	const struct ing_sched *s = &se->sched;
	const struct egr_reseq_params *rp = &se->egr.reseq.p;
	const struct gw_sec *ss = &se->sec;

	w->st.scope = GW_SCOPE_SESSION;
	gauge(w, "session", "session id carried in every tunnel packet",
	      se->id);
	text(w, "session_state",
	     "up: session keys agreed with the peer; none: not yet",
	     ss->have_keys ? "up" : "none");
	counter(w, "handshakes",
		"sessions established (the first, and one per peer restart)",
		ss->st.handshakes);
	counter(w, "hellos",
		"HELLOs sent (CPE) or authentic HELLOs received "
		"(concentrator)",
		ss->st.hellos);
	counter(w, "rekeys",
		"new handshakes after the concentrator lost the session (CPE)",
		ss->st.rekeys);
	/* the CPE's list of concentrators (peers.h); each path's peer shows
	 * the address in use */
	gauge(w, "peer_entry",
	      "the entry of peers in use, 0: the first (CPE)", se->peers.cur);
	counter(w, "peer_moves",
		"moves to another entry of peers, down or back (CPE)",
		se->peers.st.moves);
	counter(w, "peer_returns",
		"of which back to the first, which answered again (CPE)",
		se->peers.st.returns);
	counter(w, "peer_acks_other",
		"HELLO_ACKs from an entry of peers not in use: dropped (CPE)",
		se->peers.st.acks_other);
	gauge(w, "tx_pn", "packet number of the next packet sent", ss->tx_pn);
	counter(w, "pn_exhausted",
		"packets not sent: packet numbers used up (new session)",
		ss->st.pn_exhausted);
	gauge(w, "encrypt", "1: packets encrypted, 0: authenticated only",
	      ss->mode == AUTH_ENCRYPT);
	/* the tunables as applied, not as the file says */
	gauge_f(w, "k", "AWI steepness k", s->p.k);
	gauge(w, "t_dwd_ms", "loss-free time before a DWD step, ms",
	      s->p.t_dwd_ms);
	gauge(w, "t_report_ms", "report interval of the egress, ms",
	      s->p.t_report_ms);
	gauge_f(w, "w_fixed", "SWRR weight of each fixed path", s->p.w_fixed);
	gauge_f(w, "w_mobile_max", "upper bound of the mobile weight",
		s->p.w_mobile_max);
	gauge(w, "queue_target_ms",
	      "a fixed path's standing queue over this is congestion (0: "
	      "loss only), ms",
	      s->p.queue_target_us / 1000);
	gauge(w, "rate_auto",
	      "1: a fixed path's rate is learned from its standing queue and "
	      "paced (pace_kbps)",
	      s->p.rate_auto);
	gauge(w, "mobile_aqm_ms",
	      "bulk packets that overflow to a mobile path whose standing "
	      "queue stays over this are dropped (aqm_drops; 0: never), ms",
	      s->p.mobile_aqm_us / 1000);
	gauge(w, "t_lto_ms",
	      "longest wait for a hole in the sequence (the adaptive "
	      "timeout's maximum), ms",
	      gw->conf.reseq.t_lto_us / 1000);
	gauge(w, "early_release",
	      "1: holes known lost are given up at once, 0: after t_lto",
	      rp->early_release);
	gauge(w, "repair_queue_ms",
	      "a path's loss under at most this much queue is asked for "
	      "again (0: never), ms",
	      rp->repair_queue_us / 1000);
	gauge(w, "probe_interval_ms", "PROBE interval per path, ms",
	      gw->conf.probe_interval_ms);
	gauge(w, "dead_after_ms",
	      "a path unanswered for this long is down, ms",
	      gw->conf.dead_after_ms);
	gauge(w, "idle_probe_ms",
	      "PROBE interval of a path with no data (the CPE's), ms",
	      gw->conf.idle_probe_ms);
	text(w, "log_level", "messages of this level and above are logged",
	     conf_log_level_name(gw->log_level));
	gauge_f(w, "w_mobile",
		"mobile weight now, shared by the mobile paths that are up",
		s->w_mobile);
	gauge(w, "gseq", "next global sequence number to send", s->gseq);
	gauge(w, "t_lto_eff_us",
	      "reorder timeout in use: the live paths' delay spread plus a "
	      "margin, at most t_lto_ms, and not below t_lto_floor_us, us",
	      rp->t_lto_us);
	gauge(w, "t_lto_floor_us",
	      "the reorder timeout's floor: the wait late packets would have "
	      "needed plus a margin, at most t_lto_ms, decays (halved in "
	      "about 35 s), us",
	      se->egr.lto_floor_us);
}

/* The ingress queue's own values, for all sessions. */
static void walk_ingress_queue(struct gw *gw, struct walker *w)
{
	const struct gw_ing_stats *is = &gw->ing.st;

	w->st.scope = GW_SCOPE_INGRESS;
	w->st.global = true;
	counter(w, "pkts", "packets taken from the ingress queue, packets",
		is->pkts);
	counter(w, "no_cpe",
		"packets accepted natively: no CPE routes the destination, "
		"packets",
		is->no_cpe);
	counter(w, "unfit",
		"packets accepted natively: truncated, tiny or too large, "
		"packets",
		is->unfit);
	counter(w, "verdict_errors", "ingress verdicts the kernel refused",
		is->verdict_errors);
	gauge(w, "inner_max",
	      "largest inner packet every path carries once encapsulated, "
	      "bytes",
	      gw->inner_max);
	gauge(w, "mss", "TCP MSS the rules clamp bonded SYNs to, bytes",
	      gw->mss);
	counter(w, "too_big",
		"packets too large for the tunnel with DF (IPv6: any): "
		"dropped, ICMP fragmentation needed (ICMPv6 packet too big) "
		"sent back, packets",
		is->too_big);
	counter(w, "too_big_mute",
		"packets too large for the tunnel with DF (IPv6: any): "
		"dropped without ICMP (not to be answered, or over the rate "
		"limit), packets",
		is->too_big_mute);
	counter(w, "outer_frag",
		"IPv6 packets too large for the tunnel whose source was "
		"already told (its fragments, reassembled by conntrack): sent "
		"in fragmented outer packets, packets",
		is->outer_frag);
	counter(w, "icmp_errors", "ICMP messages the socket refused",
		is->icmp_errors);
	counter(w, "fragmented",
		"packets too large for the tunnel without DF: fragmented "
		"before encapsulation, packets",
		is->fragmented);
	counter(w, "kernel_dropped",
		"packets the kernel dropped: ingress queue full, packets",
		gw->ing.kst.queue_dropped);
	counter(w, "kernel_user_dropped",
		"packets the kernel could not hand to the daemon (netlink "
		"buffer full), packets",
		gw->ing.kst.user_dropped);
	w->st.global = false;
}

static void walk_ingress(struct gw_sess *se, struct walker *w)
{
	const struct gw_sing_stats *is = &se->ist;
	unsigned c;
	const struct ing_sched_stats *ss = &se->sched.st;

	w->st.scope = GW_SCOPE_INGRESS;
	counter(w, "bonded", "packets sent through the tunnel, packets",
		is->bonded);
	FOR_CLASS(se->gw, c) {
		labelled(w, "class_drops",
			 "packets of a class pinned to a path that is not up, "
			 "without fallback: dropped, by class",
			 "class", class_name(se->gw, c), se->cls[c].drops);
		labelled(w, "class_bypassed",
			 "packets of a class in mode bypass that reached the "
			 "daemon (its capture rules leave them out): let go "
			 "natively, by class",
			 "class", class_name(se->gw, c), se->cls[c].bypassed);
	}
	counter(w, "no_path", "packets accepted natively: no path up, packets",
		is->no_path);
	counter(w, "no_session",
		"packets accepted natively: no session with the peer yet, "
		"packets",
		is->no_session);
	counter(w, "copies",
		"a redundant class's copies sent on the other paths, packets",
		ss->copies);
	counter(w, "copies_skipped",
		"a redundant class's copies left out: a packet in more "
		"fragments than a batch holds with its copies, packets",
		is->copies_skipped);
	counter(w, "flow_starts",
		"flows of a class in mode flow given their path",
		ss->flow_starts);
	counter(w, "flow_moves",
		"flows of a class in mode flow moved: their path was down",
		ss->flow_moves);
	counter(w, "reports", "REPORTs from the peer applied", ss->reports);
	counter(w, "stale_reports",
		"REPORTs ignored: not newer than the last one (each is sent "
		"on every path)",
		ss->stale_reports);
	counter(w, "awi", "additive weight increases of the mobile weight",
		ss->awi);
	counter(w, "iwi", "immediate weight increases of the mobile weight",
		ss->iwi);
	counter(w, "dwd", "decrements of the mobile weight", ss->dwd);
	counter(w, "dwd_held",
		"REPORTs with a fixed path queueing over queue_target_ms: no "
		"DWD step",
		ss->dwd_held);
	counter(w, "qwi",
		"increases of the mobile weight for a fixed path's standing "
		"queue",
		ss->qwi);
	counter(w, "loss_noise",
		"REPORTs whose fixed-path loss came without a standing queue "
		"and under 1 %: line errors, no increase",
		ss->loss_noise);
	counter(w, "sparse",
		"packets of sparse flows, sent on the path with the lowest "
		"RTT",
		ss->sparse);
	counter(w, "flows_shared",
		"packets of a flow that shared a flow bucket with another "
		"(the 8 buckets its hash may take were all busy): ordered "
		"with it, and bulk if it is",
		ss->flows_shared);
	counter(w, "paced",
		"bulk packets a paced fixed path took within its rate",
		ss->paced);
	counter(w, "overflow",
		"bulk packets sent on a mobile path because the paced fixed "
		"paths were at their rate",
		ss->overflow);
	counter(w, "aqm_drops",
		"bulk packets dropped rather than overflowed to a mobile path "
		"whose standing queue stood over mobile_aqm_ms (CoDel's law)",
		ss->aqm_drops);
	counter(w, "mobile_full",
		"increases withheld because a mobile path queues over "
		"queue_target_ms",
		ss->mobile_full);
	counter(w, "rate_learned",
		"REPORTs that set a fixed path's pace to what its queueing "
		"line delivered (rate_auto)",
		ss->rate_learned);
	counter(w, "rate_probed",
		"REPORTs that raised a learned pace: the pace held traffic "
		"back and the line did not queue",
		ss->rate_probed);
	counter(w, "rate_probed_full",
		"of those, REPORTs that raised it by 1.6 % from the first: "
		"the mobile paths queued over their targets meanwhile",
		ss->rate_probed_full);
	counter(w, "rate_probe_backs",
		"REPORTs that took a learned pace back to before its last "
		"probes: the line queued over half the target right after "
		"them",
		ss->rate_probe_backs);
	counter(w, "rate_lossy",
		"windows of REPORTs in which a paced fixed path lost 1 % or "
		"more without a queue: its pace yielded to the weights for "
		"t_dwd_ms (a broken line, not one at its rate)",
		ss->rate_lossy);
	counter(w, "rate_drop_capped",
		"REPORTs that measured a fixed path under half its learned "
		"rate: the pace took half (a line that got slower is measured "
		"again)",
		ss->rate_drop_capped);
	counter(w, "resent",
		"DATA sent again on another path after its path turned "
		"suspect, packets",
		ss->resent);
	counter(w, "repaired",
		"DATA sent again because the peer asked for it (a NACK: its "
		"path lost it under a short queue), packets",
		ss->repaired);
	counter(w, "nack_bad_path",
		"NACKs ignored: they named a path this box does not have",
		is->nack_bad_path);
	counter(w, "resend_paces",
		"episodes of DATA sent again at a pace (paths turned suspect "
		"while none went on)",
		se->repace.st.episodes);
	counter(w, "resend_backoffs",
		"REPORTs that halved the pace of DATA sent again: a survivor "
		"queued over queue_target_ms",
		se->repace.st.backoffs);
	counter(w, "resend_pauses",
		"REPORTs that stopped DATA sent again until one shows the "
		"survivors' queue under 4 x queue_target_ms again",
		se->repace.st.pauses);
	counter(w, "resend_abandoned",
		"episodes of DATA sent again ended after a second stopped: "
		"what was left dropped (inflight_untaken)",
		se->repace.st.abandoned);
	counter(w, "resend_bytes", "DATA sent again, inner bytes",
		se->repace.st.bytes);
	counter(w, "frozen",
		"REPORTs that moved no weight: a path was suspect (for 30 s "
		"at most)",
		ss->frozen);
	counter(w, "forgiven",
		"DATA lost at a cut, not taken as congestion, packets",
		ss->forgiven);
}

/* The egress queue's own values: what is dropped before a session is
 * known. */
static void walk_egress_queue(struct gw *gw, struct walker *w)
{
	const struct gw_egr_stats *es = &gw->egr.st;
	unsigned i;

	w->st.scope = GW_SCOPE_EGRESS;
	w->st.global = true;
	counter(w, "pkts", "packets taken from the egress queue, packets",
		es->pkts);
	counter(w, "outer_bad",
		"packets dropped: outer header not IPv4/IPv6 + UDP, truncated "
		"or a fragment",
		es->outer_bad);
	counter(w, "outer_ext6",
		"packets dropped: outer IPv6 with an extension header",
		es->outer_ext6);
	counter(w, "session", "packets dropped: no session with this id",
		es->session);
	counter(w, "path", "packets dropped: path id beyond the paths",
		es->path);
	counter(w, "verdict_errors", "egress verdicts the kernel refused",
		es->verdict_errors);
	counter(w, "no_kernel_time",
		"DATA without the kernel's receive time stamp",
		es->no_kernel_time);
	for (i = 1; i < WIRE_DROP_MAX; i++) {
		labelled(w, "wire",
			 "tunnel packets dropped as malformed, by reason",
			 "reason", wire_drop_name((enum wire_drop)i),
			 es->wire[i]);
	}
	counter(w, "kernel_dropped",
		"packets the kernel dropped: egress queue full, packets",
		gw->egr.kst.queue_dropped);
	counter(w, "kernel_user_dropped",
		"packets the kernel could not hand to the daemon (netlink "
		"buffer full), packets",
		gw->egr.kst.user_dropped);
	w->st.global = false;
}

static void walk_egress(struct gw_sess *se, struct walker *w)
{
	const struct egr_reseq *r = &se->egr.reseq;
	const struct egr_reseq_stats *rs = &r->st;
	const struct gw_segr_stats *es = &se->est;
	unsigned i;

	w->st.scope = GW_SCOPE_EGRESS;
	counter(w, "released", "inner packets released to the LAN, packets",
		es->released);
	counter(w, "in_order",
		"DATA released on arrival at the head of the global order, "
		"packets",
		rs->in_order);
	counter(w, "flow_now",
		"DATA released on arrival ahead of the global order: its "
		"flow had nothing outstanding, packets",
		rs->flow_now);
	counter(w, "flow_early",
		"DATA released from the buffer ahead of the global order, "
		"when its flow's hole was filled, packets",
		rs->flow_early);
	counter(w, "held", "DATA released after waiting in the buffer, packets",
		rs->held);
	counter(w, "hold_us",
		"time the packets released after waiting waited, in all, us",
		rs->hold_us);
	counter(w, "buffered", "DATA buffered behind a hole, packets",
		rs->buffered);
	counter(w, "late",
		"DATA released out of order: its hole was given up before "
		"it came, packets",
		rs->late);
	counter(w, "too_old",
		"DATA dropped: more than t_lto_ms after its hole was given up "
		"(a bloated path: the drop is its senders' congestion "
		"signal), or too far behind to tell late from duplicate, "
		"packets",
		rs->too_old);
	counter(w, "dup",
		"DATA dropped: a duplicate on the way (not a copy sent again: "
		"resent_dup; nor a redundant class's copy: copy_dup), packets",
		rs->dup);
	counter(w, "hole_timeout", "holes given up after t_lto",
		rs->hole_timeout);
	counter(w, "hole_early", "holes given up early: known lost",
		rs->hole_early);
	counter(w, "hole_overflow",
		"holes given up because the reorder buffer was full",
		rs->hole_overflow);
	counter(w, "hole_path_down", "holes given up when a path went down",
		rs->hole_path_down);
	counter(w, "hole_flush",
		"holes given up by a flush (peer restart, stop)",
		rs->hole_flush);
	counter(w, "lto_back",
		"paths whose DATA came again after a silence: the reorder "
		"timeout raised to t_lto_ms",
		se->egr.lto_back);
	counter(w, "lto_late",
		"packets that came to a hole given up (late or too_old) "
		"and raised the reorder timeout at once to the wait they "
		"needed (t_lto_floor_us)",
		se->egr.lto_late);
	counter(w, "heals",
		"paths heard again after 500 ms without any packet while "
		"others carried DATA (a cut healed): for a second a packet "
		"whose hole was given up is released late however late it "
		"comes, not dropped too_old",
		se->egr.heals);
	counter(w, "repair_asked",
		"DATA lost on a path under a queue of at most "
		"repair_queue_ms, asked of the peer again (NACK), packets",
		se->egr.repair_asked);
	counter(w, "repair_queued",
		"DATA lost on a path under a longer queue: congestion, left "
		"to the senders, packets",
		se->egr.repair_queued);
	counter(w, "repair_capped",
		"DATA lost past the repair's share (2 % of a path's packets, "
		"32 at once): not asked for, packets",
		se->egr.repair_capped);
	counter(w, "nacks_sent", "NACKs sent (each on every path)",
		es->nacks);
	counter(w, "repair_filled",
		"holes filled by the copy asked for, packets",
		rs->repair_filled);
	counter(w, "repair_timeout",
		"holes given up waiting for the copy asked for, packets",
		rs->repair_timeout);
	counter(w, "reports_sent",
		"REPORT intervals in which REPORTs went out (on every path)",
		es->reports);
	counter(w, "reports_idle",
		"REPORT intervals without REPORTs: no DATA arrived since the "
		"last one",
		es->reports_idle);
	counter(w, "resent_filled",
		"copies sent again by the peer that filled a hole, packets",
		rs->resent_filled);
	counter(w, "resent_dup",
		"copies sent again dropped: the packet was here already, "
		"packets",
		rs->resent_dup);
	counter(w, "resent_late",
		"copies sent again released out of order: their hole was "
		"given up, packets",
		rs->resent_late);
	counter(w, "resent_far",
		"of resent_late, copies whose ring slot was reused since: "
		"known given up by the history bits, packets",
		rs->resent_far);
	counter(w, "copy_dup",
		"a redundant class's copies dropped: another copy of the "
		"packet came first, packets",
		rs->copy_dup);
	counter(w, "resent_too_old",
		"copies sent again dropped: not given up, or further behind "
		"than the resequencer's history keeps, packets",
		rs->resent_too_old);
	counter(w, "resend_waits",
		"holes given up after waiting past t_lto for a copy sent "
		"again",
		rs->resend_waits);
	gauge(w, "depth", "packets held in the reorder buffer now, packets",
	      egr_reseq_depth(r));
	gauge(w, "capacity", "size of the reorder buffer, packets",
	      r->p.capacity);
	counter(w, "overflow",
		"DATA that pushed the reorder window forward, packets",
		rs->overflow);
	counter(w, "oversize", "DATA dropped: inner packet too large",
		es->oversize);
	counter(w, "inner_family",
		"DATA dropped: inner packet of the other family than its "
		"outer one, and no TUN device",
		es->inner_family);
	counter(w, "via_tun",
		"DATA released through the TUN device (inner family not the "
		"outer one's)",
		es->via_tun);
	counter(w, "tun_errors",
		"DATA dropped: the TUN device refused it (full, down)",
		es->tun_errors);
	counter(w, "spoofed",
		"DATA dropped: inner source outside the CPE's prefixes",
		es->spoofed);
	counter(w, "no_slot", "DATA dropped: no free slot", es->no_slot);
	counter(w, "peer_restarts",
		"times the peer restarted (new session) and the sequence state "
		"was reset",
		es->peer_restarts);
	for (i = 1; i < GW_AUTH_MAX; i++) {
		labelled(w, "auth",
			 "well-formed tunnel packets dropped before any state: "
			 "not authentic, replayed, or not for this role, by "
			 "reason",
			 "reason", gw_auth_drop_name((enum gw_auth_drop)i),
			 es->auth[i]);
	}
	for (i = 1; i < WIRE_DROP_MAX; i++) {
		labelled(w, "body",
			 "authentic tunnel packets dropped: body malformed, by "
			 "reason",
			 "reason", wire_drop_name((enum wire_drop)i),
			 es->wire[i]);
	}
	for (i = WIRE_REPORT; i <= WIRE_TYPE_MAX; i++) {
		labelled(w, "ctrl", "control packets received, by type", "type",
			 wire_type_name((uint8_t)i), es->ctrl[i]);
	}
}

/* A fixed path's last rate measurement (rate_auto): how, and from what. */
static void walk_rate_meas(struct walker *w, const struct ing_rate_meas *m)
{
	const struct ing_rate_meas none = {0};

	if (!m) {
		m = &none;
	}
	text(w, "rate_rule",
	     "how its rate was last measured (rate_auto), from what the "
	     "peer counted while the path's queue: growth (grew by more than "
	     "queue_target_ms), full (stood over it and the path dropped), "
	     "held (stood, held still by the weights), stood (stood over "
	     "it throughout while paced: the pace was over the path's "
	     "rate), or train (a packet train timed by the peer, before "
	     "any queue: sent, queue and lost then 0); empty: never",
	     ing_rate_rule_name(m->rule));
	gauge(w, "rate_measured_kbps",
	      "the rate that measurement took (at most halving the one "
	      "before), kbit/s",
	      (uint64_t)(m->got_Bps / 125.0));
	gauge(w, "rate_sent_kbps",
	      "what was sent to the path over that measurement, line bytes, "
	      "kbit/s",
	      (uint64_t)(m->sent_Bps / 125.0));
	gauge(w, "rate_counted_kbps",
	      "what the peer counted of it, kbit/s",
	      (uint64_t)(m->rx_Bps / 125.0));
	gauge(w, "rate_queue_from_us",
	      "the path's standing queue when that measurement started, us",
	      m->q0_us);
	gauge(w, "rate_queue_us",
	      "the path's standing queue when that measurement ended, us",
	      m->q_us);
	gauge(w, "rate_over_ms", "that measurement's length, ms", m->dt_ms);
	gauge(w, "rate_lost",
	      "packets the path lost over that measurement", m->lost);
}

static void walk_path(struct gw_sess *se, struct walker *w, unsigned i)
{
	const struct gw *gw = se->gw;
	unsigned c;
	const struct gw_link *p = &se->link[i];
	const struct egr_loss_path *lp = &se->egr.loss.p[i];
	const struct ing_sched *s = &se->sched;
	char peer[GW_ADDR_STR];

	if (p->have_peer) {
		gw_addr_str(&p->peer, peer, sizeof(peer));
	} else {
		snprintf(peer, sizeof(peer), "-:%u", ntohs(p->peer.sin6_port));
	}
	w->st.scope = GW_SCOPE_PATH;
	w->st.path = gw->conf.path[i].name;
	text(w, "class", "the path's class: fixed, mobile or backup",
	     conf_class_name(gw->conf.path[i].cls));
	gauge(w, "up", "1: up: it answered and is not down, 0: down", p->alive);
	text(w, "peer", "the peer's address and port on this path", peer);
	gauge(w, "mtu", "the path's MTU (configured, else its interface's)",
	      gw->path[i].mtu);
	gauge(w, "socket",
	      "1: the path has its socket, 0: its interface is "
	      "absent",
	      gw->path[i].fd >= 0);
	counter(w, "reopens",
		"times the path's socket was opened again (interface "
		"re-created, new address)",
		gw->path[i].reopens);
	text(w, "used_as",
	     "the class the path is used as now: its own, or backup while "
	     "a data budget is spent (ours, or the CPE's: peer_backup)",
	     conf_class_name(s->path[i].cls));
	gauge(w, "peer_backup",
	      "1: the peer asks to use the path as a backup towards it (the "
	      "CPE's data budget of it is spent)",
	      p->peer_backup);
	gauge(w, "budget_mb", "the path's data budget a period, MB (0: none)",
	      gw->vol.on[i] ? gw->conf.path[i].budget_mb : 0);
	counter(w, "budget_used_bytes",
		"bytes the path carried this budget period, both ways, IP "
		"packets",
		gw->vol.on[i] ? gw->vol.b[i].used : 0);
	gauge(w, "budget_level",
	      "the budget's threshold reached this period: 0, 80 or 100 (%)",
	      gw->vol.on[i] ? gw->vol.b[i].level : 0);
	gauge(w, "budget_spent", "1: the budget is spent: a backup path",
	      gw_volume_spent(&gw->vol, i));
	gauge(w, "budget_period_end",
	      "when this budget period ends, Unix time (0: no budget)",
	      gw->vol.on[i] ? (uint64_t)gw->vol.b[i].end : 0);
	gauge(w, "rate_mbit",
	      "the line rate the path is paced just below (0: not paced), "
	      "Mbit/s",
	      gw->conf.path[i].rate_kbps / 1000);
	gauge(w, "pace_kbps",
	      "the pace in use: rate_mbit or the rate learned (rate_auto), "
	      "the lower; 0: not paced, kbit/s",
	      ing_sched_rate(s, i));
	walk_rate_meas(w, ing_sched_rate_meas(s, i));
	gauge(w, "peer_queue_us",
	      "standing queue the peer's egress saw on this path in its last "
	      "REPORT, us",
	      s->path[i].rep_qdelay_us);
	gauge_f(w, "weight", "SWRR weight now (0: down)",
		ing_sched_weight(s, i));
	counter(w, "sent", "DATA the scheduler picked this path for, packets",
		s->path[i].sent);
	counter(w, "tx_pkts", "DATA sent, packets", p->st.tx_pkts);
	FOR_CLASS(gw, c) {
		labelled(w, "class_pkts",
			 "packets the scheduler put on this path, by traffic "
			 "class",
			 "class", class_name(gw, c), se->cls[c].pkts[i]);
		labelled(w, "class_bytes",
			 "inner bytes the scheduler put on this path, by "
			 "traffic class",
			 "class", class_name(gw, c), se->cls[c].bytes[i]);
	}
	counter(w, "tx_bytes", "DATA sent, bytes of UDP payload",
		p->st.tx_bytes);
	counter(w, "tx_errors", "DATA the socket refused, packets",
		p->st.tx_errors);
	gauge(w, "tx_errno", "errno of the last refused send (0: never)",
	      (uint64_t)(p->st.tx_errno > 0 ? p->st.tx_errno : 0));
	counter(w, "ctrl_tx", "control packets sent", p->st.ctrl_tx);
	counter(w, "ctrl_errors", "control packets the socket refused",
		p->st.ctrl_errors);
	counter(w, "acks_across",
		"answers to the peer's PROBEs on this path also sent on "
		"another (this direction of it does not answer), packets",
		p->st.acks_across);
	counter(w, "acks_stale",
		"answers to our PROBEs sent before the path turned suspect: "
		"no answer, packets",
		p->st.acks_stale);
	counter(w, "trains",
		"trains sent on the path to measure its rate before it is "
		"learned (rate_auto; 32 to 64 packets each)",
		p->st.trains);
	counter(w, "train_rates",
		"answers to our trains whose rate the pace took",
		p->st.train_rates);
	counter(w, "train_refused",
		"answers to our trains refused: over 1/16 of the train "
		"missing, timed over under 1 ms, a rate out of bounds, or "
		"the rate learned meanwhile",
		p->st.train_refused);
	counter(w, "train_stale",
		"answers to a train other than our last one on the path",
		p->st.train_stale);
	counter(w, "train_lost",
		"trains on the path never answered (the next one went: a "
		"packet of it lost, its last one or the answer, or a peer "
		"without trains)",
		p->st.train_lost);
	counter(w, "train_acks",
		"answers sent to the peer's trains on the path",
		p->st.train_acks);
	counter(w, "rx_pkts", "valid tunnel packets received, packets",
		p->st.rx_pkts);
	counter(w, "rx_bytes", "valid tunnel packets received, bytes",
		p->st.rx_bytes);
	/* loss in: what this box's egress counts on the path; loss out:
	 * what the peer's egress reports about our DATA */
	counter(w, "data_rx",
		"DATA received from the peer, packets (wraps at 2^32; starts "
		"again when the peer restarts)",
		lp->rx);
	counter(w, "data_lost",
		"DATA from the peer lost on the way in: gaps in the path's "
		"sequence, packets (wraps at 2^32; starts again when the peer "
		"restarts)",
		lp->lost);
	counter(w, "data_jumps",
		"resynchronisations of the path's sequence on a too large gap",
		lp->jumps);
	counter(w, "data_behind",
		"DATA behind the path's expected sequence (duplicated or "
		"reordered), packets",
		lp->behind);
	counter(w, "out_lost",
		"DATA to the peer lost on the way out, as the peer reports "
		"it (since the peer started), packets",
		s->path[i].rep_lost);
	gauge(w, "rtt_us", "last PROBE round trip (0: none yet), us",
	      p->rtt_us);
	gauge(w, "srtt_us", "smoothed PROBE round trip (0: none yet), us",
	      p->rtt.samples ? p->rtt.srtt_us : 0);
	gauge(w, "rttvar_us", "mean deviation of the round trip, us",
	      p->rtt.samples ? p->rtt.rttvar_us : 0);
	counter(w, "rtt_samples", "PROBE round trips measured", p->rtt.samples);
	counter(w, "up_events", "transitions to up", p->st.up_events);
	counter(w, "down_events", "transitions to down", p->st.down_events);
	text(w, "detect",
	     "the failure detector's state: up, suspect (no new traffic), "
	     "down, hold (flapped: back after staying good)",
	     ing_detect_state_name(p->det.state));
	gauge(w, "detect_timeout_us",
	      "the detector's T: unanswered this long, the path is suspect, "
	      "us",
	      ing_detect_timeout_us(&p->det));
	gauge(w, "detect_ack_rtt_us",
	      "the acknowledgements' round trip, the largest of the last "
	      "second of REPORTs (in T with the probes' srtt), us",
	      ing_detect_ack_rtt_us(&p->det));
	counter(w, "suspects", "transitions to suspect", p->det.st.suspect);
	counter(w, "suspect_by_data",
		"transitions to suspect: DATA sent, its acknowledgement "
		"stalled",
		p->det.st.by_data);
	counter(w, "suspect_by_probe",
		"transitions to suspect: PROBEs in a row unanswered",
		p->det.st.by_probe);
	counter(w, "recovered",
		"back up after suspect, down or hold (not the first up)",
		p->det.st.recovered);
	counter(w, "flaps",
		"suspect again soon after coming back, or while held",
		p->det.st.flaps);
	counter(w, "holddowns", "transitions to hold after a flap",
		p->det.st.holddown);
	/* the in-flight store (ingress/inflight.h) */
	gauge(w, "inflight", "DATA kept for sending again now, packets",
	      ing_inflight_count(&se->infl, i));
	counter(w, "inflight_stored", "DATA kept for sending again, packets",
		se->infl.path[i].st.stored);
	counter(w, "inflight_acked",
		"kept DATA freed by the peer's acknowledgement, packets",
		se->infl.path[i].st.acked);
	counter(w, "inflight_nomem",
		"DATA not kept for sending again: no memory for the store, "
		"packets",
		se->infl.path[i].st.nomem);
	counter(w, "inflight_overflow",
		"kept DATA dropped, oldest first, to make room, packets",
		se->infl.path[i].st.overflow);
	counter(w, "inflight_taken",
		"kept DATA handed over for sending again when the path "
		"turned suspect, packets",
		se->infl.path[i].st.taken);
	counter(w, "inflight_untaken",
		"kept DATA not sent again: no room on the other paths, "
		"packets",
		se->infl.path[i].st.untaken);
	counter(w, "inflight_found",
		"kept DATA the peer asked for again (NACK), packets",
		se->infl.path[i].st.found);
	counter(w, "inflight_again",
		"DATA the peer asked for again that had been sent again "
		"already (the same NACK on another path), packets",
		se->infl.path[i].st.again);
	counter(w, "inflight_unknown",
		"DATA the peer asked for again that was not kept (already "
		"acknowledged, or dropped to make room), packets",
		se->infl.path[i].st.unknown);
	counter(w, "inflight_ack_ahead",
		"acknowledgements beyond what was sent, ignored",
		se->infl.path[i].st.ack_ahead);
	w->st.path = NULL;
}

void gw_stats_walk(struct gw *gw, gw_stat_fn *fn, void *arg)
{
	gw_stats_walk_only(gw, NULL, fn, arg);
}

void gw_stats_walk_only(struct gw *gw, const char *only, gw_stat_fn *fn,
			void *arg)
{
	struct walker w = {.fn = fn, .arg = arg};
	unsigned i, k;

	walk_daemon(gw, &w);
	if (gw->stats_from_workers) { /* the first process of workers */
		gw->stats_from_workers(gw, only, fn, arg);
		return;
	}
	walk_ingress_queue(gw, &w);
	walk_egress_queue(gw, &w);
	for (k = 0; k < gw->nsess; k++) {
		struct gw_sess *se = gw->sess[k];

		/* "": none, not the unnamed one CPE of a plain config */
		if (only && (!*only || strcmp(only, se->name))) {
			continue;
		}
		w.st.session = se->id;
		w.st.cpe = se->name;
		walk_session(se, &w);
		walk_ingress(se, &w);
		walk_egress(se, &w);
		for (i = 0; i < gw->npaths; i++) {
			walk_path(se, &w, i);
		}
	}
}

const char *gw_stat_key(const struct gw_stat *st, char *buf, size_t len)
{
	static const char *const prefix[] = {
		[GW_SCOPE_DAEMON] = "",	     [GW_SCOPE_SESSION] = "",
		[GW_SCOPE_INGRESS] = "ing.", [GW_SCOPE_EGRESS] = "egr.",
		[GW_SCOPE_PATH] = "path.",
	};
	const char *pre =
		(unsigned)st->scope < sizeof(prefix) / sizeof(prefix[0])
			? prefix[st->scope]
			: "";
	bool has_path = st->scope == GW_SCOPE_PATH && st->path;
	bool has_label = st->label && st->label_value;
	bool has_cpe = st->scope != GW_SCOPE_DAEMON && !st->global && st->cpe &&
		       st->cpe[0];

	snprintf(buf, len, "%s%s%s%s%s%s%s%s%s", has_cpe ? "cpe." : "",
		 has_cpe ? st->cpe : "", has_cpe ? "." : "", pre,
		 has_path ? st->path : "", has_path ? "." : "", st->name,
		 has_label ? "." : "", has_label ? st->label_value : "");
	return buf;
}
