/*
 * Parsing of backend option values (options arrive as strings, see
 * sbx_option), shared so that every backend reports bad values alike.
 */
#ifndef SBX_COMMON_OPTION_VALUES_H
#define SBX_COMMON_OPTION_VALUES_H

#include <sbx/backend.h>

/* Parse `value` as a decimal integer in [min, max] into *out.  Otherwise
 * SBX_ERR_CONFIG naming `key`, the value and the range. */
sbx_status common_option_parse_long(const char *key, const char *value, long min,
                                    long max, long *out, sbx_error *err);

/* Replace *dst with a copy of `value` (the old string is freed).
 * SBX_ERR_INTERNAL when out of memory. */
sbx_status common_option_copy_string(char **dst, const char *value, sbx_error *err);

#endif
