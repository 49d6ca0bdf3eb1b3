/* The command of an isolated sandbox (see local_server.h).  Below
 * local_server_keep_fds only async-signal-safe calls: the process is a
 * fork of a multi-threaded host. */
#include <config.h>

#include "plugin/local/local_server.h"

#include <sbx/backend_support.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* How often the port is tried on the sandbox's loopback, and how long one
 * connect may take (loopback answers at once unless the backlog is full). */
#define TRY_INTERVAL_MS 10
#define CONNECT_WAIT_MS 1000

sbx_status local_server_prepare(const local_isolation_options *options, const char *sandbox_dir,
                                int holder, int port, local_server *out, sbx_error *err)
{
    memset(out, 0, sizeof *out);
    out->port = port;
    out->ready_write = out->ready_read = -1;
    int root_fd = open(sandbox_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0) {
        if (holder >= 0)
            close(holder);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "isolation: %s: %s", sandbox_dir,
                                     strerror(errno));
    }
    sbx_status st = local_isolation_prepare(options, sandbox_dir, root_fd, "", holder,
                                            &out->plan, err);
    close(root_fd);
    if (st != SBX_OK || options->network != LOCAL_NETWORK_NONE)
        return st;
    /* A socket, so that the joined process's send cannot raise SIGPIPE
     * once the host stopped waiting. */
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "isolation: socketpair: %s",
                                     strerror(errno));
    out->ready_read = pair[0];
    out->ready_write = fcntl(pair[1], F_DUPFD_CLOEXEC, 3);
    close(pair[1]);
    if (out->ready_write < 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "isolation: %s", strerror(errno));
    return SBX_OK;
}

void local_server_free(local_server *server)
{
    local_isolation_plan_free(&server->plan);
    if (server->ready_read >= 0)
        close(server->ready_read);
    if (server->ready_write >= 0)
        close(server->ready_write);
    server->ready_read = server->ready_write = -1;
}

void local_server_keep_fds(const local_server *server, int keep[LOCAL_SERVER_KEEP])
{
    local_isolation_keep_fds(&server->plan, keep);
    keep[3] = server->ready_write;
}

/* ------------------------------------------------------------ the process */

static void say(const char *text)
{
    ssize_t n = write(STDERR_FILENO, text, strlen(text));
    (void)n;
}

/* Write why the command cannot run to the log (its stderr) and exit 126,
 * as the shell does for a command it cannot execute. */
_Noreturn static void refuse(const char *step, int error)
{
    char number[16];
    int i = (int)sizeof number - 1;
    number[i] = '\0';
    do {
        number[--i] = (char)('0' + error % 10);
        error /= 10;
    } while (error > 0 && i > 0);
    say("sbx: isolation=namespaces: the sandbox's command did not run: cannot ");
    say(step);
    say(" (errno ");
    say(number + i);
    say(")\n");
    _exit(126);
}

/* 1 when a connection to `port` on the loopback of this process's network
 * namespace is accepted. */
static int serving(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return 0;
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    if (!ok && errno == EINPROGRESS) {
        struct pollfd p = { fd, POLLOUT, 0 };
        int error = 0;
        socklen_t len = sizeof error;
        ok = poll(&p, 1, CONNECT_WAIT_MS) == 1 &&
             getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) == 0 && error == 0;
    }
    close(fd);
    return ok;
}

/* network=none: try the port until the command serves it (then say so to
 * the host), the init exits or the host stops waiting (its end closed). */
static void announce_serving(const local_server *server, pid_t init)
{
    for (;;) {
        if (serving(server->port)) {
            ssize_t n = send(server->ready_write, "r", 1, MSG_NOSIGNAL);
            (void)n;
            return;
        }
        siginfo_t info;
        info.si_pid = 0;
        if (waitid(P_PID, (id_t)init, &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
            info.si_pid != 0)
            return;
        struct pollfd p = { server->ready_write, POLLIN, 0 };
        int rc = poll(&p, 1, TRY_INTERVAL_MS);
        if (rc > 0 || (rc < 0 && errno != EINTR))
            return;
    }
}

/* Exit as the command did: its exit status, or the signal that ended it. */
_Noreturn static void exit_as(int status)
{
    if (WIFSIGNALED(status)) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(WTERMSIG(status), &dfl, NULL);
        kill(getpid(), WTERMSIG(status));
        _exit(128 + WTERMSIG(status));
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

void local_server_enter(const local_server *server)
{
    const local_isolation_plan *plan = &server->plan;
    int stage = 0, e = local_isolation_enter(plan, &stage);
    if (e != 0)
        refuse(local_isolation_stage_text(stage), e);
    pid_t init = _Fork();
    if (init == 0) {
        if (server->ready_write >= 0)
            close(server->ready_write);
        local_isolation_command(plan);
        return;
    }
    if (init < 0)
        refuse("fork the command's init", errno);
    close(plan->status_write);
    struct sigaction ignore;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGTERM, &ignore, NULL);
    if (server->ready_write >= 0) {
        announce_serving(server, init);
        close(server->ready_write);
    }
    int status = 0;
    while (waitpid(init, &status, 0) < 0)
        if (errno != EINTR)
            _exit(1);
    int error = 0;
    stage = 0;
    local_isolation_outcome(plan, &status, &error, &stage);
    if (error != 0)
        refuse(local_isolation_stage_text(stage), error);
    exit_as(status);
}
