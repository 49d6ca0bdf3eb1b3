/* sbxctl's durations (create/acquire --expire-in, extend's DURATION):
 * parsed into milliseconds with errors naming the option or operand. */
#ifndef CTL_DURATION_ARGS_H
#define CTL_DURATION_ARGS_H

#include <sbx/backend.h>

/* A duration: an integer followed by s, m, h or d (seconds, minutes,
 * hours, days; a bare integer is seconds), above 0 and at most ten years.
 * SBX_ERR_USAGE naming `what` (e.g. "--expire-in") otherwise. */
sbx_status ctl_parse_duration(const char *what, const char *text, int64_t *ms, sbx_error *err);

#endif
