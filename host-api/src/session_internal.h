/* Sessions opened by another part of the host library on a backend's
 * processes, with hooks around each call: the manager's sessions count as
 * use of their sandbox (manager_sessions.c). */
#ifndef SBX_HOST_SESSION_INTERNAL_H
#define SBX_HOST_SESSION_INTERNAL_H

#include <sbx/session.h>

/* Called around every public session call that reaches the backend:
 * `begin` may refuse it (its error is the call's), `end` gets the token
 * `begin` answered. */
typedef struct host_session_hooks {
    void *ctx;
    sbx_status (*begin)(void *ctx, const char *sandbox_id, void **token, sbx_error *err);
    void (*end)(void *ctx, void *token);
} host_session_hooks;

/* Where a session is opened or attached: a backend, the hooks around its
 * calls (NULL: none; copied and kept for the session's life), a sandbox,
 * and the shell's process id (NULL: start a new shell).  Borrowed. */
typedef struct host_session_place {
    sbx_backend *backend;
    const host_session_hooks *hooks;
    const char *sandbox_id;
    const char *process_id;
} host_session_place;

/* sbx_session_open (at->process_id NULL) or sbx_session_attach at `at`. */
sbx_status host_session_new(const host_session_place *at, const sbx_session_options *options,
                            sbx_session **out, sbx_error *err);

/* sbx_session_attach at `at`: SBX_ERR_USAGE for a NULL process id, else
 * host_session_new. */
sbx_status host_session_attach(const host_session_place *at,
                               const sbx_session_options *options, sbx_session **out,
                               sbx_error *err);

#endif
