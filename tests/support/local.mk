# Test support: CUnit runner glue, the emulator process and its control API.
check_LTLIBRARIES += tests/support/libsbx-test.la
tests_support_libsbx_test_la_SOURCES = tests/support/cunit_main.c tests/support/cunit_main.h
tests_support_libsbx_test_la_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS) $(JSONC_CFLAGS) $(CURL_CFLAGS)
tests_support_libsbx_test_la_LIBADD = $(CUNIT_LIBS) $(JSONC_LIBS) $(CURL_LIBS)
