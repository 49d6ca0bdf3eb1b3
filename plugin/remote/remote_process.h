/*
 * The remote backend's live processes (ABI 1.4) over the AIO bash routes
 * of a sandbox (docs/remote.md "Processes (ABI 1.4)"): start is
 * /v1/bash/exec with async_mode, read /v1/bash/output (long-polled with
 * wait), write /v1/bash/write, signal /v1/bash/kill, wait /v1/bash/output
 * until the command ends, forget /v1/bash/sessions/{id}/close, list GET
 * /v1/bash/sessions (each session's command, read as wait reads it).
 * Nothing is kept in the instance: a process id holds the AIO ids
 * (remote_process_ids.h), so any host process can reach a process.  No
 * terminal, no stdin close, only SIGINT, SIGTERM and SIGKILL.  Safe on
 * many threads at once.
 */
#ifndef SBX_REMOTE_PROCESS_H
#define SBX_REMOTE_PROCESS_H

#include <sbx/backend.h>

#include "plugin/remote/remote_instance.h"

/* Bytes a read answers when the caller gives no max_bytes. */
#define REMOTE_PROCESS_READ_BYTES ((size_t)1024 * 1024)

/* The descriptor's process calls; each answers as <sbx/backend.h> says. */
sbx_status remote_process_start(sbx_backend_instance *inst, const char *sandbox_id,
                                const sbx_process_request *request, sbx_process_info **out,
                                sbx_error *err);
sbx_status remote_process_read(sbx_backend_instance *inst, const char *sandbox_id,
                               const char *process_id, const sbx_process_read_request *request,
                               sbx_process_output **out, sbx_error *err);
sbx_status remote_process_write(sbx_backend_instance *inst, const char *sandbox_id,
                                const char *process_id,
                                const sbx_process_write_request *request, sbx_error *err);
sbx_status remote_process_signal(sbx_backend_instance *inst, const char *sandbox_id,
                                 const char *process_id, int signal, sbx_error *err);
sbx_status remote_process_wait(sbx_backend_instance *inst, const char *sandbox_id,
                               const char *process_id, int64_t wait_ms, sbx_process_info **out,
                               sbx_error *err);
sbx_status remote_process_list(sbx_backend_instance *inst, const char *sandbox_id,
                               sbx_process_info **out, size_t *count, sbx_error *err);
sbx_status remote_process_forget(sbx_backend_instance *inst, const char *sandbox_id,
                                 const char *process_id, sbx_error *err);

#endif /* SBX_REMOTE_PROCESS_H */
