/* Configuration strings: their text rules and their expansion (see
 * env_expand.h). */
#include <config.h>

#include "host-api/src/env_expand.h"
#include <sbx/host.h>

#include "common/dynbuf.h"
#include "common/utf8.h"

#include <stdlib.h>
#include <string.h>

static int is_name_char(char c, int first)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'
        || (!first && c >= '0' && c <= '9');
}

/* The longest variable name looked up. */
#define VAR_NAME_MAX 255

/* The value of the variable `name` (`len` bytes), NULL when it is unset;
 * `var` (VAR_NAME_MAX + 1 bytes) receives the name.  SBX_ERR_CONFIG when
 * the name is too long to look up. */
static sbx_status lookup(const char *name, size_t len, const char *where, char *var,
                         const char **value, sbx_error *err)
{
    if (len > VAR_NAME_MAX)
        return sbx_error_set(err, SBX_ERR_CONFIG,
                             "%s: variable name '%.40s...' is too long (%zu bytes, at most %zu)",
                             where, name, len, (size_t)VAR_NAME_MAX);
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
    char var[VAR_NAME_MAX + 1];
    const char *value = NULL;
    sbx_status st = lookup(text + 1, name_len, where, var, &value, err);
    if (st != SBX_OK)
        return st;
    if (value == NULL)
        return unset_error(var, where, err);
    *out = strdup(value);
    return *out != NULL ? SBX_OK : sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
}

sbx_status host_env_expand(const char *text, const char *where, char **out, sbx_error *err)
{
    const char *p = text;
    *out = NULL;
    size_t bare_len = bare_reference(text);
    if (bare_len > 0)
        return expand_bare(text, bare_len, where, out, err);
    /* No limit but memory: the text is the configuration's own, already
     * bounded, and a variable's value is the host's environment. */
    common_dynbuf b;
    common_dynbuf_init(&b, 0);
    common_dynbuf_add(&b, "", 0);
    while (*p != '\0') {
        const char *ref = strstr(p, "${");
        if (ref == NULL) {
            common_dynbuf_add(&b, p, strlen(p));
            break;
        }
        common_dynbuf_add(&b, p, (size_t)(ref - p));
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
            common_dynbuf_free(&b);
            return sbx_error_set(err, SBX_ERR_CONFIG,
                                 "%s: malformed variable reference (use ${NAME} or ${NAME:-default})",
                                 where);
        }
        char var[VAR_NAME_MAX + 1];
        const char *value = NULL;
        sbx_status st = lookup(name, name_len, where, var, &value, err);
        if (st == SBX_OK && value == NULL && fallback == NULL)
            st = unset_error(var, where, err);
        if (st != SBX_OK) {
            common_dynbuf_free(&b);
            return st;
        }
        /* As in the shell, ${NAME:-default} also replaces an empty value. */
        if (fallback != NULL && (value == NULL || value[0] == '\0'))
            common_dynbuf_add(&b, fallback, fallback_len);
        else
            common_dynbuf_add(&b, value, strlen(value));
        p = q + 1;
    }
    if (b.failed != COMMON_DYNBUF_OK) {
        common_dynbuf_free(&b);
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    *out = common_dynbuf_take(&b, NULL);
    return SBX_OK;
}

sbx_status host_config_check_text(const char *text, size_t len, const char *what, sbx_error *err)
{
    if (common_text_is_clean(text, len))
        return SBX_OK;
    if (memchr(text, '\0', len) != NULL)
        return sbx_error_set(err, SBX_ERR_CONFIG, "%s holds a NUL character (\\u0000)", what);
    return sbx_error_set(err, SBX_ERR_CONFIG, "%s is not valid UTF-8", what);
}

sbx_status host_config_expand_string(json_object *v, const char *where, char **out,
                                    sbx_error *err)
{
    const char *text = json_object_get_string(v);
    sbx_status st = host_config_check_text(text, (size_t)json_object_get_string_len(v), where, err);
    if (st == SBX_OK)
        st = host_env_expand(text, where, out, err);
    if (st == SBX_OK && (st = host_config_check_text(*out, strlen(*out), where, err)) != SBX_OK) {
        free(*out);
        *out = NULL;
    }
    return st;
}
