/* The remote backend's descriptor: the module's one exported symbol. */
#ifndef SBX_REMOTE_BACKEND_H
#define SBX_REMOTE_BACKEND_H

#include <sbx/backend.h>

/* The entry point (SBX_BACKEND_ENTRY_SYMBOL): the static ABI 1.1
 * descriptor of the "remote" backend.  Does nothing else. */
SBX_BACKEND_EXPORT const sbx_backend_descriptor *sbx_backend_entry(void);

#endif /* SBX_REMOTE_BACKEND_H */
