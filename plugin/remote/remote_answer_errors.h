/*
 * Turning a failed call into the caller's error record, with the message
 * rules of the backend: "<what>: <detail>", where <what> names the call and
 * the sandbox (e.g. "Provisioner create failed for abc123") and <detail> is
 * the transport error or "HTTP <status> <provisioner's detail>".  Messages
 * never contain the API key: a detail echoing it has each whole occurrence
 * masked (common/redact.h), ids and other words in it are left as they are.
 */
#ifndef SBX_REMOTE_ANSWER_ERRORS_H
#define SBX_REMOTE_ANSWER_ERRORS_H

#include <sbx/backend.h>

#include "common/http_client.h"
#include "plugin/remote/remote_options.h"

/* Error for an HTTP answer the call does not accept: 401/403 ->
 * SBX_ERR_UNAUTHORIZED; 409 -> SBX_ERR_REFUSED (the provisioner will not
 * hand that sandbox to this caller: another user's, thread's or mount
 * set's; create handles the contract 409 before calling this); other
 * >= 400 -> SBX_ERR_PROVISIONER, anything else
 * (a redirect, an odd 1xx/2xx) -> SBX_ERR_PROTOCOL; http_status is set.
 * The detail masks opts->api_key.  Returns the kind. */
sbx_status remote_answer_error(const remote_options *opts,
                               const common_http_response *resp, const char *what,
                               sbx_error *err);

/* Copy `cause` (kind, statuses, contract versions) into err with the message
 * "<what>: <cause's message>".  Returns the kind. */
sbx_status remote_wrap_error(const sbx_error *cause, const char *what, sbx_error *err);

#endif /* SBX_REMOTE_ANSWER_ERRORS_H */
