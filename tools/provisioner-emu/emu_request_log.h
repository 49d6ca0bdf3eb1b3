/* The log of provisioner requests the emulator received (never /_emu/
 * ones), read by tests through GET /_emu/requests.
 * Thread-safe: one internal mutex. */
#ifndef EMU_REQUEST_LOG_H
#define EMU_REQUEST_LOG_H

#include <stddef.h>
#include <json-c/json.h>

#include "tools/provisioner-common/prov_server.h"

typedef struct emu_request_log emu_request_log;

/* An empty log. */
emu_request_log *emu_request_log_new(void);

/* Free the log.  NULL is accepted. */
void emu_request_log_free(emu_request_log *log);

/* Append one request: its method, path, API key and content type (null
 * when absent) and body (null when empty).  Everything is copied. */
void emu_request_log_add(emu_request_log *log, const prov_request *req);

/* {"requests":[{"method","path","api_key","content_type","body"}...],
 *  "count":N}, oldest first; caller puts. */
json_object *emu_request_log_json(emu_request_log *log);

/* Forget every entry. */
void emu_request_log_clear(emu_request_log *log);

#endif
