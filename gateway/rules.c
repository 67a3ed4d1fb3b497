/* SPDX-License-Identifier: BSD-2-Clause */
/* The daemon's own firewall rules, and rp_filter.
 *
 * Chains (iptables, and the same in ip6tables for IPv6):
 *	mangle L3B_ING  <- FORWARD     traffic to bond -> ingress_queue
 *	mangle L3B_OUT  <- OUTPUT      (cpe, bond_output) local traffic
 *	raw    L3B_EGR  <- PREROUTING  tunnel port -> egress_queue
 *	raw    L3B_DEFRAG                (never jumped to, see below)
 *
 * Installed in one iptables-restore --noflush transaction (chains, rules
 * and the jumps together), after everything a previous run may have left
 * (jumps, chains) is removed; removed the same way at exit.  The text that
 * is installed is exactly what --print-rules iptables prints.  A
 * concentrator's L3B_ING matches its CPEs' prefixes in an ipset per
 * family (see "the CPEs' prefixes in one kernel set" below), made first
 * and destroyed last (--print-rules ipset).
 *
 * Every capture rule uses --queue-bypass: with no daemon bound the traffic
 * is routed natively (the CPE keeps working over its default route; a
 * concentrator whose daemon died does not black-hole its CPEs).  The
 * egress rule has no bypass: tunnel packets mean nothing to the stack.
 *
 * Fragments: an inner packet too large for the path MTU once encapsulated
 * leaves in fragmented outer packets (IP_PMTUDISC_DONT on the path
 * sockets).  The egress needs them whole, and the kernel reassembles
 * before raw PREROUTING only while connection tracking is in use in the
 * namespace (nf_defrag_ipv4 hooks at -400).  It is on any router with NAT
 * or a stateful firewall; L3B_DEFRAG makes sure of it: a rule with a
 * conntrack match registers conntrack and defrag for the namespace when it
 * is loaded, whether or not any packet ever reaches it.
 *
 * TCP SYNs that are bonded get their MSS clamped so that a full segment
 * still fits the smallest path MTU once encapsulated (gw->mss, from the
 * interfaces' MTUs or the configured ones): see the README on MTU.
 *
 * Traffic classes in mode bypass (issue 13) are left out by the capture
 * rules themselves, so that their packets never reach the daemon: with a
 * bypass class, every capture rule jumps to L3B_CAP instead of queueing,
 * which walks the classes in their order up to the last bypass one (the
 * first match still wins: an earlier class's packets go to the queue) and
 * ends in L3B_Q, the clamp and the NFQUEUE rule.  A class is a chain per
 * field it names (L3B_C<class>_<n>: DSCP, protocol, source and destination
 * ports, addresses), each rule of a chain one entry of the field's list
 * jumping to the next field's chain; the last field's rules ACCEPT (a
 * bypass class: the mangle table is done with it, routed natively) or
 * jump to L3B_Q.  The match is the classifier's (ingress/classify.h):
 * ports in TCP, UDP, UDP-Lite, SCTP and DCCP only.  The daemon still lets
 * go (and counts) a bypass packet that reaches it: with rules of its own
 * making, none does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "gateway/gw.h"
#include "gateway/rules.h"
#include "ingress/classify.h"
#include "ingress/mtu.h"

/* Generated text goes into a memory stream (open_memstream): it grows as
 * needed; a failed write shows in the stream's error flag. */
struct out {
	FILE *f;
	char *text; /* the stream's buffer: valid after out_close() */
	size_t len;
	unsigned mss; /* of the TCPMSS clamp (IPv4; IPv6: 20 less) */
	bool v6;      /* ip6tables text (the IPv6 prefixes, the IPv6 MSS) */
	bool oom;     /* a part of the text could not be made */
};

static int out_open(struct out *o)
{
	o->text = NULL;
	o->len = 0;
	o->oom = false;
	o->f = open_memstream(&o->text, &o->len);
	return o->f ? 0 : -errno;
}

/* The text made, NUL-terminated in o->text (the caller frees it); 0, or
 * -ENOMEM when a write failed or the text is over GW_RULES_MAX. */
static int out_close(struct out *o)
{
	bool err = ferror(o->f);

	if (fclose(o->f) || err || o->oom || !o->text ||
	    o->len >= GW_RULES_MAX) {
		free(o->text);
		o->text = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The IPv6 MSS: the same inner maximum less an IPv6 header, 20 bytes
 * longer than the IPv4 one. */
static unsigned mss6(unsigned mss)
{
	return mss > 20 ? mss - 20 : 0;
}

static void __attribute__((format(printf, 2, 3)))
put(struct out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(o->f, fmt, ap);
	va_end(ap);
}

/* The path devices without repeats (paths may share a device). */
static unsigned wan_devices(const struct conf *c, const char **dev)
{
	unsigned i, j, n = 0;

	for (i = 0; i < c->npaths; i++) {
		for (j = 0; j < n; j++) {
			if (!strcmp(dev[j], c->path[i].ifname)) {
				break;
			}
		}
		if (j == n) {
			dev[n++] = c->path[i].ifname;
		}
	}
	return n;
}

/* ---- traffic classes in the capture rules (bypass; see the top) ---- */

/* The fields of a match, in the order of a class's chains. */
enum cap_field {
	CAP_DSCP = 0,
	CAP_PROTO, /* only without ports: with them, the port rules say it */
	CAP_SPORT,
	CAP_DPORT,
	CAP_SRC,
	CAP_DST,
	CAP_NFIELDS,
};

/* The classes the capture rules walk: all up to the last bypass one
 * (none: no bypass class, capture queues at once). */
static unsigned cap_classes(const struct conf *c)
{
	unsigned i, n = 0;

	for (i = 0; i < c->nclasses; i++) {
		if (c->class[i].mode == CLASS_BYPASS) {
			n = i + 1;
		}
	}
	return n;
}

/* The protocols a match is checked in (p holds 256): with ports, those
 * of its list that carry them (every one that does, with no list); else
 * its list. */
static unsigned cap_protos(const struct cls_match *m, uint8_t *p)
{
	unsigned i, n = 0;

	if (!m->nsport && !m->ndport) {
		memcpy(p, m->proto, m->nproto);
		return m->nproto;
	}
	for (i = 0; i < 256; i++) {
		if (cls_proto_has_ports((uint8_t)i) &&
		    (!m->nproto || memchr(m->proto, (int)i, m->nproto))) {
			p[n++] = (uint8_t)i;
		}
	}
	return n;
}

/* The entries of a prefix list of the family (4 or 6). */
static unsigned cap_prefixes(const struct cls_prefix *p, unsigned n,
			     uint8_t family)
{
	unsigned i, k = 0;

	for (i = 0; i < n; i++) {
		k += p[i].family == family;
	}
	return k;
}

/* A packet of the family can meet the match (the classifier's rules):
 * otherwise the class has no rules in that family's text. */
static bool cap_applies(const struct cls_match *m, uint8_t family)
{
	uint8_t proto[256];

	if (m->family && m->family != family) {
		return false;
	}
	if ((m->nsrc && !cap_prefixes(m->src, m->nsrc, family)) ||
	    (m->ndst && !cap_prefixes(m->dst, m->ndst, family))) {
		return false;
	}
	return !(m->nsport || m->ndport) || cap_protos(m, proto) > 0;
}

static bool cap_has(const struct cls_match *m, enum cap_field f)
{
	switch (f) {
	case CAP_DSCP:
		return m->dscp != 0;
	case CAP_PROTO:
		return m->nproto && !m->nsport && !m->ndport;
	case CAP_SPORT:
		return m->nsport;
	case CAP_DPORT:
		return m->ndport;
	case CAP_SRC:
		return m->nsrc;
	case CAP_DST:
		return m->ndst;
	case CAP_NFIELDS:
		break;
	}
	return false;
}

static const char *cap_prefix_str(const struct cls_prefix *p, char *buf,
				  size_t len)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(p->family == 6 ? AF_INET6 : AF_INET, p->addr, a, sizeof(a));
	snprintf(buf, len, "%s/%u", a, p->len);
	return buf;
}

static const char *cap_range_str(const struct cls_range *r, char *buf,
				 size_t len, char sep)
{
	if (r->lo == r->hi) {
		snprintf(buf, len, "%u", r->lo);
	} else {
		snprintf(buf, len, "%u%c%u", r->lo, sep, r->hi);
	}
	return buf;
}

/* The name of class i's chain of its n-th field (n from 0). */
static void cap_chain(char *buf, size_t len, unsigned i, unsigned n)
{
	snprintf(buf, len, "L3B_C%u_%u", i, n);
}

/* A field's rules in chain: one per entry of its list, each jumping to
 * next (a chain or a verdict). */
static void cap_field_rules(const struct cls_match *m, enum cap_field f,
			    struct out *o, const char *chain,
			    const char *next)
{
	uint8_t fam = o->v6 ? 6 : 4, proto[256];
	unsigned np = cap_protos(m, proto), i, j, nr;
	const struct cls_range *r;
	const struct cls_prefix *p;
	char buf[INET6_ADDRSTRLEN + 8];

	switch (f) {
	case CAP_DSCP:
		for (i = 0; i < 64; i++) {
			if (m->dscp >> i & 1) {
				put(o, "-A %s -m dscp --dscp %u -j %s\n", chain,
				    i, next);
			}
		}
		break;
	case CAP_PROTO:
		for (i = 0; i < np; i++) {
			put(o, "-A %s -p %u -j %s\n", chain, proto[i], next);
		}
		break;
	case CAP_SPORT:
	case CAP_DPORT:
		r = f == CAP_SPORT ? m->sport : m->dport;
		nr = f == CAP_SPORT ? m->nsport : m->ndport;
		for (i = 0; i < np; i++) {
			for (j = 0; j < nr; j++) {
				put(o, "-A %s -p %u -m multiport --%s %s -j %s\n",
				    chain, proto[i],
				    f == CAP_SPORT ? "sports" : "dports",
				    cap_range_str(&r[j], buf, sizeof(buf), ':'),
				    next);
			}
		}
		break;
	case CAP_SRC:
	case CAP_DST:
		p = f == CAP_SRC ? m->src : m->dst;
		nr = f == CAP_SRC ? m->nsrc : m->ndst;
		for (i = 0; i < nr; i++) {
			if (p[i].family == fam) {
				put(o, "-A %s -%c %s -j %s\n", chain,
				    f == CAP_SRC ? 's' : 'd',
				    cap_prefix_str(&p[i], buf, sizeof(buf)),
				    next);
			}
		}
		break;
	case CAP_NFIELDS:
		break;
	}
}

/* The chains class i has in the family's text: one per field it names
 * (0: none, or no chain at all when it cannot match there or comes after
 * the last bypass class). */
static unsigned cap_nchains(const struct conf *c, unsigned i, uint8_t family)
{
	enum cap_field f;
	unsigned n = 0;

	if (i >= cap_classes(c) || !cap_applies(&c->class[i].m, family)) {
		return 0;
	}
	for (f = CAP_DSCP; f < CAP_NFIELDS; f++) {
		n += cap_has(&c->class[i].m, f);
	}
	return n;
}

/* The chains of the classes in the text's family: declared (decl) or
 * filled (their rules, L3B_CAP's and L3B_Q's). */
static void cap_rules(const struct conf *c, struct out *o, bool decl)
{
	unsigned n = cap_classes(c), i, k, nf;
	unsigned mss = o->v6 ? mss6(o->mss) : o->mss;
	enum cap_field fl[CAP_NFIELDS], f;
	char chain[32], next[32];

	if (!n) {
		return;
	}
	if (decl) {
		put(o, ":L3B_CAP - [0:0]\n:L3B_Q - [0:0]\n");
	}
	for (i = 0; i < n; i++) {
		const struct conf_class *cl = &c->class[i];
		const char *verdict =
			cl->mode == CLASS_BYPASS ? "ACCEPT" : "L3B_Q";

		if (!cap_applies(&cl->m, o->v6 ? 6 : 4)) {
			continue;
		}
		for (nf = 0, f = CAP_DSCP; f < CAP_NFIELDS; f++) {
			if (cap_has(&cl->m, f)) {
				fl[nf++] = f;
			}
		}
		for (k = 0; k <= nf; k++) {
			if (k < nf) {
				cap_chain(next, sizeof(next), i, k);
			} else {
				snprintf(next, sizeof(next), "%s", verdict);
			}
			if (decl && k < nf) {
				put(o, ":%s - [0:0]\n", next);
			} else if (!decl && !k) {
				put(o, "-A L3B_CAP -j %s\n", next);
			} else if (!decl) {
				cap_field_rules(&cl->m, fl[k - 1], o, chain,
						next);
			}
			memcpy(chain, next, sizeof(chain));
		}
	}
	if (!decl) {
		put(o, "-A L3B_CAP -j L3B_Q\n");
		put(o,
		    "-A L3B_Q -p tcp --tcp-flags SYN,RST SYN -m tcpmss --mss "
		    "%u:65535 -j TCPMSS --set-mss %u\n",
		    mss + 1, mss);
		put(o, "-A L3B_Q -j NFQUEUE --queue-num %u --queue-bypass\n",
		    c->ingress_queue);
	}
}

/* The match of worker k's tunnel packets (of nw) for iptables: an xt_bpf
 * program (classic BPF, from the network header) that takes the session
 * id, 4 bytes into the UDP payload (common/wire.h), modulo nw: IPv4 finds
 * the UDP header from the IHL, IPv6 at 40 (no extension header: those are
 * dropped by the egress anyway, outer_ext6, and the last worker's rule
 * takes them, having none of this match).  Ops: ldxb 4*([0]&0xf); ld
 * [x+12] | ld [52]; mod #nw; jeq #k,0,1; ret #1; ret #0. */
static void steer_bpf(char *buf, size_t len, bool v6, unsigned nw, unsigned k)
{
	if (v6) {
		snprintf(buf, len,
			 "-m bpf --bytecode \"5,32 0 0 52,148 0 0 %u,21 0 1 "
			 "%u,6 0 0 1,6 0 0 0\" ",
			 nw, k);
	} else {
		snprintf(buf, len,
			 "-m bpf --bytecode \"6,177 0 0 0,64 0 0 12,148 0 0 "
			 "%u,21 0 1 %u,6 0 0 1,6 0 0 0\" ",
			 nw, k);
	}
}

/* The same in nft, which has no modulo of a payload field: the session
 * ids of worker k's CPEs as a set (32 bits at 4 bytes into the UDP
 * payload); the last worker takes what no other does. */
static void nft_steer(const struct conf *c, struct out *o, unsigned k)
{
	unsigned nw = conf_workers(c), i, n = 0;

	if (k + 1 == nw) {
		return;
	}
	for (i = 0; i < c->ncpes; i++) {
		if (c->cpe[i].session_id % nw == k) {
			put(o, "%s%u", n++ ? ", " : "@th,96,32 { ",
			    c->cpe[i].session_id);
		}
	}
	if (n) {
		put(o, " } ");
	} else {
		/* none: k + nw, an id of worker k that no CPE has, so that
		 * the rule matches nothing */
		put(o, "@th,96,32 %u ", k + nw);
	}
}

/* A capture rule of chain for what match selects: the clamp and the
 * queue, or with bypass classes L3B_CAP (which ends in them). */
static void capture(const struct conf *c, struct out *o, const char *chain,
		    const char *match, unsigned queue)
{
	unsigned mss = o->v6 ? mss6(o->mss) : o->mss;

	if (cap_classes(c)) {
		put(o, "-A %s %s -j L3B_CAP\n", chain, match);
		return;
	}
	put(o,
	    "-A %s %s -p tcp --tcp-flags SYN,RST SYN -m tcpmss --mss "
	    "%u:65535 -j TCPMSS --set-mss %u\n",
	    chain, match, mss + 1, mss);
	put(o, "-A %s %s -j NFQUEUE --queue-num %u --queue-bypass\n", chain,
	    match, queue);
}

/* ---- the CPEs' prefixes in one kernel set per family ----------------
 *
 * A concentrator's capture is one rule per family, whatever the number of
 * CPEs: the destination in the set of the CPEs' prefixes (an ipset
 * hash:net for iptables, a named interval set in nft).  A lookup in the
 * set costs the same for 2 CPEs or 10,000, where a rule per prefix made
 * every packet walk them all, and a reload replaces the set's contents
 * (a new set filled, then swapped for the old one: never seen empty)
 * without touching the chains.
 *
 * The ipset sets are named after the queue they steer to,
 * l3b_q<queue>_v4 and _v6: sets are per network namespace like the
 * chains, and a set per queue is what several queues need (one set of
 * the CPEs of each).  The text that builds a set takes the CPEs it holds
 * as a parameter for that reason.  hash:net cannot hold a /0: it goes in
 * as its two halves. */

enum {
	SET_MAXELEM = CONF_CPE_MAX * CONF_PREFIX_MAX, /* fixed: see set_text */
};

static void set_name(char *buf, size_t len, unsigned queue, bool v6,
		     const char *suffix)
{
	snprintf(buf, len, "l3b_q%u_v%c%s", queue, v6 ? '6' : '4', suffix);
}

static void set_create(struct out *o, const char *name, bool v6)
{
	put(o, "create %s hash:net family %s hashsize 1024 maxelem %u -exist\n",
	    name, v6 ? "inet6" : "inet", SET_MAXELEM);
}

/* The ipset restore text that gives set (queue, v6) the prefixes of the
 * family of the n CPEs at cpe: a new set filled, swapped for the old one
 * (created empty if there was none), the old one destroyed.  With -exist
 * on each create: a set already there is taken as it is, so that its
 * parameters must never change (maxelem is the limit of the config, not
 * of today's CPEs). */
static void set_text(struct out *o, unsigned queue, bool v6,
		     const struct conf_cpe *const *cpe, unsigned n)
{
	char name[32], tmp[32], pfx[INET6_ADDRSTRLEN + 4];
	unsigned k, i;

	set_name(name, sizeof(name), queue, v6, "");
	set_name(tmp, sizeof(tmp), queue, v6, "_new");
	set_create(o, tmp, v6);
	put(o, "flush %s\n", tmp);
	for (k = 0; k < n; k++) {
		for (i = 0; i < cpe[k]->nprefixes; i++) {
			const struct conf_prefix *p = &cpe[k]->prefix[i];

			if (p->v6 != v6) {
				continue;
			}
			if (!p->len) {
				put(o, "add %s %s/1\nadd %s %s/1\n", tmp,
				    v6 ? "::" : "0.0.0.0", tmp,
				    v6 ? "8000::" : "128.0.0.0");
				continue;
			}
			put(o, "add %s %s\n", tmp,
			    conf_prefix_str(p, pfx, sizeof(pfx)));
		}
	}
	set_create(o, name, v6);
	put(o, "swap %s %s\ndestroy %s\n", tmp, name, tmp);
}

/* The CPEs of c's worker w (workers.c: session id modulo the workers;
 * all of them without workers), as set_text and nft_set take them, n of
 * them (NULL: no memory). */
static const struct conf_cpe **worker_cpes(const struct conf *c, unsigned w,
					   unsigned *n)
{
	const struct conf_cpe **v = malloc((c->ncpes ? c->ncpes : 1) *
					   sizeof(*v));
	unsigned nw = conf_workers(c), k;

	*n = 0;
	for (k = 0; v && k < c->ncpes; k++) {
		if (c->cpe[k].session_id % nw == w) {
			v[(*n)++] = &c->cpe[k];
		}
	}
	return v;
}

/* Both families' sets of c (a concentrator: the only one with sets). */
static void sets_text(const struct conf *c, struct out *o)
{
	unsigned w, n;

	for (w = 0; w < conf_workers(c); w++) {
		const struct conf_cpe **v = worker_cpes(c, w, &n);
		unsigned q = conf_worker_queue(c, c->ingress_queue, w);

		if (!v) {
			o->oom = true;
			return;
		}
		set_text(o, q, false, v, n);
		set_text(o, q, true, v, n);
		free(v);
	}
}

/* The rules of L3B_ING: what to bond, with its MSS clamp.  A CPE's rules
 * are the same for both families (by device); a concentrator's match the
 * set of the CPEs' prefixes of the text's family. */
static void ing_rules(const struct conf *c, struct out *o)
{
	const char *dev[WIRE_MAX_PATHS];
	unsigned ndev = wan_devices(c, dev), i, j, w;
	char set[32], match[96];

	if (c->role == ROLE_CPE) {
		for (i = 0; i < c->nlan; i++) {
			for (j = 0; j < ndev; j++) {
				snprintf(match, sizeof(match), "-i %s -o %s",
					 c->lan[i], dev[j]);
				capture(c, o, "L3B_ING", match,
					c->ingress_queue);
			}
		}
		return;
	}
	for (w = 0; w < conf_workers(c); w++) {
		unsigned q = conf_worker_queue(c, c->ingress_queue, w);

		set_name(set, sizeof(set), q, o->v6, "");
		snprintf(match, sizeof(match), "-m set --match-set %s dst",
			 set);
		capture(c, o, "L3B_ING", match, q);
	}
}

/* The rules of L3B_OUT (a CPE's bond_output): the box's own traffic, not
 * the tunnel's. */
static void out_rules(const struct conf *c, struct out *o)
{
	const char *dev[WIRE_MAX_PATHS];
	unsigned ndev = wan_devices(c, dev), j;
	char match[32];

	put(o, "-A L3B_OUT -p udp --sport %u -j RETURN\n", c->port);
	for (j = 0; j < ndev; j++) {
		snprintf(match, sizeof(match), "-o %s", dev[j]);
		capture(c, o, "L3B_OUT", match, c->ingress_queue);
	}
}

/* Everything of ours in the mangle table but the hooks' jumps: the chains
 * declared (created, or flushed when there: decl), or their rules. */
static void mangle_rules(const struct conf *c, struct out *o, bool decl)
{
	bool out = c->role == ROLE_CPE && c->bond_output;

	if (decl) {
		put(o, ":L3B_ING - [0:0]\n");
		if (out) {
			put(o, ":L3B_OUT - [0:0]\n");
		}
		cap_rules(c, o, true);
		return;
	}
	ing_rules(c, o);
	if (out) {
		out_rules(c, o);
	}
	cap_rules(c, o, false);
}

/* Every chain the classes may have: declared (created or flushed), or
 * deleted (del), but for those c's rules have (c NULL: all). */
static void cap_chains_all(const struct conf *c, struct out *o, bool del)
{
	uint8_t fam = o->v6 ? 6 : 4;
	char name[32];
	unsigned i, k;

	for (i = 0; i < 2; i++) {
		if (!del) {
			put(o, ":%s - [0:0]\n", i ? "L3B_Q" : "L3B_CAP");
		} else if (!c || !cap_classes(c)) {
			put(o, "-X %s\n", i ? "L3B_Q" : "L3B_CAP");
		}
	}
	for (i = 0; i < CLS_MAX; i++) {
		for (k = 0; k < CAP_NFIELDS; k++) {
			cap_chain(name, sizeof(name), i, k);
			if (!del) {
				put(o, ":%s - [0:0]\n", name);
			} else if (!c || k >= cap_nchains(c, i, fam)) {
				put(o, "-X %s\n", name);
			}
		}
	}
}

static void iptables_text(const struct conf *c, struct out *o)
{
	const char *dev[WIRE_MAX_PATHS];
	unsigned ndev = wan_devices(c, dev), j, k, nw = conf_workers(c);
	bool out = c->role == ROLE_CPE && c->bond_output;

	if (c->role == ROLE_CONCENTRATOR) {
		put(o, "# needs the CPEs' set: l3bondd --print-rules ipset "
		       "| ipset restore\n");
	}
	put(o, "*mangle\n");
	mangle_rules(c, o, true);
	mangle_rules(c, o, false);
	put(o, "-A FORWARD -j L3B_ING\n");
	if (out) {
		put(o, "-A OUTPUT -j L3B_OUT\n");
	}
	put(o, "COMMIT\n*raw\n:L3B_EGR - [0:0]\n");
	for (j = 0; j < ndev; j++) {
		for (k = 0; k < nw; k++) {
			char bpf[160] = "";

			if (k + 1 < nw) {
				steer_bpf(bpf, sizeof(bpf), o->v6, nw, k);
			}
			put(o,
			    "-A L3B_EGR -i %s -p udp --dport %u -m addrtype "
			    "--dst-type LOCAL %s-j NFQUEUE --queue-num %u\n",
			    dev[j], c->port, bpf,
			    conf_worker_queue(c, c->egress_queue, k));
		}
	}
	put(o, "-A PREROUTING -j L3B_EGR\n");
	put(o, ":L3B_DEFRAG - [0:0]\n"
	       "-A L3B_DEFRAG -m conntrack --ctstate INVALID -j RETURN\n"
	       "COMMIT\n");
}

/* The clamp of a rule by device (or of every packet: match ""), for both
 * families: each its own MSS. */
static void nft_clamp(struct out *o, const char *match, const char *clamp)
{
	const char *sp = *match ? " " : "";

	put(o, "\t\t%s%smeta nfproto ipv4 %s %u-65535 %s set %u\n", match, sp,
	    clamp, o->mss + 1, "tcp option maxseg size", o->mss);
	put(o, "\t\t%s%smeta nfproto ipv6 %s %u-65535 %s set %u\n", match, sp,
	    clamp, mss6(o->mss) + 1, "tcp option maxseg size", mss6(o->mss));
}

/* One field of a class's nft rule: an anonymous set of its entries. */
static void nft_field(const struct cls_match *m, enum cap_field f,
		      uint8_t fam, struct out *o)
{
	const char *ip = fam == 6 ? "ip6" : "ip", *sep = "";
	const struct cls_range *r = f == CAP_SPORT ? m->sport : m->dport;
	const struct cls_prefix *p = f == CAP_SRC ? m->src : m->dst;
	uint8_t proto[256];
	unsigned i, n;
	char buf[INET6_ADDRSTRLEN + 8];

	switch (f) {
	case CAP_DSCP:
		put(o, " %s dscp {", ip);
		for (i = 0; i < 64; i++) {
			if (m->dscp >> i & 1) {
				put(o, "%s %u", sep, i);
				sep = ",";
			}
		}
		break;
	case CAP_PROTO: /* (also with ports: the protocols they hold in) */
		n = cap_protos(m, proto);
		put(o, " meta l4proto {");
		for (i = 0; i < n; i++) {
			put(o, "%s %u", i ? "," : "", proto[i]);
		}
		break;
	case CAP_SPORT:
	case CAP_DPORT:
		n = f == CAP_SPORT ? m->nsport : m->ndport;
		put(o, " th %s {", f == CAP_SPORT ? "sport" : "dport");
		for (i = 0; i < n; i++) {
			put(o, "%s %s", i ? "," : "",
			    cap_range_str(&r[i], buf, sizeof(buf), '-'));
		}
		break;
	case CAP_SRC:
	case CAP_DST:
		n = f == CAP_SRC ? m->nsrc : m->ndst;
		put(o, " %s %s {", ip, f == CAP_SRC ? "saddr" : "daddr");
		for (i = 0; i < n; i++) {
			if (p[i].family == fam) {
				put(o, "%s %s", sep,
				    cap_prefix_str(&p[i], buf, sizeof(buf)));
				sep = ",";
			}
		}
		break;
	case CAP_NFIELDS:
		return;
	}
	put(o, " }");
}

/* The classes in nft: chain q (the clamp, the queue) and chain cap, a
 * rule per class and family, its fields anonymous sets; bypass accepts
 * (the table is done with it), an earlier class goes to q. */
static void nft_cap(const struct conf *c, struct out *o, const char *clamp)
{
	unsigned n = cap_classes(c), i;
	enum cap_field f;
	uint8_t fam;

	if (!n) {
		return;
	}
	put(o, "\tchain q {\n");
	nft_clamp(o, "", clamp);
	put(o, "\t\tqueue num %u bypass\n\t}\n", c->ingress_queue);
	put(o, "\tchain cap {\n");
	for (i = 0; i < n; i++) {
		const struct cls_match *m = &c->class[i].m;

		for (fam = 4; fam <= 6; fam += 2) {
			if (!cap_applies(m, fam)) {
				continue;
			}
			put(o, "\t\tmeta nfproto ipv%u", fam);
			for (f = CAP_DSCP; f < CAP_NFIELDS; f++) {
				if (cap_has(m, f) ||
				    (f == CAP_PROTO && (m->nsport || m->ndport))) {
					nft_field(m, f, fam, o);
				}
			}
			put(o, " %s\n",
			    c->class[i].mode == CLASS_BYPASS ? "accept"
							     : "goto q");
		}
	}
	put(o, "\t\tgoto q\n\t}\n");
}

/* A capture rule in nft: the clamp and the queue (both families, or the
 * family's MSS: mss), or with bypass classes chain cap. */
static void nft_capture(const struct conf *c, struct out *o,
			const char *match, const char *clamp, unsigned mss,
			unsigned queue)
{
	if (cap_classes(c)) {
		put(o, "\t\t%s goto cap\n", match);
		return;
	}
	if (mss) {
		put(o, "\t\t%s %s %u-65535 %s set %u\n", match, clamp, mss + 1,
		    "tcp option maxseg size", mss);
	} else {
		nft_clamp(o, match, clamp);
	}
	put(o, "\t\t%s queue num %u bypass\n", match, queue);
}

/* The name of worker w's nft set of a family: cpe4, cpe6 without
 * workers, cpe4_w<w>, cpe6_w<w> with. */
static void nft_set_name(const struct conf *c, char *buf, size_t len,
			 unsigned w, bool v6)
{
	if (conf_workers(c) > 1) {
		snprintf(buf, len, "cpe%c_w%u", v6 ? '6' : '4', w);
	} else {
		snprintf(buf, len, "cpe%c", v6 ? '6' : '4');
	}
}

/* A named interval set of the prefixes of the family of the n CPEs at
 * cpe (see set_text; nft takes a /0 as it is). */
static void nft_set(struct out *o, const char *name, bool v6,
		    const struct conf_cpe *const *cpe, unsigned n)
{
	char pfx[INET6_ADDRSTRLEN + 4];
	const char *sep = "\t\telements = { ";
	unsigned k, i;

	put(o, "\tset %s {\n\t\ttype %s; flags interval;\n", name,
	    v6 ? "ipv6_addr" : "ipv4_addr");
	for (k = 0; k < n; k++) {
		for (i = 0; i < cpe[k]->nprefixes; i++) {
			if (cpe[k]->prefix[i].v6 != v6) {
				continue;
			}
			put(o, "%s%s", sep,
			    conf_prefix_str(&cpe[k]->prefix[i], pfx,
					    sizeof(pfx)));
			sep = ", ";
		}
	}
	put(o, "%s\t}\n", *sep == ',' ? " }\n" : "");
}

/* The same for nftables (OpenWrt fw4): one table of our own, replaced as
 * a whole ("table; delete table; table {...}" is nft's atomic replace). */
static void nft_text(const struct conf *c, struct out *o)
{
	const char *dev[WIRE_MAX_PATHS];
	unsigned ndev = wan_devices(c, dev), i, j, w, n;
	char match[96], set[32];
	bool out = c->role == ROLE_CPE && c->bond_output;
	const char *clamp = "tcp flags & (syn | rst) == syn "
			    "tcp option maxseg size";

	put(o, "table inet l3bond\ndelete table inet l3bond\n"
	       "table inet l3bond {\n");
	for (w = 0; c->role == ROLE_CONCENTRATOR && w < conf_workers(c); w++) {
		const struct conf_cpe **v = worker_cpes(c, w, &n);

		if (!v) {
			o->oom = true;
			return;
		}
		nft_set_name(c, set, sizeof(set), w, false);
		nft_set(o, set, false, v, n);
		nft_set_name(c, set, sizeof(set), w, true);
		nft_set(o, set, true, v, n);
		free(v);
	}
	nft_cap(c, o, clamp);
	put(o, "\tchain ingress {\n\t\ttype filter hook forward priority "
	       "mangle; policy accept;\n");
	if (c->role == ROLE_CPE) {
		for (i = 0; i < c->nlan; i++) {
			for (j = 0; j < ndev; j++) {
				snprintf(match, sizeof(match),
					 "iifname \"%s\" oifname \"%s\"",
					 c->lan[i], dev[j]);
				nft_capture(c, o, match, clamp, 0,
					    c->ingress_queue);
			}
		}
	} else {
		for (w = 0; w < conf_workers(c); w++) {
			unsigned q = conf_worker_queue(c, c->ingress_queue, w);

			nft_set_name(c, set, sizeof(set), w, false);
			snprintf(match, sizeof(match), "ip daddr @%s", set);
			nft_capture(c, o, match, clamp, o->mss, q);
			nft_set_name(c, set, sizeof(set), w, true);
			snprintf(match, sizeof(match), "ip6 daddr @%s", set);
			nft_capture(c, o, match, clamp, mss6(o->mss), q);
		}
	}
	put(o, "\t}\n");
	if (out) {
		put(o, "\tchain output {\n\t\ttype route hook output priority "
		       "mangle; policy accept;\n");
		put(o, "\t\tudp sport %u return\n", c->port);
		for (j = 0; j < ndev; j++) {
			snprintf(match, sizeof(match), "oifname \"%s\"",
				 dev[j]);
			nft_capture(c, o, match, clamp, 0,
				    c->ingress_queue);
		}
		put(o, "\t}\n");
	}
	put(o, "\tchain egress {\n\t\ttype filter hook prerouting priority "
	       "raw; policy accept;\n");
	for (j = 0; j < ndev; j++) {
		for (w = 0; w < conf_workers(c); w++) {
			put(o,
			    "\t\tiifname \"%s\" udp dport %u fib daddr type "
			    "local ",
			    dev[j], c->port);
			nft_steer(c, o, w);
			put(o, "queue num %u\n",
			    conf_worker_queue(c, c->egress_queue, w));
		}
	}
	put(o, "\t}\n");
	/* no hook: only here so that fragments are reassembled (above) */
	put(o, "\tchain defrag {\n\t\tct state invalid return\n\t}\n}\n");
}

unsigned gw_conf_mss(const struct conf *c)
{
	uint16_t inner = 0;
	unsigned i;

	for (i = 0; i < c->npaths; i++) {
		uint32_t m = c->path[i].mtu ? c->path[i].mtu : 1500;
		/* a CPE's IPv6 peer: the outer header is 20 bytes longer */
		uint16_t n = mtu_inner_max(
			m, c->role == ROLE_CPE && strchr(c->path[i].peers[0], ':'));

		inner = !i || n < inner ? n : inner;
	}
	if (!c->npaths) {
		inner = mtu_inner_max(1500, false);
	}
	return inner > 40 ? inner - 40u : 0;
}

/* The rules of kind as a new string in *text; 0 or -ENOMEM. */
static int rules_text(const struct conf *c, enum gw_rules_kind kind,
		      unsigned mss, char **text)
{
	struct out o = {.mss = mss, .v6 = kind == GW_RULES_IP6TABLES};
	int ret = out_open(&o);

	if (ret) {
		return ret;
	}
	if (kind == GW_RULES_NFT) {
		nft_text(c, &o);
	} else if (kind == GW_RULES_IPSET) {
		if (c->role == ROLE_CONCENTRATOR) {
			sets_text(c, &o);
		}
	} else {
		iptables_text(c, &o);
	}
	ret = out_close(&o);
	*text = o.text;
	return ret;
}

int gw_rules_text(const struct conf *c, enum gw_rules_kind kind, unsigned mss,
		  char *buf, size_t len)
{
	char *text;
	size_t n;
	int ret;

	if (!len) {
		return -ENOSPC;
	}
	buf[0] = '\0';
	ret = rules_text(c, kind, mss, &text);
	if (ret) {
		return ret == -ENOMEM ? -ENOSPC : ret;
	}
	n = strlen(text);
	if (n >= len) {
		free(text);
		return -ENOSPC;
	}
	memcpy(buf, text, n + 1);
	free(text);
	return (int)n;
}

/* Runs argv with input on its stdin (NULL: /dev/null); its output goes to
 * our stderr unless quiet.  Returns its exit status, or -errno. */
static int run(const char *const argv[], const char *input, bool quiet)
{
	int pfd[2] = {-1, -1}, status, devnull;
	size_t len, off = 0;
	ssize_t n;
	pid_t pid;

	if (input && pipe2(pfd, O_CLOEXEC) < 0) {
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		status = -errno;
		goto out;
	}
	if (pid == 0) {
		devnull = open("/dev/null", O_RDWR);
		if (input) {
			dup2(pfd[0], 0);
		} else if (devnull >= 0) {
			dup2(devnull, 0);
		}
		if (quiet && devnull >= 0) {
			dup2(devnull, 1);
			dup2(devnull, 2);
		} else {
			dup2(2, 1);
		}
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (input) {
		close(pfd[0]);
		pfd[0] = -1;
		len = strlen(input);
		while (off < len) {
			n = write(pfd[1], input + off, len - off);
			if (n < 0 && errno == EINTR) {
				continue;
			}
			if (n <= 0) {
				break;
			}
			off += (size_t)n;
		}
		close(pfd[1]);
		pfd[1] = -1;
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = -errno;
			goto out;
		}
	}
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
out:
	if (pfd[0] >= 0) {
		close(pfd[0]);
	}
	if (pfd[1] >= 0) {
		close(pfd[1]);
	}
	return status;
}

static const struct {
	const char *table;
	const char *hook;
	const char *chain;
} chains[] = {
	{"mangle", "FORWARD", "L3B_ING"},
	{"mangle", "OUTPUT", "L3B_OUT"},
	{"mangle", NULL, "L3B_CAP"},
	{"mangle", NULL, "L3B_Q"},
	{"raw", "PREROUTING", "L3B_EGR"},
	{"raw", NULL, "L3B_DEFRAG"},
};

/* Removes our jumps (as often as they appear: a crashed run may have left
 * several), then our chains in one restore transaction: declaring a chain
 * creates or flushes it, so "-X" after it holds whether it was there or
 * not.  A dozen runs of iptables fewer than one -F and -X each: a
 * restarted daemon stops and starts bonding sooner. */
static void remove_all(bool v6)
{
	const char *cmd = v6 ? "ip6tables" : "iptables";
	const char *argv[] = {v6 ? "ip6tables-restore" : "iptables-restore",
			      "-w", "--noflush", NULL};
	struct out o = {.v6 = v6};
	unsigned i, n;

	for (i = 0; i < sizeof(chains) / sizeof(chains[0]); i++) {
		/* clang-format off */
		const char *del[] = {cmd, "-w", "-t", chains[i].table,
				     "-D", chains[i].hook, "-j",
				     chains[i].chain, NULL};
		/* clang-format on */

		for (n = 0;
		     chains[i].hook && n < 64 && run(del, NULL, true) == 0;
		     n++) {
		}
	}
	if (out_open(&o)) {
		return;
	}
	for (i = 0; i < sizeof(chains) / sizeof(chains[0]); i++) {
		if (!i || strcmp(chains[i].table, chains[i - 1].table)) {
			put(&o, "%s*%s\n", i ? "COMMIT\n" : "",
			    chains[i].table);
		}
		if (!strcmp(chains[i].chain, "L3B_CAP")) {
			/* the classes' chains, L3B_CAP and L3B_Q: all of
			 * them flushed first, they jump to each other */
			cap_chains_all(NULL, &o, false);
			cap_chains_all(NULL, &o, true);
			i++; /* L3B_Q */
			continue;
		}
		put(&o, ":%s - [0:0]\n-X %s\n", chains[i].chain,
		    chains[i].chain);
	}
	put(&o, "COMMIT\n");
	if (!out_close(&o)) {
		run(argv, o.text, true);
		free(o.text);
	}
}

/* Both families' removal at once (the IPv6 one in a child). */
static void remove_both(void)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		remove_all(true);
		_exit(0);
	}
	remove_all(false);
	if (pid < 0) {
		remove_all(true);
		return;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
	}
}

/* ---- the sets installed (ipset restore) -------------------------------- */

/* Runs ipset restore on c's sets text (made already: text).  0, or
 * -errno (-ENOENT: there is no ipset). */
static int sets_run(struct gw *gw, const char *text)
{
	const char *argv[] = {"ipset", "restore", NULL};
	int ret = run(argv, text, false);

	if (ret == 127) {
		gw_err(gw, "rules: ipset not found: a concentrator matches "
			   "its CPEs' prefixes in ipset sets (install the "
			   "ipset package, and the kernel's ip_set_hash_net)");
		return -ENOENT;
	}
	if (ret) {
		gw_err(gw, "rules: ipset restore failed (%d): is the kernel's "
			   "ip_set_hash_net there?",
		       ret);
		return ret < 0 ? ret : -EIO;
	}
	return 0;
}

/* The sets of c's queues gone (those a failed run may have left too); they
 * must no longer be in a rule. */
static void sets_remove(const struct conf *c)
{
	char name[32];
	unsigned i, w;

	for (w = 0; w < conf_workers(c); w++) {
		unsigned q = conf_worker_queue(c, c->ingress_queue, w);

		for (i = 0; i < 4; i++) {
			const char *argv[] = {"ipset", "destroy", name, NULL};

			set_name(name, sizeof(name), q, i & 1,
				 i & 2 ? "_new" : "");
			run(argv, NULL, true);
		}
	}
}

/* c's sets made (a concentrator; a CPE has none): over what a crashed
 * run left, if it can (a set of other parameters, left by another
 * version, is removed with our rules first).  0 or -errno. */
static int sets_install(struct gw *gw, const struct conf *c)
{
	char *text = NULL;
	int ret;

	if (c->role != ROLE_CONCENTRATOR) {
		return 0;
	}
	ret = rules_text(c, GW_RULES_IPSET, 0, &text);
	if (ret) {
		gw_err(gw, "rules: the CPEs' sets: too many to generate");
		return ret;
	}
	ret = run((const char *const[]){"ipset", "restore", NULL}, text,
		  true);
	if (ret && ret != 127) {
		remove_both();
		sets_remove(c);
	}
	ret = ret ? sets_run(gw, text) : 0;
	free(text);
	return ret;
}

/* c needs IPv6 rules: an IPv6 prefix to bond, or an IPv6 path.  Without
 * either a CPE still bonds its LAN's IPv6 when it can, but a host without
 * ip6tables (or IPv6) keeps working for IPv4. */
static bool needs_ipv6(const struct conf *c)
{
	unsigned i, k;

	for (i = 0; i < c->npaths; i++) {
		if (strchr(c->path[i].peers[0], ':')) {
			return true;
		}
	}
	for (k = 0; k < c->ncpes; k++) {
		for (i = 0; i < c->cpe[k].nprefixes; i++) {
			if (c->cpe[k].prefix[i].v6) {
				return true;
			}
		}
	}
	return false;
}

/* The rules of one family in one transaction (text: generated already),
 * after removing what an earlier run left.  0 or -errno. */
static int install(bool v6, const char *text)
{
	const char *argv[] = {v6 ? "ip6tables-restore" : "iptables-restore",
			      "-w", "--noflush", NULL};
	int ret;

	remove_all(v6);
	ret = run(argv, text, false);
	if (ret) {
		/* iptables-restore commits table by table: a failure in raw
		 * can leave mangle installed */
		remove_all(v6);
		return ret < 0 ? ret : -EIO;
	}
	return 0;
}

/* Both families at once: the IPv6 rules in a child while this process
 * does the IPv4 ones.  Each is a dozen iptables runs (removal) and a
 * restore, and nothing is bonded until both are done: a CPE restarted
 * under traffic loses what arrives meanwhile.  The child only runs
 * commands and reports by its exit status (0, else ip6tables failed). */
int gw_rules_install(struct gw *gw)
{
	char *text = NULL, *text6 = NULL;
	int ret, ret6, status;
	pid_t pid;

	ret = rules_text(&gw->conf, GW_RULES_IPTABLES, gw->mss, &text);
	if (!ret) {
		ret = rules_text(&gw->conf, GW_RULES_IP6TABLES, gw->mss,
				 &text6);
	}
	if (ret < 0) {
		gw_err(gw, "rules: too many to generate");
		goto out;
	}
	/* the sets first: the rules name them */
	ret = sets_install(gw, &gw->conf);
	if (ret) {
		goto out;
	}
	pid = fork();
	if (pid == 0) {
		_exit(install(true, text6) ? 1 : 0);
	}
	ret = install(false, text);
	if (pid < 0) {
		ret6 = install(true, text6); /* one after the other, then */
	} else {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
		}
		ret6 = WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
	}
	if (ret) {
		gw_err(gw, "rules: iptables-restore failed (%d)", ret);
		if (!ret6) {
			remove_all(true);
		}
		goto out_sets;
	}
	gw->rules.v6 = !ret6;
	if (ret6 && needs_ipv6(&gw->conf)) {
		gw_err(gw, "rules: ip6tables-restore failed (%d)", ret6);
		remove_all(false);
		ret = ret6;
		goto out_sets;
	}
	if (ret6) {
		gw_warn(gw,
			"rules: ip6tables-restore failed (%d): IPv6 is "
			"not bonded",
			ret6);
	}
	gw->rules.installed = true;
	gw->rules.mss = gw->mss;
	gw_info(gw, "rules installed (chains L3B_ING%s, L3B_EGR%s; %s)",
		gw->conf.bond_output ? ", L3B_OUT" : "",
		gw->conf.role == ROLE_CONCENTRATOR ? ", the CPEs' sets" : "",
		gw->rules.v6 ? "IPv4 and IPv6" : "IPv4 only");
	goto out;
out_sets:
	if (gw->conf.role == ROLE_CONCENTRATOR) {
		sets_remove(&gw->conf);
	}
out:
	free(text);
	free(text6);
	return ret;
}

/* Our mangle chains of one family (L3B_ING's prefixes, the classes that
 * bypass) replaced in one transaction: a chain is never seen empty while
 * bonded traffic flows, and the classes' chains c no longer has go.  1:
 * replaced, 0: nothing changed, or -errno. */
static int update(struct gw *gw, const struct conf *c, bool v6)
{
	const char *argv[] = {v6 ? "ip6tables-restore" : "iptables-restore",
			      "-w", "--noflush", NULL};
	/* the rules now, the next ones, the chains declared, deleted */
	struct out o[4] = {{.mss = gw->rules.mss, .v6 = v6},
			   {.mss = gw->mss, .v6 = v6},
			   {.v6 = v6},
			   {.v6 = v6}};
	char *txn = NULL;
	unsigned i, n;
	int ret = 0;

	for (n = 0; n < 4 && !ret; n++) {
		ret = out_open(&o[n]);
	}
	if (ret) {
		n--;
		goto out;
	}
	mangle_rules(&gw->conf, &o[0], false);
	mangle_rules(c, &o[1], false);
	/* created or flushed: L3B_ING, L3B_OUT when there, every chain the
	 * classes may have; the classes' chains c has not deleted */
	put(&o[2], ":L3B_ING - [0:0]\n");
	if (c->role == ROLE_CPE && c->bond_output) {
		put(&o[2], ":L3B_OUT - [0:0]\n");
	}
	cap_chains_all(NULL, &o[2], false);
	cap_chains_all(c, &o[3], true);
	for (i = 0; i < 4; i++) {
		ret = out_close(&o[i]) ? -ENOMEM : ret;
	}
	n = 0;
	if (ret || asprintf(&txn, "*mangle\n%s%s%sCOMMIT\n", o[2].text,
			    o[1].text, o[3].text) < 0) {
		txn = NULL;
		ret = -ENOMEM;
		gw_err(gw, "rules: too many to generate, or out of memory");
		goto out;
	}
	if (!strcmp(o[0].text, o[1].text)) {
		goto out;
	}
	ret = run(argv, txn, false);
	if (ret) {
		gw_err(gw, "rules: updating L3B_ING (%s) failed (%d)",
		       v6 ? "IPv6" : "IPv4", ret);
		ret = ret < 0 ? ret : -EIO;
		goto out;
	}
	ret = 1;
out:
	for (i = 0; i < n; i++) { /* opened, not closed */
		fclose(o[i].f);
	}
	for (i = 0; i < 4; i++) {
		free(o[i].text);
	}
	free(txn);
	return ret;
}

/* The sets of c in place of those of was, if they differ (a new set
 * swapped for the old one: never empty).  1: replaced, 0: the same, or
 * -errno. */
static int sets_update(struct gw *gw, const struct conf *was,
		       const struct conf *c)
{
	char *now = NULL, *next = NULL;
	int ret;

	if (c->role != ROLE_CONCENTRATOR) {
		return 0;
	}
	ret = rules_text(was, GW_RULES_IPSET, 0, &now);
	if (!ret) {
		ret = rules_text(c, GW_RULES_IPSET, 0, &next);
	}
	if (ret) {
		gw_err(gw, "rules: the CPEs' sets: too many to generate");
	} else if (strcmp(now, next)) {
		ret = sets_run(gw, next);
		ret = ret ? ret : 1;
	}
	free(now);
	free(next);
	return ret;
}

int gw_rules_update(struct gw *gw, const struct conf *c)
{
	int ret, ret6 = 0, rets;

	if (!gw->rules.installed) {
		return 0;
	}
	rets = sets_update(gw, &gw->conf, c);
	if (rets < 0) {
		return rets;
	}
	ret = update(gw, c, false);
	if (ret >= 0 && gw->rules.v6) {
		ret6 = update(gw, c, true);
	}
	if (ret < 0 || ret6 < 0) {
		if (rets) { /* the reload is refused: the old sets again */
			sets_update(gw, c, &gw->conf);
		}
		return ret < 0 ? ret : ret6;
	}
	if (rets) {
		gw_info(gw, "rules: the CPEs' sets replaced (%u CPEs)",
			c->ncpes);
	}
	if (ret || ret6) {
		gw_info(gw,
			"rules: L3B_ING updated (bypass classes, or MSS %u)",
			gw->mss);
	}
	gw->rules.mss = gw->mss;
	return 0;
}

void gw_rules_remove(struct gw *gw)
{
	if (!gw->rules.installed) {
		return;
	}
	if (gw->rules.v6) {
		remove_both();
	} else {
		remove_all(false);
	}
	if (gw->conf.role == ROLE_CONCENTRATOR) {
		sets_remove(&gw->conf); /* no rule names them */
	}
	gw->rules.installed = false;
	gw->rules.v6 = false;
	gw_info(gw, "rules removed");
}

/* ---- rp_filter --------------------------------------------------------- */

static int rp_read(const char *ifname)
{
	char path[96], buf[16];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/rp_filter",
		 ifname);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return -errno;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		return -EIO;
	}
	buf[n] = '\0';
	return atoi(buf);
}

static int rp_write(const char *ifname, int v)
{
	char path[96], buf[16];
	int fd, len, ret = 0;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/rp_filter",
		 ifname);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		return -errno;
	}
	len = snprintf(buf, sizeof(buf), "%d\n", v);
	if (write(fd, buf, (size_t)len) != len) {
		ret = -errno;
	}
	close(fd);
	return ret;
}

/* The inner packets come out of a WAN device whatever their source: with
 * strict reverse-path filtering (1) those whose source is routed via
 * another path would be dropped.  The kernel applies max(all, device), so
 * strict is turned loose (2) on each path device and on "all"; 0 and 2
 * stay as they are. */
void gw_rp_filter_set(struct gw *gw)
{
	const char *dev[WIRE_MAX_PATHS + 1];
	unsigned n = wan_devices(&gw->conf, dev), i;
	int old;

	dev[n++] = "all";
	for (i = 0; i < n; i++) {
		old = rp_read(dev[i]);
		if (old != 1) {
			continue;
		}
		if (rp_write(dev[i], 2) < 0) {
			gw_warn(gw, "rp_filter of %s: cannot set it to 2",
				dev[i]);
			continue;
		}
		snprintf(gw->rules.rp[gw->rules.nrp].ifname, IF_NAMESIZE, "%s",
			 dev[i]);
		gw->rules.rp[gw->rules.nrp++].old = old;
		gw_info(gw, "rp_filter of %s: 1 -> 2 (loose)", dev[i]);
	}
}

void gw_rp_filter_restore(struct gw *gw)
{
	unsigned i;

	for (i = 0; i < gw->rules.nrp; i++) {
		rp_write(gw->rules.rp[i].ifname, gw->rules.rp[i].old);
	}
	gw->rules.nrp = 0;
}
