/* The text rules of configuration strings and their ${NAME},
 * ${NAME:-default} and whole-value $NAME expansion: what the file's parser
 * (config.c) and its `manager` section's (config_manager.c) both call. */
#ifndef SBX_ENV_EXPAND_H
#define SBX_ENV_EXPAND_H

#include <json-c/json.h>
#include <sbx/backend.h>
#include <stddef.h>

/* Expand `${NAME}` and `${NAME:-default}` in `text` from the environment,
 * and `text` as a whole when it is exactly `$NAME` (DeerFlow's spelling).
 * On success *out is a malloc'd string the caller frees.  SBX_ERR_CONFIG for
 * an unset variable without default or a malformed reference; the message
 * is prefixed by `where` and names the variable, never its value. */
sbx_status host_env_expand(const char *text, const char *where, char **out, sbx_error *err);

/* SBX_OK when the `len` bytes of `text` are UTF-8 without NUL: a decoded
 * NUL ("\u0000") would cut the value short where C reads it, and a value
 * that is not UTF-8 cannot go into the JSON a backend sends or prints.
 * SBX_ERR_CONFIG otherwise; the message names `what`, never the value. */
sbx_status host_config_check_text(const char *text, size_t len, const char *what, sbx_error *err);

/* Check and expand the JSON string `v` found at `where` (the rules above;
 * the value read from the environment must be clean text too); *out is
 * malloc'ed and the caller's.  SBX_ERR_CONFIG names `where`. */
sbx_status host_config_expand_string(json_object *v, const char *where, char **out,
                                    sbx_error *err);

#endif
