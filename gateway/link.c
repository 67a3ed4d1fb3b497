/* SPDX-License-Identifier: BSD-2-Clause */
/* A path as one session sees it: the peer's address on it, and whether it
 * is alive.
 *
 * Liveness is the failure detector's (ingress/detect.h; DESIGN.md,
 * "Failure detection and packets sent again"), one per link, fed here:
 * every DATA sent on the path, the peer's REPORTs (their lseq_next
 * acknowledges what arrived on each path, whichever path the report came
 * on) and the answers to our PROBEs (both ends send a PROBE on every path
 * every probe_interval_ms while the session is in use, the CPE every
 * idle_probe_ms on an idle one: probe_due; the concentrator on every path
 * it has learnt; both answer the peer's: PROBE_ACK, control.c).  Only
 * answers count: a packet merely heard on the path proves the other
 * direction, which the peer's detector watches.  A path that carried data
 * and whose acknowledgement stalls for T, or whose probes go unanswered,
 * is suspect: the scheduler stops using it at once
 * (ing_sched_set_suspect).
 * Suspect and no answer for dead_after_ms: down, as before; meanwhile
 * probed ING_DET_SUSPECT_PROBE_DIV times as often (sprobe_timer).  Our egress
 * goes by the other direction (rx_update: up, or heard within
 * dead_after_ms); when that ends it gives up the path's holes
 * (on_link_alive_changed).  An answer brings it back up at once, unless
 * it flapped (hold).  A path
 * starts down and is used once it answered; on the concentrator a path
 * it has not learnt an address for has no probes and stays down.  Every
 * path is probed, so the detector decides for every path.  The CPE's
 * PROBEs also keep the carrier NAT's binding open.
 *
 * NAT rebinding: the concentrator follows the CPE's address on a path to
 * where the newest authentic packet came from (gw_link_heard).  Only
 * packets under the session keys that pass the replay window count as
 * heard, never a HELLO or HELLO_ACK alone, which anyone can replay.
 * Sessions and restarts: session.c, secure.c.
 */
#include <string.h>

#include "common/wire.h"
#include "gateway/control.h"
#include "gateway/gw.h"
#include "gateway/link.h"
#include "gateway/outer.h"
#include "gateway/path.h"
#include "gateway/secure.h"
#include "gateway/session.h"

/* Whether our egress waits for l's holes: l is up (our direction
 * answers) or the peer's direction brought something within dead_after_ms.
 * Our detector watches the direction we send in; the resequencer needs the
 * one we receive in: a path lossy or dead towards the peer only may still
 * carry the peer's DATA, and its holes must be waited for (with them the
 * reorder timeout, egress.c, adapt_lto). */
static void rx_update(struct gw_sess *s, struct gw_link *l, uint64_t now_us)
{
	bool up = l->alive ||
		  (l->last_rx_us &&
		   now_us - l->last_rx_us <
			   (uint64_t)s->gw->conf.dead_after_ms * 1000);

	if (up == l->rx_up) {
		return;
	}
	l->rx_up = up;
	egr_reseq_set_path_up(&s->egr.reseq, l->idx, up);
	/* a path going down may give holes up and release packets */
	if (s->gw->on_link_alive_changed) {
		s->gw->on_link_alive_changed(s, l);
	}
}

static void set_alive(struct gw_sess *s, struct gw_link *l, bool alive)
{
	const struct conf_path *cp = &s->gw->conf.path[l->idx];

	char a[GW_ADDR_STR];

	l->alive = alive;
	ing_sched_set_up(&s->sched, l->idx, alive);
	if (alive) {
		l->st.up_events++;
		gw_sinfo(s, "path %s: up (peer %s)", cp->name,
			 gw_addr_str(&l->peer, a, sizeof(a)));
	} else {
		l->st.down_events++;
		gw_swarn(s, "path %s: down: no answer for %u ms", cp->name,
			 s->gw->conf.dead_after_ms);
	}
	rx_update(s, l, gw_now_us());
}

static void det_event(struct gw_sess *s, struct gw_link *l,
		      enum ing_det_event ev);
static void det_arm(struct gw_sess *s, uint64_t now_us, bool force);

void gw_link_heard(struct gw_sess *s, struct gw_link *l,
		   const struct sockaddr_in6 *from, const struct in6_addr *to,
		   bool newest, uint64_t now_us)
{
	const struct conf_path *cp = &s->gw->conf.path[l->idx];
	bool learnt = false, moved = false, family;
	char a[GW_ADDR_STR];

	/* heard after a silence: a cut healed? (egress/egress.h) */
	if (l->last_rx_us) {
		egr_path_heard(&s->egr, l->idx, now_us - l->last_rx_us,
			       now_us);
	}
	l->last_rx_us = now_us;
	rx_update(s, l, now_us);
	/* Carrier NAT may move the CPE's address or port at any time: the
	 * concentrator answers where the newest authentic packet came from,
	 * at once.  Only the newest: a replay is never authentic and fresh,
	 * and a packet overtaken on the way may still carry the old
	 * address. */
	if (s->gw->conf.role == ROLE_CONCENTRATOR && newest &&
	    (!l->have_peer ||
	     memcmp(&l->peer.sin6_addr, &from->sin6_addr, 16) ||
	     l->peer.sin6_port != from->sin6_port)) {
		learnt = !l->have_peer;
		family = !l->have_peer ||
			 gw_addr_is4(&l->peer) != gw_addr_is4(from);
		gw_link_set_peer(l, from);
		l->have_peer = true;
		gw_sinfo(s, "path %s: peer is %s", cp->name,
			 gw_addr_str(&l->peer, a, sizeof(a)));
		moved = !learnt;
		if (moved) {
			/* what the path lost meanwhile went to the old
			 * address: a move, not a flap (a second one within
			 * flap_window_ms would hold the path a second) */
			det_event(s, l, ing_detect_forget_flaps(&l->det,
								now_us));
			det_arm(s, now_us, true);
		}
		if (family &&
		    s->gw->path[l->idx].outer6 != !gw_addr_is4(from)) {
			/* the outer header's size changed: inner_max, MSS */
			gw_paths_update_mtu(s->gw);
		}
	}
	/* answers leave from where the CPE sends to: after a keepalived
	 * switch the VIP, not the interface's own address */
	if (s->gw->conf.role == ROLE_CONCENTRATOR && newest) {
		l->local = *to;
		l->have_local = true;
	}
	if (learnt || moved) {
		/* a round trip at once, not a probe interval later: its
		 * answer brings the path up */
		gw_send_probe(s, l, now_us);
	}
}

/* ---- failure detection ------------------------------------------------ */

static void det_params(const struct gw *gw, struct ing_detect_params *p)
{
	ing_detect_params_default(p, gw->conf.sched.t_report_ms,
				  gw->conf.dead_after_ms,
				  gw->conf.probe_interval_ms);
	p->idle_probe_ms = gw->conf.idle_probe_ms;
}

/* The session's detector timer at the earliest deadline of its links
 * (none: stopped).  force: also when it would fire later than armed (the
 * inputs that only ever postpone a deadline leave an earlier timer alone:
 * it fires, ticks nothing and is armed again). */
static void det_arm(struct gw_sess *s, uint64_t now_us, bool force)
{
	uint64_t at = 0, when;
	unsigned i;

	for (i = 0; i < s->gw->npaths; i++) {
		if (ing_detect_deadline(&s->link[i].det, &when) &&
		    (!at || when < at)) {
			at = when;
		}
	}
	if (at == s->det_at_us ||
	    (!force && s->det_at_us && at && at > s->det_at_us)) {
		return;
	}
	ev_timer_stop(s->gw->loop, &s->det_timer);
	s->det_at_us = at;
	if (!at) {
		return;
	}
	/* at least 1 ms: a deadline already past fires on the next loop
	 * turn, never in a loop of its own */
	ev_timer_set(&s->det_timer,
		     at > now_us + 1000 ? (double)(at - now_us) / 1e6 : 1e-3,
		     0.);
	ev_timer_start(s->gw->loop, &s->det_timer);
}

/* A suspect link is probed every ing_detect_busy_probe_ms, quicker than
 * the keepalive tick (probe_interval_ms): one repeating timer per session
 * while a link of it is suspect (started when one turns suspect, stopped
 * by the first tick that finds none). */
static void on_sprobe_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct gw_sess *s = container_of(w, struct gw_sess, sprobe_timer);
	uint64_t now = gw_now_us();
	bool any = false;
	unsigned i;

	(void)revents;
	for (i = 0; i < s->gw->npaths; i++) {
		struct gw_link *l = &s->link[i];
		uint32_t ms = ing_detect_busy_probe_ms(&l->det);

		if (l->det.state != ING_DET_SUSPECT) {
			continue;
		}
		any = true;
		if (l->have_peer &&
		    ing_detect_probe_due(l->last_probe_us != 0,
					 l->last_probe_us, ms, ms, now)) {
			gw_send_probe(s, l, now);
		}
	}
	if (!any) {
		ev_timer_stop(loop, w);
	}
}

static void sprobe_arm(struct gw_sess *s, const struct gw_link *l)
{
	double t = ing_detect_busy_probe_ms(&l->det) / 1000.;

	if (ev_is_active(&s->sprobe_timer)) {
		return;
	}
	ev_timer_set(&s->sprobe_timer, t, t);
	ev_timer_start(s->gw->loop, &s->sprobe_timer);
}

/* What the detector of l decided. */
static void det_event(struct gw_sess *s, struct gw_link *l,
		      enum ing_det_event ev)
{
	const struct conf_path *cp = &s->gw->conf.path[l->idx];
	struct ing_detect *d[WIRE_MAX_PATHS];
	unsigned i;

	if (ev == ING_DET_EV_NONE) {
		return;
	}
	/* which path is the last usable one changes with a state: the
	 * others' data rule with it (the callers arm the timer after) */
	for (i = 0; i < s->gw->npaths; i++) {
		d[i] = &s->link[i].det;
	}
	ing_detect_mark_alone(d, s->gw->npaths);
	switch (ev) {
	case ING_DET_EV_NONE:
		return;
	case ING_DET_EV_SUSPECT:
		/* its weight goes to the others at once; down only after
		 * dead_after_ms, probed the quicker meanwhile */
		ing_sched_set_suspect(&s->sched, l->idx, true);
		sprobe_arm(s, l);
		l->probe_floor = s->probe_id;
		l->have_floor = true;
		/* with what T was made of: T at its floor beside short
		 * round trips points at a stall (of a box, or of both daemons
		 * writing their status files to a busy disk), not a queue */
		gw_swarn(s,
			 "path %s: suspect: no answer for %llu ms "
			 "(acknowledgements' round trip %u ms, probes' %u ms, "
			 "their variation %u ms)",
			 cp->name,
			 (unsigned long long)(ing_detect_timeout_us(&l->det) /
					      1000),
			 ing_detect_ack_rtt_us(&l->det) / 1000,
			 l->det.srtt_us / 1000, l->det.rttvar_us / 1000);
		/* what it carried unacknowledged goes again on the others */
		if (s->gw->on_link_suspect) {
			s->gw->on_link_suspect(s, l);
		}
		return;
	case ING_DET_EV_DOWN:
		if (l->alive) {
			set_alive(s, l, false);
		}
		return;
	case ING_DET_EV_UP:
		ing_sched_set_suspect(&s->sched, l->idx, false);
		/* answers of any probe count again (control.c) */
		l->have_floor = false;
		if (!l->alive) {
			set_alive(s, l, true);
		} else {
			gw_sinfo(s, "path %s: answers again", cp->name);
		}
		return;
	case ING_DET_EV_HOLD:
		gw_swarn(s,
			 "path %s: answers again but flapped (%llu times): "
			 "held until it stays good",
			 cp->name, (unsigned long long)l->det.st.flaps);
		return;
	}
}

static void on_det_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct gw_sess *s = container_of(w, struct gw_sess, det_timer);
	uint64_t now = gw_now_us();
	enum ing_det_event ev;
	unsigned i;

	(void)loop;
	(void)revents;
	s->det_at_us = 0;
	for (i = 0; i < s->gw->npaths; i++) {
		struct gw_link *l = &s->link[i];

		while ((ev = ing_detect_tick(&l->det, now)) !=
		       ING_DET_EV_NONE) {
			det_event(s, l, ev);
		}
	}
	det_arm(s, now, true);
}

void gw_links_detect_open(struct gw_sess *s)
{
	struct ing_detect_params p;
	uint64_t now = gw_now_us();
	unsigned i;

	det_params(s->gw, &p);
	for (i = 0; i < s->gw->npaths; i++) {
		/* the config's values passed conf.c's checks: valid */
		ing_detect_init(&s->link[i].det, &p, now);
	}
	ev_timer_init(&s->det_timer, on_det_timer, 0., 0.);
	s->det_at_us = 0;
	ev_timer_init(&s->sprobe_timer, on_sprobe_timer, 0., 0.);
}

void gw_links_detect_close(struct gw_sess *s)
{
	ev_timer_stop(s->gw->loop, &s->det_timer);
	s->det_at_us = 0;
	ev_timer_stop(s->gw->loop, &s->sprobe_timer);
}

void gw_links_detect_tunables(struct gw *gw)
{
	struct ing_detect_params p;
	uint64_t now = gw_now_us();
	unsigned i, k;

	det_params(gw, &p);
	for (k = 0; k < gw->nsess; k++) {
		for (i = 0; i < gw->npaths; i++) {
			gw->sess[k]->link[i].det.p = p;
		}
		det_arm(gw->sess[k], now, true);
	}
}

void gw_link_data_sent(struct gw_sess *s, struct gw_link *l, uint32_t lseq,
		       uint64_t now_us)
{
	ing_detect_sent(&l->det, lseq, now_us);
	det_arm(s, now_us, false);
}

/* The concentrator uses a path as a backup towards a CPE whose data
 * budget of it is spent, as its REPORTs ask (gateway/volume.h); the CPE
 * counts its own budgets and asks no more of the concentrator. */
static void peer_backup(struct gw_sess *s, struct gw_link *l, bool backup)
{
	if (s->gw->conf.role != ROLE_CONCENTRATOR || backup == l->peer_backup) {
		return;
	}
	l->peer_backup = backup;
	ing_sched_set_backup(&s->sched, l->idx, backup);
	gw_sinfo(s, "path %s: %s", s->gw->conf.path[l->idx].name,
		 backup ? "the CPE's data budget is spent: a backup path"
			: "the CPE's data budget has room again: used as "
			  "configured");
}

void gw_links_on_report(struct gw_sess *s, const struct wire_report *r,
			uint64_t now_us)
{
	unsigned i;

	for (i = 0; i < r->n; i++) {
		const struct wire_report_path *e = &r->p[i];

		if (e->path >= s->gw->npaths) {
			continue;
		}
		/* what arrived needs no copy */
		ing_inflight_ack(&s->infl, e->path, e->lseq_next);
		peer_backup(s, &s->link[e->path],
			    (e->flags & WIRE_RF_BACKUP) != 0);
		det_event(s, &s->link[e->path],
			  ing_detect_acked(&s->link[e->path].det, e->lseq_next,
					   now_us));
	}
	det_arm(s, now_us, true);
}

void gw_link_probe_sent(struct gw_sess *s, struct gw_link *l, uint64_t now_us)
{
	ing_detect_probe_sent(&l->det, now_us);
	det_arm(s, now_us, false);
}

void gw_link_on_probe_ack(struct gw_sess *s, struct gw_link *l, uint64_t now_us)
{
	ing_detect_set_rtt(&l->det, l->rtt.srtt_us, l->rtt.rttvar_us);
	det_event(s, l, ing_detect_answered(&l->det, now_us));
	det_arm(s, now_us, true);
}

void gw_links_on_peer_restarted(struct gw_sess *s)
{
	uint64_t now = gw_now_us();
	unsigned i;

	for (i = 0; i < s->gw->npaths; i++) {
		struct gw_link *l = &s->link[i];

		/* what flapped was the peer (a restart storm), not the
		 * path: no hold */
		det_event(s, l, ing_detect_peer_restarted(&l->det, now));
		/* a peer that started again (perhaps another version)
		 * answers trains from scratch: it may be tried again */
		l->train_out = false;
		l->train_tries = 0;
		l->train_rx = (struct egr_train){0};
	}
	det_arm(s, now, true);
}

/* The CPE's probes once a session is established: the concentrator takes
 * the session, and learns every path, from our first packets under its
 * keys. */
void gw_links_on_established(struct gw_sess *s)
{
	uint64_t now = gw_now_us();
	unsigned i;

	if (s->gw->conf.role != ROLE_CPE) {
		return;
	}
	for (i = 0; i < s->gw->npaths; i++) {
		gw_send_probe(s, &s->link[i], now);
	}
}

/* The path's socket was opened again: every session's HELLO (a CPE's)
 * and PROBE on it now. */
void gw_links_on_path_reopened(struct gw *gw, unsigned path)
{
	uint64_t now = gw_now_us();
	unsigned k;

	for (k = 0; k < gw->nsess; k++) {
		struct gw_link *l = &gw->sess[k]->link[path];

		/* what it lost while the interface changed is no flap */
		det_event(gw->sess[k], l,
			  ing_detect_forget_flaps(&l->det, now));
		gw_sec_send_hellos(gw->sess[k], now, true);
		gw_send_probe(gw->sess[k], l, now);
		det_arm(gw->sess[k], now, true);
	}
}

/* Whether l is due a PROBE now.  A path of a session that
 * carries data (on any path), or that misses an answer, or is not up, is
 * probed every probe_interval_ms; an idle one (gw_link_idle) every
 * idle_probe_ms by the CPE, whose probes keep the carrier NAT's binding
 * open and notice a dead idle path within that interval, and by the
 * concentrator only once the CPE's are overdue (nothing heard for two idle
 * intervals: a CPE gone is down there too): its own probes would double an
 * idle line's cost, and the data rule finds a dead path within T of its
 * first DATA.  A backup path (class "backup", or a path whose data budget
 * is spent: ing_sched_set_backup) is idle when it is, whatever
 * the others carry: it waits for them to fail at the idle cost, and is
 * known up then from its last idle probe (its first DATA brings the busy
 * interval). */
bool gw_link_idle(const struct gw_sess *s, const struct gw_link *l,
		  uint64_t now_us)
{
	unsigned i;

	if (!ing_detect_idle(&l->det, now_us)) {
		return false;
	}
	if (s->sched.path[l->idx].cls == PATH_BACKUP) {
		return true;
	}
	for (i = 0; i < s->gw->npaths; i++) {
		if (!ing_detect_quiet(&s->link[i].det, now_us)) {
			return false;
		}
	}
	return true;
}

static bool probe_due(const struct gw_sess *s, struct gw_link *l,
		      uint64_t now_us)
{
	const struct gw *gw = s->gw;
	bool idle = gw_link_idle(s, l, now_us);
	uint64_t ms = idle ? l->det.p.idle_probe_ms
			   : ing_detect_busy_probe_ms(&l->det);

	if (idle && gw->conf.role != ROLE_CPE &&
	    now_us - l->last_rx_us < 2 * ms * 1000) {
		return false;
	}
	/* the interval as it is now: a probe unanswered, or the first data,
	 * brings the next one forward to probe_interval_ms after the last */
	return ing_detect_probe_due(l->last_probe_us != 0, l->last_probe_us,
				    (uint32_t)ms, gw->conf.probe_interval_ms,
				    now_us);
}

/* Every probe_interval_ms: the CPE's HELLOs (secure.c), and a PROBE on
 * every path of every session that is due one (probe_due).  The CPE's
 * PROBEs keep the NAT binding open; both ends probe a path in use so that
 * both measure its round trip and detect it dead in their own direction
 * (the concentrator once it has learnt the path). */
void gw_send_keepalives(struct gw *gw, uint64_t now_us)
{
	unsigned i, k;

	for (k = 0; k < gw->nsess; k++) {
		struct gw_sess *s = gw->sess[k];

		gw_sec_send_hellos(s, now_us, false);
		for (i = 0; i < gw->npaths; i++) {
			/* the peer's direction silent for dead_after_ms */
			rx_update(s, &s->link[i], now_us);
			if (probe_due(s, &s->link[i], now_us)) {
				gw_send_probe(s, &s->link[i], now_us);
			}
		}
	}
}
