/* String-keyed hash map (see strmap.h). */
#include <config.h>

#include "host-api/src/manager/strmap.h"

#include "common/fnv1a.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a: short keys, no adversary able to choose many colliding ids that
 * the manager would keep (ids are hashes or backend-made). */
static size_t hash_key(const char *key)
{
    return (size_t)common_fnv1a_string(COMMON_FNV1A_BASIS, key);
}

static mgr_strmap_node **slot_of(const mgr_strmap *map, const char *key)
{
    mgr_strmap_node **slot = &map->buckets[hash_key(key) & (map->bucket_count - 1)];
    while (*slot != NULL && strcmp((*slot)->key, key) != 0)
        slot = &(*slot)->next;
    return slot;
}

void *mgr_strmap_get(const mgr_strmap *map, const char *key)
{
    if (map->bucket_count == 0)
        return NULL;
    mgr_strmap_node *node = *slot_of(map, key);
    return node != NULL ? node->value : NULL;
}

static int grow(mgr_strmap *map)
{
    size_t n = map->bucket_count == 0 ? 16 : map->bucket_count * 2;
    mgr_strmap_node **buckets = calloc(n, sizeof *buckets);
    if (buckets == NULL)
        return -1;
    for (size_t i = 0; i < map->bucket_count; i++) {
        mgr_strmap_node *node = map->buckets[i];
        while (node != NULL) {
            mgr_strmap_node *next = node->next;
            size_t b = hash_key(node->key) & (n - 1);
            node->next = buckets[b];
            buckets[b] = node;
            node = next;
        }
    }
    free(map->buckets);
    map->buckets = buckets;
    map->bucket_count = n;
    return 0;
}

int mgr_strmap_put(mgr_strmap *map, const char *key, void *value)
{
    if (map->bucket_count != 0) {
        mgr_strmap_node *node = *slot_of(map, key);
        if (node != NULL) {
            node->value = value;
            return 0;
        }
    }
    if (map->count + 1 > map->bucket_count * 3 / 4 && grow(map) != 0 && map->bucket_count == 0)
        return -1;
    mgr_strmap_node *node = malloc(sizeof *node);
    char *copy = strdup(key);
    if (node == NULL || copy == NULL) {
        free(node);
        free(copy);
        return -1;
    }
    size_t b = hash_key(key) & (map->bucket_count - 1);
    node->key = copy;
    node->value = value;
    node->next = map->buckets[b];
    map->buckets[b] = node;
    map->count++;
    return 0;
}

void *mgr_strmap_remove(mgr_strmap *map, const char *key)
{
    if (map->bucket_count == 0)
        return NULL;
    mgr_strmap_node **slot = slot_of(map, key);
    mgr_strmap_node *node = *slot;
    if (node == NULL)
        return NULL;
    void *value = node->value;
    *slot = node->next;
    free(node->key);
    free(node);
    map->count--;
    return value;
}

void mgr_strmap_each(const mgr_strmap *map, void (*fn)(const char *key, void *value, void *ctx),
                     void *ctx)
{
    for (size_t i = 0; i < map->bucket_count; i++)
        for (mgr_strmap_node *node = map->buckets[i]; node != NULL; node = node->next)
            fn(node->key, node->value, ctx);
}

void mgr_strmap_clear(mgr_strmap *map, void (*free_value)(void *value))
{
    for (size_t i = 0; i < map->bucket_count; i++) {
        mgr_strmap_node *node = map->buckets[i];
        while (node != NULL) {
            mgr_strmap_node *next = node->next;
            if (free_value != NULL)
                free_value(node->value);
            free(node->key);
            free(node);
            node = next;
        }
    }
    free(map->buckets);
    map->buckets = NULL;
    map->bucket_count = 0;
    map->count = 0;
}
