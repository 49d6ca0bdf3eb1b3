/* The manager's lifetimes and its expiry reaper (see manager_expiry.h). */
#include <config.h>

#include "host-api/src/manager/manager_expiry.h"

#include "common/expiry.h"
#include "host-api/src/manager/entries.h"
#include "host-api/src/manager/manager_events.h"
#include "host-api/src/manager/manager_internal.h"
#include "host-api/src/manager/manager_teardown.h"

#include <stdlib.h>
#include <string.h>

/* SBX_ERR_USAGE naming expires_at when it is further than max_lifetime
 * from `now_ms`. */
static sbx_status check_max(const sbx_manager *m, const char *op, int64_t expires_at,
                            int64_t now_ms, sbx_error *err)
{
    int64_t max = m->config.max_lifetime_ms;
    if (max <= 0 || expires_at - now_ms <= max)
        return SBX_OK;
    return sbx_error_set(err, SBX_ERR_USAGE,
                         "manager: %s: expires_at %lld is %lld ms from now, beyond the "
                         "configured max_lifetime of %lld ms", op, (long long)expires_at,
                         (long long)(expires_at - now_ms), (long long)max);
}

static int honours_expiry(sbx_manager *m)
{
    sbx_operations_info info = { .struct_size = sizeof info };
    sbx_error ignored;
    return sbx_backend_operations_info(m->backend, &info, &ignored) == SBX_OK &&
           (info.create_fields & SBX_CREATE_EXPIRY) != 0;
}

sbx_status mgr_expiry_of_new(sbx_manager *m, sbx_create_request *request, sbx_error *err)
{
    int64_t now = common_epoch_now_ms();
    if (request->expires_at == SBX_TIME_UNKNOWN && m->config.default_lifetime_ms > 0 &&
        honours_expiry(m))
        request->expires_at = now + m->config.default_lifetime_ms;
    if (request->expires_at == SBX_TIME_UNKNOWN)
        return SBX_OK;
    return check_max(m, "acquire", request->expires_at, now, err);
}

sbx_status sbx_manager_extend(sbx_manager *m, const char *sandbox_id, int64_t expires_at,
                              sbx_error *err)
{
    sbx_error_clear(err);
    if (m == NULL || sandbox_id == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "manager: extend needs a sandbox id");
    sbx_status st = mgr_require_tracked(m, sandbox_id, err);
    if (st == SBX_OK)
        st = check_max(m, "extend", expires_at, common_epoch_now_ms(), err);
    if (st == SBX_OK)
        st = sbx_backend_extend(m->backend, sandbox_id, expires_at, err);
    if (st == SBX_OK)
        mgr_expiry_note(m, sandbox_id, expires_at);
    return st;
}

void mgr_expiry_note(sbx_manager *m, const char *id, int64_t expires_at)
{
    mgr_read_lock(&m->lock);
    mgr_entry *e = mgr_find(m, id);
    if (e != NULL)
        atomic_store(&e->expires_at, expires_at);
    mgr_read_unlock(&m->lock);
}

/* Whatever its state here: an expired sandbox goes. */
static int reapable_expired(sbx_manager *m, const mgr_entry *e, void *ctx)
{
    (void)m, (void)e, (void)ctx;
    return 1;
}

/* Tear `id` down; when its lease cannot be had for that (a peer holds it,
 * the store does not answer) destroy it all the same. */
static void destroy_expired(sbx_manager *m, const char *id)
{
    sbx_error err;
    sbx_status st = mgr_teardown(m, id, reapable_expired, NULL, 1, &err);
    if (st != SBX_OK && st != SBX_ERR_INTERNAL) {
        mgr_log(m, SBX_LOG_INFO, "expired sandbox %s: %s; destroying it all the same", id,
                err.message);
        st = sbx_backend_destroy(m->backend, id, &err);
    }
    if (st != SBX_OK) {
        mgr_log(m, SBX_LOG_WARN, "expired sandbox %s not destroyed, will retry: %s", id,
                err.message);
        return;
    }
    mgr_log(m, SBX_LOG_INFO, "destroyed sandbox %s: past its expiry", id);
    mgr_event(m, SBX_MANAGER_EVENT_EXPIRED, id);
}

/* The tracked sandboxes past the expiry last learnt for them, none being
 * torn down: ids[count] (malloc'd), which a list did not show. */
typedef struct expired_ids {
    int64_t now;
    const sbx_sandbox_record *listed;
    char **ids;
    size_t count, cap;
} expired_ids;

static int listed(const sbx_sandbox_record *records, const char *id)
{
    for (const sbx_sandbox_record *r = records; r != NULL; r = r->next)
        if (strcmp(r->sandbox.sandbox_id, id) == 0)
            return 1;
    return 0;
}

static void collect_unlisted(const char *key, void *value, void *ctx)
{
    const mgr_entry *e = value;
    expired_ids *x = ctx;
    if (e->teardown || e->state == MGR_NONE ||
        !common_expiry_passed(atomic_load(&e->expires_at), x->now) || listed(x->listed, key))
        return;
    if (x->count == x->cap) {
        size_t cap = x->cap ? x->cap * 2 : 8;
        char **ids = realloc(x->ids, cap * sizeof *ids);
        if (ids == NULL)
            return; /* the next pass sees the rest */
        x->ids = ids;
        x->cap = cap;
    }
    if ((x->ids[x->count] = strdup(key)) != NULL)
        x->count++;
}

/* Tear down (and report) the tracked sandboxes gone past their expiry
 * that `records` (the pass's list) no longer shows. */
static void reap_unlisted(sbx_manager *m, const sbx_sandbox_record *records, int64_t now)
{
    expired_ids x = { .now = now, .listed = records };
    mgr_read_lock(&m->lock);
    mgr_strmap_each(&m->entries, collect_unlisted, &x);
    mgr_read_unlock(&m->lock);
    for (size_t i = 0; i < x.count; i++) {
        destroy_expired(m, x.ids[i]);
        free(x.ids[i]);
    }
    free(x.ids);
}

void mgr_reap_expired(sbx_manager *m)
{
    /* A backend that takes no expiry has none to enforce: no extra list. */
    if (!honours_expiry(m))
        return;
    sbx_sandbox_record *records = NULL;
    size_t count = 0;
    sbx_error err;
    sbx_status st = sbx_backend_list_records(m->backend, &records, &count, &err);
    if (st != SBX_OK) {
        if (st != SBX_ERR_UNSUPPORTED)
            mgr_log(m, SBX_LOG_WARN, "expiry pass skipped: list failed: %s", err.message);
        return;
    }
    int64_t now = common_epoch_now_ms();
    for (const sbx_sandbox_record *r = records; r != NULL; r = r->next) {
        if (!SBX_RECORD_HAS(r, expires_at))
            continue;
        mgr_expiry_note(m, r->sandbox.sandbox_id, r->expires_at);
        if (common_expiry_passed(r->expires_at, now))
            destroy_expired(m, r->sandbox.sandbox_id);
    }
    reap_unlisted(m, records, now);
    sbx_backend_free_records(m->backend, records);
}
