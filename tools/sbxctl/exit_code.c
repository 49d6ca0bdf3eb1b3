/* Status to exit code.  Spelt out case by case, not derived from the enum's
 * values, so that a renumbered status cannot silently change the contract. */
#include <config.h>

#include "tools/sbxctl/exit_code.h"

int ctl_exit_code(sbx_status status)
{
    switch (status) {
    case SBX_OK: return CTL_EXIT_OK;
    case SBX_ERR_NOT_FOUND: return CTL_EXIT_NEGATIVE;
    case SBX_ERR_USAGE: return CTL_EXIT_USAGE;
    case SBX_ERR_CONFIG: return CTL_EXIT_USAGE;
    case SBX_ERR_TRANSPORT: return 3;
    case SBX_ERR_PROTOCOL: return 4;
    case SBX_ERR_CONTRACT_CHANGED: return 5;
    case SBX_ERR_REFUSED: return 6;
    case SBX_ERR_UNAUTHORIZED: return 7;
    case SBX_ERR_LOAD: return 8;
    case SBX_ERR_PROVISIONER: return 9;
    case SBX_ERR_UNSUPPORTED: return 10;
    case SBX_ERR_NO_SUCH_PATH: return 11;
    case SBX_ERR_NOT_A_DIRECTORY: return 12;
    case SBX_ERR_IS_A_DIRECTORY: return 13;
    case SBX_ERR_EXISTS: return 14;
    case SBX_ERR_PERMISSION: return 15;
    case SBX_ERR_NO_SUCH_PROCESS: return 16;
    case SBX_ERR_INTERNAL: return CTL_EXIT_INTERNAL;
    }
    return CTL_EXIT_INTERNAL;
}

int ctl_command_exit_code(sbx_exec_outcome outcome, int exit_code, int term_signal)
{
    switch (outcome) {
    case SBX_EXEC_EXITED: return exit_code;
    case SBX_EXEC_TIMED_OUT: return CTL_EXIT_TIMED_OUT;
    case SBX_EXEC_SIGNALED: return 128 + term_signal;
    }
    return CTL_EXIT_INTERNAL;
}
