/* A path as one session sees it: the peer's address on it, and whether it
 * is alive.
 *
 * Liveness: a path is up while something valid arrived on it within
 * dead_after_ms.  Both ends send a PROBE on every path every
 * probe_interval_ms (the concentrator once it has learnt the path) and
 * answer the peer's (PROBE_ACK, control.c), and both send REPORTs on
 * every path every t_report_ms, so a working path always hears its peer
 * several times per dead_after_ms (at least 2 probe intervals, conf.c),
 * whatever the traffic.  On the concentrator a path it has not learnt an
 * address for is down.  So a CPE that starts, or whose peer is gone,
 * sends natively until the peer answers, and a concentrator whose CPE
 * died stops bonding towards it after dead_after_ms.  Down: the scheduler
 * stops using the path and the resequencer gives up at once the holes the
 * path owned (on_link_alive_changed); the first valid packet on it brings
 * it back.  The check runs with every probe and every report, so a path
 * is down at most min(probe_interval_ms, t_report_ms) after
 * dead_after_ms.  The CPE's PROBEs also keep the carrier NAT's binding
 * open.
 *
 * NAT rebinding: the concentrator follows the CPE's address on a path to
 * where the newest authentic packet came from (gw_link_heard).  Only
 * packets under the session keys that pass the replay window count as
 * heard, never a HELLO or HELLO_ACK alone, which anyone can replay.
 * Sessions and restarts: session.c, secure.c.
 */
#include <string.h>

#include "gateway/control.h"
#include "gateway/gw.h"
#include "gateway/link.h"
#include "gateway/outer.h"
#include "gateway/path.h"
#include "gateway/secure.h"
#include "gateway/session.h"

static void set_alive(struct gw_sess *s, struct gw_link *l, bool alive)
{
	const struct conf_path *cp = &s->gw->conf.path[l->idx];

	char a[GW_ADDR_STR];

	l->alive = alive;
	ing_sched_set_up(&s->sched, l->idx, alive);
	egr_reseq_set_path_up(&s->egr.reseq, l->idx, alive);
	if (alive) {
		l->st.up_events++;
		gw_sinfo(s, "path %s: up (peer %s)", cp->name,
			 gw_addr_str(&l->peer, a, sizeof(a)));
	} else {
		l->st.down_events++;
		gw_swarn(s, "path %s: down: nothing heard for %u ms", cp->name,
			 s->gw->conf.dead_after_ms);
	}
	/* a path going down may give holes up and release packets */
	if (s->gw->on_link_alive_changed) {
		s->gw->on_link_alive_changed(s, l);
	}
}

void gw_link_heard(struct gw_sess *s, struct gw_link *l,
		   const struct sockaddr_in6 *from, bool newest,
		   uint64_t now_us)
{
	const struct conf_path *cp = &s->gw->conf.path[l->idx];
	bool learnt = false, family;
	char a[GW_ADDR_STR];

	l->last_rx_us = now_us;
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
		if (family &&
		    s->gw->path[l->idx].outer6 != !gw_addr_is4(from)) {
			/* the outer header's size changed: inner_max, MSS */
			gw_paths_update_mtu(s->gw);
		}
	}
	if (learnt) {
		/* a round trip at once, not a probe interval later */
		gw_send_probe(s, l, now_us);
	}
	if (!l->alive) {
		set_alive(s, l, true);
	}
}

void gw_paths_check_alive(struct gw *gw, uint64_t now_us)
{
	uint64_t dead_us = (uint64_t)gw->conf.dead_after_ms * 1000;
	unsigned i, k;

	for (k = 0; k < gw->nsess; k++) {
		struct gw_sess *s = gw->sess[k];

		for (i = 0; i < gw->npaths; i++) {
			struct gw_link *l = &s->link[i];

			if (l->alive && now_us - l->last_rx_us > dead_us) {
				set_alive(s, l, false);
			}
		}
	}
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
		gw_sec_send_hellos(gw->sess[k], now, true);
		gw_send_probe(gw->sess[k], &gw->sess[k]->link[path], now);
	}
}

/* Every probe_interval_ms: the CPE's HELLOs (secure.c), and a PROBE on
 * every path of every session.  The CPE's PROBEs keep the NAT binding
 * open; both ends probe so that both measure the paths' round trips and
 * hear each other within dead_after_ms (the concentrator once it has
 * learnt the path). */
void gw_send_keepalives(struct gw *gw, uint64_t now_us)
{
	unsigned i, k;

	for (k = 0; k < gw->nsess; k++) {
		struct gw_sess *s = gw->sess[k];

		gw_sec_send_hellos(s, now_us, false);
		for (i = 0; i < gw->npaths; i++) {
			gw_send_probe(s, &s->link[i], now_us);
		}
	}
}
