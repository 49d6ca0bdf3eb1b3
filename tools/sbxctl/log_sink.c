/* Backend log lines on stderr. */
#include <config.h>

#include "tools/sbxctl/log_sink.h"

#include <stdio.h>
#include <stdlib.h>

static const char *level_name(sbx_log_level level)
{
    switch (level) {
    case SBX_LOG_ERROR: return "error";
    case SBX_LOG_WARN: return "warn";
    case SBX_LOG_INFO: return "info";
    case SBX_LOG_DEBUG: return "debug";
    }
    return "log";
}

void ctl_log_line(void *log_ctx, sbx_log_level level, const char *backend,
                      const char *message)
{
    const ctl_log_sink *sink = log_ctx;
    if (!sink->verbose && level > SBX_LOG_WARN)
        return;

    char *line = NULL;
    size_t size = 0;
    FILE *stream = open_memstream(&line, &size);
    if (stream == NULL)
        return;
    fprintf(stream, "sbxctl: [%s] %s: %s\n", backend != NULL ? backend : "host",
            level_name(level), message != NULL ? message : "");
    fclose(stream);
    if (line != NULL) {
        ctl_flatten_line(line);
        /* One lock around the pieces the redactor writes keeps lines from
         * several threads whole. */
        flockfile(stderr);
        ctl_redacted_write(sink->redactor, line, stderr);
        funlockfile(stderr);
    }
    free(line);
}
