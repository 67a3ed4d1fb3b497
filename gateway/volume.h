/* SPDX-License-Identifier: BSD-2-Clause */
/* The CPE's data budgets (issue 13): the bytes each path with a budget
 * (budget_mb) carries on the wire, both ways, l3bond's own control
 * traffic included, counted against its period (common/budget.h), kept
 * across restarts in budget_state_file.
 *
 * A path whose budget is spent is used as a backup path until the period
 * ends: by our scheduler for what we send (ing_sched_set_backup), and by
 * the concentrator for what it sends, which our REPORTs ask of it
 * (WIRE_RF_BACKUP, gateway/egress.c; the concentrator: control.c).  At
 * 80 % and 100 % a warning and a status flag; l3bondctl budget PATH reset
 * | set MB.
 *
 * What is counted: every tunnel packet sent on the path (its IP length:
 * the UDP payload and the outer headers), and every packet received on it
 * whose header names a session and the path (before its tag is checked:
 * the carrier bills what arrives).  The thresholds and the period are
 * looked at every GW_VOLUME_TICK_MS, so a spent budget is overrun by at
 * most that much traffic.
 */
#ifndef L3BOND_VOLUME_H
#define L3BOND_VOLUME_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/budget.h"
#include "common/wire.h"

struct gw;
struct gw_sess;

enum {
	GW_VOLUME_TICK_MS = 1000,
	GW_VOLUME_MB = 1000000, /* budget_mb's unit, bytes */
};

struct gw_volume {
	bool on[WIRE_MAX_PATHS]; /* the path has a budget */
	struct budget b[WIRE_MAX_PATHS];
	bool dirty;	/* counted since the last save */
	uint64_t saves, save_errors;
	ev_timer tick;	/* GW_VOLUME_TICK_MS: thresholds, periods */
	ev_timer save;	/* budget_save_min */
};

/* The CPE's budgets from the config and the state file (missing or
 * corrupt: the configured budget_used_mb, with a warning), the timers
 * started.  Nothing on a concentrator, or without a budget.  0. */
int gw_volume_open(struct gw *gw);
/* Saved (when something was counted) and stopped. */
void gw_volume_close(struct gw *gw);
/* The budgets' parameters after a reload: the bytes used are kept. */
void gw_volume_tunables(struct gw *gw);

static inline void gw_volume_count(struct gw_volume *v, unsigned path,
				   uint64_t bytes)
{
	if (path < WIRE_MAX_PATHS && v->on[path]) {
		budget_add(&v->b[path], bytes);
		v->dirty = true;
	}
}

/* The path's budget is spent: a backup path (both ways). */
static inline bool gw_volume_spent(const struct gw_volume *v, unsigned path)
{
	return path < WIRE_MAX_PATHS && v->on[path] && budget_spent(&v->b[path]);
}

/* l3bondctl budget PATH reset | set MB: the bytes used this period set
 * (reset: 0), the path used as configured again if that is under the
 * budget, and the state saved.  0, or -errno with err set. */
int gw_volume_set(struct gw *gw, const char *path, uint64_t used,
		  char *err, size_t errlen);

#endif
