/*
 * libFuzzer targets: the remote backend's decoders of provisioner answers
 * (plugin/remote/remote_decode.h).  One source, one target per decoder, chosen at
 * compile time with -DSBX_FUZZ_DECODER=N (see fuzz/run):
 *   1 remote_decode_list            (GET /api/sandboxes), and beside it
 *     the streaming list decoder (remote_list_stream.h) fed the same bytes whole
 *     and split at random points: both must give the same status, message,
 *     records and warnings
 *   2 remote_decode_sandbox         (create/get answers)
 *   3 remote_decode_reconciliation  (GET .../reconciliation)
 *   4 remote_decode_capabilities    (GET /api/capabilities)
 *   5 remote_detail_text            (any error answer)
 * Each input is an answer body; every result is released and its invariants
 * are checked (the fuzzer aborts on a broken one, so it is a finding).
 */
#include <config.h>

#include "common/json_fields.h"
#include "common/sandbox_records.h"
#include "fuzz/fuzz_chunks.h"
#include "plugin/remote/remote_decode.h"
#include "plugin/remote/remote_list_stream.h"

#include <sbx/backend_support.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#if SBX_FUZZ_DECODER <= 3
/* A decoded sandbox must have its two required strings. */
static void check_sandbox(const sbx_sandbox *sb)
{
    if (sb->sandbox_id == NULL || sb->sandbox_url == NULL || sb->sandbox_id[0] == '\0' ||
        sb->sandbox_url[0] == '\0')
        abort();
}
#endif

#if SBX_FUZZ_DECODER == 1 || SBX_FUZZ_DECODER == 5
static void check_terminated(const char *buf, size_t cap)
{
    if (memchr(buf, '\0', cap) == NULL)
        abort();
}
#endif

#if SBX_FUZZ_DECODER == 1
/* Every warning of one decode, one per line. */
typedef struct warning_log {
    char *text;
    size_t len, cap;
} warning_log;

static void log_warning(void *ctx, const char *message)
{
    warning_log *log = ctx;
    size_t n = strlen(message);
    if (log->len + n + 2 > log->cap) {
        log->cap = (log->len + n + 2) * 2;
        log->text = realloc(log->text, log->cap);
        if (log->text == NULL)
            abort();
    }
    memcpy(log->text + log->len, message, n);
    log->len += n;
    log->text[log->len++] = '\n';
    log->text[log->len] = '\0';
}

/* What a list decoder gave. */
typedef struct list_outcome {
    sbx_status st;
    sbx_error err;
    sbx_sandbox *list;
    size_t count;
    warning_log warnings;
} list_outcome;

static void release(list_outcome *o)
{
    common_sandbox_records_free(o->list, o->count);
    free(o->warnings.text);
}

static int same_text(const char *a, const char *b)
{
    return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/* The two decoders must agree on everything a caller sees. */
static void check_same(const list_outcome *a, const list_outcome *b)
{
    if (a->st != b->st || a->count != b->count || a->warnings.len != b->warnings.len ||
        (a->warnings.len > 0 && memcmp(a->warnings.text, b->warnings.text, a->warnings.len) != 0))
        abort();
    if (a->st != SBX_OK && (a->err.kind != b->err.kind || strcmp(a->err.message, b->err.message) != 0))
        abort();
    for (size_t i = 0; i < a->count; i++) {
        const sbx_sandbox *x = &a->list[i], *y = &b->list[i];
        if (!same_text(x->sandbox_id, y->sandbox_id) || !same_text(x->sandbox_url, y->sandbox_url) ||
            !same_text(x->user_id, y->user_id) || !same_text(x->thread_id, y->thread_id) ||
            !same_text(x->status, y->status) ||
            x->mount_contract_version != y->mount_contract_version)
            abort();
    }
}

static int feed_stream(void *stream, const char *bytes, size_t n)
{
    return remote_list_stream_feed(stream, bytes, n);
}

/* The streaming decoder fed `body` in chunks: of `chunk` bytes each, or
 * (chunk 0) of sizes drawn from a generator seeded by the body itself, so
 * that a saved input replays the same split. */
static void decode_in_chunks(const char *body, size_t size, size_t chunk, list_outcome *o)
{
    memset(o, 0, sizeof *o);
    sbx_backend_error_clear(&o->err);
    remote_list_stream *s = remote_list_stream_new();
    if (s == NULL)
        abort();
    fuzz_chunks_feed(body, size, chunk, feed_stream, s);
    remote_warner warn = { log_warning, &o->warnings };
    o->st = remote_list_stream_finish(s, &warn, &o->list, &o->count, &o->err);
    remote_list_stream_free(s);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *body = (const char *)data;
    sbx_error err;
    sbx_backend_error_clear(&err);
#if SBX_FUZZ_DECODER == 1
    list_outcome reference, whole, split;
    memset(&reference, 0, sizeof reference);
    remote_warner warn = { log_warning, &reference.warnings };
    reference.st = remote_decode_list(body, size, &warn, &reference.list, &reference.count,
                                      &reference.err);
    if (reference.st == SBX_OK) {
        for (size_t i = 0; i < reference.count; i++)
            check_sandbox(&reference.list[i]);
    } else {
        check_terminated(reference.err.message, sizeof reference.err.message);
    }
    decode_in_chunks(body, size, size > 0 ? size : 1, &whole);
    check_same(&reference, &whole);
    release(&whole);
    decode_in_chunks(body, size, 0, &split);
    check_same(&reference, &split);
    release(&split);
    if (size <= 4096) {
        decode_in_chunks(body, size, 1, &split);
        check_same(&reference, &split);
        release(&split);
    }
    release(&reference);
#elif SBX_FUZZ_DECODER == 2
    struct json_object *object = common_json_parse(body, size);
    sbx_sandbox sb;
    memset(&sb, 0, sizeof sb);
    if (object != NULL && remote_decode_sandbox(object, &sb, &err) == SBX_OK)
        check_sandbox(&sb);
    else if (sb.sandbox_id != NULL || sb.sandbox_url != NULL)
        abort(); /* on error the sandbox is left empty */
    common_sandbox_record_clear(&sb);
    json_object_put(object);
#elif SBX_FUZZ_DECODER == 3
    sbx_reconciliation rec;
    memset(&rec, 0, sizeof rec);
    const char *why = NULL;
    if (remote_decode_reconciliation(body, size, "fuzz-id", &rec, &why, &err) == SBX_OK) {
        if (rec.status == SBX_RECONCILE_FOUND &&
            (rec.sandbox == NULL || rec.backend_namespace == NULL || rec.incarnation_id == NULL))
            abort();
        if (rec.status == SBX_RECONCILE_FOUND)
            check_sandbox(rec.sandbox);
        if (rec.status == SBX_RECONCILE_ABSENT && rec.backend_namespace == NULL)
            abort();
        if (rec.status == SBX_RECONCILE_UNKNOWN && rec.sandbox != NULL)
            abort();
    }
    common_reconciliation_clear(&rec);
#elif SBX_FUZZ_DECODER == 4
    int version = -1;
    if (remote_decode_capabilities(body, size, &version, &err) == SBX_OK && version < 0)
        abort();
#elif SBX_FUZZ_DECODER == 5
    char small[16], large[512];
    remote_detail_text(body, size, small, sizeof small);
    remote_detail_text(body, size, large, sizeof large);
    check_terminated(small, sizeof small);
    check_terminated(large, sizeof large);
    for (const char *p = large; *p != '\0'; p++)
        if ((unsigned char)*p < 0x20)
            abort(); /* control characters must have become spaces */
#else
#error "SBX_FUZZ_DECODER must be 1..5"
#endif
    return 0;
}
