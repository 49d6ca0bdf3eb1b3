/* Clean text as a JSON string's characters (see json_escape.h). */
#include <config.h>

#include "common/json_escape.h"

#include "common/json_plain.h"
#include "common/utf8.h"

#include <stdint.h>
#include <string.h>

/* Copies the bytes from text[*i] on that go as they are into out[*n],
 * advancing both, while whole blocks of them fit in the `cap` of out: the
 * next byte that needs a look (or the end of text or room) stands at or
 * after *i, within one block. */
typedef void plain_copy(const unsigned char *text, size_t len, size_t *i, char *out,
                        size_t cap, size_t *n);

static void copy_plain_words(const unsigned char *text, size_t len, size_t *i, char *out,
                             size_t cap, size_t *n)
{
    size_t at = *i, to = *n;
    uint64_t w;
    while (len - at >= 8 && cap - to >= 8) {
        memcpy(&w, text + at, sizeof w);
        if (!common_json_plain_word(w))
            break;
        memcpy(out + to, &w, sizeof w);
        at += 8;
        to += 8;
    }
    *i = at;
    *n = to;
}

#ifdef __SSE2__
/* Two blocks of sixteen bytes a step: they are stored before they are
 * judged (out has room for them), and the first byte that needs a look
 * ends the copy exactly there.  The output never falls behind the text
 * (every byte takes a character or more): one index serves both. */
static void copy_plain_sse2(const unsigned char *text, size_t len, size_t *i, char *out,
                            size_t cap, size_t *n)
{
    size_t at = *i, room = len - at < cap - *n ? len - at : cap - *n;
    size_t end = at + room / 16 * 16;
    char *to = out + (*n - at);
    __m128i a, b;
    while (at < end) {
        unsigned looks = common_json_block_looks(text + at, &a);
        if (end - at >= 32) {
            looks |= common_json_block_looks(text + at + 16, &b) << 16;
            _mm_storeu_si128((__m128i *)(void *)(to + at + 16), b);
        }
        _mm_storeu_si128((__m128i *)(void *)(to + at), a);
        if (looks != 0) {
            at += (size_t)__builtin_ctz(looks);
            break;
        }
        at += end - at >= 32 ? 32 : 16;
    }
    *n += at - *i;
    *i = at;
}
#endif

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

/* The one pass of both scans: plain blocks by `copy`, every other byte
 * (and a character's bytes) one at a time, each checked against the room
 * left. */
static inline size_t escape_with(plain_copy *copy, const char *text, size_t len, char *out,
                                 size_t cap)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t i = 0, n = 0, bad;
    while (i < len) {
        copy(p, len, &i, out, cap, &n);
        if (i == len)
            break;
        char escape[6];
        const char *from = escape;
        size_t k = 1, step = 1;
        if (p[i] >= 0x80) {
            k = step = common_utf8_char(text + i, len - i, &bad);
            from = text + i;
        } else if (p[i] == 0) {
            k = 0;
        } else if ((k = escape_of(p[i], escape)) == 0) {
            k = 1;
            from = text + i;
        }
        if (k == 0 || cap - n < k)
            return (size_t)-1;
        memcpy(out + n, from, k);
        n += k;
        i += step;
    }
    return n;
}

size_t common_json_escape_words(const char *text, size_t len, char *out, size_t cap)
{
    return escape_with(copy_plain_words, text, len, out, cap);
}

size_t common_json_escape(const char *text, size_t len, char *out, size_t cap)
{
#ifdef __SSE2__
    return escape_with(copy_plain_sse2, text, len, out, cap);
#else
    return escape_with(copy_plain_words, text, len, out, cap);
#endif
}
