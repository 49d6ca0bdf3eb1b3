# `make check-valgrind` (docs/hardening.md): every CUnit program that `make
# check` runs (a TESTS entry that is also a check_PROGRAMS entry) again
# under valgrind memcheck, in the test environment of `make check`.  Not
# part of `make check`.  Select programs with VALGRIND_TESTS='tests/x/y ...';
# pass valgrind options with VALGRIND_FLAGS.  Needs valgrind (Debian
# package valgrind).
dist_noinst_SCRIPTS = tests/valgrind/check-valgrind
CLEANFILES += tests/*/*.valgrind-out
VALGRIND_TESTS =

check-valgrind: $(check_PROGRAMS) $(check_LTLIBRARIES) all
	@command -v valgrind > /dev/null || \
		{ echo "check-valgrind: valgrind not found (apt-get install valgrind)" >&2; exit 2; }
	@progs='$(VALGRIND_TESTS)'; \
	if test -z "$$progs"; then \
		for t in $(TESTS); do \
			for p in $(check_PROGRAMS); do \
				test "$$t" = "$$p" && progs="$$progs $$t"; \
			done; \
		done; \
	fi; \
	$(AM_TESTS_ENVIRONMENT) \
	bash '$(srcdir)/tests/valgrind/check-valgrind' '$(abs_top_builddir)/libtool' $$progs
.PHONY: check-valgrind
