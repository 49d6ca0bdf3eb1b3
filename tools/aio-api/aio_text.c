/* Middle cuts for the AIO routes (aio_text.h). */
#include <config.h>

#include "tools/aio-api/aio_text.h"

#include "common/dynbuf.h"
#include "common/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

char *aio_text_of_output(const char *bytes, size_t len, size_t max, size_t *out_len)
{
    size_t text_len = 0, chars = 0;
    char *text = common_utf8_repair(bytes != NULL ? bytes : "", len, &text_len, &chars);
    char *cut = text != NULL ? aio_text_middle_cut(text, text_len, chars, max, out_len) : NULL;
    free(text);
    return cut;
}

void aio_text_iso_time(int64_t ms, char out[32])
{
    time_t seconds = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&seconds, &tm);
    size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, 32 - n, ".%03dZ", (int)(ms % 1000));
}
