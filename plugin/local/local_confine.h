/*
 * Paths of a local sandbox's operations, confined to its directory: every
 * path is resolved beneath the open sandbox directory by the kernel
 * (openat2 RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS, Linux 5.6), so that
 * neither "..", an absolute symlink nor a link a command made that leads
 * out can reach a file outside it; and the errno of a path turned into the
 * ABI 1.3 error kinds.
 */
#ifndef SBX_LOCAL_CONFINE_H
#define SBX_LOCAL_CONFINE_H

#include <sbx/backend.h>

#include <limits.h>
#include <sys/types.h>

/* A sandbox directory an operation works in. */
typedef struct local_root {
    const char *sandbox_id;  /* for messages */
    const char *dir;         /* its absolute path (borrowed) */
    int fd;                  /* open O_PATH; the operation's to close */
} local_root;

/* A path of a request split into what is resolved beneath the root. */
typedef struct local_rel {
    char dir[PATH_MAX];      /* the directory part: "." when none */
    char name[PATH_MAX];     /* the last component: "." for the root itself */
    char whole[PATH_MAX];    /* dir/name as given, relative to the root */
} local_rel;

/* 1 when absolute `path` is directory `dir` or below it (by its text). */
int local_confine_within(const char *path, const char *dir);

/* `path` relative to the root: a relative one as it is, an absolute one
 * inside root->dir with that prefix dropped.  SBX_ERR_USAGE for an empty
 * path or one of PATH_MAX bytes or more; SBX_ERR_REFUSED for an absolute
 * path outside the sandbox directory.  `op` names the operation. */
sbx_status local_confine_split(const local_root *root, const char *op, const char *path,
                               local_rel *out, sbx_error *err);

/* openat2(base_fd, rel, flags | O_CLOEXEC, mode) resolved beneath base_fd
 * (which is the root or a directory beneath it): the descriptor, or -1
 * with errno (EXDEV or ELOOP for a path leading out). */
int local_confine_open(int base_fd, const char *rel, int flags, mode_t mode);

/* The error kind of errno `errnum` met by `op` on `path` (shown cut and
 * escaped): NO_SUCH_PATH, NOT_A_DIRECTORY, IS_A_DIRECTORY, EXISTS,
 * PERMISSION (EACCES, EPERM, EROFS), REFUSED (EXDEV, ELOOP: leads out of
 * the sandbox or through a link not followed; ENXIO: a FIFO or device
 * opened for writing), USAGE (ENAMETOOLONG),
 * UNSUPPORTED (ENOSYS: a kernel without openat2), else INTERNAL. */
sbx_status local_confine_error(const local_root *root, const char *op, const char *path,
                               int errnum, sbx_error *err);

/* Give `fd` (a file or directory the host just made beneath the root;
 * O_PATH is fine) the owner and group of the sandbox directory, when the
 * host runs as root and the directory is another user's (the ids its
 * sandbox runs as, local_isolation_ids.h): the sandbox may then change
 * what the host wrote for it.  0 or an errno. */
int local_confine_own(const local_root *root, int fd);

/* Open the directory that holds rel->name (O_PATH), creating missing
 * directories (mode 0755) one component at a time beneath the root when
 * `make` is non-zero.  SBX_OK with *fd the caller's, or the error of the
 * path (local_confine_error). */
sbx_status local_confine_parent(const local_root *root, const char *op, const local_rel *rel,
                                int make, int *fd, sbx_error *err);

#endif
