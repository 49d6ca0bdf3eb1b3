/* OOM kills of an exec, from the container's count or the engine's events
 * (see docker_oom.h). */
#include <config.h>

#include "plugin/docker/docker_oom.h"

#include "common/json_fields.h"
#include "common/op_results.h"
#include "plugin/docker/docker_exec.h"

#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The exit code the engines report for a command SIGKILL ended. */
#define KILLED_CODE (128 + SIGKILL)

/* How long reading the count again may take, in ms. */
#define COUNT_TIMEOUT_MS 10000

/* Whether `r` is of a command the kernel may have killed for memory. */
static int killed(const sbx_exec_result *r)
{
    return (r->outcome == SBX_EXEC_SIGNALED && r->term_signal == SIGKILL) ||
           (r->outcome == SBX_EXEC_EXITED && r->exit_code == KILLED_CODE);
}

/* Whether the events answer `text` (one JSON object per event) holds an
 * "oom": the filter asks only for those, but an engine ignoring it sends
 * every event. */
static int has_oom_event(const char *text, size_t len)
{
    json_tokener *tok = json_tokener_new();
    int found = 0;
    size_t at = 0;
    while (tok != NULL && !found && at < len) {
        json_object *event = json_tokener_parse_ex(tok, text + at, (int)(len - at));
        if (event == NULL)
            break;
        at += json_tokener_get_parse_end(tok);
        const char *action = NULL;
        found = common_json_get_string(event, "Action", &action) == COMMON_JSON_OK &&
                strcmp(action, "oom") == 0;
        json_object_put(event);
        json_tokener_reset(tok);
        while (at < len && (text[at] == '\n' || text[at] == '\r' || text[at] == ' '))
            at++;
    }
    json_tokener_free(tok);
    return found;
}

/* The container's count of OOM kills now into *count; 0 when it cannot be
 * read (said at DEBUG). */
static int count_now(sbx_backend_instance *inst, const docker_target *t, long *count)
{
    const char *argv[] = { "/bin/sh", "-c", DOCKER_OOM_COUNT_SH "; echo \"$o\"", NULL };
    docker_exec_spec read_count = { .argv = argv, .timeout_ms = COUNT_TIMEOUT_MS,
                                    .max_output_bytes = 64 };
    sbx_exec_result *r = NULL;
    sbx_error err;
    sbx_status st = docker_exec_run(inst, t, &read_count, &r, &err);
    char *end = NULL;
    int ok = st == SBX_OK && r->outcome == SBX_EXEC_EXITED && r->exit_code == 0 &&
             r->stdout_length > 0 && r->stdout_data[0] >= '0' && r->stdout_data[0] <= '9';
    if (ok) {
        *count = strtol(r->stdout_data, &end, 10);
        ok = *end == '\n';
    }
    if (!ok)
        DOCKER_LOG(inst, SBX_LOG_DEBUG, "%s: the container's count of OOM kills could not be "
                   "read again: %s", t->what, st == SBX_OK ? "no number" : err.message);
    common_exec_result_free(r);
    return ok;
}

/* Whether the engine's events hold an OOM kill in the container during
 * `r` (0 when the engine cannot say, logged at DEBUG). */
static int oom_event(sbx_backend_instance *inst, const docker_target *t,
                     const sbx_exec_result *r)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    double end = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
    double since = end - (double)r->duration_ms / 1000.0 - 0.01;
    double until = end + DOCKER_OOM_EVENT_SLACK_MS / 1000.0;
    /* The ID is hex (docker_target.h): nothing in it needs escaping. */
    char path[DOCKER_CONTAINER_ID_MAX + 224];
    snprintf(path, sizeof path,
             "/events?since=%.6f&until=%.6f&filters=%%7B%%22container%%22%%3A%%5B%%22%s"
             "%%22%%5D%%2C%%22event%%22%%3A%%5B%%22oom%%22%%5D%%7D",
             since, until, t->container_id);
    common_http_response resp = { 0, NULL, 0 };
    sbx_error err;
    sbx_status st = docker_engine_call(
        &inst->engine,
        &(common_http_call){ .method = "GET", .path = path,
                             .timeout_ms = DOCKER_OOM_EVENT_SLACK_MS + 1000 },
        t->what, &resp, &err);
    int found = 0;
    if (st == SBX_OK && resp.status == 200)
        found = has_oom_event(resp.body, resp.body_len);
    else
        DOCKER_LOG(inst, SBX_LOG_DEBUG, "%s: the engine's events did not say whether memory "
                   "killed the command: %s", t->what,
                   st == SBX_OK ? "answer not 200" : err.message);
    common_http_response_clear(&resp);
    return found;
}

void docker_oom_note(sbx_backend_instance *inst, const docker_target *t, long before,
                     sbx_exec_result *r)
{
    if (!SBX_EXEC_RESULT_HAS(r, oom_killed) || !killed(r))
        return;
    long after = 0;
    if (before == DOCKER_OOM_UNKNOWN)
        r->oom_killed = oom_event(inst, t, r);
    else
        r->oom_killed = count_now(inst, t, &after) && after > before;
}
