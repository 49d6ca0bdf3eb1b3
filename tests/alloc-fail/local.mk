# Allocation-failure injection (tests/alloc-fail/fail_alloc.h): the remote
# backend's operations with the 1st, 2nd, ... allocation of sbx code
# failing, against the emulator; the record operations of the host's
# adapters (1.0 and 1.1 fixture modules) and of the local backend; and sbx-provisiond's requests with the
# 1st, 2nd, ... allocation failing on any of its threads, through a test
# build of the daemon armed over a control channel (fail_alloc_control.c).
# Not in sanitizer builds: ASan brings its own allocator, which the
# injecting one would bypass (there the daemon's suite says so and skips).
if !SANITIZERS
check_PROGRAMS += tests/alloc-fail/test_alloc_failures tests/alloc-fail/sbx-provisiond-failalloc \
	tests/alloc-fail/test_records_oom
TESTS += tests/alloc-fail/test_alloc_failures tests/alloc-fail/test_records_oom
endif
tests_alloc_fail_test_alloc_failures_SOURCES = tests/alloc-fail/test_alloc_failures.c \
	tests/alloc-fail/fail_alloc.c tests/alloc-fail/fail_alloc.h
tests_alloc_fail_test_alloc_failures_CFLAGS = $(SBX_TEST_CFLAGS)
tests_alloc_fail_test_alloc_failures_LDADD = $(SBX_TEST_LIBS)

tests_alloc_fail_test_records_oom_SOURCES = tests/alloc-fail/test_records_oom.c \
	tests/alloc-fail/fail_alloc.c tests/alloc-fail/fail_alloc.h \
	tests/local-backend/local_fixture.c tests/local-backend/local_fixture.h
tests_alloc_fail_test_records_oom_CFLAGS = $(SBX_TEST_CFLAGS)
tests_alloc_fail_test_records_oom_LDADD = $(SBX_TEST_LIBS)

# The docker backend's create and create_record against a private engine:
# run by tests/docker/docker-suite.sh, which starts one (SKIP without it).
if !SANITIZERS
check_PROGRAMS += tests/alloc-fail/test_docker_oom
endif
tests_alloc_fail_test_docker_oom_SOURCES = tests/alloc-fail/test_docker_oom.c \
	tests/alloc-fail/fail_alloc.c tests/alloc-fail/fail_alloc.h
tests_alloc_fail_test_docker_oom_CFLAGS = $(SBX_TEST_CFLAGS)
tests_alloc_fail_test_docker_oom_LDADD = $(SBX_TEST_LIBS)

tests_alloc_fail_sbx_provisiond_failalloc_SOURCES = $(tools_provisiond_sbx_provisiond_SOURCES) \
	tests/alloc-fail/fail_alloc.c tests/alloc-fail/fail_alloc.h \
	tests/alloc-fail/fail_alloc_control.c tests/alloc-fail/fail_alloc_json.c
tests_alloc_fail_sbx_provisiond_failalloc_CFLAGS = $(tools_provisiond_sbx_provisiond_CFLAGS)
tests_alloc_fail_sbx_provisiond_failalloc_LDADD = $(tools_provisiond_sbx_provisiond_LDADD)

check_PROGRAMS += tests/alloc-fail/test_provisiond_oom
TESTS += tests/alloc-fail/test_provisiond_oom
tests_alloc_fail_test_provisiond_oom_SOURCES = tests/alloc-fail/test_provisiond_oom.c \
	$(SBX_PROVD_TEST_SUPPORT)
tests_alloc_fail_test_provisiond_oom_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
if SANITIZERS
tests_alloc_fail_test_provisiond_oom_CFLAGS += -DSBX_FAIL_ALLOC_UNAVAILABLE
endif
tests_alloc_fail_test_provisiond_oom_LDADD = $(SBX_TEST_LIBS) -lpthread
