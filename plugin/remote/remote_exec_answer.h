/*
 * Reading a /v1/bash/exec answer in one pass: the shared streaming lexer
 * (common/json_stream.h, in its json-c mode) picks the envelope's success
 * and data's stdout, stderr, status and exit_code out of the text without
 * building a json-c tree.  An answer of any other shape (success false,
 * data not an object, a stream that is not a string, not JSON) is read by
 * the json-c decoders (remote_aio_decode.h) instead, so every answer gets
 * exactly their result and message.  Pure; thread-safe.
 */
#ifndef SBX_REMOTE_EXEC_ANSWER_H
#define SBX_REMOTE_EXEC_ANSWER_H

#include <stddef.h>
#include <sbx/backend.h>

/* The answer body[0..len) as remote_aio_envelope(.., "exec",
 * SBX_ERR_PROVISIONER, ..) followed by remote_aio_decode_exec(data, cap)
 * give it: SBX_OK with *out (common_exec_result_free), or their error. */
sbx_status remote_exec_answer_read(const char *body, size_t len, size_t cap,
                                   sbx_exec_result **out, sbx_error *err);

#endif /* SBX_REMOTE_EXEC_ANSWER_H */
