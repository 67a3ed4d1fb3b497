/* SPDX-License-Identifier: BSD-2-Clause */
/* RFC 6479 replay window; see replay.h.
 *
 * Invariant once started: the ring holds the words pn / 64 for
 * top / 64 - (REPLAY_WORDS - 1) .. top / 64, each at slot (pn / 64) %
 * REPLAY_WORDS, and a bit is set iff that pn was accepted.  The window
 * proper (top - REPLAY_WINDOW + 1 .. top) spans at most REPLAY_WORDS words,
 * so it always lies inside the ring.  Slot indices come from the absolute
 * word number, so top never needs to be aligned and wrap-around of pn near
 * 2^64 needs no special case (word numbers stay below 2^58).
 */
#include "common/replay.h"

#include <errno.h>
#include <string.h>

_Static_assert(REPLAY_WINDOW % 64 == 0, "window in whole words");
_Static_assert((REPLAY_WORDS - 1) * 64 >= REPLAY_WINDOW,
	       "ring holds the window at any alignment");

static unsigned slot(uint64_t pn)
{
	return (unsigned)((pn >> 6) % REPLAY_WORDS);
}

static uint64_t bit(uint64_t pn)
{
	return (uint64_t)1 << (pn & 63);
}

void replay_init(struct replay_win *w)
{
	memset(w, 0, sizeof(*w));
}

int replay_check(const struct replay_win *w, uint64_t pn)
{
	if (!w->started || pn > w->top) {
		return 0;
	}
	if (w->top - pn >= REPLAY_WINDOW) {
		return -ERANGE;
	}
	return (w->bits[slot(pn)] & bit(pn)) ? -EALREADY : 0;
}

int replay_update(struct replay_win *w, uint64_t pn)
{
	uint64_t cur, next, n, i;
	int ret;

	if (!w->started) {
		memset(w->bits, 0, sizeof(w->bits));
		w->started = true;
		w->top = pn;
		w->bits[slot(pn)] = bit(pn);
		return 0;
	}
	ret = replay_check(w, pn);
	if (ret != 0) {
		return ret;
	}
	if (pn > w->top) {
		/* clear the words the window enters; beyond a full turn of
		 * the ring every word is new, so stop there */
		cur = w->top >> 6;
		next = pn >> 6;
		n = next - cur;
		if (n > REPLAY_WORDS) {
			n = REPLAY_WORDS;
		}
		for (i = 1; i <= n; i++) {
			w->bits[(cur + i) % REPLAY_WORDS] = 0;
		}
		w->top = pn;
	}
	w->bits[slot(pn)] |= bit(pn);
	return 0;
}
