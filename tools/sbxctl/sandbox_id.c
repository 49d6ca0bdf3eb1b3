/* Sandbox id derivation: FNV-1a is stable across platforms and releases,
 * which is what "the same thread maps to the same sandbox" needs; it is not
 * meant to resist deliberate collisions. */
#include "sandbox_id.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define FNV1A_64_OFFSET_BASIS UINT64_C(0xcbf29ce484222325)
#define FNV1A_64_PRIME UINT64_C(0x100000001b3)

static uint64_t fnv1a_64_update(uint64_t hash, const unsigned char *bytes, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        hash ^= bytes[i];
        hash *= FNV1A_64_PRIME;
    }
    return hash;
}

void sbx_ctl_derive_sandbox_id(const char *user_id, const char *thread_id,
                               char out[SBX_CTL_DERIVED_ID_SIZE])
{
    static const unsigned char separator = 0;
    const char *user = user_id != NULL ? user_id : "default";
    const char *thread = thread_id != NULL ? thread_id : "";

    uint64_t hash = FNV1A_64_OFFSET_BASIS;
    hash = fnv1a_64_update(hash, (const unsigned char *)user, strlen(user));
    hash = fnv1a_64_update(hash, &separator, 1);
    hash = fnv1a_64_update(hash, (const unsigned char *)thread, strlen(thread));
    snprintf(out, SBX_CTL_DERIVED_ID_SIZE, "t-%016llx", (unsigned long long)hash);
}
