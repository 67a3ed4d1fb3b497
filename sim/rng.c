/* SPDX-License-Identifier: BSD-2-Clause */
/* xoshiro256** (Blackman and Vigna, public domain reference) seeded with
 * splitmix64, which never yields the all-zero state xoshiro cannot leave. */
#include "sim/rng.h"

uint64_t sim_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void sim_rng_seed(struct sim_rng *r, uint64_t seed, uint64_t stream)
{
	/* Mix the stream number in through a second splitmix step so that
	 * neighbouring seeds and streams give unrelated states. */
	uint64_t st = stream;
	uint64_t x = seed ^ sim_splitmix64(&st);
	int i;

	for (i = 0; i < 4; i++) {
		r->s[i] = sim_splitmix64(&x);
	}
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t sim_rng_next(struct sim_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double sim_rng_uniform(struct sim_rng *r)
{
	return (double)(sim_rng_next(r) >> 11) * 0x1.0p-53;
}

uint64_t sim_rng_below(struct sim_rng *r, uint64_t n)
{
	/* Lemire's multiply-shift; the bias is below n / 2^64. */
	return (uint64_t)(((unsigned __int128)sim_rng_next(r) * n) >> 64);
}
