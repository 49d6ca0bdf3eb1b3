/* Counting the holders a test program left (see holders_left.h). */
#include <config.h>

#include "tests/support/holders_left.h"

#include "tests/support/proc_table.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* What a holder shares with the program that forked it, and what not. */
typedef struct holder_match {
    char exe[PATH_MAX];
    char pid_ns[64];
    int count;
} holder_match;

/* readlink of /proc/PID/NAME into out (NUL-terminated); 0 when unreadable. */
static int proc_link(long pid, const char *name, char *out, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/%s", pid, name);
    ssize_t n = readlink(path, out, size - 1);
    if (n < 0)
        return 0;
    out[n] = '\0';
    return 1;
}

/* A zombie's arguments are empty (proc_table.h): it has ended. */
static int count_holder(const sbx_test_process *p, void *ctx)
{
    holder_match *m = ctx;
    char exe[PATH_MAX], ns[64];
    if (p->args_len > 0 && proc_link(p->pid, "exe", exe, sizeof exe) &&
        strcmp(exe, m->exe) == 0 && proc_link(p->pid, "ns/pid", ns, sizeof ns) &&
        strcmp(ns, m->pid_ns) != 0)
        m->count++;
    return 0;
}

int sbx_test_holders_left(void)
{
    holder_match m;
    memset(&m, 0, sizeof m);
    if (!proc_link((long)getpid(), "exe", m.exe, sizeof m.exe) ||
        !proc_link((long)getpid(), "ns/pid", m.pid_ns, sizeof m.pid_ns))
        return 0;
    sbx_test_proc_each(count_holder, &m);
    return m.count;
}
