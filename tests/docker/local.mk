# The docker backend module against real engines, each private to the run:
# podman's Docker API service (podman-env.sh) and Debian's Docker Engine
# (dockerd-env.sh).  docker-suite.sh starts one, runs the CUnit suite and
# tears it down; suite-podman.sh and suite-dockerd.sh are its two make
# check entries, each SKIPping (77) with the reason when its engine cannot
# run here.
check_PROGRAMS += tests/docker/test_docker_backend
tests_docker_test_docker_backend_SOURCES = tests/docker/test_docker_backend.c
tests_docker_test_docker_backend_CFLAGS = $(SBX_TEST_CFLAGS)
tests_docker_test_docker_backend_LDADD = $(SBX_TEST_LIBS)
# The sandbox operations (exec and the file calls, ABI 1.3): run by
# docker-suite.sh against the same engines.
check_PROGRAMS += tests/docker/test_docker_ops
tests_docker_test_docker_ops_SOURCES = tests/docker/test_docker_ops.c
tests_docker_test_docker_ops_CFLAGS = $(SBX_TEST_CFLAGS)
tests_docker_test_docker_ops_LDADD = $(SBX_TEST_LIBS)
# Live processes and exec streams (ABI 1.4): run by docker-suite.sh too.
check_PROGRAMS += tests/docker/test_docker_processes
tests_docker_test_docker_processes_SOURCES = tests/docker/test_docker_processes.c
tests_docker_test_docker_processes_CFLAGS = $(SBX_TEST_CFLAGS)
tests_docker_test_docker_processes_LDADD = $(SBX_TEST_LIBS)
# The process server where it cannot serve or fails (the calls then
# execs of the script, a server killed mid-call): run by docker-suite.sh.
check_PROGRAMS += tests/docker/test_docker_proc_server
tests_docker_test_docker_proc_server_SOURCES = tests/docker/test_docker_proc_server.c
tests_docker_test_docker_proc_server_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_docker_test_docker_proc_server_LDADD = $(SBX_TEST_LIBS) -lpthread
# The host library's session cases (tests/host/session_cases.*) on the
# docker backend: run by docker-suite.sh too, on dockerd.
check_PROGRAMS += tests/docker/test_docker_sessions
tests_docker_test_docker_sessions_SOURCES = tests/docker/test_docker_sessions.c \
	$(SBX_SESSION_CASES_SOURCES)
tests_docker_test_docker_sessions_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_docker_test_docker_sessions_LDADD = $(SBX_TEST_LIBS) -lpthread
# The create request of ABI 1.5 (image, env, labels, limits): run by
# docker-suite.sh too.
check_PROGRAMS += tests/docker/test_docker_spec
tests_docker_test_docker_spec_SOURCES = tests/docker/test_docker_spec.c
tests_docker_test_docker_spec_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_docker_test_docker_spec_LDADD = $(SBX_TEST_LIBS) -lpthread
# The create request's network and the OOM report: run by docker-suite.sh
# too, on dockerd.
check_PROGRAMS += tests/docker/test_docker_network
tests_docker_test_docker_network_SOURCES = tests/docker/test_docker_network.c
tests_docker_test_docker_network_CFLAGS = $(SBX_TEST_CFLAGS)
tests_docker_test_docker_network_LDADD = $(SBX_TEST_LIBS)
# Expiry and extend (ABI 1.5): run by docker-suite.sh, on dockerd.
check_PROGRAMS += tests/docker/test_docker_expiry
tests_docker_test_docker_expiry_SOURCES = tests/docker/test_docker_expiry.c
tests_docker_test_docker_expiry_CFLAGS = $(SBX_TEST_CFLAGS)
tests_docker_test_docker_expiry_LDADD = $(SBX_TEST_LIBS)
dist_check_SCRIPTS += tests/docker/docker-suite.sh tests/docker/podman-env.sh \
	tests/docker/dockerd-env.sh tests/docker/suite-podman.sh tests/docker/suite-dockerd.sh \
	tests/docker/reap-engines.sh
EXTRA_DIST += tests/docker/engine-lib.sh
TESTS += tests/docker/suite-podman.sh tests/docker/suite-dockerd.sh

# The docker backend against misbehaving engines (no socket, nobody
# listening, no answer, answers with NULs or invalid UTF-8): no real engine
# needed, so it runs everywhere.
check_PROGRAMS += tests/docker/test_docker_hostile
tests_docker_test_docker_hostile_SOURCES = tests/docker/test_docker_hostile.c
tests_docker_test_docker_hostile_CFLAGS = $(SBX_TEST_CFLAGS)
tests_docker_test_docker_hostile_LDADD = $(SBX_TEST_LIBS)
TESTS += tests/docker/test_docker_hostile

# The docker backend's internals (plugin/docker/libsbx-docker-core.la): the
# streaming container list decoder against the json-c path, and through
# the HTTP client from a fake engine on a unix socket.
check_PROGRAMS += tests/docker/test_docker_list_stream
tests_docker_test_docker_list_stream_SOURCES = tests/docker/test_docker_list_stream.c
tests_docker_test_docker_list_stream_CFLAGS = $(SBX_TEST_CFLAGS)
tests_docker_test_docker_list_stream_LDADD = plugin/docker/libsbx-docker-core.la $(LIBARCHIVE_LIBS) \
	common/libsbx-http.la $(SBX_TEST_LIBS)
TESTS += tests/docker/test_docker_list_stream

# The docker backend's listing decoder (the walk's records in the
# container into a listing): no engine needed.
check_PROGRAMS += tests/docker/test_docker_listing
tests_docker_test_docker_listing_SOURCES = tests/docker/test_docker_listing.c
tests_docker_test_docker_listing_CFLAGS = $(SBX_TEST_CFLAGS)
tests_docker_test_docker_listing_LDADD = plugin/docker/libsbx-docker-core.la $(LIBARCHIVE_LIBS) \
	common/libsbx-http.la $(SBX_TEST_LIBS)
TESTS += tests/docker/test_docker_listing

# The docker backend's reading of its process script's answers: no
# engine needed.
check_PROGRAMS += tests/docker/test_docker_proc_answers
tests_docker_test_docker_proc_answers_SOURCES = tests/docker/test_docker_proc_answers.c
tests_docker_test_docker_proc_answers_CFLAGS = $(SBX_TEST_CFLAGS)
tests_docker_test_docker_proc_answers_LDADD = plugin/docker/libsbx-docker-core.la $(LIBARCHIVE_LIBS) \
	common/libsbx-http.la $(SBX_TEST_LIBS)
TESTS += tests/docker/test_docker_proc_answers

# The process server of the docker helper (sbx-docker-pty serve) run on
# this host: no engine needed.
check_PROGRAMS += tests/docker/test_docker_proc_serve
tests_docker_test_docker_proc_serve_SOURCES = tests/docker/test_docker_proc_serve.c \
	plugin/docker/docker_proc_script.c plugin/docker/docker_proc_script.h
tests_docker_test_docker_proc_serve_CFLAGS = $(SBX_TEST_CFLAGS)
tests_docker_test_docker_proc_serve_LDADD = $(SBX_TEST_LIBS)
TESTS += tests/docker/test_docker_proc_serve
