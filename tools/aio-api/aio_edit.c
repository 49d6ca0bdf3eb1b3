/* POST /v1/file/replace (aio_routes.h): every occurrence of a string in a
 * file replaced, through the backend's read_file and write_file (the
 * file read whole, as /v1/file/read reads it; written back whole, only
 * when something changed). */
#include <config.h>

#include "tools/aio-api/aio_answers.h"
#include "tools/aio-api/aio_body.h"
#include "tools/aio-api/aio_files.h"
#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisioner-common/prov_json.h"

#include <stdlib.h>
#include <string.h>

static const aio_field replace_fields[] = {
    {"file", AIO_FIELD_STRING, 1, 0, NULL},
    {"old_str", AIO_FIELD_STRING, 1, 0, NULL},
    {"new_str", AIO_FIELD_STRING, 1, 0, NULL},
    {"sudo", AIO_FIELD_BOOLEAN, 0, 1, NULL},
};

/* Occurrences of `old` (`old_len` > 0 bytes) in `data`, left to right,
 * not overlapping (Python's str.count). */
static size_t count_of(const char *data, size_t len, const char *old, size_t old_len)
{
    size_t n = 0;
    for (const char *at = data, *end = data + len;
         (at = memmem(at, (size_t)(end - at), old, old_len)) != NULL; at += old_len)
        n++;
    return n;
}

/* `data` with each of the `n` occurrences of `old` replaced by `new_text`,
 * in a new buffer (*out_len); NULL when memory ran out. */
static char *replaced(const char *data, size_t len, const char *old, size_t old_len,
                      const char *new_text, size_t new_len, size_t n, size_t *out_len)
{
    *out_len = len - n * old_len + n * new_len;
    char *out = prov_malloc(*out_len + 1);
    if (out == NULL)
        return NULL;
    char *w = out;
    const char *at = data, *end = data + len;
    for (const char *hit; (hit = memmem(at, (size_t)(end - at), old, old_len)) != NULL;
         at = hit + old_len) {
        memcpy(w, at, (size_t)(hit - at));
        w += hit - at;
        memcpy(w, new_text, new_len);
        w += new_len;
    }
    memcpy(w, at, (size_t)(end - at));
    return out;
}

void aio_route_replace(const aio_call *call, prov_reply *reply)
{
    json_object *body = aio_body_read(call->req->body, call->req->body_len, replace_fields,
                                      sizeof replace_fields / sizeof replace_fields[0], reply);
    if (body == NULL)
        return;
    const char *path = aio_string(body, "file", "");
    json_object *old = aio_member(body, "old_str"), *new_value = aio_member(body, "new_str");
    size_t old_len = (size_t)json_object_get_string_len(old);
    if (old_len == 0) {
        aio_problems problems = {NULL, 0};
        aio_problem(&problems, "value_error", (aio_loc){"body", "old_str", NULL},
                    "Value error, old_str must not be empty", old);
        aio_problems_answer(&problems, reply);
        json_object_put(body);
        return;
    }
    sbx_error err;
    sbx_error_clear(&err);
    sbx_file_content *content = NULL;
    size_t n = 0, out_len = 0;
    char *out = NULL;
    if (aio_read_whole(call, path, &content, &err) != SBX_OK) {
        aio_answer_file_error(reply, "replace", path, &err);
    } else if ((n = count_of(content->data, content->length, json_object_get_string(old),
                             old_len)) > 0 &&
               (out = replaced(content->data, content->length, json_object_get_string(old),
                               old_len, json_object_get_string(new_value),
                               (size_t)json_object_get_string_len(new_value), n,
                               &out_len)) == NULL) {
        prov_reply_out_of_memory(reply);
    } else if (n > 0 && sbx_backend_write_file(call->backend, call->sandbox_id, path, out,
                                               out_len, 0, 0, &err) != SBX_OK) {
        aio_answer_file_error(reply, "replace", path, &err);
    } else {
        json_object *data = json_object_new_object();
        int built = data != NULL && prov_json_add_string(data, "file", path) &&
                    prov_json_add(data, "replaced_count", json_object_new_int64((int64_t)n));
        aio_answer_data(reply, prov_json_built(data, built));
    }
    free(out);
    sbx_backend_free_file_content(call->backend, content);
    json_object_put(body);
}
