/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests of the traffic class matcher (ingress/classify.c):
 * - a vector table: IPv4 and IPv6 packets built here against one match
 *   each (written as text: "family=4 dscp=46 proto=17 sport=5060
 *   dport=1000-2000 src=10.0.0.0/8 dst=..."), every field matching and
 *   not, first and later fragments, IPv4 options and a bad IHL, IPv6
 *   extension headers (and too many of them, one running past the end,
 *   AH as a protocol), truncations at every field's edge, a packet of
 *   another version, the empty match matching all;
 * - the order: the first match wins, n = 0 is the default class;
 * - a randomized comparison with a naive matcher written here another way
 *   (a byte accessor that says when a byte is missing, a parse into a
 *   struct, the extension headers walked one by one, prefixes bit by bit)
 *   over random tables of matches and random packets of both families,
 *   with random extension headers, fragments, truncations and garbage;
 *   each packet in a heap block of exactly its length, so ASan sees any
 *   read past it.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ingress/classify.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum {
	PKT_MAX = 512,
	UDP = 17,
	TCP = 6,
	ICMP = 1,
	ICMP6 = 58,
	SCTP = 132,
	AH = 51,
	HOP = 0,
	ROUTING = 43,
	FRAG = 44,
	DSTOPTS = 60,
};

/* ---- packets ---------------------------------------------------------- */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void addr(int family, const char *text, uint8_t *out)
{
	assert_int_equal(inet_pton(family == 4 ? AF_INET : AF_INET6, text, out),
			 1);
}

/* An IPv4 packet: optwords 4-byte words of options (NOPs), frag the
 * flags and offset field, 8 bytes of transport header (ports first);
 * returns its length. */
static size_t ip4(uint8_t *p, uint8_t dscp, uint8_t proto, const char *src,
		  const char *dst, uint16_t sport, uint16_t dport,
		  uint16_t frag, unsigned optwords)
{
	size_t ihl = 20 + 4 * optwords, len = ihl + 8;

	memset(p, 0, len);
	p[0] = (uint8_t)(0x40 | (5 + optwords));
	p[1] = (uint8_t)(dscp << 2 | 1); /* ECN bits must not matter */
	put16(p + 2, (uint16_t)len);
	put16(p + 6, frag);
	p[8] = 64;
	p[9] = proto;
	addr(4, src, p + 12);
	addr(4, dst, p + 16);
	memset(p + 20, 1, ihl - 20); /* NOP */
	put16(p + ihl, sport);
	put16(p + ihl + 2, dport);
	return len;
}

/* An IPv6 packet with the extension headers ext[0..n) (each 8 bytes; a
 * fragment header with offset fragoff in 8-byte units), then proto with 8
 * bytes of header (ports first); returns its length. */
static size_t ip6(uint8_t *p, uint8_t dscp, const uint8_t *ext, unsigned n,
		  uint8_t proto, const char *src, const char *dst,
		  uint16_t sport, uint16_t dport, uint16_t fragoff)
{
	size_t o = 40, len = 40 + 8 * (size_t)n + 8;
	unsigned i;

	memset(p, 0, len);
	/* version 6, traffic class dscp << 2 | ECN 1, a flow label */
	p[0] = (uint8_t)(0x60 | dscp >> 2);
	p[1] = (uint8_t)((dscp & 3) << 6 | 1 << 4 | 0x0a);
	put16(p + 4, (uint16_t)(len - 40));
	p[6] = n ? ext[0] : proto;
	p[7] = 64;
	addr(6, src, p + 8);
	addr(6, dst, p + 24);
	for (i = 0; i < n; i++, o += 8) {
		p[o] = i + 1 < n ? ext[i + 1] : proto;
		if (ext[i] == FRAG) {
			put16(p + o + 2, (uint16_t)(fragoff << 3 | 1));
		} else if (ext[i] == AH) {
			p[o + 1] = 0; /* (0 + 2) * 4 = 8 bytes */
		} else {
			p[o + 1] = 0; /* (0 + 1) * 8 = 8 bytes */
		}
	}
	put16(p + o, sport);
	put16(p + o + 2, dport);
	return len;
}

/* ---- a match written as text ------------------------------------------ */

static void prefix(struct cls_prefix *p, const char *text)
{
	char buf[64];
	char *slash;

	snprintf(buf, sizeof(buf), "%s", text);
	slash = strchr(buf, '/');
	assert_non_null(slash);
	*slash = '\0';
	p->family = strchr(buf, ':') ? 6 : 4;
	p->len = (uint8_t)atoi(slash + 1);
	memset(p->addr, 0, sizeof(p->addr));
	addr(p->family, buf, p->addr);
}

static void range(struct cls_range *r, const char *text)
{
	const char *dash = strchr(text, '-');

	r->lo = (uint16_t)atoi(text);
	r->hi = dash ? (uint16_t)atoi(dash + 1) : r->lo;
}

/* "key=v,v key=v": family, dscp, proto, sport, dport, src, dst */
static struct cls_match match(const char *text)
{
	struct cls_match m;
	char buf[512];
	char *save = NULL, *kv, *v, *vsave;

	memset(&m, 0, sizeof(m));
	snprintf(buf, sizeof(buf), "%s", text);
	for (kv = strtok_r(buf, " ", &save); kv;
	     kv = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(kv, '=');

		assert_non_null(eq);
		*eq = '\0';
		vsave = NULL;
		for (v = strtok_r(eq + 1, ",", &vsave); v;
		     v = strtok_r(NULL, ",", &vsave)) {
			if (!strcmp(kv, "family")) {
				m.family = (uint8_t)atoi(v);
			} else if (!strcmp(kv, "dscp")) {
				m.dscp |= 1ull << atoi(v);
			} else if (!strcmp(kv, "proto")) {
				m.proto[m.nproto++] = (uint8_t)atoi(v);
			} else if (!strcmp(kv, "sport")) {
				range(&m.sport[m.nsport++], v);
			} else if (!strcmp(kv, "dport")) {
				range(&m.dport[m.ndport++], v);
			} else if (!strcmp(kv, "src")) {
				prefix(&m.src[m.nsrc++], v);
			} else if (!strcmp(kv, "dst")) {
				prefix(&m.dst[m.ndst++], v);
			} else {
				fail_msg("unknown key %s", kv);
			}
		}
	}
	return m;
}

/* ---- the vector table ------------------------------------------------- */

enum pkt_id {
	P4_UDP, /* dscp 46, 10.1.2.3:5060 -> 192.0.2.9:10000 */
	P4_TCP, /* dscp 0, 10.1.2.3:40000 -> 198.51.100.7:443 */
	P4_ICMP,
	P4_SCTP,
	P4_FRAG_FIRST, /* P4_UDP with MF, offset 0 */
	P4_FRAG_LATER, /* P4_UDP at offset 185 (1480 bytes) */
	P4_FRAG_LAST,  /* P4_UDP at offset 185, no MF */
	P4_OPTS,       /* P4_UDP with 8 bytes of options */
	P4_BAD_IHL,    /* P4_UDP with IHL 4 */
	P4_CUT1,       /* P4_UDP's first byte */
	P4_CUT9,       /* up to the TTL: no protocol */
	P4_CUT10,      /* with the protocol */
	P4_CUT15,      /* a byte short of the source */
	P4_CUT16,      /* the source */
	P4_CUT19,      /* a byte short of the destination */
	P4_CUT23,      /* a byte short of the ports */
	P4_CUT24,      /* with the ports */
	P6_UDP,	       /* dscp 34, [2001:db8::1]:5060 -> [2001:db8:1::2]:10000 */
	P6_EXT,	       /* hop-by-hop, routing, dstopts, then TCP 40000 -> 443 */
	P6_FRAG_FIRST, /* a fragment header at offset 0, then UDP */
	P6_FRAG_LATER, /* a fragment header at offset 185, then UDP */
	P6_EXT_MAX,    /* CLS_EXT_MAX dstopts, then UDP */
	P6_EXT_OVER,   /* CLS_EXT_MAX + 1 dstopts, then UDP */
	P6_EXT_CUT,    /* P6_EXT cut inside its routing header */
	P6_AH,	       /* AH, then UDP: protocol AH, no ports */
	P6_ICMP,
	P6_CUT1,
	P6_CUT23,  /* a byte short of the source */
	P6_CUT39,  /* a byte short of the destination */
	P6_CUT40,  /* the fixed header: no ports */
	P6_CUT44,  /* with the ports */
	P_V5,	   /* version 5 */
	P_EMPTY,   /* 0 bytes */
	P_NPKTS,
};

static uint8_t pkts[P_NPKTS][PKT_MAX];
static size_t lens[P_NPKTS];

static void build(void)
{
	static const uint8_t ext3[] = {HOP, ROUTING, DSTOPTS};
	static const uint8_t frag[] = {FRAG};
	static const uint8_t ah[] = {AH};
	uint8_t many[CLS_EXT_MAX + 1];
	const char *s6 = "2001:db8::1", *d6 = "2001:db8:1::2";
	size_t i;

	memset(many, DSTOPTS, sizeof(many));
	lens[P4_UDP] = ip4(pkts[P4_UDP], 46, UDP, "10.1.2.3", "192.0.2.9",
			   5060, 10000, 0, 0);
	lens[P4_TCP] = ip4(pkts[P4_TCP], 0, TCP, "10.1.2.3", "198.51.100.7",
			   40000, 443, 0x4000, 0);
	lens[P4_ICMP] = ip4(pkts[P4_ICMP], 0, ICMP, "10.1.2.3", "192.0.2.9",
			    0x0800, 0, 0, 0);
	lens[P4_SCTP] = ip4(pkts[P4_SCTP], 0, SCTP, "10.1.2.3", "192.0.2.9",
			    5060, 10000, 0, 0);
	lens[P4_FRAG_FIRST] = ip4(pkts[P4_FRAG_FIRST], 46, UDP, "10.1.2.3",
				  "192.0.2.9", 5060, 10000, 0x2000, 0);
	lens[P4_FRAG_LATER] = ip4(pkts[P4_FRAG_LATER], 46, UDP, "10.1.2.3",
				  "192.0.2.9", 5060, 10000, 0x2000 | 185, 0);
	lens[P4_FRAG_LAST] = ip4(pkts[P4_FRAG_LAST], 46, UDP, "10.1.2.3",
				 "192.0.2.9", 5060, 10000, 185, 0);
	lens[P4_OPTS] = ip4(pkts[P4_OPTS], 46, UDP, "10.1.2.3", "192.0.2.9",
			    5060, 10000, 0, 2);
	lens[P4_BAD_IHL] = ip4(pkts[P4_BAD_IHL], 46, UDP, "10.1.2.3",
			       "192.0.2.9", 5060, 10000, 0, 0);
	pkts[P4_BAD_IHL][0] = 0x44;
	for (i = P4_CUT1; i <= P4_CUT24; i++) {
		static const size_t cut[] = {1, 9, 10, 15, 16, 19, 23, 24};

		memcpy(pkts[i], pkts[P4_UDP], lens[P4_UDP]);
		lens[i] = cut[i - P4_CUT1];
	}
	lens[P6_UDP] = ip6(pkts[P6_UDP], 34, NULL, 0, UDP, s6, d6, 5060, 10000,
			   0);
	lens[P6_EXT] = ip6(pkts[P6_EXT], 0, ext3, 3, TCP, s6,
			   "2001:db8:ffff::9", 40000, 443, 0);
	lens[P6_FRAG_FIRST] = ip6(pkts[P6_FRAG_FIRST], 34, frag, 1, UDP, s6,
				  d6, 5060, 10000, 0);
	lens[P6_FRAG_LATER] = ip6(pkts[P6_FRAG_LATER], 34, frag, 1, UDP, s6,
				  d6, 5060, 10000, 185);
	lens[P6_EXT_MAX] = ip6(pkts[P6_EXT_MAX], 34, many, CLS_EXT_MAX, UDP,
			       s6, d6, 5060, 10000, 0);
	lens[P6_EXT_OVER] = ip6(pkts[P6_EXT_OVER], 34, many, CLS_EXT_MAX + 1,
				UDP, s6, d6, 5060, 10000, 0);
	memcpy(pkts[P6_EXT_CUT], pkts[P6_EXT], lens[P6_EXT]);
	lens[P6_EXT_CUT] = 40 + 8 + 5;
	lens[P6_AH] = ip6(pkts[P6_AH], 34, ah, 1, UDP, s6, d6, 5060, 10000, 0);
	lens[P6_ICMP] = ip6(pkts[P6_ICMP], 34, NULL, 0, ICMP6, s6, d6, 0x8000,
			    0, 0);
	for (i = P6_CUT1; i <= P6_CUT44; i++) {
		static const size_t cut[] = {1, 23, 39, 40, 44};

		memcpy(pkts[i], pkts[P6_UDP], lens[P6_UDP]);
		lens[i] = cut[i - P6_CUT1];
	}
	memcpy(pkts[P_V5], pkts[P4_UDP], lens[P4_UDP]);
	pkts[P_V5][0] = 0x55;
	lens[P_V5] = lens[P4_UDP];
	lens[P_EMPTY] = 0;
}

static const struct vector {
	enum pkt_id pkt;
	const char *match;
	bool hit;
} vectors[] = {
	/* 0: the empty match: everything, even what is not IP */
	{P4_UDP, "", true},
	{P6_UDP, "", true},
	{P_V5, "", true},
	{P_EMPTY, "", true},
	{P4_CUT1, "", true},
	/* 5: family */
	{P4_UDP, "family=4", true},
	{P4_UDP, "family=6", false},
	{P6_UDP, "family=6", true},
	{P6_UDP, "family=4", false},
	{P_V5, "family=4", false},
	{P4_CUT1, "family=4", true},
	{P6_CUT1, "family=6", true},
	{P_EMPTY, "family=4", false},
	/* 13: DSCP (the ECN bits set in every packet do not count) */
	{P4_UDP, "dscp=46", true},
	{P4_UDP, "dscp=0,34,46", true},
	{P4_UDP, "dscp=47", false},
	{P4_UDP, "dscp=0", false},
	{P4_TCP, "dscp=0", true},
	{P6_UDP, "dscp=34", true},
	{P6_UDP, "dscp=35", false},
	{P6_UDP, "dscp=33", false},
	{P6_EXT, "dscp=0", true},
	{P4_CUT1, "dscp=46", false},
	{P6_CUT1, "dscp=34", false},
	{P_V5, "dscp=46", false},
	/* 25: protocol */
	{P4_UDP, "proto=17", true},
	{P4_UDP, "proto=6,17", true},
	{P4_UDP, "proto=6", false},
	{P4_ICMP, "proto=1", true},
	{P4_CUT9, "proto=17", false},
	{P4_CUT10, "proto=17", true},
	{P4_BAD_IHL, "proto=17", true},
	{P4_FRAG_LATER, "proto=17", true},
	{P6_UDP, "proto=17", true},
	{P6_EXT, "proto=6", true},
	{P6_EXT, "proto=0", false},
	{P6_FRAG_FIRST, "proto=17", true},
	{P6_FRAG_LATER, "proto=17", true},
	{P6_FRAG_LATER, "proto=44", false},
	{P6_EXT_MAX, "proto=17", true},
	{P6_EXT_OVER, "proto=17", false},
	{P6_EXT_OVER, "proto=60", false},
	{P6_EXT_CUT, "proto=6", false},
	{P6_EXT_CUT, "proto=43", false},
	{P6_AH, "proto=51", true},
	{P6_AH, "proto=17", false},
	{P6_ICMP, "proto=58", true},
	{P6_CUT39, "proto=17", false},
	{P6_CUT40, "proto=17", true},
	/* 49: ports */
	{P4_UDP, "sport=5060", true},
	{P4_UDP, "sport=5061", false},
	{P4_UDP, "dport=10000-20000", true},
	{P4_UDP, "dport=10001-20000", false},
	{P4_UDP, "dport=1-9999", false},
	{P4_UDP, "dport=1-9999,10000", true},
	{P4_UDP, "sport=5060 dport=443", false},
	{P4_TCP, "sport=40000 dport=443", true},
	{P4_SCTP, "sport=5060", true},
	{P4_ICMP, "sport=2048", false},
	{P4_ICMP, "dport=0", false},
	{P4_FRAG_FIRST, "sport=5060", true},
	{P4_FRAG_LATER, "sport=5060", false},
	{P4_FRAG_LAST, "dport=10000", false},
	{P4_OPTS, "sport=5060 dport=10000", true},
	{P4_BAD_IHL, "sport=5060", false},
	{P4_CUT23, "sport=5060", false},
	{P4_CUT24, "sport=5060 dport=10000", true},
	{P6_UDP, "sport=5060 dport=10000", true},
	{P6_UDP, "dport=10001-65535", false},
	{P6_EXT, "sport=40000 dport=443", true},
	{P6_FRAG_FIRST, "dport=10000", true},
	{P6_FRAG_LATER, "dport=10000", false},
	{P6_EXT_MAX, "sport=5060", true},
	{P6_EXT_OVER, "sport=5060", false},
	{P6_AH, "sport=5060", false},
	{P6_ICMP, "sport=32768", false},
	{P6_CUT40, "sport=5060", false},
	{P6_CUT44, "sport=5060 dport=10000", true},
	{P6_EXT_CUT, "dport=443", false},
	/* 79: addresses */
	{P4_UDP, "src=10.0.0.0/8", true},
	{P4_UDP, "src=10.1.2.3/32", true},
	{P4_UDP, "src=10.1.2.4/31", false},
	{P4_UDP, "src=0.0.0.0/0", true},
	{P4_UDP, "src=11.0.0.0/8", false},
	{P4_UDP, "src=2001:db8::/32", false},
	{P4_UDP, "src=2001:db8::/32,10.1.0.0/16", true},
	{P4_UDP, "src=::/0", false},
	{P4_UDP, "dst=192.0.2.0/24", true},
	{P4_UDP, "dst=192.0.2.8/30", true},
	{P4_UDP, "dst=192.0.2.12/30", false},
	{P4_UDP, "dst=10.0.0.0/8", false},
	{P4_CUT15, "src=0.0.0.0/0", false},
	{P4_CUT16, "src=10.0.0.0/8", true},
	{P4_CUT16, "dst=0.0.0.0/0", false},
	{P4_CUT19, "dst=192.0.2.0/24", false},
	{P4_CUT23, "dst=192.0.2.0/24", true},
	{P6_UDP, "src=2001:db8::/32", true},
	{P6_UDP, "src=2001:db8::1/128", true},
	{P6_UDP, "src=2001:db8::/127", true},
	{P6_UDP, "src=2001:db8::2/127", false},
	{P6_UDP, "src=2001:db9::/32", false},
	{P6_UDP, "src=0.0.0.0/0", false},
	{P6_UDP, "dst=2001:db8:1::/48", true},
	{P6_UDP, "dst=2001:db8:1::/49", true},
	{P6_UDP, "dst=2001:db8:0::/48", false},
	{P6_UDP, "dst=2001:db8:8000::/33", false},
	{P6_EXT, "dst=2001:db8:ffff::/48", true},
	{P6_CUT23, "src=::/0", false},
	{P6_CUT39, "src=2001:db8::/32", true},
	{P6_CUT39, "dst=::/0", false},
	{P6_CUT40, "dst=2001:db8:1::2/128", true},
	{P_V5, "src=0.0.0.0/0", false},
	/* 112: every field at once, and each one of them wrong */
	{P4_UDP,
	 "family=4 dscp=46 proto=17 sport=5060 dport=10000-20000 "
	 "src=10.0.0.0/8 dst=192.0.2.0/24",
	 true},
	{P4_UDP,
	 "family=6 dscp=46 proto=17 sport=5060 dport=10000-20000 "
	 "src=10.0.0.0/8 dst=192.0.2.0/24",
	 false},
	{P4_UDP,
	 "family=4 dscp=34 proto=17 sport=5060 dport=10000-20000 "
	 "src=10.0.0.0/8 dst=192.0.2.0/24",
	 false},
	{P4_UDP,
	 "family=4 dscp=46 proto=6 sport=5060 dport=10000-20000 "
	 "src=10.0.0.0/8 dst=192.0.2.0/24",
	 false},
	{P4_UDP,
	 "family=4 dscp=46 proto=17 sport=5061 dport=10000-20000 "
	 "src=10.0.0.0/8 dst=192.0.2.0/24",
	 false},
	{P4_UDP,
	 "family=4 dscp=46 proto=17 sport=5060 dport=20000-30000 "
	 "src=10.0.0.0/8 dst=192.0.2.0/24",
	 false},
	{P4_UDP,
	 "family=4 dscp=46 proto=17 sport=5060 dport=10000-20000 "
	 "src=172.16.0.0/12 dst=192.0.2.0/24",
	 false},
	{P4_UDP,
	 "family=4 dscp=46 proto=17 sport=5060 dport=10000-20000 "
	 "src=10.0.0.0/8 dst=198.51.100.0/24",
	 false},
	{P6_UDP,
	 "family=6 dscp=34 proto=17 sport=5060 dport=10000 "
	 "src=2001:db8::/32 dst=2001:db8:1::/48",
	 true},
	{P6_EXT_CUT, "family=6 dscp=0 src=2001:db8::/32", true},
};

static void test_vectors(void **state)
{
	size_t i;

	(void)state;
	build();
	for (i = 0; i < ARRAY_SIZE(vectors); i++) {
		const struct vector *v = &vectors[i];
		struct cls_match m = match(v->match);
		uint8_t *p = malloc(lens[v->pkt] ? lens[v->pkt] : 1);
		int got;

		assert_non_null(p);
		memcpy(p, pkts[v->pkt], lens[v->pkt]);
		got = cls_classify(&m, 1, p, lens[v->pkt]);
		if (got != (v->hit ? 0 : -1)) {
			fail_msg("vector %zu (packet %d, \"%s\"): got %d", i,
				 (int)v->pkt, v->match, got);
		}
		free(p);
	}
}

static void test_order(void **state)
{
	struct cls_match m[4];

	(void)state;
	build();
	m[0] = match("family=6");
	m[1] = match("proto=17");
	m[2] = match("dscp=46");
	m[3] = match("");
	assert_int_equal(cls_classify(m, 4, pkts[P4_UDP], lens[P4_UDP]), 1);
	assert_int_equal(cls_classify(m, 4, pkts[P6_UDP], lens[P6_UDP]), 0);
	assert_int_equal(cls_classify(m, 4, pkts[P4_TCP], lens[P4_TCP]), 3);
	assert_int_equal(cls_classify(m + 2, 2, pkts[P4_UDP], lens[P4_UDP]),
			 0);
	/* only the first n count */
	assert_int_equal(cls_classify(m + 2, 1, pkts[P4_TCP], lens[P4_TCP]),
			 -1);
	assert_int_equal(cls_classify(m, 0, pkts[P4_UDP], lens[P4_UDP]), -1);
	assert_int_equal(cls_classify(NULL, 0, pkts[P4_UDP], lens[P4_UDP]),
			 -1);
	assert_int_equal(cls_classify(m, 1, pkts[P_EMPTY], 0),
			 -1);
	assert_int_equal(cls_classify(m + 3, 1, NULL, 0), 0);
}

/* ---- the naive matcher ------------------------------------------------ */

struct nbuf {
	const uint8_t *p;
	size_t len;
};

/* byte i, or -1 when the packet ends before it */
static int at(const struct nbuf *b, size_t i)
{
	return i < b->len ? b->p[i] : -1;
}

/* bytes i..i+n-1 are all there */
static bool there(const struct nbuf *b, size_t i, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		if (at(b, i + k) < 0) {
			return false;
		}
	}
	return true;
}

struct naive {
	int family; /* 0: none */
	int dscp;   /* -1: missing, and so on */
	int proto;
	long sport, dport;
	bool src_ok, dst_ok;
	uint8_t src[16], dst[16];
};

static void naive_parse(const uint8_t *p, size_t len, struct naive *o)
{
	struct nbuf b = {p, len};
	size_t l4 = 0, alen;
	bool ports = false;

	o->family = 0;
	o->dscp = o->proto = -1;
	o->sport = o->dport = -1;
	o->src_ok = o->dst_ok = false;
	if (at(&b, 0) >> 4 == 4) {
		o->family = 4;
		alen = 4;
		if (there(&b, 1, 1)) {
			o->dscp = at(&b, 1) / 4;
		}
		if (there(&b, 9, 1)) {
			o->proto = at(&b, 9);
		}
		o->src_ok = there(&b, 12, 4);
		o->dst_ok = there(&b, 16, 4);
		l4 = (size_t)(at(&b, 0) % 16) * 4;
		ports = l4 >= 20 && there(&b, 6, 2) &&
			(at(&b, 6) % 32 == 0 && at(&b, 7) == 0);
		if (o->src_ok) {
			memcpy(o->src, p + 12, 4);
		}
		if (o->dst_ok) {
			memcpy(o->dst, p + 16, 4);
		}
	} else if (at(&b, 0) >> 4 == 6) {
		int nh = at(&b, 6);
		unsigned count = 0;
		size_t off = 40;

		o->family = 6;
		alen = 16;
		if (there(&b, 0, 2)) {
			o->dscp = (at(&b, 0) % 16) * 4 + at(&b, 1) / 64;
		}
		o->src_ok = there(&b, 8, 16);
		o->dst_ok = there(&b, 24, 16);
		if (o->src_ok) {
			memcpy(o->src, p + 8, 16);
		}
		if (o->dst_ok) {
			memcpy(o->dst, p + 24, 16);
		}
		if (!there(&b, 0, 40)) {
			return;
		}
		ports = true;
		while (nh == HOP || nh == ROUTING || nh == DSTOPTS ||
		       nh == FRAG) {
			size_t size;

			if (++count > CLS_EXT_MAX || !there(&b, off, 8)) {
				return; /* no protocol */
			}
			if (nh == FRAG) {
				size = 8;
				if (at(&b, off + 2) * 256 + at(&b, off + 3) >=
				    8) {
					ports = false; /* a later fragment */
					nh = at(&b, off);
					break;
				}
			} else {
				size = 8 * (1 + (size_t)at(&b, off + 1));
			}
			if (!there(&b, off, size)) {
				return;
			}
			nh = at(&b, off);
			off += size;
		}
		o->proto = nh;
		l4 = off;
	} else {
		return;
	}
	(void)alen;
	if (ports && o->proto >= 0 &&
	    (o->proto == TCP || o->proto == UDP || o->proto == 33 ||
	     o->proto == SCTP || o->proto == 136) &&
	    there(&b, l4, 4)) {
		o->sport = at(&b, l4) * 256 + at(&b, l4 + 1);
		o->dport = at(&b, l4 + 2) * 256 + at(&b, l4 + 3);
	}
}

static int bit(const uint8_t *a, unsigned i)
{
	return a[i / 8] >> (7 - i % 8) & 1;
}

static bool naive_prefix(const struct cls_prefix *p, const struct naive *n,
			 const uint8_t *a)
{
	unsigned i;

	if (p->family != n->family) {
		return false;
	}
	for (i = 0; i < p->len; i++) {
		if (bit(p->addr, i) != bit(a, i)) {
			return false;
		}
	}
	return true;
}

static bool naive_one(const struct cls_match *m, const struct naive *n)
{
	bool ok;
	unsigned i;

	if (m->family != 0 && m->family != n->family) {
		return false;
	}
	if (m->dscp != 0 && (n->dscp < 0 || !(m->dscp & 1ull << n->dscp))) {
		return false;
	}
	for (ok = m->nproto == 0, i = 0; i < m->nproto; i++) {
		ok = ok || m->proto[i] == n->proto;
	}
	if (!ok) {
		return false;
	}
	for (ok = m->nsport == 0, i = 0; i < m->nsport; i++) {
		ok = ok || (n->sport >= m->sport[i].lo &&
			    n->sport <= m->sport[i].hi);
	}
	if (!ok) {
		return false;
	}
	for (ok = m->ndport == 0, i = 0; i < m->ndport; i++) {
		ok = ok || (n->dport >= m->dport[i].lo &&
			    n->dport <= m->dport[i].hi);
	}
	if (!ok) {
		return false;
	}
	for (ok = m->nsrc == 0, i = 0; i < m->nsrc; i++) {
		ok = ok || (n->src_ok && naive_prefix(&m->src[i], n, n->src));
	}
	if (!ok) {
		return false;
	}
	for (ok = m->ndst == 0, i = 0; i < m->ndst; i++) {
		ok = ok || (n->dst_ok && naive_prefix(&m->dst[i], n, n->dst));
	}
	return ok;
}

static int naive_classify(const struct cls_match *m, unsigned n,
			  const uint8_t *p, size_t len)
{
	struct naive pk;
	unsigned i;

	naive_parse(p, len, &pk);
	for (i = 0; i < n; i++) {
		if (naive_one(&m[i], &pk)) {
			return (int)i;
		}
	}
	return -1;
}

/* ---- the randomized comparison ---------------------------------------- */

static uint64_t rng = 0x853c49e6748fea9bull;

static uint32_t rnd(void)
{
	/* xorshift64*: reproducible across libcs */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 0x2545f4914f6cdd1dull) >> 32);
}

static unsigned pick(unsigned n)
{
	return rnd() % n;
}

/* Small pools, so that matches and packets meet often. */
static const char *const pool4[] = {"10.1.2.3", "10.1.200.3", "192.0.2.9",
				    "192.0.2.200", "0.0.0.0", "255.255.255.255"};
static const char *const pool6[] = {"2001:db8::1", "2001:db8::8001",
				    "2001:db8:1::2", "fe80::1", "::",
				    "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"};
static const uint8_t protos[] = {TCP, UDP, 33, SCTP, 136, ICMP, ICMP6, AH,
				 50, 47, 0, 59};
static const uint16_t ports[] = {0, 53, 443, 5060, 10000, 20000, 65535};
static const uint8_t exts[] = {HOP, ROUTING, DSTOPTS, FRAG, AH};

static size_t random_packet(uint8_t *p)
{
	size_t len;

	if (pick(20) == 0) {
		/* garbage of a random version */
		len = pick(80);
		for (size_t i = 0; i < len; i++) {
			p[i] = (uint8_t)rnd();
		}
		return len;
	}
	if (pick(2)) {
		uint16_t frag = (uint16_t)(pick(3) == 0 ? pick(4) << 13 |
								 pick(3) * 100
							: 0);

		len = ip4(p, (uint8_t)pick(64), protos[pick(sizeof(protos))],
			  pool4[pick(ARRAY_SIZE(pool4))],
			  pool4[pick(ARRAY_SIZE(pool4))],
			  ports[pick(ARRAY_SIZE(ports))],
			  ports[pick(ARRAY_SIZE(ports))], frag, pick(3));
		if (pick(10) == 0) {
			p[0] = (uint8_t)(0x40 | pick(16)); /* any IHL */
		}
	} else {
		uint8_t ext[CLS_EXT_MAX + 2];
		unsigned n = pick(4) ? pick(3) : pick(CLS_EXT_MAX + 3);

		for (unsigned i = 0; i < n; i++) {
			ext[i] = exts[pick(sizeof(exts))];
		}
		len = ip6(p, (uint8_t)pick(64), ext, n,
			  protos[pick(sizeof(protos))],
			  pool6[pick(ARRAY_SIZE(pool6))],
			  pool6[pick(ARRAY_SIZE(pool6))],
			  ports[pick(ARRAY_SIZE(ports))],
			  ports[pick(ARRAY_SIZE(ports))],
			  (uint16_t)(pick(3) ? 0 : pick(8)));
		if (pick(10) == 0 && len > 40) {
			/* a longer extension header that may run past */
			p[40 + 1] = (uint8_t)pick(4);
		}
	}
	if (pick(4) == 0) {
		len = pick((unsigned)len + 1);
	}
	return len;
}

static void random_prefix(struct cls_prefix *x, uint8_t family)
{
	unsigned len;

	if (!family) {
		family = pick(2) ? 4 : 6;
	}
	x->family = family;
	memset(x->addr, 0, sizeof(x->addr));
	if (family == 4) {
		addr(4, pool4[pick(ARRAY_SIZE(pool4))], x->addr);
		len = pick(33);
	} else {
		addr(6, pool6[pick(ARRAY_SIZE(pool6))], x->addr);
		len = pick(129);
	}
	x->len = (uint8_t)len;
	/* host bits zero, as the config makes them */
	for (unsigned i = len; i < 128; i++) {
		x->addr[i / 8] &= (uint8_t)~(0x80 >> (i % 8));
	}
}

static void random_range(struct cls_range *r)
{
	uint16_t a = ports[pick(ARRAY_SIZE(ports))];
	uint16_t b = pick(2) ? a : (uint16_t)(a + pick(2000));

	r->lo = a < b ? a : b;
	r->hi = a < b ? b : a;
}

static void random_match(struct cls_match *m)
{
	unsigned i;

	memset(m, 0, sizeof(*m));
	if (pick(4) == 0) {
		m->family = pick(2) ? 4 : 6;
	}
	if (pick(4) == 0) {
		for (i = pick(3) + 1; i > 0; i--) {
			m->dscp |= 1ull << (pick(2) ? pick(64) : 46);
		}
	}
	if (pick(3) == 0) {
		m->nproto = (uint8_t)(1 + pick(CLS_LIST_MAX));
		for (i = 0; i < m->nproto; i++) {
			m->proto[i] = protos[pick(sizeof(protos))];
		}
	}
	if (pick(4) == 0) {
		m->nsport = (uint8_t)(1 + pick(CLS_LIST_MAX));
		for (i = 0; i < m->nsport; i++) {
			random_range(&m->sport[i]);
		}
	}
	if (pick(4) == 0) {
		m->ndport = (uint8_t)(1 + pick(CLS_LIST_MAX));
		for (i = 0; i < m->ndport; i++) {
			random_range(&m->dport[i]);
		}
	}
	if (pick(4) == 0) {
		m->nsrc = (uint8_t)(1 + pick(CLS_LIST_MAX));
		for (i = 0; i < m->nsrc; i++) {
			random_prefix(&m->src[i], m->family);
		}
	}
	if (pick(4) == 0) {
		m->ndst = (uint8_t)(1 + pick(CLS_LIST_MAX));
		for (i = 0; i < m->ndst; i++) {
			random_prefix(&m->dst[i], m->family);
		}
	}
}

static void test_random(void **state)
{
	static struct cls_match m[CLS_MAX];
	uint8_t buf[PKT_MAX];
	unsigned hits[CLS_MAX + 1] = {0};
	unsigned t, k, n;

	(void)state;
	for (t = 0; t < 500; t++) {
		n = pick(CLS_MAX + 1);
		for (k = 0; k < n; k++) {
			random_match(&m[k]);
		}
		for (k = 0; k < 200; k++) {
			size_t len = random_packet(buf);
			uint8_t *p = malloc(len ? len : 1);
			int want, got;

			assert_non_null(p);
			memcpy(p, buf, len);
			want = naive_classify(m, n, p, len);
			got = cls_classify(m, n, p, len);
			if (got != want) {
				fail_msg("table %u packet %u (len %zu): "
					 "got %d, naive %d",
					 t, k, len, got, want);
			}
			hits[got + 1]++;
			free(p);
		}
	}
	/* the comparison saw both the default class and classes */
	assert_true(hits[0] > 1000);
	assert_true(hits[1] > 1000);
	assert_true(hits[2] > 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
