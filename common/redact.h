/*
 * Hiding a secret (the API key) in free text: an error message or a log
 * line, never a result.  Secrets are kept out of messages where those are
 * made; this is the last defence against a slip or a peer echoing the key.
 * Only whole occurrences are hidden, so that text which merely shares
 * characters with the secret (an id, a URL) is never rewritten: a secret
 * of COMMON_REDACT_ANYWHERE bytes or more is hidden wherever it occurs, a
 * shorter one only where it stands as a whole word, not inside a longer
 * token (with the key "k", "keep-me" stays as it is; "bad key k" does not).
 * Each occurrence becomes one fixed mask, which tells nothing of the length.
 */
#ifndef SBX_COMMON_REDACT_H
#define SBX_COMMON_REDACT_H

#include <stddef.h>

/* The shortest secret hidden inside longer tokens too, and what replaces
 * each occurrence. */
#define COMMON_REDACT_ANYWHERE 8
#define COMMON_REDACT_MASK "***"

/* Copy the NUL-terminated `text` into out[cap] (always NUL-terminated, cut
 * to fit) with every whole occurrence of `secret` (as above) replaced by
 * COMMON_REDACT_MASK; a cap of 3 * strlen(text) + 1 always fits.  A NULL or
 * empty secret copies the text.  `text` and `out` must not overlap.
 * Returns the length written. */
size_t common_redact_secret(const char *text, const char *secret, char *out, size_t cap);

/* Capability tokens in a printed path or URL (a request line, a sandbox
 * URL).  A token is a long run of hex digits; one is masked wherever it
 * stands, in any case and whatever surrounds it, so that a near miss
 * ("//s/TOKEN", "/s//TOKEN", "/S/TOKEN", "/s/TOKENx", an upper-case token)
 * is hidden as the exact path is.  A shorter run, which cannot carry a
 * token (less than 64 of its 256 bits), stays: ports, short ids. */
#define COMMON_REDACT_TOKEN_DIGITS 16
#define COMMON_REDACT_TOKEN_MASK "..."

/* Copy `text` into out[cap] (always NUL-terminated, cut to fit) with every
 * run of COMMON_REDACT_TOKEN_DIGITS or more hex digits replaced by
 * COMMON_REDACT_TOKEN_MASK; a cap of strlen(text) + 1 always fits.  `text`
 * and `out` must not overlap.  Returns the length written. */
size_t common_redact_tokens(const char *text, char *out, size_t cap);

#endif /* SBX_COMMON_REDACT_H */
