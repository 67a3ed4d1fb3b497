/* SPDX-License-Identifier: BSD-2-Clause */
/* Tunnel authentication: keys, key derivation and per-packet protection.
 *
 * Pure library over libsodium (no home-made primitives, no I/O, no state
 * besides what the caller passes in).  The daemon owns the keys, the packet
 * numbers and the replay windows (common/replay.h).
 *
 * Keys
 *   PSK: 32 random bytes per CPE, in the config as standard base64 with
 *   padding (44 characters); auth_genkey() makes one.
 *
 *   Handshake keys, one per direction, fixed for a PSK:
 *     K_hello[dir] = crypto_kdf_derive_from_key(32, subkey_id = dir,
 *                                               ctx = "l3bhello", PSK)
 *   (BLAKE2b-256 keyed with the PSK, empty input, salt = le64(dir),
 *   personalisation = "l3bhello").
 *
 *   Session keys, one per direction, fresh for every session: the CPE sends
 *   a random 64-bit r_cpe in HELLO, the concentrator a random r_conc in
 *   HELLO_ACK, and both compute
 *     K_sess[dir] = BLAKE2b-256(key = PSK,
 *                   "l3bond-session-v1" || u8 dir || le64 r_cpe || le64 r_conc)
 *   (crypto_generichash, 34 bytes of input, no salt or personalisation, so
 *   its parameter block differs from the crypto_kdf one: the two families
 *   cannot collide).  A session key is new as soon as one side's random
 *   value is: a replayed HELLO meets a fresh r_conc, so no key, and with it
 *   no nonce, is ever reused across sessions or restarts.
 *
 * Directions: AUTH_C2S (CPE -> concentrator) and AUTH_S2C.  Each end seals
 * with the key of its sending direction and opens with the other one.
 *
 * Packet protection: ChaCha20-Poly1305 IETF (RFC 8439) with
 *   nonce = 4 zero bytes || le64 pn
 * where pn is the sender's packet number, unique per key.  Under a session
 * key pn counts from 0, ONE counter per key shared by all paths of the
 * session (two paths must never use the same pn under the same key), and
 * the sender rekeys (new session) before auth_pn_exhausted(pn).  Under a
 * hello key the sender uses pn = its random r | 2^63 (the top bit keeps the
 * two ranges apart, and r is fresh for every HELLO).
 *
 *   AUTH_MAC (default): nothing is encrypted; the tag is the RFC 8439 AEAD
 *   tag of an empty plaintext with associated data = hdr || body, i.e.
 *     Poly1305(otk, hdr || body || pad16 || le64(adlen) || le64(0)).
 *   AUTH_ENCRYPT: associated data = hdr, plaintext = body, encrypted in
 *   place; the tag is the RFC 8439 one:
 *     Poly1305(otk, hdr || pad16 || ct || pad16 || le64(hdrlen) ||
 * le64(ctlen)). otk is the first 32 bytes of the ChaCha20 keystream block 0;
 * the body is encrypted from block 1.  Both modes give bit for bit what
 *   crypto_aead_chacha20poly1305_ietf_encrypt_detached() gives for the same
 *   (ad, m); they are computed here over two separate segments (header and
 *   body need not be contiguous) with libsodium's streaming Poly1305.
 *
 * Which (key, pn) a packet uses, and that pn is on the wire, is the caller's
 * business; these functions only take it.
 */
#ifndef L3BOND_AUTH_H
#define L3BOND_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum auth_limits {
	AUTH_KEY_LEN = 32,
	AUTH_TAG_LEN = 16,
	/* base64 text of a key, with its NUL: 44 characters + 1 */
	AUTH_KEY_B64_LEN = 45,
};

enum auth_dir {
	AUTH_C2S = 1, /* CPE -> concentrator */
	AUTH_S2C = 2, /* concentrator -> CPE */
};

enum auth_mode {
	AUTH_MAC = 0,	  /* authenticate header and body, body in clear */
	AUTH_ENCRYPT = 1, /* authenticate header, encrypt body (AEAD) */
};

/* A PSK or a derived key.  Drop it with auth_key_wipe(). */
struct auth_key {
	uint8_t b[AUTH_KEY_LEN];
};

/* sodium_init(); call once before anything else here.  0, or -1 if
 * libsodium cannot initialise (no randomness source). */
int auth_init(void);

/* A fresh random PSK as base64 text with its NUL into out.  0, or -ENOSPC
 * if len < AUTH_KEY_B64_LEN (out is then left untouched). */
int auth_genkey(char *out, size_t len);

/* Parse a PSK from base64 text.  0, or -EINVAL with *why (if why is not
 * NULL) set to a static reason phrase that reads after "bad value '...': ",
 * e.g. "not 32 bytes of base64" or "an all-zero key".  On error k is
 * zeroed. */
int auth_key_parse(struct auth_key *k, const char *b64, const char **why);

/* 64 random bits from libsodium's generator (getrandom). */
uint64_t auth_random64(void);

/* true if a and b are the same key (compared in constant time) */
bool auth_key_equal(const struct auth_key *a, const struct auth_key *b);

/* Overwrite a key so that it does not linger in memory. */
void auth_key_wipe(struct auth_key *k);

/* The handshake key of a direction (see above). */
void auth_hello_key(struct auth_key *out, const struct auth_key *psk,
		    enum auth_dir dir);

/* The session key of a direction for the random values r_cpe (from HELLO)
 * and r_conc (from HELLO_ACK). */
void auth_session_key(struct auth_key *out, const struct auth_key *psk,
		      enum auth_dir dir, uint64_t r_cpe, uint64_t r_conc);

/* Protect a packet made of hdr (hdrlen bytes) and body (bodylen bytes; the
 * two may be contiguous or not, and either may be empty) under key k and
 * packet number pn: writes the tag, and with AUTH_ENCRYPT encrypts body in
 * place.  Never fails. */
void auth_seal(const struct auth_key *k, uint64_t pn, enum auth_mode mode,
	       const uint8_t *hdr, size_t hdrlen, uint8_t *body, size_t bodylen,
	       uint8_t tag[AUTH_TAG_LEN]);

/* Check a received packet.  The tag is compared in constant time before
 * anything is decrypted.  0: authentic (with AUTH_ENCRYPT, body is now
 * decrypted in place); -EBADMSG: not authentic, body untouched. */
int auth_open(const struct auth_key *k, uint64_t pn, enum auth_mode mode,
	      const uint8_t *hdr, size_t hdrlen, uint8_t *body, size_t bodylen,
	      const uint8_t tag[AUTH_TAG_LEN]);

/* True once a sender's session packet number has reached 2^63: it must
 * start a new session (new key, pn from 0) instead of sending with it.
 * 2^63 leaves half the space as margin (a nonce must never wrap), and keeps
 * session packet numbers apart from hello ones (top bit set).  At 10^7
 * packets/s, 2^63 is 29 000 years away: this is a guard, not a schedule. */
bool auth_pn_exhausted(uint64_t pn);

#endif
