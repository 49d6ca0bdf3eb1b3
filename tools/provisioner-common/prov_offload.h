/* A pool of threads of its own for requests that may wait long on the
 * backend (the sandbox API's execs and file moves), so that they never
 * hold the HTTP server's workers: those keep answering /health and the
 * lifecycle API whatever the sandboxes run.  A short job may instead be
 * done on its caller's thread, counted under its key all the same
 * (prov_offload_enter).  Jobs wait in one queue, in
 * order; each is counted under a key (a sandbox's token) while it waits
 * or runs.  One key runs at most `share` jobs at once, so that one tenant
 * cannot take every thread (its further jobs wait, holding none, and the
 * jobs of other keys behind them run first), and has at most `queue`
 * more waiting, so that its waiting requests stay bounded too.  Knows
 * nothing of HTTP; thread-safe. */
#ifndef PROV_OFFLOAD_H
#define PROV_OFFLOAD_H

#include <stddef.h>

typedef struct prov_offload prov_offload;

/* A job: embedded in the caller's state, which must live until `done`
 * is called.  `key` is set at admission. */
typedef struct prov_offload_job {
    struct prov_offload_job *next;  /* the queue's; the pool's to set */
    void (*run)(struct prov_offload_job *job);   /* the work, on a pool thread */
    void (*done)(struct prov_offload_job *job);  /* then, once it no longer
                                                  * counts under its key */
    char key[72];
} prov_offload_job;

/* `threads` threads (> 0), at most `share` jobs of one key running and
 * `queue` more waiting (share 0: no cap).  NULL when memory or a thread
 * cannot be had. */
prov_offload *prov_offload_new(unsigned threads, unsigned share, unsigned queue);

/* How many jobs of one key may run at once. */
unsigned prov_offload_share(const prov_offload *pool);

/* Count `job` under the first `key_len` bytes of `key` (cut to fit).
 * Returns 1 when admitted (queue it with prov_offload_queue), 0 when the
 * key already has `share` + `queue` jobs, -1 when memory ran out. */
int prov_offload_admit(prov_offload *pool, prov_offload_job *job, const char *key,
                       size_t key_len);

/* Count `job` under `key` (as prov_offload_admit) as running, at once and
 * outside the pool, when the key runs fewer than `share` jobs and has
 * none waiting (so it overtakes none of its own): returns 1, and the
 * caller does the work on its own thread, then calls prov_offload_leave.
 * Returns 0 when the key's share is taken (admit and queue the job
 * instead), -1 when memory ran out. */
int prov_offload_enter(prov_offload *pool, prov_offload_job *job, const char *key,
                       size_t key_len);

/* The work of an entered job is done: it no longer counts under its key
 * (a job of the key held back by the share may run now). */
void prov_offload_leave(prov_offload *pool, prov_offload_job *job);

/* Queue an admitted job: once its key runs fewer than `share`, a thread
 * calls job->run(job), forgets its count, then calls job->done(job) (a
 * next job of the key is admitted from then on). */
void prov_offload_queue(prov_offload *pool, prov_offload_job *job);

/* Stop the threads once they are idle and free the pool (no job may be
 * queued or running).  NULL is accepted. */
void prov_offload_free(prov_offload *pool);

#endif
