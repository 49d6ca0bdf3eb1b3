/*
 * Strictly typed reading of JSON answers (json-c), shared by the HTTP
 * backends.  "Strict" means no coercion: a string "2" is not an integer, a
 * boolean is not an integer, a double is not an integer.
 */
#ifndef SBX_COMMON_JSON_FIELDS_H
#define SBX_COMMON_JSON_FIELDS_H

#include <stddef.h>
#include <json-c/json.h>

/* What a field lookup found. */
typedef enum sbx_json_field {
    SBX_JSON_ABSENT = 0,     /* no such key (or `object` is not an object) */
    SBX_JSON_NULL = 1,       /* the key holds JSON null */
    SBX_JSON_OK = 2,         /* the key holds a value of the asked type */
    SBX_JSON_WRONG_TYPE = 3, /* the key holds a value of another type */
    SBX_JSON_BAD_TEXT = 4    /* a string holding a NUL or invalid UTF-8: a
                              * C consumer would cut it short, and JSON
                              * output could not carry it */
} sbx_json_field;

/* Parse exactly `len` bytes of `text` as one JSON value (trailing bytes other
 * than whitespace, and a NUL byte anywhere, are refused).  Returns a new
 * reference the caller puts, or NULL when the text is not JSON. */
struct json_object *sbx_json_parse(const char *text, size_t len);

/* How a message says that a text nests containers deeper than json-c
 * accepts (its default depth): such an answer is hostile or broken, and
 * calling it "not a JSON object" would send a reader looking elsewhere. */
#define SBX_JSON_TOO_DEEP "nested deeper than 32 levels"

/* sbx_json_parse that also says why it returned NULL: *too_deep is 1 when
 * the text nests deeper than json-c accepts (SBX_JSON_TOO_DEEP), else 0. */
struct json_object *sbx_json_parse_ex(const char *text, size_t len, int *too_deep);

/* Classify a member's value already in hand (as an iteration over an
 * object's members gives it; NULL is JSON null): SBX_JSON_NULL, or
 * SBX_JSON_OK with *out set (borrowed from `value`), or
 * SBX_JSON_WRONG_TYPE (a string also SBX_JSON_BAD_TEXT).  The same strict
 * rules as the lookups below. */
sbx_json_field sbx_json_string_value(struct json_object *value, const char **out);
sbx_json_field sbx_json_int_value(struct json_object *value, int *out);

/* The string at `key`; *out is borrowed from `object` (valid while it is). */
sbx_json_field sbx_json_get_string(struct json_object *object, const char *key,
                                   const char **out);

/* The integer at `key` when it is a JSON integer that fits an int. */
sbx_json_field sbx_json_get_int(struct json_object *object, const char *key, int *out);

/* The boolean at `key` (true/false only). */
sbx_json_field sbx_json_get_bool(struct json_object *object, const char *key, int *out);

/* 1 when `object` holds `key` with a non-empty string value, else 0. */
int sbx_json_has_nonempty_string(struct json_object *object, const char *key);

#endif /* SBX_COMMON_JSON_FIELDS_H */
