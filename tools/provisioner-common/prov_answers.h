/* The answer bodies of the provisioner protocol (docs/protocol.md), built
 * the one way both servers send them: the emulator, which answers as the
 * real DeerFlow provisioner, and sbx-provisiond, which must answer the same
 * way so that every client of the protocol reads it unchanged.  Member
 * order, nulls and error texts are the real provisioner's. */
#ifndef PROV_ANSWERS_H
#define PROV_ANSWERS_H

#include <stdint.h>
#include <json-c/json.h>

#include "tools/provisioner-common/prov_reply.h"

/* The phase a sandbox reports when it cannot be read. */
#define PROV_PHASE_NOT_FOUND "NotFound"

/* Who a sandbox was made for, or what a request asks of an existing one:
 * the owner, the effective thread (the sandbox id for an anonymous
 * create), the mounts' signature (prov_mounts_check) and the mount
 * contract version.  Strings are borrowed; NULL members of an expectation
 * are not checked. */
typedef struct prov_owner {
    const char *user_id;
    const char *thread_id;
    const char *mounts;
    int contract_version;
} prov_owner;

/* 200 {"status":"ok"}. */
void prov_answer_health(prov_reply *reply);

/* 200 with the capabilities at mount contract `version`; a legacy server
 * (version 0) omits the version member, as old provisioners do. */
void prov_answer_capabilities(int version, prov_reply *reply);

/* The capabilities object prov_answer_capabilities sends, for a server
 * that adds members of its own; the caller owns it; NULL when memory ran
 * out. */
json_object *prov_capabilities_json(int version);

/* 404 {"detail":"Not Found"}: no route has this path. */
void prov_answer_no_route(prov_reply *reply);

/* 404 {"detail":"Sandbox 'ID' not found"}. */
void prov_answer_sandbox_not_found(const char *id, prov_reply *reply);

/* 500 with the plain-text body "Internal Server Error": what the real
 * server's framework sends for an exception the provisioner does not catch. */
void prov_answer_internal_error(prov_reply *reply);

/* `status` with {"detail":"<a><b><c>"} (each may be ""), the detail cut
 * to a bounded length. */
void prov_answer_words(prov_reply *reply, unsigned status, const char *a,
                           const char *b, const char *c);

/* 409 {"detail":{"code":"mount_contract_changed","expected":E,"actual":A}}. */
void prov_answer_contract_changed(int64_t expected, int actual, prov_reply *reply);

/* Why an existing sandbox `have` (made under contract have->contract_version)
 * is not the one `want` asks of a server at contract `version`: the rest of
 * the 409 detail after "Existing sandbox 'ID'" (static text), checked in
 * the real provisioner's order (contract, user, thread, mounts), or NULL
 * when it is the one asked for. */
const char *prov_owner_conflict(const prov_owner *have, int version,
                                    const prov_owner *want);

/* 409 {"detail":"Existing sandbox 'ID'<problem>"}. */
void prov_answer_existing(const char *id, const char *problem, prov_reply *reply);

/* The rest of the 409 detail for a sandbox whose contract cannot be read. */
#define PROV_UNVERIFIABLE "' has no verifiable Pod contract"

/* The answer model of create, get and list entries: sandbox_id,
 * sandbox_url, status, then (when `with_identity`, a server with a mount
 * contract) user_id, thread_id, mount_contract_version from `owner`, all
 * null when `owner` is NULL (list entries: the real list reads no
 * identity).  A new object the caller owns; NULL when memory ran out
 * (prov_reply_json answers that out of memory). */
json_object *prov_sandbox_json(const char *id, const char *url, const char *phase,
                                   const prov_owner *owner, int with_identity);

/* 200 {"ok":true,"sandbox_id":ID}. */
void prov_answer_deleted(const char *id, prov_reply *reply);

/* 200 {"sandboxes":ENTRIES,"count":N}; takes the reference to `entries`
 * (an array; NULL, or memory running out, is the out-of-memory answer). */
void prov_answer_list(json_object *entries, prov_reply *reply);

/* The first members of a reconciliation answer: sandbox_id, status
 * ("found" when `incarnation` is not NULL, else "absent"),
 * backend_namespace, incarnation_id (null when absent).  The caller adds
 * sandbox_url, user_id, thread_id, mount_contract_version (see
 * prov_reconciliation_identity) and owns the object; NULL when memory
 * ran out. */
json_object *prov_reconciliation_json(const char *id, const char *namespace_uid,
                                          const char *incarnation);

/* Add the identity members of a reconciliation answer to `obj`: `url`
 * (NULL: null, a sandbox without an address) and `owner`'s user, thread
 * and version (NULL owner: all null, an absent sandbox).  Takes `obj` and
 * returns it, or NULL (`obj` put) when it is NULL or memory ran out. */
json_object *prov_reconciliation_identity(json_object *obj, const char *url,
                                              const prov_owner *owner);

#endif
