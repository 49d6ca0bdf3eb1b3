/* A write body read and decoded in place (see aio_write_body.h).  The
 * content's bounds are found first, by a scan of the members' bounds that
 * does not judge the JSON; when its characters pass the quick check
 * (common_json_chars_are_clean), the strict lexer reads the body with the
 * content left out, so the content is lexed once, a block at a time, not
 * byte by byte.  Else the strict lexer reads the whole body, as every
 * other route does. */
#include <config.h>

#include "tools/aio-api/aio_write_body.h"

#include "common/base64.h"
#include "common/json_unescape.h"
#include "tools/provisioner-common/prov_json_strict.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static size_t skip_space(const char *t, size_t len, size_t i)
{
    while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
        i++;
    return i;
}

/* Past the closing quote of the string whose opening quote is t[i]. */
static size_t string_end(const char *t, size_t len, size_t i)
{
    size_t from = i + 1;
    for (;;) {
        const char *q = memchr(t + from, '"', len - from);
        if (q == NULL)
            return len;
        size_t at = (size_t)(q - t), slashes = 0;
        while (at - slashes > i + 1 && t[at - 1 - slashes] == '\\')
            slashes++;
        if (slashes % 2 == 0)
            return at + 1;
        from = at + 1;
    }
}

/* Past the value that starts at t[i]. */
static size_t value_end(const char *t, size_t len, size_t i)
{
    if (i < len && t[i] == '"')
        return string_end(t, len, i);
    if (i < len && (t[i] == '{' || t[i] == '[')) {
        size_t depth = 0;
        for (; i < len; i++) {
            if (t[i] == '"')
                i = string_end(t, len, i) - 1;
            else if (t[i] == '{' || t[i] == '[')
                depth++;
            else if ((t[i] == '}' || t[i] == ']') && --depth == 0)
                return i + 1;
        }
        return len;
    }
    while (i < len && strchr(",}] \t\r\n", t[i]) == NULL)
        i++;
    return i;
}

/* The offsets of the top-level "content" member's opening and closing
 * quotes; 0 when the body is no object with a string there (or names a
 * member with an escape, which this scan does not decode). */
static int find_content(const char *t, size_t len, size_t *open, size_t *close)
{
    size_t i = skip_space(t, len, 0);
    if (i >= len || t[i] != '{')
        return 0;
    int found = 0;
    for (i = skip_space(t, len, i + 1); i < len && t[i] == '"';) {
        size_t key_end = string_end(t, len, i);
        if (memchr(t + i, '\\', key_end - i) != NULL)
            return 0;
        int content = key_end - i == 9 && memcmp(t + i, "\"content\"", 9) == 0;
        size_t v = skip_space(t, len, skip_space(t, len, key_end) + 1);
        size_t end = value_end(t, len, v);
        if (content) {
            if (v >= len || t[v] != '"')
                return 0;
            *open = v;
            *close = end - 1;
            found = 1;
        }
        i = skip_space(t, len, end);
        if (i < len && t[i] == ',')
            i = skip_space(t, len, i + 1);
    }
    return found;
}

/* json-c's object of the body with the content's characters left out. */
static json_object *parse_members(const char *t, size_t len, size_t open, size_t close,
                                  int *out_of_memory)
{
    json_tokener *tok = json_tokener_new();
    *out_of_memory = tok == NULL;
    if (tok == NULL)
        return NULL;
    json_object *obj = json_tokener_parse_ex(tok, t, (int)open);
    if (obj == NULL && json_tokener_get_error(tok) == json_tokener_continue)
        obj = json_tokener_parse_ex(tok, "\"\"", 2);
    if (obj == NULL && json_tokener_get_error(tok) == json_tokener_continue)
        obj = json_tokener_parse_ex(tok, t + close + 1, (int)(len - close - 1));
    json_tokener_free(tok);
    return obj;
}

/* The strict check of the body with its content's characters left out
 * (they passed their own): the same verdict as the whole body's, since a
 * string of characters that pass is valid wherever "" is. */
static prov_strict_result check_without_content(const char *body, size_t len, size_t open,
                                                size_t close)
{
    size_t kept = open + 1 + len - close, offset = 0;
    char why[160], *text = malloc(kept + 1);
    if (text == NULL)
        return PROV_STRICT_OUT_OF_MEMORY;
    memcpy(text, body, open + 1);
    memcpy(text + open + 1, body + close, len - close + 1);
    prov_strict_result strict = prov_json_strict_check(text, kept, &offset, why, sizeof why);
    free(text);
    return strict;
}

aio_write_body_result aio_write_body_read(char *body, size_t len, const aio_field *fields,
                                          size_t count, aio_write_body *out)
{
    size_t offset = 0, open = 0, close = 0;
    char why[160];
    int found = len <= (size_t)INT_MAX && find_content(body, len, &open, &close) &&
                close > open && body[close] == '"';
    prov_strict_result strict =
        found && common_json_chars_are_clean(body + open + 1, close - open - 1)
            ? check_without_content(body, len, open, close)
            : prov_json_strict_check(body, len, &offset, why, sizeof why);
    if (strict == PROV_STRICT_OUT_OF_MEMORY)
        return AIO_WRITE_BODY_OUT_OF_MEMORY;
    if (strict != PROV_STRICT_OK || !found)
        return AIO_WRITE_BODY_ELSEWISE;
    int out_of_memory = 0;
    json_object *obj = parse_members(body, len, open, close, &out_of_memory);
    if (obj == NULL)
        return out_of_memory ? AIO_WRITE_BODY_OUT_OF_MEMORY : AIO_WRITE_BODY_ELSEWISE;
    aio_problems problems = {NULL, 0};
    aio_body_check_fields(obj, fields, count, &problems);
    int passed = !aio_problems_found(&problems);
    json_object_put(problems.errors);
    if (!passed || !json_object_is_type(obj, json_type_object)) {
        json_object_put(obj);
        return problems.out_of_memory ? AIO_WRITE_BODY_OUT_OF_MEMORY : AIO_WRITE_BODY_ELSEWISE;
    }
    *out = (aio_write_body){obj, body + open + 1, close - open - 1};
    return AIO_WRITE_BODY_READ;
}

int aio_write_body_decode(aio_write_body *wb, int base64, int leading, int trailing,
                          const char **bytes, size_t *len)
{
    size_t n = common_json_unescape(wb->content, wb->content_len, wb->content);
    if (n == (size_t)-1)
        return -1;
    if (base64 && common_base64_decode(wb->content, n, COMMON_BASE64_SKIP_SPACE,
                                       (unsigned char *)wb->content, &n) != 0)
        return -1;
    /* The quotes' bytes hold the newlines: the opening one just before the
     * content, the closing one at or past its decoded end. */
    char *start = wb->content;
    if (leading) {
        *--start = '\n';
        n++;
    }
    if (trailing)
        start[n++] = '\n';
    *bytes = start;
    *len = n;
    return 0;
}
