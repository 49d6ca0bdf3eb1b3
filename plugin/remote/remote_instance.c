/* Opening and closing a remote-backend instance (see remote_instance.h). */
#include <config.h>

#include "plugin/remote/remote_instance.h"

#include "plugin/remote/remote_answer_errors.h"
#include "plugin/remote/remote_create_spec.h"
#include "plugin/remote/remote_decode.h"
#include "plugin/remote/remote_extend.h"

#include <sbx/backend_support.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The probe the contract cache calls: GET /api/capabilities, bounded by
 * the reference client's 5 s (or get_timeout_ms when shorter).  A 404 means a
 * provisioner older than the route (version 0); transport errors, other
 * statuses and ill-typed answers are failed probes.  `ctx` is the instance. */
static sbx_status probe_capabilities(void *ctx, remote_probe_answer *answer, sbx_error *err)
{
    sbx_backend_instance *inst = ctx;
    common_http_response resp;
    sbx_error cause;
    sbx_backend_error_clear(&cause);
    long timeout_ms = inst->options.get_timeout_ms < REMOTE_PROBE_TIMEOUT_MS
                          ? inst->options.get_timeout_ms : REMOTE_PROBE_TIMEOUT_MS;
    common_http_call call = {.method = "GET", .path = "/api/capabilities",
                             .timeout_ms = timeout_ms};
    sbx_status st = common_http_perform(inst->http, &call, &resp, &cause);
    if (st != SBX_OK)
        return remote_wrap_error(&cause, "Provisioner capabilities probe failed", err);
    if (resp.status == 404) {
        answer->version = 0; /* a provisioner older than the capabilities route */
    } else if (resp.status != 200) {
        st = remote_answer_error(&inst->options, &resp, "Provisioner capabilities probe failed",
                                 err);
    } else {
        st = remote_decode_capabilities(resp.body, resp.body_len, &answer->version, &cause);
        if (st != SBX_OK) {
            remote_wrap_error(&cause, "Provisioner capabilities probe failed", err);
        } else {
            answer->create_fields = remote_decode_create_fields(resp.body, resp.body_len);
            answer->extend = remote_decode_extend(resp.body, resp.body_len);
        }
    }
    common_http_response_clear(&resp);
    return st;
}

/* A client of `url` with the instance's TLS and bounds, sending the
 * header "<key_header>: <key>" when `key` is set. */
typedef struct client_spec {
    const char *url;
    const char *key_header;
    const char *key;
    int url_is_capability; /* no message or log line shows more than scheme, host, port */
} client_spec;

static sbx_status new_client(const sbx_backend_instance *inst, const client_spec *spec,
                             common_http_client **out, sbx_error *err)
{
    char *key_header = NULL;
    const char *headers[1];
    size_t header_count = 0;
    if (spec->key != NULL) {
        size_t n = strlen(spec->key_header) + strlen(": ") + strlen(spec->key) + 1;
        key_header = malloc(n);
        if (key_header == NULL)
            return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
        snprintf(key_header, n, "%s: %s", spec->key_header, spec->key);
        headers[header_count++] = key_header;
    }
    common_http_client_options o = {
        .base_url = spec->url,
        .ca_file = inst->options.ca_file,
        .connect_timeout_ms = inst->options.connect_timeout_ms,
        .max_response_bytes = inst->options.max_response_bytes,
        .headers = headers,
        .header_count = header_count,
        .services = inst->services,
        .log_name = REMOTE_NAME,
        .base_path_is_capability = spec->url_is_capability,
    };
    sbx_status st = common_http_client_new(&o, out, err);
    if (key_header != NULL) {
        /* The copy held a secret: do not leave it in freed memory. */
        memset(key_header, 0, strlen(key_header));
        free(key_header);
    }
    return st;
}

/* The remote_client_maker of the sandboxes' table (`ctx` is the instance):
 * a client of sandbox_url `url` sending X-AIO-API-Key when a
 * sandbox_api_key is set.  A sandbox URL may be a capability
 * (sbx-provisiond's BASE/s/TOKEN), so only its scheme, host and port show. */
static sbx_status new_sandbox_client(void *ctx, const char *url, common_http_client **out,
                                     sbx_error *err)
{
    const sbx_backend_instance *inst = ctx;
    client_spec spec = { url, "X-AIO-API-Key", inst->options.sandbox_api_key, 1 };
    return new_client(inst, &spec, out, err);
}

sbx_status remote_open(const sbx_option *options, size_t option_count,
                       const sbx_host_services *services,
                       sbx_backend_instance **out, sbx_error *err)
{
    *out = NULL;
    sbx_backend_instance *inst = calloc(1, sizeof *inst);
    if (inst == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    inst->services = services;
    sbx_status st = remote_options_parse(options, option_count, &inst->options, err);
    if (st == SBX_OK) {
        client_spec spec = { inst->options.provisioner_url, "X-API-Key", inst->options.api_key,
                             0 };
        st = new_client(inst, &spec, &inst->http, err);
    }
    if (st == SBX_OK) {
        remote_contract_hooks hooks = {
            .probe = probe_capabilities,
            .probe_ctx = inst,
            .services = inst->services,
            .log_name = REMOTE_NAME,
        };
        st = remote_contract_cache_init(&inst->contract, &hooks, err);
    }
    if (st == SBX_OK &&
        (st = remote_sandbox_clients_init(&inst->sandboxes, new_sandbox_client, inst,
                                          err)) != SBX_OK)
        remote_contract_cache_destroy(&inst->contract);
    if (st == SBX_OK && remote_address_cache_init(&inst->addresses) != 0) {
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "remote: no lock for the addresses");
        remote_sandbox_clients_destroy(&inst->sandboxes);
        remote_contract_cache_destroy(&inst->contract);
    }
    if (st != SBX_OK) {
        common_http_client_free(inst->http);
        remote_options_clear(&inst->options);
        free(inst);
        return st;
    }
    REMOTE_LOG(inst, SBX_LOG_DEBUG, "opened for %s (%s)", common_http_client_shown_url(inst->http),
               inst->options.api_key != NULL ? "with an API key" : "without an API key");
    *out = inst;
    return SBX_OK;
}

void remote_close(sbx_backend_instance *inst)
{
    if (inst == NULL)
        return;
    remote_address_cache_destroy(&inst->addresses);
    remote_sandbox_clients_destroy(&inst->sandboxes);
    remote_contract_cache_destroy(&inst->contract);
    common_http_client_free(inst->http);
    remote_options_clear(&inst->options);
    free(inst);
}
