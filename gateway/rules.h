/* SPDX-License-Identifier: BSD-2-Clause */
/* The packet filter rules (rules.c): the queues' iptables/ip6tables or
 * nft rules, the TCP MSS clamp, rp_filter.
 */
#ifndef L3BOND_GW_RULES_H
#define L3BOND_GW_RULES_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/conf.h"
#include "common/wire.h"

struct gw;

enum gw_rules_limits {
	GW_RP_MAX = WIRE_MAX_PATHS + 1, /* rp_filter entries: paths + all */
	GW_RULES_MAX = 1 << 23,		/* bytes of generated rules */
};

struct gw_rp {
	char ifname[IF_NAMESIZE]; /* "all" for the global switch */
	int old;
};

struct gw_rules {
	bool installed;
	bool v6;      /* the ip6tables rules too */
	unsigned mss; /* of the installed TCPMSS clamp */
	unsigned nrp;
	struct gw_rp rp[GW_RP_MAX];
};

/* the TCP MSS the rules clamp to for c's paths: their mtu, 1500 if not
 * configured (the daemon uses the interfaces' own: gw->mss) */
unsigned gw_conf_mss(const struct conf *c);
enum gw_rules_kind {
	GW_RULES_IPTABLES = 0, /* iptables-restore text (IPv4) */
	GW_RULES_NFT = 1,      /* one nft table, both families */
	GW_RULES_IP6TABLES = 2,
	GW_RULES_IPSET = 3, /* ipset restore text: a concentrator's sets of
			     * the CPEs' prefixes (a CPE: none, empty) */
};
/* mss: the IPv4 clamp; IPv6 gets 20 less (its header is 20 longer) */
int gw_rules_text(const struct conf *c, enum gw_rules_kind kind, unsigned mss,
		  char *buf, size_t len);
int gw_rules_install(struct gw *gw);
/* reload, MTU change: L3B_ING replaced in one transaction if c bonds
 * other prefixes or gw->mss changed; 0 or -errno */
int gw_rules_update(struct gw *gw, const struct conf *c);
void gw_rules_remove(struct gw *gw);
void gw_rp_filter_set(struct gw *gw);
void gw_rp_filter_restore(struct gw *gw);

#endif
