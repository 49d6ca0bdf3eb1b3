/*
 * The live-process calls of the local backend's descriptor (ABI 1.4): a
 * process runs under a detached supervisor (local_supervisor.h) with the
 * isolation of exec, its state lives in the state directory
 * (local_proc_table.h, local_ring.h), and every call works from any host
 * process through the sandbox id and the process id.  All calls are
 * thread-safe: they share nothing but files.
 */
#ifndef SBX_LOCAL_PROCESSES_H
#define SBX_LOCAL_PROCESSES_H

#include "plugin/local/local_instance.h"

/* Most bytes a read answers when the request leaves it to the backend. */
#define LOCAL_PROCESS_READ_DEFAULT ((size_t)1 << 20)

/* The descriptor's process_start: SBX_ERR_USAGE for a malformed request
 * or a buffer beyond max_process_buffer_bytes, SBX_ERR_REFUSED at the
 * process limit, the errors of exec's preparation (sandbox gone, working
 * directory); *out the caller's (local_free_processes). */
sbx_status local_live_start(sbx_backend_instance *inst, const char *sandbox_id,
                            const sbx_process_request *request, sbx_process_info **out,
                            sbx_error *err);

/* The descriptor's process_read (see <sbx/backend.h>). */
sbx_status local_live_read(sbx_backend_instance *inst, const char *sandbox_id,
                           const char *process_id, const sbx_process_read_request *request,
                           sbx_process_output **out, sbx_error *err);

/* The descriptor's process_write: SBX_ERR_USAGE when stdin is closed (or
 * never was open) or the process ended. */
sbx_status local_live_write(sbx_backend_instance *inst, const char *sandbox_id,
                            const char *process_id,
                            const sbx_process_write_request *request, sbx_error *err);

/* The descriptor's process_signal (an ended process: SBX_OK). */
sbx_status local_live_signal(sbx_backend_instance *inst, const char *sandbox_id,
                             const char *process_id, int signal, sbx_error *err);

/* The descriptor's process_resize: SBX_ERR_USAGE without a terminal. */
sbx_status local_live_resize(sbx_backend_instance *inst, const char *sandbox_id,
                             const char *process_id, unsigned rows, unsigned cols,
                             sbx_error *err);

/* The descriptor's process_wait. */
sbx_status local_live_wait(sbx_backend_instance *inst, const char *sandbox_id,
                           const char *process_id, int64_t wait_ms,
                           sbx_process_info **out, sbx_error *err);

/* The descriptor's process_list: oldest first. */
sbx_status local_live_list(sbx_backend_instance *inst, const char *sandbox_id,
                           sbx_process_info **out, size_t *count, sbx_error *err);

/* The descriptor's process_forget. */
sbx_status local_live_forget(sbx_backend_instance *inst, const char *sandbox_id,
                             const char *process_id, sbx_error *err);

/* The descriptor's free_processes and free_process_output (NULL is fine). */
void local_free_processes(sbx_process_info *processes);
void local_free_process_output(sbx_process_output *output);

#endif
