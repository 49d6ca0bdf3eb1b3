/* Backend calls of the backend suites (see backend_calls.h). */
#include <config.h>

#include "tests/support/backend_calls.h"

#include <CUnit/CUnit.h>
#include <stdio.h>

sbx_sandbox *sbx_test_create(sbx_backend *b, const char *id, const char *thread,
                             const char *user, sbx_error *err)
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = id;
    req.thread_id = thread;
    req.user_id = user;
    sbx_sandbox *sb = NULL;
    if (sbx_backend_create(b, &req, &sb, err) != SBX_OK)
        return NULL;
    return sb;
}

int sbx_test_is_alive(sbx_backend *b, const char *id)
{
    int alive = -1;
    sbx_error err;
    CU_ASSERT(sbx_backend_is_alive(b, id, &alive, &err) == SBX_OK);
    return alive;
}

sbx_status sbx_test_shell(sbx_backend *b, const char *id, const sbx_test_command *command,
                          sbx_exec_result **result, sbx_error *err)
{
    sbx_exec_request req = SBX_EXEC_REQUEST_INIT;
    req.shell_command = command->text;
    req.env = command->env;
    req.env_count = command->env_count;
    req.timeout_ms = command->timeout_ms;
    *result = NULL;
    return sbx_backend_exec(b, id, &req, result, err);
}

sbx_exec_result *sbx_test_shell_ok(sbx_backend *b, const char *id, const char *text,
                                   int64_t timeout_ms)
{
    sbx_test_command command = { text, NULL, 0, timeout_ms };
    sbx_exec_result *r = NULL;
    sbx_error err;
    sbx_status st = sbx_test_shell(b, id, &command, &r, &err);
    if (st != SBX_OK)
        fprintf(stderr, "exec in %s: %s\n", id, err.message);
    CU_ASSERT_FATAL(st == SBX_OK);
    return r;
}

void sbx_test_destroy_all(sbx_backend *b)
{
    sbx_sandbox_record *all = NULL;
    size_t count = 0;
    sbx_error err;
    if (sbx_backend_list_records(b, &all, &count, &err) != SBX_OK)
        return;
    for (sbx_sandbox_record *r = all; r != NULL; r = r->next)
        sbx_backend_destroy(b, r->sandbox.sandbox_id, &err);
    sbx_backend_free_records(b, all);
}

void sbx_test_destroy_local_sandboxes(const char *state_dir)
{
    sbx_host *host = NULL;
    sbx_backend *b = NULL;
    sbx_error err;
    sbx_option opt = { "state_dir", state_dir };
    if (sbx_host_new(NULL, &host, &err) == SBX_OK &&
        sbx_backend_open(host, "local", &opt, 1, &b, &err) == SBX_OK) {
        sbx_test_destroy_all(b);
        sbx_backend_close(b);
    }
    sbx_host_free(host);
}
