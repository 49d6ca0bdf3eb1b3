/* The AIO bash sessions a client creates (POST /v1/bash/sessions/create,
 * kept in the server's aio_bash_sessions table) and what the other bash
 * routes do with them: /v1/bash/exec runs in a created session's working
 * directory (exec_dir moves it) and marks its async commands with the
 * session's id; /v1/bash/output, /write and /kill reach a command of the
 * session (its latest without command_id); closing the session ends and
 * forgets its commands; GET /v1/bash/sessions lists it with its count.
 * A session_id no client created keeps meaning one async command
 * (aio_process.h).  Thread-safe. */
#ifndef AIO_BASH_SESSION_H
#define AIO_BASH_SESSION_H

#include <json-c/json.h>
#include <sbx/host.h>

#include "tools/aio-api/aio_bash_sessions.h"
#include "tools/aio-api/aio_routes.h"

/* A BashSessionInfo (status ready; `current` NULL: current_command null);
 * NULL when memory ran out. */
json_object *aio_bash_session_json(const char *id, const char *dir, int64_t created_at,
                                   int64_t used_at, int command_count, const char *current);

/* The id of the created session whose command `info` is, else NULL
 * (borrowed from `info`). */
const char *aio_bash_command_session(const sbx_process_info *info);

/* The process of `command` (NULL: the latest command) of `session` when
 * that is a created session: 1 with its id in `pid`; 0 after answering
 * 404 (not a command of the session, or none yet) or the backend's
 * failure; -1 when `session` is not a created one (nothing answered). */
int aio_bash_session_command(const aio_call *call, const char *session, const char *command,
                             char pid[SBX_PROCESS_ID_MAX + 1], prov_reply *reply);

/* When the /v1/bash/exec `body` names a created session: 1 with it in *s,
 * used (one command more; its exec_dir, if any, the session's working
 * directory from now on); else 0. */
int aio_bash_exec_session(const aio_call *call, json_object *body, aio_bash_session *s);

/* Close created session `session` (end and forget its commands, forget
 * it) and answer; 0 (nothing answered) when it is not a created one. */
int aio_bash_session_close(const aio_call *call, const char *session, prov_reply *reply);

#endif
