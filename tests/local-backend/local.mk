# The in-process "local" backend through the host library: its behaviour,
# and what it does with hostile state directories, mounts, kills and
# commands.
check_PROGRAMS += tests/local-backend/test_local_backend tests/local-backend/test_local_hostile
TESTS += tests/local-backend/test_local_backend tests/local-backend/test_local_hostile
tests_local_backend_test_local_backend_SOURCES = tests/local-backend/test_local_backend.c \
	tests/local-backend/local_fixture.c tests/local-backend/local_fixture.h
tests_local_backend_test_local_backend_CFLAGS = $(SBX_TEST_CFLAGS)
tests_local_backend_test_local_backend_LDADD = $(SBX_TEST_LIBS)
tests_local_backend_test_local_hostile_SOURCES = tests/local-backend/test_local_hostile.c \
	tests/local-backend/local_fixture.c tests/local-backend/local_fixture.h
tests_local_backend_test_local_hostile_CFLAGS = $(SBX_TEST_CFLAGS)
tests_local_backend_test_local_hostile_LDADD = $(SBX_TEST_LIBS)
