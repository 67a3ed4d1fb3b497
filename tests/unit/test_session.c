/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests of gateway/session.c: the lookup tables (session by id, by
 * address with the longest prefix, IPv4 and IPv6 apart) against a
 * brute-force reference, and a
 * reload's add / remove / new key / keep, which must leave a kept session
 * the same object.  session.c is included to reach its statics; what a
 * session is made of (keys, links, egress) is stubbed here, not tested:
 * those have their own tests, and the two-CPE namespace test runs it all
 * through the kernel (tests/netns/test_cpes.sh).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "gateway/log.c"
#include "gateway/session.c"

/* ---- stubs: the parts of a session tested elsewhere ---------------------- */

static unsigned n_open, n_close, n_flush;

void gw_sec_init(struct gw_sess *s, const struct auth_key *psk, bool encrypt)
{
	s->sec.psk = *psk;
	s->sec.mode = encrypt ? AUTH_ENCRYPT : AUTH_MAC;
}

void gw_sec_wipe(struct gw_sess *s)
{
	memset(&s->sec.psk, 0, sizeof(s->sec.psk));
}

void gw_links_init(struct gw_sess *s)
{
	(void)s;
}

void gw_links_detect_open(struct gw_sess *s)
{
	(void)s;
}

void gw_links_detect_close(struct gw_sess *s)
{
	(void)s;
}

void gw_ing_resend_open(struct gw_sess *s)
{
	(void)s;
}

void gw_ing_resend_close(struct gw_sess *s)
{
	(void)s;
}

static int on_opened(struct gw_sess *s)
{
	(void)s;
	n_open++;
	return 0;
}

static void on_closing(struct gw_sess *s, bool flush)
{
	(void)s;
	n_close++;
	n_flush += flush;
}

/* ---- a config of CPEs ---------------------------------------------------- */

static struct gw g;

static void key_of(struct auth_key *k, unsigned v)
{
	memset(k, 0, sizeof(*k));
	k->b[0] = (uint8_t)(v + 1);
	k->b[1] = (uint8_t)((v + 1) >> 8);
}

static void cpe(struct conf *c, unsigned i, uint32_t id, const char *name,
		unsigned key, const char *pfx)
{
	char buf[128], *tok, *save = NULL;
	struct conf_cpe *e;

	if (c->ncpes < i + 1) {
		assert_int_equal(conf_cpes_alloc(c, i + 1), 0);
	}
	e = &c->cpe[i];
	memset(e, 0, sizeof(*e));
	e->session_id = id;
	snprintf(e->name, sizeof(e->name), "%s", name);
	key_of(&e->psk, key);
	snprintf(buf, sizeof(buf), "%s", pfx);
	for (tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		struct conf_prefix *p = &e->prefix[e->nprefixes++];
		char *slash = strchr(tok, '/');

		*slash = '\0';
		p->v6 = strchr(tok, ':') != NULL;
		assert_int_equal(
			inet_pton(p->v6 ? AF_INET6 : AF_INET, tok,
				  p->v6 ? (void *)p->addr6 : (void *)&p->addr),
			1);
		p->len = (uint8_t)atoi(slash + 1);
	}
}

static void setup(void)
{
	conf_free(&g.conf); /* the previous test's CPEs */
	memset(&g, 0, sizeof(g));
	conf_defaults(&g.conf);
	g.conf.role = ROLE_CONCENTRATOR;
	g.conf.npaths = 2;
	g.npaths = 2;
	g.log_level = CONF_LOG_ERROR;
	g.on_session_opened = on_opened;
	g.on_session_closing = on_closing;
	n_open = n_close = n_flush = 0;
}

static uint32_t a4(const char *s)
{
	uint32_t a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a;
}

/* The reference: every prefix of the address's family in every session,
 * compared bit by bit, the longest match. */
static bool in_prefix(const uint8_t *a, const struct conf_prefix *p)
{
	const uint8_t *net = p->v6 ? p->addr6 : (const uint8_t *)&p->addr;
	unsigned i;

	for (i = 0; i < p->len; i++) {
		if ((a[i / 8] ^ net[i / 8]) & (0x80 >> i % 8)) {
			return false;
		}
	}
	return true;
}

static struct gw_sess *brute(const uint8_t *a, bool v6)
{
	struct gw_sess *best = NULL;
	int best_len = -1;
	unsigned k, i;

	for (k = 0; k < g.nsess; k++) {
		struct gw_sess *s = g.sess[k];

		for (i = 0; i < s->nprefixes; i++) {
			const struct conf_prefix *p = &s->prefix[i];

			if (p->v6 == v6 && in_prefix(a, p) &&
			    p->len > best_len) {
				best = s;
				best_len = p->len;
			}
		}
	}
	return best;
}

static struct gw_sess *brute4(uint32_t addr)
{
	return brute((const uint8_t *)&addr, false);
}

static void test_lookup(void **state)
{
	uint32_t x = 12345;
	unsigned i;

	(void)state;
	setup();
	cpe(&g.conf, 0, 42, "", 0, "10.0.1.0/24");
	cpe(&g.conf, 1, 7, "bob", 1, "10.0.2.0/23 192.168.0.0/16");
	cpe(&g.conf, 2, 0xffffffff, "carol", 2, "10.0.4.7/32 172.16.0.0/12");
	cpe(&g.conf, 3, 1, "dave", 3, "10.128.0.0/9");
	assert_int_equal(gw_sessions_open(&g), 0);
	assert_int_equal(g.nsess, 4);

	assert_ptr_equal(gw_sess_by_id(&g, 42), g.sess[0]);
	assert_ptr_equal(gw_sess_by_id(&g, 7), g.sess[1]);
	assert_ptr_equal(gw_sess_by_id(&g, 0xffffffff), g.sess[2]);
	assert_ptr_equal(gw_sess_by_id(&g, 1), g.sess[3]);
	assert_null(gw_sess_by_id(&g, 43));
	assert_null(gw_sess_by_id(&g, 0));

	assert_ptr_equal(gw_sess_by_addr(&g, a4("10.0.1.77")), g.sess[0]);
	assert_ptr_equal(gw_sess_by_addr(&g, a4("10.0.3.255")), g.sess[1]);
	assert_ptr_equal(gw_sess_by_addr(&g, a4("10.0.4.7")), g.sess[2]);
	assert_null(gw_sess_by_addr(&g, a4("10.0.4.8")));
	assert_ptr_equal(gw_sess_by_addr(&g, a4("10.200.0.1")), g.sess[3]);
	assert_null(gw_sess_by_addr(&g, a4("10.127.255.255")));
	assert_null(gw_sess_by_addr(&g, a4("8.8.8.8")));
	/* the whole space, sampled, against the reference */
	for (i = 0; i < 200000; i++) {
		x = x * 1103515245 + 12345;
		/* half of them near the prefixes */
		uint32_t addr =
			i & 1 ? x : (x & htonl(0x00ffffff)) | a4("10.0.0.0");

		assert_ptr_equal(gw_sess_by_addr(&g, addr), brute4(addr));
	}
	gw_sessions_close(&g);
	assert_int_equal(n_close, 4);
}

/* IPv4 and IPv6 prefixes side by side: the longest match per family; an
 * address never matches a prefix of the other family. */
static void test_lookup6(void **state)
{
	unsigned i, k, hits[4] = {0};
	uint32_t x = 12345, a4n;
	uint8_t a[16];

	(void)state;
	setup();
	cpe(&g.conf, 0, 1, "c0", 1, "10.0.0.0/8 2001:db8::/32");
	cpe(&g.conf, 1, 2, "c1", 2,
	    "10.1.0.0/16 2001:db8:1::/48 2001:db8:1:2:3:4:5:0/125");
	cpe(&g.conf, 2, 3, "c2", 3, "10.1.2.3/32 2001:db8:1:2::/64 ::/0");
	assert_int_equal(gw_sessions_open(&g), 0);

	inet_pton(AF_INET6, "2001:db8:1:2:3:4:5:6", a);
	assert_ptr_equal(gw_sess_by_addr6(&g, a), g.sess[1]); /* /125 */
	inet_pton(AF_INET6, "2001:db8:1:2:3:4:5:8", a);
	assert_ptr_equal(gw_sess_by_addr6(&g, a), g.sess[2]); /* /64 */
	inet_pton(AF_INET6, "2001:db8:1:3::1", a);
	assert_ptr_equal(gw_sess_by_addr6(&g, a), g.sess[1]); /* /48 */
	inet_pton(AF_INET6, "2001:db8:ffff::1", a);
	assert_ptr_equal(gw_sess_by_addr6(&g, a), g.sess[0]); /* /32 */
	inet_pton(AF_INET6, "fe80::1", a);
	assert_ptr_equal(gw_sess_by_addr6(&g, a), g.sess[2]); /* ::/0 */
	/* no IPv4 default: an IPv4 address never matches an IPv6 prefix */
	assert_null(gw_sess_by_addr(&g, a4("192.0.2.1")));
	assert_ptr_equal(gw_sess_by_addr(&g, a4("10.1.2.3")), g.sess[2]);
	assert_ptr_equal(gw_sess_by_addr(&g, a4("10.1.2.4")), g.sess[1]);
	/* an IPv6 address whose first 4 bytes are 10.x: still IPv6 */
	memset(a, 0, 16);
	a[0] = 10;
	assert_ptr_equal(gw_sess_by_addr6(&g, a), g.sess[2]);

	/* random addresses near the prefixes against the reference */
	for (i = 0; i < 200000; i++) {
		bool v6 = i & 1;
		struct gw_sess *want, *got;

		for (k = 0; k < 16; k++) {
			x = x * 1103515245u + 12345u;
			a[k] = (uint8_t)(x >> 16);
		}
		/* mostly inside 10.0.0.0/8 or 2001:db8::/32, some hits
		 * deeper */
		if (v6 && (i & 2)) {
			memcpy(a, "\x20\x01\x0d\xb8\x00\x01\x00\x02",
			       i & 4 ? 8 : 6);
			if ((i & 12) == 12) {
				memcpy(a + 8, "\x00\x03\x00\x04\x00\x05\x00",
				       7);
			}
		} else if (!v6 && (i & 2)) {
			a[0] = 10;
			if (i & 4) {
				a[1] = 1;
				if (i & 8) {
					a[2] = 2;
					a[3] = (i & 16) ? 3 : a[3];
				}
			}
		}
		memcpy(&a4n, a, 4);
		want = brute(a, v6);
		got = v6 ? gw_sess_by_addr6(&g, a) : gw_sess_by_addr(&g, a4n);
		assert_ptr_equal(got, want);
		k = 0; /* which session, 3: none */
		while (k < 3 && g.sess[k] != want) {
			k++;
		}
		hits[k]++;
	}
	/* every CPE and the no-match case were reached */
	for (k = 0; k < 4; k++) {
		assert_true(hits[k] > 100);
	}
	gw_sessions_close(&g);
}

/* Many CPEs and prefix lengths: the table against the reference.  The
 * design's 10,000 CPEs (the brute force is linear: the limit itself,
 * N, would take minutes). */
static void test_many(void **state)
{
	enum { N = 10000 };
	uint32_t x = 777;
	unsigned i, k;

	(void)state;
	setup();
	assert_int_equal(conf_cpes_alloc(&g.conf, N), 0);
	for (k = 0; k < N; k++) {
		char pfx[64], name[16];

		/* /24s and a /28 inside another /16, all disjoint */
		snprintf(pfx, sizeof(pfx), "10.%u.%u.0/24 172.%u.%u.%u/28",
			 k >> 8, k & 255, 16 + (k >> 12), (k >> 4) & 255,
			 (k % 16) * 16);
		snprintf(name, sizeof(name), "c%u", k);
		cpe(&g.conf, k, 1000 + k * 7, name, k, pfx);
	}
	assert_int_equal(gw_sessions_open(&g), 0);
	assert_int_equal(g.nsess, N);
	for (k = 0; k < N; k++) {
		assert_ptr_equal(gw_sess_by_id(&g, 1000 + k * 7), g.sess[k]);
	}
	for (i = 0; i < 20000; i++) {
		x = x * 1103515245 + 12345;
		uint32_t addr =
			i & 1 ? (x & htonl(0x0003ffff)) | a4("10.0.0.0")
			      : (x & htonl(0x0003ffff)) | a4("172.16.0.0");

		assert_ptr_equal(gw_sess_by_addr(&g, addr), brute4(addr));
	}
	gw_sessions_close(&g);
}

static void test_update(void **state)
{
	struct gw_sess *a, *b, *c;
	static struct conf next;

	(void)state;
	setup();
	cpe(&g.conf, 0, 1, "a", 1, "10.0.1.0/24");
	cpe(&g.conf, 1, 2, "b", 2, "10.0.2.0/24");
	cpe(&g.conf, 2, 3, "c", 3, "10.0.3.0/24");
	assert_int_equal(gw_sessions_open(&g), 0);
	a = g.sess[0];
	b = g.sess[1];
	c = g.sess[2];
	assert_int_equal(n_open, 3);

	/* b gone, c with a new key and a new prefix, a kept with another
	 * prefix and name, d new */
	next = g.conf;
	next.cpe = NULL; /* its own CPEs */
	next.ncpes = 0;
	cpe(&next, 0, 1, "a2", 1, "10.0.11.0/24");
	cpe(&next, 1, 3, "c", 33, "10.0.3.0/24 10.0.33.0/24");
	cpe(&next, 2, 4, "d", 4, "10.0.4.0/24");
	assert_int_equal(gw_sessions_update(&g, &next), 0);
	assert_int_equal(g.nsess, 3);
	assert_int_equal(n_open, 5);  /* c again, d */
	assert_int_equal(n_close, 2); /* b, the old c */
	assert_int_equal(n_flush, 2); /* ... releasing what they held */
	assert_ptr_equal(g.sess[0], a);
	assert_string_equal(a->name, "a2");
	assert_string_equal(a->label, "cpe a2: ");
	assert_ptr_not_equal(g.sess[1], c);
	assert_null(gw_sess_by_id(&g, 2));
	(void)b; /* freed */
	assert_ptr_equal(gw_sess_by_id(&g, 1), a);
	assert_ptr_equal(gw_sess_by_id(&g, 3), g.sess[1]);
	assert_ptr_equal(gw_sess_by_id(&g, 4), g.sess[2]);
	assert_ptr_equal(gw_sess_by_addr(&g, a4("10.0.11.9")), a);
	assert_null(gw_sess_by_addr(&g, a4("10.0.1.9")));
	assert_null(gw_sess_by_addr(&g, a4("10.0.2.9")));
	assert_ptr_equal(gw_sess_by_addr(&g, a4("10.0.33.9")), g.sess[1]);
	assert_true(auth_key_equal(&g.sess[1]->sec.psk, &next.cpe[1].psk));

	/* encrypt changed: a fresh session too */
	a = g.sess[0];
	next.cpe[0].encrypt = true;
	assert_int_equal(gw_sessions_update(&g, &next), 0);
	assert_ptr_not_equal(g.sess[0], a);
	assert_int_equal(g.sess[0]->sec.mode, AUTH_ENCRYPT);

	/* all gone: an empty concentrator is allowed */
	assert_int_equal(conf_cpes_alloc(&next, 0), 0);
	assert_int_equal(gw_sessions_update(&g, &next), 0);
	assert_int_equal(g.nsess, 0);
	assert_null(gw_sess_by_id(&g, 1));
	assert_null(gw_sess_by_addr(&g, a4("10.0.11.9")));
	gw_sessions_close(&g);
	assert_int_equal(n_open, n_close);
}

/* The CPE's one session is found for any address. */
static void test_cpe(void **state)
{
	(void)state;
	setup();
	g.conf.role = ROLE_CPE;
	cpe(&g.conf, 0, 9, "", 9, "");
	g.conf.cpe[0].nprefixes = 0;
	assert_int_equal(gw_sessions_open(&g), 0);
	assert_ptr_equal(gw_sess_by_addr(&g, a4("1.2.3.4")), g.sess[0]);
	assert_ptr_equal(gw_sess_by_id(&g, 9), g.sess[0]);
	assert_string_equal(g.sess[0]->label, "");
	gw_sessions_close(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_lookup6),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_update),
		cmocka_unit_test(test_cpe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
