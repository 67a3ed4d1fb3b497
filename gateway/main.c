/* SPDX-License-Identifier: BSD-2-Clause */
/* l3bondd: the bonding daemon of the CPE and of the concentrator.
 *
 *	l3bondd -c FILE [-f] [-v] [--status-file PATH]
 *	l3bondd -c FILE --check
 *	l3bondd -c FILE --print-rules iptables|ip6tables|ipset|nft
 *	l3bondd --genkey
 *	l3bondd --list-tunables
 *	l3bondd --version
 *
 * It always runs in the foreground (systemd and procd supervise it); -f is
 * accepted for symmetry with other daemons.  Startup: config, path
 * sockets, both queues bound, then the rules (so no packet is ever queued
 * to nobody), rp_filter.  SIGTERM/SIGINT: buffered packets released,
 * verdicts sent, rules removed, rp_filter restored, queues unbound, exit 0.
 * SIGHUP: the file is read again; the tunables are applied without
 * touching sequence state, a structural change is refused (restart), a bad
 * file is logged and the running config kept.  SIGUSR1: status dump.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gateway/ctl.h"
#include "gateway/gw.h"
#include "gateway/link.h"
#include "gateway/notify.h"
#include "gateway/reload.h"
#include "gateway/rules.h"
#include "gateway/secure.h"
#include "gateway/session.h"
#include "gateway/stats.h"
#include "gateway/workers.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: l3bondd -c FILE [-f] [-v] [--status-file PATH]\n"
		"               [--control-socket PATH]\n"
		"       l3bondd -c FILE --check\n"
		"       l3bondd -c FILE --print-rules "
		"iptables|ip6tables|ipset|nft\n"
		"       l3bondd --genkey\n"
		"       l3bondd --list-tunables\n"
		"       l3bondd --version\n"
		"  -c, --config FILE      configuration (libconfig syntax)\n"
		"  -f, --foreground       run in the foreground (always so)\n"
		"  -v, --verbose          log level debug\n"
		"      --check            validate the configuration, exit "
		"0 or 1\n"
		"      --print-rules FMT  print the rules it installs and "
		"exit\n"
		"      --status-file PATH write counters there every "
		"second\n"
		"      --control-socket PATH  l3bondctl's socket (default: "
		"control_socket of\n"
		"                         the file; \"\" for none)\n"
		"      --genkey           print a fresh pre-shared key (for "
		"`key`) and exit\n"
		"      --list-tunables    print the keys a reload applies "
		"without a restart\n"
		"  -V, --version          print the version and exit\n");
}

/* The top-level keys a reload (SIGHUP) applies without a restart, one a
 * line: those l3bondctl set takes and those only a reload takes (the key
 * table's CONF_RUNTIME and CONF_RELOAD).  The OpenWrt init script leaves
 * them out of its digest of what needs a restart: the list comes from the
 * binary that will read the file, so it cannot be stale after an upgrade
 * and needs no tool run on the build host (the SDK cross-compiles). */
static void list_tunables(void)
{
	const struct conf_key_info *k, *to;
	size_t i;

	for (i = 0; (k = conf_key(i)); i++) {
		to = k->alias_of ? conf_key_find(k->group, k->alias_of) : k;
		if (k->group == CONF_TOP && to &&
		    (to->apply == CONF_RUNTIME || to->apply == CONF_RELOAD)) {
			printf("%s\n", k->name);
		}
	}
}

/* ---- timers and signals ----------------------------------------------- */

/* t_report_ms: REPORTs on every path (liveness: link.c's detectors) */
static void on_report(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct gw *gw = container_of(w, struct gw, report_timer);
	uint64_t now = gw_now_us();

	(void)loop;
	(void)revents;
	gw_egr_send_reports(gw, now);
}

/* probe_interval_ms: PROBEs (and HELLOs) on every path */
static void on_probe(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct gw *gw = container_of(w, struct gw, keepalive_timer);
	uint64_t now = gw_now_us();

	(void)loop;
	(void)revents;
	gw_send_keepalives(gw, now);
}

static void on_stats(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct gw *gw = container_of(w, struct gw, stats_timer);

	(void)loop;
	(void)revents;
	if (!gw->wk) { /* the first process of workers has no queue */
		gw_check_kstats(gw);
	}
	if (gw->status_file) {
		gw_status_dump(gw);
	}
}

static void arm_periodic(struct gw *gw)
{
	double rep = gw->conf.sched.t_report_ms / 1000.;
	double probe = gw->conf.probe_interval_ms / 1000.;

	ev_timer_stop(gw->loop, &gw->report_timer);
	ev_timer_set(&gw->report_timer, rep, rep);
	ev_timer_start(gw->loop, &gw->report_timer);
	/* the first probe at once: HELLO before anything else */
	ev_timer_stop(gw->loop, &gw->keepalive_timer);
	ev_timer_set(&gw->keepalive_timer, 0., probe);
	ev_timer_start(gw->loop, &gw->keepalive_timer);
	gw_links_detect_tunables(gw);
}

/* A reload or l3bondctl set applied the config. */
static void on_tunables(struct gw *gw)
{
	arm_periodic(gw);
	gw_volume_tunables(gw);
	gw_ing_classes(gw);
}

static void on_stop(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct gw *gw = w->signum == SIGTERM
				? container_of(w, struct gw, sig_term)
				: container_of(w, struct gw, sig_int);

	(void)revents;
	gw_info(gw, "signal %d: shutting down", w->signum);
	gw->stopping = true;
	ev_break(loop, EVBREAK_ALL);
}

static void on_hup(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct gw *gw = container_of(w, struct gw, sig_hup);
	char err[CONF_ERR_MAX];

	(void)loop;
	(void)revents;
	gw_info(gw, "SIGHUP: reloading %s", gw->conf_file);
	gw_reload(gw, err, sizeof(err));
}

static void on_usr1(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct gw *gw = container_of(w, struct gw, sig_usr1);

	(void)loop;
	(void)revents;
	gw_status_dump(gw);
}

/* ---- start and stop ------------------------------------------------------ */

/* A new session after an earlier one: the peer's numbering started again.
 * What our egress holds goes out in order, its state and our report
 * baselines start afresh, now rather than after timeouts and a burst of
 * false loss; our own numbering goes on (see ing_sched_peer_restarted). */
static void on_peer_restarted(struct gw_sess *s)
{
	gw_egr_peer_restarted(s);
	ing_sched_peer_restarted(&s->sched);
	gw_links_on_peer_restarted(s);
}

/* A path came up or went down for s: holes may be given up, packets
 * released. */
static void on_link_alive_changed(struct gw_sess *s, struct gw_link *l)
{
	(void)l;
	gw_egr_settle(s);
}

/* The first process of a concentrator with workers: the paths (their
 * MTU, for the clamp), the workers, then the rules that steer to them
 * (rules.c), so that no packet is queued to nobody. */
static int start_first(struct gw *gw, const char *argv0)
{
	int err;

	err = gw_ctl_open(gw);
	if (!err) {
		err = gw_paths_open(gw);
	}
	if (!err) {
		err = gw_workers_start(gw, argv0);
	}
	if (!err) { /* none of its own (gw_owns): the tables only */
		err = gw_sessions_open(gw);
	}
	if (!err) {
		err = gw_rules_install(gw);
	}
	if (err) {
		return err;
	}
	gw_rp_filter_set(gw);
	return 0;
}

static int start(struct gw *gw, const char *argv0)
{
	bool first = gw->ready_fd < 0 && conf_workers(&gw->conf) > 1;
	int err;

	gw->start_us = gw_now_us();
	gw->flow_seed = (uint32_t)auth_random64();
	gw->npaths = gw->conf.npaths;
	gw->on_path_reopened = gw_links_on_path_reopened;
	gw->on_session_opened = gw_segr_open;
	gw->on_session_closing = gw_segr_close;
	gw->on_session_established = gw_links_on_established;
	gw->on_peer_restarted = on_peer_restarted;
	gw->on_link_alive_changed = on_link_alive_changed;
	gw->on_link_suspect = gw_ing_resend;
	gw->on_tunables_applied = on_tunables;
	if (first) {
		err = start_first(gw, argv0);
		if (err) {
			return err;
		}
		goto timers;
	}
	err = gw_worker_check(gw);
	if (err) {
		return err;
	}
	/* first: a second daemon started by mistake is told that another
	 * one runs (its socket answers) before it touches queues or rules;
	 * no client is served before the loop runs, after all is open */
	err = gw_ctl_open(gw);
	if (err) {
		return err;
	}
	err = gw_paths_open(gw);
	if (err) {
		return err;
	}
	err = gw_sessions_open(gw);
	if (err) {
		gw_err(gw, "sessions: %s", strerror(-err));
		return err;
	}
	gw_ing_classes(gw);
	err = gw_ing_open(gw);
	if (err) {
		return err;
	}
	err = gw_egr_open(gw);
	if (err) {
		return err;
	}
	/* a worker's rules are the first process's */
	if (gw->nworkers <= 1) {
		err = gw_rules_install(gw);
		if (err) {
			return err;
		}
		gw_rp_filter_set(gw);
	}
timers:

	ev_timer_init(&gw->report_timer, on_report, 0., 0.);
	ev_timer_init(&gw->keepalive_timer, on_probe, 0., 0.);
	ev_timer_init(&gw->stats_timer, on_stats, GW_KSTATS_MS / 1000.,
		      GW_KSTATS_MS / 1000.);
	ev_timer_start(gw->loop, &gw->stats_timer);
	arm_periodic(gw);
	err = gw_volume_open(gw);
	if (err) {
		return err;
	}
	ev_signal_init(&gw->sig_term, on_stop, SIGTERM);
	ev_signal_init(&gw->sig_int, on_stop, SIGINT);
	ev_signal_init(&gw->sig_hup, on_hup, SIGHUP);
	ev_signal_init(&gw->sig_usr1, on_usr1, SIGUSR1);
	ev_signal_start(gw->loop, &gw->sig_term);
	ev_signal_start(gw->loop, &gw->sig_int);
	ev_signal_start(gw->loop, &gw->sig_hup);
	ev_signal_start(gw->loop, &gw->sig_usr1);
	if (gw->conf.role == ROLE_CPE) {
		gw_info(gw,
			"started: role cpe, session %u, %u paths, queues "
			"%u/%u, port %u, %s",
			gw->conf.cpe[0].session_id, gw->npaths,
			gw->conf.ingress_queue, gw->conf.egress_queue,
			gw->conf.port,
			gw->conf.cpe[0].encrypt ? "encrypted"
						: "authenticated");
		/* a session at once, not a probe interval later */
		gw_sec_send_hellos(gw->sess[0], gw_now_us(), true);
	} else if (first) {
		gw_info(gw,
			"started: role concentrator, %u CPEs, %u workers, %u "
			"paths, port %u",
			gw->conf.ncpes, gw->nworkers, gw->npaths,
			gw->conf.port);
	} else {
		char why[CONF_ERR_MAX];

		/* the default (one per core) that one worker stands for */
		if (!gw->conf.workers && gw->ready_fd < 0 && conf_cores() > 1 &&
		    conf_workers_obstacle(&gw->conf, conf_cores(), why,
					  sizeof(why))) {
			gw_info(gw, "workers: one, not one per core: %s", why);
		}
		gw_info(gw,
			"started: role concentrator%s, %u CPEs, %u paths, "
			"queues %u/%u, port %u",
			gw->nworkers > 1 ? " worker" : "", gw->nsess,
			gw->npaths, gw_ingress_queue(gw), gw_egress_queue(gw),
			gw->conf.port);
	}
	return 0;
}

static void stop(struct gw *gw)
{
	gw_notify("STOPPING=1");
	gw_ctl_close(gw);
	/* theirs released before the rules go */
	gw_workers_stop(gw);
	/* the budgets' use so far kept (SIGTERM, SIGINT, a failed start) */
	gw_volume_close(gw);
	/* what waits for a hole goes out now, in order */
	gw_egr_flush_all(gw);
	gw_rules_remove(gw);
	gw_rp_filter_restore(gw);
	/* what was queued before the rules went away */
	if (gw->ing.q.nl) {
		gw_ing_drain_all(gw);
	}
	if (gw->egr.q.nl) {
		gw_egr_drain_all(gw);
		gw_egr_flush_all(gw);
	}
	if (gw->status_file && gw->ing.q.nl) {
		gw_status_dump(gw);
	}
	gw_egr_close(gw);
	gw_ing_close(gw);
	gw_paths_close(gw);
	gw_sessions_close(gw);
	conf_free(&gw->conf);
	if (gw->loop) {
		ev_timer_stop(gw->loop, &gw->report_timer);
		ev_timer_stop(gw->loop, &gw->keepalive_timer);
		ev_timer_stop(gw->loop, &gw->stats_timer);
		ev_signal_stop(gw->loop, &gw->sig_term);
		ev_signal_stop(gw->loop, &gw->sig_int);
		ev_signal_stop(gw->loop, &gw->sig_hup);
		ev_signal_stop(gw->loop, &gw->sig_usr1);
	}
}

int main(int argc, char **argv)
{
	enum {
		OPT_CHECK = 256,
		OPT_PRINT_RULES,
		OPT_STATUS,
		OPT_CTL,
		OPT_GENKEY,
		OPT_LIST_TUNABLES,
		OPT_WORKER
	};
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"foreground", no_argument, NULL, 'f'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"check", no_argument, NULL, OPT_CHECK},
		{"print-rules", required_argument, NULL, OPT_PRINT_RULES},
		{"status-file", required_argument, NULL, OPT_STATUS},
		{"control-socket", required_argument, NULL, OPT_CTL},
		{"genkey", no_argument, NULL, OPT_GENKEY},
		{"list-tunables", no_argument, NULL, OPT_LIST_TUNABLES},
		{"worker", required_argument, NULL, OPT_WORKER},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	static struct gw gw; /* large (batches): not on the stack */
	const char *print_rules = NULL;
	char err[CONF_ERR_MAX];
	bool check = false;
	int opt, ret;

	gw.main_us = gw_now_us();

	/* A SIGHUP or SIGUSR1 before the loop's handlers are in would
	 * kill us half-way through installing the rules. */
	signal(SIGHUP, SIG_IGN);
	signal(SIGUSR1, SIG_IGN);
	setvbuf(stderr, NULL, _IOLBF, 0);
	gw.log_level = CONF_LOG_INFO;
	gw.icmp_fd = -1;
	gw.icmp6_fd = -1;
	gw.ready_fd = -1;
	if (auth_init() < 0) {
		fprintf(stderr, "l3bondd: libsodium cannot initialise (no "
				"randomness source)\n");
		return 1;
	}
	while ((opt = getopt_long(argc, argv, "c:fvhV", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			gw.conf_file = optarg;
			break;
		case 'f':
			break;
		case 'v':
			gw.verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("l3bondd %s\n", L3BOND_VERSION);
			return 0;
		case OPT_CHECK:
			check = true;
			break;
		case OPT_PRINT_RULES:
			print_rules = optarg;
			if (strcmp(optarg, "iptables") &&
			    strcmp(optarg, "ip6tables") &&
			    strcmp(optarg, "ipset") && strcmp(optarg, "nft")) {
				fprintf(stderr,
					"l3bondd: --print-rules: expected "
					"iptables, ip6tables, ipset or nft, "
					"not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case OPT_STATUS:
			gw.status_file = optarg;
			break;
		case OPT_GENKEY: {
			char key[AUTH_KEY_B64_LEN];

			auth_genkey(key, sizeof(key));
			printf("%s\n", key);
			return 0;
		}
		case OPT_LIST_TUNABLES:
			list_tunables();
			return 0;
		case OPT_WORKER: /* the first process's, for its workers */
			if (gw_worker_opt(&gw, optarg)) {
				fprintf(stderr,
					"l3bondd: --worker: expected K:FD, "
					"not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case OPT_CTL:
			if (*optarg && *optarg != '/') {
				fprintf(stderr,
					"l3bondd: --control-socket: expected "
					"an absolute path or \"\", not '%s'\n",
					optarg);
				return 2;
			}
			if (strlen(optarg) >= CONF_PATH_MAX) {
				fprintf(stderr,
					"l3bondd: --control-socket: longer "
					"than %d characters\n",
					CONF_PATH_MAX - 1);
				return 2;
			}
			gw.ctl_path_opt = optarg;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!gw.conf_file || optind != argc) {
		usage(stderr);
		return 2;
	}
	ret = gw_conf_load(&gw.conf, gw.conf_file, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "l3bondd: %s\n", err);
		return 1;
	}
	if (check) {
		printf("%s: ok\n", gw.conf_file);
		return 0;
	}
	if (print_rules) {
		static char text[GW_RULES_MAX];

		ret = gw_rules_text(&gw.conf,
				    !strcmp(print_rules, "nft") ? GW_RULES_NFT
				    : !strcmp(print_rules, "ip6tables")
					    ? GW_RULES_IP6TABLES
				    : !strcmp(print_rules, "ipset")
					    ? GW_RULES_IPSET
					    : GW_RULES_IPTABLES,
				    gw_conf_mss(&gw.conf), text, sizeof(text));
		if (ret < 0) {
			fprintf(stderr, "l3bondd: too many rules\n");
			return 1;
		}
		fputs(text, stdout);
		return 0;
	}
	gw.log_level = gw.verbose ? CONF_LOG_DEBUG : gw.conf.log_level;
	if (gw.ctl_path_opt) {
		strcpy(gw.conf.control_socket, gw.ctl_path_opt);
	}

	gw.loop = ev_default_loop(EVFLAG_AUTO);
	if (!gw.loop) {
		gw_err(&gw, "cannot create the event loop");
		return 1;
	}
	/* a vanished peer of a pipe must not kill us */
	signal(SIGPIPE, SIG_IGN);
	ret = start(&gw, argv[0]);
	if (!ret) {
		gw.start_ms = (uint32_t)((gw_now_us() - gw.main_us) / 1000);
		gw_info(&gw, "ready in %u ms", gw.start_ms);
		gw_notify("READY=1");
		gw_worker_ready(&gw);
		ev_run(gw.loop, 0);
	}
	stop(&gw);
	ev_loop_destroy(gw.loop);
	if (ret) {
		gw_err(&gw, "start failed: %s", strerror(-ret));
		return 1;
	}
	gw_info(&gw, "stopped");
	return 0;
}
