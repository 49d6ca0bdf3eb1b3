/*
 * A provisioner's answer about one sandbox (GET /api/sandboxes/<id>) read
 * in one pass: the shared lexer (common/json_stream.h, json-c mode) feeds
 * a field reader (remote_field_reader.h); no json-c tree is built.  It
 * gives exactly what common_json_parse_ex + remote_read_sandbox give for
 * the same bytes: the same fields, the same status and message.  Every
 * operation's lookup reads one.  One answer, one thread at a time.
 */
#ifndef SBX_REMOTE_SANDBOX_ANSWER_H
#define SBX_REMOTE_SANDBOX_ANSWER_H

#include "plugin/remote/remote_field_reader.h"

#include <sbx/backend.h>

/* What an answer was read into: free with remote_sandbox_answer_free. */
typedef struct remote_sandbox_answer {
    common_json_stream lex;
    remote_field_reader fields;
} remote_sandbox_answer;

/* Read body[0..len) into *a and its checked members into *f (strings
 * borrowed from *a).  SBX_OK, or SBX_ERR_PROTOCOL: not a JSON object
 * (nested too deep said as such), or the first rule it breaks
 * (remote_sandbox_rules.h); SBX_ERR_INTERNAL when out of memory. */
sbx_status remote_sandbox_answer_read(const char *body, size_t len, remote_sandbox_answer *a,
                                      remote_fields *f, sbx_error *err);

/* Free what *a holds (after a read, whatever it returned). */
void remote_sandbox_answer_free(remote_sandbox_answer *a);

#endif /* SBX_REMOTE_SANDBOX_ANSWER_H */
