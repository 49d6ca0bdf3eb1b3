/* In-memory Pods and Services: an array of per-id entries in creation order
 * behind one mutex, plus one injectable failure per Kubernetes call.  A hash
 * index finds an entry by id: every request looks its sandbox up (a create
 * several times) under the one mutex, so a linear scan made the emulator,
 * not the client, the limit of a benchmark with thousands of sandboxes. */
#include <config.h>

#include "tools/provisioner-emu/emu_store.h"

#include "common/fnv1a.h"
#include "tools/provisioner-emu/emu_alloc.h"

#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FIRST_NODE_PORT 30000

typedef struct store_entry {
    char *id;
    int has_pod;
    emu_pod pod;            /* valid when has_pod; phase: a set override or NULL */
    long pod_created_ms;
    int has_service;
    int node_port;
    json_object *verbatim;      /* stored by emu_store_put; NULL otherwise */
} store_entry;

typedef struct injected {
    int status;                 /* 0: none */
    int times;                  /* -1: until reset */
    char reason[EMU_REASON_MAX];
    char *only_id;              /* NULL: every sandbox */
} injected;

struct emu_store {
    pthread_mutex_t lock;
    char *node_host;
    char *phase;
    long pending_ms;
    store_entry *entries;
    size_t count, capacity;
    size_t *slots;              /* open addressing: entry index + 1, 0 empty */
    size_t slot_count;          /* a power of two above 2 x capacity, or 0 */
    int next_port;
    char *url_base;             /* NULL: URLs http://NODE_HOST:PORT; else BASE + id */
    injected faults[EMU_KUBE_OP_COUNT];
};

static const char *const op_names[EMU_KUBE_OP_COUNT] = {
    [EMU_KUBE_READ_NAMESPACE] = "read_namespace",
    [EMU_KUBE_READ_POD] = "read_pod",
    [EMU_KUBE_READ_SERVICE] = "read_service",
    [EMU_KUBE_LIST_SERVICES] = "list_services",
    [EMU_KUBE_CREATE_POD] = "create_pod",
    [EMU_KUBE_CREATE_SERVICE] = "create_service",
    [EMU_KUBE_DELETE_POD] = "delete_pod",
    [EMU_KUBE_DELETE_SERVICE] = "delete_service",
};

const char *emu_kube_op_name(emu_kube_op op)
{
    return op_names[op];
}

int emu_kube_op_from_name(const char *name)
{
    for (int op = 0; name != NULL && op < EMU_KUBE_OP_COUNT; op++) {
        if (strcmp(op_names[op], name) == 0)
            return op;
    }
    return -1;
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The reason phrase the Kubernetes client reports for an HTTP status. */
static const char *reason_phrase(int status)
{
    static const struct { int status; const char *phrase; } phrases[] = {
        {400, "Bad Request"}, {401, "Unauthorized"}, {403, "Forbidden"},
        {404, "Not Found"}, {409, "Conflict"}, {422, "Unprocessable Entity"},
        {429, "Too Many Requests"}, {500, "Internal Server Error"},
        {502, "Bad Gateway"}, {503, "Service Unavailable"}, {504, "Gateway Timeout"},
    };
    for (size_t i = 0; i < sizeof phrases / sizeof phrases[0]; i++) {
        if (phrases[i].status == status)
            return phrases[i].phrase;
    }
    return "Error";
}

emu_store *emu_store_new(const char *node_host, const char *phase, long pending_ms)
{
    emu_store *store = emu_xmalloc(sizeof *store, "the store");
    memset(store, 0, sizeof *store);
    pthread_mutex_init(&store->lock, NULL);
    store->node_host = emu_xstrdup(node_host, "the node host");
    store->phase = emu_xstrdup(phase, "the Pod phase");
    store->pending_ms = pending_ms;
    store->next_port = FIRST_NODE_PORT;
    return store;
}

void emu_pod_clear(emu_pod *pod)
{
    free(pod->user_id);
    free(pod->thread_id);
    free(pod->mounts);
    free(pod->phase);
    memset(pod, 0, sizeof *pod);
}

static void entry_release(store_entry *entry)
{
    free(entry->id);
    emu_pod_clear(&entry->pod);
    json_object_put(entry->verbatim);
}

static void clear_faults_locked(emu_store *store)
{
    for (int op = 0; op < EMU_KUBE_OP_COUNT; op++) {
        free(store->faults[op].only_id);
        memset(&store->faults[op], 0, sizeof store->faults[op]);
    }
}

static void remove_all_locked(emu_store *store)
{
    for (size_t i = 0; i < store->count; i++)
        entry_release(&store->entries[i]);
    store->count = 0;
    if (store->slots != NULL)
        memset(store->slots, 0, store->slot_count * sizeof *store->slots);
    store->next_port = FIRST_NODE_PORT;
    clear_faults_locked(store);
}

void emu_store_free(emu_store *store)
{
    if (store == NULL)
        return;
    remove_all_locked(store);
    free(store->entries);
    free(store->slots);
    free(store->node_host);
    free(store->phase);
    free(store->url_base);
    pthread_mutex_destroy(&store->lock);
    free(store);
}

void emu_store_reset(emu_store *store)
{
    pthread_mutex_lock(&store->lock);
    remove_all_locked(store);
    pthread_mutex_unlock(&store->lock);
}

void emu_store_inject(emu_store *store, emu_kube_op op, int status,
                          const char *reason, int times, const char *sandbox_id)
{
    pthread_mutex_lock(&store->lock);
    injected *f = &store->faults[op];
    free(f->only_id);
    memset(f, 0, sizeof *f);
    if (times != 0) {
        f->status = status;
        f->times = times;
        snprintf(f->reason, sizeof f->reason, "%s",
                 reason != NULL ? reason : reason_phrase(status));
        f->only_id = emu_xstrdup(sandbox_id, "an injected failure's sandbox id");
    }
    pthread_mutex_unlock(&store->lock);
}

/* The injected failure that applies to this call of `op` about `id` (NULL:
 * a call about no sandbox), consumed; 0 when the call goes through. */
static int failure_locked(emu_store *store, emu_kube_op op, const char *id,
                          char *reason)
{
    injected *f = &store->faults[op];
    if (f->status == 0 || (f->only_id != NULL && (id == NULL || strcmp(f->only_id, id) != 0)))
        return 0;
    int status = f->status;
    snprintf(reason, EMU_REASON_MAX, "%s", f->reason);
    if (f->times > 0 && --f->times == 0) {
        free(f->only_id);
        memset(f, 0, sizeof *f);
    }
    return status;
}

/* Where the probe for `id` starts in the index. */
static size_t id_hash(const char *id)
{
    return (size_t)common_fnv1a_string(COMMON_FNV1A_BASIS, id);
}

/* The index slot that holds `id`, or the empty slot where it would go. */
static size_t *slot_locked(const emu_store *store, const char *id)
{
    size_t mask = store->slot_count - 1;
    for (size_t i = id_hash(id) & mask;; i = (i + 1) & mask) {
        size_t *slot = &store->slots[i];
        if (*slot == 0 || strcmp(store->entries[*slot - 1].id, id) == 0)
            return slot;
    }
}

/* Index every entry anew (after the array grew or an entry moved). */
static void reindex_locked(emu_store *store)
{
    size_t want = 32;
    while (want < 2 * store->capacity)
        want *= 2;
    if (want != store->slot_count) {
        free(store->slots);
        store->slots = emu_xmalloc(want * sizeof *store->slots, "the sandbox index");
        store->slot_count = want;
    }
    memset(store->slots, 0, want * sizeof *store->slots);
    for (size_t i = 0; i < store->count; i++)
        *slot_locked(store, store->entries[i].id) = i + 1;
}

static store_entry *find_locked(emu_store *store, const char *id)
{
    if (store->count == 0)
        return NULL;
    size_t *slot = slot_locked(store, id);
    return *slot != 0 ? &store->entries[*slot - 1] : NULL;
}

static store_entry *find_or_add_locked(emu_store *store, const char *id)
{
    store_entry *entry = find_locked(store, id);
    if (entry != NULL)
        return entry;
    int grew = 0;
    if (store->count == store->capacity) {
        size_t capacity = store->capacity == 0 ? 16 : store->capacity * 2;
        store_entry *grown = emu_xmalloc(capacity * sizeof *grown, "the sandbox table");
        if (store->count > 0)
            memcpy(grown, store->entries, store->count * sizeof *grown);
        free(store->entries);
        store->entries = grown;
        store->capacity = capacity;
        grew = 1;
    }
    entry = &store->entries[store->count++];
    memset(entry, 0, sizeof *entry);
    entry->id = emu_xstrdup(id, "a sandbox id");
    if (grew || store->slots == NULL)
        reindex_locked(store);
    else
        *slot_locked(store, id) = store->count;
    return entry;
}

/* Drop `entry` once neither its Pod nor its Service is left. */
static void forget_if_empty_locked(emu_store *store, store_entry *entry)
{
    if (entry->has_pod || entry->has_service)
        return;
    size_t index = (size_t)(entry - store->entries);
    entry_release(entry);
    memmove(entry, entry + 1, (store->count - index - 1) * sizeof *entry);
    store->count--;
    reindex_locked(store); /* the entries after it moved */
}

static char *phase_locked(const emu_store *store, const store_entry *entry)
{
    if (entry->pod.phase != NULL)
        return emu_xstrdup(entry->pod.phase, "a Pod phase");
    if (now_ms() - entry->pod_created_ms < store->pending_ms)
        return emu_xstrdup("Pending", "a Pod phase");
    return emu_xstrdup(store->phase, "a Pod phase");
}

static char *url_locked(const emu_store *store, const store_entry *entry)
{
    char url[1024];
    if (store->url_base == NULL) {
        snprintf(url, sizeof url, "http://%s:%d", store->node_host, entry->node_port);
        return emu_xstrdup(url, "a Service URL");
    }
    /* The id percent-encoded but for URL-safe bytes: the path names it
     * exactly, whatever it holds. */
    size_t at = (size_t)snprintf(url, sizeof url, "%s", store->url_base);
    for (const unsigned char *c = (const unsigned char *)entry->id; *c != '\0' && at + 4 < sizeof url;
         c++) {
        if (isalnum(*c) || strchr("-._~", *c) != NULL)
            url[at++] = (char)*c;
        else
            at += (size_t)snprintf(url + at, sizeof url - at, "%%%02X", *c);
    }
    url[at] = '\0';
    return emu_xstrdup(url, "a Service URL");
}

void emu_store_set_url_base(emu_store *store, const char *base)
{
    char *copy = emu_xstrdup(base, "the sandbox URL base");
    pthread_mutex_lock(&store->lock);
    free(store->url_base);
    store->url_base = copy;
    pthread_mutex_unlock(&store->lock);
}

int emu_store_serves(emu_store *store, const char *id, char uid[EMU_UID_LEN + 1])
{
    pthread_mutex_lock(&store->lock);
    store_entry *entry = find_locked(store, id);
    int serves = entry != NULL && entry->has_pod && entry->has_service;
    if (serves)
        memcpy(uid, entry->pod.uid, EMU_UID_LEN + 1);
    pthread_mutex_unlock(&store->lock);
    return serves;
}

int emu_store_read_namespace(emu_store *store, char *reason)
{
    pthread_mutex_lock(&store->lock);
    int status = failure_locked(store, EMU_KUBE_READ_NAMESPACE, NULL, reason);
    pthread_mutex_unlock(&store->lock);
    return status;
}

int emu_store_read_pod(emu_store *store, const char *id, emu_pod *out,
                           char *reason)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&store->lock);
    int status = failure_locked(store, EMU_KUBE_READ_POD, id, reason);
    store_entry *entry = find_locked(store, id);
    if (status == 0 && (entry == NULL || !entry->has_pod))
        status = 404;
    if (status == 0) {
        out->user_id = emu_xstrdup(entry->pod.user_id, "a Pod's user id");
        out->thread_id = emu_xstrdup(entry->pod.thread_id, "a Pod's thread id");
        out->mounts = emu_xstrdup(entry->pod.mounts, "a Pod's mounts");
        out->contract_version = entry->pod.contract_version;
        out->phase = phase_locked(store, entry);
        memcpy(out->uid, entry->pod.uid, sizeof out->uid);
    }
    pthread_mutex_unlock(&store->lock);
    return status;
}

int emu_store_read_service(emu_store *store, const char *id, char **url,
                               char *reason)
{
    *url = NULL;
    pthread_mutex_lock(&store->lock);
    int status = failure_locked(store, EMU_KUBE_READ_SERVICE, id, reason);
    store_entry *entry = find_locked(store, id);
    if (status == 0 && (entry == NULL || !entry->has_service))
        status = 404;
    if (status == 0)
        *url = url_locked(store, entry);
    pthread_mutex_unlock(&store->lock);
    return status;
}

int emu_store_list_services(emu_store *store, emu_listed **out, size_t *count,
                                char *reason)
{
    *out = NULL;
    *count = 0;
    pthread_mutex_lock(&store->lock);
    int status = failure_locked(store, EMU_KUBE_LIST_SERVICES, NULL, reason);
    if (status == 0 && store->count > 0) {
        *out = emu_xmalloc(store->count * sizeof **out, "the Service list");
        for (size_t i = 0; i < store->count; i++) {
            const store_entry *entry = &store->entries[i];
            if (!entry->has_service)
                continue;
            emu_listed *item = &(*out)[(*count)++];
            item->sandbox_id = emu_xstrdup(entry->id, "a listed sandbox id");
            item->url = url_locked(store, entry);
            item->verbatim = NULL;
            if (entry->verbatim != NULL)
                json_object_deep_copy(entry->verbatim, &item->verbatim, NULL);
        }
    }
    pthread_mutex_unlock(&store->lock);
    return status;
}

void emu_listed_free(emu_listed *listed, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free(listed[i].sandbox_id);
        free(listed[i].url);
        json_object_put(listed[i].verbatim);
    }
    free(listed);
}

int emu_store_create_pod(emu_store *store, const char *id, const emu_pod *pod,
                             char *reason)
{
    pthread_mutex_lock(&store->lock);
    int status = failure_locked(store, EMU_KUBE_CREATE_POD, id, reason);
    if (status == 0) {
        store_entry *entry = find_or_add_locked(store, id);
        if (entry->has_pod) {
            status = 409;
            snprintf(reason, EMU_REASON_MAX, "%s", reason_phrase(409));
        } else {
            entry->has_pod = 1;
            entry->pod.user_id = emu_xstrdup(pod->user_id, "a Pod's user id");
            entry->pod.thread_id = emu_xstrdup(pod->thread_id, "a Pod's thread id");
            entry->pod.mounts = emu_xstrdup(pod->mounts, "a Pod's mounts");
            entry->pod.contract_version = pod->contract_version;
            entry->pod.phase = NULL;
            emu_uid_generate(entry->pod.uid);
            entry->pod_created_ms = now_ms();
        }
    }
    pthread_mutex_unlock(&store->lock);
    return status;
}

int emu_store_create_service(emu_store *store, const char *id, char *reason)
{
    pthread_mutex_lock(&store->lock);
    int status = failure_locked(store, EMU_KUBE_CREATE_SERVICE, id, reason);
    if (status == 0) {
        store_entry *entry = find_or_add_locked(store, id);
        if (entry->has_service) {
            status = 409;
            snprintf(reason, EMU_REASON_MAX, "%s", reason_phrase(409));
        } else {
            entry->has_service = 1;
            entry->node_port = store->next_port++;
        }
    }
    pthread_mutex_unlock(&store->lock);
    return status;
}

/* Delete the Pod (`pod`) or the Service (!`pod`) of `id`; injected
 * failures apply unless `reason` is NULL. */
static int delete_part(emu_store *store, const char *id, int pod, char *reason)
{
    pthread_mutex_lock(&store->lock);
    emu_kube_op op = pod ? EMU_KUBE_DELETE_POD : EMU_KUBE_DELETE_SERVICE;
    int status = reason != NULL ? failure_locked(store, op, id, reason) : 0;
    store_entry *entry = find_locked(store, id);
    int *has = entry == NULL ? NULL : pod ? &entry->has_pod : &entry->has_service;
    if (status == 0 && (has == NULL || !*has))
        status = 404;
    if (status == 0) {
        *has = 0;
        if (pod) {
            emu_pod_clear(&entry->pod);
            json_object_put(entry->verbatim);   /* a recreated Pod is a new sandbox */
            entry->verbatim = NULL;
        }
        forget_if_empty_locked(store, entry);
    }
    pthread_mutex_unlock(&store->lock);
    return status;
}

int emu_store_delete_pod(emu_store *store, const char *id, char *reason)
{
    return delete_part(store, id, 1, reason);
}

int emu_store_delete_service(emu_store *store, const char *id, char *reason)
{
    return delete_part(store, id, 0, reason);
}

int emu_store_remove_part(emu_store *store, const char *id, int pod)
{
    return delete_part(store, id, pod, NULL) == 0;
}

void emu_store_put(emu_store *store, const char *id, json_object *fields)
{
    json_object *copy = NULL;
    json_object_deep_copy(fields, &copy, NULL);
    pthread_mutex_lock(&store->lock);
    store_entry *entry = find_or_add_locked(store, id);
    emu_pod_clear(&entry->pod);
    json_object_put(entry->verbatim);
    entry->verbatim = copy;
    entry->has_pod = 1;
    emu_uid_generate(entry->pod.uid);
    entry->pod_created_ms = now_ms();
    if (!entry->has_service) {
        entry->has_service = 1;
        entry->node_port = store->next_port++;
    }
    pthread_mutex_unlock(&store->lock);
}

json_object *emu_store_verbatim(emu_store *store, const char *id)
{
    json_object *copy = NULL;
    pthread_mutex_lock(&store->lock);
    store_entry *entry = find_locked(store, id);
    if (entry != NULL && entry->verbatim != NULL)
        json_object_deep_copy(entry->verbatim, &copy, NULL);
    pthread_mutex_unlock(&store->lock);
    return copy;
}

int emu_store_set_phase(emu_store *store, const char *id, const char *phase)
{
    pthread_mutex_lock(&store->lock);
    store_entry *entry = find_locked(store, id);
    int found = entry != NULL && entry->has_pod;
    if (found) {
        free(entry->pod.phase);
        entry->pod.phase = emu_xstrdup(phase, "a Pod phase");
    }
    pthread_mutex_unlock(&store->lock);
    return found;
}
