# The in-process "local" backend through the host library.
check_PROGRAMS += tests/local-backend/test_local_backend
TESTS += tests/local-backend/test_local_backend
tests_local_backend_test_local_backend_SOURCES = tests/local-backend/test_local_backend.c
tests_local_backend_test_local_backend_CFLAGS = $(SBX_TEST_CFLAGS)
tests_local_backend_test_local_backend_LDADD = $(SBX_TEST_LIBS)
