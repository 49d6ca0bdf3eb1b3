/* Allocation of the provisioner emulator.  The emulator is a test program,
 * not library code: when memory runs out it names on stderr what it was
 * allocating and exits with status 1, so a test sees a clean, explained
 * failure instead of a crash or a half-built answer.  (The shared server
 * code it links, tools/provisioner-common, reports exhaustion instead:
 * see prov_alloc.h.) */
#ifndef EMU_ALLOC_H
#define EMU_ALLOC_H

#include <stddef.h>

/* malloc of `size` bytes (a zero size is one); never NULL: on exhaustion
 * "out of memory allocating SIZE bytes for WHAT" on stderr, exit status 1.
 * free() the result. */
void *emu_xmalloc(size_t size, const char *what);

/* A copy of `text` as emu_xmalloc makes it; NULL in gives NULL out.
 * free() it. */
char *emu_xstrdup(const char *text, const char *what);

#endif
