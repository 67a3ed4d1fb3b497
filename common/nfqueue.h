/* SPDX-License-Identifier: BSD-2-Clause */
/* The NFQUEUE seam: one netfilter queue driven over libmnl.
 *
 * Packets are drained in a budgeted loop until EAGAIN; verdicts are
 * appended to a batch and sent together (one netlink write for many
 * verdicts).  A packet handed to the callback points into the receive
 * buffer: valid only until the callback returns.
 *
 * This is the only module that talks nfnetlink_queue; the daemon's ingress
 * and egress and the test tools go through it, so that logic above it can
 * be tested without root.
 */
#ifndef L3BOND_NFQUEUE_H
#define L3BOND_NFQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mnl_socket;

struct nfqueue_opts {
	uint32_t copy_range; /* bytes of payload copied to us (0: 65535) */
	uint32_t maxlen;     /* kernel queue length (0: kernel default) */
	bool fail_open;	     /* accept instead of drop when the queue is full */
	uint32_t rcvbuf;     /* socket receive buffer bytes (0: default) */
};

struct nfqueue_pkt {
	uint32_t id;
	uint16_t hw_proto; /* ETH_P_IP / ETH_P_IPV6, host order */
	uint32_t mark;
	uint32_t ifindex_in;  /* 0 if none */
	uint32_t ifindex_out; /* 0 if none */
	const uint8_t *data;  /* the network-layer packet */
	size_t len;	      /* bytes at data */
	size_t orig_len;      /* length of the packet in the kernel */
	uint64_t tstamp_ns;   /* kernel receive time, CLOCK_REALTIME; 0: none
			       * (the kernel stamps packets only while some
			       * socket asked for timestamps, SO_TIMESTAMP*) */
};

struct nfqueue_stats {
	uint64_t received;
	uint64_t verdicts;
	uint64_t batches; /* netlink writes of verdicts */
	uint64_t recv_errors;
	uint64_t send_errors;
	uint64_t truncated; /* packets larger than copy_range */
};

/* Counters the kernel keeps for a queue
 * (/proc/net/netfilter/nfnetlink_queue). */
struct nfqueue_kstats {
	uint32_t queue_total;
	uint32_t queue_dropped; /* dropped: queue full */
	uint32_t user_dropped;	/* dropped: netlink socket buffer full */
	uint32_t id_sequence;
};

struct mmsghdr;
struct iovec;
struct sockaddr_nl;

struct nfqueue {
	struct mnl_socket *nl;
	struct mmsghdr *rxm; /* NFQ_RX_MSGS receive headers, set at open */
	struct iovec *rxv;
	struct sockaddr_nl *rxa;
	unsigned queue;
	uint32_t portid;
	uint8_t *rx;
	size_t rx_size;
	uint8_t *tx;
	size_t tx_size;
	size_t tx_used;
	unsigned tx_count;
	struct nfqueue_stats st;
};

typedef void (*nfqueue_pkt_fn)(void *ctx, const struct nfqueue_pkt *p);

enum nfqueue_verdict_kind {
	NFQ_DROP = 0,
	NFQ_ACCEPT = 1,
};

/* Binds queue num with opts.  Returns 0 or -errno (-EBUSY if another
 * process has the queue). */
int nfqueue_open(struct nfqueue *q, unsigned num,
		 const struct nfqueue_opts *opts);
void nfqueue_close(struct nfqueue *q);
int nfqueue_fd(const struct nfqueue *q);

/* Receives and dispatches up to budget packets (stops early at EAGAIN).
 * Returns the number dispatched or -errno. */
int nfqueue_drain(struct nfqueue *q, unsigned budget, nfqueue_pkt_fn fn,
		  void *ctx);

/* Queues a verdict in the batch (sent when the batch is full or on
 * nfqueue_flush).  payload, when not NULL, replaces the packet (len bytes);
 * set_mark sets the packet mark to mark.  Returns 0 or -errno. */
int nfqueue_verdict(struct nfqueue *q, uint32_t id, enum nfqueue_verdict_kind v,
		    bool set_mark, uint32_t mark, const void *payload,
		    size_t len);

/* One batch verdict (NFQNL_MSG_VERDICT_BATCH): every packet still queued
 * with an id up to id (serial order) gets v, in one message however many
 * they are.  Batched with the others in the send buffer, in order. */
int nfqueue_verdict_upto(struct nfqueue *q, uint32_t id,
			 enum nfqueue_verdict_kind v);

/* Sends the batched verdicts.  Returns 0 or -errno. */
int nfqueue_flush(struct nfqueue *q);

/* Reads the kernel's counters for queue num.  Returns 0, -ENOENT if the
 * queue is not bound, or -errno. */
int nfqueue_kernel_stats(unsigned num, struct nfqueue_kstats *ks);

#endif
