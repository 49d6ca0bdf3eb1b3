/* Parts of a test run as an unprivileged host (see local_unprivileged.h). */
#include <config.h>

#include "tests/local-backend/local_unprivileged.h"

#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int sbx_local_test_check(sbx_local_test_verdict *v, int ok, const char *what, ...)
{
    if (!ok && v->why[0] == '\0') {
        va_list ap;
        va_start(ap, what);
        vsnprintf(v->why, sizeof v->why, what, ap);
        va_end(ap);
    }
    return ok;
}

static int drop_root(void)
{
    if (geteuid() != 0)
        return 1;
    return setgroups(0, NULL) == 0 && setgid(SBX_LOCAL_TEST_UNPRIVILEGED_ID) == 0 &&
           setuid(SBX_LOCAL_TEST_UNPRIVILEGED_ID) == 0 && setenv("TMPDIR", "/tmp", 1) == 0 &&
           setenv("HOME", "/tmp", 1) == 0;
}

void sbx_local_test_run_unprivileged(void (*part)(sbx_local_test_verdict *v, void *ctx),
                                     void *ctx, sbx_local_test_verdict *out)
{
    memset(out, 0, sizeof *out);
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(out->why, sizeof out->why, "pipe: %s", strerror(errno));
        return;
    }
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        close(fds[0]);
        sbx_local_test_verdict v;
        memset(&v, 0, sizeof v);
        if (sbx_local_test_check(&v, drop_root(), "cannot become uid %d: %s",
                                 SBX_LOCAL_TEST_UNPRIVILEGED_ID, strerror(errno)))
            part(&v, ctx);
        ssize_t n = write(fds[1], &v, sizeof v);
        _exit(n == (ssize_t)sizeof v ? 0 : 1);
    }
    close(fds[1]);
    ssize_t got = 0, n = 1;
    while (child > 0 && got < (ssize_t)sizeof *out && n > 0) {
        n = read(fds[0], (char *)out + got, sizeof *out - (size_t)got);
        if (n < 0 && errno == EINTR)
            n = 1;
        else if (n > 0)
            got += n;
    }
    close(fds[0]);
    int status = 0;
    while (child > 0 && waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    if (child < 0)
        snprintf(out->why, sizeof out->why, "fork: %s", strerror(errno));
    else if (WIFSIGNALED(status))
        snprintf(out->why, sizeof out->why, "the unprivileged part was killed by signal %d",
                 WTERMSIG(status));
    else if (got != (ssize_t)sizeof *out)
        snprintf(out->why, sizeof out->why, "the unprivileged part gave no verdict (status %d)",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}
