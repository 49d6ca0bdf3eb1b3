/* shell ID: a session (the host library's sbx_session_*) driven by a
 * script on stdin, one command a line, each run to its end before the
 * next line is read, so that `cd` and `export` carry over. */
#include <config.h>

#include "tools/sbxctl/commands.h"

#include "tools/sbxctl/exit_code.h"

#include <sbx/session.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The exit code a session command gives sbxctl: its own, 124 when it
 * timed out, CTL_EXIT_SHELL_RESTARTED when the shell went before saying. */
static int command_code(const sbx_session_result *result)
{
    if (result->timed_out)
        return CTL_EXIT_TIMED_OUT;
    return result->exit_code >= 0 ? result->exit_code : CTL_EXIT_SHELL_RESTARTED;
}

int ctl_cmd_shell(const ctl_args *args, sbx_backend *backend, const ctl_output *out)
{
    sbx_session_options options = SBX_SESSION_OPTIONS_INIT;
    options.env = args->env;
    options.env_count = args->env_count;
    options.working_dir = args->workdir;
    sbx_error err;
    sbx_session *session = NULL;
    if (sbx_session_open(backend, args->operand, &options, &session, &err) != SBX_OK)
        return ctl_fail(out, &err);
    int code = CTL_EXIT_OK;
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    while ((length = getline(&line, &capacity, stdin)) >= 0) {
        if (length > 0 && line[length - 1] == '\n')
            line[--length] = '\0';
        if (length == 0)
            continue;
        if (memchr(line, '\0', (size_t)length) != NULL) {
            sbx_error_set(&err, SBX_ERR_USAGE, "shell: a line of stdin holds a NUL byte");
            code = ctl_fail(out, &err);
            break;
        }
        sbx_session_result *result = NULL;
        if (sbx_session_run(session, line, args->timeout_ms, &result, &err) != SBX_OK) {
            code = ctl_fail(out, &err);
            break;
        }
        ctl_print_session_result(out, line, result);
        code = command_code(result);
        sbx_session_result_free(result);
    }
    if (length < 0 && ferror(stdin)) {
        sbx_error_set(&err, SBX_ERR_USAGE, "shell: cannot read stdin (%s)", strerror(errno));
        code = ctl_fail(out, &err);
    }
    free(line);
    if (sbx_session_close(session, &err) != SBX_OK && code == CTL_EXIT_OK)
        code = ctl_fail(out, &err);
    return code;
}
