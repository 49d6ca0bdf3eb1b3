/* The provisioner routes (docs/protocol.md), and how a request maps to one.
 * Route names are what the emulator's control API (/_emu/faults, ...) and
 * the servers' log lines use. */
#ifndef SBX_PROV_ROUTES_H
#define SBX_PROV_ROUTES_H

#include <stddef.h>

typedef enum sbx_prov_route {
    SBX_PROV_ROUTE_NONE = -1,     /* no such route: 404 {"detail":"Not Found"} */
    SBX_PROV_ROUTE_HEALTH = 0,    /* GET /health */
    SBX_PROV_ROUTE_CAPABILITIES,  /* GET /api/capabilities */
    SBX_PROV_ROUTE_CREATE,        /* POST /api/sandboxes */
    SBX_PROV_ROUTE_GET,           /* GET /api/sandboxes/{id} */
    SBX_PROV_ROUTE_DELETE,        /* DELETE /api/sandboxes/{id} */
    SBX_PROV_ROUTE_LIST,          /* GET /api/sandboxes */
    SBX_PROV_ROUTE_RECONCILE,     /* GET /api/reconciliation/sandboxes/{id} */
    SBX_PROV_ROUTE_COUNT
} sbx_prov_route;

/* The longest sandbox id the emulator's router takes from a path (longer:
 * no route), as it always has; sbx-provisiond takes any length and
 * answers an id it cannot use with 422 (sbx_prov_server_options). */
#define SBX_PROV_ID_MAX 256

/* What a request's method and path name. */
typedef struct sbx_prov_match {
    sbx_prov_route route;         /* the route, or NONE */
    /* When the path is a route's but the method is not (route NONE): the
     * route the real application lists first for that path, whose method
     * its 405 answer names in Allow.  NONE otherwise. */
    sbx_prov_route path_route;
    const char *id;               /* the path's {id} (in the path); "" when it has none */
} sbx_prov_match;

/* The control-API name of a route ("health", "create", ...); static.
 * Only for routes in [0, SBX_PROV_ROUTE_COUNT). */
const char *sbx_prov_route_name(sbx_prov_route route);

/* The route called `name`, or SBX_PROV_ROUTE_NONE for an unknown name/NULL. */
sbx_prov_route sbx_prov_route_from_name(const char *name);

/* The HTTP method of a route ("GET", "POST", "DELETE"); static. */
const char *sbx_prov_route_method(sbx_prov_route route);

/* Classify a request by method and (already unescaped) path into *m; an
 * {id} longer than `id_max` bytes makes the path no route's. */
void sbx_prov_route_match(const char *method, const char *path, size_t id_max,
                          sbx_prov_match *m);

/* Decode the %XX escapes of a URL's path or query argument in place, as
 * Starlette does, except %00, which stays as written: C strings end at a
 * NUL, and a path cut there would name another sandbox (own1%00x would
 * reach own1).  Returns the new length. */
size_t sbx_prov_url_unescape(char *text);

#endif
