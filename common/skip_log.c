/* The skipped entries of a list answer, noted and replayed (see skip_log.h). */
#include <config.h>

#include "common/skip_log.h"

#include "common/json_stream.h"

#include <string.h>

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
    int bad = common_varint_append(&log->bytes, index - log->next_index) != 0;
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
        index += common_varint_read(&p);
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
