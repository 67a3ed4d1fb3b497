/* SPDX-License-Identifier: BSD-2-Clause */
/* The paper's parameter grid (section 5.2): the ramp profile for
 * k in {0.1, 0.5, 1} x T_dwd in {50, 250, 500} ms with w_mobile_max 45,
 * printed beside the paper's loss rates.  Everything else (links, seed,
 * packet size, the reorder buffer) comes from the caller's configuration.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/sim.h"

enum { GRID = 3 };

static const double grid_k[GRID] = {0.1, 0.5, 1.0};
static const uint32_t grid_dwd[GRID] = {50, 250, 500};

/* "Multipath bonding at Layer 3", 5.2: loss %, rows k, columns T_dwd. */
static const double paper_loss[GRID][GRID] = {
	{6.25, 4.72, 4.1},
	{1.79, 0.53, 0.34},
	{1.14, 0.29, 0.15},
};

static uint64_t queue_drops(const struct sim_cfg *c, const struct sim_result *r,
			    bool fixed)
{
	uint64_t n = 0;
	unsigned i;

	for (i = 0; i < c->npaths; i++) {
		if ((c->path[i].cls == PATH_FIXED) == fixed) {
			n += r->link[i].queue_drops;
		}
	}
	return n;
}

static double mobile_share(const struct sim_result *r)
{
	return r->bytes_sent
		       ? 100.0 * (double)r->bytes_mobile / (double)r->bytes_sent
		       : 0.0;
}

static int run_cell(const struct sim_cfg *c, const char *outdir,
		    struct sim_result *res)
{
	char path[4096];
	FILE *csv = NULL;
	int ret;

	if (outdir) {
		snprintf(path, sizeof(path), "%s/ramp-k%g-dwd%u.csv", outdir,
			 c->sched.k, c->sched.t_dwd_ms);
		csv = fopen(path, "w");
		if (!csv) {
			ret = -errno;
			fprintf(stderr, "l3bond-sim: --sweep-out: %s: %s\n",
				path, strerror(errno));
			return ret;
		}
	}
	ret = sim_run(c, csv, res);
	if (csv && fclose(csv) && !ret) {
		ret = -EIO;
	}
	return ret;
}

int sim_sweep_paper(const struct sim_cfg *base, bool tsv, const char *outdir)
{
	struct sim_result res[GRID][GRID];
	struct sim_cfg c = *base;
	char err[256];
	int i, j, ret;

	if (outdir && mkdir(outdir, 0777) && errno != EEXIST) {
		fprintf(stderr, "l3bond-sim: --sweep-out: bad value '%s': %s\n",
			outdir, strerror(errno));
		return -errno;
	}
	ret = sim_profile_parse(&c.profile, "ramp", err, sizeof(err));
	if (ret) {
		fprintf(stderr, "l3bond-sim: ramp profile: %s\n", err);
		return ret;
	}
	c.sched.w_mobile_max = 45;
	for (i = 0; i < GRID; i++) {
		for (j = 0; j < GRID; j++) {
			c.sched.k = grid_k[i];
			c.sched.t_dwd_ms = grid_dwd[j];
			ret = run_cell(&c, outdir, &res[i][j]);
			if (ret) {
				fprintf(stderr,
					"l3bond-sim: sweep cell k %g t_dwd_ms "
					"%u: %s\n",
					grid_k[i], grid_dwd[j], strerror(-ret));
				goto free_profile;
			}
		}
	}

	if (tsv) {
		printf("k\tt_dwd_ms\tloss_pct\tpaper_loss_pct\tfixed_util_pct"
		       "\tmobile_share_pct\treorder_p99_ms\tsent\treleased"
		       "\tfixed_queue_drops\tmobile_queue_drops\tegress_late"
		       "\tawi\tiwi\tdwd\torder_errors\n");
	} else {
		printf("paper grid: ramp 63 -> 105 -> 63 Mbit/s over 40 s, "
		       "w_mobile_max 45, seed %llu, %u bytes per packet on "
		       "the links,\nqueue_target_ms %g (%s)\n",
		       (unsigned long long)c.seed, sim_pkt_bytes(&c),
		       c.sched.queue_target_us / 1000.0,
		       c.sched.queue_target_us ? "l3bond's queue target"
					   : "0: the paper's algorithm");
		printf("cell: our loss %% [paper's loss %%] / fixed-path "
		       "utilisation %% while offered >= fixed capacity\n\n");
		printf("k \\ T_dwd %-22s%-22s%-22s\n", "50 ms", "250 ms",
		       "500 ms");
	}
	for (i = 0; i < GRID; i++) {
		if (!tsv) {
			printf("%-10g", grid_k[i]);
		}
		for (j = 0; j < GRID; j++) {
			const struct sim_result *r = &res[i][j];

			if (tsv) {
				printf("%g\t%u\t%.3f\t%.2f\t%.2f\t%.2f\t%.1f"
				       "\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu"
				       "\t%llu\t%llu\t%llu\n",
				       grid_k[i], grid_dwd[j], sim_loss_pct(r),
				       paper_loss[i][j], 100.0 * r->util_fixed,
				       mobile_share(r), r->reorder_p99_ms,
				       (unsigned long long)r->sent,
				       (unsigned long long)r->released,
				       (unsigned long long)queue_drops(&c, r,
								       true),
				       (unsigned long long)queue_drops(&c, r,
								       false),
				       (unsigned long long)r->late,
				       (unsigned long long)r->sched.awi,
				       (unsigned long long)r->sched.iwi,
				       (unsigned long long)r->sched.dwd,
				       (unsigned long long)r->order_errors);
			} else {
				char cell[32];

				snprintf(cell, sizeof(cell),
					 "%5.2f [%4.2f] / %5.1f",
					 sim_loss_pct(r), paper_loss[i][j],
					 100.0 * r->util_fixed);
				printf("%-22s", cell);
			}
		}
		if (!tsv) {
			printf("\n");
		}
	}
	if (!tsv) {
		printf("\nper cell: loss split and behaviour\n");
		for (i = 0; i < GRID; i++) {
			for (j = 0; j < GRID; j++) {
				const struct sim_result *r = &res[i][j];

				printf("k %-3g T_dwd %3u: fixed queue drops "
				       "%llu, mobile queue drops %llu, egress "
				       "late %llu; mobile share %.1f%%, "
				       "reorder p99 %.1f ms; awi %llu iwi %llu "
				       "dwd %llu\n",
				       grid_k[i], grid_dwd[j],
				       (unsigned long long)queue_drops(&c, r,
								       true),
				       (unsigned long long)queue_drops(&c, r,
								       false),
				       (unsigned long long)r->late,
				       mobile_share(r), r->reorder_p99_ms,
				       (unsigned long long)r->sched.awi,
				       (unsigned long long)r->sched.iwi,
				       (unsigned long long)r->sched.dwd);
			}
		}
		if (outdir) {
			printf("\nper-cell CSVs in %s/ramp-k<K>-dwd<T>.csv\n",
			       outdir);
		}
	}
free_profile:
	sim_profile_free(&c.profile);
	return ret;
}
