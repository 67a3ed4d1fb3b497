/* SPDX-License-Identifier: BSD-2-Clause */
/* A session's security, the daemon's side (secure.c): the state machine
 * of handshake.h on a session, its HELLOs sent on the path sockets.
 */
#ifndef L3BOND_GW_SECURE_H
#define L3BOND_GW_SECURE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/auth.h"
#include "common/wire.h"
#include "gateway/handshake.h"

struct gw_link;
struct gw_sess;

void gw_sec_init(struct gw_sess *s, const struct auth_key *psk, bool encrypt);
void gw_sec_wipe(struct gw_sess *s);
/* Next packet number under the session's sending key, or -ENOTCONN (no
 * session) / -EOVERFLOW (exhausted: a new handshake is under way). */
int gw_sec_next_pn(struct gw_sess *s, uint64_t *pn);
/* Seals a packet under the session's sending key: hdr is the encoded
 * header (with pn), body is encrypted in place with encrypt = true. */
void gw_sec_seal(struct gw_sess *s, uint64_t pn, const uint8_t *hdr,
		 uint8_t *body, size_t bodylen, uint8_t tag[WIRE_TAG_LEN]);
/* The checks between the header and any state: chooses the key for m's
 * type, checks the replay window, the tag (decrypting), records pn, and
 * parses the body.  pkt: the wire header m was parsed from (writable: the
 * body is decrypted in place).  Returns GW_AUTH_OK, a reason, or
 * GW_AUTH_MAX when the authentic body is malformed (the reason in *wire).
 * On OK, *newest tells whether pn is the highest seen on the path. */
enum gw_auth_drop gw_sec_open(struct gw_sess *s, uint8_t *pkt,
			      struct wire_msg *m, enum wire_drop *wire,
			      bool *newest);
/* The CPE's HELLO on every path (keepalive tick, or at once) */
void gw_sec_send_hellos(struct gw_sess *s, uint64_t now_us, bool force);
/* a HELLO (concentrator) or HELLO_ACK (CPE) from the address from, sent
 * to the address to (ours: a HELLO_ACK leaves from it) */
void gw_sec_on_hello(struct gw_sess *s, struct gw_link *l,
		     const struct sockaddr_in6 *from, const struct in6_addr *to,
		     const struct wire_msg *m, uint64_t now_us);

#endif
