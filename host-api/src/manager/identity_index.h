/*
 * The identity index: the ACTIVE entries of named threads by (user,
 * thread), a member of the manager (manager_internal.h).  Its chains run
 * through the entries, and entries.c, which keeps it in step with them,
 * holds its code.
 */
#ifndef SBX_MANAGER_IDENTITY_INDEX_H
#define SBX_MANAGER_IDENTITY_INDEX_H

#include <stddef.h>

struct mgr_entry;

typedef struct mgr_identity_index {
    struct mgr_entry **buckets;
    size_t bucket_count;           /* 0 or a power of two */
    size_t count;
} mgr_identity_index;

#endif
