/*
 * Building and releasing the growable sandbox records of ABI 1.2
 * (sbx_sandbox_record), shared by the backends and by the host, which
 * builds records for backends that have no record operations.  A backend
 * reads what it knows of a sandbox into one common_record_facts (borrowed
 * strings) and makes either shape from it: a 1.1 sbx_sandbox with
 * common_record_facts_fill, or a record with common_record_new.
 */
#ifndef SBX_COMMON_RECORD_CHAIN_H
#define SBX_COMMON_RECORD_CHAIN_H

#include <sbx/backend.h>

#include "common/sandbox_records.h"

/* What a backend knows of one sandbox.  Strings are borrowed; NULL is
 * unknown (sandbox_id and sandbox_url are required).  Initialise with
 * common_record_facts_init. */
typedef struct common_record_facts {
    const char *sandbox_id;
    const char *sandbox_url;     /* "" when the sandbox has no address now */
    const char *user_id;
    const char *thread_id;
    const char *status;
    int mount_contract_version;  /* SBX_CONTRACT_NONE when unknown */
    int64_t created_at;          /* SBX_TIME_UNKNOWN when unknown */
    const char *incarnation_id;
    const char *container_id;
    const char *container_name;
    const char *engine;
    const char *engine_version;
    int64_t pid;                 /* 0 when none */
    const char *directory;
    const sbx_label *labels;     /* NULL when none (ABI 1.5) */
    size_t label_count;
    int64_t expires_at;          /* SBX_TIME_UNKNOWN: none or unknown (ABI 1.5) */
} common_record_facts;

/* Reset *facts to "nothing known". */
void common_record_facts_init(common_record_facts *facts);

/* The 1.1 fields of `sandbox` (borrowed by *facts), the others unknown. */
void common_record_facts_of_sandbox(const sbx_sandbox *sandbox, common_record_facts *facts);

/* Fill the 1.1 record *out from the facts (one allocation, as
 * common_sandbox_record_fill).  SBX_ERR_INTERNAL when out of memory or the
 * facts lack the id or URL; *out is then left empty. */
sbx_status common_record_facts_fill(const common_record_facts *facts, sbx_sandbox *out,
                                    sbx_error *err);

/* A new record (next NULL) holding copies of the facts, the struct and its
 * strings in ONE allocation, released with common_records_free.
 * SBX_ERR_INTERNAL when out of memory or the facts lack the id or URL;
 * then *out is NULL. */
sbx_status common_record_new(const common_record_facts *facts, sbx_sandbox_record **out,
                             sbx_error *err);

/* Release a chain of records made by common_record_new.  NULL is accepted.
 * The free_records of every backend in the tree. */
void common_records_free(sbx_sandbox_record *records);

/* A chain being built in order, for list_records.  Zero-initialise it. */
typedef struct common_record_list {
    sbx_sandbox_record *first;
    sbx_sandbox_record *last;
    size_t count;
} common_record_list;

/* Append `record` (which the list now owns) at the end. */
void common_record_list_push(common_record_list *list, sbx_sandbox_record *record);

/* End of a list_records: when `st` is SBX_OK hand the chain to the caller
 * (*out, NULL when empty, and *count); else free it (*out NULL, *count 0).
 * The list is left empty either way; returns `st`. */
sbx_status common_record_list_finish(common_record_list *list, sbx_status st,
                                     sbx_sandbox_record **out, size_t *count);

/* Where the answer of create or discover goes: exactly one is set. */
typedef struct common_answer {
    sbx_sandbox **sandbox;          /* create, discover: an array of one */
    sbx_sandbox_record **record;    /* create_record, discover_record */
} common_answer;

/* Answer `facts` in the shape `to` asks for (common_sandbox_record_box or
 * common_record_new).  SBX_ERR_INTERNAL when out of memory. */
sbx_status common_answer_one(const common_answer *to, const common_record_facts *facts,
                             sbx_error *err);

/* A create whose sandbox exists (made or found) failed afterwards, e.g.
 * out of memory answering it: say so in *err, keeping its kind and, after
 * the note, its message ("sandbox 'ID' exists and is left for destroy, but
 * ..."), unless the message already says the sandbox is left for destroy.
 * Returns err->kind. */
sbx_status common_answer_left_for_destroy(const char *sandbox_id, sbx_error *err);

/* The 1.1 fields of what common_answer_one answered into `to`. */
const sbx_sandbox *common_answer_sandbox(const common_answer *to);

/* Release what common_answer_one answered into `to` (and reset it). */
void common_answer_free(const common_answer *to);

/* A list being answered in one of the two shapes: list_running's array
 * (`sandboxes` set) or list_records' chain (`records` set).  Start it
 * with common_list_answer_start. */
typedef struct common_list_answer {
    sbx_sandbox **sandboxes;
    sbx_sandbox_record **records;
    size_t *count;
    common_sandbox_list array;
    common_record_list chain;
} common_list_answer;

/* Start a list for the given outputs (one of the first two NULL); the
 * outputs are reset to "none". */
void common_list_answer_start(common_list_answer *list, sbx_sandbox **sandboxes,
                              sbx_sandbox_record **records, size_t *count);

/* Add one sandbox.  SBX_ERR_INTERNAL when out of memory. */
sbx_status common_list_answer_add(common_list_answer *list, const common_record_facts *facts,
                                  sbx_error *err);

/* Hand the list to the outputs when `st` is SBX_OK, else free it; returns
 * `st`. */
sbx_status common_list_answer_finish(common_list_answer *list, sbx_status st);

#endif
