/* SPDX-License-Identifier: BSD-2-Clause */
/* Fixed-bin delay histogram; no allocation. */
#include <math.h>
#include <string.h>

#include "sim/hist.h"

void sim_hist_clear(struct sim_hist *h)
{
	memset(h, 0, sizeof(*h));
}

void sim_hist_add(struct sim_hist *h, uint64_t us)
{
	uint64_t b = us / SIM_HIST_BIN_US;

	if (b < SIM_HIST_BINS) {
		h->bin[b]++;
	} else {
		h->over++;
	}
	h->n++;
	h->sum_us += us;
	if (us > h->max_us) {
		h->max_us = us;
	}
}

double sim_hist_pct_ms(const struct sim_hist *h, double q)
{
	uint64_t rank, seen = 0;
	uint32_t b;

	if (h->n == 0) {
		return 0;
	}
	/* smallest bin whose cumulative count reaches ceil(q * n) */
	rank = (uint64_t)ceil(q * (double)h->n);
	if (rank == 0) {
		rank = 1;
	}
	for (b = 0; b < SIM_HIST_BINS; b++) {
		seen += h->bin[b];
		if (seen >= rank) {
			return b * (SIM_HIST_BIN_US / 1000.0);
		}
	}
	return SIM_HIST_BINS * (SIM_HIST_BIN_US / 1000.0);
}

double sim_hist_mean_ms(const struct sim_hist *h)
{
	return h->n ? (double)h->sum_us / (double)h->n / 1000.0 : 0;
}
