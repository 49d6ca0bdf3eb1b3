/* The streaming container list decoder (plugin/docker/docker_list_stream.h):
 * it gives what the json-c path gives (sandboxes, skipped entries and
 * their words, errors) however the answer is cut into chunks, for both
 * engines' answers; it keeps little while it reads; and through the HTTP
 * client's body sink, from a fake engine on a unix socket, the answer's
 * bound still holds. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "common/http_client.h"
#include "common/json_fields.h"
#include "plugin/docker/docker_container.h"
#include "plugin/docker/docker_engine.h"
#include "plugin/docker/docker_list_stream.h"
#include "plugin/docker/docker_options.h"

#include <sbx/backend_support.h>

#include <CUnit/CUnit.h>
#include <inttypes.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---------------------------------------------------------------- helpers */

static docker_options options; /* the backend's defaults: prefix "sbx", port 8080 */

static int setup(void)
{
    sbx_error err;
    return docker_options_parse(NULL, 0, &options, &err) == SBX_OK ? 0 : 1;
}

static int teardown(void)
{
    docker_options_clear(&options);
    return 0;
}

/* What a decoder gave: one line per sandbox, one per skipped entry. */
typedef struct outcome {
    sbx_status st;
    sbx_error err;
    char found[8192];
    char skipped[4096];
    int found_count, skipped_count;
} outcome;

static void append(char *buf, size_t size, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
}

static int found_view(void *ctx, docker_sandbox_view *view)
{
    outcome *o = ctx;
    const common_record_facts *f = &view->facts;
    append(o->found, sizeof o->found, "%s %s user=%s thread=%s status=%s created=%" PRId64
           " id=%s name=%s\n", f->sandbox_id, f->sandbox_url[0] ? f->sandbox_url : "-",
           f->user_id ? f->user_id : "-", f->thread_id ? f->thread_id : "-",
           f->status ? f->status : "-", f->created_at,
           f->container_id ? f->container_id : "-", f->container_name);
    o->found_count++;
    return 0;
}

static void skipped_entry(void *ctx, size_t index, docker_skip skip, const char *why)
{
    outcome *o = ctx;
    append(o->skipped, sizeof o->skipped, "%zu %s: %s\n", index,
           skip == DOCKER_SKIP_OTHER_PREFIX ? "debug" : "warn", why);
    o->skipped_count++;
}

/* The json-c path, as the backend took it before it streamed. */
static void reference(const char *body, size_t len, int keep, outcome *o)
{
    memset(o, 0, sizeof *o);
    common_http_response resp = { 200, (char *)body, len };
    json_object *list = docker_engine_parse(&resp, json_type_array, "list", &o->err);
    o->st = list != NULL ? SBX_OK : SBX_ERR_PROTOCOL;
    for (size_t i = 0; list != NULL && i < json_object_array_length(list); i++) {
        docker_sandbox_view view;
        docker_skip_note skip;
        if (docker_view_from_list_entry(&options, json_object_array_get_idx(list, i), keep,
                                        &view, &skip))
            found_view(o, &view);
        else
            skipped_entry(o, i, skip.kind, skip.why);
    }
    json_object_put(list);
}

/* The streaming decoder fed body[0..len) in the chunks `cuts` (sorted,
 * ncuts of them) make.  A failed answer's sandboxes are dropped, as the
 * backend drops them. */
static void streamed(const char *body, size_t len, const size_t *cuts, size_t ncuts, int keep,
                     outcome *o)
{
    memset(o, 0, sizeof *o);
    docker_list_stream *s = docker_list_stream_new(&options, keep, found_view, o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    size_t at = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t to = i < ncuts ? cuts[i] : len;
        CU_ASSERT_EQUAL(docker_list_stream_feed(s, body + at, to - at), 0);
        at = to;
    }
    o->st = docker_list_stream_finish(s, "list", skipped_entry, o, &o->err);
    docker_list_stream_free(s);
    if (o->st != SBX_OK) {
        o->found[0] = '\0';
        o->found_count = 0;
    }
}

static int same_outcome(const outcome *a, const outcome *b)
{
    return a->st == b->st && strcmp(a->found, b->found) == 0 &&
           strcmp(a->skipped, b->skipped) == 0 &&
           (a->st == SBX_OK ||
            (a->err.kind == b->err.kind && strcmp(a->err.message, b->err.message) == 0));
}

/* The stream must match json-c with the answer whole, cut in two at every
 * byte, and fed one byte at a time; *want is json-c's outcome. */
static void check_every_split(const char *body, size_t len, int keep, outcome *want)
{
    outcome got;
    reference(body, len, keep, want);
    for (size_t cut = 0; cut <= len; cut++) {
        streamed(body, len, &cut, 1, keep, &got);
        if (!same_outcome(want, &got))
            fprintf(stderr, "differs when cut at %zu (keep %d):\n%s%s\nvs\n%s%s\n", cut, keep,
                    want->found, want->skipped, got.found, got.skipped);
        CU_ASSERT(same_outcome(want, &got));
    }
    size_t *every = malloc((len + 1) * sizeof *every);
    CU_ASSERT_PTR_NOT_NULL_FATAL(every);
    for (size_t i = 0; i < len; i++)
        every[i] = i;
    streamed(body, len, every, len, keep, &got);
    CU_ASSERT(same_outcome(want, &got));
    free(every);
}

#define HEX64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* ---------------------------------------------------------------- samples */

/* Docker Engine 20.10's shape: names with '/', extra members, IPv4 and
 * IPv6 bindings of one port; a running sandbox without a published port;
 * a managed container of another prefix. */
static const char dockerd_answer[] =
    "[{\"Id\":\"" HEX64 "\",\"Names\":[\"/sbx-abc\"],\"Image\":\"busybox\","
    "\"ImageID\":\"sha256:" HEX64 "\",\"Command\":\"sh -c 'httpd -f -p 8080'\","
    "\"Created\":1733220000,\"Ports\":[{\"IP\":\"127.0.0.1\",\"PrivatePort\":8080,"
    "\"PublicPort\":49153,\"Type\":\"tcp\"},{\"IP\":\"::1\",\"PrivatePort\":8080,"
    "\"PublicPort\":49154,\"Type\":\"tcp\"}],\"Labels\":{\"sbx.managed\":\"true\","
    "\"sbx.sandbox_id\":\"abc\",\"sbx.thread_id\":\"thread-1\",\"sbx.user_id\":\"alice\"},"
    "\"State\":\"running\",\"Status\":\"Up 2 seconds\","
    "\"HostConfig\":{\"NetworkMode\":\"default\"},"
    "\"NetworkSettings\":{\"Networks\":{\"bridge\":{\"IPAMConfig\":null,\"Gateway\":\"172.17.0.1\","
    "\"IPPrefixLen\":16}}},\"Mounts\":[]},\n"
    " {\"Id\":\"b" HEX64 "\",\"Names\":[\"/sbx-noport\"],\"Created\":1733220001,\"Ports\":[],"
    "\"Labels\":{\"sbx.managed\":\"true\",\"sbx.sandbox_id\":\"noport\"},\"State\":\"running\"},\n"
    " {\"Id\":\"c1\",\"Names\":[\"/other-x\"],\"Labels\":{\"sbx.managed\":\"true\","
    "\"sbx.sandbox_id\":\"x\"},\"State\":\"running\",\"Ports\":[{\"PrivatePort\":8080,"
    "\"PublicPort\":1,\"Type\":\"tcp\"}]}]\n";

/* podman 4.3's compatible list: more members (null ones too), its own
 * labels, two names, a udp binding of the port before the tcp one. */
static const char podman_answer[] =
    "[{\"Id\":\"" HEX64 "\",\"Names\":[\"/sbx-pod\"],"
    "\"Image\":\"docker.io/library/busybox:latest\","
    "\"Created\":1733220000,\"Ports\":[{\"IP\":\"127.0.0.1\",\"PrivatePort\":8080,"
    "\"PublicPort\":40001,\"Type\":\"tcp\"}],\"Labels\":{\"io.podman.x\":\"y\","
    "\"sbx.managed\":\"true\",\"sbx.sandbox_id\":\"pod\"},\"State\":\"running\","
    "\"Status\":\"Up 1 second\",\"NetworkSettings\":{\"Networks\":{\"podman\":"
    "{\"IPAddress\":\"10.88.0.2\"}}},\"Mounts\":[],\"Name\":\"\",\"Config\":null,"
    "\"NetworkingConfig\":null,\"Platform\":null,\"AdjustCPUShares\":false},"
    "{\"Id\":\"" HEX64 "\",\"Names\":[\"/alias\",\"/sbx-pod2\"],\"Created\":1733220002,"
    "\"Ports\":[{\"PrivatePort\":8080,\"PublicPort\":40002,\"Type\":\"udp\"},"
    "{\"PrivatePort\":8080,\"PublicPort\":40003,\"Type\":\"tcp\"}],\"Labels\":{"
    "\"sbx.managed\":\"true\",\"sbx.sandbox_id\":\"pod2\",\"sbx.user_id\":\"bob\"},"
    "\"State\":\"paused\"},"
    "{\"Names\":[\"sbx-bare\"],\"Labels\":{\"sbx.managed\":\"true\",\"sbx.sandbox_id\":\"bare\"},"
    "\"Ports\":[{\"PrivatePort\":8080,\"PublicPort\":40004,\"Type\":\"tcp\"}]}]";

/* What json-c's tree decides: the last of a repeated key, keys cut at an
 * escaped NUL, comments and single quotes, strings that are not clean
 * text (skipped, or not when a later duplicate replaces them), values of
 * the wrong type, entries that are not objects. */
static const char odd_answer[] =
    "[{\"Names\":[\"/sbx-d\"],\"Labels\":{\"sbx.managed\":\"true\",\"sbx.sandbox_id\":\"zz\"},"
    "\"Labels\":{\"sbx.managed\":\"true\",\"sbx.sandbox_id\":\"d\",\"sbx.thread_id\":\"t\\u0031\"},"
    "\"Ports\":[{\"PrivatePort\":8080,\"PublicPort\":5,\"Type\":\"tcp\",\"Type\":1}],"
    "\"Ports\":[{\"PrivatePort\":8080.0,\"PublicPort\":6,\"Type\":\"tcp\"},"
    "{\"PrivatePort\":8080,\"PublicPort\":7,\"Type\":\"tcp\"}],\"State\":\"running\","
    "\"Id\":\"ABC\",\"Created\":99999999999999999999},"
    "{\"Names\":[\"/sbx-e\"],\"Labels\":{\"sbx.managed\":\"true\",\"sbx.sandbox_id\":\"e\","
    "\"sbx.user_id\":\"a\\u0000b\"},"
    "\"Ports\":[{\"PrivatePort\":8080,\"PublicPort\":9,\"Type\":\"tcp\"}]},"
    "{\"Names\":[\"/sbx-f\"],\"Labels\":{\"sbx.managed\":\"true\",\"sbx.sandbox_id\":\"f\","
    "\"sbx.user_id\":\"\\u0000\"},\"Labels\\u0000junk\":{\"sbx.managed\":\"true\","
    "\"sbx.sandbox_id\":\"f\"},\"Ports\":[{\"PrivatePort\":8080,\"PublicPort\":10,"
    "\"Type\":\"tcp\"}], /* a comment */ 'State':'Running'},"
    "{\"Image\":\"caf\xc3\xa9\",\"Names\":[\"/sbx-g\"],\"Labels\":{\"sbx.managed\":\"true\","
    "\"sbx.sandbox_id\":\"g\"},"
    "\"Ports\":[{\"PrivatePort\":8080,\"PublicPort\":11,\"Type\":\"tcp\"}]},"
    "{\"Names\":[\"/sbx-h\xe2\x82\"],"
    "\"Labels\":{\"sbx.managed\":\"true\",\"sbx.sandbox_id\":\"h\"}},"
    "\"text\", 12, null, [1,{\"a\":\"\\u0000\"}], {\"x\":\"\\u0000\",\"x\":\"ok\",\"Labels\":{}},]";

/* ---------------------------------------------------------------- tests */

static void test_both_engines_answers_in_any_chunks(void)
{
    const char *answers[] = { dockerd_answer, podman_answer, odd_answer };
    for (size_t i = 0; i < sizeof answers / sizeof answers[0]; i++) {
        for (int keep = 0; keep <= 1; keep++) {
            outcome want;
            check_every_split(answers[i], strlen(answers[i]), keep, &want);
            CU_ASSERT_EQUAL(want.st, SBX_OK);
        }
    }
}

static void test_what_a_caller_sees(void)
{
    outcome o;
    size_t cut = 700;
    streamed(dockerd_answer, strlen(dockerd_answer), &cut, 1, 0, &o);
    CU_ASSERT_EQUAL(o.st, SBX_OK);
    CU_ASSERT_STRING_EQUAL(o.found, "abc http://127.0.0.1:49153 user=alice thread=thread-1 "
                                    "status=Running created=1733220000000 id=" HEX64
                                    " name=sbx-abc\n");
    CU_ASSERT_STRING_EQUAL(o.skipped, "1 warn: the sandbox port is not published\n"
                                      "2 debug: named with another prefix\n");
    /* list_records keeps the running sandbox without a published port. */
    streamed(dockerd_answer, strlen(dockerd_answer), &cut, 1, 1, &o);
    CU_ASSERT_EQUAL(o.found_count, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(o.found, "noport - user=default thread=- status=Running "
                                           "created=1733220001000 id=b" HEX64));
    /* podman: the tcp binding, not the udp one; a name without '/' is not ours. */
    streamed(podman_answer, strlen(podman_answer), NULL, 0, 0, &o);
    CU_ASSERT_EQUAL(o.found_count, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(o.found, "pod2 http://127.0.0.1:40003 user=bob thread=- "
                                           "status=Paused"));
    CU_ASSERT_STRING_EQUAL(o.skipped, "2 debug: named with another prefix\n");
    /* The last of repeated keys; an entry with a NUL in a label is skipped
     * naming the field, one whose bad label a later Labels replaced is not. */
    streamed(odd_answer, strlen(odd_answer), NULL, 0, 0, &o);
    CU_ASSERT_PTR_NOT_NULL(strstr(o.found, "d http://127.0.0.1:7 user=default thread=t1 "
                                           "status=Running created=0 id=- name=sbx-d\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.found, "f http://127.0.0.1:10 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.skipped, "1 warn: field 'Labels.sbx.user_id' holds a NUL or "
                                             "invalid UTF-8\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.found, "g http://127.0.0.1:11 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.skipped, "4 warn: field 'Names[0]' holds a NUL or invalid "
                                             "UTF-8\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.skipped, "5 warn: missing or invalid sbx labels\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.skipped, "8 warn: field '[1].a' holds a NUL or invalid "
                                             "UTF-8\n"));
}

static void test_malformed_answers_are_not_arrays(void)
{
    static const char *const broken[] = {
        "", " ", "[", "[{}", "{}", "null", "\"[]\"", "[]x", "[1] [", "[{\"a\":}]",
        "[{\"Labels\":{\"sbx.managed\":\"tr", "[1,,2]", "[\"\\x\"]", "[tru]",
    };
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
        outcome want;
        check_every_split(broken[i], strlen(broken[i]), 0, &want);
        CU_ASSERT_EQUAL(want.st, SBX_ERR_PROTOCOL);
        CU_ASSERT_STRING_EQUAL(want.err.message,
                               "docker: list: the engine's answer is not a JSON array");
        CU_ASSERT_EQUAL(want.skipped_count, 0);
    }
    /* Nested deeper than json-c goes, and a raw NUL: not JSON either,
     * after entries that were already sandboxes (the caller drops them). */
    char deep[100];
    memset(deep, '[', 40);
    deep[40] = '1';
    memset(deep + 41, ']', 40);
    deep[81] = '\0';
    outcome want, got;
    check_every_split(deep, strlen(deep), 0, &want);
    CU_ASSERT_EQUAL(want.st, SBX_ERR_PROTOCOL);
    static const char with_nul[] = "[{\"Names\":[\"/sbx-a\"]},\"a\0b\"]";
    reference(with_nul, sizeof with_nul - 1, 0, &want);
    streamed(with_nul, sizeof with_nul - 1, NULL, 0, 0, &got);
    CU_ASSERT_EQUAL(got.st, SBX_ERR_PROTOCOL);
    CU_ASSERT(same_outcome(&want, &got));
}

static int count_only(void *ctx, docker_sandbox_view *view)
{
    (void)view;
    (*(size_t *)ctx)++;
    return 0;
}

/* A 20 000-entry answer (10 MB) fed in 16 KiB pieces: the decoder holds
 * a few buffers, never the answer or a tree of it. */
static void test_decoding_memory_stays_small(void)
{
    const char *entry = strchr(dockerd_answer, '{');
    size_t entry_len = (size_t)(strstr(entry, "},\n") + 1 - entry);
    size_t n = 20000, len = 2 + n * (entry_len + 1);
    char *body = malloc(len + 1), *p = body;
    CU_ASSERT_PTR_NOT_NULL_FATAL(body);
    *p++ = '[';
    for (size_t i = 0; i < n; i++) {
        memcpy(p, entry, entry_len);
        p += entry_len;
        *p++ = i + 1 < n ? ',' : ']';
    }
    len = (size_t)(p - body);
    size_t found = 0;
    struct mallinfo2 before = mallinfo2();
    docker_list_stream *s = docker_list_stream_new(&options, 0, count_only, &found);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    size_t most = 0;
    for (size_t at = 0; at < len; at += 16384) {
        CU_ASSERT_EQUAL(docker_list_stream_feed(s, body + at, len - at < 16384 ? len - at : 16384),
                        0);
        struct mallinfo2 now = mallinfo2();
        if (now.uordblks - before.uordblks > most)
            most = now.uordblks - before.uordblks;
    }
    sbx_error err;
    CU_ASSERT_EQUAL(docker_list_stream_finish(s, "list", NULL, NULL, &err), SBX_OK);
    docker_list_stream_free(s);
    CU_ASSERT_EQUAL(found, n);
    if (most >= 64 * 1024)
        fprintf(stderr, "decoder held %zu bytes for a %zu-byte answer\n", most, len);
    CU_ASSERT(most < 64 * 1024);
    free(body);
}

/* ---------------------------------------------------------------- over HTTP */

/* A fake engine: a forked process answering one request on a unix socket
 * with 200 and `len` bytes of a list (an array of `len` bytes of spaces). */
typedef struct fake_engine {
    char dir[32], socket[64];
    pid_t pid;
} fake_engine;

static void fake_engine_start(fake_engine *e, size_t len)
{
    snprintf(e->dir, sizeof e->dir, "/tmp/sbx-dstream.XXXXXX");
    CU_ASSERT_FATAL(mkdtemp(e->dir) != NULL);
    snprintf(e->socket, sizeof e->socket, "%s/engine.sock", e->dir);
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", e->socket);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_FATAL(bind(fd, (struct sockaddr *)&addr, sizeof addr) == 0);
    CU_ASSERT_FATAL(listen(fd, 4) == 0);
    fflush(NULL);
    e->pid = fork();
    CU_ASSERT_FATAL(e->pid >= 0);
    if (e->pid == 0) {
        int c = accept(fd, NULL, NULL);
        char req[4096];
        if (c < 0 || read(c, req, sizeof req) <= 0)
            _exit(1);
        char head[200];
        int n = snprintf(head, sizeof head,
                         "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         "Content-Length: %zu\r\nConnection: close\r\n\r\n[", len);
        static char spaces[4096];
        memset(spaces, ' ', sizeof spaces);
        ssize_t w = write(c, head, (size_t)n);
        for (size_t sent = 1; w > 0 && sent < len - 1; sent += (size_t)w)
            w = write(c, spaces, len - 1 - sent < sizeof spaces ? len - 1 - sent : sizeof spaces);
        if (w > 0)
            w = write(c, "]", 1);
        _exit(w > 0 ? 0 : 1);
    }
    close(fd);
}

static void fake_engine_stop(fake_engine *e)
{
    kill(e->pid, SIGKILL);
    waitpid(e->pid, NULL, 0);
    unlink(e->socket);
    rmdir(e->dir);
}

typedef struct counting_sink {
    docker_list_stream *decoder;
    size_t bytes;
} counting_sink;

static int count_and_feed(void *ctx, const char *data, size_t len)
{
    counting_sink *c = ctx;
    c->bytes += len;
    return docker_list_stream_feed(c->decoder, data, len);
}

/* GET of the list through a client bounded at `max` bytes. */
static sbx_status list_through(const fake_engine *e, size_t max, counting_sink *c,
                               sbx_error *err)
{
    common_http_client_options o = { .base_url = "http://localhost",
                                     .unix_socket_path = e->socket,
                                     .connect_timeout_ms = 5000,
                                     .max_response_bytes = max };
    common_http_client *client = NULL;
    CU_ASSERT_FATAL(common_http_client_new(&o, &client, err) == SBX_OK);
    c->bytes = 0;
    c->decoder = docker_list_stream_new(&options, 0, count_only, &c->bytes);
    common_http_body_sink sink = { .status = 200, .write = count_and_feed, .ctx = c };
    common_http_response resp;
    common_http_call call = {.method = "GET", .path = "/v1.41/containers/json",
                             .timeout_ms = 10000, .sink = &sink};
    sbx_status st = common_http_perform(client, &call, &resp, err);
    if (st == SBX_OK)
        st = docker_list_stream_finish(c->decoder, "list", NULL, NULL, err);
    common_http_response_clear(&resp);
    docker_list_stream_free(c->decoder);
    common_http_client_free(client);
    return st;
}

static void test_the_bound_holds_while_streaming(void)
{
    fake_engine e;
    counting_sink c;
    sbx_error err;
    fake_engine_start(&e, 1000);
    CU_ASSERT_EQUAL(list_through(&e, 1000, &c, &err), SBX_OK);
    fake_engine_stop(&e);
    fake_engine_start(&e, 100000);
    CU_ASSERT_EQUAL(list_through(&e, 1000, &c, &err), SBX_ERR_PROTOCOL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "max_response_bytes (1000 bytes)"));
    CU_ASSERT(c.bytes <= 1000);
    fake_engine_stop(&e);
}

void sbx_test_register(void)
{
    static const CU_TestInfo decoding[] = {
        { "both_engines_answers_in_any_chunks", test_both_engines_answers_in_any_chunks },
        { "what_a_caller_sees", test_what_a_caller_sees },
        { "malformed_answers_are_not_arrays", test_malformed_answers_are_not_arrays },
        { "decoding_memory_stays_small", test_decoding_memory_stays_small },
        { "the_bound_holds_while_streaming", test_the_bound_holds_while_streaming },
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("docker list stream", setup, teardown, decoding);
}
