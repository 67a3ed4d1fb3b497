/* SPDX-License-Identifier: BSD-2-Clause */
/* Packet record pool.  Growth doubles the array and threads the new records
 * onto the free list; nothing is ever returned to the allocator before the
 * run ends, so the steady state does no allocation at all. */
#include <errno.h>
#include <stdlib.h>

#include "sim/pool.h"

static void thread_free(struct sim_pool *p, uint32_t from, uint32_t to)
{
	uint32_t i;

	for (i = to; i > from; i--) {
		p->pkt[i - 1].next = p->free_head;
		p->free_head = i - 1;
	}
}

int sim_pool_init(struct sim_pool *p, uint32_t cap0)
{
	if (cap0 < 64) {
		cap0 = 64;
	}
	p->pkt = calloc(cap0, sizeof(*p->pkt));
	if (!p->pkt) {
		return -ENOMEM;
	}
	p->cap = cap0;
	p->free_head = SIM_NONE;
	p->used = 0;
	p->peak = 0;
	thread_free(p, 0, cap0);
	return 0;
}

void sim_pool_free(struct sim_pool *p)
{
	free(p->pkt);
	p->pkt = NULL;
	p->cap = 0;
}

int sim_pool_get(struct sim_pool *p, uint32_t *idx)
{
	if (p->free_head == SIM_NONE) {
		struct sim_pkt *n;

		if (p->cap > (SIM_NONE - 1) / 2) {
			return -ENOMEM;
		}
		n = realloc(p->pkt, (size_t)p->cap * 2 * sizeof(*n));
		if (!n) {
			return -ENOMEM;
		}
		p->pkt = n;
		thread_free(p, p->cap, p->cap * 2);
		p->cap *= 2;
	}
	*idx = p->free_head;
	p->free_head = p->pkt[*idx].next;
	p->pkt[*idx].next = SIM_NONE;
	p->used++;
	if (p->used > p->peak) {
		p->peak = p->used;
	}
	return 0;
}

void sim_pool_put(struct sim_pool *p, uint32_t idx)
{
	p->pkt[idx].next = p->free_head;
	p->free_head = idx;
	p->used--;
}
