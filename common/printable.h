/*
 * Untrusted values (ids, option keys, answer fields) made safe to quote in
 * an error message, shared so that every backend cuts and escapes alike.
 */
#ifndef SBX_COMMON_PRINTABLE_H
#define SBX_COMMON_PRINTABLE_H

#include <stddef.h>

/* Copy `value` (NULL reads as "") into buf (cap bytes) for a message: at
 * most 64 characters, control and non-ASCII bytes as '?' so that a value
 * cannot forge log lines, "..." when cut.  Returns buf. */
const char *common_printable(const char *value, char *buf, size_t cap);

/* Where a URL's "user:password@" lies: its offset in *start and its
 * length, the '@' included, in *len; 0 when the URL has none.  Messages
 * show a URL without it (credentials never reach a message or a log). */
int common_url_credentials(const char *url, size_t *start, size_t *len);

/* common_printable of `url`, which may be malformed, with its credentials
 * dropped (up to its last '@').  Returns buf. */
const char *common_printable_url(const char *url, char *buf, size_t cap);

#endif
