/*
 * SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
 * 2012), written from the paper: a hash keyed with 128 secret bits, for
 * tables whose bucket must not be predictable nor tell anything of the
 * keys it holds to whoever does not know the key (common/fnv1a.h has no
 * key).  Its time depends on the input's length only.
 */
#ifndef SBX_COMMON_SIPHASH_H
#define SBX_COMMON_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

/* The 128-bit key, as the paper's two little-endian 64-bit halves. */
typedef struct common_siphash_key {
    uint64_t k0;
    uint64_t k1;
} common_siphash_key;

/* The key read from 16 bytes (the paper's byte order). */
common_siphash_key common_siphash_key_from_bytes(const unsigned char bytes[16]);

/* SipHash-2-4 of `len` bytes of `data` under `key`. */
uint64_t common_siphash24(const common_siphash_key *key, const void *data, size_t len);

#endif
