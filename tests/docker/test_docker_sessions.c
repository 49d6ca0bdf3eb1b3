/*
 * The host library's session cases (tests/host/session_cases.h) on the
 * docker backend, in one container of the engine docker-suite.sh started
 * (its busybox image).  Every process call here is an Engine exec, so
 * "many commands" and "many threads" run fewer commands than on local.
 */
#include <config.h>

#include "tests/host/session_cases.h"
#include "tests/support/cunit_main.h"
#include "tests/support/docker_engine.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>

static sbx_host *host;

/* Open docker and create the sandbox on the first case's call; a failure
 * is the case's (its assertions are fatal). */
static void need_docker(session_cases_target *target)
{
    static int tried;
    CU_ASSERT_FATAL(!tried || target->backend != NULL);
    if (tried)
        return;
    tried = 1;
    const char *socket, *image;
    sbx_test_docker_engine(&socket, &image);
    sbx_option opts[] = { { "socket", socket }, { "image", image }, { "stop_grace_s", "0" },
                          { "command", "exec sleep 100000" }, { "ready_timeout_ms", "0" } };
    sbx_host_services services = { sizeof services, NULL, NULL };
    sbx_error err;
    sbx_sandbox *sb = NULL;
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = target->sandbox_id;
    sbx_status st = sbx_host_new(&services, &host, &err);
    if (st == SBX_OK)
        st = sbx_backend_open(host, "docker", opts, sizeof opts / sizeof *opts,
                              &target->backend, &err);
    if (st == SBX_OK)
        st = sbx_backend_create(target->backend, &req, &sb, &err);
    if (st != SBX_OK)
        fprintf(stderr, "docker sandbox '%s': %s\n", target->sandbox_id, err.message);
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
    sbx_backend_free_sandboxes(target->backend, sb, 1);
}

static session_cases_target on_docker = {
    .need = need_docker, .sandbox_id = "sessions", .keeps_invalid_utf8 = 1,
    .many_commands = 12, .threads = 3, .thread_runs = 2 };

static int docker_down(void)
{
    if (on_docker.backend != NULL) {
        sbx_error err;
        sbx_backend_destroy(on_docker.backend, on_docker.sandbox_id, &err);
        sbx_backend_close(on_docker.backend);
    }
    sbx_host_free(host);
    return 0;
}

void sbx_test_register(void)
{
    session_cases_add_suite("sessions on the docker backend", &on_docker, docker_down);
}
