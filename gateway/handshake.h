/* SPDX-License-Identifier: BSD-2-Clause */
/* A session's security as a state machine: keys, the handshake, and the
 * checks every tunnel packet passes before it may touch any state.  No
 * sockets, no event loop, no session: its inputs are a packet and the
 * time, its outputs what to send and what happened (struct gw_hs_out).
 * secure.c does the sending and acts on the outputs; tests/unit/
 * test_handshake.c runs a CPE and a concentrator against each other in
 * memory.
 *
 * Keys (common/auth.h): the CPE's PSK gives a handshake key per direction;
 * a session's keys come from the PSK and both ends' random values, r_cpe
 * (HELLO) and r_conc (HELLO_ACK), so every session has fresh keys and its
 * packet numbers can start at 0 without reusing a nonce.
 *
 * Handshake.  The CPE picks r_cpe and sends HELLO(r_cpe) on every path,
 * every probe interval until it has a session and every GW_HELLO_MS after
 * on a path in use (so that it learns soon when the concentrator
 * restarted; an idle path's probes notice it, gw_hs_hello_due).  The
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
 * after an earlier one means the peer started afresh (out->restarted).
 *
 * HELLO and HELLO_ACK are sealed under the handshake keys with a random
 * packet number with the top bit set (apart from the session numbers,
 * which count from 0 and stop at 2^63).  Every other packet is sealed
 * under the session key of its direction with the next packet number.
 *
 * Receiving, in this order, all before any state: the key by type (a type
 * sent only by the other role is dropped), the path's replay window (a
 * cheap check first), the tag (which also decrypts), the window updated,
 * then the body parsed.  Each refusal has its reason (enum gw_auth_drop),
 * which the caller counts (egr.auth.*).
 */
#ifndef L3BOND_GW_HANDSHAKE_H
#define L3BOND_GW_HANDSHAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/auth.h"
#include "common/replay.h"
#include "common/wire.h"

enum gw_hs_limits {
	GW_HELLO_MS = 500,   /* CPE: HELLO per path once a session is up */
	GW_PENDING = 4,	     /* concentrator: handshakes waiting to complete */
	GW_ACK_PER_S = 50,   /* concentrator: HELLO_ACKs per path per second */
	GW_ACK_PER_RCPE = 6, /* ... for one r_cpe (a CPE sends at most 5) */
	GW_ACK_RECENT = 4,   /* r_cpe values remembered per path for that */
	/* a sealed HELLO or HELLO_ACK */
	GW_HS_PKT_MAX = WIRE_HDR_LEN + WIRE_HELLO_ACK_LEN + WIRE_TAG_LEN,
};

/* Why a packet that is well formed was refused.  Each its counter. */
enum gw_auth_drop {
	GW_AUTH_OK = 0,
	GW_AUTH_NO_SESSION,    /* session packet, but no session keys */
	GW_AUTH_BAD_TAG,       /* the tag does not verify */
	GW_AUTH_REPLAY,	       /* pn already seen on the path */
	GW_AUTH_TOO_OLD,       /* pn older than the replay window */
	GW_AUTH_WRONG_DIR,     /* HELLO at a CPE, HELLO_ACK at a concentrator */
	GW_AUTH_STALE_ACK,     /* HELLO_ACK not for our current r_cpe */
	GW_AUTH_HELLO_LIMITED, /* HELLO left unanswered: rate limit */
	GW_AUTH_MAX,
};

/* its name: the label of egr.auth and of the debug log ("bad_tag") */
const char *gw_auth_drop_name(enum gw_auth_drop d);

/* The keys of one session: both ends' random values, a key per
 * direction, a replay window per path. */
struct gw_keys {
	uint64_t r_cpe;
	uint64_t r_conc;
	struct auth_key tx;
	struct auth_key rx;
	struct replay_win win[WIRE_MAX_PATHS];
};

/* A handshake the concentrator answered and waits to see completed: the
 * first packet under its keys makes it the session. */
struct gw_pending {
	bool used;
	uint64_t r_cpe;
	uint64_t r_conc;
	uint64_t since_us;
	struct auth_key rx;
};

/* Concentrator, per path: the HELLO_ACK rate limit's window. */
struct gw_hs_acks {
	uint64_t window_us;
	unsigned n;
	struct {
		uint64_t r_cpe;
		unsigned n;
	} recent[GW_ACK_RECENT]; /* answered in this window */
};

struct gw_sec_stats {
	uint64_t handshakes;   /* sessions established */
	uint64_t hellos;       /* CPE: HELLOs sent; conc: authentic ones */
	uint64_t rekeys;       /* CPE: new r_cpe after a concentrator restart */
	uint64_t pn_exhausted; /* packets not sent: pn at its limit */
};

/* The security state of a session. */
struct gw_sec {
	bool cpe; /* our role */
	enum auth_mode mode;
	struct auth_key psk;
	struct auth_key hello_tx; /* our sending direction */
	struct auth_key hello_rx;
	bool have_keys; /* cur is valid */
	bool had_keys;	/* a session existed before (restart detection) */
	struct gw_keys cur;
	uint64_t tx_pn; /* next packet number under cur.tx */
	/* CPE: the r_cpe of our HELLOs; adopted: an r_conc was taken for it
	 * (a second, different one means the concentrator restarted) */
	uint64_t r_cpe;
	bool adopted;
	uint64_t hello_us[WIRE_MAX_PATHS]; /* CPE: HELLO sent, 0: never */
	/* concentrator */
	struct gw_pending pend[GW_PENDING];
	struct gw_hs_acks acks[WIRE_MAX_PATHS];
	struct gw_sec_stats st;
};

/* What the machine asks of its caller after an input. */
struct gw_hs_out {
	/* the session (r_cpe, r_conc) started: keys ready; restarted: after
	 * an earlier one, so the peer's numbering started again */
	bool established;
	bool restarted;
	uint64_t r_cpe;
	uint64_t r_conc;
	/* CPE: the concentrator answered with another session (it
	 * restarted): a new r_cpe, HELLOs on every path now */
	bool rekey;
	/* concentrator: pkt[0 .. len) goes back to where the HELLO came
	 * from (len < 0: it could not be built, -errno); fresh: for a new
	 * handshake, r_cpe */
	int len;
	bool fresh;
	/* an authentic HELLO or HELLO_ACK refused, the reason to count */
	enum gw_auth_drop drop;
	uint8_t pkt[GW_HS_PKT_MAX]; /* last: not cleared between inputs */
};

/* cpe: our role; the keys from psk, a first r_cpe on a CPE */
void gw_hs_init(struct gw_sec *c, bool cpe, const struct auth_key *psk,
		bool encrypt);
void gw_hs_wipe(struct gw_sec *c);

/* Next packet number under the session's sending key, or -ENOTCONN (no
 * session), -EOVERFLOW (exhausted: a new handshake is under way), or
 * -EKEYEXPIRED (exhausted, and this CPE has just picked a new r_cpe: its
 * HELLOs are due now). */
int gw_hs_next_pn(struct gw_sec *c, uint64_t *pn);

/* Seals a packet under the session's sending key: hdr is the encoded
 * header (with pn), body is encrypted in place in AUTH_ENCRYPT mode. */
void gw_hs_seal(const struct gw_sec *c, uint64_t pn, const uint8_t *hdr,
		uint8_t *body, size_t bodylen, uint8_t tag[WIRE_TAG_LEN]);

/* The checks between the header and any state: chooses the key for m's
 * type, checks the replay window, the tag (decrypting), records pn, and
 * parses the body.  pkt: the wire header m was parsed from (writable: the
 * body is decrypted in place).  Returns GW_AUTH_OK, a reason, or
 * GW_AUTH_MAX when the authentic body is malformed (the reason in *wire).
 * On OK, *newest tells whether pn is the highest seen on the path.  On a
 * concentrator the first packet under a pending handshake's keys makes it
 * the session: out->established. */
enum gw_auth_drop gw_hs_open(struct gw_sec *c, uint8_t *pkt,
			     struct wire_msg *m, enum wire_drop *wire,
			     bool *newest, struct gw_hs_out *out);

/* CPE: whether path's HELLO is due at now (force: at once).  idle: the
 * path carries no data and answers its probes (ingress/detect.h,
 * ing_detect_idle): once a session is up, no HELLO goes on it (an idle
 * line's cost: issue 14); its probes go on, and one unanswered, or the
 * first data, ends the idleness and brings the HELLOs back. */
bool gw_hs_hello_due(const struct gw_sec *c, unsigned path, uint64_t now_us,
		     bool force, bool idle);
/* CPE: our HELLO on path for session, sealed into pkt (cap bytes); its
 * length or -errno */
int gw_hs_hello(const struct gw_sec *c, unsigned path, uint32_t session,
		uint64_t now_us, uint8_t *pkt, size_t cap);
/* CPE: a new handshake with a new r_cpe (another concentrator); the
 * running session carries on meanwhile */
void gw_hs_restart(struct gw_sec *c);
/* CPE: the HELLO went out on path */
void gw_hs_hello_sent(struct gw_sec *c, unsigned path, uint64_t now_us);

/* An authentic HELLO (concentrator) or HELLO_ACK (CPE), as gw_hs_open
 * returned it: what to answer, or what changed. */
void gw_hs_on_hello(struct gw_sec *c, const struct wire_msg *m,
		    uint64_t now_us, struct gw_hs_out *out);

#endif
