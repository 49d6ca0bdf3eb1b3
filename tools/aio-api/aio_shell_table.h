/* The AIO shell sessions of a server: for each sandbox, its named
 * sessions, each a host-library session (<sbx/session.h>, a shell kept
 * alive) plus the last command run in it and its background command (an
 * async_mode exec: a process of its own).
 *
 * Nothing is kept only here: a session's shell is started with argv
 * {"/bin/sh", "-c", "exec /bin/sh", AIO_SHELL_MARK, ID} and a background
 * command with {..., AIO_SHELL_COMMAND_MARK, ID}, so that after a restart
 * of the daemon (whose backend's processes live on) the backend's process
 * list names them again: a session unknown here is looked up there and
 * re-attached.
 *
 * Thread safety: every call may be made from any thread.  One session runs
 * one command at a time (aio_shell_acquire serialises its users). */
#ifndef AIO_SHELL_TABLE_H
#define AIO_SHELL_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <sbx/host.h>
#include <sbx/session.h>

/* The id of the session an exec without one runs in. */
#define AIO_SHELL_DEFAULT_ID "default"
/* Sessions one sandbox may hold; one more is refused. */
#define AIO_SHELL_MAX_SESSIONS 16
/* Longest session id (bytes). */
#define AIO_SHELL_ID_MAX 128
/* The argv words that name a session's shell and a background command. */
#define AIO_SHELL_MARK "sbx-aio-shell"
#define AIO_SHELL_COMMAND_MARK "sbx-aio-command"

typedef struct aio_shells aio_shells;

/* The time now, in ms since the epoch (what created_at and used_at hold). */
int64_t aio_shell_epoch_ms(void);

/* One session, as its user sees it while holding it (aio_shell_acquire).
 * Strings are the entry's, valid until aio_shell_release. */
typedef struct aio_shell {
    sbx_session *session;       /* the shell; NULL after a failed restart */
    const char *id;
    char working_dir[4096];     /* where the last command left the shell */
    char *command;              /* the last command (NULL: none yet) */
    char *output;               /* its output (NULL: none kept) */
    const char *status;         /* its BashCommandStatus */
    int exit_code;              /* -1: none (status not completed) */
    char background[SBX_PROCESS_ID_MAX + 1]; /* the background command's
                                 * process id, "" when none */
    int64_t created_at, used_at; /* ms since the epoch */
} aio_shell;

/* A table for `backend` (borrowed); NULL when memory ran out. */
aio_shells *aio_shells_new(sbx_backend *backend);

/* Detach every session (their shells go on running) and free the table.
 * NULL is accepted. */
void aio_shells_free(aio_shells *t);

/* How aio_shell_acquire finds a session. */
typedef enum aio_shell_find {
    AIO_SHELL_EXISTING,         /* only one that exists (here or in the backend) */
    AIO_SHELL_CREATE            /* start it when there is none */
} aio_shell_find;

/* The session `id` of `sandbox_id`, held for the caller until
 * aio_shell_release (other users wait).  With AIO_SHELL_CREATE a missing
 * one is started in `working_dir` (NULL: the sandbox's) and *created set.
 * SBX_ERR_NO_SUCH_PROCESS when it does not exist (EXISTING), SBX_ERR_REFUSED
 * when the sandbox has AIO_SHELL_MAX_SESSIONS, else the backend's error. */
sbx_status aio_shell_acquire(aio_shells *t, const char *sandbox_id, const char *id,
                             aio_shell_find find, const char *working_dir, aio_shell **out,
                             int *created, sbx_error *err);

/* Let other users have `shell` again. */
void aio_shell_release(aio_shells *t, aio_shell *shell);

/* Replace the shell of the held `shell`, which the library restarted (a
 * shell it starts is not marked: a restart of the daemon would not find
 * it), by a marked one in the sandbox's working directory.  On failure
 * shell->session is NULL (its commands then fail). */
sbx_status aio_shell_renew(aio_shells *t, aio_shell *shell, sbx_error *err);

/* Record (under the table's lock, for aio_shell_describe) the command
 * the held `shell` runs now; NULL when it is done.  Returns 0 when memory
 * ran out (nothing recorded). */
int aio_shell_set_running(aio_shells *t, aio_shell *shell, const char *command);

/* A session as a listing shows it, without waiting for its command. */
typedef struct aio_shell_info {
    char working_dir[4096];     /* as its last user left it ("" unknown yet) */
    int64_t created_at, used_at;
    char *current_command;      /* the caller's; NULL when none runs */
} aio_shell_info;

/* Describe session `id` of `sandbox_id` in *out (re-attached first when
 * only the backend knows it).  SBX_ERR_NO_SUCH_PROCESS when it does not
 * exist, else SBX_OK or the backend's error. */
sbx_status aio_shell_describe(aio_shells *t, const char *sandbox_id, const char *id,
                              aio_shell_info *out, sbx_error *err);

/* Send SIGINT to the shell's group if a command is running in it now (a
 * user holds the session), without waiting for the hold.  Returns 1 when
 * one was running. */
int aio_shell_interrupt(aio_shells *t, const char *sandbox_id, const char *id);

/* End session `id` of `sandbox_id` (its shell and background command) and
 * forget it.  SBX_ERR_NO_SUCH_PROCESS when it does not exist. */
sbx_status aio_shell_end(aio_shells *t, const char *sandbox_id, const char *id, sbx_error *err);

/* The ids of the sessions of `sandbox_id` (here and in the backend), a
 * NULL-terminated array of `*count` strings the caller frees with
 * aio_shell_ids_free; NULL with the error when the backend failed or
 * memory ran out. */
char **aio_shell_ids(aio_shells *t, const char *sandbox_id, size_t *count, sbx_error *err);

/* Forget every session of `sandbox_id`, which is gone (its processes
 * with it): entries in use are freed by their last user. */
void aio_shells_forget_sandbox(aio_shells *t, const char *sandbox_id);

/* Free what aio_shell_ids answered.  NULL is accepted. */
void aio_shell_ids_free(char **ids);

#endif
