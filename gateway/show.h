/* SPDX-License-Identifier: BSD-2-Clause */
/* The presentations of the daemon's status data (facts.h), made by its
 * clients: l3bondctl's table and JSON, and the Prometheus exposition of
 * `l3bondctl metrics` and of l3bond-exporter.  Pure: a parsed snapshot in,
 * text out, no socket, no loop (tests/unit/test_ctl_render.c).  Every
 * function returns 0 or -errno (-ENOMEM, or the stream's error).
 */
#ifndef L3BOND_SHOW_H
#define L3BOND_SHOW_H

#include <stdint.h>
#include <stdio.h>

#include "gateway/facts.h"

/* The table of `l3bondctl status`: role, the daemon's version, uptime,
 * the queues, each session. */
int show_table(FILE *f, const struct facts *s);

/* `l3bondctl status --json`: the daemon's "version" and values at the
 * top, the queues' own values in "ingress" and "egress", then "sessions",
 * each with its values, "ingress", "egress" and "paths" (each with its
 * "name"); labelled values as an object by label value ("wire":
 * {"short": 3}); floats as %.10g, a float that is not finite as null. */
int show_json(FILE *f, const struct facts *s);

/* The Prometheus text exposition format 0.0.4.  The walk yields one
 * family's samples apart (tx bytes of dsl, then of lte, each with its
 * path's other values); the format wants them together under one HELP
 * and TYPE, so samples are collected per family, in the order families
 * first appear, and written family by family.
 *   - l3bond_build_info{version="<the daemon's>"} 1 first;
 *   - counters: l3bond_[ingress_|egress_|path_]<name>_total, integers,
 *     gauges: integers, or floats in their shortest round-trip form;
 *   - labels: session (not on the daemon's and the queues' own values),
 *     cpe (a named CPE's session), path, then the value's own label;
 *   - text values (role, peer address) are info gauges, Prometheus'
 *     convention for strings: l3bond_<...><name>_info with the text in a
 *     label named after the value, and the value 1 (the label is "value"
 *     when that name cannot be a label name or is taken; a value's own
 *     label is "label" when its name cannot be used).
 * A value whose family name is taken by another type cannot be written
 * validly: it is left out and counted in expo_skipped(). */
struct expo;

struct expo *expo_new(void);
/* build_info and every value of s */
void expo_facts(struct expo *e, const struct facts *s);
/* One more sample: labels is the text between the braces, escaped ("":
 * none); type "counter" or "gauge". */
void expo_sample(struct expo *e, const char *name, const char *help,
		 const char *type, const char *labels, const char *value);
/* Everything collected, family by family. */
int expo_write(struct expo *e, FILE *f);
uint64_t expo_skipped(const struct expo *e);
void expo_free(struct expo *e);

#endif
