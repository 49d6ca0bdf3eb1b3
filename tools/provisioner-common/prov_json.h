/* The provisioner servers' one JSON reader and writer, so that every route parses
 * and prints JSON the same way. */
#ifndef SBX_PROV_JSON_H
#define SBX_PROV_JSON_H

#include <stddef.h>
#include <json-c/json.h>

/* Parse exactly one JSON value from `len` bytes (surrounding whitespace
 * allowed, as Python's json).  Returns a new reference, or NULL with
 * *offset at the first bad byte and *why a static reason.  Note that the
 * text "null" also yields NULL, with *why NULL. */
json_object *sbx_prov_json_parse(const char *text, size_t len, size_t *offset,
                                 const char **why);

/* Compact text of `value` with '/' not escaped, as the reference's FastAPI
 * writes it.  The text is owned by `value`. */
const char *sbx_prov_json_text(json_object *value);

#endif
