/*
 * Parsing of single backend option values (options arrive as strings, see
 * sbx_option), shared so that every backend reads a value alike; the
 * option table (option_table.h) words the errors.
 */
#ifndef SBX_COMMON_OPTION_VALUES_H
#define SBX_COMMON_OPTION_VALUES_H

#include <sbx/backend.h>

/* Non-zero when `value` is a decimal integer ('-' allowed, no blanks, no
 * '+') in [min, max], stored in *out; *out is unchanged otherwise. */
int common_option_integer(const char *value, long min, long max, long *out);

/* The index of `value` among the NULL-terminated `words`, or -1. */
int common_option_word(const char *value, const char *const *words);

/* Replace *dst with a copy of `value` (the old string is freed).
 * SBX_ERR_INTERNAL when out of memory, *dst unchanged. */
sbx_status common_option_copy_string(char **dst, const char *value, sbx_error *err);

#endif
