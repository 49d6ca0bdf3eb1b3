/*
 * The docker backend's operations.  An instance holds its immutable options
 * and a thread-safe engine client; everything else is the engine's state,
 * so any number of instances (threads, processes) share the sandboxes.
 * Concurrent creates of one id are settled by the engine's unique container
 * names: the loser sees a name conflict and returns the winner's container.
 */

#include <config.h>

#include "plugin/docker/docker_backend.h"

#include "common/create_request.h"
#include "common/record_chain.h"
#include "common/sandbox_ids.h"
#include "common/sandbox_records.h"
#include "common/tcp_ready.h"
#include "plugin/docker/docker_container.h"
#include "plugin/docker/docker_engine.h"
#include "plugin/docker/docker_list_stream.h"
#include "plugin/docker/docker_options.h"
#include <sbx/backend_support.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Bound on create attempts while a concurrent create or destroy of the
 * same name settles (see make_or_find). */
#define CREATE_ATTEMPTS 200

/* ?filters={"label":["sbx.managed=true"]}, URL-encoded. */
#define LIST_QUERY "/containers/json?filters=%7B%22label%22%3A%5B%22sbx.managed%3Dtrue%22%5D%7D"

/* What the instance has learnt of the engine's init binary. */
enum engine_init {
    ENGINE_INIT_UNASKED = 0,   /* GET /info not sent yet */
    ENGINE_INIT_UNSAID = 1,    /* /info does not say (podman): learnt from a create */
    ENGINE_INIT_PRESENT = 2,
    ENGINE_INIT_ABSENT = 3
};

struct sbx_backend_instance {
    docker_options options;
    docker_engine engine;
    const sbx_host_services *services;   /* kept alive by the host until close */
    atomic_int engine_init;              /* enum engine_init; racing learners agree */
    /* Which engine answers (GET /version), learnt once for reconcile and
     * records; `identity` is written once under the lock, then only read. */
    pthread_mutex_t identity_lock;
    int identity_known;
    docker_engine_identity identity;
};

#define DOCKER_LOG(inst, level, ...) \
    sbx_backend_log((inst)->services, (level), DOCKER_NAME, __VA_ARGS__)

static sbx_status docker_open(const sbx_option *options, size_t option_count,
                              const sbx_host_services *services,
                              sbx_backend_instance **out, sbx_error *err)
{
    sbx_backend_instance *inst = calloc(1, sizeof *inst);
    if (inst == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    sbx_status st = docker_options_parse(options, option_count, &inst->options, err);
    if (st == SBX_OK)
        st = docker_engine_open(&inst->engine, &inst->options, services, err);
    if (st != SBX_OK) {
        docker_options_clear(&inst->options);
        free(inst);
        return st;
    }
    inst->services = services;
    pthread_mutex_init(&inst->identity_lock, NULL);
    DOCKER_LOG(inst, SBX_LOG_DEBUG, "engine socket %s, API %s", inst->options.socket_path,
               inst->options.api_version);
    *out = inst;
    return SBX_OK;
}

static void docker_close(sbx_backend_instance *inst)
{
    if (inst == NULL)
        return;
    docker_engine_close(&inst->engine);
    docker_options_clear(&inst->options);
    pthread_mutex_destroy(&inst->identity_lock);
    free(inst);
}

/* The engine's identity, asked once per instance (GET /version); *out
 * stays valid until close. */
static sbx_status engine_identity(sbx_backend_instance *inst, const char *what,
                                  const docker_engine_identity **out, sbx_error *err)
{
    sbx_status st = SBX_OK;
    pthread_mutex_lock(&inst->identity_lock);
    if (!inst->identity_known) {
        st = docker_engine_identify(&inst->engine, what, &inst->identity, err);
        inst->identity_known = st == SBX_OK;
    }
    pthread_mutex_unlock(&inst->identity_lock);
    *out = &inst->identity;
    return st;
}

/* Name the engine in what a record will say: "docker" or "podman" and its
 * version (NULL when it gave none). */
static void engine_facts(const docker_engine_identity *engine, common_record_facts *f)
{
    if (engine == NULL)
        return;
    f->engine = engine->is_podman ? "podman" : "docker";
    f->engine_version = engine->version[0] != '\0' ? engine->version : NULL;
}

/* For an answer in the shape `to` asks: the engine's identity when it is a
 * record (*engine NULL for a 1.1 answer, which does not name it). */
static sbx_status engine_for(sbx_backend_instance *inst, const common_answer *to,
                             const char *what, const docker_engine_identity **engine,
                             sbx_error *err)
{
    *engine = NULL;
    return to->record != NULL ? engine_identity(inst, what, engine, err) : SBX_OK;
}

/* Longest container ID kept (both engines make 64 hex digits). */
#define CONTAINER_ID_MAX 129

/* Inspect the container of `id`.  SBX_OK with the sandbox answered as `to`
 * asks (NULL when only *running is wanted; `engine`, NULL or the engine a
 * record names) and, when container_id is not NULL, the container's ID in
 * it (CONTAINER_ID_MAX bytes); SBX_ERR_NOT_FOUND for 404; transport,
 * protocol and engine errors otherwise. */
static sbx_status inspect_container(sbx_backend_instance *inst, const char *id,
                                    const common_answer *to,
                                    const docker_engine_identity *engine, int *running,
                                    char *container_id, sbx_error *err)
{
    char name[DOCKER_NAME_MAX], path[DOCKER_NAME_MAX + 32], what[96];
    docker_container_name(&inst->options, id, name, sizeof name);
    snprintf(path, sizeof path, "/containers/%s/json", name);
    sbx_backend_format(what, sizeof what, "inspect of sandbox '%s'", id);
    common_http_response resp;
    sbx_status st = docker_engine_call(&inst->engine,
                                       &(common_http_call){.method = "GET", .path = path},
                                       what, &resp, err);
    if (st != SBX_OK)
        return st;
    if (resp.status != 200) {
        st = docker_engine_error(&resp, what, SBX_ERR_NOT_FOUND, err);
        common_http_response_clear(&resp);
        return st;
    }
    json_object *o = docker_engine_parse(&resp, json_type_object, what, err);
    common_http_response_clear(&resp);
    if (o == NULL)
        return SBX_ERR_PROTOCOL;
    docker_sandbox_view view;
    st = docker_view_from_inspect(&inst->options, o, id, &view, running, err);
    if (st == SBX_OK && container_id != NULL && view.facts.container_id == NULL)
        st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                   "docker: %s: the answer has no container Id",
                                   what);
    if (st == SBX_OK && container_id != NULL)
        snprintf(container_id, CONTAINER_ID_MAX, "%s", view.facts.container_id);
    if (st == SBX_OK && to != NULL) {
        engine_facts(engine, &view.facts);
        st = common_answer_one(to, &view.facts, err);
    }
    json_object_put(o);
    return st;
}

/* inspect_container without the container's ID. */
static sbx_status inspect_sandbox(sbx_backend_instance *inst, const char *id,
                                  const common_answer *to,
                                  const docker_engine_identity *engine, int *running,
                                  sbx_error *err)
{
    return inspect_container(inst, id, to, engine, running, NULL, err);
}

/* One request on a sandbox's container: METHOD /containers/NAME<action><query>,
 * which may take extra_ms beyond the call timeout. */
typedef struct container_call {
    const char *method;   /* "POST", "DELETE" */
    const char *action;   /* "/start", "/stop", or "" for the container itself */
    const char *query;    /* "" or "?...", at most 32 bytes */
    long extra_ms;
} container_call;

/* Make `call` on the container of sandbox `id` (`container_id`: that very
 * container, NULL: whichever holds the sandbox's name): 2xx done, 304
 * already so; else the engine's error (SBX_ERR_NOT_FOUND for 404). */
static sbx_status container_action(sbx_backend_instance *inst, const char *id,
                                   const char *container_id, const container_call *call,
                                   sbx_error *err)
{
    /* The path fits: "/containers/" (12), the name or an ID (both at most
     * DOCKER_NAME_MAX - 1), an action of at most 6 and a query of at most
     * 32 bytes. */
    char name[DOCKER_NAME_MAX], path[DOCKER_NAME_MAX + 64], what[96];
    if (container_id == NULL)
        docker_container_name(&inst->options, id, name, sizeof name);
    snprintf(path, sizeof path, "/containers/%s%s%s", container_id != NULL ? container_id : name,
             call->action, call->query);
    sbx_backend_format(what, sizeof what, "%s of sandbox '%s'",
                       call->action[0] ? call->action + 1 : "removal", id);
    common_http_response resp;
    common_http_call engine_call = {.method = call->method, .path = path,
                                    .timeout_ms = call->extra_ms};
    sbx_status st = docker_engine_call(&inst->engine, &engine_call, what, &resp, err);
    if (st != SBX_OK)
        return st;
    if (resp.status < 200 || (resp.status >= 300 && resp.status != 304))
        st = docker_engine_error(&resp, what, SBX_ERR_NOT_FOUND, err);
    common_http_response_clear(&resp);
    return st;
}

static sbx_status remove_container(sbx_backend_instance *inst, const char *id,
                                   const char *container_id, sbx_error *err)
{
    static const container_call removal = { "DELETE", "", "?force=true", 0 };
    return container_action(inst, id, container_id, &removal, err);
}

/* The config error of init=true on an engine without an init binary. */
static sbx_status init_missing_error(const sbx_create_request *req, sbx_error *err)
{
    return sbx_backend_error_set(
        err, SBX_ERR_CONFIG,
        "docker: create of sandbox '%s': option 'init' is true but the engine "
        "has no init binary (podman: install catatonit; Docker: docker-init); "
        "set init to auto or false to run sandboxes without one",
        req->sandbox_id);
}

/* Remember that the engine has no init binary, and say so once. */
static void learn_init_absent(sbx_backend_instance *inst)
{
    if (atomic_exchange(&inst->engine_init, ENGINE_INIT_ABSENT) != ENGINE_INIT_ABSENT &&
        inst->options.init == DOCKER_INIT_AUTO)
        DOCKER_LOG(inst, SBX_LOG_WARN, "the engine has no init binary (podman: install catatonit): "
                   "sandboxes run without one, so destroy waits up to stop_grace_s for a PID 1 "
                   "that ignores SIGTERM (option init)");
}

/* Whether this create asks for an init (*init): the `init` option, and for
 * auto or true what the engine says of its init binary (GET /info, once
 * per instance).  An engine that does not say is tried with one. */
static sbx_status choose_init(sbx_backend_instance *inst, const sbx_create_request *req,
                              const char *what, int *init, sbx_error *err)
{
    *init = inst->options.init != DOCKER_INIT_OFF;
    if (!*init)
        return SBX_OK;
    if (atomic_load(&inst->engine_init) == ENGINE_INIT_UNASKED) {
        docker_engine_facts facts;
        sbx_status st = docker_engine_info(&inst->engine, what, &facts, err);
        if (st != SBX_OK)
            return st;
        docker_engine_init said = facts.init;
        if (said == DOCKER_ENGINE_INIT_NO)
            learn_init_absent(inst);
        else
            atomic_store(&inst->engine_init, said == DOCKER_ENGINE_INIT_YES
                                                 ? ENGINE_INIT_PRESENT : ENGINE_INIT_UNSAID);
    }
    if (atomic_load(&inst->engine_init) != ENGINE_INIT_ABSENT)
        return SBX_OK;
    *init = 0;
    return inst->options.init == DOCKER_INIT_ON ? init_missing_error(req, err) : SBX_OK;
}

/* POST /containers/create.  *created is 1 for a new container, 0 when the
 * name was taken (an existing sandbox, or a concurrent create of it).  It
 * is 1 on an error too when the engine answered 201 but reading the
 * answer failed (out of memory): the container exists then. */
/* The ID of the container a 201 answer says was made, into `made_id`
 * (DOCKER_NAME_MAX bytes; "" when the answer cannot be read).  Clean-up
 * removes by this ID: by name it could remove a container that replaced
 * ours meanwhile (a concurrent destroy and create of the same sandbox). */
static void remember_made_id(const common_http_response *resp, const char *what, char *made_id)
{
    sbx_error ignored;
    json_object *answer = docker_engine_parse(resp, json_type_object, what, &ignored);
    const char *id = answer != NULL ? docker_container_id(answer) : NULL;
    /* An ID cut short would name no container: then it counts as unknown. */
    if (id != NULL && strlen(id) < DOCKER_NAME_MAX)
        memcpy(made_id, id, strlen(id) + 1);
    json_object_put(answer);
}

static sbx_status create_container(sbx_backend_instance *inst, const sbx_create_request *req,
                                   int *created, char *made_id, sbx_error *err)
{
    *created = 0;
    made_id[0] = '\0';
    char name[DOCKER_NAME_MAX], path[DOCKER_NAME_MAX + 32], what[96];
    docker_container_name(&inst->options, req->sandbox_id, name, sizeof name);
    snprintf(path, sizeof path, "/containers/create?name=%s", name);
    sbx_backend_format(what, sizeof what, "create of sandbox '%s'", req->sandbox_id);
    int init = 0;
    sbx_status st = choose_init(inst, req, what, &init, err);
    common_http_response resp = { 0, NULL, 0 };
    for (;;) {
        char *body = NULL;
        if (st == SBX_OK)
            st = docker_create_body(&inst->options, req, init, &body, err);
        if (st == SBX_OK)
            st = docker_engine_call(&inst->engine,
                                    &(common_http_call){.method = "POST", .path = path,
                                                        .json_body = body},
                                    what, &resp, err);
        free(body);
        if (st != SBX_OK) {
            *created = resp.status == 201;
            return st;
        }
        /* An engine that did not say it lacks an init refuses one here
         * (podman without catatonit); nothing was created. */
        if (!init || !docker_engine_is_init_missing(&resp))
            break;
        common_http_response_clear(&resp);
        learn_init_absent(inst);
        if (inst->options.init == DOCKER_INIT_ON)
            return init_missing_error(req, err);
        init = 0;
    }
    *created = resp.status == 201;
    if (*created)
        remember_made_id(&resp, what, made_id);
    else if (!docker_engine_is_name_conflict(&resp))
        /* A 404 here is a missing image, not a missing sandbox. */
        st = docker_engine_error(&resp, what, SBX_ERR_PROVISIONER, err);
    common_http_response_clear(&resp);
    return st;
}

/* What the local engine cannot honour is refused before anything is sent. */
static sbx_status check_request(sbx_backend_instance *inst, const sbx_create_request *req,
                                sbx_error *err)
{
    sbx_status st = common_create_request_check(DOCKER_NAME, req, err);
    if (st != SBX_OK)
        return st;
    if (inst->options.image == NULL)
        return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                     "docker: option 'image' is required to create sandbox '%s'",
                                     req->sandbox_id);
    return common_create_request_refuse_contract(DOCKER_NAME, req, err);
}

/* Create the container, or find the existing one of that name; either way
 * leave it started.  A name can be taken by a create still in flight in
 * another thread or process (podman reserves the name before the container
 * can be inspected), or by a container being removed: then the engine says
 * "conflict" and "no such container" in turn, and we try again, bounded in
 * attempts and by the call timeout.  *created: this call made the
 * container (also when it failed afterwards), then `made_id` (DOCKER_NAME_MAX
 * bytes) its ID, "" when the engine's answer could not be read; *owned: the
 * container is the caller's (made now, or its owner's existing one), also
 * on failure. */
static sbx_status make_or_find(sbx_backend_instance *inst, const sbx_create_request *req,
                               int *created, char *made_id, int *owned, sbx_error *err)
{
    static const container_call start_call = { "POST", "/start", "", 0 };
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    time_t give_up = now.tv_sec + inst->options.timeout_ms / 1000 + 1;
    sbx_status st = SBX_OK;
    for (int attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
        int running = 0;
        st = create_container(inst, req, created, made_id, err);
        *owned = *created;
        /* A taken name must be our sandbox, and this caller's, before we
         * touch it. */
        if (st == SBX_OK && !*created) {
            sbx_sandbox *found = NULL;
            const common_answer to = { &found, NULL };
            st = inspect_sandbox(inst, req->sandbox_id, &to, NULL, &running, err);
            if (st == SBX_OK) {
                st = common_create_request_check_owner(DOCKER_NAME, req, found->user_id,
                                                       found->thread_id, err);
                common_answer_free(&to);
            }
            *owned = st == SBX_OK;
        }
        /* Start a new container, or bring a stopped sandbox back (304 when
         * a concurrent create started it meanwhile). */
        if (st == SBX_OK && (*created || !running))
            st = container_action(inst, req->sandbox_id, NULL, &start_call, err);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (st != SBX_ERR_NOT_FOUND || *created || now.tv_sec > give_up)
            break;
        DOCKER_LOG(inst, SBX_LOG_DEBUG, "sandbox %s: name taken by a container in transition; "
                   "trying again", req->sandbox_id);
    }
    return st;
}

/* A sandbox's URL must answer once create returns: wait until its server
 * replies to an HTTP request on the published port.  An accepted connection
 * is not enough: Docker's userland proxy accepts on the port by itself and
 * closes when nothing listens behind it.  The port is read back from the
 * URL that docker_sandbox_from_inspect formed (http://HOST:PORT or
 * http://[V6]:PORT), so it follows the last ':'.  On timeout the container
 * stays, for destroy. */
static sbx_status wait_until_serving(const sbx_backend_instance *inst, const sbx_sandbox *sb,
                                     sbx_error *err)
{
    if (inst->options.ready_timeout_ms == 0)
        return SBX_OK;
    const char *colon = strrchr(sb->sandbox_url, ':');
    long port = colon != NULL ? strtol(colon + 1, NULL, 10) : 0;
    if (port <= 0 || port > 65535)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "docker: sandbox '%s' has no port in '%.200s'",
                                     sb->sandbox_id, sb->sandbox_url);
    char what[96];
    sbx_backend_format(what, sizeof what, "docker: sandbox '%s'", sb->sandbox_id);
    return common_http_wait_ready(inst->options.bind_host, (int)port,
                                  inst->options.ready_timeout_ms,
                                  what, err);
}

/* create and create_record: the started sandbox, answered as `to` asks. */
static sbx_status create_sandbox(sbx_backend_instance *inst, const sbx_create_request *req,
                                 const common_answer *to, sbx_error *err)
{
    sbx_status st = check_request(inst, req, err);
    if (st != SBX_OK)
        return st;
    char what[96];
    sbx_backend_format(what, sizeof what, "create of sandbox '%s'", req->sandbox_id);
    const docker_engine_identity *engine = NULL;
    int created = 0, owned = 0, running = 0;
    char made_id[DOCKER_NAME_MAX] = "";
    st = engine_for(inst, to, what, &engine, err);
    if (st == SBX_OK)
        st = make_or_find(inst, req, &created, made_id, &owned, err);
    if (st == SBX_OK && created)
        DOCKER_LOG(inst, SBX_LOG_INFO, "created sandbox %s", req->sandbox_id);
    else if (st == SBX_OK)
        DOCKER_LOG(inst, SBX_LOG_DEBUG, "sandbox %s exists; returning it", req->sandbox_id);
    /* Read the published port back from the engine. */
    int answered = 0;
    if (st == SBX_OK) {
        st = inspect_sandbox(inst, req->sandbox_id, to, engine, &running, err);
        answered = st == SBX_OK;
    }
    const sbx_sandbox *one = answered ? common_answer_sandbox(to) : NULL;
    if (st == SBX_OK && (!running || one->sandbox_url[0] == '\0'))
        st = sbx_backend_error_set(err, SBX_ERR_PROVISIONER,
                                   "docker: sandbox '%s' %s after start", req->sandbox_id,
                                   running ? "publishes no port" : "is not running");
    /* The sandbox exists and runs from here on: a server that does not
     * answer in time leaves it for destroy (docs/docker.md). */
    int running_sandbox = st == SBX_OK;
    if (st == SBX_OK)
        st = wait_until_serving(inst, one, err);
    if (st != SBX_OK) {
        if (answered)
            common_answer_free(to);
        /* 404: the container went (a concurrent destroy); nothing is left. */
        if (st == SBX_ERR_NOT_FOUND)
            owned = 0;
        if (created && !running_sandbox && made_id[0] != '\0') {
            /* Leave no half-made sandbox behind; the first error stands.
             * Only the container this call made is removed, by its ID,
             * never one it found; without the ID it stays, said below. */
            sbx_error ignored;
            sbx_status removed = remove_container(inst, req->sandbox_id, made_id, &ignored);
            if (removed == SBX_OK || removed == SBX_ERR_NOT_FOUND)
                owned = 0;
        }
        /* What stays must not stay unseen: say so (docs/docker.md). */
        if (owned)
            common_answer_left_for_destroy(req->sandbox_id, err);
        DOCKER_LOG(inst, SBX_LOG_WARN, "create of sandbox %s failed: %s", req->sandbox_id,
                   err->message);
        return st;
    }
    return SBX_OK;
}

static sbx_status docker_create(sbx_backend_instance *inst, const sbx_create_request *req,
                                sbx_sandbox **out, sbx_error *err)
{
    return create_sandbox(inst, req, &(common_answer){ out, NULL }, err);
}

static sbx_status docker_create_record(sbx_backend_instance *inst,
                                       const sbx_create_request *req,
                                       sbx_sandbox_record **out, sbx_error *err)
{
    return create_sandbox(inst, req, &(common_answer){ NULL, out }, err);
}

static sbx_status docker_destroy(sbx_backend_instance *inst, const char *sandbox_id,
                                 sbx_error *err)
{
    int running = 0;
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    /* Never stop a container that only happens to carry our name. */
    if (st == SBX_OK)
        st = inspect_sandbox(inst, sandbox_id, NULL, NULL, &running, err);
    /* An explicit grace: podman's default is none, Docker's 10 s. */
    char query[32];
    snprintf(query, sizeof query, "?t=%ld", inst->options.stop_grace_s);
    const container_call stop = { "POST", "/stop", query, inst->options.stop_grace_s * 1000L };
    if (st == SBX_OK && running)
        st = container_action(inst, sandbox_id, NULL, &stop, err);
    if (st == SBX_OK || st == SBX_ERR_NOT_FOUND)
        st = remove_container(inst, sandbox_id, NULL, err);
    if (st == SBX_ERR_NOT_FOUND) {
        sbx_backend_error_clear(err);
        return SBX_OK;
    }
    if (st == SBX_OK)
        DOCKER_LOG(inst, SBX_LOG_INFO, "destroyed sandbox %s", sandbox_id);
    return st;
}

static sbx_status docker_is_alive(sbx_backend_instance *inst, const char *sandbox_id,
                                  int *alive, sbx_error *err)
{
    *alive = 0;
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st == SBX_OK)
        st = inspect_sandbox(inst, sandbox_id, NULL, NULL, alive, err);
    if (st == SBX_ERR_NOT_FOUND) {
        sbx_backend_error_clear(err);
        *alive = 0;
        return SBX_OK;
    }
    return st;
}

/* discover and discover_record. */
static sbx_status discover_sandbox(sbx_backend_instance *inst, const char *sandbox_id,
                                   const common_answer *to, sbx_error *err)
{
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st != SBX_OK)
        return st;
    char what[96];
    sbx_backend_format(what, sizeof what, "discover of sandbox '%s'", sandbox_id);
    const docker_engine_identity *engine = NULL;
    int running = 0;
    st = engine_for(inst, to, what, &engine, err);
    if (st == SBX_OK)
        st = inspect_sandbox(inst, sandbox_id, to, engine, &running, err);
    if (st == SBX_ERR_NOT_FOUND)
        sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "docker: sandbox '%s' not found", sandbox_id);
    return st;
}

static sbx_status docker_discover(sbx_backend_instance *inst, const char *sandbox_id,
                                  sbx_sandbox **out, sbx_error *err)
{
    return discover_sandbox(inst, sandbox_id, &(common_answer){ out, NULL }, err);
}

static sbx_status docker_discover_record(sbx_backend_instance *inst, const char *sandbox_id,
                                         sbx_sandbox_record **out, sbx_error *err)
{
    return discover_sandbox(inst, sandbox_id, &(common_answer){ NULL, out }, err);
}

/* Where the sandboxes of one list call go. */
typedef struct list_call {
    sbx_backend_instance *inst;
    const docker_engine_identity *engine;
    common_list_answer *list;
} list_call;

/* docker_list_found_fn: add the sandbox to the list. */
static int add_found(void *ctx, docker_sandbox_view *view)
{
    list_call *call = ctx;
    engine_facts(call->engine, &view->facts);
    sbx_error err;
    return common_list_answer_add(call->list, &view->facts, &err) == SBX_OK ? 0 : -1;
}

/* docker_list_skipped_fn: managed containers of other prefixes are normal,
 * not warnings. */
static void log_skipped(void *ctx, size_t index, docker_skip skip, const char *why)
{
    const sbx_backend_instance *inst = ctx;
    DOCKER_LOG(inst, skip == DOCKER_SKIP_OTHER_PREFIX ? SBX_LOG_DEBUG : SBX_LOG_WARN,
               "skipping list entry %zu: %s", index, why);
}

static int feed_list(void *ctx, const char *data, size_t len)
{
    return docker_list_stream_feed(ctx, data, len);
}

/* list_running and list_records: one list call, answered into `list` (a
 * record list also keeps running sandboxes without a published port).  A
 * 200 answer is decoded as it arrives (docker_list_stream.h). */
static sbx_status list_sandboxes(sbx_backend_instance *inst, common_list_answer *list,
                                 sbx_error *err)
{
    const char *what = "list of sandboxes";
    list_call call = { inst, NULL, list };
    sbx_status st = list->records != NULL ? engine_identity(inst, what, &call.engine, err)
                                          : SBX_OK;
    if (st != SBX_OK)
        return common_list_answer_finish(list, st);
    docker_list_stream *decoder =
        docker_list_stream_new(&inst->options, list->records != NULL, add_found, &call);
    if (decoder == NULL)
        return common_list_answer_finish(
            list, sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory"));
    common_http_body_sink sink = { .status = 200, .write = feed_list, .ctx = decoder };
    common_http_response resp;
    common_http_call get_list = {.method = "GET", .path = LIST_QUERY, .sink = &sink};
    st = docker_engine_call(&inst->engine, &get_list, what, &resp, err);
    if (st == SBX_OK && resp.status != 200)
        st = docker_engine_error(&resp, what, SBX_ERR_PROVISIONER, err);
    else if (st == SBX_OK)
        st = docker_list_stream_finish(decoder, what, log_skipped, inst, err);
    common_http_response_clear(&resp);
    docker_list_stream_free(decoder);
    return common_list_answer_finish(list, st);
}

static sbx_status docker_list_running(sbx_backend_instance *inst, sbx_sandbox **out,
                                      size_t *count, sbx_error *err)
{
    common_list_answer list;
    common_list_answer_start(&list, out, NULL, count);
    return list_sandboxes(inst, &list, err);
}

static sbx_status docker_list_records(sbx_backend_instance *inst, sbx_sandbox_record **out,
                                      size_t *count, sbx_error *err)
{
    common_list_answer list;
    common_list_answer_start(&list, NULL, out, count);
    return list_sandboxes(inst, &list, err);
}

/* What reconcile learnt, moved into *out: FOUND (the sandbox, an array of
 * one or NULL, kept only while it runs with a published port: a stopped
 * one has no address; it is consumed either way) or ABSENT.  0 when out of
 * memory: then *out is left UNKNOWN. */
static int settle_reconciliation(sbx_reconciliation *out, sbx_reconcile_status status,
                                 const char *engine_id, const char *container_id,
                                 sbx_sandbox *sandbox, int running)
{
    out->status = status;
    out->backend_namespace = strdup(engine_id);
    int ok = out->backend_namespace != NULL;
    if (status == SBX_RECONCILE_FOUND) {
        out->incarnation_id = strdup(container_id);
        ok = ok && out->incarnation_id != NULL;
    }
    if (ok && sandbox != NULL && running && sandbox->sandbox_url[0] != '\0')
        out->sandbox = sandbox;
    else
        common_sandbox_records_free(sandbox, sandbox != NULL ? 1 : 0);
    if (!ok)
        common_reconciliation_clear(out);
    return ok;
}

/* The namespace reconcile reports: Docker's engine ID (GET /info, kept in
 * its data root); podman answers a new random ID at every call, so there
 * it is "podman:HOSTNAME:STORAGE_ROOT", as stable as the engine's
 * storage. */
static sbx_status engine_namespace(sbx_backend_instance *inst, const char *what, char *buf,
                                   size_t size, sbx_error *err)
{
    const docker_engine_identity *engine = NULL;
    sbx_status st = engine_identity(inst, what, &engine, err);
    docker_engine_facts facts;
    if (st == SBX_OK)
        st = docker_engine_info(&inst->engine, what, &facts, err);
    if (st != SBX_OK)
        return st;
    int podman = engine->is_podman;
    if (podman ? facts.name[0] == '\0' || facts.root_dir[0] == '\0' : facts.id[0] == '\0')
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "docker: %s: the engine's /info gives no %s",
                                     what, podman ? "Name and DockerRootDir" : "ID");
    if (podman)
        snprintf(buf, size, "podman:%s:%s", facts.name, facts.root_dir);
    else
        snprintf(buf, size, "%s", facts.id);
    return SBX_OK;
}

/* found: the engine's identity (engine_namespace) is the namespace, the
 * container's ID the incarnation; absent: the engine says no container of that name
 * exists; unknown: anything else (logged at WARN), including a container
 * of that name that is not our sandbox. */
static sbx_status docker_reconcile(sbx_backend_instance *inst, const char *sandbox_id,
                                   sbx_reconciliation *out, sbx_error *err)
{
    memset(out, 0, sizeof *out);
    out->status = SBX_RECONCILE_UNKNOWN;
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st != SBX_OK)
        return st;
    char what[96], container_id[CONTAINER_ID_MAX];
    sbx_backend_format(what, sizeof what, "reconciliation of sandbox '%s'", sandbox_id);
    sbx_error cause;
    sbx_backend_error_clear(&cause);
    char name_space[512];
    st = engine_namespace(inst, what, name_space, sizeof name_space, &cause);
    sbx_sandbox *sandbox = NULL;
    int running = 0;
    if (st == SBX_OK)
        st = inspect_container(inst, sandbox_id, &(common_answer){ &sandbox, NULL }, NULL,
                               &running, container_id, &cause);
    if (st != SBX_OK && st != SBX_ERR_NOT_FOUND)
        DOCKER_LOG(inst, SBX_LOG_WARN, "%s is unknown: %s", what, cause.message);
    else if (!settle_reconciliation(out, st == SBX_OK ? SBX_RECONCILE_FOUND
                                                      : SBX_RECONCILE_ABSENT,
                                    name_space, container_id, sandbox, running))
        DOCKER_LOG(inst, SBX_LOG_WARN, "%s is unknown: out of memory", what);
    return SBX_OK;
}

static const sbx_backend_descriptor docker_descriptor = {
    .abi_major = SBX_BACKEND_ABI_MAJOR,
    .abi_minor = SBX_BACKEND_ABI_MINOR,
    .struct_size = sizeof(sbx_backend_descriptor),
    .name = DOCKER_NAME,
    .version = PACKAGE_VERSION,
    .open = docker_open,
    .close = docker_close,
    .create = docker_create,
    .destroy = docker_destroy,
    .is_alive = docker_is_alive,
    .discover = docker_discover,
    .list_running = docker_list_running,
    .free_sandboxes = common_sandbox_records_free,
    .capabilities = NULL,
    .reconcile = docker_reconcile,
    .clear_reconciliation = common_reconciliation_clear,
    .create_record = docker_create_record,
    .discover_record = docker_discover_record,
    .list_records = docker_list_records,
    .free_records = common_records_free,
};

const sbx_backend_descriptor *sbx_backend_entry(void)
{
    return &docker_descriptor;
}
