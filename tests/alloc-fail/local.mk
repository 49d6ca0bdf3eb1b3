# Allocation-failure injection (tests/alloc-fail/fail_alloc.h): the remote
# backend's operations with the 1st, 2nd, ... allocation of sbx code
# failing, against the emulator.  Not in sanitizer builds: ASan brings its
# own allocator, which the injecting one would bypass.
if !SANITIZERS
check_PROGRAMS += tests/alloc-fail/test_alloc_failures
TESTS += tests/alloc-fail/test_alloc_failures
endif
tests_alloc_fail_test_alloc_failures_SOURCES = tests/alloc-fail/test_alloc_failures.c \
	tests/alloc-fail/fail_alloc.c tests/alloc-fail/fail_alloc.h
tests_alloc_fail_test_alloc_failures_CFLAGS = $(SBX_TEST_CFLAGS)
tests_alloc_fail_test_alloc_failures_LDADD = $(SBX_TEST_LIBS)
