/* SPDX-License-Identifier: BSD-2-Clause */
/* The CPEs of a configuration: the top-level one, a concentrator's cpes
 * and cpe_dir, and the array that holds them.
 *
 * The array (struct conf's cpe, ncpes entries) is on the heap, grown while
 * the file is read and then cut to what was configured: one entry on a
 * CPE (the box itself), as many as it serves on a concentrator, at most
 * CONF_CPE_MAX.  The struct conf that holds it owns it: conf_free frees it,
 * conf_copy copies it, conf_load hands it over only with a valid file.
 * Entries hold keys: an array is wiped before it is freed and never moved
 * by realloc().
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf_priv.h"

/* The entries of a CPE array hold keys: wiped before they are freed. */
static void release(struct conf_cpe *e, unsigned n)
{
	if (e) {
		explicit_bzero(e, n * sizeof(*e));
		free(e);
	}
}

/* n entries at *cpe (ncpes of them used), moved into a fresh array of cap
 * (>= ncpes); not realloc(): it would leave the keys behind in the block
 * it frees. */
static int resize(struct conf_cpe **cpe, unsigned ncpes, unsigned n,
		  unsigned cap)
{
	struct conf_cpe *e = NULL;

	if (cap) {
		e = calloc(cap, sizeof(*e));
		if (!e) {
			return -ENOMEM;
		}
		if (ncpes) {
			memcpy(e, *cpe, ncpes * sizeof(*e));
		}
	}
	release(*cpe, n);
	*cpe = e;
	return 0;
}

static int out_of_memory(struct loader *l)
{
	if (l->err && l->errlen) {
		snprintf(l->err, l->errlen, "%s: %s", l->file ? l->file : "",
			 strerror(ENOMEM));
	}
	return -ENOMEM;
}

/* Room for the next CPE at l->c.cpe[l->c.ncpes] (the array doubles). */
static int grow(struct loader *l)
{
	struct conf *c = &l->c;
	unsigned cap = l->cpe_cap ? 2 * l->cpe_cap : 4;

	if (c->ncpes < l->cpe_cap) {
		return 0;
	}
	if (cap > CONF_CPE_MAX) {
		cap = CONF_CPE_MAX;
	}
	if (resize(&c->cpe, c->ncpes, l->cpe_cap, cap)) {
		return out_of_memory(l);
	}
	l->cpe_cap = cap;
	return 0;
}

int conf_cpes_fit(struct loader *l)
{
	struct conf *c = &l->c;

	if (c->ncpes == l->cpe_cap) {
		return 0;
	}
	if (resize(&c->cpe, c->ncpes, l->cpe_cap, c->ncpes)) {
		return out_of_memory(l);
	}
	l->cpe_cap = c->ncpes;
	return 0;
}

/* The CPE of the top-level keys: the box itself on a CPE, the one CPE of
 * a plain concentrator config. */
static int top_cpe(struct loader *l)
{
	struct conf *c = &l->c;
	struct conf_cpe *e;
	unsigned i;
	int ret;

	ret = grow(l);
	if (ret) {
		return ret;
	}
	e = &c->cpe[0];
	memset(e, 0, sizeof(*e));
	e->session_id = c->session_id;
	e->psk = c->psk;
	e->encrypt = c->encrypt;
	for (i = 0; i < c->nprefixes; i++) {
		e->prefix[i] = c->prefix[i];
	}
	e->nprefixes = i;
	c->ncpes = 1;
	return 0;
}

/* Before a concentrator's cpes or cpe_dir: the top-level CPE, if the file
 * has one, comes first (all its keys come before those in the table). */
int conf_top_first(struct loader *l)
{
	if (l->c.session_id && !l->c.ncpes) {
		return top_cpe(l);
	}
	return 0;
}

/* ---- CPEs (concentrator: cpes, cpe_dir) -------------------------------- */

int conf_parse_cpe_name(struct loader *l, const config_setting_t *s, void *obj,
			const struct key *k)
{
	struct conf_cpe *e = obj;
	char why[48];
	const char *v;
	int ret;

	(void)k;
	snprintf(why, sizeof(why), "1 to %d of a-z, 0-9, '_' and '-'",
		 CONF_NAME_MAX - 1);
	ret = conf_get_name(l, s, why, &v);
	if (ret) {
		return ret;
	}
	strcpy(e->name, v);
	return 0;
}

int conf_parse_cpe_key(struct loader *l, const config_setting_t *s, void *obj,
		       const struct key *k)
{
	struct conf_cpe *e = obj;

	(void)k;
	return conf_get_psk(l, s, &e->psk);
}

int conf_parse_cpe_encrypt(struct loader *l, const config_setting_t *s,
			   void *obj, const struct key *k)
{
	struct conf_cpe *e = obj;

	(void)k;
	return conf_get_bool(l, s, &e->encrypt);
}

int conf_parse_cpe_prefixes(struct loader *l, const config_setting_t *s,
			    void *obj, const struct key *k)
{
	struct conf_cpe *e = obj;
	char prefix[48];

	(void)k;
	snprintf(prefix, sizeof(prefix), "%s", l->key);
	return conf_get_prefixes(l, s, prefix, e->prefix, &e->nprefixes, 1);
}

/* The i-th CPE, as errors name it. */
static const char *cpe_label(const struct conf *c, unsigned i, char *buf,
			     size_t n)
{
	if (c->cpe[i].name[0]) {
		snprintf(buf, n, "CPE \"%s\"", c->cpe[i].name);
	} else {
		snprintf(buf, n, "the top-level CPE");
	}
	return buf;
}

bool conf_prefix_overlap(const struct conf_prefix *a,
			 const struct conf_prefix *b)
{
	unsigned len = a->len < b->len ? a->len : b->len, i;
	const uint8_t *x = a->v6 ? a->addr6 : (const uint8_t *)&a->addr;
	const uint8_t *y = b->v6 ? b->addr6 : (const uint8_t *)&b->addr;

	if (a->v6 != b->v6) {
		return false;
	}
	for (i = 0; i < len / 8; i++) {
		if (x[i] != y[i]) {
			return false;
		}
	}
	return len % 8 == 0 ||
	       !((x[len / 8] ^ y[len / 8]) & (uint8_t)(0xff << (8 - len % 8)));
}

const char *conf_prefix_str(const struct conf_prefix *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (p->v6) {
		inet_ntop(AF_INET6, p->addr6, a, sizeof(a));
	} else {
		inet_ntop(AF_INET, &p->addr, a, sizeof(a));
	}
	snprintf(buf, len, "%s/%u", a, p->len);
	return buf;
}

/* ---- the CPEs' index: what must be each CPE's own, checked in O(1) ----
 *
 * A concentrator may have tens of thousands of CPEs: comparing each new
 * one with all those before it is quadratic (10,000 CPEs: 50 million
 * pairs, about a second at every start and reload).  The index is an
 * open-addressing table of hashes, each entry naming the CPE (and prefix)
 * it came from, so that a hit is checked against the CPE itself and the
 * table holds no key.  Overlapping prefixes are found by probing:
 *  - IDX_PFX, one entry per prefix (its length, its address): a prefix p
 *    is inside an earlier q when (len, p masked to len) is there, for a
 *    len <= p's among those in use;
 *  - IDX_UNDER, for every prefix q and every length below its own, q
 *    masked to that length: an earlier q is inside p when (p's length,
 *    p) is there.  A /30 adds 30 entries, a /64 64: a few MB while a
 *    file of 10,000 CPEs is read, freed with the loader.
 */

enum idx_kind { IDX_ID = 1, IDX_NAME, IDX_KEY, IDX_PFX, IDX_UNDER };

struct cpe_idx_ent {
	uint64_t h;   /* 0: free */
	uint32_t cpe; /* the CPE it came from */
	uint8_t kind;
	uint8_t pfx; /* IDX_PFX, IDX_UNDER: the CPE's prefix */
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h = (h ^ b[i]) * 0x100000001b3ULL;
	}
	return h;
}

static uint64_t idx_hash(enum idx_kind kind, const void *p, size_t n,
			 unsigned len, bool v6)
{
	uint8_t head[3] = {(uint8_t)kind, (uint8_t)len, v6};
	uint64_t h = fnv(fnv(0xcbf29ce484222325ULL, head, 3), p, n);

	h ^= h >> 29; /* the low bits pick the slot: mix the high ones in */
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return h ? h : 1;
}

/* a's address masked to len bits (16 bytes, the rest zero) */
static void pfx_masked(const struct conf_prefix *a, unsigned len, uint8_t *out)
{
	const uint8_t *x = a->v6 ? a->addr6 : (const uint8_t *)&a->addr;
	unsigned i;

	memset(out, 0, 16);
	for (i = 0; i < len / 8; i++) {
		out[i] = x[i];
	}
	if (len % 8) {
		out[len / 8] = (uint8_t)(x[len / 8] & (0xff << (8 - len % 8)));
	}
}

static uint64_t pfx_hash(enum idx_kind kind, const struct conf_prefix *p,
			 unsigned len)
{
	uint8_t a[16];

	pfx_masked(p, len, a);
	return idx_hash(kind, a, 16, len, p->v6);
}

static int idx_add(struct loader *l, uint64_t h, enum idx_kind kind,
		   unsigned cpe, unsigned pfx)
{
	struct cpe_idx *x = &l->idx;
	uint32_t i, m;

	if (2 * (x->n + 1) > x->mask + 1 || !x->e) {
		uint32_t cap = x->e ? 2 * (x->mask + 1) : 1024;
		struct cpe_idx_ent *e = calloc(cap, sizeof(*e)), *o = x->e;

		if (!e) {
			return -ENOMEM;
		}
		for (i = 0; o && i <= x->mask; i++) {
			for (m = (uint32_t)o[i].h & (cap - 1); o[i].h && e[m].h;
			     m = (m + 1) & (cap - 1)) {
			}
			if (o[i].h) {
				e[m] = o[i];
			}
		}
		free(o);
		x->e = e;
		x->mask = cap - 1;
	}
	for (i = (uint32_t)h & x->mask; x->e[i].h; i = (i + 1) & x->mask) {
	}
	x->e[i] = (struct cpe_idx_ent){
		.h = h, .cpe = cpe, .kind = (uint8_t)kind, .pfx = (uint8_t)pfx};
	x->n++;
	return 0;
}

/* The entries of hash h and kind in turn: *at 0 for the first, then
 * as the last call left it; NULL when there are no more (the table is
 * never more than half full: a free slot ends every run). */
static const struct cpe_idx_ent *idx_next(const struct loader *l, uint64_t h,
					  enum idx_kind kind, uint32_t *at)
{
	const struct cpe_idx *x = &l->idx;
	uint32_t i;

	if (!x->e) {
		return NULL;
	}
	i = *at ? *at - 1 : (uint32_t)h & x->mask;
	for (; x->e[i].h; i = (i + 1) & x->mask) {
		if (x->e[i].h == h && x->e[i].kind == kind) {
			*at = ((i + 1) & x->mask) + 1;
			return &x->e[i];
		}
	}
	return NULL;
}

void conf_cpe_idx_free(struct loader *l)
{
	free(l->idx.e);
	memset(&l->idx, 0, sizeof(l->idx));
}

/* CPE i into the index (checked already). */
static int idx_cpe(struct loader *l, unsigned i)
{
	const struct conf_cpe *e = &l->c.cpe[i];
	unsigned a, len;
	int ret;

	ret = idx_add(l, idx_hash(IDX_ID, &e->session_id, 4, 0, 0), IDX_ID, i,
		      0);
	if (!ret && e->name[0]) {
		ret = idx_add(l, idx_hash(IDX_NAME, e->name, strlen(e->name),
					  0, 0),
			      IDX_NAME, i, 0);
	}
	if (!ret) {
		ret = idx_add(l, idx_hash(IDX_KEY, e->psk.b, AUTH_KEY_LEN, 0, 0),
			      IDX_KEY, i, 0);
	}
	for (a = 0; !ret && a < e->nprefixes; a++) {
		const struct conf_prefix *p = &e->prefix[a];
		uint32_t at = 0;

		l->idx.used[p->v6][p->len] = true;
		ret = idx_add(l, pfx_hash(IDX_PFX, p, p->len), IDX_PFX, i, a);
		for (len = 0; !ret && len < p->len; len++) {
			uint64_t h = pfx_hash(IDX_UNDER, p, len);
			const struct cpe_idx_ent *x;
			uint8_t m[16], n[16];

			/* one witness per shorter prefix is enough */
			pfx_masked(p, len, m);
			at = 0;
			while ((x = idx_next(l, h, IDX_UNDER, &at))) {
				const struct conf_prefix *q =
					&l->c.cpe[x->cpe].prefix[x->pfx];

				pfx_masked(q, len, n);
				if (q->v6 == p->v6 && !memcmp(m, n, 16)) {
					break;
				}
			}
			if (!x) {
				ret = idx_add(l, h, IDX_UNDER, i, a);
			}
		}
	}
	return ret;
}

/* An earlier CPE's prefix that overlaps p (at l->c.cpe[*j].prefix[*b]). */
static bool idx_overlap(const struct loader *l, const struct conf_prefix *p,
			unsigned *j, unsigned *b)
{
	const struct cpe_idx_ent *x;
	unsigned len;
	uint32_t at;

	for (len = 0; len <= p->len; len++) {
		if (!l->idx.used[p->v6][len]) {
			continue;
		}
		at = 0;
		while ((x = idx_next(l, pfx_hash(IDX_PFX, p, len), IDX_PFX,
				     &at))) {
			if (conf_prefix_overlap(
				    p, &l->c.cpe[x->cpe].prefix[x->pfx])) {
				goto found;
			}
		}
	}
	at = 0;
	while ((x = idx_next(l, pfx_hash(IDX_UNDER, p, p->len), IDX_UNDER,
			     &at))) {
		if (conf_prefix_overlap(p, &l->c.cpe[x->cpe].prefix[x->pfx])) {
			goto found;
		}
	}
	return false;
found:
	*j = x->cpe;
	*b = x->pfx;
	return true;
}

/* An earlier CPE with entry kind equal to e's (hash h). */
static bool idx_same(const struct loader *l, const struct conf_cpe *e,
		     enum idx_kind kind, uint64_t h, unsigned *j)
{
	const struct cpe_idx_ent *x;
	const struct conf_cpe *o;
	uint32_t at = 0;

	while ((x = idx_next(l, h, kind, &at))) {
		o = &l->c.cpe[x->cpe];
		if ((kind == IDX_ID && o->session_id == e->session_id) ||
		    (kind == IDX_NAME && !strcmp(o->name, e->name)) ||
		    (kind == IDX_KEY && auth_key_equal(&o->psk, &e->psk))) {
			*j = x->cpe;
			return true;
		}
	}
	return false;
}

/* CPE i (just read, at setting at) against the ones before it: the session
 * id, the name, the key and every address must be its own.  The CPEs
 * before it go into the index first (the top-level one was never
 * checked). */
static int check_cpe(struct loader *l, const config_setting_t *at, unsigned i)
{
	const struct conf *c = &l->c;
	const struct conf_cpe *e = &c->cpe[i];
	char other[CONF_NAME_MAX + 24], pa[INET6_ADDRSTRLEN + 4],
		pb[INET6_ADDRSTRLEN + 4];
	unsigned j, a, b;
	int ret;

	for (; l->idx.ncpes < i; l->idx.ncpes++) {
		ret = idx_cpe(l, l->idx.ncpes);
		if (ret) {
			return out_of_memory(l);
		}
	}
	if (idx_same(l, e, IDX_ID, idx_hash(IDX_ID, &e->session_id, 4, 0, 0),
		     &j)) {
		return conf_fail(l, at, "session_id %u: %s has it too",
				 e->session_id,
				 cpe_label(c, j, other, sizeof(other)));
	}
	if (e->name[0] &&
	    idx_same(l, e, IDX_NAME,
		     idx_hash(IDX_NAME, e->name, strlen(e->name), 0, 0), &j)) {
		return conf_fail(l, at, "name \"%s\": %s has it too", e->name,
				 cpe_label(c, j, other, sizeof(other)));
	}
	/* one key per CPE: the key is what tells CPEs apart */
	if (idx_same(l, e, IDX_KEY,
		     idx_hash(IDX_KEY, e->psk.b, AUTH_KEY_LEN, 0, 0), &j)) {
		return conf_fail(l, at,
				 "key: %s has the same key; each CPE needs "
				 "its own (l3bondd --genkey)",
				 cpe_label(c, j, other, sizeof(other)));
	}
	for (a = 0; a < e->nprefixes; a++) {
		if (idx_overlap(l, &e->prefix[a], &j, &b)) {
			return conf_fail(
				l, at, "prefix %s overlaps %s of %s",
				conf_prefix_str(&e->prefix[a], pa, sizeof(pa)),
				conf_prefix_str(&c->cpe[j].prefix[b], pb,
						sizeof(pb)),
				cpe_label(c, j, other, sizeof(other)));
		}
	}
	return 0;
}

/* Reads one CPE group into the next entry. */
static int read_cpe(struct loader *l, const config_setting_t *g,
		    const char *prefix, const char *default_name)
{
	struct conf *c = &l->c;
	struct conf_cpe *e;
	char key[48];
	int ret;

	if (c->ncpes >= CONF_CPE_MAX) {
		conf_at(l, prefix, "");
		return conf_fail(l, g, "more than %d CPEs", CONF_CPE_MAX);
	}
	ret = grow(l);
	if (ret) {
		return ret;
	}
	e = &c->cpe[c->ncpes];
	memset(e, 0, sizeof(*e));
	e->encrypt = c->encrypt;
	if (default_name) {
		snprintf(e->name, sizeof(e->name), "%s", default_name);
	}
	snprintf(key, sizeof(key), "%s", prefix);
	ret = conf_walk(l, g, key, conf_cpe_keys + (default_name ? 1 : 0),
			conf_ncpe_keys - (default_name ? 1 : 0), e);
	if (!ret) {
		/* "cpes[2]", or for a file of cpe_dir "cpe" */
		snprintf(l->key, sizeof(l->key), "%.*s",
			 prefix[0] ? (int)strlen(prefix) - 1 : 3,
			 prefix[0] ? prefix : "cpe");
		ret = check_cpe(l, g, c->ncpes);
	}
	if (ret) {
		auth_key_wipe(&e->psk);
		return ret;
	}
	c->ncpes++;
	return 0;
}

int conf_parse_cpes(struct loader *l, const config_setting_t *s, void *obj,
		    const struct key *k)
{
	struct conf *c = obj;
	const config_setting_t *e;
	char prefix[24];
	unsigned i, n;
	int ret;

	if (c->role != ROLE_CONCENTRATOR) {
		return conf_bad(l, s,
				"only allowed with role \"concentrator\"");
	}
	(void)k;
	ret = conf_top_first(l);
	if (ret) {
		return ret;
	}
	if (!config_setting_is_list(s)) {
		return conf_bad(l, s,
				"expected a list of CPE groups "
				"( { name = ...; ... }, ... )");
	}
	n = (unsigned)config_setting_length(s);
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(s, i);
		snprintf(prefix, sizeof(prefix), "cpes[%u]", i);
		if (!config_setting_is_group(e)) {
			conf_at(l, prefix, "");
			return conf_bad(l, e, "expected a CPE group { ... }");
		}
		strcat(prefix, ".");
		ret = read_cpe(l, e, prefix, NULL);
		if (ret) {
			return ret;
		}
	}
	return 0;
}

/* One file of cpe_dir: the keys of a cpes entry; name defaults to the
 * file's name without ".conf". */
static int read_cpe_file(struct loader *l, const char *path, const char *name)
{
	const char *file = l->file;
	struct wide wd = {0};
	config_t cfg;
	int ret;

	ret = conf_prescan(path, conf_probe_wrap(), &wd);
	if (ret) {
		snprintf(l->err, l->errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (wd.line) {
		snprintf(l->err, l->errlen,
			 "%s:%u: %s: bad value '%s': too large for this "
			 "libconfig, which would wrap it to 32 bits; write "
			 "'%sL'",
			 path, wd.line, wd.key, wd.text, wd.text);
		return -EINVAL;
	}
	config_init(&cfg);
	if (!config_read_file(&cfg, path)) {
		snprintf(l->err, l->errlen, "%s:%d: parse error: %s", path,
			 config_error_line(&cfg), config_error_text(&cfg));
		ret = config_error_type(&cfg) == CONFIG_ERR_FILE_IO ? -EIO
								    : -EINVAL;
	} else {
		l->file = path;
		ret = read_cpe(l, config_root_setting(&cfg), "", name);
		l->file = file;
	}
	conf_wipe_text(config_root_setting(&cfg));
	config_destroy(&cfg);
	return ret;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int conf_parse_cpe_dir(struct loader *l, const config_setting_t *s, void *obj,
		       const struct key *k)
{
	struct conf *c = obj;
	char **names = NULL, path[PATH_MAX], name[CONF_NAME_MAX];
	size_t n = 0, cap = 0, i, len;
	const char *dir;
	struct dirent *d;
	DIR *dp;
	int ret = 0;

	(void)k;
	if (c->role != ROLE_CONCENTRATOR) {
		return conf_bad(l, s,
				"only allowed with role \"concentrator\"");
	}
	ret = conf_get_string(l, s, PATH_MAX - 64, &dir);
	if (ret) {
		return ret;
	}
	ret = conf_top_first(l);
	if (ret) {
		return ret;
	}
	dp = opendir(dir);
	if (!dp) {
		return conf_bad(l, s, "%s", strerror(errno));
	}
	/* in name order, so that the CPEs keep their order from one reload
	 * to the next */
	while ((d = readdir(dp))) {
		len = strlen(d->d_name);
		if (d->d_name[0] == '.' || len <= 5 ||
		    strcmp(d->d_name + len - 5, ".conf")) {
			continue;
		}
		if (n == cap) {
			char **nn;

			cap = cap ? cap * 2 : 64;
			nn = realloc(names, cap * sizeof(*names));
			if (!nn) {
				ret = -ENOMEM;
				break;
			}
			names = nn;
		}
		names[n] = strdup(d->d_name);
		if (!names[n]) {
			ret = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(dp);
	if (ret) {
		snprintf(l->err, l->errlen, "%s: %s", dir, strerror(-ret));
		goto out;
	}
	if (n > 1) {
		qsort(names, n, sizeof(*names), by_name);
	}
	for (i = 0; i < n && !ret; i++) {
		len = strlen(names[i]) - 5;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (len >= sizeof(name) ||
		    strspn(names[i], "abcdefghijklmnopqrstuvwxyz0123456789_-") <
			    len) {
			ret = conf_bad(
				l, s,
				"file %s: its name is the CPE's: 1 to %d of "
				"a-z, 0-9, '_' and '-', then .conf",
				names[i], CONF_NAME_MAX - 1);
			break;
		}
		memcpy(name, names[i], len);
		name[len] = '\0';
		ret = read_cpe_file(l, path, name);
	}
out:
	for (i = 0; i < n; i++) {
		free(names[i]);
	}
	free(names);
	return ret;
}

/* session_id and key: the CPE's own; on a concentrator those of the plain
 * top-level CPE, which cpes or cpe_dir make optional (a concentrator may
 * start with no CPE yet: an empty cpe_dir filled before a reload). */
int conf_check_top(struct loader *l, const config_setting_t *root)
{
	struct conf *c = &l->c;
	bool others = config_setting_get_member(root, "cpes") ||
		      config_setting_get_member(root, "cpe_dir");
	unsigned i;
	int ret;

	if (c->role == ROLE_CONCENTRATOR && others && !c->session_id &&
	    !conf_has_key(c) && !c->nprefixes) {
		return 0;
	}
	if (!c->session_id) {
		conf_at(l, "", "session_id");
		return conf_fail(l, root, "missing");
	}
	if (!conf_has_key(c)) {
		conf_at(l, "", "key");
		return conf_fail(l, root, "missing%s",
				 conf_missing_hint("key"));
	}
	ret = conf_top_first(l);
	if (ret) {
		return ret;
	}
	/* every CPE must have a key: nothing without one reaches the
	 * daemon (cannot fail: each key is required and never all zero) */
	for (i = 0; i < c->ncpes; i++) {
		uint8_t any = 0;
		size_t b;

		for (b = 0; b < AUTH_KEY_LEN; b++) {
			any |= c->cpe[i].psk.b[b];
		}
		if (!any) {
			conf_at(l, "", "key");
			return conf_fail(l, root, "missing");
		}
	}
	return 0;
}

/* ---- owning the array --------------------------------------------------- */

int conf_copy(struct conf *dst, const struct conf *src)
{
	*dst = *src;
	dst->cpe = NULL;
	if (!src->ncpes) {
		return 0;
	}
	dst->cpe = malloc(src->ncpes * sizeof(*dst->cpe));
	if (!dst->cpe) {
		dst->ncpes = 0;
		return -ENOMEM;
	}
	memcpy(dst->cpe, src->cpe, src->ncpes * sizeof(*dst->cpe));
	return 0;
}

void conf_free(struct conf *c)
{
	conf_wipe(c);
	release(c->cpe, c->ncpes);
	c->cpe = NULL;
	c->ncpes = 0;
}

int conf_cpes_alloc(struct conf *c, unsigned n)
{
	unsigned keep = c->ncpes < n ? c->ncpes : n;
	int ret;

	if (n > CONF_CPE_MAX) {
		return -EINVAL;
	}
	ret = resize(&c->cpe, keep, c->ncpes, n);
	if (!ret) {
		c->ncpes = n;
	}
	return ret;
}
