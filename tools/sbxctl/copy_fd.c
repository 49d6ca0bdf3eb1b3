/* ctl_copy_fd (copy_fd.h): the kernel's copies first, a buffer last. */
#include <config.h>

#include "tools/sbxctl/copy_fd.h"

#include "tools/sbxctl/write_all.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/sendfile.h>
#include <sys/types.h>
#include <unistd.h>

/* The most one kernel call is asked to move; it answers less at the end. */
#define KERNEL_PIECE ((size_t)1 << 30)

/* The buffer of the last way: sbxctl holds this much whatever the size. */
#define BUFFER_BYTES ((size_t)1 << 20)

/* The ways to copy, tried in this order until one applies to the pair. */
typedef enum copy_way { BY_COPY_FILE_RANGE, BY_SENDFILE, BY_BUFFER } copy_way;

/* Whether a kernel copy's errno says that the way does not apply to these
 * two descriptors (two file systems, a pipe, a file opened to append, an
 * old kernel) rather than that the copy failed: the next way then goes on
 * from the same positions. */
static int way_does_not_apply(int e)
{
    return e == EXDEV || e == EINVAL || e == ENOSYS || e == EOPNOTSUPP || e == EBADF;
}

static int copy_by_buffer(int from, int to, uint64_t *copied)
{
    char *buf = malloc(BUFFER_BYTES);
    if (buf == NULL)
        return -1;
    int rc = 0;
    for (;;) {
        ssize_t n = read(from, buf, BUFFER_BYTES);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = n < 0 ? -1 : 0;
            break;
        }
        if (ctl_write_all(to, buf, (size_t)n) != 0) {
            rc = -1;
            break;
        }
        *copied += (uint64_t)n;
    }
    int saved = errno;
    free(buf);
    errno = saved;
    return rc;
}

int ctl_copy_fd(int from, int to, uint64_t *copied)
{
    copy_way way = BY_COPY_FILE_RANGE;
    while (way != BY_BUFFER) {
        ssize_t n = way == BY_COPY_FILE_RANGE
                        ? copy_file_range(from, NULL, to, NULL, KERNEL_PIECE, 0)
                        : sendfile(to, from, NULL, KERNEL_PIECE);
        if (n > 0)
            *copied += (uint64_t)n;
        else if (n == 0)
            return 0;
        else if (errno != EINTR && !way_does_not_apply(errno))
            return -1;
        else if (errno != EINTR)
            way = way == BY_COPY_FILE_RANGE ? BY_SENDFILE : BY_BUFFER;
    }
    return copy_by_buffer(from, to, copied);
}
