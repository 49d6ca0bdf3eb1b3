/*
 * The trigger of fail_alloc.h's process-wide count, for a server under
 * test that a test drives from outside: linked into a test build of the
 * server, it reads commands from the file descriptor named by the
 * environment variable SBX_FAIL_ALLOC_CONTROL_FD (one end of a socketpair
 * the test made and the server inherited), one per line:
 *
 *   arm N     -> "armed"       the Nth counted allocation from now fails
 *   disarm    -> "seen K"      counting stops; K were counted since arm
 *
 * Each answer is written once the change is made, so a test that reads it
 * knows the count has started (or stopped).  Without the variable the
 * program runs as the plain server.  The control thread allocates nothing
 * (it would count itself).
 */
#include <config.h>

#include "tests/alloc-fail/fail_alloc.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Read one line of `fd` into `line` (without its newline): 1, or 0 at the
 * end of input (the test went away). */
static int read_command(int fd, char *line, size_t cap)
{
    size_t len = 0;
    for (;;) {
        char c;
        ssize_t got = read(fd, &c, 1);
        if (got <= 0)
            return 0;
        if (c == '\n')
            break;
        if (len + 1 < cap)
            line[len++] = c;
    }
    line[len] = '\0';
    return 1;
}

static void *control_loop(void *arg)
{
    int fd = (int)(intptr_t)arg;
    char line[64], answer[64];
    while (read_command(fd, line, sizeof line)) {
        if (strncmp(line, "arm ", 4) == 0) {
            sbx_fail_alloc_arm_process(strtoul(line + 4, NULL, 10));
            snprintf(answer, sizeof answer, "armed\n");
        } else if (strcmp(line, "disarm") == 0) {
            snprintf(answer, sizeof answer, "seen %lu\n", sbx_fail_alloc_disarm_process());
        } else {
            snprintf(answer, sizeof answer, "unknown command\n");
        }
        if (write(fd, answer, strlen(answer)) < 0)
            break;
    }
    sbx_fail_alloc_disarm_process();
    close(fd);
    return NULL;
}

/* Before main: take the descriptor (closed on exec, so the server's own
 * children do not hold the test's end open) and start the control thread,
 * with every signal blocked so that the server's own signal handling
 * (sigwait in main) gets them. */
__attribute__((constructor)) static void start_control(void)
{
    const char *text = getenv("SBX_FAIL_ALLOC_CONTROL_FD");
    if (text == NULL || text[0] == '\0')
        return;
    int fd = atoi(text);
    sigset_t all, before;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &before);
    pthread_t thread;
    int started = fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 &&
                  pthread_create(&thread, NULL, control_loop, (void *)(intptr_t)fd) == 0;
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    if (!started) {
        fprintf(stderr, "fail_alloc_control: no control on descriptor %s\n", text);
        _exit(125);
    }
    pthread_detach(thread);
}
