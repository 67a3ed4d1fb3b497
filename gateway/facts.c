/* SPDX-License-Identifier: BSD-2-Clause */
/* The status data of the control socket (facts.h): written by the
 * daemon, parsed by its clients.  Both sides are here so that the format
 * has one definition.  Parsing is in place: fields are cut and unescaped
 * inside the reply's own buffer. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gateway/facts.h"

static const char *const scope_names[] = {
	[GW_SCOPE_DAEMON] = "daemon",	[GW_SCOPE_SESSION] = "session",
	[GW_SCOPE_INGRESS] = "ingress", [GW_SCOPE_EGRESS] = "egress",
	[GW_SCOPE_PATH] = "path",
};

enum { NSCOPES = sizeof(scope_names) / sizeof(scope_names[0]) };

/* ---- writing ------------------------------------------------------------- */

static void field(FILE *f, const char *s)
{
	fputc('\t', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\') {
			fputs("\\\\", f);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\x%02x", c);
		} else {
			fputc(c, f);
		}
	}
}

static const char *type_name(enum gw_stat_type type, bool is_float)
{
	switch (type) {
	case GW_STAT_COUNTER:
		return "counter";
	case GW_STAT_GAUGE:
		return is_float ? "float" : "gauge";
	case GW_STAT_TEXT:
		return "text";
	}
	return "gauge";
}

void facts_begin(struct facts_writer *w, FILE *f, const char *version)
{
	w->f = f;
	w->n = 0;
	w->next = 0;
	w->err = 0;
	fprintf(f, "l3bond-status %d", FACTS_VERSION);
	field(f, version);
	fputc('\n', f);
}

static bool same_desc(const struct facts_desc *d, const struct gw_stat *st)
{
	return d->scope == st->scope &&
	       (d->name == st->name || !strcmp(d->name, st->name));
}

/* Described already, the same way?  Else remembers st's description and
 * says no.  The walk repeats its order per session: the lookup starts
 * where the last one matched. */
static bool described(struct facts_writer *w, const struct gw_stat *st)
{
	struct facts_desc *d = NULL;
	size_t i, k;

	for (k = 0; k < w->n; k++) {
		i = (w->next + k) % w->n;
		if (same_desc(&w->d[i], st)) {
			d = &w->d[i];
			w->next = i + 1;
			break;
		}
	}
	if (d && d->type == st->type && d->is_float == st->is_float &&
	    (d->help == st->help ||
	     (d->help && st->help && !strcmp(d->help, st->help)))) {
		return true;
	}
	if (!d) {
		if (w->n == w->cap) {
			size_t cap = w->cap ? 2 * w->cap : 256;

			d = realloc(w->d, cap * sizeof(*d));
			if (!d) {
				w->err = -ENOMEM;
				return true; /* the reply is dropped anyway */
			}
			w->d = d;
			w->cap = cap;
		}
		d = &w->d[w->n++];
		w->next = w->n;
	}
	*d = (struct facts_desc){.scope = st->scope,
				 .type = st->type,
				 .is_float = st->is_float,
				 .name = st->name,
				 .help = st->help};
	return false;
}

void facts_put(void *arg, const struct gw_stat *st)
{
	struct facts_writer *w = arg;
	FILE *f = w->f;
	char num[32];
	bool has_session;

	if ((unsigned)st->scope >= NSCOPES || w->err) {
		return;
	}
	if (!described(w, st)) {
		fputc('d', f);
		field(f, scope_names[st->scope]);
		field(f, st->name);
		field(f, type_name(st->type, st->is_float));
		field(f, st->help);
		fputc('\n', f);
	}
	fputc('v', f);
	field(f, scope_names[st->scope]);
	field(f, st->name);
	has_session = st->scope != GW_SCOPE_DAEMON && !st->global;
	snprintf(num, sizeof(num), "%u", st->session);
	field(f, has_session ? num : "");
	field(f, has_session ? st->cpe : "");
	field(f, st->scope == GW_SCOPE_PATH ? st->path : "");
	field(f, st->label ? st->label : "");
	field(f, st->label ? st->label_value : "");
	if (st->type == GW_STAT_TEXT) {
		field(f, st->text);
	} else if (st->is_float) {
		if (isnan(st->d)) {
			snprintf(num, sizeof(num), "nan");
		} else if (isinf(st->d)) {
			snprintf(num, sizeof(num), st->d > 0 ? "inf" : "-inf");
		} else {
			snprintf(num, sizeof(num), "%.17g", st->d);
		}
		field(f, num);
	} else {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)st->u);
		field(f, num);
	}
	fputc('\n', f);
}

int facts_end(struct facts_writer *w)
{
	w->f = NULL;
	return w->err;
}

void facts_writer_free(struct facts_writer *w)
{
	free(w->d);
	memset(w, 0, sizeof(*w));
}

/* ---- reading ------------------------------------------------------------- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9') {
		return c - '0';
	}
	if (c >= 'a' && c <= 'f') {
		return c - 'a' + 10;
	}
	if (c >= 'A' && c <= 'F') {
		return c - 'A' + 10;
	}
	return -1;
}

/* Unescapes s in place; false on a malformed escape. */
static bool unescape(char *s)
{
	char *o = s;
	int hi, lo;

	while (*s) {
		if (*s != '\\') {
			*o++ = *s++;
			continue;
		}
		if (s[1] == '\\') {
			*o++ = '\\';
			s += 2;
			continue;
		}
		if (s[1] != 'x' || (hi = hexval(s[2])) < 0 ||
		    (lo = hexval(s[3])) < 0) {
			return false;
		}
		*o++ = (char)(hi << 4 | lo);
		s += 4;
	}
	*o = '\0';
	return true;
}

/* Cuts line into at most max tab-separated fields; their number. */
static size_t split(char *line, char **fld, size_t max)
{
	size_t n = 0;
	char *t;

	while (n < max) {
		fld[n++] = line;
		t = strchr(line, '\t');
		if (!t) {
			break;
		}
		*t = '\0';
		line = t + 1;
	}
	return n;
}

static int scope_of(const char *s)
{
	unsigned i;

	for (i = 0; i < NSCOPES; i++) {
		if (!strcmp(s, scope_names[i])) {
			return (int)i;
		}
	}
	return -1;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9') {
		return false;
	}
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !*end && !errno;
}

static int __attribute__((format(printf, 4, 5)))
bad(char *err, size_t len, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(err, len, "status data line %u: ", line);
	if (n >= 0 && (size_t)n < len) {
		va_start(ap, fmt);
		vsnprintf(err + n, len - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EPROTO;
}

/* The descriptions read so far, by scope and name. */
struct descs {
	struct facts_desc *d;
	size_t n;
	size_t cap;
	size_t next;
};

static struct facts_desc *desc_find(struct descs *ds, int scope,
				    const char *name)
{
	size_t i, k;

	for (k = 0; k < ds->n; k++) {
		i = (ds->next + k) % ds->n;
		if ((int)ds->d[i].scope == scope &&
		    !strcmp(ds->d[i].name, name)) {
			ds->next = i + 1;
			return &ds->d[i];
		}
	}
	return NULL;
}

static int desc_line(struct descs *ds, char **fld, size_t n, unsigned ln,
		     char *err, size_t len)
{
	struct facts_desc *d;
	int scope = n == 5 ? scope_of(fld[1]) : -1;
	enum gw_stat_type type;
	bool is_float = false;

	if (scope < 0) {
		return bad(err, len, ln, "a description needs 5 fields");
	}
	if (!strcmp(fld[3], "counter")) {
		type = GW_STAT_COUNTER;
	} else if (!strcmp(fld[3], "gauge")) {
		type = GW_STAT_GAUGE;
	} else if (!strcmp(fld[3], "float")) {
		type = GW_STAT_GAUGE;
		is_float = true;
	} else if (!strcmp(fld[3], "text")) {
		type = GW_STAT_TEXT;
	} else {
		return bad(err, len, ln, "unknown type '%.32s'", fld[3]);
	}
	if (!unescape(fld[2]) || !unescape(fld[4]) || !*fld[2]) {
		return bad(err, len, ln, "bad name or help");
	}
	d = desc_find(ds, scope, fld[2]);
	if (!d) {
		if (ds->n == ds->cap) {
			size_t cap = ds->cap ? 2 * ds->cap : 256;

			d = realloc(ds->d, cap * sizeof(*d));
			if (!d) {
				return -ENOMEM;
			}
			ds->d = d;
			ds->cap = cap;
		}
		d = &ds->d[ds->n++];
	}
	*d = (struct facts_desc){.scope = (enum gw_stat_scope)scope,
				 .type = type,
				 .is_float = is_float,
				 .name = fld[2],
				 .help = fld[4]};
	return 0;
}

static int value_line(struct facts *s, size_t *cap, struct descs *ds,
		      char **fld, size_t n, unsigned ln, char *err, size_t len)
{
	const struct facts_desc *d;
	struct gw_stat *st;
	uint64_t u;
	size_t i;
	int scope = n == 9 ? scope_of(fld[1]) : -1;

	if (scope < 0) {
		return bad(err, len, ln, "a value needs 9 fields");
	}
	for (i = 2; i < 9; i++) {
		if (!unescape(fld[i])) {
			return bad(err, len, ln, "bad escape in field %zu", i);
		}
	}
	d = desc_find(ds, scope, fld[2]);
	if (!d) {
		return bad(err, len, ln, "'%.32s' not described", fld[2]);
	}
	if (s->n == *cap) {
		size_t c = *cap ? 2 * *cap : 512;

		st = realloc(s->v, c * sizeof(*st));
		if (!st) {
			return -ENOMEM;
		}
		s->v = st;
		*cap = c;
	}
	st = &s->v[s->n];
	*st = (struct gw_stat){.scope = d->scope,
			       .type = d->type,
			       .is_float = d->is_float,
			       .name = d->name,
			       .help = d->help,
			       .cpe = fld[4]};
	if (*fld[3]) {
		if (!parse_u64(fld[3], &u) || u > UINT32_MAX) {
			return bad(err, len, ln, "bad session");
		}
		st->session = (uint32_t)u;
	} else if (scope == GW_SCOPE_INGRESS || scope == GW_SCOPE_EGRESS) {
		st->global = true;
	} else if (scope != GW_SCOPE_DAEMON) {
		return bad(err, len, ln, "no session");
	}
	if (scope == GW_SCOPE_PATH) {
		if (!*fld[5]) {
			return bad(err, len, ln, "a path value without path");
		}
		st->path = fld[5];
	}
	if (*fld[6]) {
		st->label = fld[6];
		st->label_value = fld[7];
	}
	if (d->type == GW_STAT_TEXT) {
		st->text = fld[8];
	} else if (d->is_float) {
		char *end;

		st->d = strtod(fld[8], &end);
		if (!*fld[8] || *end) {
			return bad(err, len, ln, "bad number '%.32s'", fld[8]);
		}
	} else if (!parse_u64(fld[8], &st->u)) {
		return bad(err, len, ln, "bad integer '%.32s'", fld[8]);
	}
	s->n++;
	return 0;
}

int facts_parse(struct facts *s, char *text, size_t len, char *err,
		size_t errlen)
{
	struct descs ds = {0};
	char *line = text, *nl, *fld[10];
	size_t cap = 0, n;
	unsigned ln = 0;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	s->text = text;
	if (strlen(text) != len) {
		return bad(err, errlen, 1, "holds a NUL byte");
	}
	for (; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl) {
			ret = bad(err, errlen, ln + 1, "no line end");
			break;
		}
		*nl = '\0';
		ln++;
		n = split(line, fld, sizeof(fld) / sizeof(fld[0]));
		if (ln == 1) {
			char want[32];

			snprintf(want, sizeof(want), "l3bond-status %d",
				 FACTS_VERSION);
			if (n != 2 || strcmp(fld[0], want) ||
			    !unescape(fld[1])) {
				ret = bad(err, errlen, ln,
					  "not '%s' (another version?): "
					  "'%.40s'",
					  want, fld[0]);
				break;
			}
			s->version = fld[1];
		} else if (!strcmp(fld[0], "d")) {
			ret = desc_line(&ds, fld, n, ln, err, errlen);
		} else if (!strcmp(fld[0], "v")) {
			ret = value_line(s, &cap, &ds, fld, n, ln, err, errlen);
		}
		if (ret) {
			break;
		}
	}
	if (!ret && !ln) {
		ret = bad(err, errlen, 1, "empty");
	}
	free(ds.d);
	return ret;
}

void facts_free(struct facts *s)
{
	free(s->v);
	free(s->text);
	memset(s, 0, sizeof(*s));
}

const struct gw_stat *facts_find(const struct facts *s, size_t from,
				 enum gw_stat_scope scope, uint32_t session,
				 const char *path, const char *name)
{
	size_t i;

	for (i = from; i < s->n; i++) {
		const struct gw_stat *st = &s->v[i];

		if (st->scope == scope && !strcmp(st->name, name) &&
		    (scope == GW_SCOPE_DAEMON || st->session == session) &&
		    (!path || (st->path && !strcmp(st->path, path)))) {
			return st;
		}
	}
	return NULL;
}
