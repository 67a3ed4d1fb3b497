/* Unit tests of the daemon's pure parts: the rules it generates (exact
 * text, as --print-rules prints and iptables-restore installs) and the
 * outer header parser of the egress, on a table of malformed packets.
 * The netns test (tests/netns/test_daemon.sh) checks the same rules against
 * iptables-restore --test and nft -c, and the whole daemon end to end.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gateway/gw.h"

/* ---- rules ------------------------------------------------------------- */

static void base(struct conf *c, enum conf_role role)
{
	conf_defaults(c);
	c->role = role;
	c->session_id = 1;
	c->npaths = 2;
	strcpy(c->path[0].name, "dsl");
	c->path[0].cls = PATH_FIXED;
	strcpy(c->path[0].ifname, "wan-dsl");
	strcpy(c->path[1].name, "lte");
	c->path[1].cls = PATH_MOBILE;
	strcpy(c->path[1].ifname, "wan-lte");
}

static void assert_text(const struct conf *c, bool nft, const char *want)
{
	char buf[GW_RULES_MAX];
	int n;

	n = gw_rules_text(c, nft, gw_conf_mss(c), buf, sizeof(buf));
	if (n < 0 || strcmp(buf, want)) {
		print_error("got:\n%s\nwant:\n%s\n", buf, want);
		fail();
	}
	assert_int_equal(n, (int)strlen(want));
}

#define CLAMP                                                                  \
	"-p tcp --tcp-flags SYN,RST SYN -m tcpmss --mss 1389:65535 "           \
	"-j TCPMSS --set-mss 1388\n"
#define DEFRAG                                                                 \
	":L3B_DEFRAG - [0:0]\n"                                                \
	"-A L3B_DEFRAG -m conntrack --ctstate INVALID -j RETURN\nCOMMIT\n"
#define EGR_RAW                                                                \
	"COMMIT\n*raw\n:L3B_EGR - [0:0]\n"                                     \
	"-A L3B_EGR -i wan-dsl -p udp --dport 7040 -m addrtype --dst-type "    \
	"LOCAL -j NFQUEUE --queue-num 1\n"                                     \
	"-A L3B_EGR -i wan-lte -p udp --dport 7040 -m addrtype --dst-type "    \
	"LOCAL -j NFQUEUE --queue-num 1\n"                                     \
	"-A PREROUTING -j L3B_EGR\n" DEFRAG

static void test_rules_cpe(void **state)
{
	struct conf c;

	(void)state;
	base(&c, ROLE_CPE);
	c.nlan = 1;
	strcpy(c.lan[0], "br-lan");
	assert_text(&c, false,
		    "*mangle\n:L3B_ING - [0:0]\n"
		    "-A L3B_ING -i br-lan -o wan-dsl " CLAMP
		    "-A L3B_ING -i br-lan -o wan-dsl -j NFQUEUE --queue-num 0 "
		    "--queue-bypass\n"
		    "-A L3B_ING -i br-lan -o wan-lte " CLAMP
		    "-A L3B_ING -i br-lan -o wan-lte -j NFQUEUE --queue-num 0 "
		    "--queue-bypass\n"
		    "-A FORWARD -j L3B_ING\n" EGR_RAW);
}

/* Local output: the tunnel's own packets first, out of the way. */
static void test_rules_cpe_output(void **state)
{
	struct conf c;

	(void)state;
	base(&c, ROLE_CPE);
	c.bond_output = true;
	c.ingress_queue = 5;
	c.egress_queue = 6;
	c.port = 9000;
	strcpy(c.path[1].ifname, "wan-dsl"); /* a shared device, once */
	assert_text(&c, false,
		    "*mangle\n:L3B_ING - [0:0]\n:L3B_OUT - [0:0]\n"
		    "-A L3B_OUT -p udp --sport 9000 -j RETURN\n"
		    "-A L3B_OUT -o wan-dsl " CLAMP
		    "-A L3B_OUT -o wan-dsl -j NFQUEUE --queue-num 5 "
		    "--queue-bypass\n"
		    "-A FORWARD -j L3B_ING\n-A OUTPUT -j L3B_OUT\n"
		    "COMMIT\n*raw\n:L3B_EGR - [0:0]\n"
		    "-A L3B_EGR -i wan-dsl -p udp --dport 9000 -m addrtype "
		    "--dst-type LOCAL -j NFQUEUE --queue-num 6\n"
		    "-A PREROUTING -j L3B_EGR\n" DEFRAG);
}

static void test_rules_concentrator(void **state)
{
	struct conf c;

	(void)state;
	base(&c, ROLE_CONCENTRATOR);
	/* the rules bond every CPE's prefixes */
	c.ncpes = 1;
	c.cpe[0].nprefixes = 2;
	c.cpe[0].prefix[0].addr = htonl(0xcb007100);
	c.cpe[0].prefix[0].len = 24;
	c.cpe[0].prefix[1].addr = 0;
	c.cpe[0].prefix[1].len = 0;
	assert_text(&c, false,
		    "*mangle\n:L3B_ING - [0:0]\n"
		    "-A L3B_ING -d 203.0.113.0/24 " CLAMP
		    "-A L3B_ING -d 203.0.113.0/24 -j NFQUEUE --queue-num 0 "
		    "--queue-bypass\n"
		    "-A L3B_ING -d 0.0.0.0/0 " CLAMP
		    "-A L3B_ING -d 0.0.0.0/0 -j NFQUEUE --queue-num 0 "
		    "--queue-bypass\n"
		    "-A FORWARD -j L3B_ING\n" EGR_RAW);
}

static void test_rules_nft(void **state)
{
	struct conf c;

	(void)state;
	base(&c, ROLE_CONCENTRATOR);
	c.ncpes = 1;
	c.cpe[0].nprefixes = 1;
	c.cpe[0].prefix[0].addr = htonl(0x0a000100);
	c.cpe[0].prefix[0].len = 24;
	assert_text(&c, true,
		    "table inet l3bond\ndelete table inet l3bond\n"
		    "table inet l3bond {\n"
		    "\tchain ingress {\n"
		    "\t\ttype filter hook forward priority mangle; policy "
		    "accept;\n"
		    "\t\tip daddr 10.0.1.0/24 tcp flags & (syn | rst) == syn "
		    "tcp option maxseg size 1389-65535 tcp option maxseg size "
		    "set 1388\n"
		    "\t\tip daddr 10.0.1.0/24 queue num 0 bypass\n"
		    "\t}\n"
		    "\tchain egress {\n"
		    "\t\ttype filter hook prerouting priority raw; policy "
		    "accept;\n"
		    "\t\tiifname \"wan-dsl\" udp dport 7040 fib daddr type "
		    "local queue num 1\n"
		    "\t\tiifname \"wan-lte\" udp dport 7040 fib daddr type "
		    "local queue num 1\n"
		    "\t}\n"
		    "\tchain defrag {\n\t\tct state invalid return\n\t}\n"
		    "}\n");
}

/* A buffer too small is refused, never overrun. */
static void test_rules_overflow(void **state)
{
	char buf[64 + 1];
	struct conf c;
	size_t n;

	(void)state;
	base(&c, ROLE_CPE);
	c.nlan = 1;
	strcpy(c.lan[0], "lan");
	for (n = 0; n < 64; n += 7) {
		memset(buf, 'Z', sizeof(buf));
		assert_int_equal(gw_rules_text(&c, n & 1, 1388, buf, n),
				 -ENOSPC);
		assert_int_equal(buf[n], 'Z');
	}
}

/* ---- outer headers ------------------------------------------------------ */

/* An IPv4/UDP packet from 192.0.2.1:4000 with plen payload bytes. */
static size_t build(uint8_t *p, size_t plen, size_t ihl)
{
	size_t tot = ihl + 8 + plen, i;

	memset(p, 0, tot);
	p[0] = (uint8_t)(0x40 | ihl / 4);
	p[2] = (uint8_t)(tot >> 8);
	p[3] = (uint8_t)tot;
	p[6] = 0x40; /* DF: not a fragment */
	p[8] = 64;
	p[9] = IPPROTO_UDP;
	p[12] = 192;
	p[13] = 0;
	p[14] = 2;
	p[15] = 1;
	p[ihl] = 4000 >> 8;
	p[ihl + 1] = 4000 & 255;
	p[ihl + 2] = 7040 >> 8;
	p[ihl + 3] = 7040 & 255;
	p[ihl + 4] = (uint8_t)((8 + plen) >> 8);
	p[ihl + 5] = (uint8_t)(8 + plen);
	for (i = 0; i < plen; i++) {
		p[ihl + 8 + i] = (uint8_t)i;
	}
	return tot;
}

static void test_outer_good(void **state)
{
	uint8_t p[256];
	struct sockaddr_in from;
	const uint8_t *pl;
	size_t len, plen;

	(void)state;
	len = build(p, 40, 20);
	assert_int_equal(gw_outer_ipv4(p, len, &from, &pl, &plen), 0);
	assert_ptr_equal(pl, p + 28);
	assert_int_equal(plen, 40);
	assert_int_equal(from.sin_addr.s_addr, htonl(0xc0000201));
	assert_int_equal(ntohs(from.sin_port), 4000);

	/* IP options; trailing bytes beyond the total length ignored */
	len = build(p, 0, 60);
	assert_int_equal(gw_outer_ipv4(p, len + 10, &from, &pl, &plen), 0);
	assert_ptr_equal(pl, p + 68);
	assert_int_equal(plen, 0);
}

struct bad_outer {
	size_t at; /* byte to change, or SIZE_MAX: only cut the length */
	uint8_t val;
	size_t len; /* length given, 0: the packet's */
};

static const struct bad_outer bad_outer[] = {
	/* 0 */ {SIZE_MAX, 0, 19}, /* shorter than an IP header */
	{0, 0x65, 0},		   /* version 6 */
	{0, 0x44, 0},		   /* ihl 16 bytes */
	{0, 0x4f, 0},		   /* ihl 60 > total length */
	{2, 0x01, 0},		   /* total length > given */
	/* 5 */ {SIZE_MAX, 0, 40}, /* total length > given (cut) */
	{3, 27, 0},		   /* total length < ihl + 8 */
	{9, IPPROTO_TCP, 0},	   /* not UDP */
	{6, 0x20, 0},		   /* more fragments */
	{7, 0x01, 0},		   /* fragment offset */
	/* 10 */ {25, 7, 0},	   /* UDP length < 8 */
	{25, 60, 0},		   /* UDP length > total - ihl */
	{24, 1, 0},		   /* UDP length > 255 */
};

static void test_outer_bad(void **state)
{
	struct sockaddr_in from;
	const uint8_t *pl = NULL;
	uint8_t p[256];
	size_t len, plen = 7;
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(bad_outer) / sizeof(bad_outer[0]); i++) {
		len = build(p, 20, 20);
		if (bad_outer[i].at != SIZE_MAX) {
			p[bad_outer[i].at] = bad_outer[i].val;
		}
		if (bad_outer[i].len) {
			len = bad_outer[i].len;
		}
		if (gw_outer_ipv4(p, len, &from, &pl, &plen) != -EINVAL) {
			print_error("case %u accepted\n", i);
			fail();
		}
		assert_null(pl);
		assert_int_equal(plen, 7);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules_cpe),
		cmocka_unit_test(test_rules_cpe_output),
		cmocka_unit_test(test_rules_concentrator),
		cmocka_unit_test(test_rules_nft),
		cmocka_unit_test(test_rules_overflow),
		cmocka_unit_test(test_outer_good),
		cmocka_unit_test(test_outer_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
