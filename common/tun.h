/* SPDX-License-Identifier: BSD-2-Clause */
/* The TUN seam: hands whole inner packets to the kernel as if they had
 * been received on a network device of ours.
 *
 * The egress releases an inner packet by an NF_ACCEPT verdict whose
 * payload replaces the outer packet; the kernel takes the new payload as a
 * packet of the outer packet's family, so that works only when both are
 * IPv4 or both IPv6.  An IPv4 packet that came over an IPv6 path (or the
 * reverse) is written to a TUN device instead.
 *
 * What the kernel does with a packet written here (tests/unit/test_tun.c
 * checks raw PREROUTING, FORWARD, MASQUERADE, rp_filter, ICMP errors and
 * the drop counters on Linux 6.18): the write itself runs the receive
 * path of the device, synchronously in the writer's context
 * (netif_receive_skb): ip_rcv / ipv6_rcv with the device as input
 * interface, then netfilter PREROUTING (raw, conntrack, mangle, nat),
 * routing, FORWARD (or INPUT for a local destination), POSTROUTING and the
 * output device, exactly as for a packet received from a wire.  So
 *	- the daemon's raw PREROUTING capture must not match it: the egress
 *	  rules of gateway/rules.c carry "-i <wan>" for each path device and
 *	  do not; a rule without an input device would need "! -i <tun>"
 *	  (nft: iifname != "<tun>");
 *	- the concentrator's "-d <prefix>" ingress rule (mangle FORWARD)
 *	  does see it when its destination is another CPE's prefix, which is
 *	  wanted: traffic between two CPEs is bonded again;
 *	- firewall rules that accept decapsulated traffic by "-i <wan>"
 *	  must also accept "-i <tun>"; NAT (MASQUERADE -o <wan>) applies as
 *	  for any forwarded packet;
 *	- the ICMP errors the kernel makes for it (TTL exceeded, no route,
 *	  fragmentation needed) are sent from the host to the packet's
 *	  source by ordinary routing (OUTPUT, not FORWARD).
 * The kernel does not report to the writer what became of the packet
 * once it took it (routed, forwarded, dropped by a firewall, no route):
 * tun_write() returns 0 and the kernel counts the fate in its own
 * counters (/proc/net/snmp, /proc/net/netstat, qdisc statistics).
 *
 * The device has one address, TUN_ADDR4/32 scope host (see tun_open), and
 * no route points to it: nothing should be sent to it, and the fd is never
 * read.  Whatever the kernel still sends there waits in the device queue
 * (txqueuelen) and is then dropped by the driver (tx_dropped).
 *
 * Invariant: t->ifindex == 0 exactly when closed, so a zeroed struct is
 * closed and tun_close() may run twice.  Nothing is allocated.
 */
#ifndef L3BOND_TUN_H
#define L3BOND_TUN_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	/* IPv6 needs 1280: the kernel removes IPv6 from a device with a
	 * smaller MTU, and the device must take both families. */
	TUN_MTU_MIN = 1280,
	TUN_MTU_MAX = 65535,
	/* The largest IP packet (the total length fields are 16 bits); the
	 * driver itself would take more and hand IP a packet it drops. */
	TUN_PKT_MAX = 65535,
};

/* The IPv4 dummy address (RFC 7600), given to the device so that
 * reverse-path filtering does not drop everything it receives. */
#define TUN_ADDR4 "192.0.0.8"

struct tun_stats {
	uint64_t written; /* packets the kernel took */
	uint64_t bytes;	  /* their bytes */
	uint64_t dropped; /* no room (EAGAIN, ENOBUFS): not written */
	uint64_t invalid; /* refused: empty, too long, or neither IPv4 nor
			   * IPv6 (the version nibble) */
	uint64_t errors;  /* any other write error (EIO: device down) */
};

struct tun {
	int fd;
	char name[IF_NAMESIZE];
	int ifindex;
	bool ipv6; /* the device takes IPv6 (false: no IPv6 in this kernel) */
	/* After a failed tun_open(): the step that failed, for the log
	 * ("open /dev/net/tun", "TUNSETIFF", a sysctl path, ...). */
	const char *fail;
	struct tun_stats st;
};

/* Creates a TUN device (IFF_TUN | IFF_NO_PI: one write is one IP packet,
 * no header before it), nonblocking and close-on-exec, and brings it up.
 * name is an exact name or a pattern with "%d" ("l3b%d": the kernel picks
 * the first free number); t->name is the name given.  mtu is the device
 * MTU, TUN_MTU_MIN..TUN_MTU_MAX, or 0 for the driver's 1500.  The MTU does
 * not limit what tun_write() takes: a received packet is never checked
 * against the input device's MTU; it only matters for packets routed to
 * the device, and none should be.
 *
 * Before the link goes up these sysctls of the device are set, because
 * the forwarded packets would otherwise be dropped or the device would
 * talk by itself:
 *	net.ipv4.conf.<dev>.forwarding=1: IPv4 forwards a packet only if its
 *	  input device has forwarding on (a device made while
 *	  net.ipv4.ip_forward was 0 starts with 0).  Writing ip_forward (or
 *	  conf.all.forwarding) later resets it on every device, this one too.
 *	net.ipv4.conf.<dev>.rp_filter=0: no route points to the device, so
 *	  strict reverse-path filtering (1) would drop every packet.  The
 *	  kernel applies max(conf.all, conf.<dev>): with conf.all.rp_filter
 *	  at 1 the packets are still dropped; at 2 (loose, what the daemon
 *	  sets) a packet passes when its source has a route through any
 *	  device (a default route is enough) -- but only because the device
 *	  has an address: on a device without any IPv4 address both modes
 *	  drop every packet whose source is not routed through the device
 *	  itself.  Hence TUN_ADDR4/32, scope host (never a source address of
 *	  packets that leave the host), no prefix route.
 *	net.ipv6.conf.<dev>.disable_ipv6=0: hosts that turned IPv6 off by
 *	  conf.default.disable_ipv6=1 would have it off on this device, and
 *	  ipv6_rcv() drops everything on such a device.
 *	net.ipv6.conf.<dev>.force_forwarding=1 (Linux 6.17 and later; older
 *	  kernels forward IPv6 only with net.ipv6.conf.all.forwarding=1):
 *	  the per-device conf.<dev>.forwarding does not make IPv6 forward.
 *	net.ipv6.conf.<dev>.addr_gen_mode=1 and accept_ra=0: no link-local
 *	  address, so no router solicitation, DAD or MLD is ever sent to a
 *	  device nobody reads, and nothing written here (our peers' clients'
 *	  traffic) can configure this host.
 * When IPv6 is not in the kernel (no /proc/sys/net/ipv6) the IPv6 ones
 * are skipped and t->ipv6 is false: IPv6 packets written are dropped.
 *
 * The device goes away with the fd (not persistent).  A persistent device
 * of that name made beforehand (ip tuntap add) is attached instead, and
 * stays after tun_close().
 *
 * Returns 0 or -errno, with t->fail naming the failed step:
 *	-ENOENT: /dev/net/tun is missing (a container without the device
 *	  node: mknod /dev/net/tun c 10 200);
 *	-ENODEV: the node is there, the tun driver is not (CONFIG_TUN,
 *	  modprobe tun);
 *	-EPERM: no CAP_NET_ADMIN;
 *	-EBUSY: a TUN device of that name is in use;
 *	-EINVAL: name empty or too long, mtu out of range, or a device of
 *	  that name that is not a TUN device. */
int tun_open(struct tun *t, const char *name, unsigned mtu);

/* Writes one whole IPv4 or IPv6 packet; never blocks.  Returns
 *	0: the kernel took it (and has already routed, forwarded or dropped
 *	  it: see above; a packet with a bad or truncated header is dropped
 *	  by IP and counted there, InHdrErrors / InTruncatedPkts);
 *	-EAGAIN: no room (EAGAIN or ENOBUFS from the driver: its send buffer
 *	  is full of packets still held before IP, e.g. by a tc ingress
 *	  redirect), counted in st.dropped;
 *	-EINVAL: len 0, or a version nibble neither 4 nor 6 (the driver
 *	  decides the family by it); -EMSGSIZE: len > TUN_PKT_MAX; both
 *	  counted in st.invalid;
 *	-EIO: the device is down; -EBADF: closed; other -errno: counted in
 *	  st.errors. */
int tun_write(struct tun *t, const void *pkt, size_t len);

/* Closes the fd; the device disappears with it.  Safe on a closed or
 * zeroed struct. */
void tun_close(struct tun *t);

#endif
