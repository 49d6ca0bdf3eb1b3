/* A text as one single-quoted POSIX shell word: every byte literal. */
#ifndef SBX_COMMON_SHELL_QUOTE_H
#define SBX_COMMON_SHELL_QUOTE_H

#include "common/dynbuf.h"

/* Append `text` to `b` in single quotes, each ' written as '\'' (close
 * the quotes, an escaped quote, open them again).  COMMON_DYNBUF_OK or
 * the buffer's error code. */
int common_shell_quote(common_dynbuf *b, const char *text);

#endif
