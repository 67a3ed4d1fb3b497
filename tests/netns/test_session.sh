#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Sessions of l3bondd under NAT rebinding, restarts and WAN address
# changes, measured on the testbed of lib.sh:
#
#            LAN                 access links                  LAN
#   cli ---------- cpe ===dsl=== [dsl] ===dsl=== conc ---------- srv
#   10.0.1.2     l3bondd ===lte=== [lte] ===lte=== l3bondd      10.0.2.2
#                                  NAT
#   dsl and lte 10 Mbit/s each way; dsl 13 ms, lte 25 ms + 0..20 ms
#   probe_interval_ms = 200, dead_after_ms = 1000 on both daemons;
#   t_dwd_ms = 60000: the mobile weight, once raised, stays for a minute.
#   With the default (250 ms) the scheduler's own probing of the DSL's
#   capacity lost 0.7-1.6 % of the downstream flow here (measured), which
#   would drown the loss of the events (the brief: < 1 % in all); a
#   warm-up flow raises the weight before the first scenario.
#
# Two UDP flows run through every scenario (1000-byte datagrams):
#   down  srv -> cli 14 Mbit/s: more than the DSL carries, so the
#         concentrator bonds over both paths (LTE carries DATA downstream);
#   up    cli -> srv  6 Mbit/s: less than the DSL carries, so the CPE's
#         mobile weight stays 0 and the DSL never loses a packet upstream.
#         Any loss the concentrator reports on the DSL would be false, and
#         would move the CPE's mobile weight (IWI/AWI): this flow is the
#         detector of false loss reports (see "no false loss" below).
# A poller reads both daemons' status (control socket, status data) and
# stamps new lines of their logs every 20 ms; the receivers write a CSV
# row every 5 ms.  Measured:
#   - gap: the longest run of 5 ms receiver rows without a packet (so
#     within 5 ms), per flow, in the scenario;
#   - resume: per counter that shows a path carrying packets (the CPE's
#     path.lte.data_rx: DATA downstream on LTE; the concentrator's
#     path.lte.rx_pkts: anything valid upstream on LTE), the longest time
#     between two polls that saw it grow, among the stalls that began
#     within 200 ms of the event (later ones are not its doing: a CPU
#     stall of a loaded machine), and when that stall ended, from the
#     event ("carries again": the later end of the two, counting only
#     stalls of more than 3 times the normal spacing: 60 ms for DATA,
#     150 ms for the control packets; 0 when there was none);
#   - for restarts: from the kill and from the new daemon's start to the
#     new session (both paths up on both ends with the restarted daemon's
#     new session, the survivor's handshakes + 1) and to traffic bonded
#     again (since the survivor logged "session established": DATA
#     downstream received on both paths by the CPE and DATA upstream on
#     the DSL received by the concentrator).
# Nothing is analysed while a flow runs (the analysis takes CPU from the
# daemons); events keep their time in the flow (at).
#
# No false loss, precisely: over each scenario the CPE's w_mobile does
# not rise above its value at the start (0 when the CPE was restarted)
# and its ing.iwi + ing.awi do not move.  The upstream flow loses nothing
# on the DSL (6 of 10 Mbit/s, no emulated loss, a 400 ms buffer for
# bursts after CPU stalls); what was sent into a dead daemon was never
# seen by the new one and must not be reported; a report that took the
# new peer's counters (which start at 0) against the old baselines would
# be loss in the billions; either would raise w_mobile at once (IWI).
# The receiver checks the premise: if the upstream flow really lost
# packets outside the outage (kill to bonded again + 500 ms), the check
# is void and says so (a loaded machine).
#
# Scenarios (each with both flows, 7-9 s, the events 2-6 s in):
#   1. NAT rebinding in the lte namespace mid-flow, two flows: the
#      MASQUERADE replaced by SNAT to 10.22.0.2:20000-20999 and the
#      tunnel's conntrack entries deleted; then a second address
#      10.22.0.3 on the lte namespace's conc side and SNAT to
#      10.22.0.3:21000-21999.  Asserted each time: the concentrator's
#      path.lte.peer shows the new address:port within probe_interval_ms
#      + the LTE round trip (srtt + 4 rttvar) + one poll (40 ms), and LTE
#      carries DATA downstream again within that bound; LTE lost no more
#      DATA than it carries in that time (the packets in flight); both
#      paths stay up; longest gap < 300 ms; loss < 1 % over the flow;
#      egr.peer_restarts and handshakes unchanged on both ends; no false
#      loss.  Then MASQUERADE again (checked: the peer follows).
#   2. Concentrator killed (SIGKILL, by PID) and started again at once
#      with the same configuration: new session within 2 s of the start,
#      bonded again within 2 s; the CPE's egr.peer_restarts + 1 and
#      handshakes + 1; the concentrator's handshakes 1; no false loss.
#   3. CPE killed and started again likewise: within 2 s; the
#      concentrator's egr.peer_restarts + 1, handshakes + 1; no false loss.
#   4a. The CPE's LTE address changes mid-flow (10.21.0.1 -> 10.23.0.1,
#      the lte namespace's side and the routes with it, as a DHCP lease
#      change would): LTE carries again within dead_after_ms + 300 ms, no
#      flow stalls longer, the daemon logs that it reopened the path's
#      socket, no session restart.
#   4b. The CPE's lte veth deleted and created again (a PPPoE reconnect:
#      new ifindex), addresses and routes as lib.sh makes them: the same
#      bounds, without a restart of the daemon.
#   5. (run before 4a, 4b: a WAN change that fails must not spoil it)
#      Restart storm: the concentrator killed and started 5 times, 300 ms
#      apart, then left alone: the session back within 2 s of the last
#      start, bonded again within 2 s; the CPE daemon is the same
#      process, and its memory (VmRSS) grew by less than 256 KiB.
# Every figure is printed.
#
# usage: test_session.sh [BUILD_DIR]   (l3bondd in BUILD_DIR/gateway, the
# tools in BUILD_DIR/tests/tools unless L3B_TOOLS_DIR says otherwise)
# Exit 0 if all checks pass, 1 if any fails, 77 (skip) when not root.
set -Eeuo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
L3BONDD=${L3BONDD:-$build/gateway/l3bondd}
export L3B_TOOLS_DIR=${L3B_TOOLS_DIR:-$build/tests/tools}

TB_PREFIX=${TB_PREFIX:-l3b-sess$$-}
# shellcheck source=lib.sh
source "$here/lib.sh"
tb_require ip tc iptables conntrack awk
# the poller and the analysis are python: without it every check would
# vanish, so the test fails (scripts/deps.sh installs it)
if ! command -v python3 >/dev/null; then
	echo "FAIL: python3 missing (scripts/deps.sh installs it)"
	exit 1
fi
tb_require_bin "$L3BONDD"

PROBE_MS=200
DEAD_MS=1000
BOUND_MS=$((DEAD_MS + 300))
RESTART_MS=2000
POLL_SLACK_MS=40
LINK_MBIT=10
DOWN_MBIT=14
UP_MBIT=6
PKT=1000
CSV_MS=5
# the CPE's LTE side after the address change of 4a
CPE_LTE_IP2=10.23.0.1
LTE_CPE_IP2=10.23.0.2
# the carrier NAT's second public address (scenario 1)
LTE_CONC_IP2=10.22.0.3

tb_init
# dsl_up_qlat: the upstream flow never queues on the DSL, but a CPU stall
# of the emulator (a loaded machine) releases a burst: a deep buffer
# keeps it from being real loss, which would void the false-loss check
tb_setup seed=1 dsl_rate=$LINK_MBIT lte_rate=$LINK_MBIT dsl_up_qlat=400

# the configuration (write_confs: with the key TB_KEY of this run)
write_confs 0.5 "probe_interval_ms = $PROBE_MS; dead_after_ms = $DEAD_MS;
	t_dwd_ms = 60000;"

now() {
	echo "$EPOCHREALTIME"
}

# dstart BOX: l3bondd of BOX with the testbed's configuration; each start
# logs to a file of its own (BOX.N.log in TB_DIR, where tb_teardown looks
# for sanitizer reports), which the poller reads.
declare -A NSTART=([cpe]=0 [conc]=0)
dstart() {
	local box=$1 n
	n=$((NSTART[$box] + 1))
	NSTART[$box]=$n
	tb_bg "$box" "$TB_DIR/$box.$n.log" "$L3BONDD" \
		-c "$TB_DIR/$box.conf" --status-file "$(status_file "$box")" \
		--control-socket "$(ctl_socket "$box")" \
		"${L3BONDD_ARGS[@]+"${L3BONDD_ARGS[@]}"}"
	DPID[$box]=$TB_LAST_PID
}

# dkill BOX: SIGKILL (a crash: no goodbye, its rules stay installed)
dkill() {
	local box=$1
	kill -KILL "${DPID[$box]}"
	# (2>/dev/null: not bash's "Killed" notice)
	tb_wait "${DPID[$box]}" 5 2>/dev/null || true
}

# ---- the poller and the analysis ---------------------------------------------

cat >"$TB_DIR/poll.py" <<'EOF'
# poll.py OUT STOP LOGDIR BOX=SOCKET...: one line per daemon and round,
# the wall time, a space, then JSON: {"t", "box", "pid", "v": {status key:
# value}} (keys as in the status file), or {"t", "box", "err"}; and one per
# new line of the daemons' logs (LOGDIR/BOX.N.log): {"t", "box", "file",
# "log"}.  A round every 20 ms until STOP exists.
import glob, json, os, re, socket, struct, sys, time

out, stop, logdir = sys.argv[1:4]
socks = dict(a.split("=", 1) for a in sys.argv[4:])
keep = re.compile(r"^(uptime_ms|handshakes|session_state|w_mobile"
                  r"|ing\.(iwi|awi|dwd|bonded|no_path|reports|stale_reports)"
                  r"|egr\.(peer_restarts|released|session|hole_\w+|auth\..*)"
                  r"|path\.[^.]+\.(up|peer|data_rx|data_lost|tx_pkts|rx_pkts"
                  r"|tx_errors|ctrl_errors|srtt_us|rttvar_us|up_events"
                  r"|down_events|reopens|socket))$")

def flat(body):
    # the status data of the control socket (gateway/facts.h), one value
    # per "v" line; the daemon's and the first session's values under
    # their status-file keys (the queues' own values have no session)
    pre = {"daemon": "", "session": "", "ingress": "ing.", "egress": "egr.",
           "path": "path."}
    unesc = lambda x: re.sub(r"\\(\\|x([0-9a-f]{2}))",
                             lambda m: "\\" if m.group(1) == "\\"
                             else chr(int(m.group(2), 16)), x)
    types, d, first = {}, {}, None
    for line in body.decode().split("\n")[1:]:
        f = [unesc(x) for x in line.split("\t")]
        if f[0] == "d" and len(f) == 5:
            types[f[1], f[2]] = f[3]
        if f[0] != "v" or len(f) != 9:
            continue
        scope, name, ses, _, path, _, lv, v = f[1:]
        if scope != "daemon" and not ses:
            continue
        if ses:
            first = first or ses
            if ses != first:
                continue
        t = types.get((scope, name))
        v = int(v) if t in ("counter", "gauge") else \
            float(v) if t == "float" else v
        k = pre[scope] + (path + "." if path else "") + name + \
            ("." + lv if lv else "")
        d[k] = v
    return {k: v for k, v in d.items() if keep.match(k)}

def query(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(0.5)
    try:
        s.connect(path)
        cred = s.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                            struct.calcsize("3i"))
        pid = struct.unpack("3i", cred)[0]
        s.sendall(b"status\n")
        buf = b""
        while True:
            c = s.recv(1 << 16)
            if not c:
                break
            buf += c
    finally:
        s.close()
    head, _, body = buf.partition(b"\n")
    if head != b"ok":
        raise ValueError(head[:80].decode(errors="replace"))
    return pid, flat(body)

offs = {}
with open(out, "w") as f:
    while not os.path.exists(stop):
        for box, sock in socks.items():
            try:
                pid, v = query(sock)
                rec = {"t": time.time(), "box": box, "pid": pid, "v": v}
            except (OSError, ValueError) as e:
                rec = {"t": time.time(), "box": box, "err": str(e)}
            f.write("%.6f %s\n" % (rec["t"], json.dumps(rec)))
        for name in sorted(glob.glob(os.path.join(logdir, "cpe.*.log")) +
                           glob.glob(os.path.join(logdir, "conc.*.log"))):
            with open(name, errors="replace") as lf:
                lf.seek(offs.get(name, 0))
                data = lf.read()
            end = data.rfind("\n") + 1
            offs[name] = offs.get(name, 0) + len(data[:end].encode())
            t = time.time()
            for line in data[:end].splitlines():
                rec = {"t": t, "box": os.path.basename(name).split(".")[0],
                       "file": os.path.basename(name), "log": line}
                f.write("%.6f %s\n" % (t, json.dumps(rec)))
        f.flush()
        time.sleep(0.02)
EOF

cat >"$TB_DIR/an.py" <<'EOF'
# an.py POLL CMD ARGS: figures from the poller's records and the
# receivers' CSVs.  Times are wall clock (s); results in ms from REF,
# -1 when the thing never happened.
# an.py POLL serve REQ REP: the same as a server on two FIFOs (one python
# start for the whole test): a request is CMD and ARGS separated by
# \x1f and ended by \x1e, the reply is the output ended by \x1e.
import contextlib, csv, io, json, os, re, sys

poll = sys.argv[1]

def stamp(line):
    try:
        return float(line[:line.index(b" ")])
    except ValueError:
        return None

def seek(f, size, t):
    """An offset at or before the first line stamped t or later: the
    poller writes in time order, so bisect over the file (a second of
    margin for the log lines, stamped after the round's queries)."""
    lo, hi = 0, size
    while hi - lo > 65536:
        mid = (lo + hi) // 2
        f.seek(mid)
        f.readline()  # the rest of a line cut in the middle
        line = f.readline()
        ts = stamp(line) if line else None
        if ts is not None and ts < t - 1:
            lo = mid
        else:
            hi = mid
    f.seek(lo)
    if lo:
        f.readline()

def load(lo, hi=float("inf")):
    """The status records and log lines stamped within [lo, hi]: only
    those are parsed (the file holds every round of the whole test)."""
    global st, logs
    st, logs = [], []
    if not os.path.exists(poll):
        return
    with open(poll, "rb") as f:
        seek(f, os.path.getsize(poll), lo)
        for l in f:
            t = stamp(l)
            if t is None or t < lo:
                continue
            if t > hi + 1:
                break
            if t > hi:
                continue
            try:
                r = json.loads(l[l.index(b" ") + 1:])
            except ValueError:
                continue  # the line the poller is writing now
            if "v" in r:
                st.append(r)
            elif "log" in r:
                logs.append(r)

def ms(t, ref):
    return -1 if t is None else round((t - float(ref)) * 1000)

def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None

def run(cmd, args):
    if cmd == "snap":
        # snap T: "box<TAB>key<TAB>value" of each box's last record at or
        # before T, and its "pid"
        t = float(args[0])
        load(t - 5, t)
        last = {}
        for r in st:
            if r["t"] <= t:
                last[r["box"]] = r
        for box, r in last.items():
            print("%s\tpid\t%s" % (box, r["pid"]))
            for k, v in r["v"].items():
                print("%s\t%s\t%s" % (box, k, v))
    elif cmd == "max":
        # max BOX KEY T0 T1: the largest value over the window (and whether
        # the key was seen at all: -1 if not)
        box, key, t0, t1 = args[0], args[1], float(args[2]), float(args[3])
        load(t0, t1)
        vals = [num(r["v"].get(key)) for r in st
                if r["box"] == box and t0 <= r["t"] <= t1]
        vals = [v for v in vals if v is not None]
        print(max(vals) if vals else -1)
    elif cmd == "first":
        # first T REF EXPR: the first round at or after T at which EXPR holds
        # over the latest records of both boxes: c(KEY) / n(KEY) are the
        # CPE's / concentrator's values, cpid / npid their PIDs
        t, ref = float(args[0]), args[1]
        load(t - 2)
        expr = compile("(" + args[2] + ")", "expr", "eval")
        last = {}
        found = None
        for r in st:
            last[r["box"]] = r
            if r["t"] < t or len(last) < 2:
                continue
            env = {"c": lambda k: last["cpe"]["v"].get(k),
                   "n": lambda k: last["conc"]["v"].get(k),
                   "cpid": last["cpe"]["pid"], "npid": last["conc"]["pid"]}
            try:
                ok = eval(expr, {}, env)
            except (TypeError, KeyError, AttributeError, ValueError,
                    IndexError):
                ok = False
            if ok:
                found = r["t"]
                break
        print(ms(found, ref))
    elif cmd == "grown":
        # grown T REF BOX:KEY...: the first round after T by which every
        # BOX:KEY has grown since T (a new process of BOX starts from 0;
        # a counter that went back, as the loss counters do when the peer
        # restarted, grows from where it went back to)
        t, ref, keys = float(args[0]), args[1], args[2:]
        load(t - 5)
        base, done = {}, set()
        found = None
        for bk in keys:
            box, key = bk.split(":", 1)
            for r in st:
                if r["box"] == box and r["t"] <= t:
                    base[bk] = (r["pid"], num(r["v"].get(key)) or 0)
        for r in st:
            if r["t"] <= t:
                continue
            for bk in keys:
                box, key = bk.split(":", 1)
                if r["box"] != box or bk in done:
                    continue
                v = num(r["v"].get(key))
                if v is None:
                    continue
                pid, b = base.get(bk, (None, 0))
                if r["pid"] != pid:
                    b = 0
                if v > b:
                    done.add(bk)
                base[bk] = (r["pid"], min(v, b))
            if len(done) == len(keys):
                found = r["t"]
                break
        print(ms(found, ref))
    elif cmd == "stall":
        # stall BOX KEY T0 T1 REF: the longest time between two rounds that saw
        # KEY grow, among those ending after T0 and starting before T1 (an
        # event at T0 shows within T1 - T0); prints "stall_ms resume_ms"
        # (resume: when it ended, from REF; -1: never)
        box, key, t0, t1, ref = args[0], args[1], float(args[2]), \
            float(args[3]), args[4]
        load(t0 - 5)
        grow, prev = [], None
        for r in st:
            if r["box"] != box:
                continue
            v = num(r["v"].get(key))
            if v is None:
                continue
            if prev is not None and (r["pid"] != prev[0] or v > prev[1]):
                if r["pid"] != prev[0] and v == 0:
                    prev = (r["pid"], v)
                    continue
                grow.append(r["t"])
            prev = (r["pid"], v)
        best, end = 0, None
        for a, b in zip(grow, grow[1:]):
            if b > t0 and a < t1 and b - a > best:
                best, end = b - a, b
        # a stall that never ended: from the last growth (or T0) to the last
        # round seen
        last = max([r["t"] for r in st if r["box"] == box], default=t0)
        since = grow[-1] if grow else t0
        if since < t1 and last - since > best:
            best, end = last - since, None
        print(round(best * 1000), ms(end, ref))
    elif cmd == "log":
        # log BOX REGEX T REF: when the first line of BOX matching REGEX after
        # T was seen (ms from REF), how many matched after T, and when the
        # first was seen (wall clock, -1: never)
        box, rx, t, ref = args[0], re.compile(args[1]), float(args[2]), args[3]
        load(t)
        hits = [r for r in logs if r["box"] == box and r["t"] >= t and
                rx.search(r["log"])]
        print(ms(hits[0]["t"] if hits else None, ref), len(hits),
              hits[0]["t"] if hits else -1)
    elif cmd == "lostat":
        # lostat CSV READY T: the receiver's count of lost packets at T (the
        # last row that ended by then)
        rows = list(csv.DictReader(open(args[0])))
        start, t = os.path.getmtime(args[1]), float(args[2])
        v = 0
        for row in rows:
            if start + float(row["t_s"]) <= t:
                v = int(row["lost"])
        print(v)
    elif cmd == "gap":
        # gap CSV READY T0 T1 REF: the longest run of receiver rows without a
        # packet among the rows that overlap [T0, T1] (the receiver started
        # when it made its ready file); "gap_ms end_ms" (end from REF)
        rows = list(csv.DictReader(open(args[0])))
        start = os.path.getmtime(args[1])
        t0, t1, ref = float(args[2]), float(args[3]), args[4]
        ivl = float(rows[1]["t_s"]) - float(rows[0]["t_s"]) if len(rows) > 1 \
            else 0.005
        run = best = 0
        end = None
        for row in rows:
            te = start + float(row["t_s"])
            if te < t0 or te - ivl > t1:
                continue
            run = run + 1 if int(row["pkts"]) == 0 else 0
            if run > best:
                best, end = run, te
        print(round(best * ivl * 1000), ms(end, ref))
    else:
        print("error: unknown command " + cmd)

def serve(req, rep):
    fi = os.open(req, os.O_RDWR)
    fo = os.open(rep, os.O_RDWR)
    buf = b""
    while True:
        chunk = os.read(fi, 65536)
        if not chunk:
            break
        buf += chunk
        while b"\x1e" in buf:
            one, buf = buf.split(b"\x1e", 1)
            words = one.decode().split("\x1f")
            out = io.StringIO()
            try:
                with contextlib.redirect_stdout(out):
                    run(words[0], words[1:])
            except Exception as e:  # a reply, whatever happens
                out.write("error: %r\n" % (e,))
            data = out.getvalue().encode() + b"\x1e"
            while data:
                data = data[os.write(fo, data):]

if sys.argv[2] == "serve":
    serve(sys.argv[3], sys.argv[4])
else:
    run(sys.argv[2], sys.argv[3:])
EOF

# an CMD ARGS: a query to an.py's server (or, were it gone, to an.py)
an() {
	local IFS=$'\x1f' reply w r
	if [ -z "${AN_PID:-}" ] || ! kill -0 "$AN_PID" 2>/dev/null; then
		python3 "$TB_DIR/an.py" "$TB_DIR/poll.jsonl" "$@"
		return
	fi
	# read-write opens of the FIFOs never block
	exec {w}<>"$TB_DIR/an.req" {r}<>"$TB_DIR/an.rep"
	printf '%s\x1e' "$*" >&"$w"
	if ! read -r -t 120 -d $'\x1e' -u "$r" reply; then
		reply="error: no reply from an.py"
	fi
	exec {w}>&- {r}<&-
	reply=${reply%$'\n'}
	if [[ "$reply" == error:* ]]; then
		echo "an $*: $reply" >&2
		echo -
		return 0
	fi
	printf '%s\n' "$reply"
}

# ---- flows ------------------------------------------------------------------

# flows_start NAME SECONDS: both flows in the background; FLOW_T0 is when
# the senders started.
FLOW_PIDS=()
flows_start() {
	local name=$1 secs=$2 i
	FLOW_PIDS=()
	rm -f "$TB_DIR/$name".*.ready
	tb_bg cli "$TB_DIR/$name.down.rx.log" "$TB_TRAFFIC" recv --port 5000 \
		--duration $((secs + 6)) --linger-ms 500 \
		--json "$TB_DIR/$name.down.rx.json" --csv "$TB_DIR/$name.down.csv" \
		--csv-interval-ms $CSV_MS --ready-file "$TB_DIR/$name.down.ready"
	FLOW_PIDS+=("$TB_LAST_PID")
	tb_bg srv "$TB_DIR/$name.up.rx.log" "$TB_TRAFFIC" recv --port 5000 \
		--duration $((secs + 6)) --linger-ms 500 \
		--json "$TB_DIR/$name.up.rx.json" --csv "$TB_DIR/$name.up.csv" \
		--csv-interval-ms $CSV_MS --ready-file "$TB_DIR/$name.up.ready"
	FLOW_PIDS+=("$TB_LAST_PID")
	tb_wait_file "$TB_DIR/$name.down.ready" || true
	tb_wait_file "$TB_DIR/$name.up.ready" || true
	FLOW_T0=$(now)
	tb_bg srv "$TB_DIR/$name.down.tx.log" "$TB_TRAFFIC" send \
		--dst "$TB_CLI_IP" --port 5000 --rate $DOWN_MBIT --size $PKT \
		--duration "$secs" --json "$TB_DIR/$name.down.tx.json"
	FLOW_PIDS+=("$TB_LAST_PID")
	tb_bg cli "$TB_DIR/$name.up.tx.log" "$TB_TRAFFIC" send \
		--dst "$TB_SRV_IP" --port 5000 --rate $UP_MBIT --size $PKT \
		--duration "$secs" --json "$TB_DIR/$name.up.tx.json"
	FLOW_PIDS+=("$TB_LAST_PID")
}

flows_wait() {
	local pid
	for pid in "${FLOW_PIDS[@]}"; do
		tb_wait "$pid" 30 || true
	done
	FLOW_END=$(now)
	# the poller's last rounds
	sleep 0.1
}

# gap NAME DIR T0 T1 REF -> "gap_ms end_ms"
gap() {
	an gap "$TB_DIR/$1.$2.csv" "$TB_DIR/$1.$2.ready" "$3" "$4" "$5"
}

rxj() {
	jget "$TB_DIR/$1.$2.rx.json" "$3"
}

# Both daemons up with both paths up, in a session (or 5 s: 1).
wait_session() {
	local i
	for ((i = 0; i < 100; i++)); do
		if [ "$(an first "$(now)" 0 'c("path.dsl.up") == 1 and
			c("path.lte.up") == 1 and n("path.dsl.up") == 1 and
			n("path.lte.up") == 1')" != -1 ]; then
			return 0
		fi
		sleep 0.05
	done
	return 1
}

# v BOX KEY T: the value of KEY (a status key, or pid) of BOX's daemon at
# T, "-" if none; from one snapshot of both daemons per T (a python start
# per value would cost seconds per scenario)
declare -A SNAP_V=() SNAP_T=()
v() {
	local box=$1 key=$2 t=$3 b k val
	if [ -z "${SNAP_T[$t]:-}" ]; then
		while IFS=$'\t' read -r b k val; do
			SNAP_V["$t|$b|$k"]=$val
		done < <(an snap "$t")
		SNAP_T[$t]=1
	fi
	echo "${SNAP_V["$t|$box|$key"]:--}"
}

# chk NAME EXPR K=V...: check, but a value that is missing ("-" from v,
# or empty) fails by itself (awk would compare "-" as a string)
chk() {
	local name=$1 expr=$2 kv miss=()
	shift 2
	for kv in "$@"; do
		case ${kv#*=} in
		"" | - | None) miss+=("${kv%%=*}") ;;
		esac
	done
	if [ "${#miss[@]}" -gt 0 ]; then
		bad "$name: no value for ${miss[*]} (got $*)"
		return 0
	fi
	check "$name" "$expr" "$@"
}

lostat() {
	an lostat "$TB_DIR/$1.up.csv" "$TB_DIR/$1.up.ready" "$2"
}

# no_false_loss WHAT NAME T0 T1 FRESH [OUT0 OUT1]: the no-false-loss check
# of the CPE's ingress over [T0, T1] of flow NAME: its w_mobile rises
# above its value at T0 (0 when FRESH=1: the CPE process started at T0)
# and its ing.iwi + ing.awi grow only on loss the concentrator reports on
# the DSL upstream.  It is asserted when the upstream flow really lost
# nothing, from its start to T1, outside the outage [OUT0, OUT1] (what
# was sent into a dead daemon is lost, and never seen by the new one);
# when it did (a loaded machine), the check is void and says so.
no_false_loss() {
	local what=$1 name=$2 t0=$3 t1=$4 fresh=$5 o0=${6:-} o1=${7:-}
	local wmax w0 i0 a0 i1 a1 real
	wmax=$(an max cpe w_mobile "$t0" "$t1")
	i1=$(v cpe ing.iwi "$t1")
	a1=$(v cpe ing.awi "$t1")
	if [ "$fresh" = 1 ]; then
		i0=0 a0=0 w0=0
	else
		i0=$(v cpe ing.iwi "$t0")
		a0=$(v cpe ing.awi "$t0")
		w0=$(v cpe w_mobile "$t0")
	fi
	real=$(lostat "$name" "$t1")
	if [ -n "$o0" ]; then
		real=$((real - $(lostat "$name" "$o1") + $(lostat "$name" "$o0")))
	fi
	echo "  $what: CPE w_mobile $w0, max $wmax; ing.iwi $i0 -> $i1," \
		"ing.awi $a0 -> $a1 (ing.dwd $(v cpe ing.dwd "$t1"));" \
		"upstream packets really lost outside the outage: $real;" \
		"concentrator w_mobile max $(an max conc w_mobile "$t0" "$t1")"
	if [ "$real" -gt 0 ]; then
		echo "  (void: the DSL really lost upstream packets, the" \
			"false-loss check cannot tell them apart)"
		return 0
	fi
	chk "$what: no false loss reported to the CPE (w_mobile not raised, no IWI/AWI)" \
		'w <= w0 && i0 == i1 && a0 == a1' "w=$wmax" "w0=$w0" "i0=$i0" \
		"i1=$i1" "a0=$a0" "a1=$a1"
}

# ---- start --------------------------------------------------------------------

tb_bg cli "$TB_DIR/poll.log" python3 "$TB_DIR/poll.py" \
	"$TB_DIR/poll.jsonl" "$TB_DIR/poll.stop" "$TB_DIR" \
	"cpe=$(ctl_socket cpe)" "conc=$(ctl_socket conc)"
POLLER=$TB_LAST_PID
mkfifo "$TB_DIR/an.req" "$TB_DIR/an.rep"
tb_bg cli "$TB_DIR/an.log" python3 "$TB_DIR/an.py" "$TB_DIR/poll.jsonl" \
	serve "$TB_DIR/an.req" "$TB_DIR/an.rep"
AN_PID=$TB_LAST_PID
dstart conc
dstart cpe
if wait_session; then
	ok "both daemons up, both paths up"
else
	bad "no session: $(tail -n 5 "$TB_DIR"/cpe.1.log "$TB_DIR"/conc.1.log)"
	tb_abort
fi
refresh cpe
refresh conc
chk "the liveness settings in force on both ends" \
	'cp == p && cd == d && np == p && nd == d' "p=$PROBE_MS" "d=$DEAD_MS" \
	"cp=$(st cpe probe_interval_ms)" "cd=$(st cpe dead_after_ms)" \
	"np=$(st conc probe_interval_ms)" "nd=$(st conc dead_after_ms)"

# new_session BOX: a pattern for the log line of the session that BOX's
# latest daemon established ("session established (r_cpe .., r_conc ..)"
# is logged by both ends), for the survivor's log: its line of an
# earlier session (a restart storm) must not count
new_session() {
	local line
	line=$(grep -m 1 -o 'session established (r_cpe [0-9a-f]*, r_conc [0-9a-f]*)' \
		"$TB_DIR/$1.${NSTART[$1]}.log" || true)
	if [ -n "$line" ]; then
		printf '%s' "$line" | sed 's/[()]/\\&/g'
	else
		echo 'no session of the new daemon'
	fi
}

# ms_plus MS D: MS + D, or -1 if MS is -1 (never)
ms_plus() {
	if [ "$1" = -1 ]; then
		echo -1
	else
		echo $(($1 + $2))
	fi
}

# at T SECONDS: sleeps until wall time T + SECONDS (the events of a
# scenario keep their place in the flow whatever the commands before
# them took; nothing is analysed while a flow runs, it would take CPU
# from the daemons)
at() {
	local d
	d=$(awk -v t="$1" -v s="$2" -v n="$(now)" \
		'BEGIN { d = t + s - n; printf "%.3f", (d > 0 ? d : 0) }')
	sleep "$d"
}

# ms B - A of two wall times
dms() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b - a) * 1000 }'
}

# plus T MS: wall time T + MS
plus() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", a + b / 1000 }'
}

# the flows' gaps over [T0, T1] into GAP_DOWN, GAP_UP (ms)
gaps() {
	local name=$1 t0=$2 t1=$3
	read -r GAP_DOWN _ < <(gap "$name" down "$t0" "$t1" "$t0")
	read -r GAP_UP _ < <(gap "$name" up "$t0" "$t1" "$t0")
}

flow_report() {
	local name=$1
	echo "  flows: down lost $(rxj "$name" down lost) of" \
		"$(rxj "$name" down expected) ($(rxj "$name" down loss_pct) %)," \
		"up lost $(rxj "$name" up lost) of $(rxj "$name" up expected)" \
		"($(rxj "$name" up loss_pct) %); longest gap down $GAP_DOWN ms," \
		"up $GAP_UP ms"
}

# where the downstream flow lost packets (the CPE's egress counts the
# gaps per path) over the last flow; no daemon restarted in it
path_loss() {
	local p d=()
	for p in dsl lte; do
		d[${#d[@]}]=$(($(v cpe "path.$p.data_lost" "$FLOW_END") -
			$(v cpe "path.$p.data_lost" "$FLOW_T0")))
	done
	echo "  DATA lost downstream (CPE's egress): dsl ${d[0]}, lte ${d[1]}"
}

# the end of the senders' run, minus what is in flight at the end
flow_t1() {
	plus "$FLOW_T0" "$(($1 * 1000 - 100))"
}

# ---- 1. NAT rebinding ---------------------------------------------------------

nat_rule() {
	tb_exec lte iptables -w -t nat -R POSTROUTING 1 -o conc "$@"
}

ct_flush() {
	tb_exec lte conntrack -D -p udp --dport 7040 >/dev/null 2>&1 || true
}

# warm-up: the concentrator's mobile weight settles where the DSL stops
# losing (and stays there, t_dwd_ms)
flows_start warm 3
flows_wait
echo "-- warm-up: concentrator's w_mobile $(v conc w_mobile "$FLOW_END"), down" \
	"loss $(rxj warm down loss_pct) %"

# nat_step NAME WHAT ADDR PORTS: the flows, 3 s in the lte namespace's NAT
# rule replaced by SNAT to ADDR:PORTS and the tunnel's conntrack entries
# deleted, so that the next packet of the CPE gets a new mapping
nat_step() {
	local name=$1 what=$2 addr=$3 ports=$4 t e seen stall res peer0
	local srtt rttvar rtt_ms bound pps lost
	flows_start "$name" 7
	at "$FLOW_T0" 3
	t=$(now)
	nat_rule -p udp -j SNAT --to-source "$addr:$ports"
	ct_flush
	e=$(now)
	flows_wait
	peer0=$(v conc path.lte.peer "$t")
	srtt=$(v cpe path.lte.srtt_us "$t")
	rttvar=$(v cpe path.lte.rttvar_us "$t")
	rtt_ms=$(awk -v s="${srtt/-/0}" -v v="${rttvar/-/0}" \
		'BEGIN { printf "%d", (s + 4 * v) / 1000 }')
	bound=$((PROBE_MS + rtt_ms + POLL_SLACK_MS))
	seen=$(an first "$e" "$e" "n('path.lte.peer').split(':')[0] == '$addr' and
		${ports%-*} <= int(n('path.lte.peer').split(':')[1]) <= ${ports#*-}")
	read -r stall res < <(an stall cpe path.lte.data_rx "$e" "$(plus "$e" 200)" "$e")
	# (a stall of DATA of up to 3 polls, 60 ms, is the normal spacing)
	[ "$stall" -gt 60 ] || res=0
	# what LTE carried downstream before (packets/s), and lost around the
	# change: the packets in flight are at most what it carries in the
	# time the concentrator cannot know (probe + RTT)
	pps=$(awk -v a="$(v cpe path.lte.data_rx "$(plus "$FLOW_T0" 1000)")" \
		-v b="$(v cpe path.lte.data_rx "$t")" -v t0="$FLOW_T0" -v t="$t" \
		'BEGIN { printf "%d", (b - a) / (t - t0 - 1) }')
	lost=$(($(v cpe path.lte.data_lost "$(plus "$e" 1500)") -
		$(v cpe path.lte.data_lost "$t")))
	gaps "$name" "$(plus "$FLOW_T0" 200)" "$(flow_t1 7)"
	echo "  concentrator's path.lte.peer: $peer0 -> $(v conc path.lte.peer "$FLOW_END")," \
		"seen $seen ms after the conntrack flush (bound: probe" \
		"$PROBE_MS + rtt $rtt_ms + poll $POLL_SLACK_MS = $bound ms)"
	echo "  LTE DATA downstream at the CPE: $pps packets/s, longest stall" \
		"$stall ms (carrying again $res ms after the change), $lost lost" \
		"within 1.5 s (in flight at most: $((pps * bound / 1000)))"
	flow_report "$name"
	path_loss
	chk "$what: the new address:port at the concentrator within probe + RTT" \
		's >= 0 && s <= b' "s=$seen" "b=$bound"
	chk "$what: LTE carried DATA downstream again within probe + RTT" \
		'r >= 0 && r <= b' "r=$res" "b=$bound"
	chk "$what: LTE lost only packets in flight" \
		'l <= p * b / 1000' "l=$lost" "p=$pps" "b=$bound"
	chk "$what: longest gap of either flow < 300 ms" \
		'd < 300 && u < 300' "d=$GAP_DOWN" "u=$GAP_UP"
	rate_check "$what: loss < 1 % on either flow, all sent" \
		'd < 1 && u < 1 && fd == "true" && fu == "true"' \
		"d=$(rxj "$name" down loss_pct)" "u=$(rxj "$name" up loss_pct)" \
		"fd=$(rxj "$name" down fin)" "fu=$(rxj "$name" up fin)"
	chk "$what: lte stayed up on both ends, no session restart" \
		'cd0 == cd1 && nd0 == nd1 && cr0 == cr1 && nr0 == nr1 && ch0 == ch1 && nh0 == nh1' \
		"cd0=$(v cpe path.lte.down_events "$FLOW_T0")" \
		"cd1=$(v cpe path.lte.down_events "$FLOW_END")" \
		"nd0=$(v conc path.lte.down_events "$FLOW_T0")" \
		"nd1=$(v conc path.lte.down_events "$FLOW_END")" \
		"cr0=$(v cpe egr.peer_restarts "$FLOW_T0")" \
		"cr1=$(v cpe egr.peer_restarts "$FLOW_END")" \
		"nr0=$(v conc egr.peer_restarts "$FLOW_T0")" \
		"nr1=$(v conc egr.peer_restarts "$FLOW_END")" \
		"ch0=$(v cpe handshakes "$FLOW_T0")" "ch1=$(v cpe handshakes "$FLOW_END")" \
		"nh0=$(v conc handshakes "$FLOW_T0")" "nh1=$(v conc handshakes "$FLOW_END")"
	no_false_loss "$what" "$name" "$FLOW_T0" "$FLOW_END" 0
}

echo "-- 1. NAT rebinding in the lte namespace: a new port (at ${SECONDS} s)"
nat_step nat1 "NAT rebinding (port)" "$TB_LTE_CONC_IP" 20000-20999
echo "-- 1. NAT rebinding: a new address (at ${SECONDS} s)"
tb_exec lte ip addr add "$LTE_CONC_IP2/24" dev conc
nat_step nat2 "NAT rebinding (address)" "$LTE_CONC_IP2" 21000-21999

# back to the carrier's MASQUERADE on its first address
nat_rule -j MASQUERADE
ct_flush
tb_exec lte ip addr del "$LTE_CONC_IP2/24" dev conc
e3=$(now)
# no flow now: the session is idle and the CPE probes its paths every
# idle_probe_ms only; the first packets through the bond make it busy,
# and its probes at the busy interval teach the concentrator the mapping
ping_count cli "$TB_SRV_IP" 3 >/dev/null
sleep 0.5
seen3=$(an first "$e3" "$e3" "n('path.lte.peer').split(':')[0] == '$TB_LTE_CONC_IP' and
	not 20000 <= int(n('path.lte.peer').split(':')[1]) <= 21999")
chk "NAT back to MASQUERADE: the concentrator follows" 's >= 0' "s=$seen3"

# ---- 2. and 3. restarts -------------------------------------------------------

# restart BOX NAME: the flows, BOX killed 3 s in and started again at once
restart() {
	local box=$1 name=$2 other k s est t_est up bonded pid_new
	local h0 r0 f x hx
	other=conc
	[ "$box" = conc ] && other=cpe
	wait_session || true
	flows_start "$name" 7
	at "$FLOW_T0" 3
	k=$(now)
	dkill "$box"
	s=$(now)
	dstart "$box"
	pid_new=${DPID[$box]}
	flows_wait
	h0=$(v "$other" handshakes "$k")
	r0=$(v "$other" egr.peer_restarts "$k")
	read -r est _ t_est < <(an log "$other" "$(new_session "$box")" "$s" "$s")
	# the restarted box's PID (cpid, npid) and the survivor's values (c,
	# n) in an.py's expression; no handshakes value: never true
	f=cpid x=n
	[ "$box" = conc ] && f=npid x=c
	hx=$h0
	[ "$hx" = - ] && hx=-9
	up=$(an first "$s" "$s" "$f == $pid_new and c('path.dsl.up') == 1 and
		c('path.lte.up') == 1 and n('path.dsl.up') == 1 and
		n('path.lte.up') == 1 and $x('handshakes') == $hx + 1")
	bonded=-1
	if [ "$t_est" != -1 ]; then
		bonded=$(an grown "$t_est" "$s" cpe:path.dsl.data_rx \
			cpe:path.lte.data_rx conc:path.dsl.data_rx)
	fi
	gaps "$name" "$(plus "$FLOW_T0" 200)" "$(flow_t1 7)"
	RS_KS=$(dms "$k" "$s")
	# for the false-loss check: the outage of the upstream flow
	RS_K=$k RS_S=$s
	RS_OUT_END=$(plus "$s" "$(((bonded < 0 ? 9000 : bonded) + 500))")
	echo "  $box killed, started again $RS_KS ms later; from the start" \
		"(from the kill): $other logged \"session established\" after" \
		"$est ($(ms_plus "$est" "$RS_KS")) ms; both paths up on both" \
		"ends in the new session after $up ($(ms_plus "$up" "$RS_KS"))" \
		"ms; bonded again (DATA down on dsl and lte, up on dsl) after" \
		"$bonded ($(ms_plus "$bonded" "$RS_KS")) ms"
	flow_report "$name"
	chk "$box restart: new session, both paths up on both ends, within 2 s of the start" \
		'u >= 0 && u <= b' "u=$up" "b=$RESTART_MS"
	chk "$box restart: traffic bonded again within 2 s of the start" \
		'x >= 0 && x <= b' "x=$bonded" "b=$RESTART_MS"
	chk "$box restart: no flow stalled longer than 2 s + the restart" \
		'd <= b && u <= b' "d=$GAP_DOWN" "u=$GAP_UP" \
		"b=$((RESTART_MS + RS_KS))"
	chk "$box restart: $other's egr.peer_restarts + 1, handshakes + 1" \
		'r1 == r0 + 1 && h1 == h0 + 1' "r0=$r0" \
		"r1=$(v "$other" egr.peer_restarts "$FLOW_END")" "h0=$h0" \
		"h1=$(v "$other" handshakes "$FLOW_END")"
	chk "$box restart: $other logged \"peer restarted\"" 'n >= 1' \
		"n=$(an log "$other" 'peer restarted' "$s" "$s" | awk '{ print $2 }')"
	chk "$box restart: the new $box has one session" 'h == 1' \
		"h=$(v "$box" handshakes "$FLOW_END")"
}

echo "-- 2. concentrator restarted (at ${SECONDS} s)"
restart conc crest
no_false_loss "concentrator restart" crest "$FLOW_T0" "$FLOW_END" 0 \
	"$RS_K" "$RS_OUT_END"

echo "-- 3. CPE restarted (at ${SECONDS} s)"
restart cpe cprest
no_false_loss "CPE restart" cprest "$RS_S" "$FLOW_END" 1 "$RS_K" "$RS_OUT_END"

# ---- 5. restart storm ---------------------------------------------------------

echo "-- 5. concentrator restarted 5 times, 300 ms apart (at ${SECONDS} s)"
vmrss() {
	awk '/^VmRSS/ { print $2 }' "/proc/$1/status"
}
wait_session || true
cpe_pid=${DPID[cpe]}
# the CPE's memory once it has carried traffic for a while
rss0=$(vmrss "$cpe_pid")
flows_start storm 8
at "$FLOW_T0" 2
k=$(now)
for i in 1 2 3 4 5; do
	dkill conc
	s=$(now)
	dstart conc
	[ "$i" = 5 ] || sleep 0.3
done
flows_wait
h0=$(v cpe handshakes "$k")
r0=$(v cpe egr.peer_restarts "$k")
read -r est _ t_est < <(an log cpe "$(new_session conc)" "$s" "$s")
up=$(an first "$s" "$s" "npid == ${DPID[conc]} and c('path.dsl.up') == 1 and
	c('path.lte.up') == 1 and n('path.dsl.up') == 1 and
	n('path.lte.up') == 1 and n('handshakes') == 1")
bonded=-1
if [ "$t_est" != -1 ]; then
	bonded=$(an grown "$t_est" "$s" cpe:path.dsl.data_rx \
		cpe:path.lte.data_rx conc:path.dsl.data_rx)
fi
gaps storm "$(plus "$FLOW_T0" 200)" "$(flow_t1 8)"
sleep 1
rss1=$(vmrss "$cpe_pid" 2>/dev/null || echo -)
ks=$(dms "$k" "$s")
echo "  last start $ks ms after the first kill; from the last start (from" \
	"the first kill): CPE \"session established\" after $est" \
	"($(ms_plus "$est" "$ks")) ms; new session up on both ends after $up" \
	"($(ms_plus "$up" "$ks")) ms, bonded again after $bonded" \
	"($(ms_plus "$bonded" "$ks")) ms"
echo "  CPE: handshakes $h0 -> $(v cpe handshakes "$FLOW_END")," \
	"egr.peer_restarts $r0 -> $(v cpe egr.peer_restarts "$FLOW_END");" \
	"VmRSS $rss0 -> $rss1 kB, VmHWM $(awk '/^VmHWM/ { print $2 }' \
		"/proc/$cpe_pid/status" 2>/dev/null) kB"
flow_report storm
chk "restart storm: the session back within 2 s of the last start" \
	'u >= 0 && u <= b' "u=$up" "b=$RESTART_MS"
chk "restart storm: traffic bonded again within 2 s of the last start" \
	'x >= 0 && x <= b' "x=$bonded" "b=$RESTART_MS"
chk "restart storm: the CPE daemon is the same process" 'p0 == p1' \
	"p0=$cpe_pid" "p1=$(v cpe pid "$FLOW_END")"
# (ASan's quarantine keeps freed memory: figures only in that build)
rate_check "restart storm: the CPE's memory flat (VmRSS < 256 KiB more)" \
	'r1 - r0 < 256' "r0=$rss0" "r1=$rss1"
chk "restart storm: the CPE saw the restarts (peer_restarts + 1..5)" \
	'r1 - r0 >= 1 && r1 - r0 <= 5' "r0=$r0" \
	"r1=$(v cpe egr.peer_restarts "$FLOW_END")"
no_false_loss "restart storm" storm "$FLOW_T0" "$FLOW_END" 0 "$k" \
	"$(plus "$s" "$(((bonded < 0 ? 9000 : bonded) + 500))")"

# ---- 4. the CPE's WAN address changes ----------------------------------------

# wan_change NAME WHAT CMD...: the flows, CMD 3 s in; LTE must carry again
# (DATA down at the CPE, anything up at the concentrator) within
# dead_after_ms + 300 ms, the flows must not stall longer, the CPE must
# log that it reopened the path's socket, no session restart.
wan_change() {
	local name=$1 what=$2 e e_end sd rd su ru back reopen n_reopen
	shift 2
	wait_session || true
	flows_start "$name" 7
	at "$FLOW_T0" 3
	e=$(now)
	"$@"
	e_end=$(now)
	flows_wait
	read -r sd rd < <(an stall cpe path.lte.data_rx "$e" "$(plus "$e" 200)" "$e")
	read -r su ru < <(an stall conc path.lte.rx_pkts "$e" "$(plus "$e" 200)" "$e")
	# normal spacing: DATA downstream grows at every poll (20 ms), the
	# control packets upstream at least every report interval (50 ms);
	# a stall of 3 of those is the change's
	back=0
	[ "$sd" -gt 60 ] && back=$rd
	[ "$su" -gt 150 ] && [ "$ru" -gt "$back" ] && back=$ru
	{ [ "$rd" = -1 ] || [ "$ru" = -1 ]; } && back=-1
	read -r reopen n_reopen _ < <(an log cpe \
		'path lte: .*socket on lte opened again' "$e" "$e")
	gaps "$name" "$(plus "$FLOW_T0" 200)" "$(flow_t1 7)"
	echo "  $what took $(dms "$e" "$e_end") ms (commands); the CPE logged" \
		"the reopen $reopen ms after the start ($n_reopen lines);" \
		"path.lte.socket $(v cpe path.lte.socket "$e") ->" \
		"$(v cpe path.lte.socket "$FLOW_END")"
	echo "  LTE: DATA down at the CPE stalled $sd ms (until $rd ms after" \
		"the change), packets up at the concentrator stalled $su ms" \
		"(until $ru ms): LTE carries again after $back ms;" \
		"concentrator's peer $(v conc path.lte.peer "$e") ->" \
		"$(v conc path.lte.peer "$FLOW_END"); CPE lte tx_errors" \
		"$(v cpe path.lte.tx_errors "$e") -> $(v cpe path.lte.tx_errors "$FLOW_END")," \
		"ctrl_errors $(v cpe path.lte.ctrl_errors "$e") ->" \
		"$(v cpe path.lte.ctrl_errors "$FLOW_END"), down_events" \
		"$(v cpe path.lte.down_events "$e") -> $(v cpe path.lte.down_events "$FLOW_END")"
	flow_report "$name"
	path_loss
	chk "$what: LTE carries again within dead_after_ms + 300 ms" \
		'x >= 0 && x <= b' "x=$back" "b=$BOUND_MS"
	chk "$what: no flow stalled longer than dead_after_ms + 300 ms" \
		'd <= b && u <= b' "d=$GAP_DOWN" "u=$GAP_UP" "b=$BOUND_MS"
	chk "$what: the CPE reopened the lte path's socket (log, path.lte.reopens)" \
		'n >= 1 && r1 > r0' "n=$n_reopen" \
		"r0=$(v cpe path.lte.reopens "$e")" \
		"r1=$(v cpe path.lte.reopens "$FLOW_END")"
	chk "$what: the same daemons, no session restart" \
		'cp0 == cp1 && np0 == np1 && ch0 == ch1 && nh0 == nh1' \
		"cp0=$(v cpe pid "$e")" "cp1=$(v cpe pid "$FLOW_END")" \
		"np0=$(v conc pid "$e")" "np1=$(v conc pid "$FLOW_END")" \
		"ch0=$(v cpe handshakes "$e")" "ch1=$(v cpe handshakes "$FLOW_END")" \
		"nh0=$(v conc handshakes "$e")" "nh1=$(v conc handshakes "$FLOW_END")"
	no_false_loss "$what" "$name" "$FLOW_T0" "$FLOW_END" 0
}

# 4a: a new lease: 10.21.0.1 -> 10.23.0.1, the carrier's side with it
new_lease() {
	tb_exec cpe ip addr del "$TB_CPE_LTE_IP/24" dev lte
	tb_exec cpe ip addr add "$CPE_LTE_IP2/24" dev lte
	tb_exec lte ip addr add "$LTE_CPE_IP2/24" dev cpe
	tb_exec lte ip addr del "$TB_LTE_CPE_IP/24" dev cpe
	tb_exec cpe ip route replace 10.22.0.0/24 via "$LTE_CPE_IP2" dev lte
	tb_exec cpe ip route replace default via "$LTE_CPE_IP2" dev lte \
		table "$TB_LTE_MARK"
	tb_exec lte ip route replace 10.0.1.0/24 via "$CPE_LTE_IP2"
}

# 4b: the link goes away and comes back as a new device (PPPoE
# reconnect), made as lib.sh makes it: veth, one-CPU RPS, addresses,
# routes, the downstream tbf
relink() {
	local up down
	ip -n "$(tb_ns cpe)" link del lte
	tb__veth cpe lte lte cpe
	up=$(printf '%x' $((1 << 0)))
	down=$(printf '%x' $((1 << (1 % $(nproc)))))
	tb_exec lte sh -c "echo $up > /sys/class/net/cpe/queues/rx-0/rps_cpus"
	tb_exec cpe sh -c "echo $down > /sys/class/net/lte/queues/rx-0/rps_cpus"
	tb__addr cpe lte "$TB_CPE_LTE_IP"
	tb__addr lte cpe "$TB_LTE_CPE_IP"
	tb_exec cpe ip route add 10.22.0.0/24 via "$TB_LTE_CPE_IP" dev lte
	tb_exec cpe ip route add default via "$TB_LTE_CPE_IP" dev lte \
		table "$TB_LTE_MARK"
	tb_exec lte ip route replace 10.0.1.0/24 via "$TB_CPE_LTE_IP"
	tb__tbf lte cpe "$(tb__param lte down rate 0)" \
		"$(tb__param lte down qlat 50)"
}

echo "-- 4a. the CPE's LTE address changes (at ${SECONDS} s)"
wan_change addr "LTE address change" new_lease

echo "-- 4b. the CPE's lte device deleted and created again (at ${SECONDS} s)"
ifindex0=$(tb_exec cpe cat /sys/class/net/lte/ifindex)
wan_change veth "lte device re-created" relink
echo "  lte ifindex $ifindex0 -> $(tb_exec cpe cat /sys/class/net/lte/ifindex)"

touch "$TB_DIR/poll.stop"
tb_wait "$POLLER" 5 || true
echo "-- done (at ${SECONDS} s)"
tb_done
