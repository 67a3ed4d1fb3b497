/* SPDX-License-Identifier: BSD-2-Clause */
/* conf_set: one key of a running daemon's config, typed at l3bondctl.
 *
 * The value is read as libconfig would read it in the file, by the key's
 * own parser (conf_keys.c), and checked with the keys it depends on: a
 * value l3bondctl set takes is one the file could hold.  Which keys it
 * takes is the table's (CONF_RUNTIME); conf_set_any takes every top-level
 * key of one value and leaves the checks across keys to its caller (the
 * simulator's flags, which come in any order).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/conf_priv.h"

/* A value as typed: a number, true/false or a bare word (quoted here, so
 * that "debug" reads as the string it means).  Nothing that libconfig
 * would read as more than one scalar: no ';', '@', quotes or spaces. */
static int set_text(const char *key, const char *value, char *buf, size_t n)
{
	bool word = isalpha((unsigned char)value[0]);
	size_t i;

	if (!*value) {
		return -EINVAL;
	}
	for (i = 0; value[i]; i++) {
		if (!isalnum((unsigned char)value[i]) &&
		    !strchr("._+-", value[i])) {
			return -EINVAL;
		}
	}
	if (word && strcmp(value, "true") && strcmp(value, "false")) {
		i = (size_t)snprintf(buf, n, "%s = \"%s\";", key, value);
	} else {
		i = (size_t)snprintf(buf, n, "%s = %s;", key, value);
	}
	return i < n ? 0 : -EINVAL;
}

/* A key of the file: top level, or of a path as "mtu" or "paths[1].mtu". */
static bool is_file_key(const char *key)
{
	size_t n;

	if (conf_find(conf_top_keys, conf_ntop_keys, key, NULL)) {
		return true;
	}
	if (!strncmp(key, "paths[", 6)) {
		n = strspn(key + 6, "0123456789");
		if (n && !strncmp(key + 6 + n, "].", 2)) {
			key += 6 + n + 2;
		}
	}
	return conf_find(conf_path_keys, conf_npath_keys, key, NULL) != NULL;
}

/* The key conf_set may set, or an error: runtime only, or (any) every
 * top-level key of one value. */
static const struct key *settable(struct loader *l, const char *key, bool any)
{
	const struct key *k =
		conf_find(conf_top_keys, conf_ntop_keys, key, NULL);

	if (k && (any ? k->size && k->count_off == NO_COUNT
		      : k->i.apply == CONF_RUNTIME)) {
		return k;
	}
	if (k && (k->i.flags & CONF_KEY_DEPRECATED)) {
		conf_fail(l, NULL, "%s", k->i.help); /* what replaced it */
	} else if (k || is_file_key(key)) {
		conf_fail(l, NULL,
			  "not a runtime setting: change it in the file and "
			  "restart");
	} else {
		conf_fail(l, NULL, "unknown key");
	}
	return NULL;
}

static int set(struct conf *c, const char *key, const char *value, bool any,
	       char *err, size_t errlen)
{
	struct loader l = {.file = NULL, .err = err, .errlen = errlen};
	struct wide wd = {0};
	const struct key *k;
	char text[128];
	int ret;

	if (err && errlen) {
		err[0] = '\0';
	}
	conf_at(&l, "", key);
	k = settable(&l, key, any);
	if (!k) {
		return -EINVAL;
	}
	if (set_text(key, value, text, sizeof(text))) {
		return conf_bad_at(&l, NULL, value, "not a single value");
	}
	ret = conf_scan_value(value, &wd);
	if (ret) {
		return conf_fail(&l, NULL, "%s", strerror(-ret));
	}
	if (wd.line) {
		return conf_bad_at(&l, NULL, value,
				   "too large for this libconfig, which would "
				   "wrap it to 32 bits; write '%sL'",
				   value);
	}
	/* a copy of the scalars: no key of the table touches the CPEs */
	l.c = *c;
	ret = conf_parse_text(&l, k, key, text, value, &l.c);
	if (!ret && !any && l.c.sched.t_dwd_ms % l.c.sched.t_report_ms) {
		ret = conf_bad_at(&l, NULL, value,
				  "t_dwd_ms (%u) would not be a multiple of "
				  "t_report_ms (%u)",
				  l.c.sched.t_dwd_ms, l.c.sched.t_report_ms);
	}
	if (!ret && !any && l.c.dead_after_ms < 2 * l.c.probe_interval_ms) {
		ret = conf_bad_at(&l, NULL, value,
				  "dead_after_ms (%u) would be less than 2 x "
				  "probe_interval_ms (%u)",
				  l.c.dead_after_ms, l.c.probe_interval_ms);
	}
	if (!ret) {
		*c = l.c;
	}
	/* the copy of c's key on this stack; the CPEs are c's */
	auth_key_wipe(&l.c.psk);
	return ret;
}

int conf_set(struct conf *c, const char *key, const char *value, char *err,
	     size_t errlen)
{
	return set(c, key, value, false, err, errlen);
}

int conf_set_any(struct conf *c, const char *key, const char *value, char *err,
		 size_t errlen)
{
	return set(c, key, value, true, err, errlen);
}
