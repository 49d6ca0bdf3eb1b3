/*
 * The host library's session cases (tests/host/test_sessions.c) on the
 * docker backend: this file stands in for the two calls of the local
 * fixture those cases make, so that the very same cases run against the
 * engine docker-suite.sh started, in a sandbox of its busybox image.
 */
#include <config.h>

#include "tests/local-backend/local_fixture.h"
#include "tests/support/docker_engine.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>

/* The cases keep nothing on the host; the directory only has to exist
 * for their cleanup to remove. */
void sbx_local_test_make_dir(char *out, size_t size, const char *tag)
{
    const char *base = getenv("TMPDIR");
    snprintf(out, size, "%s/sbx-docker-%s.XXXXXX", base != NULL ? base : "/tmp", tag);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(out));
}

sbx_backend *sbx_local_test_open_with_sandbox(const char *state_dir, const char *id,
                                              sbx_host **host)
{
    (void)state_dir;
    const char *socket, *image;
    sbx_test_docker_engine(&socket, &image);
    sbx_option opts[] = { { "socket", socket }, { "image", image }, { "stop_grace_s", "0" },
                          { "command", "exec sleep 100000" }, { "ready_timeout_ms", "0" } };
    sbx_host_services services = { sizeof services, NULL, NULL };
    sbx_error err;
    sbx_backend *b = NULL;
    sbx_sandbox *sb = NULL;
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = id;
    /* The session cases unset $SBX_MODULE_PATH for their fixtures. */
    const char *build = getenv("SBX_TEST_BUILDDIR");
    char modules[4096];
    snprintf(modules, sizeof modules, "%s/plugin/docker/.libs", build != NULL ? build : ".");
    const char *dirs[] = { modules };
    sbx_status st = sbx_host_new(&services, host, &err);
    if (st == SBX_OK)
        st = sbx_host_set_module_path(*host, dirs, 1, &err);
    if (st == SBX_OK)
        st = sbx_backend_open(*host, "docker", opts, sizeof opts / sizeof *opts, &b, &err);
    if (st == SBX_OK)
        st = sbx_backend_create(b, &req, &sb, &err);
    if (st != SBX_OK)
        fprintf(stderr, "docker sandbox '%s': %s\n", id, err.message);
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
    sbx_backend_free_sandboxes(b, sb, 1);
    return b;
}
