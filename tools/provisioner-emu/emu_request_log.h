/* The log of provisioner requests the emulator received (never /_emu/
 * ones), read by tests through GET /_emu/requests.
 * Thread-safe: one internal mutex. */
#ifndef SBX_EMU_REQUEST_LOG_H
#define SBX_EMU_REQUEST_LOG_H

#include <stddef.h>
#include <json-c/json.h>

typedef struct sbx_emu_request_log sbx_emu_request_log;

/* An empty log. */
sbx_emu_request_log *sbx_emu_request_log_new(void);

/* Free the log.  NULL is accepted. */
void sbx_emu_request_log_free(sbx_emu_request_log *log);

/* Append one request.  api_key, content_type and body may be NULL
 * (recorded as null); body is `body_len` bytes.  Everything is copied. */
void sbx_emu_request_log_add(sbx_emu_request_log *log, const char *method,
                             const char *path, const char *api_key,
                             const char *content_type, const char *body,
                             size_t body_len);

/* {"requests":[{"method","path","api_key","content_type","body"}...],
 *  "count":N}, oldest first; caller puts. */
json_object *sbx_emu_request_log_json(sbx_emu_request_log *log);

/* Forget every entry. */
void sbx_emu_request_log_clear(sbx_emu_request_log *log);

#endif
