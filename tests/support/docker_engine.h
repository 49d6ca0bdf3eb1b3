/* The container engine the docker suites run against. */
#ifndef SBX_TEST_DOCKER_ENGINE_H
#define SBX_TEST_DOCKER_ENGINE_H

/* The engine's socket and image that tests/docker/docker-suite.sh exports
 * (SBX_DOCKER_SOCKET, SBX_DOCKER_IMAGE), borrowed from the environment; a
 * program run outside that script exits 77 (automake's skip), saying why. */
void sbx_test_docker_engine(const char **socket, const char **image);

#endif
