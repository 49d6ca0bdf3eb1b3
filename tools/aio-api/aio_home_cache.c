/* The kept working directories of container sandboxes (aio_home_cache.h):
 * a small table under one lock, the entry used least recently replaced. */
#include <config.h>

#include "tools/aio-api/aio_home_cache.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

/* Sandboxes served at once by one daemon are few; a miss costs one exec. */
#define HOME_CACHE_ENTRIES 64
#define HOME_KEY_MAX 256
#define HOME_DIR_MAX 1024

typedef struct home_entry {
    const void *backend;       /* NULL: a free entry */
    char id[HOME_KEY_MAX];
    char incarnation[HOME_KEY_MAX];
    char dir[HOME_DIR_MAX];
    uint64_t used;             /* when last found or kept, in cache ticks */
} home_entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static home_entry entries[HOME_CACHE_ENTRIES];
static uint64_t ticks;

static home_entry *entry_of(const void *backend, const char *id, const char *incarnation)
{
    for (size_t i = 0; i < HOME_CACHE_ENTRIES; i++)
        if (entries[i].backend == backend && strcmp(entries[i].id, id) == 0 &&
            strcmp(entries[i].incarnation, incarnation) == 0)
            return &entries[i];
    return NULL;
}

int aio_home_cache_find(const void *backend, const char *id, const char *incarnation,
                        char *dir, size_t size)
{
    pthread_mutex_lock(&lock);
    home_entry *e = entry_of(backend, id, incarnation);
    int found = e != NULL && strlen(e->dir) < size;
    if (found) {
        strcpy(dir, e->dir);
        e->used = ++ticks;
    }
    pthread_mutex_unlock(&lock);
    return found;
}

void aio_home_cache_keep(const void *backend, const char *id, const char *incarnation,
                         const char *dir)
{
    if (backend == NULL || strlen(id) >= HOME_KEY_MAX ||
        strlen(incarnation) >= HOME_KEY_MAX || strlen(dir) >= HOME_DIR_MAX)
        return;
    pthread_mutex_lock(&lock);
    home_entry *e = entry_of(backend, id, incarnation);
    for (size_t i = 0; e == NULL && i < HOME_CACHE_ENTRIES; i++)
        if (entries[i].backend == NULL)
            e = &entries[i];
    if (e == NULL) {
        e = &entries[0];
        for (size_t i = 1; i < HOME_CACHE_ENTRIES; i++)
            if (entries[i].used < e->used)
                e = &entries[i];
    }
    e->backend = backend;
    strcpy(e->id, id);
    strcpy(e->incarnation, incarnation);
    strcpy(e->dir, dir);
    e->used = ++ticks;
    pthread_mutex_unlock(&lock);
}
