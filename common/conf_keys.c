/* SPDX-License-Identifier: BSD-2-Clause */
/* The keys of the configuration file: each declared once, in the tables
 * below, with everything the rest of l3bond derives from it.
 *
 * An entry gives the key's name, where it is written (top level, a path,
 * a CPE, a traffic class, a class's match), how it takes effect in a running l3bondd (enum conf_apply), its
 * flags (required, role, hex, deprecated, UCI, simulator), its range, its
 * default as written in the file, a one-line help, and where it is stored
 * (an integer key needs nothing else: INT_KEY; any other key names its
 * parse_<key>() and the field it fills: AT, STR_AT, LIST_AT).  From the
 * tables come: the walk of conf_load (unknown, missing, order), the
 * defaults (conf_defaults reads each def with the key's own parser), the
 * keys l3bondctl set may change (CONF_RUNTIME, conf_set), the reload's
 * refusal of a structural change (CONF_RESTART: conf_same_structure) and
 * what it keeps (CONF_OPENED: conf_keep_opened), the control socket's help
 * and `l3bondd --list-tunables` (the OpenWrt init script's list), the
 * simulator's flags (CONF_KEY_SIM, through conf_set_any, so with these
 * ranges), and the test that the documents list every key with this range
 * and default (tests/unit/test_conf.c, docs_*).
 *
 * Adding a key: one entry here, in the order the checks need (a key that
 * another one's parser looks at comes first: role before paths); its
 * field in struct conf (common/conf.h) unless INT_KEY finds an existing
 * one.  Then test_conf's docs tests say which documents must gain it:
 * conf/l3bond.conf.5, conf/cpe.conf and/or conf/concentrator.conf (by its
 * role flags), the OpenWrt translator openwrt/net/l3bond/files/
 * l3bond-uci2conf (unless CONF_KEY_NO_UCI), each with this range and
 * default, and for a top-level key the lists of l3bondd(8) and, when
 * runtime, l3bondctl(8).  A CONF_RUNTIME key is at once settable by
 * l3bondctl set, in the daemon's help and in --list-tunables; whatever the
 * daemon must do when it changes goes in gw_apply_conf (gateway/main.c),
 * the one path of both the reload and set.  tests/fuzz/fuzz_conf_set.c
 * keeps its own copy of the runtime keys' contract, on purpose: a runtime
 * key goes there too.
 *
 * Renaming a key and keeping the old name readable: give the new name to
 * the entry and add after it ALIAS("old_name", group, "new_name").  The
 * file, conf_set and the simulator then take either name (both in one
 * file is an error), errors name the key as it was written, and the docs'
 * tests want an entry of the old name in l3bond.conf(5) and an option of
 * it in the UCI translator (old UCI files keep working).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf_priv.h"

static const char *const role_names[] = {
	[ROLE_CPE] = "cpe",
	[ROLE_CONCENTRATOR] = "concentrator",
};

static const char *const class_names[] = {
	[PATH_FIXED] = "fixed",
	[PATH_MOBILE] = "mobile",
	[PATH_BACKUP] = "backup",
};

static const char *const log_level_names[] = {
	[CONF_LOG_ERROR] = "error",
	[CONF_LOG_WARNING] = "warning",
	[CONF_LOG_INFO] = "info",
	[CONF_LOG_DEBUG] = "debug",
};

/* ---- one parser per key ---------------------------------------------- */

/* An IPv4 or IPv6 literal. */
static bool is_addr(const char *v)
{
	unsigned char addr[sizeof(struct in6_addr)];

	return inet_pton(AF_INET, v, addr) == 1 ||
	       inet_pton(AF_INET6, v, addr) == 1;
}

static int parse_role(struct loader *l, const config_setting_t *s, void *obj,
		      const struct key *k)
{
	struct conf *c = obj;
	unsigned v;
	int ret;

	(void)k;
	ret = conf_get_choice(l, s, role_names, 2, &v);
	if (!ret) {
		c->role = (enum conf_role)v;
	}
	return ret;
}

static int parse_k(struct loader *l, const config_setting_t *s, void *obj,
		   const struct key *k)
{
	struct conf *c = obj;

	return conf_get_number(l, s, (double)k->i.min, (double)k->i.max,
			       &c->sched.k);
}

static int parse_reorder_capacity(struct loader *l, const config_setting_t *s,
				  void *obj, const struct key *k)
{
	struct conf *c = obj;
	long long v;
	int ret;

	ret = conf_get_int(l, s, k->i.min, k->i.max, &v);
	if (ret) {
		return ret;
	}
	/* the resequencer indexes its slots with gseq & (capacity - 1) */
	if (v & (v - 1)) {
		return conf_bad(l, s, "not a power of two");
	}
	c->reseq.capacity = (uint32_t)v;
	return 0;
}

static int parse_key(struct loader *l, const config_setting_t *s, void *obj,
		     const struct key *k)
{
	struct conf *c = obj;

	(void)k;
	return conf_get_psk(l, s, &c->psk);
}

/* A boolean key: stored at its offset (AT). */
static int parse_bool(struct loader *l, const config_setting_t *s, void *obj,
		      const struct key *k)
{
	return conf_get_bool(l, s, (bool *)((uint8_t *)obj + k->off));
}

static int parse_name(struct loader *l, const config_setting_t *s, void *obj,
		      const struct key *k)
{
	struct conf_path *p = obj;
	const char *v;
	unsigned i;
	int ret;

	(void)k;
	ret = conf_get_name(l, s, "only a-z, 0-9, '_' and '-' are allowed", &v);
	if (ret) {
		return ret;
	}
	for (i = 0; i < l->cur; i++) {
		if (!strcmp(l->c.path[i].name, v)) {
			return conf_bad(l, s, "paths[%u] has the same name", i);
		}
	}
	strcpy(p->name, v);
	return 0;
}

static int parse_class(struct loader *l, const config_setting_t *s, void *obj,
		       const struct key *k)
{
	struct conf_path *p = obj;
	unsigned v;
	int ret;

	(void)k;
	ret = conf_get_choice(l, s, class_names, PATH_NCLASS, &v);
	if (!ret) {
		p->cls = (enum path_class)v;
	}
	return ret;
}

/* A file's absolute path, or "" for none, into dst of size n. */
static int get_file(struct loader *l, const config_setting_t *s, char *dst,
		    size_t n)
{
	const char *v;

	if (config_setting_type(s) != CONFIG_TYPE_STRING) {
		return conf_bad(l, s, "expected a string");
	}
	v = config_setting_get_string(s);
	if (*v && *v != '/') {
		return conf_bad(l, s,
				"expected an absolute path, or \"\" for none");
	}
	if (strlen(v) >= n) {
		return conf_bad(l, s, "longer than %zu characters", n - 1);
	}
	strcpy(dst, v);
	return 0;
}

/* The data budget's keys are the CPE's: the SIM is the subscriber's, and
 * the CPE tells the concentrator when a path's budget is spent. */
static int cpe_only(struct loader *l, const config_setting_t *s)
{
	if (l->c.role != ROLE_CPE) {
		return conf_bad(l, s,
				"only allowed with role \"cpe\": the CPE "
				"counts a path's budget and tells the "
				"concentrator");
	}
	return 0;
}

static int parse_budget_int(struct loader *l, const config_setting_t *s,
			    void *obj, const struct key *k)
{
	int ret = cpe_only(l, s);

	return ret ? ret : conf_parse_int(l, s, obj, k);
}

/* A path's keys: first their defaults (the table's, read by their own
 * parsers, as conf_defaults does for the top level), then the group's;
 * a key of the CPE's given on a concentrator is refused. */
static int walk_path(struct loader *l, const config_setting_t *e,
		     const char *prefix, struct conf_path *p)
{
	const struct key *k;
	int ret;

	ret = conf_group_defaults(l, prefix, conf_path_keys, conf_npath_keys,
				  p);
	if (ret) {
		return ret;
	}
	ret = conf_walk(l, e, prefix, conf_path_keys, conf_npath_keys, p);
	for (k = conf_path_keys; !ret && k < conf_path_keys + conf_npath_keys;
	     k++) {
		const config_setting_t *s;

		s = config_setting_get_member(e, k->i.name);
		if (s && (k->i.flags & CONF_KEY_CPE)) {
			conf_at(l, prefix, k->i.name);
			ret = cpe_only(l, s);
		}
	}
	if (!ret && p->budget_period == BUDGET_WEEK &&
	    p->budget_reset_day > 7) {
		conf_at(l, prefix, "budget_reset_day");
		ret = conf_bad(l, config_setting_get_member(e, "budget_reset_day"),
			       "out of range 1..7 with budget_period "
			       "\"week\" (1: Monday)");
	}
	return ret;
}

static int parse_budget_period(struct loader *l, const config_setting_t *s,
			       void *obj, const struct key *k)
{
	const char *names[BUDGET_NPERIOD];
	struct conf_path *p = obj;
	unsigned i, v;
	int ret;

	(void)k;
	for (i = 0; i < BUDGET_NPERIOD; i++) {
		names[i] = budget_period_name((enum budget_period)i);
	}
	ret = conf_get_choice(l, s, names, BUDGET_NPERIOD, &v);
	if (!ret) {
		p->budget_period = (enum budget_period)v;
	}
	return ret;
}

static int parse_budget_state_file(struct loader *l,
				   const config_setting_t *s, void *obj,
				   const struct key *k)
{
	struct conf *c = obj;
	int ret;

	(void)k;
	ret = cpe_only(l, s);
	return ret ? ret
		   : get_file(l, s, c->budget_state_file,
			      sizeof(c->budget_state_file));
}

/* An interface name that can exist (the kernel's dev_valid_name()) and
 * that the rules can carry as it is: iptables reads a trailing '+' as a
 * wildcard, and a quote or backslash would break the nft text. */
static int check_ifname(struct loader *l, const config_setting_t *s,
			const char *v)
{
	const char *ch;

	if (!strcmp(v, ".") || !strcmp(v, "..")) {
		return conf_bad(l, s, "not a valid interface name");
	}
	for (ch = v; *ch; ch++) {
		if (!isalnum((unsigned char)*ch) && !strchr("_.-@", *ch)) {
			return conf_bad(l, s,
					"only letters, digits and _ . - @ are "
					"allowed in an interface name");
		}
	}
	return 0;
}

static int parse_interface(struct loader *l, const config_setting_t *s,
			   void *obj, const struct key *k)
{
	struct conf_path *p = obj;
	const char *v;
	int ret;

	(void)k;
	ret = conf_get_string(l, s, IF_NAMESIZE - 1, &v);
	if (ret) {
		return ret;
	}
	ret = check_ifname(l, s, v);
	if (ret) {
		return ret;
	}
	strcpy(p->ifname, v);
	return 0;
}

/* A CPE's concentrators, first preferred: a list of addresses, or one
 * address alone (the form of peer, its alias), into n entries of out.
 * One family: the path's socket, MTU and rules follow it. */
static int get_peers(struct loader *l, const config_setting_t *s,
		     char out[][CONF_ADDR_MAX], unsigned *n)
{
	const config_setting_t *e;
	size_t klen = strlen(l->key);
	bool one = config_setting_type(s) == CONFIG_TYPE_STRING;
	const char *v;
	unsigned i, j, len = 1;
	int ret;

	if (l->c.role == ROLE_CONCENTRATOR) {
		return conf_bad(l, s,
				"not allowed with role \"concentrator\": the "
				"concentrator learns its peers from the packets "
				"it receives");
	}
	if (!one && !config_setting_is_list(s) && !config_setting_is_array(s)) {
		return conf_bad(l, s,
				"expected an address \"...\" or a list of "
				"them [ \"...\", ... ]");
	}
	if (!one) {
		ret = conf_get_seq(l, s, CONF_PEERS_MAX, "addresses", &len);
		if (ret) {
			return ret;
		}
	}
	for (i = 0; i < len; i++) {
		e = one ? s : config_setting_get_elem(s, i);
		if (!one) {
			snprintf(l->key + klen, sizeof(l->key) - klen, "[%u]",
				 i);
		}
		ret = conf_get_string(l, e, CONF_ADDR_MAX - 1, &v);
		if (ret) {
			return ret;
		}
		if (!is_addr(v)) {
			return conf_bad(l, e, "not an IPv4 or IPv6 address");
		}
		if (i && !strchr(v, ':') != !strchr(out[0], ':')) {
			return conf_bad(l, e,
					"not of the family of the first: one "
					"path, one outer family");
		}
		for (j = 0; j < i; j++) {
			if (!strcmp(out[j], v)) {
				return conf_bad(l, e, "the same as entry %u",
						j);
			}
		}
		strcpy(out[i], v);
	}
	*n = len;
	return 0;
}

static int parse_path_peers(struct loader *l, const config_setting_t *s,
			    void *obj, const struct key *k)
{
	struct conf_path *p = obj;

	(void)k;
	return get_peers(l, s, p->peers, &p->npeers);
}

static int parse_peers(struct loader *l, const config_setting_t *s,
		       void *obj, const struct key *k)
{
	struct conf *c = obj;

	(void)k;
	return get_peers(l, s, c->peers, &c->npeers);
}

static int parse_lan_interfaces(struct loader *l, const config_setting_t *s,
				void *obj, const struct key *k)
{
	struct conf *c = obj;
	const config_setting_t *e;
	const char *v;
	unsigned i, j, n;
	int ret;

	(void)k;
	if (c->role != ROLE_CPE) {
		return conf_bad(l, s, "only allowed with role \"cpe\"");
	}
	ret = conf_get_seq(l, s, CONF_LAN_MAX, "interfaces", &n);
	if (ret) {
		return ret;
	}
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(s, i);
		snprintf(l->key, sizeof(l->key), "lan_interfaces[%u]", i);
		ret = conf_get_string(l, e, IF_NAMESIZE - 1, &v);
		if (ret) {
			return ret;
		}
		ret = check_ifname(l, e, v);
		if (ret) {
			return ret;
		}
		for (j = 0; j < i; j++) {
			if (!strcmp(c->lan[j], v)) {
				return conf_bad(l, e,
						"lan_interfaces[%u] is the "
						"same",
						j);
			}
		}
		/* bonding a path's own traffic would loop it */
		for (j = 0; j < c->npaths; j++) {
			if (!strcmp(c->path[j].ifname, v)) {
				return conf_bad(
					l, e, "the interface of paths[%u]", j);
			}
		}
		strcpy(c->lan[i], v);
	}
	c->nlan = n;
	return 0;
}

static int parse_bond_output(struct loader *l, const config_setting_t *s,
			     void *obj, const struct key *k)
{
	struct conf *c = obj;
	int ret;

	(void)k;
	ret = conf_get_bool(l, s, &c->bond_output);
	if (!ret && c->role != ROLE_CPE) {
		c->bond_output = false;
		return conf_bad(l, s, "only allowed with role \"cpe\"");
	}
	return ret;
}

static int parse_prefixes(struct loader *l, const config_setting_t *s,
			  void *obj, const struct key *k)
{
	struct conf *c = obj;

	(void)k;
	if (c->role != ROLE_CONCENTRATOR) {
		return conf_bad(l, s,
				"only allowed with role \"concentrator\"");
	}
	return conf_get_prefixes(l, s, "prefixes", c->prefix, &c->nprefixes, 0);
}

static int parse_log_level(struct loader *l, const config_setting_t *s,
			   void *obj, const struct key *k)
{
	struct conf *c = obj;
	const char *v;
	unsigned i;

	(void)k;
	if (config_setting_type(s) != CONFIG_TYPE_STRING) {
		return conf_bad(l, s, "expected a string");
	}
	v = config_setting_get_string(s);
	for (i = 0; i < ARRAY_SIZE(log_level_names); i++) {
		if (!strcmp(v, log_level_names[i])) {
			c->log_level = (enum conf_log_level)i;
			return 0;
		}
	}
	return conf_bad(
		l, s, "expected \"error\", \"warning\", \"info\" or \"debug\"");
}

/* keepalive_ms, replaced by probe_interval_ms and dead_after_ms: accepted
 * so that a file written for an earlier l3bondd still starts it, with the
 * detection time it had (3 x keepalive_ms) when dead_after_ms is not given
 * (check_liveness).  Not a runtime setting any more. */
static int parse_keepalive(struct loader *l, const config_setting_t *s,
			   void *obj, const struct key *k)
{
	long long v;
	int ret;

	(void)obj;
	ret = conf_get_int(l, s, k->i.min, k->i.max, &v);
	if (!ret) {
		l->keepalive_ms = (uint32_t)v;
	}
	return ret;
}

/* "" (no socket) or an absolute path that fits sun_path. */
static int parse_control_socket(struct loader *l, const config_setting_t *s,
				void *obj, const struct key *k)
{
	struct conf *c = obj;

	(void)k;
	return get_file(l, s, c->control_socket, sizeof(c->control_socket));
}

/* A group name as useradd accepts it. */
static int parse_control_group(struct loader *l, const config_setting_t *s,
			       void *obj, const struct key *k)
{
	struct conf *c = obj;
	const char *v;
	size_t i;
	int ret;

	(void)k;
	ret = conf_get_string(l, s, sizeof(c->control_group) - 1, &v);
	if (ret) {
		return ret;
	}
	for (i = 0; v[i]; i++) {
		if (!(islower((unsigned char)v[i]) || v[i] == '_' ||
		      (i && (isdigit((unsigned char)v[i]) || v[i] == '-')))) {
			return conf_bad(l, s,
					"expected a group name: a-z or _, then "
					"a-z 0-9 _ -");
		}
	}
	strcpy(c->control_group, v);
	return 0;
}

/* metrics_port and metrics_address were the daemon's HTTP listener; the
 * daemon serves no HTTP now (l3bond-exporter asks its control socket): a
 * config that still has them would silently lose its scrape endpoint. */
static int parse_moved_to_exporter(struct loader *l,
				   const config_setting_t *s, void *obj,
				   const struct key *k)
{
	(void)obj;
	(void)k;
	return conf_fail(l, s,
			 "moved to l3bond-exporter (its --listen and --port): "
			 "l3bondd serves no HTTP");
}

/* One group of paths: its keys, and a CPE's peer. */
static int read_path(struct loader *l, const config_setting_t *e,
		     const char *prefix, unsigned i, void *obj)
{
	struct conf *c = obj;
	int ret;

	l->cur = i;
	ret = walk_path(l, e, prefix, &c->path[i]);
	if (ret) {
		return ret;
	}
	if (c->role != ROLE_CPE) {
		return 0;
	}
	if (!c->path[i].npeers) {
		if (!c->npeers) {
			conf_at(l, prefix, "peers");
			return conf_fail(l, e,
					 "missing: required with role \"cpe\" "
					 "(here or at the top level)");
		}
		c->path[i].npeers = c->npeers;
		memcpy(c->path[i].peers, c->peers, sizeof(c->peers));
	}
	/* entry j of every path's list is the same concentrator: the CPE
	 * moves all its paths together (gateway/peers.c) */
	if (i && c->path[i].npeers != c->path[0].npeers) {
		const config_setting_t *s = config_setting_get_member(e, "peers");

		if (!s) {
			s = config_setting_get_member(e, "peer");
		}
		conf_at(l, prefix, s ? config_setting_name(s) : "peers");
		return conf_bad_at(l, s ? s : e, c->path[i].peers[0],
				   "%u addresses where paths[0] has %u: entry "
				   "j of every path is concentrator j",
				   c->path[i].npeers, c->path[0].npeers);
	}
	return 0;
}

static int parse_paths(struct loader *l, const config_setting_t *s, void *obj,
		       const struct key *k)
{
	static const struct group_list paths = {
		.name = "paths",
		.what = "path",
		.whats = "paths",
		.shape = "( { ... }, { ... } )",
		.min = 2,
		.max = WIRE_MAX_PATHS,
		.one = read_path,
	};
	struct conf *c = obj;
	unsigned i;
	int ret;

	(void)k;
	ret = conf_walk_groups(l, s, &paths, c, &c->npaths);
	if (ret) {
		return ret;
	}
	for (i = 0; i < c->npaths; i++) {
		if (c->path[i].cls == PATH_FIXED) {
			return 0;
		}
	}
	conf_at(l, "", "paths");
	return conf_bad(l, s,
			"no path of class \"fixed\"; at least one is needed");
}

/* ---- the tables ------------------------------------------------------- */

#define FIELD(obj, field) (((obj *)0)->field)
#define NO_RANGE	  1, 0
/* the public part: name, group, how it applies, flags, then range (min,
 * max or NO_RANGE), default, help */
#define KEY(name, group, apply, flags, ...)                                    \
	.i = {name, group, apply, flags, __VA_ARGS__, NULL}
/* an old name of key to (see the file's header) */
#define ALIAS(name, group, to)                                                 \
	{                                                                      \
		.i = {name,                                                    \
		      group,                                                   \
		      CONF_RELOAD,                                             \
		      CONF_KEY_DEPRECATED,                                     \
		      NO_RANGE,                                                \
		      NULL,                                                    \
		      "the former name of " to,                                \
		      to},                                                     \
		.count_off = NO_COUNT                                          \
	}
/* an integer stored, times scale, in field (parse NULL) */
#define INT_KEY(obj, field, sc)                                                \
	.off = offsetof(obj, field), .size = sizeof(FIELD(obj, field)),        \
	.count_off = NO_COUNT,                                                 \
	.is_double = _Generic(FIELD(obj, field), double                        \
			      : true, default                                  \
			      : false),                                        \
	.scale = sc
/* a key its parser stores in field */
#define AT(obj, field)                                                         \
	.off = offsetof(obj, field), .size = sizeof(FIELD(obj, field)),        \
	.count_off = NO_COUNT
#define STR_AT(obj, field) AT(obj, field), .text = true
/* a list: field[count] */
#define LIST_AT(obj, field, count)                                             \
	.off = offsetof(obj, field), .size = sizeof(FIELD(obj, field)),        \
	.count_off = offsetof(obj, count),                                     \
	.elem = sizeof(FIELD(obj, field)[0])
/* a key stored nowhere in particular (cpes, cpe_dir, keepalive_ms) */
#define NOWHERE .count_off = NO_COUNT

/* Settings of one path group; all of them CONF_RESTART (the sockets,
 * rules and sequence state are per path). */
const struct key conf_path_keys[] = {
	{KEY("name", CONF_PATH, CONF_RESTART, CONF_KEY_REQUIRED, NO_RANGE, NULL,
	     "the path's name: 1..15 of a-z 0-9 _ -, unique"),
	 .parse = parse_name, STR_AT(struct conf_path, name)},
	{KEY("class", CONF_PATH, CONF_RESTART, CONF_KEY_REQUIRED, NO_RANGE,
	     NULL,
	     "\"fixed\" (constant weight), \"mobile\" (adaptive) or "
	     "\"backup\" (only while no other is up)"),
	 .parse = parse_class, AT(struct conf_path, cls)},
	{KEY("interface", CONF_PATH, CONF_RESTART, CONF_KEY_REQUIRED, NO_RANGE,
	     NULL, "the WAN device the path's packets leave by"),
	 .parse = parse_interface, STR_AT(struct conf_path, ifname)},
	{KEY("fwmark", CONF_PATH, CONF_RESTART, CONF_KEY_HEX, 0, UINT32_MAX,
	     "0", "mark of the path's packets, for policy routing"),
	 INT_KEY(struct conf_path, fwmark, 1)},
	{KEY("peers", CONF_PATH, CONF_RESTART, 0, NO_RANGE, NULL,
	     "the concentrators' addresses on this path, first preferred: up "
	     "to 4 (CPE: required, unless given at the top level)"),
	 .parse = parse_path_peers, LIST_AT(struct conf_path, peers, npeers),
	 .text = true},
	ALIAS("peer", CONF_PATH, "peers"),
	{KEY("peer_port", CONF_PATH, CONF_RESTART, 0, 1, UINT16_MAX, NULL,
	     "the concentrator's UDP port on this path (default: port)"),
	 INT_KEY(struct conf_path, peer_port, 1)},
	/* 576: the least every IPv4 host must take (RFC 791) */
	{KEY("mtu", CONF_PATH, CONF_RESTART, 0, 576, 65535, NULL,
	     "largest outer packet (default: the interface's MTU)"),
	 INT_KEY(struct conf_path, mtu, 1)},
	{KEY("rate_mbit", CONF_PATH, CONF_RELOAD, 0, 0, 100000, "0",
	     "a fixed path's rate in Mbit/s of IP packets, to pace it just "
	     "below (0: unknown, not paced)"),
	 INT_KEY(struct conf_path, rate_kbps, 1000)},
	{KEY("budget_mb", CONF_PATH, CONF_RELOAD, CONF_KEY_CPE, 0, 100000000,
	     "0",
	     "the path's data budget a period, MB (10^6 bytes) on the wire "
	     "both ways; spent, the path is a backup (0: none)"),
	 INT_KEY(struct conf_path, budget_mb, 1)},
	{KEY("budget_period", CONF_PATH, CONF_RELOAD, CONF_KEY_CPE, NO_RANGE,
	     "\"month\"", "\"month\", \"week\" or \"day\""),
	 .parse = parse_budget_period,
	 AT(struct conf_path, budget_period)},
	{KEY("budget_reset_day", CONF_PATH, CONF_RELOAD, CONF_KEY_CPE, 1, 31,
	     "1",
	     "the day a period starts, at 00:00 local time: of the month "
	     "(its last day if shorter) or of the week (1..7, Monday 1)"),
	 INT_KEY(struct conf_path, budget_reset_day, 1)},
	{KEY("budget_used_mb", CONF_PATH, CONF_RESTART, CONF_KEY_CPE, 0,
	     100000000, "0",
	     "MB used this period at start when budget_state_file has none"),
	 INT_KEY(struct conf_path, budget_used_mb, 1)},
};
const size_t conf_npath_keys = ARRAY_SIZE(conf_path_keys);

/* A class's match: each a list (family a number), none required. */
const struct key conf_match_keys[] = {
	{KEY("family", CONF_MATCH, CONF_RELOAD, 0, NO_RANGE, NULL,
	     "4 or 6: the inner packet's IP version (default: both)"),
	 .parse = conf_parse_match_family, AT(struct cls_match, family)},
	{KEY("dscp", CONF_MATCH, CONF_RELOAD, 0, 0, 63, NULL,
	     "DSCP values, up to 8"),
	 .parse = conf_parse_match_dscp, AT(struct cls_match, dscp)},
	{KEY("proto", CONF_MATCH, CONF_RELOAD, 0, 0, 255, NULL,
	     "IP protocols, up to 8: numbers or names (tcp udp icmp icmpv6 "
	     "sctp udplite dccp gre esp ah)"),
	 .parse = conf_parse_match_proto, AT(struct cls_match, proto)},
	{KEY("sport", CONF_MATCH, CONF_RELOAD, 0, 0, 65535, NULL,
	     "source ports, up to 8: a number or \"lo-hi\""),
	 .parse = conf_parse_match_ports, AT(struct cls_match, sport)},
	{KEY("dport", CONF_MATCH, CONF_RELOAD, 0, 0, 65535, NULL,
	     "destination ports, up to 8: a number or \"lo-hi\""),
	 .parse = conf_parse_match_ports, AT(struct cls_match, dport)},
	{KEY("src", CONF_MATCH, CONF_RELOAD, 0, NO_RANGE, NULL,
	     "source prefixes, up to 8, of the family if one is given"),
	 .parse = conf_parse_match_addrs, AT(struct cls_match, src)},
	{KEY("dst", CONF_MATCH, CONF_RELOAD, 0, NO_RANGE, NULL,
	     "destination prefixes, up to 8, of the family if one is given"),
	 .parse = conf_parse_match_addrs, AT(struct cls_match, dst)},
};
const size_t conf_nmatch_keys = ARRAY_SIZE(conf_match_keys);

/* A group of traffic_classes, in the order they are read: mode before
 * path and fallback (a pin's). */
const struct key conf_class_keys[] = {
	{KEY("name", CONF_CLASS, CONF_RELOAD,
	     CONF_KEY_REQUIRED, NO_RANGE, NULL,
	     "the class's name: 1..15 of a-z 0-9 _ -, unique"),
	 .parse = conf_parse_class_name, STR_AT(struct conf_class, name)},
	{KEY("match", CONF_CLASS, CONF_RELOAD,
	     CONF_KEY_REQUIRED, NO_RANGE, NULL,
	     "the packets of the class: a group of the keys below, every one "
	     "given must hold ({}: every packet)"),
	 .parse = conf_parse_class_match, AT(struct conf_class, m),
	 .sub = conf_match_keys, .nsub = ARRAY_SIZE(conf_match_keys)},
	{KEY("mode", CONF_CLASS, CONF_RELOAD, 0, NO_RANGE,
	     "\"bond\"",
	     "\"bond\", \"flow\", \"pin\", \"lowest_delay\", \"redundant\" or "
	     "\"bypass\""),
	 .parse = conf_parse_class_mode, AT(struct conf_class, mode)},
	{KEY("path", CONF_CLASS, CONF_RELOAD, 0, NO_RANGE, NULL,
	     "pin: the name of the path (required)"),
	 .parse = conf_parse_class_path, AT(struct conf_class, path)},
	{KEY("fallback", CONF_CLASS, CONF_RELOAD, 0, NO_RANGE,
	     "false", "pin: use the other paths while the path is down"),
	 .parse = conf_parse_class_fallback, AT(struct conf_class, fallback)},
};
const size_t conf_nclass_keys = ARRAY_SIZE(conf_class_keys);


/* The top level, in the order they are read: role before the keys whose
 * parsers check it, paths before lan_interfaces (checked against the
 * paths' devices), the top-level CPE's keys before cpes and cpe_dir (it
 * is the first CPE). */
const struct key conf_top_keys[] = {
	{KEY("role", CONF_TOP, CONF_RESTART, CONF_KEY_REQUIRED, NO_RANGE, NULL,
	     "which end of the tunnel: \"cpe\" or \"concentrator\""),
	 .parse = parse_role, AT(struct conf, role)},
	/* session_id and key are required but on a concentrator with cpes
	 * or cpe_dir: conf_check_top */
	{KEY("session_id", CONF_TOP, CONF_RELOAD, 0, 1, UINT32_MAX, NULL,
	     "the tunnel's id, the same on the CPE and the concentrator"),
	 INT_KEY(struct conf, session_id, 1)},
	{KEY("key", CONF_TOP, CONF_RELOAD, 0, NO_RANGE, NULL,
	     "the pre-shared key: base64 of 32 bytes (l3bondd --genkey)"),
	 .parse = parse_key, AT(struct conf, psk)},
	{KEY("encrypt", CONF_TOP, CONF_RELOAD, 0, NO_RANGE, "false",
	     "encrypt the bonded packets too, not only authenticate them"),
	 .parse = parse_bool, AT(struct conf, encrypt)},
	{KEY("port", CONF_TOP, CONF_RESTART, 0, 1, UINT16_MAX, "7040",
	     "UDP port of the tunnel"),
	 INT_KEY(struct conf, port, 1)},
	{KEY("k", CONF_TOP, CONF_RUNTIME, CONF_KEY_NUMBER | CONF_KEY_SIM, 0, 10,
	     "0.5", "AWI steepness: mobile weight gained per loss"),
	 .parse = parse_k, AT(struct conf, sched.k)},
	{KEY("t_dwd_ms", CONF_TOP, CONF_RUNTIME, CONF_KEY_SIM, 0, 60000, "250",
	     "quiet ms before the mobile weight decreases (x t_report_ms)"),
	 INT_KEY(struct conf, sched.t_dwd_ms, 1)},
	{KEY("t_report_ms", CONF_TOP, CONF_RUNTIME, CONF_KEY_SIM, 10, 10000,
	     "50", "ms between two loss reports of the egress"),
	 INT_KEY(struct conf, sched.t_report_ms, 1)},
	{KEY("w_fixed", CONF_TOP, CONF_RUNTIME, CONF_KEY_SIM, 1, 1000, "50",
	     "constant weight of each fixed path"),
	 INT_KEY(struct conf, sched.w_fixed, 1)},
	{KEY("w_mobile_max", CONF_TOP, CONF_RUNTIME, CONF_KEY_SIM, 0, 1000,
	     "45", "most weight the mobile paths share (0: none)"),
	 INT_KEY(struct conf, sched.w_mobile_max, 1)},
	{KEY("t_lto_ms", CONF_TOP, CONF_RUNTIME, CONF_KEY_SIM, 1, 10000, "100",
	     "longest wait for a missing packet, ms"),
	 INT_KEY(struct conf, reseq.t_lto_us, 1000)},
	{KEY("early_release", CONF_TOP, CONF_RUNTIME, CONF_KEY_SIM, NO_RANGE,
	     "true", "give a packet known lost up at once"),
	 .parse = parse_bool, AT(struct conf, reseq.early_release)},
	{KEY("repair_queue_ms", CONF_TOP, CONF_RUNTIME, 0, 0, 1000, "15",
	     "a path's loss under at most this much queue is its line's "
	     "errors: the peer sends the packets again, ms (0: never)"),
	 INT_KEY(struct conf, reseq.repair_queue_us, 1000)},
	{KEY("queue_target_ms", CONF_TOP, CONF_RUNTIME, CONF_KEY_SIM, 0, 1000,
	     "5",
	     "a fixed path's standing queue over this is congestion, ms "
	     "(0: loss only, the paper's algorithm)"),
	 INT_KEY(struct conf, sched.queue_target_us, 1000)},
	ALIAS("dwd_hold_ms", CONF_TOP, "queue_target_ms"),
	{KEY("rate_auto", CONF_TOP, CONF_RUNTIME, CONF_KEY_SIM, NO_RANGE, "true",
	     "learn a fixed path's rate from its standing queue and pace it "
	     "(needs a queue target; rate_mbit caps it)"),
	 .parse = parse_bool, AT(struct conf, sched.rate_auto)},
	{KEY("mobile_aqm_ms", CONF_TOP, CONF_RUNTIME, CONF_KEY_SIM, 0, 1000,
	     "60",
	     "bulk packets that overflow to a mobile path whose standing "
	     "queue stays over this many ms are dropped on CoDel's law, ms "
	     "(0: never)"),
	 INT_KEY(struct conf, sched.mobile_aqm_us, 1000)},
	{KEY("reorder_capacity", CONF_TOP, CONF_RESTART, CONF_KEY_SIM, 16,
	     1048576, "4096", "packets the reorder buffer holds, a power of 2"),
	 .parse = parse_reorder_capacity, AT(struct conf, reseq.capacity)},
	/* before paths: the paths that give none take it */
	{KEY("peers", CONF_TOP, CONF_RESTART, CONF_KEY_CPE, NO_RANGE, NULL,
	     "the concentrators' addresses for every path that gives none, "
	     "first preferred: up to 4"),
	 .parse = parse_peers, LIST_AT(struct conf, peers, npeers),
	 .text = true},
	{KEY("paths", CONF_TOP, CONF_RESTART, CONF_KEY_REQUIRED, NO_RANGE, NULL,
	     "the access paths: 2 to 16 groups"),
	 .parse = parse_paths, LIST_AT(struct conf, path, npaths),
	 .sub = conf_path_keys, .nsub = ARRAY_SIZE(conf_path_keys)},
	{KEY("ingress_queue", CONF_TOP, CONF_RESTART, 0, 0, UINT16_MAX, "0",
	     "NFQUEUE of the traffic to bond"),
	 INT_KEY(struct conf, ingress_queue, 1)},
	{KEY("egress_queue", CONF_TOP, CONF_RESTART, 0, 0, UINT16_MAX, "1",
	     "NFQUEUE of the tunnel's packets"),
	 INT_KEY(struct conf, egress_queue, 1)},
	{KEY("workers", CONF_TOP, CONF_RESTART,
	     CONF_KEY_CONCENTRATOR | CONF_KEY_NO_UCI, 0,
	     CONF_WORKERS_MAX, "0",
	     "worker processes, each with its own queues and a share of the "
	     "CPEs: 0 for one per core"),
	 INT_KEY(struct conf, workers, 1)},
	{KEY("lan_interfaces", CONF_TOP, CONF_RESTART, CONF_KEY_CPE, NO_RANGE,
	     NULL, "the LAN devices whose forwarded traffic is bonded"),
	 .parse = parse_lan_interfaces, LIST_AT(struct conf, lan, nlan),
	 .text = true},
	{KEY("bond_output", CONF_TOP, CONF_RESTART, CONF_KEY_CPE, NO_RANGE,
	     "false", "also bond the box's own traffic"),
	 .parse = parse_bond_output, AT(struct conf, bond_output)},
	{KEY("prefixes", CONF_TOP, CONF_RELOAD, CONF_KEY_CONCENTRATOR, NO_RANGE,
	     NULL, "the CPE's LAN prefixes: traffic to bond to it"),
	 .parse = parse_prefixes, LIST_AT(struct conf, prefix, nprefixes)},
	/* a list of groups has no UCI form: on OpenWrt, cpe_dir */
	{KEY("cpes", CONF_TOP, CONF_RELOAD,
	     CONF_KEY_CONCENTRATOR | CONF_KEY_NO_UCI, NO_RANGE, NULL,
	     "more CPEs: a list of groups"),
	 .parse = conf_parse_cpes, NOWHERE},
	{KEY("cpe_dir", CONF_TOP, CONF_RELOAD, CONF_KEY_CONCENTRATOR, NO_RANGE,
	     NULL, "more CPEs: a directory of NAME.conf files"),
	 .parse = conf_parse_cpe_dir, NOWHERE},
	/* after paths: a pin names one */
	/* on OpenWrt, class sections */
	{KEY("traffic_classes", CONF_TOP, CONF_RELOAD, 0, NO_RANGE, NULL,
	     "what this box sends, in classes with their own mode: a list of "
	     "up to 16 groups, the first match wins"),
	 .parse = conf_parse_classes, LIST_AT(struct conf, class, nclasses),
	 .sub = conf_class_keys, .nsub = ARRAY_SIZE(conf_class_keys)},
	{KEY("release_mark", CONF_TOP, CONF_RUNTIME, CONF_KEY_HEX, 0,
	     UINT32_MAX, "0", "mark of the released packets (0: none)"),
	 INT_KEY(struct conf, release_mark, 1)},
	{KEY("log_level", CONF_TOP, CONF_RUNTIME, 0, NO_RANGE, "\"info\"",
	     "\"error\", \"warning\", \"info\" or \"debug\""),
	 .parse = parse_log_level, AT(struct conf, log_level)},
	{KEY("probe_interval_ms", CONF_TOP, CONF_RUNTIME, 0, 20, 1000, "200",
	     "ms between two PROBEs on each path"),
	 INT_KEY(struct conf, probe_interval_ms, 1)},
	{KEY("dead_after_ms", CONF_TOP, CONF_RUNTIME, 0, 100, 10000, "1000",
	     "a path unanswered this long is down, ms (>= 2 x probe_interval_ms)"),
	 INT_KEY(struct conf, dead_after_ms, 1)},
	{KEY("idle_probe_ms", CONF_TOP, CONF_RUNTIME, 0, 1000, 300000, "20000",
	     "ms between two PROBEs on a path with no data (the CPE's: under "
	     "the carrier NAT's UDP timeout)"),
	 INT_KEY(struct conf, idle_probe_ms, 1)},
	/* not an alias: it stands for 3 x itself (check_liveness) */
	{KEY("keepalive_ms", CONF_TOP, CONF_RELOAD, CONF_KEY_DEPRECATED, 100,
	     1000, NULL, "replaced by probe_interval_ms and dead_after_ms"),
	 .parse = parse_keepalive, NOWHERE},
	{KEY("control_socket", CONF_TOP, CONF_OPENED, 0, NO_RANGE,
	     "\"/run/l3bond/l3bondd.sock\"",
	     "l3bondctl's socket: an absolute path, \"\" for none"),
	 .parse = parse_control_socket, STR_AT(struct conf, control_socket)},
	{KEY("control_group", CONF_TOP, CONF_OPENED, 0, NO_RANGE, "\"l3bond\"",
	     "group that may use the control socket besides root"),
	 .parse = parse_control_group, STR_AT(struct conf, control_group)},
	{KEY("budget_state_file", CONF_TOP, CONF_OPENED, CONF_KEY_CPE,
	     NO_RANGE, "\"/var/lib/l3bond/budget.state\"",
	     "where the paths' budgets are kept across restarts: an absolute "
	     "path, \"\" for none"),
	 .parse = parse_budget_state_file,
	 STR_AT(struct conf, budget_state_file)},
	{KEY("budget_save_min", CONF_TOP, CONF_RUNTIME, CONF_KEY_CPE, 1, 1440,
	     "15",
	     "minutes between two writes of budget_state_file (flash wears); "
	     "also written at exit"),
	 .parse = parse_budget_int, INT_KEY(struct conf, budget_save_min, 1)},
	/* refused: the exporter's now (l3bond-exporter(8)) */
	{KEY("metrics_port", CONF_TOP, CONF_RESTART,
	     CONF_KEY_DEPRECATED | CONF_KEY_NO_UCI, NO_RANGE, NULL,
	     "refused: l3bond-exporter --port"),
	 .parse = parse_moved_to_exporter, NOWHERE},
	{KEY("metrics_address", CONF_TOP, CONF_RESTART,
	     CONF_KEY_DEPRECATED | CONF_KEY_NO_UCI, NO_RANGE, NULL,
	     "refused: l3bond-exporter --listen"),
	 .parse = parse_moved_to_exporter, NOWHERE},
};
const size_t conf_ntop_keys = ARRAY_SIZE(conf_top_keys);

/* A group of cpes, or a file of cpe_dir (without name: the file's). */
const struct key conf_cpe_keys[] = {
	{KEY("name", CONF_CPES, CONF_RELOAD,
	     CONF_KEY_REQUIRED | CONF_KEY_CONCENTRATOR | CONF_KEY_NO_UCI,
	     NO_RANGE, NULL, "the CPE's name: 1..15 of a-z 0-9 _ -"),
	 .parse = conf_parse_cpe_name, STR_AT(struct conf_cpe, name)},
	{KEY("session_id", CONF_CPES, CONF_RELOAD,
	     CONF_KEY_REQUIRED | CONF_KEY_CONCENTRATOR | CONF_KEY_NO_UCI, 1,
	     UINT32_MAX, NULL, "the CPE's tunnel id"),
	 INT_KEY(struct conf_cpe, session_id, 1)},
	{KEY("key", CONF_CPES, CONF_RELOAD,
	     CONF_KEY_REQUIRED | CONF_KEY_CONCENTRATOR | CONF_KEY_NO_UCI,
	     NO_RANGE, NULL, "the CPE's own pre-shared key"),
	 .parse = conf_parse_cpe_key, AT(struct conf_cpe, psk)},
	{KEY("encrypt", CONF_CPES, CONF_RELOAD,
	     CONF_KEY_CONCENTRATOR | CONF_KEY_NO_UCI, NO_RANGE, NULL,
	     "encrypt (default: the top-level encrypt)"),
	 .parse = conf_parse_cpe_encrypt, AT(struct conf_cpe, encrypt)},
	{KEY("prefixes", CONF_CPES, CONF_RELOAD,
	     CONF_KEY_REQUIRED | CONF_KEY_CONCENTRATOR | CONF_KEY_NO_UCI,
	     NO_RANGE, NULL, "the CPE's LAN prefixes"),
	 .parse = conf_parse_cpe_prefixes,
	 LIST_AT(struct conf_cpe, prefix, nprefixes)},
};
const size_t conf_ncpe_keys = ARRAY_SIZE(conf_cpe_keys);


/* ---- what is derived from the tables ---------------------------------- */

static const struct {
	const struct key *keys;
	const size_t *n;
} tables[] = {
	[CONF_TOP] = {conf_top_keys, &conf_ntop_keys},
	[CONF_PATH] = {conf_path_keys, &conf_npath_keys},
	[CONF_CPES] = {conf_cpe_keys, &conf_ncpe_keys},
	[CONF_CLASS] = {conf_class_keys, &conf_nclass_keys},
	[CONF_MATCH] = {conf_match_keys, &conf_nmatch_keys},
};

const struct key *conf_find(const struct key *keys, size_t nkeys,
			    const char *name, const struct key **alias)
{
	const struct key *k;

	if (alias) {
		*alias = NULL;
	}
	for (k = keys; k < keys + nkeys; k++) {
		if (strcmp(k->i.name, name)) {
			continue;
		}
		if (!k->i.alias_of) {
			return k;
		}
		if (alias) {
			*alias = k;
		}
		return conf_find(keys, nkeys, k->i.alias_of, NULL);
	}
	return NULL;
}

const struct conf_key_info *conf_key(size_t i)
{
	size_t t;

	for (t = 0; t < ARRAY_SIZE(tables); t++) {
		if (i < *tables[t].n) {
			return &tables[t].keys[i].i;
		}
		i -= *tables[t].n;
	}
	return NULL;
}

const struct conf_key_info *conf_key_find(enum conf_group g, const char *name)
{
	const struct key *keys, *k;
	size_t n;

	if ((unsigned)g >= ARRAY_SIZE(tables)) {
		return NULL;
	}
	keys = tables[g].keys;
	n = *tables[g].n;
	for (k = keys; k < keys + n; k++) {
		if (!strcmp(k->i.name, name)) {
			return &k->i;
		}
	}
	return NULL;
}

const char *conf_key_range(const struct conf_key_info *k, char *buf, size_t n)
{
	if (k->min > k->max) {
		snprintf(buf, n, "%s", "");
	} else if (k->flags & CONF_KEY_HEX) {
		snprintf(buf, n, "%lld..0x%llx", k->min,
			 (unsigned long long)k->max);
	} else {
		snprintf(buf, n, "%lld..%lld", k->min, k->max);
	}
	return buf;
}

static unsigned count_of(const void *obj, const struct key *k)
{
	unsigned n;

	memcpy(&n, (const uint8_t *)obj + k->count_off, sizeof(n));
	return n;
}

/* Key k (of obj a and obj b) holds the same in both. */
static bool same(const struct key *k, const void *a, const void *b)
{
	const uint8_t *x = (const uint8_t *)a + k->off;
	const uint8_t *y = (const uint8_t *)b + k->off;
	unsigned n, i;
	size_t j;

	if (k->count_off == NO_COUNT) {
		/* a string's bytes past its end are nobody's */
		return k->text ? !strncmp((const char *)x, (const char *)y,
					  k->size)
			       : !memcmp(x, y, k->size);
	}
	n = count_of(a, k);
	if (n != count_of(b, k)) {
		return false;
	}
	for (i = 0; i < n; i++) {
		const uint8_t *ex = x + i * k->elem, *ey = y + i * k->elem;

		/* a path's key of another class (a per-path tunable)
		 * is no structure */
		for (j = 0; j < k->nsub; j++) {
			if (k->sub[j].i.apply == CONF_RESTART &&
			    !same(&k->sub[j], ex, ey)) {
				return false;
			}
		}
		if (k->nsub) {
			continue;
		}
		if (k->text ? strncmp((const char *)ex, (const char *)ey,
				      k->elem)
			    : memcmp(ex, ey, k->elem)) {
			return false;
		}
	}
	return true;
}

bool conf_same_structure(const struct conf *a, const struct conf *b,
			 const char **key)
{
	const struct key *k;

	for (k = conf_top_keys; k < conf_top_keys + conf_ntop_keys; k++) {
		if (k->i.apply == CONF_RESTART && !same(k, a, b)) {
			*key = k->i.name;
			return false;
		}
	}
	*key = NULL;
	return true;
}

void conf_keep_opened(struct conf *dst, const struct conf *src)
{
	const struct key *k;

	for (k = conf_top_keys; k < conf_top_keys + conf_ntop_keys; k++) {
		if (k->i.apply == CONF_OPENED) {
			memcpy((uint8_t *)dst + k->off,
			       (const uint8_t *)src + k->off, k->size);
		}
	}
}

/* ---- names ------------------------------------------------------------ */

const char *conf_role_name(enum conf_role r)
{
	if ((unsigned)r >= ARRAY_SIZE(role_names)) {
		return "?";
	}
	return role_names[r];
}

const char *conf_class_name(enum path_class cls)
{
	if ((unsigned)cls >= ARRAY_SIZE(class_names)) {
		return "?";
	}
	return class_names[cls];
}

const char *conf_log_level_name(enum conf_log_level lv)
{
	if ((unsigned)lv >= ARRAY_SIZE(log_level_names)) {
		return "?";
	}
	return log_level_names[lv];
}
