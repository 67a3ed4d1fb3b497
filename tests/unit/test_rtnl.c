/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests of the rtnetlink watcher (common/rtnl.c).
 *
 * Without root: the state machine fed hand-built netlink messages through
 * handle_buf() (the .c file is included to reach it): link and address
 * transitions, renames, a missed DEL, the address table limit, the
 * mark-and-sweep of a resync dump, and one malformed message of each kind
 * (skipped and counted, the messages around it still handled).
 *
 * As root, in a network namespace of their own (unshare(CLONE_NEWNET);
 * skipped otherwise): veth pairs created, set up, renamed and deleted and
 * addresses added and removed with ip(8), and the exact events checked in
 * order; then an overrun: a receive buffer shrunk to the minimum, hundreds
 * of notifications left unread, and the resync that must follow.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/rtnl.c"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- event recorder --------------------------------------------------- */

enum { REC_MAX = 64 };

struct rec {
	int n;
	int idx[REC_MAX];
	struct rtnl_event ev[REC_MAX];
};

static void record(void *ctx, int idx, const struct rtnl_event *ev)
{
	struct rec *r = ctx;

	/* more events than any test expects is a failure by itself */
	assert_true(r->n < REC_MAX);
	r->idx[r->n] = idx;
	r->ev[r->n] = *ev;
	r->n++;
}

static const char *ev_name(enum rtnl_event_type t)
{
	static const char *const names[] = {
		[RTNL_LINK_NEW] = "NEW",      [RTNL_LINK_DEL] = "DEL",
		[RTNL_LINK_UP] = "UP",	      [RTNL_LINK_DOWN] = "DOWN",
		[RTNL_ADDR_NEW] = "ADDR_NEW", [RTNL_ADDR_DEL] = "ADDR_DEL",
		[RTNL_RESYNC] = "RESYNC",     [RTNL_LINK_MTU] = "MTU",
	};

	return (unsigned)t < ARRAY_SIZE(names) && names[t] ? names[t] : "?";
}

static void rec_print(const struct rec *r)
{
	for (int i = 0; i < r->n; i++) {
		print_message("  event %d: %s idx %d ifindex %u flags 0x%x "
			      "family %u/%u\n",
			      i, ev_name(r->ev[i].type), r->idx[i],
			      r->ev[i].ifindex, r->ev[i].flags, r->ev[i].family,
			      r->ev[i].prefixlen);
	}
}

/* An expected event; ifindex 0 and family 0 are not checked. */
struct want {
	enum rtnl_event_type type;
	int idx;
	uint32_t ifindex;
	uint8_t family;
	const char *addr; /* with family: the address, as text */
	uint8_t prefixlen;
};

static void rec_expect(struct rec *r, const struct want *w, int n)
{
	if (r->n != n) {
		print_message("expected %d events, got %d:\n", n, r->n);
		rec_print(r);
	}
	assert_int_equal(r->n, n);
	for (int i = 0; i < n; i++) {
		const struct rtnl_event *ev = &r->ev[i];

		if (ev->type != w[i].type || r->idx[i] != w[i].idx) {
			print_message("event %d: want %s idx %d\n", i,
				      ev_name(w[i].type), w[i].idx);
			rec_print(r);
		}
		assert_int_equal(ev->type, w[i].type);
		assert_int_equal(r->idx[i], w[i].idx);
		if (w[i].ifindex) {
			assert_int_equal(ev->ifindex, w[i].ifindex);
		}
		if (w[i].family) {
			uint8_t a[16] = {0};

			assert_int_equal(ev->family, w[i].family);
			assert_int_equal(ev->prefixlen, w[i].prefixlen);
			assert_int_equal(inet_pton(w[i].family, w[i].addr, a),
					 1);
			assert_memory_equal(ev->addr, a,
					    w[i].family == AF_INET ? 4 : 16);
		}
	}
	r->n = 0;
}

/* ---- hand-built messages ---------------------------------------------- */

static uint8_t msgbuf[4096];

static struct nlmsghdr *link_msg(uint16_t type, uint8_t family, int index,
				 unsigned flags, const char *name)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(msgbuf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = type;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = family;
	ifi->ifi_index = index;
	ifi->ifi_flags = flags;
	if (name) {
		mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	}
	mnl_attr_put_u32(nlh, IFLA_MTU, 1500);
	return nlh;
}

/* addr: text of family; local: IFA_LOCAL too (IPv4 point-to-point);
 * flags: >= 0x100 goes in IFA_FLAGS only */
static struct nlmsghdr *addr_msg(uint16_t type, uint8_t family, int index,
				 const char *addr, uint8_t prefixlen,
				 const char *local, uint32_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(msgbuf);
	struct ifaddrmsg *ifa;
	uint8_t a[16];

	nlh->nlmsg_type = type;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = family;
	ifa->ifa_index = (uint32_t)index;
	ifa->ifa_prefixlen = prefixlen;
	ifa->ifa_flags = (uint8_t)flags;
	if (addr) {
		assert_int_equal(inet_pton(family, addr, a), 1);
		mnl_attr_put(nlh, IFA_ADDRESS, family == AF_INET ? 4 : 16, a);
	}
	if (local) {
		assert_int_equal(inet_pton(family, local, a), 1);
		mnl_attr_put(nlh, IFA_LOCAL, family == AF_INET ? 4 : 16, a);
	}
	if (flags > 0xff) {
		mnl_attr_put_u32(nlh, IFA_FLAGS, flags);
	}
	return nlh;
}

static void feed(struct rtnl_watch *w, struct rec *r,
		 const struct nlmsghdr *nlh)
{
	w->cb = record;
	w->ctx = r;
	handle_buf(w, nlh, nlh->nlmsg_len);
	w->cb = NULL;
}

/* A watcher without a socket: names only, as rtnl_watch_add leaves
 * them before its dump. */
static void fake_watch(struct rtnl_watch *w, const char *const *names, int n)
{
	memset(w, 0, sizeof(*w));
	for (int i = 0; i < n; i++) {
		snprintf(w->link[i].name, IFNAMSIZ, "%s", names[i]);
	}
	w->nlink = (unsigned)n;
}

#define UPRUN (IFF_UP | IFF_RUNNING)

/* ---- state machine, no root ------------------------------------------- */

static void test_link_transitions(void **state)
{
	static const char *const names[] = {"wan0", "wan1"};
	struct rtnl_watch w;
	struct rec r = {0};

	(void)state;
	fake_watch(&w, names, 2);

	feed(&w, &r, link_msg(RTM_NEWLINK, AF_UNSPEC, 5, 0, "wan0"));
	rec_expect(&r, (struct want[]){{RTNL_LINK_NEW, 0, 5}}, 1);
	assert_int_equal(rtnl_watch_ifindex(&w, 0), 5);
	assert_true(w.want_fetch); /* its addresses are asked for */

	/* IFF_UP alone (no carrier yet) is not up */
	feed(&w, &r, link_msg(RTM_NEWLINK, AF_UNSPEC, 5, IFF_UP, "wan0"));
	rec_expect(&r, NULL, 0);
	feed(&w, &r, link_msg(RTM_NEWLINK, AF_UNSPEC, 5, UPRUN, "wan0"));
	rec_expect(&r, (struct want[]){{RTNL_LINK_UP, 0, 5}}, 1);
	assert_int_equal(r.ev[0].flags, UPRUN);
	feed(&w, &r, link_msg(RTM_NEWLINK, AF_UNSPEC, 5, UPRUN, "wan0"));
	rec_expect(&r, NULL, 0);

	/* unwatched name, and a name that is a prefix of a watched one */
	feed(&w, &r, link_msg(RTM_NEWLINK, AF_UNSPEC, 7, UPRUN, "eth9"));
	feed(&w, &r, link_msg(RTM_NEWLINK, AF_UNSPEC, 8, UPRUN, "wan"));
	feed(&w, &r, link_msg(RTM_DELLINK, AF_UNSPEC, 7, 0, "eth9"));
	rec_expect(&r, NULL, 0);

	feed(&w, &r, link_msg(RTM_NEWLINK, AF_UNSPEC, 5, IFF_UP, "wan0"));
	rec_expect(&r, (struct want[]){{RTNL_LINK_DOWN, 0, 5}}, 1);

	feed(&w, &r, link_msg(RTM_DELLINK, AF_UNSPEC, 5, IFF_UP, "wan0"));
	rec_expect(&r, (struct want[]){{RTNL_LINK_DEL, 0, 5}}, 1);
	assert_int_equal(rtnl_watch_ifindex(&w, 0), 0);
	feed(&w, &r, link_msg(RTM_DELLINK, AF_UNSPEC, 5, 0, "wan0"));
	rec_expect(&r, NULL, 0);

	/* appears already up: NEW then UP */
	feed(&w, &r, link_msg(RTM_NEWLINK, AF_UNSPEC, 9, UPRUN, "wan0"));
	rec_expect(&r,
		   (struct want[]){{RTNL_LINK_NEW, 0, 9}, {RTNL_LINK_UP, 0, 9}},
		   2);
	/* another ifindex without a DEL in between (lost): NEW, down */
	feed(&w, &r, link_msg(RTM_NEWLINK, AF_UNSPEC, 11, 0, "wan0"));
	rec_expect(&r, (struct want[]){{RTNL_LINK_NEW, 0, 11}}, 1);
	assert_false(w.link[0].up);

	/* renamed from one watched name to the other */
	feed(&w, &r, link_msg(RTM_NEWLINK, AF_UNSPEC, 11, 0, "wan1"));
	rec_expect(
		&r,
		(struct want[]){{RTNL_LINK_DEL, 0, 11}, {RTNL_LINK_NEW, 1, 11}},
		2);
	/* renamed away to an unwatched name */
	feed(&w, &r, link_msg(RTM_NEWLINK, AF_UNSPEC, 11, 0, "other"));
	rec_expect(&r, (struct want[]){{RTNL_LINK_DEL, 1, 11}}, 1);
	feed(&w, &r, link_msg(RTM_NEWLINK, AF_UNSPEC, 11, 0, "wan1"));
	rec_expect(&r, (struct want[]){{RTNL_LINK_NEW, 1, 11}}, 1);

	/* a bridge port leaving its bridge is not a device going away */
	feed(&w, &r, link_msg(RTM_DELLINK, AF_BRIDGE, 11, 0, "wan1"));
	rec_expect(&r, NULL, 0);
	assert_int_equal(rtnl_watch_ifindex(&w, 1), 11);
	assert_int_equal(w.st.bad, 0);
}

static void test_addr_transitions(void **state)
{
	static const char *const names[] = {"wan0", "ppp0"};
	struct rtnl_watch w;
	struct rec r = {0};

	(void)state;
	fake_watch(&w, names, 2);
	feed(&w, &r, link_msg(RTM_NEWLINK, AF_UNSPEC, 5, UPRUN, "wan0"));
	r.n = 0;

	/* before the link is known (unwatched ifindex): nothing */
	feed(&w, &r,
	     addr_msg(RTM_NEWADDR, AF_INET, 6, "192.0.2.9", 24, NULL, 0));
	rec_expect(&r, NULL, 0);

	feed(&w, &r,
	     addr_msg(RTM_NEWADDR, AF_INET, 5, "192.0.2.1", 24, NULL, 0));
	rec_expect(&r,
		   (struct want[]){
			   {RTNL_ADDR_NEW, 0, 5, AF_INET, "192.0.2.1", 24}},
		   1);
	assert_true(rtnl_watch_has_addr(&w, 0, AF_INET));
	assert_false(rtnl_watch_has_addr(&w, 0, AF_INET6));
	/* the same again (the kernel repeats on flag changes): nothing */
	feed(&w, &r,
	     addr_msg(RTM_NEWADDR, AF_INET, 5, "192.0.2.1", 24, NULL, 0));
	rec_expect(&r, NULL, 0);

	/* IPv6: tentative until DAD passes, in IFA_FLAGS or ifa_flags */
	feed(&w, &r,
	     addr_msg(RTM_NEWADDR, AF_INET6, 5, "2001:db8::1", 64, NULL,
		      IFA_F_TENTATIVE | IFA_F_MANAGETEMPADDR));
	feed(&w, &r,
	     addr_msg(RTM_NEWADDR, AF_INET6, 5, "2001:db8::1", 64, NULL,
		      IFA_F_TENTATIVE));
	rec_expect(&r, NULL, 0);
	assert_false(rtnl_watch_has_addr(&w, 0, AF_INET6));
	feed(&w, &r,
	     addr_msg(RTM_NEWADDR, AF_INET6, 5, "2001:db8::1", 64, NULL,
		      IFA_F_PERMANENT));
	rec_expect(&r,
		   (struct want[]){
			   {RTNL_ADDR_NEW, 0, 5, AF_INET6, "2001:db8::1", 64}},
		   1);
	assert_true(rtnl_watch_has_addr(&w, 0, AF_INET6));
	/* tentative again (link flap, kept address): not usable */
	feed(&w, &r,
	     addr_msg(RTM_NEWADDR, AF_INET6, 5, "2001:db8::1", 64, NULL,
		      IFA_F_TENTATIVE));
	rec_expect(&r,
		   (struct want[]){
			   {RTNL_ADDR_DEL, 0, 5, AF_INET6, "2001:db8::1", 64}},
		   1);
	/* its removal was already reported */
	feed(&w, &r,
	     addr_msg(RTM_DELADDR, AF_INET6, 5, "2001:db8::1", 64, NULL, 0));
	rec_expect(&r, NULL, 0);
	feed(&w, &r,
	     addr_msg(RTM_NEWADDR, AF_INET6, 5, "2001:db8::2", 64, NULL,
		      IFA_F_DADFAILED | IFA_F_TENTATIVE));
	rec_expect(&r, NULL, 0);

	/* same address, other prefix: another address for the kernel */
	feed(&w, &r,
	     addr_msg(RTM_NEWADDR, AF_INET, 5, "192.0.2.1", 25, NULL, 0));
	feed(&w, &r,
	     addr_msg(RTM_DELADDR, AF_INET, 5, "192.0.2.1", 24, NULL, 0));
	rec_expect(&r,
		   (struct want[]){
			   {RTNL_ADDR_NEW, 0, 5, AF_INET, "192.0.2.1", 25},
			   {RTNL_ADDR_DEL, 0, 5, AF_INET, "192.0.2.1", 24}},
		   2);
	assert_true(rtnl_watch_has_addr(&w, 0, AF_INET));

	/* point-to-point: IFA_ADDRESS is the peer, IFA_LOCAL ours */
	feed(&w, &r, link_msg(RTM_NEWLINK, AF_UNSPEC, 30, UPRUN, "ppp0"));
	r.n = 0;
	feed(&w, &r,
	     addr_msg(RTM_NEWADDR, AF_INET, 30, "100.64.0.1", 32, "100.64.7.2",
		      0));
	rec_expect(&r,
		   (struct want[]){
			   {RTNL_ADDR_NEW, 1, 30, AF_INET, "100.64.7.2", 32}},
		   1);

	/* a DEL takes the addresses along without an event each */
	feed(&w, &r, link_msg(RTM_DELLINK, AF_UNSPEC, 5, 0, "wan0"));
	rec_expect(&r, (struct want[]){{RTNL_LINK_DEL, 0, 5}}, 1);
	assert_false(rtnl_watch_has_addr(&w, 0, AF_INET));
	feed(&w, &r,
	     addr_msg(RTM_DELADDR, AF_INET, 5, "192.0.2.1", 25, NULL, 0));
	rec_expect(&r, NULL, 0);
	/* an address family we do not watch */
	feed(&w, &r, addr_msg(RTM_NEWADDR, AF_PACKET, 30, NULL, 0, NULL, 0));
	rec_expect(&r, NULL, 0);
	assert_int_equal(w.st.bad, 0);
}

static void test_addr_table_full(void **state)
{
	static const char *const names[] = {"wan0"};
	struct rtnl_watch w;
	struct rec r = {0};
	char a[32];

	(void)state;
	fake_watch(&w, names, 1);
	feed(&w, &r, link_msg(RTM_NEWLINK, AF_UNSPEC, 5, 0, "wan0"));
	r.n = 0;
	for (int i = 0; i <= RTNL_ADDR_MAX; i++) {
		snprintf(a, sizeof(a), "10.0.0.%d", i + 1);
		feed(&w, &r, addr_msg(RTM_NEWADDR, AF_INET, 5, a, 8, NULL, 0));
		assert_int_equal(r.n, 1);
		assert_int_equal(r.ev[0].type, RTNL_ADDR_NEW);
		r.n = 0;
	}
	assert_int_equal(w.link[0].naddr, RTNL_ADDR_MAX);
	assert_int_equal(w.st.addr_full, 1);
	/* the one not remembered: its removal is still reported, as is an
	 * unknown one's while the table has overflowed */
	snprintf(a, sizeof(a), "10.0.0.%d", RTNL_ADDR_MAX + 1);
	feed(&w, &r, addr_msg(RTM_DELADDR, AF_INET, 5, a, 8, NULL, 0));
	rec_expect(&r, (struct want[]){{RTNL_ADDR_DEL, 0, 5, AF_INET, a, 8}},
		   1);
	feed(&w, &r, addr_msg(RTM_DELADDR, AF_INET, 5, "10.0.0.1", 8, NULL, 0));
	rec_expect(
		&r,
		(struct want[]){{RTNL_ADDR_DEL, 0, 5, AF_INET, "10.0.0.1", 8}},
		1);
	assert_int_equal(w.link[0].naddr, RTNL_ADDR_MAX - 1);
}

/* A resync dump, by hand: what was known and is not in the dump is gone,
 * and a notification queued before the dump's first answer does not count
 * as seen (it is older than the dump). */
static void test_sync_sweep(void **state)
{
	static const char *const names[] = {"wan0", "wan1", "wan2"};
	struct rtnl_watch w;
	struct rec r = {0};
	struct nlmsghdr *nlh;

	(void)state;
	fake_watch(&w, names, 3);
	w.portid = 77;
	feed(&w, &r, link_msg(RTM_NEWLINK, AF_UNSPEC, 5, UPRUN, "wan0"));
	feed(&w, &r, link_msg(RTM_NEWLINK, AF_UNSPEC, 6, UPRUN, "wan1"));
	feed(&w, &r,
	     addr_msg(RTM_NEWADDR, AF_INET, 6, "192.0.2.6", 24, NULL, 0));
	feed(&w, &r,
	     addr_msg(RTM_NEWADDR, AF_INET, 6, "192.0.2.7", 24, NULL, 0));
	r.n = 0;

	w.quiet = true;
	w.dump = RTNL_DUMP_LINK_SYNC;
	w.dump_seq = 42;
	/* old notification about wan0: not part of the dump */
	feed(&w, &r, link_msg(RTM_NEWLINK, AF_UNSPEC, 5, UPRUN, "wan0"));
	/* the dump: wan1 only (and something else), wan2 appeared */
	nlh = link_msg(RTM_NEWLINK, AF_UNSPEC, 6, IFF_UP, "wan1");
	nlh->nlmsg_seq = 42;
	nlh->nlmsg_pid = 77;
	nlh->nlmsg_flags = NLM_F_MULTI;
	feed(&w, &r, nlh);
	assert_true(w.dump_started);
	nlh = link_msg(RTM_NEWLINK, AF_UNSPEC, 8, UPRUN, "wan2");
	nlh->nlmsg_seq = 42;
	nlh->nlmsg_pid = 77;
	feed(&w, &r, nlh);
	/* a DONE of some other seq is not ours */
	nlh = mnl_nlmsg_put_header(msgbuf);
	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_seq = 41;
	nlh->nlmsg_pid = 77;
	mnl_nlmsg_put_extra_header(nlh, sizeof(int));
	feed(&w, &r, nlh);
	assert_int_equal(w.dump, RTNL_DUMP_LINK_SYNC);
	nlh->nlmsg_seq = 42;
	feed(&w, &r, nlh);
	assert_int_equal(w.dump, RTNL_DUMP_NONE);
	assert_int_equal(w.dump_err, 0);

	assert_int_equal(r.n, 0); /* quiet: only marked */
	assert_int_equal(rtnl_watch_ifindex(&w, 0), 0);
	assert_int_equal(rtnl_watch_ifindex(&w, 1), 6);
	assert_false(w.link[1].up);
	assert_int_equal(rtnl_watch_ifindex(&w, 2), 8);
	assert_true(w.link[2].up);
	for (int i = 0; i < 3; i++) {
		assert_true(w.link[i].pending);
		w.link[i].pending = false;
	}

	/* addresses: 192.0.2.6 is in the dump, 192.0.2.7 not */
	w.dump = RTNL_DUMP_ADDR_SYNC;
	w.dump_seq = 43;
	w.dump_started = false;
	nlh = addr_msg(RTM_NEWADDR, AF_INET, 6, "192.0.2.6", 24, NULL, 0);
	nlh->nlmsg_seq = 43;
	nlh->nlmsg_pid = 77;
	feed(&w, &r, nlh);
	nlh = mnl_nlmsg_put_header(msgbuf);
	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_seq = 43;
	nlh->nlmsg_pid = 77;
	mnl_nlmsg_put_extra_header(nlh, sizeof(int));
	feed(&w, &r, nlh);
	assert_int_equal(w.dump, RTNL_DUMP_NONE);
	assert_int_equal(w.link[1].naddr, 1);
	assert_true(w.link[1].pending);
	assert_false(w.link[0].pending);
	assert_false(w.link[2].pending);

	/* a dump the kernel refused ends with its error, no sweep */
	w.dump = RTNL_DUMP_LINK_SYNC;
	w.dump_seq = 44;
	w.dump_started = false;
	nlh = mnl_nlmsg_put_header(msgbuf);
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_seq = 44;
	nlh->nlmsg_pid = 77;
	((struct nlmsgerr *)mnl_nlmsg_put_extra_header(nlh,
						       sizeof(struct nlmsgerr)))
		->error = -EBUSY;
	feed(&w, &r, nlh);
	assert_int_equal(w.dump, RTNL_DUMP_NONE);
	assert_int_equal(w.dump_err, -EBUSY);
	assert_int_equal(rtnl_watch_ifindex(&w, 1), 6);
	assert_int_equal(w.st.bad, 0);
}

/* Each malformed message is skipped and counted, changes nothing, and
 * the valid message after it in the same datagram is still handled. */
static void test_malformed(void **state)
{
	static const char *const names[] = {"wan0"};
	struct rtnl_watch w;
	struct rec r = {0};
	uint8_t buf[8192];
	uint8_t a4[4] = {192, 0, 2, 1};
	uint8_t a6[16] = {0x20, 0x01, 0x0d, 0xb8};
	char noterm[4] = {'w', 'a', 'n', '0'};
	char longname[IFNAMSIZ + 1];

	(void)state;
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	fake_watch(&w, names, 1);
	feed(&w, &r, link_msg(RTM_NEWLINK, AF_UNSPEC, 5, 0, "wan0"));
	r.n = 0;

	for (int k = 0; k < 14; k++) {
		struct nlmsghdr *nlh = NULL;
		struct nlmsghdr *good;
		size_t len;

		switch (k) {
		case 0: /* shorter than ifinfomsg */
			nlh = link_msg(RTM_NEWLINK, AF_UNSPEC, 5, 0, NULL);
			nlh->nlmsg_len = mnl_nlmsg_size(4);
			break;
		case 1: /* no name */
			nlh = link_msg(RTM_NEWLINK, AF_UNSPEC, 5, UPRUN, NULL);
			break;
		case 2: /* name without its NUL */
			nlh = link_msg(RTM_NEWLINK, AF_UNSPEC, 5, UPRUN, NULL);
			mnl_attr_put(nlh, IFLA_IFNAME, sizeof(noterm), noterm);
			break;
		case 3: /* empty name */
			nlh = link_msg(RTM_NEWLINK, AF_UNSPEC, 5, UPRUN, "");
			break;
		case 4: /* name longer than IFNAMSIZ - 1 */
			nlh = link_msg(RTM_NEWLINK, AF_UNSPEC, 5, UPRUN,
				       longname);
			break;
		case 5: /* ifindex 0 and negative */
			nlh = link_msg(RTM_DELLINK, AF_UNSPEC, 0, 0, "wan0");
			break;
		case 6:
			nlh = link_msg(RTM_DELLINK, AF_UNSPEC, -5, 0, "wan0");
			break;
		case 7: /* shorter than ifaddrmsg */
			nlh = addr_msg(RTM_NEWADDR, AF_INET, 5, "192.0.2.1", 24,
				       NULL, 0);
			nlh->nlmsg_len = mnl_nlmsg_size(3);
			break;
		case 8: /* no address */
			nlh = addr_msg(RTM_NEWADDR, AF_INET, 5, NULL, 24, NULL,
				       0);
			break;
		case 9: /* IPv4 with an IPv6-sized address */
			nlh = addr_msg(RTM_NEWADDR, AF_INET, 5, NULL, 24, NULL,
				       0);
			mnl_attr_put(nlh, IFA_LOCAL, sizeof(a6), a6);
			break;
		case 10: /* IPv6 with an IPv4-sized address */
			nlh = addr_msg(RTM_NEWADDR, AF_INET6, 5, NULL, 64, NULL,
				       0);
			mnl_attr_put(nlh, IFA_ADDRESS, sizeof(a4), a4);
			break;
		case 11: /* IFA_FLAGS of two bytes */
			nlh = addr_msg(RTM_NEWADDR, AF_INET, 5, "192.0.2.1", 24,
				       NULL, 0);
			mnl_attr_put_u16(nlh, IFA_FLAGS, 0);
			break;
		case 12: /* prefix longer than the address */
			nlh = addr_msg(RTM_NEWADDR, AF_INET, 5, "192.0.2.1", 33,
				       NULL, 0);
			break;
		case 13: /* ifindex 0 */
			nlh = addr_msg(RTM_NEWADDR, AF_INET, 0, "192.0.2.1", 24,
				       NULL, 0);
			break;
		}
		len = MNL_ALIGN(nlh->nlmsg_len);
		memcpy(buf, nlh, nlh->nlmsg_len);
		memset(buf + nlh->nlmsg_len, 0, len - nlh->nlmsg_len);
		/* then a valid message: the link goes up */
		good = link_msg(RTM_NEWLINK, AF_UNSPEC, 5, UPRUN, "wan0");
		memcpy(buf + len, good, good->nlmsg_len);
		len += good->nlmsg_len;

		w.cb = record;
		w.ctx = &r;
		handle_buf(&w, buf, len);
		w.cb = NULL;
		if (w.st.bad != (uint64_t)k + 1) {
			print_message("case %d not counted as bad\n", k);
		}
		assert_int_equal(w.st.bad, k + 1);
		rec_expect(&r, (struct want[]){{RTNL_LINK_UP, 0, 5}}, 1);
		assert_int_equal(rtnl_watch_ifindex(&w, 0), 5);
		assert_int_equal(w.link[0].naddr, 0);
		/* down again for the next case */
		feed(&w, &r, link_msg(RTM_NEWLINK, AF_UNSPEC, 5, 0, "wan0"));
		r.n = 0;
	}

	/* a header claiming more than the datagram holds: counted, and
	 * nothing after it can be trusted */
	{
		struct nlmsghdr *nlh =
			link_msg(RTM_NEWLINK, AF_UNSPEC, 5, UPRUN, "wan0");
		uint64_t bad = w.st.bad;

		w.cb = record;
		w.ctx = &r;
		handle_buf(&w, nlh, nlh->nlmsg_len - 4);
		w.cb = NULL;
		assert_int_equal(w.st.bad, bad + 1);
		rec_expect(&r, NULL, 0);
	}

	/* messages we do not handle are not malformed */
	{
		struct nlmsghdr *nlh = mnl_nlmsg_put_header(msgbuf);
		uint64_t bad = w.st.bad;

		nlh->nlmsg_type = RTM_NEWROUTE;
		mnl_nlmsg_put_extra_header(nlh, sizeof(struct rtmsg));
		feed(&w, &r, nlh);
		nlh->nlmsg_type = NLMSG_NOOP;
		feed(&w, &r, nlh);
		assert_int_equal(w.st.bad, bad);
		rec_expect(&r, NULL, 0);
	}
}

/* ---- the kernel, as root, in a namespace of our own -------------------- */

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		return -errno;
	}
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -EIO;
}

/* Each test gets a fresh namespace: the previous one goes away with its
 * last socket.  Called from the test itself: cmocka counts a skip() in a
 * setup function as an error. */
static void enter_netns(void)
{
	if (geteuid() != 0) {
		skip();
	}
	if (unshare(CLONE_NEWNET) < 0) {
		print_message("unshare(CLONE_NEWNET): %s\n", strerror(errno));
		skip();
	}
	/* No IPv6 link-local addresses: they come a DAD time after a link
	 * goes up and would interleave with the events under test.  No
	 * random delay before DAD, for the one test that waits for it. */
	assert_int_equal(write_file("/proc/sys/net/ipv6/conf/default/"
				    "addr_gen_mode",
				    "1"),
			 0);
	assert_int_equal(write_file("/proc/sys/net/ipv6/conf/default/"
				    "router_solicitation_delay",
				    "0"),
			 0);
}

static void __attribute__((format(printf, 1, 2))) run(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc != 0) {
		print_message("command failed (%d): %s\n", rc, cmd);
	}
	assert_int_equal(rc, 0);
}

/* RUNNING comes from linkwatch, up to a second after the carrier */
static void wait_running(const char *name)
{
	run("for i in $(seq 50); do ip -o link show %s | grep -q 'state UP'"
	    " && exit 0; sleep 0.1; done; exit 1",
	    name);
}

static uint32_t ifindex_of(const char *name)
{
	uint32_t i = if_nametoindex(name);

	assert_int_not_equal(i, 0);
	return i;
}

/* Reads events until at least want have come (or timeout_ms), then for
 * settle_ms more, so that an extra event shows as a wrong count. */
static void collect(struct rtnl_watch *w, struct rec *r, int want,
		    int timeout_ms, int settle_ms)
{
	int64_t end = now_ms() + timeout_ms;
	struct pollfd pfd = {.fd = rtnl_watch_fd(w), .events = POLLIN};
	bool settling = false;

	for (;;) {
		int64_t left;
		int n = rtnl_watch_read(w, record, r);

		assert_true(n >= 0);
		if (!settling && r->n >= want) {
			settling = true;
			end = now_ms() + settle_ms;
		}
		left = end - now_ms();
		if (left <= 0) {
			break;
		}
		poll(&pfd, 1, (int)left);
	}
}

static void test_kernel_add(void **state)
{
	struct rtnl_watch w;
	struct rec r = {0};
	char name[IFNAMSIZ + 1];
	int i0, i1;

	(void)state;
	enter_netns();
	run("ip link add l3a type veth peer name l3ap");
	run("ip addr add 192.0.2.1/24 dev l3a");
	run("ip link set l3ap up && ip link set l3a up");
	wait_running("l3a");
	assert_int_equal(rtnl_watch_open(&w), 0);
	assert_true(rtnl_watch_fd(&w) >= 0);
	assert_true(fcntl(rtnl_watch_fd(&w), F_GETFL) & O_NONBLOCK);
	assert_true(fcntl(rtnl_watch_fd(&w), F_GETFD) & FD_CLOEXEC);

	/* the state is read at once */
	i0 = rtnl_watch_add(&w, "l3a");
	assert_int_equal(i0, 0);
	assert_int_equal(rtnl_watch_ifindex(&w, 0), ifindex_of("l3a"));
	assert_true(w.link[0].up);
	assert_true(rtnl_watch_has_addr(&w, 0, AF_INET));
	assert_false(rtnl_watch_has_addr(&w, 0, AF_INET6));
	collect(&w, &r, 0, 0, 100);
	rec_expect(&r, NULL, 0);

	/* a change to l3a that the next add reads quietly: the next read
	 * says RESYNC, and the state has it */
	run("ip addr add 192.0.2.77/24 dev l3a");
	i1 = rtnl_watch_add(&w, "l3b");
	assert_int_equal(i1, 1);
	assert_int_equal(rtnl_watch_ifindex(&w, 1), 0);
	assert_int_equal(w.link[0].naddr, 2);
	collect(&w, &r, 1, 1000, 100);
	rec_expect(&r, (struct want[]){{RTNL_RESYNC, 0, ifindex_of("l3a")}}, 1);

	assert_int_equal(rtnl_watch_add(&w, "l3a"), -EEXIST);
	assert_int_equal(rtnl_watch_add(&w, ""), -EINVAL);
	memset(name, 'x', IFNAMSIZ);
	name[IFNAMSIZ] = '\0';
	assert_int_equal(rtnl_watch_add(&w, name), -EINVAL);
	name[IFNAMSIZ - 1] = '\0'; /* 15 characters: fine */
	assert_int_equal(rtnl_watch_add(&w, name), 2);
	for (int i = 3; i < RTNL_WATCH_MAX; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		assert_int_equal(rtnl_watch_add(&w, name), i);
	}
	assert_int_equal(rtnl_watch_add(&w, "one-too-many"), -ENOSPC);

	collect(&w, &r, 0, 0, 300);
	rec_expect(&r, NULL, 0);
	assert_true(w.link[0].up);
	assert_int_equal(w.st.bad, 0);
	rtnl_watch_close(&w);
	rtnl_watch_close(&w); /* twice is fine */
	assert_int_equal(rtnl_watch_fd(&w), -1);
	assert_int_equal(rtnl_watch_read(&w, record, &r), -EBADF);
}

static void test_kernel_lifecycle(void **state)
{
	struct rtnl_watch w;
	struct rec r = {0};
	uint32_t a1, a2;

	(void)state;
	enter_netns();
	assert_int_equal(rtnl_watch_open(&w), 0);
	assert_int_equal(rtnl_watch_add(&w, "l3a"), 0);
	assert_int_equal(rtnl_watch_add(&w, "l3b"), 1);
	collect(&w, &r, 0, 0, 50);
	rec_expect(&r, NULL, 0);

	run("ip link add l3a type veth peer name l3ap");
	a1 = ifindex_of("l3a");
	collect(&w, &r, 1, 2000, 200);
	rec_expect(&r, (struct want[]){{RTNL_LINK_NEW, 0, a1}}, 1);

	/* unwatched names: nothing */
	run("ip link add l3x type veth peer name l3xp");
	run("ip link set l3x up && ip link set l3xp up");
	run("ip addr add 198.51.100.1/24 dev l3x");
	collect(&w, &r, 0, 0, 300);
	rec_expect(&r, NULL, 0);

	/* IFF_UP without carrier (peer down) is not up */
	run("ip link set l3a up");
	collect(&w, &r, 0, 0, 1200);
	rec_expect(&r, NULL, 0);
	assert_true(w.link[0].flags & IFF_UP);
	run("ip link set l3ap up");
	collect(&w, &r, 1, 3000, 200);
	rec_expect(&r, (struct want[]){{RTNL_LINK_UP, 0, a1}}, 1);

	run("ip addr add 192.0.2.1/24 dev l3a");
	collect(&w, &r, 1, 2000, 200);
	rec_expect(&r,
		   (struct want[]){
			   {RTNL_ADDR_NEW, 0, a1, AF_INET, "192.0.2.1", 24}},
		   1);
	run("ip addr add 2001:db8::1/64 dev l3a nodad");
	collect(&w, &r, 1, 2000, 200);
	rec_expect(&r,
		   (struct want[]){
			   {RTNL_ADDR_NEW, 0, a1, AF_INET6, "2001:db8::1", 64}},
		   1);
	run("ip addr del 192.0.2.1/24 dev l3a");
	collect(&w, &r, 1, 2000, 200);
	rec_expect(&r,
		   (struct want[]){
			   {RTNL_ADDR_DEL, 0, a1, AF_INET, "192.0.2.1", 24}},
		   1);
	assert_false(rtnl_watch_has_addr(&w, 0, AF_INET));
	assert_true(rtnl_watch_has_addr(&w, 0, AF_INET6));

	/* an MTU change alone (PPPoE, ip link set mtu): one event with it;
	 * the same MTU again: none */
	assert_int_equal(w.link[0].mtu, 1500);
	run("ip link set l3a mtu 1400");
	collect(&w, &r, 1, 2000, 200);
	rec_expect(&r, (struct want[]){{RTNL_LINK_MTU, 0, a1}}, 1);
	assert_int_equal(w.link[0].mtu, 1400);
	run("ip link set l3a mtu 1400");
	collect(&w, &r, 0, 0, 200);
	rec_expect(&r, NULL, 0);

	/* carrier lost: down; the address stays */
	run("ip link set l3ap down");
	collect(&w, &r, 1, 3000, 300);
	rec_expect(&r, (struct want[]){{RTNL_LINK_DOWN, 0, a1}}, 1);
	assert_true(rtnl_watch_has_addr(&w, 0, AF_INET6));

	/* administratively down: IPv6 drops its addresses
	 * (keep_addr_on_down = 0) */
	run("ip link set l3a down");
	collect(&w, &r, 1, 2000, 300);
	rec_expect(&r,
		   (struct want[]){
			   {RTNL_ADDR_DEL, 0, a1, AF_INET6, "2001:db8::1", 64}},
		   1);

	run("ip addr add 192.0.2.1/24 dev l3a");
	collect(&w, &r, 1, 2000, 200);
	r.n = 0;
	/* the kernel removes the addresses first, and says so */
	run("ip link del l3a");
	collect(&w, &r, 2, 2000, 300);
	rec_expect(&r,
		   (struct want[]){
			   {RTNL_ADDR_DEL, 0, a1, AF_INET, "192.0.2.1", 24},
			   {RTNL_LINK_DEL, 0, a1}},
		   2);
	assert_int_equal(rtnl_watch_ifindex(&w, 0), 0);
	assert_false(rtnl_watch_has_addr(&w, 0, AF_INET));

	/* re-created: another ifindex */
	run("ip link add l3a type veth peer name l3ap");
	a2 = ifindex_of("l3a");
	assert_int_not_equal(a2, a1);
	collect(&w, &r, 1, 2000, 200);
	rec_expect(&r, (struct want[]){{RTNL_LINK_NEW, 0, a2}}, 1);

	/* renamed to the other watched name, with its address: the new
	 * name learns the address by the fetch a NEW asks for */
	run("ip addr add 203.0.113.5/24 dev l3a");
	collect(&w, &r, 1, 2000, 200);
	r.n = 0;
	run("ip link set l3a name l3b");
	collect(&w, &r, 3, 2000, 300);
	rec_expect(&r,
		   (struct want[]){
			   {RTNL_LINK_DEL, 0, a2},
			   {RTNL_LINK_NEW, 1, a2},
			   {RTNL_ADDR_NEW, 1, a2, AF_INET, "203.0.113.5", 24}},
		   3);
	assert_int_equal(rtnl_watch_ifindex(&w, 0), 0);
	assert_int_equal(rtnl_watch_ifindex(&w, 1), a2);
	assert_true(rtnl_watch_has_addr(&w, 1, AF_INET));

	/* and an unwatched link renamed to a watched name */
	run("ip link set l3x down && ip link set l3x name l3a");
	collect(&w, &r, 2, 2000, 300);
	rec_expect(&r,
		   (struct want[]){
			   {RTNL_LINK_NEW, 0, ifindex_of("l3a")},
			   {RTNL_ADDR_NEW, 0, 0, AF_INET, "198.51.100.1", 24}},
		   2);

	assert_int_equal(w.st.bad, 0);
	assert_int_equal(w.st.overruns, 0);
	rtnl_watch_close(&w);
}

/* An IPv6 address is reported when DAD has passed, not before. */
static void test_kernel_dad(void **state)
{
	struct rtnl_watch w;
	struct rec r = {0};

	(void)state;
	enter_netns();
	run("ip link add l3a type veth peer name l3ap");
	/* one 1-s probe (neigh/default exists only in the first
	 * namespace): DAD is still running when the first look below
	 * ends, however late a loaded box gets there (with 100 ms it had
	 * passed once, under a concurrent build and test run) */
	assert_int_equal(write_file("/proc/sys/net/ipv6/neigh/l3a/"
				    "retrans_time_ms",
				    "1000"),
			 0);
	run("ip link set l3ap up && ip link set l3a up");
	wait_running("l3a");
	assert_int_equal(rtnl_watch_open(&w), 0);
	assert_int_equal(rtnl_watch_add(&w, "l3a"), 0);
	assert_true(w.link[0].up);

	run("ip addr add 2001:db8::7/64 dev l3a");
	collect(&w, &r, 0, 0, 20);
	rec_expect(&r, NULL, 0);
	assert_false(rtnl_watch_has_addr(&w, 0, AF_INET6));
	collect(&w, &r, 1, 5000, 200);
	rec_expect(&r,
		   (struct want[]){
			   {RTNL_ADDR_NEW, 0, 0, AF_INET6, "2001:db8::7", 64}},
		   1);
	rtnl_watch_close(&w);
}

/* Overrun: notifications left unread in a minimal receive buffer.  The
 * next read reports one RESYNC per name and the state is the kernel's. */
static void test_kernel_enobufs(void **state)
{
	struct rtnl_watch w;
	struct rec r = {0};
	char path[] = "/tmp/l3b-rtnl-XXXXXX";
	FILE *f;
	int fd, one = 1;

	(void)state;
	enter_netns();
	run("ip link add l3a type veth peer name l3ap");
	run("ip link add l3c type veth peer name l3cp");
	run("ip addr add 192.0.2.1/24 dev l3a");
	run("ip addr add 192.0.2.99/24 dev l3c");
	run("ip link add l3x type veth peer name l3xp");
	assert_int_equal(rtnl_watch_open(&w), 0);
	assert_int_equal(rtnl_watch_add(&w, "l3a"), 0);
	assert_int_equal(rtnl_watch_add(&w, "l3b"), 1);
	assert_int_equal(rtnl_watch_add(&w, "l3c"), 2);
	assert_true(rtnl_watch_has_addr(&w, 0, AF_INET));
	/* the kernel's floor (SOCK_MIN_RCVBUF) */
	assert_int_equal(setsockopt(rtnl_watch_fd(&w), SOL_SOCKET, SO_RCVBUF,
				    &one, sizeof(one)),
			 0);

	/* Many notifications in one ip process; among them the changes
	 * that the resync must find: l3a loses 192.0.2.1 and gains
	 * 192.0.2.2 and goes up, l3b appears, l3c goes away. */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	for (int i = 0; i < 300; i++) {
		fprintf(f, "addr add 10.%d.%d.1/32 dev l3x\n", i / 200,
			i % 200);
	}
	fprintf(f, "addr del 192.0.2.1/24 dev l3a\n");
	fprintf(f, "addr add 192.0.2.2/24 dev l3a\n");
	fprintf(f, "link set l3ap up\nlink set l3a up\n");
	fprintf(f, "link add l3b type veth peer name l3bp\n");
	fprintf(f, "link del l3c\n");
	for (int i = 0; i < 300; i++) {
		fprintf(f, "addr del 10.%d.%d.1/32 dev l3x\n", i / 200,
			i % 200);
	}
	fclose(f);
	run("ip -batch %s", path);
	unlink(path);
	wait_running("l3a");

	collect(&w, &r, 3, 2000, 300);
	if (r.n != 3) {
		rec_print(&r);
	}
	rec_expect(&r,
		   (struct want[]){{RTNL_RESYNC, 0, ifindex_of("l3a")},
				   {RTNL_RESYNC, 1, ifindex_of("l3b")},
				   {RTNL_RESYNC, 2, 0}},
		   3);
	assert_true(w.st.overruns >= 1);
	assert_true(w.st.resyncs >= 4); /* three adds and at least one */
	print_message("overruns %llu resyncs %llu msgs %llu\n",
		      (unsigned long long)w.st.overruns,
		      (unsigned long long)w.st.resyncs,
		      (unsigned long long)w.st.msgs);
	assert_int_equal(rtnl_watch_ifindex(&w, 0), ifindex_of("l3a"));
	assert_true(w.link[0].up);
	assert_int_equal(w.link[0].naddr, 1);
	{
		uint8_t a[4] = {192, 0, 2, 2};

		assert_memory_equal(w.link[0].addr[0].addr, a, 4);
	}
	assert_int_equal(rtnl_watch_ifindex(&w, 1), ifindex_of("l3b"));
	assert_false(w.link[1].up);
	assert_int_equal(rtnl_watch_ifindex(&w, 2), 0);
	assert_int_equal(w.link[2].naddr, 0);

	/* and it goes on reporting changes one by one */
	run("ip addr del 192.0.2.2/24 dev l3a");
	collect(&w, &r, 1, 2000, 200);
	rec_expect(&r,
		   (struct want[]){
			   {RTNL_ADDR_DEL, 0, 0, AF_INET, "192.0.2.2", 24}},
		   1);
	assert_int_equal(w.st.bad, 0);
	rtnl_watch_close(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_transitions),
		cmocka_unit_test(test_addr_transitions),
		cmocka_unit_test(test_addr_table_full),
		cmocka_unit_test(test_sync_sweep),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_kernel_add),
		cmocka_unit_test(test_kernel_lifecycle),
		cmocka_unit_test(test_kernel_dad),
		cmocka_unit_test(test_kernel_enobufs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
