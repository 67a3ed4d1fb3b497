/* SPDX-License-Identifier: BSD-2-Clause */
/* The daemon's counters and state as one flat list of named values.
 *
 * gw_stats_walk() calls fn once per value, in a fixed order: the daemon
 * scope, the two queues' own values (ingress and egress scope, global: what
 * happens before a session is known), then per session its session,
 * ingress and egress scopes, then its paths in configuration order, each
 * path's values together.  Every consumer renders the same walk: the
 * status file (key=value), l3bondctl status (table and JSON) and the
 * Prometheus exposition.  A counter added here appears in all of them.
 *
 * Names:
 *	status file  [cpe.<cpe>.][ing.|egr.|path.<path>.]<name>[.<label value>]
 *	Prometheus   l3bond_[ingress_|egress_|path_]<name>[_total]
 *	             {session="<id>"[,cpe="<cpe>"][,path="<path>"]
 *	              [,<label>="<value>"]}
 * where _total is added to counters; "cpe." and the cpe label only for a
 * session of a named CPE (a concentrator's cpes list), the session label
 * not for global values.  Daemon and session scope values have no prefix:
 * "role", "w_mobile" -> l3bond_w_mobile.
 */
#ifndef L3BOND_STATS_H
#define L3BOND_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gw;

enum gw_stat_scope {
	GW_SCOPE_DAEMON = 0,  /* one per daemon: role, uptime */
	GW_SCOPE_SESSION = 1, /* one per session: state, tunables, w_mobile */
	GW_SCOPE_INGRESS = 2, /* this box's scheduler (to the peer) */
	GW_SCOPE_EGRESS = 3,  /* this box's resequencer (from the peer) */
	GW_SCOPE_PATH = 4,    /* one per path of a session */
};

enum gw_stat_type {
	GW_STAT_COUNTER = 0, /* monotonic since start: u */
	GW_STAT_GAUGE = 1,   /* may go up and down: u, or d if is_float */
	GW_STAT_TEXT = 2,    /* a string: text (role, addresses) */
};

struct gw_stat {
	enum gw_stat_scope scope;
	enum gw_stat_type type;
	const char *name;  /* [a-z0-9_]+, unique within its scope+label */
	const char *help;  /* one line: what it counts, and its unit */
	uint32_t session;  /* all but GW_SCOPE_DAEMON and global */
	const char *cpe;   /* the session's CPE name, "" for the plain one */
	bool global;	   /* INGRESS/EGRESS: the queue's own, no session */
	const char *path;  /* GW_SCOPE_PATH: the path's name */
	const char *label; /* an extra label's name ("reason"), or NULL */
	const char *label_value;
	bool is_float; /* GW_STAT_GAUGE: d holds the value */
	uint64_t u;
	double d;
	const char *text; /* GW_STAT_TEXT */
};

typedef void gw_stat_fn(void *arg, const struct gw_stat *st);

void gw_stats_walk(struct gw *gw, gw_stat_fn *fn, void *arg);
/* The same walk for one CPE: only the session of CPE only (a name of the
 * config's CPEs); "" none, the totals (the daemon's values and the
 * queues' own); NULL every session, as gw_stats_walk.  The status of
 * thousands of CPEs takes megabytes (about 6 KB each): these two keep
 * l3bondctl's answer small on a concentrator of many. */
void gw_stats_walk_only(struct gw *gw, const char *only, gw_stat_fn *fn,
			void *arg);

/* status.c: the walk as key=value lines to fd (--status-file, SIGUSR1) */
int gw_status_write(struct gw *gw, int fd);
void gw_status_dump(struct gw *gw);

/* The status-file key of st ("egr.wire.bad_len"), into buf; returns buf. */
const char *gw_stat_key(const struct gw_stat *st, char *buf, size_t len);

#endif
