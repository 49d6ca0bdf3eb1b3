/* The AIO bash sessions a client creates (POST /v1/bash/sessions/create)
 * and what the other bash routes do with them (aio_bash_session.h): a
 * session's async commands are backend processes marked with its id
 * (aio_bash_sessions.h), its metadata the server's table. */
#include <config.h>

#include "tools/aio-api/aio_bash_session.h"

#include "tools/aio-api/aio_answers.h"
#include "tools/aio-api/aio_body.h"
#include "tools/aio-api/aio_process.h"
#include "tools/aio-api/aio_text.h"
#include "tools/provisioner-common/prov_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const aio_field create_fields[] = {
    {"session_id", AIO_FIELD_STRING, 0, 1, NULL},
    {"exec_dir", AIO_FIELD_STRING, 0, 1, NULL},
    {"snapshot_path", AIO_FIELD_STRING, 0, 1, NULL},
};

json_object *aio_bash_session_json(const char *id, const char *dir, int64_t created_at,
                                   int64_t used_at, int command_count, const char *current)
{
    char created[32], used[32];
    aio_text_iso_time(created_at, created);
    aio_text_iso_time(used_at, used);
    json_object *s = json_object_new_object();
    int built = s != NULL && prov_json_add_string(s, "session_id", id) &&
                prov_json_add_string(s, "status", "ready") &&
                prov_json_add_string(s, "working_dir", dir) &&
                prov_json_add_string(s, "created_at", created) &&
                prov_json_add_string(s, "last_used_at", used) &&
                prov_json_add(s, "command_count", json_object_new_int(command_count));
    if (built && current != NULL)
        built = prov_json_add_string(s, "current_command", current);
    else if (built)
        built = json_object_object_add(s, "current_command", NULL) == 0;
    return prov_json_built(s, built);
}

const char *aio_bash_command_session(const sbx_process_info *info)
{
    char *const *argv = info->argv;
    for (int i = 0; i < 3; i++)
        if (argv[i] == NULL)
            return NULL;
    if (strcmp(argv[1], "-c") != 0 || argv[3] == NULL ||
        strcmp(argv[3], AIO_BASH_SESSION_MARK) != 0 || argv[4] == NULL || argv[5] != NULL)
        return NULL;
    return argv[4];
}

/* The backend's processes of the sandbox in *infos; a failure answered
 * (about `session`) in `reply`. */
static sbx_status processes(const aio_call *call, const char *session,
                            sbx_process_info **infos, prov_reply *reply)
{
    sbx_error err;
    sbx_error_clear(&err);
    size_t count = 0;
    *infos = NULL;
    sbx_status st = sbx_backend_process_list(call->backend, call->sandbox_id, infos, &count,
                                             &err);
    if (st != SBX_OK)
        aio_answer_session_failure(st, &err, session, reply);
    return st;
}

/* The latest command of session `session` among `infos`, else NULL. */
static const sbx_process_info *latest(const sbx_process_info *infos, const char *session)
{
    const sbx_process_info *found = NULL;
    for (const sbx_process_info *i = infos; i != NULL; i = i->next) {
        const char *of = aio_bash_command_session(i);
        if (of != NULL && strcmp(of, session) == 0)
            found = i;
    }
    return found;
}

int aio_bash_session_command(const aio_call *call, const char *session, const char *command,
                             char pid[SBX_PROCESS_ID_MAX + 1], prov_reply *reply)
{
    aio_bash_session s;
    if (!aio_bash_session_find(call->bash_sessions, call->sandbox_id, session, 0, NULL, &s))
        return -1;
    char detail[320];
    sbx_error err;
    sbx_error_clear(&err);
    sbx_process_info *info = NULL;
    const sbx_process_info *found = NULL;
    if (command != NULL) {
        /* A command of the session: its process says so. */
        sbx_status st = sbx_backend_process_wait(call->backend, call->sandbox_id, command, 0,
                                                 &info, &err);
        if (st != SBX_OK && st != SBX_ERR_NO_SUCH_PROCESS && st != SBX_ERR_USAGE) {
            aio_answer_session_failure(st, &err, session, reply);
            return 0;
        }
        const char *of = st == SBX_OK ? aio_bash_command_session(info) : NULL;
        found = of != NULL && strcmp(of, session) == 0 ? info : NULL;
        snprintf(detail, sizeof detail, "Command '%.128s' not found in session '%.128s'",
                 command, session);
    } else {
        if (processes(call, session, &info, reply) != SBX_OK)
            return 0;
        found = latest(info, session);
        snprintf(detail, sizeof detail, "Session '%.128s' has run no command", session);
    }
    if (found != NULL)
        snprintf(pid, SBX_PROCESS_ID_MAX + 1, "%s", found->process_id);
    else
        prov_reply_detail(reply, 404, detail);
    sbx_backend_free_processes(call->backend, info);
    return found != NULL;
}

int aio_bash_exec_session(const aio_call *call, json_object *body, aio_bash_session *s)
{
    const char *id = aio_string(body, "session_id", "");
    return id[0] != '\0' && aio_bash_session_find(call->bash_sessions, call->sandbox_id, id, 1,
                                                  aio_string(body, "exec_dir", NULL), s);
}

int aio_bash_session_close(const aio_call *call, const char *session, prov_reply *reply)
{
    aio_bash_session s;
    if (!aio_bash_session_find(call->bash_sessions, call->sandbox_id, session, 0, NULL, &s))
        return 0;
    sbx_process_info *infos = NULL;
    if (processes(call, session, &infos, reply) != SBX_OK)
        return 1;
    sbx_error err;
    sbx_error_clear(&err);
    sbx_status st = SBX_OK;
    /* Closing a session ends what runs in it, as the AIO server's cleanup
     * does, and forgets its commands. */
    for (const sbx_process_info *i = infos; st == SBX_OK && i != NULL; i = i->next) {
        const char *of = aio_bash_command_session(i);
        if (of != NULL && strcmp(of, session) == 0)
            st = aio_process_end(call, i->process_id, &err);
        if (st == SBX_ERR_NO_SUCH_PROCESS)
            st = SBX_OK;    /* closed meanwhile by another request */
    }
    sbx_backend_free_processes(call->backend, infos);
    if (st == SBX_OK) {
        aio_bash_session_remove(call->bash_sessions, call->sandbox_id, session);
        aio_answer_ok(reply, NULL);
    } else {
        aio_answer_session_failure(st, &err, session, reply);
    }
    return 1;
}

/* The session's directory: `exec_dir` (absolute), else the sandbox's
 * working directory.  0 after answering the failure. */
static int start_dir(const aio_call *call, json_object *body, char *dir, size_t size,
                     prov_reply *reply)
{
    const char *given = aio_string(body, "exec_dir", NULL);
    if (given != NULL && given[0] != '\0') {
        if (given[0] != '/' || strlen(given) >= size) {
            aio_answer_failed(reply, "exec_dir must be an absolute path of at most 4095 bytes");
            return 0;
        }
        snprintf(dir, size, "%s", given);
        return 1;
    }
    sbx_error err;
    sbx_error_clear(&err);
    sbx_status st = aio_sandbox_working_dir(call, dir, size, &err);
    if (st != SBX_OK)
        aio_answer_session_failure(st, &err, "", reply);
    return st == SBX_OK;
}

void aio_route_bash_session_create(const aio_call *call, prov_reply *reply)
{
    json_object *body = aio_body_read(call->req->body, call->req->body_len, create_fields,
                                      sizeof create_fields / sizeof create_fields[0], reply);
    if (body == NULL)
        return;
    char id[AIO_BASH_ID_MAX + 1], dir[AIO_BASH_DIR_MAX + 1];
    const char *given = aio_string(body, "session_id", "");
    if (given[0] != '\0')
        snprintf(id, sizeof id, "%s", given);
    else
        aio_random_id("bash-", id, sizeof id);
    aio_bash_session s;
    if (aio_string(body, "snapshot_path", NULL) != NULL) {
        /* Honouring it would need one shell kept per session; each command
         * is a process of its own instead, and a snapshot sourced by it
         * would be gone with it. */
        aio_answer_failed(reply, "snapshot_path is not supported by this server: a session's "
                                 "commands run under /bin/sh, which cannot source a bash "
                                 "snapshot, and each starts from the sandbox's environment");
    } else if (!aio_bash_session_id_valid(given[0] != '\0' ? given : id)) {
        aio_answer_failed(reply, "session_id must be 1 to 128 characters of A-Z, a-z, 0-9, "
                                 "'.', '_' and '-'");
    } else if (start_dir(call, body, dir, sizeof dir, reply)) {
        switch (aio_bash_session_create(call->bash_sessions, call->sandbox_id, id, dir, &s)) {
        case AIO_BASH_CREATED:
        case AIO_BASH_EXISTED:
            aio_answer_data(reply, aio_bash_session_json(s.id, s.working_dir, s.created_at,
                                                         s.used_at, s.command_count, NULL));
            break;
        case AIO_BASH_FULL:
            aio_answer_failed(reply, "this sandbox holds 64 bash sessions already, the most "
                                     "it may: close one first");
            break;
        case AIO_BASH_NO_MEMORY:
            prov_reply_out_of_memory(reply);
            break;
        }
    }
    json_object_put(body);
}

/* Append to `list` the sessions of `created` (`count`), each with the text
 * of its latest command among `infos` while that runs. */
static int append_created(json_object *list, const aio_bash_session *created, size_t count,
                          const sbx_process_info *infos)
{
    int built = 1;
    for (size_t k = 0; built && k < count; k++) {
        const sbx_process_info *last = latest(infos, created[k].id);
        const char *current = last != NULL && last->state == SBX_PROCESS_RUNNING
                                  ? aio_process_command_text(last)
                                  : NULL;
        built = prov_json_append(list, aio_bash_session_json(
                                           created[k].id, created[k].working_dir,
                                           created[k].created_at, created[k].used_at,
                                           created[k].command_count, current));
    }
    return built;
}

/* Whether `info` is a command of one of the `count` sessions `created`. */
static int in_created(const sbx_process_info *info, const aio_bash_session *created,
                      size_t count)
{
    const char *of = aio_bash_command_session(info);
    for (size_t k = 0; of != NULL && k < count; k++)
        if (strcmp(created[k].id, of) == 0)
            return 1;
    return 0;
}

void aio_route_bash_sessions(const aio_call *call, prov_reply *reply)
{
    sbx_error err;
    sbx_error_clear(&err);
    char dir[4096];
    /* A process's own directory is not in its record: the sandbox's is
     * where a command without exec_dir runs. */
    sbx_status st = aio_sandbox_working_dir(call, dir, sizeof dir, &err);
    if (st != SBX_OK) {
        aio_answer_session_failure(st, &err, "", reply);
        return;
    }
    sbx_process_info *infos = NULL;
    if (processes(call, "", &infos, reply) != SBX_OK)
        return;
    aio_bash_session *created = NULL;
    size_t count = 0;
    json_object *list = json_object_new_array();
    int built = list != NULL &&
                aio_bash_session_list(call->bash_sessions, call->sandbox_id, &created, &count);
    /* A command outside a created session is a session of its own. */
    for (const sbx_process_info *i = infos; built && i != NULL; i = i->next)
        if (!in_created(i, created, count))
            built = prov_json_append(list, aio_process_session_json(i, dir));
    built = built && append_created(list, created, count, infos);
    aio_answer_data(reply, prov_json_built(list, built));
    free(created);
    sbx_backend_free_processes(call->backend, infos);
}
