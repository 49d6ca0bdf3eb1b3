/* The offload pool (prov_offload.h). */
#include <config.h>

#include "tools/provisioner-common/prov_offload.h"

#include "tools/provisioner-common/prov_alloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* How many jobs of one key run and wait. */
typedef struct key_count {
    struct key_count *next;
    unsigned running, waiting;
    char key[sizeof ((prov_offload_job *)0)->key];
} key_count;

struct prov_offload {
    pthread_mutex_t lock;
    pthread_cond_t work;
    prov_offload_job *head, *tail;
    key_count *keys;            /* only keys with jobs: a handful */
    unsigned share, queue;
    int stopping;
    unsigned threads;
    pthread_t *ids;
};

static key_count *find_key(prov_offload *pool, const char *key)
{
    for (key_count *k = pool->keys; k != NULL; k = k->next) {
        if (strcmp(k->key, key) == 0)
            return k;
    }
    return NULL;
}

/* The job is done: its key runs one less (and is dropped at none). */
static void forget(prov_offload *pool, const char *key)
{
    for (key_count **at = &pool->keys; *at != NULL; at = &(*at)->next) {
        key_count *k = *at;
        if (strcmp(k->key, key) != 0)
            continue;
        if (--k->running == 0 && k->waiting == 0) {
            *at = k->next;
            free(k);
        }
        return;
    }
}

/* Unlink and return the first queued job whose key runs fewer than its
 * share (counted as running from now on); NULL when none may run. */
static prov_offload_job *next_runnable(prov_offload *pool)
{
    prov_offload_job *prev = NULL;
    for (prov_offload_job *job = pool->head; job != NULL; prev = job, job = job->next) {
        key_count *k = find_key(pool, job->key);
        if (pool->share > 0 && k->running >= pool->share)
            continue;
        k->waiting--;
        k->running++;
        if (prev != NULL)
            prev->next = job->next;
        else
            pool->head = job->next;
        if (pool->tail == job)
            pool->tail = prev;
        return job;
    }
    return NULL;
}

static void *worker(void *arg)
{
    prov_offload *pool = arg;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        prov_offload_job *job;
        while ((job = next_runnable(pool)) == NULL && !pool->stopping)
            pthread_cond_wait(&pool->work, &pool->lock);
        if (job == NULL)
            break;
        pthread_mutex_unlock(&pool->lock);
        job->run(job);
        pthread_mutex_lock(&pool->lock);
        forget(pool, job->key);
        /* A job of this key held back by its share may run now. */
        if (pool->head != NULL)
            pthread_cond_broadcast(&pool->work);
        /* Unlocked: done may hand the job's state back to its owner. */
        pthread_mutex_unlock(&pool->lock);
        job->done(job);
        pthread_mutex_lock(&pool->lock);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

static void stop_threads(prov_offload *pool, unsigned started)
{
    pthread_mutex_lock(&pool->lock);
    pool->stopping = 1;
    pthread_cond_broadcast(&pool->work);
    pthread_mutex_unlock(&pool->lock);
    for (unsigned i = 0; i < started; i++)
        pthread_join(pool->ids[i], NULL);
}

prov_offload *prov_offload_new(unsigned threads, unsigned share, unsigned queue)
{
    prov_offload *pool = prov_malloc(sizeof *pool);
    pthread_t *ids = pool != NULL ? prov_malloc(threads * sizeof *ids) : NULL;
    if (ids == NULL) {
        free(pool);
        return NULL;
    }
    memset(pool, 0, sizeof *pool);
    pool->share = share;
    pool->queue = queue;
    pool->ids = ids;
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->work, NULL);
    for (; pool->threads < threads; pool->threads++) {
        if (pthread_create(&ids[pool->threads], NULL, worker, pool) != 0) {
            stop_threads(pool, pool->threads);
            pool->threads = 0;
            prov_offload_free(pool);
            return NULL;
        }
    }
    return pool;
}

unsigned prov_offload_share(const prov_offload *pool)
{
    return pool->share;
}

/* Set the job's key to the first `key_len` bytes of `key` (cut to fit)
 * and return its count, made when the key has none; NULL when memory ran
 * out.  Under the lock. */
static key_count *count_of(prov_offload *pool, prov_offload_job *job, const char *key,
                           size_t key_len)
{
    size_t n = key_len < sizeof job->key - 1 ? key_len : sizeof job->key - 1;
    memcpy(job->key, key, n);
    job->key[n] = '\0';
    key_count *k = find_key(pool, job->key);
    if (k == NULL) {
        k = prov_malloc(sizeof *k);
        if (k != NULL) {
            memset(k, 0, sizeof *k);
            memcpy(k->key, job->key, sizeof k->key);
            k->next = pool->keys;
            pool->keys = k;
        }
    }
    return k;
}

/* Count `job` under `key` as waiting (to be queued), or, `at_once`, as
 * running when the key may run one more now.  1 when counted, 0 when not
 * (its share and queue are full, or `at_once` and it may not run now), -1
 * when memory ran out. */
static int count_job(prov_offload *pool, prov_offload_job *job, const char *key,
                     size_t key_len, int at_once)
{
    int counted = 1;
    pthread_mutex_lock(&pool->lock);
    key_count *k = count_of(pool, job, key, key_len);
    if (k == NULL)
        counted = -1;
    else if (at_once)
        /* Only when none of the key waits: it overtakes no job of its own. */
        counted = k->waiting == 0 && (pool->share == 0 || k->running < pool->share);
    else
        counted = pool->share == 0 || k->running + k->waiting < pool->share + pool->queue;
    if (counted > 0)
        *(at_once ? &k->running : &k->waiting) += 1;
    pthread_mutex_unlock(&pool->lock);
    return counted;
}

int prov_offload_admit(prov_offload *pool, prov_offload_job *job, const char *key,
                       size_t key_len)
{
    return count_job(pool, job, key, key_len, 0);
}

int prov_offload_enter(prov_offload *pool, prov_offload_job *job, const char *key,
                       size_t key_len)
{
    return count_job(pool, job, key, key_len, 1);
}

void prov_offload_leave(prov_offload *pool, prov_offload_job *job)
{
    pthread_mutex_lock(&pool->lock);
    forget(pool, job->key);
    int held_back = pool->head != NULL;
    pthread_mutex_unlock(&pool->lock);
    /* A job of this key held back by its share may run now. */
    if (held_back)
        pthread_cond_broadcast(&pool->work);
}

void prov_offload_queue(prov_offload *pool, prov_offload_job *job)
{
    job->next = NULL;
    pthread_mutex_lock(&pool->lock);
    if (pool->tail != NULL)
        pool->tail->next = job;
    else
        pool->head = job;
    pool->tail = job;
    pthread_mutex_unlock(&pool->lock);
    /* After the unlock: a thread woken under the lock would block on it at
     * once, one more context switch per request. */
    pthread_cond_signal(&pool->work);
}

void prov_offload_free(prov_offload *pool)
{
    if (pool == NULL)
        return;
    stop_threads(pool, pool->threads);
    while (pool->keys != NULL) {
        key_count *next = pool->keys->next;
        free(pool->keys);
        pool->keys = next;
    }
    pthread_cond_destroy(&pool->work);
    pthread_mutex_destroy(&pool->lock);
    free(pool->ids);
    free(pool);
}
