/* The log of provisioner requests the emulator received (never /_emu/
 * ones), read by tests through GET /_emu/requests.
 * Thread-safe: one internal mutex. */
#ifndef EMU_REQUEST_LOG_H
#define EMU_REQUEST_LOG_H

#include <stddef.h>
#include <json-c/json.h>

typedef struct emu_request_log emu_request_log;

/* An empty log. */
emu_request_log *emu_request_log_new(void);

/* Free the log.  NULL is accepted. */
void emu_request_log_free(emu_request_log *log);

/* Append one request.  api_key, content_type and body may be NULL
 * (recorded as null); body is `body_len` bytes.  Everything is copied. */
void emu_request_log_add(emu_request_log *log, const char *method,
                             const char *path, const char *api_key,
                             const char *content_type, const char *body,
                             size_t body_len);

/* {"requests":[{"method","path","api_key","content_type","body"}...],
 *  "count":N}, oldest first; caller puts. */
json_object *emu_request_log_json(emu_request_log *log);

/* Forget every entry. */
void emu_request_log_clear(emu_request_log *log);

#endif
