/* The test's side of mgr_peer (see peer_process.h). */
#include <config.h>

#include "tests/manager/peer_process.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/clock.h"
#include "tests/support/subprocess.h"
#include "tests/support/watched_child.h"

/* One answer line: 0, or -1 with why in `out`. */
static int read_line(peer_process *p, char *out, size_t cap, long deadline)
{
    int got = sbx_test_read_line(p->from_peer, out, cap, deadline);
    if (got != 1)
        snprintf(out, cap, "%s", got == 0 ? "no answer from the peer process"
                                          : "the peer process closed its output");
    return got == 1 ? 0 : -1;
}

int peer_start(peer_process *p, const peer_config *c)
{
    memset(p, 0, sizeof *p);
    char bin[512], interval[32], idle[32], stop[32];
    snprintf(stop, sizeof stop, "%ld", c->stop_ms);
    const char *builddir = getenv("SBX_TEST_BUILDDIR");
    snprintf(bin, sizeof bin, "%s/tests/manager/mgr_peer", builddir != NULL ? builddir : ".");
    snprintf(interval, sizeof interval, "%ld", c->interval_ms);
    snprintf(idle, sizeof idle, "%ld", c->idle_ms);
    const char *args[] = {c->state_dir, c->lease_db, interval, idle, c->shutdown, c->command,
                          stop, NULL};
    if (c->command == NULL)
        args[5] = NULL; /* sandboxes without one: no command, no stop */
    sbx_test_child child;
    if (sbx_test_child_spawn(&child, bin, args, NULL, 1) != 0)
        return -1;
    p->pid = child.pid;
    p->to_peer = child.in_fd;
    p->from_peer = child.out_fd;
    if (!sbx_test_child_expect(&child, "ready ", p->owner, sizeof p->owner, 10000)) {
        peer_kill(p);
        return -1;
    }
    return 0;
}

int peer_send(peer_process *p, const char *command)
{
    size_t n = strlen(command);
    char *line = malloc(n + 2);
    if (line == NULL)
        return -1;
    memcpy(line, command, n);
    line[n] = '\n';
    ssize_t wrote = write(p->to_peer, line, n + 1);
    free(line);
    return wrote == (ssize_t)(n + 1) ? 0 : -1;
}

int peer_ask(peer_process *p, const char *command, char *answer, size_t cap)
{
    if (peer_send(p, command) != 0) {
        snprintf(answer, cap, "cannot write to the peer: %s", strerror(errno));
        return -1;
    }
    return read_line(p, answer, cap, sbx_test_now_ms() + 10000);
}

int peer_read(peer_process *p, char *answer, size_t cap, long timeout_ms)
{
    return read_line(p, answer, cap, sbx_test_now_ms() + timeout_ms);
}

int peer_counters(peer_process *p, unsigned long long c[6])
{
    char line[200];
    if (peer_ask(p, "counters", line, sizeof line) != 0)
        return -1;
    return sscanf(line, "%llu %llu %llu %llu %llu %llu", &c[0], &c[1], &c[2], &c[3], &c[4],
                  &c[5]) == 6 ? 0 : -1;
}

static int reap(peer_process *p, long timeout_ms)
{
    int status = -1;
    int pidfd = pidfd_open(p->pid, 0);
    if (pidfd < 0 || sbx_test_wait_readable(pidfd, sbx_test_now_ms() + timeout_ms) != 1)
        kill(p->pid, SIGKILL);
    if (pidfd >= 0)
        close(pidfd);
    waitpid(p->pid, &status, 0);
    close(p->to_peer);
    close(p->from_peer);
    p->pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int peer_quit(peer_process *p)
{
    char line[300];
    if (peer_ask(p, "quit", line, sizeof line) != 0 || strcmp(line, "ok") != 0)
        fprintf(stderr, "peer quit: %s\n", line);
    return reap(p, 10000);
}

void peer_kill(peer_process *p)
{
    if (p->pid > 0) {
        kill(p->pid, SIGKILL);
        reap(p, 10000);
    }
}
