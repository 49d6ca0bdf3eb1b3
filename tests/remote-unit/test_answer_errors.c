/* How a failed answer becomes the caller's error: the kind per status, the
 * "<what>: HTTP <status> <detail>" message, and the API key never shown even
 * when a peer echoes it. */
#include <config.h>

#include "tests/support/cunit_main.h"
#include "tests/support/secret_runs.h"

#include "plugin/remote/remote_answer_errors.h"

#include <sbx/backend_support.h>
#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY "k-3f9a1c7e5b2d8a4f6c0e9b1d3a5f7c2e"

/* remote_answer_error for an answer of `status` with `body`, from a
 * backend whose API key is `key`. */
static sbx_status answer_keyed(const char *key, long status, const char *body, sbx_error *err)
{
    remote_options opts;
    memset(&opts, 0, sizeof opts);
    char *key_copy = strdup(key);
    opts.api_key = key_copy;
    common_http_response resp = { .status = status, .body = (char *)body,
                               .body_len = strlen(body) };
    sbx_error_clear(err);
    sbx_status kind = remote_answer_error(&opts, &resp,
                                          "Provisioner health check failed for abc123", err);
    free(key_copy);
    return kind;
}

static sbx_status answer(long status, const char *body, sbx_error *err)
{
    return answer_keyed(KEY, status, body, err);
}

/* The message port of test_provisioner_is_alive_raises_on_server_error. */
static void test_server_error_carries_status_and_text(void)
{
    sbx_error err;
    CU_ASSERT_EQUAL(answer(503, "unavailable", &err), SBX_ERR_PROVISIONER);
    CU_ASSERT_STRING_EQUAL(err.message,
                           "Provisioner health check failed for abc123: HTTP 503 unavailable");
    CU_ASSERT_EQUAL(err.http_status, 503);
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_PROVISIONER);
}

static void test_kinds_by_status(void)
{
    sbx_error err;
    CU_ASSERT_EQUAL(answer(401, "Unauthorized", &err), SBX_ERR_UNAUTHORIZED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "HTTP 401 Unauthorized"));
    CU_ASSERT_EQUAL(answer(403, "", &err), SBX_ERR_UNAUTHORIZED);
    CU_ASSERT_EQUAL(answer(404, "{\"detail\":\"Not Found\"}", &err), SBX_ERR_PROVISIONER);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "HTTP 404 Not Found"));
    CU_ASSERT_EQUAL(answer(500, "{\"detail\":\"Pod creation failed: Unprocessable Entity\"}", &err),
                    SBX_ERR_PROVISIONER);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "HTTP 500 Pod creation failed"));
    CU_ASSERT_EQUAL(answer(302, "", &err), SBX_ERR_PROTOCOL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "redirects are not followed"));
    CU_ASSERT_EQUAL(err.http_status, 302);
    CU_ASSERT_EQUAL(answer(204, "", &err), SBX_ERR_PROTOCOL);
}

/* A long detail is cut where the message shows the cut: it used to end in
 * the 319th byte of the server's text, as if that were all it said. */
static void test_long_detail_is_cut_visibly(void)
{
    char body[1000];
    memset(body, 'x', sizeof body - 1);
    body[sizeof body - 1] = '\0';
    sbx_error err;
    CU_ASSERT_EQUAL(answer(500, body, &err), SBX_ERR_PROVISIONER);
    const char *tail = "xxx" SBX_CUT_MARK;
    size_t len = strlen(err.message);
    CU_ASSERT(len < sizeof err.message - 1);
    CU_ASSERT(len > strlen(tail) && strcmp(err.message + len - strlen(tail), tail) == 0);
}

/* The class: a peer echoing the key, once or more, in each shape of a
 * detail.  Every whole occurrence becomes one fixed mask, which tells
 * nothing of the length; the rest of the detail is shown as it was
 * written, also words that share characters with the key (issue 20). */
static void test_an_echoed_key_is_masked(void)
{
    static const char *const bodies[] = {
        "{\"detail\":\"bad key " KEY " for " KEY "\"}",
        "key=" KEY,
        "{\"detail\":[{\"loc\":[\"header\",\"x-api-key\"],\"msg\":\"bad " KEY "\"}]}",
        "{\"detail\":\"glued" KEY "to words\"}",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        sbx_error err;
        answer(400, bodies[i], &err);
        CU_ASSERT_PTR_NULL(strstr(err.message, KEY));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "***"));
        CU_ASSERT_PTR_NULL(strstr(err.message, "****"));
    }
    sbx_error err;
    answer(400, "{\"detail\":\"bad key " KEY " for " KEY "\"}", &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "HTTP 400 bad key *** for ***"));
    static const char *const kept[] = {
        "sandbox k-3f9a1c7e-1 not found", "user 3a5f7c2e", "k-3 is fine",
    };
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
        char body[128];
        snprintf(body, sizeof body, "{\"detail\":\"%s\"}", kept[i]);
        answer(404, body, &err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, kept[i]));
    }
}

/* A key standing across the point where a long detail is cut is masked
 * whole, not shown up to the cut: the detail is masked before it is cut. */
static void test_a_key_across_the_cut_is_masked(void)
{
    char body[1000];
    for (size_t before = 300; before < 330; before++) {
        memset(body, 'x', before);
        snprintf(body + before, sizeof body - before, " %s %0200d", KEY, 0);
        sbx_error err;
        answer(500, body, &err);
        CU_ASSERT(!sbx_test_holds_run_of(err.message, KEY));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, SBX_CUT_MARK));
    }
}

/* A key shorter than 8 bytes is masked where it stands as a word of its
 * own, never inside a longer token such as an id ("keep-me" with the key
 * "k" was shown as "***eep-me"). */
static void test_a_short_key_is_masked_only_as_a_word(void)
{
    static const struct {
        const char *key, *body, *shown;
    } cases[] = {
        { "k", "{\"detail\":\"bad key k\"}", "HTTP 401 bad key ***" },
        { "k", "{\"detail\":\"x-api-key=k, sandbox keep-me\"}",
          "x-api-key=***, sandbox keep-me" },
        { "k", "{\"detail\":\"sandbox keep-me of kim (th-k) not found\"}",
          "sandbox keep-me of kim (th-k) not found" },
        { "realkey", "{\"detail\":\"key 'realkey' refused for sb-real-1 and sb-realkey-2\"}",
          "key '***' refused for sb-real-1 and sb-realkey-2" },
        { "realkey", "realkey", "HTTP 401 ***" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sbx_error err;
        answer_keyed(cases[i].key, 401, cases[i].body, &err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, cases[i].shown));
        if (strstr(err.message, cases[i].shown) == NULL)
            fprintf(stderr, "[%s], expected [%s]\n", err.message, cases[i].shown);
    }
}

/* The real provisioner's 409 for an id that belongs to another user or
 * thread: refused (not a server fault), with its detail. */
static void test_conflict_is_refused(void)
{
    sbx_error err;
    CU_ASSERT_EQUAL(answer(409, "{\"detail\":\"Existing sandbox 'abc123' belongs to another "
                                "user\"}", &err), SBX_ERR_REFUSED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "HTTP 409 Existing sandbox 'abc123' belongs to "
                                               "another user"));
    CU_ASSERT_EQUAL(err.http_status, 409);
}

static void test_wrapping_keeps_the_cause(void)
{
    sbx_error cause, err;
    sbx_error_set(&cause, SBX_ERR_CONTRACT_CHANGED, "inner");
    cause.expected_contract = 2;
    cause.actual_contract = 3;
    cause.http_status = 409;
    CU_ASSERT_EQUAL(remote_wrap_error(&cause, "outer", &err), SBX_ERR_CONTRACT_CHANGED);
    CU_ASSERT_STRING_EQUAL(err.message, "outer: inner");
    CU_ASSERT_EQUAL(err.expected_contract, 2);
    CU_ASSERT_EQUAL(err.actual_contract, 3);
    CU_ASSERT_EQUAL(err.http_status, 409);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "server_error_carries_status_and_text", test_server_error_carries_status_and_text },
        { "kinds_by_status", test_kinds_by_status },
        { "long_detail_is_cut_visibly", test_long_detail_is_cut_visibly },
        { "an_echoed_key_is_masked", test_an_echoed_key_is_masked },
        { "a_key_across_the_cut_is_masked", test_a_key_across_the_cut_is_masked },
        { "a_short_key_is_masked_only_as_a_word", test_a_short_key_is_masked_only_as_a_word },
        { "conflict_is_refused", test_conflict_is_refused },
        { "wrapping_keeps_the_cause", test_wrapping_keeps_the_cause },
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("remote answer errors", NULL, NULL, tests);
}
