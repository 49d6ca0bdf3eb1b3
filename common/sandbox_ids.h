/*
 * Validation of the identifiers a sandbox backend receives, shared by every
 * backend so that all of them accept and refuse exactly the same ids
 * (docs/protocol.md "Transport": ids travel in URL paths, container names and
 * file names, so nothing unvalidated may reach them).
 */
#ifndef SBX_COMMON_SANDBOX_IDS_H
#define SBX_COMMON_SANDBOX_IDS_H

#include <sbx/backend.h>

/* Longest sandbox id: a DNS label of 63 minus the "sandbox-" prefix and
 * "-svc" suffix the provisioner adds to its Kubernetes object names. */
#define COMMON_SANDBOX_ID_MAX 51

/* Longest thread or user id. */
#define COMMON_PRINCIPAL_ID_MAX 64

/* The user a create request without one is made for, on every backend. */
#define COMMON_DEFAULT_USER_ID "default"

/* 1 when `id` is a DNS label (^[a-z0-9]([-a-z0-9]*[a-z0-9])?$) of at most
 * COMMON_SANDBOX_ID_MAX characters, else 0 (NULL included). */
int common_sandbox_id_is_valid(const char *id);

/* 1 when `id` matches ^[A-Za-z0-9_-]{1,64}$ (thread and user ids), else 0. */
int common_principal_id_is_valid(const char *id);

/* SBX_OK when `id` is a valid sandbox id, else SBX_ERR_REFUSED with a
 * message naming the field "sandbox_id" and the (truncated) value. */
sbx_status common_check_sandbox_id(const char *id, sbx_error *err);

/* SBX_OK when `id` is NULL (absent) or valid, else SBX_ERR_REFUSED naming
 * `field` ("thread_id", "user_id") and the (truncated) value. */
sbx_status common_check_principal_id(const char *field, const char *id, sbx_error *err);

#endif
