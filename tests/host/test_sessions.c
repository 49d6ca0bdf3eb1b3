/*
 * Sessions (<sbx/session.h>) as a user sees them: bad arguments refused
 * before anything starts (fixture modules), then the session cases
 * (session_cases.h) on real shells in a sandbox of the local backend.
 */
#include <config.h>

#include "tests/host/host_fixtures.h"
#include "tests/host/session_cases.h"
#include "tests/local-backend/local_fixture.h"
#include "tests/support/cunit_main.h"
#include "tests/support/scratch_dir.h"

#include <sbx/session.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- arguments */

static void test_bad_arguments_are_refused_by_name(void)
{
    host_fixture f;
    host_fixture_open(&f, "fixture-processes");
    sbx_error err;
    sbx_session *s = (sbx_session *)&err;
    expect_error(sbx_session_open(NULL, "box", NULL, &s, &err), &err, SBX_ERR_USAGE,
                 "session open: a backend, a sandbox id and a session pointer are required");
    CU_ASSERT_PTR_NULL(s);
    expect_error(sbx_session_open(f.backend, NULL, NULL, &s, &err), &err, SBX_ERR_USAGE,
                 "a sandbox id");
    sbx_session_options o = SBX_SESSION_OPTIONS_INIT;
    o.struct_size = 8;
    expect_error(sbx_session_open(f.backend, "box", &o, &s, &err), &err, SBX_ERR_USAGE,
                 "options not made with SBX_SESSION_OPTIONS_INIT (struct_size 8)");
    o = (sbx_session_options)SBX_SESSION_OPTIONS_INIT;
    o.shell = "bash";
    expect_error(sbx_session_open(f.backend, "box", &o, &s, &err), &err, SBX_ERR_USAGE,
                 "session: shell 'bash' is not an absolute path");
    o = (sbx_session_options)SBX_SESSION_OPTIONS_INIT;
    o.interrupt_grace_ms = -1;
    expect_error(sbx_session_open(f.backend, "box", &o, &s, &err), &err, SBX_ERR_USAGE,
                 "interrupt_grace_ms -1 is outside 0..60000");
    o = (sbx_session_options)SBX_SESSION_OPTIONS_INIT;
    o.max_output_bytes = SBX_SESSION_MAX_OUTPUT_BYTES + 1;
    expect_error(sbx_session_open(f.backend, "box", &o, &s, &err), &err, SBX_ERR_USAGE,
                 "max_output_bytes");
    o = (sbx_session_options)SBX_SESSION_OPTIONS_INIT;
    o.env_count = 2;
    expect_error(sbx_session_open(f.backend, "box", &o, &s, &err), &err, SBX_ERR_USAGE,
                 "2 environment variables but no array");
    expect_error(sbx_session_attach(f.backend, "box", NULL, NULL, &s, &err), &err,
                 SBX_ERR_USAGE, "session attach: a process id is required");
    expect_error(sbx_session_attach(f.backend, "box", "gone", NULL, &s, &err), &err,
                 SBX_ERR_NO_SUCH_PROCESS, "no process gone");
    expect_error(sbx_session_attach(f.backend, "box", "bad id", NULL, &s, &err), &err,
                 SBX_ERR_USAGE, "'bad id' is not a process id");
    CU_ASSERT_PTR_NULL(s);

    /* A session on the fixture (which runs nothing): its run checks. */
    CU_ASSERT_EQUAL_FATAL(sbx_session_open(f.backend, "box", NULL, &s, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(sbx_session_process_id(s), "p-1");
    sbx_session_result *r = (sbx_session_result *)&err;
    expect_error(sbx_session_run(s, NULL, 0, &r, &err), &err, SBX_ERR_USAGE,
                 "session run: a command is required");
    CU_ASSERT_PTR_NULL(r);
    expect_error(sbx_session_run(s, "true", -5, &r, &err), &err, SBX_ERR_USAGE,
                 "session run: timeout of -5 ms is negative");
    expect_error(sbx_session_run(NULL, "true", 0, &r, &err), &err, SBX_ERR_USAGE,
                 "a session and a result pointer are required");
    sbx_session_detach(s);
    CU_ASSERT_EQUAL(sbx_session_close(NULL, &err), SBX_OK);
    sbx_session_detach(NULL);
    sbx_session_result_free(NULL);
    host_fixture_close(&f);
}

static void test_a_backend_without_processes_has_no_sessions(void)
{
    host_fixture f;
    host_fixture_open(&f, "fixture-minor-3");
    sbx_error err;
    sbx_session *s = NULL;
    expect_unsupported(sbx_session_open(f.backend, "box", NULL, &s, &err), &err,
                       "fixture-minor-3", "process_start");
    CU_ASSERT_PTR_NULL(s);
    host_fixture_close(&f);
}

/* ---------------------------------------------------------------- on local */

static char state_dir[4096];
static sbx_host *local_host;

/* The sandbox the cases share, made by the first that needs it. */
static void need_local(session_cases_target *target)
{
    if (target->backend != NULL)
        return;
    sbx_local_test_make_dir(state_dir, sizeof state_dir, "sessions");
    target->backend = sbx_local_test_open_with_sandbox(state_dir, target->sandbox_id,
                                                       &local_host);
}

static session_cases_target on_local = {.need = need_local, .sandbox_id = "sessions",
                                        .keeps_invalid_utf8 = 1};

static int local_down(void)
{
    if (on_local.backend == NULL)
        return 0;
    sbx_error err;
    sbx_backend_destroy(on_local.backend, on_local.sandbox_id, &err);
    sbx_backend_close(on_local.backend);
    sbx_host_free(local_host);
    sbx_test_remove_tree(state_dir);
    return 0;
}

void sbx_test_register(void)
{
    host_fixtures_locate();
    static const CU_TestInfo arguments[] = {
        {"bad arguments are refused by name", test_bad_arguments_are_refused_by_name},
        {"a backend without processes has no sessions",
         test_a_backend_without_processes_has_no_sessions},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("session arguments", NULL, NULL, arguments);
    session_cases_add_suite("sessions on the local backend", &on_local, local_down);
}
