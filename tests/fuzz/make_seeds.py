#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Writes the seed corpora of the fuzz targets into corpus/<target>/.

The seeds are one valid input of each kind the target knows (every packet
type, both inner IP versions; the sample configs and a few variants; each
runtime key) and a few near misses, so that libFuzzer starts from inputs
that reach deep instead of rediscovering the formats.  Run it from
anywhere; it rewrites the files it owns and leaves others alone.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def put(target, name, data):
    path = os.path.join(HERE, "corpus", target, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(path, "wb") as f:
        f.write(data)


FLOW_FIRST, RESENT, DUP = 0x01, 0x02, 0x04


def hdr(typ, path=0, pgap=0, session=42, pn=1, gseq=1, lseq=0, ts=1000,
        fgap=0, flags=0, cls=0, ver=4):
    """The wire v4 header: 32 bytes, pn (u64) after the session id, then
    fgap, flags and cls after the timestamp (v3's layout; v4 gave the
    report entries' flags byte a meaning).  (The v1, v2 and v3 seeds are
    kept in regress/fuzz_wire/ as they were written.)"""
    return struct.pack(">BBHIQIIIHBB", ver << 4 | typ, path, pgap, session,
                       pn, gseq, lseq, ts, fgap, flags, cls)


TAG = bytes(range(16))


def ipv4(payload_len):
    total = 20 + payload_len
    return (struct.pack(">BBHHHBBH4s4s", 0x45, 0, total, 1, 0, 64, 17, 0,
                        bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])) +
            bytes(payload_len))


def ipv6(payload_len):
    return (struct.pack(">IHBB16s16s", 0x60000000, payload_len, 17, 64,
                        bytes(16), bytes(15) + b"\x01") + bytes(payload_len))


def report(entries, flags=0, zero=0):
    """entries: (path, rx, lost, delay_us, lseq_next); 20 bytes each, the
    flags byte (WIRE_RF_*: BACKUP 0x01, no other) and the u16 zero after
    the path."""
    body = struct.pack(">B3x", len(entries))
    for p, rx, lost, delay, lnext in entries:
        body += struct.pack(">BBHIIII", p, flags, zero, rx, lost, delay,
                            lnext)
    return body


def wire():
    t = "fuzz_wire"
    hs = 1 << 63  # HELLO/HELLO_ACK: a random pn with the top bit set
    put(t, "data_ipv4", hdr(1, path=1, pgap=3, pn=7, gseq=7, lseq=5, fgap=2,
                            cls=1) + ipv4(8) + TAG)
    put(t, "data_ipv4_options", hdr(1, path=15, pn=0, flags=FLOW_FIRST) +
        bytes([0x46]) + ipv4(4)[1:2] + struct.pack(">H", 24) + ipv4(4)[4:] + TAG)
    put(t, "data_ipv6", hdr(1, path=2, pn=2**64 - 1, gseq=0xffffffff, lseq=9,
                            fgap=0xffff, flags=RESENT | DUP, cls=255) +
        ipv6(12) + TAG)
    put(t, "data_flow_first_all_flags",
        hdr(1, path=3, pn=9, gseq=9, lseq=1,
            flags=FLOW_FIRST | RESENT | DUP, cls=7) + ipv4(0) + TAG)
    put(t, "report_0", hdr(2, pn=3, gseq=3) + report([]) + TAG)
    put(t, "report_3", hdr(2, pn=4, gseq=4) +
        report([(0, 100, 1, 500, 101), (1, 90, 0, 40000, 0),
                (15, 1, 2, 3, 0xffffffff)]) + TAG)
    put(t, "report_16", hdr(2, pn=5, gseq=5) +
        report([(i, i, i, i, i + 1) for i in range(16)]) + TAG)
    # accepted: the u16 zero of the entries is ignored (re-encoded as 0)
    put(t, "report_zero_bytes_set", hdr(2, pn=10, gseq=10) +
        report([(2, 5, 0, 0, 6)], zero=0xffff) + TAG)
    put(t, "probe", hdr(3, path=1, pn=6) + struct.pack(">II", 9, 77) + TAG)
    put(t, "probe_ack", hdr(4, path=1, pn=8) + struct.pack(">II", 9, 1000) + TAG)
    put(t, "hello", hdr(5, pn=hs | 0x1234) +
        struct.pack(">Q", 0x0123456789abcdef) + TAG)
    put(t, "hello_ack", hdr(6, path=3, pn=hs | 0x5678) +
        struct.pack(">QQ", 0x0123456789abcdef, 0xfedcba9876543210) + TAG)
    # near misses: one reason each
    put(t, "bad_short", hdr(5) + TAG[:15])
    put(t, "bad_version", hdr(5, ver=1) + struct.pack(">Q", 1) + TAG)
    put(t, "bad_report_dup", hdr(2) + report([(1, 1, 1, 1, 1), (1, 2, 2, 2, 2)]) +
        TAG)
    put(t, "bad_control_seq", hdr(3, lseq=1) + struct.pack(">II", 1, 1) + TAG)
    put(t, "bad_control_flow", hdr(4, fgap=1, flags=RESENT, cls=1) +
        struct.pack(">II", 1, 1) + TAG)
    put(t, "bad_flags_unknown", hdr(1, flags=0x08) + ipv4(8) + TAG)
    put(t, "bad_flags_first_with_fgap", hdr(1, fgap=1, flags=FLOW_FIRST) +
        ipv4(8) + TAG)
    put(t, "report_backup", hdr(2, pn=11, gseq=11) +
        report([(1, 1, 1, 1, 1)], flags=1) + TAG)
    put(t, "bad_report_flags", hdr(2) + report([(1, 1, 1, 1, 1)], flags=2) +
        TAG)
    put(t, "bad_version_3", hdr(5, ver=3) + struct.pack(">Q", 1) + TAG)
    put(t, "bad_version_2", hdr(5, ver=2) + struct.pack(">Q", 1) + TAG)
    put(t, "bad_inner_len", hdr(1) + ipv4(8)[:-1] + TAG)
    put(t, "bad_hello_len", hdr(5, pn=hs) + struct.pack(">QQ", 1, 2) + TAG)
    put(t, "bad_hello_ack_len", hdr(6, pn=hs) + struct.pack(">Q", 1) + TAG)
    # TRAIN: id, index, count, then padding the parser ignores (re-encoded
    # as zeros); TRAIN_ACK: id, got, count, bytes, dt_us
    put(t, "train", hdr(8, path=2, pn=12, gseq=12) +
        struct.pack(">IHH", 0xfeedf00d, 255, 256) + bytes(16) + TAG)
    put(t, "train_no_padding", hdr(8, path=1, pn=13, gseq=13) +
        struct.pack(">IHH", 1, 0, 2) + TAG)
    put(t, "train_padding_set", hdr(8, path=15, pn=14, gseq=14) +
        struct.pack(">IHH", 7, 1, 2) + b"\xff" * 41 + TAG)
    put(t, "train_ack", hdr(9, path=13, pn=15, gseq=15) +
        struct.pack(">IHHII", 0xfeedf00d, 254, 256, 120000, 1000) + TAG)
    put(t, "bad_train_count", hdr(8) + struct.pack(">IHH", 1, 0, 257) +
        bytes(8) + TAG)
    put(t, "bad_train_idx", hdr(8) + struct.pack(">IHH", 1, 2, 2) + TAG)
    put(t, "bad_train_len", hdr(8) + struct.pack(">IHH", 1, 0, 2)[:7] + TAG)
    put(t, "bad_train_ack_got", hdr(9) +
        struct.pack(">IHHII", 1, 3, 2, 0, 0) + TAG)
    put(t, "bad_train_ack_len", hdr(9) +
        struct.pack(">IHHII", 1, 2, 2, 0, 0) + b"\0" + TAG)


KEY = "AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA="


def conf():
    t = "fuzz_conf"
    for src, name in (("conf/cpe.conf", "cpe.conf"),
                      ("conf/concentrator.conf", "concentrator.conf"),
                      ("tests/unit/conf/minimal.conf", "minimal.conf")):
        with open(os.path.join(ROOT, src), "rb") as f:
            put(t, name, f.read())
    paths = ('paths = ( { name = "dsl"; class = "fixed"; interface = "eth0"; },\n'
             '  { name = "lte-1"; class = "mobile"; interface = "wwan0";\n'
             '    fwmark = 0xffffffff; peer_port = 65535; mtu = 576; } );\n')
    put(t, "concentrator_prefixes.conf",
        'role = "concentrator";\nsession_id = 0xffffffff;\n'
        'key = "' + KEY + '"; encrypt = true;\n' + paths +
        'prefixes = [ "10.0.0.0/8", "192.168.1.0/24", "0.0.0.0/0" ];\n'
        'ingress_queue = 7; egress_queue = 8; log_level = "debug";\n'
        'control_socket = ""; control_group = "_ops-1";\n')
    put(t, "cpe_lists.conf",
        '// every comment style\n/* block\n comment */ # hash\n'
        'role = "cpe"; session_id = 1L; k = 1e-1; t_report_ms = 10;\n'
        'key = "/////////////////////////////////////////wE="; encrypt = false;\n'
        't_dwd_ms = 60000; reorder_capacity = 1048576; t_lto_ms = 10000;\n'
        'paths = ( { name = "a"; class = "fixed"; interface = "a0";\n'
        '  peer = "2001:db8::2"; mtu = 65535; },\n'
        ' { name = "b"; class = "mobile"; interface = "b0";\n'
        '  peer = "198.51.100.1"; mtu = 1500; } );\n'
        'lan_interfaces = ( "br-lan", "eth1" ); bond_output = true;\n'
        'release_mark = 0x100;\n')
    put(t, "cpe_classes.conf",
        'role = "cpe"; session_id = 1;\nkey = "' + KEY + '";\n'
        'paths = ( { name = "dsl"; class = "fixed"; interface = "d0";\n'
        '  peer = "192.0.2.1"; },\n'
        ' { name = "lte"; class = "mobile"; interface = "l0";\n'
        '  peer = "192.0.2.1"; } );\n'
        'lan_interfaces = [ "br-lan" ];\n'
        'traffic_classes = (\n'
        ' { name = "voip"; match = { family = 4; dscp = [ 46, 34 ];\n'
        '   proto = ( "udp", 6 ); sport = ( 5060, "10000-20000" );\n'
        '   dport = [ "0-1023" ]; src = [ "10.0.0.0/8" ];\n'
        '   dst = [ "0.0.0.0/0" ]; };\n'
        '   mode = "pin"; path = "lte"; fallback = true; },\n'
        ' { name = "v6"; match = { src = [ "2001:db8::/32", "10.1.0.0/16" ];\n'
        '   }; mode = "redundant"; },\n'
        ' { name = "all"; match = {}; mode = "flow"; } );\n')
    put(t, "wide_int.conf",
        'role = "cpe";\nsession_id = 4294967297;\nkey = "' + KEY + '";\n' +
        paths)
    put(t, "bad_key.conf",
        'role = "cpe";\nsession_id = 1;\nkey = "' + KEY[:-1] + '";\n' + paths)
    put(t, "bad_key_zero.conf",
        'role = "cpe";\nsession_id = 1;\n'
        'key = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";\n' + paths)
    put(t, "bad_mtu.conf",
        'role = "concentrator";\nsession_id = 1;\nkey = "' + KEY + '";\n' +
        paths.replace('mtu = 576', 'mtu = 575'))
    put(t, "bad_string.conf",
        'role = "cpe\\n\\"x";\nsession_id = 1;\n' + paths)
    put(t, "bad_unknown.conf", 'role = "cpe"; sesion_id = 1;\n')
    put(t, "bad_syntax.conf", 'role = "cpe"\nsession_id = ;\n')


def conf_set():
    t = "fuzz_conf_set"
    put(t, "k", "k=0.7")
    put(t, "k_exp", "k=1e-3\0k=10")
    put(t, "dwd_report", "t_dwd_ms=500\0t_report_ms=100\0t_report_ms=40")
    put(t, "ints", "w_fixed=0x20\0w_mobile_max=0\0t_lto_ms=80\0"
        "dwd_hold_ms=1000\0probe_interval_ms=50\0dead_after_ms=150")
    put(t, "liveness", "probe_interval_ms=600\0dead_after_ms=1100\0"
        "dead_after_ms=1300\0probe_interval_ms=20\0keepalive_ms=500")
    put(t, "bool_level", "early_release=false\0log_level=debug\0"
        "log_level=loud\0early_release=1")
    put(t, "not_runtime_auth", "key=" + KEY + "\0encrypt=true\0mtu=1400\0"
        "paths[1].mtu=1400\0k=0.7")
    put(t, "not_runtime", "port=1\0paths=1\0nosuch=1\0k\0=")
    put(t, "bad_text", "k=1;x=2\0t_dwd_ms=-\0dead_after_ms=99999999999")
    # a runtime key since issue 11 (a reload applied it, set refused it)
    put(t, "release_mark", "release_mark=0x100\0release_mark=256\0"
        "release_mark=2147483647\0release_mark=-1\0"
        "release_mark=4294967296\0release_mark=4294967295")


wire()
conf()
conf_set()
