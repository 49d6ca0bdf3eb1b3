/* Where backend log lines go: stderr, filtered by verbosity, redacted. */
#ifndef CTL_LOG_SINK_H
#define CTL_LOG_SINK_H

#include <sbx/host.h>

#include "tools/sbxctl/redact.h"

/* The log callback's context; must outlive every backend logging to it. */
typedef struct ctl_log_sink {
    int verbose;                       /* non-zero: every level; else WARN and ERROR */
    const ctl_redactor *redactor;  /* borrowed; may be NULL */
} ctl_log_sink;

/* An sbx_log_fn (ctx: ctl_log_sink *): writes "sbxctl: [BACKEND] LEVEL:
 * MESSAGE" to stderr as one line.  Safe to call from several threads. */
void ctl_log_line(void *log_ctx, sbx_log_level level, const char *backend,
                      const char *message);

#endif
