#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# End-to-end tests of the NFQUEUE seam (common/nfqueue.c) through nfq-probe,
# as root, in network namespaces.
#
#   snd (10.98.0.1) ──veth── rcv (10.98.0.2)
#                             INPUT / mangle INPUT / raw PREROUTING
#                               -> NFQUEUE 7 -> nfq-probe MODE
#                             receiver sockets on udp/5001 and udp/5003
#
# Checks: accept (1000 packets, verdicts batched, kernel counters read),
# queue already taken (EBUSY), drop, truncated copy, mangle (payload
# replaced), decap (packet replaced by a shorter one, as the egress does),
# mark seen by a later -m mark rule, hold (delayed verdicts in batches),
# maxlen with and without fail-open, --queue-bypass with no listener, and
# traffic dropped once the listener is SIGKILLed.  Then accept, mangle,
# decap and hold again with nfq-probe built with ASan+UBSan.
#
# With --bench it runs no tests but measures (prints, does not assert) the rate that
# crosses a router whose FORWARD chain queues to nfq-probe accept,
# against plain forwarding, with 1400-byte UDP:
#
#   bsnd (10.97.1.1) ── brtr (10.97.1.2 | 10.97.2.2) ── brcv (10.97.2.1)
#                        FORWARD -> NFQUEUE 1 -> nfq-probe accept
#
# usage: test_nfq.sh [--bench] [--no-asan] [DIR]
#   DIR is the build tree (with tests/tools/nfq-probe and nfq-blast) or
#   the directory of the two tools (default: build); NFQ_PROBE and
#   NFQ_BLAST override the paths.

set -u -E -o pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BENCH=0
ASAN=1
BUILD=$SRC/build
for arg in "$@"; do
	case $arg in
	--bench) BENCH=1 ;;
	--no-asan) ASAN=0 ;;
	-*) echo "usage: $0 [--bench] [--no-asan] [BUILD_DIR]" >&2; exit 2 ;;
	*) BUILD=$arg ;;
	esac
done
TOOLS=$BUILD/tests/tools
if [ -x "$BUILD/nfq-probe" ]; then
	TOOLS=$BUILD
fi
PROBE=${NFQ_PROBE:-$TOOLS/nfq-probe}
BLAST=${NFQ_BLAST:-$TOOLS/nfq-blast}

# shellcheck source=lib.sh
source "$SRC/tests/netns/lib.sh"
tb_require iptables python3
tb_require_bin "$PROBE" "$BLAST"

# the namespaces (tb_netns_add), the probes and receivers (TB_PIDS) and
# TMP go on exit (lib.sh's tb_teardown)
NS_S=$(tb_ns snd)
NS_R=$(tb_ns rcv)
NS_BS=$(tb_ns bsnd)
NS_BR=$(tb_ns brtr)
NS_BC=$(tb_ns brcv)
Q=7
tb_init --no-tools
TMP=$TB_DIR
trap 'echo "test_nfq.sh: unexpected failure at line $LINENO" >&2; exit 1' ERR

# key=value from a counters file.
get() {
	local v
	v=$(sed -n "s/^$1=//p" "$2" | tail -n 1)
	echo "${v:-MISSING}"
}

# Arithmetic comparison that is false (not an error) on non-numbers.
num() {
	[[ $1 =~ ^[0-9]+$ ]] && [[ $3 =~ ^[0-9]+$ ]] && [ "$1" "$2" "$3" ]
}

R() { ip netns exec "$NS_R" "$@"; }
S() { ip netns exec "$NS_S" "$@"; }

# --- helpers run inside the namespaces --------------------------------

cat >"$TMP/recv.py" <<'EOF'
# recv.py PORT READY OUT IDLE MAXWAIT CHECK: counts UDP datagrams until
# IDLE s pass without one (or MAXWAIT s in all); CHECK says which
# payloads are good: any, upper (HELLO-NFQ-nnnn), inner (inner-nnnn).
import re, socket, sys, time
port, ready, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
idle, maxwait, check = float(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
pat = {"any": None, "upper": re.compile(rb"HELLO-NFQ-\d{4}\Z"),
       "inner": re.compile(rb"inner-\d{4}\Z")}[check]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)  # SO_RCVBUFFORCE
s.bind(("0.0.0.0", port))
open(ready, "w").close()
count = good = dup = 0
seen = set()
start = time.monotonic()
last = None
while True:
    now = time.monotonic()
    t = maxwait - (now - start)
    if last is not None:
        t = min(t, idle - (now - last))
    if t <= 0:
        break
    s.settimeout(t)
    try:
        data = s.recv(65535)
    except socket.timeout:
        break
    last = time.monotonic()
    count += 1
    if pat is None:
        good += 1
    elif pat.match(data):
        if data in seen:
            dup += 1
        else:
            seen.add(data)
            good += 1
with open(out, "w") as f:
    f.write("count=%d\ngood=%d\ndup=%d\n" % (count, good, dup))
EOF

cat >"$TMP/send.py" <<'EOF'
# send.py DST PORT N plain|inner: N datagrams "hello-nfq-nnnn", or each an
# IPv4/UDP packet 10.98.0.1:40000 -> DST:5003 carrying "inner-nnnn".
import socket, struct, sys, time
dst, port, n, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]

def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff

s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(n):
    if mode == "plain":
        p = b"hello-nfq-%04d" % i
    else:
        body = b"inner-%04d" % i
        udp = struct.pack("!HHHH", 40000, 5003, 8 + len(body), 0) + body
        hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i, 0, 64,
                          17, 0, socket.inet_aton("10.98.0.1"),
                          socket.inet_aton(dst))
        hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
        p = hdr + udp
    s.sendto(p, (dst, port))
    if i % 50 == 49:
        time.sleep(0.005)
EOF

# --- topology ----------------------------------------------------------

mac() { ip -n "$1" -o link show "$2" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p'; }

# link NS_A DEV_A ADDR_A NS_B DEV_B ADDR_B: veth pair with addresses and
# permanent neighbours (no ARP: no packet may wait for resolution).
link() {
	ip link add "$2" type veth peer name "$5"
	ip link set "$2" netns "$1"
	ip link set "$5" netns "$4"
	ip -n "$1" addr add "$3/24" dev "$2"
	ip -n "$4" addr add "$6/24" dev "$5"
	ip -n "$1" link set "$2" up
	ip -n "$4" link set "$5" up
	ip -n "$1" neigh replace "$6" lladdr "$(mac "$4" "$5")" dev "$2" nud permanent
	ip -n "$4" neigh replace "$3" lladdr "$(mac "$1" "$2")" dev "$5" nud permanent
}

tb_netns_add "$NS_S"
tb_netns_add "$NS_R"
link "$NS_S" nfqa$$ 10.98.0.1 "$NS_R" nfqb$$ 10.98.0.2

flush_rules() {
	R iptables -F
	R iptables -t mangle -F
	R iptables -t raw -F
}

# start_probe NAME BINARY ARGS...: runs the probe in rcv, waits until it
# is bound; its pid goes to PROBE_PID.  Returns non-zero if it exits.
start_probe() {
	local name=$1 bin=$2 i
	shift 2
	ip netns exec "$NS_R" "$bin" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	PROBE_PID=$!
	TB_PIDS+=("$PROBE_PID")
	for i in $(seq 100); do
		grep -q '^ready' "$TMP/$name.out" 2>/dev/null && return 0
		kill -0 "$PROBE_PID" 2>/dev/null || break
		sleep 0.05
	done
	kill -KILL "$PROBE_PID" 2>/dev/null || true
	wait "$PROBE_PID" 2>/dev/null || true
	return 1
}

# stop_probe: SIGTERM, wait; the counters are then in NAME.out.
stop_probe() {
	local rc=0
	kill -TERM "$PROBE_PID" 2>/dev/null || true
	wait "$PROBE_PID" || rc=$?
	return $rc
}

# start_recv NAME PORT IDLE MAXWAIT CHECK: receiver in rcv.
start_recv() {
	local i
	stop_recv
	rm -f "$TMP/$1.ready"
	ip netns exec "$NS_R" python3 "$TMP/recv.py" "$2" "$TMP/$1.ready" "$TMP/$1.cnt" "$3" "$4" "$5" &
	RECV_PID=$!
	TB_PIDS+=("$RECV_PID")
	for i in $(seq 100); do
		[ -e "$TMP/$1.ready" ] && return 0
		sleep 0.05
	done
	return 1
}

wait_recv() {
	wait "$RECV_PID" || true
	RECV_PID=
}

# A receiver left over by a test that gave up early.
stop_recv() {
	if [ -n "${RECV_PID:-}" ]; then
		kill -TERM "$RECV_PID" 2>/dev/null || true
		wait "$RECV_PID" 2>/dev/null || true
		RECV_PID=
	fi
}

blast() {
	S "$BLAST" "$@" >>"$TMP/blast.log"
}

queue_line() {
	R awk -v q="$Q" '$1 == q' /proc/net/netfilter/nfnetlink_queue
}

# --- tests -----------------------------------------------------------

# accept: 1000 packets pass; verdicts go out in batches; the kernel's
# queue line agrees with what nfq_kernel_stats() reads.
test_accept() {
	local tag=$1 bin=$2 line
	flush_rules
	R iptables -A INPUT -p udp --dport 5001 -j NFQUEUE --queue-num $Q
	start_recv acc 5001 1 8 any
	if ! start_probe "acc$tag" "$bin" --rcvbuf=4194304 $Q accept; then
		bad "$tag accept: probe did not start: $(cat "$TMP/acc$tag.err")"
		return
	fi
	blast --count=1000 --rate=50000 --burst=32 --size=200 10.98.0.2 5001
	wait_recv
	line=$(queue_line)
	if [ -z "$tag" ]; then
		# A second listener on the same queue must be refused.
		local rc=0
		R "$PROBE" $Q accept >/dev/null 2>"$TMP/busy.err" || rc=$?
		check_cmd "queue taken: second nfq_open fails with EBUSY (exit $rc)" \
			[ "$rc" = 3 ]
	fi
	stop_probe || true
	local o=$TMP/acc$tag.out
	check_cmd "$tag accept: 1000 delivered ($(get count "$TMP/acc.cnt"))" \
		num "$(get count "$TMP/acc.cnt")" -eq 1000
	check_cmd "$tag accept: probe received/accepted/verdicts 1000 ($(get received "$o")/$(get accepted "$o")/$(get verdicts "$o"))" \
		eval 'num "$(get received "$o")" -eq 1000 && num "$(get accepted "$o")" -eq 1000 && num "$(get verdicts "$o")" -eq 1000'
	check_cmd "$tag accept: batched, batches $(get batches "$o") < verdicts $(get verdicts "$o")" \
		num "$(get batches "$o")" -lt "$(get verdicts "$o")"
	check_cmd "$tag accept: no errors (recv $(get recv_errors "$o"), send $(get send_errors "$o"))" \
		eval 'num "$(get recv_errors "$o")" -eq 0 && num "$(get send_errors "$o")" -eq 0'
	# /proc line: queue portid total mode range qdrop udrop idseq 1
	check_cmd "$tag kstats: /proc line '$line' has id_sequence 1000, copy mode 2" \
		eval '[ "$(echo $line | cut -d" " -f8)" = 1000 ] && [ "$(echo $line | cut -d" " -f4)" = 2 ]'
	check_cmd "$tag kstats: nfq_kernel_stats read id_sequence $(get k_id_sequence "$o"), drops $(get kq_dropped "$o")/$(get k_user_dropped "$o")" \
		eval 'num "$(get k_id_sequence "$o")" -eq 1000 && num "$(get kq_dropped "$o")" -eq 0 && num "$(get k_user_dropped "$o")" -eq 0'
	check_cmd "$tag accept: queue unbound after close" [ -z "$(queue_line)" ]
}

test_drop() {
	flush_rules
	R iptables -A INPUT -p udp --dport 5001 -j NFQUEUE --queue-num $Q
	start_recv drop 5001 1 3 any
	start_probe drop "$PROBE" --rcvbuf=4194304 $Q drop || { bad "drop: probe did not start"; return; }
	blast --count=200 --rate=20000 --size=200 10.98.0.2 5001
	wait_recv
	stop_probe || true
	check_cmd "drop: nothing delivered ($(get count "$TMP/drop.cnt"))" \
		num "$(get count "$TMP/drop.cnt")" -eq 0
	check_cmd "drop: probe dropped 200 ($(get dropped "$TMP/drop.out"))" \
		num "$(get dropped "$TMP/drop.out")" -eq 200
}

test_truncated() {
	flush_rules
	R iptables -A INPUT -p udp --dport 5001 -j NFQUEUE --queue-num $Q
	start_recv trunc 5001 1 8 any
	start_probe trunc "$PROBE" --rcvbuf=4194304 --copy=64 $Q accept || { bad "truncated: probe did not start"; return; }
	blast --count=100 --rate=20000 --size=200 10.98.0.2 5001
	wait_recv
	stop_probe || true
	check_cmd "copy_range 64: 100 delivered whole ($(get count "$TMP/trunc.cnt")), truncated $(get truncated "$TMP/trunc.out")" \
		eval 'num "$(get count "$TMP/trunc.cnt")" -eq 100 && num "$(get truncated "$TMP/trunc.out")" -eq 100'
}

test_mangle() {
	local tag=$1 bin=$2
	flush_rules
	R iptables -A INPUT -p udp --dport 5001 -j NFQUEUE --queue-num $Q
	start_recv mang 5001 1 8 upper
	start_probe "mang$tag" "$bin" $Q mangle || { bad "$tag mangle: probe did not start"; return; }
	S python3 "$TMP/send.py" 10.98.0.2 5001 100 plain
	wait_recv
	stop_probe || true
	check_cmd "$tag mangle: 100 uppercased payloads delivered (count $(get count "$TMP/mang.cnt"), good $(get good "$TMP/mang.cnt"))" \
		eval 'num "$(get count "$TMP/mang.cnt")" -eq 100 && num "$(get good "$TMP/mang.cnt")" -eq 100'
	check_cmd "$tag mangle: probe mangled 100 ($(get mangled "$TMP/mang$tag.out"))" \
		num "$(get mangled "$TMP/mang$tag.out")" -eq 100
}

# decap: in raw PREROUTING, as the egress does, the packet is replaced
# by the (shorter) IPv4 packet it carries, which is then routed anew.
test_decap() {
	local tag=$1 bin=$2
	flush_rules
	R iptables -t raw -A PREROUTING -p udp --dport 5002 -j NFQUEUE --queue-num $Q
	start_recv decap 5003 1 8 inner
	start_probe "decap$tag" "$bin" $Q decap || { bad "$tag decap: probe did not start"; return; }
	S python3 "$TMP/send.py" 10.98.0.2 5002 100 inner
	wait_recv
	stop_probe || true
	check_cmd "$tag decap: 100 inner packets delivered (count $(get count "$TMP/decap.cnt"), good $(get good "$TMP/decap.cnt"))" \
		eval 'num "$(get count "$TMP/decap.cnt")" -eq 100 && num "$(get good "$TMP/decap.cnt")" -eq 100'
	check_cmd "$tag decap: probe decapped 100 ($(get decapped "$TMP/decap$tag.out"))" \
		num "$(get decapped "$TMP/decap$tag.out")" -eq 100
}

# mark: queued in mangle INPUT, counted by a filter INPUT rule that
# matches only the verdict's mark.
test_mark() {
	local n
	flush_rules
	R iptables -t mangle -A INPUT -p udp --dport 5001 -j NFQUEUE --queue-num $Q
	R iptables -A INPUT -p udp --dport 5001 -m mark --mark 0x2a
	start_recv mark 5001 1 8 any
	start_probe mark "$PROBE" --rcvbuf=4194304 --mark=0x2a $Q mark || { bad "mark: probe did not start"; return; }
	blast --count=300 --rate=20000 --size=200 10.98.0.2 5001
	wait_recv
	stop_probe || true
	n=$(R iptables -nvxL INPUT | awk '/mark match 0x2a/ {print $1}')
	check_cmd "mark: 300 delivered ($(get count "$TMP/mark.cnt"))" \
		num "$(get count "$TMP/mark.cnt")" -eq 300
	check_cmd "mark: -m mark 0x2a rule counted 300 ($n)" num "$n" -eq 300
}

# hold: verdicts wait 20 ms and leave in batches (one per 1 ms tick).
test_hold() {
	local tag=$1 bin=$2 o
	flush_rules
	R iptables -A INPUT -p udp --dport 5001 -j NFQUEUE --queue-num $Q
	start_recv hold 5001 1 8 any
	start_probe "hold$tag" "$bin" --rcvbuf=4194304 --hold-ms=20 $Q hold || { bad "$tag hold: probe did not start"; return; }
	blast --count=1000 --rate=20000 --size=200 10.98.0.2 5001
	wait_recv
	stop_probe || true
	o=$TMP/hold$tag.out
	check_cmd "$tag hold: 1000 delivered ($(get count "$TMP/hold.cnt"))" \
		num "$(get count "$TMP/hold.cnt")" -eq 1000
	check_cmd "$tag hold: held up to $(get held_max "$o") at once, verdicts $(get verdicts "$o") in $(get batches "$o") batches (>= 4 per batch)" \
		eval 'num "$(get verdicts "$o")" -eq 1000 && num "$(( $(get batches "$o") * 4 ))" -le 1000 && num "$(get held_max "$o")" -ge 100'
}

# maxlen 8 with the listener stopped: with fail-open the overflow passes
# unqueued; without, it is dropped and counted by the kernel.
test_maxlen() {
	local fo=$1 name o
	name=maxlen${fo:+fo}
	flush_rules
	R iptables -A INPUT -p udp --dport 5001 -j NFQUEUE --queue-num $Q
	start_recv "$name" 5001 1.5 8 any
	start_probe "$name" "$PROBE" $fo --maxlen=8 $Q accept || { bad "$name: probe did not start"; return; }
	kill -STOP "$PROBE_PID"
	blast --count=100 --rate=10000 --size=200 10.98.0.2 5001
	sleep 0.2
	kill -CONT "$PROBE_PID"
	wait_recv
	stop_probe || true
	o=$TMP/$name.out
	if [ -n "$fo" ]; then
		check_cmd "maxlen 8 fail-open: all 100 delivered ($(get count "$TMP/$name.cnt")), 8 through the queue ($(get received "$o")), kernel dropped $(get kq_dropped "$o")" \
			eval 'num "$(get count "$TMP/$name.cnt")" -eq 100 && num "$(get received "$o")" -eq 8 && num "$(get kq_dropped "$o")" -eq 0'
	else
		check_cmd "maxlen 8: 8 delivered ($(get count "$TMP/$name.cnt")), kernel dropped 92 ($(get kq_dropped "$o"))" \
			eval 'num "$(get count "$TMP/$name.cnt")" -eq 8 && num "$(get received "$o")" -eq 8 && num "$(get kq_dropped "$o")" -eq 92'
	fi
}

test_bypass() {
	flush_rules
	R iptables -A INPUT -p udp --dport 5001 -j NFQUEUE --queue-num $Q --queue-bypass
	start_recv byp 5001 1 8 any
	blast --count=100 --rate=20000 --size=200 10.98.0.2 5001
	wait_recv
	check_cmd "no listener, --queue-bypass: 100 pass ($(get count "$TMP/byp.cnt"))" \
		num "$(get count "$TMP/byp.cnt")" -eq 100
}

test_killed() {
	local before
	flush_rules
	R iptables -A INPUT -p udp --dport 5001 -j NFQUEUE --queue-num $Q
	start_recv kill 5001 2 10 any
	start_probe kill "$PROBE" $Q accept || { bad "killed: probe did not start"; return; }
	blast --count=50 --rate=20000 --size=200 10.98.0.2 5001
	sleep 0.3
	kill -KILL "$PROBE_PID"
	wait "$PROBE_PID" 2>/dev/null || true
	before=$(R iptables -nvxL INPUT | awk '/NFQUEUE/ {print $1}')
	check_cmd "SIGKILL: queue unbound by the kernel" [ -z "$(queue_line)" ]
	blast --count=100 --rate=20000 --size=200 10.98.0.2 5001
	wait_recv
	check_cmd "SIGKILL, no bypass: 50 before, none after (delivered $(get count "$TMP/kill.cnt"), queued rule saw $before then $(R iptables -nvxL INPUT | awk '/NFQUEUE/ {print $1}'))" \
		eval 'num "$(get count "$TMP/kill.cnt")" -eq 50 && num "$(R iptables -nvxL INPUT | awk "/NFQUEUE/ {print \$1}")" -eq 150'
}

asan_tests() {
	local asan=$TMP/nfq-probe-asan
	if ! ${CC:-cc} -std=gnu11 -O1 -g -fsanitize=address,undefined \
		-fno-omit-frame-pointer -fno-sanitize-recover=all \
		-Wall -Wextra -Werror -I"$SRC" "$SRC/common/nfqueue.c" \
		"$SRC/tests/tools/nfq-probe.c" $(pkg-config --cflags --libs libmnl) \
		-o "$asan" 2>"$TMP/asan-build.err"; then
		bad "asan: build failed: $(head -5 "$TMP/asan-build.err")"
		return
	fi
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=66
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	test_accept asan "$asan"
	test_mangle asan "$asan"
	test_decap asan "$asan"
	test_hold asan "$asan"
	local f
	for f in "$TMP"/accasan.err "$TMP"/mangasan.err "$TMP"/decapasan.err "$TMP"/holdasan.err; do
		check_cmd "asan: no sanitizer report in $(basename "$f")" \
			eval '! grep -qE "Sanitizer|runtime error" "$f"'
	done
	unset ASAN_OPTIONS UBSAN_OPTIONS
}

# --- benchmark -----------------------------------------------------------

bench() {
	local mode=$1 rate line sent got loss best=0 i
	local rates="50000 100000 125000 150000 160000 170000 180000 190000 200000 225000 250000 0"
	BR() { ip netns exec "$NS_BR" "$@"; }
	BR iptables -F FORWARD
	if [ "$mode" = nfq ]; then
		BR iptables -A FORWARD -p udp --dport 9000 -j NFQUEUE --queue-num 1
		ip netns exec "$NS_BR" $PIN_PROBE "$PROBE" --maxlen=16384 --rcvbuf=16777216 1 accept \
			>"$TMP/bench.out" 2>&1 &
		PROBE_PID=$!
		TB_PIDS+=("$PROBE_PID")
		for i in $(seq 100); do
			grep -q '^ready' "$TMP/bench.out" && break
			sleep 0.05
		done
	fi
	printf '%-8s %9s %9s %9s %8s\n' "$mode" target sent_pps recv_pps loss%
	for rate in $rates; do
		ip netns exec "$NS_BC" iptables -Z INPUT
		line=$(ip netns exec "$NS_BS" $PIN_SEND "$BLAST" --rate=$rate --seconds=3 \
			--size=1400 --burst=32 10.97.2.1 9000 | tr '\n' ' ')
		sleep 0.3
		sent=$(echo "$line" | sed -n 's/.*sent=\([0-9]*\).*/\1/p')
		got=$(ip netns exec "$NS_BC" iptables -nvxL INPUT | awk '/dpt:9000/ {print $1}')
		loss=$(awk -v s="$sent" -v g="$got" 'BEGIN { printf "%.3f", s ? (s - g) * 100 / s : 100 }')
		printf '%-8s %9s %9d %9d %8s\n' "" "${rate/#0/max}" "$((sent / 3))" "$((got / 3))" "$loss"
		if awk -v l="$loss" 'BEGIN { exit !(l < 0.1) }' && [ $((got / 3)) -gt $best ]; then
			best=$((got / 3))
		fi
	done
	echo "bench $mode: best received rate under 0.1% loss: $best pps of 1400-byte UDP"
	if [ "$mode" = nfq ]; then
		kill -TERM "$PROBE_PID"
		wait "$PROBE_PID" || true
		echo "bench nfq probe: verdicts $(get verdicts "$TMP/bench.out") in $(get batches "$TMP/bench.out") batches, kernel queue drops $(get kq_dropped "$TMP/bench.out"), socket drops $(get k_user_dropped "$TMP/bench.out")"
	fi
}

# NFQ_BENCH_PIN=1: sender on CPU 0, probe on CPU 1 (less scheduler noise
# on a shared machine; the kernel's softirq work follows them).
run_bench() {
	PIN_SEND=
	PIN_PROBE=
	if [ "${NFQ_BENCH_PIN:-0}" = 1 ] && [ "$(nproc)" -ge 2 ]; then
		PIN_SEND="taskset -c 0"
		PIN_PROBE="taskset -c 1"
	fi
	tb_netns_add "$NS_BS"
	tb_netns_add "$NS_BR"
	tb_netns_add "$NS_BC"
	link "$NS_BS" nfqc$$ 10.97.1.1 "$NS_BR" nfqd$$ 10.97.1.2
	link "$NS_BR" nfqe$$ 10.97.2.2 "$NS_BC" nfqf$$ 10.97.2.1
	ip -n "$NS_BS" route add default via 10.97.1.2
	ip -n "$NS_BC" route add default via 10.97.2.2
	ip netns exec "$NS_BR" sysctl -qw net.ipv4.ip_forward=1
	ip netns exec "$NS_BC" iptables -A INPUT -p udp --dport 9000 -j DROP
	bench plain
	bench nfq
}

if [ $BENCH = 1 ]; then
	run_bench
	exit 0
fi
test_accept "" "$PROBE"
test_drop
test_truncated
test_mangle "" "$PROBE"
test_decap "" "$PROBE"
test_mark
test_hold "" "$PROBE"
test_maxlen ""
test_maxlen --fail-open
test_bypass
test_killed
if [ $ASAN = 1 ]; then
	asan_tests
fi

tb_done
