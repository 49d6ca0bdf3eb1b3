/* ctl_follow: the calling thread reads the process's output (each read
 * bounded by CTL_FOLLOW_WAIT_MS) and writes it out; a second thread waits
 * in poll() on sbxctl's stdin, a signalfd and a wake-up pipe, and turns
 * what comes into process writes, signals and resizes.  poll() and a
 * signalfd rather than signal handlers: nothing runs asynchronously, so
 * the terminal is always put back by ordinary code. */
#include <config.h>

#include "tools/sbxctl/follow.h"

#include "tools/sbxctl/terminal.h"
#include "tools/sbxctl/write_all.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

/* Bytes of stdin forwarded per write. */
#define STDIN_CHUNK 65536

static void forwarded_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGQUIT);
    sigaddset(set, SIGWINCH);
}

void ctl_follow_block_signals(void)
{
    sigset_t set;
    forwarded_signals(&set);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    /* A closed stdout must end the follow through its error path (which
     * puts the terminal back), not kill sbxctl where it stands. */
    struct sigaction ignore_pipe = {.sa_handler = SIG_IGN}, old_pipe;
    sigaction(SIGPIPE, &ignore_pipe, &old_pipe);
}

/* What the two threads share.  The control thread only reads `request`;
 * `wake` is written by the reading thread once, to end it. */
typedef struct follow_state {
    const ctl_follow_request *request;
    int signal_fd;               /* -1 when no signal is handled */
    int wake[2];                 /* wake[0] polled, wake[1] written at the end */
    const char *newline;         /* "\r\n" on a raw terminal, else "\n" */
} follow_state;

/* One failed call of the control thread: printed, and its kind of work stops. */
static void report(const follow_state *state, const sbx_error *err, const char *what)
{
    sbx_error shown = *err;
    size_t len = strlen(shown.message);
    snprintf(shown.message + len, sizeof shown.message - len, " (%s)", what);
    ctl_print_error(state->request->out, &shown);
}

/* A chunk of sbxctl's stdin to the process; at end of file a close when
 * asked.  0 to go on reading stdin, -1 to stop. */
static int forward_stdin(const follow_state *state)
{
    const ctl_follow_request *r = state->request;
    char chunk[STDIN_CHUNK];
    ssize_t n = read(STDIN_FILENO, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    sbx_process_write_request write_request = SBX_PROCESS_WRITE_REQUEST_INIT;
    if (n > 0) {
        write_request.data = chunk;
        write_request.length = (size_t)n;
    } else if (r->close_stdin_at_eof) {
        write_request.close_stdin = 1;
    } else {
        return -1;
    }
    sbx_error err;
    if (sbx_backend_process_write(r->backend, r->sandbox_id, r->process_id, &write_request,
                                  &err) != SBX_OK) {
        report(state, &err, "stdin is no longer forwarded");
        return -1;
    }
    return n > 0 ? 0 : -1;
}

/* A signal sbxctl got: a resize for SIGWINCH, else passed on. */
static void handle_signal(const follow_state *state)
{
    const ctl_follow_request *r = state->request;
    struct signalfd_siginfo info;
    if (read(state->signal_fd, &info, sizeof info) != (ssize_t)sizeof info)
        return;
    sbx_error err;
    if (info.ssi_signo == SIGWINCH) {
        unsigned rows, cols;
        ctl_terminal_size(&rows, &cols);
        if (r->terminal &&
            sbx_backend_process_resize(r->backend, r->sandbox_id, r->process_id, rows, cols,
                                       &err) != SBX_OK)
            report(state, &err, "the terminal size was not passed on");
        return;
    }
    if (r->forward_signals &&
        sbx_backend_process_signal(r->backend, r->sandbox_id, r->process_id,
                                   (int)info.ssi_signo, &err) != SBX_OK)
        report(state, &err, "the signal was not passed on");
}

static void *control_main(void *arg)
{
    const follow_state *state = arg;
    struct pollfd fds[3] = {
        {state->wake[0], POLLIN, 0},
        {state->signal_fd, POLLIN, 0},
        {state->request->forward_stdin ? STDIN_FILENO : -1, POLLIN, 0},
    };
    for (;;) {
        /* No timeout: the reading thread's wake-up ends the wait. */
        if (poll(fds, 3, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (fds[0].revents != 0)
            break;
        if (fds[1].revents != 0)
            handle_signal(state);
        if (fds[2].revents != 0 && forward_stdin(state) != 0)
            fds[2].fd = -1;
    }
    return NULL;
}

/* Bytes the reader skipped, as sbxctl's own line on stderr. */
static int report_dropped(const follow_state *state, const char *stream, uint64_t dropped)
{
    if (dropped == 0)
        return 0;
    char line[160];
    int len = snprintf(line, sizeof line,
                       "sbxctl: %" PRIu64 " bytes of %s were dropped (the process wrote them "
                       "faster than they were read)%s", dropped, stream, state->newline);
    return ctl_write_all(STDERR_FILENO, line, (size_t)len);
}

/* Read and write out until the end (or, without until_end, until a read
 * brings nothing new). */
static sbx_status pump_output(const follow_state *state, ctl_follow_end *end, sbx_error *err)
{
    const ctl_follow_request *r = state->request;
    sbx_process_read_request read_request = SBX_PROCESS_READ_REQUEST_INIT;
    read_request.wait_ms = r->until_end ? CTL_FOLLOW_WAIT_MS : 0;
    for (;;) {
        sbx_process_output *output = NULL;
        sbx_status status = sbx_backend_process_read(r->backend, r->sandbox_id, r->process_id,
                                                     &read_request, &output, err);
        if (status != SBX_OK)
            return status;
        int failed = report_dropped(state, "stdout", output->stdout_dropped) != 0 ||
                     report_dropped(state, "stderr", output->stderr_dropped) != 0;
        const char *data = output->data;
        for (size_t i = 0; i < output->chunk_count && !failed; i++) {
            const sbx_output_chunk *chunk = &output->chunks[i];
            int fd = chunk->stream == SBX_STREAM_STDERR ? STDERR_FILENO : STDOUT_FILENO;
            failed = ctl_write_all(fd, data, chunk->length) != 0;
            data += chunk->length;
        }
        int nothing_new = output->length == 0 && output->stdout_dropped == 0 &&
                          output->stderr_dropped == 0;
        read_request.cursor = output->next;
        if (output->ended)
            *end = (ctl_follow_end){1, output->outcome, output->exit_code, output->term_signal};
        sbx_backend_free_process_output(r->backend, output);
        if (failed)
            return sbx_error_set(err, SBX_ERR_INTERNAL,
                                 "cannot write the process's output (%s)", strerror(errno));
        if (end->ended || (!r->until_end && nothing_new))
            return SBX_OK;
    }
}

/* Signals that came while following and were not read are dropped, not
 * delivered to sbxctl once unblocked. */
static void drain_signals(int signal_fd)
{
    struct signalfd_siginfo info;
    int flags = fcntl(signal_fd, F_GETFL);
    if (flags >= 0 && fcntl(signal_fd, F_SETFL, flags | O_NONBLOCK) == 0)
        while (read(signal_fd, &info, sizeof info) == (ssize_t)sizeof info)
            ;
}

sbx_status ctl_follow(const ctl_follow_request *request, ctl_follow_end *end, sbx_error *err)
{
    *end = (ctl_follow_end){0, SBX_EXEC_EXITED, -1, 0};
    follow_state state = {request, -1, {-1, -1}, "\n"};
    int controlled = request->forward_stdin || request->forward_signals || request->terminal;
    if (!controlled)
        return pump_output(&state, end, err);

    sigset_t set;
    forwarded_signals(&set);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    /* A closed stdout must end the follow through its error path (which
     * puts the terminal back), not kill sbxctl where it stands. */
    struct sigaction ignore_pipe = {.sa_handler = SIG_IGN}, old_pipe;
    sigaction(SIGPIPE, &ignore_pipe, &old_pipe);
    ctl_terminal_state terminal = {0};
    pthread_t control;
    sbx_status status = SBX_OK;
    state.signal_fd = signalfd(-1, &set, SFD_CLOEXEC);
    if (state.signal_fd < 0 || pipe2(state.wake, O_CLOEXEC) != 0)
        status = sbx_error_set(err, SBX_ERR_INTERNAL, "cannot watch signals (%s)",
                               strerror(errno));
    if (status == SBX_OK && request->terminal && request->forward_stdin &&
        ctl_terminal_enter_raw(&terminal) != 0)
        status = sbx_error_set(err, SBX_ERR_INTERNAL, "cannot put the terminal in raw mode (%s)",
                               strerror(errno));
    if (terminal.raw)
        state.newline = "\r\n";
    int started = status == SBX_OK && pthread_create(&control, NULL, control_main, &state) == 0;
    if (status == SBX_OK && !started)
        status = sbx_error_set(err, SBX_ERR_INTERNAL, "cannot start the stdin thread");
    if (status == SBX_OK)
        status = pump_output(&state, end, err);
    if (started) {
        char wake = 1;
        ctl_write_all(state.wake[1], &wake, 1);
        pthread_join(control, NULL);
    }
    ctl_terminal_restore(&terminal);
    for (int i = 0; i < 2; i++)
        if (state.wake[i] >= 0)
            close(state.wake[i]);
    if (state.signal_fd >= 0) {
        drain_signals(state.signal_fd);
        close(state.signal_fd);
    }
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    sigaction(SIGPIPE, &old_pipe, NULL);
    return status;
}
