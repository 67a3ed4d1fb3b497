/* SPDX-License-Identifier: BSD-2-Clause */
/* IPv6 extension headers (see ip6.h). */
#include "ingress/ip6.h"

#include <errno.h>

enum {
	IP6_HDR = 40,
	EXT_HOP = 0,
	EXT_ROUTING = 43,
	EXT_FRAGMENT = 44,
	EXT_AH = 51,
	EXT_DSTOPTS = 60,
};

int ip6_upper(const uint8_t *pkt, size_t len, unsigned max_ext,
	      unsigned flags, uint8_t *proto, size_t *off, bool *later_frag)
{
	uint8_t nh = pkt[6];
	size_t o = IP6_HDR;
	unsigned n = 0;
	size_t hl;

	*later_frag = false;
	for (;; n++) {
		bool ext = nh == EXT_HOP || nh == EXT_ROUTING ||
			   nh == EXT_DSTOPTS || nh == EXT_FRAGMENT ||
			   (nh == EXT_AH && (flags & IP6_WALK_AH));

		if (!ext) {
			*proto = nh;
			*off = o;
			return 0;
		}
		if (n == max_ext || len - o < 8) {
			return -EINVAL;
		}
		if (nh == EXT_FRAGMENT) {
			if ((pkt[o + 2] << 8 | pkt[o + 3]) & 0xfff8) {
				*later_frag = true;
				*proto = pkt[o];
				*off = o + 8;
				return 0;
			}
			hl = 8;
		} else if (nh == EXT_AH) {
			/* its length is in 4-byte units */
			hl = ((size_t)pkt[o + 1] + 2) * 4;
		} else {
			hl = ((size_t)pkt[o + 1] + 1) * 8;
		}
		if (hl > len - o) {
			return -EINVAL;
		}
		nh = pkt[o];
		o += hl;
	}
}
