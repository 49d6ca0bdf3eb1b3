/*
 * Which bytes of a JSON string's characters need a look of their own
 * (a control character, a quote, a backslash or a byte of a multibyte
 * character), judged a block at a time: the scans of the escape
 * (json_escape.c) and of the quick check of a large string
 * (json_unescape.c) step over the rest.
 */
#ifndef SBX_COMMON_JSON_PLAIN_H
#define SBX_COMMON_JSON_PLAIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Whether byte `c` needs a look. */
static inline int common_json_needs_look(unsigned char c)
{
    return c < 0x20 || c == '"' || c == '\\' || c >= 0x80;
}

/* Whether none of the eight bytes of `w` needs a look.  Each term sets a
 * byte's high bit where (or past where) that byte is one of them, and
 * never when none is: the test is exact for the word. */
static inline int common_json_plain_word(uint64_t w)
{
    const uint64_t ones = UINT64_C(0x0101010101010101), highs = UINT64_C(0x8080808080808080);
    uint64_t quote = w ^ (ones * '"'), slash = w ^ (ones * '\\');
    uint64_t control = (w - ones * 0x20) & ~w;
    return ((control | ((quote - ones) & ~quote) | ((slash - ones) & ~slash) | w) & highs) == 0;
}

#ifdef __SSE2__
/* The bytes of the sixteen at `p` (loaded into *v) that need a look, a
 * bit each.  A signed compare below 0x20 takes control characters and
 * every byte of a multibyte character (0x80 and above) at once. */
static inline unsigned common_json_block_looks(const unsigned char *p, __m128i *v)
{
    *v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i look = _mm_or_si128(_mm_cmplt_epi8(*v, _mm_set1_epi8(0x20)),
                                _mm_or_si128(_mm_cmpeq_epi8(*v, _mm_set1_epi8('"')),
                                             _mm_cmpeq_epi8(*v, _mm_set1_epi8('\\'))));
    return (unsigned)_mm_movemask_epi8(look);
}
#endif

#endif
