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

/* A class's keys: the table's defaults first (read by their own parsers,
 * as a path's are), then the group's; a pin needs its path. */
static int walk_class(struct loader *l, const config_setting_t *e,
		      const char *prefix, struct conf_class *cls)
{
	char text[160];
	const config_setting_t *s;
	const struct key *k;
	int ret;

	memset(cls, 0, sizeof(*cls));
	cls->path = -1;
	for (k = conf_class_keys; k < conf_class_keys + conf_nclass_keys; k++) {
		if (!k->i.def || k->i.alias_of) {
			continue;
		}
		conf_at(l, prefix, k->i.name);
		snprintf(text, sizeof(text), "%s = %s;", k->i.name, k->i.def);
		ret = conf_parse_text(l, k, k->i.name, text, k->i.def, cls);
		if (ret) {
			return ret;
		}
	}
	ret = conf_walk(l, e, prefix, conf_class_keys, conf_nclass_keys, cls);
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
	struct conf *c = obj;
	const config_setting_t *e;
	char prefix[32];
	unsigned i, n;
	int ret;

	(void)k;
	if (!config_setting_is_list(s)) {
		return conf_bad(l, s,
				"expected a list of class groups "
				"( { name = ...; match = { ... }; ... }, ... )");
	}
	n = (unsigned)config_setting_length(s);
	if (n > CLS_MAX) {
		return conf_bad(l, s, "more than %d classes", CLS_MAX);
	}
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(s, i);
		snprintf(prefix, sizeof(prefix), "traffic_classes[%u]", i);
		if (!config_setting_is_group(e)) {
			conf_at(l, prefix, "");
			return conf_bad(l, e, "expected a class group { ... }");
		}
		strcat(prefix, ".");
		l->cur = i;
		ret = walk_class(l, e, prefix, &c->class[i]);
		if (ret) {
			return ret;
		}
	}
	c->nclasses = n;
	return 0;
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
	const char *names[CLASS_NMODES];
	struct conf_class *cls = obj;
	unsigned i, v;
	int ret;

	(void)k;
	for (i = 0; i < CLASS_NMODES; i++) {
		names[i] = conf_class_mode_name((enum conf_class_mode)i);
	}
	ret = conf_get_choice(l, s, names, CLASS_NMODES, &v);
	if (!ret) {
		cls->mode = (enum conf_class_mode)v;
	}
	return ret;
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

int conf_parse_match_dscp(struct loader *l, const config_setting_t *s,
			  void *obj, const struct key *k)
{
	struct cls_match *m = obj;
	const config_setting_t *e;
	char base[sizeof(l->key)];
	unsigned i, n;
	long long v;
	int ret;

	snprintf(base, sizeof(base), "%s", l->key);
	ret = conf_get_seq(l, s, CLS_LIST_MAX, "DSCP values", &n);
	for (i = 0; !ret && i < n; i++) {
		e = config_setting_get_elem(s, i);
		element(l, base, i);
		ret = conf_get_int(l, e, k->i.min, k->i.max, &v);
		if (!ret && (m->dscp >> v & 1)) {
			ret = conf_bad(l, e, "given twice");
		}
		m->dscp |= 1ull << (v & 63);
	}
	return ret;
}

static int get_proto(struct loader *l, const config_setting_t *e,
		     const struct key *k, uint8_t *out)
{
	const char *v;
	long long n;
	size_t i;
	int ret;

	*out = 0;
	if (config_setting_type(e) != CONFIG_TYPE_STRING) {
		ret = conf_get_int(l, e, k->i.min, k->i.max, &n);
		*out = (uint8_t)n;
		return ret;
	}
	v = config_setting_get_string(e);
	/* a number in a string: [ "udp", "6" ] (an array holds one type) */
	if (isdigit((unsigned char)*v)) {
		char *end;
		unsigned long u;

		errno = 0;
		u = strtoul(v, &end, 10);
		if (!*end && !errno && u <= (unsigned long)k->i.max) {
			*out = (uint8_t)u;
			return 0;
		}
	}
	for (i = 0; i < ARRAY_SIZE(protocols); i++) {
		if (!strcmp(v, protocols[i].name)) {
			*out = protocols[i].number;
			return 0;
		}
	}
	return conf_bad(l, e,
			"expected a protocol number 0..255 or one of tcp, "
			"udp, icmp, icmpv6, sctp, udplite, dccp, gre, esp, ah");
}

int conf_parse_match_proto(struct loader *l, const config_setting_t *s,
			   void *obj, const struct key *k)
{
	struct cls_match *m = obj;
	const config_setting_t *e;
	char base[sizeof(l->key)];
	unsigned i, n;
	uint8_t p;
	int ret;

	snprintf(base, sizeof(base), "%s", l->key);
	ret = conf_get_seq(l, s, CLS_LIST_MAX, "protocols", &n);
	for (i = 0; !ret && i < n; i++) {
		e = config_setting_get_elem(s, i);
		element(l, base, i);
		ret = get_proto(l, e, k, &p);
		if (!ret && memchr(m->proto, p, i)) {
			ret = conf_bad(l, e, "protocol %u given twice", p);
		}
		m->proto[i] = p;
	}
	m->nproto = (uint8_t)(ret ? 0 : n);
	return ret;
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
int conf_parse_match_ports(struct loader *l, const config_setting_t *s,
			   void *obj, const struct key *k)
{
	struct cls_match *m = obj;
	bool src = !strcmp(k->i.name, "sport");
	struct cls_range *r = src ? m->sport : m->dport;
	const config_setting_t *e;
	char base[sizeof(l->key)];
	unsigned i, j, n;
	int ret;

	snprintf(base, sizeof(base), "%s", l->key);
	ret = conf_get_seq(l, s, CLS_LIST_MAX, "ports", &n);
	for (i = 0; !ret && i < n; i++) {
		e = config_setting_get_elem(s, i);
		element(l, base, i);
		ret = get_range(l, e, k, &r[i]);
		for (j = 0; !ret && j < i; j++) {
			if (r[j].lo == r[i].lo && r[j].hi == r[i].hi) {
				ret = conf_bad(l, e, "%s[%u] is the same",
					       k->i.name, j);
			}
		}
	}
	n = ret ? 0 : n;
	if (src) {
		m->nsport = (uint8_t)n;
	} else {
		m->ndport = (uint8_t)n;
	}
	return ret;
}

/* src and dst: k says which; prefixes as prefixes has them, of the
 * match's family if it has one */
int conf_parse_match_addrs(struct loader *l, const config_setting_t *s,
			   void *obj, const struct key *k)
{
	struct cls_match *m = obj;
	bool src = !strcmp(k->i.name, "src");
	struct cls_prefix *p = src ? m->src : m->dst;
	const config_setting_t *e;
	char base[sizeof(l->key)];
	struct conf_prefix cp;
	unsigned i, j, n;
	int ret;

	snprintf(base, sizeof(base), "%s", l->key);
	ret = conf_get_seq(l, s, CLS_LIST_MAX, "prefixes", &n);
	for (i = 0; !ret && i < n; i++) {
		e = config_setting_get_elem(s, i);
		element(l, base, i);
		ret = conf_get_prefix(l, e, &cp);
		if (ret) {
			break;
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
			ret = conf_bad(l, e,
				       "an IPv%u prefix in a match of family "
				       "%u",
				       p[i].family, m->family);
		}
		for (j = 0; !ret && j < i; j++) {
			if (!memcmp(&p[j], &p[i], sizeof(p[i]))) {
				ret = conf_bad(l, e, "%s[%u] is the same",
					       k->i.name, j);
			}
		}
	}
	n = ret ? 0 : n;
	if (src) {
		m->nsrc = (uint8_t)n;
	} else {
		m->ndst = (uint8_t)n;
	}
	return ret;
}
