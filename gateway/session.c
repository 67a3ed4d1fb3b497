/* The session's security: keys, the handshake, and the checks every
 * tunnel packet passes before it may touch any state.
 *
 * Keys (common/auth.h): the PSK of the config gives a handshake key per
 * direction; a session's keys come from the PSK and both ends' random
 * values, r_cpe (HELLO) and r_conc (HELLO_ACK), so every session has fresh
 * keys and its packet numbers can start at 0 without reusing a nonce.
 *
 * Handshake.  The CPE picks r_cpe and sends HELLO(r_cpe) on every path,
 * every probe interval until it has a session and every GW_HELLO_MS after
 * (so that it learns soon when the concentrator restarted).  The
 * concentrator answers an authentic HELLO with HELLO_ACK(r_cpe, r_conc):
 * the running session's r_conc if r_cpe is the running session's, else
 * that of a pending handshake for r_cpe, else a fresh one in a new pending
 * slot.  It keeps the running session until a packet under a pending
 * session's keys arrives, which makes that one the session (as WireGuard's
 * responder does): a replayed HELLO costs an answer, never the session.
 * The CPE takes the first r_conc answered for its r_cpe.  A different
 * r_conc for the same r_cpe later means the concentrator lost the session
 * (it restarted): the CPE picks a new r_cpe and starts again, so that no
 * (r_cpe, r_conc) pair, and so no key, is ever used twice.  A new session
 * after an earlier one means the peer started afresh: the sequence and
 * resequencer state are reset at once.
 *
 * HELLO and HELLO_ACK are sealed under the handshake keys with a random
 * packet number with the top bit set (apart from the session numbers,
 * which count from 0 and stop at 2^63).  Every other packet is sealed
 * under the session key of its direction with the next packet number.
 *
 * Receiving, in this order, all before any state: the key by type (a type
 * sent only by the other role is dropped), the path's replay window (a
 * cheap check first), the tag (which also decrypts), the window updated,
 * then the body parsed.  Each refusal has its counter (egr.auth.*).  Only
 * a packet under the session keys that passes its replay window tells
 * that a path is alive, or moves a path's address (path.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "gateway/gw.h"

static const uint64_t HELLO_PN = 1ULL << 63;

static bool is_cpe(const struct gw *gw)
{
	return gw->conf.role == ROLE_CPE;
}

int gw_sess_init(struct gw *gw)
{
	struct gw_sess *s = &gw->sess;
	bool cpe = is_cpe(gw);

	memset(s, 0, sizeof(*s));
	s->mode = gw->conf.encrypt ? AUTH_ENCRYPT : AUTH_MAC;
	s->psk = gw->conf.psk;
	auth_hello_key(&s->hello_tx, &s->psk, cpe ? AUTH_C2S : AUTH_S2C);
	auth_hello_key(&s->hello_rx, &s->psk, cpe ? AUTH_S2C : AUTH_C2S);
	if (cpe) {
		s->r_cpe = auth_random64();
	}
	return 0;
}

void gw_sess_wipe(struct gw *gw)
{
	struct gw_sess *s = &gw->sess;
	unsigned i;

	auth_key_wipe(&s->psk);
	auth_key_wipe(&s->hello_tx);
	auth_key_wipe(&s->hello_rx);
	auth_key_wipe(&s->cur.tx);
	auth_key_wipe(&s->cur.rx);
	for (i = 0; i < GW_PENDING; i++) {
		auth_key_wipe(&s->pend[i].rx);
	}
	s->have_keys = false;
}

static void make_keys(struct gw *gw, struct gw_keys *k, uint64_t r_cpe,
		      uint64_t r_conc)
{
	const struct gw_sess *s = &gw->sess;
	bool cpe = is_cpe(gw);
	unsigned i;

	k->r_cpe = r_cpe;
	k->r_conc = r_conc;
	auth_session_key(&k->tx, &s->psk, cpe ? AUTH_C2S : AUTH_S2C, r_cpe,
			 r_conc);
	auth_session_key(&k->rx, &s->psk, cpe ? AUTH_S2C : AUTH_C2S, r_cpe,
			 r_conc);
	for (i = 0; i < WIRE_MAX_PATHS; i++) {
		replay_init(&k->win[i]);
	}
}

/* The session (r_cpe, r_conc) starts now, on both ends' first packets. */
static void sess_start(struct gw *gw, uint64_t r_cpe, uint64_t r_conc)
{
	struct gw_sess *s = &gw->sess;
	bool restart = s->had_keys;

	make_keys(gw, &s->cur, r_cpe, r_conc);
	s->tx_pn = 0;
	s->have_keys = true;
	s->had_keys = true;
	s->st.handshakes++;
	gw_info(gw, "session established (r_cpe %016llx, r_conc %016llx)",
		(unsigned long long)r_cpe, (unsigned long long)r_conc);
	if (restart) {
		/* The peer's numbering started again: what our egress
		 * holds goes out in order, its state and our report
		 * baselines start afresh, now rather than after timeouts
		 * and a burst of false loss. */
		gw_warn(gw, "peer restarted: new session, sequence state "
			    "reset");
		gw_egr_peer_restarted(gw);
		/* our own numbering goes on: see ing_sched_peer_restarted */
		ing_sched_peer_restarted(&gw->ing.sched);
	}
}

/* Sends a HELLO or HELLO_ACK on p to the address to, sealed under our
 * handshake key. */
static int send_hello(struct gw *gw, struct gw_path *p, uint8_t type,
		      const struct wire_hello *hb, const struct sockaddr_in *to,
		      uint64_t now_us)
{
	struct gw_sess *s = &gw->sess;
	struct wire_hdr h = {
		.type = type,
		.path = (uint8_t)p->idx,
		.session = gw->conf.session_id,
		.pn = auth_random64() | HELLO_PN,
		.tstamp = (uint32_t)now_us,
	};
	uint8_t body[WIRE_HELLO_ACK_LEN];
	uint8_t pkt[WIRE_HDR_LEN + WIRE_HELLO_ACK_LEN + WIRE_TAG_LEN];
	int blen, n;

	if (p->fd < 0) {
		return -ENOTCONN;
	}
	blen = type == WIRE_HELLO ? wire_put_hello(body, sizeof(body), hb)
				  : wire_put_hello_ack(body, sizeof(body), hb);
	n = blen < 0 ? blen
		     : wire_build(pkt, sizeof(pkt), &h, body, (size_t)blen);
	if (n < 0) {
		p->st.ctrl_errors++;
		return n;
	}
	auth_seal(&s->hello_tx, h.pn, s->mode, pkt, WIRE_HDR_LEN,
		  pkt + WIRE_HDR_LEN, (size_t)blen, pkt + WIRE_HDR_LEN + blen);
	if (sendto(p->fd, pkt, (size_t)n, MSG_DONTWAIT,
		   (const struct sockaddr *)to, sizeof(*to)) < 0) {
		p->st.ctrl_errors++;
		return -errno;
	}
	p->st.ctrl_tx++;
	return 0;
}

void gw_sess_send_hellos(struct gw *gw, uint64_t now_us, bool force)
{
	struct gw_sess *s = &gw->sess;
	struct wire_hello hb = {.r_cpe = s->r_cpe};
	unsigned i;

	if (!is_cpe(gw)) {
		return;
	}
	for (i = 0; i < gw->npaths; i++) {
		struct gw_path *p = &gw->path[i];

		/* until a session is up: every probe interval */
		if (!force && s->adopted && p->last_hello_us &&
		    now_us - p->last_hello_us < GW_HELLO_MS * 1000ULL) {
			continue;
		}
		if (gw_path_can_send(p) &&
		    !send_hello(gw, p, WIRE_HELLO, &hb, &p->peer, now_us)) {
			p->last_hello_us = now_us;
			s->st.hellos++;
		}
	}
}

/* CPE: a new handshake with a new r_cpe; the running session carries on
 * meanwhile. */
static void cpe_rekey(struct gw *gw, uint64_t now_us)
{
	struct gw_sess *s = &gw->sess;

	s->r_cpe = auth_random64();
	s->adopted = false;
	s->st.rekeys++;
	gw_sess_send_hellos(gw, now_us, true);
}

int gw_sess_next_pn(struct gw *gw, uint64_t *pn)
{
	struct gw_sess *s = &gw->sess;

	if (!s->have_keys) {
		return -ENOTCONN;
	}
	if (auth_pn_exhausted(s->tx_pn)) {
		s->st.pn_exhausted++;
		if (is_cpe(gw) && s->adopted) {
			cpe_rekey(gw, gw_now_us());
		}
		return -EOVERFLOW;
	}
	*pn = s->tx_pn++;
	return 0;
}

void gw_sess_seal(struct gw *gw, uint64_t pn, const uint8_t *hdr, uint8_t *body,
		  size_t bodylen, uint8_t tag[WIRE_TAG_LEN])
{
	struct gw_sess *s = &gw->sess;

	auth_seal(&s->cur.tx, pn, s->mode, hdr, WIRE_HDR_LEN, body, bodylen,
		  tag);
}

static bool open_with(const struct gw_sess *s, const struct auth_key *k,
		      uint8_t *pkt, const struct wire_msg *m)
{
	return !auth_open(k, m->hdr.pn, s->mode, pkt, WIRE_HDR_LEN,
			  pkt + WIRE_HDR_LEN, m->body_len, m->tag);
}

/* Concentrator: a packet no key of the running session opens may be the
 * first of a pending one; if so, that one becomes the session. */
static bool try_pending(struct gw *gw, uint8_t *pkt, const struct wire_msg *m)
{
	struct gw_sess *s = &gw->sess;
	unsigned i;

	for (i = 0; i < GW_PENDING; i++) {
		struct gw_pending *pd = &s->pend[i];

		if (!pd->used || !open_with(s, &pd->rx, pkt, m)) {
			continue;
		}
		sess_start(gw, pd->r_cpe, pd->r_conc);
		/* the others were earlier attempts, or replays */
		for (i = 0; i < GW_PENDING; i++) {
			auth_key_wipe(&s->pend[i].rx);
			s->pend[i].used = false;
		}
		return true;
	}
	return false;
}

enum gw_auth_drop gw_sess_open(struct gw *gw, uint8_t *pkt, struct wire_msg *m,
			       enum wire_drop *wire, bool *newest)
{
	struct gw_sess *s = &gw->sess;
	uint8_t type = m->hdr.type;
	struct replay_win *win = &s->cur.win[m->hdr.path];
	int seen = -ENOKEY;

	*newest = false;
	*wire = WIRE_OK;
	if (type == WIRE_HELLO || type == WIRE_HELLO_ACK) {
		if ((type == WIRE_HELLO) == is_cpe(gw)) {
			return GW_AUTH_WRONG_DIR;
		}
		if (!open_with(s, &s->hello_rx, pkt, m)) {
			return GW_AUTH_BAD_TAG;
		}
		goto body;
	}
	if (s->have_keys) {
		seen = replay_check(win, m->hdr.pn);
		if (!seen && open_with(s, &s->cur.rx, pkt, m)) {
			*newest = !win->started || m->hdr.pn > win->top;
			replay_update(win, m->hdr.pn);
			goto body;
		}
	}
	if (!is_cpe(gw) && try_pending(gw, pkt, m)) {
		*newest = true;
		replay_update(&s->cur.win[m->hdr.path], m->hdr.pn);
		goto body;
	}
	switch (seen) {
	case -ENOKEY:
		return GW_AUTH_NO_SESSION;
	case -EALREADY:
		return GW_AUTH_REPLAY;
	case -ERANGE:
		return GW_AUTH_TOO_OLD;
	default:
		return GW_AUTH_BAD_TAG;
	}
body:
	*wire = wire_parse_body(m);
	return *wire == WIRE_OK ? GW_AUTH_OK : GW_AUTH_MAX;
}

/* Concentrator: an authentic HELLO. */
static void on_hello(struct gw *gw, struct gw_path *p,
		     const struct sockaddr_in *from, uint64_t r_cpe,
		     uint64_t now_us)
{
	struct gw_sess *s = &gw->sess;
	struct wire_hello ack = {.r_cpe = r_cpe};
	struct gw_pending *pd = NULL, *old = &s->pend[0];
	unsigned i;

	s->st.hellos++;
	if (now_us - p->ack_window_us >= 1000000) {
		p->ack_window_us = now_us;
		p->ack_n = 0;
	}
	if (++p->ack_n > GW_ACK_PER_S) {
		gw->egr.st.auth[GW_AUTH_HELLO_LIMITED]++;
		return;
	}
	if (s->have_keys && s->cur.r_cpe == r_cpe) {
		ack.r_conc = s->cur.r_conc;
		goto answer;
	}
	for (i = 0; i < GW_PENDING; i++) {
		if (s->pend[i].used && s->pend[i].r_cpe == r_cpe) {
			ack.r_conc = s->pend[i].r_conc;
			goto answer;
		}
		if (!s->pend[i].used && !pd) {
			pd = &s->pend[i];
		}
		if (s->pend[i].since_us < old->since_us) {
			old = &s->pend[i];
		}
	}
	if (!pd) {
		pd = old; /* a replay, or an attempt given up */
	}
	pd->used = true;
	pd->r_cpe = r_cpe;
	do {
		pd->r_conc = auth_random64();
	} while (!pd->r_conc);
	pd->since_us = now_us;
	auth_session_key(&pd->rx, &s->psk, AUTH_C2S, r_cpe, pd->r_conc);
	ack.r_conc = pd->r_conc;
	gw_dbg(gw, "path %s: HELLO from %s:%u, handshake %016llx",
	       gw->conf.path[p->idx].name, inet_ntoa(from->sin_addr),
	       ntohs(from->sin_port), (unsigned long long)r_cpe);
answer:
	/* to where the HELLO came from: the path's address is learnt only
	 * from packets under the session keys */
	send_hello(gw, p, WIRE_HELLO_ACK, &ack, from, now_us);
}

/* CPE: an authentic HELLO_ACK. */
static void on_hello_ack(struct gw *gw, const struct wire_hello *h,
			 uint64_t now_us)
{
	struct gw_sess *s = &gw->sess;
	unsigned i;

	if (h->r_cpe != s->r_cpe) {
		/* an answer to an earlier HELLO of ours, late or replayed */
		gw->egr.st.auth[GW_AUTH_STALE_ACK]++;
		return;
	}
	if (!s->adopted) {
		s->adopted = true;
		sess_start(gw, h->r_cpe, h->r_conc);
		/* the concentrator takes the session, and learns every
		 * path, from our first packets under its keys */
		for (i = 0; i < gw->npaths; i++) {
			gw_send_probe(gw, &gw->path[i], now_us);
		}
		return;
	}
	if (s->have_keys && h->r_conc == s->cur.r_conc) {
		return;
	}
	gw_warn(gw, "the concentrator answered with another session: it "
		    "restarted; new handshake");
	cpe_rekey(gw, now_us);
}

void gw_sess_on_hello(struct gw *gw, struct gw_path *p,
		      const struct sockaddr_in *from, const struct wire_msg *m,
		      uint64_t now_us)
{
	if (m->hdr.type == WIRE_HELLO) {
		on_hello(gw, p, from, m->u.hello.r_cpe, now_us);
	} else {
		on_hello_ack(gw, &m->u.hello, now_us);
	}
}
