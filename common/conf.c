/* SPDX-License-Identifier: BSD-2-Clause */
/* The configuration file: libconfig syntax, read into a validated struct conf.
 *
 * This file is the reader: errors, the typed getters, the walk over a
 * group of keys, the rules that tie keys together, conf_load.  The keys
 * themselves (names, ranges, defaults, how each takes effect, help) are
 * the table of conf_keys.c, each with one small parser; the CPEs of a
 * concentrator are conf_cpe.c, the traffic classes conf_class.c,
 * libconfig 1.5's integer wrap conf_compat.c,
 * l3bondctl's set conf_set.c (conf_priv.h says what they share).
 *
 * The walk goes through the table, so unknown keys, missing keys and the
 * per-key checks all go through conf_walk().  Rules that tie keys together
 * (t_dwd_ms a multiple of t_report_ms, peer against role, at least one
 * fixed path) are checked once all keys are read.
 *
 * Everything is built in a private struct conf and copied out only when the
 * whole file is valid: a failed reload leaves the running config as it was.
 * Every error is one line "file:line: key: bad value 'v': why".
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/conf_priv.h"

enum {
	/* keepalive_ms (deprecated): a path was down after this many */
	OLD_DEAD_KEEPALIVES = 3,
};

/* ---- errors ---------------------------------------------------------- */

/* The value of s as the user wrote it, on one line, for quoting. */
static const char *show(const config_setting_t *s, char *buf, size_t n)
{
	bool hex = config_setting_get_format(s) == CONFIG_FORMAT_HEX;
	const char *str;
	size_t i, len;

	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
		/* a hex int is a bit pattern: 0xffffffff, not -1 */
		if (hex) {
			snprintf(buf, n, "0x%x",
				 (unsigned)config_setting_get_int(s));
		} else {
			snprintf(buf, n, "%d", config_setting_get_int(s));
		}
		break;
	case CONFIG_TYPE_INT64:
		if (hex) {
			snprintf(buf, n, "0x%llx",
				 (unsigned long long)config_setting_get_int64(
					 s));
		} else {
			snprintf(buf, n, "%lld", config_setting_get_int64(s));
		}
		break;
	case CONFIG_TYPE_FLOAT:
		snprintf(buf, n, "%g", config_setting_get_float(s));
		break;
	case CONFIG_TYPE_BOOL:
		snprintf(buf, n, "%s",
			 config_setting_get_bool(s) ? "true" : "false");
		break;
	case CONFIG_TYPE_STRING:
		/* keep the error on one line whatever the string holds */
		str = config_setting_get_string(s);
		len = strlen(str);
		for (i = 0; i < len && i + 1 < n; i++) {
			buf[i] = iscntrl((unsigned char)str[i]) ? '?' : str[i];
		}
		buf[i] = '\0';
		break;
	case CONFIG_TYPE_GROUP:
		snprintf(buf, n, "{...}");
		break;
	case CONFIG_TYPE_LIST:
		len = (size_t)config_setting_length(s);
		snprintf(buf, n, "(%zu %s)", len,
			 len == 1 ? "entry" : "entries");
		break;
	case CONFIG_TYPE_ARRAY:
		snprintf(buf, n, "[...]");
		break;
	default:
		snprintf(buf, n, "?");
		break;
	}
	return buf;
}

/* Errors go to the log and, from conf_set, to l3bondctl's line-based
 * replies: a key or value typed with a newline or other control character
 * (conf_set quotes what it refuses as it was given), or a file name
 * holding one, must not split the error.  Shown as '?', as show() does. */
void conf_one_line(char *err)
{
	for (; *err; err++) {
		if (iscntrl((unsigned char)*err)) {
			*err = '?';
		}
	}
}

/* Writes "file:line: key: [bad value 'value'[note]: ]why" and returns
 * -EINVAL.  at may be NULL (no place in the file: line 0); note (NULL: none)
 * follows the quoted value, as in "bad value 'AbCd...' (43 chars): ". */
static int __attribute__((format(printf, 5, 0)))
vfail(struct loader *l, const config_setting_t *at, const char *value,
      const char *note, const char *fmt, va_list ap)
{
	const char *file = l->file;
	unsigned line = 0;
	int n;

	if (!l->err || !l->errlen) {
		return -EINVAL;
	}
	if (at) {
		if (config_setting_source_file(at)) {
			file = config_setting_source_file(at);
		}
		line = config_setting_source_line(at);
	}
	if (!file) {
		/* conf_set: a value typed at l3bondctl, not a file's */
		n = value ? snprintf(l->err, l->errlen,
				     "%s: bad value '%s'%s: ", l->key, value,
				     note ? note : "")
			  : snprintf(l->err, l->errlen, "%s: ", l->key);
	} else if (value) {
		n = snprintf(l->err, l->errlen,
			     "%s:%u: %s: bad value '%s'%s: ", file, line,
			     l->key, value, note ? note : "");
	} else {
		n = snprintf(l->err, l->errlen, "%s:%u: %s: ", file, line,
			     l->key);
	}
	if (n >= 0 && (size_t)n < l->errlen) {
		vsnprintf(l->err + n, l->errlen - (size_t)n, fmt, ap);
	}
	conf_one_line(l->err);
	return -EINVAL;
}

/* An error about the key itself (unknown, missing), at setting at. */
int conf_fail(struct loader *l, const config_setting_t *at, const char *fmt,
	      ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vfail(l, at, NULL, NULL, fmt, ap);
	va_end(ap);
	return ret;
}

/* A bad value: quotes the value of s. */
int conf_bad(struct loader *l, const config_setting_t *s, const char *fmt, ...)
{
	char value[96];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vfail(l, s, show(s, value, sizeof(value)), NULL, fmt, ap);
	va_end(ap);
	return ret;
}

/* A bad value that is not s's own (a default checked against s). */
int conf_bad_at(struct loader *l, const config_setting_t *at, const char *value,
		const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vfail(l, at, value, NULL, fmt, ap);
	va_end(ap);
	return ret;
}

static int __attribute__((format(printf, 5, 6)))
vfail_note(struct loader *l, const config_setting_t *at, const char *value,
	   const char *note, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vfail(l, at, value, note, fmt, ap);
	va_end(ap);
	return ret;
}

/* A bad secret: quotes at most its first 4 characters, and its length.
 * A key that is nearly right (one character short, a space pasted in) is
 * still nearly the secret, and errors go to logs and l3bondctl replies. */
int conf_bad_secret(struct loader *l, const config_setting_t *s, const char *v,
		    const char *why)
{
	char shown[8], note[32];
	size_t len = strlen(v);

	/* a short text shows nothing: 4 characters would be most of it */
	if (len >= 16) {
		snprintf(shown, sizeof(shown), "%.4s...", v);
	} else {
		snprintf(shown, sizeof(shown), "%s", len ? "..." : "");
	}
	snprintf(note, sizeof(note), " (%zu chars)", len);
	return vfail_note(l, s, shown, note, "%s", why);
}

void conf_at(struct loader *l, const char *prefix, const char *name)
{
	snprintf(l->key, sizeof(l->key), "%s%s", prefix, name);
}

/* ---- typed getters: check the type, then the range ------------------- */

int conf_get_int(struct loader *l, const config_setting_t *s, long long min,
		 long long max, long long *out)
{
	long long v;

	*out = 0; /* for -O3's maybe-uninitialized */

	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
		/* libconfig stores 0x80000000..0xffffffff in a 32-bit int
		 * as negative numbers; a hex literal means the bit pattern */
		if (config_setting_get_format(s) == CONFIG_FORMAT_HEX) {
			v = (uint32_t)config_setting_get_int(s);
		} else {
			v = config_setting_get_int(s);
		}
		break;
	case CONFIG_TYPE_INT64:
		v = config_setting_get_int64(s);
		break;
	default:
		return conf_bad(l, s, "expected an integer");
	}
	if (v < min || v > max) {
		return conf_bad(l, s, "out of range %lld..%lld", min, max);
	}
	*out = v;
	return 0;
}

/* A number: float or integer, finite, within [min, max]. */
int conf_get_number(struct loader *l, const config_setting_t *s, double min,
		    double max, double *out)
{
	double v;

	*out = 0; /* for -O3's maybe-uninitialized */

	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		v = (double)config_setting_get_int64(s);
		break;
	case CONFIG_TYPE_FLOAT:
		v = config_setting_get_float(s);
		break;
	default:
		return conf_bad(l, s, "expected a number");
	}
	if (!isfinite(v)) {
		return conf_bad(l, s, "not a finite number");
	}
	if (v < min || v > max) {
		return conf_bad(l, s, "out of range %g..%g", min, max);
	}
	*out = v;
	return 0;
}

int conf_get_bool(struct loader *l, const config_setting_t *s, bool *out)
{
	*out = false; /* for -O3's maybe-uninitialized */
	if (config_setting_type(s) != CONFIG_TYPE_BOOL) {
		return conf_bad(l, s, "expected true or false");
	}
	*out = config_setting_get_bool(s);
	return 0;
}

/* A string of 1..maxlen characters. */
int conf_get_string(struct loader *l, const config_setting_t *s, size_t maxlen,
		    const char **out)
{
	const char *v;
	size_t len;

	*out = ""; /* for -O3's maybe-uninitialized */
	if (config_setting_type(s) != CONFIG_TYPE_STRING) {
		return conf_bad(l, s, "expected a string");
	}
	v = config_setting_get_string(s);
	len = strlen(v);
	if (len < 1 || len > maxlen) {
		return conf_bad(l, s, "must be 1 to %zu characters long",
				maxlen);
	}
	*out = v;
	return 0;
}

/* A name: 1..CONF_NAME_MAX - 1 of a-z 0-9 _ - (names end up in metrics
 * labels, status keys, log lines and l3bondctl output); why: the error
 * for other characters. */
int conf_get_name(struct loader *l, const config_setting_t *s, const char *why,
		  const char **out)
{
	int ret = conf_get_string(l, s, CONF_NAME_MAX - 1, out);

	if (!ret && strspn(*out, "abcdefghijklmnopqrstuvwxyz0123456789_-") !=
			    strlen(*out)) {
		return conf_bad(l, s, "%s", why);
	}
	return ret;
}

/* One of names[0..n-1]; the index goes to *out. */
int conf_get_choice(struct loader *l, const config_setting_t *s,
		    const char *const *names, size_t n, unsigned *out)
{
	char list[128] = "";
	const char *v;
	unsigned i;

	*out = 0; /* for -O3's maybe-uninitialized */
	if (config_setting_type(s) != CONFIG_TYPE_STRING) {
		return conf_bad(l, s, "expected a string");
	}
	v = config_setting_get_string(s);
	for (i = 0; i < n; i++) {
		if (!strcmp(v, names[i])) {
			*out = i;
			return 0;
		}
	}
	/* "a", "b" or "c" */
	for (i = 0; i + 1 < n; i++) {
		size_t at = strlen(list);

		snprintf(list + at, sizeof(list) - at, "%s\"%s\"",
			 i ? ", " : "", names[i]);
	}
	return conf_bad(l, s, "expected %s or \"%s\"", list, names[n - 1]);
}

/* ---- one parser per key ---------------------------------------------- */

int conf_parse_int(struct loader *l, const config_setting_t *s, void *obj,
		   const struct key *k)
{
	uint8_t *dst = (uint8_t *)obj + k->off;
	long long v;
	uint32_t u32;
	uint16_t u16;
	double d;
	int ret;

	ret = conf_get_int(l, s, k->i.min, k->i.max, &v);
	if (ret) {
		return ret;
	}
	v *= k->scale;
	if (k->is_double) {
		d = (double)v;
		memcpy(dst, &d, sizeof(d));
	} else if (k->size == sizeof(u16)) {
		u16 = (uint16_t)v;
		memcpy(dst, &u16, sizeof(u16));
	} else if (k->size == sizeof(u32)) {
		u32 = (uint32_t)v;
		memcpy(dst, &u32, sizeof(u32));
	} else {
		return conf_bad(l, s, "internal error: field of %zu bytes",
				k->size);
	}
	return 0;
}

/* A pre-shared key, base64 of 32 bytes, into k (zeroed on error).  The
 * text libconfig holds is wiped by conf_load once read (wipe_key_text). */
int conf_get_psk(struct loader *l, const config_setting_t *s,
		 struct auth_key *k)
{
	const char *v, *why = "not 32 bytes of base64";

	if (config_setting_type(s) != CONFIG_TYPE_STRING) {
		return conf_bad(l, s,
				"expected a string: base64 of 32 bytes, as "
				"l3bondd --genkey prints");
	}
	v = config_setting_get_string(s);
	if (auth_key_parse(k, v, &why)) {
		return conf_bad_secret(l, s, v, why);
	}
	return 0;
}
/* ---- the daemon's keys ----------------------------------------------- */

/* The elements of a list ( ... ) or array [ ... ] of 1..max entries. */
int conf_get_seq(struct loader *l, const config_setting_t *s, unsigned max,
		 const char *what, unsigned *n)
{
	*n = 0; /* for -O3's maybe-uninitialized */
	if (!config_setting_is_list(s) && !config_setting_is_array(s)) {
		return conf_bad(l, s, "expected a list of %s [ \"...\", ... ]",
				what);
	}
	*n = (unsigned)config_setting_length(s);
	if (*n < 1 || *n > max) {
		return conf_bad(l, s, "need 1 to %u %s", max, what);
	}
	return 0;
}

/* True if any of the bits of a (n bytes) from bit len on is set. */
static bool host_bits(const uint8_t *a, size_t n, unsigned len)
{
	size_t i;

	for (i = len / 8; i < n; i++) {
		uint8_t m = i == len / 8 ? (uint8_t)(0xff >> (len % 8)) : 0xff;

		if (a[i] & m) {
			return true;
		}
	}
	return false;
}

/* "a.b.c.d/len" or "x:y::/len" with the host bits clear. */
int conf_get_prefix(struct loader *l, const config_setting_t *e,
		    struct conf_prefix *p)
{
	char buf[CONF_ADDR_MAX], *slash, *end;
	uint8_t a[16];
	unsigned long len, max;
	const char *v;
	bool v6;
	int ret;

	ret = conf_get_string(l, e, CONF_ADDR_MAX - 1, &v);
	if (ret) {
		return ret;
	}
	strcpy(buf, v);
	slash = strchr(buf, '/');
	if (!slash) {
		return conf_bad(l, e,
				"expected a prefix a.b.c.d/len or x:y::/len");
	}
	*slash = '\0';
	v6 = strchr(buf, ':') != NULL;
	if (inet_pton(v6 ? AF_INET6 : AF_INET, buf, a) != 1) {
		return conf_bad(l, e,
				v6 ? "expected an IPv6 prefix x:y::/len"
				   : "expected an IPv4 prefix a.b.c.d/len");
	}
	max = v6 ? 128 : 32;
	errno = 0;
	len = strtoul(slash + 1, &end, 10);
	if (!isdigit((unsigned char)slash[1]) || *end || errno || len > max) {
		return conf_bad(l, e, "prefix length must be 0..%lu", max);
	}
	if (host_bits(a, v6 ? 16 : 4, (unsigned)len)) {
		return conf_bad(l, e, "host bits set");
	}
	memset(p, 0, sizeof(*p));
	p->v6 = v6;
	p->len = (uint8_t)len;
	if (v6) {
		memcpy(p->addr6, a, 16);
	} else {
		memcpy(&p->addr, a, 4);
	}
	return 0;
}

static bool prefix_same(const struct conf_prefix *a,
			const struct conf_prefix *b)
{
	return a->v6 == b->v6 && a->len == b->len &&
	       (a->v6 ? !memcmp(a->addr6, b->addr6, 16) : a->addr == b->addr);
}

/* A list of at least min prefixes, none twice, into out; name: the key,
 * as errors name its elements ("prefixes[2]"). */
int conf_get_prefixes(struct loader *l, const config_setting_t *s,
		      const char *name, struct conf_prefix *out, unsigned *nout,
		      unsigned min)
{
	const config_setting_t *e;
	char key[32];
	unsigned i, j, n;
	int ret;

	snprintf(key, sizeof(key), "%s", name);
	ret = conf_get_seq(l, s, CONF_PREFIX_MAX, key, &n);
	if (ret) {
		return ret;
	}
	if (n < min) {
		return conf_bad(l, s, "at least %u prefix needed", min);
	}
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(s, i);
		snprintf(l->key, sizeof(l->key), "%s[%u]", key, i);
		ret = conf_get_prefix(l, e, &out[i]);
		if (ret) {
			return ret;
		}
		for (j = 0; j < i; j++) {
			if (prefix_same(&out[j], &out[i])) {
				return conf_bad(l, e, "%s[%u] is the same", key,
						j);
			}
		}
	}
	*nout = n;
	return 0;
}
const char *conf_missing_hint(const char *name)
{
	if (!strcmp(name, "key")) {
		return ": generate one with l3bondd --genkey";
	}
	return "";
}

/* Reads group's keys into obj.  Unknown keys are looked for first, so that
 * a misspelt key is reported as such and not as the right one missing. */
int conf_walk(struct loader *l, const config_setting_t *group,
	      const char *prefix, const struct key *keys, size_t nkeys,
	      void *obj)
{
	const config_setting_t *s, *old;
	const struct key *k, *a;
	int i, n, ret;

	n = config_setting_length(group);
	for (i = 0; i < n; i++) {
		s = config_setting_get_elem(group, (unsigned)i);
		if (!conf_find(keys, nkeys, config_setting_name(s), NULL)) {
			conf_at(l, prefix, config_setting_name(s));
			return conf_fail(l, s, "unknown key");
		}
	}
	for (k = keys; k < keys + nkeys; k++) {
		if (k->i.alias_of) {
			continue; /* read as the key it names */
		}
		conf_at(l, prefix, k->i.name);
		s = config_setting_get_member(group, k->i.name);
		/* an old name of the key: read as the key, named as written */
		for (a = keys; a < keys + nkeys; a++) {
			if (!a->i.alias_of ||
			    strcmp(a->i.alias_of, k->i.name)) {
				continue;
			}
			old = config_setting_get_member(group, a->i.name);
			if (old && s) {
				conf_at(l, prefix, a->i.name);
				return conf_fail(l, old,
						 "the former name of %s, "
						 "which is given too",
						 k->i.name);
			}
			if (old) {
				s = old;
				conf_at(l, prefix, a->i.name);
			}
		}
		if (!s) {
			if (k->i.flags & CONF_KEY_REQUIRED) {
				return conf_fail(l, group, "missing%s",
						 conf_missing_hint(k->i.name));
			}
			continue;
		}
		ret = k->parse ? k->parse(l, s, obj, k)
			       : conf_parse_int(l, s, obj, k);
		if (ret) {
			return ret;
		}
	}
	return 0;
}

int conf_group_defaults(struct loader *l, const char *prefix,
			const struct key *keys, size_t nkeys, void *obj)
{
	char text[160];
	const struct key *k;
	int ret;

	for (k = keys; k < keys + nkeys; k++) {
		if (!k->i.def || k->i.alias_of) {
			continue;
		}
		conf_at(l, prefix, k->i.name);
		snprintf(text, sizeof(text), "%s = %s;", k->i.name, k->i.def);
		ret = conf_parse_text(l, k, k->i.name, text, k->i.def, obj);
		if (ret) {
			return ret;
		}
	}
	return 0;
}

int conf_walk_groups(struct loader *l, const config_setting_t *s,
		     const struct group_list *g, void *obj, unsigned *n)
{
	const config_setting_t *e;
	char prefix[32];
	unsigned i, len;
	int ret;

	*n = 0;
	if (!config_setting_is_list(s)) {
		return conf_bad(l, s, "expected a list of %s groups %s",
				g->what, g->shape);
	}
	len = (unsigned)config_setting_length(s);
	if (len < g->min || len > g->max) {
		return conf_bad(l, s, "need %u to %u %s", g->min, g->max,
				g->whats);
	}
	for (i = 0; i < len; i++) {
		e = config_setting_get_elem(s, i);
		snprintf(prefix, sizeof(prefix), "%s[%u]", g->name, i);
		if (!config_setting_is_group(e)) {
			conf_at(l, prefix, "");
			return conf_bad(l, e, "expected a %s group { ... }",
					g->what);
		}
		strcat(prefix, ".");
		ret = g->one(l, e, prefix, i, obj);
		if (ret) {
			return ret;
		}
	}
	*n = len;
	return 0;
}

/* Reads text ("name = value;") and parses its one setting as key k into
 * obj; a text libconfig refuses is an error quoting shown. */
int conf_parse_text(struct loader *l, const struct key *k, const char *name,
		    const char *text, const char *shown, void *obj)
{
	const config_setting_t *s;
	config_t cfg;
	int ret;

	config_init(&cfg);
	if (!config_read_string(&cfg, text)) {
		ret = conf_bad_at(l, NULL, shown, "%s",
				  config_error_text(&cfg));
		goto out;
	}
	s = config_setting_get_member(config_root_setting(&cfg), name);
	if (!s) {
		ret = conf_bad_at(l, NULL, shown, "not a single value");
		goto out;
	}
	ret = k->parse ? k->parse(l, s, obj, k) : conf_parse_int(l, s, obj, k);
out:
	conf_wipe_text(config_root_setting(&cfg));
	config_destroy(&cfg);
	return ret;
}

/* DWD counts quiet report intervals, so T_dwd must be whole intervals. */
static int check_dwd(struct loader *l, const config_setting_t *root)
{
	const config_setting_t *dwd, *report;
	char value[16];

	if (l->c.sched.t_dwd_ms % l->c.sched.t_report_ms == 0) {
		return 0;
	}
	conf_at(l, "", "t_dwd_ms");
	dwd = config_setting_get_member(root, "t_dwd_ms");
	if (dwd) {
		return conf_bad(l, dwd, "not a multiple of t_report_ms (%u)",
				l->c.sched.t_report_ms);
	}
	/* the default does not fit the t_report_ms given: point there */
	report = config_setting_get_member(root, "t_report_ms");
	snprintf(value, sizeof(value), "%u", l->c.sched.t_dwd_ms);
	return conf_bad_at(l, report, value,
			   "the default is not a multiple of t_report_ms (%u)",
			   l->c.sched.t_report_ms);
}

/* A path is down after dead_after_ms without an answer (a REPORT
 * acknowledging its DATA, a PROBE answered), and a path in use is probed
 * every probe_interval_ms: one lost probe must not take a path down, so
 * at least two intervals.  The
 * deprecated keepalive_ms stands for dead_after_ms = 3 x keepalive_ms when
 * dead_after_ms is not given (raised to two probe intervals if needed). */
static int check_liveness(struct loader *l, const config_setting_t *root)
{
	const config_setting_t *dead, *probe;
	uint32_t need = 2 * l->c.probe_interval_ms;
	char value[16];

	dead = config_setting_get_member(root, "dead_after_ms");
	if (l->keepalive_ms && !dead) {
		l->c.dead_after_ms = OLD_DEAD_KEEPALIVES * l->keepalive_ms;
		if (l->c.dead_after_ms < need) {
			l->c.dead_after_ms = need;
		}
	}
	if (l->c.dead_after_ms >= need) {
		return 0;
	}
	if (dead) {
		conf_at(l, "", "dead_after_ms");
		return conf_bad(
			l, dead,
			"less than 2 x probe_interval_ms (%u): one lost "
			"probe would take a path down",
			l->c.probe_interval_ms);
	}
	/* the default does not fit the probe_interval_ms given: point there */
	conf_at(l, "", "probe_interval_ms");
	probe = config_setting_get_member(root, "probe_interval_ms");
	snprintf(value, sizeof(value), "%u", l->c.probe_interval_ms);
	return conf_bad_at(l, probe, value,
			   "more than half of dead_after_ms (%u, the default): "
			   "set dead_after_ms too",
			   l->c.dead_after_ms);
}

/* The two queues must differ: one is drained by the ingress, one by the
 * egress. */
static int check_queues(struct loader *l, const config_setting_t *root)
{
	const config_setting_t *s;

	if (l->c.ingress_queue != l->c.egress_queue) {
		return 0;
	}
	s = config_setting_get_member(root, "egress_queue");
	if (s) {
		conf_at(l, "", "egress_queue");
		return conf_bad(l, s, "the same queue as ingress_queue");
	}
	conf_at(l, "", "ingress_queue");
	s = config_setting_get_member(root, "ingress_queue");
	/* not given: it holds its default */
	return conf_bad(l, s, "the same queue as the default egress_queue (%u)",
			(unsigned)l->c.egress_queue);
}
unsigned conf_cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > CONF_WORKERS_MAX ? CONF_WORKERS_MAX : (unsigned)n;
}

unsigned conf_workers(const struct conf *c)
{
	char why[CONF_ERR_MAX];
	unsigned n;

	if (c->role != ROLE_CONCENTRATOR) {
		return 1;
	}
	if (c->workers) {
		return c->workers;
	}
	n = conf_cores();
	return n > 1 && conf_workers_obstacle(c, n, why, sizeof(why)) ? 1 : n;
}

unsigned conf_worker_queue(const struct conf *c, unsigned base, unsigned k)
{
	unsigned lo = c->ingress_queue < c->egress_queue ? c->ingress_queue
							 : c->egress_queue;
	unsigned hi = c->ingress_queue ^ c->egress_queue ^ lo;

	return base + k * (hi - lo + 1);
}

const char *conf_workers_obstacle(const struct conf *c, unsigned n, char *why,
				  size_t len)
{
	char k[16];
	unsigned i;

	for (i = 0; i < c->nclasses; i++) {
		if (c->class[i].mode == CLASS_BYPASS) {
			snprintf(why, len,
				 "%u workers and a class in mode bypass "
				 "(\"%s\") cannot go together yet: the bypass "
				 "rules end in one queue",
				 n, c->class[i].name);
			return why;
		}
	}
	if (conf_worker_queue(c, c->ingress_queue, n - 1) > UINT16_MAX ||
	    conf_worker_queue(c, c->egress_queue, n - 1) > UINT16_MAX) {
		snprintf(why, len,
			 "%u workers' queues go beyond 65535 (worker k takes "
			 "ingress_queue and egress_queue + k x %u)",
			 n, conf_worker_queue(c, 0, 1));
		return why;
	}
	if (!c->control_socket[0]) {
		snprintf(why, len,
			 "%u workers need a control socket (the first process "
			 "reaches the workers' through it): set "
			 "control_socket",
			 n);
		return why;
	}
	if (strlen(c->control_socket) + snprintf(k, sizeof(k), ".%u", n) >=
	    CONF_PATH_MAX) {
		snprintf(why, len,
			 "control_socket is too long for the workers' sockets "
			 "(its path and \".<worker>\")");
		return why;
	}
	return NULL;
}

/* Workers (a concentrator's), as the file asks for them: not on a CPE;
 * with more than one (workers = 0: one per core), nothing that keeps them
 * from running (conf_workers_obstacle).  Without the key, the count is
 * the cores unless something keeps them from running: then one, which
 * the daemon says when it starts (no error: the default must load). */
static int check_workers(struct loader *l, const config_setting_t *root)
{
	const config_setting_t *s = config_setting_get_member(root, "workers");
	unsigned n = l->c.workers ? l->c.workers : conf_cores();
	char why[CONF_ERR_MAX];

	if (!s) {
		return 0;
	}
	conf_at(l, "", "workers");
	if (l->c.role != ROLE_CONCENTRATOR) {
		return conf_bad(l, s, "only with role \"concentrator\" (a CPE "
				      "has one worker)");
	}
	if (n > 1 && conf_workers_obstacle(&l->c, n, why, sizeof(why))) {
		return conf_bad(l, s, "%s", why);
	}
	return 0;
}

/* The defaults are the table's (def, as written in the file), read by the
 * keys' own parsers: a default cannot be one the file could not hold.
 * A key without one starts as zero (no key, no path, no CPE). */
void conf_defaults(struct conf *c)
{
	struct loader l = {.file = NULL};
	char text[160];
	size_t i;

	memset(&l.c, 0, sizeof(l.c));
	for (i = 0; i < conf_ntop_keys; i++) {
		const struct key *k = &conf_top_keys[i];

		if (!k->i.def || k->i.alias_of) {
			continue;
		}
		snprintf(text, sizeof(text), "%s = %s;", k->i.name, k->i.def);
		if (conf_parse_text(&l, k, k->i.name, text, k->i.def, &l.c)) {
			/* the table is wrong: test_conf's defaults test
			 * fails on it before anything runs */
			fprintf(stderr, "conf: bad default of %s: %s\n",
				k->i.name, k->i.def);
			abort();
		}
	}
	*c = l.c;
}

bool conf_has_key(const struct conf *c)
{
	uint8_t any = 0;
	size_t i;

	for (i = 0; i < sizeof(c->psk.b); i++) {
		any |= c->psk.b[i];
	}
	return any != 0;
}

void conf_wipe(struct conf *c)
{
	unsigned i;

	auth_key_wipe(&c->psk);
	for (i = 0; c->cpe && i < c->ncpes; i++) {
		auth_key_wipe(&c->cpe[i].psk);
	}
}

/* The keys' text in libconfig's tree is freed, not cleared, by
 * config_destroy(): clear it first, wherever a "key" is (top level, cpes
 * entries).  The string is libconfig's own heap copy (strdup), so writing
 * to it is sound.  What the parser and stdio buffered on the way is out of
 * reach; this is the long-lived copy. */
void conf_wipe_text(config_setting_t *s)
{
	config_setting_t *e;
	const char *v;
	int i, n;

	if (config_setting_type(s) == CONFIG_TYPE_STRING) {
		if (config_setting_name(s) &&
		    !strcmp(config_setting_name(s), "key")) {
			v = config_setting_get_string(s);
			if (v) {
				explicit_bzero((char *)v, strlen(v));
			}
		}
		return;
	}
	if (!config_setting_is_aggregate(s)) {
		return;
	}
	n = config_setting_length(s);
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(s, (unsigned)i);
		if (e) {
			conf_wipe_text(e);
		}
	}
}

static void wipe_key_text(config_t *cfg)
{
	conf_wipe_text(config_root_setting(cfg));
}

int conf_load(struct conf *c, const char *file, char *err, size_t errlen)
{
	struct loader l = {.file = file, .err = err, .errlen = errlen};
	struct wide wd = {0};
	const config_setting_t *root;
	config_t cfg;
	int ret;

	if (err && errlen) {
		err[0] = '\0';
	}
	ret = conf_prescan(file, conf_probe_wrap(), &wd);
	if (ret) {
		if (err && errlen) {
			snprintf(err, errlen, "%s: %s", file, strerror(-ret));
			conf_one_line(err);
		}
		return ret;
	}

	conf_defaults(&l.c);
	config_init(&cfg);
	if (!config_read_file(&cfg, file)) {
		if (config_error_type(&cfg) == CONFIG_ERR_FILE_IO) {
			/* it was readable a moment ago */
			ret = -EIO;
			if (err && errlen) {
				snprintf(err, errlen, "%s: %s", file,
					 config_error_text(&cfg));
			}
		} else {
			ret = -EINVAL;
			if (err && errlen) {
				snprintf(err, errlen, "%s:%d: parse error: %s",
					 config_error_file(&cfg)
						 ? config_error_file(&cfg)
						 : file,
					 config_error_line(&cfg),
					 config_error_text(&cfg));
			}
		}
		goto out_destroy;
	}
	if (wd.line) {
		snprintf(l.key, sizeof(l.key), "%s", wd.key);
		ret = -EINVAL;
		if (err && errlen) {
			snprintf(err, errlen,
				 "%s:%u: %s: bad value '%s': "
				 "too large for this libconfig, which would "
				 "wrap it to 32 bits; write '%sL'",
				 file, wd.line, wd.key, wd.text, wd.text);
		}
		goto out_destroy;
	}

	root = config_root_setting(&cfg);
	ret = conf_walk(&l, root, "", conf_top_keys, conf_ntop_keys, &l.c);
	if (!ret) {
		ret = check_dwd(&l, root);
	}
	if (!ret) {
		ret = check_liveness(&l, root);
	}
	if (!ret) {
		ret = check_queues(&l, root);
	}
	if (!ret) {
		ret = check_workers(&l, root);
	}
	if (!ret) {
		ret = conf_check_top(&l, root);
	}
	if (!ret) {
		ret = conf_cpes_fit(&l);
	}
	if (!ret) {
		/* c takes the CPE array over */
		*c = l.c;
		l.c.cpe = NULL;
		l.c.ncpes = 0;
	}
out_destroy:
	if (ret && err && errlen) {
		conf_one_line(err); /* the file name, libconfig's text */
	}
	wipe_key_text(&cfg);
	conf_cpe_idx_free(&l);
	conf_free(&l.c); /* on success only the copy of the key on this stack */
	config_destroy(&cfg);
	return ret;
}
