/* The container engine the docker suites run against. */
#ifndef SBX_TEST_DOCKER_ENGINE_H
#define SBX_TEST_DOCKER_ENGINE_H

#include <sbx/host.h>

/* The engine's socket and image that tests/docker/docker-suite.sh exports
 * (SBX_DOCKER_SOCKET, SBX_DOCKER_IMAGE), borrowed from the environment; a
 * program run outside that script exits 77 (automake's skip), saying why. */
void sbx_test_docker_engine(const char **socket, const char **image);

/* What the suites' sandboxes run: a server, so that create finds them
 * ready (busybox httpd on port 8080 of the container). */
#define SBX_TEST_DOCKER_SERVE \
    "mkdir -p /www && echo hi > /www/index.html && exec httpd -f -p 8080 -h /www"

/* A new host in *host with the docker backend opened in *backend on the
 * engine of sbx_test_docker_engine (called before), its image, serving
 * SBX_TEST_DOCKER_SERVE, stop_grace_s 1 and the suites' readiness
 * timeout.  0, or 1 saying why on stderr (a CUnit suite's init); close
 * with sbx_backend_close and sbx_host_free. */
int sbx_test_docker_open(sbx_host **host, sbx_backend **backend);

/* What the tests of one docker test program share: the engine (socket
 * and image, set by its register step with sbx_test_docker_engine) and
 * the host and backend its suite's init opens. */
typedef struct sbx_test_docker_suite {
    const char *socket;
    const char *image;
    sbx_host *host;
    sbx_backend *backend;
} sbx_test_docker_suite;

/* The program's one docker suite. */
extern sbx_test_docker_suite sbx_test_docker;

/* A CUnit suite's init: sbx_test_docker_open into sbx_test_docker's host
 * and backend.  0, or 1 saying why on stderr. */
int sbx_test_docker_suite_init(void);

/* A CUnit suite's clean: close sbx_test_docker's backend and free its
 * host.  Returns 0. */
int sbx_test_docker_suite_clean(void);

#endif
