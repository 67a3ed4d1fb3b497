/* SPDX-License-Identifier: BSD-2-Clause */
/* fuzz_conf_set: a sequence of conf_set() calls on a valid config.
 *
 * The input is up to MAX_OPS operations "key=value" separated by NUL bytes
 * (so that keys and values can hold any other byte, newlines too).  Each is
 * applied to the same struct conf, which starts as a valid CPE config.
 * After each one:
 *   - error: -EINVAL, the struct untouched, err one line that starts with
 *     the key (control characters shown as '?') and ": ";
 *   - success: the key is a runtime one, only its field changed, the whole
 *     struct still satisfies every rule of conf.h (fuzz_check_conf()), and
 *     writing the new value back as text sets the same value (round trip);
 *   - a plain value that the contract accepts (a decimal integer in the
 *     key's range, t_dwd_ms staying a multiple of t_report_ms; a decimal
 *     k in 0..10; true/false; a level name) must succeed with that value;
 *   - an integer literal of any length outside the key's range, and any
 *     key that is not a runtime one, must fail.
 * The key table below is the contract's (conf.h, conf/cpe.conf), written
 * again here on purpose.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"

enum { MAX_OPS = 16, KEY_SHOWN = 47 /* conf.c's l->key */ };

enum kind { INT, NUMBER, BOOL, LEVEL };

struct rkey {
	const char *name;
	enum kind kind;
	long long min, max; /* INT, NUMBER */
	uint32_t scale;	    /* INT: stored value per unit written */
};

static const struct rkey rkeys[] = {
	{"k", NUMBER, 0, 10, 1},
	{"t_dwd_ms", INT, 0, 60000, 1},
	{"t_report_ms", INT, 10, 10000, 1},
	{"w_fixed", INT, 1, 1000, 1},
	{"w_mobile_max", INT, 0, 1000, 1},
	{"t_lto_ms", INT, 1, 10000, 1000},
	{"queue_target_ms", INT, 0, 1000, 1000},
	{"dwd_hold_ms", INT, 0, 1000, 1000}, /* its former name */
	{"rate_auto", BOOL, 0, 0, 0},
	{"mobile_aqm_ms", INT, 0, 1000, 1000},
	{"early_release", BOOL, 0, 0, 0},
	{"log_level", LEVEL, 0, 0, 0},
	{"probe_interval_ms", INT, 20, 1000, 1},
	{"dead_after_ms", INT, 100, 10000, 1},
	{"idle_probe_ms", INT, 1000, 300000, 1},
	{"release_mark", INT, 0, UINT32_MAX, 1},
};

static const char *const levels[] = {"error", "warning", "info", "debug"};

/* The key's value in c, as a double (every runtime value fits one). */
static double get(const struct conf *c, const struct rkey *k)
{
	const char *n = k->name;

	if (!strcmp(n, "k")) {
		return c->sched.k;
	} else if (!strcmp(n, "t_dwd_ms")) {
		return c->sched.t_dwd_ms;
	} else if (!strcmp(n, "t_report_ms")) {
		return c->sched.t_report_ms;
	} else if (!strcmp(n, "w_fixed")) {
		return c->sched.w_fixed;
	} else if (!strcmp(n, "w_mobile_max")) {
		return c->sched.w_mobile_max;
	} else if (!strcmp(n, "t_lto_ms")) {
		return c->reseq.t_lto_us;
	} else if (!strcmp(n, "queue_target_ms") ||
		   !strcmp(n, "dwd_hold_ms")) {
		return c->sched.queue_target_us;
	} else if (!strcmp(n, "rate_auto")) {
		return c->sched.rate_auto;
	} else if (!strcmp(n, "mobile_aqm_ms")) {
		return c->sched.mobile_aqm_us;
	} else if (!strcmp(n, "early_release")) {
		return c->reseq.early_release;
	} else if (!strcmp(n, "log_level")) {
		return c->log_level;
	} else if (!strcmp(n, "probe_interval_ms")) {
		return c->probe_interval_ms;
	} else if (!strcmp(n, "release_mark")) {
		return c->release_mark;
	} else if (!strcmp(n, "idle_probe_ms")) {
		return c->idle_probe_ms;
	}
	return c->dead_after_ms;
}

/* Copies the key's field from src to dst. */
static void copy_field(struct conf *dst, const struct conf *src,
		       const struct rkey *k)
{
	const char *n = k->name;

	if (!strcmp(n, "k")) {
		dst->sched.k = src->sched.k;
	} else if (!strcmp(n, "t_dwd_ms")) {
		dst->sched.t_dwd_ms = src->sched.t_dwd_ms;
	} else if (!strcmp(n, "t_report_ms")) {
		dst->sched.t_report_ms = src->sched.t_report_ms;
	} else if (!strcmp(n, "w_fixed")) {
		dst->sched.w_fixed = src->sched.w_fixed;
	} else if (!strcmp(n, "w_mobile_max")) {
		dst->sched.w_mobile_max = src->sched.w_mobile_max;
	} else if (!strcmp(n, "t_lto_ms")) {
		dst->reseq.t_lto_us = src->reseq.t_lto_us;
	} else if (!strcmp(n, "queue_target_ms") ||
		   !strcmp(n, "dwd_hold_ms")) {
		dst->sched.queue_target_us = src->sched.queue_target_us;
	} else if (!strcmp(n, "rate_auto")) {
		dst->sched.rate_auto = src->sched.rate_auto;
	} else if (!strcmp(n, "mobile_aqm_ms")) {
		dst->sched.mobile_aqm_us = src->sched.mobile_aqm_us;
	} else if (!strcmp(n, "early_release")) {
		dst->reseq.early_release = src->reseq.early_release;
	} else if (!strcmp(n, "log_level")) {
		dst->log_level = src->log_level;
	} else if (!strcmp(n, "probe_interval_ms")) {
		dst->probe_interval_ms = src->probe_interval_ms;
	} else if (!strcmp(n, "release_mark")) {
		dst->release_mark = src->release_mark;
	} else if (!strcmp(n, "idle_probe_ms")) {
		dst->idle_probe_ms = src->idle_probe_ms;
	} else {
		dst->dead_after_ms = src->dead_after_ms;
	}
}

/* The key's value in c as one would type it. */
static void show(const struct conf *c, const struct rkey *k, char *buf,
		 size_t n)
{
	double v = get(c, k);

	switch (k->kind) {
	case NUMBER:
		snprintf(buf, n, "%.17g", v);
		break;
	case INT:
		/* libconfig reads a decimal over INT32_MAX only with an L
		 * (conf refuses it without, saying so): hex it reads as the
		 * unsigned 32-bit value it is (release_mark up to 2^32 - 1) */
		if (v / k->scale > INT32_MAX) {
			snprintf(buf, n, "0x%llx",
				 (unsigned long long)(v / k->scale));
		} else {
			snprintf(buf, n, "%.0f", v / k->scale);
		}
		break;
	case BOOL:
		snprintf(buf, n, "%s", v ? "true" : "false");
		break;
	case LEVEL:
		snprintf(buf, n, "%s", levels[(int)v]);
		break;
	}
}

/* "0" or 1..9 digits without a leading zero. */
static bool plain_int(const char *v, long long *out)
{
	size_t n = strspn(v, "0123456789");

	if (!n || v[n] || n > 9 || (v[0] == '0' && n > 1)) {
		return false;
	}
	*out = strtoll(v, NULL, 10);
	return true;
}

/* "d", "dd" or that with ".ddd": an integer or a float literal that
 * libconfig reads with strtod. */
static bool plain_number(const char *v, double *out)
{
	size_t n = strspn(v, "0123456789");

	if (!n || n > 2 || (v[0] == '0' && n > 1) ||
	    (v[n] && (v[n] != '.' || !v[n + 1] ||
		      strspn(v + n + 1, "0123456789") != strlen(v + n + 1) ||
		      strlen(v + n + 1) > 6))) {
		return false;
	}
	*out = strtod(v, NULL);
	return true;
}

/* Must conf_set(before, k, v) succeed, and with which value (*want, as
 * get() gives it)? */
static bool must_accept(const struct conf *before, const struct rkey *k,
			const char *v, double *want)
{
	uint32_t dwd = before->sched.t_dwd_ms, rep = before->sched.t_report_ms;
	uint32_t probe = before->probe_interval_ms, dead = before->dead_after_ms;
	long long i;
	unsigned l;
	double d;

	switch (k->kind) {
	case INT:
		/* above INT32_MAX libconfig 1.5 needs an L: may be refused */
		if (!plain_int(v, &i) || i < k->min || i > k->max ||
		    i > INT32_MAX) {
			return false;
		}
		if (!strcmp(k->name, "t_dwd_ms")) {
			dwd = (uint32_t)i;
		} else if (!strcmp(k->name, "t_report_ms")) {
			rep = (uint32_t)i;
		} else if (!strcmp(k->name, "probe_interval_ms")) {
			probe = (uint32_t)i;
		} else if (!strcmp(k->name, "dead_after_ms")) {
			dead = (uint32_t)i;
		}
		*want = (double)(i * k->scale);
		return dwd % rep == 0 && dead >= 2 * probe;
	case NUMBER:
		if (!plain_number(v, &d) || d > k->max) {
			return false;
		}
		*want = d;
		return true;
	case BOOL:
		*want = !strcmp(v, "true");
		return *want || !strcmp(v, "false");
	case LEVEL:
		for (l = 0; l < 4; l++) {
			if (!strcmp(v, levels[l])) {
				*want = l;
				return true;
			}
		}
		return false;
	}
	return false;
}

/* Must conf_set(k, v) fail: v an integer literal, decimal or hex, of any
 * length, whose value is outside the key's range?  (libconfig 1.5 wraps
 * literals to 32 bits: 4294967496 would read as 200.) */
static bool must_refuse(const struct rkey *k, const char *v)
{
	const char *d = v + (*v == '-' || *v == '+');
	bool hex = d[0] == '0' && (d[1] == 'x' || d[1] == 'X');
	unsigned long long u;
	char *end;

	if (k->kind != INT && k->kind != NUMBER) {
		return false;
	}
	d += hex ? 2 : 0;
	if (!(hex ? isxdigit((unsigned char)*d) : isdigit((unsigned char)*d))) {
		return false;
	}
	errno = 0;
	u = strtoull(d, &end, hex ? 16 : 10);
	if (*end) {
		return false;
	}
	if (errno == ERANGE) {
		return true;
	}
	/* every range starts at 0 or above */
	return *v == '-' ? u > 0 : u > (unsigned long long)k->max;
}

static void check_error(const char *key, const char *err)
{
	size_t i;

	FUZZ_CHECK(err[0] && fuzz_one_line(err, CONF_ERR_MAX),
		   "not one line: '%s'", err);
	for (i = 0; key[i] && i < KEY_SHOWN; i++) {
		FUZZ_CHECK(err[i] == (iscntrl((unsigned char)key[i]) ? '?'
								     : key[i]),
			   "error '%s' does not start with the key", err);
	}
	FUZZ_CHECK(err[i] == ':' && err[i + 1] == ' ' && err[i + 2],
		   "error '%s' does not start with the key", err);
}

static void apply(struct conf *c, const char *key, const char *value)
{
	const struct rkey *k = NULL;
	struct conf before = *c, expect, again;
	char err[CONF_ERR_MAX], text[64];
	bool must, refuse;
	double want = 0;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(rkeys) / sizeof(rkeys[0]); i++) {
		if (!strcmp(key, rkeys[i].name)) {
			k = &rkeys[i];
		}
	}
	must = k && must_accept(&before, k, value, &want);
	refuse = !k || must_refuse(k, value);
	memset(err, 0x5a, sizeof(err));
	ret = conf_set(c, key, value, err, sizeof(err));
	if (ret) {
		FUZZ_CHECK(ret == -EINVAL, "conf_set gave %d", ret);
		FUZZ_CHECK(!memcmp(c, &before, sizeof(*c)),
			   "struct changed on error");
		check_error(key, err);
		FUZZ_CHECK(!must, "%s = '%s' refused: %s", key, value, err);
		return;
	}
	FUZZ_CHECK(!refuse, "%s = '%s' accepted: %.17g", key, value,
		   k ? get(c, k) : 0);
	fuzz_check_conf(c);
	expect = before;
	copy_field(&expect, c, k);
	FUZZ_CHECK(fuzz_conf_equal(&expect, c), "%s = '%s' changed more", key,
		   value);
	FUZZ_CHECK(!must || get(c, k) == want, "%s = '%s' gave %.17g", key,
		   value, get(c, k));

	show(c, k, text, sizeof(text));
	again = before;
	ret = conf_set(&again, key, text, err, sizeof(err));
	FUZZ_CHECK(!ret && fuzz_conf_equal(&again, c),
		   "%s = '%s' then '%s' does not set the same (%d %s)", key,
		   value, text, ret, ret ? err : "");
}

/* A valid CPE config with two paths and a key, everything else default. */
static void base(struct conf *c)
{
	unsigned i;

	conf_defaults(c);
	c->session_id = 1;
	for (i = 0; i < sizeof(c->psk.b); i++) {
		c->psk.b[i] = (uint8_t)(i + 1); /* a key, as conf_load gives */
	}
	c->npaths = 2;
	strcpy(c->path[0].name, "dsl");
	c->path[0].cls = PATH_FIXED;
	strcpy(c->path[0].ifname, "wan-dsl");
	strcpy(c->path[0].peers[0], "192.0.2.1");
	c->path[0].npeers = 1;
	strcpy(c->path[1].name, "lte");
	c->path[1].cls = PATH_MOBILE;
	strcpy(c->path[1].ifname, "wan-lte");
	strcpy(c->path[1].peers[0], "2001:db8::1");
	c->path[1].npeers = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *end = data + size, *op, *nul;
	char *key, *eq;
	struct conf c;
	size_t len;
	unsigned n;

	base(&c);
	fuzz_check_conf(&c);
	for (op = data, n = 0; op < end && n < MAX_OPS; n++) {
		nul = memchr(op, '\0', (size_t)(end - op));
		len = (size_t)((nul ? nul : end) - op);
		/* an exact-size copy: ASan sees any read past the value */
		key = malloc(len + 1);
		FUZZ_CHECK(key, "out of memory");
		memcpy(key, op, len);
		key[len] = '\0';
		eq = strchr(key, '=');
		if (eq) {
			*eq = '\0';
		}
		apply(&c, key, eq ? eq + 1 : key + len);
		free(key);
		op += len + 1;
	}
	return 0;
}
