/*
 * Parsing of backend option values (options arrive as strings, see
 * sbx_option), shared so that every backend reports bad values alike.
 */
#ifndef SBX_COMMON_OPTION_VALUES_H
#define SBX_COMMON_OPTION_VALUES_H

#include <sbx/backend.h>

/* Applies one option (`key`, `value`) to the options being parsed, `target`:
 * SBX_OK, or an error naming the key. */
typedef sbx_status (*common_option_fn)(void *target, const char *key, const char *value,
                                       sbx_error *err);

/* The loop every backend's option parser runs: `apply` for each of the
 * `count` options in order (a later key replaces an earlier one), stopping
 * at the first error, which it returns.  The host hands over `count`
 * options with non-NULL keys and values (backend.h, "Arguments"). */
sbx_status common_options_apply(const sbx_option *options, size_t count, common_option_fn apply,
                                void *target, sbx_error *err);

/* SBX_ERR_CONFIG for a key backend `backend` does not know: the message
 * names the key (quoted as common_printable shows it) and the known keys,
 * `known` ("a, b, c"), in the same words for every backend. */
sbx_status common_option_unknown(const char *backend, const char *key, const char *known,
                                 sbx_error *err);

/* Parse `value` as a decimal integer in [min, max] into *out.  Otherwise
 * SBX_ERR_CONFIG naming `key`, the value and the range. */
sbx_status common_option_parse_long(const char *key, const char *value, long min,
                                    long max, long *out, sbx_error *err);

/* Replace *dst with a copy of `value` (the old string is freed).
 * SBX_ERR_INTERNAL when out of memory. */
sbx_status common_option_copy_string(char **dst, const char *value, sbx_error *err);

#endif
