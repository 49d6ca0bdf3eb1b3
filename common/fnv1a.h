/*
 * FNV-1a, the one hash of the tree's in-memory tables (ids, paths, user and
 * thread pairs).  Not for keys an adversary chooses in bulk, nor for secrets
 * whose bucket must tell nothing: it has no seed (common/siphash.h has a key).
 */
#ifndef SBX_COMMON_FNV1A_H
#define SBX_COMMON_FNV1A_H

#include <stddef.h>
#include <stdint.h>

#define COMMON_FNV1A_BASIS UINT64_C(14695981039346656037)
#define COMMON_FNV1A_PRIME UINT64_C(1099511628211)

/* `hash` (COMMON_FNV1A_BASIS to start) extended by `len` bytes of `data`,
 * so that several fields hash as one stream. */
static inline uint64_t common_fnv1a_bytes(uint64_t hash, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        hash = (hash ^ p[i]) * COMMON_FNV1A_PRIME;
    return hash;
}

/* `hash` extended by the bytes of NUL-terminated `s`, the NUL excluded. */
static inline uint64_t common_fnv1a_string(uint64_t hash, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++)
        hash = (hash ^ *p) * COMMON_FNV1A_PRIME;
    return hash;
}

#endif
