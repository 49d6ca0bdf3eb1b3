/* Allocation helpers of the provisioner emulator.  The emulator is a test
 * program: running out of memory is not a state it can answer from, so
 * these end the process instead of returning NULL. */
#ifndef SBX_EMU_ALLOC_H
#define SBX_EMU_ALLOC_H

#include <stddef.h>

/* malloc that never returns NULL (aborts on exhaustion); free() the result. */
void *sbx_emu_xmalloc(size_t size);

/* strdup that never returns NULL; NULL in gives NULL out.  free() it. */
char *sbx_emu_xstrdup(const char *text);

/* A NUL-terminated copy of `len` bytes (which may hold NULs); free() it. */
char *sbx_emu_xmemdup(const char *data, size_t len);

#endif
