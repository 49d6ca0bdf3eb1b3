/*
 * The manager's configuration: the struct a host hands over, read within
 * its struct_size, checked against docs/manager.md's bounds, and its
 * defaulted paths and strings resolved into the manager's own copies.
 */
#ifndef SBX_MANAGER_CONFIG_H
#define SBX_MANAGER_CONFIG_H

#include "host-api/src/manager/manager_internal.h"

/* Copy the members of `in` (NULL: none) within its struct_size over the
 * defaults into *out.  SBX_ERR_USAGE when struct_size is too small. */
sbx_status mgr_read_config(const sbx_manager_config *in, sbx_manager_config *out,
                           sbx_error *err);

/* The bounds of docs/manager.md's configuration table: SBX_ERR_CONFIG
 * "manager: <member> must be ..." for the first value out of bounds.  Also
 * used by the configuration file's `manager` section. */
sbx_status mgr_check_config(const sbx_manager_config *c, sbx_error *err);

/* Copy the configuration's strings into `m` with their defaults (the
 * ready path, Redis URL and key prefix, the lock directory and SQLite file
 * under the state directory, a fresh owner id) and point m->config at the
 * copies; the directories are made.  SBX_ERR_CONFIG naming what is wrong,
 * or SBX_ERR_INTERNAL; what was copied is m's to free either way. */
sbx_status mgr_resolve_strings(sbx_manager *m, sbx_error *err);

#endif
