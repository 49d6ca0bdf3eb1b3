# Test harness settings shared by every suite.  Each suite lists itself in
# its own tests/*/local.mk.
#
# Tests find the freshly built modules, the emulator and sbxctl through the
# environment, never through an installed copy.
AM_TESTS_ENVIRONMENT = \
	SBX_MODULE_PATH='$(abs_top_builddir)/plugin/remote/.libs:$(abs_top_builddir)/plugin/docker/.libs'; \
	SBX_TEST_BUILDDIR='$(abs_top_builddir)'; \
	SBX_TEST_SRCDIR='$(abs_top_srcdir)'; \
	EMU_BIN='$(abs_top_builddir)/tools/provisioner-emu/sbx-provisioner-emu'; \
	SBXCTL_BIN='$(abs_top_builddir)/tools/sbxctl/sbxctl'; \
	SBX_CONFIG=; XDG_STATE_HOME='$(abs_top_builddir)/tests/state'; \
	no_proxy=; NO_PROXY=; CC='$(CC)'; \
	export CC SBX_MODULE_PATH SBX_TEST_BUILDDIR SBX_TEST_SRCDIR EMU_BIN SBXCTL_BIN SBX_CONFIG XDG_STATE_HOME no_proxy NO_PROXY;

# Every test runs through tests/timed-run.sh, which ends the test's log
# with its wall time (.ci/slowest-tests lists the slowest).
LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/timed-run.sh
EXTRA_DIST += tests/timed-run.sh

# CUnit suites link the test support library and CUnit.
SBX_TEST_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS) $(JSONC_CFLAGS) $(CURL_CFLAGS)
SBX_TEST_LIBS = tests/support/libsbx-test.la host-api/libsbx-host.la \
	$(CUNIT_LIBS) $(JSONC_LIBS) $(CURL_LIBS)

# What the suites leave in $XDG_STATE_HOME (the local backend's state
# marker, sbxctl's id locks) goes with `make clean`.
clean-local:
	-rm -rf tests/state tests/interop/state
