/*
 * Building and releasing the results of the sandbox operations (ABI 1.3)
 * the same way in every backend: each result is one malloc'd struct whose
 * buffers are malloc'd too, so that each backend's free operation is one of
 * the functions here.
 */
#ifndef SBX_COMMON_OP_RESULTS_H
#define SBX_COMMON_OP_RESULTS_H

#include "common/dynbuf.h"

#include <sbx/backend.h>

#include <stddef.h>

/* One output stream of a command being collected: the first `cap` bytes are
 * kept, the rest is counted and dropped. */
typedef struct common_output {
    common_dynbuf kept;
    size_t cap;
    int truncated;   /* non-zero once a byte was dropped */
} common_output;

/* An empty stream that keeps at most `cap` bytes. */
void common_output_init(common_output *o, size_t cap);

/* Keep what fits of `n` bytes and drop the rest.  SBX_OK, or
 * SBX_ERR_INTERNAL (out of memory) with `err` filled. */
sbx_status common_output_add(common_output *o, const void *bytes, size_t n, sbx_error *err);

/* Release what a stream holds (after it was not handed to a result). */
void common_output_free(common_output *o);

/* A new result (outcome EXITED, exit_code 0, empty outputs) that takes the
 * bytes of `out` and `err_stream` (both left empty), or NULL when out of
 * memory (then nothing is taken).  Free it with common_exec_result_free. */
sbx_exec_result *common_exec_result_new(common_output *out, common_output *err_stream);

/* Release a result (NULL is fine): every backend's free_exec_result. */
void common_exec_result_free(sbx_exec_result *result);

/* New file content taking the bytes of `bytes` (left empty); NULL when out
 * of memory. */
sbx_file_content *common_file_content_new(common_dynbuf *bytes, int truncated);

/* Release file content (NULL is fine): every backend's free_file_content. */
void common_file_content_free(sbx_file_content *content);

/* A listing being built: entries are appended in order. */
typedef struct common_listing_builder {
    sbx_dir_listing *listing;
    sbx_dir_entry *tail;
} common_listing_builder;

/* Start an empty listing.  SBX_ERR_INTERNAL when out of memory. */
sbx_status common_listing_start(common_listing_builder *b, sbx_error *err);

/* What common_listing_add appends: the fields of an sbx_dir_entry. */
typedef struct common_listing_entry {
    const char *path;   /* copied */
    sbx_file_type type;
    uint64_t size;
    int64_t mtime;      /* ms since the Unix epoch, or SBX_TIME_UNKNOWN */
    uint32_t mode;
} common_listing_entry;

/* Append one entry (its path copied).  SBX_ERR_INTERNAL when out of
 * memory. */
sbx_status common_listing_add(common_listing_builder *b, const common_listing_entry *entry,
                              sbx_error *err);

/* Release a listing and its chain (NULL is fine): every backend's
 * free_listing. */
void common_listing_free(sbx_dir_listing *listing);

#endif
