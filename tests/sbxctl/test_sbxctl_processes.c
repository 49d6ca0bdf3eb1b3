/* sbxctl's live processes as a user sees them, on the local backend: exec
 * streams output while the command runs (uncut, in bounded memory), exec
 * -i passes stdin as it comes, exec -t/-it give a terminal (raw mode put
 * back, resizes passed on), exec -d starts in the background, and ps,
 * logs, kill, attach and shell do what sbxctl(1) says, with its exit codes.
 * Every wait is on a condition (a line, a child's end) with a deadline. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "tests/sbxctl/run_sbxctl.h"
#include "tests/sbxctl/sbxctl_checks.h"
#include "tests/support/backend_calls.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/memory_figures.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/subprocess.h"
#include "tests/support/watched_child.h"

#define ARGS SBX_TEST_ARGS

/* The most arguments one run takes here, with the state option. */
#define MAX_ARGS 40

static char scratch[4096];
static char state_dir[4200];
static char state_setting[4300];

static int setup(void)
{
    if (sbx_test_scratch_dir(scratch, sizeof scratch, "sbxctl procs") != 0)
        return 1;
    snprintf(state_dir, sizeof state_dir, "%s/state", scratch);
    snprintf(state_setting, sizeof state_setting, "state_dir=%s", state_dir);
    return 0;
}

static int teardown(void)
{
    sbx_test_destroy_local_sandboxes(state_dir);
    sbx_test_remove_tree(scratch);
    return 0;
}

/* "--set state_dir=..." then `args`, NULL-terminated, into `argv`. */
static void with_state(const char **argv, const char *const *args)
{
    size_t n = 0;
    argv[n++] = "--set";
    argv[n++] = state_setting;
    for (size_t i = 0; args[i] != NULL && n < MAX_ARGS - 1; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
}

/* sbxctl ARGS to its end, stdin from `in` (NULL: /dev/null). */
static void ctl(sbx_test_run *run, const char *in, const char *const *args)
{
    sbx_test_sbxctl_local(run, state_setting, in, SBX_TEST_RUN_TIMEOUT_MS, args);
}

/* sbxctl ARGS running in the background: stdout a pipe, stderr the file
 * `err_path`, stdin a pipe when `with_stdin`. */
static void ctl_spawn(sbx_test_child *child, const char *err_path, int with_stdin,
                      const char *const *args)
{
    const char *argv[MAX_ARGS];
    with_state(argv, args);
    CU_ASSERT_EQUAL_FATAL(sbx_test_child_spawn(child, getenv("SBXCTL_BIN"), argv, err_path,
                                               with_stdin), 0);
}

static long deadline(void)
{
    return sbx_test_now_ms() + SBX_TEST_RUN_TIMEOUT_MS;
}

/* The next line of the child's stdout must be `expected`. */
static void expect_line(sbx_test_child *child, const char *expected)
{
    char line[4096];
    int rc = sbx_test_read_line(child->out_fd, line, sizeof line, deadline());
    CU_ASSERT_EQUAL(rc, 1);
    if (rc == 1) {
        CU_ASSERT_STRING_EQUAL(line, expected);
    }
}

static void write_text(int fd, const char *text)
{
    CU_ASSERT_EQUAL((size_t)write(fd, text, strlen(text)), strlen(text));
}

/* Whether the child is still running (not yet reapable). */
static int still_running(const sbx_test_child *child)
{
    siginfo_t info;
    memset(&info, 0, sizeof info);
    return waitid(P_PID, (id_t)child->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == 0;
}

/* A file's text, NUL-terminated, into `buf`. */
static void read_text_file(const char *path, char *buf, size_t cap)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return;
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* The id `exec -d` printed: its one line, without the newline. */
static void start_detached(const char *box, const char *const *command, int interactive,
                           char *pid, size_t cap)
{
    const char *args[MAX_ARGS] = {"exec", interactive ? "-di" : "-d", box, "--"};
    size_t n = 4;
    for (size_t i = 0; command[i] != NULL && n < MAX_ARGS - 1; i++)
        args[n++] = command[i];
    args[n] = NULL;
    sbx_test_run run;
    ctl(&run, NULL, args);
    CU_ASSERT_EQUAL_FATAL(run.exit_code, 0);
    CU_ASSERT_EQUAL_FATAL(sbx_test_count_lines(run.out), 1);
    snprintf(pid, cap, "%.*s", (int)strcspn(run.out, "\n"), run.out);
    CU_ASSERT(pid[0] != '\0');
    sbx_test_run_clear(&run);
}

/* `table` (ps's output) has a row for `pid` with that state and exit
 * columns (a started time between them) and a command starting with
 * `command`. */
static void assert_ps_row(const char *table, const char *pid, const char *state,
                          const char *exit_cell, const char *command)
{
    const char *line = table;
    size_t pid_len = strlen(pid);
    while (line != NULL && !(strncmp(line, pid, pid_len) == 0 && line[pid_len] == ' '))
        line = (line = strchr(line, '\n')) != NULL ? line + 1 : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(line);
    char id[256], got_state[32], started[64], got_exit[32];
    int used = 0;
    CU_ASSERT_EQUAL_FATAL(sscanf(line, "%255s %31s %63s %31s %n", id, got_state, started,
                                 got_exit, &used), 4);
    CU_ASSERT_STRING_EQUAL(got_state, state);
    CU_ASSERT_STRING_EQUAL(got_exit, exit_cell);
    CU_ASSERT_EQUAL(strlen(started), strlen("2026-12-06T21:50:00.000Z"));
    CU_ASSERT_EQUAL(strncmp(line + used, command, strlen(command)), 0);
}

/* Bad arguments of the new commands and flags: usage errors (exit 2)
 * naming what is at fault, before anything is asked of a backend. */
static void test_usage_errors(void)
{
    const struct {
        const char *const *args;
        const char *needle;
    } cases[] = {
        {ARGS("kill", "box", "p1", "NOSUCH"), "unknown signal 'NOSUCH'"},
        {ARGS("kill", "box", "p1", "65"), "signal '65' is not a number from 1 to 64"},
        {ARGS("kill", "box", "p1", "0"), "signal '0'"},
        {ARGS("kill", "box", "p1", "TERM", "extra"), "unexpected argument 'extra'"},
        {ARGS("logs", "box"), "command 'logs' needs a PID"},
        {ARGS("attach", "box"), "command 'attach' needs a PID"},
        {ARGS("ps"), "command 'ps' needs a sandbox ID"},
        {ARGS("--json", "exec", "-it", "box", "sh"), "'exec --interactive'"},
        {ARGS("--json", "attach", "box", "p1"), "option '--json' is not valid for 'attach'"},
        {ARGS("exec", "-ix", "box", "sh"), "unknown option '-ix'"},
        {ARGS("logs", "-i", "box", "p1"),
         "option '--interactive' is not valid for command 'logs'"},
        {ARGS("exec", "-f", "box", "sh"), "option '--follow' is not valid for command 'exec'"},
        {ARGS("-d", "exec", "box", "sh"), "option '--detach' must follow the command 'exec'"},
        {ARGS("shell", "-d", "box"), "option '--detach' is not valid for command 'shell'"},
        {ARGS("logs", "box", "bad\tpid"), "the PID of command 'logs'"},
    };
    sbx_test_run run;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ctl(&run, NULL, cases[i].args);
        sbx_test_assert_failure(&run, 2, "usage", cases[i].needle);
        sbx_test_run_clear(&run);
    }
    ctl(&run, NULL, ARGS("--json", "logs", "box", "p1"));
    json_object *o = sbx_test_assert_json_failure(&run, "usage");
    CU_ASSERT_PTR_NOT_NULL(o);
    json_object_put(o);
    sbx_test_run_clear(&run);
}

/* exec writes the command's output while it runs: the first line is on
 * sbxctl's stdout while the command still waits (on a FIFO the test
 * opens only once it saw that line). */
static void test_exec_streams_while_running(void)
{
    sbx_test_local_box(state_setting, "ctl-stream", 1);
    char fifo[4400];
    snprintf(fifo, sizeof fifo, "%s/ctl-stream/go", state_dir);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0666), 0);
    CU_ASSERT_EQUAL(chmod(fifo, 0666), 0);
    char err_path[4400];
    snprintf(err_path, sizeof err_path, "%s/stream.err", scratch);
    sbx_test_child child;
    ctl_spawn(&child, err_path, 0,
              ARGS("exec", "ctl-stream", "sh", "-c",
                   "echo first; echo warn >&2; read x < go; echo \"second $x\"; exit 4"));
    expect_line(&child, "first");
    CU_ASSERT(still_running(&child));
    /* Read-write: the open never blocks (a command that died would leave
     * a write-only open waiting for a reader), and the line stays in the
     * FIFO until the command reads it, as long as this end is open. */
    int fd = open(fifo, O_RDWR | O_CLOEXEC);
    CU_ASSERT_FATAL(fd >= 0);
    write_text(fd, "go\n");
    char rest[256];
    CU_ASSERT_EQUAL(sbx_test_child_finish(&child, 0, SBX_TEST_RUN_TIMEOUT_MS, rest, sizeof rest),
                    4);
    close(fd);
    CU_ASSERT_STRING_EQUAL(rest, "second go\n");
    char err[256];
    read_text_file(err_path, err, sizeof err);
    CU_ASSERT_STRING_EQUAL(err, "warn\n");
    sbx_test_local_box(state_setting, "ctl-stream", 0);
}

/* 128 MiB of output, far past the result's 1 MiB cap, reach sbxctl's stdout
 * whole, and sbxctl's peak memory stays far below what it passed on. */
#define BIG_OUTPUT_BYTES (128u << 20)
#define SBXCTL_RSS_BOUND_KIB (32 * 1024)

static void test_exec_streams_uncut_in_bounded_memory(void)
{
    sbx_test_local_box(state_setting, "ctl-big", 1);
    int out[2];
    CU_ASSERT_EQUAL_FATAL(pipe(out), 0);
    char count[32];
    snprintf(count, sizeof count, "%u", BIG_OUTPUT_BYTES);
    const char *argv[MAX_ARGS] = {getenv("SBXCTL_BIN")};
    with_state(argv + 1, ARGS("exec", "ctl-big", "head", "-c", count, "/dev/zero"));
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        dup2(out[1], STDOUT_FILENO);
        close(out[0]);
        close(out[1]);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(out[1]);
    uint64_t received = 0, altered = 0;
    char chunk[65536];
    long until = deadline();
    while (sbx_test_wait_readable(out[0], until) == 1) {
        ssize_t n = read(out[0], chunk, sizeof chunk);
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++)
            altered += chunk[i] != 0;
        received += (uint64_t)n;
    }
    close(out[0]);
    int status = 0;
    struct rusage usage;
    CU_ASSERT_EQUAL(wait4(pid, &status, 0, &usage), pid);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CU_ASSERT_EQUAL(received, BIG_OUTPUT_BYTES);
    CU_ASSERT_EQUAL(altered, 0);
    if (SBX_TEST_MEMORY_FIGURES_HOLD) {
        CU_ASSERT(usage.ru_maxrss < SBXCTL_RSS_BOUND_KIB);
    }
    sbx_test_local_box(state_setting, "ctl-big", 0);
}

/* exec -i: each line typed reaches the command as it comes (the answer to
 * the first is read before the second is written); the end of sbxctl's
 * stdin is the command's end of file; the exit code is the command's. */
static void test_exec_interactive(void)
{
    sbx_test_local_box(state_setting, "ctl-i", 1);
    char err_path[4400];
    snprintf(err_path, sizeof err_path, "%s/i.err", scratch);
    sbx_test_child child;
    ctl_spawn(&child, err_path, 1,
              ARGS("exec", "-i", "ctl-i", "sh", "-c",
                   "read a; echo \"got $a\"; read b; echo \"got $b\"; cat; echo eof; exit 3"));
    write_text(child.in_fd, "one\n");
    expect_line(&child, "got one");
    CU_ASSERT(still_running(&child));
    write_text(child.in_fd, "two\nrest\n");
    expect_line(&child, "got two");
    expect_line(&child, "rest");
    close(child.in_fd);
    child.in_fd = -1;
    char rest[256];
    CU_ASSERT_EQUAL(sbx_test_child_finish(&child, 0, SBX_TEST_RUN_TIMEOUT_MS, rest, sizeof rest),
                    3);
    CU_ASSERT_STRING_EQUAL(rest, "eof\n");

    /* The foreground process is forgotten once it ended. */
    sbx_test_run run;
    ctl(&run, NULL, ARGS("--json", "ps", "ctl-i"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    json_object *o = sbx_test_run_json(&run);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_EQUAL(sbx_test_json_int(o, "count", -1), 0);
    json_object_put(o);
    sbx_test_run_clear(&run);

    /* A SIGTERM to sbxctl goes to the command, whose end ends sbxctl. */
    ctl_spawn(&child, err_path, 1, ARGS("exec", "-i", "ctl-i", "sh", "-c", "echo ready; cat"));
    expect_line(&child, "ready");
    CU_ASSERT_EQUAL(sbx_test_child_finish(&child, SIGTERM, SBX_TEST_RUN_TIMEOUT_MS, NULL, 0),
                    128 + SIGTERM);
    char err[512];
    read_text_file(err_path, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "sbxctl: the command was killed by signal 15"));
    sbx_test_local_box(state_setting, "ctl-i", 0);
}

/* A child on a new terminal (its controlling one), the test holding the
 * master side and a descriptor of the terminal to look at its modes. */
typedef struct pty_child {
    pid_t pid;
    int pidfd;
    int master;
    int slave;
    char seen[16384];
    size_t seen_len;
    size_t mark;        /* where the next expectation starts looking */
} pty_child;

static void pty_spawn(pty_child *c, unsigned short rows, unsigned short cols,
                      const char *const *args)
{
    memset(c, 0, sizeof *c);
    struct winsize size = {rows, cols, 0, 0};
    CU_ASSERT_EQUAL_FATAL(openpty(&c->master, &c->slave, NULL, NULL, &size), 0);
    const char *argv[MAX_ARGS] = {getenv("SBXCTL_BIN")};
    with_state(argv + 1, args);
    c->pid = fork();
    CU_ASSERT_FATAL(c->pid >= 0);
    if (c->pid == 0) {
        setsid();
        ioctl(c->slave, TIOCSCTTY, 0);
        dup2(c->slave, STDIN_FILENO);
        dup2(c->slave, STDOUT_FILENO);
        dup2(c->slave, STDERR_FILENO);
        close(c->master);
        close(c->slave);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
    CU_ASSERT_FATAL(c->pidfd >= 0);
}

/* Read the terminal's output until it holds `needle` after the previous
 * expectation's match (1), or the deadline passes or the child ends first
 * (0). */
static int pty_expect(pty_child *c, const char *needle)
{
    long until = deadline();
    for (;;) {
        const char *found = strstr(c->seen + c->mark, needle);
        if (found != NULL) {
            c->mark = (size_t)(found - c->seen) + strlen(needle);
            return 1;
        }
        struct pollfd fds[2] = {{c->master, POLLIN, 0}, {c->pidfd, POLLIN, 0}};
        long left = until - sbx_test_now_ms();
        if (left <= 0 || poll(fds, 2, (int)left) <= 0)
            break;
        if ((fds[0].revents & POLLIN) == 0) {
            if (fds[1].revents != 0)
                break;
            continue;
        }
        ssize_t n = read(c->master, c->seen + c->seen_len, sizeof c->seen - 1 - c->seen_len);
        if (n <= 0)
            break;
        c->seen_len += (size_t)n;
        c->seen[c->seen_len] = '\0';
    }
    fprintf(stderr, "terminal: no '%s' in: %s\n", needle, c->seen);
    return 0;
}

/* Wait for the child's end (its pidfd readable), draining the terminal. */
static int pty_finish(pty_child *c)
{
    long until = deadline();
    int status = -1;
    for (;;) {
        struct pollfd fds[2] = {{c->master, POLLIN, 0}, {c->pidfd, POLLIN, 0}};
        long left = until - sbx_test_now_ms();
        if (left <= 0 || poll(fds, 2, (int)left) <= 0) {
            kill(c->pid, SIGKILL);
            break;
        }
        if (fds[0].revents & POLLIN) {
            char sink[4096];
            if (read(c->master, sink, sizeof sink) <= 0)
                fds[1].revents = POLLIN;
        }
        if (fds[1].revents != 0)
            break;
    }
    int wstatus = 0;
    if (waitpid(c->pid, &wstatus, 0) == c->pid && WIFEXITED(wstatus))
        status = WEXITSTATUS(wstatus);
    close(c->pidfd);
    return status;
}

/* exec -it: the command runs on a terminal of sbxctl's size, which
 * follows a resize; sbxctl's terminal is raw while it runs (keys go to the
 * command's) and as it was afterwards; the exit code is the command's. */
static void test_exec_terminal(void)
{
    sbx_test_local_box(state_setting, "ctl-tty", 1);
    pty_child c;
    struct termios before, during, after;
    pty_spawn(&c, 31, 101,
              ARGS("exec", "-it", "ctl-tty", "--", "sh", "-c",
                   "test -t 0 && echo on-a-terminal; stty size; echo ready; read x; stty size; "
                   "echo \"x=$x\"; exit 7"));
    CU_ASSERT_EQUAL(tcgetattr(c.slave, &before), 0);
    CU_ASSERT(pty_expect(&c, "on-a-terminal"));
    CU_ASSERT(pty_expect(&c, "31 101"));
    CU_ASSERT(pty_expect(&c, "ready"));
    CU_ASSERT_EQUAL(tcgetattr(c.slave, &during), 0);
    CU_ASSERT_EQUAL(during.c_lflag & (ICANON | ECHO | ISIG), 0);
    struct winsize bigger = {42, 123, 0, 0};
    CU_ASSERT_EQUAL(ioctl(c.master, TIOCSWINSZ, &bigger), 0);
    write_text(c.master, "hello\n");
    CU_ASSERT(pty_expect(&c, "42 123"));
    CU_ASSERT(pty_expect(&c, "x=hello"));
    CU_ASSERT_EQUAL(pty_finish(&c), 7);
    CU_ASSERT_EQUAL(tcgetattr(c.slave, &after), 0);
    CU_ASSERT_EQUAL(after.c_lflag, before.c_lflag);
    CU_ASSERT_EQUAL(after.c_iflag, before.c_iflag);
    CU_ASSERT_EQUAL(after.c_oflag, before.c_oflag);
    close(c.master);
    close(c.slave);

    /* An interactive shell: typed commands run, Ctrl-C goes to the
     * command's terminal (not sbxctl), and `exit` ends it all. */
    pty_spawn(&c, 24, 80, ARGS("exec", "-it", "ctl-tty", "--", "sh", "-i"));
    write_text(c.master, "echo sum-$((40+2))\n");
    CU_ASSERT(pty_expect(&c, "sum-42"));
    /* Ctrl-C once the command runs in the foreground (it printed), and
     * type on once the shell's prompt is back: what is typed before it is
     * discarded, as on any terminal. */
    write_text(c.master, "sh -c 'echo in-$((2+3)); exec sleep 1000'\n");
    CU_ASSERT(pty_expect(&c, "in-5"));
    write_text(c.master, "\003");
    CU_ASSERT(pty_expect(&c, "^C"));
    CU_ASSERT(pty_expect(&c, "$ "));
    write_text(c.master, "echo after-$((1+1))\n");
    CU_ASSERT(pty_expect(&c, "after-2"));
    write_text(c.master, "exit 5\n");
    CU_ASSERT_EQUAL(pty_finish(&c), 5);
    CU_ASSERT_EQUAL(tcgetattr(c.slave, &after), 0);
    CU_ASSERT_EQUAL(after.c_lflag, before.c_lflag);
    close(c.master);
    close(c.slave);
    sbx_test_local_box(state_setting, "ctl-tty", 0);
}

/* exec -d prints the id and leaves the command running; ps lists it; attach
 * shows its output and passes stdin; logs shows it all afterwards, stdout
 * and stderr apart; ps says how it ended. */
static void test_detach_ps_attach_logs(void)
{
    sbx_test_local_box(state_setting, "ctl-d", 1);
    char pid[256];
    start_detached("ctl-d", ARGS("sh", "-c", "echo out1; echo err1 >&2; read x; "
                                 "echo \"got $x\"; exit 5"),
                   1, pid, sizeof pid);

    sbx_test_run run;
    ctl(&run, NULL, ARGS("ps", "ctl-d"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_EQUAL(strncmp(run.out, "PROCESS_ID  STATE    STARTED", 28), 0);
    assert_ps_row(run.out, pid, "running", "-", "sh -c echo out1;");
    sbx_test_run_clear(&run);

    char err_path[4400];
    snprintf(err_path, sizeof err_path, "%s/attach.err", scratch);
    sbx_test_child child;
    ctl_spawn(&child, err_path, 1, ARGS("attach", "ctl-d", pid));
    expect_line(&child, "out1");
    write_text(child.in_fd, "hello\n");
    expect_line(&child, "got hello");
    CU_ASSERT_EQUAL(sbx_test_child_finish(&child, 0, SBX_TEST_RUN_TIMEOUT_MS, NULL, 0), 5);
    char err[512];
    read_text_file(err_path, err, sizeof err);
    CU_ASSERT_STRING_EQUAL(err, "err1\n");

    ctl(&run, NULL, ARGS("logs", "ctl-d", pid));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_STRING_EQUAL(run.out, "out1\ngot hello\n");
    CU_ASSERT_STRING_EQUAL(run.err, "err1\n");
    sbx_test_run_clear(&run);
    ctl(&run, NULL, ARGS("logs", "-f", "ctl-d", pid));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_STRING_EQUAL(run.out, "out1\ngot hello\n");
    sbx_test_run_clear(&run);

    ctl(&run, NULL, ARGS("--json", "ps", "ctl-d"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    json_object *o = sbx_test_run_json(&run);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    sbx_test_assert_json_string(o, "sandbox_id", "ctl-d");
    CU_ASSERT_EQUAL(sbx_test_json_int(o, "count", -1), 1);
    json_object *list = NULL;
    CU_ASSERT(json_object_object_get_ex(o, "processes", &list));
    json_object *p = json_object_array_get_idx(list, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    sbx_test_assert_json_string(p, "process_id", pid);
    sbx_test_assert_json_string(p, "state", "ended");
    sbx_test_assert_json_string(p, "outcome", "exited");
    CU_ASSERT_EQUAL(sbx_test_json_int(p, "exit_code", -1), 5);
    CU_ASSERT(sbx_test_json_is_null(p, "signal"));
    CU_ASSERT_PTR_NOT_NULL(sbx_test_json_string(p, "started_at"));
    CU_ASSERT_PTR_NOT_NULL(sbx_test_json_string(p, "ended_at"));
    json_object *argv = NULL;
    CU_ASSERT(json_object_object_get_ex(p, "argv", &argv));
    CU_ASSERT_EQUAL(json_object_array_length(argv), 3);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(argv, 0)), "sh");
    json_object_put(o);
    sbx_test_run_clear(&run);

    /* exec -d --json: the id as JSON. */
    ctl(&run, NULL, ARGS("--json", "exec", "-d", "ctl-d", "true"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    o = sbx_test_run_json(&run);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    sbx_test_assert_json_string(o, "sandbox_id", "ctl-d");
    CU_ASSERT_PTR_NOT_NULL(sbx_test_json_string(o, "process_id"));
    json_object_put(o);
    sbx_test_run_clear(&run);
    sbx_test_local_box(state_setting, "ctl-d", 0);
}

/* logs -f follows a running process until it ends; kill ends it (by
 * name, SIGKILL by number), ps says which signal did. */
static void test_logs_follow_and_kill(void)
{
    sbx_test_local_box(state_setting, "ctl-k", 1);
    char pid[256];
    start_detached("ctl-k", ARGS("sh", "-c", "echo up; exec sleep 1000"), 0, pid, sizeof pid);
    char err_path[4400];
    snprintf(err_path, sizeof err_path, "%s/follow.err", scratch);
    sbx_test_child child;
    ctl_spawn(&child, err_path, 0, ARGS("logs", "-f", "ctl-k", pid));
    expect_line(&child, "up");
    CU_ASSERT(still_running(&child));
    sbx_test_run run;
    ctl(&run, NULL, ARGS("kill", "ctl-k", pid));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_EQUAL(run.out_len, 0);
    sbx_test_run_clear(&run);
    char rest[64];
    CU_ASSERT_EQUAL(sbx_test_child_finish(&child, 0, SBX_TEST_RUN_TIMEOUT_MS, rest, sizeof rest),
                    0);
    CU_ASSERT_STRING_EQUAL(rest, "");
    ctl(&run, NULL, ARGS("ps", "ctl-k"));
    assert_ps_row(run.out, pid, "ended", "SIGTERM", "sh -c echo up; exec sleep 1000");
    sbx_test_run_clear(&run);

    start_detached("ctl-k", ARGS("sleep", "1000"), 0, pid, sizeof pid);
    ctl(&run, NULL, ARGS("--json", "kill", "ctl-k", pid, "9"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    json_object *o = sbx_test_run_json(&run);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    sbx_test_assert_json_string(o, "process_id", pid);
    CU_ASSERT_EQUAL(sbx_test_json_int(o, "signal", -1), 9);
    json_object_put(o);
    sbx_test_run_clear(&run);
    ctl(&run, NULL, ARGS("attach", "ctl-k", pid));
    CU_ASSERT_EQUAL(run.exit_code, 128 + 9);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "sbxctl: the command was killed by signal 9"));
    sbx_test_run_clear(&run);

    start_detached("ctl-k", ARGS("sleep", "1000"), 0, pid, sizeof pid);
    ctl(&run, NULL, ARGS("kill", "ctl-k", pid, "sigint"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    sbx_test_run_clear(&run);
    ctl(&run, NULL, ARGS("logs", "--follow", "ctl-k", pid));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    sbx_test_run_clear(&run);
    ctl(&run, NULL, ARGS("--json", "ps", "ctl-k"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "\"signal\":2"));
    sbx_test_run_clear(&run);
    sbx_test_local_box(state_setting, "ctl-k", 0);
}

/* An unknown process is exit 16 for each command that names one; an
 * unknown sandbox is 1. */
static void test_unknown_process(void)
{
    sbx_test_local_box(state_setting, "ctl-u", 1);
    const char *const *cases[] = {
        ARGS("logs", "ctl-u", "no-such-process"),
        ARGS("logs", "-f", "ctl-u", "no-such-process"),
        ARGS("kill", "ctl-u", "no-such-process", "KILL"),
        ARGS("attach", "ctl-u", "no-such-process"),
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sbx_test_run run;
        ctl(&run, NULL, cases[i]);
        sbx_test_assert_failure(&run, 16, "no_such_process", "no-such-process");
        sbx_test_run_clear(&run);
    }
    sbx_test_run run;
    ctl(&run, NULL, ARGS("ps", "ctl-absent"));
    sbx_test_assert_failure(&run, 1, "not_found", "ctl-absent");
    sbx_test_run_clear(&run);
    ctl(&run, NULL, ARGS("exec", "-d", "ctl-absent", "true"));
    sbx_test_assert_failure(&run, 1, "not_found", "ctl-absent");
    sbx_test_run_clear(&run);
    sbx_test_local_box(state_setting, "ctl-u", 0);
}

/* shell: cd and export carry over from line to line; each result comes
 * as its own JSON line; a timed-out command does not end the script; the
 * exit code is the last command's. */
static void test_shell(void)
{
    sbx_test_local_box(state_setting, "ctl-sh", 1);
    char script[4400];
    snprintf(script, sizeof script, "%s/script.sh", scratch);
    FILE *f = fopen(script, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("mkdir -p sub && cd sub\nexport GREETING=hi\n\necho \"$GREETING ${PWD##*/}\"\n"
          "echo oops >&2; false\n", f);
    fclose(f);
    sbx_test_run run;
    ctl(&run, script, ARGS("shell", "ctl-sh"));
    CU_ASSERT_EQUAL(run.exit_code, 1);
    CU_ASSERT_STRING_EQUAL(run.out, "hi sub\n");
    CU_ASSERT_STRING_EQUAL(run.err, "oops\n");
    sbx_test_run_clear(&run);

    ctl(&run, script, ARGS("--json", "shell", "ctl-sh"));
    CU_ASSERT_EQUAL(run.exit_code, 1);
    CU_ASSERT_EQUAL(sbx_test_count_lines(run.out), 4);
    const char *line = run.out;
    for (int i = 0; i < 4 && line != NULL; i++) {
        const char *end = strchr(line, '\n');
        char *text = strndup(line, (size_t)(end - line));
        json_object *o = json_tokener_parse(text);
        CU_ASSERT_PTR_NOT_NULL_FATAL(o);
        if (i == 2) {
            sbx_test_assert_json_string(o, "command", "echo \"$GREETING ${PWD##*/}\"");
            sbx_test_assert_json_string(o, "stdout", "hi sub\n");
            CU_ASSERT_EQUAL(sbx_test_json_int(o, "exit_code", -1), 0);
        }
        if (i == 3) {
            sbx_test_assert_json_string(o, "stderr", "oops\n");
            CU_ASSERT_EQUAL(sbx_test_json_int(o, "exit_code", -1), 1);
            CU_ASSERT_FALSE(sbx_test_json_true(o, "timed_out"));
        }
        json_object_put(o);
        free(text);
        line = end + 1;
    }
    sbx_test_run_clear(&run);

    f = fopen(script, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("export KEPT=yes\nsleep 1000\necho \"kept=$KEPT\"\n", f);
    fclose(f);
    ctl(&run, script, ARGS("shell", "--timeout", "0.5", "ctl-sh"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_STRING_EQUAL(run.out, "kept=yes\n");
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "sbxctl: the command timed out and was interrupted"));
    sbx_test_run_clear(&run);

    ctl(&run, script, ARGS("shell", "ctl-absent"));
    sbx_test_assert_failure(&run, 1, "not_found", "ctl-absent");
    sbx_test_run_clear(&run);
    sbx_test_local_box(state_setting, "ctl-sh", 0);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"the new commands' usage errors", test_usage_errors},
        {"exec streams while the command runs", test_exec_streams_while_running},
        {"exec streams uncut in bounded memory", test_exec_streams_uncut_in_bounded_memory},
        {"exec -i passes stdin as it comes", test_exec_interactive},
        {"exec -t and -it give a terminal", test_exec_terminal},
        {"exec -d, ps, attach, logs", test_detach_ps_attach_logs},
        {"logs -f and kill", test_logs_follow_and_kill},
        {"an unknown process is exit 16", test_unknown_process},
        {"shell keeps cd and export", test_shell},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("sbxctl processes (local)", setup, teardown, tests);
}
