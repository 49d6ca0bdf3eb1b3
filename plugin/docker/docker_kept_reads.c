/* Reads kept open between calls (see docker_kept_reads.h). */
#include <config.h>

#include "plugin/docker/docker_kept_reads.h"

#include "plugin/docker/docker_conn.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

void docker_kept_read_close(docker_kept_read *r)
{
    docker_archive_close(r->reader);
    free(r->block);
    r->reader = NULL;
    r->block = NULL;
}

/* Close and free slot `i`; under the lock. */
static void close_slot(docker_kept_reads *kept, size_t i)
{
    docker_kept_read_close(kept->slots[i]);
    free(kept->slots[i]);
    kept->slots[i] = NULL;
}

/* Close the kept reads idle too long; the earliest time another will be
 * (0: none kept).  Under the lock. */
static int64_t close_idle(docker_kept_reads *kept)
{
    int64_t now = docker_now_ms(), next = 0;
    for (size_t i = 0; i < DOCKER_KEPT_READS; i++) {
        if (kept->slots[i] == NULL)
            continue;
        int64_t expiry = kept->slots[i]->idle_since_ms + DOCKER_KEPT_READ_IDLE_MS;
        if (expiry <= now)
            close_slot(kept, i);
        else if (next == 0 || expiry < next)
            next = expiry;
    }
    return next;
}

static void *reap(void *arg)
{
    docker_kept_reads *kept = arg;
    pthread_mutex_lock(&kept->lock);
    while (!kept->closing) {
        int64_t next = close_idle(kept);
        if (next == 0) {
            pthread_cond_wait(&kept->changed, &kept->lock);
            continue;
        }
        struct timespec until = { .tv_sec = next / 1000, .tv_nsec = (next % 1000) * 1000000 };
        pthread_cond_timedwait(&kept->changed, &kept->lock, &until);
    }
    pthread_mutex_unlock(&kept->lock);
    return NULL;
}

void docker_kept_reads_init(docker_kept_reads *kept)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    /* docker_now_ms's clock. */
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&kept->changed, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&kept->lock, NULL);
}

void docker_kept_reads_fini(docker_kept_reads *kept)
{
    pthread_mutex_lock(&kept->lock);
    kept->closing = 1;
    pthread_cond_signal(&kept->changed);
    pthread_mutex_unlock(&kept->lock);
    if (kept->reaper_started)
        pthread_join(kept->reaper, NULL);
    for (size_t i = 0; i < DOCKER_KEPT_READS; i++)
        if (kept->slots[i] != NULL)
            close_slot(kept, i);
    pthread_cond_destroy(&kept->changed);
    pthread_mutex_destroy(&kept->lock);
}

int docker_kept_read_take(docker_kept_reads *kept, const char *sandbox_id, const char *path,
                          uint64_t offset, docker_kept_read *out)
{
    int found = 0;
    pthread_mutex_lock(&kept->lock);
    for (size_t i = 0; i < DOCKER_KEPT_READS && !found; i++) {
        docker_kept_read *r = kept->slots[i];
        if (r != NULL && r->next_offset == offset && strcmp(r->sandbox_id, sandbox_id) == 0 &&
            strcmp(r->path, path) == 0) {
            *out = *r;
            free(r);
            kept->slots[i] = NULL;
            found = 1;
        }
    }
    pthread_mutex_unlock(&kept->lock);
    return found;
}

void docker_kept_read_put(docker_kept_reads *kept, docker_kept_read *r)
{
    docker_kept_read *copy = malloc(sizeof *copy);
    if (copy == NULL) {
        docker_kept_read_close(r); /* not kept: the next piece streams again */
        return;
    }
    *copy = *r;
    copy->idle_since_ms = docker_now_ms();
    pthread_mutex_lock(&kept->lock);
    size_t slot = 0;
    for (size_t i = 0; i < DOCKER_KEPT_READS; i++) {
        if (kept->slots[i] == NULL) {
            slot = i;
            break;
        }
        if (kept->slots[i]->idle_since_ms < kept->slots[slot]->idle_since_ms)
            slot = i;
    }
    if (kept->slots[slot] != NULL)
        close_slot(kept, slot);
    kept->slots[slot] = copy;
    if (!kept->reaper_started)
        kept->reaper_started = pthread_create(&kept->reaper, NULL, reap, kept) == 0;
    pthread_cond_signal(&kept->changed);
    pthread_mutex_unlock(&kept->lock);
    if (!kept->reaper_started)
        docker_kept_reads_drop(kept, r->sandbox_id); /* no thread to close it in time */
}

void docker_kept_reads_drop(docker_kept_reads *kept, const char *sandbox_id)
{
    pthread_mutex_lock(&kept->lock);
    for (size_t i = 0; i < DOCKER_KEPT_READS; i++)
        if (kept->slots[i] != NULL && strcmp(kept->slots[i]->sandbox_id, sandbox_id) == 0)
            close_slot(kept, i);
    pthread_mutex_unlock(&kept->lock);
}
