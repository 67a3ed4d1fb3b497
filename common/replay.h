/* SPDX-License-Identifier: BSD-2-Clause */
/* Replay window over 64-bit packet numbers, RFC 6479 style.
 *
 * One window per path of a session.  top is the highest packet number
 * accepted so far; a number pn is
 *   fresh       if pn > top, or top - pn < REPLAY_WINDOW and pn not yet seen;
 *   a duplicate if top - pn < REPLAY_WINDOW and pn was seen;
 *   too old     if top - pn >= REPLAY_WINDOW (cannot be told from a replay).
 * So a packet overtaken by up to REPLAY_WINDOW - 1 later ones still passes.
 *
 * The bitmap is a ring of 64-bit words indexed by pn / 64, one word more
 * than the window needs, so that advancing top clears whole words and never
 * a partial one: a jump forward of any size (even 2^63) clears at most
 * REPLAY_WORDS words.  The first packet initialises the window, whatever
 * its number.
 *
 * Use: replay_check() before the (costlier) tag check, to drop obvious
 * replays cheaply; it changes nothing.  Then, only for a packet whose tag
 * is valid, replay_update(), which checks again and records pn.  A window
 * must be selected by the authenticated path id in the header, never by the
 * address a packet arrived from: packet numbers are per key, shared by all
 * paths, so a packet replayed onto another path's window would look fresh.
 */
#ifndef L3BOND_REPLAY_H
#define L3BOND_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

enum replay_limits {
	REPLAY_WINDOW = 4096,
	REPLAY_WORDS = REPLAY_WINDOW / 64 + 1,
};

struct replay_win {
	uint64_t top; /* highest packet number accepted */
	bool started; /* false until the first packet is recorded */
	uint64_t bits[REPLAY_WORDS];
};

/* Empty window: the next packet, any number, is fresh. */
void replay_init(struct replay_win *w);

/* 0: fresh; -EALREADY: seen; -ERANGE: older than the window.  No state
 * change. */
int replay_check(const struct replay_win *w, uint64_t pn);

/* As replay_check(), and on 0 records pn (moving the window forward if pn
 * is above top).  Call only for an authenticated packet. */
int replay_update(struct replay_win *w, uint64_t pn);

#endif
