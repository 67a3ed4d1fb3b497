/* SPDX-License-Identifier: BSD-2-Clause */
/* The status data of the control socket: the stats walk (stats.h) as
 * text lines, written by the daemon (ctl.c), read back by its clients
 * (l3bondctl, l3bond-exporter), which present it (show.h).  The daemon
 * renders nothing: this format is the whole of what it says.
 *
 * Version 1.  The reply to "status" after its "ok" line:
 *
 *	l3bond-status 1 <daemon version>
 *	d <scope> <name> <type> <help>
 *	v <scope> <name> <session> <cpe> <path> <label> <label value> <value>
 *
 * fields separated by one tab, one line each, in the walk's order.  A "d"
 * line describes the values of (scope, name) that follow it, until
 * another "d" line of the same scope and name: it comes before the first
 * of them, so a name repeated per session is described once.
 *	scope	daemon | session | ingress | egress | path
 *	type	counter | gauge | float (a gauge with a fractional value) |
 *		text
 *	session	decimal; empty for the daemon scope and for the queues' own
 *		values (ingress and egress scope, no session: "global")
 *	cpe	the session's CPE name, empty for the plain one
 *	path	the path's name (path scope), else empty
 *	label	an extra label's name ("reason") and its value, or both empty
 *	value	counter, gauge: decimal; float: %.17g (exact), "nan", "inf";
 *		text: the text
 * In every field a backslash is written \\ and each byte below 0x20 or
 * 0x7f as \xHH, so that no field holds a tab or a line end.  A reader
 * skips lines of other kinds than d and v (room for later additions);
 * a new meaning of a field is a new version.
 */
#ifndef L3BOND_FACTS_H
#define L3BOND_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gateway/stats.h"

enum { FACTS_VERSION = 1 };

/* ---- writing (the daemon) ---- */

struct facts_desc {
	enum gw_stat_scope scope;
	enum gw_stat_type type;
	bool is_float;
	const char *name;
	const char *help;
};

/* What has been described so far: the walk's names are its own string
 * constants, compared by pointer first.  Zeroed before its first reply;
 * the table's memory stays from one reply to the next (a poller's requests
 * allocate nothing) until facts_writer_free. */
struct facts_writer {
	FILE *f;
	struct facts_desc *d;
	size_t n;
	size_t cap;
	size_t next; /* where the next lookup starts: the walk repeats */
	int err;     /* 0, or -ENOMEM */
};

/* A reply into f: nothing described yet */
void facts_begin(struct facts_writer *w, FILE *f, const char *version);
/* gw_stat_fn: one value of the walk (described first if need be) */
void facts_put(void *arg, const struct gw_stat *st);
/* 0, or -ENOMEM; the reply is over (f is the caller's) */
int facts_end(struct facts_writer *w);
/* frees the table: the writer may begin again, zeroed */
void facts_writer_free(struct facts_writer *w);

/* ---- reading (the clients) ---- */

/* A parsed reply: the walk as it was, each value with its description.
 * Every string points into text, which the snapshot owns. */
struct facts {
	char *text;
	struct gw_stat *v;
	size_t n;
	const char *version; /* the daemon's */
};

/* Parses text (len bytes, NUL-terminated, malloc'd: the snapshot takes it
 * over, also on failure) after the reply's "ok" line.  0, or -EPROTO with
 * why in err, -ENOMEM. */
int facts_parse(struct facts *s, char *text, size_t len, char *err,
		size_t errlen);
void facts_free(struct facts *s);

/* Lookups the presentations share: the first value of scope and name at
 * or after from, of session (not for the daemon scope) and path (when not
 * NULL); NULL if none. */
const struct gw_stat *facts_find(const struct facts *s, size_t from,
				 enum gw_stat_scope scope, uint32_t session,
				 const char *path, const char *name);

#endif
