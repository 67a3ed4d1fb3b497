/* The control socket of l3bondctl: an AF_UNIX stream socket in the loop.
 *
 * One request per connection, one line of at most CTL_LINE_MAX bytes:
 *
 *	status | status json | set KEY VALUE | reload | help
 *
 * The reply is "ok" or "error: <why>" on its first line, then the body;
 * then the daemon closes.  Two errors are about the connection rather
 * than the request, and l3bondctl tells them apart by their exact text:
 * CTL_E_PERM (the peer's credentials) and CTL_E_BUSY (CTL_CONN_MAX
 * clients already).
 *
 * Nothing here may hold up the packet path: every socket is non-blocking,
 * a request must arrive within CTL_TIMEOUT_S, a reply that the client does
 * not read goes out through a write watcher and is given up when no byte
 * moved for CTL_TIMEOUT_S.  Replies are capped at CTL_REPLY_MAX.
 *
 * Who may connect: the file is root:control_group 0660 (0600 without
 * that group), and SO_PEERCRED checks again on accept: uid 0, our euid, or
 * the group as the peer's primary or supplementary group.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "gateway/gw.h"
#include "gateway/stats.h"

enum ctl_limits {
	CTL_CONN_MAX = 16,	 /* clients at once */
	CTL_LINE_MAX = 256,	 /* request line, newline included */
	CTL_REPLY_MAX = 1 << 20, /* reply, bytes */
	CTL_TIMEOUT_S = 2,	 /* no progress for this long: closed */
	CTL_ACCEPT_BUDGET = 32,	 /* accepts per wake-up */
	CTL_BACKLOG = 32,
	CTL_GROUPS_MAX = 4096, /* supplementary groups looked at */
	CTL_PAUSE_S = 1,       /* accepting paused after EMFILE and the like */
};

#define CTL_E_PERM "error: permission denied\n"
#define CTL_E_BUSY "error: too many connections, try again\n"

/* A growing reply; once over CTL_REPLY_MAX it stops growing and says so. */
struct ctl_buf {
	char *p;
	size_t len;
	size_t cap;
	bool over;
};

struct ctl_conn {
	struct gw_ctl *ctl;
	int fd; /* -1: free */
	ev_io io;
	ev_timer timer;
	char line[CTL_LINE_MAX + 1];
	size_t llen;
	struct ctl_buf out;
	size_t off; /* bytes of out already written */
};

struct gw_ctl {
	struct gw *gw;
	int fd;
	ev_io io;
	ev_timer pause; /* accepting again after a failed accept */
	char path[CONF_PATH_MAX];
	bool have_group;
	gid_t gid;
	unsigned nconn;
	struct ctl_conn conn[CTL_CONN_MAX];
};

/* ---- replies ----------------------------------------------------------- */

static void buf_free(struct ctl_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static void buf_add(struct ctl_buf *b, const char *s, size_t n)
{
	size_t cap;
	char *p;

	if (b->over) {
		return;
	}
	if (b->len + n > CTL_REPLY_MAX) {
		b->over = true;
		return;
	}
	if (b->len + n > b->cap) {
		cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n) {
			cap *= 2;
		}
		p = realloc(b->p, cap);
		if (!p) {
			b->over = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void __attribute__((format(printf, 2, 3)))
bprintf(struct ctl_buf *b, const char *fmt, ...)
{
	char small[512], *big = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		return;
	}
	if ((size_t)n < sizeof(small)) {
		buf_add(b, small, (size_t)n);
		return;
	}
	big = malloc((size_t)n + 1);
	if (!big) {
		b->over = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	buf_add(b, big, (size_t)n);
	free(big);
}

/* A JSON string, escaped (RFC 8259): quotes, backslash, control bytes. */
static void json_str(struct ctl_buf *b, const char *s)
{
	buf_add(b, "\"", 1);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			bprintf(b, "\\%c", c);
		} else if (c < 0x20 || c == 0x7f) {
			bprintf(b, "\\u%04x", c);
		} else {
			buf_add(b, s, 1);
		}
	}
	buf_add(b, "\"", 1);
}

/* The walk, copied: the table needs values from all over it, and the
 * walk's text values live only during the call. */
struct snap_ent {
	struct gw_stat st;
	char text[64];
};

struct snap {
	struct snap_ent *e;
	size_t n;
	size_t cap;
	bool nomem;
};

static void snap_add(void *arg, const struct gw_stat *st)
{
	struct snap *s = arg;
	struct snap_ent *e;

	if (s->nomem) {
		return;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;

		e = realloc(s->e, cap * sizeof(*e));
		if (!e) {
			s->nomem = true;
			return;
		}
		s->e = e;
		s->cap = cap;
	}
	e = &s->e[s->n++];
	e->st = *st;
	if (st->type == GW_STAT_TEXT) {
		snprintf(e->text, sizeof(e->text), "%s",
			 st->text ? st->text : "");
		e->st.text = e->text;
	}
}

static const struct snap_ent *find(const struct snap *s, size_t from,
				   enum gw_stat_scope scope, uint32_t session,
				   const char *path, const char *name)
{
	size_t i;

	for (i = from; i < s->n; i++) {
		const struct gw_stat *st = &s->e[i].st;

		if (st->scope == scope && !strcmp(st->name, name) &&
		    (scope == GW_SCOPE_DAEMON || st->session == session) &&
		    (!path || (st->path && !strcmp(st->path, path)))) {
			return &s->e[i];
		}
	}
	return NULL;
}

static uint64_t val_u(const struct snap *s, enum gw_stat_scope scope,
		      uint32_t session, const char *path, const char *name)
{
	const struct snap_ent *e = find(s, 0, scope, session, path, name);

	return e ? e->st.u : 0;
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

static const char *val_s(const struct snap *s, enum gw_stat_scope scope,
			 uint32_t session, const char *path, const char *name,
			 char *buf, size_t len)
{
	const struct snap_ent *e = find(s, 0, scope, session, path, name);

	if (!e) {
		snprintf(buf, len, "-");
	} else {
		val_text(&e->st, buf, len);
	}
	return buf;
}

enum {
	COLS = 12,
	CELL = 40,
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

static void path_row(const struct snap *s, uint32_t ses, const char *p,
		     char row[COLS][CELL])
{
	enum gw_stat_scope P = GW_SCOPE_PATH;
	char b[CELL];

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
	snprintf(row[7], CELL, "%s", val_s(s, P, ses, p, "weight", b, CELL));
	val_s(s, P, ses, p, "tx_pkts", row[8], CELL);
	val_s(s, P, ses, p, "tx_bytes", row[9], CELL);
	val_s(s, P, ses, p, "rx_pkts", row[10], CELL);
	val_s(s, P, ses, p, "rx_bytes", row[11], CELL);
}

static void put_row(struct ctl_buf *b, char row[COLS][CELL], const unsigned *w)
{
	unsigned c;

	for (c = 0; c < COLS; c++) {
		if (c == COLS - 1) {
			bprintf(b, "%s\n", row[c]);
		} else {
			bprintf(b, "%-*s  ", (int)w[c], row[c]);
		}
	}
}

/* "name value" pairs of the named values of one scope, on one line;
 * names shown without the prefix strip ("hole_"). */
static void pairs(struct ctl_buf *b, const struct snap *s,
		  enum gw_stat_scope scope, uint32_t ses, const char *title,
		  const char *const *names, bool nonzero, const char *strip)
{
	size_t sl = strip ? strlen(strip) : 0;
	char v[CELL];
	bool any = false;

	bprintf(b, "%-10s", title);
	for (; *names; names++) {
		const struct snap_ent *e = find(s, 0, scope, ses, NULL, *names);

		if (!e || (nonzero && e->st.type != GW_STAT_TEXT && !e->st.u &&
			   !e->st.d)) {
			continue;
		}
		val_text(&e->st, v, sizeof(v));
		bprintf(b, "%s%s %s", any ? "  " : "",
			sl && !strncmp(*names, strip, sl) ? *names + sl
							  : *names,
			v);
		any = true;
	}
	bprintf(b, "%s\n", any ? "" : "none");
}

/* Every labelled value of name in scope that is not zero: "short 3 ...". */
static void labelled_nonzero(struct ctl_buf *b, const struct snap *s,
			     enum gw_stat_scope scope, uint32_t ses,
			     const char *title, const char *name)
{
	bool any = false;
	size_t i;

	bprintf(b, "%-10s", title);
	for (i = 0; i < s->n; i++) {
		const struct gw_stat *st = &s->e[i].st;

		if (st->scope == scope && st->session == ses && st->label &&
		    !strcmp(st->name, name) && st->u) {
			bprintf(b, "%s%s %llu", any ? "  " : "",
				st->label_value, (unsigned long long)st->u);
			any = true;
		}
	}
	bprintf(b, "%s\n", any ? "" : "none");
}

static void render_session(struct ctl_buf *b, const struct snap *s,
			   size_t first, uint32_t ses, const char *cpe)
{
	static const char *const tunables[] = {
		"k",
		"t_dwd_ms",
		"t_report_ms",
		"w_fixed",
		"w_mobile_max",
		"dwd_hold_ms",
		"t_lto_ms",
		"t_lto_eff_us",
		"early_release",
		"probe_interval_ms",
		"dead_after_ms",
		"log_level",
		NULL,
	};
	static const char *const ing[] = {
		"bonded", "no_path", "no_session", "reports", "awi",
		"iwi",	  "dwd",     "dwd_held",   NULL,
	};
	static const char *const egr[] = {
		"released",
		"in_order",
		"buffered",
		NULL,
	};
	static const char *const holes[] = {
		"hole_timeout",	  "hole_early", "hole_overflow",
		"hole_path_down", "hole_flush", NULL,
	};
	static const char *const late[] = {"late", "dup", NULL};
	static const char *const other[] = {
		"oversize", "inner_family", "via_tun",	"tun_errors",
		"spoofed",  "no_slot",	    "overflow", NULL,
	};
	enum gw_stat_scope S = GW_SCOPE_SESSION, E = GW_SCOPE_EGRESS,
			   I = GW_SCOPE_INGRESS;
	char row[COLS][CELL], v1[CELL];
	unsigned w[COLS], c;
	size_t i;

	bprintf(b, "\n");
	if (*cpe) {
		bprintf(b, "cpe       %s\n", cpe);
	}
	bprintf(b, "session   %u  %s  handshakes %llu  %s\n", ses,
		val_s(s, S, ses, NULL, "session_state", v1, CELL),
		(unsigned long long)val_u(s, S, ses, NULL, "handshakes"),
		val_u(s, S, ses, NULL, "encrypt") ? "encrypted"
						  : "authenticated");
	pairs(b, s, S, ses, "tunables", tunables, false, NULL);
	bprintf(b, "w_mobile  %s\n",
		val_s(s, S, ses, NULL, "w_mobile", v1, CELL));
	bprintf(b, "\n");

	/* the path table: widths from the widest cell of each column */
	for (c = 0; c < COLS; c++) {
		w[c] = (unsigned)strlen(path_cols[c]);
	}
	for (i = first; i < s->n; i++) {
		const struct gw_stat *st = &s->e[i].st;

		if (st->scope != GW_SCOPE_PATH || st->session != ses ||
		    strcmp(st->name, "class")) {
			continue;
		}
		path_row(s, ses, st->path, row);
		for (c = 0; c < COLS; c++) {
			if (strlen(row[c]) > w[c]) {
				w[c] = (unsigned)strlen(row[c]);
			}
		}
	}
	for (c = 0; c < COLS; c++) {
		snprintf(row[c], CELL, "%s", path_cols[c]);
	}
	put_row(b, row, w);
	for (i = first; i < s->n; i++) {
		const struct gw_stat *st = &s->e[i].st;

		if (st->scope != GW_SCOPE_PATH || st->session != ses ||
		    strcmp(st->name, "class")) {
			continue;
		}
		path_row(s, ses, st->path, row);
		put_row(b, row, w);
	}
	bprintf(b, "\n");

	pairs(b, s, I, ses, "ingress", ing, false, NULL);
	pairs(b, s, E, ses, "egress", egr, false, NULL);
	bprintf(b, "reorder   depth %llu of %llu\n",
		(unsigned long long)val_u(s, E, ses, NULL, "depth"),
		(unsigned long long)val_u(s, E, ses, NULL, "capacity"));
	pairs(b, s, E, ses, "holes", holes, false, "hole_");
	pairs(b, s, E, ses, "drops", late, false, NULL);
	labelled_nonzero(b, s, E, ses, "auth", "auth");
	labelled_nonzero(b, s, E, ses, "body", "body");
	pairs(b, s, E, ses, "other", other, true, NULL);
}

/* The two queues' own values (global): what happens before a session is
 * known. */
static void render_queues(struct ctl_buf *b, const struct snap *s)
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

	bprintf(b, "mtu       inner packets up to %llu bytes, TCP MSS %llu\n",
		(unsigned long long)val_u(s, I, 0, NULL, "inner_max"),
		(unsigned long long)val_u(s, I, 0, NULL, "mss"));
	pairs(b, s, I, 0, "ingress", ing, false, NULL);
	pairs(b, s, E, 0, "egress", egr, false, NULL);
	bprintf(b,
		"kernel    queue drops: ingress %llu (user %llu)  egress "
		"%llu (user %llu)\n",
		(unsigned long long)val_u(s, I, 0, NULL, "kernel_dropped"),
		(unsigned long long)val_u(s, I, 0, NULL, "kernel_user_dropped"),
		(unsigned long long)val_u(s, E, 0, NULL, "kernel_dropped"),
		(unsigned long long)val_u(s, E, 0, NULL,
					  "kernel_user_dropped"));
	labelled_nonzero(b, s, E, 0, "wire", "wire");
}

static void render_table(struct ctl_buf *b, const struct snap *s)
{
	const struct snap_ent *e;
	uint64_t ms;
	char v[CELL];
	size_t i;

	bprintf(b, "role      %s\n",
		val_s(s, GW_SCOPE_DAEMON, 0, NULL, "role", v, CELL));
	ms = val_u(s, GW_SCOPE_DAEMON, 0, NULL, "uptime_ms");
	bprintf(b, "uptime    %llud %02llu:%02llu:%02llu (%llu ms)\n",
		(unsigned long long)(ms / 86400000),
		(unsigned long long)(ms / 3600000 % 24),
		(unsigned long long)(ms / 60000 % 60),
		(unsigned long long)(ms / 1000 % 60), (unsigned long long)ms);
	render_queues(b, s);
	/* each session starts with its "session" value */
	for (i = 0; i < s->n; i++) {
		e = &s->e[i];
		if (e->st.scope == GW_SCOPE_SESSION &&
		    !strcmp(e->st.name, "session")) {
			render_session(b, s, i, e->st.session,
				       e->st.cpe ? e->st.cpe : "");
		}
	}
}

/* The walk as nested JSON: daemon values at the top, then "sessions",
 * each with its values, "ingress", "egress" and "paths"; labelled values
 * as an object by label value ("wire": {"short": 3}). */
static void json_val(struct ctl_buf *b, const struct gw_stat *st)
{
	if (st->type == GW_STAT_TEXT) {
		json_str(b, st->text);
	} else if (st->is_float) {
		if (isfinite(st->d)) {
			bprintf(b, "%.10g", st->d);
		} else {
			bprintf(b, "null");
		}
	} else {
		bprintf(b, "%llu", (unsigned long long)st->u);
	}
}

static void render_json(struct ctl_buf *b, const struct snap *s)
{
	enum { IN_TOP, IN_SESSION, IN_SECTION, IN_PATHS } at = IN_TOP;
	enum gw_stat_scope section = GW_SCOPE_SESSION;
	const char *path = NULL, *group = NULL;
	bool sessions = false;
	size_t i;

	bprintf(b, "{");
	for (i = 0; i < s->n; i++) {
		const struct gw_stat *st = &s->e[i].st;
		bool first = false; /* no comma before this member */

		/* close the labelled group when this value is not in it */
		if (group &&
		    (!st->label || strcmp(group, st->name) ||
		     st->scope != section ||
		     (st->scope == GW_SCOPE_PATH && strcmp(path, st->path)))) {
			bprintf(b, "}");
			group = NULL;
		}
		if (st->scope == GW_SCOPE_DAEMON) {
			first = i == 0;
		} else if (st->scope == GW_SCOPE_SESSION &&
			   !strcmp(st->name, "session")) {
			/* a new session: close what is open */
			if (at == IN_PATHS) {
				bprintf(b, "}]");
			} else if (at == IN_SECTION) {
				bprintf(b, "}");
			}
			if (sessions) {
				bprintf(b, "},{");
			} else {
				bprintf(b, "%s\"sessions\":[{", i ? "," : "");
				sessions = true;
			}
			at = IN_SESSION;
			first = true;
		} else if (st->scope == GW_SCOPE_INGRESS ||
			   st->scope == GW_SCOPE_EGRESS) {
			if (at != IN_SECTION || section != st->scope) {
				if (at == IN_SECTION) {
					bprintf(b, "}");
				}
				bprintf(b, ",\"%s\":{",
					st->scope == GW_SCOPE_INGRESS
						? "ingress"
						: "egress");
				at = IN_SECTION;
				section = st->scope;
				first = true;
			}
		} else if (st->scope == GW_SCOPE_PATH) {
			if (at != IN_PATHS) {
				if (at == IN_SECTION) {
					bprintf(b, "}");
				}
				bprintf(b, ",\"paths\":[{\"name\":");
				json_str(b, st->path);
				at = IN_PATHS;
				path = st->path;
			} else if (strcmp(path, st->path)) {
				bprintf(b, "},{\"name\":");
				json_str(b, st->path);
				path = st->path;
			}
			section = GW_SCOPE_PATH;
		}
		if (st->label && group) {
			/* the next member of the open group */
			bprintf(b, ",");
		} else {
			if (!first) {
				bprintf(b, ",");
			}
			json_str(b, st->name);
			bprintf(b, ":");
			if (st->label) {
				bprintf(b, "{");
				group = st->name;
			}
		}
		if (st->label) {
			json_str(b, st->label_value);
			bprintf(b, ":");
		}
		json_val(b, st);
	}
	if (group) {
		bprintf(b, "}");
	}
	if (at == IN_PATHS) {
		bprintf(b, "}]");
	} else if (at == IN_SECTION) {
		bprintf(b, "}");
	}
	if (sessions) {
		bprintf(b, "}]");
	}
	bprintf(b, "}\n");
}

/* ---- requests --------------------------------------------------------- */

/* The runtime keys and their ranges come from the key table
 * (common/conf_keys.c, CONF_RUNTIME): what set takes is what it lists. */
static void do_help(struct ctl_buf *out)
{
	const struct conf_key_info *k;
	char range[48];
	size_t i;

	bprintf(out,
		"ok\n"
		"requests (one per connection, one line):\n"
		"  status         counters and state as a table\n"
		"  status json    the same as JSON\n"
		"  set KEY VALUE  change a tunable now, runtime only:\n"
		"                 a reload or a restart reads the file again\n"
		"                 KEY, its meaning and range:\n");
	for (i = 0; (k = conf_key(i)); i++) {
		if (k->group == CONF_TOP && k->apply == CONF_RUNTIME) {
			conf_key_range(k, range, sizeof(range));
			bprintf(out, "    %-18s %s%s%s\n", k->name, k->help,
				range[0] ? ", " : "", range);
		}
	}
	bprintf(out, "  reload         read the configuration file again (as "
		     "SIGHUP)\n"
		     "  help           this text\n"
		     "reply: \"ok\" or \"error: <why>\" on the first line, "
		     "then the body\n");
}

static void do_status(struct gw *gw, struct ctl_buf *out, bool json)
{
	struct snap s = {0};

	gw_stats_walk(gw, snap_add, &s);
	if (s.nomem) {
		bprintf(out, "error: out of memory\n");
	} else {
		bprintf(out, "ok\n");
		if (json) {
			render_json(out, &s);
		} else {
			render_table(out, &s);
		}
	}
	free(s.e);
}

static void do_set(struct gw *gw, struct ctl_buf *out, const char *key,
		   const char *value)
{
	char err[CONF_ERR_MAX];
	/* the scalars only: conf_set changes no CPE, and gw_apply_conf
	 * copies the CPEs c shares with gw->conf before it frees them */
	struct conf c = gw->conf;
	int ret;

	ret = conf_set(&c, key, value, err, sizeof(err));
	if (!ret) {
		ret = gw_apply_conf(gw, &c, err, sizeof(err));
	}
	auth_key_wipe(&c.psk);
	if (ret) {
		bprintf(out, "error: %s\n", err);
		return;
	}
	gw_info(gw, "l3bondctl: set %s %s", key, value);
	bprintf(out,
		"ok\n%s set to %s (runtime only: a reload or a restart "
		"reads the file again)\n",
		key, value);
}

static void do_reload(struct gw *gw, struct ctl_buf *out)
{
	char err[CONF_ERR_MAX];

	gw_info(gw, "l3bondctl: reloading %s", gw->conf_file);
	if (gw_reload(gw, err, sizeof(err))) {
		bprintf(out, "error: %s\n", err);
		return;
	}
	bprintf(out, "ok\nreloaded %s\n", gw->conf_file);
}

/* Bytes of a request that may be echoed back: printable ASCII. */
static void sanitize(char *s)
{
	for (; *s; s++) {
		if (!isprint((unsigned char)*s)) {
			*s = '?';
		}
	}
}

static void handle(struct gw *gw, char *line, struct ctl_buf *out)
{
	char *argv[4], *save = NULL, *t;
	int argc = 0;

	for (t = strtok_r(line, " \t", &save); t;
	     t = strtok_r(NULL, " \t", &save)) {
		if (argc == 4) {
			break;
		}
		argv[argc++] = t;
	}
	if (!argc) {
		bprintf(out, "error: empty request (try help)\n");
	} else if (!strcmp(argv[0], "status") && argc == 1) {
		do_status(gw, out, false);
	} else if (!strcmp(argv[0], "status") && argc == 2 &&
		   !strcmp(argv[1], "json")) {
		do_status(gw, out, true);
	} else if (!strcmp(argv[0], "set") && argc == 3) {
		do_set(gw, out, argv[1], argv[2]);
	} else if (!strcmp(argv[0], "reload") && argc == 1) {
		do_reload(gw, out);
	} else if (!strcmp(argv[0], "help") && argc == 1) {
		do_help(out);
	} else if (!strcmp(argv[0], "status") || !strcmp(argv[0], "set") ||
		   !strcmp(argv[0], "reload") || !strcmp(argv[0], "help")) {
		bprintf(out, "error: %s: wrong arguments (try help)\n",
			argv[0]);
	} else {
		sanitize(argv[0]);
		bprintf(out, "error: unknown request '%.64s' (try help)\n",
			argv[0]);
	}
}

/* ---- connections ------------------------------------------------------ */

static void conn_close(struct ctl_conn *cn)
{
	struct gw_ctl *ctl = cn->ctl;
	struct ev_loop *loop = ctl->gw->loop;

	ev_io_stop(loop, &cn->io);
	ev_timer_stop(loop, &cn->timer);
	close(cn->fd);
	cn->fd = -1;
	buf_free(&cn->out);
	ctl->nconn--;
}

/* Writes what the socket takes; true when the reply is out. */
static bool conn_flush(struct ctl_conn *cn)
{
	while (cn->off < cn->out.len) {
		ssize_t n =
			send(cn->fd, cn->out.p + cn->off, cn->out.len - cn->off,
			     MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			return false;
		}
		if (n <= 0) {
			return true; /* the client is gone: nothing to send */
		}
		cn->off += (size_t)n;
	}
	return true;
}

static void conn_on_write(struct ev_loop *loop, ev_io *w, int revents);

static void conn_reply(struct ctl_conn *cn)
{
	struct ev_loop *loop = cn->ctl->gw->loop;

	cn->line[cn->llen] = '\0';
	handle(cn->ctl->gw, cn->line, &cn->out);
	if (cn->out.over) {
		buf_free(&cn->out);
		bprintf(&cn->out, "error: reply longer than %d bytes\n",
			CTL_REPLY_MAX);
	}
	ev_io_stop(loop, &cn->io);
	if (conn_flush(cn)) {
		conn_close(cn);
		return;
	}
	ev_io_init(&cn->io, conn_on_write, cn->fd, EV_WRITE);
	ev_io_start(loop, &cn->io);
	ev_timer_again(loop, &cn->timer);
}

static void conn_on_write(struct ev_loop *loop, ev_io *w, int revents)
{
	struct ctl_conn *cn = container_of(w, struct ctl_conn, io);

	(void)revents;
	if (conn_flush(cn)) {
		conn_close(cn);
		return;
	}
	ev_timer_again(loop, &cn->timer); /* it moved: more time */
}

static void conn_on_read(struct ev_loop *loop, ev_io *w, int revents)
{
	struct ctl_conn *cn = container_of(w, struct ctl_conn, io);
	char *nl;
	ssize_t n;

	(void)revents;
	n = recv(cn->fd, cn->line + cn->llen, CTL_LINE_MAX - cn->llen,
		 MSG_DONTWAIT);
	if (n < 0 &&
	    (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
		return;
	}
	if (n < 0) {
		conn_close(cn);
		return;
	}
	if (n == 0) {
		/* the client shut its side: a last line without newline
		 * still counts, nothing at all is just a goodbye */
		if (cn->llen) {
			conn_reply(cn);
		} else {
			conn_close(cn);
		}
		return;
	}
	cn->llen += (size_t)n;
	nl = memchr(cn->line, '\n', cn->llen);
	if (nl) {
		cn->llen = (size_t)(nl - cn->line);
		if (cn->llen && cn->line[cn->llen - 1] == '\r') {
			cn->llen--;
		}
		conn_reply(cn);
	} else if (memchr(cn->line, '\0', cn->llen)) {
		cn->llen = 0;
		bprintf(&cn->out, "error: request holds a NUL byte\n");
		ev_io_stop(loop, &cn->io);
		conn_flush(cn);
		conn_close(cn);
	} else if (cn->llen == CTL_LINE_MAX) {
		bprintf(&cn->out, "error: request longer than %d bytes\n",
			CTL_LINE_MAX - 1);
		ev_io_stop(loop, &cn->io);
		conn_flush(cn);
		conn_close(cn);
	}
}

static void conn_on_timeout(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct ctl_conn *cn = container_of(w, struct ctl_conn, timer);

	(void)loop;
	(void)revents;
	if (!cn->out.len) {
		/* still reading: tell it why, if it listens */
		bprintf(&cn->out, "error: no request within %d s\n",
			CTL_TIMEOUT_S);
		conn_flush(cn);
	}
	conn_close(cn);
}

/* A one-line reply to a connection we do not keep. */
static void refuse(int fd, const char *msg)
{
	ssize_t n = send(fd, msg, strlen(msg), MSG_DONTWAIT | MSG_NOSIGNAL);

	(void)n; /* best effort: the client may be gone already */
	close(fd);
}

/* uid 0, our euid, or the control group as primary or supplementary. */
static bool peer_allowed(const struct gw_ctl *ctl, int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	gid_t small[64], *g = small;
	bool ok = false;
	size_t i;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
		return false;
	}
	if (cr.uid == 0 || cr.uid == geteuid()) {
		return true;
	}
	if (!ctl->have_group) {
		return false;
	}
	if (cr.gid == ctl->gid) {
		return true;
	}
	len = sizeof(small);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) < 0) {
		if (errno != ERANGE || len > CTL_GROUPS_MAX * sizeof(gid_t)) {
			return false;
		}
		g = malloc(len);
		if (!g ||
		    getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) < 0) {
			free(g);
			return false;
		}
	}
	for (i = 0; i < len / sizeof(gid_t); i++) {
		if (g[i] == ctl->gid) {
			ok = true;
			break;
		}
	}
	if (g != small) {
		free(g);
	}
	return ok;
}

static void on_accept(struct ev_loop *loop, ev_io *w, int revents)
{
	struct gw_ctl *ctl = container_of(w, struct gw_ctl, io);
	struct ctl_conn *cn = NULL;
	unsigned i, n;
	int fd;

	(void)revents;
	for (n = 0; n < CTL_ACCEPT_BUDGET; n++) {
		fd = accept4(ctl->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR && errno != ECONNABORTED) {
				/* out of descriptors or memory: the socket
				 * stays readable, so a watcher left on would
				 * spin; try again later */
				gw_warn(ctl->gw,
					"control socket: accept: %s; paused "
					"for %d s",
					strerror(errno), CTL_PAUSE_S);
				ev_io_stop(loop, &ctl->io);
				ev_timer_set(&ctl->pause, CTL_PAUSE_S, 0.);
				ev_timer_start(loop, &ctl->pause);
			}
			return;
		}
		if (!peer_allowed(ctl, fd)) {
			refuse(fd, CTL_E_PERM);
			continue;
		}
		if (ctl->nconn == CTL_CONN_MAX) {
			refuse(fd, CTL_E_BUSY);
			continue;
		}
		for (i = 0; i < CTL_CONN_MAX; i++) {
			if (ctl->conn[i].fd < 0) {
				cn = &ctl->conn[i];
				break;
			}
		}
		cn->fd = fd;
		cn->llen = 0;
		cn->off = 0;
		memset(&cn->out, 0, sizeof(cn->out));
		ctl->nconn++;
		ev_io_init(&cn->io, conn_on_read, fd, EV_READ);
		ev_io_start(loop, &cn->io);
		ev_timer_init(&cn->timer, conn_on_timeout, 0., CTL_TIMEOUT_S);
		ev_timer_again(loop, &cn->timer);
	}
}

static void on_pause_end(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct gw_ctl *ctl = container_of(w, struct gw_ctl, pause);

	(void)revents;
	ev_io_start(loop, &ctl->io);
}

/* ---- the listening socket --------------------------------------------- */

/* mkdir -p of path's parent directory, new ones 0755. */
static int make_parent(const char *path)
{
	char dir[CONF_PATH_MAX];
	char *p;

	snprintf(dir, sizeof(dir), "%s", path);
	p = strrchr(dir, '/');
	if (!p || p == dir) {
		return 0;
	}
	*p = '\0';
	for (p = dir + 1; *p; p++) {
		if (*p != '/') {
			continue;
		}
		*p = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			return -errno;
		}
		*p = '/';
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		return -errno;
	}
	return 0;
}

/* A socket file already there: ours to replace only if nobody answers. */
static int clear_stale(struct gw *gw, const struct sockaddr_un *sa)
{
	const char *path = sa->sun_path;
	struct stat sb;
	int fd, ret;

	if (lstat(path, &sb) < 0) {
		return errno == ENOENT ? 0 : -errno;
	}
	if (!S_ISSOCK(sb.st_mode)) {
		gw_err(gw, "control socket %s: exists and is not a socket",
		       path);
		return -EEXIST;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		return -errno;
	}
	ret = connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
	if (ret < 0 && errno == ECONNREFUSED) {
		close(fd);
		gw_info(gw, "control socket %s: removing a stale socket", path);
		if (unlink(path) < 0 && errno != ENOENT) {
			return -errno;
		}
		return 0;
	}
	ret = ret < 0 ? -errno : 0;
	close(fd);
	if (!ret || ret == -EAGAIN) {
		/* connected, or its backlog is full: someone listens */
		gw_err(gw, "another l3bondd listens on %s", path);
		return -EADDRINUSE;
	}
	gw_err(gw, "control socket %s: cannot check it: %s", path,
	       strerror(-ret));
	return ret;
}

int gw_ctl_open(struct gw *gw)
{
	const char *path = gw->conf.control_socket;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct gw_ctl *ctl;
	struct group *gr;
	mode_t old;
	unsigned i;
	int ret;

	if (!*path) {
		gw_info(gw, "no control socket (control_socket is \"\")");
		return 0;
	}
	if (strlen(path) >= sizeof(sa.sun_path)) {
		gw_err(gw, "control socket %s: path too long", path);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);
	ctl = calloc(1, sizeof(*ctl));
	if (!ctl) {
		return -ENOMEM;
	}
	ctl->gw = gw;
	snprintf(ctl->path, sizeof(ctl->path), "%s", path);
	for (i = 0; i < CTL_CONN_MAX; i++) {
		ctl->conn[i].fd = -1;
		ctl->conn[i].ctl = ctl;
	}
	ret = make_parent(path);
	if (ret) {
		gw_err(gw, "control socket %s: cannot create its directory: %s",
		       path, strerror(-ret));
		goto out_free;
	}
	ret = clear_stale(gw, &sa);
	if (ret) {
		goto out_free;
	}
	ctl->fd =
		socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (ctl->fd < 0) {
		ret = -errno;
		goto out_free;
	}
	/* born 0600: no moment where others could connect */
	old = umask(0177);
	ret = bind(ctl->fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (ret < 0) {
		ret = -errno;
		gw_err(gw, "control socket %s: bind: %s", path, strerror(-ret));
		goto out_close;
	}
	gr = getgrnam(gw->conf.control_group);
	if (!gr) {
		gw_warn(gw,
			"control socket %s: group '%s' does not exist: only "
			"root may use it (mode 0600)",
			path, gw->conf.control_group);
	} else if (chown(path, (uid_t)-1, gr->gr_gid) < 0 ||
		   chmod(path, 0660) < 0) {
		gw_warn(gw,
			"control socket %s: cannot give it to group '%s': %s "
			"(mode 0600)",
			path, gw->conf.control_group, strerror(errno));
	} else {
		ctl->have_group = true;
		ctl->gid = gr->gr_gid;
	}
	if (listen(ctl->fd, CTL_BACKLOG) < 0) {
		ret = -errno;
		goto out_unlink;
	}
	ev_io_init(&ctl->io, on_accept, ctl->fd, EV_READ);
	ev_io_start(gw->loop, &ctl->io);
	ev_timer_init(&ctl->pause, on_pause_end, 0., 0.);
	gw->ctl = ctl;
	gw_info(gw, "control socket %s (group %s)", path,
		ctl->have_group ? gw->conf.control_group : "none: root only");
	return 0;

out_unlink:
	unlink(path);
out_close:
	close(ctl->fd);
out_free:
	free(ctl);
	return ret;
}

void gw_ctl_close(struct gw *gw)
{
	struct gw_ctl *ctl = gw->ctl;
	unsigned i;

	if (!ctl) {
		return;
	}
	for (i = 0; i < CTL_CONN_MAX; i++) {
		if (ctl->conn[i].fd >= 0) {
			conn_close(&ctl->conn[i]);
		}
	}
	ev_io_stop(gw->loop, &ctl->io);
	ev_timer_stop(gw->loop, &ctl->pause);
	close(ctl->fd);
	unlink(ctl->path);
	free(ctl);
	gw->ctl = NULL;
}
