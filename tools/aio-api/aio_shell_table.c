/* The AIO shell sessions of a server (aio_shell_table.h): a list of
 * entries under one lock, each with its own lock held by its user, and the
 * backend's process list as the record a restart finds them again in. */
#include <config.h>

#include "tools/aio-api/aio_shell_table.h"

#include "tools/provisioner-common/prov_alloc.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How long a background command has to end after its SIGKILL when its
 * session ends. */
#define BACKGROUND_END_WAIT_MS INT64_C(2000)

typedef struct entry {
    aio_shell pub;
    struct entry *next;
    char *sandbox_id;
    char id[AIO_SHELL_ID_MAX + 1];
    char shell_pid[SBX_PROCESS_ID_MAX + 1]; /* for an interrupt without the hold */
    pthread_mutex_t use;        /* held by the session's user */
    int refs;                   /* users holding or waiting (table lock) */
    int held;                   /* a user holds it (table lock) */
    int gone;                   /* ended: freed by the last user (table lock) */
    char *current;              /* the command running (table lock) */
    char seen_dir[4096];        /* working_dir and used_at as the last user */
    int64_t seen_used;          /*   left them (table lock) */
} entry;

struct aio_shells {
    sbx_backend *backend;
    pthread_mutex_t lock;       /* the list and the counters of its entries */
    pthread_mutex_t finding;    /* one lookup in the backend at a time: two
                                 * users never start or attach one session twice */
    entry *entries;
};

int64_t aio_shell_epoch_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

aio_shells *aio_shells_new(sbx_backend *backend)
{
    aio_shells *t = prov_malloc(sizeof *t);
    if (t == NULL)
        return NULL;
    t->backend = backend;
    t->entries = NULL;
    pthread_mutex_init(&t->lock, NULL);
    pthread_mutex_init(&t->finding, NULL);
    return t;
}

static void entry_free(entry *e)
{
    pthread_mutex_destroy(&e->use);
    free(e->pub.command);
    free(e->pub.output);
    free(e->current);
    free(e->sandbox_id);
    free(e);
}

void aio_shells_free(aio_shells *t)
{
    if (t == NULL)
        return;
    for (entry *e = t->entries, *next; e != NULL; e = next) {
        next = e->next;
        sbx_session_detach(e->pub.session);
        entry_free(e);
    }
    pthread_mutex_destroy(&t->lock);
    pthread_mutex_destroy(&t->finding);
    free(t);
}

/* The entry of `id` in `sandbox_id`; the table lock is held. */
static entry *find(aio_shells *t, const char *sandbox_id, const char *id)
{
    for (entry *e = t->entries; e != NULL; e = e->next)
        if (strcmp(e->id, id) == 0 && strcmp(e->sandbox_id, sandbox_id) == 0)
            return e;
    return NULL;
}

/* Whether `info` is one of ours marked `mark` (for `id`, or any when NULL). */
static int marked(const sbx_process_info *info, const char *mark, const char *id)
{
    char *const *a = info->argv;
    for (int i = 0; i < 3; i++)
        if (a[i] == NULL)
            return 0;
    return a[3] != NULL && a[4] != NULL && strcmp(a[3], mark) == 0 &&
           (id == NULL || strcmp(a[4], id) == 0);
}

/* What the backend's process list says of session `id`: its running
 * shell (NULL: none), the newest background command's id (into
 * `background`) and how many sessions the sandbox has. */
typedef struct backend_view {
    sbx_process_info *all;
    const sbx_process_info *shell;
    size_t sessions;
} backend_view;

static sbx_status look(aio_shells *t, const char *sandbox_id, const char *id,
                       backend_view *v, char *background, sbx_error *err)
{
    size_t count = 0;
    memset(v, 0, sizeof *v);
    sbx_status st = sbx_backend_process_list(t->backend, sandbox_id, &v->all, &count, err);
    if (st != SBX_OK)
        return st;
    for (const sbx_process_info *i = v->all; i != NULL; i = i->next) {
        int shell = i->state == SBX_PROCESS_RUNNING && marked(i, AIO_SHELL_MARK, NULL);
        v->sessions += shell != 0;
        if (shell && strcmp(i->argv[4], id) == 0)
            v->shell = i;
        if (background != NULL && marked(i, AIO_SHELL_COMMAND_MARK, id))
            snprintf(background, SBX_PROCESS_ID_MAX + 1, "%s", i->process_id);
    }
    return SBX_OK;
}

/* Start the shell of session `id`, marked, and attach a session to it. */
static sbx_status start(aio_shells *t, const char *sandbox_id, const char *id,
                        const char *working_dir, sbx_session **out, sbx_error *err)
{
    const char *argv[] = {"/bin/sh", "-c", "exec /bin/sh", AIO_SHELL_MARK, id, NULL};
    sbx_process_request req = SBX_PROCESS_REQUEST_INIT;
    req.argv = argv;
    req.working_dir = working_dir;
    req.stdin_open = 1;
    sbx_process_info *info = NULL;
    sbx_status st = sbx_backend_process_start(t->backend, sandbox_id, &req, &info, err);
    if (st != SBX_OK)
        return st;
    st = sbx_session_attach(t->backend, sandbox_id, info->process_id, NULL, out, err);
    if (st != SBX_OK) {
        sbx_error ignored;
        sbx_backend_process_signal(t->backend, sandbox_id, info->process_id, SIGKILL, &ignored);
    }
    sbx_backend_free_processes(t->backend, info);
    return st;
}

/* Find session `id` in the backend (attach) or (create) start it, and add
 * its entry; `t->finding` is held. */
static sbx_status add(aio_shells *t, const char *sandbox_id, const char *id,
                      aio_shell_find how, const char *working_dir, int *created,
                      sbx_error *err)
{
    backend_view v;
    char background[SBX_PROCESS_ID_MAX + 1] = "";
    sbx_status st = look(t, sandbox_id, id, &v, background, err);
    if (st != SBX_OK)
        return st;
    sbx_session *session = NULL;
    if (v.shell != NULL) {
        st = sbx_session_attach(t->backend, sandbox_id, v.shell->process_id, NULL, &session,
                                err);
    } else if (how == AIO_SHELL_EXISTING) {
        st = sbx_error_set(err, SBX_ERR_NO_SUCH_PROCESS, "Shell session %s not found", id);
    } else if (v.sessions >= AIO_SHELL_MAX_SESSIONS) {
        st = sbx_error_set(err, SBX_ERR_REFUSED,
                           "the sandbox has %d shell sessions, the most it may: end one "
                           "(DELETE /v1/shell/sessions/{id}) first", AIO_SHELL_MAX_SESSIONS);
    } else {
        st = start(t, sandbox_id, id, working_dir, &session, err);
        *created = st == SBX_OK;
    }
    int64_t started = v.shell != NULL && v.shell->started_at != SBX_TIME_UNKNOWN
                          ? v.shell->started_at : aio_shell_epoch_ms();
    sbx_backend_free_processes(t->backend, v.all);
    if (st != SBX_OK)
        return st;
    entry *e = prov_malloc(sizeof *e);
    if (e != NULL)
        memset(e, 0, sizeof *e);
    if (e == NULL || (e->sandbox_id = prov_strdup(sandbox_id)) == NULL) {
        free(e);
        sbx_session_detach(session);
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    pthread_mutex_init(&e->use, NULL);
    snprintf(e->id, sizeof e->id, "%s", id);
    snprintf(e->shell_pid, sizeof e->shell_pid, "%s", sbx_session_process_id(session));
    e->pub.session = session;
    e->pub.id = e->id;
    e->pub.status = "completed";
    e->pub.exit_code = -1;
    e->pub.created_at = started;
    e->pub.used_at = started;
    e->seen_used = started;
    snprintf(e->pub.background, sizeof e->pub.background, "%s", background);
    pthread_mutex_lock(&t->lock);
    e->next = t->entries;
    t->entries = e;
    pthread_mutex_unlock(&t->lock);
    return SBX_OK;
}

sbx_status aio_shell_acquire(aio_shells *t, const char *sandbox_id, const char *id,
                             aio_shell_find how, const char *working_dir, aio_shell **out,
                             int *created, sbx_error *err)
{
    *out = NULL;
    *created = 0;
    pthread_mutex_lock(&t->lock);
    entry *e = find(t, sandbox_id, id);
    pthread_mutex_unlock(&t->lock);
    if (e == NULL) {
        pthread_mutex_lock(&t->finding);
        pthread_mutex_lock(&t->lock);
        e = find(t, sandbox_id, id);
        pthread_mutex_unlock(&t->lock);
        sbx_status st = e == NULL ? add(t, sandbox_id, id, how, working_dir, created, err)
                                  : SBX_OK;
        pthread_mutex_unlock(&t->finding);
        if (st != SBX_OK)
            return st;
    }
    pthread_mutex_lock(&t->lock);
    e = find(t, sandbox_id, id);
    if (e != NULL)
        e->refs++;
    pthread_mutex_unlock(&t->lock);
    if (e == NULL)  /* ended meanwhile */
        return sbx_error_set(err, SBX_ERR_NO_SUCH_PROCESS, "Shell session %s not found", id);
    pthread_mutex_lock(&e->use);
    pthread_mutex_lock(&t->lock);
    int gone = e->gone;
    e->held = !gone;
    pthread_mutex_unlock(&t->lock);
    if (gone) {
        pthread_mutex_unlock(&e->use);
        aio_shell_release(t, &e->pub);
        return sbx_error_set(err, SBX_ERR_NO_SUCH_PROCESS, "Shell session %s not found", id);
    }
    *out = &e->pub;
    return SBX_OK;
}

/* End what an ended entry still runs and free it (no user is left). */
static void finish(aio_shells *t, entry *e)
{
    sbx_error ignored;
    if (e->pub.background[0] != '\0') {
        sbx_process_info *info = NULL;
        sbx_backend_process_signal(t->backend, e->sandbox_id, e->pub.background, SIGKILL,
                                   &ignored);
        if (sbx_backend_process_wait(t->backend, e->sandbox_id, e->pub.background,
                                     BACKGROUND_END_WAIT_MS, &info, &ignored) == SBX_OK)
            sbx_backend_free_processes(t->backend, info);
        sbx_backend_process_forget(t->backend, e->sandbox_id, e->pub.background, &ignored);
    }
    sbx_session_close(e->pub.session, &ignored);
    entry_free(e);
}

void aio_shell_release(aio_shells *t, aio_shell *shell)
{
    entry *e = (entry *)shell;
    pthread_mutex_lock(&t->lock);
    int last = --e->refs == 0 && e->gone;
    if (e->held) {
        e->held = 0;
        memcpy(e->seen_dir, e->pub.working_dir, sizeof e->seen_dir);
        e->seen_used = e->pub.used_at;
        /* The library may have started a new shell (a timeout it did not
         * come back from). */
        if (e->pub.session != NULL)
            snprintf(e->shell_pid, sizeof e->shell_pid, "%s",
                     sbx_session_process_id(e->pub.session));
        pthread_mutex_unlock(&e->use);
    }
    pthread_mutex_unlock(&t->lock);
    if (last)
        finish(t, e);
}

sbx_status aio_shell_renew(aio_shells *t, aio_shell *shell, sbx_error *err)
{
    entry *e = (entry *)shell;
    sbx_error ignored;
    sbx_session_close(shell->session, &ignored);
    shell->session = NULL;
    shell->working_dir[0] = '\0';
    return start(t, e->sandbox_id, e->id, NULL, &shell->session, err);
}

/* Put session `id`, known only to the backend (a restart), in the table. */
static sbx_status attach(aio_shells *t, const char *sandbox_id, const char *id, sbx_error *err)
{
    aio_shell *shell = NULL;
    int created = 0;
    sbx_status st = aio_shell_acquire(t, sandbox_id, id, AIO_SHELL_EXISTING, NULL, &shell,
                                      &created, err);
    if (st == SBX_OK)
        aio_shell_release(t, shell);
    return st;
}

int aio_shell_set_running(aio_shells *t, aio_shell *shell, const char *command)
{
    entry *e = (entry *)shell;
    char *copy = command != NULL ? prov_strdup(command) : NULL;
    pthread_mutex_lock(&t->lock);
    free(e->current);
    e->current = copy;
    pthread_mutex_unlock(&t->lock);
    return command == NULL || copy != NULL;
}

/* Copy what a listing shows of `e`; the table lock is held. */
static int describe(const entry *e, aio_shell_info *out)
{
    memcpy(out->working_dir, e->seen_dir, sizeof out->working_dir);
    out->created_at = e->pub.created_at;
    out->used_at = e->seen_used;
    out->current_command = e->current != NULL ? prov_strdup(e->current) : NULL;
    return e->current == NULL || out->current_command != NULL;
}

sbx_status aio_shell_describe(aio_shells *t, const char *sandbox_id, const char *id,
                              aio_shell_info *out, sbx_error *err)
{
    memset(out, 0, sizeof *out);
    for (int attached = 0;; attached = 1) {
        pthread_mutex_lock(&t->lock);
        entry *e = find(t, sandbox_id, id);
        int described = e != NULL && describe(e, out);
        pthread_mutex_unlock(&t->lock);
        if (e != NULL)
            return described ? SBX_OK : sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
        if (attached)
            return sbx_error_set(err, SBX_ERR_NO_SUCH_PROCESS, "Shell session %s not found", id);
        sbx_status st = attach(t, sandbox_id, id, err);
        if (st != SBX_OK)
            return st;
    }
}

int aio_shell_interrupt(aio_shells *t, const char *sandbox_id, const char *id)
{
    char pid[SBX_PROCESS_ID_MAX + 1] = "";
    pthread_mutex_lock(&t->lock);
    entry *e = find(t, sandbox_id, id);
    if (e != NULL && e->held)
        snprintf(pid, sizeof pid, "%s", e->shell_pid);
    pthread_mutex_unlock(&t->lock);
    if (pid[0] == '\0')
        return 0;
    sbx_error ignored;
    sbx_backend_process_signal(t->backend, sandbox_id, pid, SIGINT, &ignored);
    return 1;
}

/* Take `e` out of the list, its signals sent, and free it unless a user
 * still has it; the table lock is held. */
static void unlink_entry(aio_shells *t, entry *e, entry **to_finish)
{
    for (entry **p = &t->entries; *p != NULL; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            break;
        }
    e->gone = 1;
    sbx_error ignored;
    if (e->held)    /* the command in it ends; its user then frees it */
        sbx_backend_process_signal(t->backend, e->sandbox_id, e->shell_pid, SIGKILL, &ignored);
    if (e->refs == 0) {
        e->next = *to_finish;
        *to_finish = e;
    }
}

sbx_status aio_shell_end(aio_shells *t, const char *sandbox_id, const char *id, sbx_error *err)
{
    pthread_mutex_lock(&t->lock);
    entry *e = find(t, sandbox_id, id);
    pthread_mutex_unlock(&t->lock);
    if (e == NULL) {
        sbx_status st = attach(t, sandbox_id, id, err);
        if (st != SBX_OK)
            return st;
    }
    entry *to_finish = NULL;
    pthread_mutex_lock(&t->lock);
    e = find(t, sandbox_id, id);
    if (e != NULL)
        unlink_entry(t, e, &to_finish);
    pthread_mutex_unlock(&t->lock);
    if (e == NULL)
        return sbx_error_set(err, SBX_ERR_NO_SUCH_PROCESS, "Shell session %s not found", id);
    if (to_finish != NULL)
        finish(t, to_finish);
    return SBX_OK;
}

void aio_shells_forget_sandbox(aio_shells *t, const char *sandbox_id)
{
    entry *to_finish = NULL;
    pthread_mutex_lock(&t->lock);
    for (entry *e = t->entries, *next; e != NULL; e = next) {
        next = e->next;
        if (strcmp(e->sandbox_id, sandbox_id) == 0)
            unlink_entry(t, e, &to_finish);
    }
    pthread_mutex_unlock(&t->lock);
    while (to_finish != NULL) {
        entry *e = to_finish;
        to_finish = e->next;
        /* Nothing of it is left to end: only the memory. */
        sbx_session_detach(e->pub.session);
        e->pub.session = NULL;
        e->pub.background[0] = '\0';
        finish(t, e);
    }
}

/* Whether `ids` (`n` of them) holds `id`. */
static int listed(char **ids, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(ids[i], id) == 0)
            return 1;
    return 0;
}

char **aio_shell_ids(aio_shells *t, const char *sandbox_id, size_t *count, sbx_error *err)
{
    *count = 0;
    backend_view v;
    if (look(t, sandbox_id, "", &v, NULL, err) != SBX_OK)
        return NULL;
    size_t room = v.sessions + 1;
    pthread_mutex_lock(&t->lock);
    for (entry *e = t->entries; e != NULL; e = e->next)
        room += strcmp(e->sandbox_id, sandbox_id) == 0;
    char **ids = prov_malloc(room * sizeof *ids);
    int failed = ids == NULL;
    if (ids != NULL)
        memset(ids, 0, room * sizeof *ids);
    for (entry *e = t->entries; !failed && e != NULL; e = e->next)
        if (strcmp(e->sandbox_id, sandbox_id) == 0 && !listed(ids, *count, e->id))
            failed = (ids[(*count)++] = prov_strdup(e->id)) == NULL;
    pthread_mutex_unlock(&t->lock);
    for (const sbx_process_info *i = v.all; !failed && i != NULL; i = i->next)
        if (i->state == SBX_PROCESS_RUNNING && marked(i, AIO_SHELL_MARK, NULL) &&
            !listed(ids, *count, i->argv[4]) && *count + 1 < room)
            failed = (ids[(*count)++] = prov_strdup(i->argv[4])) == NULL;
    sbx_backend_free_processes(t->backend, v.all);
    if (failed) {
        aio_shell_ids_free(ids);
        sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    return ids;
}

void aio_shell_ids_free(char **ids)
{
    if (ids == NULL)
        return;
    for (char **i = ids; *i != NULL; i++)
        free(*i);
    free(ids);
}
