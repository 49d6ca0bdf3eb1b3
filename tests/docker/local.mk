# The docker backend module against a real engine: podman's Docker API
# service, private to the run (podman-env.sh).  docker-suite.sh starts it,
# runs the CUnit suite and tears it down; it SKIPs (77) when podman, runc or
# busybox-static are missing or the engine cannot start.
check_PROGRAMS += tests/docker/test_docker_backend
tests_docker_test_docker_backend_SOURCES = tests/docker/test_docker_backend.c
tests_docker_test_docker_backend_CFLAGS = $(SBX_TEST_CFLAGS)
tests_docker_test_docker_backend_LDADD = $(SBX_TEST_LIBS)
dist_check_SCRIPTS += tests/docker/docker-suite.sh tests/docker/podman-env.sh
TESTS += tests/docker/docker-suite.sh

# The docker backend against misbehaving engines (no socket, nobody
# listening, no answer, answers with NULs or invalid UTF-8): no real engine
# needed, so it runs everywhere.
check_PROGRAMS += tests/docker/test_docker_hostile
tests_docker_test_docker_hostile_SOURCES = tests/docker/test_docker_hostile.c
tests_docker_test_docker_hostile_CFLAGS = $(SBX_TEST_CFLAGS)
tests_docker_test_docker_hostile_LDADD = $(SBX_TEST_LIBS)
TESTS += tests/docker/test_docker_hostile
