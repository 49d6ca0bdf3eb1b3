/* Putting the terminal helper into a container (see docker_pty_helper.h). */
#include <config.h>

#include "plugin/docker/docker_pty_helper.h"

#include "plugin/docker/docker_files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A static helper is well under a few MiB; more is not the helper. */
#define HELPER_MAX ((long)16 << 20)

/* The file at `path` into a new buffer (*data, *length); 0, or -1 with
 * errno set. */
static int read_helper(const char *path, char **data, size_t *length)
{
    *data = NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        size = ftell(f);
    if (size <= 0 || size > HELPER_MAX || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        errno = size == 0 || size > HELPER_MAX ? EFBIG : errno;
        return -1;
    }
    *data = malloc((size_t)size);
    if (*data == NULL || fread(*data, 1, (size_t)size, f) != (size_t)size) {
        int saved = *data == NULL ? ENOMEM : EIO;
        free(*data);
        *data = NULL;
        fclose(f);
        errno = saved;
        return -1;
    }
    fclose(f);
    *length = (size_t)size;
    return 0;
}

sbx_status docker_pty_helper_install(sbx_backend_instance *inst, const char *sandbox_id,
                                     sbx_error *err)
{
    const char *path = inst->options.pty_helper;
    char *data = NULL;
    size_t length = 0;
    if (read_helper(path, &data, &length) != 0)
        return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                     "docker: process_start in sandbox '%s': processes need "
                                     "the helper '%s' (option pty_helper): %s",
                                     sandbox_id, path, strerror(errno));
    sbx_status st = docker_write_file(inst, sandbox_id, DOCKER_PTY_HELPER_PATH, data, length,
                                      SBX_WRITE_MKDIRS, 0755, err);
    free(data);
    return st;
}
