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
static void close_slot(sbx_backend_instance *inst, size_t i)
{
    docker_kept_read_close(inst->reads[i]);
    free(inst->reads[i]);
    inst->reads[i] = NULL;
}

/* Close the kept reads idle too long; the earliest time another will be
 * (0: none kept).  Under the lock. */
static int64_t close_idle(sbx_backend_instance *inst)
{
    int64_t now = docker_now_ms(), next = 0;
    for (size_t i = 0; i < DOCKER_KEPT_READS; i++) {
        if (inst->reads[i] == NULL)
            continue;
        int64_t expiry = inst->reads[i]->idle_since_ms + DOCKER_KEPT_READ_IDLE_MS;
        if (expiry <= now)
            close_slot(inst, i);
        else if (next == 0 || expiry < next)
            next = expiry;
    }
    return next;
}

static void *reap(void *arg)
{
    sbx_backend_instance *inst = arg;
    pthread_mutex_lock(&inst->reads_lock);
    while (!inst->closing) {
        int64_t next = close_idle(inst);
        if (next == 0) {
            pthread_cond_wait(&inst->reads_changed, &inst->reads_lock);
            continue;
        }
        struct timespec until = { .tv_sec = next / 1000, .tv_nsec = (next % 1000) * 1000000 };
        pthread_cond_timedwait(&inst->reads_changed, &inst->reads_lock, &until);
    }
    pthread_mutex_unlock(&inst->reads_lock);
    return NULL;
}

void docker_kept_reads_init(sbx_backend_instance *inst)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    /* docker_now_ms's clock. */
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&inst->reads_changed, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&inst->reads_lock, NULL);
}

void docker_kept_reads_fini(sbx_backend_instance *inst)
{
    pthread_mutex_lock(&inst->reads_lock);
    inst->closing = 1;
    pthread_cond_signal(&inst->reads_changed);
    pthread_mutex_unlock(&inst->reads_lock);
    if (inst->reaper_started)
        pthread_join(inst->reaper, NULL);
    for (size_t i = 0; i < DOCKER_KEPT_READS; i++)
        if (inst->reads[i] != NULL)
            close_slot(inst, i);
    pthread_cond_destroy(&inst->reads_changed);
    pthread_mutex_destroy(&inst->reads_lock);
}

int docker_kept_read_take(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                          uint64_t offset, docker_kept_read *out)
{
    int found = 0;
    pthread_mutex_lock(&inst->reads_lock);
    for (size_t i = 0; i < DOCKER_KEPT_READS && !found; i++) {
        docker_kept_read *r = inst->reads[i];
        if (r != NULL && r->next_offset == offset && strcmp(r->sandbox_id, sandbox_id) == 0 &&
            strcmp(r->path, path) == 0) {
            *out = *r;
            free(r);
            inst->reads[i] = NULL;
            found = 1;
        }
    }
    pthread_mutex_unlock(&inst->reads_lock);
    return found;
}

void docker_kept_read_put(sbx_backend_instance *inst, docker_kept_read *r)
{
    docker_kept_read *copy = malloc(sizeof *copy);
    if (copy == NULL) {
        docker_kept_read_close(r); /* not kept: the next piece streams again */
        return;
    }
    *copy = *r;
    copy->idle_since_ms = docker_now_ms();
    pthread_mutex_lock(&inst->reads_lock);
    size_t slot = 0;
    for (size_t i = 0; i < DOCKER_KEPT_READS; i++) {
        if (inst->reads[i] == NULL) {
            slot = i;
            break;
        }
        if (inst->reads[i]->idle_since_ms < inst->reads[slot]->idle_since_ms)
            slot = i;
    }
    if (inst->reads[slot] != NULL)
        close_slot(inst, slot);
    inst->reads[slot] = copy;
    if (!inst->reaper_started)
        inst->reaper_started = pthread_create(&inst->reaper, NULL, reap, inst) == 0;
    pthread_cond_signal(&inst->reads_changed);
    pthread_mutex_unlock(&inst->reads_lock);
    if (!inst->reaper_started)
        docker_kept_reads_drop(inst, r->sandbox_id); /* no thread to close it in time */
}

void docker_kept_reads_drop(sbx_backend_instance *inst, const char *sandbox_id)
{
    pthread_mutex_lock(&inst->reads_lock);
    for (size_t i = 0; i < DOCKER_KEPT_READS; i++)
        if (inst->reads[i] != NULL && strcmp(inst->reads[i]->sandbox_id, sandbox_id) == 0)
            close_slot(inst, i);
    pthread_mutex_unlock(&inst->reads_lock);
}
