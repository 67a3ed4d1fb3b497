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
	return 0;
}

int ing_inflight_alloc(struct ing_inflight *f, unsigned path)
{
	struct ing_inflight_path *q;

	if (path >= f->n) {
		return -EINVAL;
	}
	q = &f->path[path];
	if (q->pkt) {
		return 0;
	}
	q->pkt = calloc(f->p.max_pkts, sizeof(*q->pkt));
	q->buf = malloc(f->p.max_bytes);
	if (!q->pkt || !q->buf) {
		free(q->pkt);
		free(q->buf);
		q->pkt = NULL;
		q->buf = NULL;
		return -ENOMEM;
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
	if (!q->pkt && ing_inflight_alloc(f, path) < 0) {
		q->st.nomem++;
		return -ENOMEM;
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
		      uint64_t *budget, ing_inflight_fn fn, void *ctx)
{
	struct ing_inflight_path *q;
	int n = 0;

	if (path >= f->n) {
		return -EINVAL;
	}
	q = &f->path[path];
	while (q->count > 0) {
		const struct ing_inflight_pkt *e = entry(f, q, 0);

		if (budget && *budget < e->len) {
			return n; /* the rest waits for more budget */
		}
		if (fn(ctx, e, q->buf + e->off) < 0) {
			break;
		}
		if (budget) {
			*budget -= e->len;
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

int ing_inflight_find(struct ing_inflight *f, unsigned path, uint32_t lseq,
		      ing_inflight_fn fn, void *ctx)
{
	struct ing_inflight_path *q;
	struct ing_inflight_pkt *e;
	uint32_t lo = 0, hi;

	if (path >= f->n) {
		return -EINVAL;
	}
	q = &f->path[path];
	/* increasing local sequence, with holes (packets not kept) */
	hi = q->count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (seq_before(entry(f, q, mid)->lseq, lseq)) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo == q->count || entry(f, q, lo)->lseq != lseq) {
		q->st.unknown++;
		return 0;
	}
	e = entry(f, q, lo);
	if (e->asked) {
		q->st.again++;
		return 0;
	}
	/* before fn: it may add to this path, and move its entries */
	e->asked = true;
	if (fn(ctx, e, q->buf + e->off) < 0) {
		/* (the entry may have been dropped for room meanwhile) */
		return -EAGAIN;
	}
	q->st.found++;
	return 1;
}

/* ---- the pace of the copies (see inflight.h) */

void ing_repace_start(struct ing_repace *p, uint64_t backlog_bytes,
		      uint64_t now_us)
{
	double r = (double)backlog_bytes * 1e6 / ING_REPACE_SPREAD_US;

	if (p->active) {
		return; /* an episode goes on: its pace stays */
	}
	if (r < ING_REPACE_MIN_BPS) {
		r = ING_REPACE_MIN_BPS;
	}
	*p = (struct ing_repace){.active = true,
				 .rate_Bps = r,
				 .floor_Bps = r * ING_REPACE_FLOOR,
				 .t_us = now_us,
				 .st = p->st};
	p->st.episodes++;
}

void ing_repace_stop(struct ing_repace *p)
{
	p->active = false;
	p->tokens = 0;
}

void ing_repace_on_report(struct ing_repace *p, uint32_t queue_us,
			  uint32_t target_us, uint64_t now_us,
			  uint64_t hold_us)
{
	if (!p->active) {
		return;
	}
	if (target_us && queue_us > ING_REPACE_PAUSE_MUL * target_us) {
		if (!p->paused) {
			p->st.pauses++;
			p->paused = true;
			p->paused_us = now_us;
		}
	} else if (p->paused) {
		/* on again from now: nothing of the pause to make up */
		p->paused = false;
		p->tokens = 0;
		p->t_us = now_us;
	}
	if (queue_us > target_us) {
		if (now_us < p->hold_until_us) {
			return; /* the queue of the pace before the halving */
		}
		p->hold_until_us = now_us + hold_us;
		p->rate_Bps /= 2;
		if (p->rate_Bps < p->floor_Bps) {
			p->rate_Bps = p->floor_Bps;
		}
		p->st.backoffs++;
	} else {
		p->rate_Bps *= 1.25;
	}
}

bool ing_repace_abandon(struct ing_repace *p, uint64_t now_us)
{
	if (!p->active || !p->paused ||
	    now_us - p->paused_us < ING_REPACE_PAUSE_MAX_US) {
		return false;
	}
	p->st.abandoned++;
	return true;
}

uint64_t ing_repace_budget(struct ing_repace *p, uint64_t now_us)
{
	double cap;

	if (!p->active) {
		return 0;
	}
	if (p->paused) {
		return 0;
	}
	if (now_us > p->t_us) {
		p->tokens += p->rate_Bps * (double)(now_us - p->t_us) / 1e6;
		p->t_us = now_us;
	}
	/* no burst after a pause (the loop was busy): at most one tick's
	 * worth and a largest packet */
	cap = p->rate_Bps * ING_REPACE_TICK_US / 1e6 + ING_REPACE_PKT_MAX;
	if (p->tokens > cap) {
		p->tokens = cap;
	}
	return (uint64_t)p->tokens;
}

void ing_repace_spent(struct ing_repace *p, uint64_t bytes)
{
	p->tokens -= (double)bytes;
	p->st.bytes += bytes;
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
