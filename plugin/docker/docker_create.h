/* The docker backend's create: make or find the sandbox's container, start
 * it, and wait until its server answers. */
#ifndef SBX_DOCKER_CREATE_H
#define SBX_DOCKER_CREATE_H

#include "plugin/docker/docker_instance.h"

/* The descriptor's create (ABI 1.0): the started sandbox in *out (an array
 * of one, the caller's); a failure after the container was made says
 * whether it is left for destroy. */
sbx_status docker_create(sbx_backend_instance *inst, const sbx_create_request *req,
                         sbx_sandbox **out, sbx_error *err);

/* The descriptor's create_record (ABI 1.2): as docker_create, answered as
 * a record naming the engine. */
sbx_status docker_create_record(sbx_backend_instance *inst,
                                const sbx_create_request *req,
                                sbx_sandbox_record **out, sbx_error *err);

#endif
