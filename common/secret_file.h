/*
 * A secret (an API key) read from a file: the file form of every secret
 * option (sbx-provisiond's --api-key-file, the emulator's, the remote
 * backend's api_key_file), which keeps the key off command lines, where
 * every user of the machine (and, through /proc, a process that can read
 * the host's) sees it.  The file must be a regular file that its owner
 * alone may open: a key anyone on the machine can read is no secret, so
 * such a file is refused rather than used.  Never says what the file
 * holds.
 */
#ifndef SBX_COMMON_SECRET_FILE_H
#define SBX_COMMON_SECRET_FILE_H

#include <stddef.h>

/* The largest key file read; a larger file is not a key. */
#define COMMON_SECRET_FILE_MAX 4096

/* The one line in the file at `path` (a final newline, or CR LF, dropped)
 * as a new string in *out; wipe it before freeing it.  Returns 1; 0 with
 * why[cap] saying what is wrong and how to fix it, as text to follow the
 * file's name (e.g. "is readable or writable by group or others (mode
 * 0644): run chmod 600 on it"): a file that cannot be opened, is not a
 * regular file, is open to group or others, is empty, is larger than
 * COMMON_SECRET_FILE_MAX, or holds more than one line or a NUL byte. */
int common_secret_file_read(const char *path, char **out, char *why, size_t cap);

/* Zero and free a secret (NULL is accepted). */
void common_secret_free(char *secret);

#endif /* SBX_COMMON_SECRET_FILE_H */
