/* POST /v1/file/upload (multipart: the file's bytes and the path to put
 * them at) and GET /v1/file/download?path= (the bytes as
 * application/octet-stream; failures as HTTP statuses, not envelopes). */
#include <config.h>

#include "tools/aio-api/aio_answers.h"
#include "tools/aio-api/aio_body.h"
#include "tools/aio-api/aio_files.h"
#include "tools/aio-api/aio_multipart.h"
#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisioner-common/prov_json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Parts an upload may have (file, path, and a few a client adds). */
#define MAX_PARTS 8

/* The part called `name`, or NULL. */
static const aio_part *part_named(const aio_part *parts, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++) {
        if (strcmp(parts[i].name, name) == 0)
            return &parts[i];
    }
    return NULL;
}

void aio_route_upload(const aio_call *call, prov_reply *reply)
{
    aio_part parts[MAX_PARTS];
    size_t count = 0;
    aio_problems problems = {NULL, 0};
    if (!aio_multipart_parse(call->req->content_type, call->req->body, call->req->body_len,
                             parts, MAX_PARTS, &count)) {
        aio_problem(&problems, "missing", (aio_loc){"body", "file", NULL}, "Field required", NULL);
        aio_problems_answer(&problems, reply);
        return;
    }
    const aio_part *file = part_named(parts, count, "file");
    const aio_part *path_part = part_named(parts, count, "path");
    if (file == NULL || !file->has_filename) {
        aio_problem(&problems, "missing", (aio_loc){"body", "file", NULL}, "Field required", NULL);
        aio_problems_answer(&problems, reply);
        return;
    }
    /* Without a path, the file keeps its name in the working directory. */
    char *path = path_part != NULL ? prov_memdup(path_part->data, path_part->len)
                                   : prov_strdup(file->filename);
    sbx_error err;
    sbx_error_clear(&err);
    if (path == NULL) {
        prov_reply_out_of_memory(reply);
    } else if (path_part != NULL && memchr(path_part->data, '\0', path_part->len) != NULL) {
        aio_answer_file_problem(reply, "upload", path, "invalid_path",
                                "the path holds a NUL byte");
    } else if (sbx_backend_write_file(call->backend, call->sandbox_id, path, file->data,
                                      file->len, 0, 0, &err) != SBX_OK) {
        aio_answer_file_error(reply, "upload", path, &err);
    } else {
        json_object *data = json_object_new_object();
        int built = data != NULL && prov_json_add_string(data, "file_path", path) &&
                    prov_json_add(data, "file_size", json_object_new_int64((int64_t)file->len)) &&
                    prov_json_add(data, "success", json_object_new_boolean(1));
        aio_answer_data(reply, prov_json_built(data, built));
    }
    free(path);
}

/* A file's bytes as the backend read them, sent as they are: the answer
 * releases them once sent. */
typedef struct read_bytes {
    sbx_backend *backend;
    sbx_file_content *content;
} read_bytes;

static void release_read_bytes(void *cls)
{
    read_bytes *bytes = cls;
    sbx_backend_free_file_content(bytes->backend, bytes->content);
    free(bytes);
}

/* Send file `path` from the file itself (ABI 1.6's open_file): the daemon
 * holds none of its bytes, and opening it costs the same whatever its
 * size, so a worker's attempt answers it too.  Returns 1 with the answer
 * in `reply`; 0 when the read is to answer: the backend has no open_file,
 * or the open failed (the read then answers that failure as it always
 * did, word for word). */
static int send_from_file(const aio_call *call, const char *path, prov_reply *reply)
{
    int fd = -1;
    uint64_t size = 0;
    sbx_error err;
    if (sbx_backend_open_file(call->backend, call->sandbox_id, path, &fd, &size, &err) != SBX_OK)
        return 0;
    uint64_t limit = aio_whole_file_limit(call);
    if (size > limit) {
        close(fd);
        aio_file_too_large(path, limit, &err);
        aio_answer_download_error(reply, &err);
        return 1;
    }
    prov_reply_file(reply, 200, "application/octet-stream", fd, size);
    return 1;
}

void aio_route_download(const aio_call *call, prov_reply *reply)
{
    const char *path = prov_request_query(call->req, "path");
    const char *policy = prov_request_query(call->req, "change_policy");
    aio_problems problems = {NULL, 0};
    if (path == NULL)
        aio_problem(&problems, "missing", (aio_loc){"query", "path", NULL}, "Field required", NULL);
    if (policy != NULL && strcmp(policy, "ignore") != 0 && strcmp(policy, "abort") != 0) {
        json_object *input = json_object_new_string(policy);
        aio_problem(&problems, "enum", (aio_loc){"query", "change_policy", NULL},
                    "Input should be 'ignore' or 'abort'", input);
        json_object_put(input);
    }
    if (aio_problems_found(&problems)) {
        aio_problems_answer(&problems, reply);
        return;
    }
    /* "abort" asks for the bytes as they were when the download began:
     * only a copy read whole keeps them, since a file sent from itself is
     * read while it is sent. */
    if ((policy == NULL || strcmp(policy, "abort") != 0) && send_from_file(call, path, reply))
        return;
    sbx_error err;
    sbx_error_clear(&err);
    sbx_file_content *content = NULL;
    /* One read: the bytes cannot change while they are sent, so "abort"
     * never has to. */
    if (aio_read_whole(call, path, &content, &err) != SBX_OK) {
        aio_answer_download_error(reply, &err);
        return;
    }
    if (content == NULL) {
        prov_reply_pool(reply);
        return;
    }
    read_bytes *bytes = prov_malloc(sizeof *bytes);
    if (bytes == NULL) {
        sbx_backend_free_file_content(call->backend, content);
        prov_reply_out_of_memory(reply);
        return;
    }
    *bytes = (read_bytes){call->backend, content};
    prov_reply_handed(reply, 200, "application/octet-stream", content->data, content->length,
                      release_read_bytes, bytes);
}
