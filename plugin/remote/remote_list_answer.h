/*
 * Reading a /v1/file/list answer in one pass: the shared streaming lexer
 * (common/json_stream.h, in its json-c mode) picks the envelope's success
 * and data's path and files (each entry's path, is_directory, size,
 * modified_time, permissions) out of the text without building a json-c
 * tree.  An answer of any other shape (success false, data or files of
 * another type, an entry that is not an object, has no clean path below
 * the directory or no boolean is_directory, not JSON) is read by the json-c
 * decoders (remote_aio_decode.h) instead, so every answer gets exactly
 * their result and message.  Pure; thread-safe.
 */
#ifndef SBX_REMOTE_LIST_ANSWER_H
#define SBX_REMOTE_LIST_ANSWER_H

#include <stddef.h>
#include <sbx/backend.h>

/* The answer body[0..len) for directory `listed` as
 * remote_aio_envelope(.., listed, SBX_ERR_NOT_A_DIRECTORY, ..) followed by
 * remote_aio_decode_listing(data, listed, max_depth, max_entries) give it:
 * SBX_OK with *out (common_listing_free), or their error. */
sbx_status remote_list_answer_read(const char *body, size_t len, const char *listed,
                                   unsigned max_depth, size_t max_entries,
                                   sbx_dir_listing **out, sbx_error *err);

#endif /* SBX_REMOTE_LIST_ANSWER_H */
