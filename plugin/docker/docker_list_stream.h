/*
 * A streaming decoder of the engine's container list (GET /containers/json):
 * it reads the answer's bytes as they arrive, in chunks split anywhere,
 * through the shared JSON lexer (common/json_stream.h), and hands each
 * sandbox over as soon as its entry is read: no JSON tree, no allocation
 * per member (a few buffers reused from entry to entry).
 *
 * It gives exactly what the json-c path gives for the same bytes
 * (docker_engine_parse of an array, then docker_view_from_list_entry on
 * every entry): the same error, the same sandboxes, the same skipped
 * entries with the same words.  Entries whose strings are all clean text
 * (every entry an engine sends) are read from the stream by the rules of
 * docker_view_from_list_members.  An entry holding a string with a NUL or
 * invalid UTF-8 anywhere is rare and its verdict turns on json-c's view of
 * duplicate keys and member order (the warning names the first bad field
 * of its tree), so that entry alone, whose bytes are kept while it is
 * read, goes to docker_view_from_list_entry.  fuzz/fuzz_docker.c (target
 * docker-list) holds the two paths to the same results.
 *
 * The sandboxes of an answer that turns out broken are already handed
 * over; the caller drops them (the list answer fails).  Skipped entries
 * are told only at the end, and only for an answer that is a JSON array,
 * as the json-c path logs them after its parse.
 *
 * One decoder reads one answer, from one thread at a time.
 */
#ifndef SBX_DOCKER_LIST_STREAM_H
#define SBX_DOCKER_LIST_STREAM_H

#include <stddef.h>
#include <sbx/backend.h>

#include "plugin/docker/docker_container.h"
#include "plugin/docker/docker_options.h"

typedef struct docker_list_stream docker_list_stream;

/* Called for each sandbox, in order; `view` is valid during the call only.
 * Returns 0, or -1 when out of memory (the decoder then stops). */
typedef int (*docker_list_found_fn)(void *ctx, docker_sandbox_view *view);

/* Called at the end for each skipped entry, in order: its index in the
 * array, why (as docker_view_from_list_entry words it) and which kind. */
typedef void (*docker_list_skipped_fn)(void *ctx, size_t index, docker_skip skip,
                                       const char *why);

/* A decoder for one answer with options `o` (borrowed; must outlive it),
 * keeping sandboxes without a published port when `keep_unaddressed`;
 * NULL when out of memory.  Release it with docker_list_stream_free. */
docker_list_stream *docker_list_stream_new(const docker_options *o, int keep_unaddressed,
                                           docker_list_found_fn found, void *found_ctx);

/* Read the next `len` bytes of the answer.  0, or -1 once memory ran out
 * (the decoder keeps nothing more and finish says so).  A text that turns
 * out not to be JSON does not stop it: the rest is only counted. */
int docker_list_stream_feed(docker_list_stream *s, const char *data, size_t len);

/* After the last byte: SBX_OK, with the skipped entries told to `skipped`
 * (NULL: not told); SBX_ERR_PROTOCOL when the answer is not a JSON array
 * ("docker: WHAT: the engine's answer is not a JSON array", as
 * docker_engine_parse says it); SBX_ERR_INTERNAL when memory ran out. */
sbx_status docker_list_stream_finish(docker_list_stream *s, const char *what,
                                     docker_list_skipped_fn skipped, void *skipped_ctx,
                                     sbx_error *err);

/* Release a decoder.  NULL is accepted. */
void docker_list_stream_free(docker_list_stream *s);

#endif
