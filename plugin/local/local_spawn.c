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
 * which never returns; the child's pid, or -errno. */
RAW __attribute__((noinline)) static long clone_on(unsigned long flags, void *stack_top,
                                                   void (*fn)(void *), void *arg)
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
                         : "a"((long)SYS_clone), "D"(flags), "S"(stack_top), "d"(0L),
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
 * has them; 0 or -errno. */
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
RAW _Noreturn static void command_main(void *arg)
{
    const local_reaper_plan *p = arg;
    if (take_streams(p) != 0 || SYS1(SYS_fchdir, p->cwd_fd) != 0)
        sys_exit(126);
    run_candidates(p);
}

/* ------------------------------------------ isolation=namespaces, joined
 * What local_isolation.c does for an exec joining its holder, in system
 * calls: the reaper joins, its clone is pid 1 of the exec's pid namespace
 * (the init) and the init's vfork-like clone is the command.  The init
 * shares the host's memory without being readable from the sandbox
 * although it cannot be made undumpable (that flag is the memory's, the
 * host's): it holds every capability of the sandbox's user namespace and
 * the command's processes hold none, so ptrace and /proc/1/mem are
 * refused them (a tracer needs the target's capabilities). */

/* Send `stage` and `value` on the status pipe (local_isolation_report). */
RAW static void report_raw(const local_isolation_plan *ip, int stage, int value)
{
    local_isolation_message m = { stage, value };
    while (SYS3(SYS_write, ip->status_write, &m, sizeof m) == -EINTR)
        ;
}

RAW _Noreturn static void fail_raw(const local_isolation_plan *ip, int stage, long e)
{
    report_raw(ip, stage, (int)-e);
    sys_exit(126);
}

/* The command of an isolated exec: the limits, no new privileges, the
 * filter (local_isolation.c's confine_command), then as for none. */
RAW _Noreturn static void isolated_command_main(void *arg)
{
    const local_reaper_plan *p = arg;
    const local_isolation_plan *ip = p->isolation;
    for (int i = 0; i < ip->limit_count; i++) {
        unsigned long limit[2] = { ip->limits[i].value, ip->limits[i].value };
        long e = SYS4(SYS_prlimit64, 0, ip->limits[i].resource, limit, 0);
        if (e != 0)
            fail_raw(ip, LOCAL_STAGE_LIMITS, e);
    }
    struct sock_fprog prog = { ip->filter_count, (struct sock_filter *)ip->filter };
    long e = SYS4(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0);
    if (e == 0)
        e = SYS3(SYS_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
    if (e != 0)
        fail_raw(ip, LOCAL_STAGE_SECCOMP, e);
    run_candidates(p);
}

/* The init of an isolated exec (local_isolation.c's enter_joined and
 * local_isolation_command): its /proc, the working directory, the
 * command; then it reaps until the command ends and reports its status.
 * Its exit ends every process of the namespace. */
RAW _Noreturn static void init_main(void *arg)
{
    local_spawn_stack *s = arg;
    const local_reaper_plan *p = s->plan;
    const local_isolation_plan *ip = p->isolation;
    /* Never left running on the host's memory: should the host kill the
     * reaper (local_exec.c, when it gives up on it), this goes too, and
     * with it the namespace. */
    SYS2(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL);
    if (take_streams(p) != 0)
        sys_exit(126);
    SYS1(SYS_close, ip->status_read);
    long e = sys(SYS_mount, (long)"proc", (long)"/proc", (long)"proc",
                 MS_NOSUID | MS_NODEV | MS_NOEXEC, 0);
    if (e != 0)
        fail_raw(ip, LOCAL_STAGE_OWN_PROC, e);
    if ((e = SYS1(SYS_chdir, ip->work_dir)) != 0)
        fail_raw(ip, LOCAL_STAGE_WORKDIR, e);
    long command = clone_on(CLONE_VM | CLONE_VFORK | SIGCHLD, s->command + sizeof s->command,
                            isolated_command_main, (void *)p);
    if (command < 0)
        fail_raw(ip, LOCAL_STAGE_FORK, command);
    SYS1(SYS_close, ip->root_fd);
    SYS1(SYS_close, ip->holder_fd);
    for (long fd = 0; fd < 3; fd++)
        SYS1(SYS_close, fd);
    for (;;) {
        int status = 0;
        long got = SYS4(SYS_wait4, -1, &status, 0, 0);
        if (got == command) {
            report_raw(ip, LOCAL_STAGE_NONE, status);
            sys_exit(0);
        }
        if (got < 0 && got != -EINTR)
            sys_exit(0);
    }
}

/* In the reaper: into the holder's namespaces, then a pid and a mount
 * namespace for the exec (local_isolation_enter); 1, or 0 with the step
 * and errno in *r. */
RAW static int join_raw(const local_isolation_plan *ip, local_reaper_report *r)
{
    long e = SYS2(SYS_setns, ip->holder_fd, ip->join_flags);
    r->stage = LOCAL_STAGE_JOIN;
    if (e == 0) {
        e = SYS1(SYS_unshare, CLONE_NEWNS | CLONE_NEWPID);
        r->stage = LOCAL_STAGE_NEW_PID;
    }
    if (e == 0)
        r->stage = LOCAL_STAGE_NONE;
    r->error = (int)-e;
    return e == 0;
}

/* What the init reported into *r (local_isolation_outcome). */
RAW static void read_outcome(const local_isolation_plan *ip, local_reaper_report *r)
{
    local_isolation_message m;
    long n;
    while ((n = SYS3(SYS_read, ip->status_read, &m, sizeof m)) == -EINTR)
        ;
    if (n != (long)sizeof m)
        return;
    if (m.stage == LOCAL_STAGE_NONE) {
        r->status = m.value;
    } else {
        r->error = m.value;
        r->stage = m.stage;
    }
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

/* The reaper: what local_reaper_run does for isolation=none and for an
 * exec joining its holder, in system calls, with every signal blocked
 * from the start (a handler of the host's must never run here; the stop
 * comes through the pipe). */
RAW _Noreturn static void reaper_main(void *arg)
{
    local_spawn_stack *s = arg;
    const local_reaper_plan *p = s->plan;
    const local_isolation_plan *ip = p->isolation;
    local_reaper_report r = { 0, 0, 0, 0, 0 };
    int keep[9] = { p->cwd_fd, p->stdin_fd, p->stdout_fd, p->stderr_fd, p->stop_fd,
                    p->report_fd, ip ? ip->status_write : -1, ip ? ip->status_read : -1,
                    ip ? ip->holder_fd : -1 };
    for (size_t i = 1; i < 9; i++)
        for (size_t j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
            int t = keep[j];
            keep[j] = keep[j - 1];
            keep[j - 1] = t;
        }
    long from = 3;
    for (size_t i = 0; i < 9; i++) {
        if (keep[i] < from)
            continue;
        close_span(from, keep[i] - 1, p->fd_limit);
        from = keep[i] + 1L;
    }
    close_span(from, -1, p->fd_limit);
    long child = SYS4(SYS_prctl, PR_SET_CHILD_SUBREAPER, 1, 0, 0);
    if (child == 0 && ip != NULL)
        child = join_raw(ip, &r) ? clone_on(CLONE_VM | SIGCHLD, s->init + sizeof s->init,
                                            init_main, s) : 0;
    else if (child == 0)
        child = clone_on(CLONE_VM | CLONE_VFORK | SIGCHLD, s->command + sizeof s->command,
                         command_main, (void *)p);
    if (child < 0)
        r.error = (int)-child;
    if (child > 0) {
        SYS1(SYS_close, p->cwd_fd);
        SYS1(SYS_close, p->stdin_fd);
        SYS1(SYS_close, p->stdout_fd);
        SYS1(SYS_close, p->stderr_fd);
        wait_for_command(p, child, &r);
        end_all(child, &r);
        if (ip != NULL)
            read_outcome(ip, &r);
    }
    while (SYS3(SYS_write, p->report_fd, &r, sizeof r) == -EINTR)
        ;
    sys_exit(0);
}

/* Start the reaper on `stack`, sharing the host's memory. */
static pid_t clone_reaper(const local_reaper_plan *plan, local_spawn_stack *stack)
{
    stack->plan = plan;
    /* The reaper starts with every signal blocked: the calling thread
     * blocks them all (those libc keeps for itself too) around the
     * clone, as posix_spawn does. */
    unsigned long all = ~0UL, old = 0;
    SYS4(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, sizeof all);
    long pid = clone_on(CLONE_VM | SIGCHLD, stack->reaper + sizeof stack->reaper, reaper_main,
                        stack);
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
#if SPAWN_SHARED
    if ((plan->isolation == NULL || plan->isolation->holder_fd >= 0) && !UNDER_VALGRIND())
        return clone_reaper(plan, stack);
#endif
    (void)stack;
    pid_t pid = fork();
    if (pid == 0)
        local_reaper_run(plan);
    return pid;
}
