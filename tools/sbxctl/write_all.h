/* Writing whole buffers to a file descriptor (the command's bytes, a copy). */
#ifndef CTL_WRITE_ALL_H
#define CTL_WRITE_ALL_H

#include <stddef.h>

/* Write all `len` bytes of `data` to `fd`, again after EINTR and short
 * writes.  0, or -1 with errno. */
int ctl_write_all(int fd, const char *data, size_t len);

#endif
