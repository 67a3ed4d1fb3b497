/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests of gateway/peers.c, a CPE's ordered list of concentrators:
 * the lists taken from the config (entry j of every path is concentrator
 * j), the move down after GW_PEER_TRIES unanswered HELLO rounds spanning
 * GW_PEER_WAIT_MS (a new handshake with it), the wrap around, the HELLO
 * to the first every GW_PEER_RETURN_MS meanwhile, answers of a third
 * address dropped and counted, and the move back when the first answers.
 * peers.c is included; the handshake is the real one (handshake.c), the
 * link's address setter stubbed.  tests/netns/test_ha.sh runs it through
 * the kernel.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "gateway/log.c"
#include "gateway/peers.c"

/* ---- stubs: path.c ------------------------------------------------------- */

void gw_link_set_peer(struct gw_link *l, const struct sockaddr_in6 *a)
{
	l->peer = *a;
}

/* ---- the tests ------------------------------------------------------------- */

static struct gw g;
static struct gw_sess s;

static const char *const dsl[] = {"192.0.2.1", "192.0.2.2", "192.0.2.3"};
static const char *const lte[] = {"198.51.100.1", "198.51.100.2",
				  "198.51.100.3"};

static void setup(unsigned n)
{
	struct auth_key psk;
	unsigned i, j;

	memset(&g, 0, sizeof(g));
	memset(&s, 0, sizeof(s));
	memset(&psk, 7, sizeof(psk));
	conf_defaults(&g.conf);
	g.conf.role = ROLE_CPE;
	g.conf.npaths = 2;
	g.npaths = 2;
	g.log_level = CONF_LOG_ERROR;
	strcpy(g.conf.path[0].name, "dsl");
	strcpy(g.conf.path[1].name, "lte");
	g.conf.path[1].peer_port = 7050;
	for (i = 0; i < 2; i++) {
		g.conf.path[i].npeers = n;
		for (j = 0; j < n; j++) {
			strcpy(g.conf.path[i].peers[j], i ? lte[j] : dsl[j]);
		}
	}
	s.gw = &g;
	gw_hs_init(&s.sec, true, &psk, false);
	gw_peers_init(&s);
}

/* a's address is the IPv4 literal v (v4-mapped), its port p */
static void assert_addr(const struct sockaddr_in6 *a, const char *v,
			unsigned p)
{
	uint8_t want[16] = {[10] = 0xff, [11] = 0xff};

	assert_int_equal(inet_pton(AF_INET, v, want + 12), 1);
	assert_memory_equal(&a->sin6_addr, want, 16);
	assert_int_equal(ntohs(a->sin6_port), p);
}

static void test_init(void **state)
{
	(void)state;
	setup(3);
	assert_int_equal(s.peers.n, 3);
	assert_int_equal(s.peers.cur, 0);
	assert_addr(&s.peers.addr[0][2], dsl[2], 7040);
	assert_addr(&s.peers.addr[1][1], lte[1], 7050);
	assert_addr(&s.link[0].peer, dsl[0], 7040);
	assert_addr(&s.link[1].peer, lte[0], 7050);
	assert_true(s.link[0].have_peer && s.link[1].have_peer);
	/* one entry: nothing moves, any answer passes */
	setup(1);
	for (unsigned i = 0; i < 10; i++) {
		gw_peers_hellos_sent(&s, i * 1000000ULL);
	}
	assert_false(gw_peers_before_hellos(&s, 20000000ULL));
	assert_false(gw_peers_return_due(&s, 20000000ULL));
	assert_true(gw_peers_ack_ok(&s, 0, &s.peers.addr[1][0]));
}

static void test_move_and_return(void **state)
{
	const uint64_t t0 = 1000000000ULL, ms = 1000;
	struct sockaddr_in6 a;
	uint64_t r_cpe;
	unsigned i;

	(void)state;
	setup(3);
	/* GW_PEER_TRIES rounds unanswered, but not GW_PEER_WAIT_MS yet */
	for (i = 0; i < GW_PEER_TRIES; i++) {
		assert_false(gw_peers_before_hellos(&s, t0 + i * 400 * ms));
		gw_peers_hellos_sent(&s, t0 + i * 400 * ms);
	}
	assert_false(gw_peers_before_hellos(&s, t0 + 999 * ms));
	r_cpe = s.sec.r_cpe;
	assert_true(gw_peers_before_hellos(&s, t0 + GW_PEER_WAIT_MS * ms));
	assert_int_equal(s.peers.cur, 1);
	assert_int_equal(s.peers.st.moves, 1);
	assert_addr(&s.link[0].peer, dsl[1], 7040);
	assert_addr(&s.link[1].peer, lte[1], 7050);
	/* a new handshake: a new r_cpe, no r_conc taken for it */
	assert_true(s.sec.r_cpe != r_cpe);
	assert_false(s.sec.adopted);

	/* the first is asked again GW_PEER_RETURN_MS after the move */
	assert_false(gw_peers_return_due(&s, t0 + 2999 * ms));
	assert_true(gw_peers_return_due(&s, t0 + 3000 * ms));
	gw_peers_return_sent(&s, t0 + 3000 * ms);
	assert_false(gw_peers_return_due(&s, t0 + 4999 * ms));

	/* answers of the entry in use and of the first pass; of the third,
	 * of an unknown address, or of the first's address on the other
	 * path, not */
	assert_true(gw_peers_ack_ok(&s, 0, &s.peers.addr[0][1]));
	assert_true(gw_peers_ack_ok(&s, 1, &s.peers.addr[1][0]));
	assert_false(gw_peers_ack_ok(&s, 0, &s.peers.addr[0][2]));
	a = s.peers.addr[0][0];
	a.sin6_addr.s6_addr[15] = 9;
	assert_false(gw_peers_ack_ok(&s, 0, &a));
	assert_false(gw_peers_ack_ok(&s, 0, &s.peers.addr[1][0]));
	/* the right address from another port is another concentrator */
	a = s.peers.addr[1][1];
	a.sin6_port = htons(7040);
	assert_false(gw_peers_ack_ok(&s, 1, &a));
	assert_int_equal(s.peers.st.acks_other, 4);

	/* the one in use answers: its count starts again */
	gw_peers_hellos_sent(&s, t0 + 3100 * ms);
	gw_peers_hellos_sent(&s, t0 + 3600 * ms);
	gw_peers_answered(&s, 1, &s.peers.addr[1][1]);
	assert_int_equal(s.peers.unanswered, 0);
	assert_int_equal(s.peers.cur, 1);

	/* the first answers: back to it, once, and no more HELLOs to it
	 * apart */
	gw_peers_answered(&s, 0, &s.peers.addr[0][0]);
	assert_int_equal(s.peers.cur, 0);
	assert_int_equal(s.peers.st.returns, 1);
	assert_int_equal(s.peers.st.moves, 2);
	assert_addr(&s.link[0].peer, dsl[0], 7040);
	assert_addr(&s.link[1].peer, lte[0], 7050);
	assert_false(gw_peers_return_due(&s, t0 + 60000 * ms));
}

static void test_wrap(void **state)
{
	const uint64_t ms = 1000;
	uint64_t t = 5000000000ULL;
	unsigned k, i;

	(void)state;
	setup(3);
	/* none answers: 1, 2, then the first again */
	for (k = 1; k <= 3; k++) {
		for (i = 0; i < GW_PEER_TRIES; i++) {
			assert_false(gw_peers_before_hellos(&s, t));
			gw_peers_hellos_sent(&s, t);
			t += 500 * ms;
		}
		assert_true(gw_peers_before_hellos(&s, t));
		assert_int_equal(s.peers.cur, k % 3);
	}
	assert_int_equal(s.peers.st.moves, 3);
	/* moving down is not a return, even to the first */
	assert_int_equal(s.peers.st.returns, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_move_and_return),
		cmocka_unit_test(test_wrap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
