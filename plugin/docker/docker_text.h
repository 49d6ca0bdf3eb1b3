/*
 * Strings from the engine are shown to callers (identity labels, status,
 * error messages) and go into --json output: each must be valid UTF-8 and
 * hold no NUL, which json-c decodes faithfully but C strings would cut
 * ("alice\u0000mallory" read as "alice"); the test itself is
 * common/utf8.h's common_text_is_clean.  Pure functions.
 */
#ifndef SBX_DOCKER_TEXT_H
#define SBX_DOCKER_TEXT_H

#include <stddef.h>
#include <json-c/json.h>

/* Walk `value` (objects, arrays, strings; member names included): 1 when
 * every string is valid text, else 0 with `field` (`size` > 0 bytes) naming
 * the first bad one as a path from `value` ("Config.Labels.sbx.user_id",
 * "Names[0]"; a name that is itself bad is shown with '?' for its bad
 * bytes).  json-c ends a member name at an escaped NUL, so a NUL there
 * cannot be seen. */
int docker_json_text_ok(json_object *value, char *field, size_t size);

#endif
