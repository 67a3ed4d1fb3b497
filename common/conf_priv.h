/* SPDX-License-Identifier: BSD-2-Clause */
/* What the parts of the config reader share, and nothing else includes:
 *
 *	conf.c		the reader: errors, typed getters, the walk over a
 *			group, the checks across keys, conf_load
 *	conf_keys.c	the key table (every key, declared once) and the
 *			parsers of the top-level and path keys
 *	conf_cpe.c	the CPEs: cpes, cpe_dir, the CPE array
 *	conf_class.c	the traffic classes: traffic_classes and its keys
 *	conf_compat.c	libconfig 1.5's integer wrap: the prescan lexer
 *	conf_set.c	conf_set: one runtime key from l3bondctl
 */
#ifndef L3BOND_CONF_PRIV_H
#define L3BOND_CONF_PRIV_H

#include <libconfig.h>
#include <stdarg.h>
#include <stdio.h>

#include "common/conf.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The CPEs read so far, indexed (conf_cpe.c): what must be each one's
 * own is checked in O(1) per CPE. */
struct cpe_idx_ent;
struct cpe_idx {
	struct cpe_idx_ent *e;
	uint32_t mask, n;
	unsigned ncpes;	      /* CPEs in it: l->c.cpe[0 .. ncpes) */
	bool used[2][129]; /* prefix lengths in use, IPv4 and IPv6 */
};

/* The state of one read: the config being built (copied out only when
 * all of it is valid) and what errors name. */
struct loader {
	const char *file; /* NULL: conf_set (no file) */
	char *err;
	size_t errlen;
	char key[48];	       /* the key being read, as errors name it */
	unsigned cur;	       /* index of the path or class group read */
	uint32_t keepalive_ms; /* the deprecated key, 0: not given */
	unsigned cpe_cap;      /* entries allocated at c.cpe */
	struct cpe_idx idx;    /* of c.cpe; conf_cpe_idx_free() */
	struct conf c;
};

/* A key of the table (conf_keys.c).  i is what the rest of the code may
 * read (conf_key()).  parse NULL: an integer in [i.min, i.max] stored,
 * times scale, in the field at off of the object (struct conf, struct
 * conf_path or struct conf_cpe); the field's width and whether it is a
 * double come from the field itself (INT_KEY), so the table cannot
 * disagree with the struct.  off and size also say where a parsed key
 * lives, for the reload's comparison (CONF_RESTART) and what a reload
 * keeps (CONF_OPENED); count_off (NO_COUNT: none) is the field that
 * counts its elements of elem bytes (lan_interfaces), sub the keys of
 * each element when they are groups (paths). */
struct key {
	struct conf_key_info i;
	int (*parse)(struct loader *l, const config_setting_t *s, void *obj,
		     const struct key *k);
	size_t off;
	size_t size;
	size_t count_off;
	size_t elem;
	const struct key *sub;
	size_t nsub;
	bool text; /* a string (or strings) of size (elem) bytes */
	bool is_double;
	uint32_t scale;
};

#define NO_COUNT ((size_t)-1)

extern const struct key conf_top_keys[];
extern const size_t conf_ntop_keys;
extern const struct key conf_path_keys[];
extern const size_t conf_npath_keys;
extern const struct key conf_cpe_keys[];
extern const size_t conf_ncpe_keys;
extern const struct key conf_class_keys[];
extern const size_t conf_nclass_keys;
extern const struct key conf_match_keys[];
extern const size_t conf_nmatch_keys;

/* ---- errors (conf.c): each writes "file:line: key: ..." into l->err and
 * returns -EINVAL */

/* about the key itself (unknown, missing), at setting at (NULL: none) */
int conf_fail(struct loader *l, const config_setting_t *at, const char *fmt,
	      ...) __attribute__((format(printf, 3, 4)));
/* a bad value: quotes the value of s */
int conf_bad(struct loader *l, const config_setting_t *s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* a bad value that is not s's own (a default checked against at) */
int conf_bad_at(struct loader *l, const config_setting_t *at, const char *value,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* a bad secret: at most its first 4 characters, and its length */
int conf_bad_secret(struct loader *l, const config_setting_t *s, const char *v,
		    const char *why);
/* control characters of err as '?': an error is one line */
void conf_one_line(char *err);
/* l->key = prefix name */
void conf_at(struct loader *l, const char *prefix, const char *name);

/* ---- typed getters (conf.c): check the type, then the range */

int conf_get_int(struct loader *l, const config_setting_t *s, long long min,
		 long long max, long long *out);
int conf_get_number(struct loader *l, const config_setting_t *s, double min,
		    double max, double *out);
int conf_get_bool(struct loader *l, const config_setting_t *s, bool *out);
int conf_get_string(struct loader *l, const config_setting_t *s, size_t maxlen,
		    const char **out);
int conf_get_name(struct loader *l, const config_setting_t *s, const char *why,
		  const char **out);
int conf_get_choice(struct loader *l, const config_setting_t *s,
		    const char *const *names, size_t n, unsigned *out);
int conf_get_psk(struct loader *l, const config_setting_t *s,
		 struct auth_key *k);
int conf_get_seq(struct loader *l, const config_setting_t *s, unsigned max,
		 const char *what, unsigned *n);
/* One prefix "a.b.c.d/len" or "x:y::/len", host bits zero. */
int conf_get_prefix(struct loader *l, const config_setting_t *e,
		    struct conf_prefix *p);
int conf_get_prefixes(struct loader *l, const config_setting_t *s,
		      const char *name, struct conf_prefix *out, unsigned *nout,
		      unsigned min);

/* An integer key of the table (parse NULL) into its field. */
int conf_parse_int(struct loader *l, const config_setting_t *s, void *obj,
		   const struct key *k);
/* Reads group's keys (of table keys) into obj; prefix goes before their
 * names in errors ("paths[1].").  Unknown keys first, then each key of
 * the table in its order; an alias is read into the key it names. */
int conf_walk(struct loader *l, const config_setting_t *group,
	      const char *prefix, const struct key *keys, size_t nkeys,
	      void *obj);
/* The defaults of a group's keys (their table's def, each read by the
 * key's own parser, as conf_defaults does for the top level) into obj;
 * prefix goes before their names in errors. */
int conf_group_defaults(struct loader *l, const char *prefix,
			const struct key *keys, size_t nkeys, void *obj);
/* A list of groups (paths, traffic_classes): its key, what one is and
 * what more of them are ("path", "paths"), how it is written, how many
 * it may have, and what reads one (prefix "paths[1].", index i). */
struct group_list {
	const char *name;
	const char *what, *whats;
	const char *shape;
	unsigned min, max;
	int (*one)(struct loader *l, const config_setting_t *e,
		   const char *prefix, unsigned i, void *obj);
};
/* Each group of the list s through g->one; their count into *n. */
int conf_walk_groups(struct loader *l, const config_setting_t *s,
		     const struct group_list *g, void *obj, unsigned *n);
/* Reads text ("name = value;") and parses its one setting, name, as key
 * k into obj; a text libconfig refuses is an error quoting shown. */
int conf_parse_text(struct loader *l, const struct key *k, const char *name,
		    const char *text, const char *shown, void *obj);
/* What a missing required key's error adds to "missing". */
const char *conf_missing_hint(const char *name);
/* Clears the text of every "key" under s before libconfig frees it. */
void conf_wipe_text(config_setting_t *s);

/* ---- the CPEs (conf_cpe.c) */

int conf_parse_cpes(struct loader *l, const config_setting_t *s, void *obj,
		    const struct key *k);
int conf_parse_cpe_dir(struct loader *l, const config_setting_t *s, void *obj,
		       const struct key *k);
int conf_parse_cpe_name(struct loader *l, const config_setting_t *s, void *obj,
			const struct key *k);
int conf_parse_cpe_key(struct loader *l, const config_setting_t *s, void *obj,
		       const struct key *k);
int conf_parse_cpe_encrypt(struct loader *l, const config_setting_t *s,
			   void *obj, const struct key *k);
int conf_parse_cpe_prefixes(struct loader *l, const config_setting_t *s,
			    void *obj, const struct key *k);
/* Before a concentrator's cpes or cpe_dir: the top-level CPE first. */
int conf_top_first(struct loader *l);
/* session_id and key, and the top-level CPE (the CPE itself on a CPE),
 * once all keys are read. */
int conf_check_top(struct loader *l, const config_setting_t *root);
/* The loader's CPE array sized to what was read (wiping what it leaves). */
int conf_cpes_fit(struct loader *l);
/* frees l->idx (what check_cpe built) */
void conf_cpe_idx_free(struct loader *l);

/* ---- the traffic classes (conf_class.c) */

int conf_parse_classes(struct loader *l, const config_setting_t *s, void *obj,
		       const struct key *k);
int conf_parse_class_name(struct loader *l, const config_setting_t *s,
			  void *obj, const struct key *k);
int conf_parse_class_match(struct loader *l, const config_setting_t *s,
			   void *obj, const struct key *k);
int conf_parse_class_mode(struct loader *l, const config_setting_t *s,
			  void *obj, const struct key *k);
int conf_parse_class_path(struct loader *l, const config_setting_t *s,
			  void *obj, const struct key *k);
int conf_parse_class_fallback(struct loader *l, const config_setting_t *s,
			      void *obj, const struct key *k);
int conf_parse_match_family(struct loader *l, const config_setting_t *s,
			    void *obj, const struct key *k);
int conf_parse_match_dscp(struct loader *l, const config_setting_t *s,
			  void *obj, const struct key *k);
int conf_parse_match_proto(struct loader *l, const config_setting_t *s,
			   void *obj, const struct key *k);
int conf_parse_match_ports(struct loader *l, const config_setting_t *s,
			   void *obj, const struct key *k);
int conf_parse_match_addrs(struct loader *l, const config_setting_t *s,
			   void *obj, const struct key *k);

/* ---- libconfig 1.5's integer wrap (conf_compat.c) */

/* Which literals the libconfig in use wraps to 32 bits. */
struct wrap {
	bool dec;
	bool hex;
};

/* The first integer literal the library would wrap (line 0: none). */
struct wide {
	unsigned line;
	char key[32];
	char text[40];
};

struct wrap conf_probe_wrap(void);
/* Reads file once before libconfig: the real errno of a file that cannot
 * be read, and the first literal the library would wrap into wd. */
int conf_prescan(const char *file, struct wrap w, struct wide *wd);
/* The same check for one value typed at l3bondctl. */
int conf_scan_value(const char *value, struct wide *wd);

/* ---- the key table's lookups (conf_keys.c) */

/* The key named name in keys (an alias gives the key it names, and
 * *alias its own entry; alias may be NULL); NULL: none. */
const struct key *conf_find(const struct key *keys, size_t nkeys,
			    const char *name, const struct key **alias);

#endif
