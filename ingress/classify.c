/* SPDX-License-Identifier: BSD-2-Clause */
/* Traffic classes (see classify.h).
 *
 * The packet is parsed once into its fields (each with whether the packet
 * has it), then the matches are tried in order; a field is read from pkt
 * only after len said it is there.
 */
#include "ingress/classify.h"

#include <stdbool.h>
#include <string.h>

#include "ingress/ip6.h"

enum {
	IP4_HDR = 20,
	IP6_HDR = 40,
	IP4_OFFSET = 0x1fff,
};

enum have {
	HAVE_DSCP = 1 << 0,
	HAVE_PROTO = 1 << 1,
	HAVE_PORTS = 1 << 2,
	HAVE_SRC = 1 << 3,
	HAVE_DST = 1 << 4,
};

/* What the matches look at, parsed once. */
struct fields {
	uint8_t family; /* 0: neither IPv4 nor IPv6 (then nothing else) */
	unsigned have;	/* enum have */
	uint8_t dscp;
	uint8_t proto;
	uint16_t sport, dport;
	const uint8_t *src, *dst; /* into pkt: 4 or 16 bytes */
};

bool cls_proto_has_ports(uint8_t proto)
{
	/* TCP, UDP, DCCP, SCTP, UDP-Lite */
	return proto == 6 || proto == 17 || proto == 33 || proto == 132 ||
	       proto == 136;
}

static void ports(struct fields *f, const uint8_t *pkt, size_t len, size_t l4)
{
	if (cls_proto_has_ports(f->proto) && len >= 4 && l4 <= len - 4) {
		f->sport = (uint16_t)(pkt[l4] << 8 | pkt[l4 + 1]);
		f->dport = (uint16_t)(pkt[l4 + 2] << 8 | pkt[l4 + 3]);
		f->have |= HAVE_PORTS;
	}
}

static void parse4(struct fields *f, const uint8_t *pkt, size_t len)
{
	size_t ihl = (size_t)(pkt[0] & 0x0f) * 4;

	f->family = 4;
	if (len >= 2) {
		f->dscp = pkt[1] >> 2;
		f->have |= HAVE_DSCP;
	}
	if (len >= 10) {
		f->proto = pkt[9];
		f->have |= HAVE_PROTO;
	}
	if (len >= 16) {
		f->src = pkt + 12;
		f->have |= HAVE_SRC;
	}
	if (len >= IP4_HDR) {
		f->dst = pkt + 16;
		f->have |= HAVE_DST;
		/* a fragment past the first carries no transport header */
		if (ihl >= IP4_HDR &&
		    ((pkt[6] << 8 | pkt[7]) & IP4_OFFSET) == 0) {
			ports(f, pkt, len, ihl);
		}
	}
}

static void parse6(struct fields *f, const uint8_t *pkt, size_t len)
{
	bool later_frag;
	size_t off;

	f->family = 6;
	if (len >= 2) {
		/* the traffic class straddles the first two bytes */
		f->dscp = (uint8_t)(((pkt[0] & 0x0f) << 2) | (pkt[1] >> 6));
		f->have |= HAVE_DSCP;
	}
	if (len >= 24) {
		f->src = pkt + 8;
		f->have |= HAVE_SRC;
	}
	if (len < IP6_HDR) {
		return;
	}
	f->dst = pkt + 24;
	f->have |= HAVE_DST;
	if (ip6_upper(pkt, len, CLS_EXT_MAX, 0, &f->proto, &off,
		      &later_frag) < 0) {
		return;
	}
	f->have |= HAVE_PROTO;
	if (!later_frag) {
		ports(f, pkt, len, off);
	}
}

static void parse(struct fields *f, const uint8_t *pkt, size_t len)
{
	memset(f, 0, sizeof(*f));
	if (len < 1) {
		return;
	}
	if (pkt[0] >> 4 == 4) {
		parse4(f, pkt, len);
	} else if (pkt[0] >> 4 == 6) {
		parse6(f, pkt, len);
	}
}

static bool in_ranges(const struct cls_range *r, unsigned n, uint16_t port)
{
	for (unsigned i = 0; i < n; i++) {
		if (port >= r[i].lo && port <= r[i].hi) {
			return true;
		}
	}
	return false;
}

/* addr (4 or 16 bytes, of family) is in one of the n prefixes */
static bool in_prefixes(const struct cls_prefix *p, unsigned n,
			uint8_t family, const uint8_t *addr)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned full = p[i].len / 8, rest = p[i].len % 8;

		if (p[i].family != family) {
			continue;
		}
		if (memcmp(p[i].addr, addr, full)) {
			continue;
		}
		if (rest && ((p[i].addr[full] ^ addr[full]) &
			     (uint8_t)(0xff00 >> rest))) {
			continue;
		}
		return true;
	}
	return false;
}

static bool meets(const struct cls_match *m, const struct fields *f)
{
	if (m->family && m->family != f->family) {
		return false;
	}
	if (m->dscp &&
	    (!(f->have & HAVE_DSCP) || !(m->dscp >> f->dscp & 1))) {
		return false;
	}
	if (m->nproto &&
	    (!(f->have & HAVE_PROTO) || !memchr(m->proto, f->proto, m->nproto))) {
		return false;
	}
	if ((m->nsport || m->ndport) && !(f->have & HAVE_PORTS)) {
		return false;
	}
	if (m->nsport && !in_ranges(m->sport, m->nsport, f->sport)) {
		return false;
	}
	if (m->ndport && !in_ranges(m->dport, m->ndport, f->dport)) {
		return false;
	}
	if (m->nsrc && (!(f->have & HAVE_SRC) ||
			!in_prefixes(m->src, m->nsrc, f->family, f->src))) {
		return false;
	}
	if (m->ndst && (!(f->have & HAVE_DST) ||
			!in_prefixes(m->dst, m->ndst, f->family, f->dst))) {
		return false;
	}
	return true;
}

int cls_classify(const struct cls_match *m, unsigned n, const uint8_t *pkt,
		 size_t len)
{
	struct fields f;

	if (n == 0) {
		return -1;
	}
	parse(&f, pkt, len);
	for (unsigned i = 0; i < n; i++) {
		if (meets(&m[i], &f)) {
			return (int)i;
		}
	}
	return -1;
}
