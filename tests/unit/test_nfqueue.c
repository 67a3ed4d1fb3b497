/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests of the parts of common/nfqueue.c that need no kernel: the
 * /proc/net/netfilter/nfnetlink_queue parser, fed fixtures through
 * fmemopen(), and the netlink message codec (verdict layout, packet
 * parsing).  The .c file is included to reach its static helpers; the
 * binding, draining and batching are tested for real, as root, by
 * tests/netns/test_nfq.sh.
 */
/* before any system header: common/nfqueue.c uses recvmmsg */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "common/nfqueue.c"

/* ---- /proc parser ----------------------------------------------------- */

/* Two queues as the kernel prints them ("%5u %6u %5u %1u %5u %5u %5u %8u
 * %2d"). */
static const char two_queues[] =
	"    0 123456     3 2 65531     4     5     1000  1\n"
	"    7   9950    17 2  1500   200    30 4294967295  1\n";

static int parse_text(const char *text, unsigned num, struct nfqueue_kstats *ks)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	assert_non_null(f);
	ret = kstats_parse(f, num, ks);
	fclose(f);
	return ret;
}

static void test_kstats_finds_queue(void **state)
{
	struct nfqueue_kstats ks;

	(void)state;
	memset(&ks, 0xff, sizeof(ks));
	assert_int_equal(parse_text(two_queues, 7, &ks), 0);
	assert_int_equal(ks.queue_total, 17);
	assert_int_equal(ks.queue_dropped, 200);
	assert_int_equal(ks.user_dropped, 30);
	assert_int_equal(ks.id_sequence, 4294967295u);

	assert_int_equal(parse_text(two_queues, 0, &ks), 0);
	assert_int_equal(ks.queue_total, 3);
	assert_int_equal(ks.queue_dropped, 4);
	assert_int_equal(ks.user_dropped, 5);
	assert_int_equal(ks.id_sequence, 1000);
}

static void test_kstats_missing_queue(void **state)
{
	struct nfqueue_kstats ks;

	(void)state;
	assert_int_equal(parse_text(two_queues, 1, &ks), -ENOENT);
	assert_int_equal(parse_text(two_queues, 70, &ks), -ENOENT);
	assert_int_equal(parse_text("", 0, &ks), -ENOENT);
}

/* Lines that do not have exactly the nine fields are skipped, even when
 * their first number is the queue asked for. */
static void test_kstats_skips_malformed(void **state)
{
	static const char text[] =
		"    7   9950    17 2  1500   200    30\n"	     /* short */
		"    7   9950    17 2  1500   200    30   99  1 5\n" /* long */
		"queue 7 is here\n"
		"\n"
		"    7   9950     1 2  1500     2     3   42  1\n";
	struct nfqueue_kstats ks;

	(void)state;
	assert_int_equal(parse_text(text, 7, &ks), 0);
	assert_int_equal(ks.queue_total, 1);
	assert_int_equal(ks.queue_dropped, 2);
	assert_int_equal(ks.user_dropped, 3);
	assert_int_equal(ks.id_sequence, 42);
	assert_int_equal(parse_text(text, 9950, &ks), -ENOENT);
}

static void test_kstats_last_line_without_newline(void **state)
{
	struct nfqueue_kstats ks;

	(void)state;
	assert_int_equal(parse_text("65535 1 2 2 3 4 5 6  1", 65535, &ks), 0);
	assert_int_equal(ks.queue_total, 2);
	assert_int_equal(ks.id_sequence, 6);
}

/* ---- verdict messages ----------------------------------------------- */

struct vattrs {
	const struct nlattr *tb[NFQA_MAX + 1];
};

static int collect(const struct nlattr *attr, void *data)
{
	struct vattrs *v = data;
	int type = mnl_attr_get_type(attr);

	if (type <= NFQA_MAX) {
		v->tb[type] = attr;
	}
	return MNL_CB_OK;
}

static void check_verdict_hdr(const struct nlmsghdr *nlh, uint16_t queue)
{
	const struct nfgenmsg *nfg = mnl_nlmsg_get_payload(nlh);

	assert_int_equal(nlh->nlmsg_type,
			 (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_VERDICT);
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST);
	assert_int_equal(nfg->version, NFNETLINK_V0);
	assert_int_equal(ntohs(nfg->res_id), queue);
}

static void test_verdict_plain(void **state)
{
	uint8_t buf[256];
	struct vattrs v = {{0}};
	const struct nfqnl_msg_verdict_hdr *vh;
	struct nlmsghdr *nlh;

	(void)state;
	nlh = put_verdict(buf, 7, 0xdeadbeef, NF_DROP, false, 0, NULL, 0);
	assert_int_equal(nlh->nlmsg_len, verdict_size(false, NULL, 0));
	check_verdict_hdr(nlh, 7);
	assert_int_equal(
		mnl_attr_parse(nlh, sizeof(struct nfgenmsg), collect, &v),
		MNL_CB_OK);
	assert_non_null(v.tb[NFQA_VERDICT_HDR]);
	assert_null(v.tb[NFQA_MARK]);
	assert_null(v.tb[NFQA_PAYLOAD]);
	vh = mnl_attr_get_payload(v.tb[NFQA_VERDICT_HDR]);
	assert_int_equal(ntohl(vh->id), 0xdeadbeef);
	assert_int_equal(ntohl(vh->verdict), NF_DROP);
}

static void test_verdict_mark_and_payload(void **state)
{
	static const uint8_t pkt[] = {0x45, 0, 0,  21, 1,  2,  3,  4,  5,  6, 7,
				      8,    9, 10, 11, 12, 13, 14, 15, 16, 17};
	uint8_t buf[256];
	struct vattrs v = {{0}};
	const struct nfqnl_msg_verdict_hdr *vh;
	struct nlmsghdr *nlh;

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	nlh = put_verdict(buf, 65535, 42, NF_ACCEPT, true, 0x1234abcd, pkt,
			  sizeof(pkt));
	/* 21 bytes of payload are padded to 24: sizes must agree, or the
	 * batch would be laid out wrong. */
	assert_int_equal(nlh->nlmsg_len, verdict_size(true, pkt, sizeof(pkt)));
	assert_int_equal(nlh->nlmsg_len % 4, 0);
	check_verdict_hdr(nlh, 65535);
	assert_int_equal(
		mnl_attr_parse(nlh, sizeof(struct nfgenmsg), collect, &v),
		MNL_CB_OK);
	vh = mnl_attr_get_payload(v.tb[NFQA_VERDICT_HDR]);
	assert_int_equal(ntohl(vh->id), 42);
	assert_int_equal(ntohl(vh->verdict), NF_ACCEPT);
	assert_non_null(v.tb[NFQA_MARK]);
	assert_int_equal(ntohl(mnl_attr_get_u32(v.tb[NFQA_MARK])), 0x1234abcd);
	assert_non_null(v.tb[NFQA_PAYLOAD]);
	assert_int_equal(mnl_attr_get_payload_len(v.tb[NFQA_PAYLOAD]),
			 sizeof(pkt));
	assert_memory_equal(mnl_attr_get_payload(v.tb[NFQA_PAYLOAD]), pkt,
			    sizeof(pkt));
}

/* Verdicts back to back, as in the tx batch, walk as separate messages. */
static void test_verdicts_back_to_back(void **state)
{
	uint8_t buf[1024];
	size_t used = 0;
	const struct nlmsghdr *nlh;
	int left, n = 0;
	uint32_t id;

	(void)state;
	for (id = 1; id <= 5; id++) {
		struct nlmsghdr *m = put_verdict(buf + used, 3, id, NF_ACCEPT,
						 id & 1, id, NULL, 0);

		used += MNL_ALIGN(m->nlmsg_len);
	}
	left = (int)used;
	for (nlh = (const struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, left);
	     nlh = mnl_nlmsg_next(nlh, &left)) {
		struct vattrs v = {{0}};
		const struct nfqnl_msg_verdict_hdr *vh;

		n++;
		mnl_attr_parse(nlh, sizeof(struct nfgenmsg), collect, &v);
		vh = mnl_attr_get_payload(v.tb[NFQA_VERDICT_HDR]);
		assert_int_equal(ntohl(vh->id), n);
		assert_int_equal(v.tb[NFQA_MARK] != NULL, n & 1);
	}
	assert_int_equal(n, 5);
	assert_int_equal(left, 0);
}

/* ---- packet messages --------------------------------------------------- */

/* A packet message as the kernel builds it, with optional parts. */
static struct nlmsghdr *packet_msg(uint8_t *buf, uint32_t id, bool with_hdr,
				   const uint8_t *data, size_t len,
				   uint32_t cap_len)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfqnl_msg_packet_hdr ph = {
		.packet_id = htonl(id),
		.hw_protocol = htons(0x0800),
		.hook = 1,
	};
	struct nfgenmsg *nfg;

	nlh->nlmsg_type = NFQ_PKT_TYPE;
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->res_id = htons(7);
	if (with_hdr) {
		mnl_attr_put(nlh, NFQA_PACKET_HDR, sizeof(ph), &ph);
	}
	mnl_attr_put_u32(nlh, NFQA_MARK, htonl(0x77));
	mnl_attr_put_u32(nlh, NFQA_IFINDEX_INDEV, htonl(4));
	if (cap_len) {
		mnl_attr_put_u32(nlh, NFQA_CAP_LEN, htonl(cap_len));
	}
	mnl_attr_put(nlh, NFQA_PAYLOAD, len, data);
	return nlh;
}

static void test_parse_packet(void **state)
{
	static const uint8_t data[40] = {0x45, 0, 0, 40};
	uint8_t buf[512];
	struct nfqueue_pkt p;

	(void)state;
	assert_int_equal(
		parse_pkt(packet_msg(buf, 99, true, data, sizeof(data), 0), &p),
		0);
	assert_int_equal(p.id, 99);
	assert_int_equal(p.hw_proto, 0x0800);
	assert_int_equal(p.mark, 0x77);
	assert_int_equal(p.ifindex_in, 4);
	assert_int_equal(p.ifindex_out, 0);
	assert_int_equal(p.len, sizeof(data));
	assert_int_equal(p.orig_len, sizeof(data));
	assert_memory_equal(p.data, data, sizeof(data));
	assert_int_equal(p.tstamp_ns, 0); /* no NFQA_TIMESTAMP: none */
}

static void test_parse_timestamp(void **state)
{
	static const uint8_t data[20] = {0x45, 0, 0, 20};
	struct nfqnl_msg_packet_timestamp ts = {
		.sec = htobe64(1795000000),
		.usec = htobe64(123456),
	};
	uint8_t buf[512];
	struct nlmsghdr *nlh;
	struct nfqueue_pkt p;

	(void)state;
	nlh = packet_msg(buf, 5, true, data, sizeof(data), 0);
	mnl_attr_put(nlh, NFQA_TIMESTAMP, sizeof(ts), &ts);
	assert_int_equal(parse_pkt(nlh, &p), 0);
	assert_true(p.tstamp_ns ==
		    1795000000ull * 1000000000ull + 123456000ull);
	/* a timestamp of the wrong size makes the message malformed */
	nlh = packet_msg(buf, 5, true, data, sizeof(data), 0);
	mnl_attr_put(nlh, NFQA_TIMESTAMP, 8, &ts);
	assert_int_equal(parse_pkt(nlh, &p), -EBADMSG);
}

static void test_parse_truncated(void **state)
{
	static const uint8_t data[64] = {0x45};
	uint8_t buf[512];
	struct nfqueue_pkt p;

	(void)state;
	assert_int_equal(
		parse_pkt(packet_msg(buf, 1, true, data, sizeof(data), 1500),
			  &p),
		0);
	assert_int_equal(p.len, 64);
	assert_int_equal(p.orig_len, 1500);
}

static void test_parse_rejects(void **state)
{
	static const uint8_t data[20] = {0x45};
	uint8_t buf[512];
	struct nlmsghdr *nlh;
	struct nfqueue_pkt p;
	uint16_t one = 1;

	(void)state;
	/* No packet header: no id, nothing to give a verdict for. */
	assert_int_equal(
		parse_pkt(packet_msg(buf, 1, false, data, sizeof(data), 0), &p),
		-EBADMSG);
	/* A mark of the wrong size. */
	nlh = packet_msg(buf, 1, true, data, sizeof(data), 0);
	mnl_attr_put(nlh, NFQA_IFINDEX_OUTDEV, sizeof(one), &one);
	assert_int_equal(parse_pkt(nlh, &p), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kstats_finds_queue),
		cmocka_unit_test(test_kstats_missing_queue),
		cmocka_unit_test(test_kstats_skips_malformed),
		cmocka_unit_test(test_kstats_last_line_without_newline),
		cmocka_unit_test(test_verdict_plain),
		cmocka_unit_test(test_verdict_mark_and_payload),
		cmocka_unit_test(test_verdicts_back_to_back),
		cmocka_unit_test(test_parse_packet),
		cmocka_unit_test(test_parse_truncated),
		cmocka_unit_test(test_parse_timestamp),
		cmocka_unit_test(test_parse_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
