/* Option value parsing shared by the backends (see option_values.h). */
#include <config.h>

#include "common/option_values.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int common_option_integer(const char *value, long min, long max, long *out)
{
    const char *digits = value[0] == '-' ? value + 1 : value;
    /* strtol alone would take " 5" and "+5": a value is only its digits. */
    if (digits[0] == '\0' || digits[strspn(digits, "0123456789")] != '\0')
        return 0;
    errno = 0;
    long v = strtol(value, NULL, 10);
    if (errno != 0 || v < min || v > max)
        return 0;
    *out = v;
    return 1;
}

int common_option_word(const char *value, const char *const *words)
{
    for (int i = 0; words[i] != NULL; i++)
        if (strcmp(value, words[i]) == 0)
            return i;
    return -1;
}

sbx_status common_option_copy_string(char **dst, const char *value, sbx_error *err)
{
    char *copy = strdup(value);
    if (copy == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    free(*dst);
    *dst = copy;
    return SBX_OK;
}
