/* Option value parsing shared by the backends (see option_values.h). */
#include <config.h>

#include "common/option_values.h"

#include <sbx/host.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

sbx_status common_option_parse_long(const char *key, const char *value, long min,
                                    long max, long *out, sbx_error *err)
{
    if (value != NULL && *value != '\0') {
        char *end = NULL;
        errno = 0;
        long v = strtol(value, &end, 10);
        if (errno == 0 && *end == '\0' && v >= min && v <= max) {
            *out = v;
            return SBX_OK;
        }
    }
    return sbx_error_set(err, SBX_ERR_CONFIG,
                         "option '%s': '%.64s' is not an integer from %ld to %ld",
                         key, value ? value : "", min, max);
}

sbx_status common_option_copy_string(char **dst, const char *value, sbx_error *err)
{
    char *copy = strdup(value ? value : "");
    if (copy == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    free(*dst);
    *dst = copy;
    return SBX_OK;
}
