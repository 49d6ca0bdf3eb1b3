# Concurrency soak (issue 5): many threads x mixed operations on one remote
# backend against the emulator, with faults and a contract switch injected
# mid-run.  `make check` runs a modest size; SBX_SOAK_THREADS / SBX_SOAK_OPS
# scale it up (docs/hardening.md).  It shares the tests/remote fixture.
check_PROGRAMS += tests/soak/test_remote_soak
TESTS += tests/soak/test_remote_soak
EXTRA_DIST += tests/soak/tsan.supp

tests_soak_test_remote_soak_SOURCES = tests/soak/test_remote_soak.c $(SBX_REMOTE_TEST_SUPPORT)
tests_soak_test_remote_soak_CFLAGS = $(SBX_REMOTE_TEST_CFLAGS)
tests_soak_test_remote_soak_LDADD = $(SBX_REMOTE_TEST_LDADD)

# ThreadSanitizer build (--enable-sanitizers=thread): every test program
# reads the suppressions of third-party races, and a report fails the test
# (TSan exits 66 at the end of a program that reported anything).
if TSAN
AM_TESTS_ENVIRONMENT += \
	TSAN_OPTIONS="suppressions='$(abs_top_srcdir)/tests/soak/tsan.supp' second_deadlock_stack=1 $$TSAN_OPTIONS"; \
	export TSAN_OPTIONS;
endif
