/* UTF-8 checks and repair from one table (see utf8.h). */
#include <config.h>

#include "common/utf8.h"

#include "common/dynbuf.h"

#include <stdint.h>
#include <string.h>

/* The tree's one UTF-8 table.  Length of the sequence that `lead` starts,
 * and the bounds of its second byte (they exclude overlong forms,
 * surrogates and code points past U+10FFFF, as RFC 3629's table does); 0
 * for a byte that cannot lead. */
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

size_t common_utf8_char(const char *text, size_t len, size_t *bad)
{
    const unsigned char *s = (const unsigned char *)text;
    if (s[0] < 0x80)
        return 1;
    unsigned char lo, hi;
    size_t n = (size_t)sequence(s[0], &lo, &hi), i = 1;
    for (; i < n && i < len && s[i] >= lo && s[i] <= hi; i++) {
        lo = 0x80;
        hi = 0xBF;
    }
    if (n > 0 && i == n)
        return n;
    *bad = i;
    return 0;
}

/* common_utf8_is_valid, or common_text_is_clean when `nul` is 0. */
static int well_formed(const char *text, size_t len, int nul)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t i = 0, bad;
    while (i < len) {
        /* Most text is ASCII: its bytes (1 .. 0x7F) pass in a tight loop. */
        if ((unsigned char)(p[i] - 1) < 0x7F) {
            i++;
            continue;
        }
        if (p[i] == 0 && !nul)
            return 0;
        size_t n = common_utf8_char(text + i, len - i, &bad);
        if (n == 0)
            return 0;
        i += n;
    }
    return 1;
}

int common_utf8_is_valid(const char *text, size_t len)
{
    return well_formed(text, len, 1);
}

int common_text_is_clean(const char *text, size_t len)
{
    return well_formed(text, len, 0);
}

size_t common_utf8_encode(unsigned long cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t common_utf8_cut(const char *text, size_t len, size_t max)
{
    if (len <= max)
        return len;
    /* text[max] is the first byte left out: when it continues a sequence,
     * leave out that sequence's first bytes too. */
    size_t i = max;
    while (i > 0 && ((unsigned char)text[i] & 0xC0) == 0x80)
        i--;
    return i;
}

char *common_utf8_repair(const char *bytes, size_t len, size_t *out_len, size_t *chars)
{
    static const char replacement[] = "\xEF\xBF\xBD";
    common_dynbuf b;
    common_dynbuf_init(&b, 0);
    common_dynbuf_add(&b, "", 0);
    size_t count = 0;
    for (size_t at = 0; at < len;) {
        /* Well-formed characters are copied in runs, not one by one. */
        size_t run = at, bad = 0, n;
        while (at < len && (n = common_utf8_char(bytes + at, len - at, &bad)) > 0) {
            at += n;
            count++;
        }
        common_dynbuf_add(&b, bytes + run, at - run);
        if (at < len) {
            common_dynbuf_add(&b, replacement, sizeof replacement - 1);
            at += bad;
            count++;
        }
    }
    if (b.failed != COMMON_DYNBUF_OK) {
        common_dynbuf_free(&b);
        return NULL;
    }
    if (chars != NULL)
        *chars = count;
    return common_dynbuf_take(&b, out_len);
}

void common_utf8_scan_bytes(common_utf8_scan *u, const char *bytes, size_t len)
{
    const unsigned char *p = (const unsigned char *)bytes;
    for (size_t i = 0; i < len && !u->bad; i++) {
        /* Most text is ASCII: skip its bytes (1 .. 0x7F) eight at a time
         * (a word with none outside that range has no high bit set in it
         * nor in it less one in each byte), then one at a time. */
        while (u->need == 0 && len - i >= 8) {
            uint64_t w;
            memcpy(&w, p + i, sizeof w);
            if (((w | (w - 0x0101010101010101u)) & 0x8080808080808080u) != 0)
                break;
            i += 8;
        }
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
