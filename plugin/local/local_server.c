/* The command of an isolated sandbox (see local_server.h).  Below
 * local_server_keep_fds only async-signal-safe calls: the process is a
 * fork of a multi-threaded host. */
#include <config.h>

#include "plugin/local/local_server.h"

#include "plugin/local/local_child.h"
#include "plugin/local/local_port.h"

#include <sbx/backend_support.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* How often the port is tried on the sandbox's loopback, and how long one
 * connect may take (loopback answers at once unless the backlog is full). */
#define TRY_INTERVAL_MS 10
#define CONNECT_WAIT_MS 1000

/* The backlog of the forwarded port, and each relay's buffer per
 * direction. */
#define FORWARD_BACKLOG 128
#define RELAY_BUFFER 16384

sbx_status local_server_prepare(const local_isolation_options *options, const char *sandbox_dir,
                                int holder, local_server_port port, local_server *out,
                                sbx_error *err)
{
    memset(out, 0, sizeof *out);
    out->port = port.number;
    out->ready_write = out->ready_read = -1;
    out->listen_fd = port.fd;
    out->fd_limit = local_child_fd_limit();
    int root_fd = open(sandbox_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0) {
        if (holder >= 0)
            close(holder);
        if (port.fd >= 0)
            close(port.fd);
        out->listen_fd = -1;
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "isolation: %s: %s", sandbox_dir,
                                     strerror(errno));
    }
    local_isolation_site site = { sandbox_dir, root_fd, "", holder, port.network };
    sbx_status st = local_isolation_prepare(options, &site, &out->plan, err);
    close(root_fd);
    if (st == SBX_OK && port.network == LOCAL_NETWORK_FORWARD) {
        /* Bound in the host's network namespace when the port was picked,
         * and kept since (no other program can take it in between); the
         * socket stays there when its process joins the sandbox's. */
        if (out->listen_fd < 0)
            st = sbx_backend_error_set(err, SBX_ERR_INTERNAL,
                                       "isolation: no socket of port %d to forward", port.number);
        else if (out->listen_fd < 3) {
            int above = fcntl(out->listen_fd, F_DUPFD_CLOEXEC, 3);
            close(out->listen_fd);
            out->listen_fd = above;
        }
    }
    if (st != SBX_OK || port.network != LOCAL_NETWORK_NONE)
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
    if (server->listen_fd >= 0)
        close(server->listen_fd);
    server->ready_read = server->ready_write = server->listen_fd = -1;
}

void local_server_keep_fds(const local_server *server, int keep[LOCAL_SERVER_KEEP])
{
    local_isolation_keep_fds(&server->plan, keep);
    keep[3] = server->ready_write;
    keep[4] = server->listen_fd;
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

/* 1 once the command serves its port on the sandbox's loopback; 0 when
 * the init exited first (`init_fd` is a pidfd of it) or the host stopped
 * waiting (network=none: its end of the ready channel closed). */
static int await_serving(const local_server *server, pid_t init, int init_fd)
{
    for (;;) {
        if (serving(server->port))
            return 1;
        siginfo_t info;
        info.si_pid = 0;
        if (waitid(P_PID, (id_t)init, &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
            info.si_pid != 0)
            return 0;
        struct pollfd p[2] = { { server->ready_write, POLLIN, 0 }, { init_fd, POLLIN, 0 } };
        int rc = poll(p, 2, TRY_INTERVAL_MS);
        if (rc > 0 || (rc < 0 && errno != EINTR))
            return 0;
    }
}

/* Relay one connection between `a` and `b` until both directions are
 * closed (one closing for writing closes the other's sending side). */
_Noreturn static void relay(int a, int b)
{
    char buf[2][RELAY_BUFFER];
    size_t len[2] = { 0, 0 }, off[2] = { 0, 0 };
    int fds[2] = { a, b }, reading[2] = { 1, 1 };
    for (;;) {
        /* Direction i carries what fds[i] sends to fds[1 - i]. */
        struct pollfd p[2];
        for (int i = 0; i < 2; i++) {
            p[i].fd = fds[i];
            p[i].revents = 0;
            p[i].events = (short)((len[i] == 0 && reading[i] ? POLLIN : 0) |
                                  (len[1 - i] > 0 ? POLLOUT : 0));
        }
        if (p[0].events == 0 && p[1].events == 0)
            _exit(0);
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            _exit(1);
        }
        for (int i = 0; i < 2; i++) {
            /* Only what was asked: a read without POLLIN would block. */
            if (len[i] == 0 && reading[i] && (p[i].revents & (POLLIN | POLLHUP | POLLERR))) {
                ssize_t n = read(fds[i], buf[i], sizeof buf[i]);
                if (n > 0) {
                    len[i] = (size_t)n;
                    off[i] = 0;
                } else if (n == 0 || errno != EINTR) {
                    reading[i] = 0;
                    shutdown(fds[1 - i], SHUT_WR);
                }
            }
            if (len[i] > 0 && (p[1 - i].revents & (POLLOUT | POLLHUP | POLLERR))) {
                ssize_t n = send(fds[1 - i], buf[i] + off[i], len[i], MSG_NOSIGNAL);
                if (n < 0 && errno != EINTR)
                    _exit(0);
                if (n > 0) {
                    off[i] += (size_t)n;
                    len[i] -= (size_t)n;
                }
            }
        }
    }
}

/* A relay for the accepted connection `client`: double-forked, so that
 * nobody has to reap it; in this process group, so that destroy ends it
 * with the command. */
static void start_relay(const local_server *server, int client)
{
    pid_t middle = _Fork();
    if (middle == 0) {
        /* It runs in the command's pid namespace, as its uid, outside its
         * seccomp filter: not to be read or written through /proc. */
        prctl(PR_SET_DUMPABLE, 0L, 0L, 0L, 0L);
        if (_Fork() != 0)
            _exit(0);
        local_child_close_all_but(&client, 1, server->fd_limit);
        /* A socket made now is in the sandbox's network namespace. */
        int inside = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a;
        memset(&a, 0, sizeof a);
        a.sin_family = AF_INET;
        a.sin_port = htons((uint16_t)server->port);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (inside < 0 || connect(inside, (struct sockaddr *)&a, sizeof a) != 0)
            _exit(1);
        relay(client, inside);
    }
    while (middle > 0 && waitpid(middle, NULL, 0) < 0 && errno == EINTR)
        ;
}

/* How long forward() waits after an accept that failed for want of
 * descriptors or memory. */
#define ACCEPT_RETRY_MS 100

/* network=forward, once the command serves: listen on the host's port and
 * relay each connection until the init exits. */
static void forward(const local_server *server, int init_fd)
{
    if (init_fd < 0 || listen(server->listen_fd, FORWARD_BACKLOG) != 0)
        return;
    for (;;) {
        struct pollfd p[2] = { { server->listen_fd, POLLIN, 0 }, { init_fd, POLLIN, 0 } };
        int rc = poll(p, 2, -1);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc < 0 || p[1].revents != 0)
            return;
        int client = accept4(server->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (client >= 0) {
            start_relay(server, client);
            close(client);
        } else if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
            /* The connection stays queued and the socket readable: a pause
             * (cut short by the init's exit), not a loop at full speed,
             * until the system has room again. */
            poll(&p[1], 1, ACCEPT_RETRY_MS);
        }
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
        if (server->listen_fd >= 0)
            close(server->listen_fd);
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
    int init_fd = (int)syscall(SYS_pidfd_open, init, 0U);
    if (server->ready_write >= 0 || server->listen_fd >= 0) {
        int served = await_serving(server, init, init_fd);
        if (served && server->ready_write >= 0) {
            ssize_t n = send(server->ready_write, "r", 1, MSG_NOSIGNAL);
            (void)n;
        }
        if (server->ready_write >= 0)
            close(server->ready_write);
        if (served && server->listen_fd >= 0)
            forward(server, init_fd);
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
