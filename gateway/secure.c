/* SPDX-License-Identifier: BSD-2-Clause */
/* A session's security, the daemon's side: the state machine of
 * handshake.h on a session, its HELLO and HELLO_ACK sent on the path
 * sockets, and what a new session means for the rest of the daemon.
 *
 * The handshake, the keys and the receive checks are handshake.h's.  Only
 * a packet under the session keys that passes its replay window tells
 * that a path is alive, or moves a path's address (alive.c); a HELLO or
 * HELLO_ACK alone never does, since anyone can replay them.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "gateway/gw.h"
#include "gateway/link.h"
#include "gateway/outer.h"
#include "gateway/path.h"
#include "gateway/peers.h"
#include "gateway/secure.h"
#include "gateway/session.h"

void gw_sec_init(struct gw_sess *s, const struct auth_key *psk, bool encrypt)
{
	gw_hs_init(&s->sec, s->gw->conf.role == ROLE_CPE, psk, encrypt);
}

void gw_sec_wipe(struct gw_sess *s)
{
	gw_hs_wipe(&s->sec);
}

/* The session's new keys are in place: the log, and when the peer
 * started afresh, the hook that resets what depends on its numbering. */
static void established(struct gw_sess *s, const struct gw_hs_out *out)
{
	struct gw *gw = s->gw;

	gw_sinfo(s, "session established (r_cpe %016llx, r_conc %016llx)",
		 (unsigned long long)out->r_cpe,
		 (unsigned long long)out->r_conc);
	if (out->restarted) {
		gw_swarn(s, "peer restarted: new session, sequence state "
			    "reset");
		if (gw->on_peer_restarted) {
			gw->on_peer_restarted(s);
		}
	}
	if (gw->on_session_established) {
		gw->on_session_established(s);
	}
}

/* Sends a sealed HELLO or HELLO_ACK of n bytes on l's path to the address
 * to, from src (NULL: the kernel's choice; path.h, gw_path_src). */
static int send_hello(struct gw_sess *s, struct gw_link *l,
		      const uint8_t *pkt, int n, const struct sockaddr_in6 *to,
		      const struct in6_addr *src)
{
	struct sockaddr_in to4;
	const struct sockaddr *dst;
	socklen_t dlen;
	int fd = gw_path_dst(&s->gw->path[l->idx], to, &to4, &dst, &dlen);
	int err;

	if (fd < 0) {
		return -ENOTCONN;
	}
	if (n < 0) {
		l->st.ctrl_errors++;
		return n;
	}
	err = gw_path_sendto(fd, pkt, (size_t)n, dst, dlen, src);
	if (err < 0) {
		l->st.ctrl_errors++;
		return err;
	}
	l->st.ctrl_tx++;
	gw_volume_count(&s->gw->vol, l->idx,
			gw_path_ip_len(&s->gw->path[l->idx], (size_t)n));
	return 0;
}

void gw_sec_send_hellos(struct gw_sess *s, uint64_t now_us, bool force)
{
	uint8_t pkt[GW_HS_PKT_MAX];
	bool sent = false, ret;
	unsigned i;
	int n;

	if (gw_peers_before_hellos(s, now_us)) {
		force = true; /* another concentrator: a new handshake */
	}
	ret = gw_peers_return_due(s, now_us);
	for (i = 0; i < s->gw->npaths; i++) {
		struct gw_link *l = &s->link[i];

		if (ret && gw_link_can_send(s, l)) {
			n = gw_hs_hello(&s->sec, i, s->id, now_us, pkt,
					sizeof(pkt));
			send_hello(s, l, pkt, n, &s->peers.addr[i][0], NULL);
		}
		if (!gw_hs_hello_due(&s->sec, i, now_us, force,
				     gw_link_idle(s, l, now_us)) ||
		    !gw_link_can_send(s, l)) {
			continue;
		}
		n = gw_hs_hello(&s->sec, i, s->id, now_us, pkt, sizeof(pkt));
		if (!send_hello(s, l, pkt, n, &l->peer, NULL)) {
			gw_hs_hello_sent(&s->sec, i, now_us);
			sent = true;
		}
	}
	if (ret) {
		gw_peers_return_sent(s, now_us);
	}
	if (sent) {
		gw_peers_hellos_sent(s, now_us);
	}
}

int gw_sec_next_pn(struct gw_sess *s, uint64_t *pn)
{
	int err = gw_hs_next_pn(&s->sec, pn);

	if (err == -EKEYEXPIRED) {
		gw_sec_send_hellos(s, gw_now_us(), true);
		err = -EOVERFLOW;
	}
	return err;
}

void gw_sec_seal(struct gw_sess *s, uint64_t pn, const uint8_t *hdr,
		 uint8_t *body, size_t bodylen, uint8_t tag[WIRE_TAG_LEN])
{
	gw_hs_seal(&s->sec, pn, hdr, body, bodylen, tag);
}

enum gw_auth_drop gw_sec_open(struct gw_sess *s, uint8_t *pkt,
			      struct wire_msg *m, enum wire_drop *wire,
			      bool *newest)
{
	struct gw_hs_out out;
	enum gw_auth_drop d;

	d = gw_hs_open(&s->sec, pkt, m, wire, newest, &out);
	if (out.established) {
		established(s, &out);
	}
	return d;
}

void gw_sec_on_hello(struct gw_sess *s, struct gw_link *l,
		     const struct sockaddr_in6 *from, const struct in6_addr *to,
		     const struct wire_msg *m, uint64_t now_us)
{
	char a[GW_ADDR_STR];
	struct gw_hs_out out;

	if (m->hdr.type == WIRE_HELLO_ACK &&
	    !gw_peers_ack_ok(s, l->idx, from)) {
		return; /* another concentrator of the list (peers.c) */
	}
	gw_hs_on_hello(&s->sec, m, now_us, &out);
	if (out.drop != GW_AUTH_OK) {
		s->est.auth[out.drop]++;
		return;
	}
	if (m->hdr.type == WIRE_HELLO_ACK) {
		/* before acting on it: back to the first entry moves every
		 * link's address, where the new HELLOs go */
		gw_peers_answered(s, l->idx, from);
	}
	if (out.fresh) {
		gw_sdbg(s, "path %s: HELLO from %s, handshake %016llx",
			s->gw->conf.path[l->idx].name,
			gw_addr_str(from, a, sizeof(a)),
			(unsigned long long)out.r_cpe);
	}
	if (m->hdr.type == WIRE_HELLO) {
		/* from the address the HELLO went to (a VIP) */
		send_hello(s, l, out.pkt, out.len, from, to);
		return;
	}
	if (out.established) {
		established(s, &out);
		return;
	}
	if (out.rekey) {
		gw_swarn(s, "the concentrator answered with another session: "
			    "it restarted; new handshake");
		gw_sec_send_hellos(s, now_us, true);
	}
}
