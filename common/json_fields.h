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
typedef enum common_json_field {
    COMMON_JSON_ABSENT = 0,     /* no such key (or `object` is not an object) */
    COMMON_JSON_NULL = 1,       /* the key holds JSON null */
    COMMON_JSON_OK = 2,         /* the key holds a value of the asked type */
    COMMON_JSON_WRONG_TYPE = 3, /* the key holds a value of another type */
    COMMON_JSON_BAD_TEXT = 4    /* a string holding a NUL or invalid UTF-8: a
                              * C consumer would cut it short, and JSON
                              * output could not carry it */
} common_json_field;

/* Parse exactly `len` bytes of `text` as one JSON value (trailing bytes other
 * than whitespace, and a NUL byte anywhere, are refused).  Returns a new
 * reference the caller puts, or NULL when the text is not JSON. */
struct json_object *common_json_parse(const char *text, size_t len);

/* How a message says that a text nests containers deeper than json-c
 * accepts (its default depth): such an answer is hostile or broken, and
 * calling it "not a JSON object" would send a reader looking elsewhere. */
#define COMMON_JSON_TOO_DEEP "nested deeper than 32 levels"

/* common_json_parse that also says why it returned NULL: *too_deep is 1 when
 * the text nests deeper than json-c accepts (COMMON_JSON_TOO_DEEP), else 0. */
struct json_object *common_json_parse_ex(const char *text, size_t len, int *too_deep);

/* Classify a member's value already in hand (as an iteration over an
 * object's members gives it; NULL is JSON null): COMMON_JSON_NULL, or
 * COMMON_JSON_OK with *out set (borrowed from `value`), or
 * COMMON_JSON_WRONG_TYPE (a string also COMMON_JSON_BAD_TEXT).  The same strict
 * rules as the lookups below. */
common_json_field common_json_string_value(struct json_object *value, const char **out);
common_json_field common_json_int_value(struct json_object *value, int *out);

/* The string at `key`; *out is borrowed from `object` (valid while it is). */
common_json_field common_json_get_string(struct json_object *object, const char *key,
                                         const char **out);

/* The integer at `key` when it is a JSON integer that fits an int. */
common_json_field common_json_get_int(struct json_object *object, const char *key, int *out);

/* The boolean at `key` (true/false only). */
common_json_field common_json_get_bool(struct json_object *object, const char *key, int *out);

/* 1 when `object` holds `key` with a non-empty string value, else 0. */
int common_json_has_nonempty_string(struct json_object *object, const char *key);

#endif /* SBX_COMMON_JSON_FIELDS_H */
