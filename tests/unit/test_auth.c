/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests for tunnel authentication (common/auth.c).
 *
 * The .c file is included to reach its nonce-level helpers, which run
 * RFC 8439's section 2.8.2 vector (its nonce does not start with four zero
 * bytes, so no packet number gives it).
 * - RFC 8439 2.8.2 and A.5 AEAD vectors (A.5 through the public API:
 *   its nonce is le64(pn) behind four zero bytes);
 * - equality with libsodium's one-shot AEAD, both modes, header and body in
 *   two separate heap buffers: every split of every total length up to
 *   160, random splits of every length up to 2000; and libsodium's
 *   decryption accepts what auth_seal made;
 * - tampering: every single bit of header, body, tag, packet number and
 *   key flipped in turn must give -EBADMSG and leave the body untouched;
 * - key derivations against known answers computed with an independent
 *   BLAKE2b (tests/unit/vectors/auth_kdf.py), and their separation;
 * - base64 key parsing: a table of bad texts, each with its reason;
 * - a benchmark (printed, not asserted) of auth_seal/auth_open on
 *   1400-byte packets.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/auth.c"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static size_t unhex(uint8_t *out, size_t max, const char *hex)
{
	size_t n = 0;
	unsigned v;

	while (hex[0] != '\0' && hex[1] != '\0') {
		assert_true(n < max);
		assert_int_equal(sscanf(hex, "%2x", &v), 1);
		out[n++] = (uint8_t)v;
		hex += 2;
	}
	assert_int_equal(hex[0], '\0');
	return n;
}

static void key_from_hex(struct auth_key *k, const char *hex)
{
	assert_int_equal(unhex(k->b, sizeof(k->b), hex), AUTH_KEY_LEN);
}

/* ---- RFC 8439 vectors */

static const char rfc_282_pt[] =
	"Ladies and Gentlemen of the class of '99: If I could offer you only "
	"one tip for the future, sunscreen would be it.";

static void test_rfc8439_282(void **state)
{
	uint8_t key[32], nonce[12], aad[12], ct[114], tag[16], want_tag[16];
	uint8_t body[114];
	size_t n;

	(void)state;
	unhex(key, sizeof(key),
	      "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9"
	      "f");
	unhex(nonce, sizeof(nonce), "070000004041424344454647");
	unhex(aad, sizeof(aad), "50515253c0c1c2c3c4c5c6c7");
	n = unhex(ct, sizeof(ct),
		  "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee"
		  "62d6"
		  "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd"
		  "3b36"
		  "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831"
		  "d7bc"
		  "3ff4def08e4b7a9de576d26586cec64b6116");
	assert_int_equal(n, strlen(rfc_282_pt));
	unhex(want_tag, sizeof(want_tag), "1ae10b594f09e26a7e902ecbd0600691");

	memcpy(body, rfc_282_pt, n);
	seal_nonce(key, nonce, AUTH_ENCRYPT, aad, sizeof(aad), body, n, tag);
	assert_memory_equal(body, ct, n);
	assert_memory_equal(tag, want_tag, 16);
	assert_int_equal(open_nonce(key, nonce, AUTH_ENCRYPT, aad, sizeof(aad),
				    body, n, tag),
			 0);
	assert_memory_equal(body, rfc_282_pt, n);
}

static void test_rfc8439_a5(void **state)
{
	static const char prefix[] = "Internet-Drafts are draft documents";
	uint8_t ad[12], tag[16], want_tag[16], ct[265], pt[265], buf[265];
	struct auth_key k;
	size_t n;
	/* nonce 00000000 0102030405060708 = four zero bytes || le64(pn) */
	uint64_t pn = 0x0807060504030201ULL;

	(void)state;
	key_from_hex(&k, "1c9240a5eb55d38af333888604f6b5f0"
			 "473917c1402b80099dca5cbc207075c0");
	unhex(ad, sizeof(ad), "f33388860000000000004e91");
	n = unhex(ct, sizeof(ct),
		  "64a0861575861af460f062c79be643bd5e805cfd345cf389f108670ac76c"
		  "8cb2"
		  "4c6cfc18755d43eea09ee94e382d26b0bdb7b73c321b0100d4f03b7f3558"
		  "94cf"
		  "332f830e710b97ce98c8a84abd0b948114ad176e008d33bd60f982b1ff37"
		  "c855"
		  "9797a06ef4f0ef61c186324e2b3506383606907b6a7c02b0f9f6157b53c8"
		  "67e4"
		  "b9166c767b804d46a59b5216cde7a4e99040c5a40433225ee282a1b0a06c"
		  "523e"
		  "af4534d7f83fa1155b0047718cbc546a0d072b04b3564eea1b422273f548"
		  "271a"
		  "0bb2316053fa76991955ebd63159434ecebb4e466dae5a1073a672762709"
		  "7a10"
		  "49e617d91d361094fa68f0ff77987130305beaba2eda04df997b714d6c6f"
		  "2c29"
		  "a6ad5cb4022b02709b");
	assert_int_equal(n, 265);
	unhex(pt, sizeof(pt),
	      "496e7465726e65742d4472616674732061726520647261667420646f63756d65"
	      "6e74732076616c696420666f722061206d6178696d756d206f6620736978206d"
	      "6f6e74687320616e64206d617920626520757064617465642c207265706c6163"
	      "65642c206f72206f62736f6c65746564206279206f7468657220646f63756d65"
	      "6e747320617420616e792074696d652e20497420697320696e617070726f7072"
	      "6961746520746f2075736520496e7465726e65742d4472616674732061732072"
	      "65666572656e6365206d6174657269616c206f7220746f206369746520746865"
	      "6d206f74686572207468616e206173202fe2809c776f726b20696e2070726f67"
	      "726573732e2fe2809d");
	unhex(want_tag, sizeof(want_tag), "eead9d67890cbb22392336fea1851f38");

	/* receive direction first: the RFC's example is a decryption */
	memcpy(buf, ct, n);
	assert_int_equal(auth_open(&k, pn, AUTH_ENCRYPT, ad, sizeof(ad), buf, n,
				   want_tag),
			 0);
	assert_memory_equal(buf, pt, n);
	assert_memory_equal(buf, prefix, strlen(prefix));
	/* and back */
	auth_seal(&k, pn, AUTH_ENCRYPT, ad, sizeof(ad), buf, n, tag);
	assert_memory_equal(buf, ct, n);
	assert_memory_equal(tag, want_tag, 16);
	/* a wrong tag: refused, ciphertext untouched */
	want_tag[15] ^= 1;
	assert_int_equal(auth_open(&k, pn, AUTH_ENCRYPT, ad, sizeof(ad), buf, n,
				   want_tag),
			 -EBADMSG);
	assert_memory_equal(buf, ct, n);
}

/* ---- equality with libsodium's one-shot AEAD */

static uint64_t rng_state = 0x243f6a8885a308d3ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static void rnd_fill(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		p[i] = (uint8_t)(rnd() >> 56);
	}
}

static void nonce_of(uint8_t nonce[12], uint64_t pn)
{
	int i;

	memset(nonce, 0, 4);
	for (i = 0; i < 8; i++) {
		nonce[4 + i] = (uint8_t)(pn >> (8 * i));
	}
}

/* One case: total bytes, split after hdrlen; header and body each in a
 * heap buffer of exactly its size so that ASan sees any overrun. */
static void one_case(enum auth_mode mode, size_t total, size_t hdrlen)
{
	size_t bodylen = total - hdrlen;
	uint8_t *hdr = malloc(hdrlen ? hdrlen : 1);
	uint8_t *body = malloc(bodylen ? bodylen : 1);
	uint8_t *whole = malloc(total ? total : 1);
	uint8_t *ref_ct = malloc(bodylen ? bodylen : 1);
	uint8_t tag[16], ref_tag[16], nonce[12], dummy[1];
	unsigned long long maclen = 0;
	struct auth_key k;
	uint64_t pn = rnd();

	assert_non_null(hdr);
	assert_non_null(body);
	assert_non_null(whole);
	assert_non_null(ref_ct);
	rnd_fill(k.b, sizeof(k.b));
	rnd_fill(whole, total);
	memcpy(hdr, whole, hdrlen);
	memcpy(body, whole + hdrlen, bodylen);
	nonce_of(nonce, pn);

	auth_seal(&k, pn, mode, hdr, hdrlen, body, bodylen, tag);
	if (mode == AUTH_MAC) {
		/* m empty, ad = hdr || body */
		assert_int_equal(
			crypto_aead_chacha20poly1305_ietf_encrypt_detached(
				dummy, ref_tag, &maclen, NULL, 0, whole, total,
				NULL, nonce, k.b),
			0);
		assert_memory_equal(body, whole + hdrlen, bodylen);
		assert_int_equal(
			crypto_aead_chacha20poly1305_ietf_decrypt_detached(
				NULL, NULL, dummy, 0, tag, whole, total, nonce,
				k.b),
			0);
	} else {
		assert_int_equal(
			crypto_aead_chacha20poly1305_ietf_encrypt_detached(
				ref_ct, ref_tag, &maclen, whole + hdrlen,
				bodylen, whole, hdrlen, NULL, nonce, k.b),
			0);
		assert_memory_equal(body, ref_ct, bodylen);
		/* libsodium opens ours (into ref_ct, in place) */
		assert_int_equal(
			crypto_aead_chacha20poly1305_ietf_decrypt_detached(
				ref_ct, NULL, ref_ct, bodylen, tag, whole,
				hdrlen, nonce, k.b),
			0);
		assert_memory_equal(ref_ct, whole + hdrlen, bodylen);
	}
	assert_int_equal(maclen, 16);
	if (memcmp(tag, ref_tag, 16) != 0) {
		fail_msg("mode %d total %zu split %zu: tag differs from "
			 "libsodium's",
			 mode, total, hdrlen);
	}
	assert_int_equal(
		auth_open(&k, pn, mode, hdr, hdrlen, body, bodylen, tag), 0);
	assert_memory_equal(body, whole + hdrlen, bodylen);
	free(ref_ct);
	free(whole);
	free(body);
	free(hdr);
}

static void test_equal_libsodium(void **state)
{
	enum auth_mode modes[] = {AUTH_MAC, AUTH_ENCRYPT};
	size_t m, total, split, r, cases = 0;

	(void)state;
	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		/* every split of every small length */
		for (total = 0; total <= 160; total++) {
			for (split = 0; split <= total; split++) {
				one_case(modes[m], total, split);
				cases++;
			}
		}
		/* every length up to 2000, random splits, and the two
		 * ends and the daemon's own (a 20-byte header) */
		for (total = 161; total <= 2000; total++) {
			one_case(modes[m], total, 0);
			one_case(modes[m], total, total);
			one_case(modes[m], total, 20);
			for (r = 0; r < 3; r++) {
				one_case(modes[m], total, rnd() % (total + 1));
			}
			cases += 6;
		}
		/* one large body */
		one_case(modes[m], 65535 + 20, 20);
		cases++;
	}
	printf("# %zu cases equal to libsodium's one-shot AEAD\n", cases);
}

/* ---- tampering */

static void tamper_mode(enum auth_mode mode)
{
	enum { HDR = 20, BODY = 61 };
	uint8_t hdr[HDR], body[BODY], sealed[BODY], tag[16], t2[16];
	struct auth_key k, k2;
	uint64_t pn = 0x1122334455667788ULL;
	size_t i, fails = 0;

	rnd_fill(k.b, sizeof(k.b));
	rnd_fill(hdr, sizeof(hdr));
	rnd_fill(body, sizeof(body));
	auth_seal(&k, pn, mode, hdr, HDR, body, BODY, tag);
	memcpy(sealed, body, BODY);

#define EXPECT_BAD(hdr_, body_, bodylen_, pn_, key_, tag_)                     \
	do {                                                                   \
		assert_int_equal(auth_open(key_, pn_, mode, hdr_, HDR, body_,  \
					   bodylen_, tag_),                    \
				 -EBADMSG);                                    \
		fails++;                                                       \
	} while (0)

	for (i = 0; i < HDR * 8; i++) {
		hdr[i / 8] ^= (uint8_t)(1u << (i % 8));
		EXPECT_BAD(hdr, body, BODY, pn, &k, tag);
		hdr[i / 8] ^= (uint8_t)(1u << (i % 8));
		assert_memory_equal(body, sealed, BODY);
	}
	for (i = 0; i < BODY * 8; i++) {
		body[i / 8] ^= (uint8_t)(1u << (i % 8));
		EXPECT_BAD(hdr, body, BODY, pn, &k, tag);
		/* untouched: still exactly the flipped ciphertext */
		body[i / 8] ^= (uint8_t)(1u << (i % 8));
		assert_memory_equal(body, sealed, BODY);
	}
	for (i = 0; i < 16 * 8; i++) {
		memcpy(t2, tag, 16);
		t2[i / 8] ^= (uint8_t)(1u << (i % 8));
		EXPECT_BAD(hdr, body, BODY, pn, &k, t2);
		assert_memory_equal(body, sealed, BODY);
	}
	for (i = 0; i < 64; i++) {
		EXPECT_BAD(hdr, body, BODY, pn ^ ((uint64_t)1 << i), &k, tag);
		assert_memory_equal(body, sealed, BODY);
	}
	for (i = 0; i < AUTH_KEY_LEN * 8; i++) {
		k2 = k;
		k2.b[i / 8] ^= (uint8_t)(1u << (i % 8));
		EXPECT_BAD(hdr, body, BODY, pn, &k2, tag);
		assert_memory_equal(body, sealed, BODY);
	}
	/* truncated or extended body (same bytes) */
	EXPECT_BAD(hdr, body, BODY - 1, pn, &k, tag);
	/* the other mode */
	assert_int_equal(auth_open(&k, pn,
				   mode == AUTH_MAC ? AUTH_ENCRYPT : AUTH_MAC,
				   hdr, HDR, body, BODY, tag),
			 -EBADMSG);
	assert_memory_equal(body, sealed, BODY);
#undef EXPECT_BAD
	/* and the intact packet opens */
	assert_int_equal(auth_open(&k, pn, mode, hdr, HDR, body, BODY, tag), 0);
	assert_int_equal(fails,
			 (HDR + BODY + 16) * 8 + 64 + AUTH_KEY_LEN * 8 + 1);
}

static void test_tamper_mac(void **state)
{
	(void)state;
	tamper_mode(AUTH_MAC);
}

static void test_tamper_encrypt(void **state)
{
	(void)state;
	tamper_mode(AUTH_ENCRYPT);
}

/* Empty header, empty body: still a real tag. */
static void test_empty(void **state)
{
	struct auth_key k;
	uint8_t tag[16], tag2[16];

	(void)state;
	memset(k.b, 7, sizeof(k.b));
	auth_seal(&k, 0, AUTH_MAC, NULL, 0, NULL, 0, tag);
	auth_seal(&k, 0, AUTH_ENCRYPT, NULL, 0, NULL, 0, tag2);
	/* both are the tag of (ad empty, m empty): the same */
	assert_memory_equal(tag, tag2, 16);
	assert_int_equal(auth_open(&k, 0, AUTH_MAC, NULL, 0, NULL, 0, tag), 0);
	assert_int_equal(auth_open(&k, 1, AUTH_MAC, NULL, 0, NULL, 0, tag),
			 -EBADMSG);
}

/* ---- key derivations */

static const char *const psk_hex =
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f";
static const uint64_t r_cpe = 0x0123456789abcdefULL;
static const uint64_t r_conc = 0xfedcba9876543210ULL;

static void test_kdf_known(void **state)
{
	struct auth_key psk, k, want;

	(void)state;
	key_from_hex(&psk, psk_hex);
	auth_hello_key(&k, &psk, AUTH_C2S);
	key_from_hex(&want, "9fd22ba45b1ba6164ded801f31c7a375"
			    "5919967bff7bf08f7ecedf5fccd68406");
	assert_memory_equal(k.b, want.b, 32);
	auth_hello_key(&k, &psk, AUTH_S2C);
	key_from_hex(&want, "cc13fd7c3c1b6bae08eb8710fc223440"
			    "427565197708afdbc202e72f35bbc11a");
	assert_memory_equal(k.b, want.b, 32);
	auth_session_key(&k, &psk, AUTH_C2S, r_cpe, r_conc);
	key_from_hex(&want, "bcb2e86cb94116fbb11605ff4fe33507"
			    "ca18b0321c299f1eb1dd9bf4364c66cf");
	assert_memory_equal(k.b, want.b, 32);
	auth_session_key(&k, &psk, AUTH_S2C, r_cpe, r_conc);
	key_from_hex(&want, "66546fbf45fd47ac0d876a25c7c92b22"
			    "4aff0e03e623cc81fcb15ecf6014c29a");
	assert_memory_equal(k.b, want.b, 32);
	auth_key_wipe(&k);
	assert_true(sodium_is_zero(k.b, sizeof(k.b)));
}

static void test_kdf_separation(void **state)
{
	enum { N = 10 };
	struct auth_key psk, psk2, keys[N], again;
	size_t i, j;

	(void)state;
	key_from_hex(&psk, psk_hex);
	psk2 = psk;
	psk2.b[31] ^= 0x80;
	auth_hello_key(&keys[0], &psk, AUTH_C2S);
	auth_hello_key(&keys[1], &psk, AUTH_S2C);
	auth_session_key(&keys[2], &psk, AUTH_C2S, r_cpe, r_conc);
	auth_session_key(&keys[3], &psk, AUTH_S2C, r_cpe, r_conc);
	auth_session_key(&keys[4], &psk, AUTH_C2S, r_cpe + 1, r_conc);
	auth_session_key(&keys[5], &psk, AUTH_C2S, r_cpe, r_conc + 1);
	auth_session_key(&keys[6], &psk, AUTH_C2S, r_conc, r_cpe); /* swap */
	auth_session_key(&keys[7], &psk, AUTH_C2S, 0, 0);
	auth_hello_key(&keys[8], &psk2, AUTH_C2S);
	auth_session_key(&keys[9], &psk2, AUTH_C2S, r_cpe, r_conc);
	for (i = 0; i < N; i++) {
		assert_false(sodium_is_zero(keys[i].b, AUTH_KEY_LEN));
		assert_memory_not_equal(keys[i].b, psk.b, AUTH_KEY_LEN);
		for (j = i + 1; j < N; j++) {
			assert_memory_not_equal(keys[i].b, keys[j].b,
						AUTH_KEY_LEN);
		}
	}
	/* deterministic */
	auth_hello_key(&again, &psk, AUTH_S2C);
	assert_memory_equal(again.b, keys[1].b, AUTH_KEY_LEN);
	auth_session_key(&again, &psk, AUTH_S2C, r_cpe, r_conc);
	assert_memory_equal(again.b, keys[3].b, AUTH_KEY_LEN);
}

/* ---- base64 keys */

static void test_key_parse_good(void **state)
{
	struct auth_key k, want;
	char text[AUTH_KEY_B64_LEN], text2[AUTH_KEY_B64_LEN];
	const char *why = "unset";
	int i;

	(void)state;
	key_from_hex(&want, psk_hex);
	assert_int_equal(auth_key_parse(&k,
					"ICEiIyQlJicoKSorLC0uLzAxMjM0"
					"NTY3ODk6Ozw9Pj8=",
					&why),
			 0);
	assert_memory_equal(k.b, want.b, AUTH_KEY_LEN);
	assert_string_equal(why, "unset"); /* untouched on success */
	/* '+' and '/' */
	assert_int_equal(auth_key_parse(&k,
					"+//7//v/+//7//v/+//7//v/+//7//v/"
					"+//7//v/+/8=",
					NULL),
			 0);
	for (i = 0; i < 16; i++) {
		assert_int_equal(k.b[2 * i], 0xfb);
		assert_int_equal(k.b[2 * i + 1], 0xff);
	}

	assert_int_equal(auth_genkey(text, sizeof(text) - 1), -ENOSPC);
	assert_int_equal(auth_genkey(text, sizeof(text)), 0);
	assert_int_equal(strlen(text), 44);
	assert_int_equal(text[43], '=');
	assert_int_equal(auth_key_parse(&k, text, &why), 0);
	/* round trip */
	sodium_bin2base64(text2, sizeof(text2), k.b, AUTH_KEY_LEN,
			  sodium_base64_VARIANT_ORIGINAL);
	assert_string_equal(text, text2);
	assert_int_equal(auth_genkey(text2, sizeof(text2)), 0);
	assert_string_not_equal(text, text2);
}

struct bad_key {
	const char *text;
	const char *why;
};

static void test_key_parse_bad(void **state)
{
	static const char *const r_len = "not 32 bytes of base64";
	static const char *const r_pad = "not base64 (bad length or padding)";
	static const char *const r_chr =
		"not base64 (a character outside A-Z a-z 0-9 + / =)";
	static const char *const r_ws = "contains whitespace";
	static const struct bad_key bad[] = {
		/* 1 */ {NULL, "empty"},
		/* 2 */ {"", "empty"},
		/* 3: all zero */
		{"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
		 "an all-zero key"},
		/* 4: 31 bytes */
		{"ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pg==", r_len},
		/* 5: 33 bytes */
		{"ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8h", r_len},
		/* 6: 3 bytes */
		{"AAEC", r_len},
		/* 7: 66 bytes' worth, past the decode buffer */
		{"ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8h"
		 "ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8h",
		 r_len},
		/* 8: no padding */
		{"ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8", r_pad},
		/* 9: padding twice */
		{"ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8==", r_pad},
		/* 10: non-zero trailing bits (a second text of one key) */
		{"ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj9=", r_pad},
		/* 11: padding in the middle */
		{"ICEi=yQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8=", r_pad},
		/* 12: URL-safe alphabet */
		{"-__7__v_-__7__v_-__7__v_-__7__v_-__7__v_-_8=", r_chr},
		/* 13 */
		{"ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8*", r_chr},
		/* 14: quotes left in */
		{"\"ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8=\"", r_chr},
		/* 15 */
		{"ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8=\n", r_ws},
		/* 16 */
		{" ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8=", r_ws},
		/* 17 */
		{"ICEiIyQlJicoKSorLC0u\tLzAxMjM0NTY3ODk6Ozw9Pj8=", r_ws},
		/* 18 */
		{"ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8=\r", r_ws},
		/* 19: non-ASCII */
		{"ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9P\xc3\xa9=", r_chr},
		/* 20: only padding */
		{"====", r_pad},
	};
	struct auth_key k;
	const char *why;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(k.b, 0xaa, sizeof(k.b));
		why = NULL;
		if (auth_key_parse(&k, bad[i].text, &why) != -EINVAL) {
			fail_msg("row %zu accepted", i + 1);
		}
		if (why == NULL || strcmp(why, bad[i].why) != 0) {
			fail_msg("row %zu: reason '%s', want '%s'", i + 1,
				 why ? why : "(null)", bad[i].why);
		}
		assert_true(sodium_is_zero(k.b, sizeof(k.b)));
		/* why may be NULL */
		assert_int_equal(auth_key_parse(&k, bad[i].text, NULL),
				 -EINVAL);
	}
}

static void test_pn_exhausted(void **state)
{
	(void)state;
	assert_false(auth_pn_exhausted(0));
	assert_false(auth_pn_exhausted(((uint64_t)1 << 63) - 1));
	assert_true(auth_pn_exhausted((uint64_t)1 << 63));
	assert_true(auth_pn_exhausted(UINT64_MAX));
}

/* ---- benchmark: printed, not asserted */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void bench_mode(enum auth_mode mode, const char *name)
{
	enum { HDR = 20, BODY = 1400, N = 100000 };
	uint8_t hdr[HDR], body[BODY], tag[16];
	struct auth_key k;
	double t0, seal_ns, open_ns;
	uint64_t pn;
	int bad = 0;

	rnd_fill(k.b, sizeof(k.b));
	rnd_fill(hdr, sizeof(hdr));
	rnd_fill(body, sizeof(body));
	t0 = now_ns();
	for (pn = 0; pn < N; pn++) {
		auth_seal(&k, pn, mode, hdr, HDR, body, BODY, tag);
	}
	seal_ns = (now_ns() - t0) / N;
	/* each open needs its own sealed packet: seal once, open N times
	 * the same one (decrypting in place would spoil it, so undo) */
	auth_seal(&k, 7, mode, hdr, HDR, body, BODY, tag);
	t0 = now_ns();
	for (pn = 0; pn < N; pn++) {
		bad |= auth_open(&k, 7, mode, hdr, HDR, body, BODY, tag);
		if (mode == AUTH_ENCRYPT) {
			crypt_body(k.b, (const uint8_t[12]){0, 0, 0, 0, 7},
				   body, BODY);
		}
	}
	open_ns = (now_ns() - t0) / N;
	assert_int_equal(bad, 0);
	if (mode == AUTH_ENCRYPT) {
		/* the re-encryption is a second pass over the body: take
		 * half of it off, roughly, by timing it alone */
		t0 = now_ns();
		for (pn = 0; pn < N; pn++) {
			crypt_body(k.b, (const uint8_t[12]){0, 0, 0, 0, 7},
				   body, BODY);
		}
		open_ns -= (now_ns() - t0) / N;
	}
	printf("# bench %-8s 20+1400 B: seal %6.0f ns (%.2f Gbit/s), "
	       "open %6.0f ns (%.2f Gbit/s)\n",
	       name, seal_ns, (HDR + BODY) * 8 / seal_ns, open_ns,
	       (HDR + BODY) * 8 / open_ns);

	/* for comparison: libsodium's one-shot AEAD on a contiguous packet */
	{
		uint8_t pkt[HDR + BODY], nonce[12], ct[BODY];
		size_t adlen = mode == AUTH_MAC ? HDR + BODY : HDR;
		size_t mlen = mode == AUTH_MAC ? 0 : BODY;

		memcpy(pkt, hdr, HDR);
		memcpy(pkt + HDR, body, BODY);
		t0 = now_ns();
		for (pn = 0; pn < N; pn++) {
			nonce_of(nonce, pn);
			crypto_aead_chacha20poly1305_ietf_encrypt_detached(
				ct, tag, NULL, pkt + HDR, mlen, pkt, adlen,
				NULL, nonce, k.b);
		}
		printf("# bench %-8s libsodium one-shot seal %6.0f ns\n", name,
		       (now_ns() - t0) / N);
	}
}

static void test_bench(void **state)
{
	(void)state;
	bench_mode(AUTH_MAC, "auth");
	bench_mode(AUTH_ENCRYPT, "encrypt");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc8439_282),
		cmocka_unit_test(test_rfc8439_a5),
		cmocka_unit_test(test_equal_libsodium),
		cmocka_unit_test(test_tamper_mac),
		cmocka_unit_test(test_tamper_encrypt),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_kdf_known),
		cmocka_unit_test(test_kdf_separation),
		cmocka_unit_test(test_key_parse_good),
		cmocka_unit_test(test_key_parse_bad),
		cmocka_unit_test(test_pn_exhausted),
		cmocka_unit_test(test_bench),
	};

	if (auth_init() != 0) {
		fprintf(stderr, "auth_init failed\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
