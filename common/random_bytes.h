/* Fresh random bytes from the kernel (getrandom(2)), for nonces and ids
 * that must not be guessed. */
#ifndef SBX_COMMON_RANDOM_BYTES_H
#define SBX_COMMON_RANDOM_BYTES_H

#include <stddef.h>

/* Fill `out` with `n` random bytes, retrying short reads and EINTR.
 * 0, or -1 with errno set when the kernel gives none. */
int common_random_bytes(void *out, size_t n);

#endif
