/* Sandbox containers: create body, inspect and list decoding. */
#include <config.h>

#include "plugin/docker/docker_container.h"

#include "common/create_request.h"
#include "common/iso_time.h"
#include "common/json_fields.h"
#include "common/sandbox_ids.h"
#include "common/sandbox_records.h"
#include "plugin/docker/docker_expiry.h"
#include "plugin/docker/docker_text.h"
#include <sbx/backend_support.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void docker_container_name(const docker_options *o, const char *sandbox_id,
                           char *buf, size_t size)
{
    snprintf(buf, size, "%s-%s", o->name_prefix, sandbox_id);
}

/* ---------------------------------------------------------------- create */

/* json-c reports failures by return value; collect them in one flag. */
typedef struct builder {
    int failed;
} builder;

static void add(builder *b, json_object *obj, const char *key, json_object *value)
{
    if (obj == NULL || value == NULL || json_object_object_add(obj, key, value) != 0) {
        json_object_put(value);
        b->failed = 1;
    }
}

static void push(builder *b, json_object *array, json_object *value)
{
    if (array == NULL || value == NULL || json_object_array_add(array, value) != 0) {
        json_object_put(value);
        b->failed = 1;
    }
}

static json_object *string_of(const char *s)
{
    return json_object_new_string(s);
}

static json_object *labels_of(builder *b, const docker_options *o,
                              const sbx_create_request *req)
{
    json_object *labels = json_object_new_object();
    add(b, labels, DOCKER_LABEL_MANAGED, string_of("true"));
    add(b, labels, DOCKER_LABEL_SANDBOX, string_of(req->sandbox_id));
    add(b, labels, DOCKER_LABEL_USER, string_of(common_create_request_user(req)));
    if (req->thread_id != NULL)
        add(b, labels, DOCKER_LABEL_THREAD, string_of(req->thread_id));
    for (size_t i = 0; i < o->labels.count; i++)
        add(b, labels, o->labels.items[i].key, string_of(o->labels.items[i].value));
    char spec[COMMON_SPEC_DIGEST_SIZE];
    common_create_spec_digest(req, spec);
    add(b, labels, DOCKER_LABEL_SPEC, string_of(spec));
    if (req->expires_at != SBX_TIME_UNKNOWN) {
        char expiry[DOCKER_EXPIRY_TEXT_MAX];
        snprintf(expiry, sizeof expiry, "%lld", (long long)req->expires_at);
        add(b, labels, DOCKER_LABEL_EXPIRES, string_of(expiry));
    }
    for (size_t i = 0; i < req->label_count; i++) {
        char key[sizeof DOCKER_LABEL_USER_PREFIX + SBX_LABEL_KEY_MAX];
        snprintf(key, sizeof key, "%s%s", DOCKER_LABEL_USER_PREFIX, req->labels[i].key);
        add(b, labels, key, string_of(req->labels[i].value));
    }
    return labels;
}

/* "NAME=VALUE" pushed onto `env`. */
static void push_variable(builder *b, json_object *env, const char *name, const char *value)
{
    size_t len = strlen(name) + strlen(value) + 2;
    char *item = malloc(len);
    if (item == NULL) {
        b->failed = 1;
        return;
    }
    snprintf(item, len, "%s=%s", name, value);
    push(b, env, string_of(item));
    free(item);
}

/* The options' env, then the request's: a later value of a name wins in
 * both engines. */
static json_object *env_of(builder *b, const docker_options *o, const sbx_create_request *req)
{
    json_object *env = json_object_new_array();
    for (size_t i = 0; i < o->env.count; i++)
        push_variable(b, env, o->env.items[i].key, o->env.items[i].value);
    for (size_t i = 0; i < req->env_count; i++)
        push_variable(b, env, req->env[i].name, req->env[i].value);
    return env;
}

/* Binds use "HOST:CONTAINER[:ro]": a path with ':' or ',' would be read as
 * another field, a relative one as a named volume. */
static int bind_path_ok(const char *path)
{
    return path != NULL && path[0] == '/' && strpbrk(path, ":,") == NULL;
}

static sbx_status binds_of(builder *b, const sbx_create_request *req, json_object **out,
                           sbx_error *err)
{
    *out = NULL;
    if (req->extra_mount_count == 0)
        return SBX_OK;
    if (req->extra_mounts == NULL)
        return sbx_backend_error_set(err, SBX_ERR_USAGE, "docker: extra_mounts is NULL");
    json_object *binds = json_object_new_array();
    for (size_t i = 0; i < req->extra_mount_count; i++) {
        const sbx_mount *m = &req->extra_mounts[i];
        if (!bind_path_ok(m->host_path) || !bind_path_ok(m->container_path)) {
            json_object_put(binds);
            return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                         "docker: mount '%.200s' -> '%.200s' of sandbox '%s': both "
                                         "paths must be absolute and free of ':' and ','",
                                         m->host_path ? m->host_path : "(null)",
                                         m->container_path ? m->container_path : "(null)",
                                         req->sandbox_id);
        }
        size_t len = strlen(m->host_path) + strlen(m->container_path) + 5;
        char *bind = malloc(len);
        if (bind == NULL) {
            b->failed = 1;
            continue;
        }
        snprintf(bind, len, "%s:%s%s", m->host_path, m->container_path,
                 m->read_only ? ":ro" : "");
        push(b, binds, string_of(bind));
        free(bind);
    }
    *out = binds;
    return SBX_OK;
}

/* The request's limits into HostConfig: memory with no swap beyond it (a
 * MemorySwap equal to Memory), CPU as nano-CPUs, the process count. */
static void limits_of(builder *b, json_object *host_config, const sbx_create_request *req)
{
    if (req->memory_bytes != SBX_LIMIT_NONE) {
        add(b, host_config, "Memory", json_object_new_int64(req->memory_bytes));
        add(b, host_config, "MemorySwap", json_object_new_int64(req->memory_bytes));
    }
    if (req->cpu_millicores != SBX_LIMIT_NONE)
        add(b, host_config, "NanoCpus", json_object_new_int64(req->cpu_millicores * 1000000));
    if (req->pids_limit != SBX_LIMIT_NONE)
        add(b, host_config, "PidsLimit", json_object_new_int64(req->pids_limit));
}

static json_object *host_config_of(builder *b, const docker_options *o,
                                   const char *port_key, json_object *binds, int init)
{
    json_object *host_config = json_object_new_object();
    json_object *bindings = json_object_new_object();
    json_object *list = json_object_new_array();
    json_object *binding = json_object_new_object();
    add(b, binding, "HostIp", string_of(o->bind_host));
    /* Empty: the engine picks a free host port; we read it back. */
    add(b, binding, "HostPort", string_of(""));
    push(b, list, binding);
    add(b, bindings, port_key, list);
    add(b, host_config, "PortBindings", bindings);
    if (binds != NULL)
        add(b, host_config, "Binds", binds);
    /* An init as PID 1 forwards SIGTERM, so stop does not wait the grace. */
    add(b, host_config, "Init", json_object_new_boolean(init));
    return host_config;
}

sbx_status docker_create_body(const docker_options *o, const sbx_create_request *req,
                              int init, char **out, sbx_error *err)
{
    builder b = { 0 };
    json_object *binds = NULL;
    sbx_status st = binds_of(&b, req, &binds, err);
    if (st != SBX_OK)
        return st;
    char port_key[24];
    snprintf(port_key, sizeof port_key, "%ld/tcp", o->port);
    json_object *body = json_object_new_object();
    add(&b, body, "Image", string_of(req->image != NULL ? req->image : o->image));
    add(&b, body, "Labels", labels_of(&b, o, req));
    if (o->env.count > 0 || req->env_count > 0)
        add(&b, body, "Env", env_of(&b, o, req));
    if (o->command != NULL) {
        json_object *cmd = json_object_new_array();
        push(&b, cmd, string_of("sh"));
        push(&b, cmd, string_of("-c"));
        push(&b, cmd, string_of(o->command));
        add(&b, body, "Cmd", cmd);
    }
    json_object *exposed = json_object_new_object();
    add(&b, exposed, port_key, json_object_new_object());
    add(&b, body, "ExposedPorts", exposed);
    json_object *host_config = host_config_of(&b, o, port_key, binds, init);
    limits_of(&b, host_config, req);
    add(&b, body, "HostConfig", host_config);
    const char *text = b.failed ? NULL
                                : json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN);
    *out = text ? strdup(text) : NULL;
    json_object_put(body);
    if (*out == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    return SBX_OK;
}

/* ---------------------------------------------------------------- reading */

static const char *label(json_object *labels, const char *key)
{
    const char *value = NULL;
    return common_json_get_string(labels, key, &value) == COMMON_JSON_OK ? value : NULL;
}

/* 1 when the labels say: managed by sbx, sandbox `sandbox_id` (NULL: any
 * valid id), with valid identity labels (they are shown to callers as the
 * sandbox's identity). */
static int labels_ok(const docker_labels *l, const char *sandbox_id)
{
    const char *id = l->sandbox_id;
    return l->managed != NULL && strcmp(l->managed, "true") == 0 && id != NULL &&
           (sandbox_id == NULL ? common_sandbox_id_is_valid(id) : strcmp(id, sandbox_id) == 0) &&
           (l->thread_id == NULL || common_principal_id_is_valid(l->thread_id)) &&
           (l->user_id == NULL || common_principal_id_is_valid(l->user_id)) &&
           (l->expires_at == NULL || docker_expiry_parse(l->expires_at, &(int64_t){0}));
}

/* The sbx labels of a Labels object (borrowed from it). */
static docker_labels labels_of_json(json_object *labels)
{
    docker_labels l = {
        .managed = label(labels, DOCKER_LABEL_MANAGED),
        .sandbox_id = label(labels, DOCKER_LABEL_SANDBOX),
        .thread_id = label(labels, DOCKER_LABEL_THREAD),
        .user_id = label(labels, DOCKER_LABEL_USER),
        .expires_at = label(labels, DOCKER_LABEL_EXPIRES),
    };
    return l;
}

/* The request's labels a Labels object holds (sbx.label.KEY, borrowed
 * from it) and its spec label, into the view and its facts. */
static void user_labels_of_json(json_object *labels, docker_sandbox_view *view)
{
    size_t n = 0;
    size_t prefix = strlen(DOCKER_LABEL_USER_PREFIX);
    view->spec = label(labels, DOCKER_LABEL_SPEC);
    if (!json_object_is_type(labels, json_type_object))
        return;
    json_object_object_foreach(labels, key, value) {
        if (n < SBX_LABELS_MAX && strncmp(key, DOCKER_LABEL_USER_PREFIX, prefix) == 0 &&
            key[prefix] != '\0' && json_object_is_type(value, json_type_string))
            view->labels[n++] = (sbx_label){ key + prefix, json_object_get_string(value) };
    }
    view->facts.labels = n > 0 ? view->labels : NULL;
    view->facts.label_count = n;
}

/* "http://HOST:PORT", with brackets for an IPv6 host; "" for a port that
 * is not one (no digits, or more than a port has, which would not fit).
 * bind_host is at most 255 bytes (docker_options.c), so 272 bytes hold it. */
static void format_url(const docker_options *o, const char *port, char *buf, size_t size)
{
    if (port == NULL || port[0] == '\0' || strlen(port) > 5 ||
        strspn(port, "0123456789") != strlen(port))
        snprintf(buf, size, "%s", "");
    else if (strchr(o->bind_host, ':') != NULL)
        snprintf(buf, size, "http://[%s]:%s", o->bind_host, port);
    else
        snprintf(buf, size, "http://%s:%s", o->bind_host, port);
}

/* The engine's state word as a status ("running" -> "Running"). */
static void format_status(const char *state, char *buf, size_t size)
{
    const char *s = state ? state : "unknown";
    sbx_backend_format(buf, size, "%s", s);
    buf[0] = (char)toupper((unsigned char)buf[0]);
}

/* The facts every answer gives: identity from the labels, the URL, the
 * status word, the container's name (ours: PREFIX-ID), Id and creation
 * time in milliseconds (SBX_TIME_UNKNOWN when not known). */
static void view_from_labels(const docker_options *o, const docker_labels *labels,
                             const char *state, const char *container_id, int64_t created_ms,
                             docker_sandbox_view *view)
{
    common_record_facts *f = &view->facts;
    format_status(state, view->status, sizeof view->status);
    common_record_facts_init(f);
    view->spec = NULL;
    /* labels_ok has checked that the id label is there. */
    const char *id = labels->sandbox_id;
    f->sandbox_id = id;
    docker_container_name(o, id != NULL ? id : "", view->name, sizeof view->name);
    f->sandbox_url = view->url;
    f->user_id = labels->user_id ? labels->user_id : COMMON_DEFAULT_USER_ID;
    f->thread_id = labels->thread_id;
    f->status = view->status;
    f->created_at = created_ms;
    f->container_id = f->incarnation_id = container_id;
    f->container_name = view->name;
    if (labels->expires_at == NULL || !docker_expiry_parse(labels->expires_at, &f->expires_at))
        f->expires_at = SBX_TIME_UNKNOWN;
}

/* NetworkSettings.Ports["PORT/tcp"][0].HostPort of an inspect answer. */
static const char *inspect_host_port(const docker_options *o, json_object *inspect)
{
    char port_key[24];
    snprintf(port_key, sizeof port_key, "%ld/tcp", o->port);
    json_object *net = NULL, *ports = NULL, *list = NULL;
    if (!json_object_object_get_ex(inspect, "NetworkSettings", &net) ||
        !json_object_object_get_ex(net, "Ports", &ports) ||
        !json_object_object_get_ex(ports, port_key, &list) ||
        !json_object_is_type(list, json_type_array) || json_object_array_length(list) == 0)
        return NULL;
    const char *port = NULL;
    json_object *first = json_object_array_get_idx(list, 0);
    return common_json_get_string(first, "HostPort", &port) == COMMON_JSON_OK ? port : NULL;
}

sbx_status docker_view_from_inspect(const docker_options *o, json_object *inspect,
                                    const char *sandbox_id, docker_sandbox_view *view,
                                    int *running, sbx_error *err)
{
    json_object *config = NULL, *labels_json = NULL, *state = NULL;
    const char *status = NULL;
    int is_running = 0;
    json_object_object_get_ex(inspect, "Config", &config);
    docker_labels labels = labels_of_json(NULL);
    if (json_object_object_get_ex(config, "Labels", &labels_json))
        labels = labels_of_json(labels_json);
    if (config == NULL || labels_json == NULL || !labels_ok(&labels, sandbox_id))
        return sbx_backend_error_set(
            err, SBX_ERR_PROTOCOL,
            "docker: the container named for sandbox '%s' is not a sandbox "
            "managed by sbx (labels differ)", sandbox_id);
    if (!json_object_object_get_ex(inspect, "State", &state) ||
        common_json_get_bool(state, "Running", &is_running) != COMMON_JSON_OK ||
        common_json_get_string(state, "Status", &status) != COMMON_JSON_OK)
        return sbx_backend_error_set(
            err, SBX_ERR_PROTOCOL,
            "docker: inspect of sandbox '%s' has no State.Running", sandbox_id);
    format_url(o, is_running ? inspect_host_port(o, inspect) : NULL, view->url,
               sizeof view->url);
    *running = is_running;
    const char *created = NULL;
    int64_t created_ms = SBX_TIME_UNKNOWN;
    if (common_json_get_string(inspect, "Created", &created) != COMMON_JSON_OK ||
        !common_time_parse_rfc3339(created, &created_ms))
        created_ms = SBX_TIME_UNKNOWN;
    else   /* whole seconds, as the list gives them: one container, one time */
        created_ms -= ((created_ms % 1000) + 1000) % 1000;
    view_from_labels(o, &labels, status, docker_container_id(inspect), created_ms, view);
    user_labels_of_json(labels_json, view);
    return SBX_OK;
}

const char *docker_container_id_checked(const char *id)
{
    if (id == NULL || id[0] == '\0' || strlen(id) > 128 ||
        id[strspn(id, "0123456789abcdef")] != '\0')
        return NULL;
    return id;
}

const char *docker_container_id(json_object *inspect)
{
    const char *id = NULL;
    if (common_json_get_string(inspect, "Id", &id) != COMMON_JSON_OK)
        return NULL;
    return docker_container_id_checked(id);
}

int docker_port_is_sandbox(const docker_options *o, int private_port, int public_port,
                           const char *type)
{
    return private_port == o->port && strcmp(type, "tcp") == 0 && public_port > 0;
}

int64_t docker_created_ms(int64_t seconds)
{
    return seconds > 0 && seconds < INT64_MAX / 1000 ? seconds * 1000 : SBX_TIME_UNKNOWN;
}

/* The public port of the sandbox port in a list entry's Ports array, 0
 * when none. */
static int list_host_port(const docker_options *o, json_object *entry)
{
    json_object *ports = NULL;
    if (!json_object_object_get_ex(entry, "Ports", &ports) ||
        !json_object_is_type(ports, json_type_array))
        return 0;
    for (size_t i = 0; i < json_object_array_length(ports); i++) {
        json_object *p = json_object_array_get_idx(ports, i);
        int private_port = 0, public_port = 0;
        const char *type = NULL;
        if (common_json_get_int(p, "PrivatePort", &private_port) == COMMON_JSON_OK &&
            common_json_get_int(p, "PublicPort", &public_port) == COMMON_JSON_OK &&
            common_json_get_string(p, "Type", &type) == COMMON_JSON_OK &&
            docker_port_is_sandbox(o, private_port, public_port, type))
            return public_port;
    }
    return 0;
}

/* docker_list_entry.named of a json-c entry: Names holds `expected`. */
static int json_names_hold(const void *ctx, const char *expected)
{
    json_object *entry = (json_object *)ctx;
    json_object *names = NULL;
    if (!json_object_object_get_ex(entry, "Names", &names) ||
        !json_object_is_type(names, json_type_array))
        return 0;
    for (size_t i = 0; i < json_object_array_length(names); i++) {
        json_object *n = json_object_array_get_idx(names, i);
        if (json_object_is_type(n, json_type_string) &&
            strcmp(json_object_get_string(n), expected) == 0)
            return 1;
    }
    return 0;
}

/* Created of a list entry (seconds since the epoch) in milliseconds. */
static int64_t list_created_ms(json_object *entry)
{
    json_object *created = NULL;
    if (!json_object_object_get_ex(entry, "Created", &created) ||
        !json_object_is_type(created, json_type_int))
        return SBX_TIME_UNKNOWN;
    return docker_created_ms(json_object_get_int64(created));
}

int docker_view_from_list_members(const docker_options *o, const docker_list_entry *entry,
                                  int keep_unaddressed, docker_sandbox_view *view,
                                  docker_skip_note *skip)
{
    skip->kind = DOCKER_SKIP_INVALID;
    if (!labels_ok(&entry->labels, NULL)) {
        snprintf(skip->why, sizeof skip->why, "missing or invalid sbx labels");
        return 0;
    }
    char expected[DOCKER_NAME_MAX + 1];
    expected[0] = '/';
    docker_container_name(o, entry->labels.sandbox_id, expected + 1, sizeof expected - 1);
    if (!entry->named(entry->names, expected)) {
        skip->kind = DOCKER_SKIP_OTHER_PREFIX;
        snprintf(skip->why, sizeof skip->why, "named with another prefix");
        return 0;
    }
    char port[16];
    snprintf(port, sizeof port, "%d", entry->public_port);
    format_url(o, entry->public_port > 0 ? port : NULL, view->url, sizeof view->url);
    if (view->url[0] == '\0' && !keep_unaddressed) {
        snprintf(skip->why, sizeof skip->why, "the sandbox port is not published");
        return 0;
    }
    view_from_labels(o, &entry->labels, entry->state ? entry->state : "running",
                     docker_container_id_checked(entry->id), entry->created_ms, view);
    return 1;
}

int docker_view_from_list_entry(const docker_options *o, json_object *entry,
                                int keep_unaddressed, docker_sandbox_view *view,
                                docker_skip_note *skip)
{
    char field[160];
    if (!docker_json_text_ok(entry, field, sizeof field)) {
        skip->kind = DOCKER_SKIP_INVALID;
        snprintf(skip->why, sizeof skip->why, "field '%s' holds a NUL or invalid UTF-8", field);
        return 0;
    }
    json_object *labels = NULL;
    docker_list_entry members = { .named = json_names_hold, .names = entry };
    json_object_object_get_ex(entry, "Labels", &labels);
    members.labels = labels_of_json(labels);
    members.public_port = list_host_port(o, entry);
    common_json_get_string(entry, "State", &members.state);
    common_json_get_string(entry, "Id", &members.id);
    members.created_ms = list_created_ms(entry);
    int found = docker_view_from_list_members(o, &members, keep_unaddressed, view, skip);
    if (found)
        user_labels_of_json(labels, view);
    return found;
}
