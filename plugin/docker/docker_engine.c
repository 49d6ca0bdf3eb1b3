/* Docker Engine API calls and answer classification (see docker_engine.h). */
#include <config.h>

#include "plugin/docker/docker_engine.h"

#include "common/json_fields.h"
#include "common/utf8.h"
#include "plugin/docker/docker_text.h"
#include <sbx/backend_support.h>

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define CONNECT_TIMEOUT_MS 5000L

sbx_status docker_engine_open(docker_engine *engine, const docker_options *options,
                              const sbx_host_services *services, sbx_error *err)
{
    memset(engine, 0, sizeof *engine);
    common_http_client_options o;
    memset(&o, 0, sizeof o);
    o.base_url = "http://localhost";
    o.unix_socket_path = options->socket_path;
    o.connect_timeout_ms = CONNECT_TIMEOUT_MS;
    o.max_response_bytes = COMMON_HTTP_DEFAULT_MAX_RESPONSE;
    o.services = services;
    o.log_name = DOCKER_NAME;
    sbx_status st = common_http_client_new(&o, &engine->http, err);
    if (st != SBX_OK)
        return st;
    engine->socket_path = options->socket_path;
    engine->api_version = options->api_version;
    engine->timeout_ms = options->timeout_ms;
    return SBX_OK;
}

void docker_engine_close(docker_engine *engine)
{
    common_http_client_free(engine->http);
    memset(engine, 0, sizeof *engine);
}

/* 0 when a connection to the socket succeeds (or would, but for a full
 * backlog), else the errno of the attempt. */
static int connect_errno(const char *socket_path)
{
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (strlen(socket_path) >= sizeof addr.sun_path)
        return ENAMETOOLONG;
    memcpy(addr.sun_path, socket_path, strlen(socket_path));
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno;
    int rc = connect(fd, (const struct sockaddr *)&addr, sizeof addr);
    int why = rc == 0 || errno == EAGAIN || errno == EINPROGRESS ? 0 : errno;
    close(fd);
    return why;
}

/* Reword the HTTP client's transport error, which names the URL it was
 * given for a unix socket ("http://localhost/..., localhost port 80"): say
 * which operation, which socket, and why, from a connect of our own. */
static void reword_transport_error(const docker_engine *engine, const char *method,
                                   const char *full_path, const char *what, sbx_error *err)
{
    int why = connect_errno(engine->socket_path);
    if (why != 0) {
        sbx_backend_error_set(err, SBX_ERR_TRANSPORT,
                              "docker: %s: cannot connect to the engine's socket %s: %s", what,
                              engine->socket_path, strerror(why));
        return;
    }
    /* Reached now, so the call itself failed: keep the client's reason
     * (a timeout, a reset) without its URL. */
    char prefix[512], detail[SBX_ERROR_MESSAGE_MAX];
    int n = snprintf(prefix, sizeof prefix, "%s %s%s: ", method,
                     common_http_client_shown_url(engine->http), full_path);
    /* A prefix that did not fit is not the message's: nothing is skipped. */
    size_t skip = n > 0 && (size_t)n < sizeof prefix &&
                  strncmp(err->message, prefix, (size_t)n) == 0 ? (size_t)n : 0;
    snprintf(detail, sizeof detail, "%s", err->message + skip);
    sbx_backend_error_set(err, SBX_ERR_TRANSPORT, "docker: %s: engine socket %s: %s", what,
                          engine->socket_path, detail);
}

sbx_status docker_engine_call(docker_engine *engine, const common_http_call *call,
                              const char *what, common_http_response *resp, sbx_error *err)
{
    size_t len = strlen(engine->api_version) + strlen(call->path) + 2;
    char *full = malloc(len);
    if (full == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    snprintf(full, len, "/%s%s", engine->api_version, call->path);
    common_http_call versioned = *call;
    versioned.path = full;
    versioned.timeout_ms = engine->timeout_ms + call->timeout_ms;
    sbx_status st = common_http_perform(engine->http, &versioned, resp, err);
    if (st == SBX_ERR_TRANSPORT)
        reword_transport_error(engine, call->method, full, what, err);
    free(full);
    return st;
}

/* Longest engine message an error quotes. */
#define ENGINE_MESSAGE_MAX 300

/* The engine's explanation: `message` of a JSON error body, else the body's
 * first line, cut to ENGINE_MESSAGE_MAX bytes at a character boundary;
 * nothing when neither is text (an error message must stay valid UTF-8). */
static void engine_message(const common_http_response *resp, char *buf, size_t size)
{
    buf[0] = '\0';
    json_object *o = common_json_parse(resp->body, resp->body_len);
    json_object *message = NULL;
    const char *text = NULL;
    size_t len = 0;
    if (o != NULL && json_object_object_get_ex(o, "message", &message) &&
        json_object_is_type(message, json_type_string)) {
        text = json_object_get_string(message);
        len = (size_t)json_object_get_string_len(message);
    } else if (o == NULL && resp->body != NULL) {
        text = resp->body;
        len = strcspn(resp->body, "\r\n");
    }
    if (text != NULL && common_text_is_clean(text, len)) {
        size_t max = size - 1 < ENGINE_MESSAGE_MAX ? size - 1 : ENGINE_MESSAGE_MAX;
        size_t keep = common_utf8_cut(text, len, max);
        /* A cut message shows it, in the same room. */
        if (keep < len && max > sizeof SBX_CUT_MARK)
            keep = common_utf8_cut(text, len, max - (sizeof SBX_CUT_MARK - 1));
        snprintf(buf, size, "%.*s%s", (int)keep, text, keep < len ? SBX_CUT_MARK : "");
    } else if (text != NULL && len > 0) {
        snprintf(buf, size, "(the engine's message is not valid UTF-8 text)");
    }
    json_object_put(o);
}

sbx_status docker_engine_error(const common_http_response *resp, const char *what,
                               sbx_status kind_404, sbx_error *err)
{
    char message[ENGINE_MESSAGE_MAX + 1];
    engine_message(resp, message, sizeof message);
    sbx_status kind = resp->status == 404 ? kind_404 : SBX_ERR_PROVISIONER;
    sbx_backend_error_set(err, kind, "docker: %s failed: HTTP %ld%s%s", what, resp->status,
                          message[0] ? ": " : "", message);
    err->http_status = (int)resp->status;
    return kind;
}

/* 1 when the answer is `status` with an engine message containing `text`. */
static int message_says(const common_http_response *resp, long status, const char *text)
{
    if (resp->status != status)
        return 0;
    char message[ENGINE_MESSAGE_MAX + 1];
    engine_message(resp, message, sizeof message);
    return strstr(message, text) != NULL;
}

int docker_engine_is_name_conflict(const common_http_response *resp)
{
    return resp->status == 409 || message_says(resp, 500, "already in use");
}

int docker_engine_is_init_missing(const common_http_response *resp)
{
    return message_says(resp, 500, "container-init binary not found");
}

sbx_status docker_engine_wrong_answer(const char *what, json_type type, sbx_error *err)
{
    return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                 "docker: %s: the engine's answer is not a JSON %s", what,
                                 type == json_type_array ? "array" : "object");
}

json_object *docker_engine_parse(const common_http_response *resp, json_type type,
                                 const char *what, sbx_error *err)
{
    json_object *o = common_json_parse(resp->body, resp->body_len);
    if (o == NULL || !json_object_is_type(o, type)) {
        json_object_put(o);
        docker_engine_wrong_answer(what, type, err);
        return NULL;
    }
    char field[160];
    if (type == json_type_object && !docker_json_text_ok(o, field, sizeof field)) {
        json_object_put(o);
        sbx_backend_error_set(
            err, SBX_ERR_PROTOCOL,
            "docker: %s: field '%s' of the engine's answer holds a NUL or invalid "
            "UTF-8", what, field);
        return NULL;
    }
    return o;
}

/* Copy a printable ASCII string (an ID, a version) that fits, else "". */
static void copy_word(const char *value, char *buf, size_t size)
{
    buf[0] = '\0';
    if (value == NULL || strlen(value) >= size)
        return;
    for (const char *p = value; *p != '\0'; p++)
        if (*p <= ' ' || *p > '~')
            return;
    snprintf(buf, size, "%s", value);
}

/* GET `path`, whose answer must be a JSON object: *out (the caller puts
 * it), or an error naming `what` (a 404 is an engine error here). */
static sbx_status get_object(docker_engine *engine, const char *path, const char *what,
                             json_object **out, sbx_error *err)
{
    *out = NULL;
    common_http_response resp;
    sbx_status st = docker_engine_call(engine, &(common_http_call){.method = "GET", .path = path},
                                       what, &resp, err);
    if (st != SBX_OK)
        return st;
    if (resp.status != 200) {
        /* A 404 of /info or /version is an odd engine, not a sandbox. */
        st = docker_engine_error(&resp, what, SBX_ERR_PROVISIONER, err);
        common_http_response_clear(&resp);
        return st;
    }
    *out = docker_engine_parse(&resp, json_type_object, what, err);
    common_http_response_clear(&resp);
    return *out != NULL ? SBX_OK : SBX_ERR_PROTOCOL;
}

sbx_status docker_engine_identify(docker_engine *engine, const char *what,
                                  docker_engine_identity *identity, sbx_error *err)
{
    memset(identity, 0, sizeof *identity);
    int *is_podman = &identity->is_podman;
    json_object *version = NULL, *components = NULL;
    sbx_status st = get_object(engine, "/version", what, &version, err);
    if (st != SBX_OK)
        return st;
    if (json_object_object_get_ex(version, "Components", &components) &&
        json_object_is_type(components, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(components); i++) {
            const char *name = NULL;
            if (common_json_get_string(json_object_array_get_idx(components, i), "Name", &name) ==
                    COMMON_JSON_OK && strstr(name, "Podman") != NULL)
                *is_podman = 1;
        }
    }
    const char *number = NULL;
    if (common_json_get_string(version, "Version", &number) == COMMON_JSON_OK)
        copy_word(number, identity->version, sizeof identity->version);
    json_object_put(version);
    return SBX_OK;
}

sbx_status docker_engine_info(docker_engine *engine, const char *what,
                              docker_engine_facts *facts, sbx_error *err)
{
    memset(facts, 0, sizeof *facts);
    docker_engine_init *init = &facts->init;
    json_object *info = NULL;
    sbx_status st = get_object(engine, "/info", what, &info, err);
    if (st != SBX_OK)
        return st;
    /* Docker names its init and runs it for InitCommit: ID "N/A" when it
     * cannot ("" when it runs but names no commit, as Debian's tini);
     * podman names none whether it has catatonit or not. */
    const char *binary = NULL, *commit = NULL;
    json_object *init_commit = NULL;
    if (common_json_get_string(info, "InitBinary", &binary) == COMMON_JSON_OK &&
        binary[0] != '\0') {
        json_object_object_get_ex(info, "InitCommit", &init_commit);
        int failed = common_json_get_string(init_commit, "ID", &commit) == COMMON_JSON_OK &&
                     strcmp(commit, "N/A") == 0;
        *init = failed ? DOCKER_ENGINE_INIT_NO : DOCKER_ENGINE_INIT_YES;
    }
    static const struct {
        const char *key;
        size_t offset, size;
    } words[] = {
        { "ID", offsetof(docker_engine_facts, id), sizeof facts->id },
        { "ServerVersion", offsetof(docker_engine_facts, version), sizeof facts->version },
        { "Name", offsetof(docker_engine_facts, name), sizeof facts->name },
        { "DockerRootDir", offsetof(docker_engine_facts, root_dir), sizeof facts->root_dir },
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        const char *value = NULL;
        if (common_json_get_string(info, words[i].key, &value) == COMMON_JSON_OK)
            copy_word(value, (char *)facts + words[i].offset, words[i].size);
    }
    json_object_put(info);
    return SBX_OK;
}
