/* What the AIO file routes share: reading a whole file of the sandbox. */
#ifndef AIO_FILES_H
#define AIO_FILES_H

#include "tools/aio-api/aio_routes.h"

/* The default largest file read whole when the backend names no limit. */
#define AIO_FILE_MAX_BYTES (64u * 1024u * 1024u)

/* The largest file read or sent whole: the backend's max_file_bytes (or
 * AIO_FILE_MAX_BYTES), at most the call's max_answer_bytes. */
uint64_t aio_whole_file_limit(const aio_call *call);

/* SBX_ERR_USAGE saying that `path` is larger than `limit`, the largest
 * file read whole. */
sbx_status aio_file_too_large(const char *path, uint64_t limit, sbx_error *err);

/* Read all of file `path` of the call's sandbox: SBX_OK with *out
 * (release with sbx_backend_free_file_content), else the backend's error;
 * a file larger than the backend's max_file_bytes (or AIO_FILE_MAX_BYTES)
 * is SBX_ERR_USAGE saying so.  On a worker's attempt (call->worker_bytes
 * > 0), a file larger than those bytes is SBX_OK with *out NULL: answer
 * PROV_REPLY_POOL. */
sbx_status aio_read_whole(const aio_call *call, const char *path, sbx_file_content **out,
                          sbx_error *err);

#endif
