/* Validation of the engine's strings (see docker_text.h). */
#include <config.h>

#include "plugin/docker/docker_text.h"

#include "common/printable.h"
#include "common/utf8.h"

#include <sbx/backend_support.h>

#include <stdio.h>
#include <string.h>

/* Append to the path at field[len]: ".name" (or "name" at the start), or
 * "[index]" when name is NULL.  Returns the new length (bounded by size).
 * field NULL: no path is kept. */
static size_t path_append(char *field, size_t size, size_t len, const char *name, size_t index)
{
    if (field == NULL)
        return 0;
    char shown[80];
    int n = name == NULL ? snprintf(field + len, size - len, "[%zu]", index)
                         : snprintf(field + len, size - len, "%s%s", len > 0 ? "." : "",
                                    common_printable(name, shown, sizeof shown));
    size_t grown = len + (n > 0 ? (size_t)n : 0);
    if (grown < size)
        return grown;
    /* Cut: the path ends in the mark (names are printable ASCII here). */
    if (size > sizeof SBX_CUT_MARK)
        memcpy(field + size - sizeof SBX_CUT_MARK, SBX_CUT_MARK, sizeof SBX_CUT_MARK);
    return size - 1;
}

/* 1 when every string under `v` is clean text; else 0, with the path of
 * the first bad one in `field` unless field is NULL. */
static int walk(json_object *v, char *field, size_t size, size_t len)
{
    switch (json_object_get_type(v)) {
    case json_type_string:
        return common_text_is_clean(json_object_get_string(v),
                                    (size_t)json_object_get_string_len(v));
    case json_type_array:
        for (size_t i = 0; i < json_object_array_length(v); i++) {
            size_t n = path_append(field, size, len, NULL, i);
            if (!walk(json_object_array_get_idx(v, i), field, size, n))
                return 0;
        }
        break;
    case json_type_object: {
        json_object_object_foreach(v, name, child) {
            size_t n = path_append(field, size, len, name, 0);
            if (!common_text_is_clean(name, strlen(name)) || !walk(child, field, size, n))
                return 0;
        }
        break;
    }
    default:
        break;
    }
    if (field != NULL)
        field[len] = '\0';
    return 1;
}

int docker_json_text_ok(json_object *value, char *field, size_t size)
{
    field[0] = '\0';
    /* Paths cost a snprintf per member (most of a list's decoding): they
     * are built only to name a bad string, in a second walk. */
    if (walk(value, NULL, 0, 0))
        return 1;
    walk(value, field, size, 0);
    return 0;
}
