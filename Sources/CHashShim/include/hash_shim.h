#ifndef IMGSCALE_HASH_SHIM_H
#define IMGSCALE_HASH_SHIM_H

#include <stddef.h>
#include <stdint.h>

/* SHA-256 (FIPS 180-4) of `size` bytes into `digest`. libcrypto's, opened on first use,
   where the system has it (its SHA-NI and AVX2 code hash a 12 MP JPEG in a few
   milliseconds); else a portable implementation here. Both give the same digest. */
void chash_sha256(const uint8_t *data, size_t size, uint8_t digest[32]);

/* The portable implementation alone, for the tests that hold the two to each other. */
void chash_sha256_portable(const uint8_t *data, size_t size, uint8_t digest[32]);

/* "libcrypto" or "portable": which one chash_sha256 uses. */
const char *chash_sha256_backend(void);

#endif
