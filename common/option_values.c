/* Option value parsing shared by the backends (see option_values.h). */
#include <config.h>

#include "common/option_values.h"

#include "common/printable.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

sbx_status common_options_apply(const sbx_option *options, size_t count, common_option_fn apply,
                                void *target, sbx_error *err)
{
    for (size_t i = 0; i < count; i++) {
        sbx_status st = apply(target, options[i].key, options[i].value, err);
        if (st != SBX_OK)
            return st;
    }
    return SBX_OK;
}

sbx_status common_option_unknown(const char *backend, const char *key, const char *known,
                                 sbx_error *err)
{
    char shown[80];
    return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                 "unknown option '%s' for backend '%s' (known: %s)",
                                 common_printable(key, shown, sizeof shown), backend, known);
}

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
    return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                 "option '%s': '%.64s' is not an integer from %ld to %ld",
                                 key, value ? value : "", min, max);
}

sbx_status common_option_copy_string(char **dst, const char *value, sbx_error *err)
{
    char *copy = strdup(value ? value : "");
    if (copy == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    free(*dst);
    *dst = copy;
    return SBX_OK;
}
