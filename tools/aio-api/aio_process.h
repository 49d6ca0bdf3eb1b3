/* The AIO bash routes of live commands (async_mode, /v1/bash/output,
 * /write, /kill, /sessions), each carried out through the host API's
 * process calls on the sandbox the URL names (docs/emulator.md "Live
 * commands").  Ids: an async command's session_id and command_id are both
 * the sbx process id, so the routes keep no state of their own (a server
 * restart loses nothing) and a process of another sandbox is never
 * reached: every lookup goes through the URL's sandbox.  Thread-safe. */
#ifndef AIO_PROCESS_H
#define AIO_PROCESS_H

#include <json-c/json.h>
#include <sbx/host.h>

#include "tools/aio-api/aio_routes.h"

/* POST /v1/bash/exec with async_mode: start `request` (command, working
 * directory, environment set by the caller; stdin stays open for
 * /v1/bash/write) with `timeout_ms` (0: none) and answer BashExecResult
 * at once (status running unless it already ended; offsets 0).  `body`
 * is the checked request, borrowed.  `session`: the created session it
 * runs in (its command marked so, aio_bash_sessions.h), else NULL. */
void aio_process_start(const aio_call *call, json_object *body, sbx_process_request request,
                       const char *session, prov_reply *reply);

/* The command text of a process: the text of a /bin/sh -c, else its
 * argv[0] (the routes start only the former).  Borrowed from `info`. */
const char *aio_process_command_text(const sbx_process_info *info);

/* End process `pid` (SIGKILL until it has ended, a few seconds at most)
 * and forget it: SBX_OK, or the backend's failure. */
sbx_status aio_process_end(const aio_call *call, const char *pid, sbx_error *err);

/* The BashSessionInfo of the one-command session of process `info`
 * (working_dir `dir`); NULL when memory ran out. */
json_object *aio_process_session_json(const sbx_process_info *info, const char *dir);

#endif
