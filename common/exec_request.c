/* Exec request checks shared by the backends (see exec_request.h). */
#include <config.h>

#include "common/exec_request.h"

#include "common/printable.h"

#include <sbx/backend_support.h>

#include <string.h>

int common_env_name_valid(const char *name)
{
    if (name == NULL || name[0] == '\0' || (name[0] >= '0' && name[0] <= '9'))
        return 0;
    for (const char *p = name; *p != '\0'; p++) {
        char c = *p;
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return 0;
    }
    return 1;
}

void common_exec_request_read(const sbx_exec_request *request, sbx_exec_request *out)
{
    static const sbx_exec_request defaults = SBX_EXEC_REQUEST_INIT;
    *out = defaults;
    size_t n = request->struct_size < sizeof *out ? request->struct_size : sizeof *out;
    memcpy(out, request, n);
    out->struct_size = sizeof *out;
}

sbx_status common_exec_request_check(const sbx_exec_request *r, const char *sandbox_id,
                                     int64_t max_timeout_ms, size_t max_output_bytes_limit,
                                     sbx_error *err)
{
    return common_exec_request_check_as(r, "exec", sandbox_id, max_timeout_ms,
                                        max_output_bytes_limit, err);
}

sbx_status common_exec_request_check_as(const sbx_exec_request *r, const char *call,
                                        const char *sandbox_id, int64_t max_timeout_ms,
                                        size_t max_output_bytes_limit, sbx_error *err)
{
    const char *what = NULL;
    if ((r->argv == NULL) == (r->shell_command == NULL))
        what = "exactly one of argv and shell_command is required";
    else if (r->argv != NULL && (r->argv[0] == NULL || r->argv[0][0] == '\0'))
        what = "argv[0] (the program) is missing or empty";
    else if (r->env == NULL && r->env_count > 0)
        what = "env_count is not 0 but env is NULL";
    else if (r->stdin_data == NULL && r->stdin_length > 0)
        what = "stdin_length is not 0 but stdin_data is NULL";
    else if (r->timeout_ms < 0)
        what = "timeout_ms is negative";
    if (what != NULL)
        return sbx_backend_error_set(err, SBX_ERR_USAGE, "%s in sandbox '%s': %s", call,
                                     sandbox_id, what);
    for (size_t i = 0; i < r->env_count; i++) {
        if (!common_env_name_valid(r->env[i].name)) {
            char shown[80];
            return sbx_backend_error_set(
                err, SBX_ERR_USAGE,
                "%s in sandbox '%s': environment variable #%zu has the invalid name %s "
                "(names match ^[A-Za-z_][A-Za-z0-9_]*$)",
                call, sandbox_id, i,
                r->env[i].name == NULL ? "(none)"
                                       : common_printable(r->env[i].name, shown, sizeof shown));
        }
        if (r->env[i].value == NULL)
            return sbx_backend_error_set(
                err, SBX_ERR_USAGE, "%s in sandbox '%s': environment variable #%zu has no value",
                call, sandbox_id, i);
    }
    if (max_timeout_ms > 0 && r->timeout_ms > max_timeout_ms)
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "%s in sandbox '%s': timeout_ms %lld is above this "
                                     "backend's largest, %lld",
                                     call, sandbox_id, (long long)r->timeout_ms,
                                     (long long)max_timeout_ms);
    if (max_output_bytes_limit > 0 && r->max_output_bytes > max_output_bytes_limit)
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "%s in sandbox '%s': max_output_bytes %zu is above this "
                                     "backend's largest, %zu",
                                     call, sandbox_id, r->max_output_bytes, max_output_bytes_limit);
    return SBX_OK;
}
