/* SPDX-License-Identifier: BSD-2-Clause */
/* Tests of the TUN seam (common/tun.c) through the kernel.
 *
 * Without root: argument checks, and a closed (zeroed) struct.
 *
 * As root with /dev/net/tun (skipped otherwise), each test in network
 * namespaces of its own, made by unshare(CLONE_NEWNET) in this process;
 * they go away with their last fd, at the latest when the process ends,
 * whatever the test's outcome:
 *
 *      ns A (the gateway)                         ns B (a host)
 *   tun_write() -> l3bt0 --forward--> va 10.1.0.1   ==  vb 10.1.0.2
 *                  (tun, no address)     fd00:1::1        fd00:1::2
 *                                                         UDP sockets :5555
 *
 * Packets from "a client behind the far end" (10.99.0.1, fd00:99::1) are
 * written to the tun and must come out of a socket in B, payload intact,
 * TTL one less.  The kernel's own counters (/proc/net/snmp, netstat,
 * snmp6, dev) say what happened to those that must not.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/tun.c"

enum {
	PORT = 5555,
	CLIENT_PORT = 4000,
	RX_TIMEOUT_MS = 2000,
	QUIET_MS = 200, /* how long "nothing arrives" is watched */
};

#define CLIENT4 "10.99.0.1"
#define CLIENT6 "fd00:99::1"
#define GW4	"10.1.0.1"
#define GW6	"fd00:1::1"
#define HOST4	"10.1.0.2"
#define HOST6	"fd00:1::2"
#define MAC_A	"02:00:00:00:00:0a"
#define MAC_B	"02:00:00:00:00:0b"

/* What a test holds; closed by teardown() whatever happened. */
static struct {
	int ns_a, ns_b; /* the namespaces, by fd */
	int rx4, rx6;	/* UDP sockets in B */
	struct tun t;
} E;

static int setup(void **state)
{
	(void)state;
	memset(&E, 0, sizeof(E));
	E.ns_a = E.ns_b = E.rx4 = E.rx6 = -1;
	E.t.fd = -1;
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

static int teardown(void **state)
{
	(void)state;
	tun_close(&E.t);
	close_fd(&E.rx4);
	close_fd(&E.rx6);
	close_fd(&E.ns_b);
	close_fd(&E.ns_a);
	return 0;
}

/* ---- small helpers ------------------------------------------------------- */

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

/* The first number in a file, -1 if it cannot be read. */
static long read_long(const char *path)
{
	FILE *f = fopen(path, "re");
	long v = -1;

	if (!f) {
		return -1;
	}
	if (fscanf(f, "%ld", &v) != 1) {
		v = -1;
	}
	fclose(f);
	return v;
}

static void sysctl_w(const char *key, const char *val)
{
	char path[160];

	snprintf(path, sizeof(path), "/proc/sys/net/%s", key);
	if (write_file(path, val) != 0) {
		print_message("cannot write %s\n", path);
		fail();
	}
}

/* net.<family>.conf.<ifname>.<key> */
static long sysctl_r(const char *family, const char *ifname, const char *key)
{
	char path[160];

	snprintf(path, sizeof(path), "/proc/sys/net/%s/conf/%s/%s", family,
		 ifname, key);
	return read_long(path);
}

static int __attribute__((format(printf, 2, 0)))
vrun(bool check, const char *fmt, va_list ap)
{
	char cmd[512];
	int rc;

	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	rc = system(cmd);
	if (rc != 0 && check) {
		print_message("command failed (%d): %s\n", rc, cmd);
	}
	return rc;
}

static void __attribute__((format(printf, 1, 2))) run(const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vrun(true, fmt, ap);
	va_end(ap);
	assert_int_equal(rc, 0);
}

/* The same, its outcome returned (for tools that may be missing). */
static int __attribute__((format(printf, 1, 2))) try_run(const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vrun(false, fmt, ap);
	va_end(ap);
	return rc;
}

static void to_ns(int fd)
{
	if (setns(fd, CLONE_NEWNET) < 0) {
		print_message("setns: %s\n", strerror(errno));
		fail();
	}
}

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- the kernel's counters (of the namespace we are in) ------------------ */

/* /proc/net/snmp and /proc/net/netstat: "Grp: name name ..." followed by
 * "Grp: value value ...".  -1 if absent. */
static long long counter(const char *file, const char *group, const char *name)
{
	char names[8192], vals[8192];
	size_t glen = strlen(group);
	long long v = -1;
	FILE *f = fopen(file, "re");

	assert_non_null(f);
	while (v < 0 && fgets(names, sizeof(names), f) &&
	       fgets(vals, sizeof(vals), f)) {
		char *sn, *sv, *n, *x;

		if (strncmp(names, group, glen) || names[glen] != ':') {
			continue;
		}
		n = strtok_r(names, " \n", &sn);
		x = strtok_r(vals, " \n", &sv);
		while ((n = strtok_r(NULL, " \n", &sn)) &&
		       (x = strtok_r(NULL, " \n", &sv))) {
			if (!strcmp(n, name)) {
				v = strtoll(x, NULL, 10);
				break;
			}
		}
	}
	fclose(f);
	if (v < 0) {
		print_message("no counter %s %s in %s\n", group, name, file);
	}
	assert_true(v >= 0);
	return v;
}

static long long snmp(const char *name)
{
	return counter("/proc/net/snmp", "Ip", name);
}

static long long ipext(const char *name)
{
	return counter("/proc/net/netstat", "IpExt", name);
}

/* /proc/net/snmp6: "name value" lines. */
static long long snmp6(const char *name)
{
	char line[256], n[128];
	long long v = -1, x;
	FILE *f = fopen("/proc/net/snmp6", "re");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %lld", n, &x) == 2 &&
		    !strcmp(n, name)) {
			v = x;
			break;
		}
	}
	fclose(f);
	assert_true(v >= 0);
	return v;
}

/* The receive drops of a device (/proc/net/dev). */
static long long rx_dropped(const char *ifname)
{
	char line[512];
	size_t len = strlen(ifname);
	long long v = -1;
	FILE *f = fopen("/proc/net/dev", "re");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " ");
		unsigned long long bytes, pkts, errs, drop;

		if (strncmp(p, ifname, len) || p[len] != ':') {
			continue;
		}
		if (sscanf(p + len + 1, "%llu %llu %llu %llu", &bytes, &pkts,
			   &errs, &drop) == 4) {
			v = (long long)drop;
		}
		break;
	}
	fclose(f);
	assert_true(v >= 0);
	return v;
}

/* ---- packets ------------------------------------------------------------- */

static uint32_t sum16(uint32_t s, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	}
	if (len & 1) {
		s += (uint32_t)(p[len - 1] << 8);
	}
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16) {
		s = (s & 0xffff) + (s >> 16);
	}
	return (uint16_t)~s;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void fill(uint8_t *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++) {
		p[i] = (uint8_t)(i * 7 + seed);
	}
}

/* UDP header and checksum at u (udp_len bytes from u on), over the
 * pseudo-header sum ps. */
static void udp_finish(uint8_t *u, size_t udp_len, uint16_t sport,
		       uint16_t dport, uint32_t ps)
{
	uint16_t c;

	put16(u, sport);
	put16(u + 2, dport);
	put16(u + 4, (uint16_t)udp_len);
	put16(u + 6, 0);
	c = fold(sum16(ps, u, udp_len));
	put16(u + 6, c ? c : 0xffff);
}

/* An IPv4 UDP packet with plen bytes of fill(seed) payload; its length. */
static size_t build4(uint8_t *b, const char *src, const char *dst,
		     uint16_t sport, uint16_t dport, size_t plen, unsigned seed)
{
	size_t udp_len = 8 + plen, len = 20 + udp_len;
	uint8_t ps[12];

	memset(b, 0, 20);
	b[0] = 0x45;
	put16(b + 2, (uint16_t)len);
	put16(b + 4, 0x1234);
	b[8] = 64;
	b[9] = IPPROTO_UDP;
	assert_int_equal(inet_pton(AF_INET, src, b + 12), 1);
	assert_int_equal(inet_pton(AF_INET, dst, b + 16), 1);
	put16(b + 10, fold(sum16(0, b, 20)));
	memcpy(ps, b + 12, 8);
	ps[8] = 0;
	ps[9] = IPPROTO_UDP;
	put16(ps + 10, (uint16_t)udp_len);
	fill(b + 28, plen, seed);
	udp_finish(b + 20, udp_len, sport, dport, sum16(0, ps, sizeof(ps)));
	return len;
}

static size_t build6(uint8_t *b, const char *src, const char *dst,
		     uint16_t sport, uint16_t dport, size_t plen, unsigned seed)
{
	size_t udp_len = 8 + plen;
	uint8_t ps[40];

	memset(b, 0, 40);
	b[0] = 0x60;
	put16(b + 4, (uint16_t)udp_len);
	b[6] = IPPROTO_UDP;
	b[7] = 64;
	assert_int_equal(inet_pton(AF_INET6, src, b + 8), 1);
	assert_int_equal(inet_pton(AF_INET6, dst, b + 24), 1);
	memset(ps, 0, sizeof(ps));
	memcpy(ps, b + 8, 32);
	ps[34] = (uint8_t)(udp_len >> 8);
	ps[35] = (uint8_t)udp_len;
	ps[39] = IPPROTO_UDP;
	fill(b + 48, plen, seed);
	udp_finish(b + 40, udp_len, sport, dport, sum16(0, ps, sizeof(ps)));
	return 40 + udp_len;
}

/* ---- receiving in B ------------------------------------------------------ */

struct got {
	ssize_t len; /* payload bytes; -1: nothing came */
	uint8_t data[2048];
	char from[INET6_ADDRSTRLEN];
	unsigned port;
	int ttl; /* TTL or hop limit it arrived with */
};

static void recv_udp(int s, int timeout_ms, struct got *g)
{
	struct sockaddr_storage ss;
	char cbuf[128];
	struct iovec iov = {.iov_base = g->data, .iov_len = sizeof(g->data)};
	struct msghdr mh = {
		.msg_name = &ss,
		.msg_namelen = sizeof(ss),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct pollfd pfd = {.fd = s, .events = POLLIN};
	struct cmsghdr *c;

	g->len = -1;
	g->ttl = -1;
	if (poll(&pfd, 1, timeout_ms) != 1) {
		return;
	}
	g->len = recvmsg(s, &mh, MSG_DONTWAIT);
	if (g->len < 0) {
		return;
	}
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if ((c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TTL) ||
		    (c->cmsg_level == IPPROTO_IPV6 &&
		     c->cmsg_type == IPV6_HOPLIMIT)) {
			memcpy(&g->ttl, CMSG_DATA(c), sizeof(int));
		}
	}
	if (ss.ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &a->sin_addr, g->from, sizeof(g->from));
		g->port = ntohs(a->sin_port);
	} else {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &a->sin6_addr, g->from, sizeof(g->from));
		g->port = ntohs(a->sin6_port);
	}
}

/* Whatever is already queued on s, thrown away. */
static void flush_rx(int s)
{
	char b[2048];

	while (recv(s, b, sizeof(b), MSG_DONTWAIT) >= 0) {
	}
}

/* Asserts that a packet of plen bytes of fill(seed) came from src. */
static void expect_udp(int s, const char *src, uint16_t sport, size_t plen,
		       unsigned seed)
{
	uint8_t want[2048];
	struct got g;

	recv_udp(s, RX_TIMEOUT_MS, &g);
	if (g.len < 0) {
		print_message("nothing received from %s\n", src);
		/* what the kernels counted, to tell where it was lost */
		print_message("--- A (the gateway)\n");
		try_run("nstat -as; ip -br link");
		to_ns(E.ns_b);
		print_message("--- B\n");
		try_run("nstat -as; ip -br link");
		to_ns(E.ns_a);
	}
	assert_int_equal(g.len, plen);
	fill(want, plen, seed);
	assert_memory_equal(g.data, want, plen);
	assert_string_equal(g.from, src);
	assert_int_equal(g.port, sport);
	assert_int_equal(g.ttl, 63); /* forwarded once */
}

static void expect_nothing(int s)
{
	struct got g;

	recv_udp(s, QUIET_MS, &g);
	if (g.len >= 0) {
		print_message("unexpected datagram of %zd bytes from %s\n",
			      g.len, g.from);
	}
	assert_int_equal(g.len, -1);
}

/* ---- namespaces ---------------------------------------------------------- */

/* A fresh namespace A for the test (skip when it cannot be had). */
static void enter_netns(void)
{
	if (geteuid() != 0) {
		skip();
	}
	if (access(TUN_DEV_PATH, F_OK) < 0) {
		/* the outcome tun.h promises, then nothing more to test */
		struct tun t;

		assert_int_equal(tun_open(&t, "l3bt%d", 0), -ENOENT);
		assert_string_equal(t.fail, "open " TUN_DEV_PATH);
		print_message("no %s: skipped\n", TUN_DEV_PATH);
		skip();
	}
	if (unshare(CLONE_NEWNET) < 0) {
		print_message("unshare(CLONE_NEWNET): %s\n", strerror(errno));
		skip();
	}
	E.ns_a = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	assert_true(E.ns_a >= 0);
	run("ip link set lo up");
	/* settings inherited from the host's namespace are not ours */
	sysctl_w("ipv4/conf/all/rp_filter", "0");
	sysctl_w("ipv4/conf/default/rp_filter", "0");
}

static int udp_socket(int family, const char *addr)
{
	int one = 1;
	int s = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(s >= 0);
	if (family == AF_INET) {
		struct sockaddr_in a = {
			.sin_family = AF_INET,
			.sin_port = htons(PORT),
		};

		assert_int_equal(inet_pton(AF_INET, addr, &a.sin_addr), 1);
		assert_int_equal(setsockopt(s, IPPROTO_IP, IP_RECVTTL, &one,
					    sizeof(one)),
				 0);
		assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	} else {
		struct sockaddr_in6 a = {
			.sin6_family = AF_INET6,
			.sin6_port = htons(PORT),
		};

		assert_int_equal(inet_pton(AF_INET6, addr, &a.sin6_addr), 1);
		assert_int_equal(setsockopt(s, IPPROTO_IPV6, IPV6_RECVHOPLIMIT,
					    &one, sizeof(one)),
				 0);
		assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	}
	return s;
}

/* Namespace B, the veth pair between A and B, and the sockets in B.
 * forward: turn forwarding on globally in A, as on a gateway. */
static void topology(bool forward)
{
	assert_int_equal(unshare(CLONE_NEWNET), 0);
	E.ns_b = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	assert_true(E.ns_b >= 0);
	run("ip link set lo up");
	sysctl_w("ipv4/conf/all/rp_filter", "0");
	sysctl_w("ipv4/conf/default/rp_filter", "0");
	to_ns(E.ns_a);

	run("ip link add va address " MAC_A " type veth peer name vb "
	    "address " MAC_B " netns /proc/%d/fd/%d",
	    (int)getpid(), E.ns_b);
	run("ip addr add " GW4 "/24 dev va && "
	    "ip -6 addr add " GW6 "/64 dev va nodad && ip link set va up");
	/* no neighbour discovery to wait for (or to lose a first packet
	 * to, while the link is still coming up) */
	run("ip neigh add " HOST4 " lladdr " MAC_B " dev va nud permanent && "
	    "ip neigh add " HOST6 " lladdr " MAC_B " dev va nud permanent");
	if (forward) {
		sysctl_w("ipv4/ip_forward", "1");
		sysctl_w("ipv6/conf/all/forwarding", "1");
	}

	to_ns(E.ns_b);
	run("ip addr add " HOST4 "/24 dev vb && "
	    "ip -6 addr add " HOST6 "/64 dev vb nodad && ip link set vb up");
	run("ip neigh add " GW4 " lladdr " MAC_A " dev vb nud permanent && "
	    "ip neigh add " GW6 " lladdr " MAC_A " dev vb nud permanent");
	run("ip route add default via " GW4 " && "
	    "ip -6 route add default via " GW6);
	E.rx4 = udp_socket(AF_INET, HOST4);
	E.rx6 = udp_socket(AF_INET6, HOST6);
	to_ns(E.ns_a);
}

static void open_tun(unsigned mtu)
{
	int err = tun_open(&E.t, "l3bt%d", mtu);

	if (err < 0) {
		print_message("tun_open: %s: %s\n", E.t.fail, strerror(-err));
	}
	assert_int_equal(err, 0);
}

/* ---- no root ------------------------------------------------------------- */

static void test_args(void **state)
{
	char name[IF_NAMESIZE + 1];
	struct tun t;
	uint8_t pkt[64];
	int fd;

	(void)state;
	memset(name, 'x', IF_NAMESIZE);
	name[IF_NAMESIZE] = '\0'; /* 16 characters: one too many */
	assert_int_equal(tun_open(&t, name, 0), -EINVAL);
	assert_string_equal(t.fail, "arguments");
	assert_int_equal(t.fd, -1);
	assert_int_equal(t.ifindex, 0);
	assert_int_equal(tun_open(&t, "", 0), -EINVAL);
	assert_int_equal(tun_open(&t, NULL, 0), -EINVAL);
	assert_int_equal(tun_open(&t, "l3b%d", TUN_MTU_MIN - 1), -EINVAL);
	assert_int_equal(tun_open(&t, "l3b%d", TUN_MTU_MAX + 1), -EINVAL);
	assert_int_equal(t.fd, -1);

	/* a zeroed struct is closed: writes fail, close touches no fd
	 * (not even fd 0) */
	memset(&t, 0, sizeof(t));
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	t.fd = fd;
	assert_int_equal(
		tun_write(&t, pkt, build4(pkt, CLIENT4, HOST4, 1, 2, 8, 0)),
		-EBADF);
	assert_int_equal(t.st.errors, 1);
	assert_int_equal(t.st.written, 0);
	tun_close(&t);
	tun_close(&t);
	assert_int_not_equal(fcntl(fd, F_GETFD), -1);
	close(fd);
}

/* ---- the kernel ---------------------------------------------------------- */

/* The device as tun_open() leaves it, even on a host whose defaults would
 * drop what we write: forwarding off, IPv6 disabled, strict rp_filter on
 * new devices. */
static void test_open(void **state)
{
	struct tun t2;
	struct ifreq ifr;
	char name[IF_NAMESIZE];
	int s;

	(void)state;
	enter_netns();
	sysctl_w("ipv4/ip_forward", "0");
	sysctl_w("ipv4/conf/default/rp_filter", "1");
	sysctl_w("ipv6/conf/all/forwarding", "0");
	sysctl_w("ipv6/conf/default/disable_ipv6", "1");
	sysctl_w("ipv6/conf/default/accept_ra", "2");

	open_tun(1400);
	assert_null(E.t.fail);
	assert_string_equal(E.t.name, "l3bt0"); /* the pattern, filled in */
	assert_int_equal(E.t.ifindex, (int)if_nametoindex("l3bt0"));
	assert_true(E.t.ipv6);
	assert_true(fcntl(E.t.fd, F_GETFL) & O_NONBLOCK);
	assert_true(fcntl(E.t.fd, F_GETFD) & FD_CLOEXEC);

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(s >= 0);
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "l3bt0");
	assert_int_equal(ioctl(s, SIOCGIFFLAGS, &ifr), 0);
	assert_true(ifr.ifr_flags & IFF_UP);
	assert_false(ifr.ifr_flags & IFF_BROADCAST);
	assert_int_equal(ioctl(s, SIOCGIFMTU, &ifr), 0);
	assert_int_equal(ifr.ifr_mtu, 1400);
	close(s);

	assert_int_equal(sysctl_r("ipv4", "l3bt0", "forwarding"), 1);
	assert_int_equal(sysctl_r("ipv4", "l3bt0", "rp_filter"), 0);
	assert_int_equal(sysctl_r("ipv6", "l3bt0", "disable_ipv6"), 0);
	assert_int_equal(sysctl_r("ipv6", "l3bt0", "addr_gen_mode"), 1);
	assert_int_equal(sysctl_r("ipv6", "l3bt0", "accept_ra"), 0);
	if (access("/proc/sys/net/ipv6/conf/all/force_forwarding", F_OK) == 0) {
		assert_int_equal(sysctl_r("ipv6", "l3bt0", "force_forwarding"),
				 1);
	}
	/* no IPv6 address, not even link-local; one IPv4 address, scope
	 * host, and no route through the device but the local one */
	assert_int_equal(try_run("grep -q ' l3bt0$' /proc/net/if_inet6"), 256);
	run("test \"$(ip -4 -o addr show dev l3bt0 | awk '{print $4, $6}')\" "
	    "= '" TUN_ADDR4 "/32 host'");
	run("test \"$(ip -4 route show table all dev l3bt0 | "
	    "awk '{print $1, $2}')\" = 'local " TUN_ADDR4 "' && "
	    "test \"$(ip -6 route show table all dev l3bt0 | cut -d' ' -f1,2)\""
	    " = 'multicast ff00::/8'");

	/* the next one gets the next number; the same name is busy; a
	 * device of that name that is not a tun cannot be had */
	assert_int_equal(tun_open(&t2, "l3bt%d", 0), 0);
	assert_string_equal(t2.name, "l3bt1");
	snprintf(name, sizeof(name), "%s", t2.name);
	tun_close(&t2);
	assert_int_equal(t2.fd, -1);
	assert_int_equal(if_nametoindex(name), 0); /* gone with the fd */
	assert_int_equal(tun_open(&t2, "l3bt0", 0), -EBUSY);
	assert_string_equal(t2.fail, "TUNSETIFF");
	assert_int_equal(t2.fd, -1);
	run("ip link add l3bv type veth peer name l3bvp");
	assert_int_equal(tun_open(&t2, "l3bv", 0), -EINVAL);
	assert_string_equal(t2.fail, "TUNSETIFF");

	tun_close(&E.t);
	assert_int_equal(E.t.ifindex, 0);
	assert_int_equal(if_nametoindex("l3bt0"), 0);
	tun_close(&E.t); /* twice: nothing */
}

/* (1) IPv4 through the tun, forwarded to B; a packet larger than the tun's
 * own MTU too (the receive path does not check it). */
static void test_forward_v4(void **state)
{
	uint8_t pkt[2048];
	size_t len;
	long long texc;

	(void)state;
	enter_netns();
	topology(true);
	open_tun(TUN_MTU_MIN);

	len = build4(pkt, CLIENT4, HOST4, CLIENT_PORT, PORT, 1000, 1);
	assert_int_equal(tun_write(&E.t, pkt, len), 0);
	expect_udp(E.rx4, CLIENT4, CLIENT_PORT, 1000, 1);
	assert_int_equal(E.t.st.written, 1);
	assert_int_equal(E.t.st.bytes, len);

	len = build4(pkt, CLIENT4, HOST4, CLIENT_PORT + 1, PORT, 1472 - 28, 2);
	assert_int_equal(len, 1472);
	assert_int_equal(tun_write(&E.t, pkt, len), 0);
	expect_udp(E.rx4, CLIENT4, CLIENT_PORT + 1, 1472 - 28, 2);

	/* many in a row: every one arrives, in order */
	for (unsigned i = 0; i < 50; i++) {
		len = build4(pkt, CLIENT4, HOST4, CLIENT_PORT, PORT, 100 + i,
			     i);
		assert_int_equal(tun_write(&E.t, pkt, len), 0);
	}
	for (unsigned i = 0; i < 50; i++) {
		expect_udp(E.rx4, CLIENT4, CLIENT_PORT, 100 + i, i);
	}
	assert_int_equal(E.t.st.written, 52);
	assert_int_equal(E.t.st.dropped + E.t.st.invalid + E.t.st.errors, 0);

	/* TTL 1: not forwarded; the kernel answers with an ICMP time
	 * exceeded, as for any received packet, routed to the source (an
	 * ICMP error without a route is not even counted) */
	run("ip route add 10.99.0.0/24 via " HOST4);
	texc = counter("/proc/net/snmp", "Icmp", "OutTimeExcds");
	len = build4(pkt, CLIENT4, HOST4, CLIENT_PORT, PORT, 100, 9);
	pkt[8] = 1;
	pkt[10] = pkt[11] = 0;
	put16(pkt + 10, fold(sum16(0, pkt, 20)));
	assert_int_equal(tun_write(&E.t, pkt, len), 0);
	expect_nothing(E.rx4);
	assert_int_equal(counter("/proc/net/snmp", "Icmp", "OutTimeExcds"),
			 texc + 1);
}

/* (2) IPv6, with IPv6 off by default on the host: tun_open turned it on
 * for the device; turned off again, the kernel drops what comes in. */
static void test_forward_v6(void **state)
{
	uint8_t pkt[2048];
	size_t len;
	long long discards;

	(void)state;
	enter_netns();
	topology(true);
	sysctl_w("ipv6/conf/default/disable_ipv6", "1");
	open_tun(0);

	len = build6(pkt, CLIENT6, HOST6, CLIENT_PORT, PORT, 1000, 3);
	assert_int_equal(tun_write(&E.t, pkt, len), 0);
	expect_udp(E.rx6, CLIENT6, CLIENT_PORT, 1000, 3);
	len = build6(pkt, CLIENT6, HOST6, CLIENT_PORT + 1, PORT, 1452, 4);
	assert_int_equal(len, 1500);
	assert_int_equal(tun_write(&E.t, pkt, len), 0);
	expect_udp(E.rx6, CLIENT6, CLIENT_PORT + 1, 1452, 4);
	assert_int_equal(E.t.st.written, 2);

	/* both families on the one device, interleaved */
	for (unsigned i = 0; i < 20; i++) {
		len = (i & 1) ? build6(pkt, CLIENT6, HOST6, CLIENT_PORT, PORT,
				       200 + i, i)
			      : build4(pkt, CLIENT4, HOST4, CLIENT_PORT, PORT,
				       200 + i, i);
		assert_int_equal(tun_write(&E.t, pkt, len), 0);
	}
	for (unsigned i = 0; i < 20; i++) {
		if (i & 1) {
			expect_udp(E.rx6, CLIENT6, CLIENT_PORT, 200 + i, i);
		} else {
			expect_udp(E.rx4, CLIENT4, CLIENT_PORT, 200 + i, i);
		}
	}

	/* why disable_ipv6=0 is set: without it, dropped on the way in */
	sysctl_w("ipv6/conf/l3bt0/disable_ipv6", "1");
	discards = snmp6("Ip6InDiscards");
	len = build6(pkt, CLIENT6, HOST6, CLIENT_PORT, PORT, 100, 5);
	assert_int_equal(tun_write(&E.t, pkt, len), 0); /* taken, then... */
	expect_nothing(E.rx6);
	assert_int_equal(snmp6("Ip6InDiscards"), discards + 1);
}

/* The per-device forwarding knobs are what lets the packets through, not
 * the global switches (off here); without them, not forwarded. */
static void test_forward_knobs(void **state)
{
	uint8_t pkt[2048];
	size_t len;
	long long drop;
	bool force = access("/proc/sys/net/ipv6/conf/all/force_forwarding",
			    F_OK) == 0;

	(void)state;
	enter_netns();
	topology(false);
	assert_int_equal(read_long("/proc/sys/net/ipv4/ip_forward"), 0);
	open_tun(0);

	len = build4(pkt, CLIENT4, HOST4, CLIENT_PORT, PORT, 300, 6);
	assert_int_equal(tun_write(&E.t, pkt, len), 0);
	expect_udp(E.rx4, CLIENT4, CLIENT_PORT, 300, 6);
	if (force) {
		len = build6(pkt, CLIENT6, HOST6, CLIENT_PORT, PORT, 300, 7);
		assert_int_equal(tun_write(&E.t, pkt, len), 0);
		expect_udp(E.rx6, CLIENT6, CLIENT_PORT, 300, 7);
	} else {
		print_message("no force_forwarding (kernel before 6.17): "
			      "IPv6 needs conf.all.forwarding\n");
	}

	/* the kernel's answer to a packet it may not forward: ICMP
	 * unreachable to a source it has no route to, i.e. nothing */
	sysctl_w("ipv4/conf/l3bt0/forwarding", "0");
	drop = snmp("InAddrErrors");
	len = build4(pkt, CLIENT4, HOST4, CLIENT_PORT, PORT, 300, 8);
	assert_int_equal(tun_write(&E.t, pkt, len), 0);
	expect_nothing(E.rx4);
	assert_int_equal(snmp("InAddrErrors"), drop + 1);
	if (force) {
		sysctl_w("ipv6/conf/l3bt0/force_forwarding", "0");
		drop = snmp6("Ip6InAddrErrors");
		len = build6(pkt, CLIENT6, HOST6, CLIENT_PORT, PORT, 300, 9);
		assert_int_equal(tun_write(&E.t, pkt, len), 0);
		expect_nothing(E.rx6);
		assert_int_equal(snmp6("Ip6InAddrErrors"), drop + 1);
	}
}

/* (3) Malformed packets: what the call returns and where the kernel counts
 * the drop; none of them reaches B. */
static void test_malformed(void **state)
{
	uint8_t pkt[70000];
	size_t len;
	long long drop, v;

	(void)state;
	enter_netns();
	topology(true);
	open_tun(0);

	/* version 5: refused by the driver itself (it picks the family by
	 * the version nibble), counted as a receive drop of the device */
	drop = rx_dropped("l3bt0");
	len = build4(pkt, CLIENT4, HOST4, CLIENT_PORT, PORT, 100, 1);
	pkt[0] = 0x55;
	assert_int_equal(tun_write(&E.t, pkt, len), -EINVAL);
	assert_int_equal(E.t.st.invalid, 1);
	assert_int_equal(rx_dropped("l3bt0"), drop + 1);
	pkt[0] = 0x05; /* version 0 */
	assert_int_equal(tun_write(&E.t, pkt, len), -EINVAL);
	assert_int_equal(rx_dropped("l3bt0"), drop + 2);

	/* refused before the kernel: empty, longer than any IP packet */
	assert_int_equal(tun_write(&E.t, pkt, 0), -EINVAL);
	memset(pkt, 0, sizeof(pkt));
	pkt[0] = 0x45;
	assert_int_equal(tun_write(&E.t, pkt, TUN_PKT_MAX + 1), -EMSGSIZE);
	assert_int_equal(E.t.st.invalid, 4);
	assert_int_equal(rx_dropped("l3bt0"), drop + 2);
	assert_int_equal(E.t.st.written, 0);

	/* IPv4, truncated: the total length says 3 bytes more than came */
	v = ipext("InTruncatedPkts");
	len = build4(pkt, CLIENT4, HOST4, CLIENT_PORT, PORT, 100, 2);
	assert_int_equal(tun_write(&E.t, pkt, len - 3), 0);
	assert_int_equal(ipext("InTruncatedPkts"), v + 1);

	/* IPv4, shorter than its header: one byte */
	v = snmp("InHdrErrors");
	assert_int_equal(tun_write(&E.t, pkt, 1), 0);
	assert_int_equal(snmp("InHdrErrors"), v + 1);

	/* IPv4, a wrong header checksum */
	v = ipext("InCsumErrors");
	len = build4(pkt, CLIENT4, HOST4, CLIENT_PORT, PORT, 100, 3);
	pkt[10] ^= 0x5a;
	assert_int_equal(tun_write(&E.t, pkt, len), 0);
	assert_int_equal(ipext("InCsumErrors"), v + 1);

	/* IPv6, truncated: the payload length says 3 bytes more */
	v = snmp6("Ip6InTruncatedPkts");
	len = build6(pkt, CLIENT6, HOST6, CLIENT_PORT, PORT, 100, 4);
	assert_int_equal(tun_write(&E.t, pkt, len - 3), 0);
	assert_int_equal(snmp6("Ip6InTruncatedPkts"), v + 1);

	/* IPv6, shorter than its 40-byte header */
	v = snmp6("Ip6InHdrErrors");
	assert_int_equal(tun_write(&E.t, pkt, 39), 0);
	assert_int_equal(snmp6("Ip6InHdrErrors"), v + 1);

	assert_int_equal(E.t.st.written, 5);
	expect_nothing(E.rx4);
	expect_nothing(E.rx6);

	/* the device down: the driver refuses, nothing blocks */
	run("ip link set l3bt0 down");
	len = build4(pkt, CLIENT4, HOST4, CLIENT_PORT, PORT, 100, 5);
	assert_int_equal(tun_write(&E.t, pkt, len), -EIO);
	assert_int_equal(E.t.st.errors, 1);
	assert_int_equal(E.t.st.written, 5);
	expect_nothing(E.rx4);
}

/* (4a) A flood the kernel cannot route: there is no queue in front of IP
 * to fill, every write returns at once and IP counts every packet. */
static void test_flood_unroutable(void **state)
{
	enum { N = 20000 };
	uint8_t pkt[256];
	size_t len;
	int sndbuf = 65536;
	long long noroute;
	int64_t t0, worst = 0, total;

	(void)state;
	enter_netns();
	topology(true);
	open_tun(0);

	/* the send buffer of test_sndbuf_full: here it never fills, as IP
	 * releases each packet before write() returns */
	assert_int_equal(ioctl(E.t.fd, TUNSETSNDBUF, &sndbuf), 0);
	len = build4(pkt, CLIENT4, "203.0.113.1", CLIENT_PORT, PORT, 100, 0);
	noroute = ipext("InNoRoutes");
	t0 = now_us();
	for (unsigned i = 0; i < N; i++) {
		int64_t t = now_us(), d;

		assert_int_equal(tun_write(&E.t, pkt, len), 0);
		d = now_us() - t;
		worst = d > worst ? d : worst;
	}
	total = now_us() - t0;
	print_message("%d unroutable packets written in %lld us "
		      "(%.0f per second), longest call %lld us\n",
		      N, (long long)total, N * 1e6 / (double)total,
		      (long long)worst);
	assert_int_equal(ipext("InNoRoutes"), noroute + N);
	assert_int_equal(E.t.st.written, N);
	assert_int_equal(E.t.st.dropped, 0);
	/* a blocking write would wait here for good, not for a second */
	assert_true(worst < 1000000);
}

/* (4b) A full send buffer: packets held before IP (a tc ingress redirect
 * into a slow queue) stay charged to the tun's fd; once its send buffer
 * is full, tun_write() says -EAGAIN at once and counts the drop. */
static void test_sndbuf_full(void **state)
{
	enum { N = 2000 };
	uint8_t pkt[2048];
	size_t len;
	int sndbuf = 65536;
	unsigned ok = 0, again = 0;
	int64_t t0, worst = 0, total;

	(void)state;
	enter_netns();
	topology(true);
	open_tun(0);
	if (try_run("tc qdisc add dev va root tbf rate 1mbit burst 1600 "
		    "limit 10000000 && "
		    "tc qdisc add dev l3bt0 handle ffff: ingress && "
		    "tc filter add dev l3bt0 parent ffff: protocol all u32 "
		    "match u32 0 0 action mirred egress redirect dev va") !=
	    0) {
		print_message("tc ingress/u32/mirred/tbf not available\n");
		skip();
	}
	assert_int_equal(ioctl(E.t.fd, TUNSETSNDBUF, &sndbuf), 0);

	len = build4(pkt, CLIENT4, HOST4, CLIENT_PORT, PORT, 1000, 0);
	t0 = now_us();
	for (unsigned i = 0; i < N; i++) {
		int64_t t = now_us(), d;
		int r = tun_write(&E.t, pkt, len);

		d = now_us() - t;
		worst = d > worst ? d : worst;
		if (r == 0) {
			ok++;
		} else {
			assert_int_equal(r, -EAGAIN);
			again++;
		}
	}
	total = now_us() - t0;
	print_message("%d writes against a %d-byte send buffer in %lld us: "
		      "%u taken, %u -EAGAIN, longest call %lld us\n",
		      N, sndbuf, (long long)total, ok, again, (long long)worst);
	assert_true(ok > 0);
	assert_true(again > 0);
	assert_int_equal(E.t.st.written, ok);
	assert_int_equal(E.t.st.dropped, again);
	assert_true(worst < 1000000);
}

/* The first packet counter of a rule: "cmd -nvxL chain", rule n (1...). */
static long long rule_pkts(const char *cmd, const char *chain, int n)
{
	char line[512], c[256];
	long long v = -1;
	int i = 0;
	FILE *f;

	snprintf(c, sizeof(c), "%s -nvxL %s", cmd, chain);
	f = popen(c, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (i++ == n + 1) {
			v = strtoll(line, NULL, 10);
		}
	}
	assert_int_equal(pclose(f), 0);
	assert_true(v >= 0);
	return v;
}

/* Where the packet goes in netfilter: raw PREROUTING with the tun as input
 * device (so a device-less capture rule would take it, and the daemon's
 * "-i <wan>" rules do not), FORWARD, and NAT on the way out. */
static void test_netfilter(void **state)
{
	static const char ipt[] = "iptables -w -t raw";
	static const char ip6t[] = "ip6tables -w -t raw";
	static const char egr[] = "-p udp --dport 5555 -m addrtype "
				  "--dst-type LOCAL";
	uint8_t pkt[2048];
	size_t len;
	struct got g;

	(void)state;
	enter_netns();
	topology(true);
	open_tun(0);
	if (try_run("%s -nL PREROUTING >/dev/null 2>&1 && "
		    "%s -nL PREROUTING >/dev/null 2>&1",
		    ipt, ip6t) != 0) {
		print_message("iptables/ip6tables not usable\n");
		skip();
	}
	/* 1: everything from the tun; 2: the daemon's egress rule (as in
	 * gateway/rules.c, counting instead of queueing); 3: the same
	 * without an input device; 4: that one with "! -i <tun>" */
	run("%s -A PREROUTING -i l3bt0 && "
	    "%s -A PREROUTING -i va %s && %s -A PREROUTING %s && "
	    "%s -A PREROUTING ! -i l3bt0 %s",
	    ipt, ipt, egr, ipt, egr, ipt, egr);
	run("%s -A PREROUTING -i l3bt0 && "
	    "%s -A PREROUTING -i va %s && %s -A PREROUTING %s && "
	    "%s -A PREROUTING ! -i l3bt0 %s",
	    ip6t, ip6t, egr, ip6t, egr, ip6t, egr);
	run("iptables -w -A FORWARD -i l3bt0 -o va && "
	    "ip6tables -w -A FORWARD -i l3bt0 -o va");

	/* to B: through raw PREROUTING (in=tun) and FORWARD */
	len = build4(pkt, CLIENT4, HOST4, CLIENT_PORT, PORT, 100, 1);
	assert_int_equal(tun_write(&E.t, pkt, len), 0);
	expect_udp(E.rx4, CLIENT4, CLIENT_PORT, 100, 1);
	assert_int_equal(rule_pkts(ipt, "PREROUTING", 1), 1);
	assert_int_equal(rule_pkts("iptables -w", "FORWARD", 1), 1);

	/* to the gateway itself, at the tunnel's port: the daemon's rule
	 * (-i va) does not take it, a rule without a device would */
	len = build4(pkt, CLIENT4, GW4, CLIENT_PORT, PORT, 100, 2);
	assert_int_equal(tun_write(&E.t, pkt, len), 0);
	assert_int_equal(rule_pkts(ipt, "PREROUTING", 1), 2);
	assert_int_equal(rule_pkts(ipt, "PREROUTING", 2), 0);
	assert_int_equal(rule_pkts(ipt, "PREROUTING", 3), 1);
	assert_int_equal(rule_pkts(ipt, "PREROUTING", 4), 0);

	len = build6(pkt, CLIENT6, HOST6, CLIENT_PORT, PORT, 100, 3);
	assert_int_equal(tun_write(&E.t, pkt, len), 0);
	expect_udp(E.rx6, CLIENT6, CLIENT_PORT, 100, 3);
	len = build6(pkt, CLIENT6, GW6, CLIENT_PORT, PORT, 100, 4);
	assert_int_equal(tun_write(&E.t, pkt, len), 0);
	assert_int_equal(rule_pkts(ip6t, "PREROUTING", 1), 2);
	assert_int_equal(rule_pkts(ip6t, "PREROUTING", 2), 0);
	assert_int_equal(rule_pkts(ip6t, "PREROUTING", 3), 1);
	assert_int_equal(rule_pkts(ip6t, "PREROUTING", 4), 0);
	assert_int_equal(rule_pkts("ip6tables -w", "FORWARD", 1), 1);

	/* conntrack and NAT apply as to any forwarded packet */
	run("iptables -w -t nat -A POSTROUTING -o va -j MASQUERADE");
	len = build4(pkt, CLIENT4, HOST4, CLIENT_PORT + 7, PORT, 100, 5);
	assert_int_equal(tun_write(&E.t, pkt, len), 0);
	recv_udp(E.rx4, RX_TIMEOUT_MS, &g);
	assert_int_equal(g.len, 100);
	assert_string_equal(g.from, GW4);
	flush_rx(E.rx4);
}

/* rp_filter: the kernel takes max(conf.all, conf.<tun>), so the 0 that
 * tun_open sets on the device helps only while conf.all is 0 or 2; 2 wants
 * a route to the source through some device, and an address on the tun. */
static void test_rp_filter(void **state)
{
	uint8_t pkt[2048];
	size_t len;
	long long rpf;

	(void)state;
	enter_netns();
	topology(true);
	open_tun(0);
	len = build4(pkt, CLIENT4, HOST4, CLIENT_PORT, PORT, 100, 1);

	/* conf.all 0: no check */
	assert_int_equal(tun_write(&E.t, pkt, len), 0);
	expect_udp(E.rx4, CLIENT4, CLIENT_PORT, 100, 1);

	/* strict: no route to the client goes through the tun */
	sysctl_w("ipv4/conf/all/rp_filter", "1");
	rpf = counter("/proc/net/netstat", "TcpExt", "IPReversePathFilter");
	assert_int_equal(tun_write(&E.t, pkt, len), 0);
	expect_nothing(E.rx4);
	assert_int_equal(
		counter("/proc/net/netstat", "TcpExt", "IPReversePathFilter"),
		rpf + 1);

	/* loose, no route to 10.99.0.1 at all: dropped too */
	sysctl_w("ipv4/conf/all/rp_filter", "2");
	assert_int_equal(tun_write(&E.t, pkt, len), 0);
	expect_nothing(E.rx4);
	assert_int_equal(
		counter("/proc/net/netstat", "TcpExt", "IPReversePathFilter"),
		rpf + 2);

	/* loose with a route (any device): through */
	run("ip route add 10.99.0.0/24 via " HOST4);
	assert_int_equal(tun_write(&E.t, pkt, len), 0);
	expect_udp(E.rx4, CLIENT4, CLIENT_PORT, 100, 1);

	/* ... because the device has an address: without one, loose mode
	 * drops it like strict mode */
	run("ip addr del " TUN_ADDR4 "/32 dev l3bt0");
	assert_int_equal(tun_write(&E.t, pkt, len), 0);
	expect_nothing(E.rx4);
	assert_int_equal(
		counter("/proc/net/netstat", "TcpExt", "IPReversePathFilter"),
		rpf + 3);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_args),
		T(test_open),
		T(test_forward_v4),
		T(test_forward_v6),
		T(test_forward_knobs),
		T(test_malformed),
		T(test_flood_unroutable),
		T(test_sndbuf_full),
		T(test_netfilter),
		T(test_rp_filter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
