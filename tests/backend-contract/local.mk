# The backend contract: the same cases against every backend of this tree
# (local and remote here; docker from tests/docker/docker-suite.sh, per
# engine), as the lease-store contract runs against every store.
check_PROGRAMS += tests/backend-contract/test_backend_contract
TESTS += tests/backend-contract/test_backend_contract
tests_backend_contract_test_backend_contract_SOURCES = \
	tests/backend-contract/test_backend_contract.c \
	tests/backend-contract/contract_fixture.h \
	tests/backend-contract/contract_case.c \
	tests/backend-contract/operations_cases.c \
	tests/backend-contract/process_calls.c \
	tests/backend-contract/process_calls.h \
	tests/backend-contract/process_cases.c
tests_backend_contract_test_backend_contract_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_backend_contract_test_backend_contract_LDADD = $(SBX_TEST_LIBS) -lpthread
