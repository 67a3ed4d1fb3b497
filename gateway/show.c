/* SPDX-License-Identifier: BSD-2-Clause */
/* The presentations of the status data (show.h): the table, JSON and the
 * Prometheus exposition, from a parsed snapshot (facts.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "gateway/show.h"

static int stream_err(FILE *f)
{
	return ferror(f) ? -EIO : 0;
}

/* ---- the table ------------------------------------------------------------ */

/* The daemon's version, from the first line of its status data. */
static const char *version_of(const struct facts *s)
{
	return s->version ? s->version : "unknown";
}

static uint64_t val_u(const struct facts *s, enum gw_stat_scope scope,
		      uint32_t session, const char *path, const char *name)
{
	const struct gw_stat *st = facts_find(s, 0, scope, session, path, name);

	return st ? st->u : 0;
}

/* A value as the table prints it: %g for floats, text as it is. */
static void val_text(const struct gw_stat *st, char *buf, size_t len)
{
	if (st->type == GW_STAT_TEXT) {
		snprintf(buf, len, "%s", st->text);
	} else if (st->is_float) {
		snprintf(buf, len, "%g", st->d);
	} else {
		snprintf(buf, len, "%llu", (unsigned long long)st->u);
	}
}

static const char *val_s(const struct facts *s, enum gw_stat_scope scope,
			 uint32_t session, const char *path, const char *name,
			 char *buf, size_t len)
{
	const struct gw_stat *st = facts_find(s, 0, scope, session, path, name);

	if (!st) {
		snprintf(buf, len, "-");
	} else {
		val_text(st, buf, len);
	}
	return buf;
}

enum {
	COLS = 12,
	CELL = 64,
};

static const char *const path_cols[COLS] = {
	"path",
	"class",
	"state",
	"peer",
	"srtt/rttvar ms",
	"loss in lost/rx",
	"loss out lost/sent",
	"weight",
	"tx pkts",
	"tx bytes",
	"rx pkts",
	"rx bytes",
};

static void path_row(const struct facts *s, uint32_t ses, const char *p,
		     char row[COLS][CELL])
{
	enum gw_stat_scope P = GW_SCOPE_PATH;

	snprintf(row[0], CELL, "%s", p);
	val_s(s, P, ses, p, "class", row[1], CELL);
	snprintf(row[2], CELL, "%s", val_u(s, P, ses, p, "up") ? "up" : "down");
	val_s(s, P, ses, p, "peer", row[3], CELL);
	if (val_u(s, P, ses, p, "rtt_samples")) {
		snprintf(row[4], CELL, "%.1f/%.1f",
			 val_u(s, P, ses, p, "srtt_us") / 1000.,
			 val_u(s, P, ses, p, "rttvar_us") / 1000.);
	} else {
		snprintf(row[4], CELL, "-");
	}
	snprintf(row[5], CELL, "%llu/%llu",
		 (unsigned long long)val_u(s, P, ses, p, "data_lost"),
		 (unsigned long long)val_u(s, P, ses, p, "data_rx"));
	snprintf(row[6], CELL, "%llu/%llu",
		 (unsigned long long)val_u(s, P, ses, p, "out_lost"),
		 (unsigned long long)val_u(s, P, ses, p, "tx_pkts"));
	val_s(s, P, ses, p, "weight", row[7], CELL);
	val_s(s, P, ses, p, "tx_pkts", row[8], CELL);
	val_s(s, P, ses, p, "tx_bytes", row[9], CELL);
	val_s(s, P, ses, p, "rx_pkts", row[10], CELL);
	val_s(s, P, ses, p, "rx_bytes", row[11], CELL);
}

static void put_row(FILE *f, char row[COLS][CELL], const unsigned *w)
{
	unsigned c;

	for (c = 0; c < COLS; c++) {
		if (c == COLS - 1) {
			fprintf(f, "%s\n", row[c]);
		} else {
			fprintf(f, "%-*s  ", (int)w[c], row[c]);
		}
	}
}

/* "name value" pairs of the named values of one scope, on one line;
 * names shown without the prefix strip ("hole_"). */
static void pairs(FILE *f, const struct facts *s, enum gw_stat_scope scope,
		  uint32_t ses, const char *title, const char *const *names,
		  bool nonzero, const char *strip)
{
	size_t sl = strip ? strlen(strip) : 0;
	char v[CELL];
	bool any = false;

	fprintf(f, "%-10s", title);
	for (; *names; names++) {
		const struct gw_stat *st =
			facts_find(s, 0, scope, ses, NULL, *names);

		if (!st || (nonzero && st->type != GW_STAT_TEXT && !st->u &&
			    !st->d)) {
			continue;
		}
		val_text(st, v, sizeof(v));
		fprintf(f, "%s%s %s", any ? "  " : "",
			sl && !strncmp(*names, strip, sl) ? *names + sl
							  : *names,
			v);
		any = true;
	}
	fprintf(f, "%s\n", any ? "" : "none");
}

/* Every labelled value of name in scope that is not zero: "short 3 ...". */
static void labelled_nonzero(FILE *f, const struct facts *s,
			     enum gw_stat_scope scope, uint32_t ses,
			     const char *title, const char *name)
{
	bool any = false;
	size_t i;

	fprintf(f, "%-10s", title);
	for (i = 0; i < s->n; i++) {
		const struct gw_stat *st = &s->v[i];

		if (st->scope == scope && st->session == ses && st->label &&
		    !strcmp(st->name, name) && st->u) {
			fprintf(f, "%s%s %llu", any ? "  " : "",
				st->label_value, (unsigned long long)st->u);
			any = true;
		}
	}
	fprintf(f, "%s\n", any ? "" : "none");
}

/* The next path of session ses from i on: the index of its first value
 * ("class"), or s->n. */
static size_t next_path(const struct facts *s, size_t i, uint32_t ses)
{
	for (; i < s->n; i++) {
		const struct gw_stat *st = &s->v[i];

		if (st->scope == GW_SCOPE_PATH && st->session == ses &&
		    !strcmp(st->name, "class")) {
			break;
		}
	}
	return i;
}

static void table_session(FILE *f, const struct facts *s, size_t first,
			  uint32_t ses, const char *cpe)
{
	static const char *const tunables[] = {
		"k",
		"t_dwd_ms",
		"t_report_ms",
		"w_fixed",
		"w_mobile_max",
		"queue_target_ms",
		"rate_auto",
		"mobile_aqm_ms",
		"t_lto_ms",
		"t_lto_eff_us",
		"t_lto_floor_us",
		"early_release",
		"repair_queue_ms",
		"probe_interval_ms",
		"dead_after_ms",
		"idle_probe_ms",
		"log_level",
		NULL,
	};
	static const char *const ing[] = {
		"bonded", "no_path", "no_session", "reports",  "awi",
		"iwi",	  "dwd",     "dwd_held",   "qwi",      "sparse",
		"paced",  "overflow", "aqm_drops", "repaired", NULL,
	};
	static const char *const egr[] = {
		"released",
		"in_order",
		"flow_now",
		"flow_early",
		"buffered",
		"late",
		NULL,
	};
	static const char *const holes[] = {
		"hole_timeout",	  "hole_early", "hole_overflow",
		"hole_path_down", "hole_flush", NULL,
	};
	static const char *const late[] = {"too_old", "dup", NULL};
	static const char *const repair[] = {
		"repair_asked",	 "repair_filled", "repair_timeout",
		"repair_queued", "repair_capped", NULL,
	};
	static const char *const other[] = {
		"oversize", "inner_family", "via_tun",	"tun_errors",
		"spoofed",  "no_slot",	    "overflow", NULL,
	};
	enum gw_stat_scope S = GW_SCOPE_SESSION, E = GW_SCOPE_EGRESS,
			   I = GW_SCOPE_INGRESS;
	char row[COLS][CELL], v1[CELL];
	unsigned w[COLS], c;
	size_t i;

	fprintf(f, "\n");
	if (*cpe) {
		fprintf(f, "cpe       %s\n", cpe);
	}
	fprintf(f, "session   %u  %s  handshakes %llu  %s\n", ses,
		val_s(s, S, ses, NULL, "session_state", v1, CELL),
		(unsigned long long)val_u(s, S, ses, NULL, "handshakes"),
		val_u(s, S, ses, NULL, "encrypt") ? "encrypted"
						  : "authenticated");
	/* a CPE that left the first of its peers (each path's peer column
	 * is the address in use) */
	if (val_u(s, S, ses, NULL, "peer_moves")) {
		fprintf(f, "peers     entry %llu in use (0: the first), moves "
			   "%llu, returns %llu\n",
			(unsigned long long)val_u(s, S, ses, NULL, "peer_entry"),
			(unsigned long long)val_u(s, S, ses, NULL, "peer_moves"),
			(unsigned long long)val_u(s, S, ses, NULL,
						  "peer_returns"));
	}
	pairs(f, s, S, ses, "tunables", tunables, false, NULL);
	fprintf(f, "w_mobile  %s\n",
		val_s(s, S, ses, NULL, "w_mobile", v1, CELL));
	fprintf(f, "\n");

	/* the path table: widths from the widest cell of each column */
	for (c = 0; c < COLS; c++) {
		w[c] = (unsigned)strlen(path_cols[c]);
	}
	for (i = next_path(s, first, ses); i < s->n;
	     i = next_path(s, i + 1, ses)) {
		path_row(s, ses, s->v[i].path, row);
		for (c = 0; c < COLS; c++) {
			if (strlen(row[c]) > w[c]) {
				w[c] = (unsigned)strlen(row[c]);
			}
		}
	}
	for (c = 0; c < COLS; c++) {
		snprintf(row[c], CELL, "%s", path_cols[c]);
	}
	put_row(f, row, w);
	for (i = next_path(s, first, ses); i < s->n;
	     i = next_path(s, i + 1, ses)) {
		path_row(s, ses, s->v[i].path, row);
		put_row(f, row, w);
	}
	fprintf(f, "\n");

	pairs(f, s, I, ses, "ingress", ing, false, NULL);
	pairs(f, s, E, ses, "egress", egr, false, NULL);
	fprintf(f, "reorder   depth %llu of %llu\n",
		(unsigned long long)val_u(s, E, ses, NULL, "depth"),
		(unsigned long long)val_u(s, E, ses, NULL, "capacity"));
	pairs(f, s, E, ses, "holes", holes, false, "hole_");
	pairs(f, s, E, ses, "drops", late, false, NULL);
	pairs(f, s, E, ses, "repair", repair, true, "repair_");
	labelled_nonzero(f, s, E, ses, "auth", "auth");
	labelled_nonzero(f, s, E, ses, "body", "body");
	pairs(f, s, E, ses, "other", other, true, NULL);
}

/* The two queues' own values (global): what happens before a session is
 * known. */
static void table_queues(FILE *f, const struct facts *s)
{
	static const char *const ing[] = {
		"pkts",		  "no_cpe",	"unfit",      "too_big",
		"too_big_mute",	  "fragmented", "outer_frag", "icmp_errors",
		"verdict_errors", NULL,
	};
	static const char *const egr[] = {
		"pkts", "outer_bad",	  "outer_ext6",	    "session",
		"path", "verdict_errors", "no_kernel_time", NULL,
	};
	enum gw_stat_scope E = GW_SCOPE_EGRESS, I = GW_SCOPE_INGRESS;

	fprintf(f, "mtu       inner packets up to %llu bytes, TCP MSS %llu\n",
		(unsigned long long)val_u(s, I, 0, NULL, "inner_max"),
		(unsigned long long)val_u(s, I, 0, NULL, "mss"));
	pairs(f, s, I, 0, "ingress", ing, false, NULL);
	pairs(f, s, E, 0, "egress", egr, false, NULL);
	fprintf(f,
		"kernel    queue drops: ingress %llu (user %llu)  egress "
		"%llu (user %llu)\n",
		(unsigned long long)val_u(s, I, 0, NULL, "kernel_dropped"),
		(unsigned long long)val_u(s, I, 0, NULL, "kernel_user_dropped"),
		(unsigned long long)val_u(s, E, 0, NULL, "kernel_dropped"),
		(unsigned long long)val_u(s, E, 0, NULL,
					  "kernel_user_dropped"));
	labelled_nonzero(f, s, E, 0, "wire", "wire");
}

int show_table(FILE *f, const struct facts *s)
{
	char v[CELL];
	uint64_t ms;
	size_t i;

	fprintf(f, "role      %s\n",
		val_s(s, GW_SCOPE_DAEMON, 0, NULL, "role", v, CELL));
	fprintf(f, "version   %s\n", version_of(s));
	ms = val_u(s, GW_SCOPE_DAEMON, 0, NULL, "uptime_ms");
	fprintf(f, "uptime    %llud %02llu:%02llu:%02llu (%llu ms)\n",
		(unsigned long long)(ms / 86400000),
		(unsigned long long)(ms / 3600000 % 24),
		(unsigned long long)(ms / 60000 % 60),
		(unsigned long long)(ms / 1000 % 60), (unsigned long long)ms);
	table_queues(f, s);
	/* each session starts with its "session" value */
	for (i = 0; i < s->n; i++) {
		const struct gw_stat *st = &s->v[i];

		if (st->scope == GW_SCOPE_SESSION &&
		    !strcmp(st->name, "session")) {
			table_session(f, s, i, st->session,
				      st->cpe ? st->cpe : "");
		}
	}
	return stream_err(f);
}

/* ---- JSON ------------------------------------------------------------------ */

static struct json_object *json_val(const struct gw_stat *st)
{
	char num[32];

	if (st->type == GW_STAT_TEXT) {
		return json_object_new_string(st->text);
	}
	if (st->is_float) {
		if (!isfinite(st->d)) {
			return NULL; /* json-c writes null */
		}
		/* the text as l3bondctl always wrote it */
		snprintf(num, sizeof(num), "%.10g", st->d);
		return json_object_new_double_s(st->d, num);
	}
	return json_object_new_uint64(st->u);
}

/* parent[key] as an object or an array, made if missing. */
static struct json_object *child(struct json_object *parent, const char *key,
				 bool array)
{
	struct json_object *o;

	if (json_object_object_get_ex(parent, key, &o)) {
		return o;
	}
	o = array ? json_object_new_array() : json_object_new_object();
	if (o && json_object_object_add(parent, key, o)) {
		json_object_put(o);
		o = NULL;
	}
	return o;
}

static int json_add(struct json_object *parent, const struct gw_stat *st)
{
	struct json_object *v = json_val(st), *group;
	bool null_ok = st->is_float && !isfinite(st->d);

	if (!v && !null_ok) {
		return -ENOMEM;
	}
	if (st->label) {
		group = child(parent, st->name, false);
		if (!group) {
			json_object_put(v);
			return -ENOMEM;
		}
		parent = group;
	}
	if (json_object_object_add(parent, st->label ? st->label_value
						     : st->name,
				   v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

/* The walk's order makes the nesting: a "session" value opens a session,
 * a path's values follow one another. */
static int json_build(struct json_object *top, const struct facts *s)
{
	struct json_object *sessions = NULL, *ses = NULL, *path = NULL, *o;
	const char *path_name = NULL;
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct gw_stat *st = &s->v[i];
		struct json_object *parent = top;

		switch (st->scope) {
		case GW_SCOPE_DAEMON:
			break;
		case GW_SCOPE_SESSION:
			if (!strcmp(st->name, "session")) {
				if (!sessions) {
					sessions = child(top, "sessions", true);
				}
				ses = json_object_new_object();
				if (!sessions || !ses ||
				    json_object_array_add(sessions, ses)) {
					json_object_put(ses);
					return -ENOMEM;
				}
				path = NULL;
			}
			parent = ses;
			break;
		case GW_SCOPE_INGRESS:
		case GW_SCOPE_EGRESS:
			parent = child(st->global ? top : ses,
				       st->scope == GW_SCOPE_INGRESS ? "ingress"
								     : "egress",
				       false);
			break;
		case GW_SCOPE_PATH:
			if (!path || strcmp(path_name, st->path)) {
				o = ses ? child(ses, "paths", true) : NULL;
				path = json_object_new_object();
				if (!o || !path ||
				    json_object_array_add(o, path) ||
				    json_object_object_add(
					    path, "name",
					    json_object_new_string(st->path))) {
					return -ENOMEM;
				}
				path_name = st->path;
			}
			parent = path;
			break;
		}
		if (!parent) {
			/* a session's value before any session: out of the
			 * walk's order, or no memory */
			return ses ? -ENOMEM : -EPROTO;
		}
		if (json_add(parent, st)) {
			return -ENOMEM;
		}
	}
	return 0;
}

int show_json(FILE *f, const struct facts *s)
{
	struct json_object *top = json_object_new_object(), *v;
	const char *text;
	int ret;

	if (!top) {
		return -ENOMEM;
	}
	/* first, as in the data; no value of the walk is named so */
	v = json_object_new_string(version_of(s));
	if (!v || json_object_object_add(top, "version", v)) {
		json_object_put(v);
		ret = -ENOMEM;
	} else {
		ret = json_build(top, s);
	}
	if (!ret) {
		text = json_object_to_json_string_ext(
			top, JSON_C_TO_STRING_PLAIN |
				     JSON_C_TO_STRING_NOSLASHESCAPE);
		if (!text) {
			ret = -ENOMEM;
		} else {
			fprintf(f, "%s\n", text);
			ret = stream_err(f);
		}
	}
	json_object_put(top);
	return ret;
}

/* ---- the exposition --------------------------------------------------------- */

enum { NAME_MAX_ = 160 };

struct family {
	char *name;
	char *help;
	const char *type; /* "counter" or "gauge" */
	size_t head;	  /* first sample; SIZE_MAX: none */
	size_t tail;
};

struct sample {
	char *line; /* name{labels} value\n */
	size_t next; /* next sample of its family; SIZE_MAX: last */
};

struct expo {
	struct family *fam;
	size_t nfam;
	size_t capfam;
	struct sample *smp;
	size_t nsmp;
	size_t capsmp;
	uint64_t skipped;
	bool oom;
};

struct expo *expo_new(void)
{
	return calloc(1, sizeof(struct expo));
}

void expo_free(struct expo *e)
{
	size_t i;

	if (!e) {
		return;
	}
	for (i = 0; i < e->nfam; i++) {
		free(e->fam[i].name);
		free(e->fam[i].help);
	}
	for (i = 0; i < e->nsmp; i++) {
		free(e->smp[i].line);
	}
	free(e->fam);
	free(e->smp);
	free(e);
}

uint64_t expo_skipped(const struct expo *e)
{
	return e->skipped;
}

/* A family by name, added if new.  A linear search: a few hundred
 * samples in a hundred-odd families, once per scrape. */
static struct family *family(struct expo *e, const char *name,
			     const char *help, const char *type)
{
	struct family *f;
	size_t i;

	for (i = e->nfam; i > 0; i--) {
		if (!strcmp(e->fam[i - 1].name, name)) {
			return &e->fam[i - 1];
		}
	}
	if (e->nfam == e->capfam) {
		size_t cap = e->capfam ? 2 * e->capfam : 64;

		f = realloc(e->fam, cap * sizeof(*f));
		if (!f) {
			e->oom = true;
			return NULL;
		}
		e->fam = f;
		e->capfam = cap;
	}
	f = &e->fam[e->nfam];
	f->name = strdup(name);
	f->help = strdup(help && *help ? help : name);
	if (!f->name || !f->help) {
		free(f->name);
		free(f->help);
		e->oom = true;
		return NULL;
	}
	f->type = type;
	f->head = SIZE_MAX;
	f->tail = SIZE_MAX;
	e->nfam++;
	return f;
}

void expo_sample(struct expo *e, const char *name, const char *help,
		 const char *type, const char *labels, const char *value)
{
	struct family *f;
	struct sample *s;
	int n;

	if (e->oom) {
		return;
	}
	f = family(e, name, help, type);
	if (!f) {
		return;
	}
	if (strcmp(f->type, type)) {
		e->skipped++;
		return;
	}
	if (e->nsmp == e->capsmp) {
		size_t cap = e->capsmp ? 2 * e->capsmp : 256;

		s = realloc(e->smp, cap * sizeof(*s));
		if (!s) {
			e->oom = true;
			return;
		}
		e->smp = s;
		e->capsmp = cap;
	}
	s = &e->smp[e->nsmp];
	if (*labels) {
		n = asprintf(&s->line, "%s{%s} %s\n", name, labels, value);
	} else {
		n = asprintf(&s->line, "%s %s\n", name, value);
	}
	if (n < 0) {
		e->oom = true;
		return;
	}
	s->next = SIZE_MAX;
	if (f->tail == SIZE_MAX) {
		f->head = e->nsmp;
	} else {
		e->smp[f->tail].next = e->nsmp;
	}
	f->tail = e->nsmp;
	e->nsmp++;
}

/* A label value: backslash, double quote and line feed escaped. */
static void put_label_value(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '\\':
			fputs("\\\\", f);
			break;
		case '"':
			fputs("\\\"", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

/* HELP text: backslash and line feed escaped (quotes are fine there). */
static void put_help(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\') {
			fputs("\\\\", f);
		} else if (*s == '\n') {
			fputs("\\n", f);
		} else {
			fputc(*s, f);
		}
	}
}

static bool name_char(char ch, bool first)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       ch == '_' || (!first && ch >= '0' && ch <= '9');
}

/* Can s be a label name ([a-zA-Z_][a-zA-Z0-9_]*, not reserved "__")? */
static bool label_name_ok(const char *s)
{
	size_t i;

	if (!s || !*s || !strncmp(s, "__", 2)) {
		return false;
	}
	for (i = 0; s[i]; i++) {
		if (!name_char(s[i], i == 0)) {
			return false;
		}
	}
	return true;
}

/* Appends s to a metric name, anything outside [a-zA-Z0-9_] as '_' (the
 * walk promises [a-z0-9_]; this keeps the exposition valid if it slips). */
static void name_cat(char *dst, size_t len, const char *s)
{
	size_t n = strlen(dst);

	for (; s && *s && n + 1 < len; s++) {
		dst[n++] = name_char(*s, false) ? *s : '_';
	}
	dst[n] = '\0';
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* The shortest text that reads back as d (%g at the least precision
 * that round-trips); Prometheus' spellings of the special values. */
static void fmt_double(char *out, size_t len, double d)
{
	int prec;

	if (isnan(d)) {
		snprintf(out, len, "NaN");
		return;
	}
	if (isinf(d)) {
		snprintf(out, len, d > 0 ? "+Inf" : "-Inf");
		return;
	}
	/* whole numbers as such: 50, not the shortest 5e+01 */
	if (d == floor(d) && fabs(d) < 1e15) {
		snprintf(out, len, "%.0f", d);
		return;
	}
	for (prec = 1; prec < 17; prec++) {
		snprintf(out, len, "%.*g", prec, d);
		if (strtod(out, NULL) == d) {
			return;
		}
	}
	snprintf(out, len, "%.17g", d);
}

/* name="value", escaped, after a comma when labels has some already */
static void label(FILE *f, bool *any, const char *name, const char *value)
{
	fprintf(f, "%s%s=\"", *any ? "," : "", name);
	put_label_value(f, value);
	fputc('"', f);
	*any = true;
}

/* stats.h: daemon and session values have no prefix */
static const char *const scope_prefix[] = {
	[GW_SCOPE_DAEMON] = "",		 [GW_SCOPE_SESSION] = "",
	[GW_SCOPE_INGRESS] = "ingress_", [GW_SCOPE_EGRESS] = "egress_",
	[GW_SCOPE_PATH] = "path_",
};

static void expo_stat(struct expo *e, const struct gw_stat *st)
{
	char name[NAME_MAX_], value[64], session[16];
	const char *type = "gauge";
	const char *xlabel = NULL; /* the value's own label's name */
	const char *text_label;
	char *labels = NULL;
	size_t llen = 0;
	bool any = false;
	FILE *lf;

	lf = open_memstream(&labels, &llen);
	if (!lf) {
		e->oom = true;
		return;
	}
	snprintf(name, sizeof(name), "l3bond_");
	if ((unsigned)st->scope <
	    sizeof(scope_prefix) / sizeof(scope_prefix[0])) {
		name_cat(name, sizeof(name), scope_prefix[st->scope]);
	}
	name_cat(name, sizeof(name), st->name);
	if (st->scope != GW_SCOPE_DAEMON && !st->global) {
		snprintf(session, sizeof(session), "%u", st->session);
		label(lf, &any, "session", session);
		if (st->cpe && st->cpe[0]) {
			label(lf, &any, "cpe", st->cpe);
		}
	}
	if (st->scope == GW_SCOPE_PATH) {
		label(lf, &any, "path", st->path);
	}
	if (st->label) {
		/* dropping a name that cannot be used would make duplicate
		 * series: it becomes "label" */
		xlabel = st->label;
		if (!label_name_ok(xlabel) || !strcmp(xlabel, "session") ||
		    !strcmp(xlabel, "cpe") || !strcmp(xlabel, "path")) {
			xlabel = "label";
		}
		label(lf, &any, xlabel, st->label_value);
	}
	switch (st->type) {
	case GW_STAT_COUNTER:
		type = "counter";
		if (!ends_with(name, "_total")) {
			name_cat(name, sizeof(name), "_total");
		}
		snprintf(value, sizeof(value), "%llu",
			 (unsigned long long)st->u);
		break;
	case GW_STAT_GAUGE:
		if (st->is_float) {
			fmt_double(value, sizeof(value), st->d);
		} else {
			snprintf(value, sizeof(value), "%llu",
				 (unsigned long long)st->u);
		}
		break;
	case GW_STAT_TEXT:
		/* the text in a label named after the value ("role") */
		text_label = st->name;
		if (!label_name_ok(text_label) ||
		    !strcmp(text_label, "session") ||
		    !strcmp(text_label, "cpe") || !strcmp(text_label, "path") ||
		    (xlabel && !strcmp(text_label, xlabel))) {
			text_label = "value";
		}
		label(lf, &any, text_label, st->text);
		name_cat(name, sizeof(name), "_info");
		snprintf(value, sizeof(value), "1");
		break;
	}
	if (fclose(lf) || !labels) {
		free(labels);
		e->oom = true;
		return;
	}
	expo_sample(e, name, st->help, type, labels, value);
	free(labels);
}

void expo_facts(struct expo *e, const struct facts *s)
{
	char *labels = NULL;
	size_t len = 0, i;
	bool any = false;
	FILE *lf = open_memstream(&labels, &len);

	if (!lf) {
		e->oom = true;
		return;
	}
	label(lf, &any, "version", version_of(s));
	if (fclose(lf) || !labels) {
		free(labels);
		e->oom = true;
		return;
	}
	expo_sample(e, "l3bond_build_info",
		    "the l3bondd build: its version in the label", "gauge",
		    labels, "1");
	free(labels);
	for (i = 0; i < s->n && !e->oom; i++) {
		expo_stat(e, &s->v[i]);
	}
}

int expo_write(struct expo *e, FILE *f)
{
	size_t i, j;

	for (i = 0; i < e->nfam && !e->oom; i++) {
		const struct family *fam = &e->fam[i];

		fprintf(f, "# HELP %s ", fam->name);
		put_help(f, fam->help);
		fprintf(f, "\n# TYPE %s %s\n", fam->name, fam->type);
		for (j = fam->head; j != SIZE_MAX; j = e->smp[j].next) {
			fputs(e->smp[j].line, f);
		}
	}
	if (e->oom) {
		return -ENOMEM;
	}
	return stream_err(f);
}
