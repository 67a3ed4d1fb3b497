/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests of gateway/outer.c: the outer IPv4 and IPv6 headers of
 * tunnel packets the egress queue hands over, good ones and a table of
 * malformed ones, and addresses as the status prints them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gateway/outer.h"

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

	/* the destination, where a concentrator's answers leave from (a
	 * VIP): v4-mapped */
	{
		static const uint8_t vip[16] = {0, 0, 0,    0,	  0,   0,
						0, 0, 0,    0,	  0xff, 0xff,
						198, 51, 100, 10};
		struct in6_addr to;

		memcpy(p + 16, vip + 12, 4);
		gw_outer_dst(p, false, &to);
		assert_memory_equal(&to, vip, 16);
	}

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
	{
		static const uint8_t dst[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0,
						0,    0,    0,	  0,	0, 0,
						0,    0,    0,	  2};
		struct in6_addr to;

		gw_outer_dst(p, true, &to);
		assert_memory_equal(&to, dst, 16);
	}

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outer_good),
		cmocka_unit_test(test_outer_bad),
		cmocka_unit_test(test_outer6_good),
		cmocka_unit_test(test_outer6_bad),
		cmocka_unit_test(test_addr_str),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
