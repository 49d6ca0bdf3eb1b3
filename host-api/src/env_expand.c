/* Configuration strings: their text rules and their expansion (see
 * env_expand.h). */
#include <config.h>

#include "host-api/src/env_expand.h"
#include <sbx/host.h>

#include "common/utf8.h"

#include <stdlib.h>
#include <string.h>

/* A growable output buffer. */
typedef struct outbuf {
    char *data;
    size_t len, cap;
} outbuf;

static int outbuf_put(outbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *grown = realloc(b->data, cap);
        if (grown == NULL)
            return -1;
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

static int is_name_char(char c, int first)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'
        || (!first && c >= '0' && c <= '9');
}

/* The value of the variable `name` (`len` bytes), NULL when it is unset.
 * SBX_ERR_CONFIG when the name is too long to look up. */
static sbx_status lookup(const char *name, size_t len, const char *where, char *var,
                         size_t var_cap, const char **value, sbx_error *err)
{
    if (len >= var_cap)
        return sbx_error_set(err, SBX_ERR_CONFIG,
                             "%s: variable name '%.40s...' is too long (%zu bytes, at most %zu)",
                             where, name, len, var_cap - 1);
    memcpy(var, name, len);
    var[len] = '\0';
    *value = getenv(var);
    return SBX_OK;
}

static sbx_status unset_error(const char *var, const char *where, sbx_error *err)
{
    return sbx_error_set(err, SBX_ERR_CONFIG, "%s: environment variable '%s' is not set",
                         where, var);
}

/* Length of the name after the '$' when `text` is exactly "$NAME", else 0. */
static size_t bare_reference(const char *text)
{
    if (text[0] != '$' || !is_name_char(text[1], 1))
        return 0;
    size_t len = 1;
    while (is_name_char(text[1 + len], 0))
        len++;
    return text[1 + len] == '\0' ? len : 0;
}

/* A value that is exactly $NAME, as DeerFlow writes it; a '$' inside other
 * text ("cost $5") stays itself, so only this exact shape expands. */
static sbx_status expand_bare(const char *text, size_t name_len, const char *where,
                              char **out, sbx_error *err)
{
    char var[256];
    const char *value = NULL;
    sbx_status st = lookup(text + 1, name_len, where, var, sizeof var, &value, err);
    if (st != SBX_OK)
        return st;
    if (value == NULL)
        return unset_error(var, where, err);
    *out = strdup(value);
    return *out != NULL ? SBX_OK : sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
}

sbx_status sbx_env_expand(const char *text, const char *where, char **out, sbx_error *err)
{
    outbuf b = {0};
    const char *p = text;
    *out = NULL;
    size_t bare_len = bare_reference(text);
    if (bare_len > 0)
        return expand_bare(text, bare_len, where, out, err);
    if (outbuf_put(&b, "", 0) != 0)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    while (*p != '\0') {
        const char *ref = strstr(p, "${");
        if (ref == NULL) {
            if (outbuf_put(&b, p, strlen(p)) != 0)
                goto nomem;
            break;
        }
        if (outbuf_put(&b, p, (size_t)(ref - p)) != 0)
            goto nomem;
        const char *name = ref + 2, *q = name;
        while (is_name_char(*q, q == name))
            q++;
        size_t name_len = (size_t)(q - name);
        const char *fallback = NULL;
        size_t fallback_len = 0;
        if (name_len > 0 && q[0] == ':' && q[1] == '-') {
            fallback = q + 2;
            const char *close = strchr(fallback, '}');
            if (close == NULL)
                q = fallback + strlen(fallback);
            else {
                fallback_len = (size_t)(close - fallback);
                q = close;
            }
        }
        if (name_len == 0 || *q != '}') {
            free(b.data);
            return sbx_error_set(err, SBX_ERR_CONFIG,
                                 "%s: malformed variable reference (use ${NAME} or ${NAME:-default})",
                                 where);
        }
        char var[256];
        const char *value = NULL;
        sbx_status st = lookup(name, name_len, where, var, sizeof var, &value, err);
        if (st == SBX_OK && value == NULL && fallback == NULL)
            st = unset_error(var, where, err);
        if (st != SBX_OK) {
            free(b.data);
            return st;
        }
        /* As in the shell, ${NAME:-default} also replaces an empty value. */
        int use_fallback = fallback != NULL && (value == NULL || value[0] == '\0');
        if (use_fallback ? outbuf_put(&b, fallback, fallback_len)
                         : outbuf_put(&b, value, strlen(value)))
            goto nomem;
        p = q + 1;
    }
    *out = b.data;
    return SBX_OK;
nomem:
    free(b.data);
    return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
}

sbx_status sbx_config_check_text(const char *text, size_t len, const char *what, sbx_error *err)
{
    if (common_text_is_clean(text, len))
        return SBX_OK;
    if (memchr(text, '\0', len) != NULL)
        return sbx_error_set(err, SBX_ERR_CONFIG, "%s holds a NUL character (\\u0000)", what);
    return sbx_error_set(err, SBX_ERR_CONFIG, "%s is not valid UTF-8", what);
}

sbx_status sbx_config_expand_string(json_object *v, const char *where, char **out,
                                    sbx_error *err)
{
    const char *text = json_object_get_string(v);
    sbx_status st = sbx_config_check_text(text, (size_t)json_object_get_string_len(v), where, err);
    if (st == SBX_OK)
        st = sbx_env_expand(text, where, out, err);
    if (st == SBX_OK && (st = sbx_config_check_text(*out, strlen(*out), where, err)) != SBX_OK) {
        free(*out);
        *out = NULL;
    }
    return st;
}
