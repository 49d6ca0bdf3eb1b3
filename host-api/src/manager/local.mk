# The sandbox manager (<sbx/manager.h>): per-thread reuse, warm pool, idle
# reaper, orphan reconciliation and ownership leases (memory, sqlite, redis).
host_api_libsbx_host_la_SOURCES += \
	host-api/src/manager/manager_internal.h \
	host-api/src/manager/manager_lifecycle.c \
	host-api/src/manager/acquire_gate.c host-api/src/manager/acquire_gate.h \
	host-api/src/manager/manager_config.c host-api/src/manager/manager_config.h \
	host-api/src/manager/manager_events.c host-api/src/manager/manager_events.h \
	host-api/src/manager/entries.c host-api/src/manager/entries.h \
	host-api/src/manager/identity_index.h \
	host-api/src/manager/manager_acquire.c \
	host-api/src/manager/manager_teardown.c host-api/src/manager/manager_teardown.h \
	host-api/src/manager/manager_reaper.c host-api/src/manager/manager_reaper.h \
	host-api/src/manager/manager_expiry.c host-api/src/manager/manager_expiry.h \
	host-api/src/manager/manager_operations.c host-api/src/manager/manager_operations.h \
	host-api/src/manager/manager_processes.c \
	host-api/src/manager/process_lock.c host-api/src/manager/process_lock.h \
	host-api/src/manager/thread_slot.c host-api/src/manager/thread_slot.h \
	host-api/src/manager/reader_lock.c host-api/src/manager/reader_lock.h \
	host-api/src/manager/split_count.c host-api/src/manager/split_count.h \
	host-api/src/manager/readiness.c host-api/src/manager/readiness.h \
	host-api/src/manager/sandbox_id.c host-api/src/manager/sandbox_id.h \
	host-api/src/manager/strmap.c host-api/src/manager/strmap.h \
	host-api/src/manager/lease_store.c host-api/src/manager/lease_store.h \
	host-api/src/manager/lease_list.c \
	host-api/src/manager/lease_store_memory.c \
	host-api/src/manager/lease_store_sqlite.c \
	host-api/src/manager/lease_store_redis.c
host_api_libsbx_host_la_CFLAGS += $(CRYPTO_CFLAGS) $(SQLITE_CFLAGS) $(HIREDIS_CFLAGS) \
	$(CURL_CFLAGS) -pthread
host_api_libsbx_host_la_LIBADD += $(CRYPTO_LIBS) $(SQLITE_LIBS) $(HIREDIS_LIBS) -lpthread

# The host's guide to the manager.
EXTRA_DIST += docs/manager.md
