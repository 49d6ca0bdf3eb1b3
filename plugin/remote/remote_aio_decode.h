/*
 * Decoders of the AIO sandbox API's answers (the routes the ABI 1.3
 * operations use; docs/remote.md "Operations in a sandbox").  Pure
 * functions of the body text: no I/O, no locks.  Messages may quote the
 * sandbox's own text (its error message); the caller masks keys in them.
 */
#ifndef SBX_REMOTE_AIO_DECODE_H
#define SBX_REMOTE_AIO_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>
#include <sbx/backend.h>

#include "common/op_results.h"

/* The kind of a failed file operation from its FileOperationError:
 * errno_name (may be NULL) when it names one sbx knows (ENOENT, ENOTDIR,
 * EISDIR, EEXIST, EACCES, EPERM, EROFS), else error_type (may be NULL);
 * "invalid_target" is `invalid_target_kind` (what the operation expected:
 * a directory for a listing, a file for a read or write).  Unknown words
 * are SBX_ERR_PROVISIONER. */
sbx_status remote_aio_file_error_kind(const char *error_type, const char *errno_name,
                                      sbx_status invalid_target_kind);

/* An answer envelope read: root a new reference the caller puts
 * (json_object_put), data borrowed from it. */
typedef struct remote_aio_answer {
    struct json_object *root;
    struct json_object *data;
} remote_aio_answer;

/* Parse an answer envelope {success, message, data}.  success true (or
 * absent): SBX_OK, out->root the answer, out->data its data (NULL when
 * null or absent).  success false: the error its data
 * (a FileOperationError) or message says, kinds as
 * remote_aio_file_error_kind, message "<what>: <its message> (<error_type>)",
 * http_status 200.  Not JSON, not an object, an ill-typed success:
 * SBX_ERR_PROTOCOL.  On error out->root is NULL. */
sbx_status remote_aio_envelope(const char *body, size_t len, const char *what,
                               sbx_status invalid_target_kind, remote_aio_answer *out,
                               sbx_error *err);

/* How a command ended. */
typedef struct remote_aio_end {
    sbx_exec_outcome outcome;
    int exit_code;               /* EXITED: 0..255, else -1 */
    int term_signal;             /* SIGNALED: the signal, 0 when unknown */
} remote_aio_end;

/* How an answer's status (NULL: missing or not clean text) and exit_code
 * (has_code: an integer that fits an int) say a command ended, by the
 * rules of remote_aio_decode_exec: completed, timed_out, killed; any other
 * status (running too: the caller asks only of an ended one) or a
 * completed one without a code in range is SBX_ERR_PROTOCOL. */
sbx_status remote_aio_read_end(const char *status, int has_code, int code, remote_aio_end *out,
                               sbx_error *err);

/* A BashExecResult (the envelope's data) as an exec result keeping the
 * first `cap` bytes of each stream (NUL bytes kept; truncated when the
 * answer holds more): completed -> EXITED exit_code (0..255; a negative
 * exit_code -N, Python's way of saying signal N, -> SIGNALED N); timed_out
 * -> TIMED_OUT; killed -> SIGNALED, with N when exit_code is -N, else 0
 * (unknown).  pending, running, another
 * status, a missing or ill-typed field: SBX_ERR_PROTOCOL.  *out is released
 * with common_exec_result_free. */
sbx_status remote_aio_decode_exec(struct json_object *data, size_t cap, sbx_exec_result **out,
                                  sbx_error *err);

/* What an exec answer's data says, however it was read: each stream's
 * bytes (NULL, 0 when absent or null), status (NULL when missing or not
 * UTF-8 text without NUL) and exit_code (has_code: an integer that fits an
 * int). */
typedef struct remote_aio_exec_fields {
    const char *stdout_text, *stderr_text;
    size_t stdout_len, stderr_len;
    const char *status;
    int has_code, code;
} remote_aio_exec_fields;

/* The exec result of `f` by the rules of remote_aio_decode_exec (which
 * calls it): SBX_OK with *out, or SBX_ERR_PROTOCOL / SBX_ERR_INTERNAL. */
sbx_status remote_aio_exec_result(const remote_aio_exec_fields *f, size_t cap,
                                  sbx_exec_result **out, sbx_error *err);

/* Permission bits (07777) of a FileInfo's permissions text: octal ("755",
 * "0755", "0o755") or symbolic ("-rwxr-xr-x", "rwsr-x--T").  0 when it is
 * neither. */
uint32_t remote_aio_permissions(const char *text);

/* Milliseconds since the epoch of a FileInfo's modified_time: RFC 3339, or
 * Python's isoformat() without an offset, read as UTC.  SBX_TIME_UNKNOWN
 * when it is neither. */
int64_t remote_aio_mtime(const char *text);

/* A FileListResult (the envelope's data) for directory `listed` as a
 * listing: paths relative to the directory the answer names (its `path`,
 * else `listed`), entries deeper than max_depth dropped, sorted depth
 * first with each directory's entries by name, cut at max_entries
 * (truncated set).  Every entry is REGULAR or DIRECTORY: the wire does not
 * tell a link.  Ill-typed entries or one outside the directory:
 * SBX_ERR_PROTOCOL.  *out is released with common_listing_free. */
sbx_status remote_aio_decode_listing(struct json_object *data, const char *listed,
                                     unsigned max_depth, size_t max_entries,
                                     sbx_dir_listing **out, sbx_error *err);

/* An entry of a list answer kept for the listing: its path relative to
 * the directory (first: the sort reads it through the element) and where
 * its reader finds its other fields. */
typedef struct remote_aio_listed {
    const char *rel;
    const void *info;
} remote_aio_listed;

/* Fill *entry (path `rel`) from an entry's `info`: SBX_OK, or the
 * SBX_ERR_PROTOCOL of a field that cannot be read. */
typedef sbx_status (*remote_aio_entry_reader)(const void *info, const char *rel,
                                              common_listing_entry *entry, sbx_error *err);

/* The listing of the `n` entries `kept` (reordered here: depth first,
 * each directory's entries by name), the first max_entries of them read by
 * `read` (truncated set when there are more): what every reader of a list
 * answer ends with.  *out is released with common_listing_free. */
sbx_status remote_aio_listing_of(remote_aio_listed *kept, size_t n, size_t max_entries,
                                 remote_aio_entry_reader read, sbx_dir_listing **out,
                                 sbx_error *err);

/* A listed entry's `path` relative to directory `dir` (a pointer into
 * `path`), or NULL when it is not below it. */
const char *remote_aio_below(const char *path, const char *dir);

/* How deep a relative path sits: 1 for a name, one more per '/'. */
unsigned remote_aio_depth(const char *rel);

#endif /* SBX_REMOTE_AIO_DECODE_H */
