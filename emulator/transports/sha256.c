// SPDX-License-Identifier: GPL-2.0-only
/*
 * SHA-256 as specified in FIPS 180-4, sections 4.1.2, 4.2.2, 5.1.1, 5.3.3
 * and 6.2. Whole 64-byte blocks of the input are compressed in place
 * without copying.
 *
 * Two compression functions: portable C, and on x86 CPUs with the SHA
 * extensions (SHA-NI) one built on them, several times faster, chosen at
 * run time. Hashing every byte is part of each transfer, so its cost shows
 * in the CPU-load numbers; the fast path keeps that share small. Setting
 * LFN_SHA256=c in the environment forces the portable code (for tests).
 */
#include "sha256.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define HAVE_SHANI_CODE 1
#endif

/* FIPS 180-4 4.2.2: first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t rotr(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static inline uint32_t load_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline void store_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Functions of 4.1.2. */
#define CH(x, y, z) (((x) & (y)) ^ (~(x) & (z)))
#define MAJ(x, y, z) (((x) & (y)) ^ ((x) & (z)) ^ ((y) & (z)))
#define BSIG0(x) (rotr((x), 2) ^ rotr((x), 13) ^ rotr((x), 22))
#define BSIG1(x) (rotr((x), 6) ^ rotr((x), 11) ^ rotr((x), 25))
#define SSIG0(x) (rotr((x), 7) ^ rotr((x), 18) ^ ((x) >> 3))
#define SSIG1(x) (rotr((x), 17) ^ rotr((x), 19) ^ ((x) >> 10))

/* 6.2.2: process n consecutive 64-byte blocks. */
static void compress_c(uint32_t h[8], const uint8_t *p, size_t n)
{
	uint32_t w[64];

	for (; n; n--, p += 64) {
		uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
		int t;

		for (t = 0; t < 16; t++)
			w[t] = load_be32(p + 4 * t);
		for (; t < 64; t++)
			w[t] = SSIG1(w[t - 2]) + w[t - 7] + SSIG0(w[t - 15]) + w[t - 16];
		for (t = 0; t < 64; t++) {
			uint32_t t1 = hh + BSIG1(e) + CH(e, f, g) + K[t] + w[t];
			uint32_t t2 = BSIG0(a) + MAJ(a, b, c);

			hh = g;
			g = f;
			f = e;
			e = d + t1;
			d = c;
			c = b;
			b = a;
			a = t1 + t2;
		}
		h[0] += a;
		h[1] += b;
		h[2] += c;
		h[3] += d;
		h[4] += e;
		h[5] += f;
		h[6] += g;
		h[7] += hh;
	}
}

#ifdef HAVE_SHANI_CODE
/*
 * The same computation with the SHA extensions. sha256rnds2 does two rounds
 * on the state split as (A,B,E,F) and (C,D,G,H); sha256msg1/msg2 compute
 * the message schedule four words at a time:
 *   w[t..t+3] = msg2(msg1(w[t-16..], w[t-12..]) + w[t-7..t-4], w[t-4..t-1]).
 */
__attribute__((target("sha,sse4.1,ssse3"))) static void compress_shani(uint32_t h[8], const uint8_t *p, size_t n)
{
	const __m128i bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
	__m128i abef, cdgh, t;

	/* h[0..3] = A B C D, h[4..7] = E F G H (lane 0 first) -> lanes F E B A and H G D C. */
	t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)h), 0xB1);	      /* B A D C */
	cdgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(h + 4)), 0x1B); /* H G F E */
	abef = _mm_alignr_epi8(t, cdgh, 8);					      /* F E B A */
	cdgh = _mm_blend_epi16(cdgh, t, 0xF0);					      /* H G D C */

	for (; n; n--, p += 64) {
		const __m128i abef0 = abef, cdgh0 = cdgh;
		__m128i w[4];
		int g;

		for (g = 0; g < 16; g++) {
			__m128i m;

			if (g < 4) {
				w[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)), bswap);
			} else {
				__m128i x = _mm_sha256msg1_epu32(w[g & 3], w[(g + 1) & 3]);

				x = _mm_add_epi32(x, _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4));
				w[g & 3] = _mm_sha256msg2_epu32(x, w[(g + 3) & 3]);
			}
			m = _mm_add_epi32(w[g & 3], _mm_loadu_si128((const __m128i *)(K + 4 * g)));
			cdgh = _mm_sha256rnds2_epu32(cdgh, abef, m);
			abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(m, 0x0E));
		}
		abef = _mm_add_epi32(abef, abef0);
		cdgh = _mm_add_epi32(cdgh, cdgh0);
	}

	t = _mm_shuffle_epi32(abef, 0x1B);	       /* A B E F */
	cdgh = _mm_shuffle_epi32(cdgh, 0xB1);	       /* G H C D */
	abef = _mm_blend_epi16(t, cdgh, 0xF0);	       /* A B C D */
	cdgh = _mm_alignr_epi8(cdgh, t, 8);	       /* E F G H */
	_mm_storeu_si128((__m128i *)h, abef);
	_mm_storeu_si128((__m128i *)(h + 4), cdgh);
}

static int cpu_has_shani(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_1) || !(c & bit_SSSE3))
		return 0;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	return (b >> 29) & 1; /* CPUID.(EAX=7,ECX=0):EBX.SHA */
}
#endif

typedef void compress_fn(uint32_t h[8], const uint8_t *p, size_t n);
static compress_fn *compress_impl;
static const char *impl_name = "c";

static void pick_impl(void)
{
	const char *force = getenv("LFN_SHA256");

	compress_impl = compress_c;
	impl_name = "c";
#ifdef HAVE_SHANI_CODE
	if (!(force && !strcmp(force, "c")) && cpu_has_shani()) {
		compress_impl = compress_shani;
		impl_name = "shani";
	}
#else
	(void)force;
#endif
}

static void compress(uint32_t h[8], const uint8_t *p, size_t n)
{
	compress_impl(h, p, n);
}

const char *sha256_impl(void)
{
	if (!compress_impl)
		pick_impl();
	return impl_name;
}

void sha256_init(struct sha256 *s)
{
	/* 5.3.3: first 32 bits of the fractional parts of the square roots of the first 8 primes. */
	static const uint32_t h0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	if (!compress_impl)
		pick_impl();
	memcpy(s->h, h0, sizeof(h0));
	s->total = 0;
	s->fill = 0;
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;

	s->total += len;
	if (s->fill) {
		size_t take = 64 - s->fill < len ? 64 - s->fill : len;

		memcpy(s->block + s->fill, p, take);
		s->fill += take;
		p += take;
		len -= take;
		if (s->fill < 64)
			return;
		compress(s->h, s->block, 1);
		s->fill = 0;
	}
	if (len >= 64) {
		compress(s->h, p, len / 64);
		p += len & ~(size_t)63;
		len &= 63;
	}
	if (len) {
		memcpy(s->block, p, len);
		s->fill = len;
	}
}

void sha256_final(struct sha256 *s, uint8_t out[SHA256_DIGEST_LEN])
{
	/* 5.1.1: a 1 bit, zeros up to 56 mod 64 bytes, then the length in bits as a big-endian u64. */
	const uint64_t bits = s->total * 8;
	int i;

	s->block[s->fill++] = 0x80;
	if (s->fill > 56) {
		memset(s->block + s->fill, 0, 64 - s->fill);
		compress(s->h, s->block, 1);
		s->fill = 0;
	}
	memset(s->block + s->fill, 0, 56 - s->fill);
	store_be32(s->block + 56, (uint32_t)(bits >> 32));
	store_be32(s->block + 60, (uint32_t)bits);
	compress(s->h, s->block, 1);
	for (i = 0; i < 8; i++)
		store_be32(out + 4 * i, s->h[i]);
}

void sha256_hex(const uint8_t digest[SHA256_DIGEST_LEN], char *out)
{
	static const char hex[] = "0123456789abcdef";
	int i;

	for (i = 0; i < SHA256_DIGEST_LEN; i++) {
		out[2 * i] = hex[digest[i] >> 4];
		out[2 * i + 1] = hex[digest[i] & 15];
	}
	out[SHA256_HEX_LEN] = '\0';
}
