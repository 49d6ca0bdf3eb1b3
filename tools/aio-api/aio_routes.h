/* The AIO route handlers (aio_server.c routes to them).  Each answers one
 * request for one sandbox in `reply`. */
#ifndef AIO_ROUTES_H
#define AIO_ROUTES_H

#include <stdint.h>
#include <json-c/json.h>
#include <sbx/host.h>

#include "tools/provisioner-common/prov_reply.h"
#include "tools/provisioner-common/prov_server.h"

/* One request for one sandbox; everything borrowed for the call. */
typedef struct aio_call {
    sbx_backend *backend;
    const char *sandbox_id;
    const prov_request *req;
    const char *version;        /* the server's version string */
    int64_t exec_timeout_ms;    /* an exec without hard_timeout: at most this */
    size_t max_answer_bytes;    /* the largest answer a route may build */
    const char *path_id;        /* the {id} of a route with one in its path, else NULL */
    struct aio_shells *shells;  /* the server's shell sessions (aio_shell_table.h) */
    struct aio_bash_sessions *bash_sessions; /* created bash sessions (aio_bash_sessions.h) */
    size_t worker_bytes;        /* the request's (prov_server.h): > 0 on a
                                 * worker's attempt, where a file route that
                                 * would read more bytes or list more than
                                 * AIO_WORKER_ENTRIES entries answers
                                 * PROV_REPLY_POOL instead */
} aio_call;

/* The most entries a listing may have on a worker's attempt. */
#define AIO_WORKER_ENTRIES 256u

/* GET /v1/sandbox: SandboxResponse (home_dir: the sandbox's working
 * directory, as its commands see it). */
void aio_route_sandbox(const aio_call *call, prov_reply *reply);

/* The sandbox's working directory in `dir` (`size` bytes): the directory
 * its record names when it runs in no container (a local sandbox: nothing
 * runs), else what `pwd` prints there.  SBX_OK, or the backend's error. */
sbx_status aio_sandbox_working_dir(const aio_call *call, char *dir, size_t size, sbx_error *err);

/* POST /v1/bash/exec (aio_exec.c). */
void aio_route_exec(const aio_call *call, prov_reply *reply);

/* The exec routes' shared helpers (aio_exec.c): the backend timeout of a
 * checked body's hard_timeout (seconds; none: the server's exec timeout,
 * never past the backend's longest), and a fresh random id, `prefix`
 * then 32 hex digits, in `out` (`size` bytes). */
int64_t aio_hard_timeout_ms(const aio_call *call, json_object *body);
void aio_random_id(const char *prefix, char *out, size_t size);

/* The shell sessions (aio_shell.c): POST /v1/shell/exec (in the default
 * session when the body names none), /view, /wait, /write, /kill,
 * /sessions/create, GET /v1/shell/sessions, DELETE /v1/shell/sessions
 * and /v1/shell/sessions/{id}. */
void aio_route_shell_exec(const aio_call *call, prov_reply *reply);
void aio_route_shell_view(const aio_call *call, prov_reply *reply);
void aio_route_shell_wait(const aio_call *call, prov_reply *reply);
void aio_route_shell_write(const aio_call *call, prov_reply *reply);
void aio_route_shell_kill(const aio_call *call, prov_reply *reply);
void aio_route_shell_create(const aio_call *call, prov_reply *reply);
void aio_route_shell_sessions(const aio_call *call, prov_reply *reply);
void aio_route_shell_end(const aio_call *call, prov_reply *reply);
void aio_route_shell_end_all(const aio_call *call, prov_reply *reply);

/* POST /v1/bash/output, /write, /kill, /sessions/{id}/close and GET
 * /v1/bash/sessions: live
 * commands (aio_process.c; their start is /v1/bash/exec's async_mode). */
void aio_route_bash_output(const aio_call *call, prov_reply *reply);
void aio_route_bash_write(const aio_call *call, prov_reply *reply);
void aio_route_bash_kill(const aio_call *call, prov_reply *reply);
void aio_route_bash_session_close(const aio_call *call, prov_reply *reply);
/* GET /v1/bash/sessions: one BashSessionInfo per live command outside a
 * created session, then one per created session (aio_bash_session.c). */
void aio_route_bash_sessions(const aio_call *call, prov_reply *reply);
/* POST /v1/bash/sessions/create (aio_bash_session.c). */
void aio_route_bash_session_create(const aio_call *call, prov_reply *reply);

/* POST /v1/file/read, /write, /list, /upload and GET /v1/file/download
 * (aio_files.c, aio_list.c, aio_transfer.c). */
void aio_route_read(const aio_call *call, prov_reply *reply);
void aio_route_write(const aio_call *call, prov_reply *reply);
void aio_route_list(const aio_call *call, prov_reply *reply);
void aio_route_upload(const aio_call *call, prov_reply *reply);
void aio_route_download(const aio_call *call, prov_reply *reply);

/* POST /v1/file/find, /glob, /grep and /search: walks of find(1) and
 * grep(1) in the sandbox (aio_search_find.c, aio_search_grep.c). */
void aio_route_find(const aio_call *call, prov_reply *reply);
void aio_route_glob(const aio_call *call, prov_reply *reply);
void aio_route_grep(const aio_call *call, prov_reply *reply);
void aio_route_search(const aio_call *call, prov_reply *reply);

/* POST /v1/file/replace: every occurrence replaced (aio_edit.c). */
void aio_route_replace(const aio_call *call, prov_reply *reply);

/* POST /v1/file/str_replace_editor: view, create, str_replace, insert and
 * undo_edit with openhands' texts (aio_editor.c). */
void aio_route_str_replace_editor(const aio_call *call, prov_reply *reply);

#endif
