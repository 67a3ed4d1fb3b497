/* SPDX-License-Identifier: BSD-2-Clause */
/* The simulator's pseudo-random numbers: xoshiro256** seeded by splitmix64.
 *
 * Every random process (each link's jitter and loss, report loss) draws from
 * its own stream, derived from the run's seed and a stream number, so that a
 * change in one process does not shift the draws of the others and a run is
 * reproducible bit for bit from its seed.
 */
#ifndef L3BOND_SIM_RNG_H
#define L3BOND_SIM_RNG_H

#include <stdint.h>

struct sim_rng {
	uint64_t s[4];
};

uint64_t sim_splitmix64(uint64_t *state);
void sim_rng_seed(struct sim_rng *r, uint64_t seed, uint64_t stream);
uint64_t sim_rng_next(struct sim_rng *r);

/* Uniform in [0, 1). */
double sim_rng_uniform(struct sim_rng *r);

/* Uniform integer in [0, n); 0 if n is 0. */
uint64_t sim_rng_below(struct sim_rng *r, uint64_t n);

#endif
