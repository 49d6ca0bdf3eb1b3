/*
 * Expansion of the local backend's `command` option for one sandbox.
 */
#ifndef SBX_LOCAL_COMMAND_H
#define SBX_LOCAL_COMMAND_H

#include <sbx/backend.h>

/* Replace every `{port}` in `command` by `port` and every `{dir}` by `dir`
 * quoted as one shell word (so that any directory name is safe in the
 * shell).  *out is malloc'ed, freed by the caller.  SBX_ERR_INTERNAL when
 * out of memory. */
sbx_status local_command_expand(const char *command, int port, const char *dir,
                                char **out, sbx_error *err);

#endif
