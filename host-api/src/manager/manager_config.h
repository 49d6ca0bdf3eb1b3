/*
 * The manager's configuration: the struct a host hands over, read within
 * its struct_size and checked against docs/manager.md's bounds (also for
 * the configuration file's `manager` section).
 */
#ifndef SBX_MANAGER_CONFIG_H
#define SBX_MANAGER_CONFIG_H

#include <sbx/manager.h>

/* Copy the members of `in` (NULL: none) within its struct_size over the
 * defaults into *out.  SBX_ERR_USAGE when struct_size is too small. */
sbx_status mgr_read_config(const sbx_manager_config *in, sbx_manager_config *out,
                           sbx_error *err);

/* The bounds of docs/manager.md's configuration table: SBX_ERR_CONFIG
 * "manager: <member> must be ..." for the first value out of bounds.  Also
 * used by the configuration file's `manager` section. */
sbx_status mgr_check_config(const sbx_manager_config *c, sbx_error *err);

#endif
