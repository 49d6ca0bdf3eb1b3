/* The skipped entries of a list answer, noted and replayed (see skip_log.h). */
#include <config.h>

#include "common/skip_log.h"

#include <string.h>

/* Append `value` as a base-128 varint (7 bits a byte, least significant
 * first, the top bit set on every byte but the last): an index gap in a
 * byte or two.  0, or -1 when a common_dynbuf_add code (the buffer is then
 * unchanged). */
static int varint_append(common_dynbuf *b, size_t value)
{
    char bytes[sizeof(size_t) * 8 / 7 + 1];
    size_t n = 0;
    do {
        bytes[n++] = (char)((value & 0x7F) | (value > 0x7F ? 0x80 : 0));
        value >>= 7;
    } while (value > 0);
    return common_dynbuf_add(b, bytes, n);
}

/* The varint that varint_append wrote at *p; *p moves past it. */
static size_t varint_read(const unsigned char **p)
{
    size_t value = 0;
    unsigned shift = 0;
    unsigned char byte;
    do {
        byte = *(*p)++;
        value |= (size_t)(byte & 0x7F) << shift;
        shift += 7;
    } while (byte & 0x80);
    return value;
}

void common_skip_log_init(common_skip_log *log, int keeps_why)
{
    common_dynbuf_init(&log->bytes, 0);
    log->next_index = 0;
    log->keeps_why = keeps_why;
}

int common_skip_log_add(common_skip_log *log, size_t index, unsigned char kind,
                        const char *why)
{
    char byte = (char)kind;
    int bad = varint_append(&log->bytes, index - log->next_index) != 0;
    bad = bad || common_dynbuf_add(&log->bytes, &byte, 1) != 0;
    if (log->keeps_why)
        bad = bad || common_dynbuf_add(&log->bytes, why, strlen(why) + 1) != 0;
    log->next_index = index + 1;
    return bad ? -1 : 0;
}

void common_skip_log_replay(const common_skip_log *log, common_skip_fn fn, void *ctx)
{
    if (log->bytes.len == 0)
        return;
    size_t index = 0;
    const unsigned char *p = (const unsigned char *)log->bytes.data;
    const unsigned char *end = p + log->bytes.len;
    while (p < end) {
        index += varint_read(&p);
        unsigned char kind = *p++;
        const char *why = NULL;
        if (log->keeps_why) {
            why = (const char *)p;
            p += strlen(why) + 1;
        }
        fn(ctx, index++, kind, why);
    }
}

void common_skip_log_reset(common_skip_log *log)
{
    common_dynbuf_reset(&log->bytes);
    log->next_index = 0;
}

void common_skip_log_free(common_skip_log *log)
{
    common_dynbuf_free(&log->bytes);
    log->next_index = 0;
}
