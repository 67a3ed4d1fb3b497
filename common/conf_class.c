/* SPDX-License-Identifier: BSD-2-Clause */
/* The traffic classes of the config: traffic_classes, a list of groups
 * (conf_class_keys), each with a match group (conf_match_keys), read into
 * struct conf_class and the matcher's struct cls_match
 * (ingress/classify.h).
 *
 * Both roles may have them: each box classifies what it sends.  A class's
 * errors name it as its index ("traffic_classes[1].match.dport[2]"), the
 * index being what the file's order makes of it (the first match wins).
 * Read after paths: a pin names one.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf_priv.h"

static const char *const mode_names[] = {
	[CLASS_BOND] = "bond",
	[CLASS_FLOW] = "flow",
	[CLASS_PIN] = "pin",
	[CLASS_LOWEST_DELAY] = "lowest_delay",
	[CLASS_REDUNDANT] = "redundant",
	[CLASS_BYPASS] = "bypass",
};

_Static_assert(ARRAY_SIZE(mode_names) == CLASS_NMODES,
	       "a name for every mode");

const char *conf_class_mode_name(enum conf_class_mode m)
{
	if ((unsigned)m >= ARRAY_SIZE(mode_names)) {
		return "?";
	}
	return mode_names[m];
}

/* The protocols a match may name, as /etc/protocols spells them. */
static const struct {
	const char *name;
	uint8_t number;
} protocols[] = {
	{"icmp", 1},   {"tcp", 6},   {"udp", 17},    {"dccp", 33},
	{"gre", 47},   {"esp", 50},  {"ah", 51},     {"icmpv6", 58},
	{"sctp", 132}, {"udplite", 136},
};

/* The key being read (l->key, "traffic_classes[0].match.dport") as the
 * base of its elements' names. */
static void element(struct loader *l, const char *base, unsigned i)
{
	/* the longest, "traffic_classes[15].match.dport[7]", fits */
	snprintf(l->key, sizeof(l->key), "%.40s[%u]", base, (uint8_t)i);
}

/* path and fallback are a pin's (mode is read before them) */
static int pin_only(struct loader *l, const config_setting_t *s,
		    const struct conf_class *cls)
{
	if (cls->mode != CLASS_PIN) {
		return conf_bad(l, s, "only allowed with mode \"pin\", not \"%s\"",
				conf_class_mode_name(cls->mode));
	}
	return 0;
}

/* A class's keys: the table's defaults first, then the group's; a pin
 * needs its path. */
static int read_class(struct loader *l, const config_setting_t *e,
		      const char *prefix, unsigned i, void *obj)
{
	struct conf_class *cls = &((struct conf *)obj)->class[i];
	const config_setting_t *s;
	int ret;

	l->cur = i;
	memset(cls, 0, sizeof(*cls));
	cls->path = -1;
	ret = conf_group_defaults(l, prefix, conf_class_keys, conf_nclass_keys,
				  cls);
	if (!ret) {
		ret = conf_walk(l, e, prefix, conf_class_keys,
				conf_nclass_keys, cls);
	}
	/* fallback's default is read for every class: only one written in
	 * the group is a pin's alone (path has no default: its parser) */
	s = config_setting_get_member(e, "fallback");
	if (!ret && s) {
		conf_at(l, prefix, "fallback");
		ret = pin_only(l, s, cls);
	}
	if (!ret && cls->mode == CLASS_PIN && cls->path < 0) {
		conf_at(l, prefix, "path");
		ret = conf_fail(l, e, "missing: required with mode \"pin\"");
	}
	return ret;
}

int conf_parse_classes(struct loader *l, const config_setting_t *s, void *obj,
		       const struct key *k)
{
	static const struct group_list classes = {
		.name = "traffic_classes",
		.what = "class",
		.whats = "classes",
		.shape = "( { name = ...; match = { ... }; ... }, ... )",
		.min = 0,
		.max = CLS_MAX,
		.one = read_class,
	};
	struct conf *c = obj;

	(void)k;
	return conf_walk_groups(l, s, &classes, c, &c->nclasses);
}

int conf_parse_class_name(struct loader *l, const config_setting_t *s,
			  void *obj, const struct key *k)
{
	struct conf_class *cls = obj;
	const char *v;
	unsigned i;
	int ret;

	(void)k;
	ret = conf_get_name(l, s, "only a-z, 0-9, '_' and '-' are allowed", &v);
	if (ret) {
		return ret;
	}
	for (i = 0; i < l->cur; i++) {
		if (!strcmp(l->c.class[i].name, v)) {
			return conf_bad(l, s,
					"traffic_classes[%u] has the same name",
					i);
		}
	}
	strcpy(cls->name, v);
	return 0;
}

int conf_parse_class_match(struct loader *l, const config_setting_t *s,
			   void *obj, const struct key *k)
{
	struct conf_class *cls = obj;
	char prefix[sizeof(l->key)];

	(void)k;
	if (!config_setting_is_group(s)) {
		return conf_bad(l, s,
				"expected a group { family = ...; ... } ({}: "
				"every packet)");
	}
	snprintf(prefix, sizeof(prefix), "%.40s.", l->key);
	return conf_walk(l, s, prefix, conf_match_keys, conf_nmatch_keys,
			 &cls->m);
}

int conf_parse_class_mode(struct loader *l, const config_setting_t *s,
			  void *obj, const struct key *k)
{
	struct conf_class *cls = obj;
	unsigned v;
	int ret;

	(void)k;
	ret = conf_get_choice(l, s, mode_names, CLASS_NMODES, &v);
	if (ret) {
		return ret;
	}
	cls->mode = (enum conf_class_mode)v;
	return 0;
}

int conf_parse_class_path(struct loader *l, const config_setting_t *s,
			  void *obj, const struct key *k)
{
	struct conf_class *cls = obj;
	const char *v;
	unsigned i;
	int ret;

	(void)k;
	ret = pin_only(l, s, cls);
	if (ret) {
		return ret;
	}
	ret = conf_get_string(l, s, CONF_NAME_MAX - 1, &v);
	if (ret) {
		return ret;
	}
	for (i = 0; i < l->c.npaths; i++) {
		if (!strcmp(l->c.path[i].name, v)) {
			cls->path = (int)i;
			return 0;
		}
	}
	return conf_bad(l, s, "no path of that name in paths");
}

int conf_parse_class_fallback(struct loader *l, const config_setting_t *s,
			      void *obj, const struct key *k)
{
	struct conf_class *cls = obj;

	(void)k;
	return conf_get_bool(l, s, &cls->fallback);
}

/* ---- the match ------------------------------------------------------- */

int conf_parse_match_family(struct loader *l, const config_setting_t *s,
			    void *obj, const struct key *k)
{
	struct cls_match *m = obj;
	long long v;
	int ret;

	(void)k;
	ret = conf_get_int(l, s, 0, 255, &v);
	if (ret) {
		return ret;
	}
	if (v != 4 && v != 6) {
		return conf_bad(l, s, "expected 4 or 6");
	}
	m->family = (uint8_t)v;
	return 0;
}

/* One element of a match's list: e, the i-th, into m (the ones before
 * it are in m already). */
typedef int (*one_fn)(struct loader *l, const config_setting_t *e,
		      const struct key *k, struct cls_match *m, unsigned i);

/* Each element of the list s (1..CLS_LIST_MAX of what) through one, named
 * "key[i]" in errors; their count into *n, 0 on an error. */
static int each(struct loader *l, const config_setting_t *s,
		const struct key *k, const char *what, struct cls_match *m,
		one_fn one, uint8_t *n)
{
	char base[sizeof(l->key)];
	unsigned i, len;
	int ret;

	snprintf(base, sizeof(base), "%s", l->key);
	ret = conf_get_seq(l, s, CLS_LIST_MAX, what, &len);
	for (i = 0; !ret && i < len; i++) {
		element(l, base, i);
		ret = one(l, config_setting_get_elem(s, i), k, m, i);
	}
	*n = (uint8_t)(ret ? 0 : len);
	return ret;
}

static int one_dscp(struct loader *l, const config_setting_t *e,
		    const struct key *k, struct cls_match *m, unsigned i)
{
	long long v;
	int ret;

	(void)i;
	ret = conf_get_int(l, e, k->i.min, k->i.max, &v);
	if (ret) {
		return ret;
	}
	if (m->dscp >> v & 1) {
		return conf_bad(l, e, "given twice");
	}
	m->dscp |= 1ull << v;
	return 0;
}

int conf_parse_match_dscp(struct loader *l, const config_setting_t *s,
			  void *obj, const struct key *k)
{
	uint8_t n;

	return each(l, s, k, "DSCP values", obj, one_dscp, &n);
}

static int one_proto(struct loader *l, const config_setting_t *e,
		     const struct key *k, struct cls_match *m, unsigned i)
{
	const char *v;
	long long n;
	size_t j;

	if (config_setting_type(e) != CONFIG_TYPE_STRING) {
		if (conf_get_int(l, e, k->i.min, k->i.max, &n)) {
			return -EINVAL;
		}
		m->proto[i] = (uint8_t)n;
		goto check;
	}
	v = config_setting_get_string(e);
	/* a number in a string: [ "udp", "6" ] (an array holds one type) */
	if (isdigit((unsigned char)*v)) {
		unsigned long u;
		char *end;

		errno = 0;
		u = strtoul(v, &end, 10);
		if (!*end && !errno && u <= (unsigned long)k->i.max) {
			m->proto[i] = (uint8_t)u;
			goto check;
		}
	}
	for (j = 0; j < ARRAY_SIZE(protocols); j++) {
		if (!strcmp(v, protocols[j].name)) {
			m->proto[i] = protocols[j].number;
			goto check;
		}
	}
	return conf_bad(l, e,
			"expected a protocol number 0..255 or one of tcp, "
			"udp, icmp, icmpv6, sctp, udplite, dccp, gre, esp, ah");
check:
	if (memchr(m->proto, m->proto[i], i)) {
		return conf_bad(l, e, "protocol %u given twice", m->proto[i]);
	}
	return 0;
}

int conf_parse_match_proto(struct loader *l, const config_setting_t *s,
			   void *obj, const struct key *k)
{
	struct cls_match *m = obj;

	return each(l, s, k, "protocols", m, one_proto, &m->nproto);
}

/* A port (a number, or one in a string) or a range "lo-hi" of ports,
 * inclusive: a libconfig array [ ... ] holds one type, so a list of
 * ports and ranges is all strings, or a list ( ... ). */
static int get_range(struct loader *l, const config_setting_t *e,
		     const struct key *k, struct cls_range *r)
{
	unsigned long lo, hi;
	const char *v;
	char *end;
	long long n;
	int ret;

	if (config_setting_type(e) != CONFIG_TYPE_STRING) {
		ret = conf_get_int(l, e, k->i.min, k->i.max, &n);
		r->lo = r->hi = (uint16_t)n;
		return ret;
	}
	v = config_setting_get_string(e);
	errno = 0;
	lo = hi = strtoul(v, &end, 10);
	if (!isdigit((unsigned char)*v) ||
	    (*end && (*end != '-' || !isdigit((unsigned char)end[1])))) {
		return conf_bad(l, e,
				"expected a port or a range \"lo-hi\" of "
				"ports");
	}
	if (*end) {
		hi = strtoul(end + 1, &end, 10);
	}
	if (*end || errno) {
		return conf_bad(l, e,
				"expected a port or a range \"lo-hi\" of "
				"ports");
	}
	if (lo > (unsigned long)k->i.max || hi > (unsigned long)k->i.max) {
		return conf_bad(l, e, "out of range %lld..%lld", k->i.min,
				k->i.max);
	}
	if (lo > hi) {
		return conf_bad(l, e, "the range's start is after its end");
	}
	r->lo = (uint16_t)lo;
	r->hi = (uint16_t)hi;
	return 0;
}

/* sport and dport: k says which */
static int one_port(struct loader *l, const config_setting_t *e,
		    const struct key *k, struct cls_match *m, unsigned i)
{
	struct cls_range *r = !strcmp(k->i.name, "sport") ? m->sport
							  : m->dport;
	unsigned j;
	int ret;

	ret = get_range(l, e, k, &r[i]);
	for (j = 0; !ret && j < i; j++) {
		if (r[j].lo == r[i].lo && r[j].hi == r[i].hi) {
			ret = conf_bad(l, e, "%s[%u] is the same", k->i.name,
				       j);
		}
	}
	return ret;
}

int conf_parse_match_ports(struct loader *l, const config_setting_t *s,
			   void *obj, const struct key *k)
{
	struct cls_match *m = obj;
	bool src = !strcmp(k->i.name, "sport");

	return each(l, s, k, "ports", m, one_port,
		    src ? &m->nsport : &m->ndport);
}

/* src and dst (k says which): prefixes as prefixes has them, of the
 * match's family if it has one */
static int one_addr(struct loader *l, const config_setting_t *e,
		    const struct key *k, struct cls_match *m, unsigned i)
{
	struct cls_prefix *p = !strcmp(k->i.name, "src") ? m->src : m->dst;
	struct conf_prefix cp;
	unsigned j;

	if (conf_get_prefix(l, e, &cp)) {
		return -EINVAL;
	}
	memset(&p[i], 0, sizeof(p[i]));
	p[i].family = cp.v6 ? 6 : 4;
	p[i].len = cp.len;
	if (cp.v6) {
		memcpy(p[i].addr, cp.addr6, 16);
	} else {
		memcpy(p[i].addr, &cp.addr, 4); /* network order */
	}
	if (m->family && m->family != p[i].family) {
		return conf_bad(l, e, "an IPv%u prefix in a match of family %u",
				p[i].family, m->family);
	}
	for (j = 0; j < i; j++) {
		if (!memcmp(&p[j], &p[i], sizeof(p[i]))) {
			return conf_bad(l, e, "%s[%u] is the same", k->i.name,
					j);
		}
	}
	return 0;
}

int conf_parse_match_addrs(struct loader *l, const config_setting_t *s,
			   void *obj, const struct key *k)
{
	struct cls_match *m = obj;
	bool src = !strcmp(k->i.name, "src");

	return each(l, s, k, "prefixes", m, one_addr,
		    src ? &m->nsrc : &m->ndst);
}
