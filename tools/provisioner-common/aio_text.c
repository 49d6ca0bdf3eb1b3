/* UTF-8 and middle cuts for the AIO routes (aio_text.h). */
#include <config.h>

#include "tools/provisioner-common/aio_text.h"

#include "common/dynbuf.h"

#include <stdlib.h>
#include <string.h>

/* The length of the well-formed UTF-8 sequence at `s` (at most `len`
 * bytes), or 0 with *bad set to the bytes of its maximal ill-formed
 * prefix (at least 1): what one U+FFFD replaces. */
static size_t sequence_length(const unsigned char *s, size_t len, size_t *bad)
{
    unsigned char c = s[0];
    size_t need;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        need = 1;
    } else if (c >= 0xe0 && c <= 0xef) {
        need = 2;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f;   /* no surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 3;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;   /* nothing above U+10FFFF */
    } else {
        *bad = 1;
        return 0;
    }
    size_t i = 1;
    for (; i <= need && i < len; i++) {
        if (s[i] < lo || s[i] > hi)
            break;
        lo = 0x80;
        hi = 0xbf;
    }
    if (i == need + 1)
        return i;
    *bad = i;
    return 0;
}

int aio_utf8_valid(const char *bytes, size_t len)
{
    const unsigned char *s = (const unsigned char *)bytes;
    for (size_t at = 0, bad = 0, n; at < len; at += n) {
        n = sequence_length(s + at, len - at, &bad);
        if (n == 0)
            return 0;
    }
    return 1;
}

char *aio_text_from_bytes(const char *bytes, size_t len, size_t *out_len, size_t *chars)
{
    static const char replacement[] = "\xef\xbf\xbd";
    const unsigned char *s = (const unsigned char *)bytes;
    common_dynbuf b;
    common_dynbuf_init(&b, 0);
    common_dynbuf_add(&b, "", 0);
    *chars = 0;
    for (size_t at = 0; at < len; (*chars)++) {
        size_t bad = 0, n = sequence_length(s + at, len - at, &bad);
        if (n > 0)
            common_dynbuf_add(&b, bytes + at, n);
        else
            common_dynbuf_add(&b, replacement, 3);
        at += n > 0 ? n : bad;
    }
    if (b.failed != COMMON_DYNBUF_OK) {
        common_dynbuf_free(&b);
        return NULL;
    }
    return common_dynbuf_take(&b, out_len);
}

/* The byte offset of character `index` of valid UTF-8 `text`. */
static size_t char_offset(const char *text, size_t len, size_t index)
{
    size_t at = 0;
    for (size_t i = 0; i < index && at < len; i++) {
        at++;
        while (at < len && ((unsigned char)text[at] & 0xc0) == 0x80)
            at++;
    }
    return at;
}

char *aio_text_middle_cut(const char *text, size_t len, size_t chars, size_t max,
                          size_t *out_len)
{
    common_dynbuf b;
    common_dynbuf_init(&b, 0);
    common_dynbuf_add(&b, "", 0);
    if (max == 0 || chars <= max) {
        common_dynbuf_add(&b, text, len);
    } else {
        size_t head = char_offset(text, len, (max + 1) / 2);
        size_t tail = char_offset(text, len, chars - max / 2);
        common_dynbuf_add(&b, text, head);
        common_dynbuf_addf(&b, "\n... [%zu characters truncated] ...\n", chars - max);
        common_dynbuf_add(&b, text + tail, len - tail);
    }
    if (b.failed != COMMON_DYNBUF_OK) {
        common_dynbuf_free(&b);
        return NULL;
    }
    return common_dynbuf_take(&b, out_len);
}
