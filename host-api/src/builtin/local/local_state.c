/* State directory layout, locking and removal (see local_state.h). */
#include "host-api/src/builtin/local/local_state.h"

#include <sbx/host.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bound on re-opening a lock file that a destroy removed meanwhile: each
 * retry means another process finished a destroy, so a handful suffices. */
#define LOCK_ATTEMPTS 64

sbx_status sbx_local_paths_for(const char *state_dir, const char *id,
                               sbx_local_paths *out, sbx_error *err)
{
    int n1 = snprintf(out->dir, sizeof out->dir, "%s/%s", state_dir, id);
    int n2 = snprintf(out->metadata, sizeof out->metadata, "%s/%s.json", state_dir, id);
    int n3 = snprintf(out->log, sizeof out->log, "%s/%s.log", state_dir, id);
    int n4 = snprintf(out->lock, sizeof out->lock, "%s/.%s.lock", state_dir, id);
    if (n1 < 0 || n2 < 0 || n3 < 0 || n4 < 0 || (size_t)n1 >= sizeof out->dir ||
        (size_t)n2 >= sizeof out->metadata || (size_t)n3 >= sizeof out->log ||
        (size_t)n4 >= sizeof out->lock)
        return sbx_error_set(err, SBX_ERR_CONFIG, "state directory path too long: %s",
                             state_dir);
    return SBX_OK;
}

sbx_status sbx_local_lock(const sbx_local_paths *paths, int *fd, sbx_error *err)
{
    for (int attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
        int lfd = open(paths->lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (lfd < 0)
            break;
        int rc;
        while ((rc = flock(lfd, LOCK_EX)) != 0 && errno == EINTR)
            ;
        struct stat held, now;
        if (rc != 0 || fstat(lfd, &held) != 0) {
            close(lfd);
            break;
        }
        /* A destroy may have removed the file while we waited: then we hold
         * a lock nobody else will look at, and must lock the new file. */
        if (stat(paths->lock, &now) == 0 && now.st_ino == held.st_ino &&
            now.st_dev == held.st_dev) {
            *fd = lfd;
            return SBX_OK;
        }
        close(lfd);
    }
    return sbx_error_set(err, SBX_ERR_INTERNAL, "cannot lock %s: %s", paths->lock,
                         errno ? strerror(errno) : "kept being replaced");
}

void sbx_local_unlock(const sbx_local_paths *paths, int fd, int forget)
{
    if (forget)
        unlink(paths->lock);
    close(fd);
}

int sbx_local_dir_exists(const sbx_local_paths *paths)
{
    struct stat st;
    return lstat(paths->dir, &st) == 0 && S_ISDIR(st.st_mode);
}

sbx_status sbx_local_make_dir(const sbx_local_paths *paths, sbx_error *err)
{
    if (mkdir(paths->dir, 0700) == 0)
        return SBX_OK;
    if (errno == EEXIST && sbx_local_dir_exists(paths) && chmod(paths->dir, 0700) == 0)
        return SBX_OK;
    return sbx_error_set(err, SBX_ERR_INTERNAL, "cannot create sandbox directory %s: %s",
                         paths->dir, strerror(errno));
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    int rc = (type == FTW_DP) ? rmdir(path) : unlink(path);
    return (rc != 0 && errno != ENOENT) ? -1 : 0;
}

static sbx_status unlink_if_present(const char *path, sbx_error *err)
{
    if (unlink(path) != 0 && errno != ENOENT)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "cannot remove %s: %s", path,
                             strerror(errno));
    return SBX_OK;
}

sbx_status sbx_local_remove_files(const sbx_local_paths *paths, sbx_error *err)
{
    struct stat st;
    if (lstat(paths->dir, &st) == 0) {
        int rc = S_ISDIR(st.st_mode)
                     ? nftw(paths->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS)
                     : unlink(paths->dir);
        if (rc != 0)
            return sbx_error_set(err, SBX_ERR_INTERNAL, "cannot remove %s: %s", paths->dir,
                                 strerror(errno));
    }
    sbx_status s = unlink_if_present(paths->log, err);
    return s != SBX_OK ? s : unlink_if_present(paths->metadata, err);
}
