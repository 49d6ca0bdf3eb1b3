/* Signals by name or number, as `sbxctl kill` takes them and `ps` shows them. */
#ifndef CTL_SIGNAL_NAMES_H
#define CTL_SIGNAL_NAMES_H

#include <sbx/host.h>

/* The signal `text` names: a number 1..SBX_SIGNAL_MAX, or a name with or
 * without "SIG" in any case (TERM, sigterm, SIGKILL).  SBX_OK with *signal
 * set, else SBX_ERR_USAGE with a message quoting `text`. */
sbx_status ctl_signal_parse(const char *text, int *signal, sbx_error *err);

/* The name of `signal` without "SIG" ("TERM"), or NULL for a number without one. */
const char *ctl_signal_name(int signal);

#endif
