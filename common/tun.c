/* SPDX-License-Identifier: BSD-2-Clause */
/* A TUN device as the way back into the kernel for inner packets whose
 * family differs from their outer packet's (see tun.h).
 *
 * Setup is ioctls on /dev/net/tun and on a throwaway socket (the link
 * flags and MTU), writes under /proc/sys/net/{ipv4,ipv6}/conf/<dev>/ and
 * one RTM_NEWADDR, all before the link goes up: IPv6 makes its link-local
 * address when the link goes up, so addr_gen_mode must be set by then.
 *
 * The write path is one write(2) per packet on a nonblocking fd.  The
 * driver allocates the packet against the fd's send buffer and runs the
 * whole receive path before write() returns; IP orphans the packet on
 * entry (ip_rcv_core, ip6_rcv_core), so the buffer only fills when
 * something holds packets before IP, and then write() fails with EAGAIN
 * rather than wait.
 */
#include "common/tun.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/if_tun.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define TUN_DEV_PATH "/dev/net/tun"
#define SYSCTL_V4    "/proc/sys/net/ipv4/conf/"
#define SYSCTL_V6    "/proc/sys/net/ipv6/conf/"

/* Writes text to /proc/sys/net/<dir><ifname>/<key>. */
static int sysctl_set(const char *dir, const char *ifname, const char *key,
		      const char *text)
{
	char path[128];
	size_t len = strlen(text);
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s%s/%s", dir, ifname, key);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		return -errno;
	}
	n = write(fd, text, len);
	if (n < 0) {
		n = -errno;
	}
	close(fd);
	if (n < 0) {
		return (int)n;
	}
	return (size_t)n == len ? 0 : -EIO;
}

struct knob {
	const char *dir;
	const char *key;
	const char *val;
	bool optional; /* absent in older kernels: skipped */
};

/* In the order written; addr_gen_mode before the link goes up. */
static const struct knob knobs_v4[] = {
	{SYSCTL_V4, "forwarding", "1", false},
	{SYSCTL_V4, "rp_filter", "0", false},
};

static const struct knob knobs_v6[] = {
	{SYSCTL_V6, "disable_ipv6", "0", false},
	{SYSCTL_V6, "addr_gen_mode", "1", false},
	{SYSCTL_V6, "accept_ra", "0", false},
	{SYSCTL_V6, "force_forwarding", "1", true},
};

static int set_knobs(struct tun *t, const struct knob *k, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int err = sysctl_set(k[i].dir, t->name, k[i].key, k[i].val);

		if (err == -ENOENT && k[i].optional) {
			continue;
		}
		if (err < 0) {
			t->fail = k[i].key;
			return err;
		}
	}
	return 0;
}

/* Gives the device TUN_ADDR4/32, scope host, by RTM_NEWADDR.
 *
 * Why an address: reverse-path filtering, strict or loose, drops every
 * packet that arrives on a device without any IPv4 address unless the
 * route back to its source goes through that very device
 * (__fib_validate_source: no_addr -> last_resort -> e_rpf).  None does
 * here, so with conf.all.rp_filter at 2 (loose, as the daemon and many
 * distributions set it) nothing written would get through.  With an
 * address, loose mode passes a packet whose source has a route through any
 * device.  Scope host: never chosen as a source address for anything that
 * leaves the host; /32: no prefix route, so nothing is routed here. */
static int add_addr4(struct tun *t)
{
	uint8_t buf[1024]; /* a request, or an ack that may echo it */
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	struct ifaddrmsg *ifa;
	struct in_addr a;
	uint32_t seq = 1;
	ssize_t n;
	int err = 0;

	inet_pton(AF_INET, TUN_ADDR4, &a);
	nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	if (!nl) {
		t->fail = "rtnetlink";
		return -errno;
	}
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		t->fail = "rtnetlink";
		err = -errno;
		goto out;
	}
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWADDR;
	/* REPLACE: a persistent device of ours may have it already */
	nlh->nlmsg_flags =
		NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE;
	nlh->nlmsg_seq = seq;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = 32;
	ifa->ifa_scope = RT_SCOPE_HOST;
	ifa->ifa_index = (uint32_t)t->ifindex;
	mnl_attr_put(nlh, IFA_LOCAL, sizeof(a), &a);
	mnl_attr_put(nlh, IFA_ADDRESS, sizeof(a), &a);

	t->fail = "RTM_NEWADDR " TUN_ADDR4;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		err = -errno;
		goto out;
	}
	/* the kernel answers before sendto() returns: one recv */
	n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (n < 0) {
		err = -errno;
		goto out;
	}
	errno = 0;
	if (mnl_cb_run(buf, (size_t)n, seq, mnl_socket_get_portid(nl), NULL,
		       NULL) < 0) {
		err = errno ? -errno : -EPROTO;
	}
out:
	mnl_socket_close(nl);
	return err;
}

static int set_link(struct tun *t, unsigned mtu)
{
	struct ifreq ifr;
	int err = 0;
	int s;

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		t->fail = "socket";
		return -errno;
	}
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, t->name, sizeof(ifr.ifr_name));
	if (mtu) {
		ifr.ifr_mtu = (int)mtu;
		if (ioctl(s, SIOCSIFMTU, &ifr) < 0) {
			t->fail = "SIOCSIFMTU";
			err = -errno;
			goto out;
		}
	}
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0) {
		t->fail = "SIOCGIFFLAGS";
		err = -errno;
		goto out;
	}
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0) {
		t->fail = "SIOCSIFFLAGS";
		err = -errno;
	}
out:
	close(s);
	return err;
}

int tun_open(struct tun *t, const char *name, unsigned mtu)
{
	struct ifreq ifr;
	size_t nlen = name ? strlen(name) : 0;
	int err;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->fail = "arguments";
	if (nlen == 0 || nlen >= IF_NAMESIZE) {
		return -EINVAL;
	}
	if (mtu && (mtu < TUN_MTU_MIN || mtu > TUN_MTU_MAX)) {
		return -EINVAL;
	}

	t->fail = "open " TUN_DEV_PATH;
	t->fd = open(TUN_DEV_PATH, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (t->fd < 0) {
		return -errno;
	}
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, name, nlen);
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	if (ioctl(t->fd, TUNSETIFF, &ifr) < 0) {
		t->fail = "TUNSETIFF";
		err = -errno;
		goto fail;
	}
	/* the name the kernel gave ("%d" filled in) */
	memcpy(t->name, ifr.ifr_name, sizeof(t->name));
	t->name[sizeof(t->name) - 1] = '\0';
	t->ifindex = (int)if_nametoindex(t->name);
	if (t->ifindex == 0) {
		t->fail = "if_nametoindex";
		err = -errno;
		goto fail;
	}

	err = set_knobs(t, knobs_v4, sizeof(knobs_v4) / sizeof(knobs_v4[0]));
	if (err < 0) {
		goto fail;
	}
	/* No /proc/sys/net/ipv6 at all: IPv6 is not in this kernel (or
	 * ipv6.disable=1).  The device then carries IPv4 only. */
	t->ipv6 = access(SYSCTL_V6, F_OK) == 0;
	if (t->ipv6) {
		err = set_knobs(t, knobs_v6,
				sizeof(knobs_v6) / sizeof(knobs_v6[0]));
		if (err < 0) {
			goto fail;
		}
	}
	err = add_addr4(t);
	if (err < 0) {
		goto fail;
	}
	err = set_link(t, mtu);
	if (err < 0) {
		goto fail;
	}
	t->fail = NULL;
	return 0;

fail:
	close(t->fd);
	t->fd = -1;
	t->ifindex = 0;
	return err;
}

int tun_write(struct tun *t, const void *pkt, size_t len)
{
	ssize_t n;

	if (t->ifindex == 0) {
		t->st.errors++;
		return -EBADF;
	}
	/* The driver refuses an empty write itself; a write over 64 KiB it
	 * takes, and IP drops as a header error: say so here instead. */
	if (len == 0 || len > TUN_PKT_MAX) {
		t->st.invalid++;
		return len ? -EMSGSIZE : -EINVAL;
	}
	do {
		n = write(t->fd, pkt, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		switch (errno) {
		case EAGAIN:
#if EWOULDBLOCK != EAGAIN
		case EWOULDBLOCK:
#endif
		case ENOBUFS:
			t->st.dropped++;
			return -EAGAIN;
		case EINVAL:
			t->st.invalid++;
			return -EINVAL;
		default:
			t->st.errors++;
			return -errno;
		}
	}
	if ((size_t)n != len) {
		/* the driver takes a packet whole or not at all */
		t->st.errors++;
		return -EIO;
	}
	t->st.written++;
	t->st.bytes += len;
	return 0;
}

void tun_close(struct tun *t)
{
	if (t->ifindex == 0) {
		return;
	}
	close(t->fd);
	t->fd = -1;
	t->ifindex = 0;
}
