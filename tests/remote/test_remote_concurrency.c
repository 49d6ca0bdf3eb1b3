/* One remote backend instance used by many threads at once over real HTTP:
 * no errors, one capability probe at a time, and the freeze of the mount
 * contract across a create in flight. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdio.h>

#include "tests/remote/remote_fixture.h"
#include "tests/remote/remote_threads.h"
#include "tests/support/cunit_main.h"

#define WORKERS 16
#define ROUNDS 4

/* What one worker thread does and what went wrong for it. */
typedef struct worker {
    sbx_rt *rt;
    sbx_rt_latch *done;
    int index;
    int errors;            /* calls that failed or answered wrongly */
    sbx_error last_error;  /* the last failure, for the log */
} worker;

/* Count a failed step of `w`, keeping its error for the report. */
static void worker_failed(worker *w, const sbx_error *err)
{
    w->errors++;
    if (err != NULL)
        w->last_error = *err;
}

/* One round: create a sandbox of its own, see it alive, discover it, list. */
static void worker_round(worker *w, int round)
{
    char sandbox_id[32], thread_id[32];
    snprintf(sandbox_id, sizeof(sandbox_id), "conc-%d-%d", w->index, round);
    snprintf(thread_id, sizeof(thread_id), "thread-%d-%d", w->index, round);
    sbx_create_request request = sbx_rt_create_request(sandbox_id, thread_id, NULL);
    sbx_sandbox *sandbox = NULL;
    sbx_error err;
    if (sbx_backend_create(w->rt->backend, &request, &sandbox, &err) != SBX_OK) {
        worker_failed(w, &err);
        return;
    }
    if (!sbx_rt_str_eq(sandbox->sandbox_id, sandbox_id))
        worker_failed(w, NULL);
    sbx_backend_free_sandboxes(w->rt->backend, sandbox, 1);

    int alive = -1;
    if (sbx_backend_is_alive(w->rt->backend, sandbox_id, &alive, &err) != SBX_OK)
        worker_failed(w, &err);
    else if (alive != 1)
        worker_failed(w, NULL);

    sandbox = NULL;
    if (sbx_backend_discover(w->rt->backend, sandbox_id, &sandbox, &err) != SBX_OK)
        worker_failed(w, &err);
    else
        sbx_backend_free_sandboxes(w->rt->backend, sandbox, 1);

    sbx_sandbox *sandboxes = NULL;
    size_t count = 0;
    if (sbx_backend_list_running(w->rt->backend, &sandboxes, &count, &err) != SBX_OK)
        worker_failed(w, &err);
    else if (count == 0)
        worker_failed(w, NULL);   /* at least its own sandbox runs */
    sbx_backend_free_sandboxes(w->rt->backend, sandboxes, count);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    for (int round = 0; round < ROUNDS; round++)
        worker_round(w, round);
    sbx_rt_latch_arrive(w->done);
    return NULL;
}

/* 16 threads create, check, discover and list through one instance: no
 * call fails, every create reached the provisioner, and the fresh backend
 * probed the contract exactly once for all of them. */
static void test_many_threads_one_instance(void)
{
    static const char *const args[] = { "--initial-status", "Running", NULL };
    sbx_rt rt;
    if (!sbx_rt_start(&rt, args, NULL, NULL, 0))
        return;
    sbx_rt_latch done;
    if (!sbx_rt_latch_init_or_stop(&rt, &done))
        return;
    worker workers[WORKERS];
    for (int i = 0; i < WORKERS; i++)
        workers[i] = (worker){ .rt = &rt, .done = &done, .index = i };
    pthread_t threads[WORKERS];
    int started = sbx_rt_start_threads(threads, WORKERS, worker_main, workers, sizeof(worker));
    sbx_rt_finish_threads(&rt, threads, started, &done, 60000);
    sbx_rt_latch_destroy(&done);
    int errors = 0;
    for (int i = 0; i < started; i++) {
        errors += workers[i].errors;
        if (workers[i].errors > 0)
            fprintf(stderr, "worker %d: %d errors, last: %s: %s\n", i, workers[i].errors,
                    sbx_status_name(workers[i].last_error.kind), workers[i].last_error.message);
    }
    CU_ASSERT_EQUAL(errors, 0);
    if (rt.emu != NULL) {
        CU_ASSERT_EQUAL(sbx_test_emu_received(rt.emu, "create"), WORKERS * ROUNDS);
        CU_ASSERT_EQUAL(sbx_test_emu_received(rt.emu, "capabilities"), 1);
    }
    sbx_rt_stop(&rt);
}

/* Rule 1: while a probe is in flight (held by the emulator) other callers
 * wait for it; after the release all see its answer and only one probe was
 * sent. */
static void test_one_probe_at_a_time(void)
{
    static const char *const args[] = { "--contract", "2", NULL };
    sbx_rt rt;
    if (!sbx_rt_start(&rt, args, NULL, NULL, 0))
        return;
    sbx_rt_fault(&rt, "capabilities", "hold", 1);
    sbx_rt_latch done;
    if (!sbx_rt_latch_init_or_stop(&rt, &done))
        return;
    sbx_rt_call calls[8];
    for (int i = 0; i < 8; i++)
        calls[i] = (sbx_rt_call){ .rt = &rt, .done = &done, .result = -9 };
    pthread_t threads[8];
    /* the seven wait for the probe in flight, none finishes */
    int started = sbx_rt_pile_behind_held_probe(&rt, threads, calls, 1, 7,
                                                sbx_rt_contract_thread);
    sbx_rt_release(&rt, "capabilities");
    sbx_rt_finish_threads(&rt, threads, started, &done, 10000);
    sbx_rt_latch_destroy(&done);
    for (int i = 0; i < started; i++)
        CU_ASSERT_EQUAL(calls[i].result, 2);
    if (rt.emu != NULL)
        CU_ASSERT_EQUAL(sbx_test_emu_received(rt.emu, "capabilities"), 1);
    sbx_rt_stop(&rt);
}

/* A create on its own thread and what it returned. */
typedef struct create_call {
    sbx_rt *rt;
    sbx_rt_latch *done;
    sbx_status status;
    sbx_error err;
} create_call;

static void *create_main(void *arg)
{
    create_call *call = arg;
    sbx_create_request request = sbx_rt_create_request("abc123", "thread-1", "alice");
    call->status = sbx_rt_create_discarding(call->rt, &request, &call->err);
    sbx_rt_latch_arrive(call->done);
    return NULL;
}

/* Rule 3, the freeze: a create sent at contract 2 is held by the emulator
 * while the provisioner switches to contract 0; released, it answers as a
 * legacy peer.  The create fails with "mount contract changed" (it is
 * validated against the frozen 2, not accepted as legacy), and the next
 * call probes again and learns 0. */
static void test_contract_switch_during_create(void)
{
    static const char *const args[] = { "--contract", "2", NULL };
    sbx_rt rt;
    if (!sbx_rt_start(&rt, args, NULL, NULL, 0))
        return;
    CU_ASSERT_EQUAL(sbx_rt_contract(&rt), 2);
    sbx_rt_fault(&rt, "create", "hold", 1);
    sbx_rt_latch done;
    if (!sbx_rt_latch_init_or_stop(&rt, &done))
        return;
    create_call call = { .rt = &rt, .done = &done, .status = SBX_OK };
    pthread_t thread;
    int started = sbx_rt_start_threads(&thread, 1, create_main, &call, sizeof(call));
    CU_ASSERT(sbx_test_emu_wait(rt.emu, "create", 1, 1, 5000));
    sbx_rt_set_contract(&rt, 0);
    sbx_rt_release(&rt, "create");
    sbx_rt_finish_threads(&rt, &thread, started, &done, 10000);
    sbx_rt_latch_destroy(&done);
    CU_ASSERT_EQUAL(call.status, SBX_ERR_CONTRACT_CHANGED);
    CU_ASSERT_EQUAL(call.err.expected_contract, 2);
    CU_ASSERT_EQUAL(call.err.actual_contract, 0);
    if (rt.emu != NULL)
        sbx_rt_expect_reprobe_after_create(&rt, 2, 0);
    sbx_rt_stop(&rt);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "many_threads_one_instance", test_many_threads_one_instance },
        { "one_probe_at_a_time", test_one_probe_at_a_time },
        { "contract_switch_during_create", test_contract_switch_during_create },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("remote_concurrency", NULL, NULL, tests);
}
