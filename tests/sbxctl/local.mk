# sbxctl suites: they run the built program ($SBXCTL_BIN) as a child
# process and check what a user would see; the remote suite drives it
# against the provisioner emulator ($EMU_BIN).
check_PROGRAMS += tests/sbxctl/test_sbxctl_cli tests/sbxctl/test_sbxctl_remote \
	tests/sbxctl/test_sbxctl_sandbox_id tests/sbxctl/test_sbxctl_local_docker \
	tests/sbxctl/test_sbxctl_hostile_json
TESTS += tests/sbxctl/test_sbxctl_cli tests/sbxctl/test_sbxctl_remote \
	tests/sbxctl/test_sbxctl_sandbox_id tests/sbxctl/test_sbxctl_local_docker \
	tests/sbxctl/test_sbxctl_hostile_json

# The child-process runner and the shared assertions of these suites.
SBX_SBXCTL_TEST_SUPPORT = \
	tests/sbxctl/run_sbxctl.c tests/sbxctl/run_sbxctl.h \
	tests/sbxctl/sbxctl_checks.c tests/sbxctl/sbxctl_checks.h

# It reads the backends' option tables sbxctl's hints come from to check
# every hint.
tests_sbxctl_test_sbxctl_cli_SOURCES = tests/sbxctl/test_sbxctl_cli.c $(SBX_SBXCTL_TEST_SUPPORT) \
	tools/sbxctl/option_hints.c tools/sbxctl/option_hints.h
tests_sbxctl_test_sbxctl_cli_CFLAGS = $(SBX_TEST_CFLAGS)
tests_sbxctl_test_sbxctl_cli_LDADD = plugin/remote/libsbx-remote-core.la \
	plugin/docker/libsbx-docker-core.la common/libsbx-common.la $(SBX_TEST_LIBS)
# The programs under test must be built before the suites run.
EXTRA_tests_sbxctl_test_sbxctl_cli_DEPENDENCIES = tools/sbxctl/sbxctl$(EXEEXT) \
	plugin/docker/sbx-docker.la

tests_sbxctl_test_sbxctl_remote_SOURCES = tests/sbxctl/test_sbxctl_remote.c \
	$(SBX_SBXCTL_TEST_SUPPORT)
tests_sbxctl_test_sbxctl_remote_CFLAGS = $(SBX_TEST_CFLAGS)
tests_sbxctl_test_sbxctl_remote_LDADD = $(SBX_TEST_LIBS)
EXTRA_tests_sbxctl_test_sbxctl_remote_DEPENDENCIES = tools/sbxctl/sbxctl$(EXEEXT) \
	tools/provisioner-emu/sbx-provisioner-emu$(EXEEXT)

# --json over generated hostile arguments (local) and answers (emulator).
tests_sbxctl_test_sbxctl_hostile_json_SOURCES = tests/sbxctl/test_sbxctl_hostile_json.c \
	$(SBX_SBXCTL_TEST_SUPPORT)
tests_sbxctl_test_sbxctl_hostile_json_CFLAGS = $(SBX_TEST_CFLAGS)
tests_sbxctl_test_sbxctl_hostile_json_LDADD = $(SBX_TEST_LIBS)
EXTRA_tests_sbxctl_test_sbxctl_hostile_json_DEPENDENCIES = tools/sbxctl/sbxctl$(EXEEXT) \
	tools/provisioner-emu/sbx-provisioner-emu$(EXEEXT) plugin/remote/sbx-remote.la

# End to end with the backends of this machine.  As a TESTS entry it runs
# the local half (the docker half only when SBX_DOCKER_SOCKET is set);
# tests/docker/docker-suite.sh runs the docker half while its engine is up.
tests_sbxctl_test_sbxctl_local_docker_SOURCES = tests/sbxctl/test_sbxctl_local_docker.c \
	$(SBX_SBXCTL_TEST_SUPPORT)
tests_sbxctl_test_sbxctl_local_docker_CFLAGS = $(SBX_TEST_CFLAGS)
tests_sbxctl_test_sbxctl_local_docker_LDADD = $(SBX_TEST_LIBS)
EXTRA_tests_sbxctl_test_sbxctl_local_docker_DEPENDENCIES = tools/sbxctl/sbxctl$(EXEEXT) \
	plugin/docker/sbx-docker.la

# exec, cp and ls on the local backend, as a script sees them.
check_PROGRAMS += tests/sbxctl/test_sbxctl_operations
TESTS += tests/sbxctl/test_sbxctl_operations
tests_sbxctl_test_sbxctl_operations_SOURCES = tests/sbxctl/test_sbxctl_operations.c \
	$(SBX_SBXCTL_TEST_SUPPORT)
tests_sbxctl_test_sbxctl_operations_CFLAGS = $(SBX_TEST_CFLAGS)
tests_sbxctl_test_sbxctl_operations_LDADD = $(SBX_TEST_LIBS)
EXTRA_tests_sbxctl_test_sbxctl_operations_DEPENDENCIES = tools/sbxctl/sbxctl$(EXEEXT)

# The sandbox id derivation, checked against independently computed values.
tests_sbxctl_test_sbxctl_sandbox_id_SOURCES = tests/sbxctl/test_sbxctl_sandbox_id.c \
	tools/sbxctl/sandbox_id.c tools/sbxctl/sandbox_id.h
tests_sbxctl_test_sbxctl_sandbox_id_CFLAGS = $(SBX_TEST_CFLAGS)
tests_sbxctl_test_sbxctl_sandbox_id_LDADD = $(SBX_TEST_LIBS)

# The README's first command installs the dependencies as root (no sudo on a
# fresh image) and as any other user (through sudo).
TESTS += tests/sbxctl/check-readme-install.sh
dist_check_SCRIPTS += tests/sbxctl/check-readme-install.sh

# acquire, manage and leases over the local backend, sqlite and redis.
check_PROGRAMS += tests/sbxctl/test_sbxctl_manager tests/manager/sqlite_locker
TESTS += tests/sbxctl/test_sbxctl_manager
tests_sbxctl_test_sbxctl_manager_SOURCES = tests/sbxctl/test_sbxctl_manager.c \
	tests/manager/redis_server.c tests/manager/redis_server.h $(SBX_SBXCTL_TEST_SUPPORT)
tests_sbxctl_test_sbxctl_manager_CFLAGS = $(SBX_TEST_CFLAGS) $(HIREDIS_CFLAGS)
tests_sbxctl_test_sbxctl_manager_LDADD = $(SBX_TEST_LIBS) $(HIREDIS_LIBS)
EXTRA_tests_sbxctl_test_sbxctl_manager_DEPENDENCIES = tools/sbxctl/sbxctl$(EXEEXT) \
	tests/manager/sqlite_locker$(EXEEXT)
tests_manager_sqlite_locker_SOURCES = tests/manager/sqlite_locker.c
tests_manager_sqlite_locker_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
tests_manager_sqlite_locker_LDADD = $(SQLITE_LIBS)

# Live processes (exec streaming, -i/-t/-d, ps, logs, kill, attach, shell)
# on the local backend; -t through a terminal the suite opens (openpty).
check_PROGRAMS += tests/sbxctl/test_sbxctl_processes
TESTS += tests/sbxctl/test_sbxctl_processes
tests_sbxctl_test_sbxctl_processes_SOURCES = tests/sbxctl/test_sbxctl_processes.c \
	$(SBX_SBXCTL_TEST_SUPPORT)
tests_sbxctl_test_sbxctl_processes_CFLAGS = $(SBX_TEST_CFLAGS)
tests_sbxctl_test_sbxctl_processes_LDADD = $(SBX_TEST_LIBS) -lutil
EXTRA_tests_sbxctl_test_sbxctl_processes_DEPENDENCIES = tools/sbxctl/sbxctl$(EXEEXT)

# The example host of live processes (examples/dev_server.c), run as a user
# would over the local backend.
TESTS += tests/sbxctl/check-example-dev-server.sh
dist_check_SCRIPTS += tests/sbxctl/check-example-dev-server.sh

# The create request options of ABI 1.5 and list --label, on local
# (--network against a listener on 127.0.0.1, --disk where local can make
# one: tests/support/local_disk_probe says so).
check_PROGRAMS += tests/sbxctl/test_sbxctl_spec
TESTS += tests/sbxctl/test_sbxctl_spec
tests_sbxctl_test_sbxctl_spec_SOURCES = tests/sbxctl/test_sbxctl_spec.c $(SBX_SBXCTL_TEST_SUPPORT)
tests_sbxctl_test_sbxctl_spec_CFLAGS = $(SBX_TEST_CFLAGS)
tests_sbxctl_test_sbxctl_spec_LDADD = $(SBX_TEST_LIBS)
EXTRA_tests_sbxctl_test_sbxctl_spec_DEPENDENCIES = tools/sbxctl/sbxctl$(EXEEXT)

# create/acquire --expire-in and extend, on local.
check_PROGRAMS += tests/sbxctl/test_sbxctl_expiry
TESTS += tests/sbxctl/test_sbxctl_expiry
tests_sbxctl_test_sbxctl_expiry_SOURCES = tests/sbxctl/test_sbxctl_expiry.c \
	$(SBX_SBXCTL_TEST_SUPPORT)
tests_sbxctl_test_sbxctl_expiry_CFLAGS = $(SBX_TEST_CFLAGS)
tests_sbxctl_test_sbxctl_expiry_LDADD = $(SBX_TEST_LIBS)
EXTRA_tests_sbxctl_test_sbxctl_expiry_DEPENDENCIES = tools/sbxctl/sbxctl$(EXEEXT)
