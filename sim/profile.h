/* SPDX-License-Identifier: BSD-2-Clause */
/* Traffic profiles: the offered load over time, as a step function.
 *
 * Every profile is a table of steps (from time t the source sends at rate r,
 * until the next step) and an end time.  Rates are of inner IP packets, the
 * traffic the bonding carries; the source paces its packets evenly at the
 * current rate.  Several flows are summed into one paced stream.
 *
 * Specs:
 *   const:RATE_MBIT[:SECONDS]   constant rate, 40 s unless given
 *   ramp                        the paper's single flow (section 5.2):
 *                               63 Mbit/s, x (105/63)^(1/75) every 200 ms
 *                               for 15 s (75 steps) up to 105 Mbit/s, held
 *                               10 s, then the time mirror image of the
 *                               increase down to 63 Mbit/s over 15 s:
 *                               rate = 105 * (63/105)^((j+1)/75) for
 *                               t in [25 + 0.2j, 25.2 + 0.2j), j = 0..74.
 *                               It falls fastest at first, like the paper's
 *                               "logarithmic" decrease.  40 s in all.
 *   flows                       CBR flows switching on and off, after the
 *                               paper's Figure 4 (70 s): 45 Mbit/s 0-70 s,
 *                               +30 Mbit/s 5-12 s, +25 Mbit/s 20-35 s,
 *                               +15 Mbit/s 27-42 s, +40 Mbit/s 50-60 s.
 *   file:PATH                   flows from a file, one per line:
 *                               START_S STOP_S RATE_MBIT ('#' comments)
 */
#ifndef L3BOND_SIM_PROFILE_H
#define L3BOND_SIM_PROFILE_H

#include <stddef.h>
#include <stdint.h>

struct sim_step {
	uint64_t t_us;
	double bps;
};

struct sim_profile {
	char name[64];
	struct sim_step *step; /* sorted by t_us, first at 0 */
	uint32_t n;
	uint64_t end_us;
};

/* Returns 0, or -EINVAL / -ENOMEM / -errno with a message in err. */
int sim_profile_parse(struct sim_profile *p, const char *spec, char *err,
		      size_t errlen);
void sim_profile_free(struct sim_profile *p);

/* Rate at t (0 at and after the end); *next_us: when it next changes (the
 * end time if no step is left). */
double sim_profile_rate(const struct sim_profile *p, uint64_t t_us,
			uint64_t *next_us);

#endif
