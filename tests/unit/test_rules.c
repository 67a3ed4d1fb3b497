/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests of gateway/rules.c: the rules the daemon generates (exact
 * text, as --print-rules prints and iptables-restore installs), for
 * iptables, ip6tables and nft, a buffer too small, and the TCP MSS the
 * clamp rules use.  The netns test (tests/netns/test_daemon.sh) checks the
 * same rules against iptables-restore --test and nft -c, and the whole
 * daemon end to end.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gateway/rules.h"

/* The CPEs of the configs built here (struct conf holds a pointer). */
static struct conf_cpe cpes[4];

static void base(struct conf *c, enum conf_role role)
{
	conf_defaults(c);
	memset(cpes, 0, sizeof(cpes));
	c->cpe = cpes;
	c->role = role;
	/* one process's rules (the default, one per core, depends on the
	 * machine): test_rules_workers has the workers' */
	c->workers = 1;
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
	static char buf[GW_RULES_MAX];
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

#define SETS_HINT                                                              \
	"# needs the CPEs' set: l3bondd --print-rules ipset | ipset restore\n"

/* A concentrator's capture: one rule per family, the destination in the
 * set of the CPEs' prefixes, whatever their number. */
static void test_rules_concentrator(void **state)
{
	struct conf c;

	(void)state;
	base(&c, ROLE_CONCENTRATOR);
	c.ncpes = 1;
	c.cpe[0].nprefixes = 2;
	c.cpe[0].prefix[0].addr = htonl(0xcb007100);
	c.cpe[0].prefix[0].len = 24;
	c.cpe[0].prefix[1].addr = 0;
	c.cpe[0].prefix[1].len = 0;
	c.ingress_queue = 3;
	assert_text(&c, false,
		    SETS_HINT "*mangle\n:L3B_ING - [0:0]\n"
		    "-A L3B_ING -m set --match-set l3b_q3_v4 dst " CLAMP
		    "-A L3B_ING -m set --match-set l3b_q3_v4 dst -j NFQUEUE "
		    "--queue-num 3 --queue-bypass\n"
		    "-A FORWARD -j L3B_ING\n" EGR_RAW);
}

/* A concentrator of two CPEs: 203.0.113.0/24 and 2001:db8:1::/48, and
 * ::/0. */
static void two_cpes(struct conf *c)
{
	base(c, ROLE_CONCENTRATOR);
	c->ncpes = 2;
	c->cpe[0].nprefixes = 2;
	c->cpe[0].prefix[0].addr = htonl(0xcb007100);
	c->cpe[0].prefix[0].len = 24;
	c->cpe[0].prefix[1].v6 = true;
	inet_pton(AF_INET6, "2001:db8:1::", c->cpe[0].prefix[1].addr6);
	c->cpe[0].prefix[1].len = 48;
	c->cpe[1].nprefixes = 1;
	c->cpe[1].prefix[0].v6 = true;
	c->cpe[1].prefix[0].len = 0;
}

#define SET_CREATE(name, fam)                                                  \
	"create " name " hash:net family " fam " hashsize 1024 maxelem "      \
	"2097152 -exist\n"

/* The sets: each family's prefixes of every CPE into a new set, swapped
 * for the old one; a /0 as its two halves (hash:net has no /0); a CPE
 * has no set. */
static void test_rules_ipset(void **state)
{
	struct conf c;

	(void)state;
	two_cpes(&c);
	c.ncpes = 3;
	c.cpe[2].nprefixes = 2;
	c.cpe[2].prefix[0].addr = htonl(0x0a000004);
	c.cpe[2].prefix[0].len = 30;
	c.cpe[2].prefix[1].len = 0;
	assert_text(&c, GW_RULES_IPSET,
		    SET_CREATE("l3b_q0_v4_new", "inet")
		    "flush l3b_q0_v4_new\n"
		    "add l3b_q0_v4_new 203.0.113.0/24\n"
		    "add l3b_q0_v4_new 10.0.0.4/30\n"
		    "add l3b_q0_v4_new 0.0.0.0/1\n"
		    "add l3b_q0_v4_new 128.0.0.0/1\n"
		    SET_CREATE("l3b_q0_v4", "inet")
		    "swap l3b_q0_v4_new l3b_q0_v4\n"
		    "destroy l3b_q0_v4_new\n"
		    SET_CREATE("l3b_q0_v6_new", "inet6")
		    "flush l3b_q0_v6_new\n"
		    "add l3b_q0_v6_new 2001:db8:1::/48\n"
		    "add l3b_q0_v6_new ::/1\n"
		    "add l3b_q0_v6_new 8000::/1\n"
		    SET_CREATE("l3b_q0_v6", "inet6")
		    "swap l3b_q0_v6_new l3b_q0_v6\n"
		    "destroy l3b_q0_v6_new\n");
	/* no CPE: both sets there, empty */
	c.ncpes = 0;
	c.ingress_queue = 7;
	assert_text(&c, GW_RULES_IPSET,
		    SET_CREATE("l3b_q7_v4_new", "inet")
		    "flush l3b_q7_v4_new\n"
		    SET_CREATE("l3b_q7_v4", "inet")
		    "swap l3b_q7_v4_new l3b_q7_v4\n"
		    "destroy l3b_q7_v4_new\n"
		    SET_CREATE("l3b_q7_v6_new", "inet6")
		    "flush l3b_q7_v6_new\n"
		    SET_CREATE("l3b_q7_v6", "inet6")
		    "swap l3b_q7_v6_new l3b_q7_v6\n"
		    "destroy l3b_q7_v6_new\n");
	base(&c, ROLE_CPE);
	assert_text(&c, GW_RULES_IPSET, "");
}

/* the nft table's egress and defrag chains, the same in every test */
#define NFT_TAIL                                                               \
	"\tchain egress {\n"                                                    \
	"\t\ttype filter hook prerouting priority raw; policy accept;\n"       \
	"\t\tiifname \"wan-dsl\" udp dport 7040 fib daddr type local queue "  \
	"num 1\n"                                                              \
	"\t\tiifname \"wan-lte\" udp dport 7040 fib daddr type local queue "  \
	"num 1\n"                                                              \
	"\t}\n"                                                                \
	"\tchain defrag {\n\t\tct state invalid return\n\t}\n"                 \
	"}\n"

/* nft: the CPEs' prefixes in a named interval set per family, one rule
 * (clamp, queue) per family. */
static void test_rules_nft(void **state)
{
	struct conf c;

	(void)state;
	base(&c, ROLE_CONCENTRATOR);
	c.ncpes = 2;
	c.cpe[0].nprefixes = 1;
	c.cpe[0].prefix[0].addr = htonl(0x0a000100);
	c.cpe[0].prefix[0].len = 24;
	c.cpe[1].nprefixes = 1;
	c.cpe[1].prefix[0].addr = htonl(0x0a000300);
	c.cpe[1].prefix[0].len = 24;
	assert_text(&c, true,
		    "table inet l3bond\ndelete table inet l3bond\n"
		    "table inet l3bond {\n"
		    "\tset cpe4 {\n\t\ttype ipv4_addr; flags interval;\n"
		    "\t\telements = { 10.0.1.0/24, 10.0.3.0/24 }\n\t}\n"
		    "\tset cpe6 {\n\t\ttype ipv6_addr; flags interval;\n"
		    "\t}\n"
		    "\tchain ingress {\n"
		    "\t\ttype filter hook forward priority mangle; policy "
		    "accept;\n"
		    "\t\tip daddr @cpe4 tcp flags & (syn | rst) == syn "
		    "tcp option maxseg size 1385-65535 tcp option maxseg size "
		    "set 1384\n"
		    "\t\tip daddr @cpe4 queue num 0 bypass\n"
		    "\t\tip6 daddr @cpe6 tcp flags & (syn | rst) == syn "
		    "tcp option maxseg size 1365-65535 tcp option maxseg size "
		    "set 1364\n"
		    "\t\tip6 daddr @cpe6 queue num 0 bypass\n"
		    "\t}\n"
		    NFT_TAIL);
}

#define CLAMP6                                                                 \
	"-p tcp --tcp-flags SYN,RST SYN -m tcpmss --mss 1365:65535 "           \
	"-j TCPMSS --set-mss 1364\n"

/* ip6tables: the IPv6 set, the IPv6 MSS (20 less); the egress and defrag
 * chains as for IPv4. */
static void test_rules_ip6(void **state)
{
	struct conf c;

	(void)state;
	two_cpes(&c);
	assert_text(&c, GW_RULES_IP6TABLES,
		    SETS_HINT "*mangle\n:L3B_ING - [0:0]\n"
		    "-A L3B_ING -m set --match-set l3b_q0_v6 dst " CLAMP6
		    "-A L3B_ING -m set --match-set l3b_q0_v6 dst -j NFQUEUE "
		    "--queue-num 0 --queue-bypass\n"
		    "-A FORWARD -j L3B_ING\n" EGR_RAW);

	/* a CPE: by device, both families, each its own MSS */
	base(&c, ROLE_CPE);
	c.nlan = 1;
	strcpy(c.lan[0], "br-lan");
	strcpy(c.path[0].peers[0], "192.0.2.1");
	c.path[0].npeers = 1;
	strcpy(c.path[1].peers[0], "192.0.2.2");
	c.path[1].npeers = 1;
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
	strcpy(c.path[0].peers[0], "192.0.2.1");
	c.path[0].npeers = 1;
	strcpy(c.path[1].peers[0], "192.0.2.2");
	c.path[1].npeers = 1;
	assert_int_equal(gw_conf_mss(&c), 1384);
	strcpy(c.path[1].peers[0], "2001:db8::2");
	c.path[1].npeers = 1;
	assert_int_equal(gw_conf_mss(&c), 1364);
	c.path[0].mtu = 1400; /* IPv4 1400: 1284; IPv6 1500: 1364 */
	assert_int_equal(gw_conf_mss(&c), 1284);
	c.path[0].mtu = 1492;
	assert_int_equal(gw_conf_mss(&c), 1364);
	/* a concentrator assumes IPv4 until it learns an IPv6 peer */
	base(&c, ROLE_CONCENTRATOR);
	assert_int_equal(gw_conf_mss(&c), 1384);
}

/* nft: an IPv6 prefix in the IPv6 set; the CPE's clamp per family. */
static void test_rules_nft6(void **state)
{
	static char buf[GW_RULES_MAX];
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
	assert_non_null(strstr(buf, "\tset cpe4 {\n\t\ttype ipv4_addr; "
				    "flags interval;\n\t}\n"
				    "\tset cpe6 {\n\t\ttype ipv6_addr; "
				    "flags interval;\n"
				    "\t\telements = { 2001:db8:1::/48 }\n"
				    "\t}\n"));
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
/* Traffic classes up to the last bypass one in the capture rules: a chain
 * per field, an earlier class to the queue, the bypass one ACCEPTed, a
 * class of the other family or after the last bypass one not there. */
static void classes(struct conf *c)
{
	struct conf_class *k = c->class;

	base(c, ROLE_CPE);
	c->nlan = 1;
	strcpy(c->lan[0], "br-lan");
	c->nclasses = 4;
	strcpy(k[0].name, "voip"); /* pin: to the queue, as it is first */
	k[0].mode = CLASS_PIN;
	k[0].m.nproto = 1;
	k[0].m.proto[0] = 17;
	k[0].m.ndport = 1;
	k[0].m.dport[0] = (struct cls_range){5001, 5001};
	strcpy(k[1].name, "ef4"); /* IPv4 only */
	k[1].mode = CLASS_LOWEST_DELAY;
	k[1].m.family = 4;
	k[1].m.dscp = 1ull << 46;
	strcpy(k[2].name, "web"); /* ports without a protocol */
	k[2].mode = CLASS_BYPASS;
	k[2].m.ndport = 1;
	k[2].m.dport[0] = (struct cls_range){443, 444};
	k[2].m.ndst = 2;
	k[2].m.dst[0] = (struct cls_prefix){.family = 4, .len = 16,
					    .addr = {10, 1}};
	k[2].m.dst[1] = (struct cls_prefix){
		.family = 6, .len = 32, .addr = {0x20, 0x01, 0x0d, 0xb8}};
	strcpy(k[3].name, "icmp"); /* after the last bypass class */
	k[3].mode = CLASS_REDUNDANT;
	k[3].m.nproto = 1;
	k[3].m.proto[0] = 1;
}

#define WEB_PORTS(next)                                                        \
	"-A L3B_C2_0 -p 6 -m multiport --dports 443:444 -j " next "\n"         \
	"-A L3B_C2_0 -p 17 -m multiport --dports 443:444 -j " next "\n"        \
	"-A L3B_C2_0 -p 33 -m multiport --dports 443:444 -j " next "\n"        \
	"-A L3B_C2_0 -p 132 -m multiport --dports 443:444 -j " next "\n"       \
	"-A L3B_C2_0 -p 136 -m multiport --dports 443:444 -j " next "\n"

static void test_rules_classes(void **state)
{
	static char a[GW_RULES_MAX], b[GW_RULES_MAX];
	struct conf c;

	(void)state;
	classes(&c);
	assert_text(&c, GW_RULES_IPTABLES,
		    "*mangle\n:L3B_ING - [0:0]\n:L3B_CAP - [0:0]\n"
		    ":L3B_Q - [0:0]\n:L3B_C0_0 - [0:0]\n:L3B_C1_0 - [0:0]\n"
		    ":L3B_C2_0 - [0:0]\n:L3B_C2_1 - [0:0]\n"
		    "-A L3B_ING -i br-lan -o wan-dsl -j L3B_CAP\n"
		    "-A L3B_ING -i br-lan -o wan-lte -j L3B_CAP\n"
		    "-A L3B_CAP -j L3B_C0_0\n"
		    "-A L3B_C0_0 -p 17 -m multiport --dports 5001 -j L3B_Q\n"
		    "-A L3B_CAP -j L3B_C1_0\n"
		    "-A L3B_C1_0 -m dscp --dscp 46 -j L3B_Q\n"
		    "-A L3B_CAP -j L3B_C2_0\n" WEB_PORTS("L3B_C2_1")
		    "-A L3B_C2_1 -d 10.1.0.0/16 -j ACCEPT\n"
		    "-A L3B_CAP -j L3B_Q\n"
		    "-A L3B_Q " CLAMP
		    "-A L3B_Q -j NFQUEUE --queue-num 0 --queue-bypass\n"
		    "-A FORWARD -j L3B_ING\n" EGR_RAW);
	assert_text(&c, GW_RULES_IP6TABLES,
		    "*mangle\n:L3B_ING - [0:0]\n:L3B_CAP - [0:0]\n"
		    ":L3B_Q - [0:0]\n:L3B_C0_0 - [0:0]\n"
		    ":L3B_C2_0 - [0:0]\n:L3B_C2_1 - [0:0]\n"
		    "-A L3B_ING -i br-lan -o wan-dsl -j L3B_CAP\n"
		    "-A L3B_ING -i br-lan -o wan-lte -j L3B_CAP\n"
		    "-A L3B_CAP -j L3B_C0_0\n"
		    "-A L3B_C0_0 -p 17 -m multiport --dports 5001 -j L3B_Q\n"
		    "-A L3B_CAP -j L3B_C2_0\n" WEB_PORTS("L3B_C2_1")
		    "-A L3B_C2_1 -d 2001:db8::/32 -j ACCEPT\n"
		    "-A L3B_CAP -j L3B_Q\n"
		    "-A L3B_Q " CLAMP6
		    "-A L3B_Q -j NFQUEUE --queue-num 0 --queue-bypass\n"
		    "-A FORWARD -j L3B_ING\n" EGR_RAW);
	assert_text(&c, GW_RULES_NFT,
		    "table inet l3bond\ndelete table inet l3bond\n"
		    "table inet l3bond {\n"
		    "\tchain q {\n"
		    "\t\tmeta nfproto ipv4 tcp flags & (syn | rst) == syn "
		    "tcp option maxseg size 1385-65535 tcp option maxseg size "
		    "set 1384\n"
		    "\t\tmeta nfproto ipv6 tcp flags & (syn | rst) == syn "
		    "tcp option maxseg size 1365-65535 tcp option maxseg size "
		    "set 1364\n"
		    "\t\tqueue num 0 bypass\n\t}\n"
		    "\tchain cap {\n"
		    "\t\tmeta nfproto ipv4 meta l4proto { 17 } th dport "
		    "{ 5001 } goto q\n"
		    "\t\tmeta nfproto ipv6 meta l4proto { 17 } th dport "
		    "{ 5001 } goto q\n"
		    "\t\tmeta nfproto ipv4 ip dscp { 46 } goto q\n"
		    "\t\tmeta nfproto ipv4 meta l4proto { 6, 17, 33, 132, 136 } "
		    "th dport { 443-444 } ip daddr { 10.1.0.0/16 } accept\n"
		    "\t\tmeta nfproto ipv6 meta l4proto { 6, 17, 33, 132, 136 } "
		    "th dport { 443-444 } ip6 daddr { 2001:db8::/32 } accept\n"
		    "\t\tgoto q\n\t}\n"
		    "\tchain ingress {\n"
		    "\t\ttype filter hook forward priority mangle; policy "
		    "accept;\n"
		    "\t\tiifname \"br-lan\" oifname \"wan-dsl\" goto cap\n"
		    "\t\tiifname \"br-lan\" oifname \"wan-lte\" goto cap\n"
		    "\t}\n"
		    NFT_TAIL);
	/* without a bypass class, the same rules as without classes */
	c.class[2].mode = CLASS_BOND;
	assert_true(gw_rules_text(&c, GW_RULES_IPTABLES, 1384, a, sizeof(a)) >
		    0);
	c.nclasses = 0;
	assert_true(gw_rules_text(&c, GW_RULES_IPTABLES, 1384, b, sizeof(b)) >
		    0);
	assert_string_equal(a, b);
}

/* Workers: each CPE's prefixes go to its worker's ingress queue (session
 * id modulo the workers), the tunnel's packets to the egress queue of
 * the worker of their session id: an xt_bpf match for all but the last
 * worker, which takes the rest; in nft the workers' session ids as sets.
 * Queues 4 and 6, 3 workers: 4/6, 7/9, 10/12. */
static void test_rules_workers(void **state)
{
	static char buf[GW_RULES_MAX]; /* large: not on the stack */
	struct conf c;

	(void)state;
	base(&c, ROLE_CONCENTRATOR);
	c.workers = 3;
	c.ingress_queue = 4;
	c.egress_queue = 6;
	c.npaths = 1;
	c.ncpes = 2;
	c.cpe[0].session_id = 7; /* worker 1 */
	c.cpe[0].nprefixes = 1;
	c.cpe[0].prefix[0].addr = htonl(0xcb007100);
	c.cpe[0].prefix[0].len = 24;
	c.cpe[1].session_id = 9; /* worker 0 */
	c.cpe[1].nprefixes = 1;
	c.cpe[1].prefix[0].addr = htonl(0xc6336400);
	c.cpe[1].prefix[0].len = 24;
	assert_int_equal(conf_workers(&c), 3);
	assert_int_equal(conf_worker_queue(&c, c.egress_queue, 2), 12);
	assert_text(&c, false,
		    "# needs the CPEs' set: l3bondd --print-rules ipset | "
		    "ipset restore\n"
		    "*mangle\n:L3B_ING - [0:0]\n"
		    "-A L3B_ING -m set --match-set l3b_q4_v4 dst " CLAMP
		    "-A L3B_ING -m set --match-set l3b_q4_v4 dst -j NFQUEUE "
		    "--queue-num 4 --queue-bypass\n"
		    "-A L3B_ING -m set --match-set l3b_q7_v4 dst " CLAMP
		    "-A L3B_ING -m set --match-set l3b_q7_v4 dst -j NFQUEUE "
		    "--queue-num 7 --queue-bypass\n"
		    "-A L3B_ING -m set --match-set l3b_q10_v4 dst " CLAMP
		    "-A L3B_ING -m set --match-set l3b_q10_v4 dst -j NFQUEUE "
		    "--queue-num 10 --queue-bypass\n"
		    "-A FORWARD -j L3B_ING\n"
		    "COMMIT\n*raw\n:L3B_EGR - [0:0]\n"
		    "-A L3B_EGR -i wan-dsl -p udp --dport 7040 -m addrtype "
		    "--dst-type LOCAL -m bpf --bytecode \"6,177 0 0 0,64 0 0 "
		    "12,148 0 0 3,21 0 1 0,6 0 0 1,6 0 0 0\" -j NFQUEUE "
		    "--queue-num 6\n"
		    "-A L3B_EGR -i wan-dsl -p udp --dport 7040 -m addrtype "
		    "--dst-type LOCAL -m bpf --bytecode \"6,177 0 0 0,64 0 0 "
		    "12,148 0 0 3,21 0 1 1,6 0 0 1,6 0 0 0\" -j NFQUEUE "
		    "--queue-num 9\n"
		    "-A L3B_EGR -i wan-dsl -p udp --dport 7040 -m addrtype "
		    "--dst-type LOCAL -j NFQUEUE --queue-num 12\n"
		    "-A PREROUTING -j L3B_EGR\n" DEFRAG);
	assert_true(gw_rules_text(&c, GW_RULES_IP6TABLES, 1384, buf,
				  sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "-m bpf --bytecode \"5,32 0 0 52,148 0 0 "
				    "3,21 0 1 1,6 0 0 1,6 0 0 0\" -j NFQUEUE "
				    "--queue-num 9\n"));
	/* each worker's set holds its CPEs' prefixes */
	assert_true(gw_rules_text(&c, GW_RULES_IPSET, 1384, buf,
				  sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "add l3b_q4_v4_new 198.51.100.0/24\n"));
	assert_non_null(strstr(buf, "add l3b_q7_v4_new 203.0.113.0/24\n"));
	assert_non_null(strstr(buf, "swap l3b_q10_v4_new l3b_q10_v4\n"));
	assert_null(strstr(buf, "add l3b_q10_v4_new"));
	assert_true(gw_rules_text(&c, GW_RULES_NFT, 1384, buf, sizeof(buf)) >
		    0);
	assert_non_null(strstr(buf, "\tset cpe4_w1 {\n\t\ttype ipv4_addr; "
				    "flags interval;\n\t\telements = { "
				    "203.0.113.0/24 }\n"));
	assert_non_null(strstr(buf, "ip daddr @cpe4_w1 queue num 7 bypass\n"));
	assert_non_null(strstr(buf, "fib daddr type local @th,96,32 { 9 } "
				    "queue num 6\n"));
	assert_non_null(strstr(buf, "fib daddr type local @th,96,32 { 7 } "
				    "queue num 9\n"));
	assert_non_null(strstr(buf, "fib daddr type local queue num 12\n"));
	/* a worker without CPEs: an id of its own that no CPE has */
	c.cpe[0].session_id = 6;
	assert_true(gw_rules_text(&c, GW_RULES_NFT, 1384, buf, sizeof(buf)) >
		    0);
	assert_non_null(strstr(buf, "fib daddr type local @th,96,32 4 "
				    "queue num 9\n"));
}

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

/* 10,000 CPEs: the iptables text is the same as with one (a rule per
 * family, the set holds them), the sets' and nft's texts hold every
 * prefix and fit. */
static void test_rules_many(void **state)
{
	enum { N = 10000 };
	static struct conf_cpe many[N];
	static char a[GW_RULES_MAX], b[GW_RULES_MAX];
	struct conf c;
	unsigned k, n;
	char *p;

	(void)state;
	base(&c, ROLE_CONCENTRATOR);
	c.cpe = many;
	c.ncpes = 1;
	for (k = 0; k < N; k++) {
		many[k].nprefixes = 1;
		many[k].prefix[0].addr = htonl(0x64400000u + 4 * k);
		many[k].prefix[0].len = 30;
	}
	assert_true(gw_rules_text(&c, GW_RULES_IPTABLES, 1384, a, sizeof(a)) >
		    0);
	c.ncpes = N;
	assert_true(gw_rules_text(&c, GW_RULES_IPTABLES, 1384, b, sizeof(b)) >
		    0);
	assert_string_equal(a, b);
	assert_true(gw_rules_text(&c, GW_RULES_IPSET, 1384, a, sizeof(a)) > 0);
	for (n = 0, p = a; (p = strstr(p, "\nadd l3b_q0_v4_new ")); p++) {
		n++;
	}
	assert_int_equal(n, N);
	assert_non_null(strstr(a, "add l3b_q0_v4_new 100.64.156.60/30\n"));
	assert_true(gw_rules_text(&c, GW_RULES_NFT, 1384, a, sizeof(a)) > 0);
	assert_non_null(strstr(a, "100.64.0.0/30, 100.64.0.4/30, "));
	assert_non_null(strstr(a, ", 100.64.156.60/30 }\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules_cpe),
		cmocka_unit_test(test_rules_cpe_output),
		cmocka_unit_test(test_rules_concentrator),
		cmocka_unit_test(test_rules_ipset),
		cmocka_unit_test(test_rules_many),
		cmocka_unit_test(test_rules_nft),
		cmocka_unit_test(test_rules_overflow),
		cmocka_unit_test(test_rules_ip6),
		cmocka_unit_test(test_conf_mss),
		cmocka_unit_test(test_rules_nft6),
		cmocka_unit_test(test_rules_classes),
		cmocka_unit_test(test_rules_workers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
