/* SPDX-License-Identifier: BSD-2-Clause */
/* Binary min-heap keyed by (time, push order). */
#include <errno.h>
#include <stdlib.h>

#include "sim/event.h"

int sim_evq_init(struct sim_evq *q, uint32_t cap0)
{
	if (cap0 < 16) {
		cap0 = 16;
	}
	q->h = calloc(cap0, sizeof(*q->h));
	if (!q->h) {
		return -ENOMEM;
	}
	q->n = 0;
	q->cap = cap0;
	q->peak = 0;
	q->pushed = 0;
	return 0;
}

void sim_evq_free(struct sim_evq *q)
{
	free(q->h);
	q->h = NULL;
	q->n = q->cap = 0;
}

static bool earlier(const struct sim_ev *a, const struct sim_ev *b)
{
	if (a->t_us != b->t_us) {
		return a->t_us < b->t_us;
	}
	return a->order < b->order;
}

int sim_evq_push(struct sim_evq *q, uint64_t t_us, uint32_t type, uint32_t arg)
{
	struct sim_ev ev = {
		.t_us = t_us, .order = q->pushed, .type = type, .arg = arg};
	uint32_t i;

	if (q->n == q->cap) {
		struct sim_ev *h;

		if (q->cap > UINT32_MAX / 2) {
			return -ENOMEM;
		}
		h = realloc(q->h, (size_t)q->cap * 2 * sizeof(*h));
		if (!h) {
			return -ENOMEM;
		}
		q->h = h;
		q->cap *= 2;
	}
	q->pushed++;
	i = q->n++;
	while (i > 0) {
		uint32_t up = (i - 1) / 2;

		if (!earlier(&ev, &q->h[up])) {
			break;
		}
		q->h[i] = q->h[up];
		i = up;
	}
	q->h[i] = ev;
	if (q->n > q->peak) {
		q->peak = q->n;
	}
	return 0;
}

bool sim_evq_pop(struct sim_evq *q, struct sim_ev *ev)
{
	struct sim_ev last;
	uint32_t i = 0;

	if (q->n == 0) {
		return false;
	}
	*ev = q->h[0];
	last = q->h[--q->n];
	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= q->n) {
			break;
		}
		if (c + 1 < q->n && earlier(&q->h[c + 1], &q->h[c])) {
			c++;
		}
		if (!earlier(&q->h[c], &last)) {
			break;
		}
		q->h[i] = q->h[c];
		i = c;
	}
	if (q->n > 0) {
		q->h[i] = last;
	}
	return true;
}
