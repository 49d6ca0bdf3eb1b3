/*
 * The "docker" backend module: sandboxes are containers of a Docker Engine
 * API (Docker, or podman's service) reached over a unix socket
 * (docs/docker.md).  The entry point is the module's only exported symbol.
 */
#ifndef SBX_DOCKER_BACKEND_H
#define SBX_DOCKER_BACKEND_H

#include <sbx/backend.h>

/* The module entry (SBX_BACKEND_ENTRY_SYMBOL): the static descriptor of the
 * docker backend.  Does nothing else. */
SBX_BACKEND_EXPORT const sbx_backend_descriptor *sbx_backend_entry(void);

#endif
