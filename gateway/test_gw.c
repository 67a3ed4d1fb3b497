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
#include <stdlib.h>
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

static void assert_text(const struct conf *c, enum gw_rules_kind kind,
			const char *want)
{
	char buf[GW_RULES_MAX];
	int n;

	n = gw_rules_text(c, kind, gw_conf_mss(c), buf, sizeof(buf));
	if (n < 0 || strcmp(buf, want)) {
		print_error("got:\n%s\nwant:\n%s\n", buf, want);
		fail();
	}
	assert_int_equal(n, (int)strlen(want));
}

#define CLAMP                                                                  \
	"-p tcp --tcp-flags SYN,RST SYN -m tcpmss --mss 1385:65535 "           \
	"-j TCPMSS --set-mss 1384\n"
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
		    "tcp option maxseg size 1385-65535 tcp option maxseg size "
		    "set 1384\n"
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

#define CLAMP6                                                                 \
	"-p tcp --tcp-flags SYN,RST SYN -m tcpmss --mss 1365:65535 "           \
	"-j TCPMSS --set-mss 1364\n"

/* ip6tables: the IPv6 prefixes only, the IPv6 MSS (20 less); the egress
 * and defrag chains as for IPv4.  An IPv4-only config gets no capture. */
static void test_rules_ip6(void **state)
{
	struct conf c;

	(void)state;
	base(&c, ROLE_CONCENTRATOR);
	c.ncpes = 2;
	c.cpe[0].nprefixes = 2;
	c.cpe[0].prefix[0].addr = htonl(0xcb007100);
	c.cpe[0].prefix[0].len = 24;
	c.cpe[0].prefix[1].v6 = true;
	inet_pton(AF_INET6, "2001:db8:1::", c.cpe[0].prefix[1].addr6);
	c.cpe[0].prefix[1].len = 48;
	c.cpe[1].nprefixes = 1;
	c.cpe[1].prefix[0].v6 = true;
	c.cpe[1].prefix[0].len = 0;
	assert_text(&c, GW_RULES_IP6TABLES,
		    "*mangle\n:L3B_ING - [0:0]\n"
		    "-A L3B_ING -d 2001:db8:1::/48 " CLAMP6
		    "-A L3B_ING -d 2001:db8:1::/48 -j NFQUEUE --queue-num 0 "
		    "--queue-bypass\n"
		    "-A L3B_ING -d ::/0 " CLAMP6
		    "-A L3B_ING -d ::/0 -j NFQUEUE --queue-num 0 "
		    "--queue-bypass\n"
		    "-A FORWARD -j L3B_ING\n" EGR_RAW);
	assert_text(&c, GW_RULES_IPTABLES,
		    "*mangle\n:L3B_ING - [0:0]\n"
		    "-A L3B_ING -d 203.0.113.0/24 " CLAMP
		    "-A L3B_ING -d 203.0.113.0/24 -j NFQUEUE --queue-num 0 "
		    "--queue-bypass\n"
		    "-A FORWARD -j L3B_ING\n" EGR_RAW);
	c.ncpes = 1;
	c.cpe[0].nprefixes = 1;
	assert_text(&c, GW_RULES_IP6TABLES,
		    "*mangle\n:L3B_ING - [0:0]\n"
		    "-A FORWARD -j L3B_ING\n" EGR_RAW);

	/* a CPE: by device, both families, each its own MSS */
	base(&c, ROLE_CPE);
	c.nlan = 1;
	strcpy(c.lan[0], "br-lan");
	strcpy(c.path[0].peer, "192.0.2.1");
	strcpy(c.path[1].peer, "192.0.2.2");
	assert_text(&c, GW_RULES_IP6TABLES,
		    "*mangle\n:L3B_ING - [0:0]\n"
		    "-A L3B_ING -i br-lan -o wan-dsl " CLAMP6
		    "-A L3B_ING -i br-lan -o wan-dsl -j NFQUEUE --queue-num 0 "
		    "--queue-bypass\n"
		    "-A L3B_ING -i br-lan -o wan-lte " CLAMP6
		    "-A L3B_ING -i br-lan -o wan-lte -j NFQUEUE --queue-num 0 "
		    "--queue-bypass\n"
		    "-A FORWARD -j L3B_ING\n" EGR_RAW);
}

/* The MSS: the smallest inner maximum of the paths, each with its outer
 * header (an IPv6 peer: 20 bytes more). */
static void test_conf_mss(void **state)
{
	struct conf c;

	(void)state;
	base(&c, ROLE_CPE);
	strcpy(c.path[0].peer, "192.0.2.1");
	strcpy(c.path[1].peer, "192.0.2.2");
	assert_int_equal(gw_conf_mss(&c), 1384);
	strcpy(c.path[1].peer, "2001:db8::2");
	assert_int_equal(gw_conf_mss(&c), 1364);
	c.path[0].mtu = 1400; /* IPv4 1400: 1284; IPv6 1500: 1364 */
	assert_int_equal(gw_conf_mss(&c), 1284);
	c.path[0].mtu = 1492;
	assert_int_equal(gw_conf_mss(&c), 1364);
	/* a concentrator assumes IPv4 until it learns an IPv6 peer */
	base(&c, ROLE_CONCENTRATOR);
	assert_int_equal(gw_conf_mss(&c), 1384);
}

/* nft: ip6 daddr for an IPv6 prefix; the CPE's clamp per family. */
static void test_rules_nft6(void **state)
{
	char buf[GW_RULES_MAX];
	struct conf c;

	(void)state;
	base(&c, ROLE_CONCENTRATOR);
	c.ncpes = 1;
	c.cpe[0].nprefixes = 1;
	c.cpe[0].prefix[0].v6 = true;
	inet_pton(AF_INET6, "2001:db8:1::", c.cpe[0].prefix[0].addr6);
	c.cpe[0].prefix[0].len = 48;
	assert_true(gw_rules_text(&c, GW_RULES_NFT, 1384, buf, sizeof(buf)) >
		    0);
	assert_non_null(strstr(
		buf, "\t\tip6 daddr 2001:db8:1::/48 tcp flags & (syn | rst) "
		     "== syn tcp option maxseg size 1365-65535 tcp option "
		     "maxseg size set 1364\n"
		     "\t\tip6 daddr 2001:db8:1::/48 queue num 0 bypass\n"));
	base(&c, ROLE_CPE);
	c.nlan = 1;
	strcpy(c.lan[0], "lan");
	assert_true(gw_rules_text(&c, GW_RULES_NFT, 1384, buf, sizeof(buf)) >
		    0);
	assert_non_null(strstr(
		buf, "\t\tiifname \"lan\" oifname \"wan-dsl\" meta nfproto "
		     "ipv4 tcp flags & (syn | rst) == syn tcp option maxseg "
		     "size 1385-65535 tcp option maxseg size set 1384\n"
		     "\t\tiifname \"lan\" oifname \"wan-dsl\" meta nfproto "
		     "ipv6 tcp flags & (syn | rst) == syn tcp option maxseg "
		     "size 1365-65535 tcp option maxseg size set 1364\n"));
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
		assert_int_equal(gw_rules_text(&c, n & 1, 1384, buf, n),
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
	static const uint8_t mapped[16] = {0, 0, 0,    0,    0,	  0, 0, 0,
					   0, 0, 0xff, 0xff, 192, 0, 2, 1};
	uint8_t p[256];
	struct sockaddr_in6 from;
	const uint8_t *pl;
	size_t len, plen;

	(void)state;
	len = build(p, 40, 20);
	assert_int_equal(gw_outer_ipv4(p, len, &from, &pl, &plen), 0);
	assert_ptr_equal(pl, p + 28);
	assert_int_equal(plen, 40);
	assert_int_equal(from.sin6_family, AF_INET6);
	assert_memory_equal(&from.sin6_addr, mapped, 16);
	assert_int_equal(ntohs(from.sin6_port), 4000);

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
	struct sockaddr_in6 from;
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

/* An outer IPv6 + UDP packet: source 2001:db8::1 port 4000, plen bytes
 * of UDP payload; extra trailing bytes beyond the payload length. */
static size_t build6(uint8_t *p, size_t plen, size_t extra)
{
	size_t i;

	memset(p, 0, 48 + plen + extra);
	p[0] = 0x60;
	p[4] = (uint8_t)((8 + plen) >> 8);
	p[5] = (uint8_t)(8 + plen);
	p[6] = IPPROTO_UDP;
	p[7] = 64;
	p[8] = 0x20; /* 2001:db8::1 */
	p[9] = 0x01;
	p[10] = 0x0d;
	p[11] = 0xb8;
	p[23] = 1;
	p[24] = 0x20; /* 2001:db8::2 */
	p[25] = 0x01;
	p[26] = 0x0d;
	p[27] = 0xb8;
	p[39] = 2;
	p[40] = 4000 >> 8;
	p[41] = 4000 & 255;
	p[42] = 7040 >> 8;
	p[43] = 7040 & 255;
	p[44] = (uint8_t)((8 + plen) >> 8);
	p[45] = (uint8_t)(8 + plen);
	for (i = 0; i < plen; i++) {
		p[48 + i] = (uint8_t)i;
	}
	return 48 + plen + extra;
}

static void test_outer6_good(void **state)
{
	static const uint8_t src[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
					0,    0,    0,	  0,	0, 0, 0, 1};
	struct sockaddr_in6 from;
	const uint8_t *pl;
	uint8_t p[512];
	size_t len, plen;

	(void)state;
	len = build6(p, 40, 0);
	assert_int_equal(gw_outer_ipv6(p, len, &from, &pl, &plen), 0);
	assert_ptr_equal(pl, p + 48);
	assert_int_equal(plen, 40);
	assert_int_equal(from.sin6_family, AF_INET6);
	assert_memory_equal(&from.sin6_addr, src, 16);
	assert_int_equal(ntohs(from.sin6_port), 4000);
	assert_false(gw_addr_is4(&from));

	/* empty UDP payload; trailing bytes beyond the payload length */
	len = build6(p, 0, 13);
	assert_int_equal(gw_outer_ipv6(p, len, &from, &pl, &plen), 0);
	assert_ptr_equal(pl, p + 48);
	assert_int_equal(plen, 0);

	/* a UDP length shorter than the IPv6 payload: the UDP one counts */
	len = build6(p, 100, 0);
	p[45] = 8 + 60;
	assert_int_equal(gw_outer_ipv6(p, len, &from, &pl, &plen), 0);
	assert_int_equal(plen, 60);
}

struct bad_outer6 {
	size_t at; /* byte to change, or SIZE_MAX: only cut the length */
	uint8_t val;
	size_t len; /* length given, 0: the packet's */
	int want;
};

static const struct bad_outer6 bad_outer6[] = {
	/* 0 */ {SIZE_MAX, 0, 39, -EINVAL}, /* shorter than the header */
	{0, 0x45, 0, -EINVAL},		    /* version 4 */
	{0, 0x00, 0, -EINVAL},		    /* version 0 */
	{4, 0x01, 0, -EINVAL},		    /* payload length > given */
	{SIZE_MAX, 0, 60, -EINVAL},	    /* cut: payload length > given */
	/* 5 */ {5, 7, 0, -EINVAL},	    /* payload < a UDP header */
	{44, 0x01, 0, -EINVAL},		    /* UDP length > payload */
	{45, 7, 0, -EINVAL},		    /* UDP length < 8 */
	{45, 29, 0, -EINVAL},		    /* UDP length > payload by 1 */
	/* extension headers and other protocols: refused, not walked */
	{6, 0, 0, -EPROTONOSUPPORT},	       /* hop-by-hop */
	/* 10 */ {6, 43, 0, -EPROTONOSUPPORT}, /* routing */
	{6, 44, 0, -EPROTONOSUPPORT},	       /* fragment */
	{6, 60, 0, -EPROTONOSUPPORT},	       /* destination options */
	{6, 51, 0, -EPROTONOSUPPORT},	       /* AH */
	{6, 50, 0, -EPROTONOSUPPORT},	       /* ESP */
	/* 15 */ {6, 59, 0, -EPROTONOSUPPORT}, /* no next header */
	{6, IPPROTO_TCP, 0, -EPROTONOSUPPORT},
	{6, 58, 0, -EPROTONOSUPPORT}, /* ICMPv6 */
};

static void test_outer6_bad(void **state)
{
	struct sockaddr_in6 from;
	const uint8_t *pl = NULL;
	uint8_t p[256];
	size_t len, plen = 7, cut;
	unsigned i;
	int ret;

	(void)state;
	for (i = 0; i < sizeof(bad_outer6) / sizeof(bad_outer6[0]); i++) {
		len = build6(p, 20, 0);
		if (bad_outer6[i].at != SIZE_MAX) {
			p[bad_outer6[i].at] = bad_outer6[i].val;
		}
		if (bad_outer6[i].len) {
			len = bad_outer6[i].len;
		}
		ret = gw_outer_ipv6(p, len, &from, &pl, &plen);
		if (ret != bad_outer6[i].want) {
			print_error("case %u: %d\n", i, ret);
			fail();
		}
		assert_null(pl);
		assert_int_equal(plen, 7);
	}
	/* every cut of a good packet short of its payload length */
	len = build6(p, 20, 0);
	for (cut = 0; cut < len; cut++) {
		assert_int_equal(gw_outer_ipv6(p, cut, &from, &pl, &plen),
				 -EINVAL);
	}
	/* an outer IPv4 packet is not taken for IPv6, nor the reverse */
	len = build(p, 20, 20);
	assert_int_equal(gw_outer_ipv6(p, len, &from, &pl, &plen), -EINVAL);
	len = build6(p, 20, 0);
	assert_int_equal(gw_outer_ipv4(p, len, &from, &pl, &plen), -EINVAL);
}

/* Addresses as the status prints them. */
static void test_addr_str(void **state)
{
	struct sockaddr_in6 a = {.sin6_family = AF_INET6,
				 .sin6_port = htons(7040)};
	char buf[GW_ADDR_STR];

	(void)state;
	inet_pton(AF_INET6, "::ffff:10.22.0.2", &a.sin6_addr);
	assert_true(gw_addr_is4(&a));
	assert_string_equal(gw_addr_str(&a, buf, sizeof(buf)),
			    "10.22.0.2:7040");
	inet_pton(AF_INET6, "2001:db8:22::2", &a.sin6_addr);
	assert_false(gw_addr_is4(&a));
	assert_string_equal(gw_addr_str(&a, buf, sizeof(buf)),
			    "[2001:db8:22::2]:7040");
	inet_pton(AF_INET6, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
		  &a.sin6_addr);
	a.sin6_port = htons(65535);
	assert_string_equal(gw_addr_str(&a, buf, sizeof(buf)),
			    "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535");
}

/* The sessions' prefix table: longest match per family, IPv4 and IPv6
 * apart, against a linear reference over random addresses. */
static struct gw_sess *ref_lookup(const struct gw *gw, const uint8_t *a,
				  bool v6)
{
	struct gw_sess *best = NULL;
	int best_len = -1;
	unsigned k, i;

	for (k = 0; k < gw->nsess; k++) {
		for (i = 0; i < gw->sess[k]->nprefixes; i++) {
			struct conf_prefix q = {.v6 = v6, .len = v6 ? 128 : 32};
			const struct conf_prefix *p = &gw->sess[k]->prefix[i];

			if (v6) {
				memcpy(q.addr6, a, 16);
			} else {
				memcpy(&q.addr, a, 4);
			}
			if (conf_prefix_overlap(p, &q) && p->len > best_len) {
				best = gw->sess[k];
				best_len = p->len;
			}
		}
	}
	return best;
}

static void add_prefix(struct conf_cpe *cc, const char *s)
{
	struct conf_prefix *p = &cc->prefix[cc->nprefixes++];
	char buf[64], *slash;

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	*slash = '\0';
	memset(p, 0, sizeof(*p));
	p->len = (uint8_t)atoi(slash + 1);
	p->v6 = strchr(buf, ':') != NULL;
	assert_int_equal(inet_pton(p->v6 ? AF_INET6 : AF_INET, buf,
				   p->v6 ? (void *)p->addr6 : (void *)&p->addr),
			 1);
}

static void test_sess_lpm(void **state)
{
	static struct gw gw;
	struct conf *c = &gw.conf;
	uint8_t a[16];
	unsigned i, k, hits[4] = {0};
	uint32_t x = 12345;

	(void)state;
	memset(&gw, 0, sizeof(gw));
	base(c, ROLE_CONCENTRATOR);
	gw.npaths = c->npaths;
	c->ncpes = 3;
	for (k = 0; k < 3; k++) {
		c->cpe[k].session_id = k + 1;
		snprintf(c->cpe[k].name, sizeof(c->cpe[k].name), "c%u", k);
		memset(&c->cpe[k].psk, (int)k + 1, sizeof(c->cpe[k].psk));
	}
	add_prefix(&c->cpe[0], "10.0.0.0/8");
	add_prefix(&c->cpe[0], "2001:db8::/32");
	add_prefix(&c->cpe[1], "10.1.0.0/16");
	add_prefix(&c->cpe[1], "2001:db8:1::/48");
	add_prefix(&c->cpe[1], "2001:db8:1:2:3:4:5:0/125");
	add_prefix(&c->cpe[2], "10.1.2.3/32");
	add_prefix(&c->cpe[2], "2001:db8:1:2::/64");
	add_prefix(&c->cpe[2], "::/0");
	assert_int_equal(gw_sessions_open(&gw), 0);

	inet_pton(AF_INET6, "2001:db8:1:2:3:4:5:6", a);
	assert_ptr_equal(gw_sess_by_addr6(&gw, a), gw.sess[1]); /* /125 */
	inet_pton(AF_INET6, "2001:db8:1:2:3:4:5:8", a);
	assert_ptr_equal(gw_sess_by_addr6(&gw, a), gw.sess[2]); /* /64 */
	inet_pton(AF_INET6, "2001:db8:1:3::1", a);
	assert_ptr_equal(gw_sess_by_addr6(&gw, a), gw.sess[1]); /* /48 */
	inet_pton(AF_INET6, "2001:db8:ffff::1", a);
	assert_ptr_equal(gw_sess_by_addr6(&gw, a), gw.sess[0]); /* /32 */
	inet_pton(AF_INET6, "fe80::1", a);
	assert_ptr_equal(gw_sess_by_addr6(&gw, a), gw.sess[2]); /* ::/0 */
	/* no IPv4 default: an IPv4 address never matches an IPv6 prefix */
	inet_pton(AF_INET, "192.0.2.1", a);
	assert_null(gw_sess_by_addr(&gw, *(uint32_t *)a));
	inet_pton(AF_INET, "10.1.2.3", a);
	assert_ptr_equal(gw_sess_by_addr(&gw, *(uint32_t *)a), gw.sess[2]);
	inet_pton(AF_INET, "10.1.2.4", a);
	assert_ptr_equal(gw_sess_by_addr(&gw, *(uint32_t *)a), gw.sess[1]);
	/* an IPv6 address whose first 4 bytes are 10.x: still IPv6 */
	memset(a, 0, 16);
	a[0] = 10;
	assert_ptr_equal(gw_sess_by_addr6(&gw, a), gw.sess[2]);

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
		want = ref_lookup(&gw, a, v6);
		got = v6 ? gw_sess_by_addr6(&gw, a)
			 : gw_sess_by_addr(&gw, *(uint32_t *)a);
		assert_ptr_equal(got, want);
		hits[want ? want->id : 0]++;
	}
	/* every CPE and the no-match case were reached */
	for (k = 0; k < 4; k++) {
		assert_true(hits[k] > 100);
	}
	gw_sessions_close(&gw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules_cpe),
		cmocka_unit_test(test_rules_cpe_output),
		cmocka_unit_test(test_rules_concentrator),
		cmocka_unit_test(test_rules_nft),
		cmocka_unit_test(test_rules_overflow),
		cmocka_unit_test(test_rules_ip6),
		cmocka_unit_test(test_conf_mss),
		cmocka_unit_test(test_rules_nft6),
		cmocka_unit_test(test_outer_good),
		cmocka_unit_test(test_outer_bad),
		cmocka_unit_test(test_outer6_good),
		cmocka_unit_test(test_outer6_bad),
		cmocka_unit_test(test_addr_str),
		cmocka_unit_test(test_sess_lpm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
