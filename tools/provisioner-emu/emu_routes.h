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
    SBX_EMU_ROUTE_RECONCILE,     /* GET /api/reconciliation/sandboxes/{id} */
    SBX_EMU_ROUTE_COUNT
} sbx_emu_route;

/* Longest sandbox id the router extracts from a path (longer: no route). */
#define SBX_EMU_ID_MAX 256

/* What a request's method and path name. */
typedef struct sbx_emu_match {
    sbx_emu_route route;         /* the route, or NONE */
    /* When the path is a route's but the method is not (route NONE): the
     * route the real application lists first for that path, whose method
     * its 405 answer names in Allow.  NONE otherwise. */
    sbx_emu_route path_route;
    char id[SBX_EMU_ID_MAX + 1]; /* the path's {id}; "" when it has none */
} sbx_emu_match;

/* The control-API name of a route ("health", "create", ...); static.
 * Only for routes in [0, SBX_EMU_ROUTE_COUNT). */
const char *sbx_emu_route_name(sbx_emu_route route);

/* The route called `name`, or SBX_EMU_ROUTE_NONE for an unknown name/NULL. */
sbx_emu_route sbx_emu_route_from_name(const char *name);

/* The HTTP method of a route ("GET", "POST", "DELETE"); static. */
const char *sbx_emu_route_method(sbx_emu_route route);

/* Classify a request by method and (already unescaped) path into *m. */
void sbx_emu_route_match(const char *method, const char *path, sbx_emu_match *m);

#endif
