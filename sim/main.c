/* SPDX-License-Identifier: BSD-2-Clause */
/* l3bond-sim: command line and wiring.
 *
 * Flags are read in two passes: first the ones that decide the set of paths
 * (-c FILE, --path), then everything else, so that per-path flags
 * (--dsl-rate, --at lte:...) can name any path whatever its position on the
 * command line.  Every bad flag ends the program with exit status 2 and a
 * message naming the flag and quoting the value.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "sim/sim.h"

struct cli {
	struct sim_cfg c;
	const char *profile;
	const char *csv;
	const char *sweep;
	const char *sweep_out;
	bool tsv;
	bool report_path_set;
};

/* The tunables are the config's keys marked CONF_KEY_SIM (common/
 * conf_keys.c): the same names, ranges and defaults as in the file, set
 * through conf_set_any, so that the simulator cannot take a value the
 * daemon would refuse.  --capacity: the flag's name before it was the
 * key's. */
static const char *sim_key(const char *flag)
{
	static char key[48];
	const struct conf_key_info *k;
	size_t i;

	if (strncmp(flag, "--", 2) || strlen(flag + 2) >= sizeof(key)) {
		return NULL;
	}
	if (!strcmp(flag, "--capacity")) {
		return "reorder_capacity";
	}
	for (i = 0; flag[2 + i]; i++) {
		key[i] = flag[2 + i] == '-' ? '_' : flag[2 + i];
	}
	key[i] = '\0';
	k = conf_key_find(CONF_TOP, key);
	if (k && k->alias_of) {
		k = conf_key_find(CONF_TOP, k->alias_of); /* an old name */
	}
	return k && (k->flags & CONF_KEY_SIM) ? key : NULL;
}

static void tunables_usage(FILE *f)
{
	const struct conf_key_info *k;
	char flag[48], range[48];
	size_t i, j;

	for (i = 0; (k = conf_key(i)); i++) {
		if (k->group != CONF_TOP || !(k->flags & CONF_KEY_SIM)) {
			continue;
		}
		for (j = 0; k->name[j] && j + 1 < sizeof(flag); j++) {
			flag[j] = k->name[j] == '_' ? '-' : k->name[j];
		}
		flag[j] = '\0';
		conf_key_range(k, range, sizeof(range));
		fprintf(f, "  --%-20s%s\n%24s%s%s(default %s)\n", flag, k->help,
			"", range, range[0] ? " " : "", k->def ? k->def : "-");
	}
	fprintf(f, "  --capacity N          the same as --reorder-capacity\n");
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: l3bond-sim [-c FILE] [options]\n"
		"       l3bond-sim --sweep paper [--format text|tsv] "
		"[--sweep-out DIR] [options]\n"
		"\n"
		"Simulates one direction of an l3bond pair with the daemon's "
		"scheduler and egress.\n"
		"\n"
		"traffic:\n"
		"  --profile SPEC        const:RATE_MBIT[:SECONDS] | ramp | "
		"flows "
		"| file:PATH (ramp)\n"
		"  --pkt-size BYTES      inner packet size (1492)\n"
		"  --overhead 0|1        links also carry %d bytes of tunnel "
		"overhead per packet (1)\n"
		"tunables (the keys of l3bond.conf, '_' as '-', checked as "
		"there):\n"
		"  -c FILE               read tunables and paths from an "
		"l3bond.conf first\n",
		WIRE_OVERHEAD);
	tunables_usage(f);
	fprintf(f,
		"paths (default: dsl fixed 64 Mbit/s 13 ms, lte mobile 60 "
		"Mbit/s "
		"25 ms + 0..20 ms jitter):\n"
		"  --path NAME:fixed|mobile|backup[:RATE_MBIT:DELAY_MS:JITTER_MS:"
		"BUFFER_MS[:LOSS]]\n"
		"                        the first --path replaces the default "
		"set\n"
		"  --NAME-rate MBIT  --NAME-delay-ms MS  --NAME-jitter-ms MS\n"
		"  --NAME-buffer-ms MS  --NAME-loss P\n"
		"  --NAME-jitter-period-ms MS  jitter wanders to a new target "
		"every MS\n"
		"                        (0: drawn per packet; lte default 100)\n"
		"  --NAME-pace-mbit MBIT the path's rate_mbit: the scheduler "
		"paces it (0: not)\n"
		"  --at NAME:SECONDS:down|up|rate=MBIT   link schedule "
		"(repeatable)\n"
		"  --detect-ms MS        tell the core a path went down/up MS "
		"later (0: never)\n"
		"  --cut NAME@T_MS+DUR_MS  the path is down for DUR_MS from "
		"T_MS; the\n"
		"                        summary gives the cut's outage, loss "
		"and recovery\n"
		"  --failover 0|1        detect from the reports and probes, "
		"send what was\n"
		"                        in flight again (issue 14; 0)\n"
		"reports:\n"
		"  --report-path NAME    reports take this path's one-way "
		"delay "
		"(first fixed)\n"
		"  --report-delay-ms MS  or this delay\n"
		"  --report-loss P       report loss probability (0)\n"
		"run:\n"
		"  --seed N (1)  --csv FILE (per-100-ms CSV)\n"
		"  --sweep paper  --sweep-out DIR  --format text|tsv\n");
}

static void bad(const char *flag, const char *val, const char *why)
{
	fprintf(stderr, "l3bond-sim: %s: bad value '%s': %s\n", flag, val, why);
	exit(2);
}

static double num(const char *flag, const char *val, double min, double max)
{
	char why[96];
	char *end;
	double v;

	errno = 0;
	v = strtod(val, &end);
	if (end == val || *end != '\0' || errno || !isfinite(v)) {
		bad(flag, val, "not a number");
	}
	if (v < min || v > max) {
		snprintf(why, sizeof(why), "must be in [%g, %g]", min, max);
		bad(flag, val, why);
	}
	return v;
}

static uint64_t integer(const char *flag, const char *val, uint64_t min,
			uint64_t max)
{
	char why[96];
	char *end;
	unsigned long long v;

	errno = 0;
	if (val[0] == '-' || val[0] == '+' || val[0] == '\0') {
		bad(flag, val, "not a non-negative integer");
	}
	v = strtoull(val, &end, 10);
	if (*end != '\0' || errno) {
		bad(flag, val, "not a non-negative integer");
	}
	if (v < min || v > max) {
		snprintf(why, sizeof(why), "must be in [%llu, %llu]",
			 (unsigned long long)min, (unsigned long long)max);
		bad(flag, val, why);
	}
	return v;
}

static bool boolean(const char *flag, const char *val)
{
	if (strcmp(val, "0") == 0) {
		return false;
	}
	if (strcmp(val, "1") == 0) {
		return true;
	}
	bad(flag, val, "must be 0 or 1");
	return false;
}

/* Milliseconds (fractions allowed) to microseconds. */
static uint32_t ms_us(const char *flag, const char *val, double min_ms,
		      double max_ms)
{
	return (uint32_t)llround(num(flag, val, min_ms, max_ms) * 1000);
}

static int path_index(const struct sim_cfg *c, const char *name, size_t len)
{
	unsigned i;

	for (i = 0; i < c->npaths; i++) {
		if (strlen(c->path[i].name) == len &&
		    strncmp(c->path[i].name, name, len) == 0) {
			return (int)i;
		}
	}
	return -1;
}

static void path_defaults(struct sim_link_cfg *p, const char *name,
			  enum path_class cls)
{
	struct sim_cfg d;

	sim_cfg_defaults(&d);
	/* a backup path has the mobile one's link */
	*p = d.path[cls == PATH_FIXED ? 0 : 1];
	p->cls = cls;
	snprintf(p->name, sizeof(p->name), "%s", name);
}

static bool good_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len >= SIM_NAME_MAX) {
		return false;
	}
	for (i = 0; i < len; i++) {
		char ch = s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
		      ch == '_' || ch == '-')) {
			return false;
		}
	}
	return true;
}

/* --path NAME:CLASS[:RATE:DELAY:JITTER:BUFFER[:LOSS]] */
static void parse_path(struct cli *cl, const char *flag, const char *val,
		       bool first)
{
	struct sim_cfg *c = &cl->c;
	struct sim_link_cfg p;
	char buf[256], name[SIM_NAME_MAX];
	char *tok[8], *save = NULL, *s;
	unsigned cls;
	int n = 0;

	if (strlen(val) >= sizeof(buf)) {
		bad(flag, val, "too long");
	}
	strcpy(buf, val);
	for (s = strtok_r(buf, ":", &save); s && n < 8;
	     s = strtok_r(NULL, ":", &save)) {
		tok[n++] = s;
	}
	if (s || (n != 2 && n != 6 && n != 7)) {
		bad(flag, val,
		    "want NAME:fixed|mobile|backup[:RATE_MBIT:DELAY_MS:JITTER_MS:"
		    "BUFFER_MS[:LOSS]]");
	}
	if (!good_name(tok[0], strlen(tok[0]))) {
		bad(flag, val, "path name must be 1-15 of [a-z0-9_-]");
	}
	for (cls = 0; cls < PATH_NCLASS &&
		      strcmp(tok[1], conf_class_name((enum path_class)cls));
	     cls++) {
	}
	if (cls == PATH_NCLASS) {
		bad(flag, val, "class must be fixed, mobile or backup");
		return;
	}
	if (first) {
		c->npaths = 0;
	}
	if (path_index(c, tok[0], strlen(tok[0])) >= 0) {
		bad(flag, val, "path defined twice");
	}
	if (c->npaths == WIRE_MAX_PATHS) {
		bad(flag, val, "too many paths (16 at most)");
	}
	snprintf(name, sizeof(name), "%s", tok[0]);
	path_defaults(&p, name, (enum path_class)cls);
	if (n >= 6) {
		p.rate_bps = num(flag, tok[2], 0.001, 1e5) * 1e6;
		p.delay_us = ms_us(flag, tok[3], 0, 10000);
		p.jitter_us = ms_us(flag, tok[4], 0, 10000);
		p.buffer_us = ms_us(flag, tok[5], 0, 10000);
	}
	if (n == 7) {
		p.loss = num(flag, tok[6], 0, 1);
	}
	c->path[c->npaths++] = p;
}

static void load_conf(struct cli *cl, const char *flag, const char *file)
{
	struct sim_cfg *c = &cl->c;
	struct conf cf;
	char err[CONF_ERR_MAX];
	unsigned i;
	int ret;

	conf_defaults(&cf);
	ret = conf_load(&cf, file, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "l3bond-sim: %s: %s\n", flag, err);
		exit(2);
	}
	c->sched = cf.sched;
	c->reseq = cf.reseq;
	c->npaths = cf.npaths; /* 2 or more: conf_load checked it */
	for (i = 0; i < cf.npaths; i++) {
		path_defaults(&c->path[i], cf.path[i].name, cf.path[i].cls);
		c->path[i].pace_kbps = cf.path[i].rate_kbps;
	}
	conf_free(&cf);
}

/* Per-path flags: --NAME-ATTR VALUE.  Returns false if flag is none. */
static bool path_flag(struct cli *cl, const char *flag, const char *val)
{
	static const char *const attrs[] = {"-rate",	  "-delay-ms",
					    "-jitter-ms", "-buffer-ms",
					    "-loss",	  "-jitter-period-ms",
					    "-pace-mbit"};
	struct sim_cfg *c = &cl->c;
	unsigned i, a;

	for (i = 0; i < c->npaths; i++) {
		struct sim_link_cfg *p = &c->path[i];
		size_t nl = strlen(p->name);

		if (strncmp(flag + 2, p->name, nl) != 0) {
			continue;
		}
		for (a = 0; a < sizeof(attrs) / sizeof(attrs[0]); a++) {
			if (strcmp(flag + 2 + nl, attrs[a]) != 0) {
				continue;
			}
			switch (a) {
			case 0:
				p->rate_bps = num(flag, val, 0.001, 1e5) * 1e6;
				break;
			case 1:
				p->delay_us = ms_us(flag, val, 0, 10000);
				break;
			case 2:
				p->jitter_us = ms_us(flag, val, 0, 10000);
				break;
			case 3:
				p->buffer_us = ms_us(flag, val, 0, 10000);
				break;
			case 4:
				p->loss = num(flag, val, 0, 1);
				break;
			case 5:
				p->jitter_period_us = ms_us(flag, val, 0, 10000);
				break;
			case 6:
				p->pace_kbps = (uint32_t)(num(flag, val, 0, 1e5) *
							  1000);
				break;
			}
			return true;
		}
	}
	return false;
}

/* --cut NAME@T_MS+DUR_MS: two link schedule entries, and the cut to
 * measure. */
static void parse_cut(struct cli *cl, const char *flag, const char *val)
{
	struct sim_cfg *c = &cl->c;
	const char *at = strchr(val, '@');
	const char *plus = at ? strchr(at + 1, '+') : NULL;
	char t[32];
	int path;

	if (!at || !plus || (size_t)(plus - at - 1) >= sizeof(t)) {
		bad(flag, val, "want NAME@T_MS+DUR_MS");
		return;
	}
	path = path_index(c, val, (size_t)(at - val));
	if (path < 0) {
		bad(flag, val, "no such path");
	}
	if (c->cut.on) {
		bad(flag, val, "one --cut at most");
	}
	if (c->nat + 2 > SIM_MAX_AT) {
		bad(flag, val, "too many --at entries (256 at most)");
	}
	memcpy(t, at + 1, (size_t)(plus - at - 1));
	t[plus - at - 1] = '\0';
	c->cut.on = true;
	c->cut.path = (unsigned)path;
	c->cut.t_us = ms_us(flag, t, 0, 3600000);
	c->cut.dur_us = ms_us(flag, plus + 1, 1, 3600000);
	c->at[c->nat++] = (struct sim_at){.t_us = c->cut.t_us,
					  .path = (unsigned)path,
					  .action = SIM_AT_DOWN};
	c->at[c->nat++] = (struct sim_at){.t_us = c->cut.t_us + c->cut.dur_us,
					  .path = (unsigned)path,
					  .action = SIM_AT_UP};
}

/* --at NAME:SECONDS:down|up|rate=MBIT */
static void parse_at(struct cli *cl, const char *flag, const char *val)
{
	struct sim_cfg *c = &cl->c;
	struct sim_at *a;
	const char *c1 = strchr(val, ':');
	const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	char secs[64];
	int path;

	if (!c1 || !c2 || (size_t)(c2 - c1 - 1) >= sizeof(secs)) {
		bad(flag, val, "want NAME:SECONDS:down|up|rate=MBIT");
		return;
	}
	path = path_index(c, val, (size_t)(c1 - val));
	if (path < 0) {
		bad(flag, val, "no such path");
	}
	if (c->nat == SIM_MAX_AT) {
		bad(flag, val, "too many --at entries (256 at most)");
	}
	a = &c->at[c->nat];
	memcpy(secs, c1 + 1, (size_t)(c2 - c1 - 1));
	secs[c2 - c1 - 1] = '\0';
	a->t_us = (uint64_t)llround(num(flag, secs, 0, 1e6) * 1e6);
	a->path = (unsigned)path;
	if (strcmp(c2 + 1, "down") == 0) {
		a->action = SIM_AT_DOWN;
	} else if (strcmp(c2 + 1, "up") == 0) {
		a->action = SIM_AT_UP;
	} else if (strncmp(c2 + 1, "rate=", 5) == 0) {
		a->action = SIM_AT_RATE;
		a->rate_bps = num(flag, c2 + 6, 0.001, 1e5) * 1e6;
	} else {
		bad(flag, val, "action must be down, up or rate=MBIT");
	}
	c->nat++;
}

/* One tunable: the key's own parser and range, as l3bondctl set.  The
 * keys that depend on each other are checked once all flags are read
 * (parse_args). */
static void tunable(struct sim_cfg *c, const char *flag, const char *key,
		    const char *val)
{
	const struct conf_key_info *k = conf_key_find(CONF_TOP, key);
	char err[CONF_ERR_MAX];
	const char *v = val;
	struct conf t;

	if (k->alias_of) {
		k = conf_key_find(CONF_TOP, k->alias_of);
	}
	/* a boolean flag took 0 and 1 before it was the key's */
	if (k->def && (!strcmp(k->def, "true") || !strcmp(k->def, "false"))) {
		if (!strcmp(val, "1")) {
			v = "true";
		} else if (!strcmp(val, "0")) {
			v = "false";
		}
	}
	conf_defaults(&t);
	t.sched = c->sched;
	t.reseq = c->reseq;
	if (conf_set_any(&t, key, v, err, sizeof(err))) {
		/* "key: bad value 'v': why" -> the flag's name */
		fprintf(stderr, "l3bond-sim: %s: %s\n", flag,
			strncmp(err, key, strlen(key)) ? err
						       : err + strlen(key) + 2);
		exit(2);
	}
	c->sched = t.sched;
	c->reseq = t.reseq;
}

static void parse_flag(struct cli *cl, const char *flag, const char *val)
{
	struct sim_cfg *c = &cl->c;

	if (strcmp(flag, "-c") == 0 || strcmp(flag, "--conf") == 0 ||
	    strcmp(flag, "--path") == 0) {
		return; /* first pass */
	} else if (strcmp(flag, "--profile") == 0) {
		cl->profile = val;
	} else if (strcmp(flag, "--pkt-size") == 0) {
		c->pkt_size = (uint32_t)integer(flag, val, WIRE_MIN_INNER,
						WIRE_MAX_INNER);
	} else if (strcmp(flag, "--overhead") == 0) {
		c->overhead = boolean(flag, val);
	} else if (sim_key(flag)) {
		tunable(c, flag, sim_key(flag), val);
	} else if (strcmp(flag, "--seed") == 0) {
		c->seed = integer(flag, val, 0, UINT64_MAX);
	} else if (strcmp(flag, "--at") == 0) {
		parse_at(cl, flag, val);
	} else if (strcmp(flag, "--detect-ms") == 0) {
		c->detect_us = ms_us(flag, val, 0, 60000);
	} else if (strcmp(flag, "--cut") == 0) {
		parse_cut(cl, flag, val);
	} else if (strcmp(flag, "--failover") == 0) {
		c->failover = boolean(flag, val);
	} else if (strcmp(flag, "--report-path") == 0) {
		int p = path_index(c, val, strlen(val));

		if (p < 0) {
			bad(flag, val, "no such path");
		}
		c->report_path = (unsigned)p;
		cl->report_path_set = true;
	} else if (strcmp(flag, "--report-delay-ms") == 0) {
		c->report_delay_us = ms_us(flag, val, 0, 60000);
	} else if (strcmp(flag, "--report-loss") == 0) {
		c->report_loss = num(flag, val, 0, 1);
	} else if (strcmp(flag, "--csv") == 0) {
		cl->csv = val;
	} else if (strcmp(flag, "--sweep") == 0) {
		if (strcmp(val, "paper") != 0) {
			bad(flag, val, "the only sweep is 'paper'");
		}
		cl->sweep = val;
	} else if (strcmp(flag, "--sweep-out") == 0) {
		cl->sweep_out = val;
	} else if (strcmp(flag, "--format") == 0) {
		if (strcmp(val, "tsv") == 0) {
			cl->tsv = true;
		} else if (strcmp(val, "text") == 0) {
			cl->tsv = false;
		} else {
			bad(flag, val, "must be text or tsv");
		}
	} else if (strncmp(flag, "--", 2) != 0 || !path_flag(cl, flag, val)) {
		fprintf(stderr, "l3bond-sim: unknown flag '%s' (try --help)\n",
			flag);
		exit(2);
	}
}

/* Splits argv[*i] into flag and value ("--f v" or "--f=v"). */
static void next_flag(int argc, char **argv, int *i, char *flag, size_t cap,
		      const char **val)
{
	const char *a = argv[*i];
	const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;

	if (a[0] != '-') {
		fprintf(stderr, "l3bond-sim: unexpected argument '%s'\n", a);
		exit(2);
	}
	if (eq) {
		snprintf(flag, cap, "%.*s", (int)(eq - a), a);
		*val = eq + 1;
		return;
	}
	snprintf(flag, cap, "%s", a);
	if (*i + 1 >= argc) {
		fprintf(stderr, "l3bond-sim: %s: missing value\n", a);
		exit(2);
	}
	*val = argv[++*i];
}

static void parse_args(struct cli *cl, int argc, char **argv)
{
	struct sim_cfg *c = &cl->c;
	char flag[64];
	const char *val;
	bool first_path = true;
	int i, pass;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			exit(0);
		}
	}
	/* pass 0: -c; pass 1: --path; pass 2: the rest */
	for (pass = 0; pass < 3; pass++) {
		for (i = 1; i < argc; i++) {
			next_flag(argc, argv, &i, flag, sizeof(flag), &val);
			if (pass == 0 && (strcmp(flag, "-c") == 0 ||
					  strcmp(flag, "--conf") == 0)) {
				load_conf(cl, flag, val);
			} else if (pass == 1 && strcmp(flag, "--path") == 0) {
				parse_path(cl, flag, val, first_path);
				first_path = false;
			} else if (pass == 2) {
				parse_flag(cl, flag, val);
			}
		}
	}
	if (c->sched.t_dwd_ms % c->sched.t_report_ms != 0) {
		char v[32];

		snprintf(v, sizeof(v), "%u", c->sched.t_dwd_ms);
		bad("--t-dwd-ms", v, "must be a multiple of --t-report-ms");
	}
	if (cl->sweep && cl->profile) {
		bad("--profile", cl->profile,
		    "--sweep paper always runs the ramp");
	}
	if (!cl->sweep && (cl->sweep_out || cl->tsv)) {
		bad(cl->sweep_out ? "--sweep-out" : "--format",
		    cl->sweep_out ? cl->sweep_out : "tsv",
		    "only with --sweep paper");
	}
	if (!cl->report_path_set) {
		unsigned p;

		c->report_path = 0;
		for (p = c->npaths; p-- > 0;) {
			if (c->path[p].cls == PATH_FIXED) {
				c->report_path = p;
			}
		}
	}
}

static int run_one(struct cli *cl)
{
	struct sim_cfg *c = &cl->c;
	struct sim_result res;
	char err[512];
	FILE *csv = NULL;
	int ret;

	ret = sim_profile_parse(&c->profile, cl->profile ? cl->profile : "ramp",
				err, sizeof(err));
	if (ret) {
		fprintf(stderr, "l3bond-sim: --profile: %s\n", err);
		return 2;
	}
	if (cl->csv) {
		csv = fopen(cl->csv, "w");
		if (!csv) {
			fprintf(stderr,
				"l3bond-sim: --csv: bad value '%s': %s\n",
				cl->csv, strerror(errno));
			sim_profile_free(&c->profile);
			return 2;
		}
	}
	ret = sim_run(c, csv, &res);
	if (csv && fclose(csv) && !ret) {
		fprintf(stderr, "l3bond-sim: --csv: %s: %s\n", cl->csv,
			strerror(errno));
		ret = -EIO;
	}
	sim_profile_free(&c->profile);
	if (ret == -EINVAL) {
		fprintf(stderr, "l3bond-sim: the core rejected the tunables\n");
		return 2;
	}
	if (ret) {
		fprintf(stderr, "l3bond-sim: %s\n", strerror(-ret));
		return 1;
	}
	sim_print_summary(stdout, c, &res);
	return 0;
}

int main(int argc, char **argv)
{
	struct cli cl;

	memset(&cl, 0, sizeof(cl));
	sim_cfg_defaults(&cl.c);
	parse_args(&cl, argc, argv);
	if (cl.sweep) {
		return sim_sweep_paper(&cl.c, cl.tsv, cl.sweep_out) ? 1 : 0;
	}
	return run_one(&cl);
}
