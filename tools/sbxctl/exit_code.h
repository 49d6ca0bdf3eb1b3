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

/* The exit code for a failed call's status: SBX_ERR_NOT_FOUND is a negative
 * answer (1), usage and config are 2, internal is 70, every other kind its
 * documented code (3..10). */
int ctl_exit_code(sbx_status status);

#endif
