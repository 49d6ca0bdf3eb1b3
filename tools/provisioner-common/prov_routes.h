/* The provisioner routes (docs/protocol.md), and how a request maps to one.
 * Route names are what the emulator's control API (/_emu/faults, ...) and
 * the servers' log lines use. */
#ifndef PROV_ROUTES_H
#define PROV_ROUTES_H

#include <stddef.h>

typedef enum prov_route {
    PROV_ROUTE_NONE = -1,     /* no such route: 404 {"detail":"Not Found"} */
    PROV_ROUTE_HEALTH = 0,    /* GET /health */
    PROV_ROUTE_CAPABILITIES,  /* GET /api/capabilities */
    PROV_ROUTE_CREATE,        /* POST /api/sandboxes */
    PROV_ROUTE_GET,           /* GET /api/sandboxes/{id} */
    PROV_ROUTE_DELETE,        /* DELETE /api/sandboxes/{id} */
    PROV_ROUTE_LIST,          /* GET /api/sandboxes */
    PROV_ROUTE_RECONCILE,     /* GET /api/reconciliation/sandboxes/{id} */
    PROV_ROUTE_COUNT
} prov_route;

/* The longest sandbox id the emulator's router takes from a path (longer:
 * no route), as it always has; sbx-provisiond takes any length and
 * answers an id it cannot use with 422 (prov_server_options). */
#define PROV_ID_MAX 256

/* What a request's method and path name. */
typedef struct prov_match {
    prov_route route;         /* the route, or NONE */
    /* When the path is a route's but the method is not (route NONE): the
     * route the real application lists first for that path, whose method
     * its 405 answer names in Allow.  NONE otherwise. */
    prov_route path_route;
    const char *id;               /* the path's {id} (in the path); "" when it has none */
} prov_match;

/* The control-API name of a route ("health", "create", ...); static.
 * Only for routes in [0, PROV_ROUTE_COUNT). */
const char *prov_route_name(prov_route route);

/* The route called `name`, or PROV_ROUTE_NONE for an unknown name/NULL. */
prov_route prov_route_from_name(const char *name);

/* The HTTP method of a route ("GET", "POST", "DELETE"); static. */
const char *prov_route_method(prov_route route);

/* Classify a request by method and (already unescaped) path into *m; an
 * {id} longer than `id_max` bytes makes the path no route's. */
void prov_route_match(const char *method, const char *path, size_t id_max,
                          prov_match *m);

/* Decode the %XX escapes of a URL's path or query argument in place, as
 * Starlette does, except %00, which stays as written: C strings end at a
 * NUL, and a path cut there would name another sandbox (own1%00x would
 * reach own1).  Returns the new length. */
size_t prov_url_unescape(char *text);

#endif
