/* State directory layout, marker, locking and removal (see local_state.h). */
#include <config.h>

#include "plugin/local/local_state.h"

#include "common/printable.h"
#include "plugin/local/local_disk.h"
#include "plugin/local/local_remove.h"
#include "plugin/local/local_time.h"
#include <sbx/backend_support.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bound on re-opening a lock file that a destroy removed meanwhile: each
 * retry means another process finished a destroy, so a handful suffices. */
#define LOCK_ATTEMPTS 64

/* Pauses between tries of a held lock: flock cannot wait with a deadline,
 * so a waiter polls, quickly at first (most holders are done in ms). */
#define LOCK_FIRST_PAUSE_MS 1L
#define LOCK_MAX_PAUSE_MS 50L

#define MARKER_NAME ".sbx-local-state"
static const char marker_text[] =
    "This directory holds the sandboxes of the local backend of sbx.\n";

/* The state directory and a sandbox id, with their lengths. */
typedef struct path_parts {
    const char *dir;
    size_t dir_len;
    const char *id;
    size_t id_len;
} path_parts;

/* DIR "/" PREFIX ID SUFFIX into `out` (PATH_MAX bytes); 0 when it does not
 * fit.  Copied, not formatted: discover and list build these for every
 * sandbox they read. */
static int join_path(char *out, const path_parts *parts, const char *prefix, const char *suffix)
{
    size_t prefix_len = strlen(prefix), suffix_len = strlen(suffix);
    if (parts->dir_len + 1 + prefix_len + parts->id_len + suffix_len >= PATH_MAX)
        return 0;
    char *p = out;
    memcpy(p, parts->dir, parts->dir_len);
    p += parts->dir_len;
    *p++ = '/';
    memcpy(p, prefix, prefix_len);
    p += prefix_len;
    memcpy(p, parts->id, parts->id_len);
    p += parts->id_len;
    memcpy(p, suffix, suffix_len + 1);
    return 1;
}

sbx_status local_paths_for(const char *state_dir, const char *id,
                           local_paths *out, sbx_error *err)
{
    out->state_dir = state_dir;
    path_parts parts = { state_dir, strlen(state_dir), id, strlen(id) };
    if (parts.id_len >= sizeof out->id)
        return sbx_backend_error_set(err, SBX_ERR_REFUSED, "sandbox id too long");
    memcpy(out->id, id, parts.id_len + 1);
    if (!join_path(out->dir, &parts, "", "") ||
        !join_path(out->metadata, &parts, "", ".json") ||
        !join_path(out->log, &parts, "", ".log") ||
        !join_path(out->lock, &parts, ".", ".lock") ||
        !join_path(out->tomb, &parts, ".", ".tomb") ||
        !join_path(out->metadata_tmp, &parts, ".", ".json.tmp"))
        return sbx_backend_error_set(err, SBX_ERR_CONFIG, "state directory path too long: %s",
                                     state_dir);
    return SBX_OK;
}

/* ------------------------------------------------------------ marker */

/* 1 when `dir_fd` holds the marker as a regular file, 0 when it holds
 * none, -1 when the name holds something else (or cannot be read). */
static int marker_state(int dir_fd)
{
    struct stat st;
    if (fstatat(dir_fd, MARKER_NAME, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? 0 : -1;
    return S_ISREG(st.st_mode) ? 1 : -1;
}

/* SBX_OK when the directory holds nothing but (perhaps) the marker, which
 * a concurrent first use may have written since we looked; *marked says
 * whether it did. */
static sbx_status check_empty(int dir_fd, const char *state_dir, int *marked,
                              sbx_error *err)
{
    int scan_fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
    DIR *dir = scan_fd >= 0 ? fdopendir(scan_fd) : NULL;
    if (dir == NULL) {
        int saved = errno;
        if (scan_fd >= 0)
            close(scan_fd);
        return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                     "option 'state_dir': cannot read '%s': %s",
                                     state_dir, strerror(saved));
    }
    char other[NAME_MAX + 1] = "";
    struct dirent *e;
    *marked = 0;
    while (other[0] == '\0' && (e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, MARKER_NAME) == 0)
            *marked = 1;
        else if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            snprintf(other, sizeof other, "%s", e->d_name);
    }
    closedir(dir);
    if (other[0] == '\0' || *marked)
        return SBX_OK;
    char shown[80];
    return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                 "option 'state_dir': '%s' is not a state directory of the local "
                                 "backend: it is not empty (it holds '%s') and has no '" MARKER_NAME
                                 "' marker; name an empty or new directory",
                                 state_dir, common_printable(other, shown, sizeof shown));
}

static sbx_status write_marker(int dir_fd, const char *state_dir, sbx_error *err)
{
    int fd = openat(dir_fd, MARKER_NAME, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    0600);
    if (fd < 0 && errno == EEXIST)
        return SBX_OK;   /* a concurrent first use wrote it */
    size_t len = sizeof marker_text - 1;
    int ok = fd >= 0 && write(fd, marker_text, len) == (ssize_t)len;
    int saved = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    if (ok)
        return SBX_OK;
    return sbx_backend_error_set(err, SBX_ERR_CONFIG, "option 'state_dir': cannot write '%s/"
                                 MARKER_NAME "': %s", state_dir, strerror(saved));
}

sbx_status local_claim_state_dir(const char *state_dir, sbx_error *err)
{
    int dir_fd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0)
        return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                     "option 'state_dir': cannot open '%s': %s",
                                     state_dir, strerror(errno));
    int marked = marker_state(dir_fd);
    sbx_status st = SBX_OK;
    if (marked < 0)
        st = sbx_backend_error_set(err, SBX_ERR_CONFIG, "option 'state_dir': '%s/" MARKER_NAME
                                   "' is not a regular file", state_dir);
    else if (!marked)
        st = check_empty(dir_fd, state_dir, &marked, err);
    if (st == SBX_OK && !marked)
        st = write_marker(dir_fd, state_dir, err);
    close(dir_fd);
    return st;
}

/* ------------------------------------------------------------ locks */

/* The error of a waiter that gave up on a lock held by another. */
static sbx_status lock_busy(const local_paths *paths, int fd, long timeout_ms,
                            sbx_error *err)
{
    char text[32];
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    long pid = 0;
    if (n > 0) {
        text[n] = '\0';
        char *end = NULL;
        pid = strtol(text, &end, 10);
        if (end == text || (*end != '\n' && *end != '\0'))
            pid = 0;
    }
    if (pid <= 0)
        return sbx_backend_error_set(err, SBX_ERR_TRANSPORT,
                                     "sandbox '%s' is busy: another process holds its lock %s "
                                     "(gave up after %ld ms, lock_timeout_ms)",
                                     paths->id, paths->lock, timeout_ms);
    int gone = kill((pid_t)pid, 0) != 0 && errno == ESRCH;
    return sbx_backend_error_set(err, SBX_ERR_TRANSPORT,
                                 "sandbox '%s' is busy: process %ld holds its lock %s (gave up "
                                 "after %ld ms, lock_timeout_ms)%s",
                                 paths->id, pid, paths->lock, timeout_ms,
                                 gone ? "; that process has exited, so a process it started "
                                "holds the lock" : "");
}

/* Wait until `fd` is locked or the deadline passes; 0 on success, else the
 * errno (EWOULDBLOCK at the deadline). */
static int lock_until(int fd, long deadline)
{
    long pause = LOCK_FIRST_PAUSE_MS;
    for (;;) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            return 0;
        if (errno != EWOULDBLOCK && errno != EINTR)
            return errno;
        long left = deadline - local_now_ms();
        if (left <= 0)
            return EWOULDBLOCK;
        local_pause_ms(pause < left ? pause : left);
        pause = pause * 2 < LOCK_MAX_PAUSE_MS ? pause * 2 : LOCK_MAX_PAUSE_MS;
    }
}

/* Note the holder's pid in the lock file (only read for messages). */
static void note_holder(int fd)
{
    char text[32];
    int len = snprintf(text, sizeof text, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) == 0 && pwrite(fd, text, (size_t)len, 0) != len)
        return;   /* a waiter then names no pid: nothing else depends on it */
}

sbx_status local_lock(const local_paths *paths, long timeout_ms, int *fd,
                      sbx_error *err)
{
    long deadline = local_now_ms() + timeout_ms;
    int saved = 0;
    for (int attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
        int lfd = open(paths->lock,
                       O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0600);
        struct stat held, now;
        if (lfd < 0 || fstat(lfd, &held) != 0) {
            saved = errno;
            if (lfd >= 0)
                close(lfd);
            break;
        }
        if (!S_ISREG(held.st_mode)) {
            close(lfd);
            return sbx_backend_error_set(err, SBX_ERR_INTERNAL,
                                         "cannot lock %s: not a regular file",
                                         paths->lock);
        }
        int rc = lock_until(lfd, deadline);
        if (rc == EWOULDBLOCK) {
            sbx_status st = lock_busy(paths, lfd, timeout_ms, err);
            close(lfd);
            return st;
        }
        if (rc != 0) {
            saved = rc;
            close(lfd);
            break;
        }
        /* A destroy may have removed the file while we waited: then we hold
         * a lock nobody else will look at, and must lock the new file. */
        if (stat(paths->lock, &now) == 0 && now.st_ino == held.st_ino &&
            now.st_dev == held.st_dev) {
            note_holder(lfd);
            *fd = lfd;
            return SBX_OK;
        }
        close(lfd);
    }
    return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot lock %s: %s", paths->lock,
                                 saved ? strerror(saved) : "kept being replaced");
}

void local_unlock(const local_paths *paths, int fd, int forget)
{
    if (forget)
        unlink(paths->lock);
    close(fd);
}

/* ------------------------------------------------------------ files */

int local_dir_exists(const local_paths *paths)
{
    struct stat st;
    return lstat(paths->dir, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *local_unowned_entry(const local_paths *paths)
{
    struct stat st;
    if (lstat(paths->dir, &st) == 0)
        return paths->dir;
    if (lstat(paths->log, &st) == 0)
        return paths->log;
    return NULL;
}

sbx_status local_make_dir(const local_paths *paths, sbx_error *err)
{
    if (mkdir(paths->dir, 0700) == 0)
        return SBX_OK;
    return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot create sandbox directory %s: %s",
                                 paths->dir, strerror(errno));
}

sbx_status local_open_log(const local_paths *paths, int *fd, sbx_error *err)
{
    *fd = open(paths->log,
               O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
               0600);
    if (*fd < 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot create %s: %s", paths->log,
                                     strerror(errno));
    return SBX_OK;
}

/* Remove `name` (not a directory) from `dir_fd`; absent is fine. */
static sbx_status unlink_in(int dir_fd, const char *name, const char *shown, sbx_error *err)
{
    if (unlinkat(dir_fd, name, 0) != 0 && errno != ENOENT)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot remove %s: %s", shown,
                                     strerror(errno));
    return SBX_OK;
}

sbx_status local_remove_files(const local_paths *paths, int with_dir, int with_log,
                              const char *record, sbx_error *err)
{
    int dir_fd = open(paths->state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot open %s: %s", paths->state_dir,
                                     strerror(errno));
    /* Every path of local_paths is STATE "/" NAME. */
    size_t skip = strlen(paths->state_dir) + 1;
    /* Its disk first: the tree below the mount is the sandbox's files. */
    sbx_status st = with_dir ? local_disk_release(paths, err) : SBX_OK;
    if (st == SBX_OK && with_dir)
        st = local_remove_tree(dir_fd, paths->dir + skip, paths->dir, err);
    if (st == SBX_OK && with_log)
        st = unlink_in(dir_fd, paths->log + skip, paths->log, err);
    if (st == SBX_OK)
        st = unlink_in(dir_fd, paths->metadata_tmp + skip, paths->metadata_tmp, err);
    if (st == SBX_OK)
        st = unlink_in(dir_fd, record + skip, record, err);
    close(dir_fd);
    return st;
}
