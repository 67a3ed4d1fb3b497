/* SPDX-License-Identifier: BSD-2-Clause */
/* A path of this box (path.c): its two UDP sockets (IPv4, IPv6), bound to
 * the path's WAN device and marked with its fwmark; its MTU; the
 * rtnetlink watch that opens a socket again when its interface comes
 * back.  And the addresses a link's packets go to over them.
 */
#ifndef L3BOND_GW_PATH_H
#define L3BOND_GW_PATH_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "common/conf.h"
#include "common/wire.h"

struct gw;
struct gw_link;
struct gw_sess;

enum gw_path_limits {
	GW_BUDGET = 64,	     /* packets a drain's batch holds */
	/* packets taken per queue drain before the event loop runs again.
	 * A drain's packets are sent together at its end and stamped then
	 * (seal_batch): the peer reads the wait between a packet's stamp
	 * and its send as the line's queue, and stamped when taken, 64 at a
	 * time on a busy box showed the DSL a standing queue of milliseconds
	 * that was not there (it held the learned pace's probes back for
	 * 10 to 20 s in netns_pace).  Drains of 8, the workaround, cost the
	 * RRUL load's pings 16 ms more at p50 and 30 at p99 on the 2-core
	 * bed (the daemons' CPU beside the emulators and iperf3). */
	GW_DRAIN = 64,
	GW_INNER_MAX = 2048, /* largest inner packet carried */
};

/* A control message giving a packet's source address (gw_path_src). */
union gw_src_cmsg {
	struct cmsghdr h;
	uint8_t b[CMSG_SPACE(sizeof(struct in6_pktinfo))];
};

/* A path of this box: its socket, and the DATA the ingress queued on it in
 * this drain, for any session (each message has its own destination). */
struct gw_path {
	unsigned idx;
	int fd;		  /* IPv4; -1: none (the interface is absent) */
	int fd6;	  /* IPv6 (V6ONLY); -1: none (also: no IPv6) */
	bool outer6;	  /* a peer on it is IPv6: its MTU counts 40 bytes
			   * of outer IP header, not 20 */
	uint32_t mtu;	  /* configured, else the interface's */
	uint64_t reopens; /* socket opened again (interface changed) */
	unsigned nmsg;
	struct mmsghdr msg[GW_BUDGET];
	struct iovec iov[GW_BUDGET][3];
	uint8_t hdr[GW_BUDGET][WIRE_HDR_LEN];
	uint8_t tag[GW_BUDGET][WIRE_TAG_LEN];
	struct gw_link *who[GW_BUDGET]; /* the link each message counts on */
	int mfd[GW_BUDGET];		/* the socket each goes on */
	union gw_src_cmsg src[GW_BUDGET]; /* the source each leaves from */
	/* sealed when the batch is sent, stamped then (send_batches) */
	struct gw_sess *sess[GW_BUDGET];
	struct wire_hdr h[GW_BUDGET];
};

/* The IP packet a UDP payload of len bytes makes on path p (what a data
 * budget counts, gateway/volume.h): the outer UDP and IP headers added. */
static inline uint64_t gw_path_ip_len(const struct gw_path *p, size_t len)
{
	return (uint64_t)len + 8 + (p->outer6 ? 40 : 20);
}

/* The socket of l's path for its peer's family (-1: none), and the
 * address to send to (*to, *len) */
int gw_link_dst(const struct gw_sess *s, const struct gw_link *l,
		const struct sockaddr **to, socklen_t *len);
/* The same for any address a of path p; an IPv4 one is built in a4. */
int gw_path_dst(const struct gw_path *p, const struct sockaddr_in6 *a,
		struct sockaddr_in *a4, const struct sockaddr **to,
		socklen_t *len);
/* A concentrator's packet leaves from the address the CPE sent to, not
 * from the one the route would pick: a keepalived VIP is an address of
 * the interface beside its own, and a CPE behind NAT, or with a list of
 * concentrators (peers.h), must see answers from where it sent.  msg's
 * control is set to buf with src (v4-mapped for an IPv4 socket: v4); src
 * NULL: no control, the kernel's choice. */
void gw_path_src(struct msghdr *msg, union gw_src_cmsg *buf,
		 const struct in6_addr *src, bool v4);
/* the source of l's packets for gw_path_src: where its peer's newest
 * authentic packet went (a concentrator's), NULL: not known (a CPE) */
const struct in6_addr *gw_link_src(const struct gw_link *l);
/* sendto() on fd from src (gw_path_src); 0 or -errno */
int gw_path_sendto(int fd, const void *buf, size_t len,
		   const struct sockaddr *to, socklen_t tolen,
		   const struct in6_addr *src);
/* l's peer is a (both peer and peer4) */
void gw_link_set_peer(struct gw_link *l, const struct sockaddr_in6 *a);
/* the sockets (a path whose interface is absent waits for it), the
 * rtnetlink watch of the interfaces, the MTUs */
int gw_paths_open(struct gw *gw);
void gw_paths_close(struct gw *gw);
/* the paths' MTUs again (start, interface back, reload): inner_max, mss,
 * the clamp rule */
void gw_paths_update_mtu(struct gw *gw);
/* the link's peer is known and the path has a socket */
bool gw_link_can_send(const struct gw_sess *s, const struct gw_link *l);
/* sets up s's links from the config (the CPE's peers; all down) */
void gw_links_init(struct gw_sess *s);

#endif
