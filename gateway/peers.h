/* SPDX-License-Identifier: BSD-2-Clause */
/* A CPE's ordered list of concentrators (the peers key, peers.c).
 *
 * Entry j of every path's list is concentrator j: the session uses one
 * concentrator on all its paths at a time, since two concentrators each
 * answering some of a CPE's paths would each take the session from the
 * other at every HELLO.  It moves down the list (wrapping around) when
 * the current one has answered no HELLO on any path for GW_PEER_TRIES
 * HELLOs and GW_PEER_WAIT_MS, and back to the first when that one answers
 * a HELLO again: while on a later one, a HELLO goes to the first on every
 * path every GW_PEER_RETURN_MS.  With more than one entry the CPE tells
 * its concentrators apart by the source address of their HELLO_ACKs (an
 * answer from an address of neither the current nor the first entry is
 * dropped and counted), so each must answer from the address the CPE
 * sent to (a concentrator does: path.c, gw_path_src).  With one entry
 * nothing here acts.
 */
#ifndef L3BOND_GW_PEERS_H
#define L3BOND_GW_PEERS_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/wire.h"

struct gw_sess;

enum gw_peer_limits {
	/* a concentrator a CPE uses is given up after this many of its
	 * HELLOs in a row went unanswered on every path, spanning at least
	 * GW_PEER_WAIT_MS: a HELLO or its answer lost on one path is not
	 * enough (the others' are answered), nor is a round trip of a few
	 * hundred ms before the first session (HELLOs then go every
	 * probe_interval_ms).  Once a session is up HELLOs go every
	 * GW_HELLO_MS (500 ms), so a dead concentrator is left 1.5 to 2 s
	 * after it died. */
	GW_PEER_TRIES = 3,
	GW_PEER_WAIT_MS = 1000,
	/* while on a later entry: a HELLO to the first this often */
	GW_PEER_RETURN_MS = 2000,
};

struct gw_peers_stats {
	uint64_t moves;	       /* to another entry (down, or back) */
	uint64_t returns;      /* of which back to the first */
	uint64_t acks_other;   /* HELLO_ACKs from an entry not in use: dropped */
};

struct gw_peers {
	unsigned n;   /* entries (conf_path.npeers); 0 on a concentrator */
	unsigned cur; /* the one in use */
	struct sockaddr_in6 addr[WIRE_MAX_PATHS][CONF_PEERS_MAX];
	unsigned unanswered; /* HELLO rounds sent to cur since its answer */
	uint64_t unanswered_us; /* the first of them */
	uint64_t return_us;	/* the last HELLO to entry 0, while cur > 0 */
	struct gw_peers_stats st;
};

/* CPE: the lists from the config, and each link's peer the first entry */
void gw_peers_init(struct gw_sess *s);
/* CPE, before its HELLOs go out: moves down the list when the current
 * entry is due to be given up (then every path's HELLO is due at once:
 * returns true) */
bool gw_peers_before_hellos(struct gw_sess *s, uint64_t now_us);
/* CPE: a round of HELLOs went out to the current entry */
void gw_peers_hellos_sent(struct gw_sess *s, uint64_t now_us);
/* CPE, while on a later entry: the first's HELLO is due on every path
 * (it goes out then: gw_peers_return_sent) */
bool gw_peers_return_due(const struct gw_sess *s, uint64_t now_us);
void gw_peers_return_sent(struct gw_sess *s, uint64_t now_us);
/* CPE: a HELLO_ACK from `from` on path; before it is opened: false if it
 * comes from an entry neither in use nor the first (drop it: counted) */
bool gw_peers_ack_ok(struct gw_sess *s, unsigned path,
		     const struct sockaddr_in6 *from);
/* CPE: an authentic HELLO_ACK from `from` on path: the current entry
 * answered, or the first did and the session goes back to it */
void gw_peers_answered(struct gw_sess *s, unsigned path,
		       const struct sockaddr_in6 *from);

#endif
