/* What every call on a managed sandbox does around the backend's call
 * (manager_operations.c): find the ACTIVE entry without store I/O, keep it
 * pinned and in use while the backend works, count the call as use. */
#ifndef SBX_MANAGER_OPERATIONS_H
#define SBX_MANAGER_OPERATIONS_H

#include "host-api/src/manager/entries.h"

/* The ACTIVE entry of `id`, pinned and marked operating (the idle reaper
 * leaves it); NULL with `err` filled (SBX_ERR_USAGE for a NULL manager or
 * id, SBX_ERR_NOT_FOUND naming `op` when it is not active here). */
mgr_entry *mgr_operation_begin(sbx_manager *m, const char *op, const char *id, sbx_error *err);

/* The call on `e` has returned: it was use until now; unpin it. */
void mgr_operation_end(sbx_manager *m, mgr_entry *e);

#endif
