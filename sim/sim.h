/* SPDX-License-Identifier: BSD-2-Clause */
/* l3bond-sim: a discrete-event simulation of one direction of the two-box
 * system, driving the daemon's own scheduler (ingress/sched.h) and egress
 * (egress/egress.h).
 *
 *   source --pick--> link[path] --...--> egr_on_data --release--> sink
 *      ^                                      |
 *      +---- ing_sched_on_report <--delay-- egr_loss_report every T_report
 *
 * A run is a pure function of its configuration (seed included).
 */
#ifndef L3BOND_SIM_H
#define L3BOND_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/wire.h"
#include "egress/reseq.h"
#include "ingress/detect.h"
#include "ingress/inflight.h"
#include "ingress/sched.h"
#include "sim/hist.h"
#include "sim/link.h"
#include "sim/profile.h"

enum {
	SIM_MAX_AT = 256,	     /* link schedule entries */
	SIM_INTERVAL_US = 100000,    /* CSV and utilisation interval */
	SIM_DRAIN_MAX_US = 60000000, /* give up draining after this */
};

enum sim_at_action {
	SIM_AT_DOWN,
	SIM_AT_UP,
	SIM_AT_RATE,
};

/* A cut to study (--cut): the path is down for dur_us from t_us (two
 * link schedule entries), and the run measures around it. */
struct sim_cut {
	bool on;
	unsigned path;
	uint64_t t_us;
	uint64_t dur_us;
};

/* What a cut cost (sim_result.cut). */
struct sim_cut_result {
	/* longest run of 10-ms bins, from the cut to 3 s after the heal,
	 * in which the egress released less than half of what the source
	 * offered */
	double outage_ms;
	/* packets the source emitted from 1 s before the cut to 2 s after
	 * the heal, and of them those never released */
	uint64_t emitted;
	uint64_t lost;
	/* from the cut to the core learning of it (SUSPECT with failover,
	 * else the --detect-ms DOWN); from the heal to the first packet the
	 * path delivers again */
	bool detected, back;
	double detect_ms, back_ms;
};

/* One link schedule entry: at t_us, path goes down / up / to rate_bps. */
struct sim_at {
	uint64_t t_us;
	unsigned path;
	enum sim_at_action action;
	double rate_bps;
};

struct sim_cfg {
	struct sim_profile profile;
	uint32_t pkt_size; /* inner packet bytes */
	bool overhead;	   /* links account pkt_size + WIRE_OVERHEAD */
	unsigned npaths;
	struct sim_link_cfg path[WIRE_MAX_PATHS];
	struct ing_sched_params sched;
	struct egr_reseq_params reseq;
	uint64_t seed;
	unsigned report_path;	 /* whose one-way delay reports take */
	int64_t report_delay_us; /* < 0: that path's delay */
	double report_loss;
	uint32_t detect_us; /* tell the core of down/up after; 0: never */
	/* issue 14: a detector per path (ingress/detect.h) on the reports'
	 * lseq_next and on probes every probe_ms (idle: the detector's
	 * interval), answered after a round trip if the link is up at both
	 * ends of it; what a suspect path carried unacknowledged is sent
	 * again (ingress/inflight.h) */
	bool failover;
	uint32_t probe_ms;	/* the daemon's probe_interval_ms */
	uint32_t dead_after_ms; /* the daemon's dead_after_ms */
	uint32_t inflight_ms;	/* the in-flight store holds this much of a
				 * path's rate */
	struct sim_cut cut;
	unsigned nat;
	struct sim_at at[SIM_MAX_AT];
};

struct sim_result {
	uint64_t sent;	   /* packets the source emitted */
	uint64_t no_path;  /* refused by the scheduler (-ENETDOWN) */
	uint64_t aqm_drops; /* dropped by the overflow's AQM (-ENOBUFS) */
	uint64_t released; /* released in order at the egress */
	uint64_t released_late; /* released out of order: late, within t_lto
				 * of its hole being given up (reseq late) */
	uint64_t late;	   /* egress drops: too old (reseq too_old) */
	uint64_t dup;
	uint64_t order_errors; /* releases out of gseq order (must be 0) */
	uint64_t bad_verdicts; /* EGR_DROP_PATH, _NOMEM (must be 0) */
	uint64_t stranded;     /* still in flight when the run gave up */
	uint64_t bytes_sent;   /* accounted bytes picked, all paths */
	uint64_t bytes_mobile; /* of which on mobile paths */
	uint64_t path_sent[WIRE_MAX_PATHS];
	struct sim_link_stats link[WIRE_MAX_PATHS];
	struct egr_reseq_stats reseq;
	struct ing_sched_stats sched;
	double w_mobile;
	uint64_t reports_sent;
	uint64_t reports_lost;
	/* fixed-path utilisation over the intervals where offered >= fixed
	 * capacity: sum of fixed delivered bits / sum of capacity bits */
	double util_fixed;
	uint32_t util_intervals;
	uint32_t intervals;
	double reorder_p50_ms;
	double reorder_p99_ms;
	double reorder_mean_ms;
	double reorder_max_ms;
	uint64_t end_us;
	uint32_t pool_peak;
	uint32_t heap_peak;
	struct sim_cut_result cut;
	struct ing_detect_stats detect[WIRE_MAX_PATHS];
	struct ing_inflight_stats inflight[WIRE_MAX_PATHS];
};

/* Fills c with the defaults (paper setup: dsl + lte, ramp not set). */
void sim_cfg_defaults(struct sim_cfg *c);

/* Bytes one packet counts for on the links. */
static inline uint32_t sim_pkt_bytes(const struct sim_cfg *c)
{
	return c->pkt_size + (c->overhead ? WIRE_OVERHEAD : 0);
}

/* Runs the simulation; writes the per-interval CSV to csv if not NULL.
 * Returns 0, -EINVAL (core rejected the parameters) or -ENOMEM. */
int sim_run(const struct sim_cfg *c, FILE *csv, struct sim_result *res);

/* Output (report.c). */
void sim_csv_header(FILE *f, const struct sim_cfg *c);
void sim_print_summary(FILE *f, const struct sim_cfg *c,
		       const struct sim_result *r);
double sim_loss_pct(const struct sim_result *r);

/* The paper's k x T_dwd grid (sweep.c).  tsv: machine-readable rows.
 * outdir: one CSV per cell if not NULL.  Returns 0 or -errno. */
int sim_sweep_paper(const struct sim_cfg *base, bool tsv, const char *outdir);

#endif
