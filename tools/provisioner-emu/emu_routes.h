/* The provisioner routes the emulator serves, and how a request maps to one.
 * Route names are what the control API (/_emu/faults, /_emu/stats, ...) uses. */
#ifndef SBX_EMU_ROUTES_H
#define SBX_EMU_ROUTES_H

#include <stddef.h>

typedef enum sbx_emu_route {
    SBX_EMU_ROUTE_NONE = -1,     /* no such route: 404 {"detail":"Not Found"} */
    SBX_EMU_ROUTE_HEALTH = 0,    /* GET /health */
    SBX_EMU_ROUTE_CAPABILITIES,  /* GET /api/capabilities */
    SBX_EMU_ROUTE_CREATE,        /* POST /api/sandboxes */
    SBX_EMU_ROUTE_GET,           /* GET /api/sandboxes/{id} */
    SBX_EMU_ROUTE_DELETE,        /* DELETE /api/sandboxes/{id} */
    SBX_EMU_ROUTE_LIST,          /* GET /api/sandboxes */
    SBX_EMU_ROUTE_RECONCILE,     /* GET /api/sandboxes/{id}/reconciliation */
    SBX_EMU_ROUTE_COUNT
} sbx_emu_route;

/* Longest sandbox id the router extracts from a path (longer: no route). */
#define SBX_EMU_ID_MAX 256

/* The control-API name of a route ("health", "create", ...); static.
 * Only for routes in [0, SBX_EMU_ROUTE_COUNT). */
const char *sbx_emu_route_name(sbx_emu_route route);

/* The route called `name`, or SBX_EMU_ROUTE_NONE for an unknown name/NULL. */
sbx_emu_route sbx_emu_route_from_name(const char *name);

/* Classify a request by method and (already unescaped) path.  For the
 * routes with an {id}, the id is copied into `id` (SBX_EMU_ID_MAX + 1
 * bytes).  Returns SBX_EMU_ROUTE_NONE when no route matches. */
sbx_emu_route sbx_emu_route_classify(const char *method, const char *path,
                                     char id[SBX_EMU_ID_MAX + 1]);

#endif
