/* The cache of record files (see local_cache.h). */
#include <config.h>

#include "plugin/local/local_cache.h"

#include "common/fnv1a.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* What identifies the content of a record file while it is held open. */
typedef struct file_id {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    struct timespec ctime;
} file_id;

typedef struct cache_entry {
    char *path;                 /* NULL: a free slot */
    uint64_t hash;              /* of path */
    int fd;                     /* the record file, held open */
    file_id id;
    unsigned long long used;    /* when last read, in reads of the cache */
    local_metadata meta;
} cache_entry;

struct local_cache {
    pthread_mutex_t lock;
    unsigned long long reads;
    cache_entry entries[LOCAL_CACHE_ENTRIES];
};

/* Entries are told apart by hash before their paths are compared. */
static uint64_t path_hash(const char *path)
{
    return common_fnv1a_string(COMMON_FNV1A_BASIS, path);
}

static file_id file_id_of(const struct stat *st)
{
    return (file_id){st->st_dev, st->st_ino, st->st_size, st->st_mtim, st->st_ctim};
}

static int same_time(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static int same_file(const file_id *a, const file_id *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           same_time(&a->mtime, &b->mtime) && same_time(&a->ctime, &b->ctime);
}

/* Whether a file last changed at `changed` had settled by `before` (when
 * its read began): any later change then shows in its times. */
static int settled(const struct timespec *changed, const struct timespec *before)
{
    long long changed_ms = (long long)changed->tv_sec * 1000 + changed->tv_nsec / 1000000;
    long long before_ms = (long long)before->tv_sec * 1000 + before->tv_nsec / 1000000;
    return changed_ms + LOCAL_CACHE_SETTLE_MS <= before_ms;
}

local_cache *local_cache_new(void)
{
    local_cache *cache = calloc(1, sizeof *cache);
    if (cache == NULL)
        return NULL;
    if (pthread_mutex_init(&cache->lock, NULL) != 0) {
        free(cache);
        return NULL;
    }
    return cache;
}

static void entry_clear(cache_entry *e)
{
    if (e->path == NULL)
        return;
    free(e->path);
    close(e->fd);
    local_metadata_clear(&e->meta);
    memset(e, 0, sizeof *e);
}

void local_cache_free(local_cache *cache)
{
    if (cache == NULL)
        return;
    for (size_t i = 0; i < LOCAL_CACHE_ENTRIES; i++)
        entry_clear(&cache->entries[i]);
    pthread_mutex_destroy(&cache->lock);
    free(cache);
}

/* The entry of `path`, or NULL.  The lock is held. */
static cache_entry *find(local_cache *cache, const char *path, uint64_t hash)
{
    for (size_t i = 0; i < LOCAL_CACHE_ENTRIES; i++) {
        cache_entry *e = &cache->entries[i];
        if (e->path != NULL && e->hash == hash && strcmp(e->path, path) == 0)
            return e;
    }
    return NULL;
}

/* The slot for a new entry: `path`'s own, a free one or the one read least
 * recently (cleared).  The lock is held. */
static cache_entry *slot_for(local_cache *cache, const char *path, uint64_t hash)
{
    cache_entry *slot = find(cache, path, hash);
    for (size_t i = 0; slot == NULL && i < LOCAL_CACHE_ENTRIES; i++) {
        cache_entry *e = &cache->entries[i];
        if (e->path == NULL)
            slot = e;
    }
    for (size_t i = 0; slot == NULL && i < LOCAL_CACHE_ENTRIES; i++) {
        cache_entry *e = &cache->entries[i];
        if (i == 0 || e->used < slot->used)
            slot = e;
    }
    entry_clear(slot);
    return slot;
}

/* Keep `meta` (copied), read from `fd` (taken: closed when not kept). */
static void keep(local_cache *cache, const char *path, uint64_t hash, int fd, const file_id *id,
                 const local_metadata *meta)
{
    char *owned_path = strdup(path);
    local_metadata copy;
    sbx_error ignored;
    if (owned_path == NULL || local_metadata_copy(meta, &copy, &ignored) != SBX_OK) {
        /* Out of memory: the record was read all the same, uncached. */
        free(owned_path);
        close(fd);
        return;
    }
    pthread_mutex_lock(&cache->lock);
    cache_entry *e = slot_for(cache, path, hash);
    *e = (cache_entry){owned_path, hash, fd, *id, ++cache->reads, copy};
    pthread_mutex_unlock(&cache->lock);
}

sbx_status local_cache_read(local_cache *cache, const char *path, local_metadata *meta,
                            sbx_error *err)
{
    uint64_t hash = path_hash(path);
    struct stat now;
    /* lstat: a symlink put at the path is never taken for the cached file
     * (the file is then opened, and refused, as local_metadata_open says). */
    if (lstat(path, &now) == 0) {
        file_id id = file_id_of(&now);
        pthread_mutex_lock(&cache->lock);
        cache_entry *e = find(cache, path, hash);
        int hit = e != NULL && same_file(&e->id, &id);
        sbx_status st = SBX_OK;
        if (hit) {
            e->used = ++cache->reads;
            st = local_metadata_copy(&e->meta, meta, err);
        }
        pthread_mutex_unlock(&cache->lock);
        if (hit)
            return st;
    } else {
        local_cache_forget(cache, path);
    }
    struct timespec before;
    clock_gettime(CLOCK_REALTIME, &before);
    int fd;
    sbx_status st = local_metadata_open(path, &fd, err);
    if (st != SBX_OK) {
        memset(meta, 0, sizeof *meta);
        return st;
    }
    st = local_metadata_read_fd(fd, path, meta, err);
    struct stat read_st;
    /* The times after the read: a change while it read shows in them. */
    if (st == SBX_OK && fstat(fd, &read_st) == 0 && settled(&read_st.st_ctim, &before) &&
        settled(&read_st.st_mtim, &before)) {
        file_id id = file_id_of(&read_st);
        keep(cache, path, hash, fd, &id, meta);
    } else {
        close(fd);
    }
    return st;
}

void local_cache_forget(local_cache *cache, const char *path)
{
    uint64_t hash = path_hash(path);
    pthread_mutex_lock(&cache->lock);
    cache_entry *e = find(cache, path, hash);
    if (e != NULL)
        entry_clear(e);
    pthread_mutex_unlock(&cache->lock);
}
