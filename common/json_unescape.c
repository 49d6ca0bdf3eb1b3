/* In-place decoding of a JSON string's characters (see json_unescape.h). */
#include <config.h>

#include "common/json_unescape.h"

#include "common/hex_digit.h"
#include "common/json_plain.h"
#include "common/utf8.h"

#include <stdint.h>
#include <string.h>

/* The code point of the \u escape at text[*i] (the backslash), advancing
 * *i past it (and past its low half for a surrogate pair); -1 when bad. */
static long code_point(const char *text, size_t len, size_t *i)
{
    long cp = *i + 6 <= len ? common_hex4(text + *i + 2) : -1;
    *i += 6;
    if (cp < 0xD800 || cp > 0xDFFF)
        return cp;
    if (cp > 0xDBFF || *i + 6 > len || text[*i] != '\\' || text[*i + 1] != 'u')
        return -1;
    long low = common_hex4(text + *i + 2);
    if (low < 0xDC00 || low > 0xDFFF)
        return -1;
    *i += 6;
    return 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
}

size_t common_json_unescape(const char *text, size_t len, char *out)
{
    size_t n = 0, i = 0;
    while (i < len) {
        const char *slash = memchr(text + i, '\\', len - i);
        size_t plain = slash != NULL ? (size_t)(slash - text) - i : len - i;
        /* out never passes text: memmove for the stretch they share, none
         * while decoding in place has not shifted a byte yet (a large
         * content without escapes, as base64 is, is not copied onto
         * itself) */
        if (out + n != text + i)
            memmove(out + n, text + i, plain);
        n += plain;
        i += plain;
        if (slash == NULL || i + 1 >= len)
            return slash == NULL ? n : (size_t)-1;
        static const char escapes[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
        const char *e = strchr(escapes, text[i + 1]);
        if (text[i + 1] == 'u') {
            long cp = code_point(text, len, &i);
            if (cp < 0)
                return (size_t)-1;
            char bytes[4];
            size_t k = common_utf8_encode((unsigned long)cp, bytes);
            memcpy(out + n, bytes, k);
            n += k;
        } else if (e != NULL && text[i + 1] != '\0' && (e - escapes) % 2 == 0) {
            out[n++] = e[1];
            i += 2;
        } else {
            return (size_t)-1;
        }
    }
    return n;
}

/* Past the bytes from `i` on that need no look, a block at a time: the
 * next that does stands at the index returned, or within the eight bytes
 * after it. */
static size_t plain_end(const unsigned char *p, size_t len, size_t i)
{
#ifdef __SSE2__
    __m128i block;
    for (; len - i >= 16; i += 16) {
        unsigned looks = common_json_block_looks(p + i, &block);
        if (looks != 0)
            return i + (size_t)__builtin_ctz(looks);
    }
#endif
    uint64_t w;
    for (; len - i >= 8; i += 8) {
        memcpy(&w, p + i, sizeof w);
        if (!common_json_plain_word(w))
            break;
    }
    return i;
}

int common_json_chars_are_clean(const char *text, size_t len)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t i = 0, bad;
    while ((i = plain_end(p, len, i)) < len) {
        if (!common_json_needs_look(p[i])) {
            i++;
        } else if (p[i] >= 0x80) {
            size_t k = common_utf8_char(text + i, len - i, &bad);
            if (k == 0)
                return 0;
            i += k;
        } else if (p[i] != '\\' || i + 1 == len) {
            return 0; /* a control character, a quote or a backslash at the end */
        } else if (p[i + 1] == 'u') {
            long cp = i + 6 <= len ? common_hex4(text + i + 2) : -1;
            if (cp <= 0 || (cp >= 0xD800 && cp <= 0xDFFF))
                return 0;
            i += 6;
        } else if (memchr("\"\\/bfnrt", p[i + 1], 8) != NULL) {
            i += 2;
        } else {
            return 0;
        }
    }
    return 1;
}
