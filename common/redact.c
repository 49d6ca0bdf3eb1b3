/* Hiding whole occurrences of a secret (see redact.h). */
#include <config.h>

#include "common/redact.h"

#include <ctype.h>
#include <string.h>

/* Whether byte `c` continues a token such as an id, a user or a host
 * label: letters, digits, '-', '_' and every byte of a multibyte UTF-8
 * character.  Spaces, quotes and punctuation such as '=', ':', '/', '.'
 * or ',' separate words. */
static int continues_token(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '-' || c == '_' || c >= 0x80;
}

/* Whether the occurrence of a `len`-byte secret at `at` in `text` is one
 * to hide: a short secret only when no token character touches it. */
static int hides(const char *text, const char *at, size_t len)
{
    if (len >= COMMON_REDACT_ANYWHERE)
        return 1;
    if (at > text && continues_token((unsigned char)at[-1]))
        return 0;
    return !continues_token((unsigned char)at[len]);
}

size_t common_redact_secret(const char *text, const char *secret, char *out, size_t cap)
{
    size_t used = 0;
    if (cap == 0)
        return 0;
    size_t secret_len = secret != NULL ? strlen(secret) : 0;
    const size_t mask_len = sizeof COMMON_REDACT_MASK - 1;
    const char *at = text;
    while (*at != '\0' && used + 1 < cap) {
        if (secret_len > 0 && strncmp(at, secret, secret_len) == 0 &&
            hides(text, at, secret_len)) {
            if (used + mask_len >= cap)
                break;
            memcpy(out + used, COMMON_REDACT_MASK, mask_len);
            used += mask_len;
            at += secret_len;
        } else {
            out[used++] = *at++;
        }
    }
    out[used] = '\0';
    return used;
}

size_t common_redact_tokens(const char *text, char *out, size_t cap)
{
    size_t used = 0;
    if (cap == 0)
        return 0;
    const size_t mask_len = sizeof COMMON_REDACT_TOKEN_MASK - 1;
    const char *at = text;
    while (*at != '\0' && used + 1 < cap) {
        size_t run = 0;
        while (isxdigit((unsigned char)at[run]))
            run++;
        if (run >= COMMON_REDACT_TOKEN_DIGITS) {
            if (used + mask_len >= cap)
                break;
            memcpy(out + used, COMMON_REDACT_TOKEN_MASK, mask_len);
            used += mask_len;
            at += run;
            continue;
        }
        /* A short run is copied whole: its tail must not start a run. */
        if (run == 0)
            run = 1;
        while (run-- > 0 && used + 1 < cap)
            out[used++] = *at++;
    }
    out[used] = '\0';
    return used;
}
