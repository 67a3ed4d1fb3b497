/* SPDX-License-Identifier: BSD-2-Clause */
/* The CPE's data budgets: see volume.h. */
#include "gateway/volume.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gateway/gw.h"
#include "gateway/session.h"

static void params_of(const struct conf_path *cp, struct budget_params *p)
{
	*p = (struct budget_params){
		.limit_bytes = (uint64_t)cp->budget_mb * GW_VOLUME_MB,
		.period = cp->budget_period,
		.reset_day = cp->budget_reset_day,
	};
}

/* "2026-12-01 00:00" (local time), for the log. */
static const char *when(time_t t, char *buf, size_t n)
{
	struct tm tm;

	if (!localtime_r(&t, &tm) ||
	    !strftime(buf, n, "%Y-%m-%d %H:%M", &tm)) {
		snprintf(buf, n, "@%lld", (long long)t);
	}
	return buf;
}

/* Every session's scheduler uses the path as the budget says. */
static void apply(struct gw *gw, unsigned path)
{
	bool spent = gw_volume_spent(&gw->vol, path);
	unsigned k;

	for (k = 0; k < gw->nsess; k++) {
		ing_sched_set_backup(&gw->sess[k]->sched, path, spent);
	}
}

static void save(struct gw *gw)
{
	struct gw_volume *v = &gw->vol;
	const char *names[WIRE_MAX_PATHS];
	const struct budget *b[WIRE_MAX_PATHS];
	char err[256];
	unsigned i, n = 0;

	if (!gw->conf.budget_state_file[0]) {
		v->dirty = false;
		return;
	}
	for (i = 0; i < gw->npaths; i++) {
		if (v->on[i]) {
			names[n] = gw->conf.path[i].name;
			b[n++] = &v->b[i];
		}
	}
	if (!n) {
		return;
	}
	if (budget_state_save(gw->conf.budget_state_file, n, names, b, err,
			      sizeof(err))) {
		/* kept dirty: the next save tries again */
		v->save_errors++;
		gw_warn(gw, "budget: %s", err);
		return;
	}
	v->saves++;
	v->dirty = false;
}

static void on_save(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct gw *gw = container_of(w, struct gw, vol.save);

	(void)loop;
	(void)revents;
	if (gw->vol.dirty) {
		save(gw);
	}
}

/* What the budget of path i did at now. */
static void event(struct gw *gw, unsigned i, enum budget_event ev)
{
	const struct budget *b = &gw->vol.b[i];
	const char *name = gw->conf.path[i].name;
	char end[32];

	switch (ev) {
	case BUDGET_EV_NONE:
		return;
	case BUDGET_EV_80:
		gw_warn(gw,
			"path %s: 80 %% of its data budget used (%llu of %u "
			"MB, until %s)",
			name, (unsigned long long)(b->used / GW_VOLUME_MB),
			gw->conf.path[i].budget_mb,
			when(b->end, end, sizeof(end)));
		return;
	case BUDGET_EV_100:
		gw_warn(gw,
			"path %s: data budget spent (%llu of %u MB): a backup "
			"path until %s",
			name, (unsigned long long)(b->used / GW_VOLUME_MB),
			gw->conf.path[i].budget_mb,
			when(b->end, end, sizeof(end)));
		break;
	case BUDGET_EV_RESET:
		gw_info(gw, "path %s: a new budget period, until %s", name,
			when(b->end, end, sizeof(end)));
		break;
	}
	apply(gw, i);
	gw->vol.dirty = true;
}

static void check(struct gw *gw, time_t now)
{
	enum budget_event ev;
	unsigned i;

	for (i = 0; i < gw->npaths; i++) {
		if (!gw->vol.on[i]) {
			continue;
		}
		while ((ev = budget_check(&gw->vol.b[i], now)) !=
		       BUDGET_EV_NONE) {
			event(gw, i, ev);
		}
	}
}

static void on_tick(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct gw *gw = container_of(w, struct gw, vol.tick);

	(void)loop;
	(void)revents;
	check(gw, time(NULL));
}

/* Path i's budget at start: the state file's, else the configured use. */
static void start_one(struct gw *gw, unsigned i, time_t now)
{
	const struct conf_path *cp = &gw->conf.path[i];
	struct budget_params p;
	uint64_t used = 0;
	time_t start = 0;
	char err[256];
	bool found = false;
	int ret = -ENOENT;

	params_of(cp, &p);
	if (gw->conf.budget_state_file[0]) {
		ret = budget_state_load(gw->conf.budget_state_file, cp->name,
					&found, &used, &start, err,
					sizeof(err));
	}
	if (!ret && found &&
	    !budget_resume(&gw->vol.b[i], &p, used, start, now)) {
		gw_info(gw, "path %s: budget %u MB a %s, %llu MB used (%s%s)",
			cp->name, cp->budget_mb,
			budget_period_name(p.period),
			(unsigned long long)(gw->vol.b[i].used / GW_VOLUME_MB),
			gw->conf.budget_state_file,
			gw->vol.b[i].resets ? ": its period is over, a new one"
					    : "");
	} else {
		if (ret == -ENOENT && gw->conf.budget_state_file[0]) {
			gw_warn(gw,
				"path %s: no budget state in %s yet: starting "
				"at budget_used_mb (%u MB)",
				cp->name, gw->conf.budget_state_file,
				cp->budget_used_mb);
		} else if (ret) {
			gw_warn(gw,
				"path %s: %s: starting at budget_used_mb (%u "
				"MB); the file is replaced at the next save",
				cp->name, err, cp->budget_used_mb);
		} else if (!found) {
			gw_warn(gw,
				"path %s: not in %s: starting at "
				"budget_used_mb (%u MB)",
				cp->name, gw->conf.budget_state_file,
				cp->budget_used_mb);
		}
		/* the config's values passed conf.c's checks */
		budget_init(&gw->vol.b[i], &p,
			    (uint64_t)cp->budget_used_mb * GW_VOLUME_MB, now);
		gw->vol.dirty = true;
	}
	gw->vol.on[i] = true;
}

int gw_volume_open(struct gw *gw)
{
	struct gw_volume *v = &gw->vol;
	double save_s = gw->conf.budget_save_min * 60.;
	time_t now = time(NULL);
	unsigned i;
	bool any = false;

	memset(v->on, 0, sizeof(v->on));
	ev_timer_init(&v->tick, on_tick, GW_VOLUME_TICK_MS / 1000.,
		      GW_VOLUME_TICK_MS / 1000.);
	ev_timer_init(&v->save, on_save, save_s, save_s);
	if (gw->conf.role != ROLE_CPE) {
		return 0;
	}
	for (i = 0; i < gw->npaths; i++) {
		if (gw->conf.path[i].budget_mb) {
			start_one(gw, i, now);
			any = true;
		}
	}
	if (!any) {
		return 0;
	}
	/* a budget already spent: a backup path from the first packet */
	check(gw, now);
	for (i = 0; i < gw->npaths; i++) {
		apply(gw, i);
	}
	ev_timer_start(gw->loop, &v->tick);
	ev_timer_start(gw->loop, &v->save);
	return 0;
}

void gw_volume_close(struct gw *gw)
{
	struct gw_volume *v = &gw->vol;

	if (!gw->loop) {
		return;
	}
	ev_timer_stop(gw->loop, &v->tick);
	ev_timer_stop(gw->loop, &v->save);
	if (v->dirty) {
		save(gw);
	}
}

void gw_volume_tunables(struct gw *gw)
{
	struct gw_volume *v = &gw->vol;
	time_t now = time(NULL);
	bool any = false;
	unsigned i;

	if (gw->conf.role != ROLE_CPE) {
		return;
	}
	for (i = 0; i < gw->npaths; i++) {
		const struct conf_path *cp = &gw->conf.path[i];
		struct budget_params p;

		if (!cp->budget_mb) {
			v->on[i] = false;
		} else if (!v->on[i]) {
			start_one(gw, i, now);
		} else {
			/* the use so far kept, the period as now set */
			params_of(cp, &p);
			budget_init(&v->b[i], &p, v->b[i].used, now);
			v->dirty = true;
		}
		any = any || v->on[i];
	}
	check(gw, now);
	for (i = 0; i < gw->npaths; i++) {
		apply(gw, i);
	}
	ev_timer_stop(gw->loop, &v->save);
	ev_timer_stop(gw->loop, &v->tick);
	if (any) {
		double save_s = gw->conf.budget_save_min * 60.;

		ev_timer_set(&v->save, save_s, save_s);
		ev_timer_start(gw->loop, &v->save);
		ev_timer_start(gw->loop, &v->tick);
	}
}

int gw_volume_set(struct gw *gw, const char *path, uint64_t used,
		  char *err, size_t errlen)
{
	unsigned i;

	for (i = 0; i < gw->npaths; i++) {
		if (!strcmp(gw->conf.path[i].name, path)) {
			break;
		}
	}
	if (i == gw->npaths) {
		snprintf(err, errlen, "no path named '%.32s'", path);
		return -ENOENT;
	}
	if (!gw->vol.on[i]) {
		snprintf(err, errlen,
			 "path %s has no data budget (budget_mb, on the CPE)",
			 path);
		return -EINVAL;
	}
	budget_set_used(&gw->vol.b[i], used);
	check(gw, time(NULL));
	apply(gw, i);
	save(gw);
	return 0;
}
