/* SPDX-License-Identifier: BSD-2-Clause */
/* The event queue: a binary min-heap of timed events.
 *
 * Time is in integer microseconds.  Events due at the same time come out in
 * the order they were pushed (a push counter breaks ties), so a run does not
 * depend on heap internals and FIFO links stay FIFO when deliveries tie.
 * The heap only grows; it never shrinks during a run.
 */
#ifndef L3BOND_SIM_EVENT_H
#define L3BOND_SIM_EVENT_H

#include <stdbool.h>
#include <stdint.h>

struct sim_ev {
	uint64_t t_us;
	uint64_t order; /* push counter: ties pop in push order */
	uint32_t type;
	uint32_t arg;
};

struct sim_evq {
	struct sim_ev *h;
	uint32_t n;
	uint32_t cap;
	uint32_t peak;
	uint64_t pushed;
};

int sim_evq_init(struct sim_evq *q, uint32_t cap0);
void sim_evq_free(struct sim_evq *q);

/* Returns 0 or -ENOMEM. */
int sim_evq_push(struct sim_evq *q, uint64_t t_us, uint32_t type, uint32_t arg);

/* Takes the earliest event; false if the queue is empty. */
bool sim_evq_pop(struct sim_evq *q, struct sim_ev *ev);

#endif
