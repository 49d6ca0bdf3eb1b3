/* Copying the rest of one file descriptor to another: a sandbox file the
 * backend opened (sbx_backend_open_file, ABI 1.6) to `sbxctl cp`'s
 * destination, in the kernel where it can. */
#ifndef CTL_COPY_FD_H
#define CTL_COPY_FD_H

#include <stdint.h>

/* Copy from `from` (a regular file, from its position) to `to` until the
 * end of `from`, adding the bytes copied to *copied as they go:
 * copy_file_range between two files that allow it, sendfile to anything
 * else (a pipe, a terminal), read and write where neither applies.  0, or
 * -1 with errno (of the read or of the write: a kernel copy does not say
 * which); the bytes counted are written. */
int ctl_copy_fd(int from, int to, uint64_t *copied);

#endif
