/*
 * libFuzzer target remote-json-scan: the one-pass scanner is_alive reads
 * "status" with (plugin/remote/remote_json_scan.h), judged by json-c's strict
 * parser.  The scanner may refuse what json-c strict lets through (its
 * extensions: NaN, "1.", raw control characters in strings), but the
 * fuzzer aborts when the scanner accepts a text json-c strict refuses or
 * that is not an object, and when the two read "status" differently.
 */
#include <config.h>

#include "plugin/remote/remote_json_scan.h"

#include <json-c/json.h>

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* json-c's strict verdict on the whole text: its value, or NULL. */
static struct json_object *strict_parse(const char *text, size_t size)
{
    if (size > INT_MAX)
        return NULL;
    json_tokener *tok = json_tokener_new();
    if (tok == NULL)
        abort();
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    struct json_object *value = json_tokener_parse_ex(tok, text, (int)size);
    int whole = value != NULL && json_tokener_get_error(tok) == json_tokener_success;
    /* json-c stops at a NUL byte and leaves trailing text to its caller. */
    for (size_t i = json_tokener_get_parse_end(tok); whole && i < size; i++)
        whole = strchr(" \t\n\r", text[i]) != NULL && text[i] != '\0';
    json_tokener_free(tok);
    if (!whole) {
        json_object_put(value);
        return NULL;
    }
    return value;
}

/* "status" of json-c's object as the scanner classifies members. */
static common_json_field jsonc_status(struct json_object *root, struct json_object **value)
{
    if (!json_object_object_get_ex(root, "status", value))
        return COMMON_JSON_ABSENT;
    if (*value == NULL)
        return COMMON_JSON_NULL;
    return json_object_is_type(*value, json_type_string) ? COMMON_JSON_OK : COMMON_JSON_WRONG_TYPE;
}

/* The scanner's string must be json-c's: equal to it, and to no shorter
 * text.  json-c turns lone surrogates into U+FFFD, which the scanner never
 * matches, so strings holding that character are compared on "Running" only. */
static void check_same_string(const remote_json_scanned_member *m, struct json_object *value)
{
    const char *s = json_object_get_string(value);
    size_t len = (size_t)json_object_get_string_len(value);
    int running = len == 7 && memcmp(s, "Running", 7) == 0;
    if (remote_json_scanned_string_equals(m->raw, m->raw_len, "Running") != running)
        abort();
    if (memchr(s, '\0', len) != NULL || memmem(s, len, "\xEF\xBF\xBD", 3) != NULL)
        return;
    if (!remote_json_scanned_string_equals(m->raw, m->raw_len, s))
        abort();
    if (len > 0) {
        char *shorter = strndup(s, len - 1);
        if (shorter == NULL)
            abort();
        int equal = remote_json_scanned_string_equals(m->raw, m->raw_len, shorter);
        free(shorter);
        if (equal)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    remote_json_scanned_member member;
    int accepted = remote_json_scan_object_member(text, size, "status", &member);
    if (!accepted) {
        if (member.state != COMMON_JSON_ABSENT)
            abort();
        return 0;
    }
    struct json_object *root = strict_parse(text, size);
    if (root == NULL || !json_object_is_type(root, json_type_object))
        abort();
    if (member.state == COMMON_JSON_OK &&
        (member.raw <= text || member.raw + member.raw_len >= text + size ||
         member.raw[-1] != '"' || member.raw[member.raw_len] != '"'))
        abort();
    /* json-c cuts keys at an escaped NUL ("status\u0000x" becomes "status"),
     * the scanner does not: such texts are compared on validity alone. */
    if (memmem(text, size, "\\u0000", 6) == NULL) {
        struct json_object *value = NULL;
        if (jsonc_status(root, &value) != member.state)
            abort();
        if (member.state == COMMON_JSON_OK)
            check_same_string(&member, value);
    }
    json_object_put(root);
    return 0;
}
