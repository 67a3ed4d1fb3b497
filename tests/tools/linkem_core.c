/* SPDX-License-Identifier: BSD-2-Clause */
/* l3b-linkem core: delay/jitter/loss model and the FIFO ring of held
 * packets.  See linkem.h for the invariants. */
#include "linkem.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	LK_MAX_CAPACITY = 1u << 24,
};

/* Longest delay or jitter accepted: a minute is already absurd for a link. */
#define LK_MAX_MS 60000.0

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void lk_rng_seed(struct lk_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++) {
		r->s[i] = splitmix64(&seed);
	}
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** */
uint64_t lk_rng_next(struct lk_rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

double lk_rng_unit(struct lk_rng *r)
{
	return (double)(lk_rng_next(r) >> 11) * 0x1.0p-53;
}

int lk_init(struct lk_link *l, uint32_t capacity, uint64_t seed)
{
	uint32_t cap = 2;

	if (capacity == 0 || capacity > LK_MAX_CAPACITY) {
		return -EINVAL;
	}
	while (cap < capacity) {
		cap <<= 1;
	}
	memset(l, 0, sizeof(*l));
	l->ring = calloc(cap, sizeof(*l->ring));
	if (!l->ring) {
		return -ENOMEM;
	}
	l->mask = cap - 1;
	lk_rng_seed(&l->rng, seed);
	return 0;
}

void lk_free(struct lk_link *l)
{
	free(l->ring);
	l->ring = NULL;
}

static bool lost(struct lk_link *l)
{
	const struct lk_params *p = &l->p;
	bool drop = false;

	/* Draw every number whatever the outcome, so that the sequence of
	 * fates depends only on the seed and the packet count. */
	if (p->loss > 0 && lk_rng_unit(&l->rng) < p->loss) {
		drop = true;
	}
	if (p->ge_p > 0) {
		double u = lk_rng_unit(&l->rng);
		double v = lk_rng_unit(&l->rng);

		if (l->ge_bad) {
			if (u < p->ge_r) {
				l->ge_bad = false;
			}
		} else if (u < p->ge_p) {
			l->ge_bad = true;
		}
		if (v < (l->ge_bad ? p->ge_loss_bad : p->ge_loss_good)) {
			drop = true;
		}
	}
	return drop;
}

static uint64_t ms_to_ns(double ms)
{
	return (uint64_t)llround(ms * 1e6);
}

enum lk_fate lk_arrive(struct lk_link *l, uint32_t id, uint64_t now_ns)
{
	struct lk_slot *s;
	uint64_t t;

	l->st.packets++;
	if (l->p.down) {
		l->st.dropped_down++;
		return LK_DROP_DOWN;
	}
	if (lost(l)) {
		l->st.dropped_loss++;
		return LK_DROP_LOSS;
	}
	if (lk_held(l) > l->mask) {
		l->st.dropped_full++;
		return LK_DROP_FULL;
	}
	t = now_ns + ms_to_ns(l->p.delay_ms);
	if (l->p.jitter_ms > 0) {
		t += ms_to_ns(l->p.jitter_ms * lk_rng_unit(&l->rng));
	}
	/* FIFO: never deliver before the packet ahead of us. */
	if (t < l->last_t_ns) {
		t = l->last_t_ns;
	}
	l->last_t_ns = t;
	s = &l->ring[l->tail & l->mask];
	s->id = id;
	s->t_ns = t;
	l->tail++;
	if (lk_held(l) > l->st.max_held) {
		l->st.max_held = lk_held(l);
	}
	return LK_HOLD;
}

uint32_t lk_release(struct lk_link *l, uint64_t now_ns, uint32_t *last_id)
{
	uint64_t late;
	uint32_t n = 0;

	while (l->head != l->tail) {
		const struct lk_slot *s = &l->ring[l->head & l->mask];

		if (s->t_ns > now_ns) {
			break;
		}
		late = now_ns - s->t_ns;
		l->st.late_1ms += late > LK_LATE_1MS_NS;
		l->st.late_5ms += late > LK_LATE_5MS_NS;
		if (late > l->st.late_max_ns) {
			l->st.late_max_ns = late;
		}
		if (late > l->st.late_mark_max_ns) {
			l->st.late_mark_max_ns = late;
		}
		*last_id = s->id;
		l->head++;
		n++;
	}
	l->st.released += n;
	return n;
}

bool lk_next(const struct lk_link *l, uint64_t *t_ns)
{
	if (l->head == l->tail) {
		return false;
	}
	*t_ns = l->ring[l->head & l->mask].t_ns;
	return true;
}

uint32_t lk_flush(struct lk_link *l, uint32_t *last_id)
{
	uint32_t n = lk_held(l);

	if (n) {
		*last_id = l->ring[(l->tail - 1) & l->mask].id;
	}
	l->head = l->tail;
	l->st.flushed += n;
	return n;
}

static int num(const char *tok, double lo, double hi, double *out, char *err,
	       size_t errlen, const char *key)
{
	char *end;
	double v;

	if (!tok) {
		snprintf(err, errlen, "'%s' needs a value", key);
		return -EINVAL;
	}
	errno = 0;
	v = strtod(tok, &end);
	if (errno || end == tok || *end || !isfinite(v) || v < lo || v > hi) {
		snprintf(err, errlen, "bad value '%s' for '%s' (%g..%g)", tok,
			 key, lo, hi);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int lk_parse(const char *cmd, struct lk_params *p, unsigned *what, char *err,
	     size_t errlen)
{
	struct lk_params n = *p;
	char buf[512];
	char *save = NULL;
	char *tok;
	int ret = 0;

	*what = 0;
	if (strlen(cmd) >= sizeof(buf)) {
		snprintf(err, errlen, "command too long");
		return -EINVAL;
	}
	strcpy(buf, cmd);
	for (tok = strtok_r(buf, " \t\r\n", &save); tok && !ret;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (!strcmp(tok, "delay")) {
			ret = num(strtok_r(NULL, " \t\r\n", &save), 0,
				  LK_MAX_MS, &n.delay_ms, err, errlen, tok);
		} else if (!strcmp(tok, "jitter")) {
			ret = num(strtok_r(NULL, " \t\r\n", &save), 0,
				  LK_MAX_MS, &n.jitter_ms, err, errlen, tok);
		} else if (!strcmp(tok, "loss")) {
			ret = num(strtok_r(NULL, " \t\r\n", &save), 0, 1,
				  &n.loss, err, errlen, tok);
		} else if (!strcmp(tok, "ge")) {
			double *v[4] = {&n.ge_p, &n.ge_r, &n.ge_loss_bad,
					&n.ge_loss_good};

			for (int i = 0; i < 4 && !ret; i++) {
				ret = num(strtok_r(NULL, " \t\r\n", &save), 0,
					  1, v[i], err, errlen, tok);
			}
		} else if (!strcmp(tok, "down")) {
			n.down = true;
		} else if (!strcmp(tok, "up")) {
			n.down = false;
		} else if (!strcmp(tok, "stats")) {
			*what |= LK_CMD_STATS;
		} else if (!strcmp(tok, "mark")) {
			*what |= LK_CMD_MARK;
		} else {
			snprintf(err, errlen, "unknown key '%s'", tok);
			ret = -EINVAL;
		}
	}
	if (!ret) {
		*p = n;
	}
	return ret;
}

int lk_params_str(const struct lk_params *p, char *buf, size_t len)
{
	return snprintf(buf, len,
			"\"delay_ms\":%.3f,\"jitter_ms\":%.3f,\"loss\":%.6f,"
			"\"ge_p\":%.6f,\"ge_r\":%.6f,\"ge_loss_bad\":%.6f,"
			"\"ge_loss_good\":%.6f,\"state\":\"%s\"",
			p->delay_ms, p->jitter_ms, p->loss, p->ge_p, p->ge_r,
			p->ge_loss_bad, p->ge_loss_good,
			p->down ? "down" : "up");
}
