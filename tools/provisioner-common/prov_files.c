/* A non-blocking open, fstat, and a bounded read. */
#include <config.h>

#include "tools/provisioner-common/prov_files.h"

#include "tools/provisioner-common/prov_alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char prov_file_too_large[] = "too large";
const char prov_file_out_of_memory[] = "out of memory";

char *prov_read_regular(const char *path, size_t max_bytes, int no_follow, size_t *len,
                            const char **problem)
{
    *len = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (no_follow ? O_NOFOLLOW : 0));
    if (fd < 0) {
        *problem = no_follow && errno == ELOOP ? "a symbolic link" : strerror(errno);
        return NULL;
    }
    struct stat st;
    *problem = NULL;
    if (fstat(fd, &st) != 0)
        *problem = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        *problem = S_ISDIR(st.st_mode) ? "a directory" : "not a regular file";
    else if ((unsigned long long)st.st_size > max_bytes)
        *problem = prov_file_too_large;
    char *text = *problem == NULL ? prov_malloc(max_bytes + 1) : NULL;
    if (*problem == NULL && text == NULL)
        *problem = prov_file_out_of_memory;
    ssize_t n = 0;
    /* Up to one byte past the limit: a file that grew after fstat. */
    while (*problem == NULL && *len <= max_bytes &&
           ((n = read(fd, text + *len, max_bytes + 1 - *len)) > 0 || (n < 0 && errno == EINTR)))
        *len += n > 0 ? (size_t)n : 0;
    if (*problem == NULL && n < 0)
        *problem = strerror(errno);
    else if (*problem == NULL && *len > max_bytes)
        *problem = prov_file_too_large;
    close(fd);
    if (*problem != NULL) {
        free(text);
        *len = 0;
        return NULL;
    }
    text[*len] = '\0';
    return text;
}
