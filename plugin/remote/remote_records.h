/*
 * The record operations of the remote backend (ABI 1.2 records, with the
 * labels of ABI 1.5): discover_record and list_records.  A provisioner
 * that advertises labels in its capabilities (sbx-provisiond) answers them
 * in its sandbox objects; they are read into the records, so that the
 * host's label filter (sbx_backend_list_records_labelled) works on remote
 * sandboxes.  create_record is remote_create_record (remote_create.h).
 * Safe on many threads at once.
 */
#ifndef SBX_REMOTE_RECORDS_H
#define SBX_REMOTE_RECORDS_H

#include <sbx/backend.h>

#include "plugin/remote/remote_instance.h"

/* As remote_discover, answering a record with the answer's labels and
 * incarnation_id; released with common_records_free. */
sbx_status remote_discover_record(sbx_backend_instance *inst, const char *sandbox_id,
                                  sbx_sandbox_record **out, sbx_error *err);

/* As remote_list_running, answering a chain of records.  When the
 * provisioner advertises labels the answer is read whole (json-c) and each
 * entry's labels kept; else it is decoded as it arrives, as list_running
 * does, and the records carry no labels. */
sbx_status remote_list_records(sbx_backend_instance *inst, sbx_sandbox_record **out,
                               size_t *count, sbx_error *err);

#endif /* SBX_REMOTE_RECORDS_H */
