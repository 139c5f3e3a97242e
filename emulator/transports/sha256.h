/* SPDX-License-Identifier: GPL-2.0-only */
/* SHA-256 (FIPS 180-4), streaming interface. */
#ifndef LFN_SHA256_H
#define LFN_SHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHA256_DIGEST_LEN 32
#define SHA256_HEX_LEN (2 * SHA256_DIGEST_LEN)

struct sha256 {
	uint32_t h[8];
	uint64_t total; /* message length so far, bytes */
	uint8_t block[64];
	size_t fill; /* bytes waiting in block[] */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
/* Writes the digest; the state must be re-initialised before reuse. */
void sha256_final(struct sha256 *s, uint8_t out[SHA256_DIGEST_LEN]);
/* Lower-case hex, NUL-terminated (out needs SHA256_HEX_LEN + 1 bytes). */
/* "shani" or "c": the compression function in use (see sha256.c). */
const char *sha256_impl(void);
void sha256_hex(const uint8_t digest[SHA256_DIGEST_LEN], char *out);

#ifdef __cplusplus
}
#endif

#endif
