/* The AIO sandbox API (the HTTP API of the agent-infra "AIO" sandbox that
 * the remote backend calls at a sandbox's sandbox_url), served for the
 * sandboxes of an sbx backend: each route becomes ABI 1.3 operations on
 * it (docs/emulator.md, "The AIO routes").  Routes: GET /v1/sandbox,
 * POST /v1/bash/{exec,output,write,kill}, GET /v1/bash/sessions,
 * POST /v1/bash/sessions/{id}/close,
 * POST /v1/file/{read,write,list,upload}, GET /v1/file/download,
 * POST /v1/shell/{exec,view,wait,write,kill,sessions/create}, GET and
 * DELETE /v1/shell/sessions, DELETE /v1/shell/sessions/{id} (sessions
 * kept per server: aio_shell_table.h); any other path answers 404 with a JSON detail
 * naming the served ones, a served path with another method 405.
 * Used from the program's request threads, concurrently. */
#ifndef AIO_SERVER_H
#define AIO_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <sbx/host.h>

#include "tools/aio-api/aio_bash_sessions.h"
#include "tools/provisioner-common/prov_reply.h"
#include "tools/provisioner-common/prov_server.h"

typedef struct aio_server aio_server;

/* How the routes are served.  Pointers are borrowed and must outlive the
 * server. */
typedef struct aio_server_options {
    sbx_backend *backend;       /* the sandboxes' backend */
    const char *api_key;        /* NULL: none; else every request must carry it
                                 * (X-AIO-API-Key, Authorization: Bearer, or
                                 * ?api_key=), else 401 */
    const char *request_log;    /* NULL: none; else each request is appended to
                                 * this file as one JSON line */
    const char *version;        /* what GET /v1/sandbox reports as "version" */
    int64_t exec_timeout_ms;    /* an exec without hard_timeout runs at most this
                                 * long (0: AIO_EXEC_TIMEOUT_MS) */
    size_t max_answer_bytes;    /* the largest answer a file read or download
                                 * may make (0: AIO_MAX_ANSWER_BYTES); beyond
                                 * it the request is refused */
    const aio_bash_store *bash_store; /* NULL: the bash sessions clients create
                                 * live in memory only; else each change of
                                 * them is saved there */
} aio_server_options;

/* The defaults of exec_timeout_ms (DeerFlow's 10 minutes: never the
 * backend's longest, a day, which would hold a worker that long) and of
 * max_answer_bytes. */
#define AIO_EXEC_TIMEOUT_MS INT64_C(600000)
#define AIO_MAX_ANSWER_BYTES ((size_t)64 << 20)

/* A server for `options` (copied), or NULL with the reason in `why`
 * (`why_len` bytes): the request log cannot be opened, or memory ran out. */
aio_server *aio_server_new(const aio_server_options *options, char *why, size_t why_len);

/* Close the request log and free the server.  NULL is accepted. */
void aio_server_free(aio_server *server);

/* Answer `req`, whose path below the sandbox's base URL is `path` (e.g.
 * "/v1/bash/exec"), for the backend's sandbox `sandbox_id` (NULL: the URL
 * names no sandbox: 404).  In order: the request is logged, the key
 * checked, then routed. */
void aio_server_answer(aio_server *server, const char *sandbox_id, const char *path,
                       const prov_request *req, prov_reply *reply);

/* Put back bash session `session` of `sandbox_id` as the bash store kept
 * it (aio_bash_session_restore), before the server answers requests. */
aio_bash_created aio_server_restore_bash_session(aio_server *server, const char *sandbox_id,
                                                 const aio_bash_session *session);

/* The backend's sandbox `sandbox_id` was destroyed: forget its shell
 * sessions (aio_shell_table.h) and bash sessions (in the bash store
 * too).  Thread-safe. */
void aio_server_sandbox_gone(aio_server *server, const char *sandbox_id);

#endif
