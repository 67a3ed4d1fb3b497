/* SPDX-License-Identifier: BSD-2-Clause */
/* The data budget of a metered path (an LTE SIM): its billing period, its
 * thresholds, and its state file.
 *
 * Pure: no globals, no daemon state, the time is passed in, libc only.  The
 * daemon counts bytes into a struct budget (budget_add), calls
 * budget_check() on a timer and acts on its events; the state file keeps
 * the counts across restarts.
 *
 * Periods are in LOCAL time (the carrier bills by the calendar where the
 * router is; TZ is respected) and begin at 00:00 on the reset day, found
 * with mktime(tm_isdst = -1) so that a DST change never moves a boundary
 * off midnight.  In a zone where a DST change skips midnight itself
 * (America/Santiago), the boundary is the first local time of that day
 * that exists (01:00; glibc's mktime, tested).
 *
 * The invariant: b->start <= now < b->end for the last now checked, except
 * after the clock went back, where the period is kept (a router without a
 * real-time clock boots in 1970 before NTP: the month's count must not be
 * erased for that).  A clock that jumps past the end starts the period of
 * now: one RESET, however many periods were skipped.
 */
#ifndef L3BOND_BUDGET_H
#define L3BOND_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

enum budget_period {
	BUDGET_MONTH = 0,
	BUDGET_WEEK,
	BUDGET_DAY,
	BUDGET_NPERIOD
};

enum budget_limits {
	BUDGET_NAME_MAX = 64,	/* a path name in the state file, with NUL */
	BUDGET_LEVEL_WARN = 80, /* percent: the first warning */
	BUDGET_LEVEL_SPENT = 100,
};

struct budget_params {
	uint64_t limit_bytes; /* 0: no budget */
	enum budget_period period;
	unsigned reset_day; /* month: 1..31 (a day past the month's end
			     * means its last day); week: 1..7, 1 = Monday;
			     * day: ignored */
};

/* The period containing now: [*start, *end), both at 00:00 local on the
 * reset day.  0, or -EINVAL for bad params or a time localtime_r/mktime
 * cannot represent. */
int budget_period_bounds(const struct budget_params *p, time_t now,
			 time_t *start, time_t *end);

struct budget {
	struct budget_params p;
	uint64_t used;	   /* bytes this period */
	time_t start, end; /* the period counted */
	unsigned level;	   /* highest threshold reported: 0, 80, 100 */
	uint64_t resets;   /* periods ended */
};

/* Starts counting at used bytes in the period of now, level 0 (so that the
 * thresholds already passed are reported again by budget_check).  0 or
 * -EINVAL. */
int budget_init(struct budget *b, const struct budget_params *p, uint64_t used,
		time_t now);

/* Starts from a saved state: used bytes counted in the period that began
 * at saved_start.  Kept when now is before the end of saved_start's period
 * (in it, or before it: the clock went back); reset to 0 in the period of
 * now when now is at or past that end, and then b->resets is 1, so that
 * the caller can say so.  saved_start's period is that of the params given
 * (a reset day changed in the config takes effect from there).  0 or
 * -EINVAL. */
int budget_resume(struct budget *b, const struct budget_params *p,
		  uint64_t used, time_t saved_start, time_t now);

/* Saturating at UINT64_MAX. */
void budget_add(struct budget *b, uint64_t bytes);

enum budget_event {
	BUDGET_EV_NONE = 0,
	BUDGET_EV_80,	 /* used reached 80 % of the limit (once a period) */
	BUDGET_EV_100,	 /* reached 100 % (once a period) */
	BUDGET_EV_RESET, /* a new period began: used back to 0 */
};

/* The next event at now, one per call: call until BUDGET_EV_NONE.  A jump
 * from under 80 % to over 100 % gives EV_80, then EV_100.  No thresholds
 * without a limit. */
enum budget_event budget_check(struct budget *b, time_t now);

/* used >= limit > 0 */
bool budget_spent(const struct budget *b);

/* The operator's commands (l3bondctl budget PATH reset / set MB): the
 * level is recomputed without an event, so that setting under 80 %
 * re-arms both warnings and setting over a threshold does not report it
 * again. */
void budget_set_used(struct budget *b, uint64_t used);

/* "month", "week", "day"; NULL for anything else. */
const char *budget_period_name(enum budget_period p);
/* The reverse: 0, or -EINVAL for an unknown name. */
int budget_period_from_name(const char *name, enum budget_period *p);

/* The state file: every budget of the box, one line per path name, written
 * atomically (a temporary file "<file>.tmp" in the same directory, fsync,
 * rename, fsync of the directory), so that a power cut leaves the old or
 * the new file, never a torn one.  Text, versioned, with a checksum:
 *   l3bond-budget 1
 *   path lte used 123456789 start 1764547200
 *   end <FNV-1a 64 of the lines above, newlines included, 16 hex digits>
 * Names: 1..BUDGET_NAME_MAX - 1 printable characters, no space, unique.
 *
 * Save: 0 or -errno, with err naming the file and the failure.
 * Load: the whole file is checked before anything is returned.  -ENOENT
 * when missing; -EINVAL when corrupt (bad header, unknown version, bad
 * line, bad number, the path asked for twice, checksum mismatch,
 * truncated, anything after the end line; *used and *start may then have
 * been written), with err "FILE:LINE: what is wrong"; other
 * -errno for a file that cannot be read.  A path not in the file: 0 with
 * *found = false. */
int budget_state_save(const char *file, unsigned n, const char *const names[],
		      const struct budget *const b[], char *err, size_t errlen);
int budget_state_load(const char *file, const char *name, bool *found,
		      uint64_t *used, time_t *start, char *err, size_t errlen);

#endif
