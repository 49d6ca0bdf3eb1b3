/* Fresh random bytes from the kernel (see random_bytes.h). */
#include <config.h>

#include "common/random_bytes.h"

#include <errno.h>
#include <sys/random.h>

int common_random_bytes(void *out, size_t n)
{
    unsigned char *bytes = out;
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom(bytes + got, n - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = EIO;
            return -1;
        }
        got += (size_t)r;
    }
    return 0;
}
