/*
 * The in-process "local" backend: sandboxes are private directories under a
 * state directory, optionally each served by a command (docs/local.md).
 * Built into the host library, which registers it at sbx_host_new; it is the
 * default backend.
 */
#ifndef SBX_LOCAL_BACKEND_H
#define SBX_LOCAL_BACKEND_H

#include <sbx/backend.h>

/* The local backend's descriptor: static and immutable, valid for the life
 * of the process, readable from any thread. */
const sbx_backend_descriptor *local_backend_descriptor(void);

#endif
