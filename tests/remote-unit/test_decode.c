/* Decoders of provisioner answers on good and bad input: strict types,
 * the list's skip-and-warn rules, reconciliation's three outcomes, and the
 * error detail text a user reads. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "common/json_fields.h"
#include "common/sandbox_records.h"
#include "plugin/remote/remote_create_spec.h"
#include "plugin/remote/remote_decode.h"
#include "plugin/remote/remote_extend.h"
#include "plugin/remote/remote_sandbox_answer.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers */

typedef struct warnings {
    int count;
    char last[SBX_ERROR_MESSAGE_MAX + 64];
} warnings;

static void collect(void *ctx, const char *message)
{
    warnings *w = ctx;
    w->count++;
    snprintf(w->last, sizeof w->last, "%s", message);
}

static sbx_status decode_list(const char *body, sbx_sandbox **out, size_t *count, warnings *w)
{
    sbx_error err;
    memset(w, 0, sizeof *w);
    remote_warner warn = { collect, w };
    return remote_decode_list(body, strlen(body), &warn, out, count, &err);
}

static sbx_status decode_one(const char *body, sbx_sandbox *sb, sbx_error *err)
{
    struct json_object *root = common_json_parse(body, strlen(body));
    sbx_status st = remote_decode_sandbox(root, sb, err);
    json_object_put(root);
    return st;
}

static sbx_reconcile_status reconcile(const char *body, sbx_reconciliation *out)
{
    const char *why = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(remote_decode_reconciliation(body, strlen(body), "old-id", out, &why,
                                                 &err), SBX_OK);
    CU_ASSERT((out->status == SBX_RECONCILE_UNKNOWN) == (why != NULL));
    return out->status;
}

/* ---------------------------------------------------------------- sandbox */

static void test_sandbox_with_full_identity(void)
{
    sbx_sandbox sb;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(decode_one("{\"sandbox_id\":\"abc123\",\"sandbox_url\":\"http://k3s:31001\","
                                     "\"user_id\":\"alice\",\"thread_id\":\"thread-1\","
                                     "\"mount_contract_version\":2,\"status\":\"Running\"}",
                                     &sb, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(sb.sandbox_id, "abc123");
    CU_ASSERT_STRING_EQUAL(sb.sandbox_url, "http://k3s:31001");
    CU_ASSERT_STRING_EQUAL(sb.user_id, "alice");
    CU_ASSERT_STRING_EQUAL(sb.thread_id, "thread-1");
    CU_ASSERT_STRING_EQUAL(sb.status, "Running");
    CU_ASSERT_EQUAL(sb.mount_contract_version, 2);
    common_sandbox_record_clear(&sb);
}

/* incarnation_id of a lookup answer, read or "" (the answer is accepted). */
static void incarnation_of(const char *answer, char *out, size_t cap)
{
    remote_sandbox_answer a;
    remote_fields f;
    sbx_error err;
    out[0] = '\0';
    CU_ASSERT_EQUAL(remote_sandbox_answer_read(answer, strlen(answer), &a, &f, &err), SBX_OK);
    if (f.text[REMOTE_FIELD_INCARNATION] != NULL)
        snprintf(out, cap, "%s", f.text[REMOTE_FIELD_INCARNATION]);
    remote_sandbox_answer_free(&a);
}

/* incarnation_id is optional: read when a clean string, else as absent,
 * and never a reason to refuse the sandbox. */
static void test_incarnation_is_read_and_never_refused(void)
{
#define SANDBOX_HEAD "{\"sandbox_id\":\"a1\",\"sandbox_url\":\"http://h:1\",\"status\":\"Running\""
    char got[64];
    incarnation_of(SANDBOX_HEAD ",\"incarnation_id\":\"inc-7\"}", got, sizeof got);
    CU_ASSERT_STRING_EQUAL(got, "inc-7");
    incarnation_of(SANDBOX_HEAD "}", got, sizeof got);
    CU_ASSERT_STRING_EQUAL(got, "");
    incarnation_of(SANDBOX_HEAD ",\"incarnation_id\":7}", got, sizeof got);
    CU_ASSERT_STRING_EQUAL(got, "");
    incarnation_of(SANDBOX_HEAD ",\"incarnation_id\":\"a\\u0000b\"}", got, sizeof got);
    CU_ASSERT_STRING_EQUAL(got, "");
#undef SANDBOX_HEAD
}

static void test_legacy_sandbox_has_unknown_identity(void)
{
    sbx_sandbox sb;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(decode_one("{\"sandbox_id\":\"abc123\",\"sandbox_url\":\"http://k3s:31001\","
                                     "\"thread_id\":null}", &sb, &err), SBX_OK);
    CU_ASSERT_PTR_NULL(sb.user_id);
    CU_ASSERT_PTR_NULL(sb.thread_id);
    CU_ASSERT_PTR_NULL(sb.status);
    CU_ASSERT_EQUAL(sb.mount_contract_version, SBX_CONTRACT_NONE);
    common_sandbox_record_clear(&sb);
}

static void test_ill_typed_sandboxes_are_protocol_errors(void)
{
    const char *bad[] = {
        "[]", "\"abc\"", "{}",
        "{\"sandbox_id\":\"abc\"}",
        "{\"sandbox_id\":\"\",\"sandbox_url\":\"http://x\"}",
        "{\"sandbox_id\":7,\"sandbox_url\":\"http://x\"}",
        "{\"sandbox_id\":\"a\",\"sandbox_url\":\"http://x\",\"user_id\":5}",
        "{\"sandbox_id\":\"a\",\"sandbox_url\":\"http://x\",\"mount_contract_version\":\"2\"}",
        "{\"sandbox_id\":\"a\",\"sandbox_url\":\"http://x\",\"mount_contract_version\":true}",
        "{\"sandbox_id\":\"a\",\"sandbox_url\":\"http://x\",\"mount_contract_version\":2.5}",
        "{\"sandbox_id\":\"a\",\"sandbox_url\":\"http://x\",\"mount_contract_version\":-1}",
        "{\"sandbox_id\":\"a\",\"sandbox_url\":\"http://x\",\"mount_contract_version\":99999999999}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sbx_sandbox sb;
        sbx_error err;
        sbx_error_clear(&err);
        CU_ASSERT_EQUAL(decode_one(bad[i], &sb, &err), SBX_ERR_PROTOCOL);
        CU_ASSERT_EQUAL(err.kind, SBX_ERR_PROTOCOL);
        CU_ASSERT_PTR_NULL(sb.sandbox_id); /* nothing half-filled is handed back */
    }
}

/* Spellings of a string that a C consumer would cut short (an escaped NUL)
 * or that no JSON output could carry (bytes that are not UTF-8: a stray
 * continuation byte, an overlong form, a surrogate, a cut sequence, a byte
 * past U+10FFFF). */
static const char *const bad_text[] = {
    "alice\\u0000mallory", "alice\\u0000", "\\u0000", "al\xffice", "al\xc0\xafice",
    "al\xed\xa0\x80ice", "alice\xe2\x82", "al\xf5\x80\x80\x80ice", "\x80",
};

/* The text fields of a sandbox answer, and a good value for each. */
static const struct {
    const char *field;
    const char *good;
} text_fields[] = {
    { "sandbox_id", "abc123" }, { "sandbox_url", "http://k3s:31001" },
    { "user_id", "alice" },     { "thread_id", "th-1" },
    { "status", "Running" },
};
#define TEXT_FIELD_COUNT (sizeof text_fields / sizeof text_fields[0])

/* A sandbox object whose field `bad` (an index of text_fields, or
 * TEXT_FIELD_COUNT for none) holds `value`, into buf[cap]. */
static const char *sandbox_with(size_t bad, const char *value, char *buf, size_t cap)
{
    size_t used = (size_t)snprintf(buf, cap, "{\"mount_contract_version\":2");
    for (size_t i = 0; i < TEXT_FIELD_COUNT && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, ",\"%s\":\"%s\"", text_fields[i].field,
                                 i == bad ? value : text_fields[i].good);
    if (used < cap)
        snprintf(buf + used, cap - used, "}");
    return buf;
}

/* Issue 10 items 8 and 10: a NUL ("alice\u0000mallory" was read as alice)
 * or invalid UTF-8 in any text field of an answer is a protocol error
 * naming the field; well-formed non-ASCII text is read. */
static void test_text_fields_hold_no_nul_and_only_utf8(void)
{
    char body[256];
    for (size_t f = 0; f < TEXT_FIELD_COUNT; f++) {
        for (size_t v = 0; v < sizeof bad_text / sizeof bad_text[0]; v++) {
            sbx_sandbox sb;
            sbx_error err;
            sbx_error_clear(&err);
            CU_ASSERT_EQUAL(decode_one(sandbox_with(f, bad_text[v], body, sizeof body), &sb,
                                       &err), SBX_ERR_PROTOCOL);
            CU_ASSERT_PTR_NULL(sb.sandbox_id);
            char named[64];
            snprintf(named, sizeof named, "sandbox field %s holds a NUL byte or invalid UTF-8",
                     text_fields[f].field);
            CU_ASSERT_PTR_NOT_NULL(strstr(err.message, named));
        }
    }
    sbx_sandbox sb;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(decode_one("{\"sandbox_id\":\"abc123\",\"sandbox_url\":\"http://k3s:31001\","
                                     "\"status\":\"Caf\xc3\xa9 \xf0\x9f\x9a\x80 \\u00e9\"}", &sb,
                                     &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(sb.status, "Caf\xc3\xa9 \xf0\x9f\x9a\x80 \xc3\xa9");
    common_sandbox_record_clear(&sb);
}

/* ---------------------------------------------------------------- list */

/* Port of test_provisioner_list_returns_sandbox_infos_and_filters_invalid_entries. */
static void test_provisioner_list_returns_sandbox_infos_and_filters_invalid_entries(void)
{
    sbx_sandbox *list;
    size_t n;
    warnings w;
    CU_ASSERT_EQUAL_FATAL(decode_list("{\"sandboxes\":["
                                      "{\"sandbox_id\":\"abc123\",\"sandbox_url\":\"http://k3s:31001\"},"
                                      "{\"sandbox_id\":\"missing-url\"},"
                                      "{\"sandbox_url\":\"http://k3s:31002\"}]}",
                                      &list, &n, &w), SBX_OK);
    CU_ASSERT_EQUAL_FATAL(n, 1u);
    CU_ASSERT_STRING_EQUAL(list[0].sandbox_id, "abc123");
    CU_ASSERT_STRING_EQUAL(list[0].sandbox_url, "http://k3s:31001");
    CU_ASSERT_EQUAL(w.count, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(w.last, "skipping list entry #2"));
    common_sandbox_records_free(list, n);
}

/* Port of test_provisioner_list_returns_empty_when_payload_is_not_dict. */
static void test_provisioner_list_returns_empty_when_payload_is_not_dict(void)
{
    sbx_sandbox *list;
    size_t n;
    warnings w;
    CU_ASSERT_EQUAL(decode_list("[{\"sandbox_id\":\"abc\",\"sandbox_url\":\"http://k3s:31001\"}]",
                                &list, &n, &w), SBX_OK);
    CU_ASSERT_EQUAL(n, 0u);
    CU_ASSERT_PTR_NULL(list);
    CU_ASSERT_EQUAL(w.count, 1);
}

/* Port of test_provisioner_list_returns_empty_when_sandboxes_is_not_list. */
static void test_provisioner_list_returns_empty_when_sandboxes_is_not_list(void)
{
    sbx_sandbox *list;
    size_t n;
    warnings w;
    CU_ASSERT_EQUAL(decode_list("{\"sandboxes\":{\"sandbox_id\":\"abc\"}}", &list, &n, &w), SBX_OK);
    CU_ASSERT_EQUAL(n, 0u);
    CU_ASSERT_EQUAL(w.count, 1);
    CU_ASSERT_EQUAL(decode_list("{\"count\":0}", &list, &n, &w), SBX_OK);
    CU_ASSERT_EQUAL(n, 0u);
    CU_ASSERT_EQUAL(w.count, 1);
}

/* Port of test_provisioner_list_skips_non_dict_sandbox_entries. */
static void test_provisioner_list_skips_non_dict_sandbox_entries(void)
{
    sbx_sandbox *list;
    size_t n;
    warnings w;
    CU_ASSERT_EQUAL_FATAL(decode_list("{\"sandboxes\":["
                                      "{\"sandbox_id\":\"abc123\",\"sandbox_url\":\"http://k3s:31001\"},"
                                      "\"bad-entry\",123,null]}", &list, &n, &w), SBX_OK);
    CU_ASSERT_EQUAL_FATAL(n, 1u);
    CU_ASSERT_STRING_EQUAL(list[0].sandbox_id, "abc123");
    CU_ASSERT_STRING_EQUAL(list[0].sandbox_url, "http://k3s:31001");
    CU_ASSERT_EQUAL(w.count, 3);
    common_sandbox_records_free(list, n);
}

static void test_unparseable_list_is_a_protocol_error(void)
{
    sbx_sandbox *list;
    size_t n;
    warnings w;
    CU_ASSERT_EQUAL(decode_list("<html>502 Bad Gateway</html>", &list, &n, &w), SBX_ERR_PROTOCOL);
    CU_ASSERT_EQUAL(decode_list("{\"sandboxes\":[]} trailing", &list, &n, &w), SBX_ERR_PROTOCOL);
    CU_ASSERT_EQUAL(decode_list("", &list, &n, &w), SBX_ERR_PROTOCOL);
    CU_ASSERT_EQUAL(n, 0u);
}

/* Items 8 and 10 for list: an entry with a NUL or invalid UTF-8 in any
 * text field is skipped with a warning naming the field (as other invalid
 * entries are); the others are listed. */
static void test_list_skips_entries_with_bad_text(void)
{
    char entry[256], body[1024];
    for (size_t f = 0; f < TEXT_FIELD_COUNT; f++) {
        for (size_t v = 0; v < sizeof bad_text / sizeof bad_text[0]; v++) {
            snprintf(body, sizeof body,
                     "{\"sandboxes\":[%s,{\"sandbox_id\":\"good-1\",\"sandbox_url\":\"http://k3s:31002\"}],"
                     "\"count\":2}", sandbox_with(f, bad_text[v], entry, sizeof entry));
            sbx_sandbox *list;
            size_t n;
            warnings w;
            CU_ASSERT_EQUAL_FATAL(decode_list(body, &list, &n, &w), SBX_OK);
            CU_ASSERT_EQUAL(n, 1u);
            if (n == 1)
                CU_ASSERT_STRING_EQUAL(list[0].sandbox_id, "good-1");
            CU_ASSERT_EQUAL(w.count, 1);
            char named[64];
            snprintf(named, sizeof named, "field %s holds a NUL byte or invalid UTF-8",
                     text_fields[f].field);
            CU_ASSERT_PTR_NOT_NULL(strstr(w.last, "skipping list entry #0"));
            CU_ASSERT_PTR_NOT_NULL(strstr(w.last, named));
            common_sandbox_records_free(list, n);
        }
    }
}

/* ---------------------------------------------------------------- reconciliation */

/* Port of test_reconciliation_discovery_accepts_exact_old_mount_contract. */
static void test_reconciliation_discovery_accepts_exact_old_mount_contract(void)
{
    sbx_reconciliation r;
    CU_ASSERT_EQUAL_FATAL(reconcile("{\"sandbox_id\":\"old-id\",\"status\":\"found\","
                                    "\"backend_namespace\":\"namespace-uid-1\","
                                    "\"incarnation_id\":\"pod-uid-1\","
                                    "\"sandbox_url\":\"http://sandbox-old\","
                                    "\"thread_id\":\"thread-1\",\"user_id\":\"alice\","
                                    "\"mount_contract_version\":1}", &r),
                          SBX_RECONCILE_FOUND);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.sandbox);
    CU_ASSERT_STRING_EQUAL(r.sandbox->sandbox_id, "old-id");
    CU_ASSERT_EQUAL(r.sandbox->mount_contract_version, 1);
    CU_ASSERT_STRING_EQUAL(r.backend_namespace, "namespace-uid-1");
    CU_ASSERT_STRING_EQUAL(r.incarnation_id, "pod-uid-1");
    common_reconciliation_clear(&r);
    CU_ASSERT_PTR_NULL(r.sandbox);
}

/* Port of test_reconciliation_discovery_accepts_pod_authoritative_absence. */
static void test_reconciliation_discovery_accepts_pod_authoritative_absence(void)
{
    sbx_reconciliation r;
    CU_ASSERT_EQUAL(reconcile("{\"sandbox_id\":\"old-id\",\"status\":\"absent\","
                              "\"backend_namespace\":\"namespace-uid-1\"}", &r),
                    SBX_RECONCILE_ABSENT);
    CU_ASSERT_STRING_EQUAL(r.backend_namespace, "namespace-uid-1");
    CU_ASSERT_PTR_NULL(r.sandbox);
    CU_ASSERT_PTR_NULL(r.incarnation_id);
    common_reconciliation_clear(&r);
}

static void test_found_with_an_anonymous_thread(void)
{
    sbx_reconciliation r;
    CU_ASSERT_EQUAL(reconcile("{\"sandbox_id\":\"old-id\",\"status\":\"found\","
                              "\"backend_namespace\":\"ns\",\"incarnation_id\":\"pod\","
                              "\"sandbox_url\":\"http://s\",\"thread_id\":null,"
                              "\"user_id\":\"default\",\"mount_contract_version\":2}", &r),
                    SBX_RECONCILE_FOUND);
    CU_ASSERT_PTR_NULL(r.sandbox->thread_id);
    common_reconciliation_clear(&r);
}

/* Anything not exactly found/absent with well-typed fields is unknown:
 * unknown never licenses deleting state. */
static void test_reconciliation_is_unknown_unless_well_formed(void)
{
    const char *unknown[] = {
        "not json",
        "[]",
        "{\"sandbox_id\":\"old-id\",\"status\":\"absent\"}",
        "{\"sandbox_id\":\"old-id\",\"status\":\"absent\",\"backend_namespace\":\"\"}",
        "{\"sandbox_id\":\"other\",\"status\":\"absent\",\"backend_namespace\":\"ns\"}",
        "{\"status\":\"absent\",\"backend_namespace\":\"ns\"}",
        "{\"sandbox_id\":\"old-id\",\"status\":\"gone\",\"backend_namespace\":\"ns\"}",
        "{\"sandbox_id\":\"old-id\",\"status\":\"found\",\"backend_namespace\":\"ns\","
        "\"sandbox_url\":\"http://s\",\"thread_id\":\"t\",\"user_id\":\"alice\","
        "\"mount_contract_version\":1}",                               /* no incarnation */
        "{\"sandbox_id\":\"old-id\",\"status\":\"found\",\"backend_namespace\":\"ns\","
        "\"incarnation_id\":\"pod\",\"sandbox_url\":\"http://s\",\"thread_id\":\"t\","
        "\"user_id\":\"alice\",\"mount_contract_version\":\"1\"}",     /* string version */
        "{\"sandbox_id\":\"old-id\",\"status\":\"found\",\"backend_namespace\":\"ns\","
        "\"incarnation_id\":\"pod\",\"sandbox_url\":\"http://s\",\"thread_id\":\"t\","
        "\"user_id\":\"alice\"}",                                      /* no version */
        "{\"sandbox_id\":\"old-id\",\"status\":\"found\",\"backend_namespace\":\"ns\","
        "\"incarnation_id\":\"pod\",\"sandbox_url\":\"http://s\",\"thread_id\":3,"
        "\"user_id\":\"alice\",\"mount_contract_version\":1}",         /* int thread */
    };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        sbx_reconciliation r;
        CU_ASSERT_EQUAL(reconcile(unknown[i], &r), SBX_RECONCILE_UNKNOWN);
        CU_ASSERT_PTR_NULL(r.sandbox);
        CU_ASSERT_PTR_NULL(r.backend_namespace);
        common_reconciliation_clear(&r);
    }
}

/* Items 8 and 10 for reconciliation: an answer whose id, status, identity,
 * namespace or incarnation holds a NUL or invalid UTF-8 is unknown (never
 * "absent", which would license deleting state: "old-id\u0000x" was read as
 * old-id). */
static void test_reconciliation_with_bad_text_is_unknown(void)
{
    /* sandbox_id, status, backend_namespace of an "absent" answer */
    static const char *const absent_good[] = { "old-id", "absent", "ns" };
    for (size_t f = 0; f < 3; f++) {
        for (size_t v = 0; v < sizeof bad_text / sizeof bad_text[0]; v++) {
            char value[3][64], body[256];
            for (size_t i = 0; i < 3; i++)
                snprintf(value[i], sizeof value[i], "%s%s", absent_good[i],
                         i == f ? bad_text[v] : "");
            snprintf(body, sizeof body,
                     "{\"sandbox_id\":\"%s\",\"status\":\"%s\",\"backend_namespace\":\"%s\"}",
                     value[0], value[1], value[2]);
            sbx_reconciliation r;
            memset(&r, 0, sizeof r);
            CU_ASSERT_EQUAL(reconcile(body, &r), SBX_RECONCILE_UNKNOWN);
            common_reconciliation_clear(&r);
        }
    }
    static const char *const found_fields[] = { "incarnation_id", "user_id", "thread_id",
                                                "sandbox_url" };
    for (size_t f = 0; f < 4; f++) {
        for (size_t v = 0; v < sizeof bad_text / sizeof bad_text[0]; v++) {
            char value[4][64], body[512];
            for (size_t i = 0; i < 4; i++)
                snprintf(value[i], sizeof value[i], "%s%s", i == 3 ? "http://s" : "x",
                         i == f ? bad_text[v] : "");
            snprintf(body, sizeof body,
                     "{\"sandbox_id\":\"old-id\",\"status\":\"found\",\"backend_namespace\":\"ns\","
                     "\"%s\":\"%s\",\"%s\":\"%s\",\"%s\":\"%s\",\"%s\":\"%s\","
                     "\"mount_contract_version\":1}",
                     found_fields[0], value[0], found_fields[1], value[1], found_fields[2],
                     value[2], found_fields[3], value[3]);
            sbx_reconciliation r;
            memset(&r, 0, sizeof r);
            CU_ASSERT_EQUAL(reconcile(body, &r), SBX_RECONCILE_UNKNOWN);
            CU_ASSERT_PTR_NULL(r.sandbox);
            common_reconciliation_clear(&r);
        }
    }
}

/* ---------------------------------------------------------------- capabilities */

static void test_capabilities_version_is_a_strict_integer(void)
{
    int v = -7;
    sbx_error err;
    const char *legacy = "{\"lark_cli_init_image\":false}";
    CU_ASSERT_EQUAL(remote_decode_capabilities(legacy, strlen(legacy), &v, &err), SBX_OK);
    CU_ASSERT_EQUAL(v, 0); /* absent: a legacy provisioner */
    const char *two = "{\"mount_contract_version\":2}";
    CU_ASSERT_EQUAL(remote_decode_capabilities(two, strlen(two), &v, &err), SBX_OK);
    CU_ASSERT_EQUAL(v, 2);
    const char *bad[] = { "{\"mount_contract_version\":\"2\"}", "{\"mount_contract_version\":true}",
                          "{\"mount_contract_version\":-1}", "{\"mount_contract_version\":null}",
                          "{\"mount_contract_version\":1.0}", "[]", "garbage", "" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CU_ASSERT_EQUAL(remote_decode_capabilities(bad[i], strlen(bad[i]), &v, &err),
                        SBX_ERR_PROTOCOL);
}

/* `depth` arrays nested around `inner`, in a new string (free it). */
static char *nested_arrays(int depth, const char *inner)
{
    size_t n = (size_t)depth * 2 + strlen(inner) + 1;
    char *text = malloc(n);
    CU_ASSERT_FATAL(text != NULL);
    memset(text, '[', (size_t)depth);
    strcpy(text + depth, inner);
    memset(text + depth + strlen(inner), ']', (size_t)depth);
    text[n - 1] = '\0';
    return text;
}

/* Issue 10 item 16: an answer nested deeper than json-c accepts was
 * reported as "not a JSON object" (or "not JSON"); every decoder says it is
 * nested too deeply, at the top level or inside a member, and the same
 * nesting one level shallower is read as usual. */
static void test_too_deep_answers_say_so(void)
{
    static const int depths[] = { 33, 40, 1000 };
    for (size_t i = 0; i < sizeof depths / sizeof depths[0]; i++) {
        char *deep = nested_arrays(depths[i], "1");
        char *member = nested_arrays(depths[i], "1");
        char *in_member = malloc(strlen(member) + 64);
        CU_ASSERT_FATAL(in_member != NULL);
        sprintf(in_member, "{\"mount_contract_version\":2,\"x\":%s}", member);
        const char *bodies[] = { deep, in_member };
        for (size_t b = 0; b < 2; b++) {
            sbx_error err;
            int v = -7;
            sbx_error_clear(&err);
            CU_ASSERT_EQUAL(remote_decode_capabilities(bodies[b], strlen(bodies[b]), &v, &err),
                            SBX_ERR_PROTOCOL);
            CU_ASSERT_PTR_NOT_NULL(strstr(err.message,
                                          "capabilities answer is nested deeper than 32 levels"));
            sbx_sandbox *list = NULL;
            size_t n = 0;
            sbx_error_clear(&err);
            CU_ASSERT_EQUAL(remote_decode_list(bodies[b], strlen(bodies[b]), NULL, &list, &n,
                                               &err), SBX_ERR_PROTOCOL);
            CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "list answer is nested deeper than 32 levels"));
            sbx_reconciliation r;
            memset(&r, 0, sizeof r);
            const char *why = NULL;
            CU_ASSERT_EQUAL(remote_decode_reconciliation(bodies[b], strlen(bodies[b]), "old-id",
                                                         &r, &why, &err), SBX_OK);
            CU_ASSERT_EQUAL(r.status, SBX_RECONCILE_UNKNOWN);
            CU_ASSERT(why != NULL && strstr(why, "nested deeper than 32 levels") != NULL);
            common_reconciliation_clear(&r);
        }
        free(deep);
        free(member);
        free(in_member);
    }
    /* A value inside 31 containers (the object and 30 arrays), json-c's
     * limit, is read. */
    char *member = nested_arrays(30, "1");
    size_t body_size = strlen(member) + 64;
    char *body = malloc(body_size);
    CU_ASSERT_FATAL(body != NULL);
    snprintf(body, body_size, "{\"mount_contract_version\":2,\"x\":%s}", member);
    int v = -7;
    sbx_error err;
    CU_ASSERT_EQUAL(remote_decode_capabilities(body, strlen(body), &v, &err), SBX_OK);
    CU_ASSERT_EQUAL(v, 2);
    free(member);
    free(body);
}

/* ---------------------------------------------------------------- detail text */

/* remote_detail_text of `body` into a buffer of `cap` bytes (at most 128). */
static const char *detail_in(size_t cap, const char *body)
{
    static char buf[128];
    remote_detail_text(body, strlen(body), buf, cap);
    return buf;
}

static const char *detail(const char *body)
{
    return detail_in(128, body);
}

static void test_detail_text_of_each_error_shape(void)
{
    CU_ASSERT_STRING_EQUAL(detail("{\"detail\":\"Sandbox 'x' not found\"}"), "Sandbox 'x' not found");
    CU_ASSERT_STRING_EQUAL(detail("unavailable"), "unavailable");
    CU_ASSERT_STRING_EQUAL(detail("Internal Server Error\n"), "Internal Server Error");
    CU_ASSERT_STRING_EQUAL(detail("{\"detail\":[{\"type\":\"string_pattern_mismatch\","
                                  "\"loc\":[\"body\",\"thread_id\"],\"msg\":\"String should "
                                  "match pattern\"},{\"type\":\"missing\"}]}"),
                           "body.thread_id: String should match pattern (and 1 more)");
    CU_ASSERT_STRING_EQUAL(detail("{\"detail\":{\"code\":\"mount_contract_changed\",\"expected\":2}}"),
                           "{\"code\":\"mount_contract_changed\",\"expected\":2}");
    CU_ASSERT_STRING_EQUAL(detail("line1\r\nline2\x01"), "line1  line2 ");
    CU_ASSERT_STRING_EQUAL(detail(""), "");
}

/* Regression (fuzz/regressions/remote-detail/validation-loc-null.json): a
 * JSON null inside a validation "loc" crashed the detail decoder. */
static void test_detail_text_with_null_parts(void)
{
    CU_ASSERT_STRING_EQUAL(detail("{\"detail\":[{\"loc\":[null]}]}"), "null: {\"loc\":[null]}");
    CU_ASSERT_STRING_EQUAL(detail("{\"detail\":[{\"loc\":[\"body\",null,0],\"msg\":\"bad\"}]}"),
                           "body.null.0: bad");
    CU_ASSERT_STRING_EQUAL(detail("{\"detail\":[null]}"), "null");
}

static void test_detail_text_is_bounded(void)
{
    char body[1000];
    memset(body, 'x', sizeof body - 1);
    body[sizeof body - 1] = '\0';
    char buf[16];
    remote_detail_text(body, strlen(body), buf, sizeof buf);
    CU_ASSERT_EQUAL(strlen(buf), sizeof buf - 1);
    /* A cut shows: it used to end in the text's last byte that fit. */
    CU_ASSERT_STRING_EQUAL(buf, "xxxxxxxxxxxx...");
    /* ... and never splits a character: "é" is two bytes. */
    CU_ASSERT_STRING_EQUAL(detail_in(16, "{\"detail\":\"abcdefghijk\u00e9\u00e9\u00e9\"}"),
                           "abcdefghijk...");
    /* A text that fits exactly is not marked. */
    CU_ASSERT_STRING_EQUAL(detail_in(16, "abcdefghijklmno"), "abcdefghijklmno");
    /* Nothing follows the mark: the validation tail is dropped too. */
    CU_ASSERT_STRING_EQUAL(detail_in(16, "{\"detail\":[{\"msg\":\"a long message\"},{}]}"),
                           "a long messa...");
}

/* create_fields: the names known, unknown ones ignored; anything but an
 * array of strings advertises nothing. */
static void test_create_fields_are_advertised_names_only(void)
{
    static const char both[] = "{\"mount_contract_version\":2,"
                               "\"create_fields\":[\"env\",\"gpu\",\"labels\",\"expires_at\"]}";
    CU_ASSERT_EQUAL(remote_decode_create_fields(both, strlen(both)),
                    SBX_CREATE_ENV | SBX_CREATE_LABELS | SBX_CREATE_EXPIRY);
    static const char *const none[] = {
        "{\"mount_contract_version\":2}",
        "{\"create_fields\":\"env\"}",
        "{\"create_fields\":[\"env\",1]}",
        "{\"create_fields\":null}",
        "[\"env\"]",
        "not json",
    };
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        CU_ASSERT_EQUAL(remote_decode_create_fields(none[i], strlen(none[i])), 0);
}

/* extend is advertised only by "extend":true (a boolean), never by a
 * provisioner that does not say so (DeerFlow's). */
static void test_extend_is_advertised_by_true_only(void)
{
    static const char yes[] = "{\"mount_contract_version\":2,\"extend\":true}";
    CU_ASSERT_EQUAL(remote_decode_extend(yes, strlen(yes)), 1);
    static const char *const no[] = {
        "{\"mount_contract_version\":2}",
        "{\"extend\":false}",
        "{\"extend\":\"true\"}",
        "{\"extend\":1}",
        "[true]",
        "not json",
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        CU_ASSERT_EQUAL(remote_decode_extend(no[i], strlen(no[i])), 0);
}

void sbx_test_register(void)
{
    static const CU_TestInfo sandbox[] = {
        { "sandbox_with_full_identity", test_sandbox_with_full_identity },
        { "legacy_sandbox_has_unknown_identity", test_legacy_sandbox_has_unknown_identity },
        { "ill_typed_sandboxes_are_protocol_errors", test_ill_typed_sandboxes_are_protocol_errors },
        { "text_fields_hold_no_nul_and_only_utf8", test_text_fields_hold_no_nul_and_only_utf8 },
        { "incarnation_is_read_and_never_refused", test_incarnation_is_read_and_never_refused },
        CU_TEST_INFO_NULL,
    };
    static const CU_TestInfo list[] = {
        { "provisioner_list_returns_sandbox_infos_and_filters_invalid_entries",
          test_provisioner_list_returns_sandbox_infos_and_filters_invalid_entries },
        { "provisioner_list_returns_empty_when_payload_is_not_dict",
          test_provisioner_list_returns_empty_when_payload_is_not_dict },
        { "provisioner_list_returns_empty_when_sandboxes_is_not_list",
          test_provisioner_list_returns_empty_when_sandboxes_is_not_list },
        { "provisioner_list_skips_non_dict_sandbox_entries",
          test_provisioner_list_skips_non_dict_sandbox_entries },
        { "unparseable_list_is_a_protocol_error", test_unparseable_list_is_a_protocol_error },
        { "list_skips_entries_with_bad_text", test_list_skips_entries_with_bad_text },
        CU_TEST_INFO_NULL,
    };
    static const CU_TestInfo reconciliation[] = {
        { "reconciliation_discovery_accepts_exact_old_mount_contract",
          test_reconciliation_discovery_accepts_exact_old_mount_contract },
        { "reconciliation_discovery_accepts_pod_authoritative_absence",
          test_reconciliation_discovery_accepts_pod_authoritative_absence },
        { "found_with_an_anonymous_thread", test_found_with_an_anonymous_thread },
        { "reconciliation_is_unknown_unless_well_formed",
          test_reconciliation_is_unknown_unless_well_formed },
        { "reconciliation_with_bad_text_is_unknown", test_reconciliation_with_bad_text_is_unknown },
        CU_TEST_INFO_NULL,
    };
    static const CU_TestInfo other[] = {
        { "capabilities_version_is_a_strict_integer", test_capabilities_version_is_a_strict_integer },
        { "create_fields_are_advertised_names_only", test_create_fields_are_advertised_names_only },
        { "extend_is_advertised_by_true_only", test_extend_is_advertised_by_true_only },
        { "too_deep_answers_say_so", test_too_deep_answers_say_so },
        { "detail_text_of_each_error_shape", test_detail_text_of_each_error_shape },
        { "detail_text_with_null_parts", test_detail_text_with_null_parts },
        { "detail_text_is_bounded", test_detail_text_is_bounded },
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("remote decode sandbox", NULL, NULL, sandbox);
    sbx_test_add_suite("remote decode list", NULL, NULL, list);
    sbx_test_add_suite("remote decode reconciliation", NULL, NULL, reconciliation);
    sbx_test_add_suite("remote decode capabilities and details", NULL, NULL, other);
}
