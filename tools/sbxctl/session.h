/* What a run of sbxctl works with: the configuration (file, then command-
 * line overrides), the host library, the selected backend's name and options,
 * and the secrets that must not be printed. */
#ifndef CTL_SESSION_H
#define CTL_SESSION_H

#include <sbx/host.h>

#include "tools/sbxctl/args.h"
#include "tools/sbxctl/log_sink.h"
#include "tools/sbxctl/redact.h"

/* The backend used when neither --backend nor the file names one. */
#define CTL_DEFAULT_BACKEND "local"

/* Lives in one place for the whole run: the host keeps a pointer to `log`. */
typedef struct ctl_session {
    sbx_config *config;
    sbx_host *host;
    const char *backend_name;     /* borrowed from the args or the config */
    ctl_redactor redactor;
    ctl_log_sink log;
} ctl_session;

/* Load the configuration (--config FILE, else $SBX_CONFIG when set and
 * non-empty, else an empty one), select the backend (--backend, else the
 * file's, else "local"), apply each --set to it, and create the host with
 * the configured module path.  Errors: SBX_ERR_CONFIG / SBX_ERR_USAGE from
 * the configuration, SBX_ERR_INTERNAL.  Call ctl_session_end in every
 * case; `session` must not move while it is in use. */
sbx_status ctl_session_start(ctl_session *session, const ctl_args *args,
                                 sbx_error *err);

/* Open the selected backend with its options; release *out with
 * sbx_backend_close.  SBX_ERR_LOAD when it cannot be loaded, SBX_ERR_CONFIG
 * for bad options (an option another backend takes gets a hint naming it). */
sbx_status ctl_session_open_backend(ctl_session *session, sbx_backend **out,
                                        sbx_error *err);

/* Free the host and the configuration.  Backends must be closed first. */
void ctl_session_end(ctl_session *session);

#endif
