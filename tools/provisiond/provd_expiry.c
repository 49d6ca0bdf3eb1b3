/* The expiry reaper (see provd_expiry.h): one thread, woken by the tick
 * or by the stop, under a monotonic clock. */
#include <config.h>

#include "tools/provisiond/provd_expiry.h"

#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisiond/provd_spec.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct provd_expiry {
    provd_service *svc;
    void (*log)(void *, const char *);
    void *log_ctx;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stopping;
    pthread_t thread;
};

/* Destroy each sandbox past its expiry now, one line each. */
static void reap(provd_expiry *r)
{
    char **ids = NULL;
    size_t count = 0;
    if (provd_owners_expired(r->svc->owners, provd_spec_now_ms(), &ids, &count) < 0) {
        r->log(r->log_ctx, "expiry: out of memory listing expired sandboxes; trying again");
        return;
    }
    for (size_t i = 0; i < count; i++) {
        prov_reply reply = {0};
        if (provd_service_expire(r->svc, ids[i], &reply)) {
            char line[512];
            if (reply.status == 200)
                snprintf(line, sizeof line, "sandbox '%s' passed its expiry: destroyed", ids[i]);
            else
                snprintf(line, sizeof line,
                         "sandbox '%s' passed its expiry; destroying it failed (%u %.*s): "
                         "trying again", ids[i], reply.status,
                         reply.body != NULL ? (int)(reply.body_len < 300 ? reply.body_len : 300)
                                            : 0,
                         reply.body != NULL ? reply.body : "");
            r->log(r->log_ctx, line);
        }
        prov_reply_clear(&reply);
    }
    provd_owners_ids_free(ids, count);
}

static void *run(void *arg)
{
    provd_expiry *r = arg;
    pthread_mutex_lock(&r->lock);
    while (!r->stopping) {
        pthread_mutex_unlock(&r->lock);
        reap(r);
        pthread_mutex_lock(&r->lock);
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += (long)PROVD_EXPIRY_TICK_MS * 1000000L;
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        while (!r->stopping && pthread_cond_timedwait(&r->wake, &r->lock, &until) == 0)
            ;
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

provd_expiry *provd_expiry_start(provd_service *svc, void (*log)(void *, const char *),
                                 void *log_ctx, char *why, size_t why_len)
{
    provd_expiry *r = prov_malloc(sizeof *r);
    if (r == NULL) {
        snprintf(why, why_len, "out of memory starting the expiry reaper");
        return NULL;
    }
    memset(r, 0, sizeof *r);
    r->svc = svc;
    r->log = log;
    r->log_ctx = log_ctx;
    pthread_condattr_t attr;
    int ok = pthread_condattr_init(&attr) == 0;
    ok = ok && pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0 &&
         pthread_cond_init(&r->wake, &attr) == 0;
    pthread_condattr_destroy(&attr);
    if (!ok) {
        snprintf(why, why_len, "cannot make the expiry reaper's condition variable");
        free(r);
        return NULL;
    }
    pthread_mutex_init(&r->lock, NULL);
    if (pthread_create(&r->thread, NULL, run, r) != 0) {
        snprintf(why, why_len, "cannot start the expiry reaper's thread");
        pthread_cond_destroy(&r->wake);
        pthread_mutex_destroy(&r->lock);
        free(r);
        return NULL;
    }
    return r;
}

void provd_expiry_stop(provd_expiry *r)
{
    if (r == NULL)
        return;
    pthread_mutex_lock(&r->lock);
    r->stopping = 1;
    pthread_cond_signal(&r->wake);
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->thread, NULL);
    pthread_cond_destroy(&r->wake);
    pthread_mutex_destroy(&r->lock);
    free(r);
}
