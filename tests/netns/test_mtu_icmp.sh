#!/bin/bash
# Does a real Linux host honour what ingress/mtu.c builds?  Three namespaces:
#
#   h 10.77.0.1 fd00:77::1 ──veth── r 10.77.0.2 fd00:77::2
#                                   r 10.78.0.2 ──veth── s 10.78.0.5
#
# h routes 10.78.0.0/24 and fd00:78::/64 via r.  r does not forward (a
# packet for 10.78.0.5 is dropped there in silence); instead mtu-relay, a
# small driver of ingress/mtu.c compiled here, reads what h sends to
# udp/9 on r's h side (AF_PACKET) and does with it what the ingress does
# with a packet too big for the tunnel (mtu_check() with max_inner 1300):
#   - IPv4 with DF: mtu_icmp4_frag_needed(), sent to the source on a raw
#     IPPROTO_ICMP socket: h's route cache and socket must show mtu 1300,
#     and a datagram as large as before must fail with EMSGSIZE;
#   - IPv6: mtu_icmp6_too_big() on a raw IPPROTO_ICMPV6 socket (the kernel
#     fills in the checksum): the same on h, for IPv6;
#   - IPv4 without DF: mtu_frag4() with max_inner 576, the fragments sent
#     verbatim to s over AF_PACKET (our header checksums included: s's
#     kernel drops a fragment whose header checksum is wrong): s must
#     reassemble them and receive the datagram byte for byte.
#
# Not registered in CMake (it compiles its driver with cc).  Needs root,
# iproute2, cc, python3.  usage: test_mtu_icmp.sh; exit 77: skipped.

set -Eeuo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
PFX=${MTU_NS_PREFIX:-l3b-mtu-$$-}
H=${PFX}h
R=${PFX}r
S=${PFX}s
DIR=
PIDS=()
NS=()
FAIL=0

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root" >&2
	exit 77
fi
for t in ip cc python3; do
	if ! command -v "$t" >/dev/null; then
		echo "SKIP: needs $t" >&2
		exit 77
	fi
done

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	local p n
	set +e
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	for n in "${NS[@]}"; do
		ip netns del "$n" 2>/dev/null
	done
	[ -n "$DIR" ] && rm -rf "$DIR"
}
trap cleanup EXIT
trap 'echo "failed at line $LINENO: $BASH_COMMAND" >&2' ERR

ok() {
	echo "ok   $*"
}

bad() {
	echo "FAIL $*"
	FAIL=1
}

DIR=$(mktemp -d "/tmp/${PFX}XXXXXX")

# ---- the driver: what the ingress would do, on raw sockets
cat >"$DIR/mtu-relay.c" <<'EOF'
/* mtu-relay IN_IF OUT_IF OUT_MAC MAX_INNER FRAG_MAX COUNT: reads IPv4/IPv6
 * UDP to port 9 arriving on IN_IF; a packet that mtu_check() finds too big
 * for MAX_INNER gets an ICMP error back to its source (raw sockets), one
 * to fragment is split for FRAG_MAX and the fragments go out of OUT_IF to
 * OUT_MAC as they are.  Exits 0 after COUNT such packets, 1 on an error
 * or after 20 s without one. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ingress/mtu.h"

static uint8_t frags[64][MTU_FRAG_BUF];
static size_t flen[64];

static int die(const char *what)
{
	fprintf(stderr, "mtu-relay: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_ll in = {.sll_family = AF_PACKET}, out = in, from;
	socklen_t fl;
	uint8_t pkt[9000], msg[2048];
	unsigned mac[6], max_inner, frag_max, count, done = 0, i;
	int ps, r4, r6, k, m;
	ssize_t n;

	if (argc != 7 ||
	    sscanf(argv[3], "%x:%x:%x:%x:%x:%x", &mac[0], &mac[1], &mac[2],
		   &mac[3], &mac[4], &mac[5]) != 6) {
		fprintf(stderr, "usage: mtu-relay IN_IF OUT_IF OUT_MAC "
				"MAX_INNER FRAG_MAX COUNT\n");
		return 2;
	}
	max_inner = (unsigned)atoi(argv[4]);
	frag_max = (unsigned)atoi(argv[5]);
	count = (unsigned)atoi(argv[6]);
	in.sll_protocol = htons(ETH_P_ALL);
	in.sll_ifindex = (int)if_nametoindex(argv[1]);
	out.sll_protocol = htons(ETH_P_IP);
	out.sll_ifindex = (int)if_nametoindex(argv[2]);
	out.sll_halen = 6;
	for (i = 0; i < 6; i++) {
		out.sll_addr[i] = (uint8_t)mac[i];
	}
	ps = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_ALL));
	r4 = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	r6 = socket(AF_INET6, SOCK_RAW, IPPROTO_ICMPV6);
	if (ps < 0 || r4 < 0 || r6 < 0) {
		return die("socket");
	}
	if (bind(ps, (struct sockaddr *)&in, sizeof(in)) < 0) {
		return die("bind");
	}
	printf("ready\n");
	fflush(stdout);
	while (done < count) {
		struct pollfd pf = {.fd = ps, .events = POLLIN};
		size_t len;
		bool v6;

		if (poll(&pf, 1, 20000) != 1) {
			fprintf(stderr, "mtu-relay: timeout\n");
			return 1;
		}
		fl = sizeof(from);
		n = recvfrom(ps, pkt, sizeof(pkt), 0, (struct sockaddr *)&from,
			     &fl);
		if (n < 0) {
			return die("recvfrom");
		}
		len = (size_t)n;
		if (from.sll_pkttype == PACKET_OUTGOING || len < 48) {
			continue;
		}
		v6 = pkt[0] >> 4 == 6;
		if (v6 ? pkt[6] != 17 || pkt[42] != 0 || pkt[43] != 9
		       : pkt[0] != 0x45 || pkt[9] != 17 || pkt[22] != 0 ||
				 pkt[23] != 9) {
			continue;
		}
		switch (mtu_check(pkt, len, max_inner)) {
		case MTU_FITS:
			printf("fits %zu\n", len);
			continue;
		case MTU_BAD:
			printf("bad %zu\n", len);
			return 1;
		case MTU_FRAG_NEEDED:
			if (v6) {
				struct sockaddr_in6 to = {.sin6_family =
								  AF_INET6};

				memcpy(&to.sin6_addr, pkt + 8, 16);
				m = mtu_icmp6_too_big(pkt, len, max_inner, msg,
						      sizeof(msg));
				if (m < 0) {
					errno = -m;
					return die("mtu_icmp6_too_big");
				}
				if (sendto(r6, msg, (size_t)m, 0,
					   (struct sockaddr *)&to,
					   sizeof(to)) != m) {
					return die("sendto icmp6");
				}
				printf("icmp6 %zu -> %d bytes, mtu %u\n", len, m,
				       max_inner);
			} else {
				struct sockaddr_in to = {.sin_family = AF_INET};

				memcpy(&to.sin_addr, pkt + 12, 4);
				m = mtu_icmp4_frag_needed(pkt, len,
							  (uint16_t)max_inner,
							  msg, sizeof(msg));
				if (m < 0) {
					errno = -m;
					return die("mtu_icmp4_frag_needed");
				}
				if (sendto(r4, msg, (size_t)m, 0,
					   (struct sockaddr *)&to,
					   sizeof(to)) != m) {
					return die("sendto icmp4");
				}
				printf("icmp4 %zu -> %d bytes, mtu %u\n", len, m,
				       max_inner);
			}
			break;
		case MTU_FRAGMENT:
			k = mtu_frag4(pkt, len, frag_max, frags, flen, 64);
			if (k < 0) {
				errno = -k;
				return die("mtu_frag4");
			}
			for (i = 0; i < (unsigned)k; i++) {
				if (sendto(ps, frags[i], flen[i], 0,
					   (struct sockaddr *)&out,
					   sizeof(out)) != (ssize_t)flen[i]) {
					return die("sendto fragment");
				}
				printf("fragment %u: %zu bytes, offset %u%s\n",
				       i, flen[i],
				       (frags[i][6] << 8 | frags[i][7]) & 0x1fff,
				       frags[i][6] & 0x20 ? ", MF" : "");
			}
			break;
		}
		fflush(stdout);
		done++;
	}
	return 0;
}
EOF
cc -std=gnu11 -O1 -g -Wall -Wextra -Werror -I"$SRC" -o "$DIR/mtu-relay" \
	"$DIR/mtu-relay.c" "$SRC/ingress/mtu.c"

# ---- the namespaces
for n in "$H" "$R" "$S"; do
	ip netns add "$n"
	NS+=("$n")
	ip -n "$n" link set lo up
done
ip link add hr0 netns "$H" type veth peer name rh0 netns "$R"
ip link add rs0 netns "$R" type veth peer name sr0 netns "$S"
ip -n "$H" addr add 10.77.0.1/24 dev hr0
ip -n "$H" addr add fd00:77::1/64 dev hr0 nodad
ip -n "$R" addr add 10.77.0.2/24 dev rh0
ip -n "$R" addr add fd00:77::2/64 dev rh0 nodad
ip -n "$R" addr add 10.78.0.2/24 dev rs0
ip -n "$S" addr add 10.78.0.5/24 dev sr0
for l in "$H hr0" "$R rh0" "$R rs0" "$S sr0"; do
	read -r n d <<<"$l"
	ip -n "$n" link set "$d" up
done
ip -n "$H" route add 10.78.0.0/24 via 10.77.0.2
ip -n "$H" -6 route add fd00:78::/64 via fd00:77::2
ip -n "$S" route add 10.77.0.0/24 via 10.78.0.2
ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=0
ip netns exec "$R" sysctl -qw net.ipv6.conf.all.forwarding=0
S_MAC=$(ip -n "$S" -o link show sr0 | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')

ip netns exec "$R" "$DIR/mtu-relay" rh0 rs0 "$S_MAC" 1300 576 3 \
	>"$DIR/relay.log" 2>&1 &
PIDS+=($!)
RELAY=$!
for _ in $(seq 50); do
	grep -q ready "$DIR/relay.log" && break
	sleep 0.1
done
grep -q ready "$DIR/relay.log"

# s: receives the datagram h sends without DF, reassembled by its kernel
cat >"$DIR/recv.py" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.78.0.5", 9))
s.settimeout(20)
print("ready", flush=True)
data, src = s.recvfrom(65535)
want = bytes((i * 7 + 3) & 0xff for i in range(int(sys.argv[1])))
print("got %d bytes from %s:%d, %s" % (len(data), src[0], src[1],
      "equal" if data == want else "DIFFERENT"), flush=True)
sys.exit(0 if data == want else 1)
EOF
ip netns exec "$S" python3 "$DIR/recv.py" 1452 >"$DIR/recv.log" 2>&1 &
PIDS+=($!)
RECV=$!
for _ in $(seq 50); do
	grep -q ready "$DIR/recv.log" && break
	sleep 0.1
done
grep -q ready "$DIR/recv.log"

# h: a connected UDP socket with path MTU discovery on; sends one datagram
# that is too big, waits for the socket's path MTU to drop, then checks
# that the same size fails and 1300 bytes pass.
cat >"$DIR/send.py" <<'EOF'
import errno, socket, sys, time
fam, payload = sys.argv[1], int(sys.argv[2])
if fam == "4":
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("10.77.0.1", 40000))
    s.connect(("10.78.0.5", 9))
    s.setsockopt(socket.IPPROTO_IP, 10, 2)  # IP_MTU_DISCOVER = DO
    opt, hdr = (socket.IPPROTO_IP, 14), 28  # IP_MTU
else:
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.bind(("fd00:77::1", 40001))
    s.connect(("fd00:78::5", 9))
    s.setsockopt(socket.IPPROTO_IPV6, 23, 2)  # IPV6_MTU_DISCOVER = DO
    opt, hdr = (socket.IPPROTO_IPV6, 24), 48  # IPV6_MTU
before = s.getsockopt(*opt)
s.send(bytes(payload))
mtu = before
for _ in range(50):
    time.sleep(0.1)
    mtu = s.getsockopt(*opt)
    if mtu != before:
        break
def send(n):
    for _ in range(2):  # the first may report the ICMP error (sk_err)
        try:
            s.send(bytes(n))
            return 0
        except OSError as e:
            err = e.errno
    return err
big, fits = send(payload), send(1300 - hdr)
print("path mtu %d -> %d; %d bytes: %s; %d bytes: %s" % (
    before, mtu, payload + hdr, errno.errorcode.get(big, "sent"),
    1300, errno.errorcode.get(fits, "sent")))
sys.exit(0 if mtu == 1300 and big == errno.EMSGSIZE and fits == 0 else 1)
EOF

# the datagram without DF for s, payload (i * 7 + 3) & 0xff: 1480 bytes
cat >"$DIR/frag.py" <<'EOF'
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 11, 1)  # SO_NO_CHECK: no checksum left
                                        # to the (veth) offload
s.setsockopt(socket.IPPROTO_IP, 10, 0)  # IP_MTU_DISCOVER = DONT: no DF
s.bind(("10.77.0.1", 40002))
s.sendto(bytes((i * 7 + 3) & 0xff for i in range(1452)), ("10.78.0.5", 9))
EOF

# first: once h has learnt mtu 1300 for 10.78.0.5 it fragments itself
echo "== IPv4 without DF, 1480 bytes, fragments of at most 576"
ip netns exec "$H" python3 "$DIR/frag.py"
if wait "$RECV"; then
	ok "s: $(tail -n 1 "$DIR/recv.log")"
else
	bad "s: $(cat "$DIR/recv.log")"
fi
echo "== IPv4 with DF, 1400 bytes, max_inner 1300"
if out=$(ip netns exec "$H" python3 "$DIR/send.py" 4 1372 2>&1); then
	ok "h: $out"
else
	bad "h: $out"
fi
if rt=$(ip -n "$H" route get 10.78.0.5) && grep -q "mtu 1300" <<<"$rt"; then
	ok "h: route cache: $(tr -s ' \n' ' ' <<<"$rt")"
else
	bad "h: route cache has no mtu 1300: $rt"
fi

echo "== IPv6, 1400 bytes, max_inner 1300"
if out=$(ip netns exec "$H" python3 "$DIR/send.py" 6 1352 2>&1); then
	ok "h: $out"
else
	bad "h: $out"
fi
if rt=$(ip -n "$H" -6 route get fd00:78::5) &&
	grep -q "mtu 1300" <<<"$rt"; then
	ok "h: route cache: $(tr -s ' \n' ' ' <<<"$rt")"
else
	bad "h: route cache has no mtu 1300: $rt"
fi

if wait "$RELAY"; then
	ok "relay done"
else
	bad "relay failed"
fi
PIDS=()
sed 's/^/     relay: /' "$DIR/relay.log"
s_frags=$(ip netns exec "$S" sh -c 'cat /proc/net/snmp' |
	awk '/^Ip:/ { if (!h) { split($0, k); h = 1 } else
		for (i = 2; i <= NF; i++) if (k[i] == "ReasmOKs" ||
		k[i] == "ReasmFails" || k[i] == "InHdrErrors")
		printf "%s %s ", k[i], $i }')
if grep -q "ReasmOKs 1 ReasmFails 0" <<<"$s_frags" &&
	grep -q "InHdrErrors 0" <<<"$s_frags"; then
	ok "s: $s_frags"
else
	bad "s: $s_frags"
fi

if [ "$FAIL" = 0 ]; then
	echo "PASS"
else
	echo "FAILED"
fi
exit "$FAIL"
