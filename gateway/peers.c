/* SPDX-License-Identifier: BSD-2-Clause */
/* A CPE's ordered list of concentrators: which one the session uses, when
 * it leaves it and when it comes back to the first (peers.h).
 *
 * Moving sets every link's peer to the entry's address on its path and
 * starts a new handshake at once (a new r_cpe: the new concentrator's
 * first answer gives the session, one round trip, and the old one's late
 * answers are stale).  Coming back is decided by an authentic HELLO_ACK
 * of the first entry, the answer to the HELLOs it is sent meanwhile; the
 * handshake machine has already acted on it (its r_conc is not the
 * session's: it picked a new r_cpe, secure.c sends it), only the links'
 * addresses change here.
 */
#include <arpa/inet.h>
#include <string.h>

#include "gateway/gw.h"
#include "gateway/outer.h"
#include "gateway/path.h"
#include "gateway/peers.h"
#include "gateway/session.h"

void gw_peers_init(struct gw_sess *s)
{
	const struct conf *c = &s->gw->conf;
	struct gw_peers *pr = &s->peers;
	unsigned i, j;

	memset(pr, 0, sizeof(*pr));
	if (c->role != ROLE_CPE) {
		return;
	}
	pr->n = c->path[0].npeers;
	for (i = 0; i < s->gw->npaths; i++) {
		const struct conf_path *cp = &c->path[i];

		for (j = 0; j < pr->n; j++) {
			struct sockaddr_in6 *a = &pr->addr[i][j];

			a->sin6_family = AF_INET6;
			a->sin6_port =
				htons(cp->peer_port ? cp->peer_port : c->port);
			/* an IPv4 or IPv6 literal (conf.c checked it) */
			if (inet_pton(AF_INET6, cp->peers[j], &a->sin6_addr) !=
			    1) {
				a->sin6_addr.s6_addr[10] = 0xff;
				a->sin6_addr.s6_addr[11] = 0xff;
				inet_pton(AF_INET, cp->peers[j],
					  &a->sin6_addr.s6_addr[12]);
			}
		}
		gw_link_set_peer(&s->link[i], &pr->addr[i][0]);
		s->link[i].have_peer = true;
	}
}

/* the entry whose address on path is from, or -1 */
static int entry_of(const struct gw_peers *pr, unsigned path,
		    const struct sockaddr_in6 *from)
{
	unsigned j;

	for (j = 0; j < pr->n; j++) {
		if (!memcmp(&pr->addr[path][j].sin6_addr, &from->sin6_addr,
			    16) &&
		    pr->addr[path][j].sin6_port == from->sin6_port) {
			return (int)j;
		}
	}
	return -1;
}

static void use(struct gw_sess *s, unsigned j, const char *why)
{
	struct gw_peers *pr = &s->peers;
	char a[GW_ADDR_STR];
	unsigned i;

	pr->cur = j;
	pr->unanswered = 0;
	pr->return_us = 0;
	pr->st.moves++;
	for (i = 0; i < s->gw->npaths; i++) {
		gw_link_set_peer(&s->link[i], &pr->addr[i][j]);
	}
	gw_swarn(s, "concentrator %u of %u (%s on path %s): %s", j + 1, pr->n,
		 gw_addr_str(&pr->addr[0][j], a, sizeof(a)),
		 s->gw->conf.path[0].name, why);
}

bool gw_peers_before_hellos(struct gw_sess *s, uint64_t now_us)
{
	struct gw_peers *pr = &s->peers;

	if (pr->n < 2 || pr->unanswered < GW_PEER_TRIES ||
	    now_us - pr->unanswered_us < GW_PEER_WAIT_MS * 1000ULL) {
		return false;
	}
	use(s, (pr->cur + 1) % pr->n,
	    "the one in use answered no HELLO; new handshake");
	/* the first, just left, is asked again GW_PEER_RETURN_MS later */
	pr->return_us = now_us;
	gw_hs_restart(&s->sec);
	return true;
}

void gw_peers_hellos_sent(struct gw_sess *s, uint64_t now_us)
{
	struct gw_peers *pr = &s->peers;

	if (!pr->unanswered++) {
		pr->unanswered_us = now_us;
	}
}

bool gw_peers_return_due(const struct gw_sess *s, uint64_t now_us)
{
	const struct gw_peers *pr = &s->peers;

	return pr->n > 1 && pr->cur &&
	       now_us - pr->return_us >= GW_PEER_RETURN_MS * 1000ULL;
}

void gw_peers_return_sent(struct gw_sess *s, uint64_t now_us)
{
	s->peers.return_us = now_us;
}

bool gw_peers_ack_ok(struct gw_sess *s, unsigned path,
		     const struct sockaddr_in6 *from)
{
	struct gw_peers *pr = &s->peers;
	int j;

	if (pr->n < 2) {
		return true;
	}
	j = entry_of(pr, path, from);
	if (j == 0 || (j >= 0 && (unsigned)j == pr->cur)) {
		return true;
	}
	pr->st.acks_other++;
	return false;
}

void gw_peers_answered(struct gw_sess *s, unsigned path,
		       const struct sockaddr_in6 *from)
{
	struct gw_peers *pr = &s->peers;
	int j;

	if (pr->n < 2) {
		pr->unanswered = 0;
		return;
	}
	j = entry_of(pr, path, from);
	if (j < 0) {
		return;
	}
	if ((unsigned)j != pr->cur) {
		/* the first answers again (gw_peers_ack_ok let no other
		 * through) */
		pr->st.returns++;
		use(s, (unsigned)j, "the first answers again; back to it");
		return;
	}
	pr->unanswered = 0;
}
