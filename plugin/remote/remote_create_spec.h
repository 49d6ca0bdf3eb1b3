/*
 * The spec members of a create (ABI 1.5: image, env, labels, limits,
 * network, expires_at; docs/protocol.md "The create body") on the wire:
 * what a provisioner advertises in its capabilities' create_fields, the
 * members added to the create body, the refusal of a member the
 * provisioner does not advertise (before anything is sent), and the labels
 * read back from a sandbox answer.  Pure functions; thread-safe.
 */
#ifndef SBX_REMOTE_CREATE_SPEC_H
#define SBX_REMOTE_CREATE_SPEC_H

#include <stddef.h>
#include <json-c/json.h>
#include <sbx/backend.h>

#include "plugin/remote/remote_contract_cache.h"

/* The SBX_CREATE_* bits a capabilities answer advertises: its
 * "create_fields", an array of member names.  Names this client does not
 * know are ignored (a newer provisioner); an absent member, or one that
 * is not an array of strings, advertises none, so that nothing new is
 * ever sent to a provisioner that did not clearly ask for it. */
unsigned remote_decode_create_fields(const char *body, size_t len);

/* Add the members `full` (as common_create_request_read gives it) sets to
 * create body `body`, after the reference client's: image, env and labels
 * as objects of strings, the limits as integers, network as "none" or
 * "egress", expires_at as ms since the Unix epoch.  A member not set is
 * not sent: a request setting none is today's body byte for byte.
 * Returns 1, or 0 when memory ran out. */
int remote_create_spec_put(struct json_object *body, const sbx_create_request *full);

/* SBX_ERR_UNSUPPORTED naming the first member `full` sets that the
 * provisioner `snapshot` describes does not advertise (none when its
 * capabilities are unverified); else SBX_OK.  Nothing is sent either way. */
sbx_status remote_create_refuse_unadvertised(const sbx_create_request *full,
                                             const remote_contract_state *snapshot,
                                             sbx_error *err);

/* The labels of sandbox answer `object`: its "labels" object of strings,
 * into a new array (*labels, NULL when none; free it) whose strings are
 * borrowed from `object`.  Returns 1; 0 when the member is there but not
 * an object of UTF-8 strings without NUL (*labels NULL: the labels are
 * unknown, for the caller to warn about); -1 when memory ran out. */
int remote_labels_read(struct json_object *object, sbx_label **labels, size_t *count);

/* The labels of one sandbox answer's body, read on their own (the answer's
 * other members go through the one-pass reader, remote_sandbox_answer.h).
 * `labels` and its strings live in `root`'s tree. */
typedef struct remote_answer_labels {
    struct json_object *root;
    sbx_label *labels;         /* NULL when none or unknown */
    size_t count;
    int unreadable;            /* the member was there but ill-typed */
} remote_answer_labels;

/* Read the labels of body[0..len) into *out (remote_labels_read's rules;
 * a body that is not a JSON object has none).  Returns 1, or 0 when
 * memory ran out; clear *out with remote_answer_labels_clear either way. */
int remote_answer_labels_read(const char *body, size_t len, remote_answer_labels *out);

/* Release what *out holds and zero it. */
void remote_answer_labels_clear(remote_answer_labels *out);

#endif /* SBX_REMOTE_CREATE_SPEC_H */
