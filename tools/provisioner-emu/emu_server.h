/* The emulator's HTTP server: the shared provisioner server
 * (tools/provisioner-common/prov_server.h: body limit, key check, routing)
 * with one thread per connection, so that held, delayed and long-polling
 * requests block only themselves, and the emulator's hooks: the /_emu
 * control API, the request log, and each route's fault before the /api
 * handlers. */
#ifndef EMU_SERVER_H
#define EMU_SERVER_H

#include <stddef.h>

#include "tools/provisioner-emu/emu_context.h"

typedef struct emu_server emu_server;

/* What an HTTPS server presents: the PEM text (NUL-terminated) of its
 * certificate chain and of its private key.  Borrowed by the server, so it
 * must outlive it. */
typedef struct emu_tls {
    const char *cert_pem;
    const char *key_pem;
} emu_tls;

/* Listen on 127.0.0.1:`port` (0: an ephemeral port) and serve `ctx`,
 * which must outlive the server: plain HTTP when `tls` is NULL, else HTTPS
 * with its certificate and key.  Returns the server and sets *bound_port,
 * or NULL with a reason in `why` (`why_len` bytes): the port cannot be
 * bound, libmicrohttpd was built without TLS, or it refused the PEM. */
emu_server *emu_server_start(emu_context *ctx, unsigned port,
                                     const emu_tls *tls, unsigned *bound_port,
                                     char *why, size_t why_len);

/* Release every held request, stop accepting, close connections, join
 * the threads and free the server.  NULL is accepted. */
void emu_server_stop(emu_server *server);

#endif
