/*
 * The docker backend's create (see docker_create.h).  Concurrent creates of
 * one id are settled by the engine's unique container names: the loser
 * sees a name conflict and returns the winner's container.
 */
#include <config.h>

#include "plugin/docker/docker_create.h"

#include "common/create_request.h"
#include "common/mount_contract.h"
#include "common/record_chain.h"
#include "common/tcp_ready.h"
#include "plugin/docker/docker_calls.h"
#include "plugin/docker/docker_container.h"
#include "plugin/docker/docker_network.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Bound on create attempts while a concurrent create or destroy of the
 * same name settles (see make_or_find). */
#define CREATE_ATTEMPTS 200

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
    if (atomic_exchange(&inst->engine_init, DOCKER_LEARNT_INIT_ABSENT) !=
            DOCKER_LEARNT_INIT_ABSENT &&
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
    if (atomic_load(&inst->engine_init) == DOCKER_LEARNT_INIT_UNASKED) {
        docker_engine_facts facts;
        sbx_status st = docker_engine_info(&inst->engine, what, &facts, err);
        if (st != SBX_OK)
            return st;
        docker_engine_init said = facts.init;
        if (said == DOCKER_ENGINE_INIT_NO)
            learn_init_absent(inst);
        else
            atomic_store(&inst->engine_init, said == DOCKER_ENGINE_INIT_YES
                                                 ? DOCKER_LEARNT_INIT_PRESENT
                                                 : DOCKER_LEARNT_INIT_UNSAID);
    }
    if (atomic_load(&inst->engine_init) != DOCKER_LEARNT_INIT_ABSENT)
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
            st = docker_network_apply(req, &body, err);
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
                                const sbx_create_request *full, sbx_error *err)
{
    sbx_status st = common_create_request_check(DOCKER_NAME, req, err);
    if (st == SBX_OK)
        st = common_create_request_check_fields(full, err);
    if (st == SBX_OK)
        st = common_create_request_refuse_unhonoured(DOCKER_NAME, full, DOCKER_CREATE_FIELDS,
                                                     err);
    if (st != SBX_OK)
        return st;
    if (inst->options.image == NULL && full->image == NULL)
        return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                     "docker: option 'image' (or the request's image) is "
                                     "required to create sandbox '%s'",
                                     req->sandbox_id);
    return common_builtin_contract_check(DOCKER_NAME, req, err);
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
    static const docker_container_call start_call = { "POST", "/start", "", 0 };
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
            char spec[COMMON_SPEC_DIGEST_SIZE];
            docker_inspect_wants wants = { .to = &to, .running = &running, .spec = spec };
            st = docker_inspect_container(inst, req->sandbox_id, &wants, err);
            if (st == SBX_OK) {
                st = common_create_request_check_owner(DOCKER_NAME, req, found->user_id,
                                                       found->thread_id, err);
                common_answer_free(&to);
            }
            /* Then the spec: a container made for another image, env,
             * labels or limits is not handed out as this one. */
            if (st == SBX_OK)
                st = common_create_request_check_spec(DOCKER_NAME, req,
                                                      spec[0] != '\0' ? spec : NULL, err);
            *owned = st == SBX_OK;
        }
        /* Start a new container, or bring a stopped sandbox back (304 when
         * a concurrent create started it meanwhile). */
        if (st == SBX_OK && (*created || !running))
            st = docker_container_action(inst, req->sandbox_id, NULL, &start_call, err);
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
    sbx_create_request full;
    if (req != NULL)
        common_create_request_read(req, &full);
    sbx_status st = check_request(inst, req, &full, err);
    if (st != SBX_OK)
        return st;
    req = &full;
    char what[96];
    sbx_backend_format(what, sizeof what, "create of sandbox '%s'", req->sandbox_id);
    const docker_engine_identity *engine = NULL;
    int created = 0, owned = 0, running = 0;
    char made_id[DOCKER_NAME_MAX] = "";
    st = docker_instance_engine_for(inst, to, what, &engine, err);
    if (st == SBX_OK)
        st = make_or_find(inst, req, &created, made_id, &owned, err);
    if (st == SBX_OK && created)
        DOCKER_LOG(inst, SBX_LOG_INFO, "created sandbox %s", req->sandbox_id);
    else if (st == SBX_OK)
        DOCKER_LOG(inst, SBX_LOG_DEBUG, "sandbox %s exists; returning it", req->sandbox_id);
    /* Read the published port back from the engine. */
    int answered = 0;
    if (st == SBX_OK) {
        st = docker_inspect_sandbox(inst, req->sandbox_id, to, engine, &running, err);
        answered = st == SBX_OK;
    }
    const sbx_sandbox *one = answered ? common_answer_sandbox(to) : NULL;
    /* Without a network it publishes nothing: it has no address. */
    int publishes = docker_network_publishes(req);
    if (st == SBX_OK && (!running || (publishes && one->sandbox_url[0] == '\0')))
        st = sbx_backend_error_set(err, SBX_ERR_PROVISIONER,
                                   "docker: sandbox '%s' %s after start", req->sandbox_id,
                                   running ? "publishes no port" : "is not running");
    /* The sandbox exists and runs from here on: a server that does not
     * answer in time leaves it for destroy (docs/docker.md). */
    int running_sandbox = st == SBX_OK;
    if (st == SBX_OK && publishes)
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
            sbx_status removed = docker_remove_container(inst, req->sandbox_id, made_id, &ignored);
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

sbx_status docker_create(sbx_backend_instance *inst, const sbx_create_request *req,
                         sbx_sandbox **out, sbx_error *err)
{
    return create_sandbox(inst, req, &(common_answer){ out, NULL }, err);
}

sbx_status docker_create_record(sbx_backend_instance *inst,
                                const sbx_create_request *req,
                                sbx_sandbox_record **out, sbx_error *err)
{
    return create_sandbox(inst, req, &(common_answer){ NULL, out }, err);
}
