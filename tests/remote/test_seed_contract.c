/* Seed port: the mount contract rules (docs/remote.md rules 1-7) as a user of
 * the public host API sees them, against the provisioner emulator.
 *
 * Where the seed sets the backend's cached contract ("_mount_contract_version
 * = N", capability known, fresh probe), the emulator runs at contract N and
 * the test lets the backend learn it with a capabilities call.  Where the
 * seed asserts the cache was marked stale ("_capability_next_probe_at ==
 * 0.0"), the test checks that the next capabilities call probes again. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdio.h>

#include "tests/remote/remote_fixture.h"
#include "tests/remote/remote_threads.h"
#include "tests/support/cunit_main.h"

static const char *const contract_2[] = { "--contract", "2", NULL };
static const char *const contract_3[] = { "--contract", "3", NULL };

/* Start at `args` and let the backend learn `version` with a fresh probe.
 * Returns 1 when both happened (0: the fixture is stopped). */
static int start_knowing(sbx_rt *rt, const char *const *args, int version)
{
    if (!sbx_rt_start(rt, args, NULL, NULL, 0))
        return 0;
    CU_ASSERT_EQUAL(sbx_rt_contract(rt), version);
    return 1;
}

/* Create thread-1/`sandbox_id` for `user_id` and expect `status`; the
 * sandbox must not be returned on an error. */
static void expect_create(sbx_rt *rt, const char *sandbox_id, const char *user_id,
                          sbx_status status, sbx_error *err)
{
    sbx_create_request request = sbx_rt_create_request(sandbox_id, "thread-1", user_id);
    sbx_sandbox *sandbox = NULL;
    CU_ASSERT_EQUAL(sbx_backend_create(rt->backend, &request, &sandbox, err), status);
    CU_ASSERT_EQUAL(err->kind, status);
    if (status != SBX_OK)
        CU_ASSERT_PTR_NULL(sandbox);
    if (sandbox != NULL)
        sbx_backend_free_sandboxes(rt->backend, sandbox, 1);
}

/* seed: test_create_rejects_nondefault_user_on_unverified_legacy_provisioner */
/* "Unverified": every capabilities probe fails, so no version is known. */
static void test_unverified_provisioner_refuses_other_users(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_fault(&rt, "capabilities", "drop", -1);
    sbx_error err;
    expect_create(&rt, "sandbox-1", "alice", SBX_ERR_REFUSED, &err);
    CU_ASSERT(sbx_rt_contains(err.message, "cannot isolate user 'alice'"));
    CU_ASSERT_EQUAL(sbx_rt_count_requests(&rt, "POST", "/api/sandboxes"), 0);
    sbx_rt_stop(&rt);
}

/* Not in the seed (rule 2, the other half): a verified legacy provisioner
 * also cannot isolate users. */
static void test_known_legacy_provisioner_refuses_other_users(void)
{
    sbx_rt rt;
    if (!start_knowing(&rt, NULL, 0))
        return;
    sbx_error err;
    expect_create(&rt, "sandbox-1", "alice", SBX_ERR_REFUSED, &err);
    CU_ASSERT(sbx_rt_contains(err.message, "cannot isolate user 'alice'"));
    CU_ASSERT_EQUAL(sbx_rt_count_requests(&rt, "POST", "/api/sandboxes"), 0);
    sbx_rt_stop(&rt);
}

/* A contract-2 create of abc123 by alice answered with `answer`: expect a
 * protocol error naming the mount contract response. */
static void expect_identity_mismatch(const char *answer)
{
    sbx_rt rt;
    if (!start_knowing(&rt, contract_2, 2))
        return;
    sbx_rt_respond(&rt, "create", 200, answer, NULL, 1);
    sbx_error err;
    expect_create(&rt, "abc123", "alice", SBX_ERR_PROTOCOL, &err);
    CU_ASSERT(sbx_rt_contains(err.message, "mount contract response"));
    sbx_rt_stop(&rt);
}

/* seed: test_current_contract_create_rejects_mismatched_identity[response_payload0] */
static void test_identity_mismatch_other_user(void)
{
    expect_identity_mismatch(
        "{\"sandbox_id\":\"abc123\",\"sandbox_url\":\"http://k3s:31001\",\"user_id\":\"mallory\","
        "\"thread_id\":\"thread-1\",\"mount_contract_version\":2}");
}

/* seed: test_current_contract_create_rejects_mismatched_identity[response_payload1] */
static void test_identity_mismatch_other_thread(void)
{
    expect_identity_mismatch(
        "{\"sandbox_id\":\"abc123\",\"sandbox_url\":\"http://k3s:31001\",\"user_id\":\"alice\","
        "\"thread_id\":\"other-thread\",\"mount_contract_version\":2}");
}

/* A create of abc123 by `user_id` on a provisioner known at `known`,
 * answered with `answer`: expect "mount contract changed" with
 * expected/actual, and the cache marked stale. */
static void expect_response_contract_change(const char *const *args, int known,
                                            const char *user_id, const char *answer,
                                            int actual)
{
    sbx_rt rt;
    if (!start_knowing(&rt, args, known))
        return;
    sbx_rt_respond(&rt, "create", 200, answer, NULL, 1);
    sbx_error err;
    expect_create(&rt, "abc123", user_id, SBX_ERR_CONTRACT_CHANGED, &err);
    CU_ASSERT_EQUAL(err.expected_contract, known);
    CU_ASSERT_EQUAL(err.actual_contract, actual);
    CU_ASSERT(sbx_rt_capabilities_call_probes(&rt));
    sbx_rt_stop(&rt);
}

/* seed: test_current_contract_create_restarts_after_response_contract_change[response_payload0] */
/* An answer without mount_contract_version counts as version 0. */
static void test_response_without_contract_restarts(void)
{
    expect_response_contract_change(
        contract_2, 2, "alice",
        "{\"sandbox_id\":\"abc123\",\"sandbox_url\":\"http://k3s:31001\"}", 0);
}

/* seed: test_current_contract_create_restarts_after_response_contract_change[response_payload1] */
static void test_response_with_older_contract_restarts(void)
{
    expect_response_contract_change(
        contract_2, 2, "alice",
        "{\"sandbox_id\":\"abc123\",\"sandbox_url\":\"http://k3s:31001\",\"user_id\":\"alice\","
        "\"thread_id\":\"thread-1\",\"mount_contract_version\":1}", 1);
}

/* seed: test_legacy_create_restarts_when_response_advertises_another_version */
static void test_legacy_create_restarts_on_advertised_version(void)
{
    expect_response_contract_change(
        NULL, 0, "default",
        "{\"sandbox_id\":\"abc123\",\"sandbox_url\":\"http://legacy.local\","
        "\"mount_contract_version\":1}", 1);
}

/* seed: test_current_contract_create_returns_verified_identity */
static void test_create_returns_verified_identity(void)
{
    sbx_rt rt;
    if (!start_knowing(&rt, contract_2, 2))
        return;
    if (sbx_rt_is_emulator(&rt))
        sbx_rt_respond(&rt, "create", 200,
                       "{\"sandbox_id\":\"abc123\",\"sandbox_url\":\"http://k3s:31001\","
                       "\"user_id\":\"alice\",\"thread_id\":\"thread-1\","
                       "\"mount_contract_version\":2}",
                       NULL, 1);
    sbx_create_request request = sbx_rt_create_request("abc123", "thread-1", "alice");
    sbx_error err;
    sbx_sandbox *sandbox = sbx_rt_create_ok(&rt, &request, &err);
    if (sandbox != NULL) {
        SBX_RT_ASSERT_STR(sandbox->sandbox_id, "abc123");
        SBX_RT_ASSERT_STR(sandbox->user_id, "alice");
        SBX_RT_ASSERT_STR(sandbox->thread_id, "thread-1");
        CU_ASSERT_EQUAL(sandbox->mount_contract_version, 2);
        sbx_backend_free_sandboxes(rt.backend, sandbox, 1);
    }
    /* a verified answer leaves the fresh cache alone */
    CU_ASSERT_FALSE(sbx_rt_capabilities_call_probes(&rt));
    sbx_rt_stop(&rt);
}

/* seed: test_create_keeps_v2_response_validation_when_capability_changes_during_post */
/* The capability changes between the freeze and the answer: the provisioner
 * drops to contract 0 after the backend learnt 2, and answers the create as
 * a legacy peer.  The answer is still validated against the frozen 2. */
static void test_create_validates_against_frozen_contract(void)
{
    sbx_rt rt;
    if (!start_knowing(&rt, contract_2, 2))
        return;
    sbx_rt_set_contract(&rt, 0);
    sbx_rt_respond(&rt, "create", 200,
                   "{\"sandbox_id\":\"abc123\",\"sandbox_url\":\"http://legacy.local\"}", NULL, 1);
    sbx_error err;
    expect_create(&rt, "abc123", "alice", SBX_ERR_CONTRACT_CHANGED, &err);
    sbx_rt_expect_reprobe_after_create(&rt, 2, 0);
    sbx_rt_stop(&rt);
}

/* seed: test_create_restarts_when_required_mount_contract_changed */
static void test_required_contract_mismatch_sends_nothing(void)
{
    sbx_rt rt;
    if (!start_knowing(&rt, NULL, 0))
        return;
    sbx_create_request request = sbx_rt_create_request("sandbox-v2", "thread-1", "default");
    request.required_contract = 2;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_rt_create_discarding(&rt, &request, &err), SBX_ERR_CONTRACT_CHANGED);
    CU_ASSERT_EQUAL(err.expected_contract, 2);
    CU_ASSERT_EQUAL(err.actual_contract, 0);
    CU_ASSERT_EQUAL(sbx_rt_count_requests(&rt, "POST", "/api/sandboxes"), 0);
    sbx_rt_stop(&rt);
}

/* seed: test_create_accepts_and_validates_future_compatible_contract */
static void test_create_accepts_future_contract(void)
{
    sbx_rt rt;
    if (!start_knowing(&rt, contract_3, 3))
        return;
    sbx_rt_respond(&rt, "create", 200,
                   "{\"sandbox_id\":\"sandbox-v3\",\"sandbox_url\":\"http://v3.local\","
                   "\"user_id\":\"alice\",\"thread_id\":\"thread-1\",\"mount_contract_version\":3}",
                   NULL, 1);
    sbx_create_request request = sbx_rt_create_request("sandbox-v3", "thread-1", "alice");
    sbx_error err;
    sbx_sandbox *sandbox = sbx_rt_create_ok(&rt, &request, &err);
    if (sandbox != NULL) {
        CU_ASSERT_EQUAL(sandbox->mount_contract_version, 3);
        sbx_backend_free_sandboxes(rt.backend, sandbox, 1);
    }
    json_object *body = sbx_rt_last_create_body(&rt);
    CU_ASSERT(sbx_rt_json_int_is(body, "required_mount_contract_version", 3));
    json_object_put(body);
    sbx_rt_stop(&rt);
}

/* seed: test_create_sends_frozen_mount_contract_as_a_provisioner_precondition */
static void test_create_sends_frozen_contract(void)
{
    sbx_rt rt;
    if (!start_knowing(&rt, contract_2, 2))
        return;
    if (sbx_rt_is_emulator(&rt))
        sbx_rt_respond(&rt, "create", 200,
                       "{\"sandbox_id\":\"sandbox-v2\",\"sandbox_url\":\"http://v2.local\","
                       "\"user_id\":\"alice\",\"thread_id\":\"thread-1\","
                       "\"mount_contract_version\":2}",
                       NULL, 1);
    sbx_error err;
    /* sbx-provisiond answers 409 to any other precondition than its 2 */
    expect_create(&rt, "sandbox-v2", "alice", SBX_OK, &err);
    if (sbx_rt_is_emulator(&rt)) {
        json_object *body = sbx_rt_last_create_body(&rt);
        CU_ASSERT(sbx_rt_json_int_is(body, "required_mount_contract_version", 2));
        json_object_put(body);
    }
    sbx_rt_stop(&rt);
}

/* seed: test_create_retries_structured_provisioner_contract_precondition_failure */
static void test_structured_409_reports_contract_change(void)
{
    sbx_rt rt;
    if (!start_knowing(&rt, contract_2, 2))
        return;
    sbx_rt_respond(&rt, "create", 409,
                   "{\"detail\":{\"code\":\"mount_contract_changed\",\"expected\":2,\"actual\":3}}",
                   NULL, 1);
    sbx_error err;
    expect_create(&rt, "sandbox-v2", "alice", SBX_ERR_CONTRACT_CHANGED, &err);
    CU_ASSERT_EQUAL(err.expected_contract, 2);
    CU_ASSERT_EQUAL(err.actual_contract, 3);
    CU_ASSERT_EQUAL(err.http_status, 409);
    CU_ASSERT(sbx_rt_capabilities_call_probes(&rt));
    sbx_rt_stop(&rt);
}

/* Not in the seed: the emulator's own 409 (its contract moved from 2 to 3
 * after the backend learnt 2); the caller re-decides and the retry, after
 * the re-probe, succeeds at 3. */
static void test_provisioner_contract_move_then_retry(void)
{
    sbx_rt rt;
    if (!start_knowing(&rt, contract_2, 2))
        return;
    sbx_rt_set_contract(&rt, 3);
    sbx_error err;
    expect_create(&rt, "sandbox-v2", "alice", SBX_ERR_CONTRACT_CHANGED, &err);
    CU_ASSERT_EQUAL(err.expected_contract, 2);
    CU_ASSERT_EQUAL(err.actual_contract, 3);
    CU_ASSERT_EQUAL(sbx_rt_contract(&rt), 3);
    expect_create(&rt, "sandbox-v2", "alice", SBX_OK, &err);
    json_object *body = sbx_rt_last_create_body(&rt);
    CU_ASSERT(sbx_rt_json_int_is(body, "required_mount_contract_version", 3));
    json_object_put(body);
    sbx_rt_stop(&rt);
}

/* A legacy create of sandbox-v0 answered with mount_contract_version
 * `version_json` (not an integer): expect a protocol error. */
static void expect_non_integer_contract_rejected(const char *version_json)
{
    sbx_rt rt;
    if (!start_knowing(&rt, NULL, 0))
        return;
    char answer[160];
    snprintf(answer, sizeof(answer),
             "{\"sandbox_id\":\"sandbox-v0\",\"sandbox_url\":\"http://legacy.local\","
             "\"mount_contract_version\":%s}", version_json);
    sbx_rt_respond(&rt, "create", 200, answer, NULL, 1);
    sbx_error err;
    expect_create(&rt, "sandbox-v0", "default", SBX_ERR_PROTOCOL, &err);
    CU_ASSERT(sbx_rt_contains(err.message, "mount contract response"));
    sbx_rt_stop(&rt);
}

/* seed: test_legacy_create_rejects_non_integer_response_contract[2] */
static void test_string_contract_rejected(void)
{
    expect_non_integer_contract_rejected("\"2\"");
}

/* seed: test_legacy_create_rejects_non_integer_response_contract[True] */
static void test_boolean_contract_rejected(void)
{
    expect_non_integer_contract_rejected("true");
}

/* Not in the seed (the reference client's rule): a null version is an
 * absent one, i.e. 0.  A legacy create accepts it ... */
static void test_legacy_create_accepts_null_contract(void)
{
    sbx_rt rt;
    if (!start_knowing(&rt, NULL, 0))
        return;
    sbx_rt_respond(&rt, "create", 200,
                   "{\"sandbox_id\":\"sandbox-v0\",\"sandbox_url\":\"http://legacy.local\","
                   "\"user_id\":null,\"thread_id\":null,\"mount_contract_version\":null}",
                   NULL, 1);
    sbx_error err;
    expect_create(&rt, "sandbox-v0", "default", SBX_OK, &err);
    sbx_rt_stop(&rt);
}

/* ... and a create frozen at 2 reads it as a move to 0. */
static void test_current_create_reads_null_contract_as_0(void)
{
    expect_response_contract_change(
        contract_2, 2, "alice",
        "{\"sandbox_id\":\"abc123\",\"sandbox_url\":\"http://k3s:31001\",\"user_id\":\"alice\","
        "\"thread_id\":\"thread-1\",\"mount_contract_version\":null}", 0);
}

/* Thread body: rule 7, asked by a host whose configuration enables thread
 * data mounts. */
static void *thread_data_mounts_thread(void *arg)
{
    sbx_rt_call *call = arg;
    call->result = sbx_backend_allows_thread_data_mounts(call->rt->backend, 1);
    sbx_rt_latch_arrive(call->done);
    return NULL;
}

/* seed: test_mount_mode_waits_for_an_inflight_stale_probe */
/* Over HTTP: the cache holds 2 but is stale (a 409 marked it), a probe is in
 * flight (held by the emulator), the provisioner drops to 0 meanwhile.  The
 * host's question must wait for that probe and answer from it (no), not from
 * the stale 2, and must not send a probe of its own.  (Also ported with a
 * fake clock in tests/remote-unit/test_contract_cache.c.) */
static void test_thread_data_mounts_wait_for_inflight_probe(void)
{
    sbx_rt rt;
    if (!start_knowing(&rt, contract_2, 2))
        return;
    sbx_rt_respond(&rt, "create", 409,
                   "{\"detail\":{\"code\":\"mount_contract_changed\",\"expected\":2,\"actual\":0}}",
                   NULL, 1);
    sbx_error err;
    expect_create(&rt, "abc123", "alice", SBX_ERR_CONTRACT_CHANGED, &err);
    sbx_rt_fault(&rt, "capabilities", "hold", 1);

    sbx_rt_latch done;
    if (!sbx_rt_latch_init_or_stop(&rt, &done))
        return;
    sbx_rt_call calls[2] = { { &rt, &done, -9 }, { &rt, &done, -9 } };
    pthread_t threads[2];
    /* both still blocked */
    int started = sbx_rt_pile_behind_held_probe(&rt, threads, calls, 2, 1,
                                                thread_data_mounts_thread);
    sbx_rt_set_contract(&rt, 0);
    sbx_rt_release(&rt, "capabilities");
    sbx_rt_finish_threads(&rt, threads, started, &done, 5000);
    sbx_rt_latch_destroy(&done);
    CU_ASSERT_EQUAL(calls[0].result, 0);   /* the probe learnt 0 */
    CU_ASSERT_EQUAL(calls[1].result, 0);   /* so: no thread data mounts */
    if (rt.emu != NULL)
        CU_ASSERT_EQUAL(sbx_test_emu_received(rt.emu, "capabilities"), 2);
    sbx_rt_stop(&rt);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "unverified_provisioner_refuses_other_users", test_unverified_provisioner_refuses_other_users },
        { "known_legacy_provisioner_refuses_other_users", test_known_legacy_provisioner_refuses_other_users },
        { "identity_mismatch_other_user", test_identity_mismatch_other_user },
        { "identity_mismatch_other_thread", test_identity_mismatch_other_thread },
        { "response_without_contract_restarts", test_response_without_contract_restarts },
        { "response_with_older_contract_restarts", test_response_with_older_contract_restarts },
        { "legacy_create_restarts_on_advertised_version", test_legacy_create_restarts_on_advertised_version },
        { "create_returns_verified_identity", test_create_returns_verified_identity },
        { "create_validates_against_frozen_contract", test_create_validates_against_frozen_contract },
        { "required_contract_mismatch_sends_nothing", test_required_contract_mismatch_sends_nothing },
        { "create_accepts_future_contract", test_create_accepts_future_contract },
        { "create_sends_frozen_contract", test_create_sends_frozen_contract },
        { "structured_409_reports_contract_change", test_structured_409_reports_contract_change },
        { "provisioner_contract_move_then_retry", test_provisioner_contract_move_then_retry },
        { "string_contract_rejected", test_string_contract_rejected },
        { "boolean_contract_rejected", test_boolean_contract_rejected },
        { "legacy_create_accepts_null_contract", test_legacy_create_accepts_null_contract },
        { "current_create_reads_null_contract_as_0", test_current_create_reads_null_contract_as_0 },
        { "thread_data_mounts_wait_for_inflight_probe", test_thread_data_mounts_wait_for_inflight_probe },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("seed_contract", NULL, NULL, tests);
}
