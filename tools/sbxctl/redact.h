/* Keeps secrets (the API key and the like) out of the messages and log
 * lines sbxctl prints. */
#ifndef CTL_REDACT_H
#define CTL_REDACT_H

#include <stddef.h>
#include <stdio.h>
#include <sbx/host.h>

/* The secret values to hide.  Owns copies of them. */
typedef struct ctl_redactor {
    char **secrets;
    size_t count;
} ctl_redactor;

/* Non-zero when an option called `key` holds a secret (api_key, tokens,
 * passwords): its value is never printed. */
int ctl_option_is_secret(const char *key);

/* Remember the values of the secret options among `options` (copied).
 * SBX_ERR_INTERNAL when out of memory. */
sbx_status ctl_redactor_add_options(ctl_redactor *redactor,
                                        const sbx_option *options, size_t count,
                                        sbx_error *err);

/* Forget every secret and release the copies.  NULL is accepted. */
void ctl_redactor_clear(ctl_redactor *redactor);

/* Write the free text `text` (an error message, a log line; never a
 * result) to `stream` with every whole occurrence of a secret replaced by
 * "***" (common/redact.h: a secret shorter than 8 bytes only where it
 * stands as a word of its own).  Defence in depth: backends never put a
 * key in their messages, but what sbxctl prints as a message passes
 * through here so that one slip, or a peer echoing the key, cannot reach
 * a terminal or a log.  `redactor` may be NULL.  Returns 0, or EOF on a
 * write error or when out of memory (nothing unredacted is written then). */
int ctl_redacted_write(const ctl_redactor *redactor, const char *text,
                           FILE *stream);

/* Make `line` (which ends with one '\n') print as exactly one line:
 * every other control character, such as a CR or LF inside a peer's error
 * text or a terminal escape, becomes a space. */
void ctl_flatten_line(char *line);

#endif
