/* Request classification: the one place that knows the provisioner's URLs.
 * A path parameter matches one non-empty segment (no '/'), as Starlette's
 * default converter does. */
#include <config.h>

#include "tools/provisioner-common/prov_routes.h"

#include "common/hex_digit.h"

#include <string.h>

static const struct {
    const char *name;
    const char *method;
} routes[PROV_ROUTE_COUNT] = {
    [PROV_ROUTE_HEALTH] = {"health", "GET"},
    [PROV_ROUTE_CAPABILITIES] = {"capabilities", "GET"},
    [PROV_ROUTE_CREATE] = {"create", "POST"},
    [PROV_ROUTE_GET] = {"get", "GET"},
    [PROV_ROUTE_DELETE] = {"delete", "DELETE"},
    [PROV_ROUTE_LIST] = {"list", "GET"},
    [PROV_ROUTE_RECONCILE] = {"reconcile", "GET"},
};

const char *prov_route_name(prov_route route)
{
    return routes[route].name;
}

const char *prov_route_method(prov_route route)
{
    return routes[route].method;
}

prov_route prov_route_from_name(const char *name)
{
    if (name == NULL)
        return PROV_ROUTE_NONE;
    for (int r = 0; r < PROV_ROUTE_COUNT; r++) {
        if (strcmp(routes[r].name, name) == 0)
            return (prov_route)r;
    }
    return PROV_ROUTE_NONE;
}

/* Whether `path` is `prefix` followed by one {id} segment of at most
 * `id_max` bytes (*id then points at it). */
static int one_segment_after(const char *path, const char *prefix, size_t id_max,
                             const char **id)
{
    size_t n = strlen(prefix);
    if (strncmp(path, prefix, n) != 0)
        return 0;
    const char *rest = path + n;
    size_t len = strlen(rest);
    if (len == 0 || len > id_max || strchr(rest, '/') != NULL)
        return 0;
    *id = rest;
    return 1;
}

/* The routes of one path in the real application's declaration order: the
 * first is the one a 405 names. */
static int path_routes(const char *path, size_t id_max, const char **id,
                       prov_route out[2])
{
    if (strcmp(path, "/health") == 0) {
        out[0] = PROV_ROUTE_HEALTH;
        return 1;
    }
    if (strcmp(path, "/api/capabilities") == 0) {
        out[0] = PROV_ROUTE_CAPABILITIES;
        return 1;
    }
    if (strcmp(path, "/api/sandboxes") == 0) {
        out[0] = PROV_ROUTE_CREATE;
        out[1] = PROV_ROUTE_LIST;
        return 2;
    }
    if (one_segment_after(path, "/api/reconciliation/sandboxes/", id_max, id)) {
        out[0] = PROV_ROUTE_RECONCILE;
        return 1;
    }
    if (one_segment_after(path, "/api/sandboxes/", id_max, id)) {
        out[0] = PROV_ROUTE_DELETE;
        out[1] = PROV_ROUTE_GET;
        return 2;
    }
    return 0;
}

void prov_route_match(const char *method, const char *path, size_t id_max,
                          prov_match *m)
{
    m->route = PROV_ROUTE_NONE;
    m->path_route = PROV_ROUTE_NONE;
    m->id = "";
    prov_route candidates[2];
    int n = path_routes(path, id_max, &m->id, candidates);
    for (int i = 0; i < n; i++) {
        if (strcmp(method, routes[candidates[i]].method) == 0) {
            m->route = candidates[i];
            return;
        }
    }
    if (n > 0)
        m->path_route = candidates[0];
}

size_t prov_url_unescape(char *text)
{
    char *out = text;
    const char *in = text;
    while (*in != '\0') {
        int high = in[0] == '%' ? common_hex_digit(in[1]) : -1;
        int low = high >= 0 ? common_hex_digit(in[2]) : -1;
        if (low >= 0 && (high | low) != 0) {
            *out++ = (char)(high << 4 | low);
            in += 3;
        } else {
            *out++ = *in++;
        }
    }
    *out = '\0';
    return (size_t)(out - text);
}
