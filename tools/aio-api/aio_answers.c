/* AIO envelopes and file errors (aio_answers.h).  The error_type words are
 * those the AIO documentation lists; errno values and names are Linux's,
 * as the real server (Python on Linux) reports them. */
#include <config.h>

#include "tools/aio-api/aio_answers.h"

#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisioner-common/prov_json.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How one backend error kind reads in the AIO API. */
typedef struct file_error_kind {
    sbx_status status;
    const char *error_type;
    int errnum;                 /* 0: no errno */
    const char *errno_name;
    const char *exception;      /* the Python exception the real server would name */
    unsigned download_status;
} file_error_kind;

static const file_error_kind kinds[] = {
    {SBX_ERR_NO_SUCH_PATH, "not_found", ENOENT, "ENOENT", "FileNotFoundError", 404},
    {SBX_ERR_IS_A_DIRECTORY, "invalid_target", EISDIR, "EISDIR", "IsADirectoryError", 400},
    {SBX_ERR_NOT_A_DIRECTORY, "invalid_target", ENOTDIR, "ENOTDIR", "NotADirectoryError", 400},
    {SBX_ERR_EXISTS, "already_exists", EEXIST, "EEXIST", "FileExistsError", 409},
    {SBX_ERR_PERMISSION, "permission_denied", EACCES, "EACCES", "PermissionError", 403},
    {SBX_ERR_REFUSED, "invalid_path", 0, NULL, NULL, 403},
    {SBX_ERR_USAGE, "invalid_path", 0, NULL, NULL, 400},
};

/* What the kind of `status` reads as; io_error (500) for the others. */
static file_error_kind kind_of(sbx_status status)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (kinds[i].status == status)
            return kinds[i];
    }
    return (file_error_kind){status, "io_error", 0, NULL, NULL, 500};
}

/* The envelope: success, message, data (taken; NULL: null), hint null. */
static void envelope(prov_reply *reply, int success, const char *message, json_object *data)
{
    json_object *answer = json_object_new_object();
    int built = answer != NULL &&
                prov_json_add(answer, "success", json_object_new_boolean(success)) &&
                prov_json_add_string(answer, "message", message);
    if (built)
        built = data != NULL ? prov_json_add(answer, "data", data)
                             : json_object_object_add(answer, "data", NULL) == 0;
    else
        json_object_put(data);
    built = built && json_object_object_add(answer, "hint", NULL) == 0;
    prov_reply_json(reply, 200, prov_json_built(answer, built));
}

void aio_answer_ok(prov_reply *reply, json_object *data)
{
    envelope(reply, 1, "Operation successful", data);
}

void aio_answer_data(prov_reply *reply, json_object *data)
{
    aio_answer_data_message(reply, data, "Operation successful");
}

void aio_answer_data_message(prov_reply *reply, json_object *data, const char *message)
{
    if (data == NULL)
        prov_reply_out_of_memory(reply);
    else
        envelope(reply, 1, message, data);
}

int aio_answer_file_text(prov_reply *reply, const char *content, size_t len, const char *file,
                         size_t max)
{
    static const char head[] =
        "{\"success\":true,\"message\":\"Operation successful\",\"data\":{\"content\":";
    static const char middle[] = ",\"file\":";
    static const char tail[] = "},\"hint\":null}";
    size_t size = sizeof head - 1 + prov_json_string_size(content, len) + sizeof middle - 1 +
                  prov_json_string_size(file, strlen(file)) + sizeof tail - 1;
    if (size > max)
        return 0;
    prov_reply_text(reply, 200, NULL, "application/json");
    char *text = reply->out_of_memory ? NULL : prov_malloc(size + 1);
    if (text == NULL) {
        prov_reply_out_of_memory(reply);
        return 1;
    }
    char *at = text;
    at = (char *)memcpy(at, head, sizeof head - 1) + sizeof head - 1;
    at = prov_json_string_write(at, content, len);
    at = (char *)memcpy(at, middle, sizeof middle - 1) + sizeof middle - 1;
    at = prov_json_string_write(at, file, strlen(file));
    memcpy(at, tail, sizeof tail);
    free(reply->body);
    reply->body = text;
    reply->body_len = size;
    return 1;
}

void aio_answer_failed(prov_reply *reply, const char *message)
{
    envelope(reply, 0, message, NULL);
}

/* A FileOperationError; NULL when memory ran out. */
static json_object *operation_error(const char *operation, const char *path,
                                    const char *message, const file_error_kind *k)
{
    json_object *e = json_object_new_object();
    int built = e != NULL && prov_json_add_string(e, "path", path) &&
                prov_json_add_string(e, "operation", operation) &&
                prov_json_add_string(e, "message", message) &&
                prov_json_add_string(e, "error_type", k->error_type) &&
                prov_json_add(e, "retryable", json_object_new_boolean(0)) &&
                (k->errnum != 0 ? prov_json_add(e, "errno", json_object_new_int(k->errnum))
                                : json_object_object_add(e, "errno", NULL) == 0) &&
                prov_json_add_string(e, "errno_name", k->errno_name) &&
                prov_json_add_string(e, "exception_type", k->exception);
    return prov_json_built(e, built);
}

static void answer_problem(prov_reply *reply, const char *operation, const char *path,
                           const char *message, const file_error_kind *k)
{
    json_object *data = operation_error(operation, path, message, k);
    if (data == NULL)
        prov_reply_out_of_memory(reply);
    else
        envelope(reply, 0, message, data);
}

void aio_answer_file_error(prov_reply *reply, const char *operation, const char *path,
                           const sbx_error *err)
{
    if (err->kind == SBX_ERR_NOT_FOUND) {
        prov_reply_detail(reply, 404, err->message);
        return;
    }
    file_error_kind k = kind_of(err->kind);
    answer_problem(reply, operation, path, err->message, &k);
}

void aio_answer_file_problem(prov_reply *reply, const char *operation, const char *path,
                             const char *error_type, const char *message)
{
    file_error_kind k = {SBX_OK, error_type, 0, NULL, NULL, 400};
    answer_problem(reply, operation, path, message, &k);
}

void aio_answer_download_error(prov_reply *reply, const sbx_error *err)
{
    unsigned status = err->kind == SBX_ERR_NOT_FOUND ? 404 : kind_of(err->kind).download_status;
    prov_reply_detail(reply, status, err->message);
}

void aio_answer_session_failure(sbx_status st, const sbx_error *err, const char *session,
                                prov_reply *reply)
{
    char detail[256];
    if (st == SBX_ERR_NO_SUCH_PROCESS) {
        snprintf(detail, sizeof detail, "Session '%.128s' not found", session);
        prov_reply_detail(reply, 404, detail);
    } else if (st == SBX_ERR_NOT_FOUND) {
        prov_reply_detail(reply, 404, "Sandbox not found");
    } else if (st == SBX_ERR_USAGE) {
        prov_reply_detail(reply, 400, err->message);
    } else {
        aio_answer_failed(reply, err->message);
    }
}
