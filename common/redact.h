/*
 * Hiding a secret (the API key) in text that may have come back from a
 * peer.  A peer can echo part of a key, not only all of it, and a mask as
 * long as what it hides tells the key's length, so any run of at least
 * COMMON_REDACT_MIN_RUN characters of the secret becomes one fixed mask.
 */
#ifndef SBX_COMMON_REDACT_H
#define SBX_COMMON_REDACT_H

#include <stddef.h>

/* The shortest run of a secret's characters that is hidden (a whole secret
 * shorter than this is hidden too), and what replaces each run. */
#define COMMON_REDACT_MIN_RUN 4
#define COMMON_REDACT_MASK "***"

/* Copy the NUL-terminated `text` into out[cap] (always NUL-terminated, cut
 * to fit) with every maximal run of `secret`'s substrings (as above)
 * replaced by COMMON_REDACT_MASK.  A NULL or empty secret copies the text.
 * `text` and `out` must not overlap.  Returns the length written. */
size_t common_redact_secret(const char *text, const char *secret, char *out, size_t cap);

#endif /* SBX_COMMON_REDACT_H */
