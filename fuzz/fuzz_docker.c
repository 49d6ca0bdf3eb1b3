/*
 * libFuzzer targets: the docker backend's readers of Engine API answers
 * (plugin/docker/docker_container.h, docker_engine.h), chosen at compile
 * time with -DSBX_FUZZ_DECODER=N (see fuzz/run):
 *   1 an inspect answer: docker_engine_parse (object), then
 *     docker_view_from_inspect; and the same body as an error answer
 *     (docker_engine_error, docker_engine_is_name_conflict)
 *   2 a container list answer: the json-c path (docker_engine_parse of an
 *     array, then docker_view_from_list_entry on every entry) beside the
 *     streaming decoder (docker_list_stream.h) fed the same bytes whole,
 *     in chunks of sizes drawn from the input (so a saved input replays
 *     the same split) and one byte at a time (inputs up to 4 KiB); both
 *     as list_running (sandboxes without a published port skipped) and as
 *     list_records (kept): the same status and message, the same
 *     sandboxes, the same skipped entries with the same words
 * The options are the backend's defaults (no option given).
 */
#include <config.h>

#include "common/http_client.h"
#include "common/record_chain.h"
#include "fuzz/fuzz_chunks.h"
#include "plugin/docker/docker_container.h"
#include "plugin/docker/docker_engine.h"
#include "plugin/docker/docker_list_stream.h"
#include "plugin/docker/docker_options.h"

#include <sbx/backend_support.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#if SBX_FUZZ_DECODER == 2
/* The options every decoding of one input reads. */
static const docker_options *docker_fuzz_options;
#endif

/* A sandbox read back must have its id and a URL ("" when it has no
 * address), and make a record. */
static void check_sandbox(const docker_sandbox_view *view)
{
    const common_record_facts *f = &view->facts;
    sbx_sandbox_record *record = NULL;
    sbx_error err;
    if (f->sandbox_id == NULL || f->sandbox_url == NULL || f->sandbox_id[0] == '\0' ||
        common_record_new(f, &record, &err) != SBX_OK)
        abort();
    common_records_free(record);
}

#if SBX_FUZZ_DECODER == 2
/* A growing text: what one decoder gave, one line per sandbox or skip. */
typedef struct text_log {
    char *text;
    size_t len, cap;
} text_log;

static void log_line(text_log *log, const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        abort();
    size_t len = strlen(line);
    if (log->len + len + 1 > log->cap) {
        log->cap = (log->len + len + 1) * 2;
        log->text = realloc(log->text, log->cap);
        if (log->text == NULL)
            abort();
    }
    memcpy(log->text + log->len, line, len + 1);
    log->len += len;
}

static const char *or_null(const char *s)
{
    return s != NULL ? s : "(null)";
}

/* What one list decoding gave. */
typedef struct list_outcome {
    sbx_status st;
    sbx_error err;
    text_log found, skipped;
} list_outcome;

static int found_view(void *ctx, docker_sandbox_view *view)
{
    list_outcome *o = ctx;
    const common_record_facts *f = &view->facts;
    check_sandbox(view);
    log_line(&o->found, "%s|%s|%s|%s|%s|%" PRId64 "|%s|%s|%s\n", f->sandbox_id, f->sandbox_url,
             or_null(f->user_id), or_null(f->thread_id), or_null(f->status), f->created_at,
             or_null(f->container_id), or_null(f->incarnation_id), or_null(f->container_name));
    return 0;
}

static void skipped_entry(void *ctx, size_t index, docker_skip skip, const char *why)
{
    list_outcome *o = ctx;
    log_line(&o->skipped, "%zu %d %s\n", index, (int)skip, why);
}

static void release(list_outcome *o)
{
    free(o->found.text);
    free(o->skipped.text);
}

/* The json-c path, as the backend took it before it streamed. */
static void decode_with_json_c(const common_http_response *resp, int keep, list_outcome *o)
{
    memset(o, 0, sizeof *o);
    json_object *list = docker_engine_parse(resp, json_type_array, "list", &o->err);
    o->st = list != NULL ? SBX_OK : SBX_ERR_PROTOCOL;
    size_t n = list != NULL ? json_object_array_length(list) : 0;
    for (size_t i = 0; i < n; i++) {
        docker_skip_note skip;
        docker_sandbox_view view;
        if (docker_view_from_list_entry(docker_fuzz_options, json_object_array_get_idx(list, i),
                                        keep, &view, &skip))
            found_view(o, &view);
        else if (memchr(skip.why, '\0', sizeof skip.why) == NULL)
            abort();
        else
            skipped_entry(o, i, skip.kind, skip.why);
    }
    json_object_put(list);
}

static int feed_stream(void *stream, const char *bytes, size_t n)
{
    return docker_list_stream_feed(stream, bytes, n);
}

/* The streaming decoder fed `body` in chunks: of `chunk` bytes each, or
 * (chunk 0) of sizes drawn from a generator seeded by the body itself. */
static void decode_in_chunks(const char *body, size_t size, size_t chunk, int keep,
                             list_outcome *o)
{
    memset(o, 0, sizeof *o);
    docker_list_stream *s = docker_list_stream_new(docker_fuzz_options, keep, found_view, o);
    if (s == NULL)
        abort();
    fuzz_chunks_feed(body, size, chunk, feed_stream, s);
    o->st = docker_list_stream_finish(s, "list", skipped_entry, o, &o->err);
    docker_list_stream_free(s);
    if (o->st != SBX_OK) {
        /* The caller drops what a broken answer gave. */
        free(o->found.text);
        memset(&o->found, 0, sizeof o->found);
    }
}

static int same_log(const text_log *a, const text_log *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->text, b->text, a->len) == 0);
}

static void check_same(const list_outcome *a, const list_outcome *b)
{
    if (a->st != b->st || !same_log(&a->found, &b->found) || !same_log(&a->skipped, &b->skipped))
        abort();
    if (a->st != SBX_OK &&
        (a->err.kind != b->err.kind || strcmp(a->err.message, b->err.message) != 0))
        abort();
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static docker_options options;
    static int have_options;
    sbx_error err;
    if (!have_options) {
        if (docker_options_parse(NULL, 0, &options, &err) != SBX_OK)
            abort();
        have_options = 1;
    }
    /* The HTTP client's answers are NUL-terminated; so is this copy. */
    char *body = malloc(size + 1);
    if (body == NULL)
        return 0;
    memcpy(body, data, size);
    body[size] = '\0';
    common_http_response resp = {.status = 200, .body = body, .body_len = size};
    docker_sandbox_view view;
#if SBX_FUZZ_DECODER == 1
    json_object *inspect = docker_engine_parse(&resp, json_type_object, "inspect", &err);
    int running = 0;
    if (inspect != NULL &&
        docker_view_from_inspect(&options, inspect, "fuzz-id", &view, &running, &err) == SBX_OK)
        check_sandbox(&view);
    json_object_put(inspect);
    for (long status = 404; status <= 500; status += 96) {
        resp.status = status;
        (void)docker_engine_is_name_conflict(&resp);
        if (docker_engine_error(&resp, "fuzz call", SBX_ERR_NOT_FOUND, &err) == SBX_OK ||
            memchr(err.message, '\0', sizeof err.message) == NULL)
            abort();
    }
#elif SBX_FUZZ_DECODER == 2
    (void)view;
    docker_fuzz_options = &options;
    for (int keep = 0; keep <= 1; keep++) {
        list_outcome reference, got;
        decode_with_json_c(&resp, keep, &reference);
        decode_in_chunks(body, size, size > 0 ? size : 1, keep, &got);
        check_same(&reference, &got);
        release(&got);
        decode_in_chunks(body, size, 0, keep, &got);
        check_same(&reference, &got);
        release(&got);
        if (size <= 4096) {
            decode_in_chunks(body, size, 1, keep, &got);
            check_same(&reference, &got);
            release(&got);
        }
        release(&reference);
    }
#else
#error "SBX_FUZZ_DECODER must be 1 or 2"
#endif
    free(body);
    return 0;
}
