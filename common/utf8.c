/* Well-formed UTF-8 without NUL (see utf8.h). */
#include <config.h>

#include "common/utf8.h"

/* Length of the sequence that `lead` starts, and the bounds of its second
 * byte (they exclude overlong forms, surrogates and code points past
 * U+10FFFF, as RFC 3629's table does); 0 for a byte that cannot lead. */
static int sequence(unsigned char lead, unsigned char *lo, unsigned char *hi)
{
    *lo = 0x80;
    *hi = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF)
        return 2;
    if (lead >= 0xE0 && lead <= 0xEF) {
        if (lead == 0xE0)
            *lo = 0xA0;
        else if (lead == 0xED)
            *hi = 0x9F;
        return 3;
    }
    if (lead >= 0xF0 && lead <= 0xF4) {
        if (lead == 0xF0)
            *lo = 0x90;
        else if (lead == 0xF4)
            *hi = 0x8F;
        return 4;
    }
    return 0;
}

int common_text_is_clean(const char *text, size_t len)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t i = 0;
    while (i < len) {
        unsigned char c = p[i];
        if (c == 0)
            return 0;
        if (c < 0x80) {
            i++;
            continue;
        }
        unsigned char lo, hi;
        int n = sequence(c, &lo, &hi);
        if (n == 0 || len - i < (size_t)n || p[i + 1] < lo || p[i + 1] > hi)
            return 0;
        for (int k = 2; k < n; k++)
            if (p[i + k] < 0x80 || p[i + k] > 0xBF)
                return 0;
        i += (size_t)n;
    }
    return 1;
}

void common_utf8_scan_bytes(common_utf8_scan *u, const char *bytes, size_t len)
{
    const unsigned char *p = (const unsigned char *)bytes;
    for (size_t i = 0; i < len && !u->bad; i++) {
        /* Most text is ASCII: skip its bytes (1 .. 0x7F) in a tight loop. */
        while (u->need == 0 && i < len && (unsigned char)(p[i] - 1) < 0x7F)
            i++;
        if (i == len)
            break;
        unsigned char c = p[i];
        if (u->need > 0) {
            u->bad = c < u->lo || c > u->hi;
            u->lo = 0x80;
            u->hi = 0xBF;
            u->need--;
        } else if (c >= 0x80) {
            int n = sequence(c, &u->lo, &u->hi);
            u->bad = n == 0;
            u->need = (unsigned char)(n > 0 ? n - 1 : 0);
        } else {
            u->bad = c == 0;
        }
    }
}

int common_utf8_scan_clean(const common_utf8_scan *u)
{
    return !u->bad && u->need == 0;
}
