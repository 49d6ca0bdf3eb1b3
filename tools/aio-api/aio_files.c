/* POST /v1/file/read and /v1/file/write (aio_routes.h): text reads sliced
 * by lines, writes of text or base64 bytes. */
#include <config.h>

#include "tools/aio-api/aio_files.h"

#include "common/base64.h"
#include "common/utf8.h"

#include "tools/aio-api/aio_answers.h"
#include "tools/aio-api/aio_body.h"
#include "tools/aio-api/aio_write_body.h"
#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisioner-common/prov_json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const aio_field read_fields[] = {
    {"file", AIO_FIELD_STRING, 1, 0, NULL},
    {"start_line", AIO_FIELD_INTEGER, 0, 1, NULL},
    {"end_line", AIO_FIELD_INTEGER, 0, 1, NULL},
    {"sudo", AIO_FIELD_BOOLEAN, 0, 1, NULL},
};

static const char *const encodings[] = {"utf-8", "base64", "raw", NULL};

static const aio_field write_fields[] = {
    {"file", AIO_FIELD_STRING, 1, 0, NULL},
    {"content", AIO_FIELD_STRING, 1, 0, NULL},
    {"encoding", AIO_FIELD_STRING, 0, 1, encodings},
    {"append", AIO_FIELD_BOOLEAN, 0, 1, NULL},
    {"leading_newline", AIO_FIELD_BOOLEAN, 0, 1, NULL},
    {"trailing_newline", AIO_FIELD_BOOLEAN, 0, 1, NULL},
    {"sudo", AIO_FIELD_BOOLEAN, 0, 1, NULL},
};

uint64_t aio_whole_file_limit(const aio_call *call)
{
    sbx_operations_info info = {.struct_size = sizeof info};
    sbx_error err;
    sbx_backend_operations_info(call->backend, &info, &err);
    uint64_t limit = info.max_file_bytes > 0 ? info.max_file_bytes : AIO_FILE_MAX_BYTES;
    /* Its bytes are part of the answer: no answer may exceed the cap. */
    return limit > call->max_answer_bytes ? call->max_answer_bytes : limit;
}

sbx_status aio_file_too_large(const char *path, uint64_t limit, sbx_error *err)
{
    return sbx_error_set(err, SBX_ERR_USAGE,
                         "%s is larger than %llu bytes, the largest file read whole here", path,
                         (unsigned long long)limit);
}

sbx_status aio_read_whole(const aio_call *call, const char *path, sbx_file_content **out,
                          sbx_error *err)
{
    uint64_t limit = aio_whole_file_limit(call);
    /* A worker's attempt reads at most its bytes: a larger file is read
     * again, whole, on the pool. */
    int attempt = call->worker_bytes > 0 && call->worker_bytes < limit;
    sbx_status st = sbx_backend_read_file(call->backend, call->sandbox_id, path, 0,
                                          attempt ? call->worker_bytes : limit, out, err);
    if (st == SBX_OK && (*out)->truncated) {
        sbx_backend_free_file_content(call->backend, *out);
        *out = NULL;
        if (attempt)
            return SBX_OK;
        return aio_file_too_large(path, limit, err);
    }
    return st;
}

/* A line index of a Python slice (negative: from the end), clamped to
 * [0, lines]. */
static size_t slice_index(json_object *value, size_t lines, size_t fallback)
{
    if (value == NULL)
        return fallback;
    int64_t i = json_object_get_int64(value);
    if (i < 0)
        i += (int64_t)lines;
    return i < 0 ? 0 : (uint64_t)i > lines ? lines : (size_t)i;
}

/* The byte offset where line `index` (0-based) of `text` starts; `len`
 * for the lines past the end.  Lines end after each '\n'. */
static size_t line_start(const char *text, size_t len, size_t index)
{
    size_t at = 0;
    for (size_t line = 0; line < index && at < len; line++) {
        const char *nl = memchr(text + at, '\n', len - at);
        at = nl != NULL ? (size_t)(nl - text) + 1 : len;
    }
    return at;
}

static size_t count_lines(const char *text, size_t len)
{
    size_t lines = 0;
    for (size_t at = 0; at < len; lines++) {
        const char *nl = memchr(text + at, '\n', len - at);
        at = nl != NULL ? (size_t)(nl - text) + 1 : len;
    }
    return lines;
}

void aio_route_read(const aio_call *call, prov_reply *reply)
{
    json_object *body = aio_body_read(call->req->body, call->req->body_len, read_fields,
                                      sizeof read_fields / sizeof read_fields[0], reply);
    if (body == NULL)
        return;
    const char *path = aio_string(body, "file", "");
    sbx_error err;
    sbx_error_clear(&err);
    sbx_file_content *content = NULL;
    if (aio_read_whole(call, path, &content, &err) != SBX_OK) {
        aio_answer_file_error(reply, "read", path, &err);
    } else if (content == NULL) {
        prov_reply_pool(reply);
    } else if (!common_utf8_is_valid(content->data, content->length)) {
        aio_answer_file_problem(reply, "read", path, "decode_error",
                                "the file is not UTF-8 text: download it instead");
    } else {
        size_t lines = count_lines(content->data, content->length);
        size_t first = slice_index(aio_member(body, "start_line"), lines, 0);
        size_t end = slice_index(aio_member(body, "end_line"), lines, lines);
        size_t from = line_start(content->data, content->length, first);
        size_t to = end > first ? line_start(content->data, content->length, end) : from;
        if (!aio_answer_file_text(reply, content->data + from, to - from, path,
                                  call->max_answer_bytes)) {
            char message[200];
            snprintf(message, sizeof message,
                     "the answer would be larger than %zu bytes, the most this server "
                     "answers: read fewer lines (start_line, end_line) or download the file",
                     call->max_answer_bytes);
            aio_answer_file_problem(reply, "read", path, "io_error", message);
        }
    }
    sbx_backend_free_file_content(call->backend, content);
    json_object_put(body);
}

/* The bytes a write puts in the file (*len of them): the content string
 * itself when it goes in as it is (no copy of a large text), else a new
 * buffer in *owned.  NULL when memory ran out, or with *invalid set when
 * base64 content is not. */
static const char *write_bytes(json_object *body, size_t *len, char **owned, int *invalid)
{
    json_object *content = aio_member(body, "content");
    const char *text = json_object_get_string(content);
    size_t text_len = (size_t)json_object_get_string_len(content);
    *invalid = 0;
    *owned = NULL;
    if (strcmp(aio_string(body, "encoding", "utf-8"), "base64") == 0)
        return *owned = common_base64_decode_alloc(text, text_len, COMMON_BASE64_SKIP_SPACE, len,
                                                   invalid);
    int leading = aio_boolean(body, "leading_newline", 0);
    int trailing = aio_boolean(body, "trailing_newline", 0);
    *len = text_len;
    if (!leading && !trailing)
        return text;
    char *bytes = prov_malloc(text_len + 2);
    if (bytes == NULL)
        return NULL;
    size_t n = 0;
    if (leading)
        bytes[n++] = '\n';
    memcpy(bytes + n, text, text_len);
    n += text_len;
    if (trailing)
        bytes[n++] = '\n';
    *len = n;
    return *owned = bytes;
}

/* Write `len` bytes for the body's members `body` and answer. */
static void write_and_answer(const aio_call *call, json_object *body, const char *bytes,
                             size_t len, int invalid, prov_reply *reply)
{
    const char *path = aio_string(body, "file", "");
    sbx_error err;
    sbx_error_clear(&err);
    unsigned flags = aio_boolean(body, "append", 0) ? SBX_WRITE_APPEND : 0;
    if (invalid) {
        aio_answer_file_problem(reply, "write", path, "decode_error",
                                "the content is not valid base64");
    } else if (bytes == NULL) {
        prov_reply_out_of_memory(reply);
    } else if (sbx_backend_write_file(call->backend, call->sandbox_id, path, bytes, len, flags,
                                      0, &err) != SBX_OK) {
        aio_answer_file_error(reply, "write", path, &err);
    } else {
        json_object *data = json_object_new_object();
        int built = data != NULL && prov_json_add_string(data, "file", path) &&
                    prov_json_add(data, "bytes_written", json_object_new_int64((int64_t)len));
        aio_answer_data(reply, prov_json_built(data, built));
    }
}

/* The write of a body read in place (aio_write_body.h): its content
 * decoded where it lies in the request's body. */
static void write_in_place(const aio_call *call, aio_write_body *wb, prov_reply *reply)
{
    int base64 = strcmp(aio_string(wb->members, "encoding", "utf-8"), "base64") == 0;
    const char *bytes = NULL;
    size_t len = 0;
    int invalid = aio_write_body_decode(wb, base64,
                                        !base64 && aio_boolean(wb->members, "leading_newline", 0),
                                        !base64 && aio_boolean(wb->members, "trailing_newline", 0),
                                        &bytes, &len) != 0;
    write_and_answer(call, wb->members, bytes, len, invalid, reply);
}

void aio_route_write(const aio_call *call, prov_reply *reply)
{
    /* The request's body is its own copy (prov_server.h): the content is
     * decoded there rather than into new buffers of its size. */
    aio_write_body wb;
    switch (aio_write_body_read((char *)call->req->body, call->req->body_len, write_fields,
                                sizeof write_fields / sizeof write_fields[0], &wb)) {
    case AIO_WRITE_BODY_READ:
        write_in_place(call, &wb, reply);
        json_object_put(wb.members);
        return;
    case AIO_WRITE_BODY_OUT_OF_MEMORY:
        prov_reply_out_of_memory(reply);
        return;
    case AIO_WRITE_BODY_ELSEWISE:
        break;
    }
    json_object *body = aio_body_read(call->req->body, call->req->body_len, write_fields,
                                      sizeof write_fields / sizeof write_fields[0], reply);
    if (body == NULL)
        return;
    size_t len = 0;
    int invalid = 0;
    char *owned = NULL;
    const char *bytes = write_bytes(body, &len, &owned, &invalid);
    write_and_answer(call, body, bytes, len, invalid, reply);
    free(owned);
    json_object_put(body);
}
