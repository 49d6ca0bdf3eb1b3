/*
 * sbx sessions: a shell kept alive in a sandbox, running one command after
 * another, each with its own output, exit code and timeout, while `cd`,
 * `export` and shell functions persist from one command to the next
 * (docs/sessions.md).  Built once, in the host library, over the live
 * processes of ABI 1.4 (sbx_backend_process_*), so every backend that has
 * processes has sessions.
 *
 * A session is a shell process (its process id) plus a rule: each command
 * is written to the shell's stdin wrapped so that, when it ends, the shell
 * prints an end marker carrying a fresh random nonce and the exit code on
 * stdout and on stderr.  Nothing else is kept anywhere: another host
 * process re-attaches with sbx_session_attach and the process id.
 *
 * Ownership: a sbx_session is the caller's, released by sbx_session_close
 * (which ends the shell) or sbx_session_detach (which leaves it running).
 * A sbx_session_result is the caller's, released by sbx_session_result_free.
 *
 * Thread safety: different sessions may be used from any number of threads
 * at once.  One session runs one command at a time: sbx_session_run calls
 * on it from several threads are serialised.  sbx_session_close and
 * sbx_session_detach must not run concurrently with another call on the
 * same session.  One shell must not be driven by two sbx_session objects
 * (in this or another host process) at once: their commands would mix.
 */
#ifndef SBX_SESSION_H
#define SBX_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <sbx/host.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sbx_session sbx_session;

/* Output kept of each stream of one command when max_output_bytes is 0. */
#define SBX_SESSION_DEFAULT_OUTPUT_BYTES ((size_t)1 << 20)

/* Largest max_output_bytes. */
#define SBX_SESSION_MAX_OUTPUT_BYTES ((size_t)1 << 30)

/* How long an interrupted command may take to come back when
 * interrupt_grace_ms is 0. */
#define SBX_SESSION_DEFAULT_GRACE_MS INT64_C(5000)

/*
 * How a session is opened.  Caller-owned, pointers borrowed for the call;
 * initialise with SBX_SESSION_OPTIONS_INIT (members are only appended).
 */
typedef struct sbx_session_options {
    size_t struct_size;            /* sizeof(sbx_session_options) */
    const char *shell;             /* absolute path of a POSIX shell; NULL: /bin/sh */
    const sbx_env_var *env;        /* the shell's environment additions */
    size_t env_count;
    const char *working_dir;       /* NULL: the sandbox's working directory */
    size_t max_output_bytes;       /* kept of each stream per command; 0: 1 MiB */
    int64_t interrupt_grace_ms;    /* after a timeout's SIGINT, how long the
                                    * command has to come back before the
                                    * shell is restarted; 0: 5000 */
} sbx_session_options;

#define SBX_SESSION_OPTIONS_INIT { sizeof(sbx_session_options), NULL, NULL, 0, NULL, 0, 0 }

/* What one command did.  Built by the library, released with
 * sbx_session_result_free. */
typedef struct sbx_session_result {
    size_t struct_size;            /* bytes of this struct as built */
    int exit_code;                 /* 0..255 (130 for a command ended by the
                                    * timeout's SIGINT); -1 when unknown (the
                                    * shell was restarted before it answered) */
    int timed_out;                 /* the command ran past its timeout and was
                                    * interrupted */
    int restarted;                 /* the shell did not come back (it exited, or
                                    * ignored the interrupt) and a new one was
                                    * started: cwd, variables and functions are
                                    * those of a fresh session */
    char *stdout_data;             /* the command's stdout, exact (NUL bytes kept),
                                    * then a NUL not counted; never NULL */
    size_t stdout_length;
    char *stderr_data;             /* likewise for stderr */
    size_t stderr_length;
    int stdout_truncated;          /* more was printed than max_output_bytes: */
    int stderr_truncated;          /*   the first max_output_bytes are kept */
    uint64_t dropped_bytes;        /* bytes the backend no longer had when read
                                    * (the shell printed faster than its buffer
                                    * held): lost, not in the data above */
} sbx_session_result;

/* Start a shell in `sandbox_id` (stdin open, no terminal) and return a
 * session on it.  `options` may be NULL (the defaults).  SBX_ERR_USAGE for
 * a NULL backend or id, options not made with SBX_SESSION_OPTIONS_INIT, a
 * shell that is not an absolute path, or out-of-range sizes; else the
 * backend's process_start error (SBX_ERR_UNSUPPORTED without processes). */
sbx_status sbx_session_open(sbx_backend *backend, const char *sandbox_id,
                            const sbx_session_options *options, sbx_session **out,
                            sbx_error *err);

/* A session on a shell another sbx_session started (in this or another host
 * process), found by its process id.  Output the shell printed before the
 * attach belongs to no command: the next command's output starts at the
 * streams' current end.  SBX_ERR_NO_SUCH_PROCESS when the sandbox has no
 * such process, SBX_ERR_USAGE when it has ended or the arguments are bad. */
sbx_status sbx_session_attach(sbx_backend *backend, const char *sandbox_id,
                              const char *process_id, const sbx_session_options *options,
                              sbx_session **out, sbx_error *err);

/* Run `command` (shell text, no NUL bytes; its stdin is /dev/null) in the
 * session and wait for it, at most timeout_ms (0: no limit; else it is
 * interrupted as docs/sessions.md says).  SBX_OK whenever the command ran,
 * whatever its exit, timed out or restarted included (*out says which);
 * SBX_ERR_USAGE for a NULL command or one holding a NUL byte, a negative
 * timeout; else the backend's error (the session stays usable: the next
 * run starts a new shell if this one is gone). */
sbx_status sbx_session_run(sbx_session *session, const char *command, int64_t timeout_ms,
                           sbx_session_result **out, sbx_error *err);

/* The shell's process id (owned by the session, valid until the next run,
 * which may restart the shell, or until close/detach). */
const char *sbx_session_process_id(const sbx_session *session);

/* End the shell (stdin closed, then SIGKILL to its group if it does not
 * exit within the grace), forget its process, and free the session.
 * Always frees; returns the first error met ending the shell.  NULL is
 * accepted (SBX_OK). */
sbx_status sbx_session_close(sbx_session *session, sbx_error *err);

/* Free the session and leave its shell running, for sbx_session_attach.
 * NULL is accepted. */
void sbx_session_detach(sbx_session *session);

/* Release a result.  NULL is accepted. */
void sbx_session_result_free(sbx_session_result *result);

#ifdef __cplusplus
}
#endif

#endif /* SBX_SESSION_H */
