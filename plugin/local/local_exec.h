/*
 * exec in a local sandbox (ABI 1.3): the command runs on this machine as
 * the host's user (confined when the option isolation is `namespaces`:
 * local_isolation.h), in the sandbox directory, with a minimal environment,
 * under a subreaper that ends every process it started before exec
 * returns (local_reaper.h).  And operations_info: the sandbox operations
 * the backend offers, and their limits.
 */
#ifndef SBX_LOCAL_EXEC_H
#define SBX_LOCAL_EXEC_H

#include "plugin/local/local_instance.h"

/* The limits of exec (docs/local.md). */
#define LOCAL_EXEC_DEFAULT_TIMEOUT_MS INT64_C(600000)   /* 10 minutes, as DeerFlow's */
#define LOCAL_EXEC_MAX_TIMEOUT_MS INT64_C(86400000)     /* a day */
#define LOCAL_EXEC_DEFAULT_OUTPUT ((size_t)1 << 20)     /* 1 MiB per stream */
#define LOCAL_EXEC_MAX_OUTPUT ((size_t)64 << 20)        /* 64 MiB per stream */

/* The descriptor's exec.  SBX_OK when the command ran (whatever its exit;
 * *out the caller's, released with common_exec_result_free);
 * SBX_ERR_USAGE for a malformed request, the kinds of local_open_root for
 * the sandbox and of local_confine_error for working_dir, SBX_ERR_INTERNAL
 * when the processes or pipes cannot be made, SBX_ERR_UNSUPPORTED naming
 * the step of isolation=namespaces that this host refused (the command
 * did not run). */
sbx_status local_exec(sbx_backend_instance *inst, const char *sandbox_id,
                      const sbx_exec_request *request, sbx_exec_result **out, sbx_error *err);

/* The descriptor's operations_info: every operation, the limits of exec
 * above and the largest read or write (LOCAL_MAX_FILE_BYTES). */
sbx_status local_operations_info(sbx_backend_instance *inst, sbx_operations_info *out,
                                 sbx_error *err);

#endif
