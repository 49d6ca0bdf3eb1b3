/* The table of created AIO bash sessions (aio_bash_sessions.h): a list in
 * creation order under one lock; a server holds few sessions (at most
 * AIO_BASH_MAX_SESSIONS per sandbox), so lookups walk it.  A change hands
 * a copy of its sandbox's sessions to the store under a second lock,
 * taken before the first is let go: saves keep the changes' order while
 * lookups need not wait for a file to be written. */
#include <config.h>

#include "tools/aio-api/aio_bash_sessions.h"

#include "tools/aio-api/aio_shell_table.h"
#include "tools/provisioner-common/prov_alloc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    struct entry *next;
    char *sandbox_id;
    aio_bash_session session;
} entry;

struct aio_bash_sessions {
    pthread_mutex_t lock;
    entry *first;               /* oldest first */
    const aio_bash_store *store; /* NULL: memory only */
    pthread_mutex_t save_lock;  /* one save at a time, in the changes' order */
};

aio_bash_sessions *aio_bash_sessions_new(const aio_bash_store *store)
{
    aio_bash_sessions *t = prov_malloc(sizeof *t);
    if (t == NULL)
        return NULL;
    pthread_mutex_init(&t->lock, NULL);
    pthread_mutex_init(&t->save_lock, NULL);
    t->first = NULL;
    t->store = store;
    return t;
}

static void entry_free(entry *e)
{
    free(e->sandbox_id);
    free(e);
}

void aio_bash_sessions_free(aio_bash_sessions *t)
{
    if (t == NULL)
        return;
    for (entry *e = t->first, *next; e != NULL; e = next) {
        next = e->next;
        entry_free(e);
    }
    pthread_mutex_destroy(&t->save_lock);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

/* Copies of the sessions of `sandbox_id` in *out (NULL when none) and
 * their number in *count; 0 when memory ran out.  Under the lock. */
static int copy_sessions(aio_bash_sessions *t, const char *sandbox_id, aio_bash_session **out,
                         size_t *count)
{
    size_t n = 0;
    for (entry *e = t->first; e != NULL; e = e->next)
        n += strcmp(e->sandbox_id, sandbox_id) == 0;
    aio_bash_session *list = n > 0 ? prov_malloc(n * sizeof *list) : NULL;
    *out = list;
    *count = 0;
    for (entry *e = t->first; list != NULL && e != NULL; e = e->next)
        if (strcmp(e->sandbox_id, sandbox_id) == 0)
            list[(*count)++] = e->session;
    return n == 0 || list != NULL;
}

/* Let go of the lock after a change of `sandbox_id`'s sessions, handing
 * them to the store first.  Without memory for the copy the save is left
 * out: the sessions still serve, the store keeps their previous state. */
static void unlock_changed(aio_bash_sessions *t, const char *sandbox_id)
{
    if (t->store == NULL) {
        pthread_mutex_unlock(&t->lock);
        return;
    }
    aio_bash_session *list;
    size_t count;
    int copied = copy_sessions(t, sandbox_id, &list, &count);
    pthread_mutex_lock(&t->save_lock);
    pthread_mutex_unlock(&t->lock);
    if (copied)
        t->store->save(t->store->ctx, sandbox_id, list, count);
    pthread_mutex_unlock(&t->save_lock);
    free(list);
}

int aio_bash_session_id_valid(const char *id)
{
    size_t len = strlen(id);
    return len > 0 && len <= AIO_BASH_ID_MAX &&
           strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ==
               len;
}

/* The link that points at session `id` of `sandbox_id`, else the list's
 * last link (pointing at NULL); *count is how many sessions the sandbox
 * holds before it.  Under the lock. */
static entry **link_of(aio_bash_sessions *t, const char *sandbox_id, const char *id,
                       size_t *count)
{
    entry **at = &t->first;
    *count = 0;
    for (; *at != NULL; at = &(*at)->next) {
        if (strcmp((*at)->sandbox_id, sandbox_id) != 0)
            continue;
        if (strcmp((*at)->session.id, id) == 0)
            return at;
        (*count)++;
    }
    return at;
}

/* Add `s` as a session of `sandbox_id` unless its id is there (*out:
 * that one) or the sandbox is full; *out the session kept.  Under the
 * lock. */
static aio_bash_created insert(aio_bash_sessions *t, const char *sandbox_id,
                               const aio_bash_session *s, aio_bash_session *out)
{
    size_t count;
    entry **at = link_of(t, sandbox_id, s->id, &count);
    if (*at != NULL) {
        *out = (*at)->session;
        return AIO_BASH_EXISTED;
    }
    if (count >= AIO_BASH_MAX_SESSIONS)
        return AIO_BASH_FULL;
    entry *e = prov_malloc(sizeof *e);
    char *sandbox = e != NULL ? prov_strdup(sandbox_id) : NULL;
    if (sandbox == NULL) {
        free(e);
        return AIO_BASH_NO_MEMORY;
    }
    e->next = NULL;
    e->sandbox_id = sandbox;
    e->session = *s;
    *at = e;
    *out = e->session;
    return AIO_BASH_CREATED;
}

aio_bash_created aio_bash_session_create(aio_bash_sessions *t, const char *sandbox_id,
                                         const char *id, const char *dir,
                                         aio_bash_session *out)
{
    aio_bash_session s;
    memset(&s, 0, sizeof s);
    snprintf(s.id, sizeof s.id, "%s", id);
    snprintf(s.working_dir, sizeof s.working_dir, "%s", dir);
    s.created_at = s.used_at = aio_shell_epoch_ms();
    pthread_mutex_lock(&t->lock);
    aio_bash_created made = insert(t, sandbox_id, &s, out);
    if (made == AIO_BASH_CREATED)
        unlock_changed(t, sandbox_id);
    else
        pthread_mutex_unlock(&t->lock);
    return made;
}

aio_bash_created aio_bash_session_restore(aio_bash_sessions *t, const char *sandbox_id,
                                          const aio_bash_session *s)
{
    aio_bash_session kept;
    pthread_mutex_lock(&t->lock);
    aio_bash_created made = insert(t, sandbox_id, s, &kept);
    pthread_mutex_unlock(&t->lock);
    return made;
}

int aio_bash_session_find(aio_bash_sessions *t, const char *sandbox_id, const char *id,
                          int use, const char *dir, aio_bash_session *out)
{
    pthread_mutex_lock(&t->lock);
    size_t count;
    entry *e = *link_of(t, sandbox_id, id, &count);
    /* Only a new working directory is saved at once: a count and a time
     * wait for the sandbox's next save, which spares each command the
     * store's write (an fsync and a rename: 1.5x a command's time on a
     * busy disk). */
    int moved = e != NULL && use && dir != NULL && strcmp(dir, e->session.working_dir) != 0;
    if (e != NULL && use) {
        if (moved)
            snprintf(e->session.working_dir, sizeof e->session.working_dir, "%s", dir);
        e->session.command_count++;
        e->session.used_at = aio_shell_epoch_ms();
    }
    if (e != NULL)
        *out = e->session;
    if (moved)
        unlock_changed(t, sandbox_id);
    else
        pthread_mutex_unlock(&t->lock);
    return e != NULL;
}

int aio_bash_session_remove(aio_bash_sessions *t, const char *sandbox_id, const char *id)
{
    pthread_mutex_lock(&t->lock);
    size_t count;
    entry **at = link_of(t, sandbox_id, id, &count);
    entry *e = *at;
    if (e != NULL) {
        *at = e->next;
        unlock_changed(t, sandbox_id);
        entry_free(e);
    } else {
        pthread_mutex_unlock(&t->lock);
    }
    return e != NULL;
}

int aio_bash_session_list(aio_bash_sessions *t, const char *sandbox_id, aio_bash_session **out,
                          size_t *count)
{
    pthread_mutex_lock(&t->lock);
    int copied = copy_sessions(t, sandbox_id, out, count);
    pthread_mutex_unlock(&t->lock);
    return copied;
}

void aio_bash_sessions_forget_sandbox(aio_bash_sessions *t, const char *sandbox_id)
{
    pthread_mutex_lock(&t->lock);
    entry *gone = NULL;
    for (entry **at = &t->first; *at != NULL;) {
        entry *e = *at;
        if (strcmp(e->sandbox_id, sandbox_id) == 0) {
            *at = e->next;
            e->next = gone;
            gone = e;
        } else {
            at = &e->next;
        }
    }
    /* Saved even when none was held here: the store may keep some that
     * could not be loaded. */
    unlock_changed(t, sandbox_id);
    for (entry *next; gone != NULL; gone = next) {
        next = gone->next;
        entry_free(gone);
    }
}
