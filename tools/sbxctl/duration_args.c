/* Durations of sbxctl's expiry options (see duration_args.h). */
#include <config.h>

#include "tools/sbxctl/duration_args.h"

#include <sbx/host.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Ten years: an expiry further away is a typo, not a plan. */
#define DURATION_MAX_MS (INT64_C(10) * 366 * 24 * 3600 * 1000)

sbx_status ctl_parse_duration(const char *what, const char *text, int64_t *ms, sbx_error *err)
{
    static const struct {
        char unit;
        int64_t ms;
    } units[] = { { 's', 1000 }, { 'm', 60000 }, { 'h', 3600000 }, { 'd', 86400000 } };
    char *end = NULL;
    errno = 0;
    long long n = text[0] >= '0' && text[0] <= '9' ? strtoll(text, &end, 10) : -1;
    int64_t unit = 1000;
    if (end != NULL && end[0] != '\0' && end[1] == '\0') {
        unit = 0;
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if (units[i].unit == end[0])
                unit = units[i].ms;
        end += unit != 0;
    }
    if (end == NULL || *end != '\0' || errno != 0 || n <= 0 || unit == 0 ||
        n > DURATION_MAX_MS / unit)
        return sbx_error_set(err, SBX_ERR_USAGE,
                             "%s must be a duration above 0 and at most ten years: an integer "
                             "followed by s, m, h or d (e.g. 30m)", what);
    *ms = (int64_t)n * unit;
    return SBX_OK;
}
