/* Seed port and more: reconciliation discovery (GET
 * /api/reconciliation/sandboxes/{id}) through the public host API, against
 * the provisioner emulator.  Only "found" and "absent" are authoritative;
 * everything else must come back "unknown" (never an error, never absent). */
#include <config.h>

#include <CUnit/CUnit.h>
#include <stdio.h>

#include "tests/remote/remote_fixture.h"
#include "tests/support/cunit_main.h"

/* The seed's "found" answer for old-id. */
static const char found_old_id[] =
    "{\"sandbox_id\":\"old-id\",\"status\":\"found\",\"backend_namespace\":\"namespace-uid-1\","
    "\"incarnation_id\":\"pod-uid-1\",\"sandbox_url\":\"http://sandbox-old\","
    "\"thread_id\":\"thread-1\",\"user_id\":\"alice\",\"mount_contract_version\":1}";

/* Reconcile old-id; the result is cleared by the caller. */
static sbx_status reconcile(sbx_rt *rt, sbx_reconciliation *out)
{
    sbx_error err;
    out->status = SBX_RECONCILE_FOUND;   /* a value the call must overwrite */
    out->sandbox = NULL;
    out->backend_namespace = NULL;
    out->incarnation_id = NULL;
    return sbx_backend_reconcile(rt->backend, "old-id", out, &err);
}

/* Reconcile old-id and expect SBX_OK with "unknown" and nothing attached. */
static void expect_unknown(sbx_rt *rt)
{
    sbx_reconciliation result;
    CU_ASSERT_EQUAL(reconcile(rt, &result), SBX_OK);
    CU_ASSERT_EQUAL(result.status, SBX_RECONCILE_UNKNOWN);
    CU_ASSERT_PTR_NULL(result.sandbox);
    sbx_backend_clear_reconciliation(rt->backend, &result);
}

/* Start an emulator whose reconciliation route answers `status`/`body` once
 * and expect "unknown". */
static void expect_unknown_for_answer(int status, const char *body)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_respond(&rt, "reconcile", status, body, NULL, 1);
    expect_unknown(&rt);
    sbx_rt_stop(&rt);
}

/* seed: test_reconciliation_discovery_does_not_trust_legacy_route_404 */
/* A provisioner without the route answers 404 {"detail":"Not Found"}. */
static void test_legacy_route_404_is_unknown(void)
{
    static const char *const args[] = { "--no-reconciliation", NULL };
    sbx_rt rt;
    if (!sbx_rt_start(&rt, args, NULL, NULL, 0))
        return;
    expect_unknown(&rt);
    CU_ASSERT_EQUAL(sbx_rt_count_requests(&rt, "GET", "/api/reconciliation/sandboxes/old-id"), 1);
    sbx_rt_stop(&rt);
}

/* seed: test_reconciliation_discovery_accepts_pod_authoritative_absence */
static void test_authoritative_absence(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    /* sbx-provisiond answers for itself: old-id is absent from its backend,
     * whose namespace it names */
    if (sbx_rt_is_emulator(&rt))
        sbx_rt_respond(&rt, "reconcile", 200,
                       "{\"sandbox_id\":\"old-id\",\"status\":\"absent\","
                       "\"backend_namespace\":\"namespace-uid-1\"}", NULL, 1);
    sbx_reconciliation result;
    CU_ASSERT_EQUAL(reconcile(&rt, &result), SBX_OK);
    CU_ASSERT_EQUAL(result.status, SBX_RECONCILE_ABSENT);
    if (sbx_rt_is_emulator(&rt)) {
        SBX_RT_ASSERT_STR(result.backend_namespace, "namespace-uid-1");
    } else {
        CU_ASSERT(result.backend_namespace != NULL && result.backend_namespace[0] != '\0');
    }
    CU_ASSERT_PTR_NULL(result.sandbox);
    sbx_backend_clear_reconciliation(rt.backend, &result);
    sbx_rt_stop(&rt);
}

/* seed: test_reconciliation_discovery_preserves_transport_uncertainty */
static void test_transport_failure_is_unknown(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_fault(&rt, "reconcile", "drop", -1);
    expect_unknown(&rt);
    sbx_rt_stop(&rt);
}

/* seed: test_reconciliation_discovery_accepts_exact_old_mount_contract */
static void test_found_with_old_contract(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_respond(&rt, "reconcile", 200, found_old_id, NULL, 1);
    sbx_reconciliation result;
    CU_ASSERT_EQUAL(reconcile(&rt, &result), SBX_OK);
    CU_ASSERT_EQUAL(result.status, SBX_RECONCILE_FOUND);
    CU_ASSERT_PTR_NOT_NULL(result.sandbox);
    if (result.sandbox != NULL) {
        SBX_RT_ASSERT_STR(result.sandbox->sandbox_id, "old-id");
        SBX_RT_ASSERT_STR(result.sandbox->sandbox_url, "http://sandbox-old");
        SBX_RT_ASSERT_STR(result.sandbox->user_id, "alice");
        SBX_RT_ASSERT_STR(result.sandbox->thread_id, "thread-1");
        CU_ASSERT_EQUAL(result.sandbox->mount_contract_version, 1);
        /* "found" is the answer's word, not the Pod's phase */
        CU_ASSERT_PTR_NULL(result.sandbox->status);
    }
    SBX_RT_ASSERT_STR(result.backend_namespace, "namespace-uid-1");
    SBX_RT_ASSERT_STR(result.incarnation_id, "pod-uid-1");
    sbx_backend_clear_reconciliation(rt.backend, &result);
    CU_ASSERT_PTR_NULL(result.sandbox);
    sbx_rt_stop(&rt);
}

/* Not in the seed: the emulator's own answers, found for a stored sandbox
 * (with its namespace and incarnation uids) and absent for another id. */
static void test_emulator_found_then_absent(void)
{
    static const char *const args[] = { "--contract", "2", NULL };
    sbx_rt rt;
    if (!sbx_rt_start(&rt, args, NULL, NULL, 0))
        return;
    sbx_rt_put_sandbox(&rt, "old-id",
                       "{\"sandbox_id\":\"old-id\",\"sandbox_url\":\"http://sandbox-old\","
                       "\"status\":\"Running\",\"user_id\":\"alice\",\"thread_id\":\"thread-1\","
                       "\"mount_contract_version\":2}");
    sbx_reconciliation found;
    CU_ASSERT_EQUAL(reconcile(&rt, &found), SBX_OK);
    CU_ASSERT_EQUAL(found.status, SBX_RECONCILE_FOUND);
    CU_ASSERT_PTR_NOT_NULL(found.backend_namespace);
    CU_ASSERT_PTR_NOT_NULL(found.incarnation_id);
    if (found.sandbox != NULL)
        CU_ASSERT_EQUAL(found.sandbox->mount_contract_version, 2);
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_destroy(rt.backend, "old-id", &err), SBX_OK);
    sbx_reconciliation absent;
    CU_ASSERT_EQUAL(reconcile(&rt, &absent), SBX_OK);
    CU_ASSERT_EQUAL(absent.status, SBX_RECONCILE_ABSENT);
    CU_ASSERT_PTR_NULL(absent.sandbox);
    /* the same namespace incarnation answered both */
    SBX_RT_ASSERT_STR(absent.backend_namespace, found.backend_namespace);
    sbx_backend_clear_reconciliation(rt.backend, &found);
    sbx_backend_clear_reconciliation(rt.backend, &absent);
    sbx_rt_stop(&rt);
}

/* Not in the seed (the reference client's rule): "found" with the Pod there
 * but its Service gone answers sandbox_url null, or none.  It is found, so
 * that the half-deleted sandbox can be adopted or removed by incarnation,
 * with no sandbox record, as there is no address to reach it at. */
static void expect_found_without_address(const char *url_member)
{
    char body[512];
    snprintf(body, sizeof body,
             "{\"sandbox_id\":\"old-id\",\"status\":\"found\","
             "\"backend_namespace\":\"namespace-uid-1\",\"incarnation_id\":\"pod-uid-1\"%s,"
             "\"thread_id\":\"thread-1\",\"user_id\":\"alice\",\"mount_contract_version\":2}",
             url_member);
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_respond(&rt, "reconcile", 200, body, NULL, 1);
    sbx_reconciliation result;
    CU_ASSERT_EQUAL(reconcile(&rt, &result), SBX_OK);
    CU_ASSERT_EQUAL(result.status, SBX_RECONCILE_FOUND);
    CU_ASSERT_PTR_NULL(result.sandbox);
    SBX_RT_ASSERT_STR(result.backend_namespace, "namespace-uid-1");
    SBX_RT_ASSERT_STR(result.incarnation_id, "pod-uid-1");
    sbx_backend_clear_reconciliation(rt.backend, &result);
    sbx_rt_stop(&rt);
}

static void test_found_with_null_url_has_no_sandbox(void)
{
    expect_found_without_address(",\"sandbox_url\":null");
}

static void test_found_without_url_has_no_sandbox(void)
{
    expect_found_without_address("");
}

/* An empty or ill-typed address is not the half-deleted state: unknown. */
static void test_found_with_empty_url_is_unknown(void)
{
    expect_unknown_for_answer(
        200,
        "{\"sandbox_id\":\"old-id\",\"status\":\"found\",\"backend_namespace\":\"n\","
        "\"incarnation_id\":\"p\",\"sandbox_url\":\"\",\"thread_id\":null,"
        "\"user_id\":\"alice\",\"mount_contract_version\":2}");
}

/* Not in the seed: a 5xx teaches nothing. */
static void test_server_error_is_unknown(void)
{
    expect_unknown_for_answer(500, "{\"detail\":\"Failed to list services: boom\"}");
}

/* Not in the seed: "found" without its incarnation is not authoritative. */
static void test_found_without_incarnation_is_unknown(void)
{
    expect_unknown_for_answer(
        200,
        "{\"sandbox_id\":\"old-id\",\"status\":\"found\",\"backend_namespace\":\"namespace-uid-1\","
        "\"sandbox_url\":\"http://sandbox-old\",\"thread_id\":\"thread-1\",\"user_id\":\"alice\","
        "\"mount_contract_version\":1}");
}

/* Not in the seed: "found" with an ill-typed contract version is not
 * authoritative. */
static void test_found_with_string_contract_is_unknown(void)
{
    expect_unknown_for_answer(
        200,
        "{\"sandbox_id\":\"old-id\",\"status\":\"found\",\"backend_namespace\":\"namespace-uid-1\","
        "\"incarnation_id\":\"pod-uid-1\",\"sandbox_url\":\"http://sandbox-old\","
        "\"thread_id\":\"thread-1\",\"user_id\":\"alice\",\"mount_contract_version\":\"1\"}");
}

/* Not in the seed: "absent" without the namespace it speaks for is not
 * authoritative. */
static void test_absent_without_namespace_is_unknown(void)
{
    expect_unknown_for_answer(200, "{\"sandbox_id\":\"old-id\",\"status\":\"absent\"}");
}

/* Not in the seed: an unexpected status word is unknown. */
static void test_unexpected_status_word_is_unknown(void)
{
    expect_unknown_for_answer(
        200, "{\"sandbox_id\":\"old-id\",\"status\":\"weird\","
             "\"backend_namespace\":\"namespace-uid-1\"}");
}

/* Not in the seed: a body that is not JSON is unknown. */
static void test_garbage_answer_is_unknown(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_fault(&rt, "reconcile", "garbage", 1);
    expect_unknown(&rt);
    sbx_rt_stop(&rt);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "legacy_route_404_is_unknown", test_legacy_route_404_is_unknown },
        { "authoritative_absence", test_authoritative_absence },
        { "transport_failure_is_unknown", test_transport_failure_is_unknown },
        { "found_with_old_contract", test_found_with_old_contract },
        { "emulator_found_then_absent", test_emulator_found_then_absent },
        { "found_with_null_url_has_no_sandbox", test_found_with_null_url_has_no_sandbox },
        { "found_without_url_has_no_sandbox", test_found_without_url_has_no_sandbox },
        { "found_with_empty_url_is_unknown", test_found_with_empty_url_is_unknown },
        { "server_error_is_unknown", test_server_error_is_unknown },
        { "found_without_incarnation_is_unknown", test_found_without_incarnation_is_unknown },
        { "found_with_string_contract_is_unknown", test_found_with_string_contract_is_unknown },
        { "absent_without_namespace_is_unknown", test_absent_without_namespace_is_unknown },
        { "unexpected_status_word_is_unknown", test_unexpected_status_word_is_unknown },
        { "garbage_answer_is_unknown", test_garbage_answer_is_unknown },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("seed_reconcile", NULL, NULL, tests);
}
