#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Known answers for the key derivations of common/auth.h, computed with
Python's hashlib BLAKE2b (an implementation independent of libsodium), so
that tests/unit/test_auth.c pins the constructions byte for byte: a changed
label, context, byte order or parameter would change these values.

  K_hello[dir] = crypto_kdf_derive_from_key(32, dir, "l3bhello", PSK)
               = BLAKE2b-256(key = PSK, msg = "",
                             salt = le64(dir) || 8 zero bytes,
                             person = "l3bhello" || 8 zero bytes)
  K_sess[dir]  = BLAKE2b-256(key = PSK,
                   msg = "l3bond-session-v1" || u8 dir || le64 r_cpe
                         || le64 r_conc)

Run: python3 tests/unit/vectors/auth_kdf.py
"""
import hashlib
import struct

PSK = bytes(range(0x20, 0x40))
R_CPE = 0x0123456789ABCDEF
R_CONC = 0xFEDCBA9876543210


def hello(d):
    return hashlib.blake2b(b"", key=PSK, digest_size=32,
                           salt=struct.pack("<Q", d) + bytes(8),
                           person=b"l3bhello" + bytes(8)).hexdigest()


def sess(d, r_cpe, r_conc):
    msg = b"l3bond-session-v1" + bytes([d]) + struct.pack("<QQ", r_cpe,
                                                          r_conc)
    assert len(msg) == 34
    return hashlib.blake2b(msg, key=PSK, digest_size=32).hexdigest()


if __name__ == "__main__":
    print("PSK      ", PSK.hex())
    print("r_cpe     %016x  r_conc %016x" % (R_CPE, R_CONC))
    for d in (1, 2):
        print("K_hello[%d]" % d, hello(d))
    for d in (1, 2):
        print("K_sess[%d] " % d, sess(d, R_CPE, R_CONC))
