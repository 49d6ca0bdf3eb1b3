/* Docker Engine API calls and answer classification (see docker_engine.h). */
#include "plugin/docker/docker_engine.h"

#include "common/json_fields.h"
#include <sbx/host.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inspect answers are a few KiB, lists grow with containers. */
#define MAX_RESPONSE_BYTES (16u * 1024u * 1024u)
#define CONNECT_TIMEOUT_MS 5000L

sbx_status sbx_docker_engine_open(sbx_docker_engine *engine, const sbx_docker_options *options,
                                  const sbx_host_services *services, sbx_error *err)
{
    memset(engine, 0, sizeof *engine);
    int has_log = services != NULL &&
                  services->struct_size >= offsetof(sbx_host_services, log_ctx) +
                                               sizeof services->log_ctx;
    sbx_http_client_options o;
    memset(&o, 0, sizeof o);
    o.base_url = "http://localhost";
    o.unix_socket_path = options->socket_path;
    o.connect_timeout_ms = CONNECT_TIMEOUT_MS;
    o.max_response_bytes = MAX_RESPONSE_BYTES;
    o.log = has_log ? services->log : NULL;
    o.log_ctx = has_log ? services->log_ctx : NULL;
    o.log_name = "docker";
    sbx_status st = sbx_http_client_new(&o, &engine->http, err);
    if (st != SBX_OK)
        return st;
    engine->api_version = options->api_version;
    engine->timeout_ms = options->timeout_ms;
    return SBX_OK;
}

void sbx_docker_engine_close(sbx_docker_engine *engine)
{
    sbx_http_client_free(engine->http);
    memset(engine, 0, sizeof *engine);
}

sbx_status sbx_docker_engine_call(sbx_docker_engine *engine, const char *method,
                                  const char *path, const char *json_body, long extra_ms,
                                  sbx_http_response *resp, sbx_error *err)
{
    size_t len = strlen(engine->api_version) + strlen(path) + 2;
    char *full = malloc(len);
    if (full == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    snprintf(full, len, "/%s%s", engine->api_version, path);
    sbx_status st = sbx_http_request(engine->http, method, full, json_body,
                                     engine->timeout_ms + extra_ms, resp, err);
    free(full);
    return st;
}

/* The engine's explanation: `message` of a JSON error body, else the body's
 * first line (bounded), else nothing. */
static void engine_message(const sbx_http_response *resp, char *buf, size_t size)
{
    buf[0] = '\0';
    json_object *o = sbx_json_parse(resp->body, resp->body_len);
    const char *message = NULL;
    if (o != NULL && sbx_json_get_string(o, "message", &message) == SBX_JSON_OK)
        snprintf(buf, size, "%s", message);
    else if (resp->body != NULL)
        snprintf(buf, size, "%.*s", (int)strcspn(resp->body, "\r\n"), resp->body);
    json_object_put(o);
}

sbx_status sbx_docker_engine_error(const sbx_http_response *resp, const char *what,
                                   sbx_error *err)
{
    char message[300];
    engine_message(resp, message, sizeof message);
    sbx_status kind = resp->status == 404 ? SBX_ERR_NOT_FOUND : SBX_ERR_PROVISIONER;
    sbx_error_set(err, kind, "docker: %s failed: HTTP %ld%s%s", what, resp->status,
                  message[0] ? ": " : "", message);
    if (err != NULL)
        err->http_status = (int)resp->status;
    return kind;
}

int sbx_docker_engine_is_name_conflict(const sbx_http_response *resp)
{
    if (resp->status == 409)
        return 1;
    if (resp->status != 500)
        return 0;
    char message[300];
    engine_message(resp, message, sizeof message);
    return strstr(message, "already in use") != NULL;
}

json_object *sbx_docker_engine_parse(const sbx_http_response *resp, json_type type,
                                     const char *what, sbx_error *err)
{
    json_object *o = sbx_json_parse(resp->body, resp->body_len);
    if (o == NULL || !json_object_is_type(o, type)) {
        json_object_put(o);
        sbx_error_set(err, SBX_ERR_PROTOCOL, "docker: %s: the engine's answer is not a JSON %s",
                      what, type == json_type_array ? "array" : "object");
        return NULL;
    }
    return o;
}
