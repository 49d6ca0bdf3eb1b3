/* The live-process calls of the local backend (see local_processes.h). */
#include <config.h>

#include "plugin/local/local_processes.h"

#include "plugin/local/local_exec.h"
#include "plugin/local/local_proc_table.h"
#include "plugin/local/local_sigpipe.h"
#include "plugin/local/local_supervisor.h"
#include "plugin/local/local_time.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How long one wait on a process's futex lasts before the supervisor's
 * life is looked at again (a killed supervisor wakes nobody). */
#define WAIT_SLICE_MS 1000L

/* How often a write blocked on a full stdin looks whether the process
 * ended. */
#define WRITE_SLICE_MS 100

void local_free_processes(sbx_process_info *processes)
{
    while (processes != NULL) {
        sbx_process_info *next = processes->next;
        free(processes->process_id);
        if (processes->argv != NULL)
            for (size_t i = 0; processes->argv[i] != NULL; i++)
                free(processes->argv[i]);
        free(processes->argv);
        free(processes);
        processes = next;
    }
}

void local_free_process_output(sbx_process_output *output)
{
    local_ring_free_output(output);
}

/* The words of the argv file (each NUL-terminated), or NULL. */
static char **read_argv(int dir_fd)
{
    int fd = openat(dir_fd, LOCAL_PROC_ARGV, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || sb.st_size <= 0 || sb.st_size > (1 << 24)) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    size_t size = (size_t)sb.st_size;
    char *text = malloc(size + 1);
    ssize_t n = text != NULL ? read(fd, text, size) : -1;
    close(fd);
    if (n != (ssize_t)size) {
        free(text);
        return NULL;
    }
    text[size] = '\0';
    size_t words = 0;
    for (size_t i = 0; i < size; i++)
        words += text[i] == '\0';
    char **argv = calloc(words + 1, sizeof *argv);
    for (size_t i = 0, w = 0; argv != NULL && w < words; w++) {
        if ((argv[w] = strdup(text + i)) == NULL) {
            for (size_t j = 0; j < w; j++)
                free(argv[j]);
            free(argv);
            argv = NULL;
            break;
        }
        i += strlen(text + i) + 1;
    }
    free(text);
    return argv;
}

/* The info of an open process (the caller's); the errors name `call`. */
static sbx_status info_of(local_proc *p, const char *call, sbx_process_info **out,
                          sbx_error *err)
{
    sbx_process_info *info = calloc(1, sizeof *info);
    if (info == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "%s: out of memory", call);
    info->struct_size = sizeof *info;
    info->process_id = strdup(p->id);
    info->argv = read_argv(p->dir_fd);
    if (info->process_id == NULL || info->argv == NULL) {
        local_free_processes(info);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "%s of '%s': cannot read its "
                                     "argv file", call, p->id);
    }
    local_ring_state st;
    local_ring_state_of(&p->ring, &st);
    info->state = st.ended ? SBX_PROCESS_ENDED : SBX_PROCESS_RUNNING;
    info->pty = st.pty;
    info->started_at = st.started_at;
    info->ended_at = st.ended_at;
    info->outcome = st.ended ? st.outcome : SBX_EXEC_EXITED;
    info->exit_code = st.exit_code;
    info->term_signal = st.ended ? st.term_signal : 0;
    *out = info;
    return SBX_OK;
}

/* A process named by a call: what its errors name. */
typedef struct process_ref {
    const char *call;        /* "process read", "process signal", ... */
    const char *sandbox_id;
    const char *process_id;
} process_ref;

/* Open the process `ref` names; the errors name the call. */
static sbx_status open_process(sbx_backend_instance *inst, const process_ref *ref,
                               local_proc *p, sbx_error *err)
{
    local_paths paths;
    sbx_status st = local_sandbox_paths(inst, ref->sandbox_id, &paths, err);
    if (st == SBX_OK && access(paths.metadata, F_OK) != 0)
        return sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "%s of '%s': sandbox '%s' is not "
                                     "running", ref->call, ref->process_id, ref->sandbox_id);
    if (st == SBX_OK)
        st = local_proc_open(&paths, ref->process_id, p, err);
    return st == SBX_OK ? st : sbx_backend_error_prefix(err, "%s", ref->call);
}

/* Open a process and take its state. */
static sbx_status open_with_state(sbx_backend_instance *inst, const process_ref *ref,
                                  local_proc *p, local_ring_state *state, sbx_error *err)
{
    sbx_status st = open_process(inst, ref, p, err);
    if (st == SBX_OK)
        local_ring_state_of(&p->ring, state);
    return st;
}

/* The exec request a process request runs as. */
static void as_exec_request(const sbx_process_request *r, sbx_exec_request *e)
{
    static const sbx_exec_request init = SBX_EXEC_REQUEST_INIT;
    *e = init;
    e->argv = r->argv;
    e->shell_command = r->shell_command;
    e->env = r->env;
    e->env_count = r->env_count;
    e->working_dir = r->working_dir;
    e->timeout_ms = r->timeout_ms;
}

/* The argv file of a new process: its words, or sh -c and the text. */
static int write_argv(int dir_fd, const sbx_process_request *r)
{
    const char *shell[] = { "/bin/sh", "-c", r->shell_command, NULL };
    const char *const *words = r->shell_command != NULL ? shell : r->argv;
    int fd = openat(dir_fd, LOCAL_PROC_ARGV, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return 0;
    int ok = 1;
    for (size_t i = 0; ok && words[i] != NULL; i++) {
        size_t len = strlen(words[i]) + 1;
        ok = write(fd, words[i], len) == (ssize_t)len;
    }
    close(fd);
    return ok;
}

/* A start as it goes: its request (defaults filled in), its buffer's
 * size, the prepared run, and the id it was given. */
typedef struct start_job {
    sbx_process_request request;
    size_t buffer;
    local_exec_prepared *prepared;
    char id[32];
} start_job;

/* Under the sandbox's lock: a slot, the process's files, its supervisor. */
static sbx_status start_locked(sbx_backend_instance *inst, const local_paths *paths,
                               start_job *job, sbx_error *err)
{
    const sbx_process_request *r = &job->request;
    char *id = job->id;
    if (access(paths->metadata, F_OK) != 0)
        return sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "process start: sandbox '%s' "
                                     "is not running", paths->id);
    int dir_fd = -1;
    sbx_status st = local_proc_reserve(paths, (size_t)inst->options.max_processes, id, &dir_fd,
                                       err);
    if (st != SBX_OK)
        return st;
    local_ring ring = { -1, NULL, 0 };
    if (!write_argv(dir_fd, r) ||
        local_ring_create(dir_fd, LOCAL_PROC_OUTPUT, job->buffer, r->pty != 0, r->stdin_open != 0,
                          &ring) != 0)
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "process start in sandbox '%s': "
                                   "cannot write its state: %s", paths->id, strerror(errno));
    local_supervisor_plan plan = { job->prepared, dir_fd, &ring, r->stdin_open != 0, r->pty != 0,
                                   r->rows, r->cols };
    if (st == SBX_OK)
        st = local_supervisor_start(&plan, paths->id, err);
    local_ring_close(&ring);
    close(dir_fd);
    sbx_error ignored;
    sbx_status published = local_proc_publish(paths, id, st == SBX_OK,
                                              st == SBX_OK ? err : &ignored);
    return st == SBX_OK ? published : st;
}

/* The request as this backend reads it, checked. */
static sbx_status read_request(const sbx_backend_instance *inst, const char *sandbox_id,
                               const sbx_process_request *request, sbx_process_request *r,
                               size_t *buffer, sbx_error *err)
{
    static const sbx_process_request init = SBX_PROCESS_REQUEST_INIT;
    *r = init;
    size_t n = request->struct_size < sizeof *r ? request->struct_size : sizeof *r;
    memcpy(r, request, n);
    *buffer = r->buffer_bytes == SBX_PROCESS_DEFAULT
                  ? (size_t)inst->options.process_buffer_bytes
                  : r->buffer_bytes;
    if (*buffer > (size_t)inst->options.max_process_buffer_bytes)
        return sbx_backend_error_set(err, SBX_ERR_USAGE, "process start in sandbox '%s': "
                                     "buffer_bytes %zu is above this backend's largest, %ld "
                                     "(option max_process_buffer_bytes)", sandbox_id,
                                     r->buffer_bytes, inst->options.max_process_buffer_bytes);
    if (r->timeout_ms < 0)
        return sbx_backend_error_set(err, SBX_ERR_USAGE, "process start in sandbox '%s': "
                                     "timeout_ms is negative", sandbox_id);
    return SBX_OK;
}

sbx_status local_live_start(sbx_backend_instance *inst, const char *sandbox_id,
                            const sbx_process_request *request, sbx_process_info **out,
                            sbx_error *err)
{
    start_job job = { .prepared = NULL };
    local_paths paths;
    sbx_status st = read_request(inst, sandbox_id, request, &job.request, &job.buffer, err);
    if (st == SBX_OK && local_sandbox_paths(inst, sandbox_id, &paths, err) != SBX_OK)
        st = sbx_backend_error_prefix(err, "process start");
    sbx_exec_request e;
    as_exec_request(&job.request, &e);
    if (st == SBX_OK)
        st = local_exec_prepare(inst, sandbox_id, &e, "process start", &job.prepared,
                               err);
    int lock_fd = -1;
    if (st == SBX_OK &&
        local_lock(&paths, inst->options.lock_timeout_ms, &lock_fd, err) != SBX_OK)
        st = sbx_backend_error_prefix(err, "process start in sandbox '%s'", sandbox_id);
    if (st == SBX_OK) {
        st = start_locked(inst, &paths, &job, err);
        local_unlock(&paths, lock_fd, 0);
    }
    local_exec_release(job.prepared);
    const char *id = job.id;
    local_proc p;
    if (st == SBX_OK && local_proc_open(&paths, id, &p, err) != SBX_OK)
        st = sbx_backend_error_prefix(err, "process start");
    if (st == SBX_OK) {
        st = info_of(&p, "process start", out, err);
        local_proc_close(&p);
        LOCAL_LOG(inst, SBX_LOG_DEBUG, "process %s started in sandbox %s", id, sandbox_id);
    }
    return st;
}

/* Wait on `p` until `done` says so or `until` (monotonic ms) passed. */
static void wait_until(local_proc *p, uint32_t seen, long until)
{
    long left = until - local_now_ms();
    if (left <= 0)
        return;
    local_ring_wait(&p->ring, seen, left < WAIT_SLICE_MS ? left : WAIT_SLICE_MS);
    local_ring_reap_orphan(&p->ring);
}

sbx_status local_live_read(sbx_backend_instance *inst, const char *sandbox_id,
                           const char *process_id, const sbx_process_read_request *request,
                           sbx_process_output **out, sbx_error *err)
{
    sbx_process_read_request r = SBX_PROCESS_READ_REQUEST_INIT;
    memcpy(&r, request, request->struct_size < sizeof r ? request->struct_size : sizeof r);
    if (r.max_bytes == SBX_PROCESS_DEFAULT || r.max_bytes > LOCAL_PROCESS_READ_DEFAULT)
        r.max_bytes = LOCAL_PROCESS_READ_DEFAULT;
    process_ref ref = { "process read", sandbox_id, process_id };
    local_proc p;
    sbx_status st = open_process(inst, &ref, &p, err);
    if (st != SBX_OK)
        return st;
    long until = local_now_ms() + (long)r.wait_ms;
    for (;;) {
        uint32_t seen = 0;
        st = local_ring_read(&p.ring, process_id, &r, out, &seen, err);
        if (st != SBX_OK)
            break;
        local_ring_state state;
        local_ring_state_of(&p.ring, &state);
        if ((*out)->length > 0 || (*out)->stdout_dropped > 0 || (*out)->stderr_dropped > 0 ||
            state.ended || local_now_ms() >= until)
            break;
        local_ring_free_output(*out);
        *out = NULL;
        wait_until(&p, seen, until);
    }
    local_proc_close(&p);
    return st;
}

/* Write all of `data` to the stdin FIFO `fd` (non-blocking), waiting for
 * room while the process runs; SIGPIPE (a supervisor gone) is taken here,
 * never the host's. */
static sbx_status write_all(local_proc *p, int fd, const char *data, size_t length,
                            sbx_error *err)
{
    sigset_t saved;
    local_sigpipe_hold(&saved);
    sbx_status st = SBX_OK;
    while (length > 0 && st == SBX_OK) {
        ssize_t n = write(fd, data, length);
        if (n > 0) {
            data += n;
            length -= (size_t)n;
            continue;
        }
        local_ring_state state;
        local_ring_reap_orphan(&p->ring);
        local_ring_state_of(&p->ring, &state);
        if (n < 0 && errno == EAGAIN && !state.ended) {
            struct pollfd room = { fd, POLLOUT, 0 };
            poll(&room, 1, WRITE_SLICE_MS);
        } else if (n < 0 && errno != EINTR) {
            st = sbx_backend_error_set(err, SBX_ERR_USAGE, "process write to '%s': the "
                                       "process ended before it read its stdin", p->id);
        }
    }
    local_sigpipe_release(&saved);
    return st;
}

sbx_status local_live_write(sbx_backend_instance *inst, const char *sandbox_id,
                            const char *process_id,
                            const sbx_process_write_request *request, sbx_error *err)
{
    sbx_process_write_request r = SBX_PROCESS_WRITE_REQUEST_INIT;
    memcpy(&r, request, request->struct_size < sizeof r ? request->struct_size : sizeof r);
    process_ref ref = { "process write", sandbox_id, process_id };
    local_proc p;
    local_ring_state state;
    sbx_status st = open_with_state(inst, &ref, &p, &state, err);
    if (st != SBX_OK)
        return st;
    if (state.ended)
        st = sbx_backend_error_set(err, SBX_ERR_USAGE, "process write to '%s' in sandbox '%s': "
                                   "the process has ended", process_id, sandbox_id);
    else if (!state.stdin_open)
        st = sbx_backend_error_set(err, SBX_ERR_USAGE, "process write to '%s' in sandbox '%s': "
                                   "its stdin is closed", process_id, sandbox_id);
    if (st == SBX_OK && r.length > 0) {
        int fd = openat(p.dir_fd, LOCAL_PROC_STDIN, O_WRONLY | O_NONBLOCK | O_NOFOLLOW |
                        O_CLOEXEC);
        if (fd < 0)
            st = sbx_backend_error_set(err, SBX_ERR_USAGE, "process write to '%s': its stdin "
                                       "is gone (the process ended)", process_id);
        else
            st = write_all(&p, fd, r.data, r.length, err);
        if (fd >= 0)
            close(fd);
    }
    if (st == SBX_OK && r.close_stdin && local_ring_close_stdin(&p.ring))
        local_supervisor_ask(p.dir_fd, NULL, LOCAL_CONTROL_CLOSE_STDIN, 0, 0);
    local_proc_close(&p);
    return st;
}

sbx_status local_live_signal(sbx_backend_instance *inst, const char *sandbox_id,
                             const char *process_id, int signal, sbx_error *err)
{
    process_ref ref = { "process signal", sandbox_id, process_id };
    local_proc p;
    sbx_status st = open_process(inst, &ref, &p, err);
    if (st != SBX_OK)
        return st;
    /* An ended process (its supervisor gone) reads no message: SBX_OK. */
    local_supervisor_ask(p.dir_fd, NULL, LOCAL_CONTROL_SIGNAL, signal, 0);
    local_proc_close(&p);
    return SBX_OK;
}

sbx_status local_live_resize(sbx_backend_instance *inst, const char *sandbox_id,
                             const char *process_id, unsigned rows, unsigned cols,
                             sbx_error *err)
{
    process_ref ref = { "process resize", sandbox_id, process_id };
    local_proc p;
    local_ring_state state;
    sbx_status st = open_with_state(inst, &ref, &p, &state, err);
    if (st != SBX_OK)
        return st;
    if (!state.pty)
        st = sbx_backend_error_set(err, SBX_ERR_USAGE, "process resize of '%s' in sandbox "
                                   "'%s': it has no terminal", process_id, sandbox_id);
    else
        local_supervisor_ask(p.dir_fd, NULL, LOCAL_CONTROL_RESIZE, (int)rows, (int)cols);
    local_proc_close(&p);
    return st;
}

sbx_status local_live_wait(sbx_backend_instance *inst, const char *sandbox_id,
                           const char *process_id, int64_t wait_ms,
                           sbx_process_info **out, sbx_error *err)
{
    process_ref ref = { "process wait", sandbox_id, process_id };
    local_proc p;
    sbx_status st = open_process(inst, &ref, &p, err);
    if (st != SBX_OK)
        return st;
    long until = local_now_ms() + (long)wait_ms;
    for (;;) {
        uint32_t seen = local_ring_wake_value(&p.ring);
        local_ring_state state;
        local_ring_state_of(&p.ring, &state);
        if (state.ended || local_now_ms() >= until)
            break;
        wait_until(&p, seen, until);
    }
    st = info_of(&p, "process wait", out, err);
    local_proc_close(&p);
    return st;
}

sbx_status local_live_list(sbx_backend_instance *inst, const char *sandbox_id,
                           sbx_process_info **out, size_t *count, sbx_error *err)
{
    local_paths paths;
    char **ids = NULL;
    size_t n = 0;
    *out = NULL;
    *count = 0;
    sbx_status st = local_sandbox_paths(inst, sandbox_id, &paths, err);
    if (st != SBX_OK)
        st = sbx_backend_error_prefix(err, "process list");
    else if (access(paths.metadata, F_OK) != 0)
        st = sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "process list: sandbox '%s' is "
                                   "not running", sandbox_id);
    if (st == SBX_OK && local_proc_ids(&paths, &ids, &n, err) != SBX_OK)
        st = sbx_backend_error_prefix(err, "process list");
    sbx_process_info **tail = out;
    for (size_t i = 0; st == SBX_OK && i < n; i++) {
        local_proc p;
        sbx_error gone;
        /* Forgotten meanwhile: not listed. */
        if (local_proc_open(&paths, ids[i], &p, &gone) != SBX_OK)
            continue;
        st = info_of(&p, "process list", tail, err);
        local_proc_close(&p);
        if (st == SBX_OK) {
            tail = &(*tail)->next;
            (*count)++;
        }
    }
    local_proc_ids_free(ids, n);
    if (st != SBX_OK) {
        local_free_processes(*out);
        *out = NULL;
        *count = 0;
    }
    return st;
}

sbx_status local_live_forget(sbx_backend_instance *inst, const char *sandbox_id,
                             const char *process_id, sbx_error *err)
{
    local_paths paths;
    if (local_sandbox_paths(inst, sandbox_id, &paths, err) != SBX_OK)
        return sbx_backend_error_prefix(err, "process forget");
    return local_proc_forget(&paths, process_id, err);
}
