#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Path failover of l3bondd, measured: a link cut (both directions) in the
# middle of a downstream UDP flow srv -> cli, on the testbed of lib.sh:
#
#            LAN                 access links                  LAN
#   cli ---------- cpe ===dsl=== [dsl] ===dsl=== conc ---------- srv
#   10.0.1.2     l3bondd ===lte=== [lte] ===lte=== l3bondd      10.0.2.2
#   dsl 64 Mbit/s 13 ms, lte 60 Mbit/s 25-45 ms (carrier NAT)
#
# probe_interval_ms = 200, dead_after_ms = 1000 on both daemons.  Phases:
#   - lte cut during 90 Mbit/s (more than DSL alone: LTE carries ~30 %);
#   - dsl cut during 40 Mbit/s (what LTE alone can carry).
# Each: cut after 4 s, healed 5 s later, flow 14 s.  Measured:
#   - detection: from the cut to the first status poll (l3bondctl status
#     --json of both daemons, every ~50 ms) that shows the path down on
#     the concentrator (whose scheduler feeds the flow) and on the CPE
#     (whose resequencer gives the path's holes up);
#   - last use: the last poll in which the concentrator still sent DATA
#     on the cut path; after the detection it sends none until the heal;
#   - stall: the longest run of 100 ms intervals in which the receiver
#     (l3b-traffic recv --csv, 100 ms rows) got no packet, from the cut to
#     2 s after the heal;
#   - recovery: from the heal to both ends showing the path up, and to
#     the concentrator sending DATA on it again.
# The daemon's failure detector finds the cut path suspect from the
# acknowledgements in the peer's REPORTs (or its unanswered PROBEs) and
# stops using it then; down follows dead_after_ms after its last answer.
# Asserted: detection on both ends and last use within dead_after_ms +
# 300 ms, the path unused from then to the heal, no stall longer than
# that, the path up again within 3 s of the heal and carrying DATA within
# 5 s, the reorder timeout in use (t_lto_eff_us) within its bounds.  The
# figures are printed (the closing note quotes them).
#
# usage: test_failover.sh [BUILD_DIR]   (l3bondd, l3bondctl in
# BUILD_DIR/gateway, the tools in BUILD_DIR/tests/tools unless
# L3B_TOOLS_DIR says otherwise)
# Exit 0 if all checks pass, 1 if any fails, 77 (skip) when not root.
set -Eeuo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
L3BONDD=${L3BONDD:-$build/gateway/l3bondd}
L3BONDCTL=${L3BONDCTL:-$build/gateway/l3bondctl}
export L3B_TOOLS_DIR=${L3B_TOOLS_DIR:-$build/tests/tools}

# shellcheck source=lib.sh
source "$here/lib.sh"
tb_require ip tc iptables awk python3
tb_require_bin "$L3BONDD" "$L3BONDCTL"

PROBE_MS=200
DEAD_MS=1000
BOUND_MS=$((DEAD_MS + 300))
FLOW_S=14
CUT_AT_S=4
HEAL_AFTER_S=5

tb_init
tb_setup seed=1
write_confs 0.5 "probe_interval_ms = $PROBE_MS; dead_after_ms = $DEAD_MS;"
daemons_up
check "the liveness settings in force on both ends" \
	'cp == p && cd == d && np == p && nd == d' "p=$PROBE_MS" "d=$DEAD_MS" \
	"cp=$(st cpe probe_interval_ms)" "cd=$(st cpe dead_after_ms)" \
	"np=$(st conc probe_interval_ms)" "nd=$(st conc dead_after_ms)"

# The poller: one line per round, "wall_time box dsl_up lte_up dsl_tx
# lte_tx t_lto_eff_us t_lto_ms" for each daemon, until STOP exists.
cat >"$TB_DIR/poll.py" <<'EOF'
import json, os, subprocess, sys, time
ctl, out, stop = sys.argv[1], sys.argv[2], sys.argv[3]
socks = dict(a.split("=", 1) for a in sys.argv[4:])
with open(out, "w") as f:
    while not os.path.exists(stop):
        for box, sock in socks.items():
            r = subprocess.run([ctl, "-s", sock, "status", "--json"],
                               capture_output=True, text=True)
            t = time.time()
            try:
                s = json.loads(r.stdout)["sessions"][0]
                p = {x["name"]: x for x in s["paths"]}
                f.write("%.4f %s %d %d %d %d %d %d\n" % (
                    t, box, p["dsl"]["up"], p["lte"]["up"],
                    p["dsl"]["tx_pkts"], p["lte"]["tx_pkts"],
                    s["t_lto_eff_us"], s["t_lto_ms"]))
            except (ValueError, KeyError, IndexError):
                f.write("%.4f %s error\n" % (t, box))
        f.flush()
        time.sleep(0.04)
EOF

# The figures of one phase from its poll log and receiver CSV, as
# key=value lines.
cat >"$TB_DIR/analyse.py" <<'EOF'
import csv, sys
poll, rxcsv, t0, tcut, theal, path = sys.argv[1:7]
t0, tcut, theal = float(t0), float(tcut), float(theal)
col = {"dsl": (2, 4), "lte": (3, 5)}[path]
rows = {"cpe": [], "conc": []}
eff = []
for line in open(poll):
    w = line.split()
    if len(w) < 8:
        continue
    t, box = float(w[0]), w[1]
    rows[box].append((t, int(w[col[0]]), int(w[col[1]])))
    eff.append((int(w[6]), int(w[7])))
def ms(t):
    return -1 if t is None else round((t - tcut) * 1000)
def first(box, cond, after):
    for r in rows[box]:
        if r[0] > after and cond(r):
            return r
    return None
out = {}
for box in ("cpe", "conc"):
    r = first(box, lambda r: r[1] == 0, tcut)
    out["detect_" + box + "_ms"] = ms(r[0]) if r else -1
    r = first(box, lambda r: r[1] == 1, theal)
    out["up_" + box + "_ms"] = round((r[0] - theal) * 1000) if r else -1
# last use: the last poll before the heal whose tx count on the path grew
c = [r for r in rows["conc"] if r[0] <= theal]
last = None
for a, b in zip(c, c[1:]):
    if b[2] > a[2] and b[0] > tcut:
        last = b[0]
out["last_use_ms"] = ms(last) if last else 0
det = first("conc", lambda r: r[1] == 0, tcut)
tx_det = det[2] if det else -1
tx_heal = c[-1][2] if c else -1
out["tx_after_detect"] = tx_heal - tx_det if det else -1
r = first("conc", lambda r: r[2] > tx_heal + 100, theal)
out["carry_ms"] = round((r[0] - theal) * 1000) if r else -1
# receiver: 100 ms rows, t_s the end of the row's interval
run = best = 0
mbit = []
for row in csv.DictReader(open(rxcsv)):
    t = t0 + float(row["t_s"])
    if t < tcut or t > theal + 2.0:
        continue
    mbit.append(float(row["mbit_s"]))
    run = run + 100 if int(row["pkts"]) == 0 else 0
    best = max(best, run)
out["stall_ms"] = best
out["min_mbit"] = min(mbit) if mbit else -1
# the adaptive reorder timeout seen during the phase
out["eff_min_us"] = min(e[0] for e in eff) if eff else -1
out["eff_max_us"] = max(e[0] for e in eff) if eff else -1
out["lto_max_us"] = max(e[1] for e in eff) * 1000 if eff else -1
for k, v in out.items():
    print("%s=%s" % (k, v))
EOF

now() {
	echo "$EPOCHREALTIME"
}

# phase NAME PATH RATE: the flow, the cut and heal of PATH, the figures
# in $TB_DIR/NAME.res.
phase() {
	local name=$1 path=$2 rate=$3 rx tx poller i t0 tcut theal
	rm -f "$TB_DIR/$name.ready" "$TB_DIR/$name.stop"
	tb_bg cpe "$TB_DIR/$name.poll.log" python3 "$TB_DIR/poll.py" \
		"$L3BONDCTL" "$TB_DIR/$name.poll" "$TB_DIR/$name.stop" \
		"cpe=$(ctl_socket cpe)" "conc=$(ctl_socket conc)"
	poller=$TB_LAST_PID
	tb_bg cli "$TB_DIR/$name.rx.log" "$TB_TRAFFIC" recv --port 5000 \
		--duration $((FLOW_S + 4)) --linger-ms 500 \
		--json "$TB_DIR/$name.rx.json" --csv "$TB_DIR/$name.csv" \
		--csv-interval-ms 100 --ready-file "$TB_DIR/$name.ready"
	rx=$TB_LAST_PID
	tb_wait_file "$TB_DIR/$name.ready" || true
	t0=$(now)
	tb_bg srv "$TB_DIR/$name.tx.log" "$TB_TRAFFIC" send --dst "$TB_CLI_IP" \
		--port 5000 --rate "$rate" --size 1400 --duration "$FLOW_S" \
		--json "$TB_DIR/$name.tx.json"
	tx=$TB_LAST_PID
	sleep "$CUT_AT_S"
	tcut=$(now)
	tb_cut "$path"
	sleep "$HEAL_AFTER_S"
	theal=$(now)
	tb_heal "$path"
	tb_wait "$tx" $((FLOW_S + 10)) || true
	tb_wait "$rx" $((FLOW_S + 15)) || true
	# until both ends have the path up again (or 5 s)
	for ((i = 0; i < 50; i++)); do
		[ "$(tail -n 2 "$TB_DIR/$name.poll" | awk -v c="$path" \
			'{ n += (c == "dsl" ? $3 : $4) } END { print n + 0 }')" = 2 ] && break
		sleep 0.1
	done
	touch "$TB_DIR/$name.stop"
	tb_wait "$poller" 10 || true
	python3 "$TB_DIR/analyse.py" "$TB_DIR/$name.poll" "$TB_DIR/$name.csv" \
		"$t0" "$tcut" "$theal" "$path" >"$TB_DIR/$name.res"
}

res() {
	sed -n "s/^$2=//p" "$TB_DIR/$1.res"
}

# report NAME PATH OTHER: the checks of one phase
report() {
	local n=$1 path=$2 other=$3 dc dn lu st
	dc=$(res "$n" detect_cpe_ms)
	dn=$(res "$n" detect_conc_ms)
	lu=$(res "$n" last_use_ms)
	st=$(res "$n" stall_ms)
	echo "  $path cut: detected after $dn ms (concentrator), $dc ms (cpe);" \
		"last DATA on $path $lu ms after the cut; longest stall $st ms" \
		"(100 ms rows), lowest 100 ms rate $(res "$n" min_mbit) Mbit/s"
	echo "  $path healed: up after $(res "$n" up_conc_ms) ms (concentrator)," \
		"$(res "$n" up_cpe_ms) ms (cpe); DATA on $path again after" \
		"$(res "$n" carry_ms) ms"
	echo "  reorder timeout in use: $(res "$n" eff_min_us)..$(res "$n" eff_max_us) us" \
		"(t_lto_ms max $(res "$n" lto_max_us) us); receiver: lost" \
		"$(jget "$TB_DIR/$n.rx.json" lost) of $(jget "$TB_DIR/$n.rx.json" expected)"
	check "$path cut: down on both ends within dead_after_ms + 300 ms" \
		'dc > 0 && dn > 0 && dc <= b && dn <= b' "dc=$dc" "dn=$dn" \
		"b=$BOUND_MS"
	check "$path cut: all traffic on $other within dead_after_ms + 300 ms, none on $path until the heal" \
		'lu <= b && after == 0' "lu=$lu" "b=$BOUND_MS" \
		"after=$(res "$n" tx_after_detect)"
	check "$path cut: no delivery stall longer than dead_after_ms + 300 ms" \
		'st <= b && fin == "true"' "st=$st" "b=$BOUND_MS" \
		"fin=$(jget "$TB_DIR/$n.rx.json" fin)"
	check "$path healed: up on both ends within 3 s, carrying DATA within 5 s" \
		'uc >= 0 && un >= 0 && uc <= 3000 && un <= 3000 && c >= 0 && c <= 5000' \
		"uc=$(res "$n" up_cpe_ms)" "un=$(res "$n" up_conc_ms)" \
		"c=$(res "$n" carry_ms)"
	check "$path cut: reorder timeout in use within 3 ms..t_lto_ms" \
		'lo >= 3000 && hi <= max && lo <= hi' "lo=$(res "$n" eff_min_us)" \
		"hi=$(res "$n" eff_max_us)" "max=$(res "$n" lto_max_us)"
}

# ---- 1. lte cut under 90 Mbit/s: dsl takes everything it can -------------------

phase ltecut lte 90
report ltecut lte dsl

# ---- 2. dsl cut under 40 Mbit/s: lte takes over -------------------------------

settle
sus0=$(st conc path.dsl.suspects)
lsus0=$(st conc path.lte.suspect_by_data)
res0=$(st conc ing.resent)
lossy0=$(st conc ing.rate_lossy)
fill0f=$(st cpe egr.resent_filled)
fill0=$((fill0f + $(st cpe egr.resent_late) + $(st cpe egr.resent_dup)))
phase dslcut dsl 40
report dslcut dsl lte
check "dsl cut: loss limited to the detection window (< 10 % of 14 s)" \
	'loss < 10' "loss=$(jget "$TB_DIR/dslcut.rx.json" loss_pct)"
# The failure detector (DESIGN.md, "Failure detection"): the concentrator
# finds the dsl suspect from its own data's acknowledgements, long before
# dead_after_ms, and moves the traffic then.  Loose bounds (this machine
# is noisy): the last use within half of dead_after_ms, and less lost than
# half of dead_after_ms of the whole flow (40 Mbit/s of 1400-byte packets).
check "dsl cut: the concentrator found the dsl suspect" \
	's1 > s0' "s0=${sus0:-0}" "s1=$(st conc path.dsl.suspects)"
# the lte, left the last usable path, takes the flow and queues: never
# suspect by its data (ing_detect_mark_alone), whatever its queue
check "dsl cut: the lte, the last usable path, not suspect by its data" \
	's1 == s0' "s0=${lsus0:-0}" "s1=$(st conc path.lte.suspect_by_data)"
# what the cut lost is forgiven (DESIGN.md, "Failure detection"): not the
# line's errors, so the dsl's pace does not yield to the weights after the
# heal (ing.rate_lossy: every bulk packet on the dsl, unpaced, for t_dwd_ms)
refresh conc
check "dsl cut: the cut's loss not taken as a broken line (its pace held)" \
	'l1 == l0' "l0=${lossy0:-0}" "l1=$(st conc ing.rate_lossy)"
check "dsl cut: traffic moved within dead_after_ms / 2" \
	'lu > 0 && lu <= d / 2' "lu=$(res dslcut last_use_ms)" "d=$DEAD_MS"
check "dsl cut: less lost than dead_after_ms / 2 of the flow" \
	'lost < 40e6 / 8 / 1400 * d / 1000 / 2' \
	"lost=$(jget "$TB_DIR/dslcut.rx.json" lost)" "d=$DEAD_MS"
# what the dsl carried unacknowledged when it turned suspect went again
# on the lte (ing.resent) and arrived at the cpe: filling a hole, or
# after it was given up (the egress sets no resend wait: DESIGN.md)
refresh conc
refresh cpe
arr=$(($(st cpe egr.resent_filled) + $(st cpe egr.resent_late) +
	$(st cpe egr.resent_dup) - ${fill0:-0}))
echo "  dsl cut: sent again $(($(st conc ing.resent) - ${res0:-0})) packets;" \
	"at the cpe $(($(st cpe egr.resent_filled) - ${fill0f:-0})) filled a" \
	"hole, $arr arrived"
check "dsl cut: the packets in flight on the dsl sent again, and arriving" \
	'r > 0 && a > 0' "r=$(($(st conc ing.resent) - ${res0:-0}))" "a=$arr"

# ---- 3. idle: no user traffic, the paths cost little ----------------------
#
# With no DATA since the last REPORT an egress sends none (the first DATA
# brings them back): the REPORT counters of both ends stay flat (one
# allowed, for a stray packet).  The LTE's cost is printed: the tunnel
# packets both ends received on it, with 28 bytes of IPv4 and UDP header
# each.

IDLE_S=5
sleep 2
refresh cpe
refresh conc
counters_mark cpe ic egr.reports_sent path.lte.rx_bytes path.lte.rx_pkts
counters_mark conc in egr.reports_sent path.lte.rx_bytes path.lte.rx_pkts
sleep "$IDLE_S"
refresh cpe
refresh conc
idle_b=$(($(counters_delta cpe ic path.lte.rx_bytes) +
	$(counters_delta conc in path.lte.rx_bytes) +
	28 * ($(counters_delta cpe ic path.lte.rx_pkts) +
		$(counters_delta conc in path.lte.rx_pkts))))
echo "  idle: the lte carries $((idle_b / IDLE_S)) B/s (both directions," \
	"$IDLE_S s); REPORT intervals sent: cpe" \
	"$(counters_delta cpe ic egr.reports_sent), concentrator" \
	"$(counters_delta conc in egr.reports_sent)"
check "idle: no REPORTs for $IDLE_S s on either end" 'c <= 1 && n <= 1' \
	"c=$(counters_delta cpe ic egr.reports_sent)" \
	"n=$(counters_delta conc in egr.reports_sent)"

tb_done
