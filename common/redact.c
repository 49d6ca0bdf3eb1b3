/* Hiding runs of a secret (see redact.h). */
#include <config.h>

#include "common/redact.h"

#include <string.h>

/* The length of the longest prefix of `text` that occurs somewhere in
 * `secret`.  Quadratic in the secret's length, which is fine: this runs on
 * error paths over short messages. */
static size_t longest_run(const char *text, const char *secret, size_t secret_len)
{
    size_t best = 0;
    for (size_t start = 0; start + best < secret_len; start++) {
        size_t n = 0;
        while (start + n < secret_len && text[n] != '\0' && text[n] == secret[start + n])
            n++;
        if (n > best)
            best = n;
    }
    return best;
}

size_t common_redact_secret(const char *text, const char *secret, char *out, size_t cap)
{
    size_t used = 0;
    if (cap == 0)
        return 0;
    size_t secret_len = secret != NULL ? strlen(secret) : 0;
    size_t min_run = secret_len < COMMON_REDACT_MIN_RUN ? secret_len : COMMON_REDACT_MIN_RUN;
    while (*text != '\0' && used + 1 < cap) {
        size_t run = secret_len > 0 ? longest_run(text, secret, secret_len) : 0;
        if (run > 0 && run >= min_run) {
            size_t mask_len = sizeof COMMON_REDACT_MASK - 1;
            if (used + mask_len >= cap)
                break;
            memcpy(out + used, COMMON_REDACT_MASK, mask_len);
            used += mask_len;
            text += run;
        } else {
            out[used++] = *text++;
        }
    }
    out[used] = '\0';
    return used;
}
