/* SPDX-License-Identifier: BSD-2-Clause */
/* Traffic profiles; see profile.h for the exact curves. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/profile.h"

enum {
	RAMP_STEPS = 75, /* 15 s in 200 ms steps */
	RAMP_STEP_US = 200000,
	CONST_DEFAULT_S = 40,
	FILE_MAX_FLOWS = 4096,
};

struct flow {
	uint64_t start_us;
	uint64_t stop_us;
	double bps;
};

/* The built-in multi-flow schedule (see profile.h). */
static const struct flow paper_flows[] = {
	{0, 70000000, 45e6},	    {5000000, 12000000, 30e6},
	{20000000, 35000000, 25e6}, {27000000, 42000000, 15e6},
	{50000000, 60000000, 40e6},
};

static int alloc_steps(struct sim_profile *p, uint32_t n)
{
	p->step = calloc(n, sizeof(*p->step));
	if (!p->step) {
		return -ENOMEM;
	}
	p->n = 0;
	return 0;
}

static void add_step(struct sim_profile *p, uint64_t t_us, double bps)
{
	/* merge equal neighbours; a later step at the same time wins */
	if (p->n > 0 && p->step[p->n - 1].t_us == t_us) {
		p->step[p->n - 1].bps = bps;
		if (p->n > 1 && p->step[p->n - 2].bps == bps) {
			p->n--;
		}
		return;
	}
	if (p->n > 0 && p->step[p->n - 1].bps == bps) {
		return;
	}
	p->step[p->n].t_us = t_us;
	p->step[p->n].bps = bps;
	p->n++;
}

static int build_ramp(struct sim_profile *p)
{
	const double lo = 63e6, hi = 105e6;
	int ret, s;

	ret = alloc_steps(p, 2 * RAMP_STEPS + 1);
	if (ret) {
		return ret;
	}
	for (s = 0; s < RAMP_STEPS; s++) {
		add_step(p, (uint64_t)s * RAMP_STEP_US,
			 lo * pow(hi / lo, (double)s / RAMP_STEPS));
	}
	add_step(p, 15000000, hi);
	for (s = 0; s < RAMP_STEPS; s++) {
		add_step(p, 25000000 + (uint64_t)s * RAMP_STEP_US,
			 hi * pow(lo / hi, (double)(s + 1) / RAMP_STEPS));
	}
	p->end_us = 40000000;
	snprintf(p->name, sizeof(p->name), "ramp");
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int build_flows(struct sim_profile *p, const struct flow *f, uint32_t nf)
{
	uint64_t *t;
	uint32_t i, j, nt = 0;
	int ret;

	t = calloc(2 * (size_t)nf + 1, sizeof(*t));
	if (!t) {
		return -ENOMEM;
	}
	t[nt++] = 0;
	p->end_us = 0;
	for (i = 0; i < nf; i++) {
		t[nt++] = f[i].start_us;
		t[nt++] = f[i].stop_us;
		if (f[i].stop_us > p->end_us) {
			p->end_us = f[i].stop_us;
		}
	}
	qsort(t, nt, sizeof(*t), cmp_u64);
	ret = alloc_steps(p, nt);
	if (ret) {
		free(t);
		return ret;
	}
	for (i = 0; i < nt; i++) {
		double bps = 0;

		if (t[i] >= p->end_us) {
			break;
		}
		for (j = 0; j < nf; j++) {
			if (f[j].start_us <= t[i] && t[i] < f[j].stop_us) {
				bps += f[j].bps;
			}
		}
		add_step(p, t[i], bps);
	}
	if (p->n == 0) {
		add_step(p, 0, 0);
	}
	free(t);
	return 0;
}

static int parse_num(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (end == s || *end != '\0' || errno || !isfinite(*v)) {
		return -EINVAL;
	}
	return 0;
}

static int parse_const(struct sim_profile *p, const char *arg, char *err,
		       size_t errlen)
{
	char buf[64];
	char *colon;
	double mbit, secs = CONST_DEFAULT_S;
	struct flow f;

	if (strlen(arg) >= sizeof(buf)) {
		snprintf(err, errlen, "bad value 'const:%s': too long", arg);
		return -EINVAL;
	}
	strcpy(buf, arg);
	colon = strchr(buf, ':');
	if (colon) {
		*colon = '\0';
		if (parse_num(colon + 1, &secs) || secs <= 0 || secs > 1e6) {
			snprintf(err, errlen,
				 "bad value 'const:%s': duration must be "
				 "seconds in (0, 1e6]",
				 arg);
			return -EINVAL;
		}
	}
	if (parse_num(buf, &mbit) || mbit <= 0 || mbit > 1e5) {
		snprintf(err, errlen,
			 "bad value 'const:%s': rate must be Mbit/s in "
			 "(0, 100000]",
			 arg);
		return -EINVAL;
	}
	f.start_us = 0;
	f.stop_us = (uint64_t)llround(secs * 1e6);
	f.bps = mbit * 1e6;
	snprintf(p->name, sizeof(p->name), "const:%g:%g", mbit, secs);
	return build_flows(p, &f, 1);
}

static int parse_file(struct sim_profile *p, const char *path, char *err,
		      size_t errlen)
{
	struct flow *f;
	char line[256];
	unsigned lineno = 0, nf = 0;
	FILE *fp;
	int ret = 0;

	fp = fopen(path, "r");
	if (!fp) {
		ret = -errno;
		snprintf(err, errlen, "bad value 'file:%s': %s", path,
			 strerror(errno));
		return ret;
	}
	f = calloc(FILE_MAX_FLOWS, sizeof(*f));
	if (!f) {
		ret = -ENOMEM;
		goto close_file;
	}
	while (fgets(line, sizeof(line), fp)) {
		double a, b, r;
		char extra;
		char *hash = strchr(line, '#');
		int got;

		lineno++;
		if (hash) {
			*hash = '\0';
		}
		got = sscanf(line, "%lf %lf %lf %c", &a, &b, &r, &extra);
		if (got == EOF) {
			continue;
		}
		if (got != 3 || !isfinite(a) || !isfinite(b) || !isfinite(r) ||
		    a < 0 || b <= a || b > 1e6 || r < 0 || r > 1e5) {
			snprintf(err, errlen,
				 "%s:%u: bad flow '%.60s': want START_S STOP_S "
				 "RATE_MBIT with 0 <= START < STOP <= 1e6, "
				 "0 <= RATE <= 1e5",
				 path, lineno, strtok(line, "\n"));
			ret = -EINVAL;
			goto free_flows;
		}
		if (nf == FILE_MAX_FLOWS) {
			snprintf(err, errlen, "%s:%u: more than %d flows", path,
				 lineno, FILE_MAX_FLOWS);
			ret = -EINVAL;
			goto free_flows;
		}
		f[nf].start_us = (uint64_t)llround(a * 1e6);
		f[nf].stop_us = (uint64_t)llround(b * 1e6);
		f[nf].bps = r * 1e6;
		nf++;
	}
	if (nf == 0) {
		snprintf(err, errlen, "%s: no flows", path);
		ret = -EINVAL;
		goto free_flows;
	}
	ret = build_flows(p, f, nf);
	snprintf(p->name, sizeof(p->name), "file:%.50s", path);
free_flows:
	free(f);
close_file:
	fclose(fp);
	return ret;
}

int sim_profile_parse(struct sim_profile *p, const char *spec, char *err,
		      size_t errlen)
{
	int ret;

	memset(p, 0, sizeof(*p));
	if (strcmp(spec, "ramp") == 0) {
		ret = build_ramp(p);
	} else if (strcmp(spec, "flows") == 0) {
		ret = build_flows(p, paper_flows,
				  sizeof(paper_flows) / sizeof(paper_flows[0]));
		snprintf(p->name, sizeof(p->name), "flows");
	} else if (strncmp(spec, "const:", 6) == 0) {
		ret = parse_const(p, spec + 6, err, errlen);
	} else if (strncmp(spec, "file:", 5) == 0) {
		ret = parse_file(p, spec + 5, err, errlen);
	} else {
		snprintf(err, errlen,
			 "bad value '%s': want const:RATE_MBIT[:SECONDS], "
			 "ramp, flows or file:PATH",
			 spec);
		return -EINVAL;
	}
	if (ret == -ENOMEM) {
		snprintf(err, errlen, "out of memory");
	}
	if (ret) {
		sim_profile_free(p);
	}
	return ret;
}

void sim_profile_free(struct sim_profile *p)
{
	free(p->step);
	p->step = NULL;
	p->n = 0;
}

double sim_profile_rate(const struct sim_profile *p, uint64_t t_us,
			uint64_t *next_us)
{
	uint32_t lo = 0, hi = p->n;

	*next_us = p->end_us;
	if (t_us >= p->end_us || p->n == 0) {
		return 0;
	}
	/* last step with t_us <= t */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->step[mid].t_us <= t_us) {
			lo = mid;
		} else {
			hi = mid;
		}
	}
	if (lo + 1 < p->n && p->step[lo + 1].t_us < p->end_us) {
		*next_us = p->step[lo + 1].t_us;
	}
	return p->step[lo].bps;
}
