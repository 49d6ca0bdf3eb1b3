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

/* The request as a backend reads it: members past req->struct_size (a
 * caller built against ABI 1.4 or before) take SBX_CREATE_REQUEST_INIT's
 * defaults, so that code after it reads every 1.5 member unguarded. */
void common_create_request_read(const sbx_create_request *req, sbx_create_request *out);

/* The SBX_CREATE_* bits of the members `full` (as read above) sets: an
 * image, env or labels given, a limit other than SBX_LIMIT_NONE, a network
 * other than the default, an expiry. */
unsigned common_create_request_fields_set(const sbx_create_request *full);

/* The member name of one SBX_CREATE_* bit ("image", "memory_bytes", ...),
 * static; "?" for none. */
const char *common_create_field_name(unsigned bit);

/* SBX_ERR_USAGE naming the member at fault when `full` (as read above)
 * holds a malformed 1.5 value: an image with white space or a control byte,
 * an env name outside ^[A-Za-z_][A-Za-z0-9_]*$ or a NULL value, a label key
 * empty, with '=' or a control byte, too long or given twice, a label value
 * NULL or too long, more than SBX_LABELS_MAX labels, memory below SBX_MEMORY_MIN_BYTES, cpu or pids or disk
 * below 1, an unknown network, an expiry not after now (the wall clock).
 * Arrays NULL with a count are refused too.  Else SBX_OK. */
sbx_status common_create_request_check_fields(const sbx_create_request *full, sbx_error *err);

/* SBX_ERR_UNSUPPORTED, prefixed with `backend` and naming the first member
 * `full` sets outside `honoured` (SBX_CREATE_* bits); else SBX_OK. */
sbx_status common_create_request_refuse_unhonoured(const char *backend,
                                                   const sbx_create_request *full,
                                                   unsigned honoured, sbx_error *err);

/* The value of label `key` among labels[0..count), or NULL. */
const char *common_label_value(const sbx_label *labels, size_t count, const char *key);

/* Non-zero when every label of want[0..want_count) is among
 * have[0..have_count) with an equal value. */
int common_labels_include(const sbx_label *have, size_t have_count, const sbx_label *want,
                          size_t want_count);

/* Bytes of a spec digest: 16 hex digits and the NUL. */
#define COMMON_SPEC_DIGEST_SIZE 17

/* The digest of what `full` (as read above) asks a sandbox to be: its
 * image, env (a later value of a name winning), labels (in any order),
 * limits and network; not its ids, mounts or expiry.  Stored with a
 * sandbox, so that a create of an existing id adopts it only when it asks
 * for the same.  A request setting none of them has the digest of an empty
 * spec. */
void common_create_spec_digest(const sbx_create_request *full,
                               char out[COMMON_SPEC_DIGEST_SIZE]);

/* SBX_ERR_REFUSED (as a wrong owner: a provisioner answers 409), prefixed
 * with `backend`, when the sandbox `full` names exists with spec digest
 * `found` (NULL: made before specs were kept, an empty spec) other than
 * the request's; else SBX_OK. */
sbx_status common_create_request_check_spec(const char *backend,
                                            const sbx_create_request *full,
                                            const char *found, sbx_error *err);

#endif
