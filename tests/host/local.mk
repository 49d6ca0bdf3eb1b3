# Host library tests: module validation with deliberately broken fixture
# modules, configuration parsing, in-process backends, threads, exports.

# Fixture modules: one source built with different ABI declarations.
# -rpath makes libtool build real shared objects for check_LTLIBRARIES.
SBX_FIXTURE_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
SBX_FIXTURE_SOURCES = tests/host/fixtures/fixture_backend.c
check_LTLIBRARIES += \
	tests/host/fixtures/fixture-good.la \
	tests/host/fixtures/fixture-older-minor.la \
	tests/host/fixtures/fixture-minor-1.la \
	tests/host/fixtures/fixture-minor-2.la \
	tests/host/fixtures/fixture-minor-3.la \
	tests/host/fixtures/fixture-processes.la \
	tests/host/fixtures/fixture-processes-no-free.la \
	tests/host/fixtures/fixture-short-results.la \
	tests/host/fixtures/fixture-exec-no-free.la \
	tests/host/fixtures/fixture-short-records.la \
	tests/host/fixtures/fixture-records-no-free.la \
	tests/host/fixtures/fixture-newer-minor.la \
	tests/host/fixtures/fixture-open-file.la \
	tests/host/fixtures/fixture-minor-5.la \
	tests/host/fixtures/fixture-open-file-past-size.la \
	tests/host/fixtures/fixture-wrong-major.la \
	tests/host/fixtures/fixture-small-descriptor.la \
	tests/host/fixtures/fixture-no-entry.la

tests_host_fixtures_fixture_good_la_SOURCES = $(SBX_FIXTURE_SOURCES)
tests_host_fixtures_fixture_good_la_CPPFLAGS = $(AM_CPPFLAGS) -DFIXTURE_NAME='"fixture-good"'
tests_host_fixtures_fixture_good_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_FIXTURE_LDFLAGS)

tests_host_fixtures_fixture_older_minor_la_SOURCES = $(SBX_FIXTURE_SOURCES)
tests_host_fixtures_fixture_older_minor_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFIXTURE_NAME='"fixture-older-minor"' -DFIXTURE_MINOR=0 -DFIXTURE_SIZE=SBX_DESCRIPTOR_SIZE_1_0
tests_host_fixtures_fixture_older_minor_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_FIXTURE_LDFLAGS)

# A module of ABI 1.1 as another project built it: against the 1.1 header
# itself (a verbatim copy of <sbx/backend.h> as 1.1 shipped it, found
# before the tree's own), so it has no record operations.
tests_host_fixtures_fixture_minor_1_la_SOURCES = $(SBX_FIXTURE_SOURCES)
tests_host_fixtures_fixture_minor_1_la_CPPFLAGS = -I$(srcdir)/tests/host/fixtures/abi-1.1 \
	$(AM_CPPFLAGS) -DFIXTURE_NAME='"fixture-minor-1"'
tests_host_fixtures_fixture_minor_1_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_FIXTURE_LDFLAGS)
EXTRA_DIST += tests/host/fixtures/abi-1.1/sbx/backend.h

# A module of ABI 1.2, built against the 1.2 header as it shipped: records,
# no sandbox operations.
tests_host_fixtures_fixture_minor_2_la_SOURCES = $(SBX_FIXTURE_SOURCES)
tests_host_fixtures_fixture_minor_2_la_CPPFLAGS = -I$(srcdir)/tests/host/fixtures/abi-1.2 \
	$(AM_CPPFLAGS) -DFIXTURE_NAME='"fixture-minor-2"'
tests_host_fixtures_fixture_minor_2_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_FIXTURE_LDFLAGS)
EXTRA_DIST += tests/host/fixtures/abi-1.2/sbx/backend.h

# A module of ABI 1.3, built against the 1.3 header as it shipped: exec
# and the file calls, no processes.
tests_host_fixtures_fixture_minor_3_la_SOURCES = $(SBX_FIXTURE_SOURCES)
tests_host_fixtures_fixture_minor_3_la_CPPFLAGS = -I$(srcdir)/tests/host/fixtures/abi-1.3 \
	$(AM_CPPFLAGS) -DFIXTURE_NAME='"fixture-minor-3"'
tests_host_fixtures_fixture_minor_3_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_FIXTURE_LDFLAGS)
EXTRA_DIST += tests/host/fixtures/abi-1.3/sbx/backend.h

# A minimal module of ABI 1.4: the process operations and a file request,
# with answers malformed on request; and one without free_processes.
tests_host_fixtures_fixture_processes_la_SOURCES = tests/host/fixtures/fixture_process_backend.c
tests_host_fixtures_fixture_processes_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFIXTURE_NAME='"fixture-processes"'
tests_host_fixtures_fixture_processes_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_FIXTURE_LDFLAGS)

tests_host_fixtures_fixture_processes_no_free_la_SOURCES = \
	tests/host/fixtures/fixture_process_backend.c
tests_host_fixtures_fixture_processes_no_free_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFIXTURE_NAME='"fixture-processes-no-free"' -DFIXTURE_NO_FREE_PROCESSES
tests_host_fixtures_fixture_processes_no_free_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_FIXTURE_LDFLAGS)

tests_host_fixtures_fixture_short_results_la_SOURCES = $(SBX_FIXTURE_SOURCES)
tests_host_fixtures_fixture_short_results_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFIXTURE_NAME='"fixture-short-results"' -DFIXTURE_SHORT_RESULTS
tests_host_fixtures_fixture_short_results_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_FIXTURE_LDFLAGS)

tests_host_fixtures_fixture_exec_no_free_la_SOURCES = $(SBX_FIXTURE_SOURCES)
tests_host_fixtures_fixture_exec_no_free_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFIXTURE_NAME='"fixture-exec-no-free"' -DFIXTURE_NO_FREE_EXEC
tests_host_fixtures_fixture_exec_no_free_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_FIXTURE_LDFLAGS)

tests_host_fixtures_fixture_short_records_la_SOURCES = $(SBX_FIXTURE_SOURCES)
tests_host_fixtures_fixture_short_records_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFIXTURE_NAME='"fixture-short-records"' -DFIXTURE_SHORT_RECORDS
tests_host_fixtures_fixture_short_records_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_FIXTURE_LDFLAGS)

tests_host_fixtures_fixture_records_no_free_la_SOURCES = $(SBX_FIXTURE_SOURCES)
tests_host_fixtures_fixture_records_no_free_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFIXTURE_NAME='"fixture-records-no-free"' -DFIXTURE_NO_FREE_RECORDS
tests_host_fixtures_fixture_records_no_free_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_FIXTURE_LDFLAGS)

tests_host_fixtures_fixture_newer_minor_la_SOURCES = $(SBX_FIXTURE_SOURCES)
tests_host_fixtures_fixture_newer_minor_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFIXTURE_NAME='"fixture-newer-minor"' -DFIXTURE_MINOR=99 -DFIXTURE_NEWER
tests_host_fixtures_fixture_newer_minor_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_FIXTURE_LDFLAGS)

# A module of ABI 1.5, built against the 1.5 header as it shipped: no
# open_file.
tests_host_fixtures_fixture_minor_5_la_SOURCES = $(SBX_FIXTURE_SOURCES)
tests_host_fixtures_fixture_minor_5_la_CPPFLAGS = -I$(srcdir)/tests/host/fixtures/abi-1.5 \
	$(AM_CPPFLAGS) -DFIXTURE_NAME='"fixture-minor-5"'
tests_host_fixtures_fixture_minor_5_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_FIXTURE_LDFLAGS)
EXTRA_DIST += tests/host/fixtures/abi-1.5/sbx/backend.h

# open_file (ABI 1.6) set; and set in the slot just past a descriptor
# that declares 1.5's size, which the host must not read.
tests_host_fixtures_fixture_open_file_la_SOURCES = $(SBX_FIXTURE_SOURCES)
tests_host_fixtures_fixture_open_file_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFIXTURE_NAME='"fixture-open-file"' -DFIXTURE_OPEN_FILE
tests_host_fixtures_fixture_open_file_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_FIXTURE_LDFLAGS)

tests_host_fixtures_fixture_open_file_past_size_la_SOURCES = $(SBX_FIXTURE_SOURCES)
tests_host_fixtures_fixture_open_file_past_size_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFIXTURE_NAME='"fixture-open-file-past-size"' -DFIXTURE_MINOR=5 \
	-DFIXTURE_SIZE=SBX_DESCRIPTOR_SIZE_1_5 -DFIXTURE_OPEN_FILE
tests_host_fixtures_fixture_open_file_past_size_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_FIXTURE_LDFLAGS)

tests_host_fixtures_fixture_wrong_major_la_SOURCES = $(SBX_FIXTURE_SOURCES)
tests_host_fixtures_fixture_wrong_major_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFIXTURE_NAME='"fixture-wrong-major"' -DFIXTURE_MAJOR=2 -DFIXTURE_MINOR=0
tests_host_fixtures_fixture_wrong_major_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_FIXTURE_LDFLAGS)

tests_host_fixtures_fixture_small_descriptor_la_SOURCES = $(SBX_FIXTURE_SOURCES)
tests_host_fixtures_fixture_small_descriptor_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFIXTURE_NAME='"fixture-small-descriptor"' -DFIXTURE_SIZE=24
tests_host_fixtures_fixture_small_descriptor_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_FIXTURE_LDFLAGS)

tests_host_fixtures_fixture_no_entry_la_SOURCES = $(SBX_FIXTURE_SOURCES)
tests_host_fixtures_fixture_no_entry_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFIXTURE_NAME='"fixture-no-entry"' -DFIXTURE_NO_ENTRY
tests_host_fixtures_fixture_no_entry_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_FIXTURE_LDFLAGS)

check_PROGRAMS += tests/host/test_host tests/host/test_config tests/host/test_records \
	tests/host/test_operations tests/host/test_processes tests/host/test_session_marker \
	tests/host/test_sessions tests/host/test_create_fields
TESTS += tests/host/test_host tests/host/test_config tests/host/test_records \
	tests/host/test_operations tests/host/test_processes tests/host/test_session_marker \
	tests/host/test_sessions tests/host/test_create_fields tests/host/check-exports.sh tests/host/check-abi-example.sh
dist_check_SCRIPTS += tests/host/check-exports.sh tests/host/check-abi-example.sh

tests_host_test_host_SOURCES = tests/host/test_host.c tests/host/fixtures/fixture_backend.c
tests_host_test_host_CPPFLAGS = $(AM_CPPFLAGS) -DFIXTURE_NAME='"inproc"'
tests_host_test_host_CFLAGS = $(SBX_TEST_CFLAGS)
tests_host_test_host_LDADD = $(SBX_TEST_LIBS)

tests_host_test_config_SOURCES = tests/host/test_config.c
tests_host_test_config_CFLAGS = $(SBX_TEST_CFLAGS)
tests_host_test_config_LDADD = $(SBX_TEST_LIBS)

# Where the fixtures are and what the suites that load them share.
SBX_HOST_FIXTURES_SOURCES = tests/host/host_fixtures.c tests/host/host_fixtures.h

tests_host_test_records_SOURCES = tests/host/test_records.c $(SBX_HOST_FIXTURES_SOURCES)
tests_host_test_records_CFLAGS = $(SBX_TEST_CFLAGS)
# It also checks the time parser of common/, which the host does not export.
tests_host_test_records_LDADD = common/libsbx-common.la $(SBX_TEST_LIBS)

tests_host_test_operations_SOURCES = tests/host/test_operations.c $(SBX_HOST_FIXTURES_SOURCES)
tests_host_test_operations_CFLAGS = $(SBX_TEST_CFLAGS)
tests_host_test_operations_LDADD = $(SBX_TEST_LIBS)

tests_host_test_processes_SOURCES = tests/host/test_processes.c $(SBX_HOST_FIXTURES_SOURCES)
tests_host_test_processes_CFLAGS = $(SBX_TEST_CFLAGS)
tests_host_test_processes_LDADD = $(SBX_TEST_LIBS)

# The session end marker as a unit, with a real /bin/sh (linked directly:
# internal to libsbx-host).
tests_host_test_session_marker_SOURCES = tests/host/test_session_marker.c \
	host-api/src/session_marker.c host-api/src/session_marker.h
tests_host_test_session_marker_CFLAGS = $(SBX_TEST_CFLAGS)
tests_host_test_session_marker_LDADD = common/libsbx-common.la $(SBX_TEST_LIBS)

# Sessions: argument checks on the fixtures, then the session cases (shared
# with tests/remote/test_remote_sessions) on real shells in a sandbox of the
# local backend.
SBX_SESSION_CASES_SOURCES = tests/host/session_cases.c tests/host/session_cases.h
tests_host_test_sessions_SOURCES = tests/host/test_sessions.c $(SBX_HOST_FIXTURES_SOURCES) \
	$(SBX_SESSION_CASES_SOURCES) \
	tests/local-backend/local_fixture.c tests/local-backend/local_fixture.h
tests_host_test_sessions_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_host_test_sessions_LDADD = $(SBX_TEST_LIBS) -lpthread

tests_host_test_create_fields_SOURCES = tests/host/test_create_fields.c $(SBX_HOST_FIXTURES_SOURCES)
tests_host_test_create_fields_CFLAGS = $(SBX_TEST_CFLAGS)
tests_host_test_create_fields_LDADD = $(SBX_TEST_LIBS)
