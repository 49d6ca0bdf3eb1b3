/* ${NAME}, ${NAME:-default} and whole-value $NAME expansion of configuration
 * strings. */
#ifndef SBX_ENV_EXPAND_H
#define SBX_ENV_EXPAND_H

#include <sbx/backend.h>

/* Expand `${NAME}` and `${NAME:-default}` in `text` from the environment,
 * and `text` as a whole when it is exactly `$NAME` (DeerFlow's spelling).
 * On success *out is a malloc'd string the caller frees.  SBX_ERR_CONFIG for
 * an unset variable without default or a malformed reference; the message
 * is prefixed by `where` and names the variable, never its value. */
sbx_status sbx_env_expand(const char *text, const char *where, char **out, sbx_error *err);

#endif
