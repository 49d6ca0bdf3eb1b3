/* Namespace and incarnation ids of the local backend (see local_identity.h). */
#include <config.h>

#include "plugin/local/local_identity.h"

#include "common/random_bytes.h"
#include "plugin/local/local_state_file.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

sbx_status local_random_id(char out[LOCAL_ID_SIZE], sbx_error *err)
{
    unsigned char b[16];
    if (common_random_bytes(b, sizeof b) != 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL,
                                     "getrandom failed: %s", strerror(errno));
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    snprintf(out, LOCAL_ID_SIZE,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11],
             b[12], b[13], b[14], b[15]);
    return SBX_OK;
}

/* Read an id written by write_new_id: SBX_OK with it in `out`,
 * SBX_ERR_NOT_FOUND when there is no file, another error naming the file
 * when it is not a regular file holding one (local_state_file.h). */
static sbx_status read_id(const char *path, char out[LOCAL_ID_SIZE], sbx_error *err)
{
    int fd;
    sbx_status st = local_state_file_open(path, LOCAL_ID_SIZE - 1, &fd, err);
    if (st != SBX_OK)
        return st;
    ssize_t n = read(fd, out, LOCAL_ID_SIZE - 1);
    int saved = errno;
    close(fd);
    if (n < 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot read %s: %s", path,
                                     strerror(saved));
    out[n] = '\0';
    if (n != LOCAL_ID_SIZE - 1 || strspn(out, "0123456789abcdef-") != (size_t)n)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL, "%s does not hold a namespace id; "
                                     "it is left untouched", path);
    return SBX_OK;
}

/* Write a new id to a temporary file and link it into place: link fails
 * when another process won the race, and then its id is the one. */
static sbx_status write_new_id(const char *state_dir, const char *path,
                               char out[LOCAL_ID_SIZE], sbx_error *err)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s/.namespace.XXXXXX", state_dir) >= (int)sizeof tmp)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "state directory path too long");
    sbx_status st = local_random_id(out, err);
    if (st != SBX_OK)
        return st;
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot create a file in %s: %s",
                                     state_dir, strerror(errno));
    int ok = write(fd, out, LOCAL_ID_SIZE - 1) == LOCAL_ID_SIZE - 1 && fsync(fd) == 0;
    close(fd);
    int linked = ok && link(tmp, path) == 0;
    int saved = errno;
    unlink(tmp);
    if (linked)
        return SBX_OK;
    if (ok && saved == EEXIST)
        return read_id(path, out, err);
    return sbx_backend_error_set(err, SBX_ERR_INTERNAL,
                                 "cannot write %s: %s", path, strerror(saved));
}

sbx_status local_namespace_id(const char *state_dir, char out[LOCAL_ID_SIZE],
                              sbx_error *err)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/.namespace", state_dir) >= (int)sizeof path)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "state directory path too long");
    sbx_status st = read_id(path, out, err);
    if (st != SBX_ERR_NOT_FOUND)
        return st;
    sbx_backend_error_clear(err);
    return write_new_id(state_dir, path, out, err);
}
