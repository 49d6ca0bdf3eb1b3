/* The manager suites' fixture (see mgr_fixture.h). */
#include <config.h>

#include "tests/manager/mgr_fixture.h"
#include "tests/support/scratch_dir.h"

#include <CUnit/CUnit.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

sbx_host *mf_host;
sbx_backend *mf_backend;
sbx_test_log_capture *mf_logs;

static _Atomic int64_t now_ms = 1000000;

int64_t mf_clock(void *ctx)
{
    (void)ctx;
    return atomic_load(&now_ms);
}

void mf_advance(int64_t ms)
{
    atomic_fetch_add(&now_ms, ms);
}

int mf_start(void)
{
    sbx_error err;
    mf_logs = sbx_test_log_capture_new();
    sbx_host_services services = {sizeof services, sbx_test_log_capture_fn, mf_logs};
    if (mf_logs == NULL || sbx_host_new(&services, &mf_host, &err) != SBX_OK ||
        sbx_host_register_backend(mf_host, mt_descriptor(), &err) != SBX_OK ||
        sbx_backend_open(mf_host, "mgrtest", NULL, 0, &mf_backend, &err) != SBX_OK) {
        fprintf(stderr, "fixture: %s\n", err.message);
        return -1;
    }
    atomic_store(&now_ms, 1000000);
    return 0;
}

void mf_stop(void)
{
    sbx_backend_close(mf_backend);
    sbx_host_free(mf_host);
    sbx_test_log_capture_free(mf_logs);
    mf_backend = NULL;
    mf_host = NULL;
    mf_logs = NULL;
}

sbx_manager_config mf_config(void)
{
    sbx_manager_config c = SBX_MANAGER_CONFIG_INIT;
    c.check_interval_ms = 3600000;
    c.renewal_interval_ms = 3600000;
    c.idle_timeout_ms = 600000;
    c.clock = mf_clock;
    c.log = sbx_test_log_capture_fn;
    c.log_ctx = mf_logs;
    return c;
}

sbx_manager *mf_open(const sbx_manager_config *config)
{
    return mf_open_on(mf_backend, config);
}

sbx_manager *mf_open_on(sbx_backend *backend, const sbx_manager_config *config)
{
    sbx_manager *m = NULL;
    sbx_error err;
    sbx_status st = sbx_manager_open(backend, config, &m, &err);
    if (st != SBX_OK)
        fprintf(stderr, "sbx_manager_open: %s\n", err.message);
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
    return m;
}

int mf_acquire(sbx_manager *m, const char *user, const char *thread, char id[64])
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.user_id = user;
    req.thread_id = thread;
    sbx_managed *got = NULL;
    sbx_error err;
    sbx_status st = sbx_manager_acquire(m, &req, &got, &err);
    if (st != SBX_OK) {
        fprintf(stderr, "acquire %s/%s: %s\n", user ? user : "-", thread ? thread : "-",
                err.message);
        return 0;
    }
    snprintf(id, 64, "%s", sbx_managed_sandbox(got)->sandbox_id);
    sbx_managed_unref(got);
    return 1;
}

void mf_derive(const char *user, const char *thread, char id[SBX_DERIVED_ID_SIZE])
{
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_sandbox_id_derive(user, thread, id, &err), SBX_OK);
}

sbx_manager_counters mf_counters(sbx_manager *m)
{
    sbx_manager_counters c;
    memset(&c, 0, sizeof c);
    c.struct_size = sizeof c;
    sbx_manager_get_counters(m, &c);
    return c;
}

sbx_backend *mf_start_local(char *state_dir, size_t size, const char *tag)
{
    if (mf_start() != 0 || sbx_test_scratch_dir(state_dir, size, tag) != 0)
        return NULL;
    sbx_option options[] = {{"state_dir", state_dir}};
    sbx_backend *local = NULL;
    sbx_error err;
    if (sbx_backend_open(mf_host, "local", options, 1, &local, &err) != SBX_OK)
        fprintf(stderr, "open local: %s\n", err.message);
    return local;
}

void mf_stop_local(sbx_backend *local, const char *state_dir)
{
    sbx_backend_close(local);
    mf_stop();
    sbx_test_remove_tree(state_dir);
}
