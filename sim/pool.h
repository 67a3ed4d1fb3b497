/* SPDX-License-Identifier: BSD-2-Clause */
/* Packet records: a pool with a free list that only grows.
 *
 * A record lives from the moment the source emits a packet until it is
 * dropped or released at the egress; its index is the cookie the
 * resequencer hands back.  Records are addressed by index, never by a
 * pointer kept across a sim_pool_get (which may move the array).
 */
#ifndef L3BOND_SIM_POOL_H
#define L3BOND_SIM_POOL_H

#include <stdint.h>

enum { SIM_NONE = UINT32_MAX };

struct sim_pkt {
	uint64_t t_emit_us;   /* the source emitted it (a copy: its
			       * original) */
	uint64_t t_enq_us;    /* entered its link */
	uint64_t t_arrive_us; /* reached the egress */
	uint32_t gseq;
	uint32_t lseq;
	uint32_t bytes; /* accounted on the link */
	uint32_t next;	/* link FIFO or free list */
	uint16_t pgap;
	uint16_t fgap;
	uint8_t flags;
	uint8_t path;
};

struct sim_pool {
	struct sim_pkt *pkt;
	uint32_t cap;
	uint32_t free_head;
	uint32_t used;
	uint32_t peak;
};

int sim_pool_init(struct sim_pool *p, uint32_t cap0);
void sim_pool_free(struct sim_pool *p);

/* Takes a record (growing the pool if none is free); 0 or -ENOMEM. */
int sim_pool_get(struct sim_pool *p, uint32_t *idx);
void sim_pool_put(struct sim_pool *p, uint32_t idx);

static inline struct sim_pkt *sim_pool_at(const struct sim_pool *p,
					  uint32_t idx)
{
	return &p->pkt[idx];
}

#endif
