/* The emulator's HTTP server (libmicrohttpd, one thread per connection so
 * that held, delayed and long-polling requests block only themselves).
 * Receives each request, records it, applies the route's fault, checks the
 * API key and hands it to the /api or /_emu handlers. */
#ifndef SBX_EMU_SERVER_H
#define SBX_EMU_SERVER_H

#include <stddef.h>

#include "tools/provisioner-emu/emu_context.h"

typedef struct sbx_emu_server sbx_emu_server;

/* Listen on 127.0.0.1:`port` (0: an ephemeral port) and serve `ctx`,
 * which must outlive the server.  Returns the server and sets *bound_port,
 * or NULL with a reason in `why` (`why_len` bytes). */
sbx_emu_server *sbx_emu_server_start(sbx_emu_context *ctx, unsigned port,
                                     unsigned *bound_port, char *why, size_t why_len);

/* Release every held request, stop accepting, close connections, join
 * the threads and free the server.  NULL is accepted. */
void sbx_emu_server_stop(sbx_emu_server *server);

#endif
