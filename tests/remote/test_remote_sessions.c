/* The host library's session cases (tests/host/session_cases.h) on the
 * remote backend: the provisioner emulator with --aio serves the AIO bash
 * routes the sessions' shells run over (docs/remote.md "Processes (ABI
 * 1.4)"), one emulator and one sandbox for every case. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/host/session_cases.h"
#include "tests/remote/remote_fixture.h"
#include "tests/support/cunit_main.h"
#include "tests/support/subprocess.h"

#define AIO_KEY "aio-key-3f9b1c7e5d2a8c4b6e0f"

static char state_dir[64];
static sbx_rt rt;

/* Start the emulator and create the sandbox on the first case's call;
 * a failure is the case's (its assertions are fatal). */
static void need_remote(session_cases_target *target)
{
    static int tried;
    CU_ASSERT_FATAL(!tried || target->backend != NULL);
    if (tried)
        return;
    tried = 1;
    snprintf(state_dir, sizeof state_dir, "/tmp/sbx-remote-sess.XXXXXX");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(state_dir));
    const char *args[] = {"--aio", "--aio-api-key", AIO_KEY, "--state-dir", state_dir, NULL};
    sbx_option extra[] = {{"sandbox_api_key", AIO_KEY}, {"get_timeout_ms", "60000"}};
    memset(&rt, 0, sizeof rt);
    CU_ASSERT_FATAL(sbx_rt_start(&rt, args, NULL, extra, 2));
    sbx_create_request req = sbx_rt_create_request(target->sandbox_id, NULL, NULL);
    sbx_error err;
    sbx_sandbox *sb = sbx_rt_create_ok(&rt, &req, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sb);
    sbx_backend_free_sandboxes(rt.backend, sb, 1);
    target->backend = rt.backend;
}

/* A close waits the grace for the shell to end by itself, in vain on
 * remote: 2 s of it rather than 5 keeps the suite short, and is still
 * ample for an interrupted command's shell to come back. */
static session_cases_target on_remote = {.need = need_remote, .sandbox_id = "sessions-sb",
                                         .interrupt_grace_ms = 2000};

static int remote_down(void)
{
    if (on_remote.backend != NULL) {
        sbx_error err;
        sbx_backend_destroy(on_remote.backend, on_remote.sandbox_id, &err);
    }
    sbx_rt_stop(&rt);
    if (state_dir[0] != '\0') {
        const char *argv[] = {"rm", "-rf", "--", state_dir, NULL};
        sbx_test_run_program(argv, 30000, NULL, 0);
    }
    return 0;
}

void sbx_test_register(void)
{
    session_cases_add_suite("sessions on the remote backend (emulator)", &on_remote,
                            remote_down);
}
