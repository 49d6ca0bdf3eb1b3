/* The emulator's allocation: exhaustion ends the program, explained. */
#include <config.h>

#include "tools/provisioner-emu/emu_alloc.h"

#include "tools/provisioner-common/prov_alloc.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* _exit, not exit: other threads are still serving, and exit's handlers
 * would tear libraries down under them.  stderr is unbuffered, so the line
 * is out before the process ends. */
static void out_of_memory(size_t size, const char *what)
{
    fprintf(stderr, "sbx-provisioner-emu: out of memory allocating %zu bytes for %s\n", size,
            what);
    _exit(1);
}

void *emu_xmalloc(size_t size, const char *what)
{
    void *p = prov_malloc(size);
    if (p == NULL)
        out_of_memory(size, what);
    return p;
}

char *emu_xstrdup(const char *text, const char *what)
{
    if (text == NULL)
        return NULL;
    size_t len = strlen(text);
    char *copy = emu_xmalloc(len + 1, what);
    memcpy(copy, text, len + 1);
    return copy;
}
