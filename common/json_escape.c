/* Clean text as a JSON string's characters (see json_escape.h). */
#include <config.h>

#include "common/json_escape.h"

#include "common/utf8.h"

#include <stdint.h>
#include <string.h>

#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)

/* Whether none of the eight bytes of `w` needs a look of its own: no
 * control character, quote, backslash or byte of a multibyte character.
 * Each term sets a byte's high bit where (or past where) that byte is one
 * of them, and never when none is: the test is exact for the word. */
static int plain_word(const unsigned char *p)
{
    uint64_t w, quote, slash;
    memcpy(&w, p, sizeof w);
    quote = w ^ (ONES * '"');
    slash = w ^ (ONES * '\\');
    uint64_t control = (w - ONES * 0x20) & ~w;
    return ((control | ((quote - ONES) & ~quote) | ((slash - ONES) & ~slash) | w) & HIGHS) == 0;
}

/* The escape of ASCII byte `c` into out (at most 6 characters); its count,
 * 0 when `c` goes as it is. */
static size_t escape_of(unsigned char c, char out[6])
{
    static const char hex[] = "0123456789abcdef";
    static const char shorts[] = "\"\"\\\\\bb\ff\nn\rr\tt";
    if (c >= 0x20 && c != '"' && c != '\\')
        return 0;
    out[0] = '\\';
    const char *s = memchr(shorts, c, sizeof shorts - 1);
    /* a short form's byte stands at an even index, its letter after it */
    if (s != NULL && (s - shorts) % 2 == 0) {
        out[1] = s[1];
        return 2;
    }
    memcpy(out + 1, "u00", 3);
    out[4] = hex[c >> 4];
    out[5] = hex[c & 15];
    return 6;
}

/* Past the bytes from `i` on that go as they are, stepped over eight at a
 * time: the next byte that needs a look stands at or after the index
 * returned, within eight bytes (or it is `len`). */
static size_t plain_run_end(const unsigned char *p, size_t len, size_t i)
{
    while (len - i >= 16 && plain_word(p + i) && plain_word(p + i + 8))
        i += 16;
    while (len - i >= 8 && plain_word(p + i))
        i += 8;
    return i;
}

size_t common_json_escaped_len(const char *text, size_t len)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t i = 0, n = 0, bad;
    char scratch[6];
    while (i < len) {
        size_t end = plain_run_end(p, len, i);
        n += end - i;
        i = end;
        if (i == len)
            break;
        if (p[i] >= 0x80) {
            size_t k = common_utf8_char(text + i, len - i, &bad);
            if (k == 0)
                return (size_t)-1;
            i += k;
            n += k;
        } else if (p[i] == 0) {
            return (size_t)-1;
        } else {
            size_t k = escape_of(p[i++], scratch);
            n += k > 0 ? k : 1;
        }
    }
    return n;
}

size_t common_json_escape(const char *text, size_t len, char *out)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t i = 0, n = 0;
    while (i < len) {
        size_t end = plain_run_end(p, len, i);
        memcpy(out + n, p + i, end - i);
        n += end - i;
        i = end;
        if (i == len)
            break;
        size_t k = p[i] < 0x80 ? escape_of(p[i], out + n) : 0;
        if (k == 0)
            out[n++] = (char)p[i];
        n += k;
        i++;
    }
    return n;
}
