/*
 * A string-keyed hash map (separate chaining) for the manager's tables.  Not
 * synchronised: its owner locks around it.
 */
#ifndef SBX_MANAGER_STRMAP_H
#define SBX_MANAGER_STRMAP_H

#include <stddef.h>

typedef struct sbx_strmap_node {
    char *key;                     /* owned copy */
    void *value;                   /* the owner's */
    struct sbx_strmap_node *next;
} sbx_strmap_node;

typedef struct sbx_strmap {
    sbx_strmap_node **buckets;
    size_t bucket_count;           /* 0 or a power of two */
    size_t count;
} sbx_strmap;

/* An empty map needs no call: zero-initialise it. */
#define SBX_STRMAP_INIT { NULL, 0, 0 }

/* The value stored under `key`, or NULL. */
void *sbx_strmap_get(const sbx_strmap *map, const char *key);

/* Store `value` under `key` (copied), replacing a previous value.  Returns 0,
 * or -1 when out of memory (the map is unchanged). */
int sbx_strmap_put(sbx_strmap *map, const char *key, void *value);

/* Remove `key`; returns its value, or NULL when it was absent. */
void *sbx_strmap_remove(sbx_strmap *map, const char *key);

/* Call `fn` on every (key, value); `fn` must not change the map. */
void sbx_strmap_each(const sbx_strmap *map, void (*fn)(const char *key, void *value, void *ctx),
                     void *ctx);

/* Remove everything, calling `free_value` (may be NULL) on each value, and
 * release the buckets. */
void sbx_strmap_clear(sbx_strmap *map, void (*free_value)(void *value));

#endif
