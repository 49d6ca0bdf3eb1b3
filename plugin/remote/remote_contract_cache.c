/* The mount-contract cache (see remote_contract_cache.h). */
#include <config.h>

#include "plugin/remote/remote_contract_cache.h"

#include "plugin/remote/remote_options.h"

#include <sbx/backend_support.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static int64_t monotonic_ms(void *ctx)
{
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t now_ms(const remote_contract_cache *cache)
{
    return cache->hooks.clock(cache->hooks.clock_ctx);
}

#define CACHE_LOG(cache, level, ...)                                                  \
    sbx_backend_log((cache)->hooks.services, (level),                                 \
                    (cache)->hooks.log_name != NULL ? (cache)->hooks.log_name : REMOTE_NAME, \
                    __VA_ARGS__)

/* `now + delay` without overflow (a clock near INT64_MAX saturates). */
static int64_t deadline_after(int64_t now, int64_t delay)
{
    return now > INT64_MAX - delay ? INT64_MAX : now + delay;
}

int64_t remote_contract_retry_delay_ms(unsigned failures)
{
    if (failures == 0)
        return 0;
    /* Past this many doublings the cap is reached: never shift further. */
    unsigned doublings = failures - 1;
    int64_t delay = REMOTE_CONTRACT_RETRY_MAX_MS;
    if (doublings < 16)
        delay = (int64_t)REMOTE_CONTRACT_RETRY_BASE_MS << doublings;
    return delay < REMOTE_CONTRACT_RETRY_MAX_MS ? delay : REMOTE_CONTRACT_RETRY_MAX_MS;
}

int remote_contract_effective_version(const remote_contract_state *state)
{
    return state->known ? state->version : 0;
}

sbx_status remote_contract_cache_init(remote_contract_cache *cache,
                                      const remote_contract_hooks *hooks,
                                      sbx_error *err)
{
    memset(cache, 0, sizeof *cache);
    cache->hooks = *hooks;
    if (cache->hooks.clock == NULL)
        cache->hooks.clock = monotonic_ms;
    if (pthread_mutex_init(&cache->lock, NULL) != 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot create a mutex");
    if (pthread_cond_init(&cache->probe_done, NULL) != 0) {
        pthread_mutex_destroy(&cache->lock);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot create a condition variable");
    }
    return SBX_OK;
}

void remote_contract_cache_destroy(remote_contract_cache *cache)
{
    pthread_cond_destroy(&cache->probe_done);
    pthread_mutex_destroy(&cache->lock);
}

/* Record a probe's outcome (lock held). */
static void record_probe(remote_contract_cache *cache, sbx_status st,
                         const remote_probe_answer *answer, const sbx_error *perr, int64_t now)
{
    remote_contract_state *s = &cache->state;
    s->probe_out_of_memory = st == SBX_ERR_INTERNAL;
    if (st == SBX_ERR_INTERNAL)
        return;
    s->failure_kind = st;
    const char *why = st == SBX_OK ? "" : perr->message;
    /* Cut to fit, and marked: it is quoted in a longer message. */
    sbx_backend_format(s->failure, sizeof s->failure, "%s", why);
    if (st == SBX_OK) {
        int version = answer->version;
        s->version = version;
        s->create_fields = answer->create_fields;
        s->extend = answer->extend;
        s->known = 1;
        s->failures = 0;
        s->next_probe_at_ms = deadline_after(now, version >= REMOTE_CONTRACT_CURRENT_VERSION
                                                      ? REMOTE_CONTRACT_FRESH_CURRENT_MS
                                                      : REMOTE_CONTRACT_FRESH_MS);
    } else {
        /* Fail closed: an unverified provisioner is treated as legacy. */
        s->known = 0;
        if (s->failures < UINT_MAX)
            s->failures++;
        s->next_probe_at_ms = deadline_after(now, remote_contract_retry_delay_ms(s->failures));
    }
}

static int run_probe(remote_contract_cache *cache, remote_contract_state *out)
{
    /* Lock held on entry and on return; released while probing. */
    cache->probing = 1;
    pthread_mutex_unlock(&cache->lock);

    remote_probe_answer answer = {0, 0, 0};
    sbx_error perr;
    sbx_backend_error_clear(&perr);
    sbx_status st = cache->hooks.probe(cache->hooks.probe_ctx, &answer, &perr);
    int64_t now = now_ms(cache);

    pthread_mutex_lock(&cache->lock);
    record_probe(cache, st, &answer, &perr, now);
    cache->probing = 0;
    cache->probes_completed++;
    *out = cache->state;
    pthread_cond_broadcast(&cache->probe_done);
    pthread_mutex_unlock(&cache->lock);

    if (st == SBX_OK)
        CACHE_LOG(cache, SBX_LOG_DEBUG, "mount contract version %d (capability probe)",
                  answer.version);
    else if (st == SBX_ERR_INTERNAL)
        CACHE_LOG(cache, SBX_LOG_WARN,
                  "capability probe failed here, not counted against the provisioner: %s",
                  perr.message);
    else
        CACHE_LOG(cache, SBX_LOG_WARN,
                  "capability probe failed (%u in a row; next probe in %lld ms): %s",
                  out->failures, (long long)remote_contract_retry_delay_ms(out->failures),
                  perr.message);

    pthread_mutex_lock(&cache->lock);
    return 1;
}

int remote_contract_cache_current(remote_contract_cache *cache, remote_contract_state *out)
{
    int refreshed = 0;
    pthread_mutex_lock(&cache->lock);
    if (now_ms(cache) < cache->state.next_probe_at_ms) {
        *out = cache->state;
    } else if (!cache->probing) {
        refreshed = run_probe(cache, out);
    } else {
        uint64_t awaited = cache->probes_completed;
        /* Log without our lock held: the host's callback is foreign code. */
        pthread_mutex_unlock(&cache->lock);
        CACHE_LOG(cache, SBX_LOG_DEBUG, "waiting for the capability probe in flight");
        pthread_mutex_lock(&cache->lock);
        while (cache->probes_completed == awaited)
            pthread_cond_wait(&cache->probe_done, &cache->lock);
        *out = cache->state;
        refreshed = 1;
    }
    pthread_mutex_unlock(&cache->lock);
    return refreshed;
}

void remote_contract_cache_mark_stale(remote_contract_cache *cache)
{
    pthread_mutex_lock(&cache->lock);
    cache->state.next_probe_at_ms = 0;
    pthread_mutex_unlock(&cache->lock);
}

void remote_contract_cache_peek(remote_contract_cache *cache, remote_contract_state *out)
{
    pthread_mutex_lock(&cache->lock);
    *out = cache->state;
    pthread_mutex_unlock(&cache->lock);
}

void remote_contract_cache_set_state(remote_contract_cache *cache,
                                     const remote_contract_state *state)
{
    pthread_mutex_lock(&cache->lock);
    cache->state = *state;
    pthread_mutex_unlock(&cache->lock);
}
