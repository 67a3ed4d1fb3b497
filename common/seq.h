/* SPDX-License-Identifier: BSD-2-Clause */
/* Serial-number arithmetic (RFC 1982 style) for 32-bit sequence numbers.
 *
 * Global and local sequence numbers wrap at 2^32; every comparison goes
 * through these helpers so that wraparound is handled in one place.  Two
 * numbers exactly 2^31 apart are each "before" the other and neither is
 * "after": callers that test seq_after treat such a packet as old.
 */
#ifndef L3BOND_SEQ_H
#define L3BOND_SEQ_H

#include <stdbool.h>
#include <stdint.h>

static inline int32_t seq_diff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

static inline bool seq_after(uint32_t a, uint32_t b)
{
	return seq_diff(a, b) > 0;
}

static inline bool seq_before(uint32_t a, uint32_t b)
{
	return seq_diff(a, b) < 0;
}

#endif
