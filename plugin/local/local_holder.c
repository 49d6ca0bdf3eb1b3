/* The holder of an isolated sandbox (see local_holder.h).  Between fork
 * and _exit only async-signal-safe calls: the host may have threads. */
#include <config.h>

#include "plugin/local/local_holder.h"

#include "plugin/local/local_child.h"
#include "plugin/local/local_time.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The messages of the holder's first process besides the isolation's
 * (local_isolation_report): the holder's pid, or why it could not fork. */
#define HOLDER_PID (-1)
#define HOLDER_FORK_FAILED (-2)

/* How long create waits for the holder to be built: far above the few
 * milliseconds it takes, for a loaded machine. */
#define READY_TIMEOUT_MS 30000L

/* The descriptors the holder's first process keeps: /dev/null, the go
 * channel and the isolation's three. */
#define KEEP_COUNT 5

/* How often a holder checks that its sandbox directory still exists: the
 * bound (docs/local.md "Isolation") on how long a holder outlives a
 * sandbox directory removed without destroy. */
#define PRESENCE_PERIOD_S 1

/* open_tree(2) by number (glibc may lack it): a detached copy
 * (OPEN_TREE_CLONE) of every mount at and below (AT_RECURSIVE) the path,
 * not followed (AT_SYMLINK_NOFOLLOW), close-on-exec. */
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#define LOCAL_HOLDER_TREE_FLAGS (1 | 0x8000 | AT_SYMLINK_NOFOLLOW | O_CLOEXEC)

static int compare_fds(const void *a, const void *b)
{
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* Hold until the sandbox directory (bound at its own path) is removed on
 * the host: its link count is then 0.  No event says so: the bind mount
 * pins the directory (inotify on it stays silent), and a watch on the
 * state directory would cost an inotify instance per sandbox (128 per
 * user by default) and a handle on the host's files inside the sandbox's
 * namespaces.  A check costs one fstat per period. */
_Noreturn static void hold_while_present(const char *sandbox_dir)
{
    int fd = open(sandbox_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        for (;;)
            pause();
    const struct timespec period = { PRESENCE_PERIOD_S, 0 };
    struct stat st;
    while (fstat(fd, &st) == 0 && st.st_nlink > 0)
        nanosleep(&period, NULL);
    _exit(0);
}

/* Read exactly `size` bytes from `fd`; 0 at EOF or on error. */
static int read_all(int fd, void *buf, size_t size)
{
    for (size_t got = 0; got < size;) {
        ssize_t n = read(fd, (char *)buf + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        got += (size_t)n;
    }
    return 1;
}

/* The sandbox directory's identity from the go channel, and the detached
 * copy of its mounts a root host sends with it (-1 when none); 0 at EOF
 * or on error. */
static int receive_sandbox(int go_fd, local_isolation_identity *sandbox, int *tree_fd)
{
    union {
        struct cmsghdr header;
        char room[CMSG_SPACE(sizeof(int))];
    } control;
    struct iovec part = { sandbox, sizeof *sandbox };
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = &part;
    m.msg_iovlen = 1;
    m.msg_control = control.room;
    m.msg_controllen = sizeof control.room;
    ssize_t n;
    while ((n = recvmsg(go_fd, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
        ;
    struct cmsghdr *c = n > 0 ? CMSG_FIRSTHDR(&m) : NULL;
    *tree_fd = -1;
    if (c != NULL && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
        memcpy(tree_fd, CMSG_DATA(c), sizeof *tree_fd);
    return n > 0 && read_all(go_fd, (char *)sandbox + n, sizeof *sandbox - (size_t)n);
}

/* The holder (pid 1 of the sandbox's pid namespace): build what of the
 * root needs no sandbox directory while the host makes it, bind it once
 * the host sends its identity, say so, wait for the go and then while the
 * sandbox directory exists.  A closed channel at either wait: the create
 * gave up.  Execs get pid namespaces of their own, so nothing is ever
 * reparented here. */
_Noreturn static void hold(const local_isolation_plan *plan, int go_fd)
{
    close(plan->status_read);
    int parent = local_isolation_build_early(plan);
    local_isolation_identity sandbox;
    int tree = -1;
    if (!receive_sandbox(go_fd, &sandbox, &tree))
        _exit(0);
    local_isolation_build_late(plan, parent, tree, &sandbox);
    /* Its own process group, which destroy kills (local_process_stop). */
    if (setsid() < 0)
        _exit(1);
    /* Dumpable (unlike an exec's init), which entering the user namespace
     * with more capabilities than the host's undid: setns through a pidfd
     * needs ptrace's read access.  No exec's /proc shows this process. */
    prctl(PR_SET_DUMPABLE, 1L, 0L, 0L, 0L);
    local_isolation_report(plan, 0, 0);
    close(plan->status_write);
    char go;
    if (!read_all(go_fd, &go, 1))
        _exit(0);
    close(go_fd);
    hold_while_present(plan->sandbox_dir);
}

/* The holder's first process: out of the host's session, in new
 * namespaces; it forks the holder, reports its pid and exits. */
_Noreturn static void start(const local_isolation_plan *plan, int null_fd, int go_fd,
                            const int keep[KEEP_COUNT], long fd_limit)
{
    local_child_reset_signals();
    local_child_close_all_but(keep, KEEP_COUNT, fd_limit);
    for (int fd = 0; fd < 3; fd++)
        if (dup2(null_fd, fd) < 0)
            _exit(1);
    close(null_fd);
    if (setsid() < 0)
        _exit(1);
    int stage = 0, e = local_isolation_enter(plan, &stage);
    if (e != 0) {
        local_isolation_report(plan, stage, e);
        _exit(1);
    }
    pid_t holder = _Fork();
    if (holder == 0)
        hold(plan, go_fd);
    if (holder < 0)
        local_isolation_report(plan, HOLDER_FORK_FAILED, errno);
    else
        local_isolation_report(plan, HOLDER_PID, (int)holder);
    _exit(0);
}

/* Read the holder's messages until it is ready: its pid into *pid.  0, or
 * the failed stage (with *error) or -1 (holder gone or silent). */
static int await_ready(int fd, long *pid, int *error)
{
    long deadline = local_now_ms() + READY_TIMEOUT_MS;
    int ready = 0;
    *error = 0;
    while (!ready || *pid <= 0) {
        long left = deadline - local_now_ms();
        struct pollfd p = { fd, POLLIN, 0 };
        int rc = left > 0 ? poll(&p, 1, (int)left) : 0;
        if (rc < 0 && errno == EINTR)
            continue;
        int stage, value;
        if (rc <= 0 || !local_isolation_read_status(fd, &stage, &value))
            return -1;
        if (stage == HOLDER_PID) {
            *pid = value;
        } else if (stage == 0) {
            ready = 1;
        } else {
            *error = value;
            return stage;
        }
    }
    return 0;
}

/* The error of a holder that was not made ready. */
static sbx_status failed(int stage, int error, const char *sandbox_dir, sbx_error *err)
{
    if (stage == HOLDER_FORK_FAILED || stage < 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "isolation=namespaces: the holder "
                                     "of %s %s", sandbox_dir, stage < 0 && error == 0
                                     ? "did not report ready" : "could not fork");
    return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED, "isolation=namespaces: cannot %s: "
                                 "%s (set the option isolation=none for sandboxes that do "
                                 "not isolate)", local_isolation_stage_text(stage),
                                 strerror(error));
}

sbx_status local_holder_start(const local_isolation_options *options, int network,
                              const char *sandbox_dir, local_holder_launch *launch,
                              sbx_error *err)
{
    local_isolation_plan *plan = &launch->plan;
    int go[2] = { -1, -1 };
    memset(launch, 0, sizeof *launch);
    launch->go = -1;
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    sbx_status st = SBX_OK;
    if (null_fd < 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go) != 0)
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "isolation: %s: %s", sandbox_dir,
                                   strerror(errno));
    local_isolation_site site = { sandbox_dir, -1, "", -1, network };
    if (st == SBX_OK)
        st = local_isolation_prepare(options, &site, plan, err);
    /* Sorted here: the fork may not call qsort. */
    int keep[KEEP_COUNT] = { null_fd, go[1], -1, -1, -1 };
    local_isolation_keep_fds(plan, keep + 2);
    qsort(keep, KEEP_COUNT, sizeof keep[0], compare_fds);
    pid_t first = -1;
    if (st == SBX_OK && (first = fork()) < 0)
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "isolation: fork: %s",
                                   strerror(errno));
    if (first == 0) {
        close(go[0]);
        start(plan, null_fd, go[1], keep, local_child_fd_limit());
    }
    if (st == SBX_OK) {
        /* Ours closed: EOF once the holder and its parent are gone. */
        close(plan->status_write);
        plan->status_write = -1;
        launch->first = first;
        launch->go = go[0];
        go[0] = -1;
    } else {
        local_isolation_plan_free(plan);
    }
    for (int i = 0; i < 2; i++)
        if (go[i] >= 0)
            close(go[i]);
    if (null_fd >= 0)
        close(null_fd);
    return st;
}

/* Send the sandbox directory's identity on the go channel; on a root host
 * with a detached copy of the directory's mounts, which the holder, under
 * the sandbox's ids, could not look up (the state directory is root's).
 * The bytes sent, -1 (errno) when sending failed, -2 (errno) when the
 * copy could not be made. */
static ssize_t send_sandbox(const local_holder_launch *launch,
                            const local_isolation_identity *sandbox)
{
    union {
        struct cmsghdr header;
        char room[CMSG_SPACE(sizeof(int))];
    } control;
    struct iovec part = { (void *)sandbox, sizeof *sandbox };
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = &part;
    m.msg_iovlen = 1;
    int tree = -1;
    if (launch->plan.switch_ids) {
        tree = (int)syscall(SYS_open_tree, AT_FDCWD, launch->plan.sandbox_dir,
                            LOCAL_HOLDER_TREE_FLAGS);
        if (tree < 0)
            return -2;
        memset(&control, 0, sizeof control);
        m.msg_control = control.room;
        m.msg_controllen = sizeof control.room;
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof tree);
        memcpy(CMSG_DATA(c), &tree, sizeof tree);
    }
    ssize_t n;
    while ((n = sendmsg(launch->go, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
    int saved = errno;
    if (tree >= 0)
        close(tree);
    errno = saved;
    return n;
}

/* Reap the holder's first process and free what `launch` holds but the
 * go channel. */
static void end_launch(local_holder_launch *launch)
{
    while (launch->first > 0 && waitpid(launch->first, NULL, 0) < 0 && errno == EINTR)
        ;
    launch->first = 0;
    local_isolation_plan_free(&launch->plan);
}

sbx_status local_holder_ready(local_holder_launch *launch, local_process *out, int *go_fd,
                              sbx_error *err)
{
    const char *sandbox_dir = launch->plan.sandbox_dir;
    *go_fd = -1;
    memset(out, 0, sizeof *out);
    struct stat dir;
    memset(&dir, 0, sizeof dir);
    sbx_status st = SBX_OK;
    /* Not followed: the holder binds what it finds at the path, which must
     * be this directory. */
    int found = lstat(sandbox_dir, &dir) == 0;
    if (!found || !S_ISDIR(dir.st_mode))
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "isolation: %s: %s", sandbox_dir,
                                   found ? "not a directory" : strerror(errno));
    local_isolation_identity sandbox = { (unsigned long long)dir.st_dev,
                                         (unsigned long long)dir.st_ino };
    ssize_t n = st == SBX_OK ? send_sandbox(launch, &sandbox) : 0;
    if (n == -2)
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "isolation: cannot copy the mounts "
                                   "of %s for its holder (open_tree): %s", sandbox_dir,
                                   strerror(errno));
    /* A holder that failed before has reported why: read below. */
    long pid = 0;
    int error = 0, stage = st == SBX_OK ? await_ready(launch->plan.status_read, &pid, &error) : 0;
    if (st == SBX_OK && stage != 0)
        st = failed(stage, error, sandbox_dir, err);
    else if (st == SBX_OK && n != (ssize_t)sizeof sandbox)
        st = failed(-1, 0, sandbox_dir, err);
    else if (st == SBX_OK && !local_process_identify(pid, out))
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "isolation: the holder of %s "
                                   "exited", sandbox_dir);
    if (st == SBX_OK) {
        *go_fd = launch->go;
        launch->go = -1;
    } else if (pid > 0 && local_process_identify(pid, out)) {
        sbx_error ignored;
        local_process_stop(out, 0, &ignored);
        memset(out, 0, sizeof *out);
    }
    local_holder_release(&launch->go);
    end_launch(launch);
    return st;
}

void local_holder_abandon(local_holder_launch *launch)
{
    local_holder_release(&launch->go);
    end_launch(launch);
}

sbx_status local_holder_go(int *go_fd, sbx_error *err)
{
    ssize_t n;
    while ((n = send(*go_fd, "g", 1, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
    int saved = errno;
    local_holder_release(go_fd);
    if (n != 1)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "isolation: the sandbox's holder "
                                     "is gone: %s", strerror(saved));
    return SBX_OK;
}

void local_holder_release(int *go_fd)
{
    if (*go_fd >= 0)
        close(*go_fd);
    *go_fd = -1;
}

int local_holder_pin_process(const local_process *holder)
{
    if (holder->pid <= 0)
        return -1;
    int fd = (int)syscall(SYS_pidfd_open, (pid_t)holder->pid, 0U);
    /* Pinned first, then checked: the pid cannot be recycled in between. */
    if (fd >= 0 && !local_process_is_running(holder)) {
        close(fd);
        fd = -1;
    }
    return fd;
}
