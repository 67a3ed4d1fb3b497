/* SPDX-License-Identifier: BSD-2-Clause */
/* The handshake and the packet checks as a state machine (handshake.h):
 * a packet and the time in, what to send and what happened out. */
#include "gateway/handshake.h"

#include <errno.h>
#include <string.h>

static const uint64_t HELLO_PN = 1ULL << 63;

void gw_hs_init(struct gw_sec *c, bool cpe, const struct auth_key *psk,
		bool encrypt)
{
	memset(c, 0, sizeof(*c));
	c->cpe = cpe;
	c->mode = encrypt ? AUTH_ENCRYPT : AUTH_MAC;
	c->psk = *psk;
	auth_hello_key(&c->hello_tx, &c->psk, cpe ? AUTH_C2S : AUTH_S2C);
	auth_hello_key(&c->hello_rx, &c->psk, cpe ? AUTH_S2C : AUTH_C2S);
	if (cpe) {
		c->r_cpe = auth_random64();
	}
}

void gw_hs_wipe(struct gw_sec *c)
{
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

static void make_keys(const struct gw_sec *c, struct gw_keys *k,
		      uint64_t r_cpe, uint64_t r_conc)
{
	unsigned i;

	k->r_cpe = r_cpe;
	k->r_conc = r_conc;
	auth_session_key(&k->tx, &c->psk, c->cpe ? AUTH_C2S : AUTH_S2C, r_cpe,
			 r_conc);
	auth_session_key(&k->rx, &c->psk, c->cpe ? AUTH_S2C : AUTH_C2S, r_cpe,
			 r_conc);
	for (i = 0; i < WIRE_MAX_PATHS; i++) {
		replay_init(&k->win[i]);
	}
}

/* The session (r_cpe, r_conc) starts now, on both ends' first packets. */
static void start(struct gw_sec *c, uint64_t r_cpe, uint64_t r_conc,
		  struct gw_hs_out *out)
{
	out->restarted = c->had_keys;
	make_keys(c, &c->cur, r_cpe, r_conc);
	c->tx_pn = 0;
	c->have_keys = true;
	c->had_keys = true;
	c->st.handshakes++;
	out->established = true;
	out->r_cpe = r_cpe;
	out->r_conc = r_conc;
}

/* CPE: a new handshake with a new r_cpe; the running session carries on
 * meanwhile. */
static void rekey(struct gw_sec *c)
{
	c->r_cpe = auth_random64();
	c->adopted = false;
	c->st.rekeys++;
}

void gw_hs_restart(struct gw_sec *c)
{
	rekey(c);
}

int gw_hs_next_pn(struct gw_sec *c, uint64_t *pn)
{
	if (!c->have_keys) {
		return -ENOTCONN;
	}
	if (auth_pn_exhausted(c->tx_pn)) {
		c->st.pn_exhausted++;
		if (c->cpe && c->adopted) {
			rekey(c);
			return -EKEYEXPIRED;
		}
		return -EOVERFLOW;
	}
	*pn = c->tx_pn++;
	return 0;
}

void gw_hs_seal(const struct gw_sec *c, uint64_t pn, const uint8_t *hdr,
		uint8_t *body, size_t bodylen, uint8_t tag[WIRE_TAG_LEN])
{
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
static bool try_pending(struct gw_sec *c, uint8_t *pkt,
			const struct wire_msg *m, struct gw_hs_out *out)
{
	unsigned i;

	for (i = 0; i < GW_PENDING; i++) {
		struct gw_pending *pd = &c->pend[i];

		if (!pd->used || !open_with(c, &pd->rx, pkt, m)) {
			continue;
		}
		start(c, pd->r_cpe, pd->r_conc, out);
		/* the others were earlier attempts, or replays */
		for (i = 0; i < GW_PENDING; i++) {
			auth_key_wipe(&c->pend[i].rx);
			c->pend[i].used = false;
		}
		return true;
	}
	return false;
}

enum gw_auth_drop gw_hs_open(struct gw_sec *c, uint8_t *pkt,
			     struct wire_msg *m, enum wire_drop *wire,
			     bool *newest, struct gw_hs_out *out)
{
	uint8_t type = m->hdr.type;
	struct replay_win *win = &c->cur.win[m->hdr.path];
	int seen = -ENOKEY;

	memset(out, 0, offsetof(struct gw_hs_out, pkt));
	*newest = false;
	*wire = WIRE_OK;
	if (type == WIRE_HELLO || type == WIRE_HELLO_ACK) {
		if ((type == WIRE_HELLO) == c->cpe) {
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
	if (!c->cpe && try_pending(c, pkt, m, out)) {
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

/* A HELLO or HELLO_ACK for session on path, sealed under our handshake
 * key into pkt; its length or -errno. */
static int build(const struct gw_sec *c, uint8_t type, unsigned path,
		 uint32_t session, const struct wire_hello *hb,
		 uint64_t now_us, uint8_t *pkt, size_t cap)
{
	struct wire_hdr h = {
		.type = type,
		.path = (uint8_t)path,
		.session = session,
		.pn = auth_random64() | HELLO_PN,
		.tstamp = (uint32_t)now_us,
	};
	uint8_t body[WIRE_HELLO_ACK_LEN];
	int blen, n;

	blen = type == WIRE_HELLO ? wire_put_hello(body, sizeof(body), hb)
				  : wire_put_hello_ack(body, sizeof(body), hb);
	n = blen < 0 ? blen : wire_build(pkt, cap, &h, body, (size_t)blen);
	if (n < 0) {
		return n;
	}
	auth_seal(&c->hello_tx, h.pn, c->mode, pkt, WIRE_HDR_LEN,
		  pkt + WIRE_HDR_LEN, (size_t)blen, pkt + WIRE_HDR_LEN + blen);
	return n;
}

bool gw_hs_hello_due(const struct gw_sec *c, unsigned path, uint64_t now_us,
		     bool force, bool idle)
{
	/* until a session is up: every probe interval (every call) */
	return c->cpe &&
	       (force || !c->adopted || !c->hello_us[path] ||
		(!idle && now_us - c->hello_us[path] >= GW_HELLO_MS * 1000ULL));
}

int gw_hs_hello(const struct gw_sec *c, unsigned path, uint32_t session,
		uint64_t now_us, uint8_t *pkt, size_t cap)
{
	struct wire_hello hb = {.r_cpe = c->r_cpe};

	return build(c, WIRE_HELLO, path, session, &hb, now_us, pkt, cap);
}

void gw_hs_hello_sent(struct gw_sec *c, unsigned path, uint64_t now_us)
{
	c->hello_us[path] = now_us;
	c->st.hellos++;
}

/* Concentrator: whether to answer a HELLO for r_cpe on a path now.  At
 * most GW_ACK_PER_S a second per path, and of them at most GW_ACK_PER_RCPE
 * for one r_cpe: a CPE repeats its HELLO a few times a second, a replayer
 * of captured HELLOs repeats old r_cpe values, so the replays of one HELLO
 * cannot use up the budget of a CPE's new one. */
static bool ack_ok(struct gw_hs_acks *a, uint64_t r_cpe, uint64_t now_us)
{
	unsigned i, free = GW_ACK_RECENT;

	if (now_us - a->window_us >= 1000000) {
		a->window_us = now_us;
		a->n = 0;
		memset(a->recent, 0, sizeof(a->recent));
	}
	if (a->n >= GW_ACK_PER_S) {
		return false;
	}
	for (i = 0; i < GW_ACK_RECENT; i++) {
		if (a->recent[i].n && a->recent[i].r_cpe == r_cpe) {
			if (a->recent[i].n >= GW_ACK_PER_RCPE) {
				return false;
			}
			a->recent[i].n++;
			a->n++;
			return true;
		}
		if (!a->recent[i].n && free == GW_ACK_RECENT) {
			free = i;
		}
	}
	if (free < GW_ACK_RECENT) {
		a->recent[free].r_cpe = r_cpe;
		a->recent[free].n = 1;
	}
	a->n++;
	return true;
}

/* Concentrator: an authentic HELLO. */
static void on_hello(struct gw_sec *c, const struct wire_msg *m,
		     uint64_t now_us, struct gw_hs_out *out)
{
	uint64_t r_cpe = m->u.hello.r_cpe;
	struct wire_hello ack = {.r_cpe = r_cpe};
	struct gw_pending *pd = NULL, *old = &c->pend[0];
	unsigned i;

	c->st.hellos++;
	if (!ack_ok(&c->acks[m->hdr.path], r_cpe, now_us)) {
		out->drop = GW_AUTH_HELLO_LIMITED;
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
	out->fresh = true;
	out->r_cpe = r_cpe;
answer:
	/* to where the HELLO came from: the path's address is learnt only
	 * from packets under the session keys */
	out->len = build(c, WIRE_HELLO_ACK, m->hdr.path, m->hdr.session, &ack,
			 now_us, out->pkt, sizeof(out->pkt));
}

/* CPE: an authentic HELLO_ACK. */
static void on_hello_ack(struct gw_sec *c, const struct wire_hello *h,
			 struct gw_hs_out *out)
{
	if (h->r_cpe != c->r_cpe) {
		/* an answer to an earlier HELLO of ours, late or replayed */
		out->drop = GW_AUTH_STALE_ACK;
		return;
	}
	if (!c->adopted) {
		c->adopted = true;
		start(c, h->r_cpe, h->r_conc, out);
		return;
	}
	if (c->have_keys && h->r_conc == c->cur.r_conc) {
		return;
	}
	rekey(c);
	out->rekey = true;
}

void gw_hs_on_hello(struct gw_sec *c, const struct wire_msg *m,
		    uint64_t now_us, struct gw_hs_out *out)
{
	memset(out, 0, offsetof(struct gw_hs_out, pkt));
	if (m->hdr.type == WIRE_HELLO) {
		on_hello(c, m, now_us, out);
	} else {
		on_hello_ack(c, &m->u.hello, out);
	}
}

const char *gw_auth_drop_name(enum gw_auth_drop d)
{
	static const char *const names[GW_AUTH_MAX] = {
		[GW_AUTH_OK] = "ok",
		[GW_AUTH_NO_SESSION] = "no_session",
		[GW_AUTH_BAD_TAG] = "bad_tag",
		[GW_AUTH_REPLAY] = "replay",
		[GW_AUTH_TOO_OLD] = "too_old",
		[GW_AUTH_WRONG_DIR] = "wrong_dir",
		[GW_AUTH_STALE_ACK] = "stale_ack",
		[GW_AUTH_HELLO_LIMITED] = "hello_limited",
	};

	if ((unsigned)d >= GW_AUTH_MAX || !names[d]) {
		return "unknown";
	}
	return names[d];
}
