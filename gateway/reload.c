/* SPDX-License-Identifier: BSD-2-Clause */
/* The configuration while the daemon runs: read (with what the daemon
 * needs beyond a valid file), and applied on SIGHUP and l3bondctl
 * set/reload.  Only tunables apply; what the key table marks CONF_RESTART
 * refuses the whole change.  The timers that follow the tunables are
 * main.c's (on_tunables_applied).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gateway/gw.h"
#include "gateway/notify.h"
#include "gateway/path.h"
#include "gateway/reload.h"
#include "gateway/rules.h"
#include "gateway/session.h"
#include "gateway/workers.h"

/* What the daemon needs beyond a valid file.  The file can be valid for
 * tools that read it (simulator, l3bondctl) without these. */
static int check_daemon(const struct conf *c, const char *file, char *err,
			size_t len)
{
	if (c->role == ROLE_CPE && !c->nlan && !c->bond_output) {
		snprintf(err, len,
			 "%s:0: lan_interfaces: missing: required with role "
			 "\"cpe\" (or bond_output = true)",
			 file);
		return -EINVAL;
	}
	/* the top-level CPE needs its prefixes (cpes entries require
	 * them in the file already) */
	if (c->role == ROLE_CONCENTRATOR && c->ncpes && !c->cpe[0].name[0] &&
	    !c->cpe[0].nprefixes) {
		snprintf(err, len,
			 "%s:0: prefixes: missing: required with role "
			 "\"concentrator\"",
			 file);
		return -EINVAL;
	}
	/* a path's peer: IPv4 or IPv6 (conf.c checked it) */
	return 0;
}

int gw_conf_load(struct conf *c, const char *file, char *err, size_t len)
{
	int ret = conf_load(c, file, err, len);

	if (!ret) {
		ret = check_daemon(c, file, err, len);
	}
	return ret;
}

/* The tunables of c in every session (checked by the config already). */
static int set_params(struct gw *gw, const struct conf *c)
{
	unsigned k;
	int ret;

	for (k = 0; k < gw->nsess; k++) {
		struct gw_sess *s = gw->sess[k];

		ret = ing_sched_set_params(&s->sched, &c->sched);
		for (unsigned i = 0; i < c->npaths; i++) {
			ing_sched_set_rate(&s->sched, i, c->path[i].rate_kbps);
		}
		if (!ret) {
			ret = egr_set_params(&s->egr, &c->reseq);
		}
		if (ret) {
			return ret;
		}
	}
	return 0;
}

int gw_apply_conf(struct gw *gw, const struct conf *c, char *err, size_t len)
{
	struct conf keep, next;
	const char *key;
	unsigned k;
	int ret;

	/* what the key table marks CONF_RESTART */
	if (!conf_same_structure(&gw->conf, c, &key)) {
		snprintf(err, len, "%s changed; restart l3bondd to apply", key);
		return -EINVAL;
	}
	/* the workers running, and the rules that steer to them, stay: with
	 * workers = 0 the count also follows what keeps them from running
	 * (a class in mode bypass) */
	if (conf_workers(c) != (gw->nworkers > 1 ? gw->nworkers : 1)) {
		snprintf(err, len,
			 "the workers would be %u, not the %u running (workers "
			 "= %u: one per core unless a class is in mode "
			 "bypass); restart l3bondd to apply",
			 conf_workers(c), gw->nworkers > 1 ? gw->nworkers : 1,
			 c->workers);
		return -EINVAL;
	}
	ret = conf_copy(&next, c);
	if (ret) {
		snprintf(err, len, "%s", strerror(-ret));
		return ret;
	}
	ret = gw_rules_update(gw, &next);
	if (ret) {
		snprintf(err, len, "the rules of the new prefixes: %s",
			 strerror(-ret));
		conf_free(&next);
		return ret;
	}
	/* the control socket stays as it was opened (CONF_OPENED): moving
	 * it under a client is a restart's job */
	conf_keep_opened(&next, &gw->conf);
	keep = gw->conf; /* the old CPEs go with it */
	gw->conf = next;
	ret = gw_sessions_update(gw, &gw->conf);
	if (!ret) {
		ret = set_params(gw, &gw->conf);
	}
	if (ret) {
		/* nothing of the sessions changed (gw_sessions_update), the
		 * parameters are the checked ones of a config */
		gw_rules_update(gw, &keep); /* the old prefixes again */
		conf_free(&gw->conf);
		gw->conf = keep;
		set_params(gw, &gw->conf);
		snprintf(err, len, "%s", strerror(-ret));
		return ret;
	}
	conf_free(&keep);
	gw->log_level = gw->verbose ? CONF_LOG_DEBUG : c->log_level;
	/* an interface's MTU may have changed (PPPoE MTU, say) */
	gw_paths_update_mtu(gw);
	if (gw->on_tunables_applied) {
		gw->on_tunables_applied(gw);
	}
	/* t_lto may have changed the deadline; the reorder timeout starts
	 * again from t_lto_ms and adapts from the next report on */
	for (k = 0; k < gw->nsess; k++) {
		gw_egr_settle(gw->sess[k]);
	}
	gw_info(gw,
		"applied: k=%g t_dwd_ms=%u t_report_ms=%u w_fixed=%g "
		"w_mobile_max=%g queue_target_ms=%u rate_auto=%d mobile_aqm_ms=%u "
		"t_lto_ms=%u early_release=%d "
		"probe_interval_ms=%u dead_after_ms=%u idle_probe_ms=%u "
		"log_level=%s, %u sessions",
		c->sched.k, c->sched.t_dwd_ms, c->sched.t_report_ms,
		c->sched.w_fixed, c->sched.w_mobile_max,
		c->sched.queue_target_us / 1000, c->sched.rate_auto,
		c->sched.mobile_aqm_us / 1000, c->reseq.t_lto_us / 1000,
		c->reseq.early_release, c->probe_interval_ms, c->dead_after_ms,
		c->idle_probe_ms, conf_log_level_name(c->log_level), gw->nsess);
	return 0;
}

int gw_reload(struct gw *gw, char *err, size_t len)
{
	uint64_t t0 = gw_now_us();
	struct conf c;
	int ret;

	gw_notify("RELOADING=1");
	conf_defaults(&c);
	ret = gw_conf_load(&c, gw->conf_file, err, len);
	if (!ret) {
		ret = gw_apply_conf(gw, &c, err, len);
	}
	/* the first process of workers: theirs after the rules */
	if (!ret && gw->wk) {
		ret = gw_workers_tell(gw, "reload\n", err, len);
	}
	if (ret) {
		gw_err(gw, "reload refused, old configuration kept: %s", err);
		gw->reloads_refused++;
	} else {
		gw->reloads++;
		gw->reload_ms = (uint32_t)((gw_now_us() - t0) / 1000);
		gw_info(gw, "reload done in %u ms (%u CPEs)", gw->reload_ms,
			gw->nsess);
	}
	conf_free(&c);
	gw_notify("READY=1");
	return ret;
}

