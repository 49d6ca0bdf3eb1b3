/* The container engine the docker suites run against (docker_engine.h). */
#include <config.h>

#include "tests/support/docker_engine.h"

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
