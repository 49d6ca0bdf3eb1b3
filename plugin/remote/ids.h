/*
 * Identifier rules of PROTOCOL.md, checked before anything is sent: sandbox
 * ids travel in URL paths and become Kubernetes object names, thread and
 * user ids must match what the provisioner accepts.  Pure functions.
 */
#ifndef SBX_REMOTE_IDS_H
#define SBX_REMOTE_IDS_H

#include <stddef.h>
#include <sbx/backend.h>

/* Longest sandbox id: a DNS label of 63 minus "sandbox-" and "-svc". */
#define SBX_REMOTE_SANDBOX_ID_MAX 51
/* Longest thread or user id. */
#define SBX_REMOTE_NAME_ID_MAX 64

/* The user a request without one is made for. */
#define SBX_REMOTE_DEFAULT_USER "default"

/* SBX_OK when `id` is a DNS label (^[a-z0-9]([-a-z0-9]*[a-z0-9])?$) of at
 * most 51 characters; else SBX_ERR_REFUSED naming the field "sandbox_id" and
 * the value. */
sbx_status sbx_remote_check_sandbox_id(const char *id, sbx_error *err);

/* SBX_OK when `id` matches ^[A-Za-z0-9_-]{1,64}$; else SBX_ERR_REFUSED
 * naming `field` ("thread_id", "user_id") and the value. */
sbx_status sbx_remote_check_name_id(const char *field, const char *id, sbx_error *err);

/* Copy `value` into buf (cap bytes) for an error message: at most 64
 * characters, non-printable bytes as '?', "..." when cut.  Returns buf. */
const char *sbx_remote_printable(const char *value, char *buf, size_t cap);

#endif /* SBX_REMOTE_IDS_H */
