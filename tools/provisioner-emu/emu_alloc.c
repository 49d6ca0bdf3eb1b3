/* Allocation that ends the emulator when memory runs out. */
#include "tools/provisioner-emu/emu_alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *sbx_emu_xmalloc(size_t size)
{
    void *p = malloc(size == 0 ? 1 : size);
    if (p == NULL) {
        fputs("sbx-provisioner-emu: out of memory\n", stderr);
        abort();
    }
    return p;
}

char *sbx_emu_xstrdup(const char *text)
{
    if (text == NULL)
        return NULL;
    return sbx_emu_xmemdup(text, strlen(text));
}

char *sbx_emu_xmemdup(const char *data, size_t len)
{
    char *copy = sbx_emu_xmalloc(len + 1);
    if (len > 0)
        memcpy(copy, data, len);
    copy[len] = '\0';
    return copy;
}
