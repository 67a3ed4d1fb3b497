/* The daemon's counters in the Prometheus text exposition format 0.0.4,
 * over a minimal HTTP/1.1 server in the daemon's loop.
 *
 * GET or HEAD /metrics renders gw_stats_walk(); GET / is a page pointing
 * there.  Every connection carries one request and is closed after the
 * reply ("Connection: close"): no keep-alive, no pipelining, no chunking,
 * so a client costs one slot of M_CLIENTS, a fixed request buffer, and
 * its reply until it is written.  Nothing blocks the loop: sockets are
 * non-blocking, the reply goes out through a write watcher.
 *
 * Limits, each with its own outcome and counter:
 *   - request line malformed: 400 as soon as the line is complete;
 *     HTTP major version other than 1: 505;
 *   - method other than GET/HEAD: 405 with Allow; other paths: 404;
 *   - request header (line and fields) over M_REQ_MAX bytes: 431;
 *   - the whole request header must arrive within M_TIMEOUT_S of the
 *     accept, and a reply that makes no progress for M_TIMEOUT_S is given
 *     up: a silent or trickling client is closed ("timeout");
 *   - at most M_CLIENTS at once: a new connection beyond that takes the
 *     slot of a client that has its reply already, else evicts the oldest
 *     client that has not sent a byte yet ("evicted"), so idle
 *     connections cannot lock out a scraper; when every slot is busy with
 *     a request in progress, the new one is closed at once ("busy").
 * After the reply we shut down our side and read until the client closes
 * (at most M_DRAIN_S): closing with unread request bytes would send a
 * reset that can destroy the reply before the client read it (431).
 *
 * Exposition.  The walk yields values per scope and per path in path
 * order, so samples of one family (l3bond_path_tx_bytes_total of dsl and
 * of lte) arrive apart; the format wants each family's samples together
 * under one HELP and TYPE.  The samples are collected per family in the
 * order families first appear, then written family by family.
 *   - counters: l3bond_<scope prefix><name>_total, integers;
 *   - gauges: integers, or floats in their shortest round-trip form;
 *   - text values (GW_STAT_TEXT: role, peer address) are info gauges,
 *     Prometheus' convention for strings: l3bond_<...><name>_info with the
 *     text in a label named after the value itself, and the value 1:
 *     l3bond_path_peer_info{session="4242",path="lte",peer="..."} 1
 *     (the label is "value" when the name cannot be a label name or
 *     clashes with session, path or the stat's extra label, which is
 *     itself called "label" when its name cannot be used);
 *   - l3bond_build_info{version="..."} 1, and this server's own counters
 *     l3bond_metrics_*.
 * A walk value whose family name was already used with another type
 * cannot be written validly; it is skipped and counted
 * (l3bond_metrics_skipped_samples_total).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gateway/gw.h"
#include "gateway/stats.h"

/* The build passes the project's version (CMake PROJECT_VERSION). */
#ifndef L3BOND_VERSION
#define L3BOND_VERSION "unknown"
#endif

enum metrics_limits {
	M_CLIENTS = 16,	  /* connections at once */
	M_REQ_MAX = 8192, /* request line + header fields */
	M_TIMEOUT_S = 5,  /* request header in; reply stalled */
	M_DRAIN_S = 1,	  /* after the reply, for the client to close */
	M_BACKLOG = 32,
	M_ACCEPT_BUDGET = 32, /* accepts per loop iteration */
	M_RETRY_S = 1,	      /* accept paused after EMFILE and the like */
	M_DISCARD_READS = 16, /* reads of 4 KiB per wakeup while draining */
	M_NAME_MAX = 160,     /* a metric name */
	M_HDR_MAX = 512,      /* a reply's status line and fields */
};

/* The replies, in the order of l3bond_metrics_requests_total. */
enum code {
	C_200,
	C_400,
	C_404,
	C_405,
	C_431,
	C_500,
	C_505,
	C_MAX,
};

static const struct {
	unsigned num;
	const char *reason;
	const char *body;
} codes[C_MAX] = {
	[C_200] = {200, "OK", NULL},
	[C_400] = {400, "Bad Request", "bad request\n"},
	[C_404] = {404, "Not Found", "not found: try /metrics\n"},
	[C_405] = {405, "Method Not Allowed", "method not allowed\n"},
	[C_431] = {431, "Request Header Fields Too Large",
		   "request header too large\n"},
	[C_500] = {500, "Internal Server Error", "out of memory\n"},
	[C_505] = {505, "HTTP Version Not Supported", "HTTP/1.x only\n"},
};

/* Connections closed without a reply, by why. */
enum drop {
	D_BUSY,	   /* every slot had a request in progress */
	D_EVICTED, /* silent, and a new connection wanted the slot */
	D_TIMEOUT, /* request header not in time, or reply stalled */
	D_ABORTED, /* closed or reset by the client before a request */
	D_MAX,
};

static const char *const drop_names[D_MAX] = {
	[D_BUSY] = "busy",
	[D_EVICTED] = "evicted",
	[D_TIMEOUT] = "timeout",
	[D_ABORTED] = "aborted",
};

enum page {
	P_METRICS,
	P_INDEX,
	P_NONE,
};

enum client_state {
	CL_FREE = 0,
	CL_READ,  /* reading the request header */
	CL_WRITE, /* writing the reply */
	CL_DRAIN, /* reply written, waiting for the client to close */
};

struct client {
	struct gw_metrics *m;
	enum client_state state;
	int fd;
	uint64_t seq; /* accept order, for eviction */
	ev_io io;
	ev_timer timer;
	bool line_ok;	/* the request line was checked and is valid */
	enum code code; /* its outcome, once the header is complete */
	bool head;
	enum page page;
	size_t rlen;
	size_t scan; /* header end searched up to here */
	char *out;   /* the reply */
	size_t olen;
	size_t off;
	char req[M_REQ_MAX];
};

struct gw_metrics {
	struct gw *gw;
	int fd;
	ev_io accept_io;
	ev_timer retry_timer;
	char where[CONF_ADDR_MAX + 16]; /* "[::1]:9100", for logs */
	unsigned nclients;
	uint64_t seq;
	struct gw_ratelimit rl;
	uint64_t replies[C_MAX];
	uint64_t drops[D_MAX];
	uint64_t skipped; /* walk values not rendered (type clash) */
	struct client cl[M_CLIENTS];
};

/* ---- a growing buffer ---------------------------------------------------- */

struct buf {
	char *p;
	size_t len;
	size_t cap;
	bool oom; /* a write failed: the content is incomplete */
};

static bool grow(struct buf *b, size_t more)
{
	size_t cap;
	char *p;

	if (b->oom) {
		return false;
	}
	if (b->len + more + 1 <= b->cap) {
		return true;
	}
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more + 1) {
		cap *= 2;
	}
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

static void put(struct buf *b, const char *s, size_t n)
{
	if (!grow(b, n)) {
		return;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

static void __attribute__((format(printf, 2, 3)))
bprintf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !grow(b, (size_t)n)) {
		b->oom = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* A label value: backslash, double quote and line feed escaped. */
static void put_label_value(struct buf *b, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '\\':
			puts_(b, "\\\\");
			break;
		case '"':
			puts_(b, "\\\"");
			break;
		case '\n':
			puts_(b, "\\n");
			break;
		default:
			put(b, s, 1);
		}
	}
}

/* HELP text: backslash and line feed escaped (quotes are fine there). */
static void put_help(struct buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\') {
			puts_(b, "\\\\");
		} else if (*s == '\n') {
			puts_(b, "\\n");
		} else {
			put(b, s, 1);
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

/* ---- collecting samples by family ---------------------------------------- */

struct family {
	char *name;
	char *help;
	const char *type; /* "counter" or "gauge" */
	size_t head;	  /* first sample; SIZE_MAX: none */
	size_t tail;
};

struct sample {
	size_t off; /* its line in render.lines */
	size_t len;
	size_t next; /* next sample of its family; SIZE_MAX: last */
};

struct render {
	struct gw_metrics *m;
	struct family *fam;
	size_t nfam;
	size_t capfam;
	struct sample *smp;
	size_t nsmp;
	size_t capsmp;
	struct buf lines;
	struct buf labels; /* of the sample being made */
	bool oom;
};

/* A family by name, added if new.  A linear search: a few hundred
 * samples in a hundred-odd families, once per scrape. */
static struct family *family(struct render *r, const char *name,
			     const char *help, const char *type)
{
	struct family *f;
	size_t i;

	for (i = 0; i < r->nfam; i++) {
		if (!strcmp(r->fam[i].name, name)) {
			return &r->fam[i];
		}
	}
	if (r->nfam == r->capfam) {
		size_t cap = r->capfam ? 2 * r->capfam : 64;

		f = realloc(r->fam, cap * sizeof(*f));
		if (!f) {
			r->oom = true;
			return NULL;
		}
		r->fam = f;
		r->capfam = cap;
	}
	f = &r->fam[r->nfam];
	f->name = strdup(name);
	f->help = strdup(help && *help ? help : name);
	if (!f->name || !f->help) {
		free(f->name);
		free(f->help);
		r->oom = true;
		return NULL;
	}
	f->type = type;
	f->head = SIZE_MAX;
	f->tail = SIZE_MAX;
	r->nfam++;
	return f;
}

/* One sample: name{labels} value.  labels is the text between the braces,
 * already escaped ("" for none). */
static void sample(struct render *r, const char *name, const char *help,
		   const char *type, const char *labels, const char *value)
{
	struct family *f;
	struct sample *s;

	if (r->oom) {
		return;
	}
	f = family(r, name, help, type);
	if (!f) {
		return;
	}
	if (strcmp(f->type, type)) {
		r->m->skipped++;
		return;
	}
	if (r->nsmp == r->capsmp) {
		size_t cap = r->capsmp ? 2 * r->capsmp : 256;

		s = realloc(r->smp, cap * sizeof(*s));
		if (!s) {
			r->oom = true;
			return;
		}
		r->smp = s;
		r->capsmp = cap;
	}
	s = &r->smp[r->nsmp];
	s->off = r->lines.len;
	if (*labels) {
		bprintf(&r->lines, "%s{%s} %s\n", name, labels, value);
	} else {
		bprintf(&r->lines, "%s %s\n", name, value);
	}
	if (r->lines.oom) {
		r->oom = true;
		return;
	}
	s->len = r->lines.len - s->off;
	s->next = SIZE_MAX;
	if (f->tail == SIZE_MAX) {
		f->head = r->nsmp;
	} else {
		r->smp[f->tail].next = r->nsmp;
	}
	f->tail = r->nsmp;
	r->nsmp++;
}

static void label(struct buf *b, const char *name, const char *value)
{
	if (b->len) {
		puts_(b, ",");
	}
	bprintf(b, "%s=\"", name);
	put_label_value(b, value);
	puts_(b, "\"");
}

/* stats.h: daemon and session values have no prefix */
static const char *const scope_prefix[] = {
	[GW_SCOPE_DAEMON] = "",		 [GW_SCOPE_SESSION] = "",
	[GW_SCOPE_INGRESS] = "ingress_", [GW_SCOPE_EGRESS] = "egress_",
	[GW_SCOPE_PATH] = "path_",
};

/* gw_stat_fn: one value of the walk as a sample. */
static void on_stat(void *arg, const struct gw_stat *st)
{
	struct render *r = arg;
	char name[M_NAME_MAX], value[64], session[16];
	struct buf *labels = &r->labels;
	const char *type = "gauge";
	const char *xlabel = NULL; /* the extra label's name */
	const char *text_label;

	if (r->oom) {
		return;
	}
	labels->len = 0;
	if (labels->p) {
		*labels->p = '\0';
	}
	snprintf(name, sizeof(name), "l3bond_");
	if ((unsigned)st->scope <
	    sizeof(scope_prefix) / sizeof(scope_prefix[0])) {
		name_cat(name, sizeof(name), scope_prefix[st->scope]);
	}
	name_cat(name, sizeof(name), st->name);

	if (st->scope != GW_SCOPE_DAEMON && !st->global) {
		snprintf(session, sizeof(session), "%u", st->session);
		label(labels, "session", session);
		if (st->cpe && st->cpe[0]) {
			label(labels, "cpe", st->cpe);
		}
	}
	if (st->scope == GW_SCOPE_PATH) {
		label(labels, "path", st->path);
	}
	if (st->label) {
		/* dropping a name that cannot be used would make duplicate
		 * series: it becomes "label" */
		xlabel = st->label;
		if (!label_name_ok(xlabel) || !strcmp(xlabel, "session") ||
		    !strcmp(xlabel, "cpe") || !strcmp(xlabel, "path")) {
			xlabel = "label";
		}
		label(labels, xlabel, st->label_value);
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
	default:
		name_cat(name, sizeof(name), "_info");
		text_label = st->name;
		if (!label_name_ok(text_label) ||
		    !strcmp(text_label, "session") ||
		    !strcmp(text_label, "cpe") || !strcmp(text_label, "path") ||
		    (xlabel && !strcmp(text_label, xlabel))) {
			text_label = "value";
		}
		label(labels, text_label, st->text ? st->text : "");
		snprintf(value, sizeof(value), "1");
		break;
	}
	if (labels->oom) {
		r->oom = true;
	} else {
		sample(r, name, st->help, type, labels->p ? labels->p : "",
		       value);
	}
}

/* This server's own counters, rendered like walk values. */
static void own_metrics(struct render *r)
{
	const struct gw_metrics *m = r->m;
	char labels[64], value[32];
	unsigned i;

	for (i = 0; i < C_MAX; i++) {
		snprintf(labels, sizeof(labels), "code=\"%u\"", codes[i].num);
		snprintf(value, sizeof(value), "%llu",
			 (unsigned long long)m->replies[i]);
		sample(r, "l3bond_metrics_requests_total",
		       "HTTP requests answered by the metrics listener, by "
		       "status code",
		       "counter", labels, value);
	}
	for (i = 0; i < D_MAX; i++) {
		snprintf(labels, sizeof(labels), "reason=\"%s\"",
			 drop_names[i]);
		snprintf(value, sizeof(value), "%llu",
			 (unsigned long long)m->drops[i]);
		sample(r, "l3bond_metrics_dropped_connections_total",
		       "connections to the metrics listener closed without a "
		       "reply, by reason",
		       "counter", labels, value);
	}
	snprintf(value, sizeof(value), "%u", m->nclients);
	sample(r, "l3bond_metrics_connections",
	       "connections to the metrics listener open now", "gauge", "",
	       value);
	snprintf(value, sizeof(value), "%llu", (unsigned long long)m->skipped);
	sample(r, "l3bond_metrics_skipped_samples_total",
	       "daemon values left out of the exposition: their name was "
	       "taken by a metric of another type",
	       "counter", "", value);
}

static void render_free(struct render *r)
{
	size_t i;

	for (i = 0; i < r->nfam; i++) {
		free(r->fam[i].name);
		free(r->fam[i].help);
	}
	free(r->fam);
	free(r->smp);
	free(r->lines.p);
	free(r->labels.p);
}

/* The exposition into out.  0 or -ENOMEM. */
static int render(struct gw_metrics *m, struct buf *out)
{
	struct render r = {.m = m};
	size_t i, j;
	int err = 0;

	sample(&r, "l3bond_build_info",
	       "the l3bondd build: its version in the label", "gauge",
	       "version=\"" L3BOND_VERSION "\"", "1");
	gw_stats_walk(m->gw, on_stat, &r);
	own_metrics(&r);
	for (i = 0; i < r.nfam && !r.oom; i++) {
		const struct family *f = &r.fam[i];

		bprintf(out, "# HELP %s ", f->name);
		put_help(out, f->help);
		bprintf(out, "\n# TYPE %s %s\n", f->name, f->type);
		for (j = f->head; j != SIZE_MAX; j = r.smp[j].next) {
			put(out, r.lines.p + r.smp[j].off, r.smp[j].len);
		}
	}
	if (r.oom || out->oom) {
		err = -ENOMEM;
	}
	render_free(&r);
	return err;
}

/* ---- HTTP ---------------------------------------------------------------- */

static void client_close(struct client *c)
{
	struct gw_metrics *m = c->m;
	struct ev_loop *loop = m->gw->loop;

	ev_io_stop(loop, &c->io);
	ev_timer_stop(loop, &c->timer);
	close(c->fd);
	free(c->out);
	c->out = NULL;
	c->fd = -1;
	c->state = CL_FREE;
	m->nclients--;
}

static void client_drop(struct client *c, enum drop why)
{
	c->m->drops[why]++;
	client_close(c);
}

static void io_events(struct client *c, int events)
{
	struct ev_loop *loop = c->m->gw->loop;

	ev_io_stop(loop, &c->io);
	ev_io_set(&c->io, c->fd, events);
	ev_io_start(loop, &c->io);
}

/* The reply is out: our side closed, read until the client closes. */
static void client_drain(struct client *c)
{
	struct ev_loop *loop = c->m->gw->loop;

	free(c->out);
	c->out = NULL;
	shutdown(c->fd, SHUT_WR);
	c->state = CL_DRAIN;
	io_events(c, EV_READ);
	ev_timer_stop(loop, &c->timer);
	ev_timer_set(&c->timer, M_DRAIN_S, 0.);
	ev_timer_start(loop, &c->timer);
}

static void client_write(struct client *c)
{
	bool progress = false;
	ssize_t n;

	while (c->off < c->olen) {
		n = send(c->fd, c->out + c->off, c->olen - c->off,
			 MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				break;
			}
			/* reset or gone: the reply was counted, that is all
			 * we can say */
			client_close(c);
			return;
		}
		c->off += (size_t)n;
		progress = true;
	}
	if (c->off == c->olen) {
		client_drain(c);
		return;
	}
	if (progress) {
		/* a stalled reply times out, a slow one does not */
		ev_timer_again(c->m->gw->loop, &c->timer);
	}
}

static void http_date(char *out, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	if (!gmtime_r(&now, &tm) ||
	    !strftime(out, len, "%a, %d %b %Y %H:%M:%S GMT", &tm)) {
		*out = '\0';
	}
}

/* Starts the reply: status line, fields, and (not for HEAD) body.  The
 * caller has counted it. */
static void reply(struct client *c, enum code code, const char *ctype,
		  const char *body, size_t blen)
{
	struct ev_loop *loop = c->m->gw->loop;
	char hdr[M_HDR_MAX], date[64];
	int n;

	http_date(date, sizeof(date));
	n = snprintf(hdr, sizeof(hdr),
		     "HTTP/1.1 %u %s\r\n"
		     "Content-Type: %s\r\n"
		     "Content-Length: %zu\r\n"
		     "%s%s%s"
		     "%s"
		     "Connection: close\r\n"
		     "\r\n",
		     codes[code].num, codes[code].reason, ctype, blen,
		     *date ? "Date: " : "", date, *date ? "\r\n" : "",
		     code == C_405 ? "Allow: GET, HEAD\r\n" : "");
	if (n < 0 || (size_t)n >= sizeof(hdr)) {
		client_close(c); /* cannot happen: fixed fields */
		return;
	}
	if (c->head) {
		blen = 0;
	}
	c->out = malloc((size_t)n + blen);
	if (!c->out) {
		client_close(c);
		return;
	}
	memcpy(c->out, hdr, (size_t)n);
	if (blen) {
		memcpy(c->out + n, body, blen);
	}
	c->olen = (size_t)n + blen;
	c->off = 0;
	c->state = CL_WRITE;
	/* from now on the timer watches the reply's progress */
	ev_timer_stop(loop, &c->timer);
	ev_timer_set(&c->timer, M_TIMEOUT_S, M_TIMEOUT_S);
	ev_timer_start(loop, &c->timer);
	io_events(c, EV_WRITE);
	client_write(c);
}

static void reply_error(struct client *c, enum code code)
{
	c->m->replies[code]++;
	reply(c, code, "text/plain; charset=utf-8", codes[code].body,
	      strlen(codes[code].body));
}

static const char index_page[] =
	"<!DOCTYPE html>\n"
	"<html><head><title>l3bondd</title></head><body>\n"
	"<h1>l3bondd</h1>\n"
	"<p><a href=\"/metrics\">/metrics</a>: counters and state in the "
	"Prometheus text format</p>\n"
	"</body></html>\n";

static void respond(struct client *c)
{
	struct gw_metrics *m = c->m;
	struct buf body = {0};

	if (c->code != C_200) {
		reply_error(c, c->code);
		return;
	}
	m->replies[C_200]++; /* before rendering: a scrape counts itself */
	if (c->page == P_INDEX) {
		reply(c, C_200, "text/html; charset=utf-8", index_page,
		      sizeof(index_page) - 1);
		return;
	}
	if (render(m, &body)) {
		m->replies[C_200]--;
		free(body.p);
		gw_warn(m->gw, "metrics: out of memory rendering a scrape");
		reply_error(c, C_500);
		return;
	}
	reply(c, C_200, "text/plain; version=0.0.4; charset=utf-8", body.p,
	      body.len);
	free(body.p);
}

static bool tchar(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') ||
	       (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

/* The request line (without its line end): method SP target SP version,
 * RFC 9112 section 3.  Sets c->code, c->head and c->page. */
static void parse_line(struct client *c, const char *s, size_t len)
{
	size_t i = 0, mlen, t0, tlen, plen;
	const char *v;

	while (i < len && tchar(s[i])) {
		i++;
	}
	mlen = i;
	if (!mlen || i == len || s[i] != ' ') {
		goto bad;
	}
	t0 = ++i;
	while (i < len && s[i] > ' ' && s[i] < 0x7f) {
		i++;
	}
	tlen = i - t0;
	if (!tlen || i == len || s[i] != ' ') {
		goto bad;
	}
	v = s + i + 1;
	if (len - i - 1 != 8 || memcmp(v, "HTTP/", 5) || v[5] < '0' ||
	    v[5] > '9' || v[6] != '.' || v[7] < '0' || v[7] > '9') {
		goto bad;
	}
	if (v[5] != '1') {
		c->code = C_505;
		return;
	}
	if (mlen == 3 && !memcmp(s, "GET", 3)) {
		c->head = false;
	} else if (mlen == 4 && !memcmp(s, "HEAD", 4)) {
		c->head = true;
	} else {
		c->code = C_405;
		return;
	}
	/* the path, without a query */
	for (plen = 0; plen < tlen && s[t0 + plen] != '?'; plen++) {
	}
	if (plen == 8 && !memcmp(s + t0, "/metrics", 8)) {
		c->page = P_METRICS;
	} else if (plen == 1 && s[t0] == '/') {
		c->page = P_INDEX;
	} else {
		c->code = C_404;
		return;
	}
	c->code = C_200;
	return;
bad:
	c->code = C_400;
}

/* After new bytes: check the request line once it is complete (a
 * malformed one is answered at once), then look for the header's end. */
static void client_parse(struct client *c)
{
	size_t start = 0, i, j, end;
	const char *nl;

	/* RFC 9112 2.2: empty lines before the request line are ignored */
	while (start < c->rlen &&
	       (c->req[start] == '\r' || c->req[start] == '\n')) {
		start++;
	}
	if (!c->line_ok) {
		nl = memchr(c->req + start, '\n', c->rlen - start);
		if (!nl) {
			goto incomplete;
		}
		end = (size_t)(nl - c->req);
		if (end > start && c->req[end - 1] == '\r') {
			end--;
		}
		parse_line(c, c->req + start, end - start);
		if (c->code == C_400 || c->code == C_505) {
			respond(c);
			return;
		}
		c->line_ok = true;
		c->scan = (size_t)(nl - c->req);
	}
	/* the header ends with an empty line: LF [CR] LF */
	for (i = c->scan; i < c->rlen; i++) {
		if (c->req[i] != '\n') {
			continue;
		}
		j = i + 1;
		if (j < c->rlen && c->req[j] == '\r') {
			j++;
		}
		if (j < c->rlen && c->req[j] == '\n') {
			respond(c);
			return;
		}
		if (j >= c->rlen) {
			break; /* may complete with the next bytes */
		}
	}
	c->scan = i;
incomplete:
	if (c->rlen == sizeof(c->req)) {
		c->code = C_431;
		respond(c);
	}
}

static void client_read(struct client *c)
{
	ssize_t n;

	for (;;) {
		n = recv(c->fd, c->req + c->rlen, sizeof(c->req) - c->rlen, 0);
		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				client_drop(c, D_ABORTED);
			}
			return;
		}
		if (n == 0) {
			if (!c->rlen) {
				client_drop(c, D_ABORTED);
			} else {
				/* half a request, then the client's end: it
				 * may still read our answer */
				c->code = C_400;
				respond(c);
			}
			return;
		}
		c->rlen += (size_t)n;
		client_parse(c);
		if (c->state != CL_READ) {
			return;
		}
	}
}

/* What the client still sends after the reply, thrown away: a bounded
 * amount per wakeup, so that a flooding client cannot hold the loop. */
static void client_discard(struct client *c)
{
	char scratch[4096];
	unsigned i;
	ssize_t n;

	for (i = 0; i < M_DISCARD_READS; i++) {
		n = recv(c->fd, scratch, sizeof(scratch), 0);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			return;
		}
		if (n <= 0) {
			client_close(c);
			return;
		}
	}
}

static void on_client_io(struct ev_loop *loop, ev_io *w, int revents)
{
	struct client *c = container_of(w, struct client, io);

	(void)loop;
	(void)revents;
	switch (c->state) {
	case CL_READ:
		client_read(c);
		break;
	case CL_WRITE:
		client_write(c);
		break;
	case CL_DRAIN:
		client_discard(c);
		break;
	case CL_FREE:
		break;
	}
}

static void on_client_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct client *c = container_of(w, struct client, timer);

	(void)loop;
	(void)revents;
	if (c->state == CL_DRAIN) {
		client_close(c);
	} else {
		client_drop(c, D_TIMEOUT);
	}
}

/* A slot for a new connection: a free one, else that of a client whose
 * reply is already out (waiting for it to close), else the oldest client
 * that has not sent anything, else none. */
static struct client *slot(struct gw_metrics *m)
{
	struct client *c, *old = NULL;
	unsigned i;

	for (i = 0; i < M_CLIENTS; i++) {
		c = &m->cl[i];
		if (c->state == CL_FREE) {
			return c;
		}
	}
	for (i = 0; i < M_CLIENTS; i++) {
		c = &m->cl[i];
		if (c->state == CL_DRAIN) {
			client_close(c);
			return c;
		}
		if (c->state == CL_READ && !c->rlen &&
		    (!old || c->seq < old->seq)) {
			old = c;
		}
	}
	if (old) {
		client_drop(old, D_EVICTED);
	}
	return old;
}

static void client_start(struct gw_metrics *m, struct client *c, int fd)
{
	struct ev_loop *loop = m->gw->loop;

	c->m = m;
	c->fd = fd;
	c->seq = m->seq++;
	c->state = CL_READ;
	c->line_ok = false;
	c->code = C_400;
	c->head = false;
	c->page = P_NONE;
	c->rlen = 0;
	c->scan = 0;
	c->out = NULL;
	c->olen = 0;
	c->off = 0;
	m->nclients++;
	ev_io_init(&c->io, on_client_io, fd, EV_READ);
	ev_io_start(loop, &c->io);
	/* the whole request header within this, however it trickles in */
	ev_timer_init(&c->timer, on_client_timer, M_TIMEOUT_S, 0.);
	ev_timer_start(loop, &c->timer);
}

static void on_retry(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct gw_metrics *m = container_of(w, struct gw_metrics, retry_timer);

	(void)revents;
	ev_io_start(loop, &m->accept_io);
}

static void on_accept(struct ev_loop *loop, ev_io *w, int revents)
{
	struct gw_metrics *m = container_of(w, struct gw_metrics, accept_io);
	struct client *c;
	unsigned i;
	int fd;

	(void)revents;
	for (i = 0; i < M_ACCEPT_BUDGET; i++) {
		fd = accept4(m->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			switch (errno) {
			case EAGAIN:
#if EWOULDBLOCK != EAGAIN
			case EWOULDBLOCK:
#endif
				return;
			case EINTR:
			case ECONNABORTED:
			case EPROTO:
				continue;
			default:
				/* out of descriptors or memory: the pending
				 * connection stays readable, so stop asking
				 * for a while instead of spinning */
				if (gw_ratelimit_ok(&m->rl, gw_now_us())) {
					gw_warn(m->gw,
						"metrics: accept on %s: %s",
						m->where, strerror(errno));
				}
				ev_io_stop(loop, &m->accept_io);
				ev_timer_set(&m->retry_timer, M_RETRY_S, 0.);
				ev_timer_start(loop, &m->retry_timer);
				return;
			}
		}
		c = slot(m);
		if (!c) {
			m->drops[D_BUSY]++;
			close(fd);
			continue;
		}
		client_start(m, c, fd);
	}
}

/* ---- open and close ------------------------------------------------------ */

int gw_metrics_open(struct gw *gw)
{
	const struct conf *cf = &gw->conf;
	struct sockaddr_storage ss = {0};
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct gw_metrics *m;
	const char *addr;
	socklen_t slen;
	int one = 1, err;

	if (!cf->metrics_port) {
		return 0;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		return -ENOMEM;
	}
	m->gw = gw;
	m->fd = -1;
	addr = cf->metrics_address;
	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(cf->metrics_port);
		slen = sizeof(*sin);
		snprintf(m->where, sizeof(m->where), "%s:%u", addr,
			 cf->metrics_port);
	} else if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(cf->metrics_port);
		slen = sizeof(*sin6);
		snprintf(m->where, sizeof(m->where), "[%s]:%u", addr,
			 cf->metrics_port);
	} else {
		/* conf_load checked it: only a caller that bypassed it */
		gw_err(gw, "metrics: bad address '%s' (port %u)", addr,
		       cf->metrics_port);
		err = -EINVAL;
		goto free_m;
	}
	m->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       0);
	if (m->fd < 0) {
		err = -errno;
		gw_err(gw, "metrics: socket for %s: %s", m->where,
		       strerror(errno));
		goto free_m;
	}
	/* a restart must not wait for the old connections' TIME_WAIT */
	if (setsockopt(m->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    /* "::" means IPv6 only here: IPv4 is asked for as 0.0.0.0 */
	    (ss.ss_family == AF_INET6 &&
	     setsockopt(m->fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)))) {
		err = -errno;
		gw_err(gw, "metrics: socket options for %s: %s", m->where,
		       strerror(errno));
		goto close_fd;
	}
	if (bind(m->fd, (struct sockaddr *)&ss, slen) ||
	    listen(m->fd, M_BACKLOG)) {
		err = -errno;
		gw_err(gw, "metrics: cannot listen on %s: %s", m->where,
		       strerror(errno));
		goto close_fd;
	}
	ev_io_init(&m->accept_io, on_accept, m->fd, EV_READ);
	ev_io_start(gw->loop, &m->accept_io);
	ev_timer_init(&m->retry_timer, on_retry, M_RETRY_S, 0.);
	gw->metrics = m;
	gw_info(gw, "metrics: listening on http://%s/metrics", m->where);
	return 0;

close_fd:
	close(m->fd);
free_m:
	free(m);
	return err;
}

void gw_metrics_close(struct gw *gw)
{
	struct gw_metrics *m = gw->metrics;
	unsigned i;

	if (!m) {
		return;
	}
	for (i = 0; i < M_CLIENTS; i++) {
		if (m->cl[i].state != CL_FREE) {
			client_close(&m->cl[i]);
		}
	}
	ev_io_stop(gw->loop, &m->accept_io);
	ev_timer_stop(gw->loop, &m->retry_timer);
	close(m->fd);
	free(m);
	gw->metrics = NULL;
}
