/*
 * Checks of a create request every backend makes before acting on it, so
 * that all of them refuse the same requests with the same words.
 */
#ifndef SBX_COMMON_CREATE_REQUEST_H
#define SBX_COMMON_CREATE_REQUEST_H

#include <sbx/backend.h>

/* SBX_ERR_USAGE (message prefixed with `backend`) when `req` is NULL or its
 * struct_size does not reach required_contract; else the first refusal of
 * its ids (sandbox, thread, user; sandbox_ids.h), or SBX_OK. */
sbx_status common_create_request_check(const char *backend, const sbx_create_request *req,
                                       sbx_error *err);

/* SBX_ERR_REFUSED when `found`, an existing sandbox with the id `req`
 * names, was made for another user or thread than `req` asks for (a NULL
 * user is the default user; a NULL or empty thread is anonymous): a sandbox
 * is never handed to anyone but its owner.  The message names the sandbox
 * and the backend, never the other owner. */
sbx_status common_create_request_check_owner(const char *backend, const sbx_create_request *req,
                                             const char *found_user, const char *found_thread,
                                             sbx_error *err);

/* The user `req` is made for: its user_id, else COMMON_DEFAULT_USER_ID.
 * Borrowed from `req` (or static). */
const char *common_create_request_user(const sbx_create_request *req);

#endif
