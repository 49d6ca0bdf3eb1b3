/* Loading one backend module file and validating what it declares. */
#ifndef SBX_HOST_MODULE_LOADER_H
#define SBX_HOST_MODULE_LOADER_H

#include <sbx/backend.h>

/* Check a descriptor before anything in it is used: ABI major, size, name,
 * version and the mandatory 1.0 operations.  `origin` then `path` (e.g.
 * "module " and the module's path, or "in-process backend" and "") name the
 * backend in the one-line SBX_ERR_LOAD message. */
sbx_status host_descriptor_validate(const sbx_backend_descriptor *descriptor,
                                   const char *origin, const char *path, sbx_error *err);

/* dlopen `path`, find the entry point, validate its descriptor.  On success
 * *handle and *descriptor are set (the caller dlcloses the handle); on
 * failure nothing stays loaded and the message names the path. */
sbx_status host_module_open(const char *path, void **handle,
                           const sbx_backend_descriptor **descriptor, sbx_error *err);

#endif
