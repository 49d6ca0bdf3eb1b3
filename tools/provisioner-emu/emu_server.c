/* The emulator on the shared provisioner server: its hooks add the
 * control API, the request log and faults; everything about HTTP is
 * tools/provisioner-common/prov_server.c. */
#include <config.h>

#include "tools/provisioner-emu/emu_server.h"

#include "tools/provisioner-emu/emu_alloc.h"

#include "tools/provisioner-common/prov_server.h"
#include "tools/provisioner-emu/emu_api.h"
#include "tools/provisioner-emu/emu_control.h"

#include <stdlib.h>
#include <string.h>

/* Bodies beyond this are answered 413 (nothing the protocol sends is close). */
#define MAX_BODY_BYTES (1024 * 1024)

/* With the sandbox API served (--aio), files travel in bodies too, base64
 * in JSON: room for a 32 MiB file. */
#define AIO_MAX_BODY_BYTES (48 * 1024 * 1024)

/* A body that no JSON parser accepts. */
#define GARBAGE_BODY "<html>502 this is not JSON {{{"

/* The part of a JSON answer a truncated response sends before closing. */
#define TRUNCATED_BODY "{\"sandbox_id\":\"trunc"

struct emu_server {
    prov_server *server;
    emu_context *ctx;
};

/* Apply the route's next fault.  Returns 1 when the fault produced the
 * answer; 0 when the request is to be answered normally (no fault, or
 * after a delay or hold). */
static int apply_fault(emu_context *ctx, prov_route route, prov_reply *reply)
{
    emu_fault fault;
    emu_faults_take(ctx->faults, route, &fault);
    emu_faults_delay(ctx->faults, fault.delay_ms);
    int answered = 1;
    switch (fault.action) {
    case EMU_FAULT_RESPOND:
        prov_reply_text(reply, fault.status, fault.body,
                            fault.content_type != NULL ? fault.content_type
                                                       : "application/json");
        reply->location = fault.location;
        fault.location = NULL;
        break;
    case EMU_FAULT_GARBAGE:
        prov_reply_text(reply, 200, GARBAGE_BODY, "application/json");
        break;
    case EMU_FAULT_TRUNCATE:
        prov_reply_text(reply, 200, TRUNCATED_BODY, "application/json");
        reply->kind = PROV_REPLY_TRUNCATE;
        break;
    case EMU_FAULT_DROP:
        reply->kind = PROV_REPLY_DROP;
        break;
    case EMU_FAULT_HOLD:
        emu_faults_hold(ctx->faults, route);
        answered = 0;
        break;
    case EMU_FAULT_DELAY:
    case EMU_FAULT_NONE:
        answered = 0;
        break;
    }
    emu_fault_clear(&fault);
    return answered;
}

static int control_request(void *cls, const prov_request *req, prov_reply *reply)
{
    emu_context *ctx = cls;
    if (ctx->aio != NULL && emu_aio_answer(ctx->aio, ctx->store, req, reply))
        return 1;
    if (strncmp(req->path, EMU_CONTROL_PREFIX, strlen(EMU_CONTROL_PREFIX)) != 0)
        return 0;
    emu_control_answer(cls, req, reply);
    return 1;
}

static void log_request(void *cls, const prov_request *req)
{
    emu_context *ctx = cls;
    emu_request_log_add(ctx->log, req);
}

static int route_enabled(void *cls, prov_route route)
{
    return emu_api_route_enabled(cls, route);
}

/* A route's fault acts once the request has passed the key check and
 * reached it, as the real provisioner's handler would. */
static void answer_route(void *cls, const prov_request *req, prov_route route,
                         const char *id, prov_reply *reply)
{
    emu_context *ctx = cls;
    if (apply_fault(ctx, route, reply))
        return;
    emu_api_answer(ctx, route, id, req, reply);
}

emu_server *emu_server_start(emu_context *ctx, unsigned port,
                                     const emu_tls *tls, unsigned *bound_port,
                                     char *why, size_t why_len)
{
    const prov_server_options options = {
        .name = "sbx-provisioner-emu",
        .address = "127.0.0.1",
        .port = port,
        .cert_pem = tls != NULL ? tls->cert_pem : NULL,
        .key_pem = tls != NULL ? tls->key_pem : NULL,
        .api_key = ctx->api_key,
        .fail_closed = ctx->fail_closed,
        .max_body_bytes = ctx->aio != NULL ? AIO_MAX_BODY_BYTES : MAX_BODY_BYTES,
        /* held, delayed and long-polling requests block only themselves */
        .threads = 0,
        .verbose = ctx->verbose,
    };
    const prov_handlers handlers = {ctx, control_request, log_request, route_enabled,
                                        answer_route};
    prov_server *server =
        prov_server_start(&options, &handlers, bound_port, why, why_len);
    if (server == NULL)
        return NULL;
    emu_server *emu = emu_xmalloc(sizeof *emu, "the server");
    emu->server = server;
    emu->ctx = ctx;
    return emu;
}

void emu_server_stop(emu_server *server)
{
    if (server == NULL)
        return;
    emu_faults_shutdown(server->ctx->faults);
    prov_server_stop(server->server, 0, NULL);
    free(server);
}
