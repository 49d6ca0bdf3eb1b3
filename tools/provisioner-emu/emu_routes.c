/* Request classification: the one place that knows the provisioner's URLs. */
#include "tools/provisioner-emu/emu_routes.h"

#include <string.h>

static const char *const route_names[SBX_EMU_ROUTE_COUNT] = {
    [SBX_EMU_ROUTE_HEALTH] = "health",
    [SBX_EMU_ROUTE_CAPABILITIES] = "capabilities",
    [SBX_EMU_ROUTE_CREATE] = "create",
    [SBX_EMU_ROUTE_GET] = "get",
    [SBX_EMU_ROUTE_DELETE] = "delete",
    [SBX_EMU_ROUTE_LIST] = "list",
    [SBX_EMU_ROUTE_RECONCILE] = "reconcile",
};

const char *sbx_emu_route_name(sbx_emu_route route)
{
    return route_names[route];
}

sbx_emu_route sbx_emu_route_from_name(const char *name)
{
    if (name == NULL)
        return SBX_EMU_ROUTE_NONE;
    for (int r = 0; r < SBX_EMU_ROUTE_COUNT; r++) {
        if (strcmp(route_names[r], name) == 0)
            return (sbx_emu_route)r;
    }
    return SBX_EMU_ROUTE_NONE;
}

#define SANDBOXES_PREFIX "/api/sandboxes/"
#define RECONCILIATION_SUFFIX "/reconciliation"

sbx_emu_route sbx_emu_route_classify(const char *method, const char *path,
                                     char id[SBX_EMU_ID_MAX + 1])
{
    int is_get = strcmp(method, "GET") == 0;
    id[0] = '\0';
    if (strcmp(path, "/health") == 0)
        return is_get ? SBX_EMU_ROUTE_HEALTH : SBX_EMU_ROUTE_NONE;
    if (strcmp(path, "/api/capabilities") == 0)
        return is_get ? SBX_EMU_ROUTE_CAPABILITIES : SBX_EMU_ROUTE_NONE;
    if (strcmp(path, "/api/sandboxes") == 0) {
        if (is_get)
            return SBX_EMU_ROUTE_LIST;
        return strcmp(method, "POST") == 0 ? SBX_EMU_ROUTE_CREATE : SBX_EMU_ROUTE_NONE;
    }
    if (strncmp(path, SANDBOXES_PREFIX, strlen(SANDBOXES_PREFIX)) != 0)
        return SBX_EMU_ROUTE_NONE;

    const char *rest = path + strlen(SANDBOXES_PREFIX);
    const char *slash = strchr(rest, '/');
    size_t id_len = slash != NULL ? (size_t)(slash - rest) : strlen(rest);
    if (id_len == 0 || id_len > SBX_EMU_ID_MAX)
        return SBX_EMU_ROUTE_NONE;
    memcpy(id, rest, id_len);
    id[id_len] = '\0';

    sbx_emu_route route = SBX_EMU_ROUTE_NONE;
    if (slash == NULL) {
        if (is_get)
            route = SBX_EMU_ROUTE_GET;
        else if (strcmp(method, "DELETE") == 0)
            route = SBX_EMU_ROUTE_DELETE;
    } else if (strcmp(slash, RECONCILIATION_SUFFIX) == 0 && is_get) {
        route = SBX_EMU_ROUTE_RECONCILE;
    }
    if (route == SBX_EMU_ROUTE_NONE)
        id[0] = '\0';
    return route;
}
