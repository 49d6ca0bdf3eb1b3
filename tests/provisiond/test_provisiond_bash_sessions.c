/* The AIO bash sessions of sbx-provisiond (POST /v1/bash/sessions/create
 * through a sandbox's /s/TOKEN URL) across a restart, over the local
 * backend whose processes outlive the daemon: with --state-dir, a session
 * comes back after the daemon was killed with its working directory and
 * command count, its running command is reached through the session
 * (written to, read), and closing it ends that command; the file goes
 * when the sandbox's last session is closed, or the sandbox destroyed.  A
 * damaged sessions file is named in the daemon's log and skipped, a file
 * of a sandbox gone is dropped, and the daemon serves on. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/provisiond/provd_process.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"

#define REQUEST_MS 30000L
/* Generous for a loaded 2-core machine: a correct run never waits it out. */
#define DEADLINE_MS 60000L

/* Send `method` `route` (below /s/TOKEN) with `body` to `d`'s daemon:
 * the answer's "data" when it is a 200 with success true (put it), else
 * NULL after a CUnit failure. */
static json_object *aio_call(const provd_local *d, const char *token, const char *method,
                             const char *route, const char *body)
{
    char path[256];
    static char answer[65536];
    snprintf(path, sizeof path, "/s/%s%s", token, route);
    long status = provd_request(provd_url(d->proc), (provd_send){method, path, body},
                                REQUEST_MS, answer, sizeof answer);
    json_object *all = status == 200 ? json_tokener_parse(answer) : NULL;
    json_object *success = NULL, *data = NULL;
    int ok = json_object_object_get_ex(all, "success", &success) &&
             json_object_get_boolean(success) && json_object_object_get_ex(all, "data", &data);
    if (!ok)
        fprintf(stderr, "%s %s %s: %ld %s\n", method, route, body != NULL ? body : "", status,
                answer);
    CU_ASSERT_TRUE(ok);
    json_object *kept = ok ? json_object_get(data) : NULL;
    json_object_put(all);
    return kept;
}

static const char *text_of(json_object *obj, const char *key)
{
    json_object *value = NULL;
    return json_object_object_get_ex(obj, key, &value) ? json_object_get_string(value) : NULL;
}

/* Session `id` as GET /v1/bash/sessions lists it (put it), else NULL. */
static json_object *listed(const provd_local *d, const char *token, const char *id)
{
    json_object *list = aio_call(d, token, "GET", "/v1/bash/sessions", NULL);
    json_object *found = NULL;
    for (size_t i = 0; list != NULL && i < json_object_array_length(list); i++) {
        json_object *s = json_object_array_get_idx(list, i);
        const char *sid = text_of(s, "session_id");
        if (sid != NULL && strcmp(sid, id) == 0)
            found = json_object_get(s);
    }
    json_object_put(list);
    return found;
}

/* Whether session `id`'s latest command has written `text` to its stdout
 * within the deadline (read through the session, from the start). */
static int output_says(const provd_local *d, const char *token, const char *id,
                       const char *text)
{
    char body[160];
    snprintf(body, sizeof body, "{\"session_id\":\"%s\",\"wait\":true,\"wait_timeout\":2}", id);
    long deadline = sbx_test_now_ms() + DEADLINE_MS;
    int said = 0;
    while (!said && sbx_test_now_ms() < deadline) {
        json_object *out = aio_call(d, token, "POST", "/v1/bash/output", body);
        const char *stdout_text = text_of(out, "stdout");
        said = stdout_text != NULL && strstr(stdout_text, text) != NULL;
        json_object_put(out);
        if (out == NULL)
            break;
    }
    return said;
}

/* Whether a process whose command line holds `marker` runs (`want` 1)
 * or none does (`want` 0) within the deadline. */
static int running_becomes(const char *marker, int want)
{
    long deadline = sbx_test_now_ms() + DEADLINE_MS;
    for (;;) {
        if ((provd_running_with(marker) != 0) == want)
            return 1;
        if (sbx_test_now_ms() >= deadline)
            return 0;
    }
}

/* Whether the state directory holds `name`. */
static int state_has(const provd_local *d, const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", d->owners_dir, name);
    return access(path, F_OK) == 0;
}

/* Kill the daemon (no chance to write anything on its way out) and start
 * it again on the same directories.  Returns 1, or 0 after a CUnit
 * failure (the directory left for provd_local_stop). */
static int kill_and_restart(provd_local *d)
{
    provd_stop_with(d->proc, SIGKILL);
    d->proc = NULL;
    int started = provd_local_restart(d, 1, NULL);
    CU_ASSERT_TRUE(started);
    return started;
}

static void test_a_session_and_its_command_survive_a_restart(void)
{
    provd_local d;
    if (!provd_local_start(&d, 1, NULL))
        return;
    char token[PROVD_TEST_TOKEN_LEN + 1], marker[64], command[256], dir[4200] = "";
    snprintf(marker, sizeof marker, "bash-kept-%ld", (long)getpid());
    if (!provd_create_token(provd_url(d.proc), "bashkept", "u", token)) {
        provd_local_stop(&d, 0);
        return;
    }
    json_object *made = aio_call(&d, token, "POST", "/v1/bash/sessions/create",
                                 "{\"session_id\":\"work\"}");
    const char *home = text_of(made, "working_dir");
    if (home != NULL)
        snprintf(dir, sizeof dir, "%s/sub", home);
    json_object_put(made);
    json_object_put(aio_call(&d, token, "POST", "/v1/bash/exec",
                             "{\"session_id\":\"work\",\"command\":\"mkdir -p sub\"}"));
    snprintf(command, sizeof command,
             "{\"session_id\":\"work\",\"async_mode\":true,\"exec_dir\":\"%s\",\"command\":"
             "\"echo up; read -r a; echo got $a; sleep 600; echo done # %s\"}",
             dir, marker);
    json_object_put(aio_call(&d, token, "POST", "/v1/bash/exec", command));
    CU_ASSERT_TRUE(output_says(&d, token, "work", "up"));
    CU_ASSERT_TRUE(state_has(&d, "bashkept.bash"));

    if (kill_and_restart(&d)) {
        json_object *s = listed(&d, token, "work");
        CU_ASSERT_PTR_NOT_NULL(s);
        const char *wd = text_of(s, "working_dir"), *current = text_of(s, "current_command");
        json_object *count = NULL;
        CU_ASSERT(wd != NULL && strcmp(wd, dir) == 0);
        CU_ASSERT(json_object_object_get_ex(s, "command_count", &count) &&
                  json_object_get_int(count) == 2);
        CU_ASSERT(current != NULL && strstr(current, marker) != NULL);
        json_object_put(s);
        /* The command that outlived the daemon, reached through its session. */
        json_object_put(aio_call(&d, token, "POST", "/v1/bash/write",
                                 "{\"session_id\":\"work\",\"input\":\"42\\n\"}"));
        CU_ASSERT_TRUE(output_says(&d, token, "work", "got 42"));
        json_object_put(aio_call(&d, token, "POST", "/v1/bash/sessions/work/close", NULL));
        CU_ASSERT_TRUE(running_becomes(marker, 0));
        s = listed(&d, token, "work");
        CU_ASSERT_PTR_NULL(s);
        json_object_put(s);
        CU_ASSERT_FALSE(state_has(&d, "bashkept.bash"));
        /* A destroy takes the sandbox's sessions, and their file, along. */
        json_object_put(aio_call(&d, token, "POST", "/v1/bash/sessions/create",
                                 "{\"session_id\":\"later\"}"));
        CU_ASSERT_TRUE(state_has(&d, "bashkept.bash"));
        CU_ASSERT_EQUAL(provd_request(provd_url(d.proc),
                                      (provd_send){"DELETE", "/api/sandboxes/bashkept", NULL},
                                      REQUEST_MS, NULL, 0),
                        200);
        CU_ASSERT_FALSE(state_has(&d, "bashkept.bash"));
    }
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

/* Write `text` to the state directory's `name`. */
static void state_write(const provd_local *d, const char *name, const char *text)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", d->owners_dir, name);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    CU_ASSERT_EQUAL(fclose(f), 0);
}

static void test_a_bad_sessions_file_is_logged_and_skipped(void)
{
    provd_local d;
    if (!provd_local_start(&d, 1, NULL))
        return;
    char token[PROVD_TEST_TOKEN_LEN + 1];
    if (!provd_create_token(provd_url(d.proc), "bashbad", "u", token)) {
        provd_local_stop(&d, 0);
        return;
    }
    json_object_put(aio_call(&d, token, "POST", "/v1/bash/sessions/create",
                             "{\"session_id\":\"one\"}"));
    provd_stop_with(d.proc, SIGKILL);
    d.proc = NULL;
    state_write(&d, "bashbad.bash", "{\"sessions\":[{\"session_id\":\"one\",\"working_");
    /* Well-formed, but of a sandbox the daemon never made. */
    state_write(&d, "bashgone.bash",
                "{\"sessions\":[{\"session_id\":\"x\",\"working_dir\":\"/\",\"created_at\":1,"
                "\"last_used_at\":1,\"command_count\":0}]}");
    if (provd_local_restart(&d, 1, NULL)) {
        CU_ASSERT_TRUE(provd_local_stderr_says(&d, DEADLINE_MS,
                                               "ignoring the bash sessions file"));
        CU_ASSERT_TRUE(provd_local_stderr_says(&d, DEADLINE_MS, "bashbad.bash"));
        CU_ASSERT_TRUE(provd_local_stderr_says(&d, DEADLINE_MS,
                                               "bashgone.bash: its sandbox no longer exists"));
        CU_ASSERT_FALSE(state_has(&d, "bashgone.bash"));
        json_object *s = listed(&d, token, "one");
        CU_ASSERT_PTR_NULL(s);
        json_object_put(s);
        /* The sandbox's sessions start afresh, and are kept again. */
        json_object_put(aio_call(&d, token, "POST", "/v1/bash/sessions/create",
                                 "{\"session_id\":\"two\"}"));
        CU_ASSERT_TRUE(kill_and_restart(&d));
        s = listed(&d, token, "two");
        CU_ASSERT_PTR_NOT_NULL(s);
        json_object_put(s);
        CU_ASSERT_EQUAL(provd_local_stderr_count(&d, "ignoring the bash sessions file"), 1);
    }
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

void sbx_test_register(void)
{
    static CU_TestInfo tests[] = {
        {"a session and its command survive a restart",
         test_a_session_and_its_command_survive_a_restart},
        {"a bad sessions file is logged and skipped",
         test_a_bad_sessions_file_is_logged_and_skipped},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("sbx-provisiond bash sessions across restarts", NULL, NULL, tests);
}
