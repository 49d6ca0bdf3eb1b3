/*
 * The log of the entries a streaming list decoder skipped, kept until its
 * answer is known whole (a later part may void them, an answer that ends
 * broken tells none) and then replayed in order.  Per entry: the gap from
 * the previous skipped index as a varint, one kind byte and, in a log that
 * keeps them, the reason's text; so a skipped entry costs a few bytes,
 * never its own text.  One log, one thread at a time.
 */
#ifndef SBX_COMMON_SKIP_LOG_H
#define SBX_COMMON_SKIP_LOG_H

#include <stddef.h>

#include "common/dynbuf.h"

typedef struct common_skip_log {
    common_dynbuf bytes;
    size_t next_index; /* the index a gap of 0 names */
    int keeps_why;     /* each entry holds its reason's text */
} common_skip_log;

/* Called once per skipped entry by common_skip_log_replay, in the order
 * noted: its index, its kind byte, and its reason (NULL in a log that keeps
 * none; valid during the call only). */
typedef void (*common_skip_fn)(void *ctx, size_t index, unsigned char kind, const char *why);

/* An empty log; `keeps_why` set: common_skip_log_add keeps each reason. */
void common_skip_log_init(common_skip_log *log, int keeps_why);

/* Note entry `index` (greater than any noted since the last reset) skipped
 * for `kind`, with reason `why` (kept only by a log that keeps reasons).
 * 0, or -1 when out of memory (the log is then not to be replayed). */
int common_skip_log_add(common_skip_log *log, size_t index, unsigned char kind,
                        const char *why);

/* Call `fn` for each entry noted, in order. */
void common_skip_log_replay(const common_skip_log *log, common_skip_fn fn, void *ctx);

/* Forget every entry (the memory is kept for the next ones). */
void common_skip_log_reset(common_skip_log *log);

/* Release what the log holds.  A zeroed log is accepted. */
void common_skip_log_free(common_skip_log *log);

#endif /* SBX_COMMON_SKIP_LOG_H */
