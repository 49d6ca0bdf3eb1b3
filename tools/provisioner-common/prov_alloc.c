/* Allocation that reports exhaustion to its caller. */
#include <config.h>

#include "tools/provisioner-common/prov_alloc.h"

#include <stdlib.h>
#include <string.h>

void *prov_malloc(size_t size)
{
    return malloc(size == 0 ? 1 : size);
}

char *prov_strdup(const char *text)
{
    if (text == NULL)
        return NULL;
    return prov_memdup(text, strlen(text));
}

char *prov_memdup(const char *data, size_t len)
{
    char *copy = prov_malloc(len + 1);
    if (copy == NULL)
        return NULL;
    if (len > 0)
        memcpy(copy, data, len);
    copy[len] = '\0';
    return copy;
}
