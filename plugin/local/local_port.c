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

sbx_status local_pick_port(int *port, sbx_error *err)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot create a socket: %s",
                                     strerror(errno));
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    sbx_status st = SBX_OK;
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        getsockname(fd, (struct sockaddr *)&addr, &len) != 0)
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL,
                                   "cannot pick a free port on 127.0.0.1: %s",
                                   strerror(errno));
    else
        *port = ntohs(addr.sin_port);
    close(fd);
    return st;
}
