/* SPDX-License-Identifier: BSD-2-Clause */
/* Histogram of delays: 100 us bins up to SIM_HIST_BINS * 100 us, plus an
 * overflow count.  Percentiles are reported as the lower edge of the bin,
 * so a delay of zero reads as 0.0 ms. */
#ifndef L3BOND_SIM_HIST_H
#define L3BOND_SIM_HIST_H

#include <stdint.h>

enum {
	SIM_HIST_BIN_US = 100,
	SIM_HIST_BINS = 8192, /* 819.2 ms */
};

struct sim_hist {
	uint32_t bin[SIM_HIST_BINS];
	uint64_t over;
	uint64_t n;
	uint64_t sum_us;
	uint64_t max_us;
};

void sim_hist_clear(struct sim_hist *h);
void sim_hist_add(struct sim_hist *h, uint64_t us);

/* q in [0, 1]; 0 if empty; the overflow reads as the histogram's top. */
double sim_hist_pct_ms(const struct sim_hist *h, double q);
double sim_hist_mean_ms(const struct sim_hist *h);

#endif
