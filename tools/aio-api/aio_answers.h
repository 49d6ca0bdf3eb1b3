/* The answer envelopes of the AIO sandbox API: {"success","message",
 * "data","hint"}, and the FileOperationError a handled file failure
 * carries in it (HTTP 200, success false), or the HTTP status a download
 * answers instead. */
#ifndef AIO_ANSWERS_H
#define AIO_ANSWERS_H

#include <sbx/backend.h>
#include <json-c/json.h>

#include "tools/provisioner-common/prov_reply.h"

/* 200 {"success":true,"message":"Operation successful","data":DATA,
 * "hint":null}; takes `data` (NULL: JSON null). */
void aio_answer_ok(prov_reply *reply, json_object *data);

/* aio_answer_ok with `data` built by the route: NULL (its building ran
 * out of memory) is the out-of-memory answer. */
void aio_answer_data(prov_reply *reply, json_object *data);

/* aio_answer_data with `message` instead of "Operation successful". */
void aio_answer_data_message(prov_reply *reply, json_object *data, const char *message);

/* aio_answer_ok with data {"content":CONTENT,"file":FILE}, `len` bytes
 * of UTF-8 text: the answer is written once, into a buffer of its size
 * (a large file's text is never copied again on its way out).  Returns 0,
 * leaving `reply` as it was, when it would be larger than `max` bytes. */
int aio_answer_file_text(prov_reply *reply, const char *content, size_t len, const char *file,
                         size_t max);

/* 200 {"success":false,"message":MESSAGE,"data":null,"hint":null}. */
void aio_answer_failed(prov_reply *reply, const char *message);

/* 200 {"success":false,"message":...,"data":FileOperationError} for the
 * backend's failure `err` of `operation` ("read", "write", "list",
 * "upload") on `path`.  A sandbox gone (SBX_ERR_NOT_FOUND) is 404
 * instead, as nothing serves its URL any more. */
void aio_answer_file_error(prov_reply *reply, const char *operation, const char *path,
                           const sbx_error *err);

/* As aio_answer_file_error, for a failure the route itself found: the
 * FileOperationError `error_type` and `message`, no errno. */
void aio_answer_file_problem(prov_reply *reply, const char *operation, const char *path,
                             const char *error_type, const char *message);

/* The HTTP status a download answers for the backend's failure `err`
 * (404 no such path, 403 permission or refused, 400 a directory, ...),
 * with {"detail": message}. */
void aio_answer_download_error(prov_reply *reply, const sbx_error *err);

/* The failure `st` of a call on live command or shell session `session`:
 * 404 {"detail":"Session '<id>' not found"} for one the sandbox does not
 * have, 404 "Sandbox not found", 400 with the message for a call that does
 * not fit it (SBX_ERR_USAGE), else the failure envelope. */
void aio_answer_session_failure(sbx_status st, const sbx_error *err, const char *session,
                                prov_reply *reply);

#endif
