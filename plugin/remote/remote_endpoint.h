/*
 * Reaching one sandbox's AIO API: where it is, asked for every operation,
 * and its home directory, asked once per sandbox_url, id and incarnation
 * when discover names the incarnation (kept with that URL's connections:
 * remote_sandbox_clients.h), else asked for every operation.  Safe on
 * many threads at once.
 */
#ifndef SBX_REMOTE_ENDPOINT_H
#define SBX_REMOTE_ENDPOINT_H

#include <sbx/backend.h>

#include "common/http_client.h"

struct sbx_backend_instance;

/* One operation's way to a sandbox: its URL's client, held from the
 * instance's table (remote_sandbox_clients.h) until remote_endpoint_close. */
typedef struct remote_endpoint {
    struct sbx_backend_instance *inst;
    const char *sandbox_id;   /* borrowed from the caller, checked */
    struct remote_sandbox_client *client;
    common_http_client *http; /* client->http */
    int unreachable;          /* a call could not reach the address */
    char *incarnation;        /* discover's incarnation_id (malloc'd); NULL: none sent */
    const char *op;           /* the operation's name, static */
    int kept;                 /* the address came from the instance's kept ones */
    char what_text[128];      /* remote_endpoint_what's text once built ("": not yet) */
} remote_endpoint;

/* Check the id, ask the provisioner where sandbox `sandbox_id` is (discover:
 * SBX_ERR_NOT_FOUND when it is gone, not Running or has no address) and
 * hold the client of that URL (its keep-alive connections are reused; it
 * sends the sandbox_api_key).  The address is asked again for every
 * operation, never remembered by id: an id destroyed and made again
 * (perhaps for another user) gets a new answer, and an address reused by
 * another sandbox is never reached under this id.  `op` names the
 * operation in messages.  Release with remote_endpoint_close. */
sbx_status remote_endpoint_open(struct sbx_backend_instance *inst, const char *sandbox_id,
                                 const char *op, remote_endpoint *ep, sbx_error *err);

/* remote_endpoint_open for the file calls: the address discover answered
 * within REMOTE_ADDRESS_KEEP_MS when it named an incarnation and the URL
 * is the provisioner's own (remote_address_cache.h; ep->kept set), else
 * asked, and kept when so.  A call that fails through a kept address must
 * forget it and ask again. */
sbx_status remote_endpoint_open_kept(struct sbx_backend_instance *inst, const char *sandbox_id,
                                     const char *op, remote_endpoint *ep, sbx_error *err);

/* "Sandbox <op> failed for <id>", for messages: built on first use (only
 * a failure needs it), owned by *ep. */
const char *remote_endpoint_what(remote_endpoint *ep);

/* SBX_ERR_INTERNAL "<what>: out of memory" in *err; returns it. */
sbx_status remote_endpoint_no_memory(remote_endpoint *ep, sbx_error *err);

/* Give back what remote_endpoint_open holds (a zeroed endpoint is fine);
 * a client whose address could not be reached leaves the table. */
void remote_endpoint_close(remote_endpoint *ep);

/* `path` as an absolute path in the sandbox: as it is when absolute, else
 * below the sandbox's home directory (GET /v1/sandbox; kept for the
 * incarnation discover named, asked again for another one or when it
 * named none: an id made again may have another home).  NULL
 * `path` with `or_null` set: *out NULL.  *out is malloc'd. */
sbx_status remote_endpoint_path(remote_endpoint *ep, const char *path, int or_null, char **out,
                                sbx_error *err);

/* An error for an answer of the sandbox the call does not accept: 401/403
 * SBX_ERR_UNAUTHORIZED, other >= 400 SBX_ERR_PROVISIONER, anything else
 * SBX_ERR_PROTOCOL; http_status set; keys masked.  Returns the kind. */
sbx_status remote_endpoint_answer_error(remote_endpoint *ep,
                                        const common_http_response *resp, sbx_error *err);

/* Mask both keys in err->message (it may quote the sandbox's text) and
 * prefix it with remote_endpoint_what(ep); a transport error marks the endpoint
 * unreachable.  Returns err->kind. */
sbx_status remote_endpoint_fail(remote_endpoint *ep, sbx_error *err);

#endif /* SBX_REMOTE_ENDPOINT_H */
