/* Values quoted in messages (see printable.h). */
#include <config.h>

#include "common/printable.h"

#include <stdio.h>
#include <string.h>

const char *common_printable(const char *value, char *buf, size_t cap)
{
    const size_t max_chars = 64;
    size_t n = 0;
    if (cap == 0)
        return buf;
    if (value == NULL)
        value = "";
    for (; value[n] != '\0' && n < max_chars && n + 4 < cap; n++) {
        unsigned char ch = (unsigned char)value[n];
        buf[n] = (ch >= 0x20 && ch < 0x7F) ? (char)ch : '?';
    }
    if (value[n] != '\0' && n + 4 <= cap) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

int common_url_credentials(const char *url, size_t *start, size_t *len)
{
    const char *authority = strstr(url, "://");
    authority = authority != NULL ? authority + 3 : url;
    size_t authority_len = strcspn(authority, "/?#");
    const char *at = NULL;
    for (const char *p = authority; p < authority + authority_len; p++)
        if (*p == '@')
            at = p; /* the last one: a password may hold '@' unescaped */
    if (at == NULL)
        return 0;
    *start = (size_t)(authority - url);
    *len = (size_t)(at + 1 - authority);
    return 1;
}

const char *common_printable_url(const char *url, char *buf, size_t cap)
{
    if (url == NULL)
        return common_printable(url, buf, cap);
    /* A refused URL may spell its password with '/', '?', '#' or '@'
     * unescaped, which ends the authority early: all from the authority's
     * start to the last '@' is hidden, after a scheme, or without one when a
     * ':' (user:password) comes before that '@'. */
    const char *scheme = strstr(url, "://");
    const char *start = scheme != NULL ? scheme + 3 : url;
    const char *at = strrchr(start, '@');
    if (at == NULL || (scheme == NULL && memchr(start, ':', (size_t)(at - start)) == NULL))
        return common_printable(url, buf, cap);
    char shown[512];
    snprintf(shown, sizeof shown, "%.*s%s", (int)(start - url), url, at + 1);
    return common_printable(shown, buf, cap);
}
