/*
 * Free TCP ports on 127.0.0.1 for sandbox servers of the local backend.
 */
#ifndef SBX_LOCAL_PORT_H
#define SBX_LOCAL_PORT_H

#include <sbx/backend.h>

/* Ask the kernel for a free port on 127.0.0.1 (bind port 0, read it back).
 * With keep_fd NULL the socket is closed: the port is free now and the
 * command started next binds it, so a race with another program is
 * possible but unlikely (docs/local.md).  Otherwise the bound socket
 * (close-on-exec, not listening) is the caller's in *keep_fd, and the port
 * stays ours.  SBX_ERR_INTERNAL when no socket can be bound. */
sbx_status local_pick_port(int *port, int *keep_fd, sbx_error *err);

#endif
