/* Allocation helpers of the provisioner servers (the emulator and
 * sbx-provisiond).  A request handler that runs out of memory cannot build
 * any answer, not even a 500: these end the process (say so on stderr, then
 * abort) instead of returning NULL, so that a supervisor restarts it rather
 * than clients reading a half-built answer. */
#ifndef SBX_PROV_ALLOC_H
#define SBX_PROV_ALLOC_H

#include <stddef.h>

/* malloc that never returns NULL (aborts on exhaustion); free() the result. */
void *sbx_prov_xmalloc(size_t size);

/* strdup that never returns NULL; NULL in gives NULL out.  free() it. */
char *sbx_prov_xstrdup(const char *text);

/* A NUL-terminated copy of `len` bytes (which may hold NULs); free() it. */
char *sbx_prov_xmemdup(const char *data, size_t len);

#endif
