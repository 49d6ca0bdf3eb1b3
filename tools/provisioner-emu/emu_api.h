/* The provisioner's /api routes and /health, answered from the emulator's
 * state as the real provisioner answers (auth and routing are the server's
 * job). */
#ifndef EMU_API_H
#define EMU_API_H

#include <stddef.h>

#include "tools/provisioner-emu/emu_context.h"
#include "tools/provisioner-common/prov_reply.h"
#include "tools/provisioner-common/prov_routes.h"
#include "tools/provisioner-common/prov_server.h"

/* Answer one authenticated request `req` of `route` (PROV_ROUTE_NONE
 * gives 404 {"detail":"Not Found"}), of which it reads the body and its
 * Content-Type.  `id` is the path's sandbox id ("" when the route has
 * none). */
void emu_api_answer(emu_context *ctx, prov_route route, const char *id,
                    const prov_request *req, prov_reply *reply);

/* Whether the emulated provisioner has `route` now (capabilities and
 * reconciliation can be switched off, see emu_contract.h). */
int emu_api_route_enabled(emu_context *ctx, prov_route route);

#endif
