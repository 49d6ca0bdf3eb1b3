/*
 * The in-process lease store: correct for one process only (peers cannot see
 * it, so cross_process is 0), with real TTLs and both lease states so that
 * the one contract suite runs against it as against the shared stores.
 */
#include <config.h>

#include "host-api/src/manager/lease_store.h"
#include "host-api/src/manager/strmap.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct memory_lease {
    char *owner;
    int destroying;
    int64_t expires_at;
} memory_lease;

/* The leases themselves, shared by the stores of one process that were
 * opened to see each other (each store is one owner). */
typedef struct memory_table {
    pthread_mutex_t lock;
    mgr_strmap leases;            /* sandbox id -> memory_lease */
    unsigned refs;                /* stores using it; under lock */
    mgr_lease_clock clock;
} memory_table;

typedef struct memory_store {
    mgr_lease_store base;
    memory_table *t;
} memory_store;

static void lease_free(void *value)
{
    memory_lease *lease = value;
    if (lease != NULL)
        free(lease->owner);
    free(lease);
}

/* The live lease of `id`, dropping an expired one.  Under the lock. */
static memory_lease *live_lease(memory_store *s, const char *id)
{
    memory_lease *lease = mgr_strmap_get(&s->t->leases, id);
    if (lease != NULL && s->t->clock.now(s->t->clock.ctx) >= lease->expires_at) {
        lease_free(mgr_strmap_remove(&s->t->leases, id));
        lease = NULL;
    }
    return lease;
}

static int is_mine(const memory_store *s, const memory_lease *lease)
{
    return strcmp(lease->owner, s->base.owner_id) == 0;
}

/* Write our lease in `destroying` state with a fresh TTL.  Under the lock. */
static sbx_status write_lease(memory_store *s, const char *id, int destroying, sbx_error *err)
{
    memory_lease *lease = mgr_strmap_get(&s->t->leases, id);
    if (lease == NULL) {
        lease = calloc(1, sizeof *lease);
        if (lease == NULL || mgr_strmap_put(&s->t->leases, id, lease) != 0) {
            free(lease);
            return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory writing the lease of %s",
                                 id);
        }
    }
    if (lease->owner == NULL || !is_mine(s, lease)) {
        char *owner = strdup(s->base.owner_id);
        if (owner == NULL) {
            if (lease->owner == NULL)
                lease_free(mgr_strmap_remove(&s->t->leases, id));
            return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory writing the lease of %s",
                                 id);
        }
        free(lease->owner);
        lease->owner = owner;
    }
    lease->destroying = destroying;
    lease->expires_at = s->t->clock.now(s->t->clock.ctx) + s->base.ttl_ms;
    return SBX_OK;
}

static sbx_status mem_take(mgr_lease_store *store, const char *id, int *taken, sbx_error *err)
{
    memory_store *s = (memory_store *)store;
    pthread_mutex_lock(&s->t->lock);
    memory_lease *lease = live_lease(s, id);
    sbx_status st = SBX_OK;
    *taken = 0;
    if (lease == NULL || !lease->destroying) {
        st = write_lease(s, id, 0, err);
        *taken = st == SBX_OK;
    }
    pthread_mutex_unlock(&s->t->lock);
    return st;
}

static sbx_status mem_claim(mgr_lease_store *store, const char *id, int for_destroy,
                            int *claimed, sbx_error *err)
{
    memory_store *s = (memory_store *)store;
    pthread_mutex_lock(&s->t->lock);
    memory_lease *lease = live_lease(s, id);
    sbx_status st = SBX_OK;
    *claimed = 0;
    int refused = lease != NULL && (!is_mine(s, lease) || (!for_destroy && lease->destroying));
    if (!refused) {
        st = write_lease(s, id, for_destroy, err);
        *claimed = st == SBX_OK;
    }
    pthread_mutex_unlock(&s->t->lock);
    return st;
}

static sbx_status mem_renew(mgr_lease_store *store, const char *id, mgr_lease_renewal *out,
                            sbx_error *err)
{
    memory_store *s = (memory_store *)store;
    pthread_mutex_lock(&s->t->lock);
    memory_lease *lease = live_lease(s, id);
    sbx_status st = SBX_OK;
    if (lease == NULL)
        *out = SBX_LEASE_LAPSED;
    else if (!is_mine(s, lease) || lease->destroying)
        *out = SBX_LEASE_LOST;
    else {
        *out = SBX_LEASE_RENEWED;
        st = write_lease(s, id, 0, err);
    }
    pthread_mutex_unlock(&s->t->lock);
    return st;
}

static sbx_status mem_release(mgr_lease_store *store, const char *id, sbx_error *err)
{
    (void)err;
    memory_store *s = (memory_store *)store;
    pthread_mutex_lock(&s->t->lock);
    memory_lease *lease = live_lease(s, id);
    if (lease != NULL && is_mine(s, lease))
        lease_free(mgr_strmap_remove(&s->t->leases, id));
    pthread_mutex_unlock(&s->t->lock);
    return SBX_OK;
}

static sbx_status mem_owner(mgr_lease_store *store, const char *id, char **owner,
                            int *destroying, sbx_error *err)
{
    memory_store *s = (memory_store *)store;
    sbx_status st = SBX_OK;
    pthread_mutex_lock(&s->t->lock);
    memory_lease *lease = live_lease(s, id);
    *owner = NULL;
    if (destroying != NULL)
        *destroying = lease != NULL && lease->destroying;
    if (lease != NULL && (*owner = strdup(lease->owner)) == NULL)
        st = sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory reading the lease of %s", id);
    pthread_mutex_unlock(&s->t->lock);
    return st;
}

static void mem_close(mgr_lease_store *store)
{
    memory_store *s = (memory_store *)store;
    pthread_mutex_lock(&s->t->lock);
    unsigned left = --s->t->refs;
    pthread_mutex_unlock(&s->t->lock);
    if (left == 0) {
        mgr_strmap_clear(&s->t->leases, lease_free);
        pthread_mutex_destroy(&s->t->lock);
        free(s->t);
    }
    free(s->base.owner_id);
    free(s);
}

static const mgr_lease_store_ops memory_ops = {
    "memory", 0,
    mem_take, mem_claim, mem_renew, mem_release, mem_owner, mem_close,
    NULL, /* list: nothing outside this process sees these leases */
};

sbx_status mgr_lease_store_memory_open(const char *owner_id, int64_t ttl_ms,
                                       mgr_lease_clock clock, mgr_lease_store *share_with,
                                       mgr_lease_store **out, sbx_error *err)
{
    memory_store *s = calloc(1, sizeof *s);
    memory_table *t = share_with != NULL ? ((memory_store *)share_with)->t : calloc(1, sizeof *t);
    if (s == NULL || t == NULL) {
        free(s);
        if (share_with == NULL)
            free(t);
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory opening the memory lease store");
    }
    sbx_status st = mgr_lease_store_init(&s->base, &memory_ops, owner_id, ttl_ms, err);
    if (st != SBX_OK) {
        free(s);
        if (share_with == NULL)
            free(t);
        return st;
    }
    if (share_with == NULL) {
        pthread_mutex_init(&t->lock, NULL);
        t->clock = clock;
    }
    pthread_mutex_lock(&t->lock);
    t->refs++;
    pthread_mutex_unlock(&t->lock);
    s->t = t;
    *out = &s->base;
    return SBX_OK;
}
