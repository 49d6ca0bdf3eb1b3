/* exec and the operations info over the AIO API (see remote_exec.h). */
#include <config.h>

#include "plugin/remote/remote_exec.h"

#include "common/exec_request.h"
#include "common/sandbox_ids.h"
#include "common/utf8.h"
#include "plugin/remote/remote_aio_text.h"
#include "plugin/remote/remote_create.h"
#include "plugin/remote/remote_endpoint.h"
#include "plugin/remote/remote_exec_call.h"
#include "plugin/remote/remote_files.h"

#include <sbx/backend_support.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

sbx_status remote_operations_info(sbx_backend_instance *inst, sbx_operations_info *out,
                                  sbx_error *err)
{
    (void)err;
    size_t cap = remote_exec_output_limit(&inst->options);
    sbx_operations_info info = {
        .struct_size = out->struct_size,
        .operations = SBX_OP_EXEC | SBX_OP_EXEC_SHELL | SBX_OP_READ_FILE | SBX_OP_WRITE_FILE |
                      SBX_OP_LIST_DIR | SBX_OP_REMOVE_PATH | SBX_OP_PROCESS,
        .default_timeout_ms = REMOTE_EXEC_DEFAULT_TIMEOUT_MS,
        .max_timeout_ms = REMOTE_EXEC_MAX_TIMEOUT_MS,
        .default_output_bytes = cap < REMOTE_EXEC_DEFAULT_OUTPUT ? cap : REMOTE_EXEC_DEFAULT_OUTPUT,
        .max_output_bytes = cap,
        .max_file_bytes = remote_max_file_bytes(&inst->options),
        .create_fields = remote_create_fields(inst),
    };
    size_t n = out->struct_size < sizeof info ? out->struct_size : sizeof info;
    memcpy(out, &info, n);
    return SBX_OK;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Text the wire carries: UTF-8 without NUL (`what` names it, never its
 * value). */
static sbx_status check_text(const char *text, const char *sandbox_id, const char *what,
                             size_t index, sbx_error *err)
{
    if (common_text_is_clean(text, strlen(text)))
        return SBX_OK;
    return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED,
                                 "command in sandbox '%s': %s #%zu is not UTF-8 text, which "
                                 "the AIO API cannot carry", sandbox_id, what, index);
}

sbx_status remote_check_command_text(const char *const *argv, const char *shell_command,
                                     const sbx_env_var *env, size_t env_count,
                                     const char *sandbox_id, sbx_error *err)
{
    sbx_status st = SBX_OK;
    for (size_t i = 0; st == SBX_OK && argv != NULL && argv[i] != NULL; i++)
        st = check_text(argv[i], sandbox_id, "argument", i, err);
    if (st == SBX_OK && shell_command != NULL)
        st = check_text(shell_command, sandbox_id, "shell command", 0, err);
    for (size_t i = 0; st == SBX_OK && i < env_count; i++)
        st = check_text(env[i].value, sandbox_id, "environment value", i, err);
    return st;
}

/* What the wire cannot carry of a checked request: stdin, and text that is
 * not UTF-8. */
static sbx_status check_wire(const sbx_exec_request *rq, const char *sandbox_id, sbx_error *err)
{
    if (rq->stdin_length > 0)
        return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED,
                                     "exec in sandbox '%s': the remote backend cannot pass stdin "
                                     "(the AIO /v1/bash/exec has no stdin)", sandbox_id);
    return remote_check_command_text(rq->argv, rq->shell_command, rq->env, rq->env_count,
                                     sandbox_id, err);
}

sbx_status remote_exec(sbx_backend_instance *inst, const char *sandbox_id,
                       const sbx_exec_request *request, sbx_exec_result **out, sbx_error *err)
{
    *out = NULL;
    sbx_exec_request rq;
    common_exec_request_read(request, &rq);
    size_t cap_limit = remote_exec_output_limit(&inst->options);
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st == SBX_OK)
        st = common_exec_request_check(&rq, sandbox_id, REMOTE_EXEC_MAX_TIMEOUT_MS, cap_limit,
                                       err);
    if (st == SBX_OK)
        st = check_wire(&rq, sandbox_id, err);
    if (st != SBX_OK)
        return st;
    int64_t timeout_ms = rq.timeout_ms > 0 ? rq.timeout_ms : REMOTE_EXEC_DEFAULT_TIMEOUT_MS;
    size_t cap = rq.max_output_bytes > 0 ? rq.max_output_bytes
                 : cap_limit < REMOTE_EXEC_DEFAULT_OUTPUT ? cap_limit
                                                          : REMOTE_EXEC_DEFAULT_OUTPUT;
    remote_endpoint ep;
    st = remote_endpoint_open(inst, sandbox_id, "exec", &ep, err);
    if (st != SBX_OK)
        return st;
    char *dir = NULL, *command = NULL, *body = NULL;
    st = remote_endpoint_path(&ep, rq.working_dir, 1, &dir, err);
    if (st == SBX_OK) {
        command = remote_command_text(rq.argv, rq.shell_command);
        body = command != NULL ? remote_exec_body(command, rq.env, rq.env_count, dir,
                                                  timeout_ms, cap)
                               : NULL;
        if (body == NULL)
            st = remote_endpoint_no_memory(&ep, err);
    }
    if (st == SBX_OK) {
        int64_t start = now_ms();
        st = remote_exec_post(&ep, body, timeout_ms, cap, out, err);
        if (st == SBX_OK)
            (*out)->duration_ms = now_ms() - start;
    }
    free(dir);
    free(command);
    free(body);
    remote_endpoint_close(&ep);
    return st;
}
