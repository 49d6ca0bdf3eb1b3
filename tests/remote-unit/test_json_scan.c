/* The one-pass JSON scanner is_alive reads "status" with
 * (plugin/remote/remote_json_scan.h): RFC 8259 accepted, every json-c extension
 * and every malformed text refused, json-c's depth limit, and "status"
 * read as json-c would keep it (the last duplicate, keys unescaped). */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "common/json_fields.h"
#include "plugin/remote/remote_json_scan.h"

#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers */

/* Scans exactly `len` bytes from a heap copy of that size, so a read past
 * the end shows under the sanitizers and valgrind. */
static int scan_bytes(const char *text, size_t len, remote_json_scanned_member *member)
{
    char *copy = malloc(len > 0 ? len : 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
    memcpy(copy, text, len);
    int accepted = remote_json_scan_object_member(copy, len, "status", member);
    /* `raw` points into the copy: keep it meaningful for the caller. */
    if (member->raw != NULL)
        member->raw = text + (member->raw - copy);
    free(copy);
    return accepted;
}

static int accepts(const char *text)
{
    remote_json_scanned_member member;
    int accepted = scan_bytes(text, strlen(text), &member);
    if (!accepted)
        CU_ASSERT_EQUAL(member.state, COMMON_JSON_ABSENT);
    return accepted;
}

/* The member "status" of an accepted text (the test fails otherwise). */
static remote_json_scanned_member status_of(const char *text)
{
    remote_json_scanned_member member;
    CU_ASSERT_EQUAL(scan_bytes(text, strlen(text), &member), 1);
    return member;
}

/* What is_alive concludes from a 200 answer (plugin/remote/remote_ops.c). */
static int reads_running(const char *text)
{
    remote_json_scanned_member member;
    return scan_bytes(text, strlen(text), &member) && member.state == COMMON_JSON_OK &&
           remote_json_scanned_string_equals(member.raw, member.raw_len, "Running");
}

/* `raw` as the scanner would give it equals `expected`. */
static int raw_equals(const char *raw, const char *expected)
{
    return remote_json_scanned_string_equals(raw, strlen(raw), expected);
}

/* {"a": then containers-1 arrays around `inner`, then "status":"Running":
 * `containers` nested containers in all. */
static char *nested(int containers, const char *inner)
{
    size_t cap = 64 + 2 * (size_t)containers + strlen(inner);
    char *text = malloc(cap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    size_t n = (size_t)snprintf(text, cap, "{\"a\":");
    for (int i = 1; i < containers; i++)
        text[n++] = '[';
    n += (size_t)snprintf(text + n, cap - n, "%s", inner);
    for (int i = 1; i < containers; i++)
        text[n++] = ']';
    snprintf(text + n, cap - n, ",\"status\":\"Running\"}");
    return text;
}

/* `containers` objects nested in "a", the innermost holding `members`. */
static char *objects(int containers, const char *members)
{
    size_t cap = 16 + 6 * (size_t)containers + strlen(members);
    char *text = malloc(cap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    size_t n = 0;
    for (int i = 1; i < containers; i++)
        n += (size_t)snprintf(text + n, cap - n, "{\"a\":");
    n += (size_t)snprintf(text + n, cap - n, "{%s}", members);
    for (int i = 1; i < containers; i++)
        text[n++] = '}';
    text[n] = '\0';
    return text;
}

/* A document that uses every part of the grammar. */
static const char full_document[] =
    " \t\r\n{ \"sandbox_id\" : \"abc123\", \"status\":\"Running\","
    "\"n\":[0,-0,7,-12,3.25,-0.5,1e9,1E+2,2e-3,-6.02E23,0.0e0],"
    "\"lit\":[true,false,null],\"empty\":{},\"none\":[],"
    "\"deep\":{\"x\":[[{\"y\":[{}]}]]},"
    "\"esc\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\uD83D\\uDE00\","
    "\"utf8\":\"caf\xC3\xA9\",\"del\":\"\x7F\"}";

/* ---------------------------------------------------------------- valid */

static void test_accepts_objects_and_whitespace(void)
{
    CU_ASSERT_EQUAL(accepts("{}"), 1);
    CU_ASSERT_EQUAL(accepts(" \t\r\n{ \t\r\n} \t\r\n"), 1);
    CU_ASSERT_EQUAL(accepts("{\"a\":1}"), 1);
    CU_ASSERT_EQUAL(accepts("{ \"a\" : 1 , \"b\" : [ 1 , { } , [ ] ] }"), 1);
    CU_ASSERT_EQUAL(accepts("{\"\":\"\"}"), 1);
    CU_ASSERT_EQUAL(accepts(full_document), 1);
}

static void test_accepts_every_number_form(void)
{
    static const char *const numbers[] = {
        "0", "-0", "7", "-7", "1234567890", "0.5", "-0.5", "10.25", "1e5", "1E5",
        "1e+5", "1e-5", "0e0", "-0E-0", "1.5e10", "-12.75E+3",
        "123456789012345678901234567890", "1e999", "-1e-999",
    };
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        char text[96];
        snprintf(text, sizeof text, "{\"n\":%s,\"m\":[%s]}", numbers[i], numbers[i]);
        CU_ASSERT_EQUAL(accepts(text), 1);
    }
}

static void test_accepts_literals_and_escapes(void)
{
    CU_ASSERT_EQUAL(accepts("{\"t\":true,\"f\":false,\"n\":null,\"a\":[true,false,null]}"), 1);
    CU_ASSERT_EQUAL(accepts("{\"s\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"}"), 1);
    CU_ASSERT_EQUAL(accepts("{\"s\":\"\\u0041\\u00e9\\u00E9\\uFFFF\\uabcd\"}"), 1);
    CU_ASSERT_EQUAL(accepts("{\"s\":\"\\uD83D\\uDE00\"}"), 1);
    /* RFC 8259's grammar allows unpaired surrogate escapes (section 8.2):
     * the text is valid, the string just never matches (see below). */
    CU_ASSERT_EQUAL(accepts("{\"s\":\"\\uD800\",\"t\":\"\\uDC00\"}"), 1);
    CU_ASSERT_EQUAL(accepts("{\"s\":\"\\u0000\"}"), 1);
    CU_ASSERT_EQUAL(accepts("{\"s\":\"caf\xC3\xA9 \x7F\"}"), 1);
    CU_ASSERT_EQUAL(accepts("{\"\\u0041\\n\":1}"), 1);
}

/* json-c refuses a value nested in 32 containers: 32 are fine when the
 * innermost is empty, a scalar or a 33rd container inside is too deep. */
static void test_depth_limit_is_json_c_s(void)
{
    static const struct { int containers; const char *inner; int accepted; } cases[] = {
        { 31, "1", 1 },  { 31, "[]", 1 }, { 31, "{}", 1 }, { 32, "", 1 },
        { 31, "\"Running\"", 1 }, { 30, "{\"a\":null}", 1 }, { 31, "{\"a\":null}", 0 },
        { 32, "1", 0 },  { 32, "\"x\"", 0 }, { 32, "null", 0 }, { 31, "[1]", 0 },
        { 31, "{\"a\":1}", 0 }, { 31, "[[]]", 0 }, { 33, "", 0 }, { 200, "", 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = nested(cases[i].containers, cases[i].inner);
        CU_ASSERT_EQUAL(accepts(text), cases[i].accepted);
        if (cases[i].accepted)
            CU_ASSERT_EQUAL(reads_running(text), 1);
        free(text);
    }
    /* Objects count as arrays do. */
    char *text = objects(32, "");
    CU_ASSERT_EQUAL(accepts(text), 1);
    free(text);
    text = objects(31, "\"a\":1");
    CU_ASSERT_EQUAL(accepts(text), 1);
    free(text);
    text = objects(32, "\"a\":1");
    CU_ASSERT_EQUAL(accepts(text), 0);
    free(text);
    text = objects(33, "");
    CU_ASSERT_EQUAL(accepts(text), 0);
    free(text);
}

/* ---------------------------------------------------------------- invalid */

static void test_refuses_every_truncation(void)
{
    size_t len = strlen(full_document);
    remote_json_scanned_member member;
    CU_ASSERT_EQUAL(scan_bytes(full_document, len, &member), 1);
    for (size_t cut = 0; cut < len; cut++) {
        int accepted = scan_bytes(full_document, cut, &member);
        CU_ASSERT_EQUAL(accepted, 0);
        CU_ASSERT_EQUAL(member.state, COMMON_JSON_ABSENT);
        if (accepted)
            fprintf(stderr, "truncation at %zu accepted\n", cut);
    }
}

static void test_refuses_json_c_extensions(void)
{
    static const char *const texts[] = {
        "{\"a\":1,}", "{\"a\":[1,]}", "{\"a\":[,1]}", "{,}", "[1,]",
        "{\"a\":1}// c", "{/* c */\"a\":1}", "{\"a\":1 /* c */}", "# c\n{}",
        "{'a':1}", "{\"a\":'x'}", "{a:1}", "{\"a\":NaN}", "{\"a\":-NaN}",
        "{\"a\":Infinity}", "{\"a\":-Infinity}", "{\"a\":nan}", "{\"a\":inf}",
        "{\"a\":01}", "{\"a\":-01}", "{\"a\":00}", "{\"a\":007}", "{\"a\":1.}",
        "{\"a\":.5}", "{\"a\":-.5}", "{\"a\":+1}", "{\"a\":1e}", "{\"a\":1e+}",
        "{\"a\":1E-}", "{\"a\":-}", "{\"a\":- 1}", "{\"a\":0x10}", "{\"a\":1.5.2}",
        "{\"a\":1e5.5}", "{\"a\":True}", "{\"a\":tru}", "{\"a\":nul}", "{\"a\":nulls}",
        "{\"a\":falsey}", "{\"a\":undefined}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        CU_ASSERT_EQUAL(accepts(texts[i]), 0);
        if (accepts(texts[i]))
            fprintf(stderr, "accepted: %s\n", texts[i]);
    }
}

static void test_refuses_raw_control_characters(void)
{
    for (int c = 0; c < 0x20; c++) {
        char text[32];
        int n = snprintf(text, sizeof text, "{\"s\":\"a%cb\"}", c == 0 ? '?' : c);
        if (c == 0)
            text[7] = '\0';
        remote_json_scanned_member member;
        CU_ASSERT_EQUAL(scan_bytes(text, (size_t)n, &member), 0); /* in a value */
        n = snprintf(text, sizeof text, "{\"a%cb\":1}", c == 0 ? '?' : c);
        if (c == 0)
            text[3] = '\0';
        CU_ASSERT_EQUAL(scan_bytes(text, (size_t)n, &member), 0); /* in a key */
    }
}

static void test_refuses_bad_escapes(void)
{
    static const char *const texts[] = {
        "{\"s\":\"\\x41\"}", "{\"s\":\"\\'\"}", "{\"s\":\"\\a\"}", "{\"s\":\"\\U0041\"}",
        "{\"s\":\"\\u41\"}", "{\"s\":\"\\u004\"}", "{\"s\":\"\\u004G\"}", "{\"s\":\"\\u+041\"}",
        "{\"s\":\"\\u 041\"}", "{\"s\":\"\\0\"}", "{\"s\":\"\\\"}", "{\"s\":\"\\",
        "{\"s\":\"\\u\"}", "{\"\\q\":1}", "{\"s\":\"\\\xC3\xA9\"}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        CU_ASSERT_EQUAL(accepts(texts[i]), 0);
    remote_json_scanned_member member;
    CU_ASSERT_EQUAL(scan_bytes("{\"s\":\"\\\0\"}", 9, &member), 0); /* escaped NUL byte */
}

static void test_refuses_malformed_structure(void)
{
    static const char *const texts[] = {
        "", " ", "\r\n\t ", "{", "}", "{}}", "{}{}", "{} x", "{},", "{}\"", "{} {}",
        "{\"a\"}", "{\"a\":}", "{\"a\" 1}", "{\"a\"::1}", "{\"a\":1 \"b\":2}",
        "{\"a\":1,,\"b\":2}", "{:1}", "{1:2}", "{null:1}", "{\"a\":[1}]", "{\"a\":[1 2]}",
        "{\"a\":1]", "{\"a\":{]}", "{\"a\":[}", "{\"a\":\"x}", "{\"a\":\"x\"\"y\"}",
        "\v{}", "{}\v", "\f{}", "{\f}", "{\"a\":1\f}", "\xEF\xBB\xBF{}",
        /* Valid JSON but not an object: is_alive wants an object. */
        "[]", "[{\"status\":\"Running\"}]", "\"Running\"", "1", "null", "true",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        CU_ASSERT_EQUAL(accepts(texts[i]), 0);
        if (accepts(texts[i]))
            fprintf(stderr, "accepted: %s\n", texts[i]);
    }
    remote_json_scanned_member member;
    CU_ASSERT_EQUAL(scan_bytes("{}\0", 3, &member), 0);
    CU_ASSERT_EQUAL(scan_bytes("\0{}", 3, &member), 0);
    CU_ASSERT_EQUAL(scan_bytes("{\"status\":\"Running\"}\0", 21, &member), 0);
    CU_ASSERT_EQUAL(member.state, COMMON_JSON_ABSENT);
}

/* ---------------------------------------------------------------- status */

static void test_status_string_points_into_the_text(void)
{
    const char *text = "{\"id\":\"x\", \"status\" : \"Run\\u006eing\" }";
    remote_json_scanned_member m = status_of(text);
    CU_ASSERT_EQUAL(m.state, COMMON_JSON_OK);
    CU_ASSERT_PTR_EQUAL(m.raw, strstr(text, "Run\\u"));
    CU_ASSERT_EQUAL(m.raw_len, strlen("Run\\u006eing"));
    CU_ASSERT_EQUAL(remote_json_scanned_string_equals(m.raw, m.raw_len, "Running"), 1);
    CU_ASSERT_EQUAL(reads_running(text), 1);

    m = status_of("{\"status\":\"\"}");
    CU_ASSERT_EQUAL(m.state, COMMON_JSON_OK);
    CU_ASSERT_EQUAL(m.raw_len, 0);
    CU_ASSERT_EQUAL(remote_json_scanned_string_equals(m.raw, m.raw_len, ""), 1);
}

static void test_status_absent_null_or_wrong_type(void)
{
    static const char *const absent[] = {
        "{}", "{\"state\":\"Running\"}", "{\"Status\":\"Running\"}", "{\"status \":\"Running\"}",
        "{\"x\":{\"status\":\"Running\"}}", "{\"x\":[{\"status\":\"Running\"}]}",
        "{\"x\":\"status\",\"y\":\"Running\"}", "{\"statu\":\"Running\"}",
        "{\"status\\u0000\":\"Running\"}", "{\"stat\\u0000us\":\"Running\"}",
    };
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
        CU_ASSERT_EQUAL(status_of(absent[i]).state, COMMON_JSON_ABSENT);
        CU_ASSERT_EQUAL(reads_running(absent[i]), 0);
    }
    CU_ASSERT_EQUAL(status_of("{\"status\":null}").state, COMMON_JSON_NULL);
    CU_ASSERT_PTR_NULL(status_of("{\"status\":null}").raw);
    static const char *const wrong[] = {
        "{\"status\":1}", "{\"status\":-0.5e3}", "{\"status\":true}", "{\"status\":false}",
        "{\"status\":{}}", "{\"status\":{\"phase\":\"Running\"}}", "{\"status\":[\"Running\"]}",
        "{\"status\":[]}",
    };
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        CU_ASSERT_EQUAL(status_of(wrong[i]).state, COMMON_JSON_WRONG_TYPE);
        CU_ASSERT_EQUAL(reads_running(wrong[i]), 0);
    }
}

/* json-c keeps the last of repeated keys; so does the scanner. */
static void test_duplicate_status_keeps_the_last(void)
{
    CU_ASSERT_EQUAL(reads_running("{\"status\":\"Running\",\"status\":\"Stopped\"}"), 0);
    CU_ASSERT_EQUAL(reads_running("{\"status\":\"Stopped\",\"status\":\"Running\"}"), 1);
    CU_ASSERT_EQUAL(status_of("{\"status\":\"Running\",\"status\":null}").state, COMMON_JSON_NULL);
    CU_ASSERT_EQUAL(status_of("{\"status\":\"Running\",\"status\":{}}").state,
                    COMMON_JSON_WRONG_TYPE);
    CU_ASSERT_EQUAL(status_of("{\"status\":\"Running\",\"status\":[1]}").state,
                    COMMON_JSON_WRONG_TYPE);
    CU_ASSERT_EQUAL(reads_running("{\"status\":7,\"x\":{\"status\":1},\"status\":\"Running\"}"),
                    1);
    /* The same key spelled with an escape is the same key. */
    CU_ASSERT_EQUAL(reads_running("{\"status\":\"Running\",\"st\\u0061tus\":\"Gone\"}"), 0);
    CU_ASSERT_EQUAL(reads_running("{\"status\":\"Gone\",\"\\u0073tatus\":\"Running\"}"), 1);
}

/* A status the provisioner did not send in full is not "Running". */
static void test_invalid_answer_reads_no_status(void)
{
    remote_json_scanned_member member;
    static const char *const texts[] = {
        "{\"status\":\"Running\",}", "{\"status\":\"Running\"", "{\"status\":\"Running\"} x",
        "{\"status\":\"Running\",\"n\":01}", "{\"status\":\"Running\" // up\n}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        CU_ASSERT_EQUAL(scan_bytes(texts[i], strlen(texts[i]), &member), 0);
        CU_ASSERT_EQUAL(member.state, COMMON_JSON_ABSENT);
        CU_ASSERT_PTR_NULL(member.raw);
    }
}

static void test_status_comparison_decodes_escapes(void)
{
    CU_ASSERT_EQUAL(reads_running("{\"status\":\"Running\\u0000x\"}"), 0);
    CU_ASSERT_EQUAL(reads_running("{\"status\":\"Running\\u0000\"}"), 0);
    CU_ASSERT_EQUAL(reads_running("{\"status\":\"\\u0000Running\"}"), 0);
    CU_ASSERT_EQUAL(reads_running("{\"status\":\"running\"}"), 0);
    CU_ASSERT_EQUAL(reads_running("{\"status\":\"Running \"}"), 0);
    CU_ASSERT_EQUAL(reads_running("{\"status\":\"Runnin\"}"), 0);
    CU_ASSERT_EQUAL(reads_running("{\"status\":\"Running\\n\"}"), 0);
    CU_ASSERT_EQUAL(reads_running("{\"status\":\"\\u0052\\u0075nning\"}"), 1);
    CU_ASSERT_EQUAL(reads_running("{\"status\":\"\\u0052\\u0055nning\"}"), 0);

    CU_ASSERT_EQUAL(raw_equals("a\\/b", "a/b"), 1);
    CU_ASSERT_EQUAL(raw_equals("\\\"\\\\\\b\\f\\n\\r\\t", "\"\\\b\f\n\r\t"), 1);
    CU_ASSERT_EQUAL(raw_equals("caf\\u00e9", "caf\xC3\xA9"), 1);
    CU_ASSERT_EQUAL(raw_equals("caf\\u00E9", "caf\xC3\xA9"), 1);
    CU_ASSERT_EQUAL(raw_equals("caf\xC3\xA9", "caf\xC3\xA9"), 1);
    CU_ASSERT_EQUAL(raw_equals("\\u20AC", "\xE2\x82\xAC"), 1);
    CU_ASSERT_EQUAL(raw_equals("\\uD83D\\uDE00", "\xF0\x9F\x98\x80"), 1);
    CU_ASSERT_EQUAL(raw_equals("\\uDBFF\\uDFFF", "\xF4\x8F\xBF\xBF"), 1);
    CU_ASSERT_EQUAL(raw_equals("\\uD800\\uDC00", "\xF0\x90\x80\x80"), 1);
    CU_ASSERT_EQUAL(raw_equals("\\u007f\\u0080\\u07FF\\u0800", "\x7F\xC2\x80\xDF\xBF\xE0\xA0\x80"),
                    1);
    /* Unpaired surrogates match nothing, not even the replacement character. */
    CU_ASSERT_EQUAL(raw_equals("\\uD800", "\xEF\xBF\xBD"), 0);
    CU_ASSERT_EQUAL(raw_equals("\\uD800", "\xED\xA0\x80"), 0);
    CU_ASSERT_EQUAL(raw_equals("\\uDC00", "\xED\xB0\x80"), 0);
    CU_ASSERT_EQUAL(raw_equals("\\uD800x", "\xEF\xBF\xBDx"), 0);
    CU_ASSERT_EQUAL(raw_equals("\\uD800\\u0041", "\xEF\xBF\xBD" "A"), 0);
    CU_ASSERT_EQUAL(raw_equals("\\uD800\\uD800", "\xEF\xBF\xBD\xEF\xBF\xBD"), 0);
    CU_ASSERT_EQUAL(raw_equals("\\uDE00\\uD83D", "\xF0\x9F\x98\x80"), 0);
    CU_ASSERT_EQUAL(raw_equals("\\u0000", ""), 0);
    CU_ASSERT_EQUAL(raw_equals("", ""), 1);
    CU_ASSERT_EQUAL(raw_equals("", "x"), 0);
    CU_ASSERT_EQUAL(raw_equals("x", ""), 0);
    CU_ASSERT_EQUAL(raw_equals("\\u0041", ""), 0);
    CU_ASSERT_EQUAL(raw_equals("\\u00e9", "\xC3"), 0);
}

/* ---------------------------------------------------------------- threads */

#define SCAN_THREADS 8
#define SCANS_PER_THREAD 2000

static void *scan_repeatedly(void *arg)
{
    (void)arg;
    long wrong = 0;
    for (int i = 0; i < SCANS_PER_THREAD; i++) {
        remote_json_scanned_member m;
        int ok = remote_json_scan_object_member(full_document, strlen(full_document), "status", &m);
        if (!ok || m.state != COMMON_JSON_OK ||
            !remote_json_scanned_string_equals(m.raw, m.raw_len, "Running") ||
            remote_json_scan_object_member("{\"status\":1,}", 13, "status", &m) != 0)
            wrong++;
    }
    return (void *)(intptr_t)wrong;
}

/* Pure functions of the text: many threads scan at once and agree. */
static void test_threads_scan_at_once(void)
{
    pthread_t threads[SCAN_THREADS];
    for (int i = 0; i < SCAN_THREADS; i++)
        CU_ASSERT_EQUAL_FATAL(pthread_create(&threads[i], NULL, scan_repeatedly, NULL), 0);
    for (int i = 0; i < SCAN_THREADS; i++) {
        void *wrong = NULL;
        CU_ASSERT_EQUAL(pthread_join(threads[i], &wrong), 0);
        CU_ASSERT_PTR_NULL(wrong);
    }
}

/* Several members in one pass: each key's own state, the last of a
 * repeated key, nested members ignored, and too many keys refused. */
static void test_several_members_in_one_pass(void)
{
    static const char text[] =
        "{\"status\":\"Pending\",\"x\":{\"sandbox_id\":\"inner\"},\"sandbox_id\":7,"
        "\"status\":\"Running\",\"sandbox_id\":\"abc\"}";
    static const char *const keys[] = { "status", "sandbox_id", "missing" };
    remote_json_scanned_member found[3];
    CU_ASSERT_EQUAL(remote_json_scan_object_members(text, strlen(text), keys, 3, found), 1);
    CU_ASSERT_EQUAL(found[0].state, COMMON_JSON_OK);
    CU_ASSERT(remote_json_scanned_string_equals(found[0].raw, found[0].raw_len, "Running"));
    CU_ASSERT_EQUAL(found[1].state, COMMON_JSON_OK);
    CU_ASSERT(remote_json_scanned_string_equals(found[1].raw, found[1].raw_len, "abc"));
    CU_ASSERT_EQUAL(found[2].state, COMMON_JSON_ABSENT);
    static const char *const many[REMOTE_JSON_SCAN_MAX_KEYS + 1] = { "a", "b", "c", "d", "e" };
    remote_json_scanned_member out[REMOTE_JSON_SCAN_MAX_KEYS + 1];
    CU_ASSERT_EQUAL(remote_json_scan_object_members(text, strlen(text), many,
                                                    REMOTE_JSON_SCAN_MAX_KEYS + 1, out), 0);
}

/* A scanned string is clean text when its escapes and raw bytes decode to
 * UTF-8 without NUL (is_alive refuses a status that is not). */
static void test_scanned_string_cleanliness(void)
{
    static const struct { const char *raw; int clean; } cases[] = {
        { "Running", 1 },
        { "Run\\u006eing", 1 },
        { "caf\xc3\xa9", 1 },
        { "\\ud83d\\ude00", 1 },
        { "Run\\u0000ning", 0 },
        { "\\ud83d", 0 },
        { "\\ude00x", 0 },
        { "Run\xffning", 0 },
        { "\xc3", 0 },
        { "\xed\xa0\x80", 0 },
        { "\xc0\xaf", 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CU_ASSERT_EQUAL(remote_json_scanned_string_is_clean(cases[i].raw, strlen(cases[i].raw)),
                        cases[i].clean);
}

void sbx_test_register(void)
{
    static const CU_TestInfo valid[] = {
        { "accepts_objects_and_whitespace", test_accepts_objects_and_whitespace },
        { "accepts_every_number_form", test_accepts_every_number_form },
        { "accepts_literals_and_escapes", test_accepts_literals_and_escapes },
        { "depth_limit_is_json_c_s", test_depth_limit_is_json_c_s },
        CU_TEST_INFO_NULL,
    };
    static const CU_TestInfo invalid[] = {
        { "refuses_every_truncation", test_refuses_every_truncation },
        { "refuses_json_c_extensions", test_refuses_json_c_extensions },
        { "refuses_raw_control_characters", test_refuses_raw_control_characters },
        { "refuses_bad_escapes", test_refuses_bad_escapes },
        { "refuses_malformed_structure", test_refuses_malformed_structure },
        CU_TEST_INFO_NULL,
    };
    static const CU_TestInfo status[] = {
        { "status_string_points_into_the_text", test_status_string_points_into_the_text },
        { "status_absent_null_or_wrong_type", test_status_absent_null_or_wrong_type },
        { "duplicate_status_keeps_the_last", test_duplicate_status_keeps_the_last },
        { "invalid_answer_reads_no_status", test_invalid_answer_reads_no_status },
        { "status_comparison_decodes_escapes", test_status_comparison_decodes_escapes },
        { "scanned_string_cleanliness", test_scanned_string_cleanliness },
        { "several_members_in_one_pass", test_several_members_in_one_pass },
        { "threads_scan_at_once", test_threads_scan_at_once },
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("json scan: valid texts", NULL, NULL, valid);
    sbx_test_add_suite("json scan: invalid texts", NULL, NULL, invalid);
    sbx_test_add_suite("json scan: status", NULL, NULL, status);
}
