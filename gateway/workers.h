/* SPDX-License-Identifier: BSD-2-Clause */
/* A concentrator's worker processes: see workers.c. */
#ifndef L3BOND_WORKERS_H
#define L3BOND_WORKERS_H

#include <stddef.h>
#include <stdint.h>

struct gw;

/* The first process: conf_workers() workers started (argv0: our name in
 * their argv), each up, watched in gw's loop (started again when one
 * dies); gw's status walk is theirs from then on (stats_from_workers).
 * 0, or -errno (what is started is stopped by gw_workers_stop). */
int gw_workers_start(struct gw *gw, const char *argv0);
/* SIGTERM to each, their exit awaited (SIGKILL after a bound). */
void gw_workers_stop(struct gw *gw);
/* req (a control line: "reload\n", "set KEY VALUE\n") to each worker:
 * 0, or the first error (why in err; every worker is asked). */
int gw_workers_tell(struct gw *gw, const char *req, char *err, size_t len);

/* A worker: --worker K:FD taken (0, or -EINVAL); once its config is read,
 * checked against it (0, or -EINVAL, logged); once up, the first process
 * told. */
int gw_worker_opt(struct gw *gw, const char *arg);
int gw_worker_check(struct gw *gw);
void gw_worker_ready(struct gw *gw);

#endif
