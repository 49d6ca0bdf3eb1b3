/*
 * Live processes (ABI 1.4) in a sandbox's container.  Each call is one
 * exec of the process script (docker_proc_script.h), which keeps each
 * process's record, bounded output and stdin in the container under
 * DOCKER_PROC_ROOT: the process outlives the call and the host process
 * that started it, and any instance, in any host process, reaches it by
 * sandbox id and process id.  A terminal is owned by the static helper
 * the first one copies into the container (docker_pty_helper.h): the
 * Engine API keeps no output of a detached exec, Tty or not.  Thread-safe
 * as the instance is.  docs/docker.md "Processes (ABI 1.4)".
 */
#ifndef SBX_DOCKER_PROCESSES_H
#define SBX_DOCKER_PROCESSES_H

#include "plugin/docker/docker_instance.h"

/* The largest read answer, whatever max_bytes asks (a read answers less). */
#define DOCKER_PROC_READ_MAX ((size_t)8 << 20)
/* What SBX_PROCESS_DEFAULT means for a read's max_bytes. */
#define DOCKER_PROC_READ_DEFAULT ((size_t)1 << 20)

/* The descriptor's process_start: SBX_ERR_REFUSED beyond max_processes
 * running, SBX_ERR_UNSUPPORTED for an image without what the script
 * needs (named), SBX_ERR_CONFIG when a terminal's helper cannot be read
 * on the host, SBX_ERR_USAGE for a malformed request, a terminal size out
 * of 1..SBX_PTY_SIZE_MAX or a buffer above max_process_buffer_bytes, SBX_ERR_NO_SUCH_PATH for a
 * missing working directory, SBX_ERR_NOT_FOUND for no such sandbox. */
sbx_status docker_process_start(sbx_backend_instance *inst, const char *sandbox_id,
                                const sbx_process_request *request, sbx_process_info **out,
                                sbx_error *err);

/* The descriptor's process_read: chunks in the order the container's
 * copiers read the two streams (see docker_proc_script.c). */
sbx_status docker_process_read(sbx_backend_instance *inst, const char *sandbox_id,
                               const char *process_id, const sbx_process_read_request *request,
                               sbx_process_output **out, sbx_error *err);

/* The descriptor's process_write. */
sbx_status docker_process_write(sbx_backend_instance *inst, const char *sandbox_id,
                                const char *process_id,
                                const sbx_process_write_request *request, sbx_error *err);

/* The descriptor's process_resize: SBX_ERR_USAGE for a size out of
 * 1..SBX_PTY_SIZE_MAX or a process without a terminal; an ended process:
 * SBX_OK. */
sbx_status docker_process_resize(sbx_backend_instance *inst, const char *sandbox_id,
                                 const char *process_id, unsigned rows, unsigned cols,
                                 sbx_error *err);

/* The descriptor's process_signal: any signal to the process's group. */
sbx_status docker_process_signal(sbx_backend_instance *inst, const char *sandbox_id,
                                 const char *process_id, int signal, sbx_error *err);

/* The descriptor's process_wait. */
sbx_status docker_process_wait(sbx_backend_instance *inst, const char *sandbox_id,
                               const char *process_id, int64_t wait_ms, sbx_process_info **out,
                               sbx_error *err);

/* The descriptor's process_list. */
sbx_status docker_process_list(sbx_backend_instance *inst, const char *sandbox_id,
                               sbx_process_info **out, size_t *count, sbx_error *err);

/* The descriptor's process_forget. */
sbx_status docker_process_forget(sbx_backend_instance *inst, const char *sandbox_id,
                                 const char *process_id, sbx_error *err);

#endif
