/* The str_replace_editor's undo history (aio_edit_history.h): a small
 * table under one lock, the oldest entry replaced when it is full. */
#include <config.h>

#include "tools/aio-api/aio_edit_history.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct history_entry {
    const void *backend;       /* NULL: a free entry */
    char *sandbox_key, *path, *content;
    size_t len;
    uint64_t made;             /* when kept, in ticks */
} history_entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static history_entry entries[AIO_EDIT_HISTORY_FILES];
static uint64_t ticks;

/* Free what `e` holds, handed out of the table (called without the lock). */
static void clear_entry(history_entry *e)
{
    free(e->sandbox_key);
    free(e->path);
    free(e->content);
    *e = (history_entry){ 0 };
}

static history_entry *entry_of(const void *backend, const char *sandbox_key, const char *path)
{
    for (size_t i = 0; i < AIO_EDIT_HISTORY_FILES; i++)
        if (entries[i].backend == backend && strcmp(entries[i].sandbox_key, sandbox_key) == 0 &&
            strcmp(entries[i].path, path) == 0)
            return &entries[i];
    return NULL;
}

/* Take entry `e` out of the table into *out (the lock held). */
static void take(history_entry *e, history_entry *out)
{
    *out = *e;
    *e = (history_entry){ 0 };
}

void aio_edit_history_push(const void *backend, const char *sandbox_key, const char *path,
                           const char *content, size_t len)
{
    history_entry fresh = { 0 }, old = { 0 };
    if (len <= AIO_EDIT_HISTORY_BYTES) {
        fresh = (history_entry){ backend, strdup(sandbox_key), strdup(path), malloc(len + 1),
                                 len, 0 };
        if (fresh.content != NULL) {
            memcpy(fresh.content, content, len);
            fresh.content[len] = '\0';
        }
        if (fresh.sandbox_key == NULL || fresh.path == NULL || fresh.content == NULL)
            clear_entry(&fresh);
    }
    pthread_mutex_lock(&lock);
    history_entry *e = entry_of(backend, sandbox_key, path);
    if (e != NULL)
        take(e, &old);
    if (fresh.backend != NULL) {
        for (size_t i = 0; e == NULL && i < AIO_EDIT_HISTORY_FILES; i++)
            if (entries[i].backend == NULL)
                e = &entries[i];
        if (e == NULL) {
            e = &entries[0];
            for (size_t i = 1; i < AIO_EDIT_HISTORY_FILES; i++)
                if (entries[i].made < e->made)
                    e = &entries[i];
            take(e, &old);
        }
        fresh.made = ++ticks;
        *e = fresh;
    }
    pthread_mutex_unlock(&lock);
    clear_entry(&old);
}

char *aio_edit_history_pop(const void *backend, const char *sandbox_key, const char *path,
                           size_t *len)
{
    history_entry found = { 0 };
    pthread_mutex_lock(&lock);
    history_entry *e = entry_of(backend, sandbox_key, path);
    if (e != NULL)
        take(e, &found);
    pthread_mutex_unlock(&lock);
    char *content = found.content;
    *len = found.len;
    found.content = NULL;
    clear_entry(&found);
    return content;
}
