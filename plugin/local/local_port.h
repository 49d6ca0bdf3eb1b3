/*
 * Free TCP ports on 127.0.0.1 for sandbox servers of the local backend.
 */
#ifndef SBX_LOCAL_PORT_H
#define SBX_LOCAL_PORT_H

#include <sbx/backend.h>

/* Ask the kernel for a free port on 127.0.0.1 (bind port 0, read it back,
 * close).  The port is free now; the command started next binds it, so a
 * race with another program is possible but unlikely (docs/local.md).
 * SBX_ERR_INTERNAL when no socket can be bound. */
sbx_status local_pick_port(int *port, sbx_error *err);

/* A TCP socket bound to 127.0.0.1:`port` (close-on-exec, not listening)
 * into *fd.  SBX_ERR_TRANSPORT when another program holds the port,
 * SBX_ERR_INTERNAL on other failures. */
sbx_status local_bind_port(int port, int *fd, sbx_error *err);

#endif
