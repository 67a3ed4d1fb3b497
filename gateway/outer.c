/* The outer headers of a tunnel packet, parsed by hand with bounds checks
 * (the egress queue hands us the whole IP packet). */
#include <errno.h>
#include <string.h>

#include "gateway/gw.h"

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The kernel reassembles fragments before raw PREROUTING, so a fragment
 * here is malformed; so is anything whose length fields disagree with
 * what we were given.  Trailing bytes beyond the IP total length (none
 * from the kernel) are ignored. */
int gw_outer_ipv4(const uint8_t *d, size_t len, struct sockaddr_in *from,
		  const uint8_t **pl, size_t *plen)
{
	size_t ihl, tot, ulen;
	const uint8_t *udp;

	if (len < 20 || d[0] >> 4 != 4) {
		return -EINVAL;
	}
	ihl = (size_t)(d[0] & 15) * 4;
	tot = be16(d + 2);
	if (ihl < 20 || tot > len || tot < ihl + 8 || d[9] != IPPROTO_UDP ||
	    (be16(d + 6) & 0x3fff)) {
		return -EINVAL;
	}
	udp = d + ihl;
	ulen = be16(udp + 4);
	if (ulen < 8 || ihl + ulen > tot) {
		return -EINVAL;
	}
	memset(from, 0, sizeof(*from));
	from->sin_family = AF_INET;
	memcpy(&from->sin_addr, d + 12, 4);
	memcpy(&from->sin_port, udp, 2);
	*pl = udp + 8;
	*plen = ulen - 8;
	return 0;
}
