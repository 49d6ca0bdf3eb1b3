/* The container engine the docker suites run against (docker_engine.h). */
#include <config.h>

#include "tests/support/docker_engine.h"

#include "tests/support/clock.h"

#include <stdio.h>
#include <stdlib.h>

void sbx_test_docker_engine(const char **socket, const char **image)
{
    *socket = getenv("SBX_DOCKER_SOCKET");
    *image = getenv("SBX_DOCKER_IMAGE");
    if (*socket == NULL || *image == NULL) {
        fprintf(stderr, "SKIP: SBX_DOCKER_SOCKET/SBX_DOCKER_IMAGE not set "
                        "(run through tests/docker/docker-suite.sh)\n");
        exit(77);
    }
}

int sbx_test_docker_open(sbx_host **host, sbx_backend **backend)
{
    sbx_error err;
    sbx_option opts[] = { { "socket", getenv("SBX_DOCKER_SOCKET") },
                          { "image", getenv("SBX_DOCKER_IMAGE") },
                          { "stop_grace_s", "1" }, { "command", SBX_TEST_DOCKER_SERVE },
                          { "ready_timeout_ms", SBX_TEST_READY_TIMEOUT_MS } };
    sbx_host_services services = { sizeof services, NULL, NULL };
    *backend = NULL;
    if (sbx_host_new(&services, host, &err) != SBX_OK) {
        fprintf(stderr, "new host: %s\n", err.message);
        return 1;
    }
    if (sbx_backend_open(*host, "docker", opts, sizeof opts / sizeof *opts, backend, &err) !=
        SBX_OK) {
        fprintf(stderr, "open docker: %s\n", err.message);
        return 1;
    }
    return 0;
}

sbx_test_docker_suite sbx_test_docker;

int sbx_test_docker_suite_init(void)
{
    return sbx_test_docker_open(&sbx_test_docker.host, &sbx_test_docker.backend);
}

int sbx_test_docker_suite_clean(void)
{
    sbx_backend_close(sbx_test_docker.backend);
    sbx_host_free(sbx_test_docker.host);
    return 0;
}
