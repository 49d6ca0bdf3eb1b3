# The remote backend over real HTTP against the provisioner emulator, through
# the public host API: the seed test file ported case by case
# (tests/remote/SEED_MAP.md), fault cases, many threads on one instance,
# TLS verification against an https emulator (certificates made at test time
# by the openssl CLI: tls_certs.*), and hostile input (test_remote_hostile,
# also through sbxctl with the sbxctl suites' runner and checks).
# Every suite shares the fixture (remote_fixture.*) and the thread helpers
# (remote_threads.*); test_remote_processes runs the ABI 1.4 process calls
# over the emulator's AIO bash routes; the fixture can serve the seed suites with
# sbx-provisiond instead of the emulator (SBX_RT_PROVISIOND, run by
# tests/provisiond/test_seed_on_provisiond.sh), started with the daemon's
# test support.
SBX_REMOTE_TEST_SUPPORT = \
	tests/remote/remote_fixture.c tests/remote/remote_fixture.h \
	tests/remote/remote_threads.c tests/remote/remote_threads.h \
	tests/provisiond/provd_process.c tests/provisiond/provd_process.h
SBX_REMOTE_SUITES = \
	tests/remote/test_seed_list \
	tests/remote/test_seed_create \
	tests/remote/test_seed_contract \
	tests/remote/test_seed_lifecycle \
	tests/remote/test_seed_reconcile \
	tests/remote/test_remote_faults \
	tests/remote/test_remote_concurrency \
	tests/remote/test_remote_tls \
	tests/remote/test_remote_hostile \
	tests/remote/test_remote_ops \
	tests/remote/test_remote_processes \
	tests/remote/test_remote_sessions
check_PROGRAMS += $(SBX_REMOTE_SUITES)
TESTS += $(SBX_REMOTE_SUITES)
EXTRA_DIST += tests/remote/SEED_MAP.md

SBX_REMOTE_TEST_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
SBX_REMOTE_TEST_LDADD = $(SBX_TEST_LIBS) -lpthread

tests_remote_test_seed_list_SOURCES = tests/remote/test_seed_list.c $(SBX_REMOTE_TEST_SUPPORT)
tests_remote_test_seed_list_CFLAGS = $(SBX_REMOTE_TEST_CFLAGS)
tests_remote_test_seed_list_LDADD = $(SBX_REMOTE_TEST_LDADD)

tests_remote_test_seed_create_SOURCES = tests/remote/test_seed_create.c $(SBX_REMOTE_TEST_SUPPORT)
tests_remote_test_seed_create_CFLAGS = $(SBX_REMOTE_TEST_CFLAGS)
tests_remote_test_seed_create_LDADD = $(SBX_REMOTE_TEST_LDADD)

tests_remote_test_seed_contract_SOURCES = tests/remote/test_seed_contract.c $(SBX_REMOTE_TEST_SUPPORT)
tests_remote_test_seed_contract_CFLAGS = $(SBX_REMOTE_TEST_CFLAGS)
tests_remote_test_seed_contract_LDADD = $(SBX_REMOTE_TEST_LDADD)

tests_remote_test_seed_lifecycle_SOURCES = tests/remote/test_seed_lifecycle.c $(SBX_REMOTE_TEST_SUPPORT)
tests_remote_test_seed_lifecycle_CFLAGS = $(SBX_REMOTE_TEST_CFLAGS)
tests_remote_test_seed_lifecycle_LDADD = $(SBX_REMOTE_TEST_LDADD)

tests_remote_test_seed_reconcile_SOURCES = tests/remote/test_seed_reconcile.c $(SBX_REMOTE_TEST_SUPPORT)
tests_remote_test_seed_reconcile_CFLAGS = $(SBX_REMOTE_TEST_CFLAGS)
tests_remote_test_seed_reconcile_LDADD = $(SBX_REMOTE_TEST_LDADD)

tests_remote_test_remote_faults_SOURCES = tests/remote/test_remote_faults.c $(SBX_REMOTE_TEST_SUPPORT)
tests_remote_test_remote_faults_CFLAGS = $(SBX_REMOTE_TEST_CFLAGS)
tests_remote_test_remote_faults_LDADD = $(SBX_REMOTE_TEST_LDADD)

tests_remote_test_remote_concurrency_SOURCES = tests/remote/test_remote_concurrency.c $(SBX_REMOTE_TEST_SUPPORT)
tests_remote_test_remote_concurrency_CFLAGS = $(SBX_REMOTE_TEST_CFLAGS)
tests_remote_test_remote_concurrency_LDADD = $(SBX_REMOTE_TEST_LDADD)

tests_remote_test_remote_tls_SOURCES = tests/remote/test_remote_tls.c \
	tests/remote/tls_certs.c tests/remote/tls_certs.h $(SBX_REMOTE_TEST_SUPPORT)
tests_remote_test_remote_tls_CFLAGS = $(SBX_REMOTE_TEST_CFLAGS)
tests_remote_test_remote_tls_LDADD = $(SBX_REMOTE_TEST_LDADD)

tests_remote_test_remote_hostile_SOURCES = tests/remote/test_remote_hostile.c \
	$(SBX_REMOTE_TEST_SUPPORT) $(SBX_SBXCTL_TEST_SUPPORT)
tests_remote_test_remote_hostile_CFLAGS = $(SBX_REMOTE_TEST_CFLAGS)
tests_remote_test_remote_hostile_LDADD = $(SBX_REMOTE_TEST_LDADD)
EXTRA_tests_remote_test_remote_hostile_DEPENDENCIES = tools/sbxctl/sbxctl$(EXEEXT) \
	tools/provisioner-emu/sbx-provisioner-emu$(EXEEXT)

tests_remote_test_remote_ops_SOURCES = tests/remote/test_remote_ops.c $(SBX_REMOTE_TEST_SUPPORT)
tests_remote_test_remote_ops_CFLAGS = $(SBX_REMOTE_TEST_CFLAGS)
tests_remote_test_remote_ops_LDADD = $(SBX_REMOTE_TEST_LDADD)

tests_remote_test_remote_processes_SOURCES = tests/remote/test_remote_processes.c \
	$(SBX_REMOTE_TEST_SUPPORT)
tests_remote_test_remote_processes_CFLAGS = $(SBX_REMOTE_TEST_CFLAGS)
tests_remote_test_remote_processes_LDADD = $(SBX_REMOTE_TEST_LDADD)

# The host library's session cases (tests/host/session_cases.*) on the
# remote backend over the emulator's AIO bash routes.
tests_remote_test_remote_sessions_SOURCES = tests/remote/test_remote_sessions.c \
	$(SBX_SESSION_CASES_SOURCES) $(SBX_REMOTE_TEST_SUPPORT)
tests_remote_test_remote_sessions_CFLAGS = $(SBX_REMOTE_TEST_CFLAGS)
tests_remote_test_remote_sessions_LDADD = $(SBX_REMOTE_TEST_LDADD)
