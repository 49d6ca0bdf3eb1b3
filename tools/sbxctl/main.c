/* sbxctl: drive sandbox backends from the command line.  Parses the
 * arguments, sets up the session and dispatches to one command. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "tools/sbxctl/args.h"
#include "tools/sbxctl/commands.h"
#include "tools/sbxctl/exit_code.h"
#include "tools/sbxctl/follow.h"
#include "tools/sbxctl/help.h"
#include "tools/sbxctl/output.h"
#include "tools/sbxctl/session.h"

typedef int (*sandbox_command_fn)(const ctl_args *args, sbx_backend *backend,
                                  const ctl_output *out);

static sandbox_command_fn sandbox_command(ctl_command command)
{
    switch (command) {
    case CTL_CREATE: return ctl_cmd_create;
    case CTL_DESTROY: return ctl_cmd_destroy;
    case CTL_EXTEND: return ctl_cmd_extend;
    case CTL_ALIVE: return ctl_cmd_alive;
    case CTL_DISCOVER: return ctl_cmd_discover;
    case CTL_LIST: return ctl_cmd_list;
    case CTL_CAPABILITIES: return ctl_cmd_capabilities;
    case CTL_RECONCILE: return ctl_cmd_reconcile;
    case CTL_EXEC: return ctl_cmd_exec;
    case CTL_CP: return ctl_cmd_cp;
    case CTL_LS: return ctl_cmd_ls;
    case CTL_PS: return ctl_cmd_ps;
    case CTL_LOGS: return ctl_cmd_logs;
    case CTL_KILL: return ctl_cmd_kill;
    case CTL_ATTACH: return ctl_cmd_attach;
    case CTL_SHELL: return ctl_cmd_shell;
    case CTL_NO_COMMAND:
    case CTL_BACKENDS:
    case CTL_ACQUIRE:
    case CTL_MANAGE:
    case CTL_LEASES:
        break;
    }
    return NULL;
}

static int run(const ctl_args *args, ctl_output *out)
{
    sbx_error err;
    ctl_session session;
    sbx_status status = ctl_session_start(&session, args, &err);
    out->redactor = &session.redactor;
    if (status != SBX_OK) {
        ctl_print_error(out, &err);
        ctl_session_end(&session);
        return ctl_exit_code(status);
    }

    int code;
    if (args->command == CTL_BACKENDS) {
        code = ctl_cmd_backends(&session, out);
    } else if (args->command == CTL_LEASES) {
        code = ctl_cmd_leases(&session, out);
    } else {
        sbx_backend *backend = NULL;
        status = ctl_session_open_backend(&session, &backend, &err);
        if (status != SBX_OK) {
            code = ctl_fail(out, &err);
        } else {
            if (args->command == CTL_ACQUIRE)
                code = ctl_cmd_acquire(args, &session, backend, out);
            else if (args->command == CTL_MANAGE)
                code = ctl_cmd_manage(&session, backend, out);
            else
                code = sandbox_command(args->command)(args, backend, out);
            sbx_backend_close(backend);
        }
    }
    out->redactor = NULL;
    ctl_session_end(&session);
    return code;
}

/* A full disk or a closed pipe must not look like success to a script. */
static int finish_output(int code)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fputs("sbxctl: internal: cannot write to standard output\n", stderr);
        return code == CTL_EXIT_OK ? CTL_EXIT_INTERNAL : code;
    }
    return code;
}

int main(int argc, char **argv)
{
    ctl_args args;
    sbx_error err;
    ctl_output out = {0, NULL};

    sbx_status status = ctl_args_parse(argc, argv, &args, &err);
    out.json = args.json;
    int code;
    if (status != SBX_OK) {
        ctl_print_error(&out, &err);
        code = ctl_exit_code(status);
    } else if (args.help) {
        ctl_print_help(stdout);
        code = CTL_EXIT_OK;
    } else if (args.version) {
        ctl_print_version(&out);
        code = CTL_EXIT_OK;
    } else {
        /* Signals a follow passes on to the process are blocked before the
         * library starts any thread that could take them. */
        if ((args.command == CTL_EXEC && !args.detach && (args.interactive || args.tty)) ||
            args.command == CTL_ATTACH)
            ctl_follow_block_signals();
        code = run(&args, &out);
    }
    ctl_args_free(&args);
    return finish_output(code);
}
