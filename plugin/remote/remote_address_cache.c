/* The kept sandbox addresses (see remote_address_cache.h): a small table
 * under one lock, the oldest entry replaced when it is full. */
#include <config.h>

#include "plugin/remote/remote_address_cache.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void clear_entry(remote_address_entry *e)
{
    free(e->sandbox_id);
    free(e->url);
    free(e->incarnation);
    *e = (remote_address_entry){ 0 };
}

static remote_address_entry *entry_of(remote_address_cache *c, const char *sandbox_id)
{
    for (size_t i = 0; i < REMOTE_ADDRESS_ENTRIES; i++)
        if (c->entries[i].sandbox_id != NULL && strcmp(c->entries[i].sandbox_id, sandbox_id) == 0)
            return &c->entries[i];
    return NULL;
}

int remote_address_cache_init(remote_address_cache *c)
{
    memset(c->entries, 0, sizeof c->entries);
    return pthread_mutex_init(&c->lock, NULL) == 0 ? 0 : -1;
}

void remote_address_cache_destroy(remote_address_cache *c)
{
    for (size_t i = 0; i < REMOTE_ADDRESS_ENTRIES; i++)
        clear_entry(&c->entries[i]);
    pthread_mutex_destroy(&c->lock);
}

int remote_address_cache_find(remote_address_cache *c, const char *sandbox_id, char **url,
                              char **incarnation)
{
    *url = *incarnation = NULL;
    pthread_mutex_lock(&c->lock);
    remote_address_entry *e = entry_of(c, sandbox_id);
    if (e != NULL && now_ms() - e->kept_at_ms < REMOTE_ADDRESS_KEEP_MS) {
        *url = strdup(e->url);
        *incarnation = strdup(e->incarnation);
    }
    pthread_mutex_unlock(&c->lock);
    if (*url != NULL && *incarnation != NULL)
        return 1;
    free(*url);
    free(*incarnation);
    *url = *incarnation = NULL;
    return 0;
}

void remote_address_cache_keep(remote_address_cache *c, const char *sandbox_id,
                               const char *url, const char *incarnation)
{
    remote_address_entry fresh = { strdup(sandbox_id), strdup(url), strdup(incarnation), now_ms() };
    if (fresh.sandbox_id == NULL || fresh.url == NULL || fresh.incarnation == NULL) {
        clear_entry(&fresh);
        return;
    }
    pthread_mutex_lock(&c->lock);
    remote_address_entry *e = entry_of(c, sandbox_id);
    for (size_t i = 0; e == NULL && i < REMOTE_ADDRESS_ENTRIES; i++)
        if (c->entries[i].sandbox_id == NULL)
            e = &c->entries[i];
    if (e == NULL) {
        e = &c->entries[0];
        for (size_t i = 1; i < REMOTE_ADDRESS_ENTRIES; i++)
            if (c->entries[i].kept_at_ms < e->kept_at_ms)
                e = &c->entries[i];
    }
    remote_address_entry old = *e;
    *e = fresh;
    pthread_mutex_unlock(&c->lock);
    clear_entry(&old);
}

void remote_address_cache_forget(remote_address_cache *c, const char *sandbox_id)
{
    remote_address_entry old = { 0 };
    pthread_mutex_lock(&c->lock);
    remote_address_entry *e = entry_of(c, sandbox_id);
    if (e != NULL) {
        old = *e;
        *e = (remote_address_entry){ 0 };
    }
    pthread_mutex_unlock(&c->lock);
    clear_entry(&old);
}
