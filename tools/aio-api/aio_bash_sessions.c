/* The table of created AIO bash sessions (aio_bash_sessions.h): a list in
 * creation order under one lock; a server holds few sessions (at most
 * AIO_BASH_MAX_SESSIONS per sandbox), so lookups walk it. */
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
};

aio_bash_sessions *aio_bash_sessions_new(void)
{
    aio_bash_sessions *t = prov_malloc(sizeof *t);
    if (t == NULL)
        return NULL;
    pthread_mutex_init(&t->lock, NULL);
    t->first = NULL;
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
    pthread_mutex_destroy(&t->lock);
    free(t);
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

aio_bash_created aio_bash_session_create(aio_bash_sessions *t, const char *sandbox_id,
                                         const char *id, const char *dir,
                                         aio_bash_session *out)
{
    pthread_mutex_lock(&t->lock);
    size_t count;
    entry **at = link_of(t, sandbox_id, id, &count);
    aio_bash_created made = AIO_BASH_CREATED;
    if (*at != NULL) {
        made = AIO_BASH_EXISTED;
    } else if (count >= AIO_BASH_MAX_SESSIONS) {
        made = AIO_BASH_FULL;
    } else {
        entry *e = prov_malloc(sizeof *e);
        char *sandbox = e != NULL ? prov_strdup(sandbox_id) : NULL;
        if (sandbox == NULL) {
            free(e);
            made = AIO_BASH_NO_MEMORY;
        } else {
            memset(e, 0, sizeof *e);
            e->sandbox_id = sandbox;
            snprintf(e->session.id, sizeof e->session.id, "%s", id);
            snprintf(e->session.working_dir, sizeof e->session.working_dir, "%s", dir);
            e->session.created_at = e->session.used_at = aio_shell_epoch_ms();
            *at = e;
        }
    }
    if (*at != NULL && (made == AIO_BASH_CREATED || made == AIO_BASH_EXISTED))
        *out = (*at)->session;
    pthread_mutex_unlock(&t->lock);
    return made;
}

int aio_bash_session_find(aio_bash_sessions *t, const char *sandbox_id, const char *id,
                          int use, const char *dir, aio_bash_session *out)
{
    pthread_mutex_lock(&t->lock);
    size_t count;
    entry *e = *link_of(t, sandbox_id, id, &count);
    if (e != NULL && use) {
        if (dir != NULL)
            snprintf(e->session.working_dir, sizeof e->session.working_dir, "%s", dir);
        e->session.command_count++;
        e->session.used_at = aio_shell_epoch_ms();
    }
    if (e != NULL)
        *out = e->session;
    pthread_mutex_unlock(&t->lock);
    return e != NULL;
}

int aio_bash_session_remove(aio_bash_sessions *t, const char *sandbox_id, const char *id)
{
    pthread_mutex_lock(&t->lock);
    size_t count;
    entry **at = link_of(t, sandbox_id, id, &count);
    entry *e = *at;
    if (e != NULL)
        *at = e->next;
    pthread_mutex_unlock(&t->lock);
    if (e != NULL)
        entry_free(e);
    return e != NULL;
}

int aio_bash_session_list(aio_bash_sessions *t, const char *sandbox_id, aio_bash_session **out,
                          size_t *count)
{
    *out = NULL;
    *count = 0;
    pthread_mutex_lock(&t->lock);
    size_t n = 0;
    for (entry *e = t->first; e != NULL; e = e->next)
        n += strcmp(e->sandbox_id, sandbox_id) == 0;
    aio_bash_session *list = n > 0 ? prov_malloc(n * sizeof *list) : NULL;
    for (entry *e = t->first; list != NULL && e != NULL; e = e->next)
        if (strcmp(e->sandbox_id, sandbox_id) == 0)
            list[(*count)++] = e->session;
    pthread_mutex_unlock(&t->lock);
    *out = list;
    return n == 0 || list != NULL;
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
    pthread_mutex_unlock(&t->lock);
    for (entry *next; gone != NULL; gone = next) {
        next = gone->next;
        entry_free(gone);
    }
}
