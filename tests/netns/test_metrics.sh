#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# End-to-end test of the Prometheus metrics: `l3bondctl metrics` and the
# HTTP exporter l3bond-exporter (gateway/exporter.c, libmicrohttpd), which
# asks the daemon's control socket on each scrape; the daemons of
# test_daemon.sh on the testbed of lib.sh, scraped with curl and raw
# sockets inside the namespaces.  l3bondd itself serves no HTTP.
#
#            LAN                 access links                  LAN
#   cli ---------- cpe ===dsl=== [dsl] ===dsl=== conc ---------- srv
#   10.0.1.2     l3bondd ===lte=== [lte] ===lte=== l3bondd      10.0.2.2
#                exporter                          exporter later, on [::]
#             127.0.0.1:9101                         :9101
#
# Checks, each asserting what it claims:
#   - the strict exposition checker below rejects broken expositions (so
#     that its verdict on ours means something);
#   - l3bondd refuses metrics_port and metrics_address naming the exporter,
#     and listens on no TCP port;
#   - GET /metrics: 200, Content-Type text/plain; version=0.0.4, a
#     Content-Length that matches, Connection: close; the body passes the
#     checker (every line parses, HELP and TYPE once per family before its
#     samples, families not interleaved, valid names, counters end in
#     _total with integer values, no duplicate series);
#   - `l3bondctl metrics` passes the checker and has the exporter's series
#     but the exporter's own (l3bond_metrics_*);
#   - the series the operators rely on exist (build, with CMakeLists.txt's
#     version, role, path up, path tx bytes); idle, the metrics equal the status file (the same walk);
#   - during a UDP flow l3bond_path_tx_bytes_total{path="dsl"} grows scrape
#     after scrape; the counters agree with l3b-traffic: ingress bonded =
#     packets sent, paths' DATA = bonded, egress released = packets
#     received;
#   - HEAD, GET /, 404, 405 (with Allow), 400, 505, 431, 414, a NUL in the
#     target, a half request; l3bond_metrics_requests_total counts the
#     replies the exporter makes (200, 404, 405), the ones libmicrohttpd
#     refuses itself count as connections closed without our reply;
#   - connections: 15 idle ones and a scrape answered at once; 5 more: one
#     takes the last of the 16 slots, 4 are closed at once ("busy"); the
#     16 idle ones closed after the 5 s timeout; 16 requests in progress:
#     a 17th connection is closed at once, the 16 are answered;
#   - bound to 127.0.0.1: refused from cli and on the cpe's LAN address;
#   - "::" with the port taken: the exporter exits 1 naming address and
#     port, the daemon runs on; then listening IPv6 only (IPV6_V6ONLY):
#     [::1] answers, 127.0.0.1 is refused; the daemon stopped: 503;
#   - SIGTERM: exit 0, the listener gone.
#
# usage: test_metrics.sh [BUILD_DIR]   (l3bondd, l3bondctl and
# l3bond-exporter in BUILD_DIR/gateway, the tools in BUILD_DIR/tests/tools
# unless L3B_TOOLS_DIR says otherwise)
# Exit 0 if all checks pass, 1 if any fails, 77 (skip) when not root.
set -Eeuo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
L3BONDD=${L3BONDD:-$build/gateway/l3bondd}
L3BONDCTL=${L3BONDCTL:-$build/gateway/l3bondctl}
EXPORTER=${EXPORTER:-$build/gateway/l3bond-exporter}
export L3B_TOOLS_DIR=${L3B_TOOLS_DIR:-$build/tests/tools}
# our own namespaces, apart from any other test's
TB_PREFIX=${TB_PREFIX:-l3bm-$$-}

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: needs root (network namespaces)"
	exit 77
fi
for tool in ip tc iptables awk ss; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP: $tool not installed"
		exit 77
	fi
done
# scripts/deps.sh installs both: without them the test fails, not skips
for tool in curl python3; do
	if ! command -v "$tool" >/dev/null; then
		echo "FAIL: $tool missing (scripts/deps.sh installs it)"
		exit 1
	fi
done
for bin in "$L3BONDD" "$L3BONDCTL" "$EXPORTER"; do
	if [ ! -x "$bin" ]; then
		echo "FAIL: no $bin"
		exit 1
	fi
done

# shellcheck source=lib.sh
source "$here/lib.sh"

# shellcheck source=daemon_lib.sh
source "$here/daemon_lib.sh"

MPORT=9101
URL=http://127.0.0.1:$MPORT
CT='text/plain; version=0.0.4; charset=utf-8'

tb_init

# ---- python helpers, as files (tb_bg runs them in the background) -------------

# The strict checker of the text exposition format 0.0.4, as this project
# writes it: only HELP and TYPE comments, both for every family and before
# its samples, families not interleaved, counters named *_total with
# integer values, no duplicate series.  --selftest: it must reject each of
# a list of broken expositions and accept a good one.
cat >"$TB_DIR/check_expo.py" <<'EOF'
import re, sys
NAME = r'[a-zA-Z_:][a-zA-Z0-9_:]*'
LNAME = r'[a-zA-Z_][a-zA-Z0-9_]*'
LVAL = r'"(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE = re.compile(r'^(%s)(?:\{(%s=%s(?:,%s=%s)*,?)?\})? (\S+)(?: -?[0-9]+)?$'
                    % (NAME, LNAME, LVAL, LNAME, LVAL))
LABEL = re.compile(r'(%s)=(%s)' % (LNAME, LVAL))
FLOAT = re.compile(r'^(?:[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?'
                   r'|NaN|[+-]Inf)$')

def check(text):
    errs = []
    if not text:
        return ['empty']
    if not text.endswith('\n'):
        errs.append('no final newline')
    helps, types, done, seen = {}, {}, set(), set()
    cur = None
    for n, line in enumerate(text.split('\n')[:-1], 1):
        def e(msg):
            errs.append('line %d: %s: %r' % (n, msg, line[:120]))
        if line.startswith('#'):
            m = re.match(r'^# (HELP|TYPE) (%s) (.*)$' % NAME, line)
            if not m:
                e('not a HELP or TYPE line')
                continue
            kind, name, rest = m.groups()
            if name != cur:
                if name in done or name in helps or name in types:
                    e('family %s interleaved or repeated' % name)
                if cur is not None:
                    done.add(cur)
                cur = name
            if kind == 'HELP':
                if name in helps:
                    e('second HELP')
                if name in types:
                    e('HELP after TYPE')
                if re.search(r'\\[^\\n]|\\$', re.sub(r'\\\\', '', rest)):
                    e('bad escape in HELP')
                helps[name] = rest
            else:
                if name in types:
                    e('second TYPE')
                if rest not in ('counter', 'gauge'):
                    e('type not counter or gauge')
                if rest == 'counter' and not name.endswith('_total'):
                    e('counter not named *_total')
                types[name] = rest
            continue
        m = SAMPLE.match(line)
        if not m:
            e('not a sample line')
            continue
        name, labels, value = m.groups()
        if name != cur:
            e('sample outside its family (%s)' % cur)
            continue
        if name not in helps or name not in types:
            e('sample before HELP and TYPE')
        if not FLOAT.match(value):
            e('bad value')
        if types.get(name) == 'counter' and not re.match(r'^[0-9]+$', value):
            e('counter value not an integer')
        lbl = LABEL.findall(labels or '')
        names = [k for k, _ in lbl]
        if len(set(names)) != len(names):
            e('label twice')
        key = (name, tuple(sorted(lbl)))
        if key in seen:
            e('duplicate series')
        seen.add(key)
    for f in helps:
        if f not in types:
            errs.append('%s: HELP without TYPE' % f)
    return errs

GOOD = ('# HELP a_total x \\\\ y\\n z\n# TYPE a_total counter\n'
        'a_total{p="d\\"s\\\\l\\n"} 3\na_total{p="l"} 4\n'
        '# HELP b b\n# TYPE b gauge\nb -1.5e-3\nb{x="1"} +Inf\nb{x="2"} NaN\n')
BAD = {
    'no newline': '# HELP b b\n# TYPE b gauge\nb 1',
    'no HELP': '# TYPE b gauge\nb 1\n',
    'no TYPE': '# HELP b b\nb 1\n',
    'TYPE after sample': '# HELP b b\nb 1\n# TYPE b gauge\n',
    'interleaved': '# HELP a a\n# TYPE a gauge\na{x="1"} 1\n# HELP b b\n'
                   '# TYPE b gauge\nb 1\na{x="2"} 1\n',
    'family twice': '# HELP a a\n# TYPE a gauge\na 1\n# HELP b b\n'
                    '# TYPE b gauge\nb 1\n# HELP a a\n# TYPE a gauge\n',
    'bad name': '# HELP 1a a\n# TYPE 1a gauge\n1a 1\n',
    'bad label escape': '# HELP a a\n# TYPE a gauge\na{x="\\t"} 1\n',
    'raw quote': '# HELP a a\n# TYPE a gauge\na{x="a"b"} 1\n',
    'counter no _total': '# HELP a a\n# TYPE a counter\na 1\n',
    'counter float': '# HELP a_total a\n# TYPE a_total counter\na_total 1.5\n',
    'bad value': '# HELP a a\n# TYPE a gauge\na one\n',
    'duplicate': '# HELP a a\n# TYPE a gauge\na{x="1"} 1\na{x="1"} 2\n',
    'other comment': '# HELP a a\n# TYPE a gauge\n# hello\na 1\n',
    'blank line': '# HELP a a\n# TYPE a gauge\n\na 1\n',
    'bad type': '# HELP a a\n# TYPE a untyped\na 1\n',
    'bad HELP escape': '# HELP a x\\y\n# TYPE a gauge\na 1\n',
}

if __name__ == '__main__':
    if sys.argv[1] == '--selftest':
        bad = [k for k, v in BAD.items() if not check(v)]
        good = check(GOOD)
        for k in bad:
            print('checker accepted broken exposition:', k)
        for x in good:
            print('checker refused good exposition:', x)
        sys.exit(1 if bad or good else 0)
    errs = check(open(sys.argv[1], encoding='utf-8').read())
    for x in errs[:20]:
        print('exposition:', x)
    sys.exit(1 if errs else 0)
EOF

# Raw requests, one connection each: prints "ok WHAT" or "bad WHAT: why",
# "sent CODE N" per status code the exporter answers itself, and "mhd N"
# for the requests libmicrohttpd refuses before they reach it.
cat >"$TB_DIR/http_cases.py" <<'EOF'
import collections, socket, sys
host, port = sys.argv[1], int(sys.argv[2])
sent = collections.Counter()
mhd = 0

def raw(data, shut=False):
    s = socket.create_connection((host, port), timeout=8)
    s.sendall(data)
    if shut:
        s.shutdown(socket.SHUT_WR)
    out = b''
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except OSError as e:
        out += ('<%s>' % e).encode()
    s.close()
    return out

def split(r):
    head, _, body = r.partition(b'\r\n\r\n')
    lines = head.split(b'\r\n')
    p = lines[0].split(b' ', 2)
    code = int(p[1]) if len(p) > 1 and p[0] == b'HTTP/1.1' and p[1].isdigit() else 0
    hdr = {}
    for l in lines[1:]:
        k, _, v = l.partition(b':')
        hdr[k.strip().lower().decode()] = v.strip().decode()
    return code, hdr, body

# want 0: closed without a reply.  ours: the exporter's handler answers
# (counted by code), else libmicrohttpd refuses it (counted as a
# connection closed without our reply).
def case(what, data, want, shut=False, allow=False, ours=True):
    global mhd
    r = raw(data, shut)
    code, hdr, body = split(r)
    if ours:
        sent[want] += 1
    else:
        mhd += 1
    why = []
    if code != want:
        why.append('status %d, want %d (%r)' % (code, want, r[:80]))
    if want and not ours:
        pass  # libmicrohttpd's own replies: status only
    elif want:
        if hdr.get('connection') != 'close':
            why.append('no Connection: close')
        if hdr.get('content-length') != str(len(body)):
            why.append('Content-Length %s, body %d' % (hdr.get('content-length'), len(body)))
    elif r:
        why.append('a reply: %r' % r[:80])
    if allow and hdr.get('allow') != 'GET, HEAD':
        why.append('Allow: %r' % hdr.get('allow'))
    print(('bad %s: %s' % (what, '; '.join(why))) if why else 'ok ' + what)

case('404 for /nope', b'GET /nope HTTP/1.1\r\nHost: x\r\n\r\n', 404)
case('404 for /metricsx', b'GET /metricsx HTTP/1.1\r\n\r\n', 404)
case('405 with Allow for POST', b'POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc', 405, allow=True)
case('405 with Allow for DELETE', b'DELETE /metrics HTTP/1.1\r\n\r\n', 405, allow=True)
case('400 for a line without version', b'GET /metrics\r\n\r\n', 400, ours=False)
case('closed without a reply for garbage', b'\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n', 0, ours=False)
# the target ends at the NUL: never served as /metrics
case('404 for a NUL in the target', b'GET /met\x00rics HTTP/1.1\r\n\r\n', 404)
case('closed without a reply for half a request, then EOF', b'GET /metrics HTTP/1.1\r\nHost', 0, shut=True, ours=False)
case('505 for HTTP/2.0', b'GET /metrics HTTP/2.0\r\n\r\n', 505, ours=False)
case('431 for a 20 KiB header', b'GET /metrics HTTP/1.1\r\nX-Big: ' + b'a' * 20000 + b'\r\n\r\n', 431, ours=False)
case('414 for a 20 KiB request line', b'GET /' + b'a' * 20000 + b' HTTP/1.1\r\n\r\n', 414, ours=False)
case('200 for a 6 KiB header', b'GET /metrics HTTP/1.1\r\nX-Big: ' + b'a' * 6000 + b'\r\n\r\n', 200)
case('200 for LF line ends and a query', b'GET /metrics?x=1 HTTP/1.0\n\n', 200)
r = raw(b'GET / HTTP/1.1\r\n\r\n')
code, hdr, body = split(r)
sent[200] += 1
if code == 200 and hdr.get('content-type', '').startswith('text/html') and b'href="/metrics"' in body:
    print('ok GET / is a page linking /metrics')
else:
    print('bad GET /: %r' % r[:300])
r = raw(b'HEAD /metrics HTTP/1.1\r\n\r\n')
code, hdr, body = split(r)
sent[200] += 1
if code == 200 and int(hdr.get('content-length', '0')) > 1000 and body == b'' and \
        hdr.get('content-type') == 'text/plain; version=0.0.4; charset=utf-8':
    print('ok HEAD /metrics: headers of the exposition, no body')
else:
    print('bad HEAD /metrics: %r' % r[:300])
for k, v in sorted(sent.items()):
    print('sent %d %d' % (k, v))
print('mhd %d' % mhd)
EOF

# Connection limits (the exporter's default of 16): 15 idle connections
# and a scrape; 5 more; the timeout; 16 requests in progress and a 17th
# connection.  Prints "key value" lines.
cat >"$TB_DIR/conns.py" <<'EOF'
import select, socket, subprocess, sys, time
host, port = sys.argv[1], int(sys.argv[2])

def server_conns():
    out = subprocess.run(['ss', '-tnH', 'state', 'established',
                          '( sport = :%d )' % port], capture_output=True,
                         text=True).stdout
    return len([l for l in out.splitlines() if l.strip()])

def scrape(s):
    s.sendall(b'GET /metrics HTTP/1.1\r\n\r\n')
    r = b''
    while True:
        b = s.recv(65536)
        if not b:
            return r
        r += b

def closed_at_once(c):
    c.settimeout(1)
    try:
        return c.recv(100) == b''
    except socket.timeout:
        return False
    except OSError:
        return True

t0 = time.time()
idle = [socket.create_connection((host, port)) for _ in range(15)]
time.sleep(0.3)
most = server_conns()
t = time.time()
s = socket.create_connection((host, port), timeout=5)
r = scrape(s)
print('idle_scrape_status', r.split(b' ')[1].decode() if r.startswith(b'HTTP/1.1 ') else 0)
print('idle_scrape_ms', int((time.time() - t) * 1000))
s.close()
time.sleep(0.2)
more = [socket.create_connection((host, port)) for _ in range(5)]
print('more_closed_at_once', sum(closed_at_once(c) for c in more))
idle += [c for c in more if c.fileno() >= 0]
most = max(most, server_conns())
# when did the server close each idle connection?
closed = {}
live = [c for c in idle]
while len(closed) < len(live) and time.time() - t0 < 10:
    rd, _, _ = select.select([c for c in live if c not in closed], [], [], 0.1)
    for c in rd:
        try:
            b = c.recv(100)
        except OSError:
            b = b''
        if not b:
            closed[c] = time.time() - t0
    most = max(most, server_conns())
times = sorted(closed.values())
print('idle_closed_5s', len([x for x in times if 4.5 <= x < 7.5]))
print('idle_max_conns', most)
for c in idle:
    c.close()
time.sleep(0.3)
# 16 requests in progress hold every slot: a 17th is closed at once
busy = []
for _ in range(16):
    c = socket.create_connection((host, port))
    c.sendall(b'GET /metr')
    busy.append(c)
time.sleep(0.3)
x = socket.create_connection((host, port))
x.settimeout(3)
t = time.time()
try:
    b = x.recv(100)
except OSError:
    b = b''
print('busy_17th_closed_ms', int((time.time() - t) * 1000) if not b else -1)
x.close()
n = 0
for c in busy:
    c.settimeout(5)
    c.sendall(b'ics HTTP/1.1\r\n\r\n')
for c in busy:
    r = b''
    while True:
        b = c.recv(65536)
        if not b:
            break
        r += b
    n += r.startswith(b'HTTP/1.1 200 OK')
    c.close()
print('busy_answered', n)
EOF

# Scrapes every INTERVAL s for DURATION s: "seconds value" of one series.
cat >"$TB_DIR/scraper.py" <<'EOF'
import sys, time, urllib.request
url, series, dur, step = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
t0 = time.time()
while time.time() - t0 < dur:
    body = urllib.request.urlopen(url, timeout=2).read().decode()
    for line in body.split('\n'):
        if line.startswith(series + ' '):
            print('%.2f %s' % (time.time() - t0, line.split(' ')[1]), flush=True)
    time.sleep(step)
EOF

# Holds a TCP port on "::" until killed.
cat >"$TB_DIR/hold.py" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_INET6)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
s.bind(('::', int(sys.argv[1])))
s.listen()
open(sys.argv[2], 'w').close()
time.sleep(60)
EOF

# ---- helpers ----------------------------------------------------------------------

# scrape BOX URL OUT: body into OUT, headers into OUT.hdr; prints the status
scrape() {
	tb_exec "$1" curl -sS -g --max-time 5 -D "$3.hdr" -o "$3" \
		-w '%{http_code}' "$2" || true
}

# mval FILE SERIES: the value of a series ('name{labels}' exactly)
mval() {
	awk -v s="$2" '$1 == s { print $2; exit }' "$1"
}

# msum FILE SERIES...: the sum of the series' values, "missing" if one is
msum() {
	local f=$1
	shift
	printf '%s\n' "$@" | awk 'FNR == NR { want[$0] = 1; n++; next }
		($1 in want) && !($1 in got) { got[$1] = 1; sum += $2; k++ }
		END { if (k == n) printf "%.0f\n", sum; else print "missing" }' \
		- "$f"
}

# d SERIES...: their summed growth from scrape $M0 to scrape $M1
d() {
	local a b
	a=$(msum "$M0" "$@")
	b=$(msum "$M1" "$@")
	if [ "$a" = missing ] || [ "$b" = missing ]; then
		echo missing
	else
		echo $((b - a))
	fi
}

# hval FILE FIELD: a header field of a reply (case-insensitive name)
hval() {
	tr -d '\r' <"$1" | awk -v f="$2" 'BEGIN { f = tolower(f) }
		{ i = index($0, ":"); if (tolower(substr($0, 1, i - 1)) == f) {
			v = substr($0, i + 1); sub(/^ +/, "", v); print v; exit } }'
}

# expo_ok WHAT FILE: the strict checker on FILE
expo_ok() {
	local out
	if out=$(python3 "$TB_DIR/check_expo.py" "$2" 2>&1); then
		ok "$1: exposition valid"
	else
		bad "$1: $out"
	fi
}

S='session="4242"'

# ---- 0. the checker itself ------------------------------------------------------------

if out=$(python3 "$TB_DIR/check_expo.py" --selftest 2>&1); then
	ok "the exposition checker rejects each broken exposition of its list, accepts a good one"
else
	bad "exposition checker self-test: $out"
fi

# ---- 1. start: the daemons, the exporter on the cpe only -----------------------------------

write_confs 0.5
cp "$TB_DIR/cpe.conf" "$TB_DIR/old.conf"
echo "metrics_port = $MPORT;" >>"$TB_DIR/old.conf"
rc=0
"$L3BONDD" -c "$TB_DIR/old.conf" --check >/dev/null 2>"$TB_DIR/old.err" || rc=$?
check "l3bondd refuses metrics_port, naming the exporter (file:line: key)" \
	'rc != 0 && n == 1' "rc=$rc" \
	"n=$(cnt "old.conf:$(wc -l <"$TB_DIR/old.conf"): metrics_port: moved to l3bond-exporter" <"$TB_DIR/old.err")"
sed -i '$d' "$TB_DIR/old.conf"
echo 'metrics_address = "::";' >>"$TB_DIR/old.conf"
rc=0
"$L3BONDD" -c "$TB_DIR/old.conf" --check >/dev/null 2>"$TB_DIR/old.err" || rc=$?
check "l3bondd refuses metrics_address, naming the exporter" 'rc != 0 && n == 1' \
	"rc=$rc" "n=$(cnt "metrics_address: moved to l3bond-exporter" <"$TB_DIR/old.err")"
tb_setup
ok "testbed up"
daemon_start conc
daemon_start cpe
if wait_up cpe && wait_up conc; then
	ok "both daemons up, both paths up on each"
else
	bad "paths not up"
	cat "$TB_DIR/cpe.log" "$TB_DIR/conc.log"
fi
check "l3bondd listens on no TCP port (cpe, conc)" 'c == 0 && k == 0' \
	"c=$(tb_exec cpe ss -ltnH | wc -l)" "k=$(tb_exec conc ss -ltnH | wc -l)"

# exporter BOX ADDRESS: l3bond-exporter on BOX's socket; XPID[BOX]
declare -A XPID=()
exporter() {
	tb_bg "$1" "$TB_DIR/$1.exporter.log" "$EXPORTER" -s "$(ctl_socket "$1")" \
		-l "$2" -p "$MPORT"
	XPID[$1]=$TB_LAST_PID
	for ((i = 0; i < 50; i++)); do
		grep -q 'listening on\|cannot' "$TB_DIR/$1.exporter.log" 2>/dev/null && break
		tb__ours "${XPID[$1]}" || break
		sleep 0.05
	done
}
exporter cpe 127.0.0.1
check "the exporter logs where it listens and what it asks" 'n == 1' \
	"n=$(cnt "listening on http://127.0.0.1:$MPORT/metrics, asking $(ctl_socket cpe)" <"$TB_DIR/cpe.exporter.log")"
check "cpe: one TCP listener, 127.0.0.1:$MPORT (the exporter's); conc: none" \
	'cn == 1 && cm == 1 && kn == 0' \
	"cn=$(tb_exec cpe ss -ltnH | wc -l)" \
	"cm=$(tb_exec cpe ss -ltnH | cnt " 127.0.0.1:$MPORT ")" \
	"kn=$(tb_exec conc ss -ltnH | wc -l)"

# ---- 2. one scrape -------------------------------------------------------------------------

M=$TB_DIR/m1
code=$(scrape cpe "$URL/metrics" "$M")
check "GET /metrics: 200, Content-Type $CT, Content-Length = body, Connection: close" \
	'code == 200 && ct == 1 && len == size && conn == "close"' \
	"code=$code" "ct=$([ "$(hval "$M.hdr" content-type)" = "$CT" ] && echo 1 || echo 0)" \
	"len=$(hval "$M.hdr" content-length)" "size=$(stat -c %s "$M" 2>/dev/null || echo -1)" \
	"conn=$(hval "$M.hdr" connection)"
expo_ok "first scrape" "$M"
# the version from its one source, CMakeLists.txt, not from this script
VERSION=$(sed -n 's/^project(l3bond VERSION \([0-9.]*\).*/\1/p' "$here/../../CMakeLists.txt")
check "series present: build (CMakeLists.txt's version $VERSION), role, path up, path tx bytes, egress wire by reason (no session label: the queue's own)" \
	'v != "" && b == 1 && r == 1 && up == 2 && tx >= 0 && tx != "" && w > 5' \
	"v=$VERSION" "b=$(grep -cxF "l3bond_build_info{version=\"$VERSION\"} 1" "$M" || true)" \
	"r=$(mval "$M" 'l3bond_role_info{role="cpe"}')" \
	"up=$(msum "$M" "l3bond_path_up{$S,path=\"dsl\"}" "l3bond_path_up{$S,path=\"lte\"}")" \
	"tx=$(mval "$M" "l3bond_path_tx_bytes_total{$S,path=\"dsl\"}")" \
	"w=$(grep -c "^l3bond_egress_wire_total{reason=\"[a-z_]*\"} [0-9]*$" "$M")"
echo "  exposition: $(stat -c %s "$M") bytes, $(grep -c '^# TYPE' "$M") families, $(grep -vc '^#' "$M") samples"
rc=0
"$L3BONDCTL" -s "$(ctl_socket cpe)" metrics >"$TB_DIR/ctl.m" || rc=$?
check "l3bondctl metrics: exit 0" 'rc == 0' "rc=$rc"
expo_ok "l3bondctl metrics" "$TB_DIR/ctl.m"
# series: name and labels, values left out (they move between the two)
series() {
	grep -v '^#' "$1" | sed 's/ [^ ]*$//' | grep -v '^l3bond_metrics_' | sort
}
check "l3bondctl metrics has the exporter's series but the exporter's own (l3bond_metrics_*)" \
	'n > 100 && d == 0 && own == 0' "n=$(series "$TB_DIR/ctl.m" | wc -l)" \
	"d=$(diff <(series "$M") <(series "$TB_DIR/ctl.m") | grep -c '^[<>]' || true)" \
	"own=$(grep -c '^l3bond_metrics_' "$TB_DIR/ctl.m" || true)"
# a figure, not asserted: what a scrape costs, client included
tb_exec cpe python3 - "$URL/metrics" <<'EOF' || true
import sys, time, urllib.request
t = time.time()
for _ in range(200):
    urllib.request.urlopen(sys.argv[1], timeout=2).read()
print('  200 scrapes in a row: %.2f ms each' % ((time.time() - t) * 1000 / 200))
EOF

# ---- 3. counters during a UDP flow ------------------------------------------------------------

settle
M0=$TB_DIR/m-up0
scrape cpe "$URL/metrics" "$M0" >/dev/null
series="l3bond_path_tx_bytes_total{$S,path=\"dsl\"}"
tb_bg cpe "$TB_DIR/scraper.log" python3 "$TB_DIR/scraper.py" "$URL/metrics" \
	"$series" 5 0.4
scraper=$TB_LAST_PID
sleep 0.5
udp cli srv "$TB_SRV_IP" up10 --rate 10 --size 1400
tb_wait "$scraper" 10 || true
M1=$TB_DIR/m-up1
scrape cpe "$URL/metrics" "$M1" >/dev/null
# strictly growing steps while the flow ran (3 s at 0.4 s intervals)
check "l3bond_path_tx_bytes_total{path=\"dsl\"} grows during the flow, scrape after scrape" \
	'steps >= 4 && back == 0' \
	"steps=$(awk 'NR > 1 && $2 > prev { n++ } { prev = $2 } END { print n + 0 }' "$TB_DIR/scraper.log")" \
	"back=$(awk 'NR > 1 && $2 < prev { n++ } { prev = $2 } END { print n + 0 }' "$TB_DIR/scraper.log")"
# l3b-traffic sends its data, then FIN_COUNT (traffic.c) end markers,
# which the bond carries like any packet
FINS=3
sent=$(jget "$TB_DIR/up10.tx.json" sent)
bonded=$(d "l3bond_ingress_bonded_total{$S}")
txp=$(d "l3bond_path_tx_pkts_total{$S,path=\"dsl\"}" "l3bond_path_tx_pkts_total{$S,path=\"lte\"}")
txb=$(d "l3bond_path_tx_bytes_total{$S,path=\"dsl\"}" "l3bond_path_tx_bytes_total{$S,path=\"lte\"}")
echo "  up flow: sent $sent, ingress bonded $bonded, paths tx $txp packets, $txb bytes"
check "counters agree with l3b-traffic: ingress bonded = sent + $FINS end markers, paths' DATA = bonded, >= 1428 bytes each" \
	'sent > 2000 && bonded == sent + fins && txp == bonded && txb >= 1428 * txp' \
	"sent=$sent" "fins=$FINS" "bonded=$bonded" "txp=$txp" "txb=$txb"

M0=$TB_DIR/m-dn0
scrape cpe "$URL/metrics" "$M0" >/dev/null
udp srv cli "$TB_CLI_IP" down10 --rate 10 --size 1400
M1=$TB_DIR/m-dn1
scrape cpe "$URL/metrics" "$M1" >/dev/null
rel=$(d "l3bond_egress_released_total{$S}")
rxp=$(d "l3bond_path_rx_pkts_total{$S,path=\"dsl\"}" "l3bond_path_rx_pkts_total{$S,path=\"lte\"}")
recv=$(jget "$TB_DIR/down10.rx.json" received)
echo "  down flow: received $recv, egress released $rel, paths rx $rxp packets"
check "counters agree with l3b-traffic: egress released = received + $FINS end markers, paths rx >= released" \
	'recv > 2000 && fin == "true" && rel == recv + fins && rxp >= rel' \
	"recv=$recv" "fin=$(jget "$TB_DIR/down10.rx.json" fin)" "fins=$FINS" \
	"rel=$rel" "rxp=$rxp"
udp_intact down10 "UDP down 10 Mbit/s"

# idle now: the metrics and the status file render the same walk
M=$TB_DIR/m2
scrape cpe "$URL/metrics" "$M" >/dev/null
refresh cpe
"$L3BONDCTL" -s "$(ctl_socket cpe)" metrics >"$TB_DIR/ctl2.m" || true
check "idle: l3bondctl metrics equals the status file (egress released, dsl tx bytes)" \
	'a == b && c == e && a != ""' \
	"a=$(mval "$TB_DIR/ctl2.m" "l3bond_egress_released_total{$S}")" "b=$(st cpe egr.released)" \
	"c=$(mval "$TB_DIR/ctl2.m" "l3bond_path_tx_bytes_total{$S,path=\"dsl\"}")" "e=$(st cpe path.dsl.tx_bytes)"
check "idle: the exporter's metrics equal the status file (egress released, ingress bonded, dsl tx bytes, dsl up)" \
	'a == b && c == e && f == g && h == i && a != ""' \
	"a=$(mval "$M" "l3bond_egress_released_total{$S}")" "b=$(st cpe egr.released)" \
	"c=$(mval "$M" "l3bond_ingress_bonded_total{$S}")" "e=$(st cpe ing.bonded)" \
	"f=$(mval "$M" "l3bond_path_tx_bytes_total{$S,path=\"dsl\"}")" "g=$(st cpe path.dsl.tx_bytes)" \
	"h=$(mval "$M" "l3bond_path_up{$S,path=\"dsl\"}")" "i=$(st cpe path.dsl.up)"
expo_ok "scrape after traffic" "$M"

# ---- 4. HTTP errors, and their counters -------------------------------------------------------

M0=$TB_DIR/m-h0
scrape cpe "$URL/metrics" "$M0" >/dev/null
tb_exec cpe python3 "$TB_DIR/http_cases.py" 127.0.0.1 "$MPORT" >"$TB_DIR/http.out" 2>&1 || true
while read -r verdict what; do
	case $verdict in
	ok) ok "$what" ;;
	bad) bad "$what" ;;
	sent | mhd) ;;
	*) bad "http_cases.py: $verdict $what" ;;
	esac
done <"$TB_DIR/http.out"
M1=$TB_DIR/m-h1
scrape cpe "$URL/metrics" "$M1" >/dev/null
codes_ok=1
for c in 200 404 405; do
	want=$(awk -v c="$c" '$1 == "sent" && $2 == c { print $3 }' "$TB_DIR/http.out")
	# M1's own scrape counts itself as one more 200
	[ "$c" = 200 ] && want=$((${want:-0} + 1))
	got=$(d "l3bond_metrics_requests_total{code=\"$c\"}")
	echo "  requests_total{code=\"$c\"}: +$got (want +${want:-0})"
	[ "$got" = "${want:-0}" ] || codes_ok=0
done
check "l3bond_metrics_requests_total counts every reply of the exporter by code" 'c == 1' "c=$codes_ok"
check "the requests libmicrohttpd refused count as connections closed without our reply (aborted)" \
	'a == m && m >= 6' \
	"a=$(d 'l3bond_metrics_dropped_connections_total{reason="aborted"}')" \
	"m=$(awk '$1 == "mhd" { print $2 }' "$TB_DIR/http.out")"

# ---- 5. connection limits ------------------------------------------------------------------------

M0=$TB_DIR/m-c0
scrape cpe "$URL/metrics" "$M0" >/dev/null
tb_exec cpe python3 "$TB_DIR/conns.py" 127.0.0.1 "$MPORT" >"$TB_DIR/conns.out" 2>&1 || true
kv() {
	awk -v k="$1" '$1 == k { print $2 }' "$TB_DIR/conns.out"
}
sed 's/^/  /' "$TB_DIR/conns.out"
check "15 idle connections: a scrape is answered at once (< 1 s)" \
	's == 200 && ms < 1000' "s=$(kv idle_scrape_status)" "ms=$(kv idle_scrape_ms)"
check "5 more: 4 closed at once, at most 16 open on the server" \
	'm == 4 && most <= 16 && most >= 15' "m=$(kv more_closed_at_once)" \
	"most=$(kv idle_max_conns)"
check "the 16 idle connections closed after the 5 s timeout" 'n == 16' \
	"n=$(kv idle_closed_5s)"
check "16 requests in progress: a 17th connection closed at once, the 16 answered 200" \
	'ms >= 0 && ms < 1000 && n == 16' "ms=$(kv busy_17th_closed_ms)" "n=$(kv busy_answered)"
M1=$TB_DIR/m-c1
scrape cpe "$URL/metrics" "$M1" >/dev/null
check "dropped connections counted: busy +5, timeout +16" \
	'b == 5 && t == 16' \
	"b=$(d 'l3bond_metrics_dropped_connections_total{reason="busy"}')" \
	"t=$(d 'l3bond_metrics_dropped_connections_total{reason="timeout"}')"
check "connections gauge back to the scrape's own" 'n == 1' \
	"n=$(mval "$M1" l3bond_metrics_connections)"

# ---- 6. reachability: 127.0.0.1 only ---------------------------------------------------------

rc=0
tb_exec cli curl -sS --max-time 3 -o /dev/null "http://$TB_CPE_LAN_IP:$MPORT/metrics" \
	2>/dev/null || rc=$?
rc2=0
tb_exec cpe curl -sS --max-time 3 -o /dev/null "http://$TB_CPE_LAN_IP:$MPORT/metrics" \
	2>/dev/null || rc2=$?
code=$(scrape cpe "$URL/metrics" "$TB_DIR/m3")
check "bound to 127.0.0.1: refused from cli and on the cpe's LAN address (curl 7), served on 127.0.0.1" \
	'rc == 7 && rc2 == 7 && code == 200' "rc=$rc" "rc2=$rc2" "code=$code"

# ---- 7. conc: an exporter on "::", the port taken first ------------------------------------------

rm -f "$TB_DIR/hold.ready"
tb_bg conc "$TB_DIR/hold.log" python3 "$TB_DIR/hold.py" "$MPORT" "$TB_DIR/hold.ready"
hold=$TB_LAST_PID
for ((i = 0; i < 50; i++)); do
	[ -e "$TB_DIR/hold.ready" ] && break
	sleep 0.05
done
exporter conc ::
rc=0
tb_wait "${XPID[conc]}" 15 || rc=$?
check "port taken: the exporter exits 1, its log names [::]:$MPORT and the error; the daemon runs on" \
	'rc == 1 && n >= 1 && alive == 1' "rc=$rc" \
	"n=$(cnt "[::]:$MPORT: Address already in use" <"$TB_DIR/conc.exporter.log")" \
	"alive=$(kill -0 "${DPID[conc]}" 2>/dev/null && echo 1 || echo 0)"
sed 's/^/  conc: /' "$TB_DIR/conc.exporter.log"
kill -TERM "$hold"
tb_wait "$hold" 5 || true
exporter conc ::
M=$TB_DIR/m6
code=$(scrape conc "http://[::1]:$MPORT/metrics" "$M")
rc=0
tb_exec conc curl -sS --max-time 3 -o /dev/null "http://127.0.0.1:$MPORT/metrics" \
	2>/dev/null || rc=$?
check "\"::\" is IPv6 only: [::1] answers 200, 127.0.0.1 refused" \
	'code == 200 && rc == 7' "code=$code" "rc=$rc"
expo_ok "conc scrape" "$M"
check "conc's exposition: role concentrator, its peer learnt on lte" \
	'r == 1 && p == 1' \
	"r=$(mval "$M" 'l3bond_role_info{role="concentrator"}')" \
	"p=$(grep -c "^l3bond_path_peer_info{$S,path=\"lte\",peer=\"$TB_LTE_CONC_IP:[0-9]*\"} 1$" "$M")"

# the daemon gone: the scrape says so, and counts it
kill -TERM "${DPID[conc]}"
rc=0
tb_wait "${DPID[conc]}" 10 || rc=$?
check "conc: l3bondd SIGTERM exits 0" 'rc == 0' "rc=$rc"
code=$(scrape conc "http://[::1]:$MPORT/metrics" "$TB_DIR/m7")
check "daemon stopped: 503 naming the socket" 'code == 503 && n == 1' "code=$code" \
	"n=$(cnt "l3bondd unreachable: cannot connect to $(ctl_socket conc)" <"$TB_DIR/m7")"
# the daemon back: the exporter answers again, the 503 counted
daemon_start conc
for ((i = 0; i < 100; i++)); do
	[ -S "$(ctl_socket conc)" ] && break
	sleep 0.05
done
code=$(scrape conc "http://[::1]:$MPORT/metrics" "$TB_DIR/m8")
check "daemon back: 200, the 503 counted in l3bond_metrics_requests_total" \
	'code == 200 && n == 1' "code=$code" \
	"n=$(mval "$TB_DIR/m8" 'l3bond_metrics_requests_total{code="503"}')"
kill -TERM "${DPID[conc]}"
tb_wait "${DPID[conc]}" 10 || true

# ---- 8. SIGTERM: the exporters exit, nothing listens -------------------------------------------------

kill -TERM "${DPID[cpe]}"
tb_wait "${DPID[cpe]}" 10 || true
for box in cpe conc; do
	kill -TERM "${XPID[$box]}"
	rc=0
	tb_wait "${XPID[$box]}" 10 || rc=$?
	check "$box: exporter SIGTERM: exit 0, nothing listens" 'rc == 0 && n == 0' "rc=$rc" \
		"n=$(tb_exec "$box" ss -ltnH | wc -l)"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
