/* SPDX-License-Identifier: BSD-2-Clause */
/* Flows at the ingress (see flow.h). */
#include "ingress/flow.h"

#include <string.h>

#include "common/wire.h"
#include "ingress/classify.h"

/* murmur3's finaliser over the words of the key: cheap, and every input
 * bit moves every output bit. */
static uint32_t mix(uint32_t h, uint32_t k)
{
	k *= 0xcc9e2d51u;
	k = (k << 15) | (k >> 17);
	k *= 0x1b873593u;
	h ^= k;
	h = (h << 13) | (h >> 19);
	return h * 5 + 0xe6546b64u;
}

static uint32_t fin(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

static uint32_t word(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

uint32_t ing_flow_hash(const uint8_t *pkt, size_t len, uint32_t seed)
{
	uint32_t h = seed;
	size_t l4 = 0, addr, naddr;
	uint8_t proto;
	bool frag;

	if (len >= 20 && pkt[0] >> 4 == 4) {
		size_t ihl = (size_t)(pkt[0] & 0x0f) * 4;

		proto = pkt[9];
		/* MF or a fragment offset */
		frag = (((unsigned)pkt[6] << 8 | pkt[7]) & 0x3fff) != 0;
		addr = 12;
		naddr = 2;
		l4 = ihl >= 20 && !frag ? ihl : 0;
	} else if (len >= 40 && pkt[0] >> 4 == 6) {
		/* the next header as it stands: extension headers (a
		 * fragment header among them) key the flow without ports */
		proto = pkt[6];
		addr = 8;
		naddr = 8;
		l4 = 40;
		h = mix(h, word(pkt) & 0x000fffffu); /* flow label */
	} else {
		return fin(h);
	}
	for (size_t i = 0; i < naddr; i++) {
		h = mix(h, word(pkt + addr + 4 * i));
	}
	h = mix(h, proto);
	if (l4 && cls_proto_has_ports(proto) && len >= l4 + 4) {
		h = mix(h, word(pkt + l4));
	}
	return fin(h);
}

/* The bucket of flow hash at now_ms (ing_flow_note). */
static struct ing_flow *bucket(struct ing_flows *f, uint32_t hash,
			       uint32_t now_ms)
{
	uint32_t i = hash & (ING_FLOW_BUCKETS - 1);
	struct ing_flow *set = &f->b[i & ~(uint32_t)(ING_FLOW_WAYS - 1)];
	struct ing_flow *spare = NULL;

	for (unsigned w = 0; w < ING_FLOW_WAYS; w++) {
		struct ing_flow *b = &set[w];

		if (b->used && b->tag == hash) {
			return b;
		}
		if (!spare && (!b->used ||
			       now_ms - b->last_ms > ING_FLOW_IDLE_MS)) {
			spare = b;
		}
	}
	if (spare) {
		*spare = (struct ing_flow){.tag = hash};
		return spare;
	}
	return &f->b[i];
}

struct ing_flow *ing_flow_note(struct ing_flows *f, uint32_t hash,
			       uint32_t len, uint64_t now_us, bool *sparse)
{
	uint32_t now_ms = (uint32_t)(now_us / 1000);
	struct ing_flow *b = bucket(f, hash, now_ms);

	if (b->used) {
		uint32_t idle = now_ms - b->last_ms;
		uint64_t drained = (uint64_t)idle * ING_SPARSE_BPS / 1000;

		b->backlog = drained >= b->backlog
				     ? 0
				     : b->backlog - (uint32_t)drained;
		if (idle > ING_FLOW_IDLE_MS) {
			b->path = 0;
		}
	} else {
		b->backlog = 0;
		b->path = 0;
	}
	b->backlog = b->backlog + len > b->backlog ? b->backlog + len
						   : UINT32_MAX;
	b->last_ms = now_ms;
	*sparse = b->backlog <= ING_SPARSE_BURST;
	return b;
}

void ing_flow_sent(struct ing_flow *b, uint32_t gseq, uint16_t *fgap,
		   uint8_t *flags)
{
	uint32_t d = gseq - b->last_gseq;

	if (b->used && d > 0 && d <= UINT16_MAX) {
		*fgap = (uint16_t)d;
		*flags = 0;
	} else {
		*fgap = 0;
		*flags = WIRE_F_FLOW_FIRST;
	}
	b->used = true;
	b->last_gseq = gseq;
}

void ing_flows_reset(struct ing_flows *f)
{
	memset(f, 0, sizeof(*f));
}
