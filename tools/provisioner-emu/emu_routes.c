/* Request classification: the one place that knows the provisioner's URLs.
 * A path parameter matches one non-empty segment (no '/'), as Starlette's
 * default converter does. */
#include "tools/provisioner-emu/emu_routes.h"

#include <string.h>

static const struct {
    const char *name;
    const char *method;
} routes[SBX_EMU_ROUTE_COUNT] = {
    [SBX_EMU_ROUTE_HEALTH] = {"health", "GET"},
    [SBX_EMU_ROUTE_CAPABILITIES] = {"capabilities", "GET"},
    [SBX_EMU_ROUTE_CREATE] = {"create", "POST"},
    [SBX_EMU_ROUTE_GET] = {"get", "GET"},
    [SBX_EMU_ROUTE_DELETE] = {"delete", "DELETE"},
    [SBX_EMU_ROUTE_LIST] = {"list", "GET"},
    [SBX_EMU_ROUTE_RECONCILE] = {"reconcile", "GET"},
};

const char *sbx_emu_route_name(sbx_emu_route route)
{
    return routes[route].name;
}

const char *sbx_emu_route_method(sbx_emu_route route)
{
    return routes[route].method;
}

sbx_emu_route sbx_emu_route_from_name(const char *name)
{
    if (name == NULL)
        return SBX_EMU_ROUTE_NONE;
    for (int r = 0; r < SBX_EMU_ROUTE_COUNT; r++) {
        if (strcmp(routes[r].name, name) == 0)
            return (sbx_emu_route)r;
    }
    return SBX_EMU_ROUTE_NONE;
}

/* Whether `path` is `prefix` followed by one {id} segment (copied to `id`). */
static int one_segment_after(const char *path, const char *prefix, char *id)
{
    size_t n = strlen(prefix);
    if (strncmp(path, prefix, n) != 0)
        return 0;
    const char *rest = path + n;
    size_t len = strlen(rest);
    if (len == 0 || len > SBX_EMU_ID_MAX || strchr(rest, '/') != NULL)
        return 0;
    memcpy(id, rest, len + 1);
    return 1;
}

/* The routes of one path in the real application's declaration order: the
 * first is the one a 405 names. */
static int path_routes(const char *path, char *id, sbx_emu_route out[2])
{
    if (strcmp(path, "/health") == 0) {
        out[0] = SBX_EMU_ROUTE_HEALTH;
        return 1;
    }
    if (strcmp(path, "/api/capabilities") == 0) {
        out[0] = SBX_EMU_ROUTE_CAPABILITIES;
        return 1;
    }
    if (strcmp(path, "/api/sandboxes") == 0) {
        out[0] = SBX_EMU_ROUTE_CREATE;
        out[1] = SBX_EMU_ROUTE_LIST;
        return 2;
    }
    if (one_segment_after(path, "/api/reconciliation/sandboxes/", id)) {
        out[0] = SBX_EMU_ROUTE_RECONCILE;
        return 1;
    }
    if (one_segment_after(path, "/api/sandboxes/", id)) {
        out[0] = SBX_EMU_ROUTE_DELETE;
        out[1] = SBX_EMU_ROUTE_GET;
        return 2;
    }
    return 0;
}

void sbx_emu_route_match(const char *method, const char *path, sbx_emu_match *m)
{
    m->route = SBX_EMU_ROUTE_NONE;
    m->path_route = SBX_EMU_ROUTE_NONE;
    m->id[0] = '\0';
    sbx_emu_route candidates[2];
    int n = path_routes(path, m->id, candidates);
    for (int i = 0; i < n; i++) {
        if (strcmp(method, routes[candidates[i]].method) == 0) {
            m->route = candidates[i];
            return;
        }
    }
    if (n > 0)
        m->path_route = candidates[0];
}
