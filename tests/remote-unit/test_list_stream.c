/* The streaming list decoder (plugin/remote/remote_list_stream.h): it gives what
 * the json-c decoder gives (records, warnings, errors) however the answer
 * is cut into chunks; it keeps little more than the records while it
 * reads; and through the HTTP client's body sink, against the emulator on
 * 127.0.0.1, it sees only 200 answers and never more than
 * max_response_bytes. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "common/http_client.h"
#include "common/json_fields.h"
#include "common/sandbox_records.h"
#include "plugin/remote/remote_decode.h"
#include "plugin/remote/remote_list_stream.h"
#include "tests/support/emulator.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---------------------------------------------------------------- helpers */

/* Every warning of one decode, one per line. */
typedef struct warnings {
    char text[8192];
    size_t len;
    int count;
} warnings;

static void collect(void *ctx, const char *message)
{
    warnings *w = ctx;
    int n = snprintf(w->text + w->len, sizeof w->text - w->len, "%s\n", message);
    if (n > 0 && (size_t)n < sizeof w->text - w->len)
        w->len += (size_t)n;
    w->count++;
}

/* What a decoder gave for one answer. */
typedef struct outcome {
    sbx_status st;
    sbx_error err;
    sbx_sandbox *list;
    size_t count;
    warnings warned;
} outcome;

static void release(outcome *o)
{
    common_sandbox_records_free(o->list, o->count);
    o->list = NULL;
    o->count = 0;
}

static void reference(const char *body, size_t len, outcome *o)
{
    memset(o, 0, sizeof *o);
    remote_warner warn = { collect, &o->warned };
    o->st = remote_decode_list(body, len, &warn, &o->list, &o->count, &o->err);
}

/* The streaming decoder fed body[0..len) in the chunks that `cuts` (sorted,
 * ncuts of them) make. */
static void streamed(const char *body, size_t len, const size_t *cuts, size_t ncuts, outcome *o)
{
    memset(o, 0, sizeof *o);
    remote_list_stream *s = remote_list_stream_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    size_t at = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t to = i < ncuts ? cuts[i] : len;
        CU_ASSERT_EQUAL(remote_list_stream_feed(s, body + at, to - at), 0);
        at = to;
    }
    remote_warner warn = { collect, &o->warned };
    o->st = remote_list_stream_finish(s, &warn, &o->list, &o->count, &o->err);
    remote_list_stream_free(s);
}

static int same_text(const char *a, const char *b)
{
    return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/* 1 when a caller could not tell the two outcomes apart. */
static int same_outcome(const outcome *a, const outcome *b)
{
    if (a->st != b->st || a->count != b->count || a->warned.len != b->warned.len ||
        memcmp(a->warned.text, b->warned.text, a->warned.len) != 0)
        return 0;
    if (a->st != SBX_OK &&
        (a->err.kind != b->err.kind || strcmp(a->err.message, b->err.message) != 0))
        return 0;
    for (size_t i = 0; i < a->count; i++) {
        const sbx_sandbox *x = &a->list[i], *y = &b->list[i];
        if (!same_text(x->sandbox_id, y->sandbox_id) ||
            !same_text(x->sandbox_url, y->sandbox_url) || !same_text(x->user_id, y->user_id) ||
            !same_text(x->thread_id, y->thread_id) || !same_text(x->status, y->status) ||
            x->mount_contract_version != y->mount_contract_version)
            return 0;
    }
    return 1;
}

/* The stream must match json-c with the answer whole, cut in two at every
 * byte, and fed one byte at a time.  Returns json-c's outcome (release it). */
static outcome check_every_split(const char *body)
{
    size_t len = strlen(body);
    outcome want, got;
    reference(body, len, &want);
    for (size_t cut = 0; cut <= len; cut++) {
        streamed(body, len, &cut, 1, &got);
        if (!same_outcome(&want, &got))
            fprintf(stderr, "differs when cut at %zu: %s\n", cut, body);
        CU_ASSERT(same_outcome(&want, &got));
        release(&got);
    }
    size_t *every = malloc((len + 1) * sizeof *every);
    CU_ASSERT_PTR_NOT_NULL_FATAL(every);
    for (size_t i = 0; i < len; i++)
        every[i] = i;
    streamed(body, len, every, len, &got);
    CU_ASSERT(same_outcome(&want, &got));
    release(&got);
    free(every);
    return want;
}

/* ---------------------------------------------------------------- samples */

/* The real provisioner's list (docs/protocol.md): identity fields null. */
static const char provisioner_answer[] =
    "{\"sandboxes\": [{\"sandbox_id\": \"a1b2c3\", \"sandbox_url\": \"http://10.0.0.7:31001\", "
    "\"status\": \"Running\", \"user_id\": null, \"thread_id\": null, "
    "\"mount_contract_version\": null}, {\"sandbox_id\": \"d4e5f6\", \"sandbox_url\": "
    "\"http://10.0.0.8:31002\", \"status\": \"Pending\", \"user_id\": null, \"thread_id\": "
    "null, \"mount_contract_version\": null}], \"count\": 2}";

static void test_the_provisioners_answer_in_any_chunks(void)
{
    outcome o = check_every_split(provisioner_answer);
    CU_ASSERT_EQUAL_FATAL(o.st, SBX_OK);
    CU_ASSERT_EQUAL_FATAL(o.count, 2);
    CU_ASSERT_STRING_EQUAL(o.list[0].sandbox_id, "a1b2c3");
    CU_ASSERT_STRING_EQUAL(o.list[0].sandbox_url, "http://10.0.0.7:31001");
    CU_ASSERT_STRING_EQUAL(o.list[0].status, "Running");
    CU_ASSERT_PTR_NULL(o.list[0].user_id);
    CU_ASSERT_PTR_NULL(o.list[0].thread_id);
    CU_ASSERT_EQUAL(o.list[0].mount_contract_version, SBX_CONTRACT_NONE);
    CU_ASSERT_STRING_EQUAL(o.list[1].status, "Pending");
    CU_ASSERT_EQUAL(o.warned.count, 0);
    release(&o);
}

static void test_skipped_entries_warn_in_order(void)
{
    outcome o = check_every_split(
        "{\"sandboxes\":[{\"sandbox_id\":\"ok1\",\"sandbox_url\":\"http://h:1\","
        "\"user_id\":\"alice\",\"thread_id\":\"t\",\"mount_contract_version\":2},"
        "7,null,{\"sandbox_url\":\"http://h:2\"},{\"sandbox_id\":\"x\",\"sandbox_url\":\"u\","
        "\"mount_contract_version\":2147483648},{\"sandbox_id\":\"x\",\"sandbox_url\":\"u\","
        "\"status\":{\"phase\":\"Running\"}},{\"sandbox_id\":\"a\\u0000b\",\"sandbox_url\":\"u\"},"
        "{\"sandbox_id\":\"\\ud800\",\"sandbox_url\":\"\xff\"},"
        "{\"sandbox_id\":\"ok2\",\"sandbox_url\":\"http://h:3\"}],\"count\":9}");
    CU_ASSERT_EQUAL_FATAL(o.st, SBX_OK);
    CU_ASSERT_EQUAL_FATAL(o.count, 2);
    CU_ASSERT_STRING_EQUAL(o.list[0].user_id, "alice");
    CU_ASSERT_EQUAL(o.list[0].mount_contract_version, 2);
    CU_ASSERT_STRING_EQUAL(o.list[1].sandbox_id, "ok2");
    CU_ASSERT_STRING_EQUAL(o.warned.text,
        "skipping list entry #1: sandbox answer is not a JSON object\n"
        "skipping list entry #2: sandbox answer is not a JSON object\n"
        "skipping list entry #3: sandbox answer lacks a non-empty string sandbox_id\n"
        "skipping list entry #4: sandbox field mount_contract_version is not a non-negative "
        "integer\n"
        "skipping list entry #5: sandbox field status is not a string\n"
        "skipping list entry #6: sandbox field sandbox_id holds a NUL byte or invalid UTF-8\n"
        "skipping list entry #7: sandbox field sandbox_url holds a NUL byte or invalid UTF-8\n");
    release(&o);
}

/* The last "sandboxes" wins, as json-c keeps it: the entries (and the
 * warnings) of an earlier one are gone; an answer that ends broken warns
 * nothing at all. */
static void test_duplicate_keys_and_broken_ends(void)
{
    outcome o = check_every_split(
        "{\"sandboxes\":[7,{\"sandbox_id\":\"early\",\"sandbox_url\":\"u\"}],\"sandboxes\":"
        "[{\"sandbox_id\":\"first\",\"sandbox_id\":\"late\",\"sandbox_url\":\"u\","
        "\"status\":1,\"status\":\"Running\"},{\"sandbox_id\\u0000cut\":\"k\","
        "\"sandbox_url\":\"u\"}]}");
    CU_ASSERT_EQUAL_FATAL(o.st, SBX_OK);
    CU_ASSERT_EQUAL_FATAL(o.count, 2);
    CU_ASSERT_STRING_EQUAL(o.list[0].sandbox_id, "late");
    CU_ASSERT_STRING_EQUAL(o.list[0].status, "Running");
    CU_ASSERT_STRING_EQUAL(o.list[1].sandbox_id, "k");
    CU_ASSERT_EQUAL(o.warned.count, 0);
    release(&o);

    o = check_every_split("{\"sandboxes\":[7,8],\"sandboxes\":{}}");
    CU_ASSERT_EQUAL(o.st, SBX_OK);
    CU_ASSERT_STRING_EQUAL(o.warned.text,
                           "list answer's sandboxes is not an array; no sandboxes listed\n");
    release(&o);

    o = check_every_split("{\"sandboxes\":[7,{\"sandbox_id\":\"a\",\"sandbox_url\":\"u\"}] x");
    CU_ASSERT_EQUAL(o.st, SBX_ERR_PROTOCOL);
    CU_ASSERT_STRING_EQUAL(o.err.message, "list answer is not JSON");
    CU_ASSERT_EQUAL(o.warned.count, 0);
    release(&o);
}

/* json-c's own reading of JSON, which the stream shares: its extensions,
 * its number forms, its literals, its depth limit, what may follow. */
static void test_json_c_extensions_and_limits(void)
{
    static const char *const answers[] = {
        "/* a */ {'sandboxes' : [ {\"sandbox_id\":'x\\u00e9', 'sandbox_url':\"u\", "
        "\"status\":NULL, \"mount_contract_version\":-0 , }, ], // line\n "
        "\"x\": [NaN, Infinity, -Infinity, TRUE, fAlse, 1e5, 1.E+, -.5, 01, 1.] }\v\f ",
        "{\"sandboxes\":[{\"sandbox_id\":\"a\",\"sandbox_url\":\"u\",\"mount_contract_version\""
        ":1e0},{\"sandbox_id\":\"a\",\"sandbox_url\":\"u\",\"mount_contract_version\":-1},"
        "{\"sandbox_id\":\"a\",\"sandbox_url\":\"u\",\"mount_contract_version\":2147483647},"
        "{\"sandbox_id\":\"a\",\"sandbox_url\":\"u\",\"mount_contract_version\":"
        "99999999999999999999}]}",
        "{\"sandboxes\":[{\"sandbox_id\":\"\\ud83d\\ude00\\ud800x\\udc00\\ud800\\n\","
        "\"sandbox_url\":\"\\ud800\\u0041\\/\\b\\f\\r\\t\"}]}",
        "{\"sandboxes\":[]} /* ** */ ",       /* json-c: the comment never ends */
        "{\"sandboxes\":[]} /* **/ */",
        "{\"sandboxes\":[]} //",
        "{\"sandboxes\":[]} / ",
        "{\"sandboxes\":[1.-5]}", "{\"sandboxes\":[-]}", "{\"sandboxes\":[-i]}",
        "{\"sandboxes\":[nul]}", "{\"sandboxes\":[tru]}", "{\"sandboxes\":['\\'']}",
        "{\"sandboxes\":[\"\\x\"]}", "{\"sandboxes\":[1,,2]}", "{,}", "{\"a\" 1}",
        "[1,2]", "\"text\" ", "12", "12 ", "null ", "nan ", "true", "",
        "   ", "{}", "{\"sandboxes\":null}",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
        "{\"sandboxes\":[{\"sandbox_id\":\"a\",\"sandbox_url\":\"u\",\"x\":"
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[{\"k\":1}]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}]}",
    };
    for (size_t i = 0; i < sizeof answers / sizeof answers[0]; i++) {
        outcome o = check_every_split(answers[i]);
        release(&o);
    }
    outcome o = check_every_split(answers[0]);
    CU_ASSERT_EQUAL_FATAL(o.count, 1);
    CU_ASSERT_STRING_EQUAL(o.list[0].sandbox_id, "x\xc3\xa9");
    CU_ASSERT_EQUAL(o.list[0].mount_contract_version, 0);
    release(&o);
    o = check_every_split(answers[sizeof answers / sizeof answers[0] - 2]);
    CU_ASSERT_STRING_EQUAL(o.err.message, "list answer is " COMMON_JSON_TOO_DEEP);
    release(&o);
}

/* A raw NUL byte is never JSON: json-c took one in a comment for the end
 * and handed back the value before it (here the inner object) as the whole
 * answer; both decoders now refuse it. */
static void test_a_raw_nul_is_not_json(void)
{
    static const char answer[] = "[{\"sandboxes\":[{\"sandbox_id\":\"a\",\"sandbox_url\":"
                                 "\"u\"}]} /* \0 */]";
    outcome want, got;
    reference(answer, sizeof answer - 1, &want);
    size_t cut = 20;
    streamed(answer, sizeof answer - 1, &cut, 1, &got);
    CU_ASSERT_EQUAL(want.st, SBX_ERR_PROTOCOL);
    CU_ASSERT_EQUAL(want.count, 0);
    CU_ASSERT(same_outcome(&want, &got));
    release(&want);
    release(&got);
}

/* ---------------------------------------------------------------- memory */

/* Bytes the heap gives `count` records: the array and each record's block. */
static size_t records_bytes(const sbx_sandbox *list, size_t count)
{
    size_t total = count * sizeof *list;
    for (size_t i = 0; i < count; i++)
        total += malloc_usable_size(list[i].sandbox_id) + sizeof(size_t);
    return total;
}

/* A 150 000-entry answer (~20 MB, like the 12 MB one of issue 10 that
 * peaked at 225 MB) fed in 16 KiB pieces made on the fly, as libcurl hands
 * them over: the peak RSS growth stays within 1.5 times the answer plus the
 * records.  Measured in a child process, whose peak is its own. */
static void test_decoding_memory_is_bounded_by_the_answer(void)
{
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        struct rusage before, after;
        getrusage(RUSAGE_SELF, &before);
        remote_list_stream *s = remote_list_stream_new();
        char chunk[16384 + 512];
        size_t used = 0, answer = 0;
        const size_t entries = 150000;
        used = (size_t)snprintf(chunk, sizeof chunk, "{\"sandboxes\": [");
        for (size_t i = 0; i < entries; i++) {
            used += (size_t)snprintf(chunk + used, sizeof chunk - used,
                                     "%s{\"sandbox_id\": \"sandbox-%06zu\", \"sandbox_url\": "
                                     "\"http://10.0.%zu.%zu:31001\", \"status\": \"Running\", "
                                     "\"user_id\": null, \"thread_id\": null, "
                                     "\"mount_contract_version\": null}",
                                     i > 0 ? ", " : "", i, i / 256 % 256, i % 256);
            if (used >= 16384 || i + 1 == entries) {
                if (i + 1 == entries)
                    used += (size_t)snprintf(chunk + used, sizeof chunk - used,
                                             "], \"count\": %zu}", entries);
                if (remote_list_stream_feed(s, chunk, used) != 0)
                    _exit(3);
                answer += used;
                used = 0;
            }
        }
        sbx_sandbox *list = NULL;
        size_t count = 0;
        sbx_error err;
        if (remote_list_stream_finish(s, NULL, &list, &count, &err) != SBX_OK ||
            count != entries)
            _exit(4);
        remote_list_stream_free(s);
        getrusage(RUSAGE_SELF, &after);
        double growth = (double)(after.ru_maxrss - before.ru_maxrss) * 1024.0;
        double bound = 1.5 * (double)answer + (double)records_bytes(list, count);
        fprintf(stderr, "list of %zu: answer %zu bytes, records %zu bytes, peak RSS growth "
                        "%.0f bytes (bound %.0f)\n", count, answer, records_bytes(list, count),
                growth, bound);
        _exit(growth <= bound ? 0 : 5);
    }
    int status = 0;
    CU_ASSERT_EQUAL_FATAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT(WIFEXITED(status));
    CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
}

/* ---------------------------------------------------------------- through HTTP */

static sbx_test_emu *emu;

static int start_emu(void)
{
    emu = sbx_test_emu_start(NULL);
    return emu == NULL ? 1 : 0;
}

static int stop_emu(void)
{
    sbx_test_emu_stop(emu);
    emu = NULL;
    return 0;
}

/* The next GET /api/sandboxes answers `status` with `body`. */
static void queue_list_answer(int status, const char *body)
{
    struct json_object *fault = json_object_new_object();
    json_object_object_add(fault, "route", json_object_new_string("list"));
    json_object_object_add(fault, "action", json_object_new_string("respond"));
    json_object_object_add(fault, "status", json_object_new_int(status));
    json_object_object_add(fault, "body", json_object_new_string(body));
    CU_ASSERT_EQUAL(sbx_test_emu_fault(emu, json_object_to_json_string(fault)), 200);
    json_object_put(fault);
}

/* A sink that feeds a decoder and counts what it was given. */
typedef struct counting_sink {
    remote_list_stream *decoder;
    size_t bytes, calls;
} counting_sink;

static int count_and_feed(void *ctx, const char *data, size_t len)
{
    counting_sink *c = ctx;
    c->bytes += len;
    c->calls++;
    return remote_list_stream_feed(c->decoder, data, len);
}

static sbx_status list_through(size_t max_response_bytes, counting_sink *c,
                               common_http_response *resp, sbx_error *err)
{
    common_http_client_options o = { .base_url = sbx_test_emu_url(emu),
                                  .max_response_bytes = max_response_bytes };
    common_http_client *client = NULL;
    CU_ASSERT_EQUAL_FATAL(common_http_client_new(&o, &client, err), SBX_OK);
    memset(c, 0, sizeof *c);
    c->decoder = remote_list_stream_new();
    common_http_body_sink sink = { .status = 200, .write = count_and_feed, .ctx = c };
    common_http_call call = {.method = "GET", .path = "/api/sandboxes", .timeout_ms = 5000,
                             .sink = &sink};
    sbx_status st = common_http_perform(client, &call, resp, err);
    common_http_client_free(client);
    return st;
}

static void test_a_200_answer_streams_into_the_decoder(void)
{
    queue_list_answer(200, provisioner_answer);
    counting_sink c;
    common_http_response resp;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(list_through(0, &c, &resp, &err), SBX_OK);
    CU_ASSERT_EQUAL(resp.status, 200);
    CU_ASSERT_EQUAL(resp.body_len, 0); /* nothing buffered */
    CU_ASSERT_EQUAL(c.bytes, strlen(provisioner_answer));
    outcome want, got;
    reference(provisioner_answer, strlen(provisioner_answer), &want);
    memset(&got, 0, sizeof got);
    remote_warner warn = { collect, &got.warned };
    got.st = remote_list_stream_finish(c.decoder, &warn, &got.list, &got.count, &got.err);
    CU_ASSERT(same_outcome(&want, &got));
    CU_ASSERT_EQUAL(got.count, 2);
    release(&want);
    release(&got);
    remote_list_stream_free(c.decoder);
    common_http_response_clear(&resp);
}

/* An error answer is buffered for its detail text, never streamed. */
static void test_an_error_answer_is_buffered(void)
{
    queue_list_answer(500, "{\"detail\":\"kubernetes is down\"}");
    counting_sink c;
    common_http_response resp;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(list_through(0, &c, &resp, &err), SBX_OK);
    CU_ASSERT_EQUAL(resp.status, 500);
    CU_ASSERT_EQUAL(c.calls, 0);
    CU_ASSERT_PTR_NOT_NULL(resp.body);
    CU_ASSERT_PTR_NOT_NULL(strstr(resp.body, "kubernetes is down"));
    remote_list_stream_free(c.decoder);
    common_http_response_clear(&resp);
}

/* max_response_bytes still bounds a streamed answer: the transfer stops and
 * the sink never got more than the bound. */
static void test_the_bound_holds_while_streaming(void)
{
    char body[4096];
    size_t used = (size_t)snprintf(body, sizeof body, "{\"sandboxes\":[");
    for (int i = 0; used < 3000; i++)
        used += (size_t)snprintf(body + used, sizeof body - used,
                                 "%s{\"sandbox_id\":\"s%d\",\"sandbox_url\":\"http://h:%d\"}",
                                 i > 0 ? "," : "", i, i);
    snprintf(body + used, sizeof body - used, "]}");
    queue_list_answer(200, body);
    counting_sink c;
    common_http_response resp;
    sbx_error err;
    CU_ASSERT_EQUAL(list_through(1000, &c, &resp, &err), SBX_ERR_PROTOCOL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "max_response_bytes (1000 bytes)"));
    CU_ASSERT(c.bytes <= 1000);
    remote_list_stream_free(c.decoder);
}

void sbx_test_register(void)
{
    static const CU_TestInfo decoding[] = {
        { "the_provisioners_answer_in_any_chunks", test_the_provisioners_answer_in_any_chunks },
        { "skipped_entries_warn_in_order", test_skipped_entries_warn_in_order },
        { "duplicate_keys_and_broken_ends", test_duplicate_keys_and_broken_ends },
        { "json_c_extensions_and_limits", test_json_c_extensions_and_limits },
        { "a_raw_nul_is_not_json", test_a_raw_nul_is_not_json },
        { "decoding_memory_is_bounded_by_the_answer",
          test_decoding_memory_is_bounded_by_the_answer },
        CU_TEST_INFO_NULL,
    };
    static const CU_TestInfo http[] = {
        { "a_200_answer_streams_into_the_decoder", test_a_200_answer_streams_into_the_decoder },
        { "an_error_answer_is_buffered", test_an_error_answer_is_buffered },
        { "the_bound_holds_while_streaming", test_the_bound_holds_while_streaming },
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("remote list stream", NULL, NULL, decoding);
    sbx_test_add_suite("remote list stream over HTTP", start_emu, stop_emu, http);
}
