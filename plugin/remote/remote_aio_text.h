/*
 * Encodings the AIO sandbox API needs of what a caller hands the remote
 * backend: a command line as one POSIX shell text, bytes as base64, a path
 * in a URL query.  Pure functions of their arguments (no I/O, no locks).
 */
#ifndef SBX_REMOTE_AIO_TEXT_H
#define SBX_REMOTE_AIO_TEXT_H

#include <stddef.h>

#include "common/dynbuf.h"

/* Append `word` to *b as one POSIX shell word: in single quotes, each ' in
 * it written '\'' (nothing inside single quotes is special: $, `, \, spaces
 * and newlines stay as they are).  COMMON_DYNBUF_OK or the dynbuf's code. */
int remote_shell_quote(common_dynbuf *b, const char *word);

/* The text /v1/bash/exec runs for a request: argv's words each quoted and
 * joined by spaces, or, for a shell text, "/bin/sh -c <quoted text>" (the
 * ABI's shell is /bin/sh; AIO runs its command in bash).  Exactly one of
 * argv and shell_command is non-NULL.  A malloc'd string, NULL when out
 * of memory. */
char *remote_command_text(const char *const *argv, const char *shell_command);

/* `len` bytes as standard base64 (RFC 4648, with padding): a malloc'd
 * NUL-terminated string, NULL when out of memory or too large to count. */
char *remote_base64_encode(const void *bytes, size_t len);

/* Append `text` to *b percent-encoded for a URL query value: every byte
 * but A-Z a-z 0-9 - . _ ~ '/' becomes %XX.  COMMON_DYNBUF_OK or the
 * dynbuf's code. */
int remote_query_escape(common_dynbuf *b, const char *text);

#endif /* SBX_REMOTE_AIO_TEXT_H */
