/* A docker sandbox's network in its create body (see docker_network.h). */
#include <config.h>

#include "plugin/docker/docker_network.h"

#include <sbx/backend_support.h>

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

int docker_network_publishes(const sbx_create_request *req)
{
    return req->network != SBX_NETWORK_NONE;
}

sbx_status docker_network_apply(const sbx_create_request *req, char **body, sbx_error *err)
{
    if (docker_network_publishes(req))
        return SBX_OK;
    json_object *root = json_tokener_parse(*body), *host_config = NULL;
    json_object *mode = json_object_new_string("none");
    char *text = NULL;
    /* Both engines take a port published from a container without a
     * network and publish nothing: the body says what the sandbox is. */
    if (json_object_is_type(root, json_type_object) &&
        json_object_object_get_ex(root, "HostConfig", &host_config) &&
        json_object_is_type(host_config, json_type_object) && mode != NULL &&
        json_object_object_add(host_config, "NetworkMode", mode) == 0) {
        mode = NULL;
        json_object_object_del(host_config, "PortBindings");
        json_object_object_del(root, "ExposedPorts");
        const char *made = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
        text = made != NULL ? strdup(made) : NULL;
    }
    json_object_put(mode);
    json_object_put(root);
    if (text == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "docker: create of sandbox '%s': "
                                     "cannot set its network none (out of memory)",
                                     req->sandbox_id);
    free(*body);
    *body = text;
    return SBX_OK;
}
