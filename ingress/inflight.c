/* SPDX-License-Identifier: BSD-2-Clause */
/* Packets in flight per path (see inflight.h).
 *
 * Each path has a ring of entries (max_pkts, a power of two) and a byte
 * ring (max_bytes) in which every packet is contiguous: a packet that does
 * not fit before the end starts again at 0 and the tail is left unused
 * until the oldest packets before it are gone.  bhead is the oldest kept
 * packet's offset, btail one past the newest; with packets kept, btail >
 * bhead means the kept bytes do not wrap, btail <= bhead that they do.
 */
#include "ingress/inflight.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/seq.h"

uint32_t ing_inflight_bytes_for(uint32_t rate_kbps, uint32_t ms)
{
	uint64_t b = (uint64_t)rate_kbps * 125 * ms / 1000;

	if (b < ING_INFLIGHT_MIN_BYTES) {
		return ING_INFLIGHT_MIN_BYTES;
	}
	return b > UINT32_MAX ? UINT32_MAX : (uint32_t)b;
}

static bool params_ok(const struct ing_inflight_params *p)
{
	return p->max_pkts >= 2 && p->max_pkts <= ING_INFLIGHT_MAX_PKTS &&
	       (p->max_pkts & (p->max_pkts - 1)) == 0 &&
	       p->max_bytes >= ING_INFLIGHT_MIN_BYTES;
}

int ing_inflight_init(struct ing_inflight *f,
		      const struct ing_inflight_params *p, unsigned npaths)
{
	if (!params_ok(p) || npaths == 0 || npaths > WIRE_MAX_PATHS) {
		return -EINVAL;
	}
	*f = (struct ing_inflight){.p = *p, .n = npaths};
	for (unsigned i = 0; i < npaths; i++) {
		struct ing_inflight_path *q = &f->path[i];

		q->pkt = calloc(p->max_pkts, sizeof(*q->pkt));
		q->buf = malloc(p->max_bytes);
		if (!q->pkt || !q->buf) {
			ing_inflight_free(f);
			return -ENOMEM;
		}
	}
	return 0;
}

void ing_inflight_free(struct ing_inflight *f)
{
	for (unsigned i = 0; i < f->n; i++) {
		free(f->path[i].pkt);
		free(f->path[i].buf);
		f->path[i].pkt = NULL;
		f->path[i].buf = NULL;
	}
}

static struct ing_inflight_pkt *entry(const struct ing_inflight *f,
				      const struct ing_inflight_path *q,
				      uint32_t i)
{
	return &q->pkt[(q->head + i) & (f->p.max_pkts - 1)];
}

static void pop(const struct ing_inflight *f, struct ing_inflight_path *q)
{
	q->bytes -= entry(f, q, 0)->len;
	q->head = (q->head + 1) & (f->p.max_pkts - 1);
	q->count--;
	if (q->count == 0) {
		q->bhead = q->btail = 0;
	} else {
		q->bhead = entry(f, q, 0)->off;
	}
}

/* Where len bytes fit now; false if the oldest must go first. */
static bool place(const struct ing_inflight *f,
		  const struct ing_inflight_path *q, uint32_t len,
		  uint32_t *off)
{
	if (q->count == 0) {
		*off = 0;
		return true;
	}
	if (q->btail > q->bhead) {
		if (f->p.max_bytes - q->btail >= len) {
			*off = q->btail;
			return true;
		}
		if (q->bhead >= len) {
			*off = 0;
			return true;
		}
		return false;
	}
	if (q->bhead - q->btail >= len) {
		*off = q->btail;
		return true;
	}
	return false;
}

int ing_inflight_add(struct ing_inflight *f, unsigned path,
		     const struct wire_hdr *h, const uint8_t *data,
		     uint32_t len)
{
	struct ing_inflight_path *q;
	struct ing_inflight_pkt *e;
	uint32_t off;

	if (path >= f->n || len == 0) {
		return -EINVAL;
	}
	q = &f->path[path];
	if (len > f->p.max_bytes) {
		q->st.too_big++;
		return -EMSGSIZE;
	}
	if (q->have_next && seq_before(h->lseq, q->next_lseq)) {
		q->st.reorder++;
		return -EALREADY;
	}
	while (q->count == f->p.max_pkts || !place(f, q, len, &off)) {
		pop(f, q);
		q->st.overflow++;
	}
	e = entry(f, q, q->count);
	*e = (struct ing_inflight_pkt){.gseq = h->gseq,
				       .lseq = h->lseq,
				       .fgap = h->fgap,
				       .flags = h->flags,
				       .cls = h->cls,
				       .len = len,
				       .off = off};
	memcpy(q->buf + off, data, len);
	if (q->count == 0) {
		q->bhead = off;
	}
	q->btail = off + len;
	q->count++;
	q->bytes += len;
	q->have_next = true;
	q->next_lseq = h->lseq + 1;
	q->st.stored++;
	return 0;
}

uint32_t ing_inflight_ack(struct ing_inflight *f, unsigned path,
			  uint32_t lseq_next)
{
	struct ing_inflight_path *q;
	uint32_t n = 0;

	if (path >= f->n) {
		return 0;
	}
	q = &f->path[path];
	if (!q->have_next) {
		return 0; /* nothing sent yet: a report's lseq_next of 0 */
	}
	if (seq_after(lseq_next, q->next_lseq)) {
		q->st.ack_ahead++;
		return 0;
	}
	while (q->count > 0 && seq_before(entry(f, q, 0)->lseq, lseq_next)) {
		pop(f, q);
		n++;
	}
	q->st.acked += n;
	return n;
}

int ing_inflight_take(struct ing_inflight *f, unsigned path,
		      ing_inflight_fn fn, void *ctx)
{
	struct ing_inflight_path *q;
	int n = 0;

	if (path >= f->n) {
		return -EINVAL;
	}
	q = &f->path[path];
	while (q->count > 0) {
		const struct ing_inflight_pkt *e = entry(f, q, 0);

		if (fn(ctx, e, q->buf + e->off) < 0) {
			break;
		}
		n++;
		q->st.taken++;
		pop(f, q);
	}
	q->st.untaken += q->count;
	while (q->count > 0) {
		pop(f, q);
	}
	return n;
}

void ing_inflight_reset(struct ing_inflight *f, unsigned path)
{
	struct ing_inflight_path *q;

	if (path >= f->n) {
		return;
	}
	q = &f->path[path];
	q->head = q->count = q->bytes = 0;
	q->bhead = q->btail = 0;
	q->have_next = false;
}
