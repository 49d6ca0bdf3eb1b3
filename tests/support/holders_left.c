/* Counting the holders a test program left (see holders_left.h). */
#include <config.h>

#include "tests/support/holders_left.h"

#include "tests/support/proc_table.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Arguments are read up to this size, as proc_table.h cuts them. */
#define ARGS_MAX 8192

/* What a holder shares with the program that forked it, and what not. */
typedef struct holder_match {
    char args[ARGS_MAX];
    size_t args_len;
    int levels;
    int count;
    long one;
} holder_match;

/* How many pid namespaces /proc/PID/status lists the process in (its
 * NSpid line); 0 when unreadable.  Unlike /proc/PID/exe or ns/pid, the
 * status is readable for a holder not yet dumpable, and by another uid. */
static int pid_levels(long pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    FILE *f = fopen(path, "re");
    int levels = 0;
    while (f != NULL && levels == 0 && fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "NSpid:", 6) != 0)
            continue;
        for (char *p = strtok(line + 6, " \t\n"); p != NULL; p = strtok(NULL, " \t\n"))
            levels++;
    }
    if (f != NULL)
        fclose(f);
    return levels;
}

/* A zombie's arguments are empty (proc_table.h): it has ended. */
static int count_holder(const sbx_test_process *p, void *ctx)
{
    holder_match *m = ctx;
    if (p->args_len > 0 && p->args_len == m->args_len &&
        memcmp(p->args, m->args, m->args_len) == 0 && pid_levels(p->pid) > m->levels) {
        m->count++;
        m->one = p->pid;
    }
    return 0;
}

int sbx_test_holders_left(long *one)
{
    holder_match m;
    memset(&m, 0, sizeof m);
    if (one != NULL)
        *one = 0;
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, m.args, sizeof m.args - 1) : -1;
    if (fd >= 0)
        close(fd);
    m.levels = pid_levels((long)getpid());
    if (n <= 0 || m.levels == 0)
        return 0;
    m.args_len = (size_t)n;
    sbx_test_proc_each(count_holder, &m);
    if (one != NULL)
        *one = m.one;
    return m.count;
}
