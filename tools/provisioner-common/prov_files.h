/* Reading the small files the daemons are given (TLS PEM files, ownership
 * records) so that whatever lies at the path cannot hang them: opened
 * without blocking, and read only when it is a regular file of bounded
 * size. */
#ifndef PROV_FILES_H
#define PROV_FILES_H

#include <stddef.h>

/* The problems prov_read_regular names by these very pointers. */
extern const char prov_file_too_large[];
extern const char prov_file_out_of_memory[];

/* The whole of the regular file `path` as a new NUL-terminated string
 * (free it) with its length in *len, or NULL with what is wrong in
 * *problem (a static or strerror text): it cannot be opened, it is a
 * symbolic link (only with `no_follow`), it is not a regular file (a FIFO
 * is refused, never waited on), it holds more than `max_bytes`
 * (prov_file_too_large), or memory ran out
 * (prov_file_out_of_memory). */
char *prov_read_regular(const char *path, size_t max_bytes, int no_follow, size_t *len,
                            const char **problem);

#endif
