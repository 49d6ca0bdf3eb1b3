/* Running a command in a local sandbox; the operations it offers (see
 * local_exec.h). */
#include <config.h>

#include "plugin/local/local_exec.h"

#include "common/exec_request.h"
#include "common/op_results.h"
#include "plugin/local/local_child.h"
#include "plugin/local/local_create.h"
#include "plugin/local/local_files.h"
#include "plugin/local/local_holder.h"
#include "plugin/local/local_isolation.h"
#include "plugin/local/local_net.h"
#include "plugin/local/local_reaper.h"
#include "plugin/local/local_records.h"
#include "plugin/local/local_sandbox_env.h"
#include "plugin/local/local_spawn.h"
#include "plugin/local/local_time.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long exec waits, after the stop, for the reaper and the pipes; and,
 * after the command ended, for pipes that a process the reaper could not
 * kill (another user's, through a setuid program) keeps open. */
#define STOP_GRACE_MS 10000L
#define DRAIN_GRACE_MS 2000L

/* How often a running exec looks whether its sandbox is being destroyed
 * (its record renamed to a tomb, or replaced). */
#define RECORD_CHECK_MS 250L

/* What the host allocates before forking: the reaper may not allocate. */
typedef struct exec_plan {
    char **argv;
    char **candidates;
    char **sh_argv;
    char **envp;
    size_t env_used;
} exec_plan;

static void free_strings(char **v)
{
    if (v == NULL)
        return;
    for (size_t i = 0; v[i] != NULL; i++)
        free(v[i]);
    free(v);
}

static void plan_free(exec_plan *p)
{
    free(p->argv);           /* borrowed strings, or the shell's literal words */
    free_strings(p->candidates);
    free(p->sh_argv);
    free_strings(p->envp);
}

/* "NAME=value" into the plan's environment. */
static int add_env(exec_plan *p, const char *name, const char *value)
{
    size_t len = strlen(name) + strlen(value) + 2;
    char *entry = malloc(len);
    if (entry == NULL)
        return 0;
    snprintf(entry, len, "%s=%s", name, value);
    p->envp[p->env_used++] = entry;
    return 1;
}

/* 1 when env[from..] names `name` (a later entry overrides an earlier). */
static int named_after(const sbx_exec_request *r, size_t from, const char *name)
{
    for (size_t i = from; i < r->env_count; i++)
        if (strcmp(r->env[i].name, name) == 0)
            return 1;
    return 0;
}

/* The base environment, then the request's variables (each name once, the
 * last value given winning); the host's own environment never. */
static int build_env(exec_plan *p, const sbx_exec_request *r, const char *home)
{
    static const char *const base_names[] = { "PATH", "HOME", "LANG" };
    const char *base_values[] = { LOCAL_BASE_PATH, home, LOCAL_BASE_LANG };
    p->envp = calloc(r->env_count + 4, sizeof *p->envp);
    if (p->envp == NULL)
        return 0;
    for (size_t i = 0; i < 3; i++)
        if (!named_after(r, 0, base_names[i]) && !add_env(p, base_names[i], base_values[i]))
            return 0;
    for (size_t i = 0; i < r->env_count; i++)
        if (!named_after(r, i + 1, r->env[i].name) &&
            !add_env(p, r->env[i].name, r->env[i].value))
            return 0;
    return 1;
}

/* The PATH the command gets. */
static const char *command_path(const sbx_exec_request *r)
{
    const char *path = LOCAL_BASE_PATH;
    for (size_t i = 0; i < r->env_count; i++)
        if (strcmp(r->env[i].name, "PATH") == 0)
            path = r->env[i].value;
    return path;
}

/* The files to try for `program`, as execvp looks them up: the name itself
 * when it holds a '/', else each directory of PATH ("" is the working
 * directory). */
static int build_candidates(exec_plan *p, const char *program, const char *path)
{
    size_t dirs = 1;
    for (const char *c = path; *c != '\0'; c++)
        dirs += *c == ':';
    p->candidates = calloc(dirs + 1, sizeof *p->candidates);
    if (p->candidates == NULL)
        return 0;
    if (strchr(program, '/') != NULL) {
        p->candidates[0] = strdup(program);
        return p->candidates[0] != NULL;
    }
    const char *dir = path;
    for (size_t i = 0; i < dirs; i++) {
        size_t len = strcspn(dir, ":");
        size_t size = len + strlen(program) + 3;
        if ((p->candidates[i] = malloc(size)) == NULL)
            return 0;
        snprintf(p->candidates[i], size, "%.*s/%s", len == 0 ? 1 : (int)len,
                 len == 0 ? "." : dir, program);
        dir += len + (dir[len] == ':');
    }
    return 1;
}

static int build_plan(exec_plan *p, const sbx_exec_request *r, const char *home)
{
    static const char *shell[] = { "sh", "-c", NULL, NULL };
    size_t argc = 0;
    if (r->shell_command != NULL)
        argc = 3;
    else
        while (r->argv[argc] != NULL)
            argc++;
    p->argv = calloc(argc + 1, sizeof *p->argv);
    p->sh_argv = calloc(argc + 2, sizeof *p->sh_argv);
    if (p->argv == NULL || p->sh_argv == NULL)
        return 0;
    for (size_t i = 0; i < argc; i++)
        p->argv[i] = (char *)(r->shell_command != NULL ? (i == 2 ? r->shell_command : shell[i])
                                                        : r->argv[i]);
    p->sh_argv[0] = (char *)"sh";
    for (size_t i = 1; i < argc; i++)
        p->sh_argv[i + 1] = p->argv[i];
    return build_env(p, r, home) &&
           build_candidates(p, r->shell_command != NULL ? "/bin/sh" : p->argv[0],
                            command_path(r));
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* The host's ends of a running exec, and what it collected. */
typedef struct exec_run {
    int out_fd, err_fd, in_fd, report_fd, stop_fd;
    int end_fd;          /* a pidfd of the isolated exec's init until it
                          * ended (its report is read then), or -1 */
    const char *stdin_data;
    size_t stdin_left;
    common_output out, errs;
    local_reaper_report report;
    int reported;
    const char *record;  /* the sandbox's record file */
    struct stat record_id;  /* as it was when the exec started */
    long next_check;
    int destroyed;       /* the record went: the command was ended */
    int cancel_fd;       /* the request's (borrowed), -1 once it hung up */
    const local_exec_hooks *hooks;  /* never NULL */
    const char *call;    /* what the messages name: "exec", "process start" */
    pid_t watcher;       /* the init of an isolated exec, else the reaper */
    int announced;       /* the notice came (local_reaper_report.notice) */
    pid_t group;         /* then the command's process group; -1: none */
    int oom_killed;      /* the sandbox's memory cgroup killed a process */
} exec_run;

/* 1 when the sandbox's record is still the one the exec started with. */
static int record_unchanged(const exec_run *x)
{
    struct stat now;
    return stat(x->record, &now) == 0 && now.st_dev == x->record_id.st_dev &&
           now.st_ino == x->record_id.st_ino;
}

/* Read what is there on *fd into `o` and to the hooks' on_output (at EOF
 * or an error *fd closes). */
static sbx_status drain(exec_run *x, int *fd, common_output *o, sbx_stream stream,
                        sbx_error *err)
{
    char buf[65536];
    ssize_t n = read(*fd, buf, sizeof buf);
    if (n > 0 && x->hooks->on_output != NULL)
        x->hooks->on_output(x->hooks->ctx, stream, buf, (size_t)n);
    if (n > 0)
        return common_output_add(o, buf, (size_t)n, err);
    if (n == 0 || (errno != EINTR && errno != EAGAIN))
        close_fd(fd);
    return SBX_OK;
}

static void feed_stdin(exec_run *x)
{
    ssize_t n = send(x->in_fd, x->stdin_data, x->stdin_left, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
        x->stdin_data += n;
        x->stdin_left -= (size_t)n;
    }
    /* All written, or the command will read no more (EPIPE): end of file. */
    if (x->stdin_left == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
        close_fd(&x->in_fd);
}

/* The process group of the command: that of the first child of the
 * watcher (the command, which made its own session, or, isolated without
 * a holder, the namespace's first process that did); -1 when there is no
 * such child (it ended) or it is in the watcher's group. */
static pid_t command_group(pid_t watcher)
{
    char path[64], text[32] = { 0 };
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)watcher, (int)watcher);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    long child = n > 0 ? strtol(text, NULL, 10) : 0;
    pid_t group = child > 0 ? getpgid((pid_t)child) : -1;
    return group > 1 && group != getpgid(watcher) ? group : -1;
}

/* Read a report; 1 when it was the notice (its group into x->group: the
 * notice says the command made it, so one look finds it). */
static int read_report(exec_run *x)
{
    ssize_t n = read(x->report_fd, &x->report, sizeof x->report);
    if (n < 0 && errno == EINTR)
        return 0;
    if (n == (ssize_t)sizeof x->report && x->report.notice && !x->announced) {
        x->announced = 1;
        x->group = command_group(x->watcher);
        memset(&x->report, 0, sizeof x->report);
        return 1;
    }
    x->reported = n == (ssize_t)sizeof x->report;
    close_fd(&x->report_fd);
    return 0;
}

/* The report is there (or its writers gone): stdin is no longer needed,
 * and the streams get DRAIN_GRACE_MS more before the wait ends. */
static void take_report(exec_run *x, long *limit)
{
    if (read_report(x))
        return;
    close_fd(&x->in_fd);
    if (x->stop_fd >= 0 && *limit > local_now_ms() + DRAIN_GRACE_MS)
        *limit = local_now_ms() + DRAIN_GRACE_MS;
}

/* Collect output, feed stdin and wait for the report until the streams
 * close; at `deadline` the stop is sent.  *gave_up: the grace passed
 * (processes the reaper could not end still hold a stream).  With an
 * init's pidfd the report is read once the init ended: the host then
 * wakes once, when every process of the exec is gone, and not also for
 * the report the init wrote just before. */
static sbx_status collect(exec_run *x, long deadline, int *gave_up, sbx_error *err)
{
    long limit = deadline;
    sbx_status st = SBX_OK;
    *gave_up = 0;
    while (st == SBX_OK &&
           (x->out_fd >= 0 || x->err_fd >= 0 || x->report_fd >= 0 || x->end_fd >= 0)) {
        long now = local_now_ms();
        if (x->stop_fd >= 0 && now >= x->next_check) {
            x->next_check = now + RECORD_CHECK_MS;
            if (!record_unchanged(x)) {
                x->destroyed = 1;
                limit = now;
            }
        }
        if (now >= limit) {
            /* Stopped already, or the reaper reported: what still holds a
             * stream is beyond its reach. */
            if (x->stop_fd < 0 || x->reported) {
                *gave_up = 1;
                break;
            }
            close_fd(&x->stop_fd);      /* the reaper reads EOF: end everything */
            limit = now + STOP_GRACE_MS;
        }
        /* With a control, the notice is awaited (and the control left
         * unread until it came: a signal then reaches the command). */
        int control = x->hooks->control_fd;
        int awaiting = control >= 0 && !x->announced;
        struct pollfd fds[7] = { { x->out_fd, POLLIN, 0 }, { x->err_fd, POLLIN, 0 },
                                 { x->end_fd >= 0 && !awaiting ? -1 : x->report_fd, POLLIN, 0 },
                                 { x->in_fd, POLLOUT, 0 }, { x->end_fd, POLLIN, 0 },
                                 { x->stop_fd >= 0 ? x->cancel_fd : -1, POLLRDHUP, 0 },
                                 { x->stop_fd >= 0 && !awaiting ? control : -1, POLLIN, 0 } };
        long wait = limit - now;
        if (poll(fds, 7, wait > RECORD_CHECK_MS ? (int)RECORD_CHECK_MS : (int)wait) < 0 &&
            errno != EINTR)
            return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "%s: poll failed: %s",
                                         x->call, strerror(errno));
        if (fds[0].revents != 0)
            st = drain(x, &x->out_fd, &x->out, SBX_STREAM_STDOUT, err);
        if (st == SBX_OK && fds[1].revents != 0)
            st = drain(x, &x->err_fd, &x->errs, SBX_STREAM_STDERR, err);
        if (fds[6].revents != 0 && x->hooks->on_control(x->hooks->ctx, x->group))
            limit = now;    /* the control asked for the end */
        if (fds[3].revents != 0)
            feed_stdin(x);
        if (fds[4].revents != 0)
            close_fd(&x->end_fd);
        if (fds[5].revents != 0) {
            /* The caller's client went away: ended as at the timeout. */
            x->cancel_fd = -1;
            limit = now;
        }
        if (fds[2].revents != 0 || (fds[4].revents != 0 && x->report_fd >= 0))
            take_report(x, &limit);
    }
    return st;
}

/* The result of a collected run. */
static sbx_status make_result(exec_run *x, long started, sbx_exec_result **out, sbx_error *err)
{
    sbx_exec_result *r = common_exec_result_new(&x->out, &x->errs);
    if (r == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "%s: out of memory", x->call);
    r->duration_ms = local_now_ms() - started;
    r->exit_code = -1;
    r->oom_killed = x->oom_killed;
    if (x->report.stopped) {
        r->outcome = SBX_EXEC_TIMED_OUT;
    } else if (WIFSIGNALED(x->report.status)) {
        r->outcome = SBX_EXEC_SIGNALED;
        r->term_signal = WTERMSIG(x->report.status);
    } else {
        r->exit_code = WEXITSTATUS(x->report.status);
    }
    *out = r;
    return SBX_OK;
}

/* The command's stdin: a socket carrying the request's bytes (a socket,
 * not a pipe, so that a command that stops reading cannot raise SIGPIPE
 * in the host), or /dev/null. */
static int open_stdin(const sbx_exec_request *r, const local_exec_hooks *h, int *command_end,
                      int *host_end)
{
    if (h->stdin_fd >= 0) {
        *command_end = fcntl(h->stdin_fd, F_DUPFD_CLOEXEC, 0);
        return *command_end >= 0;
    }
    if (r->stdin_length == 0) {
        *command_end = open("/dev/null", O_RDONLY | O_CLOEXEC);
        return *command_end >= 0;
    }
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
        return 0;
    shutdown(pair[0], SHUT_WR);
    *command_end = pair[0];
    *host_end = pair[1];
    return 1;
}

/* Reap an isolated exec's init, waiting at most STOP_GRACE_MS for it
 * when its pidfd is still open (it was killed, or collect failed): an
 * init that does not end then is left, with a WARN line, rather than
 * the calling thread. */
static void reap_init(sbx_backend_instance *inst, pid_t init, int *end_fd,
                      const char *call, const char *sandbox_id)
{
    int options = 0;
    if (*end_fd >= 0) {
        struct pollfd end = { *end_fd, POLLIN, 0 };
        long until = local_now_ms() + STOP_GRACE_MS, left = STOP_GRACE_MS;
        while (poll(&end, 1, (int)left) < 0 && errno == EINTR &&
               (left = until - local_now_ms()) > 0)
            ;
        options = WNOHANG;
        close_fd(end_fd);
    }
    pid_t got;
    while ((got = waitpid(init, NULL, options)) < 0 && errno == EINTR)
        ;
    if (got == 0)
        LOCAL_LOG(inst, SBX_LOG_WARN, "%s in sandbox %s: the init of the command's pid "
                  "namespace did not end; it is left", call, sandbox_id);
}

/* What one run starts from: the sandbox, the request, and what the reaper
 * is handed. */
typedef struct exec_job {
    sbx_backend_instance *inst;
    const char *call;                       /* "exec" or "process start" */
    const sbx_exec_request *request;
    const local_paths *paths;
    struct stat record_id;                  /* the record as the exec found it */
    exec_plan plan;
    int cwd_fd;
    const local_isolation_plan *isolation;  /* NULL when none */
    int without_cgroups;                    /* the record says it has no cgroup */
} exec_job;

/* The descriptors of a run that are not exec_run's: the pipes to and from
 * the reaper (whose host ends move into exec_run once it runs) and the
 * command's stdin. */
typedef struct exec_pipes {
    int out[2], errs[2], report[2], stop[2];
    int in_end;
} exec_pipes;

/* Make the pipes and the command's stdin (its host end into x->in_fd);
 * 0 with errno on failure. */
static int open_pipes(exec_pipes *p, const sbx_exec_request *r, exec_run *x)
{
    return pipe2(p->out, O_CLOEXEC) == 0 && pipe2(p->errs, O_CLOEXEC) == 0 &&
           pipe2(p->report, O_CLOEXEC) == 0 && pipe2(p->stop, O_CLOEXEC) == 0 &&
           open_stdin(r, x->hooks, &p->in_end, &x->in_fd);
}

/* The reaper runs: close the ends it was handed and move the host's into
 * `x`. */
static void take_host_ends(exec_pipes *p, exec_run *x)
{
    close_fd(&p->in_end);
    close_fd(&p->out[1]);
    close_fd(&p->errs[1]);
    close_fd(&p->report[1]);
    close_fd(&p->stop[0]);
    x->out_fd = p->out[0];
    x->err_fd = p->errs[0];
    x->report_fd = p->report[0];
    x->stop_fd = p->stop[1];
    p->out[0] = p->errs[0] = p->report[0] = p->stop[1] = -1;
    fcntl(x->out_fd, F_SETFL, O_NONBLOCK);
    fcntl(x->err_fd, F_SETFL, O_NONBLOCK);
}

/* Close every descriptor of a run still open. */
static void close_all(exec_run *x, exec_pipes *p)
{
    int *fds[] = { &x->out_fd, &x->err_fd, &x->in_fd, &x->report_fd, &x->stop_fd,
                   &p->in_end, &p->out[0], &p->out[1], &p->errs[0], &p->errs[1],
                   &p->report[0], &p->report[1], &p->stop[0], &p->stop[1] };
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        close_fd(fds[i]);
}

/* Fork the reaper with the job's plan and the command's ends of `p`, run
 * the exchange (collect) from `started` until the command and what it
 * started ended, and reap the reaper and the init. */
static sbx_status supervise(const exec_job *job, exec_pipes *p, exec_run *x, long started,
                            sbx_error *err)
{
    const char *sandbox_id = job->paths->id;
    local_spawn_stack stack;  /* the reaper's until it was reaped, below */
    /* On a terminal the command's three streams are its slave end. */
    int terminal = x->hooks->terminal_master >= 0;
    local_reaper_plan rp = { job->plan.argv, job->plan.candidates, job->plan.sh_argv,
                             job->plan.envp, job->cwd_fd, p->in_end,
                             terminal ? p->in_end : p->out[1],
                             terminal ? p->in_end : p->errs[1], p->stop[0], p->report[1],
                             local_child_fd_limit(), job->isolation, terminal,
                             x->hooks->control_fd >= 0, NULL };
    local_cgroup_join cgroup;
    sbx_status st = SBX_OK;
    if (job->without_cgroups)
        local_cgroup_join_none(&cgroup);
    else
        st = local_cgroup_join_open(&job->inst->cgroups, sandbox_id, &cgroup, err);
    if (st != SBX_OK)
        return st;
    rp.cgroup = &cgroup;
    /* The reaper may run on `stack`, in this thread's frame: a cancel
     * must not unwind it before the reaper was reaped. */
    int cancel_state;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
    pid_t reaper = local_spawn_reaper(&rp, &stack);
    if (reaper < 0) {
        pthread_setcancelstate(cancel_state, NULL);
        local_cgroup_join_close(&cgroup);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "%s in sandbox '%s': fork: %s",
                                     job->call, sandbox_id, strerror(errno));
    }
    take_host_ends(p, x);
    if (terminal) {
        /* The terminal's master is the one stream to read. */
        close_fd(&x->out_fd);
        close_fd(&x->err_fd);
        x->out_fd = fcntl(x->hooks->terminal_master, F_DUPFD_CLOEXEC, 0);
        fcntl(x->out_fd, F_SETFL, O_NONBLOCK);
    }
    pid_t init = local_spawn_init(&stack);
    x->watcher = init > 0 ? init : reaper;
    if (init > 0)
        x->end_fd = (int)syscall(SYS_pidfd_open, init, 0U);  /* -1: the report pipe */
    int64_t timeout = job->request->timeout_ms;
    if (timeout == SBX_EXEC_DEFAULT)
        timeout = x->hooks->unbounded ? LOCAL_EXEC_UNBOUNDED_MS : LOCAL_EXEC_DEFAULT_TIMEOUT_MS;
    int gave_up = 0;
    st = collect(x, started + (long)timeout, &gave_up, err);
    if (st != SBX_OK || gave_up || !x->reported) {
        /* The reaper is stuck or gone: what it could not end is left.
         * An init killed ends its namespace, but what the kernel cannot
         * kill there may keep the init from ending. */
        kill(reaper, SIGKILL);
        if (init > 0)
            kill(init, SIGKILL);
        LOCAL_LOG(job->inst, SBX_LOG_WARN,
                  "%s in sandbox %s: processes the command started could not all be ended",
                  job->call, sandbox_id);
    }
    while (waitpid(reaper, NULL, 0) < 0 && errno == EINTR)
        ;
    if (init > 0)
        reap_init(job->inst, init, &x->end_fd, job->call, sandbox_id);
    x->oom_killed = local_cgroup_join_oom_killed(&cgroup);
    local_cgroup_join_close(&cgroup);
    pthread_setcancelstate(cancel_state, NULL);
    return st;
}

/* The error of an exchange that went well: the sandbox was destroyed
 * while the command ran, the command did not start (or not isolated), or
 * the reaper was killed; SBX_OK when the command ran. */
static sbx_status report_error(const exec_run *x, const char *sandbox_id, sbx_error *err)
{
    if (x->destroyed && x->reported && x->report.stopped)
        return sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "%s in sandbox '%s': the "
                                     "sandbox was destroyed while the command ran; the command "
                                     "and every process it started were ended", x->call,
                                     sandbox_id);
    if (x->reported && x->report.stage != 0)
        return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED, "%s in sandbox '%s': "
                                     "isolation=namespaces: cannot %s: %s; the command did not "
                                     "run", x->call, sandbox_id,
                                     local_isolation_stage_text(x->report.stage),
                                     strerror(x->report.error));
    if (x->reported && x->report.error != 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "%s in sandbox '%s': cannot "
                                     "start the command: %s", x->call, sandbox_id,
                                     strerror(x->report.error));
    if (!x->reported)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "%s in sandbox '%s': the "
                                     "process watching the command was killed", x->call,
                                     sandbox_id);
    return SBX_OK;
}

/* Run the job: its pipes, the reaper and the exchange, its result. */
static sbx_status run(const exec_job *job, const local_exec_hooks *hooks, sbx_exec_result **out,
                      sbx_error *err)
{
    const sbx_exec_request *r = job->request;
    exec_run x = { -1, -1, -1, -1, -1, -1, r->stdin_data, r->stdin_length,
                   { { 0 }, 0, 0 }, { { 0 }, 0, 0 }, { 0, 0, 0, 0, 0, 0 }, 0,
                   job->paths->metadata, job->record_id, 0, 0, r->cancel_fd, hooks, job->call, 0,
                   0, -1, 0 };
    exec_pipes p = { { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 }, -1 };
    size_t cap = r->max_output_bytes == SBX_EXEC_DEFAULT ? LOCAL_EXEC_DEFAULT_OUTPUT
                                                         : r->max_output_bytes;
    common_output_init(&x.out, hooks->unbounded ? 0 : cap);
    common_output_init(&x.errs, hooks->unbounded ? 0 : cap);
    long started = local_now_ms();
    sbx_status st = SBX_OK;
    if (!open_pipes(&p, r, &x))
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "%s in sandbox '%s': cannot make "
                                   "the command's pipes: %s", job->call, job->paths->id,
                                   strerror(errno));
    if (st == SBX_OK)
        st = supervise(job, &p, &x, started, err);
    if (st == SBX_OK)
        st = report_error(&x, job->paths->id, err);
    if (st == SBX_OK)
        st = make_result(&x, started, out, err);
    close_all(&x, &p);
    common_output_free(&x.out);
    common_output_free(&x.errs);
    return st;
}

/* Open the command's working directory (O_PATH; *fd the caller's):
 * `working_dir` beneath the root (its path below the root into *rel), or
 * without one the root itself (rel->whole ""). */
static sbx_status open_working_dir(const local_root *root, const char *call,
                                   const char *working_dir, local_rel *rel, int *fd,
                                   sbx_error *err)
{
    sbx_status st = SBX_OK;
    char what[64];
    snprintf(what, sizeof what, "%s (working_dir)", call);
    rel->whole[0] = '\0';
    if (working_dir == NULL) {
        *fd = dup(root->fd);
    } else {
        st = local_confine_split(root, what, working_dir, rel, err);
        if (st == SBX_OK &&
            (*fd = local_confine_open(root->fd, rel->whole, O_PATH | O_DIRECTORY, 0)) < 0)
            st = local_confine_error(root, what, working_dir, errno, err);
    }
    if (st == SBX_OK && *fd < 0)
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "%s in sandbox '%s': cannot open "
                                   "the sandbox's directory: %s", call, root->sandbox_id,
                                   strerror(errno));
    return st;
}

struct local_exec_prepared {
    sbx_exec_request request;
    local_sandbox_root sandbox;
    exec_job job;
    local_isolation_plan isolation;
};

void local_exec_release(local_exec_prepared *prepared)
{
    if (prepared == NULL)
        return;
    local_isolation_plan_free(&prepared->isolation);
    plan_free(&prepared->job.plan);
    if (prepared->job.cwd_fd >= 0)
        close(prepared->job.cwd_fd);
    if (prepared->sandbox.root.fd >= 0)
        close(prepared->sandbox.root.fd);
    free(prepared);
}

/* The sandbox and the job of a checked request, into *x.  The sandbox's
 * record is read once (through the instance's cache): its env and its
 * holder come from the copy that found the sandbox running. */
static sbx_status prepare_job(sbx_backend_instance *inst, const char *sandbox_id,
                              local_exec_prepared *x, sbx_error *err)
{
    const char *call = x->job.call;
    x->job = (exec_job){ .inst = inst, .call = call, .request = &x->request,
                         .paths = &x->sandbox.paths, .cwd_fd = -1 };
    local_metadata meta;
    sbx_status st = local_open_exec_root(inst, sandbox_id, call, &x->sandbox, &meta, err);
    if (st != SBX_OK) {
        x->sandbox.root.fd = -1;
        return st;
    }
    x->job.without_cgroups = meta.without_cgroups;
    local_rel rel;
    st = open_working_dir(&x->sandbox.root, call, x->request.working_dir, &rel, &x->job.cwd_fd, err);
    if (st == SBX_OK && stat(x->sandbox.paths.metadata, &x->job.record_id) != 0)
        st = sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "%s: sandbox '%s' is not running",
                                   call, sandbox_id);
    /* The plan copies the variables: the joined env is needed only here. */
    sbx_exec_request joined = x->request;
    sbx_env_var *vars = NULL;
    if (st == SBX_OK)
        st = local_sandbox_env_join(&meta, &joined, &vars, err);
    if (st == SBX_OK && !build_plan(&x->job.plan, &joined, x->sandbox.root.dir))
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "%s in sandbox '%s': out of memory",
                                   call, sandbox_id);
    free(vars);
    if (st == SBX_OK && inst->options.isolation.mode == LOCAL_ISOLATION_NAMESPACES) {
        local_isolation_site site = { x->sandbox.root.dir, x->sandbox.root.fd, rel.whole,
                                      local_holder_pin_process(&meta.holder),
                                      local_net_of(&inst->options, &meta) };
        st = local_isolation_prepare(&inst->options.isolation, &site, &x->isolation, err);
        if (st != SBX_OK)
            sbx_backend_error_prefix(err, "%s in sandbox '%s'", call, sandbox_id);
        x->job.isolation = &x->isolation;
    }
    local_metadata_clear(&meta);
    return st;
}

sbx_status local_exec_prepare(sbx_backend_instance *inst, const char *sandbox_id,
                              const sbx_exec_request *request, const char *call,
                              local_exec_prepared **out, sbx_error *err)
{
    local_exec_prepared *x = calloc(1, sizeof *x);
    if (x == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "%s in sandbox '%s': out of "
                                     "memory", call, sandbox_id);
    x->sandbox.root.fd = x->job.cwd_fd = -1;
    x->job.call = call;
    common_exec_request_read(request, &x->request);
    sbx_status st = common_exec_request_check_as(&x->request, call, sandbox_id,
                                                 LOCAL_EXEC_MAX_TIMEOUT_MS,
                                                 LOCAL_EXEC_MAX_OUTPUT, err);
    if (st == SBX_OK)
        st = prepare_job(inst, sandbox_id, x, err);
    if (st != SBX_OK) {
        local_exec_release(x);
        return st;
    }
    *out = x;
    return SBX_OK;
}

size_t local_exec_prepared_fds(const local_exec_prepared *prepared, int fds[8])
{
    const local_isolation_plan *ip = &prepared->isolation;
    int all[] = { prepared->job.cwd_fd, ip->root_fd, ip->tree_fd, ip->holder_fd,
                  ip->status_read, ip->status_write };
    size_t count = prepared->job.isolation != NULL ? sizeof all / sizeof all[0] : 1, n = 0;
    for (size_t i = 0; i < count; i++)
        if (all[i] >= 0)
            fds[n++] = all[i];
    return n;
}

sbx_status local_exec_run(const local_exec_prepared *prepared, const local_exec_hooks *hooks,
                          sbx_exec_result **out, sbx_error *err)
{
    static const local_exec_hooks none = { NULL, NULL, -1, NULL, -1, -1, 0 };
    return run(&prepared->job, hooks != NULL ? hooks : &none, out, err);
}

void local_exec_prepared_quiet(local_exec_prepared *prepared)
{
    prepared->job.inst->services = NULL;
}

sbx_status local_exec(sbx_backend_instance *inst, const char *sandbox_id,
                      const sbx_exec_request *request, sbx_exec_result **out, sbx_error *err)
{
    local_exec_prepared *prepared = NULL;
    sbx_status st = local_exec_prepare(inst, sandbox_id, request, "exec", &prepared, err);
    if (st != SBX_OK)
        return st;
    local_exec_hooks hooks = { NULL, NULL, -1, NULL, -1, -1, 0 };
    if (prepared->request.struct_size >= SBX_EXEC_REQUEST_SIZE_1_4) {
        hooks.on_output = prepared->request.on_output;
        hooks.ctx = prepared->request.output_ctx;
    }
    st = local_exec_run(prepared, &hooks, out, err);
    if (st == SBX_OK)
        LOCAL_LOG(inst, SBX_LOG_DEBUG, "exec in sandbox %s: outcome %d, exit %d, %lld ms",
                  sandbox_id, (int)(*out)->outcome, (*out)->exit_code,
                  (long long)(*out)->duration_ms);
    local_exec_release(prepared);
    return st;
}

sbx_status local_operations_info(sbx_backend_instance *inst, sbx_operations_info *out,
                                 sbx_error *err)
{
    (void)err;
    sbx_operations_info info;
    info.struct_size = out->struct_size;
    info.operations = SBX_OP_EXEC | SBX_OP_EXEC_SHELL | SBX_OP_EXEC_STDIN | SBX_OP_READ_FILE |
                      SBX_OP_WRITE_FILE | SBX_OP_LIST_DIR | SBX_OP_REMOVE_PATH |
                      SBX_OP_EXEC_STREAM | SBX_OP_PROCESS | SBX_OP_PROCESS_PTY |
                      SBX_OP_PROCESS_SIGNALS | SBX_OP_PROCESS_STDIN_CLOSE;
    info.default_timeout_ms = LOCAL_EXEC_DEFAULT_TIMEOUT_MS;
    info.max_timeout_ms = LOCAL_EXEC_MAX_TIMEOUT_MS;
    info.default_output_bytes = LOCAL_EXEC_DEFAULT_OUTPUT;
    info.max_output_bytes = LOCAL_EXEC_MAX_OUTPUT;
    info.max_file_bytes = LOCAL_MAX_FILE_BYTES;
    info.max_processes = (size_t)inst->options.max_processes;
    info.default_buffer_bytes = (size_t)inst->options.process_buffer_bytes;
    info.max_buffer_bytes = (size_t)inst->options.max_process_buffer_bytes;
    info.create_fields = LOCAL_CREATE_FIELDS;
    info.file_calls_local = 1;
    /* The caller's struct may be older (smaller) than ours. */
    memcpy(out, &info, out->struct_size < sizeof info ? out->struct_size : sizeof info);
    return SBX_OK;
}
