/* Ownership records: a hash table under one mutex, an index of the same
 * records by token (chains through the records, bucketed by SipHash under
 * a key drawn at open, grown as tokens come), a lock per id (in a second
 * table, counted and freed when the last user leaves), and one small JSON
 * file per sandbox (DIR/ID.owner, replaced whole: provd_state_file.h). */
#include <config.h>

#include "tools/provisiond/provd_owners.h"
#include "tools/provisiond/provd_state_file.h"

#include "common/fnv1a.h"
#include "common/random_bytes.h"
#include "common/sandbox_ids.h"
#include "common/siphash.h"
#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisioner-common/prov_files.h"
#include "tools/provisioner-common/prov_json.h"
#include "tools/provisioner-common/prov_server.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUCKETS 1024
/* The token index starts this small and doubles whenever it holds more
 * tokens than buckets, so that a bucket holds one token on average. */
#define TOKEN_BUCKETS_MIN 64
#define SUFFIX ".owner"

/* A record file is a few hundred bytes; anything far larger is not ours. */
#define MAX_RECORD_BYTES (64 * 1024)

/* A record, or the mark of an id whose record file could not be read at
 * start-up (unreadable: the record is empty and the id is never handed to
 * anyone). */
typedef struct entry {
    char *id;
    provd_record record;
    int unreadable;
    struct entry *next;
    uint64_t token_hash;                /* of record.token, when not NULL */
    struct entry *token_next;           /* in the token index's bucket */
} entry;

/* The lock of one id while anyone holds or waits for it. */
typedef struct id_lock {
    char *id;
    unsigned users;                     /* the holder and the waiters */
    int held;
    pthread_cond_t free;                /* signalled when held drops */
    struct id_lock *next;
} id_lock;

struct provd_owners {
    char *dir;                          /* NULL: memory only */
    pthread_mutex_t table_lock;
    entry *buckets[BUCKETS];
    /* The records that have a token, by the keyed hash of their token;
     * under table_lock like the table itself. */
    common_siphash_key token_key;       /* drawn at open, never shown */
    entry **by_token;
    size_t token_buckets;               /* a power of two */
    size_t tokens;
    /* Held only to look a lock up or change it, never across a wait for
     * the backend or a file: ids never queue behind each other. */
    pthread_mutex_t locks_lock;
    id_lock *locks[BUCKETS];
};

/* The bucket of `id` in either table. */
static size_t bucket(const char *id)
{
    return (size_t)(common_fnv1a_string(COMMON_FNV1A_BASIS, id) % BUCKETS);
}

static uint64_t token_hash(const provd_owners *owners, const char *token)
{
    return common_siphash24(&owners->token_key, token, strlen(token));
}

/* Double the token index when it holds more tokens than buckets (table
 * lock held).  When memory runs out it stays as it is: lookups are then
 * slower, never wrong. */
static void token_index_grow(provd_owners *owners)
{
    if (owners->tokens <= owners->token_buckets)
        return;
    size_t grown = owners->token_buckets * 2;
    entry **heads = calloc(grown, sizeof *heads);
    if (heads == NULL)
        return;
    for (size_t b = 0; b < owners->token_buckets; b++) {
        for (entry *e = owners->by_token[b], *next; e != NULL; e = next) {
            next = e->token_next;
            entry **slot = &heads[e->token_hash & (grown - 1)];
            e->token_next = *slot;
            *slot = e;
        }
    }
    free(owners->by_token);
    owners->by_token = heads;
    owners->token_buckets = grown;
}

/* Index `e` by its token, when it has one (table lock held). */
static void token_index_add(provd_owners *owners, entry *e)
{
    if (e->record.token == NULL)
        return;
    e->token_hash = token_hash(owners, e->record.token);
    entry **slot = &owners->by_token[e->token_hash & (owners->token_buckets - 1)];
    e->token_next = *slot;
    *slot = e;
    owners->tokens++;
    token_index_grow(owners);
}

/* Take `e` out of the token index, when its token put it there (table lock
 * held): before its record is replaced or freed. */
static void token_index_remove(provd_owners *owners, entry *e)
{
    if (e->record.token == NULL)
        return;
    entry **slot = &owners->by_token[e->token_hash & (owners->token_buckets - 1)];
    while (*slot != e)
        slot = &(*slot)->token_next;
    *slot = e->token_next;
    e->token_next = NULL;
    owners->tokens--;
}

prov_owner provd_record_owner(const provd_record *record)
{
    return (prov_owner){record->user_id, record->thread_id, record->mounts,
                            record->contract_version};
}

void provd_record_clear(provd_record *record)
{
    free(record->user_id);
    free(record->thread_id);
    free(record->mounts);
    free(record->token);
    memset(record, 0, sizeof *record);
}

/* Copy `from` and what `keep` holds into `to`.  Returns 1, or 0 (nothing
 * kept) when memory runs out. */
static int record_copy(provd_record *to, const prov_owner *from, const provd_keep *keep)
{
    const char *token = keep->token;
    to->expires_at = keep->expires_at;
    to->user_id = prov_strdup(from->user_id);
    to->thread_id = prov_strdup(from->thread_id);
    to->mounts = prov_strdup(from->mounts);
    to->contract_version = from->contract_version;
    to->token = prov_strdup(token);
    if ((from->user_id != NULL && to->user_id == NULL) ||
        (from->thread_id != NULL && to->thread_id == NULL) ||
        (from->mounts != NULL && to->mounts == NULL) || (token != NULL && to->token == NULL)) {
        provd_record_clear(to);
        return 0;
    }
    return 1;
}

/* Replace the in-memory record of `id` (table lock held).  Returns 1, or
 * 0 with the table unchanged when memory runs out. */
static int table_set(provd_owners *owners, const char *id, const prov_owner *owner,
                     const provd_keep *keep)
{
    provd_record copy;
    if (!record_copy(&copy, owner, keep))
        return 0;
    entry **slot = &owners->buckets[bucket(id)];
    for (entry *e = *slot; e != NULL; e = e->next) {
        if (strcmp(e->id, id) == 0) {
            token_index_remove(owners, e);
            provd_record_clear(&e->record);
            e->record = copy;
            token_index_add(owners, e);
            return 1;
        }
    }
    entry *e = prov_malloc(sizeof *e);
    char *key = e != NULL ? prov_strdup(id) : NULL;
    if (key == NULL) {
        free(e);
        provd_record_clear(&copy);
        return 0;
    }
    *e = (entry){.id = key, .record = copy, .next = *slot};
    *slot = e;
    token_index_add(owners, e);
    return 1;
}

/* Mark `id` as one whose record file could not be read (table lock held,
 * or not yet shared).  Returns 1, or 0 when memory runs out. */
static int table_mark_unreadable(provd_owners *owners, const char *id)
{
    static const prov_owner none = {NULL, NULL, NULL, 0};
    static const provd_keep nothing = {NULL, 0};
    if (!table_set(owners, id, &none, &nothing))
        return 0;
    for (entry *e = owners->buckets[bucket(id)]; e != NULL; e = e->next) {
        if (strcmp(e->id, id) == 0)
            e->unreadable = 1;
    }
    return 1;
}

static void file_path(const provd_owners *owners, const char *id, char *out, size_t size)
{
    snprintf(out, size, "%s/%s%s", owners->dir, id, SUFFIX);
}

/* What load_file answers when memory runs out: the start fails. */
static const char load_out_of_memory[] = "out of memory";

/* The record of `text` into the table as the record of `id`.  Returns
 * NULL, or what is wrong with it (load_out_of_memory: nothing is wrong
 * with it, the daemon is). */
static const char *parse_record(provd_owners *owners, const char *id, const char *text,
                                size_t len)
{
    size_t offset = 0;
    const char *why = NULL;
    json_object *obj = prov_json_parse(text, len, &offset, &why);
    if (why == prov_json_out_of_memory)
        return load_out_of_memory;
    json_object *version = NULL, *expiry = NULL;
    prov_owner owner = {prov_json_string_member(obj, "user_id"),
                        prov_json_string_member(obj, "thread_id"),
                        prov_json_string_member(obj, "mounts"), 0};
    const char *problem = NULL;
    if (!json_object_is_type(obj, json_type_object))
        problem = "not a JSON object";
    else if (owner.user_id == NULL || owner.thread_id == NULL || owner.mounts == NULL ||
             !json_object_object_get_ex(obj, "mount_contract_version", &version) ||
             !json_object_is_type(version, json_type_int))
        problem = "a member is missing or ill-typed";
    else if (json_object_object_get_ex(obj, "expires_at", &expiry) &&
             !json_object_is_type(expiry, json_type_int))
        problem = "expires_at is not an integer";
    else {
        owner.contract_version = json_object_get_int(version);
        provd_keep keep = {prov_json_string_member(obj, "sandbox_token"),
                           expiry != NULL ? json_object_get_int64(expiry) : 0};
        if (!table_set(owners, id, &owner, &keep))
            problem = load_out_of_memory;
    }
    json_object_put(obj);
    return problem;
}

/* Load DIR/NAME into the table; a file that names a sandbox id but holds
 * no record marks the id unreadable.  Returns NULL, or what is wrong with
 * it (load_out_of_memory: nothing is wrong with it, the daemon is). */
static const char *load_file(provd_owners *owners, const char *name)
{
    size_t len = strlen(name), suffix = strlen(SUFFIX);
    char id[COMMON_SANDBOX_ID_MAX + 1];
    if (len <= suffix || len - suffix > COMMON_SANDBOX_ID_MAX)
        return "not a sandbox id";
    memcpy(id, name, len - suffix);
    id[len - suffix] = '\0';
    if (!common_sandbox_id_is_valid(id))
        return "not a sandbox id";
    /* Without blocking or following a link: a FIFO, a device or a link
     * there must not hang or mislead the start. */
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", owners->dir, name);
    size_t got = 0;
    const char *problem = NULL;
    char *text = prov_read_regular(path, MAX_RECORD_BYTES, 1, &got, &problem);
    if (text != NULL)
        problem = parse_record(owners, id, text, got);
    else if (problem == prov_file_out_of_memory)
        problem = load_out_of_memory;
    else if (problem == prov_file_too_large)
        problem = "larger than 64 KiB";
    free(text);
    if (problem != NULL && problem != load_out_of_memory &&
        !table_mark_unreadable(owners, id))
        return load_out_of_memory;
    return problem;
}

static int load_dir(provd_owners *owners, void (*warn)(void *, const char *), void *warn_ctx,
                    char *why, size_t why_len)
{
    if (mkdir(owners->dir, 0700) != 0 && errno != EEXIST) {
        snprintf(why, why_len, "cannot create the state directory %s: %s", owners->dir,
                 strerror(errno));
        return 0;
    }
    DIR *d = opendir(owners->dir);
    if (d == NULL) {
        snprintf(why, why_len, "cannot read the state directory %s: %s", owners->dir,
                 strerror(errno));
        return 0;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name), suffix = strlen(SUFFIX);
        if (de->d_name[0] == '.' || len < suffix ||
            strcmp(de->d_name + len - suffix, SUFFIX) != 0)
            continue;
        const char *problem = load_file(owners, de->d_name);
        if (problem == load_out_of_memory) {
            snprintf(why, why_len, "out of memory loading the ownership records of %s",
                     owners->dir);
            closedir(d);
            return 0;
        }
        if (problem != NULL && warn != NULL) {
            char line[512];
            snprintf(line, sizeof line,
                     "ignoring the ownership record %s/%s (%s): its sandbox is unverifiable",
                     owners->dir, de->d_name, problem);
            warn(warn_ctx, line);
        }
    }
    closedir(d);
    return 1;
}

provd_owners *provd_owners_open(const char *dir, void (*warn)(void *, const char *),
                                void *warn_ctx, char *why, size_t why_len)
{
    provd_owners *owners = prov_malloc(sizeof *owners);
    if (owners == NULL) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    memset(owners, 0, sizeof *owners);
    pthread_mutex_init(&owners->table_lock, NULL);
    pthread_mutex_init(&owners->locks_lock, NULL);
    unsigned char key[16];
    if (common_random_bytes(key, sizeof key) != 0) {
        snprintf(why, why_len, "no random bytes for the token index's key: %s",
                 strerror(errno));
        provd_owners_free(owners);
        return NULL;
    }
    owners->token_key = common_siphash_key_from_bytes(key);
    memset(key, 0, sizeof key);
    owners->token_buckets = TOKEN_BUCKETS_MIN;
    owners->by_token = calloc(owners->token_buckets, sizeof *owners->by_token);
    owners->dir = prov_strdup(dir);
    if (owners->by_token == NULL || (dir != NULL && owners->dir == NULL)) {
        snprintf(why, why_len, "out of memory");
        provd_owners_free(owners);
        return NULL;
    }
    if (dir != NULL && !load_dir(owners, warn, warn_ctx, why, why_len)) {
        provd_owners_free(owners);
        return NULL;
    }
    return owners;
}

void provd_owners_free(provd_owners *owners)
{
    if (owners == NULL)
        return;
    for (int b = 0; b < BUCKETS; b++) {
        for (entry *e = owners->buckets[b], *next; e != NULL; e = next) {
            next = e->next;
            free(e->id);
            provd_record_clear(&e->record);
            free(e);
        }
    }
    /* No lock is held or awaited now: the server has stopped. */
    pthread_mutex_destroy(&owners->locks_lock);
    pthread_mutex_destroy(&owners->table_lock);
    free(owners->by_token);
    free(owners->dir);
    free(owners);
}

int provd_owners_lock(provd_owners *owners, const char *id)
{
    pthread_mutex_lock(&owners->locks_lock);
    id_lock **slot = &owners->locks[bucket(id)];
    id_lock *l = *slot;
    while (l != NULL && strcmp(l->id, id) != 0)
        l = l->next;
    if (l == NULL) {
        l = prov_malloc(sizeof *l);
        char *key = l != NULL ? prov_strdup(id) : NULL;
        if (key == NULL || pthread_cond_init(&l->free, NULL) != 0) {
            pthread_mutex_unlock(&owners->locks_lock);
            free(key);
            free(l);
            return 0;
        }
        l->id = key;
        l->users = 0;
        l->held = 0;
        l->next = *slot;
        *slot = l;
    }
    l->users++;
    while (l->held)
        pthread_cond_wait(&l->free, &owners->locks_lock);
    l->held = 1;
    pthread_mutex_unlock(&owners->locks_lock);
    return 1;
}

void provd_owners_unlock(provd_owners *owners, const char *id)
{
    pthread_mutex_lock(&owners->locks_lock);
    id_lock **slot = &owners->locks[bucket(id)];
    while (*slot != NULL && strcmp((*slot)->id, id) != 0)
        slot = &(*slot)->next;
    id_lock *l = *slot;
    l->held = 0;
    if (--l->users > 0) {
        pthread_cond_signal(&l->free);
        l = NULL;
    } else {
        *slot = l->next;
    }
    pthread_mutex_unlock(&owners->locks_lock);
    if (l != NULL) {
        pthread_cond_destroy(&l->free);
        free(l->id);
        free(l);
    }
}

int provd_owners_get(provd_owners *owners, const char *id, provd_record *out)
{
    memset(out, 0, sizeof *out);
    int found = 0;
    pthread_mutex_lock(&owners->table_lock);
    for (entry *e = owners->buckets[bucket(id)]; e != NULL; e = e->next) {
        if (strcmp(e->id, id) == 0 && e->unreadable) {
            found = PROVD_RECORD_UNREADABLE;
            break;
        }
        if (strcmp(e->id, id) == 0) {
            prov_owner owner = provd_record_owner(&e->record);
            provd_keep keep = {e->record.token, e->record.expires_at};
            found = record_copy(out, &owner, &keep) ? 1 : -1;
            break;
        }
    }
    pthread_mutex_unlock(&owners->table_lock);
    return found;
}

/* Write the record file of `id` through a temporary file and rename:
 * 1, 0 with the reason in `why`, or -1 when memory runs out. */
static int write_file(const provd_owners *owners, const char *id, const prov_owner *owner,
                      const provd_keep *keep, char *why, size_t why_len)
{
    const char *token = keep->token;
    json_object *obj = json_object_new_object();
    int built = obj != NULL && prov_json_add_string(obj, "user_id", owner->user_id) &&
                prov_json_add_string(obj, "thread_id", owner->thread_id) &&
                prov_json_add_string(obj, "mounts", owner->mounts) &&
                prov_json_add(obj, "mount_contract_version",
                                  json_object_new_int(owner->contract_version)) &&
                (token == NULL || prov_json_add_string(obj, "sandbox_token", token)) &&
                (keep->expires_at == 0 ||
                 prov_json_add(obj, "expires_at", json_object_new_int64(keep->expires_at)));
    const char *text = built ? prov_json_text(obj) : NULL;
    if (text == NULL) {
        json_object_put(obj);
        return -1;
    }
    char name[COMMON_SANDBOX_ID_MAX + sizeof SUFFIX];
    snprintf(name, sizeof name, "%s" SUFFIX, id);
    int ok = provd_state_file_replace(owners->dir, name, text, strlen(text));
    if (!ok)
        snprintf(why, why_len, "cannot write the ownership record %s/%s: %s", owners->dir, name,
                 strerror(errno));
    json_object_put(obj);
    return ok;
}

int provd_owners_put(provd_owners *owners, const char *id, const prov_owner *owner,
                     const provd_keep *keep, char *why, size_t why_len)
{
    int written = owners->dir != NULL ? write_file(owners, id, owner, keep, why, why_len) : 1;
    if (written <= 0)
        return written;
    pthread_mutex_lock(&owners->table_lock);
    int kept = table_set(owners, id, owner, keep);
    pthread_mutex_unlock(&owners->table_lock);
    if (kept)
        return 1;
    if (owners->dir != NULL) {
        char path[4096];
        file_path(owners, id, path, sizeof path);
        unlink(path);   /* no record on disk that the daemon does not hold */
    }
    return -1;
}

int provd_owners_remove(provd_owners *owners, const char *id, char *why, size_t why_len)
{
    if (owners->dir != NULL) {
        char path[4096];
        file_path(owners, id, path, sizeof path);
        if (unlink(path) != 0 && errno != ENOENT) {
            snprintf(why, why_len, "cannot remove the ownership record %s: %s", path,
                     strerror(errno));
            return 0;
        }
    }
    pthread_mutex_lock(&owners->table_lock);
    entry **slot = &owners->buckets[bucket(id)];
    while (*slot != NULL && strcmp((*slot)->id, id) != 0)
        slot = &(*slot)->next;
    entry *gone = *slot;
    if (gone != NULL) {
        *slot = gone->next;
        token_index_remove(owners, gone);
    }
    pthread_mutex_unlock(&owners->table_lock);
    if (gone != NULL) {
        free(gone->id);
        provd_record_clear(&gone->record);
        free(gone);
    }
    return 1;
}

int provd_owners_find_token(provd_owners *owners, const char *token, char *id, size_t id_cap)
{
    const entry *match = NULL;
    uint64_t hash = token_hash(owners, token);
    pthread_mutex_lock(&owners->table_lock);
    /* No early exit: every token of the bucket is compared whatever
     * matched (why that is enough: provd_owners.h). */
    for (const entry *e = owners->by_token[hash & (owners->token_buckets - 1)]; e != NULL;
         e = e->token_next) {
        if (prov_key_equal(token, e->record.token))
            match = e;
    }
    int found = match == NULL ? 0 : strlen(match->id) < id_cap ? 1 : -1;
    if (found == 1)
        memcpy(id, match->id, strlen(match->id) + 1);
    pthread_mutex_unlock(&owners->table_lock);
    return found;
}

void provd_owners_ids_free(char **ids, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(ids[i]);
    free(ids);
}

int provd_owners_expired(provd_owners *owners, int64_t now_ms, char ***ids, size_t *count)
{
    *ids = NULL;
    *count = 0;
    size_t cap = 0;
    int failed = 0;
    pthread_mutex_lock(&owners->table_lock);
    for (int b = 0; b < BUCKETS && !failed; b++) {
        for (const entry *e = owners->buckets[b]; e != NULL && !failed; e = e->next) {
            if (e->unreadable || e->record.expires_at == 0 || e->record.expires_at > now_ms)
                continue;
            if (*count == cap) {
                size_t grown = cap == 0 ? 8 : cap * 2;
                char **more = realloc(*ids, grown * sizeof *more);
                failed = more == NULL;
                if (failed)
                    break;
                *ids = more;
                cap = grown;
            }
            char *copy = prov_strdup(e->id);
            failed = copy == NULL;
            if (!failed)
                (*ids)[(*count)++] = copy;
        }
    }
    pthread_mutex_unlock(&owners->table_lock);
    if (!failed)
        return 0;
    provd_owners_ids_free(*ids, *count);
    *ids = NULL;
    *count = 0;
    return -1;
}
