/* Cross-process locks and state directories of the manager. */
#include <config.h>

#include "host-api/src/manager/process_lock.h"

#include <sbx/error.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int mgr_process_lock(const char *dir, const char *id, sbx_error *err)
{
    size_t n = strlen(dir) + strlen(id) + 7;
    char *path = malloc(n);
    if (path == NULL) {
        sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory locking sandbox %s", id);
        return -1;
    }
    snprintf(path, n, "%s/%s.lock", dir, id);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        sbx_error_set(err, SBX_ERR_CONFIG, "cannot open the acquire lock %s: %s", path,
                      strerror(errno));
        free(path);
        return -1;
    }
    int rc;
    while ((rc = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
        ;
    if (rc != 0) {
        sbx_error_set(err, SBX_ERR_INTERNAL, "cannot lock %s: %s", path, strerror(errno));
        close(fd);
        fd = -1;
    }
    free(path);
    return fd;
}

void mgr_process_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* closing the only descriptor drops the flock */
}

sbx_status mgr_make_dirs(const char *path, const char *what, sbx_error *err)
{
    char *copy = strdup(path);
    if (copy == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    sbx_status st = SBX_OK;
    for (char *p = copy + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(copy, 0700) != 0 && errno != EEXIST) {
            st = sbx_error_set(err, SBX_ERR_CONFIG, "%s: cannot make directory %s: %s", what,
                               copy, strerror(errno));
            break;
        }
        *p = saved;
        if (saved == '\0')
            break;
    }
    free(copy);
    return st;
}

char *mgr_state_path(const char *leaf, sbx_error *err)
{
    const char *xdg = getenv("XDG_STATE_HOME");
    const char *home = getenv("HOME");
    const char *base = NULL, *middle = "";
    if (xdg != NULL && xdg[0] == '/')
        base = xdg;
    else if (home != NULL && home[0] != '\0') {
        base = home;
        middle = "/.local/state";
    } else {
        sbx_error_set(err, SBX_ERR_CONFIG,
                      "manager: neither XDG_STATE_HOME nor HOME is set, and no path for %s is "
                      "configured", leaf);
        return NULL;
    }
    size_t n = strlen(base) + strlen(middle) + strlen(leaf) + 6;
    char *path = malloc(n);
    if (path == NULL) {
        sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    snprintf(path, n, "%s%s/sbx/%s", base, middle, leaf);
    return path;
}
