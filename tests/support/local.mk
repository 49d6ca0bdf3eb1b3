# Test support: CUnit runner glue, raw HTTP probes, the emulator process and
# its control API, the hostile request bodies both provisioners refuse,
# child processes waited on with deadlines (run to the end, or watched
# line by line), the host's process table, private scratch directories, the remote
# backend opened through the host library, the backend calls the backend
# suites share, the docker suites' engine, the monotonic clock of waits with a deadline, the probes of the
# resource limit and disk suites, and log capture.
check_LTLIBRARIES += tests/support/libsbx-test.la
tests_support_libsbx_test_la_SOURCES = \
	tests/support/backend_calls.c tests/support/backend_calls.h \
	tests/support/cgroup_probe.c tests/support/cgroup_probe.h \
	tests/support/clock.c tests/support/clock.h \
	tests/support/cunit_main.c tests/support/cunit_main.h \
	tests/support/docker_engine.c tests/support/docker_engine.h \
	tests/support/holders_left.c tests/support/holders_left.h \
	tests/support/emulator.c tests/support/emulator.h \
	tests/support/hostile_json.c tests/support/hostile_json.h \
	tests/support/http_probe.c tests/support/http_probe.h \
	tests/support/local_disk_probe.c tests/support/local_disk_probe.h \
	tests/support/log_capture.c tests/support/log_capture.h \
	tests/support/memory_figures.h \
	tests/support/proc_table.c tests/support/proc_table.h \
	tests/support/remote_helpers.c tests/support/remote_helpers.h \
	tests/support/scratch_dir.c tests/support/scratch_dir.h \
	tests/support/secret_runs.c tests/support/secret_runs.h \
	tests/support/subprocess.c tests/support/subprocess.h \
	tests/support/watched_child.c tests/support/watched_child.h
tests_support_libsbx_test_la_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS) $(JSONC_CFLAGS) $(CURL_CFLAGS) -pthread
tests_support_libsbx_test_la_LIBADD = $(CUNIT_LIBS) $(JSONC_LIBS) $(CURL_LIBS) -lpthread

# The support library's own thread-safety check (log capture).
check_PROGRAMS += tests/support/test_log_capture
TESTS += tests/support/test_log_capture
tests_support_test_log_capture_SOURCES = tests/support/test_log_capture.c
tests_support_test_log_capture_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_support_test_log_capture_LDADD = $(SBX_TEST_LIBS) -lpthread

# The Python suites' start of a server program that announces its address
# (tests/emulator/test_aio_routes.py, tests/interop/test_aio_sdk.py).
EXTRA_DIST += tests/support/listening.py
