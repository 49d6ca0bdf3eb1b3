# The sandbox manager: its core over an in-process test backend, threads
# (also under ThreadSanitizer), the lease-store contract against every store,
# and several real processes sharing one sqlite lease file.
SBX_MGR_TEST_SUPPORT = \
	tests/manager/mgr_test_backend.c tests/manager/mgr_test_backend.h \
	tests/manager/mgr_fixture.c tests/manager/mgr_fixture.h

check_PROGRAMS += tests/manager/test_manager_core
TESTS += tests/manager/test_manager_core
tests_manager_test_manager_core_SOURCES = tests/manager/test_manager_core.c $(SBX_MGR_TEST_SUPPORT)
tests_manager_test_manager_core_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_manager_test_manager_core_LDADD = $(SBX_TEST_LIBS) -lpthread

# The sandbox operations on managed sandboxes, over the real local backend.
check_PROGRAMS += tests/manager/test_manager_operations
TESTS += tests/manager/test_manager_operations
tests_manager_test_manager_operations_SOURCES = tests/manager/test_manager_operations.c \
	$(SBX_MGR_TEST_SUPPORT)
tests_manager_test_manager_operations_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_manager_test_manager_operations_LDADD = $(SBX_TEST_LIBS) -lpthread

check_PROGRAMS += tests/manager/test_manager_threads
TESTS += tests/manager/test_manager_threads
tests_manager_test_manager_threads_SOURCES = tests/manager/test_manager_threads.c $(SBX_MGR_TEST_SUPPORT)
tests_manager_test_manager_threads_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_manager_test_manager_threads_LDADD = $(SBX_TEST_LIBS) -lpthread

# The per-thread-slot lock and reference count under many threads (linked
# directly: internal to libsbx-host).
check_PROGRAMS += tests/manager/test_thread_slots
TESTS += tests/manager/test_thread_slots
tests_manager_test_thread_slots_SOURCES = tests/manager/test_thread_slots.c \
	host-api/src/manager/thread_slot.c host-api/src/manager/thread_slot.h \
	host-api/src/manager/reader_lock.c host-api/src/manager/reader_lock.h \
	host-api/src/manager/split_count.c host-api/src/manager/split_count.h
tests_manager_test_thread_slots_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_manager_test_thread_slots_LDADD = $(SBX_TEST_LIBS) -lpthread

# The store contract links the store sources directly: the stores are an
# internal interface of libsbx-host, not exported.
SBX_MGR_STORE_SOURCES = \
	host-api/src/manager/lease_store.c host-api/src/manager/lease_store.h \
	host-api/src/manager/lease_store_memory.c \
	host-api/src/manager/lease_store_sqlite.c \
	host-api/src/manager/lease_store_redis.c \
	host-api/src/manager/strmap.c host-api/src/manager/strmap.h
check_PROGRAMS += tests/manager/test_lease_store
TESTS += tests/manager/test_lease_store
tests_manager_test_lease_store_SOURCES = tests/manager/test_lease_store.c \
	tests/manager/redis_server.c tests/manager/redis_server.h $(SBX_MGR_STORE_SOURCES)
tests_manager_test_lease_store_CFLAGS = $(SBX_TEST_CFLAGS) $(SQLITE_CFLAGS) $(HIREDIS_CFLAGS) -pthread
tests_manager_test_lease_store_LDADD = common/libsbx-common.la $(SBX_TEST_LIBS) $(SQLITE_LIBS) $(HIREDIS_LIBS) -lpthread

check_PROGRAMS += tests/manager/test_manager_leases
TESTS += tests/manager/test_manager_leases
tests_manager_test_manager_leases_SOURCES = tests/manager/test_manager_leases.c \
	$(SBX_MGR_TEST_SUPPORT) $(SBX_MGR_STORE_SOURCES)
tests_manager_test_manager_leases_CFLAGS = $(SBX_TEST_CFLAGS) $(SQLITE_CFLAGS) $(HIREDIS_CFLAGS) -pthread
tests_manager_test_manager_leases_LDADD = common/libsbx-common.la $(SBX_TEST_LIBS) $(SQLITE_LIBS) $(HIREDIS_LIBS) -lpthread

# Managers in other processes: a helper program the suite drives.
check_PROGRAMS += tests/manager/mgr_peer tests/manager/test_manager_processes
TESTS += tests/manager/test_manager_processes
tests_manager_mgr_peer_SOURCES = tests/manager/mgr_peer.c
tests_manager_mgr_peer_LDADD = host-api/libsbx-host.la
tests_manager_test_manager_processes_SOURCES = tests/manager/test_manager_processes.c \
	tests/local-backend/local_fixture.c tests/local-backend/local_fixture.h \
	tests/manager/peer_process.c tests/manager/peer_process.h $(SBX_MGR_STORE_SOURCES)
tests_manager_test_manager_processes_CFLAGS = $(SBX_TEST_CFLAGS) $(SQLITE_CFLAGS) $(HIREDIS_CFLAGS) -pthread
tests_manager_test_manager_processes_LDADD = common/libsbx-common.la $(SBX_TEST_LIBS) $(SQLITE_LIBS) $(HIREDIS_LIBS) -lpthread

check_PROGRAMS += tests/manager/test_manager_redis
TESTS += tests/manager/test_manager_redis
tests_manager_test_manager_redis_SOURCES = tests/manager/test_manager_redis.c \
	tests/manager/redis_server.c tests/manager/redis_server.h $(SBX_MGR_TEST_SUPPORT)
tests_manager_test_manager_redis_CFLAGS = $(SBX_TEST_CFLAGS) $(HIREDIS_CFLAGS) -pthread
tests_manager_test_manager_redis_LDADD = $(SBX_TEST_LIBS) $(HIREDIS_LIBS) -lpthread

# Rule 6: the readiness wait against real HTTP server processes.
check_PROGRAMS += tests/manager/ready_server tests/manager/test_manager_ready
TESTS += tests/manager/test_manager_ready
tests_manager_ready_server_SOURCES = tests/manager/ready_server.c
tests_manager_test_manager_ready_SOURCES = tests/manager/test_manager_ready.c $(SBX_MGR_TEST_SUPPORT)
tests_manager_test_manager_ready_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_manager_test_manager_ready_LDADD = $(SBX_TEST_LIBS) -lpthread

# The example host (examples/host.c) run as a user would, over the local
# backend with the memory and the sqlite stores.
TESTS += tests/manager/check-example-host.sh
dist_check_SCRIPTS += tests/manager/check-example-host.sh

# Live processes on managed sandboxes: the idle reaper and the process
# calls over the test backend's simulated processes.
check_PROGRAMS += tests/manager/test_manager_process_calls
TESTS += tests/manager/test_manager_process_calls
tests_manager_test_manager_process_calls_SOURCES = tests/manager/test_manager_process_calls.c \
	$(SBX_MGR_TEST_SUPPORT)
tests_manager_test_manager_process_calls_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_manager_test_manager_process_calls_LDADD = $(SBX_TEST_LIBS) -lpthread

# Lifetimes, extend and the expiry reaper, over the real local backend.
check_PROGRAMS += tests/manager/test_manager_expiry
TESTS += tests/manager/test_manager_expiry
tests_manager_test_manager_expiry_SOURCES = tests/manager/test_manager_expiry.c \
	$(SBX_MGR_TEST_SUPPORT)
tests_manager_test_manager_expiry_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_manager_test_manager_expiry_LDADD = $(SBX_TEST_LIBS) -lpthread
