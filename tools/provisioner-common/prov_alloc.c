/* Allocation that ends the program when memory runs out. */
#include <config.h>

#include "tools/provisioner-common/prov_alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *sbx_prov_xmalloc(size_t size)
{
    void *p = malloc(size == 0 ? 1 : size);
    if (p == NULL) {
        fputs("sbx provisioner: out of memory\n", stderr);
        abort();
    }
    return p;
}

char *sbx_prov_xstrdup(const char *text)
{
    if (text == NULL)
        return NULL;
    return sbx_prov_xmemdup(text, strlen(text));
}

char *sbx_prov_xmemdup(const char *data, size_t len)
{
    char *copy = sbx_prov_xmalloc(len + 1);
    if (len > 0)
        memcpy(copy, data, len);
    copy[len] = '\0';
    return copy;
}
