/*
 * A string-keyed hash map (separate chaining) for the manager's tables.  Not
 * synchronised: its owner locks around it.
 */
#ifndef SBX_MANAGER_STRMAP_H
#define SBX_MANAGER_STRMAP_H

#include <stddef.h>

typedef struct mgr_strmap_node {
    char *key;                     /* owned copy */
    void *value;                   /* the owner's */
    struct mgr_strmap_node *next;
} mgr_strmap_node;

typedef struct mgr_strmap {
    mgr_strmap_node **buckets;
    size_t bucket_count;           /* 0 or a power of two */
    size_t count;
} mgr_strmap;

/* An empty map needs no call: zero-initialise it. */
#define MGR_STRMAP_INIT { NULL, 0, 0 }

/* The value stored under `key`, or NULL. */
void *mgr_strmap_get(const mgr_strmap *map, const char *key);

/* Store `value` under `key` (copied), replacing a previous value.  Returns 0,
 * or -1 when out of memory (the map is unchanged). */
int mgr_strmap_put(mgr_strmap *map, const char *key, void *value);

/* Remove `key`; returns its value, or NULL when it was absent. */
void *mgr_strmap_remove(mgr_strmap *map, const char *key);

/* Call `fn` on every (key, value); `fn` must not change the map. */
void mgr_strmap_each(const mgr_strmap *map, void (*fn)(const char *key, void *value, void *ctx),
                     void *ctx);

/* Remove everything, calling `free_value` (may be NULL) on each value, and
 * release the buckets. */
void mgr_strmap_clear(mgr_strmap *map, void (*free_value)(void *value));

#endif
