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

#endif
