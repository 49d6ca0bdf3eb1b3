/* JSON reading and writing with json-c. */
#include <config.h>

#include "tools/provisioner-common/prov_json.h"

#include <errno.h>

const char prov_json_out_of_memory[] = "out of memory";

static size_t skip_space(const char *text, size_t len, size_t at)
{
    while (at < len && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' ||
                        text[at] == '\r'))
        at++;
    return at;
}

json_object *prov_json_parse(const char *text, size_t len, size_t *offset,
                                 const char **why)
{
    *offset = 0;
    *why = NULL;
    size_t start = skip_space(text, len, 0);
    if (start == len) {
        *offset = start;
        *why = "Expecting value";
        return NULL;
    }
    json_tokener *tok = json_tokener_new();
    if (tok == NULL) {
        *why = prov_json_out_of_memory;
        return NULL;
    }
    json_object *value = json_tokener_parse_ex(tok, text + start, (int)(len - start));
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t end = start + json_tokener_get_parse_end(tok);
    if (jerr == json_tokener_continue && end == len) {
        /* A bare literal or number ("null", "12") ends only at a terminator:
         * feed json-c the NUL it waits for. */
        value = json_tokener_parse_ex(tok, "", 1);
        jerr = json_tokener_get_error(tok);
    }
    json_tokener_free(tok);
    if (jerr == json_tokener_success && skip_space(text, len, end) == len)
        return value;
    json_object_put(value);
    *offset = end;
    *why = jerr == json_tokener_success    ? "Extra data"
           : jerr == json_tokener_continue ? "unexpected end of input"
                                           : json_tokener_error_desc(jerr);
    return NULL;
}

const char *prov_json_text(json_object *value)
{
    if (value == NULL)
        return NULL;
    errno = 0;
    const char *text = json_object_to_json_string_ext(
        value, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    return errno == ENOMEM ? NULL : text;
}

int prov_json_add(json_object *obj, const char *key, json_object *value)
{
    if (value != NULL && json_object_object_add(obj, key, value) == 0)
        return 1;
    json_object_put(value);
    return 0;
}

int prov_json_add_string(json_object *obj, const char *key, const char *text)
{
    if (text == NULL)
        return json_object_object_add(obj, key, NULL) == 0;
    return prov_json_add(obj, key, json_object_new_string(text));
}

int prov_json_append(json_object *array, json_object *value)
{
    if (value != NULL && json_object_array_add(array, value) == 0)
        return 1;
    json_object_put(value);
    return 0;
}

json_object *prov_json_built(json_object *value, int built)
{
    if (built)
        return value;
    json_object_put(value);
    return NULL;
}
