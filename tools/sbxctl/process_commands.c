/* exec -i/-t/-d, ps, logs, kill and attach: the live processes of ABI 1.4
 * from the command line, on a sandbox of any backend, by its id and the
 * process's id. */
#include <config.h>

#include "tools/sbxctl/commands.h"

#include "tools/sbxctl/exit_code.h"
#include "tools/sbxctl/follow.h"
#include "tools/sbxctl/terminal.h"

/* A followed process's ending as sbxctl's exit code, with sbxctl's note. */
static int ending_code(const ctl_follow_end *end)
{
    ctl_print_ending_note(end->outcome, end->term_signal, -1);
    return ctl_command_exit_code(end->outcome, end->exit_code, end->term_signal);
}

int ctl_cmd_exec_process(const ctl_args *args, sbx_backend *backend, const ctl_output *out)
{
    sbx_process_request request = SBX_PROCESS_REQUEST_INIT;
    request.argv = args->exec_argv;
    request.env = args->env;
    request.env_count = args->env_count;
    request.working_dir = args->workdir;
    request.stdin_open = args->interactive;
    request.pty = args->tty;
    request.timeout_ms = args->timeout_ms;
    if (args->tty)
        ctl_terminal_size(&request.rows, &request.cols);
    sbx_error err;
    sbx_process_info *process = NULL;
    if (sbx_backend_process_start(backend, args->operand, &request, &process, &err) != SBX_OK)
        return ctl_fail(out, &err);
    if (args->detach) {
        ctl_print_process_started(out, args->operand, process);
        sbx_backend_free_processes(backend, process);
        return CTL_EXIT_OK;
    }
    ctl_follow_request follow = {out, backend, args->operand, process->process_id, 1,
                                 args->interactive, 1, args->tty, 1};
    ctl_follow_end end;
    sbx_status status = ctl_follow(&follow, &end, &err);
    int code;
    if (status != SBX_OK) {
        code = ctl_fail(out, &err);
    } else {
        /* A foreground command's record is of no use once it is over. */
        sbx_error ignored;
        sbx_backend_process_forget(backend, args->operand, process->process_id, &ignored);
        code = ending_code(&end);
    }
    sbx_backend_free_processes(backend, process);
    return code;
}

int ctl_cmd_ps(const ctl_args *args, sbx_backend *backend, const ctl_output *out)
{
    sbx_error err;
    sbx_process_info *processes = NULL;
    size_t count = 0;
    if (sbx_backend_process_list(backend, args->operand, &processes, &count, &err) != SBX_OK)
        return ctl_fail(out, &err);
    ctl_print_processes(out, args->operand, processes, count);
    sbx_backend_free_processes(backend, processes);
    return CTL_EXIT_OK;
}

int ctl_cmd_logs(const ctl_args *args, sbx_backend *backend, const ctl_output *out)
{
    ctl_follow_request follow = {out, backend, args->operand, args->operand2, args->follow,
                                 0, 0, 0, 0};
    ctl_follow_end end;
    sbx_error err;
    if (ctl_follow(&follow, &end, &err) != SBX_OK)
        return ctl_fail(out, &err);
    return CTL_EXIT_OK;
}

int ctl_cmd_kill(const ctl_args *args, sbx_backend *backend, const ctl_output *out)
{
    sbx_error err;
    if (sbx_backend_process_signal(backend, args->operand, args->operand2, args->signal, &err) !=
        SBX_OK)
        return ctl_fail(out, &err);
    ctl_print_signal_sent(out, args->operand, args->operand2, args->signal);
    return CTL_EXIT_OK;
}

int ctl_cmd_attach(const ctl_args *args, sbx_backend *backend, const ctl_output *out)
{
    sbx_error err;
    sbx_process_info *process = NULL;
    if (sbx_backend_process_wait(backend, args->operand, args->operand2, 0, &process, &err) !=
        SBX_OK)
        return ctl_fail(out, &err);
    /* Another attach may come after this one: sbxctl's end of file leaves
     * the process's stdin open. */
    ctl_follow_request follow = {out, backend, args->operand, args->operand2, 1,
                                 1, 0, process->pty, 1};
    sbx_backend_free_processes(backend, process);
    ctl_follow_end end;
    if (ctl_follow(&follow, &end, &err) != SBX_OK)
        return ctl_fail(out, &err);
    return ending_code(&end);
}
