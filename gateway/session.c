/* SPDX-License-Identifier: BSD-2-Clause */
/* The sessions: one per CPE of the configuration (conf.cpe[]).  A CPE has
 * one, with its concentrator; a concentrator one per CPE it serves, all on
 * the same port and paths.  Each session has its own keys (secure.c), its
 * own view of every path (peer address, liveness, round trip: struct
 * gw_link), scheduler, resequencer and routed prefixes.
 *
 * Two tables find a session in O(1):
 *  - by session id (every tunnel packet carries it): a chained hash table;
 *  - by address (the ingress, for the destination of a packet to bond; the
 *    egress, for the source of what a CPE sends, so that no CPE can send
 *    with another's addresses): the CPEs' IPv4 and IPv6 prefixes in one
 *    open-addressing hash table keyed by (family, length, masked address),
 *    probed from the longest prefix length in use in the family to the
 *    shortest.  A handful of lengths are in use
 *    in practice, so a lookup is a handful of probes whatever the number of
 *    CPEs.  The config refuses overlapping prefixes of different CPEs, so
 *    the longest match is the only one.
 *
 * Reload (gw_sessions_update): a CPE that is gone has what its resequencer
 * holds released in order and its session freed; a new CPE gets a session;
 * a CPE whose key or encrypt changed gets a fresh session (its peer must
 * handshake again: the old keys are dropped); the others are not touched,
 * their prefixes and names updated in place.  Both tables are rebuilt.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "gateway/gw.h"
#include "gateway/path.h"
#include "gateway/secure.h"
#include "gateway/session.h"

/* An entry of the prefix table: IPv4 addresses take the first 4 bytes of
 * addr, the rest zero. */
struct gw_pfx {
	struct gw_sess *s; /* NULL: free */
	uint8_t addr[16];  /* masked */
	uint8_t len;
	bool v6;
};

struct gw_sess_table {
	uint32_t id_mask;
	struct gw_sess **id;
	uint32_t pfx_mask;
	struct gw_pfx *pfx;
	/* prefix lengths in use, longest first, per family */
	unsigned nlens4, nlens6;
	uint8_t lens4[33];
	uint8_t lens6[129];
};

static uint32_t hash32(uint32_t v)
{
	v ^= v >> 16;
	v *= 0x7feb352dU;
	v ^= v >> 15;
	v *= 0x846ca68bU;
	v ^= v >> 16;
	return v;
}

/* The table slot of a masked address of length len. */
static uint32_t pfx_hash(const uint8_t *a, uint8_t len, bool v6)
{
	uint32_t h = (uint32_t)len | (uint32_t)v6 << 8, w;
	unsigned i;

	for (i = 0; i < (v6 ? 16u : 4u); i += 4) {
		memcpy(&w, a + i, 4);
		h = hash32(h ^ w);
	}
	return h;
}

/* out = the first len bits of a (n bytes), the rest zero (16 bytes). */
static void mask_addr(uint8_t *out, const uint8_t *a, size_t n, unsigned len)
{
	size_t i;

	memset(out, 0, 16);
	for (i = 0; i < n && i * 8 < len; i++) {
		out[i] = len >= (i + 1) * 8
				 ? a[i]
				 : (uint8_t)(a[i] & (0xff << (8 - len % 8)));
	}
}

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 16;

	while (p < n) {
		p <<= 1;
	}
	return p;
}

static void table_free(struct gw_sess_table *t)
{
	if (t) {
		free(t->id);
		free(t->pfx);
		free(t);
	}
}

static struct gw_sess_table *table_build(struct gw_sess *const *sess,
					 unsigned nsess)
{
	struct gw_sess_table *t = calloc(1, sizeof(*t));
	bool used4[33] = {false}, used6[129] = {false};
	unsigned npfx = 0, i, k;
	int len;

	if (!t) {
		return NULL;
	}
	for (k = 0; k < nsess; k++) {
		npfx += sess[k]->nprefixes;
	}
	t->id_mask = pow2_at_least(nsess * 2) - 1;
	t->pfx_mask = pow2_at_least(npfx * 2) - 1;
	t->id = calloc(t->id_mask + 1, sizeof(*t->id));
	t->pfx = calloc(t->pfx_mask + 1, sizeof(*t->pfx));
	if (!t->id || !t->pfx) {
		table_free(t);
		return NULL;
	}
	for (k = 0; k < nsess; k++) {
		struct gw_sess *s = sess[k];
		uint32_t b = hash32(s->id) & t->id_mask;

		s->hnext = t->id[b];
		t->id[b] = s;
		for (i = 0; i < s->nprefixes; i++) {
			const struct conf_prefix *cp = &s->prefix[i];
			uint8_t a[16];
			uint32_t h;

			if (cp->v6) {
				mask_addr(a, cp->addr6, 16, cp->len);
				used6[cp->len] = true;
			} else {
				mask_addr(a, (const uint8_t *)&cp->addr, 4,
					  cp->len);
				used4[cp->len] = true;
			}
			h = pfx_hash(a, cp->len, cp->v6) & t->pfx_mask;
			while (t->pfx[h].s) {
				h = (h + 1) & t->pfx_mask;
			}
			t->pfx[h].s = s;
			memcpy(t->pfx[h].addr, a, 16);
			t->pfx[h].len = cp->len;
			t->pfx[h].v6 = cp->v6;
		}
	}
	for (len = 128; len >= 0; len--) {
		if (used6[len]) {
			t->lens6[t->nlens6++] = (uint8_t)len;
		}
		if (len <= 32 && used4[len]) {
			t->lens4[t->nlens4++] = (uint8_t)len;
		}
	}
	return t;
}

static struct gw_sess *table_id(const struct gw_sess_table *t, uint32_t id)
{
	struct gw_sess *s;

	if (!t) {
		return NULL;
	}
	for (s = t->id[hash32(id) & t->id_mask]; s; s = s->hnext) {
		if (s->id == id) {
			return s;
		}
	}
	return NULL;
}

struct gw_sess *gw_sess_by_id(const struct gw *gw, uint32_t id)
{
	return table_id(gw->table, id);
}

/* The longest prefix of the family holding addr (n bytes). */
static struct gw_sess *by_addr(const struct gw *gw, const uint8_t *addr,
			       bool v6)
{
	const struct gw_sess_table *t = gw->table;
	unsigned i, nlens;
	const uint8_t *lens;

	if (gw->conf.role == ROLE_CPE) {
		return gw->nsess ? gw->sess[0] : NULL;
	}
	if (!t) {
		return NULL;
	}
	nlens = v6 ? t->nlens6 : t->nlens4;
	lens = v6 ? t->lens6 : t->lens4;
	for (i = 0; i < nlens; i++) {
		uint8_t len = lens[i], a[16];
		uint32_t h;

		mask_addr(a, addr, v6 ? 16 : 4, len);
		h = pfx_hash(a, len, v6) & t->pfx_mask;
		for (; t->pfx[h].s; h = (h + 1) & t->pfx_mask) {
			if (t->pfx[h].len == len && t->pfx[h].v6 == v6 &&
			    !memcmp(t->pfx[h].addr, a, 16)) {
				return t->pfx[h].s;
			}
		}
	}
	return NULL;
}

struct gw_sess *gw_sess_by_addr(const struct gw *gw, uint32_t addr)
{
	return by_addr(gw, (const uint8_t *)&addr, false);
}

struct gw_sess *gw_sess_by_addr6(const struct gw *gw, const uint8_t *addr)
{
	return by_addr(gw, addr, true);
}

static void set_identity(struct gw_sess *s, const struct conf_cpe *cc)
{
	unsigned i;

	snprintf(s->name, sizeof(s->name), "%s", cc->name);
	if (cc->name[0]) {
		snprintf(s->label, sizeof(s->label), "cpe %s: ", cc->name);
	} else {
		s->label[0] = '\0';
	}
	for (i = 0; i < cc->nprefixes; i++) {
		s->prefix[i] = cc->prefix[i];
	}
	s->nprefixes = cc->nprefixes;
}

/* flush: what the session holds goes out in order first (it goes away
 * while the daemon runs) */
static void sess_free(struct gw_sess *s, bool flush)
{
	if (!s) {
		return;
	}
	if (s->opened && s->gw->on_session_closing) {
		s->gw->on_session_closing(s, flush);
	}
	gw_links_detect_close(s);
	gw_ing_resend_close(s);
	ing_inflight_free(&s->infl);
	gw_sec_wipe(s);
	free(s);
}

/* The in-flight store of a session: per path what the fastest path
 * carries in GW_INFLIGHT_MS (a report interval, the RTT and a queue, with
 * room to spare) at its rate_mbit, or GW_INFLIGHT_KBPS when no path has
 * one; at most GW_INFLIGHT_MAX_BYTES per path; a slot per
 * GW_INFLIGHT_PKT_BYTES.  About 2.2 MB per path at the default.  A CPE
 * takes it at open; a concentrator when the CPE's first DATA goes out on
 * the path (its CPEs that send nothing cost nothing).  Sized by the
 * concentrator's own rates, not the CPE's: per-CPE sizing is for the
 * scale issue (15). */
static void inflight_params(const struct gw *gw, struct ing_inflight_params *p)
{
	uint32_t kbps = 0, want;
	unsigned i;

	for (i = 0; i < gw->npaths; i++) {
		if (gw->conf.path[i].rate_kbps > kbps) {
			kbps = gw->conf.path[i].rate_kbps;
		}
	}
	p->max_bytes = ing_inflight_bytes_for(kbps ? kbps : GW_INFLIGHT_KBPS,
					      GW_INFLIGHT_MS);
	if (p->max_bytes > GW_INFLIGHT_MAX_BYTES) {
		p->max_bytes = GW_INFLIGHT_MAX_BYTES;
	}
	want = p->max_bytes / GW_INFLIGHT_PKT_BYTES;
	p->max_pkts = 2;
	while (p->max_pkts < want) {
		p->max_pkts <<= 1;
	}
}

static struct gw_sess *sess_open(struct gw *gw, const struct conf_cpe *cc)
{
	struct ing_inflight_params ip;
	enum path_class cls[WIRE_MAX_PATHS];
	struct gw_sess *s = calloc(1, sizeof(*s));
	unsigned i;
	int err;

	if (!s) {
		return NULL;
	}
	s->gw = gw;
	s->id = cc->session_id;
	set_identity(s, cc);
	gw_sec_init(s, &cc->psk, cc->encrypt);
	gw_links_init(s);
	gw_links_detect_open(s);
	gw_ing_resend_open(s);
	for (i = 0; i < gw->npaths; i++) {
		cls[i] = gw->conf.path[i].cls;
	}
	err = ing_sched_init(&s->sched, &gw->conf.sched, gw->npaths, cls);
	if (err) {
		gw_serr(s, "scheduler: %s", strerror(-err));
		goto fail;
	}
	inflight_params(gw, &ip);
	err = ing_inflight_init(&s->infl, &ip, gw->npaths);
	if (err) {
		gw_serr(s, "in-flight store: %s", strerror(-err));
		goto fail;
	}
	/* a CPE's one session: resident now, not page by page as the rings
	 * first fill, so that the daemon's memory stays flat once it runs */
	for (i = 0; gw->conf.role == ROLE_CPE && i < gw->npaths; i++) {
		err = ing_inflight_alloc(&s->infl, i);
		if (err) {
			gw_serr(s, "in-flight store: %s", strerror(-err));
			goto fail;
		}
		memset(s->infl.path[i].pkt, 0,
		       (size_t)ip.max_pkts * sizeof(*s->infl.path[i].pkt));
		memset(s->infl.path[i].buf, 0, ip.max_bytes);
	}
	/* nothing is sent until the peer answered on a path */
	for (i = 0; i < gw->npaths; i++) {
		ing_sched_set_up(&s->sched, i, false);
		ing_sched_set_rate(&s->sched, i, gw->conf.path[i].rate_kbps);
	}
	/* its egress (on_session_opened): freed, even if it failed half
	 * way, by on_session_closing */
	s->opened = true;
	err = gw->on_session_opened ? gw->on_session_opened(s) : 0;
	if (err) {
		goto fail;
	}
	return s;
fail:
	sess_free(s, false);
	return NULL;
}

bool gw_owns(const struct gw *gw, uint32_t session_id)
{
	if (gw->wk) { /* the first process of workers: none */
		return false;
	}
	return gw->nworkers <= 1 || session_id % gw->nworkers == gw->worker;
}

int gw_sessions_open(struct gw *gw)
{
	unsigned k;

	gw->sess =
		calloc(gw->conf.ncpes ? gw->conf.ncpes : 1, sizeof(*gw->sess));
	if (!gw->sess) {
		return -ENOMEM;
	}
	for (k = 0; k < gw->conf.ncpes; k++) {
		if (!gw_owns(gw, gw->conf.cpe[k].session_id)) {
			continue;
		}
		gw->sess[gw->nsess] = sess_open(gw, &gw->conf.cpe[k]);
		if (!gw->sess[gw->nsess]) {
			return -ENOMEM;
		}
		gw->nsess++;
	}
	gw->table = table_build(gw->sess, gw->nsess);
	return gw->table ? 0 : -ENOMEM;
}

void gw_sessions_close(struct gw *gw)
{
	unsigned k;

	for (k = 0; k < gw->nsess; k++) {
		sess_free(gw->sess[k], false);
	}
	free(gw->sess);
	gw->sess = NULL;
	gw->nsess = 0;
	table_free(gw->table);
	gw->table = NULL;
}

/* s can go on under cc: same keys. */
static bool same_keys(const struct gw_sess *s, const struct conf_cpe *cc)
{
	return auth_key_equal(&s->sec.psk, &cc->psk) &&
	       (s->sec.mode == AUTH_ENCRYPT) == cc->encrypt;
}

int gw_sessions_update(struct gw *gw, const struct conf *c)
{
	struct gw_sess **next, *s;
	struct gw_sess_table *t;
	unsigned k, j, m = 0, n_new = 0, n_gone = 0, n_rekey = 0;
	size_t n = c->ncpes ? c->ncpes : 1;
	struct gw_sess *kept;
	bool *opened;

	next = calloc(n, sizeof(*next));
	opened = calloc(n, sizeof(*opened));
	if (!next || !opened) {
		goto fail;
	}
	/* everything that can fail first: then nothing has changed; next[]
	 * holds this worker's m CPEs of c, in c's order */
	for (k = 0; k < c->ncpes; k++) {
		const struct conf_cpe *cc = &c->cpe[k];

		if (!gw_owns(gw, cc->session_id)) {
			continue;
		}
		s = gw_sess_by_id(gw, cc->session_id);
		if (s && same_keys(s, cc)) {
			next[m++] = s;
			continue;
		}
		next[m] = sess_open(gw, cc);
		if (!next[m]) {
			goto fail;
		}
		opened[m++] = true;
		if (s) {
			n_rekey++;
		} else {
			n_new++;
		}
	}
	for (k = 0, j = 0; k < c->ncpes; k++) {
		if (gw_owns(gw, c->cpe[k].session_id)) {
			set_identity(next[j++], &c->cpe[k]);
		}
	}
	t = table_build(next, m);
	if (!t) {
		goto fail;
	}
	/* the old sessions that do not go on: their id is gone from the new
	 * table, or has a fresh session there */
	for (k = 0; k < gw->nsess; k++) {
		s = gw->sess[k];
		kept = table_id(t, s->id);
		if (kept == s) {
			continue;
		}
		if (kept) {
			gw_sinfo(s, "key or encrypt changed: new session");
		} else {
			gw_sinfo(s, "removed from the configuration");
			n_gone++;
		}
		sess_free(s, true);
	}
	free(gw->sess);
	gw->sess = next;
	gw->nsess = m;
	table_free(gw->table);
	gw->table = t;
	if (n_new || n_gone || n_rekey) {
		gw_info(gw,
			"sessions: %u added, %u removed, %u with new keys, %u "
			"in all",
			n_new, n_gone, n_rekey, gw->nsess);
	}
	free(opened);
	return 0;
fail:
	for (k = 0; next && opened && k < m; k++) {
		if (opened[k]) {
			sess_free(next[k], false);
		}
	}
	free(next);
	free(opened);
	return -ENOMEM;
}
