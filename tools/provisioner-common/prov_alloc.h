/* Allocation helpers of the provisioner servers (the emulator and
 * sbx-provisiond).  They return NULL when memory runs out, and every caller
 * turns that into an error of its own: a request's answer becomes the
 * server's 503 {"detail":"out of memory"} (prov_reply_out_of_memory),
 * a failure while starting ends the program with a message and exit
 * status 1.  The process keeps serving the requests that find memory. */
#ifndef PROV_ALLOC_H
#define PROV_ALLOC_H

#include <stddef.h>

/* malloc of at least one byte (a zero size is one); NULL when memory runs
 * out.  free() the result. */
void *prov_malloc(size_t size);

/* A copy of `text`; NULL when `text` is NULL or memory runs out.  free() it. */
char *prov_strdup(const char *text);

/* A NUL-terminated copy of `len` bytes (which may hold NULs); NULL when
 * memory runs out.  free() it. */
char *prov_memdup(const char *data, size_t len);

#endif
