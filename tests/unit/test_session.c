/* Unit tests of gateway/session.c: the lookup tables (session by id, by
 * address with the longest prefix) against a brute-force reference, and a
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

int gw_segr_open(struct gw_sess *s)
{
	n_open++;
	s->egr_ok = false; /* nothing to flush or free */
	return 0;
}

void gw_segr_close(struct gw_sess *s)
{
	(void)s;
	n_close++;
}

void gw_egr_settle(struct gw_sess *s)
{
	(void)s;
	n_flush++;
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
	char buf[64], *tok, *save = NULL;
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
		assert_int_equal(inet_pton(AF_INET, tok, &p->addr), 1);
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
	n_open = n_close = n_flush = 0;
}

static uint32_t a4(const char *s)
{
	uint32_t a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a;
}

static uint32_t mask4(uint8_t len)
{
	return len ? htonl(~0U << (32 - len)) : 0;
}

/* The reference: every IPv4 prefix of every session, the longest match. */
static struct gw_sess *brute(uint32_t addr)
{
	struct gw_sess *best = NULL;
	int best_len = -1;
	unsigned k, i;

	for (k = 0; k < g.nsess; k++) {
		struct gw_sess *s = g.sess[k];

		for (i = 0; i < s->nprefixes; i++) {
			uint8_t len = s->prefix[i].len;
			uint32_t m = mask4(len);

			if (s->prefix[i].v6) {
				continue;
			}
			if ((addr & m) == (s->prefix[i].addr & m) &&
			    len > best_len) {
				best = s;
				best_len = len;
			}
		}
	}
	return best;
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

		assert_ptr_equal(gw_sess_by_addr(&g, addr), brute(addr));
	}
	gw_sessions_close(&g);
	assert_int_equal(n_close, 4);
}

/* Many CPEs and prefix lengths: the table against the reference. */
static void test_many(void **state)
{
	uint32_t x = 777;
	unsigned i, k;

	(void)state;
	setup();
	assert_int_equal(conf_cpes_alloc(&g.conf, CONF_CPE_MAX), 0);
	for (k = 0; k < CONF_CPE_MAX; k++) {
		char pfx[64], name[16];

		/* /24s and a /28 inside another /16, all disjoint */
		snprintf(pfx, sizeof(pfx), "10.%u.%u.0/24 172.%u.%u.%u/28",
			 k >> 8, k & 255, 16 + (k >> 8), k & 255,
			 (k % 16) * 16);
		snprintf(name, sizeof(name), "c%u", k);
		cpe(&g.conf, k, 1000 + k * 7, name, k, pfx);
	}
	assert_int_equal(gw_sessions_open(&g), 0);
	assert_int_equal(g.nsess, CONF_CPE_MAX);
	for (k = 0; k < CONF_CPE_MAX; k++) {
		assert_ptr_equal(gw_sess_by_id(&g, 1000 + k * 7), g.sess[k]);
	}
	for (i = 0; i < 200000; i++) {
		x = x * 1103515245 + 12345;
		uint32_t addr =
			i & 1 ? (x & htonl(0x0003ffff)) | a4("10.0.0.0")
			      : (x & htonl(0x0003ffff)) | a4("172.16.0.0");

		assert_ptr_equal(gw_sess_by_addr(&g, addr), brute(addr));
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
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_update),
		cmocka_unit_test(test_cpe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
