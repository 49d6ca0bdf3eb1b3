# The in-process "local" backend through the host library: its behaviour,
# what it does with hostile state directories, mounts, kills and
# commands, its sandbox operations (exec and files), its live processes
# (test_local_processes) and isolation=namespaces
# (test_local_root_host: on a host running as root; skipped otherwise).
check_PROGRAMS += tests/local-backend/test_local_backend tests/local-backend/test_local_hostile \
	tests/local-backend/test_local_operations tests/local-backend/test_local_isolation \
	tests/local-backend/test_local_root_host tests/local-backend/test_local_trees \
	tests/local-backend/test_local_tmp tests/local-backend/test_local_processes \
	tests/local-backend/test_local_limits
TESTS += tests/local-backend/test_local_backend tests/local-backend/test_local_hostile \
	tests/local-backend/test_local_operations tests/local-backend/test_local_isolation \
	tests/local-backend/test_local_root_host tests/local-backend/test_local_trees \
	tests/local-backend/test_local_tmp tests/local-backend/test_local_processes \
	tests/local-backend/test_local_limits
tests_local_backend_test_local_backend_SOURCES = tests/local-backend/test_local_backend.c \
	tests/local-backend/local_fixture.c tests/local-backend/local_fixture.h
tests_local_backend_test_local_backend_CFLAGS = $(SBX_TEST_CFLAGS)
tests_local_backend_test_local_backend_LDADD = $(SBX_TEST_LIBS)
tests_local_backend_test_local_hostile_SOURCES = tests/local-backend/test_local_hostile.c \
	tests/local-backend/local_fixture.c tests/local-backend/local_fixture.h \
	tests/local-backend/local_wait.c tests/local-backend/local_wait.h
tests_local_backend_test_local_hostile_CFLAGS = $(SBX_TEST_CFLAGS)
tests_local_backend_test_local_hostile_LDADD = $(SBX_TEST_LIBS)
tests_local_backend_test_local_operations_SOURCES = tests/local-backend/test_local_operations.c \
	tests/local-backend/local_fixture.c tests/local-backend/local_fixture.h \
	tests/local-backend/local_wait.c tests/local-backend/local_wait.h
tests_local_backend_test_local_operations_CFLAGS = $(SBX_TEST_CFLAGS)
tests_local_backend_test_local_operations_LDADD = $(SBX_TEST_LIBS)
tests_local_backend_test_local_isolation_SOURCES = tests/local-backend/test_local_isolation.c \
	tests/local-backend/local_fixture.c tests/local-backend/local_fixture.h \
	tests/local-backend/local_wait.c tests/local-backend/local_wait.h
tests_local_backend_test_local_isolation_CFLAGS = $(SBX_TEST_CFLAGS)
tests_local_backend_test_local_isolation_LDADD = $(SBX_TEST_LIBS)
tests_local_backend_test_local_root_host_SOURCES = tests/local-backend/test_local_root_host.c \
	tests/local-backend/local_fixture.c tests/local-backend/local_fixture.h \
	tests/local-backend/local_wait.c tests/local-backend/local_wait.h
tests_local_backend_test_local_root_host_CFLAGS = $(SBX_TEST_CFLAGS)
tests_local_backend_test_local_root_host_LDADD = $(SBX_TEST_LIBS)
tests_local_backend_test_local_trees_SOURCES = tests/local-backend/test_local_trees.c \
	tests/local-backend/local_fixture.c tests/local-backend/local_fixture.h \
	tests/local-backend/local_unprivileged.c tests/local-backend/local_unprivileged.h
tests_local_backend_test_local_trees_CFLAGS = $(SBX_TEST_CFLAGS)
tests_local_backend_test_local_trees_LDADD = $(SBX_TEST_LIBS)
tests_local_backend_test_local_tmp_SOURCES = tests/local-backend/test_local_tmp.c \
	tests/local-backend/local_fixture.c tests/local-backend/local_fixture.h \
	tests/local-backend/local_unprivileged.c tests/local-backend/local_unprivileged.h
tests_local_backend_test_local_tmp_CFLAGS = $(SBX_TEST_CFLAGS)
tests_local_backend_test_local_tmp_LDADD = $(SBX_TEST_LIBS)
tests_local_backend_test_local_processes_SOURCES = tests/local-backend/test_local_processes.c \
	tests/local-backend/local_fixture.c tests/local-backend/local_fixture.h \
	tests/backend-contract/process_calls.c tests/backend-contract/process_calls.h
tests_local_backend_test_local_processes_CFLAGS = $(SBX_TEST_CFLAGS)
tests_local_backend_test_local_processes_LDADD = $(SBX_TEST_LIBS)
tests_local_backend_test_local_limits_SOURCES = tests/local-backend/test_local_limits.c \
	tests/local-backend/local_fixture.c tests/local-backend/local_fixture.h
tests_local_backend_test_local_limits_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_local_backend_test_local_limits_LDADD = $(SBX_TEST_LIBS) -lpthread

# Expiry (ABI 1.5's expires_at and extend) on local.
check_PROGRAMS += tests/local-backend/test_local_expiry
TESTS += tests/local-backend/test_local_expiry
tests_local_backend_test_local_expiry_SOURCES = tests/local-backend/test_local_expiry.c \
	tests/local-backend/local_fixture.c tests/local-backend/local_fixture.h
tests_local_backend_test_local_expiry_CFLAGS = $(SBX_TEST_CFLAGS)
tests_local_backend_test_local_expiry_LDADD = $(SBX_TEST_LIBS)

# Disk limits (ABI 1.5's disk_bytes and the option disk_reserve_bytes) on
# local: as root with loop devices and mkfs.ext4; skipped otherwise.
check_PROGRAMS += tests/local-backend/test_local_disk
TESTS += tests/local-backend/test_local_disk
tests_local_backend_test_local_disk_SOURCES = tests/local-backend/test_local_disk.c \
	tests/local-backend/local_fixture.c tests/local-backend/local_fixture.h \
	tests/local-backend/local_unprivileged.c tests/local-backend/local_unprivileged.h
tests_local_backend_test_local_disk_CFLAGS = $(SBX_TEST_CFLAGS)
tests_local_backend_test_local_disk_LDADD = $(SBX_TEST_LIBS)

# The create request's network per sandbox on local (ABI 1.5).
check_PROGRAMS += tests/local-backend/test_local_network
TESTS += tests/local-backend/test_local_network
tests_local_backend_test_local_network_SOURCES = tests/local-backend/test_local_network.c \
	tests/local-backend/local_fixture.c tests/local-backend/local_fixture.h \
	tests/backend-contract/process_calls.c tests/backend-contract/process_calls.h
tests_local_backend_test_local_network_CFLAGS = $(SBX_TEST_CFLAGS)
tests_local_backend_test_local_network_LDADD = $(SBX_TEST_LIBS)
