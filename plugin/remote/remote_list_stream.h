/*
 * A streaming decoder of list answers (GET /api/sandboxes): it reads the
 * answer's bytes as they arrive, in chunks split anywhere, and builds the
 * sandbox records straight from them: no JSON tree, no allocation per
 * member (a few buffers reused from entry to entry, and the records' own
 * one allocation each, sandbox_records.h).
 *
 * It gives exactly what remote_decode_list (the json-c decoder, remote_decode.h)
 * gives for the same bytes: the same status and message, the same records,
 * the same warnings in the same order.  So it reads JSON (through the shared
 * lexer, common/json_stream.h) as json-c 0.16's
 * default (non-strict) tokener does, extensions included (comments,
 * single-quoted strings, NaN/Infinity, case-insensitive literals, trailing
 * commas, json-c's number forms, lone surrogates read as U+FFFD), with
 * json-c's depth limit, duplicate keys (the last one wins, "sandboxes"
 * too), keys cut at an escaped NUL, and only whitespace after the value;
 * like common_json_parse, it refuses a raw NUL byte anywhere.
 * fuzz/fuzz_remote.c (target remote-list) holds the two to that.
 *
 * Warnings wait for the end of the answer (a later "sandboxes" replaces the
 * entries of an earlier one, and an answer that ends broken warns nothing):
 * one or two bytes are kept per skipped entry, never its text.
 *
 * One decoder reads one answer, from one thread at a time.
 */
#ifndef SBX_REMOTE_LIST_STREAM_H
#define SBX_REMOTE_LIST_STREAM_H

#include "plugin/remote/remote_decode.h"

#include <stddef.h>
#include <sbx/backend.h>

typedef struct remote_list_stream remote_list_stream;

/* A decoder for one answer, or NULL when out of memory.  Release it with
 * remote_list_stream_free. */
remote_list_stream *remote_list_stream_new(void);

/* Read the next `len` bytes of the answer.  Returns 0, or -1 once memory ran
 * out (the decoder then keeps nothing more and finish says so).  A text that
 * turns out not to be JSON does not stop it: the rest is counted, not kept,
 * so that the transfer ends as it would have without the decoder. */
int remote_list_stream_feed(remote_list_stream *s, const char *data, size_t len);

/* After the last byte: remote_decode_list's result for all the bytes fed
 * (warnings through `warn` now).  On SBX_OK *out holds *count records
 * (NULL when zero), caller-owned (common_sandbox_records_free).  The decoder
 * keeps nothing afterwards; only free it. */
sbx_status remote_list_stream_finish(remote_list_stream *s, const remote_warner *warn,
                                     sbx_sandbox **out, size_t *count, sbx_error *err);

/* Release a decoder and whatever it still holds.  NULL is accepted. */
void remote_list_stream_free(remote_list_stream *s);

#endif /* SBX_REMOTE_LIST_STREAM_H */
