/* ctl_write_all: write(2) until every byte is out. */
#include <config.h>

#include "tools/sbxctl/write_all.h"

#include <errno.h>
#include <unistd.h>

int ctl_write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}
