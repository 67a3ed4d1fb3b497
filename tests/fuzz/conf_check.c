/* SPDX-License-Identifier: BSD-2-Clause */
/* The invariants of a struct conf that conf_load or conf_set accepted,
 * written from the contract (conf.h and the commented sample configs), not
 * from conf.c: a value conf.c lets through that the contract forbids is a
 * bug the fuzzers report.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"

/* s is NUL-terminated within n bytes and has min..n-1 characters. */
static bool str_ok(const char *s, size_t n, size_t min)
{
	size_t len = strnlen(s, n);

	return len < n && len >= min;
}

static bool only(const char *s, const char *set)
{
	return strspn(s, set) == strlen(s);
}

static bool ifname_ok(const char *s)
{
	const char *ch;

	if (!str_ok(s, IF_NAMESIZE, 1) || !strcmp(s, ".") || !strcmp(s, "..")) {
		return false;
	}
	for (ch = s; *ch; ch++) {
		if (*ch == '/' || *ch == ':' || isspace((unsigned char)*ch)) {
			return false;
		}
	}
	return true;
}

static bool addr_ok(const char *s)
{
	unsigned char a[sizeof(struct in6_addr)];

	return str_ok(s, CONF_ADDR_MAX, 1) && (inet_pton(AF_INET, s, a) == 1 ||
					       inet_pton(AF_INET6, s, a) == 1);
}

static bool whole_ms(uint32_t us, uint32_t min_ms, uint32_t max_ms)
{
	return us % 1000 == 0 && us / 1000 >= min_ms && us / 1000 <= max_ms;
}

static bool whole(double v, double min, double max)
{
	return v == floor(v) && v >= min && v <= max;
}

static void check_paths(const struct conf *c)
{
	const struct conf_path *p;
	bool fixed = false;
	unsigned i, j;

	FUZZ_CHECK(c->npaths >= 2 && c->npaths <= WIRE_MAX_PATHS, "npaths %u",
		   c->npaths);
	for (i = 0; i < c->npaths; i++) {
		p = &c->path[i];
		FUZZ_CHECK(str_ok(p->name, sizeof(p->name), 1) &&
				   only(p->name, "abcdefghijklmnopqrstuvwxyz"
						 "0123456789_-"),
			   "paths[%u].name", i);
		for (j = 0; j < i; j++) {
			FUZZ_CHECK(strcmp(c->path[j].name, p->name),
				   "paths[%u] and [%u] named '%s'", j, i,
				   p->name);
		}
		FUZZ_CHECK((unsigned)p->cls < PATH_NCLASS,
			   "paths[%u].class %d", i, (int)p->cls);
		fixed |= p->cls == PATH_FIXED;
		FUZZ_CHECK(ifname_ok(p->ifname), "paths[%u].interface", i);
		if (c->role == ROLE_CPE) {
			FUZZ_CHECK(p->npeers >= 1 &&
					   p->npeers <= CONF_PEERS_MAX &&
					   p->npeers == c->path[0].npeers,
				   "paths[%u].npeers %u", i, p->npeers);
			for (j = 0; j < p->npeers && j < CONF_PEERS_MAX; j++) {
				FUZZ_CHECK(addr_ok(p->peers[j]),
					   "paths[%u].peers[%u]", i, j);
				FUZZ_CHECK(!strchr(p->peers[j], ':') ==
						   !strchr(p->peers[0], ':'),
					   "paths[%u].peers[%u] family", i, j);
			}
		} else {
			FUZZ_CHECK(!p->npeers, "paths[%u].peers set", i);
		}
		/* peer_port 0 means the top-level port; the file cannot
		 * write 0 */
		(void)p->peer_port;
		/* mtu 0: the interface's; else what the file may write */
		FUZZ_CHECK(!p->mtu || (p->mtu >= 576 && p->mtu <= 65535),
			   "paths[%u].mtu %u", i, p->mtu);
		/* a data budget: the CPE's, its period and day in range (a
		 * path no loader made may hold zeros) */
		FUZZ_CHECK(c->role == ROLE_CPE ||
				   (!p->budget_mb && !p->budget_used_mb),
			   "paths[%u].budget on a concentrator", i);
		FUZZ_CHECK(!p->budget_mb ||
				   ((unsigned)p->budget_period < BUDGET_NPERIOD &&
				   p->budget_reset_day >= 1 &&
				   p->budget_reset_day <=
					   (p->budget_period == BUDGET_WEEK ? 7
									    : 31)),
			   "paths[%u].budget_period %d, day %u", i,
			   (int)p->budget_period, p->budget_reset_day);
	}
	/* the groups past npaths stay as conf_defaults left them */
	for (; i < WIRE_MAX_PATHS; i++) {
		FUZZ_CHECK(!c->path[i].mtu && !c->path[i].name[0],
			   "paths[%u] set past npaths", i);
	}
	FUZZ_CHECK(fixed, "no fixed path");
}

static void check_lan(const struct conf *c)
{
	unsigned i, j;

	FUZZ_CHECK(c->nlan <= CONF_LAN_MAX, "nlan %u", c->nlan);
	FUZZ_CHECK(c->role == ROLE_CPE || !c->nlan, "lan on a concentrator");
	FUZZ_CHECK(c->role == ROLE_CPE || !c->bond_output,
		   "bond_output on a concentrator");
	for (i = 0; i < c->nlan; i++) {
		FUZZ_CHECK(ifname_ok(c->lan[i]), "lan_interfaces[%u]", i);
		for (j = 0; j < i; j++) {
			FUZZ_CHECK(strcmp(c->lan[i], c->lan[j]),
				   "lan_interfaces[%u] repeated", i);
		}
		for (j = 0; j < c->npaths; j++) {
			FUZZ_CHECK(strcmp(c->lan[i], c->path[j].ifname),
				   "lan_interfaces[%u] is a path's", i);
		}
	}
}

static void check_prefixes(const struct conf *c)
{
	const struct conf_prefix *p;
	uint32_t mask;
	unsigned i, j;

	FUZZ_CHECK(c->nprefixes <= CONF_PREFIX_MAX, "nprefixes %u",
		   c->nprefixes);
	FUZZ_CHECK(c->role == ROLE_CONCENTRATOR || !c->nprefixes,
		   "prefixes on a cpe");
	for (i = 0; i < c->nprefixes; i++) {
		p = &c->prefix[i];
		FUZZ_CHECK(p->len <= 32, "prefixes[%u] /%u", i, p->len);
		mask = p->len ? ~0u << (32 - p->len) : 0;
		FUZZ_CHECK(!(ntohl(p->addr) & ~mask), "prefixes[%u] host bits",
			   i);
		for (j = 0; j < i; j++) {
			FUZZ_CHECK(p->addr != c->prefix[j].addr ||
					   p->len != c->prefix[j].len,
				   "prefixes[%u] repeated", i);
		}
	}
}

static void check_ops(const struct conf *c)
{
	const char *g = c->control_group;
	size_t i;

	FUZZ_CHECK(
		str_ok(c->control_socket, sizeof(c->control_socket), 0) &&
			(!c->control_socket[0] || c->control_socket[0] == '/'),
		"control_socket");
	FUZZ_CHECK(str_ok(g, sizeof(c->control_group), 1), "control_group");
	for (i = 0; g[i]; i++) {
		FUZZ_CHECK(islower((unsigned char)g[i]) || g[i] == '_' ||
				   (i && (isdigit((unsigned char)g[i]) ||
					  g[i] == '-')),
			   "control_group '%s'", g);
	}
}

/* The CPE array: exactly the CPEs configured (conf_load gives a CPE one,
 * itself: fuzz_conf checks it; conf_set's base has none). */
static void check_cpes(const struct conf *c)
{
	unsigned i;

	FUZZ_CHECK(c->ncpes <= CONF_CPE_MAX, "%u CPEs", c->ncpes);
	FUZZ_CHECK(!c->ncpes == !c->cpe, "%u CPEs at %p", c->ncpes,
		   (void *)c->cpe);
	FUZZ_CHECK(c->role == ROLE_CONCENTRATOR || c->ncpes <= 1,
		   "a CPE with %u CPEs", c->ncpes);
	for (i = 0; i < c->ncpes; i++) {
		FUZZ_CHECK(c->cpe[i].session_id >= 1, "cpe[%u]: session_id 0",
			   i);
		FUZZ_CHECK(c->cpe[i].nprefixes <= CONF_PREFIX_MAX,
			   "cpe[%u]: %u prefixes", i, c->cpe[i].nprefixes);
	}
}

/* The traffic classes (l3bond.conf(5), TRAFFIC CLASSES): at most
 * CLS_MAX, named and unique, a mode of the six; a pin's path a configured
 * one and only a pin's; each list 0..CLS_LIST_MAX; prefixes of 4 or 6 with
 * host bits clear and of the match's family if it has one. */
static void check_classes(const struct conf *c)
{
	const struct conf_class *k;
	const struct cls_match *m;
	unsigned i, j, b;

	FUZZ_CHECK(c->nclasses <= CLS_MAX, "nclasses %u", c->nclasses);
	for (i = 0; i < c->nclasses; i++) {
		k = &c->class[i];
		m = &k->m;
		FUZZ_CHECK(str_ok(k->name, sizeof(k->name), 1) &&
				   only(k->name, "abcdefghijklmnopqrstuvwxyz"
						 "0123456789_-"),
			   "traffic_classes[%u].name", i);
		for (j = 0; j < i; j++) {
			FUZZ_CHECK(strcmp(c->class[j].name, k->name),
				   "traffic_classes[%u] and [%u] named '%s'", j,
				   i, k->name);
		}
		FUZZ_CHECK((unsigned)k->mode < CLASS_NMODES,
			   "traffic_classes[%u].mode %d", i, (int)k->mode);
		if (k->mode == CLASS_PIN) {
			FUZZ_CHECK(k->path >= 0 && (unsigned)k->path < c->npaths,
				   "traffic_classes[%u].path %d", i, k->path);
		} else {
			FUZZ_CHECK(k->path == -1 && !k->fallback,
				   "traffic_classes[%u]: path or fallback "
				   "without pin",
				   i);
		}
		FUZZ_CHECK(m->family == 0 || m->family == 4 || m->family == 6,
			   "traffic_classes[%u].match.family %u", i, m->family);
		FUZZ_CHECK(m->nproto <= CLS_LIST_MAX &&
				   m->nsport <= CLS_LIST_MAX &&
				   m->ndport <= CLS_LIST_MAX &&
				   m->nsrc <= CLS_LIST_MAX &&
				   m->ndst <= CLS_LIST_MAX,
			   "traffic_classes[%u].match: a list too long", i);
		for (j = 0; j < m->nsport + m->ndport; j++) {
			const struct cls_range *r = j < m->nsport
							    ? &m->sport[j]
							    : &m->dport[j - m->nsport];

			FUZZ_CHECK(r->lo <= r->hi,
				   "traffic_classes[%u].match: range %u-%u", i,
				   r->lo, r->hi);
		}
		for (j = 0; j < m->nsrc + m->ndst; j++) {
			const struct cls_prefix *p = j < m->nsrc
							     ? &m->src[j]
							     : &m->dst[j - m->nsrc];
			unsigned max = p->family == 4 ? 32 : 128;

			FUZZ_CHECK((p->family == 4 || p->family == 6) &&
					   p->len <= max &&
					   (!m->family || m->family == p->family),
				   "traffic_classes[%u].match: prefix", i);
			for (b = p->len; b < 128; b++) {
				FUZZ_CHECK(!(p->addr[b / 8] & (0x80 >> (b % 8))),
					   "traffic_classes[%u].match: host "
					   "bits",
					   i);
			}
		}
	}
}

void fuzz_check_conf(const struct conf *c)
{
	const struct ing_sched_params *s = &c->sched;
	uint32_t cap = c->reseq.capacity;

	FUZZ_CHECK(c->role == ROLE_CPE || c->role == ROLE_CONCENTRATOR,
		   "role %d", (int)c->role);
	FUZZ_CHECK(c->session_id >= 1, "session_id 0");
	/* a loaded config always holds a key, never an all-zero one */
	FUZZ_CHECK(conf_has_key(c), "no key");
	FUZZ_CHECK(c->port >= 1, "port 0");
	FUZZ_CHECK(isfinite(s->k) && s->k >= 0 && s->k <= 10, "k %g", s->k);
	FUZZ_CHECK(s->t_dwd_ms <= 60000, "t_dwd_ms %u", s->t_dwd_ms);
	FUZZ_CHECK(s->t_report_ms >= 10 && s->t_report_ms <= 10000,
		   "t_report_ms %u", s->t_report_ms);
	FUZZ_CHECK(s->t_dwd_ms % s->t_report_ms == 0, "t_dwd_ms %u / %u",
		   s->t_dwd_ms, s->t_report_ms);
	FUZZ_CHECK(whole(s->w_fixed, 1, 1000), "w_fixed %g", s->w_fixed);
	FUZZ_CHECK(whole(s->w_mobile_max, 0, 1000), "w_mobile_max %g",
		   s->w_mobile_max);
	FUZZ_CHECK(whole_ms(s->queue_target_us, 0, 1000), "queue_target_us %u",
		   s->queue_target_us);
	FUZZ_CHECK(whole_ms(c->reseq.t_lto_us, 1, 10000), "t_lto_us %u",
		   c->reseq.t_lto_us);
	FUZZ_CHECK(cap >= 16 && cap <= 1048576 && !(cap & (cap - 1)),
		   "reorder_capacity %u", cap);
	FUZZ_CHECK(c->ingress_queue != c->egress_queue, "queues both %u",
		   c->ingress_queue);
	FUZZ_CHECK(c->log_level <= CONF_LOG_DEBUG, "log_level %d",
		   (int)c->log_level);
	FUZZ_CHECK(c->probe_interval_ms >= 20 && c->probe_interval_ms <= 1000,
		   "probe_interval_ms %u", c->probe_interval_ms);
	FUZZ_CHECK(c->dead_after_ms >= 100 && c->dead_after_ms <= 10000 &&
			   c->dead_after_ms >= 2 * c->probe_interval_ms,
		   "dead_after_ms %u (probe_interval_ms %u)", c->dead_after_ms,
		   c->probe_interval_ms);
	FUZZ_CHECK(c->idle_probe_ms >= 1000 && c->idle_probe_ms <= 300000,
		   "idle_probe_ms %u", c->idle_probe_ms);
	check_paths(c);
	check_lan(c);
	check_prefixes(c);
	check_ops(c);
	check_cpes(c);
	check_classes(c);
}

#define SAME(field)	(a->field == b->field)
#define SAME_MEM(field) (!memcmp(&a->field, &b->field, sizeof(a->field)))

bool fuzz_conf_equal(const struct conf *a, const struct conf *b)
{
	unsigned i;

	if (!(SAME(role) && SAME(session_id) && SAME_MEM(psk) &&
	      SAME(encrypt) && SAME(port) && SAME(sched.k) &&
	      SAME(sched.t_dwd_ms) && SAME(sched.t_report_ms) &&
	      SAME(sched.w_fixed) && SAME(sched.w_mobile_max) &&
	      SAME(sched.queue_target_us) && SAME(sched.rate_auto) &&
	      SAME(sched.mobile_aqm_us) &&
	      SAME(reseq.t_lto_us) &&
	      SAME(reseq.early_release) && SAME(reseq.capacity) &&
	      SAME(npeers) && SAME_MEM(peers) &&
	      SAME(npaths) && SAME(ingress_queue) && SAME(egress_queue) &&
	      SAME(nlan) && SAME_MEM(lan) && SAME(bond_output) &&
	      SAME(nprefixes) && SAME(release_mark) && SAME(log_level) &&
	      SAME(probe_interval_ms) && SAME(dead_after_ms) &&
	      SAME(idle_probe_ms) &&
	      SAME_MEM(control_socket) &&
	      SAME_MEM(control_group))) {
		return false;
	}
	for (i = 0; i < WIRE_MAX_PATHS; i++) {
		if (!(SAME_MEM(path[i].name) && SAME(path[i].cls) &&
		      SAME_MEM(path[i].ifname) && SAME(path[i].fwmark) &&
		      SAME(path[i].npeers) && SAME_MEM(path[i].peers) &&
		      SAME(path[i].peer_port) &&
		      SAME(path[i].mtu))) {
			return false;
		}
	}
	for (i = 0; i < CONF_PREFIX_MAX; i++) {
		if (!(SAME(prefix[i].addr) && SAME(prefix[i].len))) {
			return false;
		}
	}
	return true;
}

bool fuzz_one_line(const char *err, size_t len)
{
	size_t i;

	for (i = 0; i < len && err[i]; i++) {
		if (iscntrl((unsigned char)err[i])) {
			return false;
		}
	}
	return i < len;
}
