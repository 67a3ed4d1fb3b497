/* SPDX-License-Identifier: BSD-2-Clause */
/* Tunnel authentication over libsodium; see auth.h for the constructions.
 *
 * The packet functions rebuild RFC 8439's AEAD from libsodium's own pieces
 * (ChaCha20 IETF keystream, streaming Poly1305) only so that header and body
 * may sit in two buffers: the result is the one-shot AEAD's, which the unit
 * tests check on every split.  Nothing here allocates; every temporary that
 * holds key material is wiped before returning.
 */
#include "common/auth.h"

#include <errno.h>
#include <string.h>

#include <sodium.h>

_Static_assert(AUTH_KEY_LEN == crypto_aead_chacha20poly1305_ietf_KEYBYTES,
	       "key length");
_Static_assert(AUTH_KEY_LEN == crypto_kdf_KEYBYTES, "kdf key length");
_Static_assert(AUTH_KEY_LEN == crypto_onetimeauth_poly1305_KEYBYTES,
	       "poly1305 key length");
_Static_assert(AUTH_TAG_LEN == crypto_aead_chacha20poly1305_ietf_ABYTES,
	       "tag length");
_Static_assert(crypto_aead_chacha20poly1305_ietf_NPUBBYTES == 12, "nonce");
_Static_assert(AUTH_KEY_B64_LEN ==
		       sodium_base64_ENCODED_LEN(
			       AUTH_KEY_LEN, sodium_base64_VARIANT_ORIGINAL),
	       "base64 key length");

enum {
	NONCE_LEN = 12,
	/* longest base64 text worth decoding: 64 bytes' worth; anything
	 * longer is the wrong length anyway */
	B64_MAX = 88,
};

static const char hello_ctx[crypto_kdf_CONTEXTBYTES] = {'l', '3', 'b', 'h',
							'e', 'l', 'l', 'o'};
static const char sess_label[] = "l3bond-session-v1"; /* used without NUL */

static const uint8_t zeros[16];

static void put_le64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++) {
		p[i] = (uint8_t)(v >> (8 * i));
	}
}

int auth_init(void)
{
	/* 0: initialised now, 1: already was; both fine */
	return sodium_init() < 0 ? -1 : 0;
}

int auth_genkey(char *out, size_t len)
{
	uint8_t key[AUTH_KEY_LEN];

	if (len < AUTH_KEY_B64_LEN) {
		return -ENOSPC;
	}
	/* all-zero has probability 2^-256; not worth a loop */
	randombytes_buf(key, sizeof(key));
	sodium_bin2base64(out, len, key, sizeof(key),
			  sodium_base64_VARIANT_ORIGINAL);
	sodium_memzero(key, sizeof(key));
	return 0;
}

static bool is_b64_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '+' || c == '/' || c == '=';
}

int auth_key_parse(struct auth_key *k, const char *b64, const char **why)
{
	uint8_t buf[B64_MAX / 4 * 3];
	const char *reason = NULL;
	size_t len, n = 0, i;

	memset(k, 0, sizeof(*k));
	if (b64 == NULL || b64[0] == '\0') {
		reason = "empty";
		goto out;
	}
	len = strlen(b64);
	/* Two checks before libsodium's, each with its own reason: a key
	 * pasted with a space or a newline is a common mistake, and a
	 * character outside the alphabet is a different one. */
	for (i = 0; i < len; i++) {
		if (b64[i] == ' ' || (b64[i] >= '\t' && b64[i] <= '\r')) {
			reason = "contains whitespace";
			goto out;
		}
	}
	for (i = 0; i < len; i++) {
		if (!is_b64_char(b64[i])) {
			reason = "not base64 (a character outside "
				 "A-Z a-z 0-9 + / =)";
			goto out;
		}
	}
	if (len > B64_MAX) {
		reason = "not 32 bytes of base64";
		goto out;
	}
	/* b64_end NULL: the whole text must be consumed, so padding is
	 * required and nothing may follow it; non-zero trailing bits are
	 * rejected too (one key, one text). */
	if (sodium_base642bin(buf, sizeof(buf), b64, len, NULL, &n, NULL,
			      sodium_base64_VARIANT_ORIGINAL) != 0) {
		reason = "not base64 (bad length or padding)";
		goto out;
	}
	if (n != AUTH_KEY_LEN) {
		reason = "not 32 bytes of base64";
		goto out;
	}
	if (sodium_is_zero(buf, AUTH_KEY_LEN)) {
		reason = "an all-zero key";
		goto out;
	}
	memcpy(k->b, buf, AUTH_KEY_LEN);
out:
	sodium_memzero(buf, sizeof(buf));
	if (reason != NULL) {
		if (why != NULL) {
			*why = reason;
		}
		return -EINVAL;
	}
	return 0;
}

uint64_t auth_random64(void)
{
	uint64_t r;

	randombytes_buf(&r, sizeof(r));
	return r;
}

bool auth_key_equal(const struct auth_key *a, const struct auth_key *b)
{
	return sodium_memcmp(a->b, b->b, AUTH_KEY_LEN) == 0;
}

void auth_key_wipe(struct auth_key *k)
{
	sodium_memzero(k, sizeof(*k));
}

void auth_hello_key(struct auth_key *out, const struct auth_key *psk,
		    enum auth_dir dir)
{
	/* cannot fail: the lengths are within the kdf's bounds */
	crypto_kdf_derive_from_key(out->b, AUTH_KEY_LEN, (uint64_t)dir,
				   hello_ctx, psk->b);
}

void auth_session_key(struct auth_key *out, const struct auth_key *psk,
		      enum auth_dir dir, uint64_t r_cpe, uint64_t r_conc)
{
	uint8_t in[sizeof(sess_label) - 1 + 1 + 8 + 8];
	size_t off = sizeof(sess_label) - 1;

	memcpy(in, sess_label, off);
	in[off++] = (uint8_t)dir;
	put_le64(in + off, r_cpe);
	off += 8;
	put_le64(in + off, r_conc);
	crypto_generichash(out->b, AUTH_KEY_LEN, in, sizeof(in), psk->b,
			   AUTH_KEY_LEN);
}

static void make_nonce(uint8_t nonce[NONCE_LEN], uint64_t pn)
{
	memset(nonce, 0, 4);
	put_le64(nonce + 4, pn);
}

static void poly_update(crypto_onetimeauth_poly1305_state *st, const uint8_t *p,
			size_t len)
{
	if (len > 0) {
		crypto_onetimeauth_poly1305_update(st, p, len);
	}
}

/* The RFC 8439 tag over hdr and body, under the one-time key of
 * (k, nonce).  With AUTH_MAC the associated data is hdr || body and the
 * ciphertext empty; with AUTH_ENCRYPT the associated data is hdr and the
 * ciphertext body (already encrypted). */
static void compute_tag(const uint8_t key[AUTH_KEY_LEN],
			const uint8_t nonce[NONCE_LEN], enum auth_mode mode,
			const uint8_t *hdr, size_t hdrlen, const uint8_t *body,
			size_t bodylen, uint8_t tag[AUTH_TAG_LEN])
{
	crypto_onetimeauth_poly1305_state st;
	uint8_t otk[crypto_onetimeauth_poly1305_KEYBYTES];
	uint8_t lens[16];
	uint64_t adlen, ctlen;

	crypto_stream_chacha20_ietf(otk, sizeof(otk), nonce, key);
	crypto_onetimeauth_poly1305_init(&st, otk);
	poly_update(&st, hdr, hdrlen);
	if (mode == AUTH_ENCRYPT) {
		adlen = hdrlen;
		ctlen = bodylen;
		poly_update(&st, zeros, (0x10 - adlen) & 0xf);
		poly_update(&st, body, bodylen);
		poly_update(&st, zeros, (0x10 - ctlen) & 0xf);
	} else {
		adlen = (uint64_t)hdrlen + bodylen;
		ctlen = 0;
		poly_update(&st, body, bodylen);
		poly_update(&st, zeros, (0x10 - adlen) & 0xf);
	}
	put_le64(lens, adlen);
	put_le64(lens + 8, ctlen);
	crypto_onetimeauth_poly1305_update(&st, lens, sizeof(lens));
	crypto_onetimeauth_poly1305_final(&st, tag);
	sodium_memzero(&st, sizeof(st));
	sodium_memzero(otk, sizeof(otk));
}

static void crypt_body(const uint8_t key[AUTH_KEY_LEN],
		       const uint8_t nonce[NONCE_LEN], uint8_t *body,
		       size_t bodylen)
{
	if (bodylen > 0) {
		/* block 0 gave the Poly1305 key; the body starts at 1 */
		crypto_stream_chacha20_ietf_xor_ic(body, body, bodylen, nonce,
						   1, key);
	}
}

/* The nonce-level halves, static so that the API keeps the nonce layout to
 * itself; the unit test includes this file to run RFC 8439's vectors,
 * whose nonces do not all start with four zero bytes. */
static void seal_nonce(const uint8_t key[AUTH_KEY_LEN],
		       const uint8_t nonce[NONCE_LEN], enum auth_mode mode,
		       const uint8_t *hdr, size_t hdrlen, uint8_t *body,
		       size_t bodylen, uint8_t tag[AUTH_TAG_LEN])
{
	if (mode == AUTH_ENCRYPT) {
		crypt_body(key, nonce, body, bodylen);
	}
	compute_tag(key, nonce, mode, hdr, hdrlen, body, bodylen, tag);
}

static int open_nonce(const uint8_t key[AUTH_KEY_LEN],
		      const uint8_t nonce[NONCE_LEN], enum auth_mode mode,
		      const uint8_t *hdr, size_t hdrlen, uint8_t *body,
		      size_t bodylen, const uint8_t tag[AUTH_TAG_LEN])
{
	uint8_t want[AUTH_TAG_LEN];
	int ret;

	compute_tag(key, nonce, mode, hdr, hdrlen, body, bodylen, want);
	ret = crypto_verify_16(want, tag);
	sodium_memzero(want, sizeof(want));
	if (ret != 0) {
		return -EBADMSG;
	}
	if (mode == AUTH_ENCRYPT) {
		crypt_body(key, nonce, body, bodylen);
	}
	return 0;
}

void auth_seal(const struct auth_key *k, uint64_t pn, enum auth_mode mode,
	       const uint8_t *hdr, size_t hdrlen, uint8_t *body, size_t bodylen,
	       uint8_t tag[AUTH_TAG_LEN])
{
	uint8_t nonce[NONCE_LEN];

	make_nonce(nonce, pn);
	seal_nonce(k->b, nonce, mode, hdr, hdrlen, body, bodylen, tag);
}

int auth_open(const struct auth_key *k, uint64_t pn, enum auth_mode mode,
	      const uint8_t *hdr, size_t hdrlen, uint8_t *body, size_t bodylen,
	      const uint8_t tag[AUTH_TAG_LEN])
{
	uint8_t nonce[NONCE_LEN];

	make_nonce(nonce, pn);
	return open_nonce(k->b, nonce, mode, hdr, hdrlen, body, bodylen, tag);
}

bool auth_pn_exhausted(uint64_t pn)
{
	return pn >= (uint64_t)1 << 63;
}
