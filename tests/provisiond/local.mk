# sbx-provisiond as a real process on 127.0.0.1 (tests/provisiond/
# provd_process.*): the bad-request table and every route over the local
# backend, connection floods, deadlines and the bounded drain (raw sockets
# from 127.0.0.0/8), client threads through the remote backend, TLS with the remote
# backend's ca_file, the remote backend's seed suites run a second time
# against the daemon (the tests/remote fixture's daemon switch), and the
# sbxctl remote flow over the docker backend on a private podman engine;
# the start (odd state files, signals while starting, FIFO TLS files, the
# contract served from the backend's capabilities, fixture modules too) and
# the per-id locks (a stalled create delays no other id); the sandbox API
# (remote -> daemon -> local exec and files, capability tokens, a few
# hundred sandboxes' tokens through the index and a restart; 20 clients
# in 5 sandboxes at once, clients gone mid-exec; what one tenant can take:
# threads, time, memory); no capability token in any message (near misses
# with --verbose, the drain, the remote backend facing an unreachable
# sandbox API); the keys' file and environment forms; a sandbox's memory,
# pids and CPU limits as a host of the remote backend meets them; the AIO
# bash sessions kept in --state-dir across a killed daemon's restart.
SBX_PROVD_TEST_SUPPORT = tests/provisiond/provd_process.c tests/provisiond/provd_process.h
SBX_PROVD_SUITES = \
	tests/provisiond/test_provisiond_requests \
	tests/provisiond/test_provisiond_connections \
	tests/provisiond/test_provisiond_threads \
	tests/provisiond/test_provisiond_tls \
	tests/provisiond/test_provisiond_startup \
	tests/provisiond/test_provisiond_id_locks \
	tests/provisiond/test_provisiond_sandbox_api \
	tests/provisiond/test_provisiond_token_index \
	tests/provisiond/test_provisiond_sandbox_load \
	tests/provisiond/test_provisiond_sandbox_limits \
	tests/provisiond/test_provisiond_redaction \
	tests/provisiond/test_provisiond_key_forms \
	tests/provisiond/test_provisiond_create_spec \
	tests/provisiond/test_provisiond_resource_limits \
	tests/provisiond/test_provisiond_disk \
	tests/provisiond/test_provisiond_bash_sessions
check_PROGRAMS += $(SBX_PROVD_SUITES)
TESTS += $(SBX_PROVD_SUITES)

tests_provisiond_test_provisiond_requests_SOURCES = tests/provisiond/test_provisiond_requests.c \
	$(SBX_PROVD_TEST_SUPPORT)
tests_provisiond_test_provisiond_requests_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_provisiond_test_provisiond_requests_LDADD = common/libsbx-common.la $(SBX_TEST_LIBS) -lpthread
EXTRA_tests_provisiond_test_provisiond_requests_DEPENDENCIES = \
	tools/provisiond/sbx-provisiond$(EXEEXT) plugin/docker/sbx-docker.la

tests_provisiond_test_provisiond_connections_SOURCES = \
	tests/provisiond/test_provisiond_connections.c $(SBX_PROVD_TEST_SUPPORT)
tests_provisiond_test_provisiond_connections_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_provisiond_test_provisiond_connections_LDADD = $(SBX_TEST_LIBS) -lpthread
EXTRA_tests_provisiond_test_provisiond_connections_DEPENDENCIES = \
	tools/provisiond/sbx-provisiond$(EXEEXT)

tests_provisiond_test_provisiond_threads_SOURCES = tests/provisiond/test_provisiond_threads.c \
	$(SBX_PROVD_TEST_SUPPORT)
tests_provisiond_test_provisiond_threads_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_provisiond_test_provisiond_threads_LDADD = $(SBX_TEST_LIBS) -lpthread
EXTRA_tests_provisiond_test_provisiond_threads_DEPENDENCIES = \
	tools/provisiond/sbx-provisiond$(EXEEXT) plugin/remote/sbx-remote.la

tests_provisiond_test_provisiond_tls_SOURCES = tests/provisiond/test_provisiond_tls.c \
	tests/remote/tls_certs.c tests/remote/tls_certs.h $(SBX_PROVD_TEST_SUPPORT)
tests_provisiond_test_provisiond_tls_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_provisiond_test_provisiond_tls_LDADD = $(SBX_TEST_LIBS) -lpthread
EXTRA_tests_provisiond_test_provisiond_tls_DEPENDENCIES = \
	tools/provisiond/sbx-provisiond$(EXEEXT) plugin/remote/sbx-remote.la

tests_provisiond_test_provisiond_startup_SOURCES = tests/provisiond/test_provisiond_startup.c \
	$(SBX_PROVD_TEST_SUPPORT)
tests_provisiond_test_provisiond_startup_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_provisiond_test_provisiond_startup_LDADD = $(SBX_TEST_LIBS) -lpthread
EXTRA_tests_provisiond_test_provisiond_startup_DEPENDENCIES = \
	tools/provisiond/sbx-provisiond$(EXEEXT) plugin/remote/sbx-remote.la \
	tests/host/fixtures/fixture-good.la tests/host/fixtures/fixture-older-minor.la

tests_provisiond_test_provisiond_id_locks_SOURCES = tests/provisiond/test_provisiond_id_locks.c \
	$(SBX_PROVD_TEST_SUPPORT)
tests_provisiond_test_provisiond_id_locks_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_provisiond_test_provisiond_id_locks_LDADD = $(SBX_TEST_LIBS) -lpthread
EXTRA_tests_provisiond_test_provisiond_id_locks_DEPENDENCIES = \
	tools/provisiond/sbx-provisiond$(EXEEXT)

tests_provisiond_test_provisiond_sandbox_api_SOURCES = \
	tests/provisiond/test_provisiond_sandbox_api.c $(SBX_PROVD_TEST_SUPPORT)
tests_provisiond_test_provisiond_sandbox_api_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_provisiond_test_provisiond_sandbox_api_LDADD = $(SBX_TEST_LIBS) -lpthread
EXTRA_tests_provisiond_test_provisiond_sandbox_api_DEPENDENCIES = \
	tools/provisiond/sbx-provisiond$(EXEEXT) plugin/remote/sbx-remote.la

tests_provisiond_test_provisiond_token_index_SOURCES = \
	tests/provisiond/test_provisiond_token_index.c $(SBX_PROVD_TEST_SUPPORT)
tests_provisiond_test_provisiond_token_index_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_provisiond_test_provisiond_token_index_LDADD = $(SBX_TEST_LIBS) -lpthread
EXTRA_tests_provisiond_test_provisiond_token_index_DEPENDENCIES = \
	tools/provisiond/sbx-provisiond$(EXEEXT)

tests_provisiond_test_provisiond_sandbox_load_SOURCES = \
	tests/provisiond/test_provisiond_sandbox_load.c $(SBX_PROVD_TEST_SUPPORT)
tests_provisiond_test_provisiond_sandbox_load_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_provisiond_test_provisiond_sandbox_load_LDADD = $(SBX_TEST_LIBS) -lpthread
EXTRA_tests_provisiond_test_provisiond_sandbox_load_DEPENDENCIES = \
	tools/provisiond/sbx-provisiond$(EXEEXT) plugin/remote/sbx-remote.la

tests_provisiond_test_provisiond_sandbox_limits_SOURCES = \
	tests/provisiond/test_provisiond_sandbox_limits.c $(SBX_PROVD_TEST_SUPPORT)
tests_provisiond_test_provisiond_sandbox_limits_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_provisiond_test_provisiond_sandbox_limits_LDADD = $(SBX_TEST_LIBS) -lpthread
EXTRA_tests_provisiond_test_provisiond_sandbox_limits_DEPENDENCIES = \
	tools/provisiond/sbx-provisiond$(EXEEXT)

# Short file calls answered on the HTTP worker (--worker-file-bytes): the
# share holds for them, larger ones go whole to the pool, /health answers
# beside a flood of them.
SBX_PROVD_SUITES_WORKER_FILES = tests/provisiond/test_provisiond_worker_files
check_PROGRAMS += $(SBX_PROVD_SUITES_WORKER_FILES)
TESTS += $(SBX_PROVD_SUITES_WORKER_FILES)
tests_provisiond_test_provisiond_worker_files_SOURCES = \
	tests/provisiond/test_provisiond_worker_files.c $(SBX_PROVD_TEST_SUPPORT)
tests_provisiond_test_provisiond_worker_files_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_provisiond_test_provisiond_worker_files_LDADD = $(SBX_TEST_LIBS) -lpthread
EXTRA_tests_provisiond_test_provisiond_worker_files_DEPENDENCIES = \
	tools/provisiond/sbx-provisiond$(EXEEXT)

# The remote backend's operations through the daemon over docker, a plain
# image's containers (docs/provisiond.md): run by tests/docker/docker-suite.sh
# against each private engine, not on its own.
check_PROGRAMS += tests/provisiond/test_provisiond_docker_ops
tests_provisiond_test_provisiond_docker_ops_SOURCES = \
	tests/provisiond/test_provisiond_docker_ops.c $(SBX_PROVD_TEST_SUPPORT)
tests_provisiond_test_provisiond_docker_ops_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_provisiond_test_provisiond_docker_ops_LDADD = $(SBX_TEST_LIBS) -lpthread
EXTRA_tests_provisiond_test_provisiond_docker_ops_DEPENDENCIES = \
	tools/provisiond/sbx-provisiond$(EXEEXT) plugin/remote/sbx-remote.la \
	plugin/docker/sbx-docker.la

# The seed suites again, against the daemon (needs the seed programs).
dist_check_SCRIPTS += tests/provisiond/test_seed_on_provisiond.sh
TESTS += tests/provisiond/test_seed_on_provisiond.sh

# sbxctl -> remote -> sbx-provisiond -> docker on a private podman engine
# (root; SKIP with the reason otherwise).
dist_check_SCRIPTS += tests/provisiond/test_provisiond_docker.sh
TESTS += tests/provisiond/test_provisiond_docker.sh

tests_provisiond_test_provisiond_redaction_SOURCES = \
	tests/provisiond/test_provisiond_redaction.c $(SBX_PROVD_TEST_SUPPORT)
tests_provisiond_test_provisiond_redaction_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_provisiond_test_provisiond_redaction_LDADD = $(SBX_TEST_LIBS) -lpthread
EXTRA_tests_provisiond_test_provisiond_redaction_DEPENDENCIES = \
	tools/provisiond/sbx-provisiond$(EXEEXT) plugin/remote/sbx-remote.la

tests_provisiond_test_provisiond_key_forms_SOURCES = \
	tests/provisiond/test_provisiond_key_forms.c $(SBX_PROVD_TEST_SUPPORT)
tests_provisiond_test_provisiond_key_forms_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_provisiond_test_provisiond_key_forms_LDADD = $(SBX_TEST_LIBS) -lpthread
EXTRA_tests_provisiond_test_provisiond_key_forms_DEPENDENCIES = \
	tools/provisiond/sbx-provisiond$(EXEEXT)

# The remote backend's file calls through the daemon, one request each
# (a plain write without its check exec, discover's answer kept).
SBX_PROVD_SUITES_FILE_CALLS = tests/provisiond/test_provisiond_file_calls
check_PROGRAMS += $(SBX_PROVD_SUITES_FILE_CALLS)
TESTS += $(SBX_PROVD_SUITES_FILE_CALLS)
tests_provisiond_test_provisiond_file_calls_SOURCES = \
	tests/provisiond/test_provisiond_file_calls.c $(SBX_PROVD_TEST_SUPPORT)
tests_provisiond_test_provisiond_file_calls_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_provisiond_test_provisiond_file_calls_LDADD = $(SBX_TEST_LIBS) -lpthread
EXTRA_tests_provisiond_test_provisiond_file_calls_DEPENDENCIES = \
	tools/provisiond/sbx-provisiond$(EXEEXT) plugin/remote/sbx-remote.la
tests_provisiond_test_provisiond_create_spec_SOURCES = \
	tests/provisiond/test_provisiond_create_spec.c $(SBX_PROVD_TEST_SUPPORT)
tests_provisiond_test_provisiond_create_spec_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_provisiond_test_provisiond_create_spec_LDADD = $(SBX_TEST_LIBS) -lpthread
EXTRA_tests_provisiond_test_provisiond_create_spec_DEPENDENCIES = \
	tools/provisiond/sbx-provisiond$(EXEEXT) plugin/remote/sbx-remote.la \
	tools/provisioner-emu/sbx-provisioner-emu$(EXEEXT)

tests_provisiond_test_provisiond_resource_limits_SOURCES = \
	tests/provisiond/test_provisiond_resource_limits.c $(SBX_PROVD_TEST_SUPPORT)
tests_provisiond_test_provisiond_resource_limits_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_provisiond_test_provisiond_resource_limits_LDADD = $(SBX_TEST_LIBS) -lpthread
EXTRA_tests_provisiond_test_provisiond_resource_limits_DEPENDENCIES = \
	tools/provisiond/sbx-provisiond$(EXEEXT) plugin/remote/sbx-remote.la

# A create's disk_bytes through remote -> daemon -> local (df inside; root
# with loop devices, else skipped saying why), refused by a daemon whose
# backend cannot bound disk (remote chained to the emulator).
tests_provisiond_test_provisiond_disk_SOURCES = \
	tests/provisiond/test_provisiond_disk.c $(SBX_PROVD_TEST_SUPPORT)
tests_provisiond_test_provisiond_disk_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_provisiond_test_provisiond_disk_LDADD = $(SBX_TEST_LIBS) -lpthread
EXTRA_tests_provisiond_test_provisiond_disk_DEPENDENCIES = \
	tools/provisiond/sbx-provisiond$(EXEEXT) plugin/remote/sbx-remote.la \
	tools/provisioner-emu/sbx-provisioner-emu$(EXEEXT)

tests_provisiond_test_provisiond_bash_sessions_SOURCES = \
	tests/provisiond/test_provisiond_bash_sessions.c $(SBX_PROVD_TEST_SUPPORT)
tests_provisiond_test_provisiond_bash_sessions_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_provisiond_test_provisiond_bash_sessions_LDADD = $(SBX_TEST_LIBS) -lpthread
EXTRA_tests_provisiond_test_provisiond_bash_sessions_DEPENDENCIES = \
	tools/provisiond/sbx-provisiond$(EXEEXT)

# The AIO file search routes of sbx-provisiond over docker on a private
# dockerd, busybox's tools in the container (root; SKIP with the reason
# otherwise).
dist_check_SCRIPTS += tests/provisiond/test_provisiond_docker_search.sh
EXTRA_DIST += tests/provisiond/provd-docker-lib.sh
TESTS += tests/provisiond/test_provisiond_docker_search.sh
