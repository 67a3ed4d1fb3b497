/* SPDX-License-Identifier: BSD-2-Clause */
/* l3b-traffic core: see traffic.h. */
#include "traffic.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	put_be16(p, (uint16_t)(v >> 16));
	put_be16(p + 2, (uint16_t)v);
}

static void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

static uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)get_be16(p) << 16 | get_be16(p + 2);
}

static uint64_t get_be64(const uint8_t *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

void tr_hdr_put(uint8_t *p, const struct tr_hdr *h)
{
	put_be32(p, TR_MAGIC);
	put_be16(p + 4, h->flags);
	put_be16(p + 6, TR_VERSION);
	put_be32(p + 8, h->run);
	put_be32(p + 12, 0);
	put_be64(p + 16, h->seq);
	put_be64(p + 24, h->tx_ns);
}

int tr_hdr_get(const uint8_t *p, size_t len, struct tr_hdr *h)
{
	if (len < TR_HDR_LEN || get_be32(p) != TR_MAGIC ||
	    get_be16(p + 6) != TR_VERSION) {
		return -EBADMSG;
	}
	h->flags = get_be16(p + 4);
	h->run = get_be32(p + 8);
	h->seq = get_be64(p + 16);
	h->tx_ns = get_be64(p + 24);
	return 0;
}

static uint64_t mix(uint32_t run, uint64_t k)
{
	uint64_t z = k + (uint64_t)run * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void tr_pattern_fill(uint8_t *p, size_t len, uint32_t run, uint64_t base,
		     uint64_t off)
{
	size_t i = 0;

	while (i < len) {
		uint64_t o = off + i;
		uint64_t w = mix(run, base + o / 8);
		unsigned b = (unsigned)(o % 8);

		for (; b < 8 && i < len; b++, i++) {
			p[i] = (uint8_t)(w >> (8 * b));
		}
	}
}

size_t tr_pattern_check(const uint8_t *p, size_t len, uint32_t run,
			uint64_t base, uint64_t off)
{
	size_t i = 0;

	while (i < len) {
		uint64_t o = off + i;
		uint64_t w = mix(run, base + o / 8);
		unsigned b = (unsigned)(o % 8);

		for (; b < 8 && i < len; b++, i++) {
			if (p[i] != (uint8_t)(w >> (8 * b))) {
				return i;
			}
		}
	}
	return len;
}

static uint64_t probe_base(uint64_t seq)
{
	return seq << 20;
}

void tr_probe_build(uint8_t *p, size_t len, const struct tr_hdr *h)
{
	tr_hdr_put(p, h);
	tr_pattern_fill(p + TR_HDR_LEN, len - TR_HDR_LEN, h->run,
			probe_base(h->seq), 0);
}

void tr_rx_init(struct tr_rx *rx)
{
	memset(rx, 0, sizeof(*rx));
}

void tr_rx_free(struct tr_rx *rx)
{
	free(rx->seen);
	free(rx->delay_ns);
	rx->seen = NULL;
	rx->delay_ns = NULL;
}

static int grow_seen(struct tr_rx *rx, uint64_t seq)
{
	size_t need = (size_t)(seq / 8 + 1);
	size_t len = rx->seen_len ? rx->seen_len : 4096;
	uint8_t *n;

	if (need <= rx->seen_len) {
		return 0;
	}
	while (len < need) {
		len *= 2;
	}
	n = realloc(rx->seen, len);
	if (!n) {
		return -ENOMEM;
	}
	memset(n + rx->seen_len, 0, len - rx->seen_len);
	rx->seen = n;
	rx->seen_len = len;
	return 0;
}

static int push_delay(struct tr_rx *rx, int64_t d)
{
	if (rx->ndelay == rx->delay_cap) {
		size_t cap = rx->delay_cap ? rx->delay_cap * 2 : 65536;
		int64_t *n = realloc(rx->delay_ns, cap * sizeof(*n));

		if (!n) {
			return -ENOMEM;
		}
		rx->delay_ns = n;
		rx->delay_cap = cap;
	}
	rx->delay_ns[rx->ndelay++] = d;
	return 0;
}

int tr_rx_packet(struct tr_rx *rx, const uint8_t *p, size_t len, int64_t now_ns,
		 int64_t *delay_ns)
{
	struct tr_hdr h;
	uint8_t bit;
	int ret;

	if (tr_hdr_get(p, len, &h)) {
		rx->corrupted++;
		return TR_RX_CORRUPT;
	}
	if (rx->have_run && h.run != rx->run) {
		rx->foreign++;
		return TR_RX_FOREIGN;
	}
	if (h.flags & TR_FLAG_FIN) {
		rx->run = h.run;
		rx->have_run = true;
		rx->fin = true;
		rx->fin_total = h.seq;
		return TR_RX_FIN;
	}
	if (h.seq >= TR_MAX_SEQ) {
		rx->out_of_range++;
		return TR_RX_RANGE;
	}
	if (tr_pattern_check(p + TR_HDR_LEN, len - TR_HDR_LEN, h.run,
			     probe_base(h.seq), 0) != len - TR_HDR_LEN) {
		rx->corrupted++;
		return TR_RX_CORRUPT;
	}
	rx->run = h.run;
	rx->have_run = true;
	rx->received++;
	ret = grow_seen(rx, h.seq);
	if (ret) {
		return ret;
	}
	bit = (uint8_t)(1u << (h.seq % 8));
	if (rx->seen[h.seq / 8] & bit) {
		rx->dup++;
		return TR_RX_DUP;
	}
	rx->seen[h.seq / 8] |= bit;
	*delay_ns = now_ns - (int64_t)h.tx_ns;
	ret = push_delay(rx, *delay_ns);
	if (ret) {
		return ret;
	}
	rx->unique++;
	rx->bytes += len + TR_IPUDP_LEN;
	if (!rx->any) {
		rx->first_ns = now_ns;
		rx->highest = h.seq;
		rx->any = true;
	} else if (h.seq < rx->highest) {
		rx->reordered++;
	} else {
		rx->highest = h.seq;
	}
	rx->last_ns = now_ns;
	return TR_RX_NEW;
}

uint64_t tr_rx_expected(const struct tr_rx *rx)
{
	uint64_t e = rx->any ? rx->highest + 1 : 0;

	if (rx->fin && rx->fin_total > e) {
		e = rx->fin_total;
	}
	return e;
}

uint64_t tr_rx_lost(const struct tr_rx *rx)
{
	return tr_rx_expected(rx) - rx->unique;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a;
	int64_t y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int64_t tr_percentile(int64_t *v, size_t n, double q)
{
	size_t rank;

	if (!n) {
		return 0;
	}
	qsort(v, n, sizeof(*v), cmp_i64);
	rank = (size_t)ceil(q * (double)n);
	if (rank < 1) {
		rank = 1;
	}
	if (rank > n) {
		rank = n;
	}
	return v[rank - 1];
}

static double ramp(const struct tr_profile *pr, double t_s)
{
	const long up = TR_RAMP_UP_STEPS;
	const long top = TR_RAMP_UP_STEPS + TR_RAMP_HOLD_STEPS;
	const long last = top + TR_RAMP_DOWN_STEPS - 1;
	long step = (long)floor(t_s * 1000.0 / TR_RAMP_STEP_MS);
	double ratio = pr->rate_high / pr->rate;

	if (step < 0 || step > last) {
		return pr->rate;
	}
	if (step >= top) {
		step = last - step; /* mirror image of the rise */
	}
	if (step >= up) {
		return pr->rate_high;
	}
	return pr->rate * pow(ratio, (double)step / (double)up);
}

double tr_profile_rate(const struct tr_profile *pr, double t_s)
{
	size_t lo = 0;
	size_t hi;

	switch (pr->kind) {
	case TR_PROF_RAMP:
		return ramp(pr, t_s);
	case TR_PROF_FILE:
		if (!pr->n || t_s < pr->t[0]) {
			return 0;
		}
		/* Last step starting at or before t_s. */
		hi = pr->n;
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;

			if (pr->t[mid] <= t_s) {
				lo = mid;
			} else {
				hi = mid;
			}
		}
		return pr->r[lo];
	case TR_PROF_CONST:
	default:
		return pr->rate;
	}
}

int tr_profile_load(struct tr_profile *pr, const char *path, char *err,
		    size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[256];
	size_t cap = 0;
	unsigned lineno = 0;
	int ret = 0;

	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	pr->kind = TR_PROF_FILE;
	pr->n = 0;
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#');
		double t, r;
		char extra;
		int k;

		lineno++;
		if (hash) {
			*hash = '\0';
		}
		k = sscanf(line, "%lf %lf %c", &t, &r, &extra);
		if (k == EOF) {
			continue;
		}
		line[strcspn(line, "\r\n")] = '\0';
		if (k != 2 || !isfinite(t) || !isfinite(r) || t < 0 || r < 0 ||
		    (pr->n && t <= pr->t[pr->n - 1])) {
			snprintf(err, errlen,
				 "%s:%u: want 'SECONDS MBIT' with ascending "
				 "times, got '%s'",
				 path, lineno, line);
			ret = -EINVAL;
			break;
		}
		if (pr->n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			double *nt = realloc(pr->t, ncap * sizeof(*nt));
			double *nr;

			if (!nt) {
				ret = -ENOMEM;
				break;
			}
			pr->t = nt;
			nr = realloc(pr->r, ncap * sizeof(*nr));
			if (!nr) {
				ret = -ENOMEM;
				break;
			}
			pr->r = nr;
			cap = ncap;
		}
		pr->t[pr->n] = t;
		pr->r[pr->n] = r;
		pr->n++;
	}
	fclose(f);
	if (!ret && !pr->n) {
		snprintf(err, errlen, "%s: no steps", path);
		ret = -EINVAL;
	}
	if (ret == -ENOMEM) {
		snprintf(err, errlen, "%s: out of memory", path);
	}
	return ret;
}

void tr_profile_free(struct tr_profile *pr)
{
	free(pr->t);
	free(pr->r);
	pr->t = NULL;
	pr->r = NULL;
	pr->n = 0;
}
