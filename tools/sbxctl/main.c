/* sbxctl: drive sandbox backends from the command line.  Parses the
 * arguments, sets up the session and dispatches to one command. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "tools/sbxctl/args.h"
#include "tools/sbxctl/commands.h"
#include "tools/sbxctl/exit_code.h"
#include "tools/sbxctl/help.h"
#include "tools/sbxctl/output.h"
#include "tools/sbxctl/session.h"

typedef int (*sandbox_command_fn)(const sbx_ctl_args *args, sbx_backend *backend,
                                  const sbx_ctl_output *out);

static sandbox_command_fn sandbox_command(sbx_ctl_command command)
{
    switch (command) {
    case SBX_CTL_CREATE: return sbx_ctl_cmd_create;
    case SBX_CTL_DESTROY: return sbx_ctl_cmd_destroy;
    case SBX_CTL_ALIVE: return sbx_ctl_cmd_alive;
    case SBX_CTL_DISCOVER: return sbx_ctl_cmd_discover;
    case SBX_CTL_LIST: return sbx_ctl_cmd_list;
    case SBX_CTL_CAPABILITIES: return sbx_ctl_cmd_capabilities;
    case SBX_CTL_RECONCILE: return sbx_ctl_cmd_reconcile;
    case SBX_CTL_NO_COMMAND:
    case SBX_CTL_BACKENDS:
    case SBX_CTL_ACQUIRE:
    case SBX_CTL_MANAGE:
    case SBX_CTL_LEASES:
        break;
    }
    return NULL;
}

static int run(const sbx_ctl_args *args, sbx_ctl_output *out)
{
    sbx_error err;
    sbx_ctl_session session;
    sbx_status status = sbx_ctl_session_start(&session, args, &err);
    out->redactor = &session.redactor;
    if (status != SBX_OK) {
        sbx_ctl_print_error(out, &err);
        sbx_ctl_session_end(&session);
        return sbx_ctl_exit_code(status);
    }

    int code;
    if (args->command == SBX_CTL_BACKENDS) {
        code = sbx_ctl_cmd_backends(&session, out);
    } else if (args->command == SBX_CTL_LEASES) {
        code = sbx_ctl_cmd_leases(&session, out);
    } else {
        sbx_backend *backend = NULL;
        status = sbx_ctl_session_open_backend(&session, &backend, &err);
        if (status != SBX_OK) {
            code = sbx_ctl_fail(out, &err);
        } else {
            if (args->command == SBX_CTL_ACQUIRE)
                code = sbx_ctl_cmd_acquire(args, &session, backend, out);
            else if (args->command == SBX_CTL_MANAGE)
                code = sbx_ctl_cmd_manage(&session, backend, out);
            else
                code = sandbox_command(args->command)(args, backend, out);
            sbx_backend_close(backend);
        }
    }
    out->redactor = NULL;
    sbx_ctl_session_end(&session);
    return code;
}

/* A full disk or a closed pipe must not look like success to a script. */
static int finish_output(int code)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fputs("sbxctl: internal: cannot write to standard output\n", stderr);
        return code == SBX_CTL_EXIT_OK ? SBX_CTL_EXIT_INTERNAL : code;
    }
    return code;
}

int main(int argc, char **argv)
{
    sbx_ctl_args args;
    sbx_error err;
    sbx_ctl_output out = {0, NULL};

    sbx_status status = sbx_ctl_args_parse(argc, argv, &args, &err);
    out.json = args.json;
    int code;
    if (status != SBX_OK) {
        sbx_ctl_print_error(&out, &err);
        code = sbx_ctl_exit_code(status);
    } else if (args.help) {
        sbx_ctl_print_help(stdout);
        code = SBX_CTL_EXIT_OK;
    } else if (args.version) {
        sbx_ctl_print_version(&out);
        code = SBX_CTL_EXIT_OK;
    } else {
        code = run(&args, &out);
    }
    sbx_ctl_args_free(&args);
    return finish_output(code);
}
