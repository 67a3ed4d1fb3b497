/* A session's security: keys, the handshake, and the checks every tunnel
 * packet passes before it may touch any state.
 *
 * Keys (common/auth.h): the CPE's PSK gives a handshake key per direction;
 * a session's keys come from the PSK and both ends' random values, r_cpe
 * (HELLO) and r_conc (HELLO_ACK), so every session has fresh keys and its
 * packet numbers can start at 0 without reusing a nonce.
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

static bool is_cpe(const struct gw_sess *s)
{
	return s->gw->conf.role == ROLE_CPE;
}

void gw_sec_init(struct gw_sess *s, const struct auth_key *psk, bool encrypt)
{
	struct gw_sec *c = &s->sec;
	bool cpe = is_cpe(s);

	memset(c, 0, sizeof(*c));
	c->mode = encrypt ? AUTH_ENCRYPT : AUTH_MAC;
	c->psk = *psk;
	auth_hello_key(&c->hello_tx, &c->psk, cpe ? AUTH_C2S : AUTH_S2C);
	auth_hello_key(&c->hello_rx, &c->psk, cpe ? AUTH_S2C : AUTH_C2S);
	if (cpe) {
		c->r_cpe = auth_random64();
	}
}

void gw_sec_wipe(struct gw_sess *s)
{
	struct gw_sec *c = &s->sec;
	unsigned i;

	auth_key_wipe(&c->psk);
	auth_key_wipe(&c->hello_tx);
	auth_key_wipe(&c->hello_rx);
	auth_key_wipe(&c->cur.tx);
	auth_key_wipe(&c->cur.rx);
	for (i = 0; i < GW_PENDING; i++) {
		auth_key_wipe(&c->pend[i].rx);
	}
	c->have_keys = false;
}

static void make_keys(struct gw_sess *s, struct gw_keys *k, uint64_t r_cpe,
		      uint64_t r_conc)
{
	const struct gw_sec *c = &s->sec;
	bool cpe = is_cpe(s);
	unsigned i;

	k->r_cpe = r_cpe;
	k->r_conc = r_conc;
	auth_session_key(&k->tx, &c->psk, cpe ? AUTH_C2S : AUTH_S2C, r_cpe,
			 r_conc);
	auth_session_key(&k->rx, &c->psk, cpe ? AUTH_S2C : AUTH_C2S, r_cpe,
			 r_conc);
	for (i = 0; i < WIRE_MAX_PATHS; i++) {
		replay_init(&k->win[i]);
	}
}

/* The session (r_cpe, r_conc) starts now, on both ends' first packets. */
static void sec_start(struct gw_sess *s, uint64_t r_cpe, uint64_t r_conc)
{
	struct gw_sec *c = &s->sec;
	bool restart = c->had_keys;

	make_keys(s, &c->cur, r_cpe, r_conc);
	c->tx_pn = 0;
	c->have_keys = true;
	c->had_keys = true;
	c->st.handshakes++;
	gw_sinfo(s, "session established (r_cpe %016llx, r_conc %016llx)",
		 (unsigned long long)r_cpe, (unsigned long long)r_conc);
	if (restart) {
		/* The peer's numbering started again: what our egress
		 * holds goes out in order, its state and our report
		 * baselines start afresh, now rather than after timeouts
		 * and a burst of false loss. */
		gw_swarn(s, "peer restarted: new session, sequence state "
			    "reset");
		gw_egr_peer_restarted(s);
		/* our own numbering goes on: see ing_sched_peer_restarted */
		ing_sched_peer_restarted(&s->sched);
	}
}

/* Sends a HELLO or HELLO_ACK on l's path to the address to, sealed under
 * our handshake key. */
static int send_hello(struct gw_sess *s, struct gw_link *l, uint8_t type,
		      const struct wire_hello *hb,
		      const struct sockaddr_in6 *to, uint64_t now_us)
{
	struct sockaddr_in to4;
	const struct sockaddr *dst;
	socklen_t dlen;
	int fd = gw_path_dst(&s->gw->path[l->idx], to, &to4, &dst, &dlen);
	struct gw_sec *c = &s->sec;
	struct wire_hdr h = {
		.type = type,
		.path = (uint8_t)l->idx,
		.session = s->id,
		.pn = auth_random64() | HELLO_PN,
		.tstamp = (uint32_t)now_us,
	};
	uint8_t body[WIRE_HELLO_ACK_LEN];
	uint8_t pkt[WIRE_HDR_LEN + WIRE_HELLO_ACK_LEN + WIRE_TAG_LEN];
	int blen, n;

	if (fd < 0) {
		return -ENOTCONN;
	}
	blen = type == WIRE_HELLO ? wire_put_hello(body, sizeof(body), hb)
				  : wire_put_hello_ack(body, sizeof(body), hb);
	n = blen < 0 ? blen
		     : wire_build(pkt, sizeof(pkt), &h, body, (size_t)blen);
	if (n < 0) {
		l->st.ctrl_errors++;
		return n;
	}
	auth_seal(&c->hello_tx, h.pn, c->mode, pkt, WIRE_HDR_LEN,
		  pkt + WIRE_HDR_LEN, (size_t)blen, pkt + WIRE_HDR_LEN + blen);
	if (sendto(fd, pkt, (size_t)n, MSG_DONTWAIT, dst, dlen) < 0) {
		l->st.ctrl_errors++;
		return -errno;
	}
	l->st.ctrl_tx++;
	return 0;
}

void gw_sec_send_hellos(struct gw_sess *s, uint64_t now_us, bool force)
{
	struct gw_sec *c = &s->sec;
	struct wire_hello hb = {.r_cpe = c->r_cpe};
	unsigned i;

	if (!is_cpe(s)) {
		return;
	}
	for (i = 0; i < s->gw->npaths; i++) {
		struct gw_link *l = &s->link[i];

		/* until a session is up: every probe interval */
		if (!force && c->adopted && l->last_hello_us &&
		    now_us - l->last_hello_us < GW_HELLO_MS * 1000ULL) {
			continue;
		}
		if (gw_link_can_send(s, l) &&
		    !send_hello(s, l, WIRE_HELLO, &hb, &l->peer, now_us)) {
			l->last_hello_us = now_us;
			c->st.hellos++;
		}
	}
}

/* CPE: a new handshake with a new r_cpe; the running session carries on
 * meanwhile. */
static void cpe_rekey(struct gw_sess *s, uint64_t now_us)
{
	struct gw_sec *c = &s->sec;

	c->r_cpe = auth_random64();
	c->adopted = false;
	c->st.rekeys++;
	gw_sec_send_hellos(s, now_us, true);
}

int gw_sec_next_pn(struct gw_sess *s, uint64_t *pn)
{
	struct gw_sec *c = &s->sec;

	if (!c->have_keys) {
		return -ENOTCONN;
	}
	if (auth_pn_exhausted(c->tx_pn)) {
		c->st.pn_exhausted++;
		if (is_cpe(s) && c->adopted) {
			cpe_rekey(s, gw_now_us());
		}
		return -EOVERFLOW;
	}
	*pn = c->tx_pn++;
	return 0;
}

void gw_sec_seal(struct gw_sess *s, uint64_t pn, const uint8_t *hdr,
		 uint8_t *body, size_t bodylen, uint8_t tag[WIRE_TAG_LEN])
{
	struct gw_sec *c = &s->sec;

	auth_seal(&c->cur.tx, pn, c->mode, hdr, WIRE_HDR_LEN, body, bodylen,
		  tag);
}

static bool open_with(const struct gw_sec *c, const struct auth_key *k,
		      uint8_t *pkt, const struct wire_msg *m)
{
	return !auth_open(k, m->hdr.pn, c->mode, pkt, WIRE_HDR_LEN,
			  pkt + WIRE_HDR_LEN, m->body_len, m->tag);
}

/* Concentrator: a packet no key of the running session opens may be the
 * first of a pending one; if so, that one becomes the session. */
static bool try_pending(struct gw_sess *s, uint8_t *pkt,
			const struct wire_msg *m)
{
	struct gw_sec *c = &s->sec;
	unsigned i;

	for (i = 0; i < GW_PENDING; i++) {
		struct gw_pending *pd = &c->pend[i];

		if (!pd->used || !open_with(c, &pd->rx, pkt, m)) {
			continue;
		}
		sec_start(s, pd->r_cpe, pd->r_conc);
		/* the others were earlier attempts, or replays */
		for (i = 0; i < GW_PENDING; i++) {
			auth_key_wipe(&c->pend[i].rx);
			c->pend[i].used = false;
		}
		return true;
	}
	return false;
}

enum gw_auth_drop gw_sec_open(struct gw_sess *s, uint8_t *pkt,
			      struct wire_msg *m, enum wire_drop *wire,
			      bool *newest)
{
	struct gw_sec *c = &s->sec;
	uint8_t type = m->hdr.type;
	struct replay_win *win = &c->cur.win[m->hdr.path];
	int seen = -ENOKEY;

	*newest = false;
	*wire = WIRE_OK;
	if (type == WIRE_HELLO || type == WIRE_HELLO_ACK) {
		if ((type == WIRE_HELLO) == is_cpe(s)) {
			return GW_AUTH_WRONG_DIR;
		}
		if (!open_with(c, &c->hello_rx, pkt, m)) {
			return GW_AUTH_BAD_TAG;
		}
		goto body;
	}
	if (c->have_keys) {
		seen = replay_check(win, m->hdr.pn);
		if (!seen && open_with(c, &c->cur.rx, pkt, m)) {
			*newest = !win->started || m->hdr.pn > win->top;
			replay_update(win, m->hdr.pn);
			goto body;
		}
	}
	if (!is_cpe(s) && try_pending(s, pkt, m)) {
		*newest = true;
		replay_update(&c->cur.win[m->hdr.path], m->hdr.pn);
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

/* Concentrator: whether to answer a HELLO for r_cpe on l now.  At most
 * GW_ACK_PER_S a second per path, and of them at most GW_ACK_PER_RCPE for
 * one r_cpe: a CPE repeats its HELLO a few times a second, a replayer of
 * captured HELLOs repeats old r_cpe values, so the replays of one HELLO
 * cannot use up the budget of a CPE's new one. */
static bool ack_ok(struct gw_link *l, uint64_t r_cpe, uint64_t now_us)
{
	unsigned i, free = GW_ACK_RECENT;

	if (now_us - l->ack_window_us >= 1000000) {
		l->ack_window_us = now_us;
		l->ack_n = 0;
		memset(l->ack_recent, 0, sizeof(l->ack_recent));
	}
	if (l->ack_n >= GW_ACK_PER_S) {
		return false;
	}
	for (i = 0; i < GW_ACK_RECENT; i++) {
		if (l->ack_recent[i].n && l->ack_recent[i].r_cpe == r_cpe) {
			if (l->ack_recent[i].n >= GW_ACK_PER_RCPE) {
				return false;
			}
			l->ack_recent[i].n++;
			l->ack_n++;
			return true;
		}
		if (!l->ack_recent[i].n && free == GW_ACK_RECENT) {
			free = i;
		}
	}
	if (free < GW_ACK_RECENT) {
		l->ack_recent[free].r_cpe = r_cpe;
		l->ack_recent[free].n = 1;
	}
	l->ack_n++;
	return true;
}

/* Concentrator: an authentic HELLO. */
static void on_hello(struct gw_sess *s, struct gw_link *l,
		     const struct sockaddr_in6 *from, uint64_t r_cpe,
		     uint64_t now_us)
{
	char a[GW_ADDR_STR];
	struct gw_sec *c = &s->sec;
	struct wire_hello ack = {.r_cpe = r_cpe};
	struct gw_pending *pd = NULL, *old = &c->pend[0];
	unsigned i;

	c->st.hellos++;
	if (!ack_ok(l, r_cpe, now_us)) {
		s->est.auth[GW_AUTH_HELLO_LIMITED]++;
		return;
	}
	if (c->have_keys && c->cur.r_cpe == r_cpe) {
		ack.r_conc = c->cur.r_conc;
		goto answer;
	}
	for (i = 0; i < GW_PENDING; i++) {
		if (c->pend[i].used && c->pend[i].r_cpe == r_cpe) {
			ack.r_conc = c->pend[i].r_conc;
			goto answer;
		}
		if (!c->pend[i].used && !pd) {
			pd = &c->pend[i];
		}
		if (c->pend[i].since_us < old->since_us) {
			old = &c->pend[i];
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
	auth_session_key(&pd->rx, &c->psk, AUTH_C2S, r_cpe, pd->r_conc);
	ack.r_conc = pd->r_conc;
	gw_sdbg(s, "path %s: HELLO from %s, handshake %016llx",
		s->gw->conf.path[l->idx].name, gw_addr_str(from, a, sizeof(a)),
		(unsigned long long)r_cpe);
answer:
	/* to where the HELLO came from: the path's address is learnt only
	 * from packets under the session keys */
	send_hello(s, l, WIRE_HELLO_ACK, &ack, from, now_us);
}

/* CPE: an authentic HELLO_ACK. */
static void on_hello_ack(struct gw_sess *s, const struct wire_hello *h,
			 uint64_t now_us)
{
	struct gw_sec *c = &s->sec;
	unsigned i;

	if (h->r_cpe != c->r_cpe) {
		/* an answer to an earlier HELLO of ours, late or replayed */
		s->est.auth[GW_AUTH_STALE_ACK]++;
		return;
	}
	if (!c->adopted) {
		c->adopted = true;
		sec_start(s, h->r_cpe, h->r_conc);
		/* the concentrator takes the session, and learns every
		 * path, from our first packets under its keys */
		for (i = 0; i < s->gw->npaths; i++) {
			gw_send_probe(s, &s->link[i], now_us);
		}
		return;
	}
	if (c->have_keys && h->r_conc == c->cur.r_conc) {
		return;
	}
	gw_swarn(s, "the concentrator answered with another session: it "
		    "restarted; new handshake");
	cpe_rekey(s, now_us);
}

void gw_sec_on_hello(struct gw_sess *s, struct gw_link *l,
		     const struct sockaddr_in6 *from, const struct wire_msg *m,
		     uint64_t now_us)
{
	if (m->hdr.type == WIRE_HELLO) {
		on_hello(s, l, from, m->u.hello.r_cpe, now_us);
	} else {
		on_hello_ack(s, &m->u.hello, now_us);
	}
}
