/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests of the handshake state machine (gateway/handshake.c), written
 * from gateway/handshake.h: a CPE and a concentrator machine talk to each
 * other in memory, no sockets, no event loop.  Every packet goes through
 * wire_parse_hdr and gw_hs_open as the daemon's egress does; replayed,
 * truncated, wrong-key, wrong-direction and stale messages each get their
 * outcome, and so do a concentrator restart and packet numbers running
 * out.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gateway/handshake.h"

enum { SESSION = 7, PKT_MAX = WIRE_HDR_LEN + WIRE_PROBE_LEN + WIRE_TAG_LEN };

struct pkt {
	uint8_t b[GW_HS_PKT_MAX + PKT_MAX]; /* either */
	int len;
};

/* What the receiver made of a packet. */
struct rx {
	enum wire_drop wire; /* of wire_parse_hdr, or of the body */
	enum gw_auth_drop auth;
	bool newest;
	struct wire_msg m;
	struct gw_hs_out out;
};

static struct auth_key psk, other_psk;

static void keys(void)
{
	unsigned i;

	for (i = 0; i < sizeof(psk.b); i++) {
		psk.b[i] = (uint8_t)i;
		other_psk.b[i] = (uint8_t)(i + 1);
	}
}

/* Gives p (a copy: opening decrypts in place) to the machine c. */
static struct rx deliver(struct gw_sec *c, const struct pkt *p)
{
	struct pkt copy = *p;
	struct rx r;

	memset(&r, 0, sizeof(r));
	r.wire = wire_parse_hdr(copy.b, (size_t)copy.len, &r.m);
	if (r.wire != WIRE_OK) {
		r.auth = GW_AUTH_MAX;
		return r;
	}
	/* whatever the caller's stack held: the machine sets every output */
	memset(&r.out, 0xa5, sizeof(r.out));
	r.auth = gw_hs_open(c, copy.b, &r.m, &r.wire, &r.newest, &r.out);
	return r;
}

/* The CPE's HELLO on path. */
static struct pkt hello(struct gw_sec *cpe, unsigned path, uint64_t now)
{
	struct pkt p;

	assert_true(gw_hs_hello_due(cpe, path, now, false, false));
	p.len = gw_hs_hello(cpe, path, SESSION, now, p.b, sizeof(p.b));
	assert_true(p.len > 0);
	gw_hs_hello_sent(cpe, path, now);
	return p;
}

/* An authentic HELLO or HELLO_ACK given to its machine: its outputs. */
static struct gw_hs_out handle(struct gw_sec *c, const struct pkt *p,
			       uint64_t now)
{
	struct rx r = deliver(c, p);
	struct gw_hs_out out;

	assert_int_equal(r.auth, GW_AUTH_OK);
	assert_false(r.out.established);
	memset(&out, 0xa5, sizeof(out));
	gw_hs_on_hello(c, &r.m, now, &out);
	return out;
}

static struct pkt answer(const struct gw_hs_out *o)
{
	struct pkt p;

	assert_true(o->len > 0);
	memcpy(p.b, o->pkt, (size_t)o->len);
	p.len = o->len;
	return p;
}

/* A PROBE of c's session on path, sealed under its sending key. */
static struct pkt probe(struct gw_sec *c, unsigned path, uint32_t id)
{
	struct wire_hdr h = {
		.type = WIRE_PROBE, .path = (uint8_t)path, .session = SESSION};
	struct wire_probe pr = {.id = id, .value = 99};
	uint8_t body[WIRE_PROBE_LEN];
	struct pkt p;

	assert_int_equal(gw_hs_next_pn(c, &h.pn), 0);
	wire_put_probe(body, sizeof(body), &pr);
	p.len = wire_build(p.b, sizeof(p.b), &h, body, sizeof(body));
	assert_int_equal(p.len, PKT_MAX);
	gw_hs_seal(c, h.pn, p.b, p.b + WIRE_HDR_LEN, sizeof(body),
		   p.b + WIRE_HDR_LEN + sizeof(body));
	return p;
}

/* HELLO, HELLO_ACK, the CPE's first PROBE: both ends have the session. */
static void connect(struct gw_sec *cpe, struct gw_sec *conc, uint64_t now)
{
	struct pkt h = hello(cpe, 0, now), a, pr;
	struct gw_hs_out out = handle(conc, &h, now);
	struct rx r;

	assert_true(out.fresh);
	a = answer(&out);
	out = handle(cpe, &a, now);
	assert_true(out.established);
	assert_true(cpe->have_keys && cpe->adopted);
	pr = probe(cpe, 1, 1);
	r = deliver(conc, &pr);
	assert_int_equal(r.auth, GW_AUTH_OK);
	assert_true(r.out.established);
	assert_true(r.newest);
	assert_int_equal(r.m.u.probe.id, 1);
	assert_true(conc->have_keys);
	assert_true(conc->cur.r_cpe == cpe->cur.r_cpe);
	assert_true(conc->cur.r_conc == cpe->cur.r_conc);
}

static void setup_pair(struct gw_sec *cpe, struct gw_sec *conc,
		       bool encrypt)
{
	keys();
	gw_hs_init(cpe, true, &psk, encrypt);
	gw_hs_init(conc, false, &psk, encrypt);
}

static void test_establish(void **state)
{
	struct gw_sec cpe, conc;
	struct pkt p;
	struct rx r;
	int enc;

	(void)state;
	for (enc = 0; enc < 2; enc++) {
		setup_pair(&cpe, &conc, enc);
		assert_false(cpe.have_keys || conc.have_keys);
		connect(&cpe, &conc, 1000);
		assert_int_equal(cpe.st.handshakes, 1);
		assert_int_equal(conc.st.handshakes, 1);
		assert_int_equal(cpe.st.hellos, 1);
		assert_int_equal(conc.st.hellos, 1);
		/* and the other way */
		p = probe(&conc, 0, 5);
		r = deliver(&cpe, &p);
		assert_int_equal(r.auth, GW_AUTH_OK);
		assert_int_equal(r.m.u.probe.id, 5);
		assert_false(r.out.established);
		/* the concentrator's pending handshakes are gone */
		assert_false(conc.pend[0].used);
		gw_hs_wipe(&cpe);
		gw_hs_wipe(&conc);
		assert_false(cpe.have_keys);
	}
}

/* Before the handshake: no session; a HELLO at the CPE or a HELLO_ACK at
 * the concentrator is the wrong direction. */
static void test_no_session_wrong_dir(void **state)
{
	struct gw_sec cpe, conc, cpe2;
	struct pkt h, a, p;
	struct gw_hs_out out;
	uint64_t pn;

	(void)state;
	setup_pair(&cpe, &conc, true);
	assert_int_equal(gw_hs_next_pn(&cpe, &pn), -ENOTCONN);
	/* a session packet before any keys */
	gw_hs_init(&cpe2, true, &psk, true);
	h = hello(&cpe, 0, 1000);
	out = handle(&conc, &h, 1000);
	a = answer(&out);
	handle(&cpe, &a, 1000);
	p = probe(&cpe, 0, 1);
	assert_int_equal(deliver(&cpe2, &p).auth, GW_AUTH_NO_SESSION);
	/* directions */
	assert_int_equal(deliver(&cpe2, &h).auth, GW_AUTH_WRONG_DIR);
	assert_int_equal(deliver(&conc, &a).auth, GW_AUTH_WRONG_DIR);
}

/* Another PSK: every message fails its tag, and nothing changes. */
static void test_wrong_key(void **state)
{
	struct gw_sec cpe, conc, bad;
	struct pkt h, p;
	struct rx r;

	(void)state;
	setup_pair(&cpe, &conc, true);
	gw_hs_init(&bad, true, &other_psk, true);
	h = hello(&bad, 0, 1000);
	r = deliver(&conc, &h);
	assert_int_equal(r.auth, GW_AUTH_BAD_TAG);
	assert_false(conc.pend[0].used);
	connect(&cpe, &conc, 1000);
	/* a session packet sealed under other keys */
	bad.have_keys = true;
	p = probe(&bad, 0, 1);
	assert_int_equal(deliver(&conc, &p).auth, GW_AUTH_BAD_TAG);
	/* one bit of an authentic packet flipped */
	p = probe(&cpe, 0, 2);
	p.b[WIRE_HDR_LEN] ^= 1;
	assert_int_equal(deliver(&conc, &p).auth, GW_AUTH_BAD_TAG);
	assert_int_equal(conc.st.handshakes, 1);
}

/* A message cut short: shorter than a header and a tag, wire_parse_hdr
 * refuses it; longer, its tag is read from the wrong bytes and fails.
 * Either way nothing changes. */
static void test_truncated(void **state)
{
	struct gw_sec cpe, conc;
	struct pkt h, p;
	struct rx r;
	int n;

	(void)state;
	setup_pair(&cpe, &conc, true);
	h = hello(&cpe, 0, 1000);
	for (n = 0; n < h.len; n++) {
		struct pkt t = h;

		t.len = n;
		r = deliver(&conc, &t);
		if (n < WIRE_HDR_LEN + WIRE_TAG_LEN) {
			assert_int_not_equal(r.wire, WIRE_OK);
		} else {
			assert_int_equal(r.auth, GW_AUTH_BAD_TAG);
		}
	}
	assert_false(conc.pend[0].used);
	connect(&cpe, &conc, 1000);
	p = probe(&cpe, 0, 1);
	p.len -= 1;
	assert_int_equal(deliver(&conc, &p).auth, GW_AUTH_BAD_TAG);
	/* the whole one still passes: the cut one touched nothing */
	p.len += 1;
	assert_int_equal(deliver(&conc, &p).auth, GW_AUTH_OK);
}

/* Replays: a session packet again is a replay, one older than the window
 * too old; a replayed HELLO is answered with the same r_conc and keeps
 * the running session; a replayed HELLO_ACK changes nothing. */
static void test_replay(void **state)
{
	struct gw_sec cpe, conc;
	struct pkt h, a, first, p;
	struct gw_hs_out out;
	struct rx r;
	uint64_t r_conc;
	unsigned i;

	(void)state;
	setup_pair(&cpe, &conc, true);
	h = hello(&cpe, 0, 1000);
	out = handle(&conc, &h, 1000);
	a = answer(&out);
	handle(&cpe, &a, 1000);
	first = probe(&cpe, 0, 1);
	assert_int_equal(deliver(&conc, &first).auth, GW_AUTH_OK);
	r_conc = conc.cur.r_conc;
	assert_int_equal(deliver(&conc, &first).auth, GW_AUTH_REPLAY);
	/* a window's worth of newer packets: the first falls out of it */
	for (i = 0; i < REPLAY_WINDOW; i++) {
		p = probe(&cpe, 0, 2 + i);
		r = deliver(&conc, &p);
		assert_int_equal(r.auth, GW_AUTH_OK);
		assert_true(r.newest);
	}
	assert_int_equal(deliver(&conc, &first).auth, GW_AUTH_TOO_OLD);
	/* the HELLO again: the running session's r_conc, no new pending */
	out = handle(&conc, &h, 2000);
	assert_false(out.fresh);
	a = answer(&out);
	assert_false(conc.pend[0].used);
	/* ... which the CPE has adopted already: nothing happens */
	out = handle(&cpe, &a, 2000);
	assert_false(out.established || out.rekey);
	assert_int_equal(out.drop, GW_AUTH_OK);
	assert_true(conc.cur.r_conc == r_conc);
	assert_int_equal(conc.st.handshakes, 1);
	assert_int_equal(cpe.st.handshakes, 1);
}

/* A HELLO_ACK for an r_cpe the CPE has left (late, or replayed after a
 * rekey) is stale. */
static void test_stale_ack(void **state)
{
	struct gw_sec cpe, conc;
	struct pkt h, a;
	struct gw_hs_out out;
	uint64_t pn;

	(void)state;
	setup_pair(&cpe, &conc, true);
	connect(&cpe, &conc, 1000);
	/* an answer for the running session, held back */
	h = hello(&cpe, 0, 1000 + GW_HELLO_MS * 1000);
	out = handle(&conc, &h, 2000);
	a = answer(&out);
	/* the CPE's packet numbers run out: a new r_cpe */
	cpe.tx_pn = (uint64_t)1 << 63;
	assert_int_equal(gw_hs_next_pn(&cpe, &pn), -EKEYEXPIRED);
	assert_int_equal(cpe.st.pn_exhausted, 1);
	assert_int_equal(cpe.st.rekeys, 1);
	assert_false(cpe.adopted);
	assert_true(gw_hs_hello_due(&cpe, 0, 1001, false, true));
	out = handle(&cpe, &a, 3000);
	assert_int_equal(out.drop, GW_AUTH_STALE_ACK);
	assert_false(out.established || out.rekey);
	/* exhausted again before the new session: no second rekey */
	assert_int_equal(gw_hs_next_pn(&cpe, &pn), -EOVERFLOW);
	assert_int_equal(cpe.st.rekeys, 1);
}

/* The concentrator restarted: its answer to the CPE's HELLO carries
 * another r_conc.  The CPE starts a new handshake with a new r_cpe, and
 * the session it then establishes is a restart on both ends. */
static void test_conc_restart(void **state)
{
	struct gw_sec cpe, conc, conc2;
	struct pkt h, a, pr;
	struct gw_hs_out out;
	uint64_t old_r_cpe;
	struct rx r;

	(void)state;
	setup_pair(&cpe, &conc, false);
	connect(&cpe, &conc, 1000);
	old_r_cpe = cpe.r_cpe;
	/* HELLOs go on every GW_HELLO_MS once adopted */
	assert_false(gw_hs_hello_due(&cpe, 0, 1000 + 1000, false, false));
	assert_true(gw_hs_hello_due(&cpe, 0, 1000 + 1000, true, false));
	assert_true(gw_hs_hello_due(&cpe, 0, 1000 + GW_HELLO_MS * 1000, false,
				    false));
	/* none on an idle path (its probes notice the restart) but forced */
	assert_false(gw_hs_hello_due(&cpe, 0, 1000 + GW_HELLO_MS * 1000, false,
				     true));
	assert_true(gw_hs_hello_due(&cpe, 0, 1000 + GW_HELLO_MS * 1000, true,
				    true));
	gw_hs_init(&conc2, false, &psk, false);
	h = hello(&cpe, 0, 1000 + GW_HELLO_MS * 1000);
	out = handle(&conc2, &h, 600000);
	a = answer(&out);
	out = handle(&cpe, &a, 600000);
	assert_true(out.rekey);
	assert_false(out.established);
	assert_true(cpe.r_cpe != old_r_cpe);
	assert_int_equal(cpe.st.rekeys, 1);
	/* the old session carries on meanwhile */
	assert_true(cpe.have_keys);
	/* the new handshake */
	h = hello(&cpe, 1, 600001);
	out = handle(&conc2, &h, 600001);
	a = answer(&out);
	out = handle(&cpe, &a, 600001);
	assert_true(out.established);
	assert_true(out.restarted);
	pr = probe(&cpe, 1, 9);
	r = deliver(&conc2, &pr);
	assert_int_equal(r.auth, GW_AUTH_OK);
	assert_true(r.out.established);
	assert_false(r.out.restarted); /* its first session */
	/* the CPE restarted instead: the concentrator's second session */
	{
		struct gw_sec cpe2;

		gw_hs_init(&cpe2, true, &psk, false);
		connect(&cpe2, &conc2, 700000);
		assert_int_equal(conc2.st.handshakes, 2);
	}
}

/* Concentrator: a pending handshake does not replace the running session
 * until a packet under its keys arrives; the oldest pending slot is
 * reused when all are taken. */
static void test_pending(void **state)
{
	struct gw_sec cpe, conc, cpes[GW_PENDING + 1];
	struct pkt h, p;
	struct gw_hs_out out;
	uint64_t r_conc;
	unsigned i;

	(void)state;
	setup_pair(&cpe, &conc, true);
	connect(&cpe, &conc, 1000);
	r_conc = conc.cur.r_conc;
	for (i = 0; i < GW_PENDING + 1; i++) {
		gw_hs_init(&cpes[i], true, &psk, true);
		h = hello(&cpes[i], 0, 3000 + i);
		out = handle(&conc, &h, 3000 + i);
		assert_true(out.fresh);
	}
	assert_true(conc.cur.r_conc == r_conc);
	/* the first pending slot was the oldest: reused by the fifth */
	for (i = 0; i < GW_PENDING; i++) {
		assert_true(conc.pend[i].used);
	}
	assert_true(conc.pend[0].r_cpe == cpes[GW_PENDING].r_cpe);
	/* the running session still opens */
	p = probe(&cpe, 0, 3);
	assert_int_equal(deliver(&conc, &p).auth, GW_AUTH_OK);
}

/* At most GW_ACK_PER_RCPE answers a second for one r_cpe on a path, at
 * most GW_ACK_PER_S for all; a new second starts afresh. */
static void test_hello_limit(void **state)
{
	struct gw_sec cpe, conc, other;
	struct pkt h, h2;
	struct gw_hs_out out;
	unsigned i;

	(void)state;
	setup_pair(&cpe, &conc, true);
	gw_hs_init(&other, true, &psk, true);
	h = hello(&cpe, 0, 1000);
	for (i = 0; i < GW_ACK_PER_RCPE; i++) {
		out = handle(&conc, &h, 1000 + i);
		assert_int_equal(out.drop, GW_AUTH_OK);
		assert_true(out.len > 0);
	}
	out = handle(&conc, &h, 2000);
	assert_int_equal(out.drop, GW_AUTH_HELLO_LIMITED);
	assert_int_equal(out.len, 0);
	/* another r_cpe is still answered, on this path */
	h2 = hello(&other, 0, 2000);
	out = handle(&conc, &h2, 2000);
	assert_int_equal(out.drop, GW_AUTH_OK);
	/* and the first on another path */
	h = hello(&cpe, 1, 2000);
	out = handle(&conc, &h, 2000);
	assert_int_equal(out.drop, GW_AUTH_OK);
	/* a second later */
	h = hello(&cpe, 0, 1001000);
	out = handle(&conc, &h, 1001000);
	assert_int_equal(out.drop, GW_AUTH_OK);
	assert_int_equal(conc.st.hellos, GW_ACK_PER_RCPE + 4);
}

/* The concentrator's packet numbers run out: -EOVERFLOW (the CPE
 * rekeys). */
static void test_pn_exhausted_conc(void **state)
{
	struct gw_sec cpe, conc;
	uint64_t pn;

	(void)state;
	setup_pair(&cpe, &conc, true);
	connect(&cpe, &conc, 1000);
	conc.tx_pn = ((uint64_t)1 << 63) - 1;
	assert_int_equal(gw_hs_next_pn(&conc, &pn), 0);
	assert_true(pn == ((uint64_t)1 << 63) - 1);
	assert_int_equal(gw_hs_next_pn(&conc, &pn), -EOVERFLOW);
	assert_int_equal(conc.st.pn_exhausted, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_establish),
		cmocka_unit_test(test_no_session_wrong_dir),
		cmocka_unit_test(test_wrong_key),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_stale_ack),
		cmocka_unit_test(test_conc_restart),
		cmocka_unit_test(test_pending),
		cmocka_unit_test(test_hello_limit),
		cmocka_unit_test(test_pn_exhausted_conc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
