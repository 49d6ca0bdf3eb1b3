/* Reaching a sandbox's AIO API (see remote_endpoint.h). */
#include <config.h>

#include "plugin/remote/remote_endpoint.h"

#include "common/json_fields.h"
#include "common/redact.h"
#include "common/sandbox_ids.h"
#include "common/sandbox_records.h"
#include "common/utf8.h"
#include "plugin/remote/remote_aio_decode.h"
#include "plugin/remote/remote_answer_errors.h"
#include "plugin/remote/remote_decode.h"
#include "plugin/remote/remote_instance.h"
#include "plugin/remote/remote_lookup.h"
#include "plugin/remote/remote_sandbox_answer.h"
#include "plugin/remote/remote_sandbox_clients.h"

#include <sbx/backend_support.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A sandbox_url the backend will send requests to: http(s), and nothing a
 * path appended to it would land in (a query, a fragment) or that could
 * not be a URL (space, control, non-ASCII). */
static int url_usable(const char *url)
{
    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
        return 0;
    for (const unsigned char *p = (const unsigned char *)url; *p != '\0'; p++)
        if (*p <= ' ' || *p >= 127 || *p == '?' || *p == '#')
            return 0;
    return 1;
}

/* Hold the client of `url` in *ep, with `incarnation` (NULL or "": none)
 * copied; a failure undoes both. */
static sbx_status hold_address(remote_endpoint *ep, const char *url, const char *incarnation,
                               sbx_error *err)
{
    sbx_status st = SBX_OK;
    if (incarnation != NULL && incarnation[0] != '\0' &&
        (ep->incarnation = strdup(incarnation)) == NULL)
        st = remote_endpoint_no_memory(ep, err);
    if (st == SBX_OK) {
        sbx_error cause;
        sbx_backend_error_clear(&cause);
        st = remote_sandbox_clients_acquire(&ep->inst->sandboxes, url, &ep->client, &cause);
        if (st != SBX_OK)
            remote_wrap_error(&cause, remote_endpoint_what(ep), err);
        else
            ep->http = ep->client->http;
    }
    if (st != SBX_OK) {
        free(ep->incarnation);
        ep->incarnation = NULL;
    }
    return st;
}

sbx_status remote_endpoint_open(sbx_backend_instance *inst, const char *sandbox_id,
                                const char *op, remote_endpoint *ep, sbx_error *err)
{
    memset(ep, 0, sizeof *ep);
    ep->inst = inst;
    ep->sandbox_id = sandbox_id;
    ep->op = op;
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st != SBX_OK)
        return st;
    remote_sandbox_answer answer;
    remote_fields f;
    st = remote_lookup(inst, sandbox_id, &answer, &f, err);
    const char *status = f.text[REMOTE_FIELD_STATUS], *url = f.text[REMOTE_FIELD_URL];
    if (st == SBX_OK && status != NULL && strcmp(status, "Running") != 0)
        st = sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "%s: the sandbox is not running "
                                   "(status %s)", remote_endpoint_what(ep), status);
    else if (st == SBX_OK && !url_usable(url))
        st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                   "%s: the provisioner's sandbox_url is not an http(s) base URL",
                                   remote_endpoint_what(ep));
    if (st == SBX_OK)
        st = hold_address(ep, url, f.text[REMOTE_FIELD_INCARNATION], err);
    remote_sandbox_answer_free(&answer);
    return st;
}

/* Whether `url` is served by the provisioner at `provisioner_url` itself
 * (the same scheme, host and port): an address the provisioner routes, not
 * a container's that a later sandbox may be given. */
static int served_by_provisioner(const char *url, const char *provisioner_url)
{
    const char *host = strstr(provisioner_url, "://");
    if (host == NULL)
        return 0;
    size_t origin = (size_t)(host + 3 - provisioner_url);
    origin += strcspn(provisioner_url + origin, "/");
    return strncmp(url, provisioner_url, origin) == 0 &&
           (url[origin] == '/' || url[origin] == '\0');
}

sbx_status remote_endpoint_open_kept(sbx_backend_instance *inst, const char *sandbox_id,
                                     const char *op, remote_endpoint *ep, sbx_error *err)
{
    char *url = NULL, *incarnation = NULL;
    if (common_sandbox_id_is_valid(sandbox_id) &&
        remote_address_cache_find(&inst->addresses, sandbox_id, &url, &incarnation)) {
        memset(ep, 0, sizeof *ep);
        ep->inst = inst;
        ep->sandbox_id = sandbox_id;
        ep->op = op;
        ep->kept = 1;
        sbx_status st = hold_address(ep, url, incarnation, err);
        free(url);
        free(incarnation);
        return st;
    }
    sbx_status st = remote_endpoint_open(inst, sandbox_id, op, ep, err);
    if (st == SBX_OK && ep->incarnation != NULL &&
        served_by_provisioner(ep->client->url, inst->options.provisioner_url))
        remote_address_cache_keep(&inst->addresses, sandbox_id, ep->client->url,
                                  ep->incarnation);
    return st;
}

const char *remote_endpoint_what(remote_endpoint *ep)
{
    if (ep->what_text[0] == '\0')
        sbx_backend_format(ep->what_text, sizeof ep->what_text, "Sandbox %s failed for %s", ep->op,
                           ep->sandbox_id);
    return ep->what_text;
}

sbx_status remote_endpoint_no_memory(remote_endpoint *ep, sbx_error *err)
{
    return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "%s: out of memory",
                                 remote_endpoint_what(ep));
}

void remote_endpoint_close(remote_endpoint *ep)
{
    if (ep->inst != NULL)
        remote_sandbox_clients_release(&ep->inst->sandboxes, ep->client, ep->unreachable);
    ep->client = NULL;
    ep->http = NULL;
    free(ep->incarnation);
    ep->incarnation = NULL;
}

/* The sandbox's home_dir (an absolute path): the one its URL's client
 * keeps for this incarnation, else GET /v1/sandbox's, then kept when
 * discover named the incarnation. */
static sbx_status fetch_home(remote_endpoint *ep, char **home, sbx_error *err)
{
    remote_sandbox_clients *clients = &ep->inst->sandboxes;
    const remote_home_key key = {ep->sandbox_id, ep->incarnation};
    *home = ep->incarnation != NULL ? remote_sandbox_clients_home(clients, ep->client, key) : NULL;
    if (*home != NULL)
        return SBX_OK;
    common_http_response resp;
    common_http_call call = {.method = "GET", .path = "/v1/sandbox",
                             .timeout_ms = ep->inst->options.get_timeout_ms};
    sbx_status st = common_http_perform(ep->http, &call, &resp, err);
    if (st != SBX_OK)
        return remote_endpoint_fail(ep, err);
    if (resp.status != 200) {
        st = remote_endpoint_answer_error(ep, &resp, err);
        common_http_response_clear(&resp);
        return st;
    }
    remote_aio_answer answer;
    st = remote_aio_envelope(resp.body, resp.body_len, "GET /v1/sandbox",
                             SBX_ERR_PROVISIONER, &answer, err);
    common_http_response_clear(&resp);
    if (st != SBX_OK)
        return remote_endpoint_fail(ep, err);
    const char *dir = NULL;
    if (common_json_get_string(answer.root, "home_dir", &dir) != COMMON_JSON_OK || dir[0] != '/') {
        sbx_backend_error_set(err, SBX_ERR_PROTOCOL, "GET /v1/sandbox has no absolute home_dir");
        st = remote_endpoint_fail(ep, err);
    } else if ((*home = strdup(dir)) == NULL) {
        st = remote_endpoint_no_memory(ep, err);
    } else if (ep->incarnation != NULL) {
        remote_sandbox_clients_keep_home(clients, ep->client, key, dir);
    }
    json_object_put(answer.root);
    return st;
}

sbx_status remote_endpoint_path(remote_endpoint *ep, const char *path, int or_null, char **out,
                                sbx_error *err)
{
    *out = NULL;
    if (path == NULL && or_null)
        return SBX_OK;
    if (path == NULL || path[0] == '\0')
        return sbx_backend_error_set(err, SBX_ERR_USAGE, "%s: the path is empty",
                                     remote_endpoint_what(ep));
    if (!common_text_is_clean(path, strlen(path)))
        return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED,
                                     "%s: the path is not UTF-8 text, which the AIO API "
                                     "cannot carry", remote_endpoint_what(ep));
    if (path[0] == '/') {
        *out = strdup(path);
        return *out != NULL ? SBX_OK
                            : sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    char *home = NULL;
    sbx_status st = fetch_home(ep, &home, err);
    if (st != SBX_OK)
        return st;
    size_t hl = strlen(home);
    while (hl > 1 && home[hl - 1] == '/')
        hl--;
    size_t n = hl + 1 + strlen(path) + 1;
    *out = malloc(n);
    if (*out != NULL)
        snprintf(*out, n, "%.*s/%s", (int)(hl == 1 ? 0 : hl), home, path);
    free(home);
    return *out != NULL ? SBX_OK
                        : sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
}

/* err->message with each whole occurrence of `key` masked. */
static void mask_key(sbx_error *err, const char *key)
{
    if (key == NULL)
        return;
    char masked[SBX_ERROR_MESSAGE_MAX * (sizeof COMMON_REDACT_MASK - 1)];
    common_redact_secret(err->message, key, masked, sizeof masked);
    sbx_backend_format(err->message, sizeof err->message, "%s", masked);
}

sbx_status remote_endpoint_fail(remote_endpoint *ep, sbx_error *err)
{
    if (err->kind == SBX_ERR_TRANSPORT)
        ep->unreachable = 1;
    mask_key(err, ep->inst->options.sandbox_api_key);
    mask_key(err, ep->inst->options.api_key);
    return sbx_backend_error_prefix(err, "%s", remote_endpoint_what(ep));
}

sbx_status remote_endpoint_answer_error(remote_endpoint *ep,
                                        const common_http_response *resp, sbx_error *err)
{
    char detail[320];
    remote_detail_text(resp->body, resp->body_len, detail, sizeof detail);
    sbx_status kind = resp->status == 401 || resp->status == 403 ? SBX_ERR_UNAUTHORIZED
                      : resp->status >= 400                      ? SBX_ERR_PROVISIONER
                                                                 : SBX_ERR_PROTOCOL;
    sbx_backend_error_set(err, kind, "HTTP %ld%s%s%s", resp->status, detail[0] ? " " : "",
                          detail, kind == SBX_ERR_PROTOCOL ? " (unexpected status)" : "");
    remote_endpoint_fail(ep, err);
    err->http_status = (int)resp->status;
    return kind;
}
