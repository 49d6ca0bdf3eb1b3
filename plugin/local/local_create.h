/*
 * The local backend's create: a private directory and, with `command`, a
 * process started in it and waited for until it serves; serialised per
 * sandbox by its lock file.
 */
#ifndef SBX_LOCAL_CREATE_H
#define SBX_LOCAL_CREATE_H

#include "plugin/local/local_instance.h"

/* The members of the create request of ABI 1.5 it honours (SBX_CREATE_*):
 * env for every process, labels in its records, limits in a cgroup
 * (local_cgroup.h), an expiry (local_expiry.h), a disk (local_disk.h), a
 * network (local_net.h).  Image is refused as unsupported. */
#define LOCAL_CREATE_FIELDS                                                   \
    (SBX_CREATE_ENV | SBX_CREATE_LABELS | SBX_CREATE_MEMORY | SBX_CREATE_CPU | \
     SBX_CREATE_PIDS | SBX_CREATE_EXPIRY | SBX_CREATE_DISK | SBX_CREATE_NETWORK)

/* The descriptor's create (ABI 1.0): the sandbox in *out (an array of one,
 * the caller's); an existing sandbox of the same owner is returned. */
sbx_status local_create(sbx_backend_instance *inst, const sbx_create_request *req,
                        sbx_sandbox **out, sbx_error *err);

/* The descriptor's create_record (ABI 1.2): as local_create, as a record. */
sbx_status local_create_record(sbx_backend_instance *inst,
                               const sbx_create_request *req,
                               sbx_sandbox_record **out, sbx_error *err);

#endif
