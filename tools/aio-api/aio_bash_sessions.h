/* The AIO bash sessions a server's clients created (POST
 * /v1/bash/sessions/create): for each sandbox, each session's id, default
 * working directory, times and command count.  Its commands are not kept
 * here: an async command of a session is a backend process started with
 * argv {"/bin/sh", "-c", COMMAND, AIO_BASH_SESSION_MARK, ID}, so the
 * backend's process records say which session a command belongs to (and
 * still do after a restart of the server).  The sessions themselves live
 * in memory, and also in a store when the table is given one (the
 * daemon's --state-dir), which sees every change.
 *
 * Thread safety: every call may be made from any thread (one lock; a
 * second one orders the store's saves). */
#ifndef AIO_BASH_SESSIONS_H
#define AIO_BASH_SESSIONS_H

#include <stddef.h>
#include <stdint.h>

/* The argv word after a session command's text, before its session id. */
#define AIO_BASH_SESSION_MARK "sbx-aio-bash"
/* Sessions one sandbox may hold; one more is refused. */
#define AIO_BASH_MAX_SESSIONS 64
/* Longest session id (bytes); ids are of [A-Za-z0-9._-]. */
#define AIO_BASH_ID_MAX 128
/* Longest working directory kept (bytes, without the NUL). */
#define AIO_BASH_DIR_MAX 4095

typedef struct aio_bash_sessions aio_bash_sessions;

/* A copy of one session. */
typedef struct aio_bash_session {
    char id[AIO_BASH_ID_MAX + 1];
    char working_dir[AIO_BASH_DIR_MAX + 1];
    int64_t created_at, used_at;    /* ms since the epoch */
    int command_count;
} aio_bash_session;

/* What aio_bash_session_create did. */
typedef enum aio_bash_created {
    AIO_BASH_CREATED,           /* a new session */
    AIO_BASH_EXISTED,           /* the id was there: *out is that session */
    AIO_BASH_FULL,              /* the sandbox holds AIO_BASH_MAX_SESSIONS */
    AIO_BASH_NO_MEMORY
} aio_bash_created;

/* Where a table keeps its sessions beyond the process.  `save` is called
 * after each change of a sandbox's sessions with all of them (oldest
 * first; `count` 0: it has none left), one call at a time and in the
 * order of the changes, so that the last save holds the last state.  It
 * must not call the table. */
typedef struct aio_bash_store {
    void (*save)(void *ctx, const char *sandbox_id, const aio_bash_session *sessions,
                 size_t count);
    void *ctx;
} aio_bash_store;

/* An empty table saving to `store` (NULL: memory only; borrowed, must
 * outlive the table); NULL when memory ran out. */
aio_bash_sessions *aio_bash_sessions_new(const aio_bash_store *store);

/* Free the table (the sessions' processes are the backend's).  NULL is
 * accepted. */
void aio_bash_sessions_free(aio_bash_sessions *t);

/* Whether `id` may name a session: 1 to AIO_BASH_ID_MAX bytes of
 * [A-Za-z0-9._-]. */
int aio_bash_session_id_valid(const char *id);

/* Create session `id` of `sandbox_id` starting in `dir` (at most
 * AIO_BASH_DIR_MAX bytes), its copy in *out. */
aio_bash_created aio_bash_session_create(aio_bash_sessions *t, const char *sandbox_id,
                                         const char *id, const char *dir,
                                         aio_bash_session *out);

/* Put back session `s` of `sandbox_id` as the store kept it (times and
 * count too), after the sandbox's others; nothing is saved.  An id there
 * already is kept as it is (AIO_BASH_EXISTED). */
aio_bash_created aio_bash_session_restore(aio_bash_sessions *t, const char *sandbox_id,
                                          const aio_bash_session *s);

/* Find session `id` of `sandbox_id`: 1 with its copy in *out, else 0.
 * With `use`, it counts one command more, is used now and, when `dir` is
 * not NULL, takes `dir` as its working directory first; only that new
 * directory is saved to the store at once (the count and time go with the
 * sandbox's next save). */
int aio_bash_session_find(aio_bash_sessions *t, const char *sandbox_id, const char *id,
                          int use, const char *dir, aio_bash_session *out);

/* Remove session `id` of `sandbox_id`; 1 when it was there. */
int aio_bash_session_remove(aio_bash_sessions *t, const char *sandbox_id, const char *id);

/* Copies of the sessions of `sandbox_id`, oldest first, in *out (the
 * caller frees it; NULL when there are none) and their number in *count.
 * 0 when memory ran out. */
int aio_bash_session_list(aio_bash_sessions *t, const char *sandbox_id, aio_bash_session **out,
                          size_t *count);

/* Forget every session of `sandbox_id` (the sandbox is gone), in the
 * store too. */
void aio_bash_sessions_forget_sandbox(aio_bash_sessions *t, const char *sandbox_id);

#endif
