/* JSON reading and writing with json-c. */
#include <config.h>

#include "tools/provisioner-common/prov_json.h"

#include <errno.h>
#include <string.h>

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

/* The short escape of byte `c` (json-c's), or 0 when it has none. */
static char short_escape(unsigned char c)
{
    switch (c) {
    case '"': return '"';
    case '\\': return '\\';
    case '\b': return 'b';
    case '\f': return 'f';
    case '\n': return 'n';
    case '\r': return 'r';
    case '\t': return 't';
    default: return 0;
    }
}

size_t prov_json_string_size(const char *text, size_t len)
{
    size_t size = 2;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        size += short_escape(c) != 0 ? 2 : c < 0x20 ? 6 : 1;
    }
    return size;
}

char *prov_json_string_write(char *out, const char *text, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    *out++ = '"';
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        char e = short_escape(c);
        if (e != 0) {
            *out++ = '\\';
            *out++ = e;
        } else if (c < 0x20) {
            memcpy(out, "\\u00", 4);
            out[4] = hex[c >> 4];
            out[5] = hex[c & 15];
            out += 6;
        } else {
            *out++ = (char)c;
        }
    }
    *out++ = '"';
    return out;
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

const char *prov_json_string_member(json_object *obj, const char *key)
{
    json_object *value = NULL;
    if (!json_object_object_get_ex(obj, key, &value) ||
        !json_object_is_type(value, json_type_string))
        return NULL;
    return json_object_get_string(value);
}
