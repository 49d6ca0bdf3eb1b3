/* Free loopback ports (see local_port.h). */
#include <config.h>

#include "plugin/local/local_port.h"

#include <sbx/backend_support.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A TCP socket bound to 127.0.0.1:`port` (0: any free one, read back into
 * *port); -1 with errno. */
static int bind_loopback(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons((uint16_t)*port);
    socklen_t len = sizeof addr;
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        getsockname(fd, (struct sockaddr *)&addr, &len) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    *port = ntohs(addr.sin_port);
    return fd;
}

sbx_status local_pick_port(int *port, int *keep_fd, sbx_error *err)
{
    *port = 0;
    int fd = bind_loopback(port);
    if (fd < 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL,
                                     "cannot pick a free port on 127.0.0.1: %s",
                                     strerror(errno));
    if (keep_fd != NULL)
        *keep_fd = fd;
    else
        close(fd);
    return SBX_OK;
}
