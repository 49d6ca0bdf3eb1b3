/* The provisioner's /api routes and /health, answered from the emulator's
 * state as the real provisioner answers (auth and routing are the server's
 * job). */
#ifndef SBX_EMU_API_H
#define SBX_EMU_API_H

#include <stddef.h>

#include "tools/provisioner-emu/emu_context.h"
#include "tools/provisioner-common/prov_reply.h"
#include "tools/provisioner-common/prov_routes.h"

/* Answer one authenticated request of `route` (SBX_PROV_ROUTE_NONE gives
 * 404 {"detail":"Not Found"}).  `id` is the path's sandbox id ("" when the
 * route has none); `body` is the request body (`body_len` bytes) and
 * `content_type` its Content-Type header (NULL when absent). */
void sbx_emu_api_answer(sbx_emu_context *ctx, sbx_prov_route route, const char *id,
                        const char *body, size_t body_len, const char *content_type,
                        sbx_prov_reply *reply);

/* Whether the emulated provisioner has `route` now (capabilities and
 * reconciliation can be switched off, see emu_contract.h). */
int sbx_emu_api_route_enabled(sbx_emu_context *ctx, sbx_prov_route route);

#endif
