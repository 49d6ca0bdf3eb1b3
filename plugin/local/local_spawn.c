/* Starting an exec's reaper (see local_spawn.h). */
#include <config.h>

#include "plugin/local/local_spawn.h"

#include <errno.h>
#include <unistd.h>

/* The shared-memory launch: x86-64 only (its system calls are made
 * inline below), and not under ThreadSanitizer. */
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#define SPAWN_SHARED 1
#else
#define SPAWN_SHARED 0
#endif
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#undef SPAWN_SHARED
#define SPAWN_SHARED 0
#endif
#endif

#if SPAWN_SHARED

/* Valgrind runs no clone that shares memory but is not a thread: under
 * it the reaper is forked (valgrind.h is header-only; a build without it
 * cannot tell, and aborts under valgrind). */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define UNDER_VALGRIND() RUNNING_ON_VALGRIND
#endif
#endif
#ifndef UNDER_VALGRIND
#define UNDER_VALGRIND() 0
#endif

#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

/* Code that runs in the reaper or in the command before its exec: on the
 * host's memory, beside the host's running threads.  It must not write
 * what the host owns -- errno and the rest of the thread's TLS, which
 * every libc call may touch (cancellation state included), a sanitizer's
 * per-thread state -- so it makes system calls itself and is not
 * instrumented. */
#define RAW __attribute__((no_sanitize("address", "undefined")))

/* How often the reaper looks at the command when there is no pidfd. */
#define POLL_INTERVAL_MS 20

/* A system call; -errno on failure (errno itself is the host's). */
RAW static long sys(long nr, long a, long b, long c, long d, long e)
{
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    long ret;
    __asm__ __volatile__("syscall"
                         : "=a"(ret)
                         : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
                         : "rcx", "r11", "memory");
    return ret;
}

#define SYS0(nr) sys((nr), 0, 0, 0, 0, 0)
#define SYS1(nr, a) sys((nr), (long)(a), 0, 0, 0, 0)
#define SYS2(nr, a, b) sys((nr), (long)(a), (long)(b), 0, 0, 0)
#define SYS3(nr, a, b, c) sys((nr), (long)(a), (long)(b), (long)(c), 0, 0)
#define SYS4(nr, a, b, c, d) sys((nr), (long)(a), (long)(b), (long)(c), (long)(d), 0)

/* clone(flags) with the child on `stack_top`, where it runs fn(arg),
 * which never returns; the child's pid, or -errno.  With
 * CLONE_PARENT_SETTID the kernel stores the pid in *parent_tid as well. */
RAW __attribute__((noinline)) static long clone_on(unsigned long flags, void *stack_top,
                                                   void (*fn)(void *), void *arg,
                                                   pid_t *parent_tid)
{
    register long r10 __asm__("r10") = 0;
    register long r8 __asm__("r8") = 0;
    register void (*r12)(void *) __asm__("r12") = fn;
    register void *r13 __asm__("r13") = arg;
    long ret;
    __asm__ __volatile__("syscall\n\t"
                         "testq %%rax, %%rax\n\t"
                         "jnz 1f\n\t"
                         "xorl %%ebp, %%ebp\n\t"
                         "movq %%r13, %%rdi\n\t"
                         "callq *%%r12\n\t"
                         "ud2\n"
                         "1:"
                         : "=a"(ret)
                         : "a"((long)SYS_clone), "D"(flags), "S"(stack_top), "d"(parent_tid),
                           "r"(r10), "r"(r8), "r"(r12), "r"(r13)
                         : "rcx", "r11", "memory", "cc");
    return ret;
}

RAW _Noreturn static void sys_exit(int code)
{
    for (;;)
        SYS1(SYS_exit_group, code);
}

/* The kernel's struct sigaction (what rt_sigaction takes). */
typedef struct kernel_sigaction {
    unsigned long handler;  /* 0: SIG_DFL */
    unsigned long flags;
    unsigned long restorer;
    unsigned long mask;
} kernel_sigaction;

/* Close every descriptor from `from` up to `to` (-1: all above). */
RAW static void close_span(long from, long to, long fd_limit)
{
    if (to >= 0 && to < from)
        return;
    if (SYS3(SYS_close_range, from, to < 0 ? ~0U : (unsigned int)to, 0) == 0)
        return;
    long last = to < 0 || to >= fd_limit ? fd_limit - 1 : to;
    for (long fd = from; fd <= last; fd++)
        SYS1(SYS_close, fd);
}

/* `fd` moved above the standard descriptors; -errno on failure. */
RAW static long above_stdio(int fd)
{
    return fd >= 3 ? fd : SYS3(SYS_fcntl, fd, F_DUPFD, 3);
}

RAW static void write_text(const char *text)
{
    size_t len = 0;
    while (text[len] != '\0')
        len++;
    SYS3(SYS_write, STDERR_FILENO, text, len);
}

/* The command's own session and streams, as local_reaper.c's command
 * has them; 0 or -errno.  (An isolated exec's init takes them, and its
 * command then a session of its own: own_session.) */
RAW static long take_streams(const local_reaper_plan *p)
{
    long in = above_stdio(p->stdin_fd), out = above_stdio(p->stdout_fd);
    long errs = above_stdio(p->stderr_fd), e = SYS0(SYS_setsid);
    if (e >= 0)
        e = in < 0 ? in : out < 0 ? out : errs;
    if (e >= 0)
        e = SYS2(SYS_dup2, in, STDIN_FILENO);
    if (e >= 0)
        e = SYS2(SYS_dup2, out, STDOUT_FILENO);
    if (e >= 0)
        e = SYS2(SYS_dup2, errs, STDERR_FILENO);
    return e < 0 ? e : 0;
}

/* The end of the command's start: nothing else of the host's, default
 * signals, then each candidate file in turn, as local_reaper.c does. */
RAW _Noreturn static void run_candidates(const local_reaper_plan *p)
{
    close_span(3, -1, p->fd_limit);
    /* Every signal at its default (an ignored one would pass through the
     * exec), none blocked (the reaper blocks all). */
    kernel_sigaction dfl = { 0, 0, 0, 0 };
    for (long sig = 1; sig <= 64; sig++)
        SYS4(SYS_rt_sigaction, sig, &dfl, 0, sizeof dfl.mask);
    unsigned long none = 0;
    SYS4(SYS_rt_sigprocmask, SIG_SETMASK, &none, 0, sizeof none);
    int cannot_run = 0;
    for (size_t i = 0; p->candidates[i] != NULL; i++) {
        long e = SYS3(SYS_execve, p->candidates[i], p->argv, p->envp);
        if (e == -ENOEXEC) {
            p->sh_argv[1] = p->candidates[i];
            e = SYS3(SYS_execve, "/bin/sh", p->sh_argv, p->envp);
        }
        if (e != -ENOENT && e != -ENOTDIR)
            cannot_run = 1;
    }
    write_text("sbx-local: ");
    write_text(p->argv[0]);
    write_text(cannot_run ? ": cannot execute\n" : ": command not found\n");
    sys_exit(cannot_run ? 126 : 127);
}

/* The command (a vfork-like child of the reaper, which waits until it
 * execs) of isolation=none. */
/* A session of the command's own, so that a signal to its group never
 * reaches the init of an isolated exec; a terminal on its streams becomes
 * its controlling one (SIGWINCH); 0 or -errno. */
RAW static long own_session(const local_reaper_plan *p)
{
    long e = SYS0(SYS_setsid);
    if (e == -EPERM)
        e = 0;    /* the leader of its session already */
    if (e >= 0 && p->terminal)
        e = SYS3(SYS_ioctl, STDIN_FILENO, TIOCSCTTY, 0);
    return e < 0 ? e : 0;
}

RAW _Noreturn static void command_main(void *arg)
{
    const local_reaper_plan *p = arg;
    if (take_streams(p) != 0 || own_session(p) != 0 || SYS1(SYS_fchdir, p->cwd_fd) != 0)
        sys_exit(126);
    run_candidates(p);
}

/* ------------------------------------------ isolation=namespaces, joined
 * What local_isolation.c does for an exec joining its holder, in system
 * calls, with as few processes as there are in the way of the command's
 * end as with none.  The launcher (the host's vfork-like clone) joins and
 * makes the exec's pid and mount namespaces, clones the init with
 * CLONE_PARENT -- so that the init is the host's child, pid 1 of the new
 * pid namespace -- and exits.  The init starts the command (its
 * vfork-like clone, pid 2), then does what the reaper does for none: it
 * waits for the command or the stop, writes the report and exits; as pid
 * 1 its exit makes the kernel kill and reap every process left in the
 * namespace before the host, polling a pidfd of the init, sees it end.
 * After the command exits only the init and then the host wake.
 *
 * The init shares the host's memory without being readable from the
 * sandbox although it cannot be made undumpable (that flag is the
 * memory's, the host's): it holds every capability of the sandbox's user
 * namespace and the command's processes hold none, so ptrace and
 * /proc/1/mem are refused them (a tracer needs the target's
 * capabilities), and the exec's /proc, mounted hidepid=ptraceable, does
 * not show it at all (its cmdline, the host's argv, takes no ptrace
 * check). */

/* The command of an isolated exec: the limits, no new privileges, the
 * filter (local_isolation.c's confine_command), then as for none.  A
 * failed step is left in the stack, which the init reads once this
 * process ended (it waits for the exec, CLONE_VFORK). */
RAW _Noreturn static void isolated_command_main(void *arg)
{
    local_spawn_stack *s = arg;
    const local_reaper_plan *p = s->plan;
    const local_isolation_plan *ip = p->isolation;
    long e = own_session(p);
    s->command_stage = LOCAL_STAGE_LIMITS;
    for (int i = 0; i < ip->limit_count && e == 0; i++) {
        unsigned long limit[2] = { ip->limits[i].value, ip->limits[i].value };
        e = SYS4(SYS_prlimit64, 0, ip->limits[i].resource, limit, 0);
    }
    struct sock_fprog prog = { ip->filter_count, (struct sock_filter *)ip->filter };
    if (e == 0) {
        s->command_stage = LOCAL_STAGE_SECCOMP;
        e = SYS4(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0);
    }
    if (e == 0)
        e = SYS3(SYS_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
    if (e != 0) {
        s->command_error = (int)-e;
        sys_exit(126);
    }
    s->command_stage = LOCAL_STAGE_NONE;
    run_candidates(p);
}

/* Write *r on the report pipe. */
RAW static void send_report(const local_reaper_plan *p, const local_reaper_report *r)
{
    while (SYS3(SYS_write, p->report_fd, r, sizeof *r) == -EINTR)
        ;
}

/* The notice that the command runs in its own group (its vfork-like
 * clone returned: it has exec'd or failed), when the plan asks for it. */
RAW static void announce(const local_reaper_plan *p)
{
    local_reaper_report notice = { 0, 0, 0, 0, 0, 1 };
    if (p->announce)
        send_report(p, &notice);
}

/* Report a step of the init that failed, and exit (ending the namespace). */
RAW _Noreturn static void init_fail(const local_reaper_plan *p, int stage, long e)
{
    local_reaper_report r = { 0, 0, 0, (int)-e, stage, 0 };
    send_report(p, &r);
    sys_exit(126);
}

/* In the init: reap every process that ended (orphans of the command's
 * tree are reparented to pid 1) until the command has (its status into
 * *r) or the stop comes.  SIGCHLD, blocked since the host's clone, wakes
 * it through a signalfd; without one it looks every POLL_INTERVAL_MS. */
RAW static void init_wait(const local_reaper_plan *p, long command, local_reaper_report *r)
{
    unsigned long chld = 1UL << (SIGCHLD - 1);
    long sfd = SYS4(SYS_signalfd4, -1, &chld, sizeof chld, O_CLOEXEC | O_NONBLOCK);
    for (;;) {
        int status = 0;
        long got;
        while ((got = SYS4(SYS_wait4, -1, &status, WNOHANG, 0)) > 0 || got == -EINTR)
            if (got == command) {
                r->status = status;
                r->ended = 1;
            }
        if (r->ended)
            return;
        struct pollfd fds[2] = { { p->stop_fd, POLLIN, 0 }, { (int)sfd, POLLIN, 0 } };
        long ready = SYS3(SYS_poll, fds, sfd >= 0 ? 2 : 1, sfd >= 0 ? -1 : POLL_INTERVAL_MS);
        if (ready > 0 && fds[0].revents != 0) {
            r->stopped = 1;
            return;
        }
        if (ready < 0 && ready != -EINTR) {
            r->error = (int)-ready;
            return;
        }
        unsigned char info[128];
        if (sfd >= 0 && fds[1].revents != 0)
            SYS3(SYS_read, sfd, info, sizeof info);
    }
}

#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif

/* The exec's /proc, as local_isolation.c's mount_proc makes it: only the
 * processes the reader may trace, the entries that set the kernel's state
 * read-only.  0 or -errno. */
RAW static long mount_proc_raw(void)
{
    long e = sys(SYS_mount, (long)"proc", (long)"/proc", (long)"proc",
                 MS_NOSUID | MS_NODEV | MS_NOEXEC, (long)LOCAL_ISOLATION_PROC_OPTIONS);
    for (size_t i = 0; e == 0 && local_isolation_proc_read_only[i] != NULL; i++) {
        const char *name = local_isolation_proc_read_only[i];
        char path[64];
        size_t len = 0;
        for (; "/proc/"[len] != '\0'; len++)
            path[len] = "/proc/"[len];
        for (size_t j = 0; name[j] != '\0' && len + 1 < sizeof path; j++)
            path[len++] = name[j];
        path[len] = '\0';
        e = sys(SYS_mount, (long)path, (long)path, 0, MS_BIND | MS_REC, 0);
        if (e == -ENOENT) {
            e = 0;
            continue;
        }
        /* struct mount_attr: read-only, nosuid, nodev; AT_RECURSIVE. */
        unsigned long long attr[4] = { 0x1 | 0x2 | 0x4, 0, 0, 0 };
        if (e == 0)
            e = sys(SYS_mount_setattr, AT_FDCWD, (long)path, 0x8000, (long)attr, sizeof attr);
    }
    return e;
}

/* The init of an isolated exec (local_isolation.c's enter_joined and
 * local_isolation_command): its /proc, the working directory, the
 * command; then it waits, reports and exits, which ends every process of
 * the namespace.  It keeps its copies of the command's stdout and stderr
 * until then, so that the host finds their end with the report. */
RAW _Noreturn static void init_main(void *arg)
{
    local_spawn_stack *s = arg;
    const local_reaper_plan *p = s->plan;
    const local_isolation_plan *ip = p->isolation;
    /* Never left running on the host's memory: the signal follows the
     * thread that cloned the launcher (CLONE_PARENT made it this
     * process's parent), which waits in local_exec.c until this process
     * was reaped; should the host die first, the stop pipe's end closes
     * too. */
    SYS2(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL);
    if (take_streams(p) != 0)
        sys_exit(126);
    /* Children are reaped here whatever the host does with SIGCHLD. */
    kernel_sigaction dfl = { 0, 0, 0, 0 };
    SYS4(SYS_rt_sigaction, SIGCHLD, &dfl, 0, sizeof dfl.mask);
    long e = mount_proc_raw();
    if (e != 0)
        init_fail(p, LOCAL_STAGE_OWN_PROC, e);
    if ((e = SYS1(SYS_chdir, ip->work_dir)) != 0)
        init_fail(p, LOCAL_STAGE_WORKDIR, e);
    s->command_stage = LOCAL_STAGE_FORK;
    s->command_error = 0;
    long command = clone_on(CLONE_VM | CLONE_VFORK | SIGCHLD, s->command + sizeof s->command,
                            isolated_command_main, s, 0);
    if (command < 0)
        init_fail(p, LOCAL_STAGE_FORK, command);
    announce(p);
    SYS1(SYS_close, ip->holder_fd);
    SYS1(SYS_close, p->cwd_fd);
    SYS1(SYS_close, p->stdin_fd);
    for (long fd = 0; fd < 3; fd++)
        SYS1(SYS_close, fd);
    local_reaper_report r = { 0, 0, 0, 0, 0, 0 };
    init_wait(p, command, &r);
    if (r.ended && s->command_stage != LOCAL_STAGE_NONE && s->command_error != 0) {
        r.error = s->command_error;
        r.stage = s->command_stage;
    }
    send_report(p, &r);
    sys_exit(0);
}

/* In the launcher of a root host: the sandbox's ids (as
 * local_isolation_enter switches to them), which make this process the
 * owner of the holder's user namespace; 0 or -errno.  The change of ids makes the
 * memory undumpable, and it is the host's: its flag is put back. */
RAW static long switch_ids_raw(const local_isolation_plan *ip)
{
    if (!ip->switch_ids)
        return 0;
    long dumpable = SYS1(SYS_prctl, PR_GET_DUMPABLE);
    long e = SYS2(SYS_setgroups, 0, 0);
    if (e == 0)
        e = SYS3(SYS_setresgid, ip->gid, ip->gid, ip->gid);
    if (e == 0)
        e = SYS3(SYS_setresuid, ip->uid, ip->uid, ip->uid);
    if (dumpable >= 0)
        SYS2(SYS_prctl, PR_SET_DUMPABLE, dumpable);
    return e;
}

/* In the launcher: the sandbox's ids, into the holder's namespaces, then a
 * pid and a mount namespace for the exec (local_isolation_enter); 1, or 0
 * with the step and errno in *r. */
RAW static int join_raw(const local_isolation_plan *ip, local_reaper_report *r)
{
    long e = switch_ids_raw(ip);
    r->stage = LOCAL_STAGE_IDS;
    if (e == 0) {
        e = SYS2(SYS_setns, ip->holder_fd, ip->join_flags);
        r->stage = LOCAL_STAGE_JOIN;
    }
    if (e == 0) {
        e = SYS1(SYS_unshare, CLONE_NEWNS | CLONE_NEWPID);
        r->stage = LOCAL_STAGE_NEW_PID;
    }
    if (e == 0)
        r->stage = LOCAL_STAGE_NONE;
    r->error = (int)-e;
    return e == 0;
}

/* SIGKILL every child /proc lists; the number listed, -1 without the list
 * (as local_reaper.c's kill_children). */
RAW static int kill_listed_children(void)
{
    long fd = SYS4(SYS_openat, AT_FDCWD, "/proc/thread-self/children", O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    char buf[512];
    long n, pid = 0;
    int listed = 0;
    while ((n = SYS3(SYS_read, fd, buf, sizeof buf)) > 0 || n == -EINTR) {
        for (long i = 0; i < n; i++) {
            if (buf[i] >= '0' && buf[i] <= '9') {
                pid = pid * 10 + (buf[i] - '0');
                continue;
            }
            if (pid > 0) {
                SYS2(SYS_kill, pid, SIGKILL);
                listed++;
            }
            pid = 0;
        }
    }
    if (pid > 0) {
        SYS2(SYS_kill, pid, SIGKILL);
        listed++;
    }
    SYS1(SYS_close, fd);
    return listed;
}

/* Kill and reap every descendant (as local_reaper.c's end_everything). */
RAW static void end_all(long command, local_reaper_report *r)
{
    if (!r->ended)
        SYS2(SYS_kill, -command, SIGKILL);
    for (;;) {
        int listed = kill_listed_children();
        int status = 0;
        long got = SYS4(SYS_wait4, -1, &status, listed > 0 ? 0 : WNOHANG, 0);
        if (got == command) {
            r->status = status;
            r->ended = 1;
        }
        if (got == -ECHILD)
            return;
        if (got == 0) {
            if (listed < 0 && r->ended)
                return;
            struct timespec pause = { 0, 1000000L };
            SYS2(SYS_nanosleep, &pause, 0);
        }
    }
}

/* Wait until the command exits (reaped into *r) or the stop comes. */
RAW static void wait_for_command(const local_reaper_plan *p, long command,
                                 local_reaper_report *r)
{
    long pidfd = SYS2(SYS_pidfd_open, command, 0);
    for (;;) {
        struct pollfd fds[2] = { { p->stop_fd, POLLIN, 0 }, { (int)pidfd, POLLIN, 0 } };
        long ready = SYS3(SYS_poll, fds, pidfd >= 0 ? 2 : 1, pidfd >= 0 ? -1 : POLL_INTERVAL_MS);
        if (ready < 0 && ready != -EINTR)
            break;
        int status = 0;
        if (SYS4(SYS_wait4, command, &status, WNOHANG, 0) == command) {
            r->status = status;
            r->ended = 1;
            break;
        }
        if (ready > 0 && fds[0].revents != 0) {
            r->stopped = 1;
            break;
        }
    }
    if (pidfd >= 0)
        SYS1(SYS_close, pidfd);
}

/* Close every descriptor above the standard ones but the `n` in keep[]
 * (sorted here; -1 entries are ignored). */
RAW static void close_all_but(int *keep, size_t n, long fd_limit)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
            int t = keep[j];
            keep[j] = keep[j - 1];
            keep[j - 1] = t;
        }
    long from = 3;
    for (size_t i = 0; i < n; i++) {
        if (keep[i] < from)
            continue;
        close_span(from, keep[i] - 1, fd_limit);
        from = keep[i] + 1L;
    }
    close_span(from, -1, fd_limit);
}

/* Enter the sandbox's cgroups (local_cgroup_join_enter, in system
 * calls); 0 or the -errno of the write that failed. */
RAW static long enter_cgroup(const local_reaper_plan *p)
{
    for (size_t i = 0; p->cgroup != NULL && i < p->cgroup->count; i++) {
        long n = SYS3(SYS_write, p->cgroup->procs[i], "0", 1);
        if (n != 1)
            return n < 0 ? n : -EIO;
    }
    return 0;
}

/* The reaper of isolation=none: what local_reaper_run does, in system
 * calls, with every signal blocked from the start (a handler of the
 * host's must never run here; the stop comes through the pipe). */
RAW _Noreturn static void reaper_main(void *arg)
{
    local_spawn_stack *s = arg;
    const local_reaper_plan *p = s->plan;
    local_reaper_report r = { 0, 0, 0, 0, 0, 0 };
    int keep[6] = { p->cwd_fd, p->stdin_fd, p->stdout_fd, p->stderr_fd, p->stop_fd,
                    p->report_fd };
    long child = enter_cgroup(p);
    close_all_but(keep, 6, p->fd_limit);
    if (child == 0)
        child = SYS4(SYS_prctl, PR_SET_CHILD_SUBREAPER, 1, 0, 0);
    if (child == 0)
        child = clone_on(CLONE_VM | CLONE_VFORK | SIGCHLD, s->command + sizeof s->command,
                         command_main, (void *)p, 0);
    if (child < 0)
        r.error = (int)-child;
    if (child > 0) {
        SYS1(SYS_close, p->cwd_fd);
        SYS1(SYS_close, p->stdin_fd);
        SYS1(SYS_close, p->stdout_fd);
        SYS1(SYS_close, p->stderr_fd);
        announce(p);
        wait_for_command(p, child, &r);
        end_all(child, &r);
    }
    send_report(p, &r);
    sys_exit(0);
}

/* The launcher of an isolated exec (a vfork-like clone of the host): join,
 * clone the init as the host's child, its pid into the stack, and exit;
 * when a step fails, it reports it itself.  CLONE_PARENT is refused only
 * to an init (this process is none: it stays in the host's pid namespace,
 * only its children enter the new one); the init's exit signal is this
 * process's, SIGCHLD. */
RAW _Noreturn static void launcher_main(void *arg)
{
    local_spawn_stack *s = arg;
    const local_reaper_plan *p = s->plan;
    const local_isolation_plan *ip = p->isolation;
    local_reaper_report r = { 0, 0, 0, 0, 0, 0 };
    int keep[7] = { p->cwd_fd, p->stdin_fd, p->stdout_fd, p->stderr_fd, p->stop_fd,
                    p->report_fd, ip->holder_fd };
    long joined = enter_cgroup(p);
    close_all_but(keep, 7, p->fd_limit);
    if (joined != 0) {
        r.error = (int)-joined;
    } else if (join_raw(ip, &r)) {
        long init = clone_on(CLONE_VM | CLONE_PARENT | CLONE_PARENT_SETTID | SIGCHLD,
                             s->init + sizeof s->init, init_main, s, &s->init_pid);
        if (init > 0)
            sys_exit(0);
        r.error = (int)-init;
    }
    send_report(p, &r);
    sys_exit(0);
}

/* Start the reaper, or an isolated exec's launcher, on `stack`, sharing
 * the host's memory. */
static pid_t clone_reaper(const local_reaper_plan *plan, local_spawn_stack *stack)
{
    stack->plan = plan;
    /* The reaper starts with every signal blocked: the calling thread
     * blocks them all (those libc keeps for itself too) around the
     * clone, as posix_spawn does.  The caller waits for the launcher
     * (CLONE_VFORK): it is gone, and the init's pid known, in the time of
     * a setns, an unshare and a clone. */
    unsigned long all = ~0UL, old = 0;
    SYS4(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, sizeof all);
    long pid = plan->isolation == NULL
                   ? clone_on(CLONE_VM | SIGCHLD, stack->reaper + sizeof stack->reaper,
                              reaper_main, stack, 0)
                   : clone_on(CLONE_VM | CLONE_VFORK | SIGCHLD,
                              stack->reaper + sizeof stack->reaper, launcher_main, stack, 0);
    SYS4(SYS_rt_sigprocmask, SIG_SETMASK, &old, 0, sizeof old);
    if (pid < 0) {
        errno = (int)-pid;
        return -1;
    }
    return (pid_t)pid;
}

#endif

pid_t local_spawn_reaper(const local_reaper_plan *plan, local_spawn_stack *stack)
{
    stack->init_pid = 0;
#if SPAWN_SHARED
    if ((plan->isolation == NULL || plan->isolation->holder_fd >= 0) && !UNDER_VALGRIND())
        return clone_reaper(plan, stack);
#endif
    pid_t pid = fork();
    if (pid == 0)
        local_reaper_run(plan);
    return pid;
}

pid_t local_spawn_init(const local_spawn_stack *stack)
{
    return stack->init_pid;
}
