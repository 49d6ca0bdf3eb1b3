/* The values of sbxctl's resource options (--memory, --cpus, --pids,
 * --disk, --network), parsed into the create request's units with errors
 * naming the option. */
#ifndef CTL_RESOURCE_ARGS_H
#define CTL_RESOURCE_ARGS_H

#include <sbx/backend.h>

/* --memory SIZE: bytes, or a number (a fraction allowed) followed by K, M,
 * G or T (powers of 1024; "KiB", "MiB", ... too), at least 6M
 * (SBX_MEMORY_MIN_BYTES).  SBX_ERR_USAGE naming the option otherwise. */
sbx_status ctl_parse_memory(const char *text, int64_t *bytes, sbx_error *err);

/* --disk SIZE: as --memory, at least 1 byte (a backend may ask more: local
 * 1 MiB).  SBX_ERR_USAGE naming the option otherwise. */
sbx_status ctl_parse_disk(const char *text, int64_t *bytes, sbx_error *err);

/* --network none|egress: SBX_NETWORK_NONE or SBX_NETWORK_EGRESS.
 * SBX_ERR_USAGE naming the option otherwise. */
sbx_status ctl_parse_network(const char *text, sbx_network *network, sbx_error *err);

/* --cpus N: cores, a decimal number above 0 such as 1.5, as millicores (at
 * least 0.001).  SBX_ERR_USAGE naming the option otherwise. */
sbx_status ctl_parse_cpus(const char *text, int64_t *millicores, sbx_error *err);

/* --pids N: an integer of at least 1.  SBX_ERR_USAGE naming the option
 * otherwise. */
sbx_status ctl_parse_pids(const char *text, int64_t *pids, sbx_error *err);

#endif
