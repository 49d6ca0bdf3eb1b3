/*
 * Decoders of the provisioner's answers (docs/protocol.md), with strict types.
 * Pure functions of the body text: no I/O, no locks.  Sandboxes they fill
 * own their strings (release with common_sandbox_record_clear).
 */
#ifndef SBX_REMOTE_DECODE_H
#define SBX_REMOTE_DECODE_H

#include <stddef.h>
#include <json-c/json.h>
#include <sbx/backend.h>

#include "plugin/remote/remote_sandbox_rules.h"

/* Decode one sandbox object (create/get answers): non-empty strings
 * sandbox_id and sandbox_url are required; user_id, thread_id and status
 * must be strings, mount_contract_version a non-negative integer, when
 * present and not null (null is absent).  Every string must be UTF-8 text
 * without NUL.  SBX_ERR_PROTOCOL (message names the field) or SBX_ERR_INTERNAL;
 * on error *out is left empty. */
sbx_status remote_decode_sandbox(struct json_object *object, sbx_sandbox *out,
                                 sbx_error *err);

/* The two steps of remote_decode_sandbox, for a caller that checks or
 * settles members before the record is made (create): read and check the
 * members of `object` into *f, its strings borrowed from `object`
 * (SBX_ERR_PROTOCOL naming the field); then fill `out` from *f in one
 * allocation (SBX_ERR_INTERNAL, `out` left empty). */
sbx_status remote_read_sandbox(struct json_object *object, remote_fields *f,
                               sbx_error *err);
sbx_status remote_fields_fill(const remote_fields *f, sbx_sandbox *out, sbx_error *err);

/* Decode a list answer.  Unparseable JSON is SBX_ERR_PROTOCOL.  An answer
 * that is not an object, or whose "sandboxes" is not an array, is SBX_OK
 * with no sandboxes and one warning (through `warn`, NULL: none); entries that are not objects or that
 * fail remote_decode_sandbox are skipped with a warning each.  On
 * success *out holds *count sandboxes (NULL when zero), caller-owned. */
sbx_status remote_decode_list(const char *body, size_t len, const remote_warner *warn,
                              sbx_sandbox **out, size_t *count, sbx_error *err);

/* What remote_decode_list_each does with a list answer's entries: start
 * (once, with the number of entries, before the first), then entry for
 * each one in order.  entry answers SBX_OK when it kept the entry, another
 * kind with `err` filled when it skips it (warned as a skipped entry), and
 * SBX_ERR_INTERNAL (either) when memory ran out, which ends the walk. */
typedef struct remote_list_visitor {
    sbx_status (*start)(void *ctx, size_t entries);
    sbx_status (*entry)(void *ctx, struct json_object *entry, sbx_error *err);
    void *ctx;
} remote_list_visitor;

/* remote_decode_list's walk over an answer, each entry handed to `visit`:
 * the same statuses and warnings (SBX_ERR_INTERNAL "out of memory" when
 * the visitor ran out). */
sbx_status remote_decode_list_each(const char *body, size_t len, const remote_warner *warn,
                                   const remote_list_visitor *visit, sbx_error *err);

/* Decode a reconciliation answer for `sandbox_id` into *out (which the
 * caller zeroed).  "absent" needs a non-empty backend_namespace; "found"
 * also a non-empty incarnation_id and a well-typed identity, and carries a
 * sandbox only when the answer has a sandbox_url (a found sandbox without
 * one is half-deleted: out->sandbox stays NULL).  Anything else is UNKNOWN.
 * Returns SBX_OK, or SBX_ERR_INTERNAL for memory; the reason for UNKNOWN
 * goes to *why (static text). */
sbx_status remote_decode_reconciliation(const char *body, size_t len,
                                        const char *sandbox_id,
                                        sbx_reconciliation *out, const char **why,
                                        sbx_error *err);

/* Decode a capabilities answer: the integer mount_contract_version (absent
 * means 0).  SBX_ERR_PROTOCOL when the body is not an object or the field is
 * not a non-negative integer. */
sbx_status remote_decode_capabilities(const char *body, size_t len, int *version,
                                      sbx_error *err);

/* The human text of an error answer, into buf (cap bytes, always
 * NUL-terminated): a string "detail"; for a validation list, its first
 * entry's "loc" and "msg"; another JSON detail as compact JSON; else the
 * plain body.  Control characters become spaces; a text cut to fit ends in
 * SBX_CUT_MARK ("..."). */
void remote_detail_text(const char *body, size_t len, char *buf, size_t cap);

#endif /* SBX_REMOTE_DECODE_H */
