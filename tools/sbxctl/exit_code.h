/* sbxctl's exit codes (sbxctl(1), EXIT STATUS). */
#ifndef CTL_EXIT_CODE_H
#define CTL_EXIT_CODE_H

#include <sbx/host.h>

/* Success. */
#define CTL_EXIT_OK 0
/* A negative answer: not alive, not found, reconcile absent or unknown. */
#define CTL_EXIT_NEGATIVE 1
/* Usage or configuration error. */
#define CTL_EXIT_USAGE 2
/* Internal error (also: the output could not be written). */
#define CTL_EXIT_INTERNAL 70

/* Exit code of a command that timed out, as timeout(1) has it. */
#define CTL_EXIT_TIMED_OUT 124

/* shell: the last command's shell went (and was restarted) before it
 * told its exit code. */
#define CTL_EXIT_SHELL_RESTARTED 125

/* The exit code of a command of the sandbox that ended so: its own exit
 * code, CTL_EXIT_TIMED_OUT, or 128 + the signal that ended it. */
int ctl_command_exit_code(sbx_exec_outcome outcome, int exit_code, int term_signal);

/* The exit code for a failed call's status: SBX_ERR_NOT_FOUND is a negative
 * answer (1), usage and config are 2, internal is 70, every other kind its
 * documented code (3..16). */
int ctl_exit_code(sbx_status status);

#endif
