/* In-memory sandboxes: an array in creation order behind one mutex. */
#include "tools/provisioner-emu/emu_store.h"

#include "tools/provisioner-emu/emu_alloc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_NODE_PORT 30000

typedef struct store_entry {
    char *id;
    json_object *fields;   /* full record; for stored sandboxes, verbatim */
    int stored_verbatim;
    char pod_uid[SBX_EMU_UID_LEN + 1];
} store_entry;

struct sbx_emu_store {
    pthread_mutex_t lock;
    char *node_host;
    char *initial_status;
    store_entry *entries;
    size_t count, capacity;
    int next_port;
};

sbx_emu_store *sbx_emu_store_new(const char *node_host, const char *initial_status)
{
    sbx_emu_store *store = sbx_emu_xmalloc(sizeof *store);
    memset(store, 0, sizeof *store);
    pthread_mutex_init(&store->lock, NULL);
    store->node_host = sbx_emu_xstrdup(node_host);
    store->initial_status = sbx_emu_xstrdup(initial_status);
    store->next_port = FIRST_NODE_PORT;
    return store;
}

static void entry_release(store_entry *entry)
{
    free(entry->id);
    json_object_put(entry->fields);
}

static void remove_all(sbx_emu_store *store)
{
    for (size_t i = 0; i < store->count; i++)
        entry_release(&store->entries[i]);
    store->count = 0;
}

void sbx_emu_store_free(sbx_emu_store *store)
{
    if (store == NULL)
        return;
    remove_all(store);
    free(store->entries);
    free(store->node_host);
    free(store->initial_status);
    pthread_mutex_destroy(&store->lock);
    free(store);
}

static store_entry *find_locked(sbx_emu_store *store, const char *id)
{
    for (size_t i = 0; i < store->count; i++) {
        if (strcmp(store->entries[i].id, id) == 0)
            return &store->entries[i];
    }
    return NULL;
}

static store_entry *append_locked(sbx_emu_store *store, const char *id)
{
    if (store->count == store->capacity) {
        size_t capacity = store->capacity == 0 ? 16 : store->capacity * 2;
        store_entry *grown = sbx_emu_xmalloc(capacity * sizeof *grown);
        if (store->count > 0)
            memcpy(grown, store->entries, store->count * sizeof *grown);
        free(store->entries);
        store->entries = grown;
        store->capacity = capacity;
    }
    store_entry *entry = &store->entries[store->count++];
    memset(entry, 0, sizeof *entry);
    entry->id = sbx_emu_xstrdup(id);
    sbx_emu_uid_generate(entry->pod_uid);
    return entry;
}

/* Built under the lock; the deep copy keeps callers off shared objects. */
static json_object *view_locked(const store_entry *entry, int with_identity)
{
    json_object *view = NULL;
    json_object_deep_copy(entry->fields, &view, NULL);
    if (!entry->stored_verbatim && !with_identity) {
        /* A legacy (version 0) provisioner answers no identity. */
        json_object_object_del(view, "user_id");
        json_object_object_del(view, "thread_id");
        json_object_object_del(view, "mount_contract_version");
    }
    return view;
}

json_object *sbx_emu_store_create(sbx_emu_store *store, const char *id,
                                  const char *user_id, const char *thread_id,
                                  int contract_version, int with_identity)
{
    pthread_mutex_lock(&store->lock);
    store_entry *entry = find_locked(store, id);
    if (entry == NULL) {
        entry = append_locked(store, id);
        char url[512];
        snprintf(url, sizeof url, "http://%s:%d", store->node_host, store->next_port++);
        json_object *fields = json_object_new_object();
        json_object_object_add(fields, "sandbox_id", json_object_new_string(id));
        json_object_object_add(fields, "sandbox_url", json_object_new_string(url));
        json_object_object_add(fields, "status",
                               json_object_new_string(store->initial_status));
        json_object_object_add(fields, "user_id", json_object_new_string(user_id));
        json_object_object_add(fields, "thread_id",
                               thread_id != NULL ? json_object_new_string(thread_id) : NULL);
        json_object_object_add(fields, "mount_contract_version",
                               json_object_new_int(contract_version));
        entry->fields = fields;
    }
    json_object *view = view_locked(entry, with_identity);
    pthread_mutex_unlock(&store->lock);
    return view;
}

void sbx_emu_store_put(sbx_emu_store *store, const char *id, json_object *fields)
{
    json_object *copy = NULL;
    json_object_deep_copy(fields, &copy, NULL);
    pthread_mutex_lock(&store->lock);
    store_entry *entry = find_locked(store, id);
    if (entry == NULL) {
        entry = append_locked(store, id);
    } else {
        json_object_put(entry->fields);
    }
    entry->fields = copy;
    entry->stored_verbatim = 1;
    pthread_mutex_unlock(&store->lock);
}

json_object *sbx_emu_store_find(sbx_emu_store *store, const char *id, int with_identity,
                                char incarnation[SBX_EMU_UID_LEN + 1])
{
    json_object *view = NULL;
    pthread_mutex_lock(&store->lock);
    store_entry *entry = find_locked(store, id);
    if (entry != NULL) {
        view = view_locked(entry, with_identity);
        if (incarnation != NULL)
            memcpy(incarnation, entry->pod_uid, sizeof entry->pod_uid);
    }
    pthread_mutex_unlock(&store->lock);
    return view;
}

json_object *sbx_emu_store_list(sbx_emu_store *store, int with_identity)
{
    json_object *array = json_object_new_array();
    pthread_mutex_lock(&store->lock);
    for (size_t i = 0; i < store->count; i++)
        json_object_array_add(array, view_locked(&store->entries[i], with_identity));
    pthread_mutex_unlock(&store->lock);
    return array;
}

int sbx_emu_store_delete(sbx_emu_store *store, const char *id)
{
    pthread_mutex_lock(&store->lock);
    store_entry *entry = find_locked(store, id);
    if (entry != NULL) {
        size_t index = (size_t)(entry - store->entries);
        entry_release(entry);
        memmove(entry, entry + 1, (store->count - index - 1) * sizeof *entry);
        store->count--;
    }
    pthread_mutex_unlock(&store->lock);
    return entry != NULL;
}

void sbx_emu_store_reset(sbx_emu_store *store)
{
    pthread_mutex_lock(&store->lock);
    remove_all(store);
    store->next_port = FIRST_NODE_PORT;
    pthread_mutex_unlock(&store->lock);
}
