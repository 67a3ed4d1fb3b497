#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The daemons under the constraints of systemd/l3bondd.service, as far as a
# machine without systemd as PID 1 can impose them, on the testbed of
# lib.sh:
#
#            LAN                 access links                  LAN
#   cli ---------- cpe ===dsl=== [dsl] ===dsl=== conc ---------- srv
#   10.0.1.2     l3bondd ===lte=== [lte] ===lte=== l3bondd      10.0.2.2
#                                   NAT
#
# Each l3bondd runs through a wrapper that does what the unit asks:
#   User=/Group=          a system user made for the test (useradd
#                         --system), removed at the end;
#   capabilities          setpriv: CAP_NET_ADMIN and CAP_NET_RAW ambient,
#                         inheritable and bounding, nothing else;
#   NoNewPrivileges=      setpriv --no-new-privs;
#   ProtectSystem=strict  a mount namespace where every mount is read-only
#                         but /proc, /sys, /dev and the test's directory
#                         (which plays /run/l3bond: status, control socket);
#   ProtectHome=          /home, /root, /run/user: empty, mode 000;
#   PrivateDevices=       /dev holds null, zero, full, random, urandom;
#   config permissions    the files 0640 root:GROUP (the tmpfiles.d entry);
#   Type=notify           $NOTIFY_SOCKET: a path for the cpe, an abstract
#                         name (@...) for the concentrator, each read by a
#                         python3 listener.
# Checks: the sandbox is what it claims (read-only, capabilities, no new
# privileges); READY=1 after start, with the rules installed; both paths
# up, a 24 Mbit/s UDP flow down (dsl 16, lte 15 Mbit/s) delivered over
# both paths; the control
# socket 0660 with the configured group; SIGHUP: RELOADING=1 (with
# MONOTONIC_USEC) then READY=1, the new k applied; a refused reload also
# ends in READY=1; SIGTERM: STOPPING=1, exit 0, no rule or chain, no queue
# bound, rp_filter back.
# The seccomp settings (SystemCallFilter=@system-service ~@resources,
# RestrictAddressFamilies=, MemoryDenyWriteExecute=, RestrictRealtime=,
# LockPersonality=) cannot be imposed without systemd: a second short run
# under strace (start, ping, SIGHUP, SIGTERM) records every system call
# and socket family of l3bondd and its iptables children, and each must
# be one the unit allows (skipped without strace or systemd-analyze).
#
# usage: test_units.sh [BUILD_DIR]
# Exit 0 if all checks pass, 1 if any fails, 77 (skip) when not root or
# a tool is missing.
set -Eeuo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
real=${L3BONDD:-$build/gateway/l3bondd}
export L3B_TOOLS_DIR=${L3B_TOOLS_DIR:-$build/tests/tools}
export TB_PREFIX=${TB_PREFIX:-l3bu-$$-}

# shellcheck source=lib.sh
source "$here/lib.sh"
tb_require ip tc iptables iptables-restore awk setpriv unshare useradd \
	userdel python3 mount
tb_require_bin "$real"
real=$(cd "$(dirname "$real")" && pwd)/$(basename "$real")

user=l3bu$$
made_user=

# shellcheck disable=SC2317 # run by the EXIT trap
units_cleanup() {
	local rc=$?
	tb_teardown || rc=$?
	if [ -n "$made_user" ]; then
		userdel "$user" 2>/dev/null || true
		if getent group "$user" >/dev/null; then
			groupdel "$user" 2>/dev/null || true
		fi
	fi
	exit "$rc"
}

tb_init
trap 'units_cleanup' EXIT

useradd --system --user-group --no-create-home --home-dir / \
	--shell /usr/sbin/nologin "$user"
made_user=1
grp=$user
# TB_DIR plays /run/l3bond (RuntimeDirectory=, owned by the user) for the
# status files and control sockets, and /etc/l3bond for the configs: the
# status files too, not the tmpfs of lib.sh (TB_RUN_DIR), which the
# sandbox's user can neither see nor write
chgrp "$grp" "$TB_DIR"
chmod 0770 "$TB_DIR"
if [ "$TB_RUN_DIR" != "$TB_DIR" ]; then
	rmdir "$TB_RUN_DIR"
	TB_RUN_DIR=$TB_DIR
fi

# ---- the wrapper: l3bondd as the unit runs it ----------------------------------

wrap=$TB_DIR/l3bondd-unit
cat >"$wrap" <<EOF
#!/usr/bin/env bash
# $real as systemd/l3bondd.service runs it (see test_units.sh).
# L3B_UNIT_PROBE: run that shell command in the sandbox instead;
# L3B_UNIT_STRACE: run the daemon under strace -f, output to that file.
set -Eeuo pipefail
if [ "\${L3B_UNIT_NS:-}" != 1 ]; then
	L3B_UNIT_NS=1 exec unshare --mount --propagation private -- "\$0" "\$@"
fi
unset L3B_UNIT_NS
rw=$TB_DIR
# rw: a mount of its own, which stays writable (RuntimeDirectory=)
mount --bind "\$rw" "\$rw"
# PrivateDevices=: a /dev of its own, made in rw
dev=\$(mktemp -d "\$rw/dev.XXXXXX")
chmod 0755 "\$dev"
for n in null zero full random urandom; do
	touch "\$dev/\$n"
	mount --bind "/dev/\$n" "\$dev/\$n"
done
# ProtectSystem=strict: the rest read-only but /proc /sys /dev
awk '{ print \$5, \$9 }' /proc/self/mountinfo | sort -u |
while read -r mp fstype; do
	case \$mp in
	/proc | /proc/* | /sys | /sys/* | /dev | /dev/* | "\$rw" | "\$rw"/*) continue ;;
	/mnt/sandboxing | /mnt/sandboxing/*) continue ;; # not ours to touch
	esac
	[ "\$fstype" = nsfs ] && continue
	mount -o remount,bind,ro "\$mp"
done
mount --rbind "\$dev" /dev
# ProtectHome=yes
for d in /home /root /run/user; do
	if [ -d "\$d" ]; then
		mount -t tmpfs -o ro,mode=000 tmpfs "\$d"
	fi
done
caps=(--reuid $user --regid $grp --init-groups
	--inh-caps -all,+net_admin,+net_raw
	--ambient-caps +net_admin,+net_raw
	--bounding-set -all,+net_admin,+net_raw --no-new-privs)
if [ -n "\${L3B_UNIT_PROBE:-}" ]; then
	exec setpriv "\${caps[@]}" -- bash -c "\$L3B_UNIT_PROBE"
fi
if [ -n "\${L3B_UNIT_STRACE:-}" ]; then
	out=\$L3B_UNIT_STRACE
	unset L3B_UNIT_STRACE
	# LeakSanitizer cannot run under ptrace (sanitizer builds)
	export ASAN_OPTIONS=\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}detect_leaks=0
	# -D: the tracer is a grandchild, the daemon keeps this PID (signals)
	exec setpriv "\${caps[@]}" -- strace -D -f -qq -o "\$out" "$real" "\$@"
fi
exec setpriv "\${caps[@]}" -- "$real" "\$@"
EOF
chmod 0755 "$wrap"
L3BONDD=$wrap

# ---- configurations, notification listeners ------------------------------------

write_confs 0.5 "control_group = \"$grp\";"
for box in cpe conc; do
	chgrp "$grp" "$TB_DIR/$box.conf"
	chmod 0640 "$TB_DIR/$box.conf"
done

# notify_listen BOX ADDR: the notification socket ADDR, read in BOX; each
# datagram one line of $TB_DIR/BOX.notify ("|" for its newlines).
notify_listen() {
	local box=$1 addr=$2 i
	rm -f "$TB_DIR/$box.notify"
	tb_bg "$box" "$TB_DIR/$box.notify.log" python3 -c '
import os, socket, sys, time
addr, out = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
if addr.startswith("@"):
    s.bind("\0" + addr[1:])
else:
    s.bind(addr)
    os.chmod(addr, 0o777)  # as systemd'"'"'s: any service may send
f = open(out + ".tmp", "w")
os.rename(out + ".tmp", out)
s.settimeout(1)
end = time.monotonic() + 900  # bounded: the test takes minutes
while time.monotonic() < end:
    try:
        m = s.recv(4096)
    except socket.timeout:
        continue
    f.write(m.decode(errors="replace").replace("\n", "|") + "\n")
    f.flush()
' "$addr" "$TB_DIR/$box.notify"
	for ((i = 0; i < 100; i++)); do
		[ -e "$TB_DIR/$box.notify" ] && return 0
		sleep 0.05
	done
	tb_log "notify listener of $box did not start"
	cat "$TB_DIR/$box.notify.log" >&2
	return 1
}

# wait_notify BOX N TEXT: until line N of BOX's notifications contains TEXT
wait_notify() {
	local box=$1 n=$2 text=$3 i
	for ((i = 0; i < 100; i++)); do
		if sed -n "${n}p" "$TB_DIR/$box.notify" | grep -qF -- "$text"; then
			return 0
		fi
		sleep 0.1
	done
	return 1
}

nlines() {
	wc -l <"$TB_DIR/$1.notify"
}

# Lines slower than the paper's (DSL 64, LTE 60 Mbit/s): the flow that
# needs both paths costs the shared machine less.
tb_setup dsl_rate=16 lte_rate=15
ok "testbed up (dsl 16, lte 15 Mbit/s)"

# ---- 0. the sandbox is what it claims -------------------------------------------

probe=$(L3B_UNIT_PROBE='
	id -un; id -gn
	sed -n "s/^\(CapEff\|CapBnd\|CapAmb\|NoNewPrivs\):[[:space:]]*/\1=/p" /proc/self/status
	touch /etc/l3b-unit-probe 2>&1 | grep -c "Read-only" || true
	touch /var/tmp/l3b-unit-probe 2>&1 | grep -c "Read-only" || true
	touch '"$TB_DIR"'/probe && echo rw-ok
	echo x >/dev/null && echo devnull-ok
	ls /root >/dev/null 2>&1 || echo root-hidden
	ls /dev | tr "\n" " "; echo
	echo 1 > /proc/sys/net/ipv4/conf/lo/rp_filter && echo sysctl-ok
	echo 0 > /proc/sys/net/ipv4/conf/lo/rp_filter
' tb_exec cpe "$wrap" 2>&1 || true)
while IFS= read -r line; do
	echo "  sandbox: $line"
done <<<"$probe"
check "sandbox: test user, CAP_NET_ADMIN+CAP_NET_RAW only (effective, bounding, ambient), no new privileges" \
	'u == 2 && eff == 1 && bnd == 1 && amb == 1 && nnp == 1' \
	"u=$(echo "$probe" | grep -cx "$user" || true)" \
	"eff=$(echo "$probe" | cnt 'CapEff=0000000000003000')" \
	"bnd=$(echo "$probe" | cnt 'CapBnd=0000000000003000')" \
	"amb=$(echo "$probe" | cnt 'CapAmb=0000000000003000')" \
	"nnp=$(echo "$probe" | cnt 'NoNewPrivs=1')"
check "sandbox: /etc and /var read-only, the runtime directory writable, /root hidden, a minimal /dev, /proc/sys writable" \
	'ro == 2 && rw == 1 && home == 1 && dev == 1 && null == 1 && sysctl == 1' \
	"ro=$(echo "$probe" | grep -cx 1 || true)" \
	"rw=$(echo "$probe" | cnt rw-ok)" "home=$(echo "$probe" | cnt root-hidden)" \
	"dev=$(echo "$probe" | cnt 'full null random urandom zero')" \
	"null=$(echo "$probe" | cnt devnull-ok)" \
	"sysctl=$(echo "$probe" | cnt sysctl-ok)"
rm -f "$TB_DIR/probe"

# ---- 1. start under the unit's constraints, READY=1 -------------------------------

notify_listen cpe "$TB_DIR/cpe.notify.sock"
notify_listen conc "@${TB_PREFIX}conc-notify"

tb_exec cpe sysctl -qw net.ipv4.conf.all.rp_filter=1 \
	net.ipv4.conf.lte.rp_filter=1 >/dev/null
export NOTIFY_SOCKET="@${TB_PREFIX}conc-notify"
daemon_start conc
export NOTIFY_SOCKET="$TB_DIR/cpe.notify.sock"
daemon_start cpe
unset NOTIFY_SOCKET
for box in cpe conc; do
	if wait_notify "$box" 1 READY=1; then
		check "$box: READY=1 first, with the rules installed" \
			'first == 1 && rules >= 3' \
			"first=$(sed -n 1p "$TB_DIR/$box.notify" | cnt READY=1)" \
			"rules=$(tb_exec "$box" iptables-save | cnt L3B_)"
	else
		bad "$box: no READY=1 ($(cat "$TB_DIR/$box.notify")): $(tail -n 5 "$TB_DIR/$box.log")"
	fi
done
check "the daemons run as the test user" 'c == 1 && k == 1' \
	"c=$(ps -o user= -p "${DPID[cpe]}" | cnt "$user")" \
	"k=$(ps -o user= -p "${DPID[conc]}" | cnt "$user")"
if wait_up cpe && wait_up conc; then
	ok "both paths up on each"
else
	bad "paths not up: $(tail -n 5 "$TB_DIR/cpe.log") $(tail -n 5 "$TB_DIR/conc.log")"
fi
check "cpe rp_filter loosened (all, lte) by the unprivileged daemon" \
	'a == 2 && l == 2' \
	"a=$(tb_exec cpe sysctl -n net.ipv4.conf.all.rp_filter)" \
	"l=$(tb_exec cpe sysctl -n net.ipv4.conf.lte.rp_filter)"

sock=$(ctl_socket cpe)
check "control socket: 0660, owner the daemon's user, group control_group" \
	'm == 1' "m=$(stat -c '%a %U %G' "$sock" 2>&1 | cnt "660 $user $grp")"

# ---- 2. a bonded flow ------------------------------------------------------------------

refresh cpe
d0=$(path_rx dsl)
l0=$(path_rx lte)
UDP_DURATION=5 udp srv cli "$TB_CLI_IP" d24 --rate 24 --size 1400
refresh cpe
d1=$(path_rx dsl)
l1=$(path_rx lte)
f=$TB_DIR/d24.rx.json
echo "  24 Mbit/s down: dsl $((d1 - d0)) B, lte $((l1 - l0)) B; $(cat "$f")"
# dsl alone could carry 10 MB in 5 s; lte must carry at least 2
check "24 Mbit/s down: both paths carried it" \
	'dsl > 5000000 && lte > 2000000' "dsl=$((d1 - d0))" "lte=$((l1 - l0))"
rate_check "24 Mbit/s down: delivered, loss < 2 %" \
	'expected > 0 && loss < 2 && corrupted == 0' \
	"expected=$(jget "$f" expected)" "loss=$(jget "$f" loss_pct)" \
	"corrupted=$(jget "$f" corrupted)"

# ---- 3. reload ------------------------------------------------------------------------

for box in cpe conc; do
	n=$(nlines "$box")
	sed -i 's/^\(\s*\)k = 0.5;/\1k = 0.7;/' "$TB_DIR/$box.conf"
	kill -HUP "${DPID[$box]}"
	if wait_notify "$box" $((n + 2)) READY=1; then
		check "$box: SIGHUP: RELOADING=1 with MONOTONIC_USEC, then READY=1" \
			'r == 1 && m == 1' \
			"r=$(sed -n "$((n + 1))p" "$TB_DIR/$box.notify" | cnt RELOADING=1)" \
			"m=$(sed -n "$((n + 1))p" "$TB_DIR/$box.notify" | grep -cE 'MONOTONIC_USEC=[0-9]+' || true)"
	else
		bad "$box: SIGHUP: notifications $(tail -n 2 "$TB_DIR/$box.notify" | tr '\n' ' ')"
	fi
	refresh "$box"
	check "$box: reloaded k applied" 'k == 0.7' "k=$(st "$box" k)"
done
# a refused reload (a structural change) still ends the reload
n=$(nlines cpe)
sed -i 's/^\(\s*\)port = 7040;/\1port = 7041;/' "$TB_DIR/cpe.conf"
kill -HUP "${DPID[cpe]}"
if wait_notify cpe $((n + 2)) READY=1; then
	ok "cpe: refused reload: RELOADING=1, then READY=1"
else
	bad "cpe: refused reload: notifications $(tail -n 2 "$TB_DIR/cpe.notify" | tr '\n' ' ')"
fi
check "cpe: refused reload logged, old port kept" 'r >= 1 && k == 0.7' \
	"r=$(cnt 'reload refused' <"$TB_DIR/cpe.log")" "k=$(refresh cpe && st cpe k)"
sed -i 's/^\(\s*\)port = 7041;/\1port = 7040;/' "$TB_DIR/cpe.conf"

# ---- 4. stop ----------------------------------------------------------------------------

for box in cpe conc; do
	n=$(nlines "$box")
	kill -TERM "${DPID[$box]}"
	rc=0
	tb_wait "${DPID[$box]}" 15 || rc=$?
	check "$box: SIGTERM: STOPPING=1, exit 0, no rule or chain, no queue bound" \
		'stop == 1 && rc == 0 && rules == 0 && queues == 0' \
		"stop=$(sed -n "$((n + 1))p" "$TB_DIR/$box.notify" | cnt STOPPING=1)" \
		"rc=$rc" "rules=$(tb_exec "$box" iptables-save | cnt L3B)" \
		"queues=$(tb_exec "$box" cat /proc/net/netfilter/nfnetlink_queue 2>/dev/null | wc -l)"
done
check "cpe: rp_filter restored by the unprivileged daemon" 'a == 1 && l == 1' \
	"a=$(tb_exec cpe sysctl -n net.ipv4.conf.all.rp_filter)" \
	"l=$(tb_exec cpe sysctl -n net.ipv4.conf.lte.rp_filter)"
# (but the reload refused on purpose above)
if grep -hiE 'error|denied|not permitted|fatal' "$TB_DIR/cpe.log" "$TB_DIR/conc.log" |
	grep -v 'reload refused' >"$TB_DIR/errors.txt"; then
	bad "errors in the daemons' logs: $(cat "$TB_DIR/errors.txt")"
else
	ok "no error, permission or EPERM message in the daemons' logs"
fi

# ---- 5. system calls and socket families against the unit's filters ------------------

if ! command -v strace >/dev/null; then
	echo "SKIP: strace not installed: system call filter not checked"
	skipped_seccomp=1
elif ! command -v systemd-analyze >/dev/null; then
	echo "SKIP: systemd-analyze not installed: system call filter not checked"
	skipped_seccomp=1
else
	skipped_seccomp=0
	systemd-analyze syscall-filter >"$TB_DIR/filters.txt" 2>/dev/null
	for box in conc cpe; do
		export L3B_UNIT_STRACE="$TB_DIR/$box.strace"
		daemon_start "$box"
		unset L3B_UNIT_STRACE
	done
	if wait_up cpe && wait_up conc; then
		n=$(ping_count cli "$TB_SRV_IP" 3)
		echo "  under strace: $n/3 pings through the bond"
	else
		bad "under strace: paths not up"
	fi
	kill -HUP "${DPID[cpe]}" "${DPID[conc]}"
	sleep 1
	for box in cpe conc; do
		kill -TERM "${DPID[$box]}"
		rc=0
		tb_wait "${DPID[$box]}" 30 || rc=$?
		check "$box: under strace: exit 0" 'rc == 0' "rc=$rc"
	done
	# L3B_UNIT_FILE: another unit to hold the trace against (to see this fail)
	unit=${L3B_UNIT_FILE:-$here/../../systemd/l3bondd.service}
	if out=$(python3 - "$TB_DIR/filters.txt" "$unit" \
		"$TB_DIR/cpe.strace" "$TB_DIR/conc.strace" <<-'EOF'
		import re, sys
		filters, unit, traces = sys.argv[1], sys.argv[2], sys.argv[3:]
		# the groups of this systemd: "@name" then indented members
		groups, cur = {}, None
		for line in open(filters):
		    s = line.strip()
		    if not s or s.startswith("#"):
		        continue
		    if not line[0].isspace() and s.startswith("@"):
		        cur = groups.setdefault(s, [])
		    elif cur is not None:
		        cur.append(s)
		def expand(name, seen=()):
		    if not name.startswith("@"):
		        return {name}
		    out = set()
		    for m in groups.get(name, []):
		        if m not in seen:
		            out |= expand(m, seen + (name,))
		    return out
		# the unit's filter, in order: allow lists add, ~ lists remove
		allowed, families = set(), set()
		for line in open(unit):
		    m = re.match(r"SystemCallFilter=(~?)(.*)", line.strip())
		    if m:
		        names = set()
		        for n in m.group(2).split():
		            names |= expand(n)
		        if m.group(1):
		            allowed -= names
		        else:
		            allowed |= names
		    m = re.match(r"RestrictAddressFamilies=(.*)", line.strip())
		    if m:
		        families |= set(m.group(1).split())
		used, fams, wx, rt, pers = set(), set(), [], [], []
		for t in traces:
		    for line in open(t):
		        m = re.match(r"\d+\s+([a-z0-9_]+)\((.*)", line)
		        if not m:
		            continue
		        name, args = m.groups()
		        used.add(name)
		        if name in ("socket", "socketpair"):
		            fams.add(args.split(",")[0])
		        if name in ("mmap", "mprotect", "pkey_mprotect") and \
		           "PROT_WRITE" in args and "PROT_EXEC" in args:
		            wx.append(line.strip())
		        if name in ("sched_setscheduler", "sched_setattr") and \
		           ("SCHED_FIFO" in args or "SCHED_RR" in args):
		            rt.append(line.strip())
		        if name == "personality" and "0xffffffff" not in args:
		            pers.append(line.strip())
		bad = sorted(used - allowed)
		badf = sorted(fams - families)
		print("syscalls used: %d, families: %s" % (len(used), " ".join(sorted(fams))))
		ok = True
		if not allowed:
		    print("no SystemCallFilter in the unit"); ok = False
		if bad:
		    print("not allowed by SystemCallFilter: " + " ".join(bad)); ok = False
		if badf:
		    print("not allowed by RestrictAddressFamilies: " + " ".join(badf)); ok = False
		if wx:
		    print("MemoryDenyWriteExecute would refuse: " + wx[0]); ok = False
		if rt:
		    print("RestrictRealtime would refuse: " + rt[0]); ok = False
		if pers:
		    print("LockPersonality would refuse: " + pers[0]); ok = False
		sys.exit(0 if ok else 1)
	EOF
	); then
		echo "  $out"
		ok "every system call and socket family of l3bondd and iptables is one the unit allows"
	else
		bad "the unit's seccomp settings would refuse: $out"
	fi
fi

tb_done || exit 1
if [ "$skipped_seccomp" = 1 ]; then
	exit 77
fi
exit 0
