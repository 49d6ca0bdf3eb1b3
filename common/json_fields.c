/* Strictly typed JSON field access (see json_fields.h). */
#include <config.h>

#include "common/json_fields.h"

#include "common/utf8.h"

#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

/* COMMON_JSON_TOO_DEEP names the depth of the tokener made below. */
_Static_assert(JSON_TOKENER_DEFAULT_DEPTH == 32, "COMMON_JSON_TOO_DEEP names json-c's depth");

struct json_object *common_json_parse(const char *text, size_t len)
{
    int too_deep;
    return common_json_parse_ex(text, len, &too_deep);
}

struct json_object *common_json_parse_ex(const char *text, size_t len, int *too_deep)
{
    *too_deep = 0;
    /* No JSON text holds a raw NUL, and json-c mistakes one in a comment
     * after a value for the end of the text: it hands back that value (an
     * inner one) as the whole answer. */
    if (text == NULL || len > INT_MAX || memchr(text, '\0', len) != NULL)
        return NULL;
    json_tokener *tok = json_tokener_new();
    if (tok == NULL)
        return NULL;
    struct json_object *value = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t used = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    *too_deep = jerr == json_tokener_error_depth;
    if (value == NULL || jerr != json_tokener_success) {
        json_object_put(value);
        return NULL;
    }
    for (size_t i = used; i < len; i++) {
        if (!isspace((unsigned char)text[i])) {
            json_object_put(value);
            return NULL;
        }
    }
    return value;
}

/* Look `key` up; NULL with *state set when absent or null. */
static struct json_object *lookup(struct json_object *object, const char *key,
                                  common_json_field *state)
{
    struct json_object *value = NULL;
    if (object == NULL || !json_object_is_type(object, json_type_object) ||
        !json_object_object_get_ex(object, key, &value)) {
        *state = COMMON_JSON_ABSENT;
        return NULL;
    }
    if (value == NULL) {
        *state = COMMON_JSON_NULL;
        return NULL;
    }
    *state = COMMON_JSON_OK;
    return value;
}

common_json_field common_json_string_value(struct json_object *value, const char **out)
{
    if (value == NULL)
        return COMMON_JSON_NULL;
    if (!json_object_is_type(value, json_type_string))
        return COMMON_JSON_WRONG_TYPE;
    const char *text = json_object_get_string(value);
    if (!common_text_is_clean(text, (size_t)json_object_get_string_len(value)))
        return COMMON_JSON_BAD_TEXT;
    *out = text;
    return COMMON_JSON_OK;
}

common_json_field common_json_int_value(struct json_object *value, int *out)
{
    if (value == NULL)
        return COMMON_JSON_NULL;
    if (!json_object_is_type(value, json_type_int))
        return COMMON_JSON_WRONG_TYPE;
    /* Larger integers (json-c clamps them to INT64_MAX) fail the range check. */
    int64_t v = json_object_get_int64(value);
    if (v < INT_MIN || v > INT_MAX)
        return COMMON_JSON_WRONG_TYPE;
    *out = (int)v;
    return COMMON_JSON_OK;
}

common_json_field common_json_get_string(struct json_object *object, const char *key,
                                         const char **out)
{
    common_json_field state;
    struct json_object *value = lookup(object, key, &state);
    return value == NULL ? state : common_json_string_value(value, out);
}

common_json_field common_json_get_int(struct json_object *object, const char *key, int *out)
{
    common_json_field state;
    struct json_object *value = lookup(object, key, &state);
    return value == NULL ? state : common_json_int_value(value, out);
}

common_json_field common_json_get_bool(struct json_object *object, const char *key, int *out)
{
    common_json_field state;
    struct json_object *value = lookup(object, key, &state);
    if (value == NULL)
        return state;
    if (!json_object_is_type(value, json_type_boolean))
        return COMMON_JSON_WRONG_TYPE;
    *out = json_object_get_boolean(value) ? 1 : 0;
    return COMMON_JSON_OK;
}

int common_json_has_nonempty_string(struct json_object *object, const char *key)
{
    const char *s = NULL;
    return common_json_get_string(object, key, &s) == COMMON_JSON_OK && s[0] != '\0';
}
