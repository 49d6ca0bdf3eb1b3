/* Namespaces, private root and limits of an exec (see local_isolation.h).
 * Below local_isolation_plan_free, only async-signal-safe calls: the
 * reaper and the command are forks of a multi-threaded host. */
#include <config.h>

#include "plugin/local/local_isolation.h"

#include "plugin/local/local_isolation_filter.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

const char *const local_isolation_words[] = { "none", "namespaces", NULL };
const char *const local_network_words[] = { "none", "host", "forward", NULL };
const char *const local_isolation_proc_read_only[] = { "sys", "sysrq-trigger", NULL };

/* CLONE_NEWNET unless the sandbox shares the host's network. */
static int network_flag(const local_isolation_plan *plan)
{
    return plan->network == LOCAL_NETWORK_HOST ? 0 : CLONE_NEWNET;
}

/* The uid and gid the command has inside (local_isolation_ids.h's
 * outside). */
#define INSIDE_ID 1000U

/* Where the private root is built (a tmpfs over it, in the new mount
 * namespace only) and the sizes of the private tmpfs mounts. */
#define NEW_ROOT "/tmp"
#define ROOT_OPTIONS "mode=0755,size=1m"
#define TMP_OPTIONS "mode=1777,size=64m"
#define DEV_OPTIONS "mode=0755,size=1m"

/* mount_setattr(2) by number (glibc may lack the wrapper); the structure
 * is the kernel's struct mount_attr. */
struct attr_change {
    uint64_t attr_set, attr_clr, propagation, userns_fd;
};
#define ATTR_RDONLY 0x1ULL
#define ATTR_NOSUID 0x2ULL
#define ATTR_NODEV 0x4ULL
#define RECURSIVE 0x8000 /* AT_RECURSIVE */
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#define TREE_CLONE 1         /* OPEN_TREE_CLONE */
#define MOVE_FROM_EMPTY 0x4  /* MOVE_MOUNT_F_EMPTY_PATH */

/* The host's directories shown read-only (a symlink is copied as one). */
static const char *const system_dirs[] = {
    "usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc",
};

/* The device nodes bound from the host's /dev. */
static const char *const devices[] = { "null", "zero", "full", "random", "urandom", "tty" };

const char *local_isolation_stage_text(int stage)
{
    static const char *const text[] = {
        "start",
        "create user, mount, pid, ipc, uts and network namespaces (unprivileged user "
        "namespaces must be allowed: user.max_user_namespaces, "
        "kernel.unprivileged_userns_clone, the LSM's userns policy)",
        "map the host's uid and gid into the user namespace",
        "make the mounts private",
        "mount the private root (tmpfs)",
        "bind the system directories read-only (mount_setattr, Linux >= 5.12)",
        "mount /proc for the pid namespace (a /proc partly covered on the host forbids it)",
        "populate /dev",
        "mount the private /tmp",
        "bind the sandbox directory (open_tree, move_mount: Linux >= 5.2)",
        "pivot_root into the private root",
        "enter the working directory",
        "bring up the namespace's loopback",
        "set the uts namespace's hostname",
        "fork the command",
        "set the rlimits",
        "install the seccomp filter",
        "join the sandbox's namespaces (setns on its holder's pidfd: Linux >= 5.8)",
        "create the exec's pid and mount namespaces",
        "mount /proc for the exec's pid namespace",
        "switch to the sandbox's uid and gid on the host (on a root host: the options "
        "sandbox_uid and sandbox_gid, root's range in /etc/subuid and /etc/subgid)",
    };
    return stage > 0 && stage < (int)(sizeof text / sizeof text[0]) ? text[stage] : text[0];
}

/* ------------------------------------------------------------ the host */

/* `fd` duplicated above the standard descriptors (close-on-exec); -1. */
static int dup_above_stdio(int fd)
{
    return fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

/* The rlimits the options ask, each capped at the host's hard limit (only
 * a privileged process could raise it; the sandbox's processes inherit
 * the host's), into the plan; 0 when a limit cannot be read. */
static int plan_limits(local_isolation_plan *plan)
{
    const local_isolation_options *o = plan->options;
    const struct { int resource; long value; } asked[] = {
        { RLIMIT_NPROC, o->max_processes }, { RLIMIT_FSIZE, o->max_file_bytes },
        { RLIMIT_NOFILE, o->max_open_files }, { RLIMIT_AS, o->max_address_bytes },
        { RLIMIT_CPU, o->max_cpu_seconds },
    };
    plan->limit_count = 0;
    for (size_t i = 0; i < sizeof asked / sizeof asked[0]; i++) {
        struct rlimit now;
        if (asked[i].value <= 0)
            continue;
        if (getrlimit(asked[i].resource, &now) != 0)
            return 0;
        rlim_t v = (rlim_t)asked[i].value;
        if (now.rlim_max != RLIM_INFINITY && v > now.rlim_max)
            v = now.rlim_max;
        plan->limits[plan->limit_count].resource = asked[i].resource;
        plan->limits[plan->limit_count++].value = v;
    }
    return 1;
}

sbx_status local_isolation_prepare(const local_isolation_options *options,
                                   const local_isolation_site *site, local_isolation_plan *plan,
                                   sbx_error *err)
{
    const char *sandbox_dir = site->sandbox_dir, *rel = site->rel;
    int root_fd = site->root_fd, holder_fd = site->holder_fd;
    memset(plan, 0, sizeof *plan);
    plan->options = options;
    plan->sandbox_dir = sandbox_dir;
    plan->network = site->network;
    plan->root_fd = plan->tree_fd = plan->status_read = plan->status_write = -1;
    plan->join_flags = (LOCAL_ISOLATION_JOINED & ~CLONE_NEWNET) | network_flag(plan);
    plan->holder_fd = holder_fd >= 0 ? dup_above_stdio(holder_fd) : -1;
    if (holder_fd >= 0)
        close(holder_fd);
    plan->switch_ids = options->switch_ids;
    plan->uid = (unsigned)options->host_uid;
    plan->gid = (unsigned)options->host_gid;
    snprintf(plan->uid_map, sizeof plan->uid_map, "%u %u 1", INSIDE_ID, plan->uid);
    snprintf(plan->gid_map, sizeof plan->gid_map, "%u %u 1", INSIDE_ID, plan->gid);
    int whole = rel[0] == '\0' || strcmp(rel, ".") == 0;
    size_t dir_len = strlen(sandbox_dir);
    size_t work_len = dir_len + strlen(rel) + 2;
    plan->scratch_size = dir_len + sizeof NEW_ROOT + 64;
    size_t home_len = sizeof "HOME=" + dir_len;
    plan->home = malloc(home_len);
    if (plan->home != NULL)
        snprintf(plan->home, home_len, "HOME=%s", sandbox_dir);
    plan->environment[0] = (char *)"PATH=" LOCAL_BASE_PATH;
    plan->environment[1] = plan->home;
    plan->environment[2] = (char *)"LANG=" LOCAL_BASE_LANG;
    plan->environment[3] = NULL;
    plan->work_dir = malloc(work_len);
    plan->scratch = malloc(plan->scratch_size);
    if (plan->work_dir == NULL || plan->scratch == NULL || plan->home == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "isolation: out of memory");
    snprintf(plan->work_dir, work_len, "%s%s%s", sandbox_dir, whole ? "" : "/", whole ? "" : rel);
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "isolation: pipe: %s",
                                     strerror(errno));
    plan->status_read = dup_above_stdio(pipe_fds[0]);
    plan->status_write = dup_above_stdio(pipe_fds[1]);
    plan->root_fd = root_fd >= 0 ? dup_above_stdio(root_fd) : -1;
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    if (plan->status_read < 0 || plan->status_write < 0 || (root_fd >= 0 && plan->root_fd < 0) ||
        (holder_fd >= 0 && plan->holder_fd < 0) ||
        fcntl(plan->status_read, F_SETFL, O_NONBLOCK) != 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "isolation: %s", strerror(errno));
    /* New namespaces of a root host: their ids may not look into the state
     * directory, so they get a copy of the sandbox directory's mounts. */
    if (plan->switch_ids && plan->root_fd >= 0 && plan->holder_fd < 0) {
        int tree = (int)syscall(SYS_open_tree, plan->root_fd, "",
                                TREE_CLONE | O_CLOEXEC | RECURSIVE | AT_EMPTY_PATH);
        plan->tree_fd = tree >= 0 ? dup_above_stdio(tree) : -1;
        if (tree >= 0)
            close(tree);
        if (plan->tree_fd < 0)
            return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "isolation: open_tree %s: %s",
                                         sandbox_dir, strerror(errno));
    }
    if (!plan_limits(plan))
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "isolation: getrlimit: %s",
                                     strerror(errno));
    return local_isolation_filter_get(&plan->filter, &plan->filter_count, err);
}

void local_isolation_plan_free(local_isolation_plan *plan)
{
    if (plan->options == NULL)
        return;
    free(plan->work_dir);
    free(plan->scratch);
    free(plan->home);
    int *fds[] = { &plan->root_fd, &plan->tree_fd, &plan->status_read, &plan->status_write,
                   &plan->holder_fd };
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (*fds[i] >= 0)
            close(*fds[i]);
    memset(plan, 0, sizeof *plan);
}

void local_isolation_keep_fds(const local_isolation_plan *plan, int keep[3])
{
    keep[0] = plan->status_write;
    keep[1] = plan->status_read;
    /* A joining exec binds nothing of the host's: the holder did.  A copy
     * of the directory's mounts stands for the directory. */
    keep[2] = plan->holder_fd >= 0 ? plan->holder_fd
              : plan->tree_fd >= 0 ? plan->tree_fd
                                   : plan->root_fd;
}

/* ------------------------------------------------------------ the reaper */

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    size_t len = strlen(text);
    int e = write(fd, text, len) == (ssize_t)len ? 0 : errno;
    close(fd);
    return e;
}

/* Into the holder's user, mount, ipc, uts and network namespaces (the
 * mount namespace's root becomes ours), then a copy of its mount namespace
 * (for this exec's /proc) and a pid namespace for the command's children. */
static int join_holder(const local_isolation_plan *plan, int *stage)
{
    *stage = LOCAL_STAGE_JOIN;
    if (setns(plan->holder_fd, plan->join_flags) != 0)
        return errno;
    *stage = LOCAL_STAGE_NEW_PID;
    if (unshare(CLONE_NEWNS | CLONE_NEWPID) != 0)
        return errno;
    *stage = LOCAL_STAGE_NONE;
    return 0;
}

/* In a process about to enter or join the sandbox's namespaces: no
 * supplementary group, then the ids of local_isolation_ids.h (for good:
 * no capability is kept).  0 or an errno; nothing when the processes
 * keep the host's ids. */
static int switch_ids(const local_isolation_plan *plan)
{
    if (!plan->switch_ids)
        return 0;
    /* Raw calls: glibc's wrappers signal every thread of the process, and
     * this one may be a fork of a multi-threaded host. */
    if (syscall(SYS_setgroups, 0, NULL) != 0 ||
        syscall(SYS_setresgid, plan->gid, plan->gid, plan->gid) != 0 ||
        syscall(SYS_setresuid, plan->uid, plan->uid, plan->uid) != 0)
        return errno;
    return 0;
}

int local_isolation_enter(const local_isolation_plan *plan, int *stage)
{
    *stage = LOCAL_STAGE_IDS;
    int switched = switch_ids(plan);
    if (switched != 0)
        return switched;
    if (plan->holder_fd >= 0)
        return join_holder(plan, stage);
    *stage = LOCAL_STAGE_UNSHARE;
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
                network_flag(plan)) != 0)
        return errno;
    *stage = LOCAL_STAGE_MAP;
    /* A host that changed its uid without exec is not dumpable, and then
     * its /proc/self files are root's: the maps could not be written. */
    int dumpable = prctl(PR_GET_DUMPABLE, 0L, 0L, 0L, 0L);
    if (dumpable != 1)
        prctl(PR_SET_DUMPABLE, 1L, 0L, 0L, 0L);
    int e = write_file("/proc/self/setgroups", "deny");
    if (e == 0)
        e = write_file("/proc/self/uid_map", plan->uid_map);
    if (e == 0)
        e = write_file("/proc/self/gid_map", plan->gid_map);
    if (dumpable >= 0 && dumpable != 1)
        prctl(PR_SET_DUMPABLE, (long)dumpable, 0L, 0L, 0L);
    if (e == 0)
        *stage = LOCAL_STAGE_NONE;
    return e;
}

void local_isolation_report(const local_isolation_plan *plan, int stage, int value)
{
    local_isolation_message m = { stage, value };
    ssize_t n;
    while ((n = write(plan->status_write, &m, sizeof m)) < 0 && errno == EINTR)
        ;
}

int local_isolation_read_status(int fd, int *stage, int *value)
{
    local_isolation_message m;
    ssize_t n;
    while ((n = read(fd, &m, sizeof m)) < 0 && errno == EINTR)
        ;
    if (n != (ssize_t)sizeof m)
        return 0;
    *stage = m.stage;
    *value = m.value;
    return 1;
}

void local_isolation_outcome(const local_isolation_plan *plan, int *status, int *error,
                             int *stage)
{
    int got_stage, value;
    if (!local_isolation_read_status(plan->status_read, &got_stage, &value))
        return;
    if (got_stage == LOCAL_STAGE_NONE) {
        *status = value;
    } else {
        *error = value;
        *stage = got_stage;
    }
}

/* ------------------------------------------------------------ the sandbox */

_Noreturn static void fail(const local_isolation_plan *plan, int stage)
{
    local_isolation_report(plan, stage, errno != 0 ? errno : EINVAL);
    _exit(126);
}

/* NEW_ROOT + "/" + `name` (an absolute name keeps its own '/') in the
 * plan's scratch, which holds it (sized by local_isolation_prepare). */
static const char *in_root(const local_isolation_plan *plan, const char *name)
{
    size_t root = sizeof NEW_ROOT - 1, len = strlen(name);
    if (root + len + 2 > plan->scratch_size)
        return "";
    memcpy(plan->scratch, NEW_ROOT, root);
    plan->scratch[root] = '/';
    memcpy(plan->scratch + root + 1, name + (name[0] == '/'), len + 1 - (name[0] == '/'));
    return plan->scratch;
}

/* Set `attributes` (ATTR_*) on the mount at `path`, and on every mount
 * below it when `recursive`. */
static int set_attributes(const char *path, uint64_t attributes, int recursive)
{
    struct attr_change a = { attributes, 0, 0, 0 };
    return (int)syscall(SYS_mount_setattr, AT_FDCWD, path, recursive ? RECURSIVE : 0, &a,
                        sizeof a);
}

/* Make the mount at `path`, and every mount below it when `recursive`,
 * read-only, nosuid, nodev. */
static int make_read_only(const char *path, int recursive)
{
    return set_attributes(path, ATTR_RDONLY | ATTR_NOSUID | ATTR_NODEV, recursive);
}

/* The host's /NAME in the new root: a directory bound read-only, a
 * symlink copied, nothing when absent. */
static void show_system_dir(const local_isolation_plan *plan, const char *name)
{
    char host[16] = "/", target[256];
    struct stat st;
    memcpy(host + 1, name, strlen(name) + 1);
    if (lstat(host, &st) != 0)
        return;
    const char *dst = in_root(plan, name);
    if (S_ISLNK(st.st_mode)) {
        ssize_t n = readlink(host, target, sizeof target - 1);
        if (n < 0)
            fail(plan, LOCAL_STAGE_SYSTEM);
        target[n] = '\0';
        if (symlink(target, dst) != 0)
            fail(plan, LOCAL_STAGE_SYSTEM);
    } else if (S_ISDIR(st.st_mode)) {
        if (mkdir(dst, 0755) != 0 || mount(host, dst, NULL, MS_BIND | MS_REC, NULL) != 0 ||
            make_read_only(dst, 1) != 0)
            fail(plan, LOCAL_STAGE_SYSTEM);
    }
}

/* A private /dev: the harmless host nodes bound, the usual links. */
static void make_dev(const local_isolation_plan *plan)
{
    if (mkdir(in_root(plan, "dev"), 0755) != 0 ||
        mount("tmpfs", in_root(plan, "dev"), "tmpfs", MS_NOSUID | MS_NOEXEC, DEV_OPTIONS) != 0 ||
        mkdir(in_root(plan, "dev/shm"), 01777) != 0 || chmod(in_root(plan, "dev/shm"), 01777))
        fail(plan, LOCAL_STAGE_DEV);
    for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++) {
        char host[32] = "/dev/", name[32] = "dev/";
        memcpy(host + 5, devices[i], strlen(devices[i]) + 1);
        memcpy(name + 4, devices[i], strlen(devices[i]) + 1);
        int fd = open(in_root(plan, name), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0)
            fail(plan, LOCAL_STAGE_DEV);
        close(fd);
        if (mount(host, in_root(plan, name), NULL, MS_BIND, NULL) != 0 && errno != ENOENT &&
            errno != ENXIO)
            fail(plan, LOCAL_STAGE_DEV);
    }
    static const char *const links[][2] = {
        { "/proc/self/fd", "dev/fd" }, { "/proc/self/fd/0", "dev/stdin" },
        { "/proc/self/fd/1", "dev/stdout" }, { "/proc/self/fd/2", "dev/stderr" },
    };
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++)
        if (symlink(links[i][0], in_root(plan, links[i][1])) != 0)
            fail(plan, LOCAL_STAGE_DEV);
}

/* mkdir -p of the sandbox directory's path in the new root. */
static void make_sandbox_point(const local_isolation_plan *plan)
{
    char *path = (char *)in_root(plan, plan->sandbox_dir);
    for (char *p = path + sizeof NEW_ROOT; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int made = mkdir(path, 0755) == 0 || errno == EEXIST;
        *p = '/';
        if (!made)
            fail(plan, LOCAL_STAGE_SANDBOX);
    }
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        fail(plan, LOCAL_STAGE_SANDBOX);
}

/* The sandbox directory's parent, opened in the new mount namespace
 * before the new root covers it (NEW_ROOT may be above it): the directory
 * is looked up from there later, and may not exist yet. */
static int open_parent(const local_isolation_plan *plan)
{
    const char *dir = plan->sandbox_dir;
    size_t len = (size_t)(strrchr(dir, '/') - dir);
    if (len == 0)
        len = 1;
    if (len + 1 > plan->scratch_size) {
        errno = ENAMETOOLONG;
        fail(plan, LOCAL_STAGE_SANDBOX);
    }
    memcpy(plan->scratch, dir, len);
    plan->scratch[len] = '\0';
    int fd = open(plan->scratch, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        fail(plan, LOCAL_STAGE_SANDBOX);
    return fd;
}

/* A detached copy of the sandbox directory's mounts: `tree_fd`, the host's
 * (a root host's, made before its ids were given up), else taken in the
 * new mount namespace (a descriptor opened in the host's cannot be bound
 * here); checked to be the directory the host opened. */
static int clone_sandbox(const local_isolation_plan *plan, int parent_fd, int tree_fd,
                         const local_isolation_identity *want)
{
    int tree = tree_fd >= 0 ? tree_fd
                            : (int)syscall(SYS_open_tree, parent_fd,
                                           strrchr(plan->sandbox_dir, '/') + 1,
                                           TREE_CLONE | O_CLOEXEC | RECURSIVE);
    struct stat got;
    if (tree < 0 || fstat(tree, &got) != 0)
        fail(plan, LOCAL_STAGE_SANDBOX);
    if ((unsigned long long)got.st_dev != want->dev ||
        (unsigned long long)got.st_ino != want->ino) {
        errno = ESTALE;
        fail(plan, LOCAL_STAGE_SANDBOX);
    }
    return tree;
}

/* The new network namespace's loopback up, so that the command may serve
 * and reach its own 127.0.0.1 (it has no other interface). */
static void loopback_up(const local_isolation_plan *plan)
{
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    memcpy(ifr.ifr_name, "lo", 3);
    if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) != 0)
        fail(plan, LOCAL_STAGE_NETWORK);
    ifr.ifr_flags |= IFF_UP;
    if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0)
        fail(plan, LOCAL_STAGE_NETWORK);
    close(s);
}

/* The command's own process: the limits, no new privileges, the filter. */
static void confine_command(const local_isolation_plan *plan)
{
    for (int i = 0; i < plan->limit_count; i++) {
        struct rlimit next = { plan->limits[i].value, plan->limits[i].value };
        if (setrlimit(plan->limits[i].resource, &next) != 0)
            fail(plan, LOCAL_STAGE_LIMITS);
    }
    struct sock_fprog prog = { plan->filter_count, (struct sock_filter *)plan->filter };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0L, 0L) != 0)
        fail(plan, LOCAL_STAGE_SECCOMP);
}

/* A /proc of the calling process's pid namespace at `at` (LOCAL_ISOLATION_
 * PROC_OPTIONS), with the entries that set the kernel's state bound
 * read-only over themselves. */
static void mount_proc(const local_isolation_plan *plan, const char *at, int stage)
{
    if (mount("proc", at, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
              LOCAL_ISOLATION_PROC_OPTIONS) != 0)
        fail(plan, stage);
    for (size_t i = 0; local_isolation_proc_read_only[i] != NULL; i++) {
        char path[64];
        size_t at_len = strlen(at), len = strlen(local_isolation_proc_read_only[i]);
        if (at_len + len + 2 > sizeof path)
            fail(plan, stage);
        memcpy(path, at, at_len);
        path[at_len] = '/';
        memcpy(path + at_len + 1, local_isolation_proc_read_only[i], len + 1);
        if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) != 0) {
            if (errno == ENOENT)
                continue;
            fail(plan, stage);
        }
        if (make_read_only(path, 1) != 0)
            fail(plan, stage);
    }
}

/* The new root is a tmpfs over NEW_ROOT holding the read-only system
 * directories, /proc of the new pid namespace, a private /dev and /tmp
 * and the sandbox directory (read-write) at its own path; the late part
 * binds the directory and pivots into the root, the old root detached,
 * the new one read-only. */
int local_isolation_build_early(const local_isolation_plan *plan)
{
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        fail(plan, LOCAL_STAGE_PRIVATE);
    int parent = plan->switch_ids ? -1 : open_parent(plan);
    if (mount("tmpfs", NEW_ROOT, "tmpfs", MS_NOSUID | MS_NODEV, ROOT_OPTIONS) != 0)
        fail(plan, LOCAL_STAGE_ROOT);
    for (size_t i = 0; i < sizeof system_dirs / sizeof system_dirs[0]; i++)
        show_system_dir(plan, system_dirs[i]);
    if (mkdir(in_root(plan, "proc"), 0555) != 0)
        fail(plan, LOCAL_STAGE_PROC);
    mount_proc(plan, NEW_ROOT "/proc", LOCAL_STAGE_PROC);
    make_dev(plan);
    if (mkdir(in_root(plan, "tmp"), 01777) != 0 ||
        mount("tmpfs", in_root(plan, "tmp"), "tmpfs", MS_NOSUID | MS_NODEV, TMP_OPTIONS) != 0)
        fail(plan, LOCAL_STAGE_TMP);
    make_sandbox_point(plan);
    if (network_flag(plan) != 0)
        loopback_up(plan);
    if (sethostname("sbx", 3) != 0)
        fail(plan, LOCAL_STAGE_HOSTNAME);
    return parent;
}

void local_isolation_build_late(const local_isolation_plan *plan, int parent_fd, int tree_fd,
                                const local_isolation_identity *sandbox)
{
    int tree = clone_sandbox(plan, parent_fd, tree_fd, sandbox);
    if (parent_fd >= 0)
        close(parent_fd);
    /* nosuid: a setuid file the sandbox makes there grants nothing here. */
    if (syscall(SYS_move_mount, tree, "", AT_FDCWD, in_root(plan, plan->sandbox_dir),
                MOVE_FROM_EMPTY) != 0 ||
        set_attributes(in_root(plan, plan->sandbox_dir), ATTR_NOSUID | ATTR_NODEV, 1) != 0)
        fail(plan, LOCAL_STAGE_SANDBOX);
    close(tree);
    if (chdir(NEW_ROOT) != 0 || syscall(SYS_pivot_root, ".", ".") != 0 ||
        umount2(".", MNT_DETACH) != 0 || chdir("/") != 0 || make_read_only("/", 0) != 0)
        fail(plan, LOCAL_STAGE_PIVOT);
    if (chdir(plan->work_dir) != 0)
        fail(plan, LOCAL_STAGE_WORKDIR);
}

void local_isolation_build(const local_isolation_plan *plan)
{
    int parent = local_isolation_build_early(plan);
    struct stat st;
    if (fstat(plan->tree_fd >= 0 ? plan->tree_fd : plan->root_fd, &st) != 0)
        fail(plan, LOCAL_STAGE_SANDBOX);
    local_isolation_identity sandbox = { (unsigned long long)st.st_dev,
                                         (unsigned long long)st.st_ino };
    local_isolation_build_late(plan, parent, plan->tree_fd, &sandbox);
}

/* In pid 1 of an exec joining its holder: a /proc of the exec's own pid
 * namespace (over the holder's, in the exec's copy of the mounts) and the
 * working directory, looked up from the sandbox's root (not the host's
 * descriptor the reaper entered first). */
static void enter_joined(const local_isolation_plan *plan)
{
    mount_proc(plan, "/proc", LOCAL_STAGE_OWN_PROC);
    if (chdir(plan->work_dir) != 0)
        fail(plan, LOCAL_STAGE_WORKDIR);
}

void local_isolation_command(const local_isolation_plan *plan)
{
    close(plan->status_read);
    if (plan->holder_fd >= 0)
        enter_joined(plan);
    else
        local_isolation_build(plan);
    pid_t command = _Fork();
    if (command < 0)
        fail(plan, LOCAL_STAGE_FORK);
    if (command == 0) {
        confine_command(plan);
        environ = (char **)plan->environment;
        return;
    }
    /* The init: not to be read through /proc by the command (same uid). */
    prctl(PR_SET_DUMPABLE, 0L, 0L, 0L, 0L);
    close(plan->root_fd);
    close(plan->holder_fd);
    for (int fd = 0; fd < 3; fd++)
        close(fd);
    for (;;) {
        int status;
        pid_t got = waitpid(-1, &status, 0);
        if (got == command) {
            local_isolation_report(plan, LOCAL_STAGE_NONE, status);
            _exit(0);
        }
        if (got < 0 && errno != EINTR)
            _exit(0);
    }
}
