/*
 * The local backend's live processes (ABI 1.4) as only local can show
 * them, watched from the host (isolation=none, so that the processes'
 * pids are the host's): a signal to the group leaves no grandchild; destroy
 * leaves no process, not even a zombie, and no state; the process limit;
 * the state a process keeps stays bounded whatever it prints; ids are never
 * reused; a host killed in a read or a start leaves nothing another host
 * cannot read or destroy.  The backend-independent cases are in
 * tests/backend-contract/process_cases.c.
 */
#include <config.h>

#include "tests/backend-contract/process_calls.h"
#include "tests/local-backend/local_fixture.h"
#include "tests/support/backend_calls.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/scratch_dir.h"

#include <CUnit/CUnit.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct fixture {
    char state_dir[PATH_MAX];
    sbx_host *host;
    sbx_backend *backend;
} fixture;

/* A backend on a fresh state directory (isolation `isolation`, plus
 * `extra` options) with sandbox "procs". */
static void fixture_setup_as(fixture *f, const char *tag, const char *isolation,
                             const sbx_option *extra, size_t count)
{
    sbx_local_test_make_dir(f->state_dir, sizeof f->state_dir, tag);
    f->host = sbx_local_test_new_host(NULL, NULL);
    sbx_option opts[4] = { { "state_dir", f->state_dir }, { "isolation", isolation } };
    for (size_t i = 0; i < count && i < 2; i++)
        opts[2 + i] = extra[i];
    f->backend = sbx_local_test_open(f->host, opts, 2 + (count < 2 ? count : 2));
    sbx_error err;
    sbx_sandbox *sb = sbx_test_create(f->backend, "procs", NULL, NULL, &err);
    CU_ASSERT_FATAL(sb != NULL);
    sbx_backend_free_sandboxes(f->backend, sb, 1);
}

/* fixture_setup_as with isolation=none. */
static void fixture_setup(fixture *f, const char *tag, const sbx_option *extra, size_t count)
{
    fixture_setup_as(f, tag, "none", extra, count);
}

static void fixture_teardown(fixture *f)
{
    sbx_error err;
    CU_ASSERT(sbx_backend_destroy(f->backend, "procs", &err) == SBX_OK);
    sbx_backend_close(f->backend);
    sbx_host_free(f->host);
    sbx_test_remove_tree(f->state_dir);
}

/* The pids a process printed as "pid pid ...\n" (at most `max`). */
static size_t read_pids(fixture *f, const char *id, long *pids, size_t max)
{
    proc_collected got = { 0 };
    CU_ASSERT_FATAL(proc_test_read_until(f->backend, "procs", id, &got, "\n"));
    size_t n = 0;
    char *at = got.out;
    while (n < max) {
        char *end;
        long pid = strtol(at, &end, 10);
        if (end == at)
            break;
        pids[n++] = pid;
        at = end;
    }
    return n;
}

/* 1 when no process of pid `pid` exists, not even a zombie. */
static int no_such_pid(long pid)
{
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* SIGTERM to the group: the shell and both its children end. */
static void test_a_signal_leaves_no_grandchild(void)
{
    fixture f;
    fixture_setup(&f, "procs signal", NULL, 0);
    char id[SBX_PROCESS_ID_MAX + 1];
    proc_test_start_shell(f.backend, "procs", "sleep 1000 & a=$!; sleep 1000 & echo $a $! $$; wait",
                          NULL, id);
    long pids[3];
    CU_ASSERT_EQUAL_FATAL(read_pids(&f, id, pids, 3), 3);
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_process_signal(f.backend, "procs", id, SIGTERM, &err), SBX_OK);
    sbx_process_info *info = proc_test_wait_end(f.backend, "procs", id);
    CU_ASSERT_EQUAL(info->outcome, SBX_EXEC_SIGNALED);
    CU_ASSERT_EQUAL(info->term_signal, SIGTERM);
    sbx_backend_free_processes(f.backend, info);
    /* Ended means every process of it was reaped. */
    for (int i = 0; i < 3; i++)
        CU_ASSERT(no_such_pid(pids[i]));
    fixture_teardown(&f);
}

/* A signal sent at once after the start, before the command can have
 * made its process group, still ends it (it was lost 2 times in 15
 * before the start waited for the watcher's notice), `rounds` times. */
static void signal_right_after_the_start(fixture *f, int rounds)
{
    for (int i = 0; i < rounds; i++) {
        char id[SBX_PROCESS_ID_MAX + 1];
        proc_test_start_shell(f->backend, "procs", "sleep 1000", NULL, id);
        sbx_error err;
        CU_ASSERT_EQUAL(sbx_backend_process_signal(f->backend, "procs", id, SIGTERM, &err),
                        SBX_OK);
        sbx_process_info *info = proc_test_wait_end(f->backend, "procs", id);
        CU_ASSERT_EQUAL(info->outcome, SBX_EXEC_SIGNALED);
        CU_ASSERT_EQUAL(info->term_signal, SIGTERM);
        sbx_backend_free_processes(f->backend, info);
        CU_ASSERT_EQUAL(sbx_backend_process_forget(f->backend, "procs", id, &err), SBX_OK);
    }
}

static void test_a_signal_right_after_the_start_is_not_lost(void)
{
    fixture f;
    fixture_setup(&f, "procs early signal", NULL, 0);
    signal_right_after_the_start(&f, 20);
    fixture_teardown(&f);
}

/* The same through an isolated exec's init (isolation=namespaces), where
 * the kernel allows it. */
static void test_an_isolated_signal_right_after_the_start(void)
{
    if (!sbx_local_test_namespaces_allowed())
        return;
    fixture f;
    fixture_setup_as(&f, "procs early signal iso", "namespaces", NULL, 0);
    signal_right_after_the_start(&f, 5);
    fixture_teardown(&f);
}

/* Destroy with processes running (one with a child that ignores SIGTERM,
 * one that left a zombie) ends them all and removes their state. */
static void test_destroy_leaves_no_process(void)
{
    fixture f;
    fixture_setup(&f, "procs destroy", NULL, 0);
    const char *texts[] = {
        "sleep 1000 & echo $! $$; wait",
        "sh -c 'trap \"\" TERM; echo $$; exec sleep 1000' & wait",
        "sleep 0 & z=$!; echo $z $$; exec sleep 1000",
    };
    long pids[8];
    size_t n = 0;
    for (size_t i = 0; i < 3; i++) {
        char id[SBX_PROCESS_ID_MAX + 1];
        proc_test_start_shell(f.backend, "procs", texts[i], NULL, id);
        n += read_pids(&f, id, pids + n, 8 - n);
    }
    CU_ASSERT_EQUAL(n, 5);
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_destroy(f.backend, "procs", &err), SBX_OK);
    for (size_t i = 0; i < n; i++)
        CU_ASSERT(no_such_pid(pids[i]));
    char state[PATH_MAX + 16];
    snprintf(state, sizeof state, "%s/.procs.procs", f.state_dir);
    CU_ASSERT_FALSE(sbx_local_test_path_exists(state));
    CU_ASSERT_EQUAL(sbx_local_test_count_entries(f.state_dir), 0);
    sbx_backend_close(f.backend);
    sbx_host_free(f.host);
    sbx_test_remove_tree(f.state_dir);
}

/* max_processes running at once; a start beyond is refused naming the
 * limit; once one ended, a start is served again. */
static void test_the_process_limit_refuses_with_its_name(void)
{
    sbx_option limit = { "max_processes", "3" };
    fixture f;
    fixture_setup(&f, "procs limit", &limit, 1);
    char ids[3][SBX_PROCESS_ID_MAX + 1];
    for (int i = 0; i < 3; i++)
        proc_test_start_shell(f.backend, "procs", "exec sleep 1000", NULL, ids[i]);
    sbx_process_request r = SBX_PROCESS_REQUEST_INIT;
    r.shell_command = "echo too many";
    sbx_process_info *info = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_process_start(f.backend, "procs", &r, &info, &err),
                    SBX_ERR_REFUSED);
    CU_ASSERT_PTR_NULL(info);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "max_processes"));
    sbx_operations_info ops = { .struct_size = sizeof ops };
    CU_ASSERT_EQUAL(sbx_backend_operations_info(f.backend, &ops, &err), SBX_OK);
    CU_ASSERT_EQUAL(ops.max_processes, 3);
    CU_ASSERT(ops.operations & SBX_OP_PROCESS_SIGNALS);
    CU_ASSERT(ops.operations & SBX_OP_PROCESS_STDIN_CLOSE);
    CU_ASSERT_EQUAL(sbx_backend_process_signal(f.backend, "procs", ids[0], SIGKILL, &err),
                    SBX_OK);
    info = proc_test_wait_end(f.backend, "procs", ids[0]);
    sbx_backend_free_processes(f.backend, info);
    char again[SBX_PROCESS_ID_MAX + 1];
    proc_test_start_shell(f.backend, "procs", "echo served", NULL, again);
    fixture_teardown(&f);
}

/* Ended processes are kept up to max_processes: a start forgets the
 * oldest beyond. */
static void test_ended_ones_are_kept_up_to_the_limit(void)
{
    sbx_option limit = { "max_processes", "2" };
    fixture f;
    fixture_setup(&f, "procs kept", &limit, 1);
    char ids[4][SBX_PROCESS_ID_MAX + 1];
    for (int i = 0; i < 4; i++) {
        proc_test_start_shell(f.backend, "procs", i < 3 ? "true" : "exec sleep 1000", NULL,
                              ids[i]);
        if (i < 3)
            sbx_backend_free_processes(f.backend,
                                       proc_test_wait_end(f.backend, "procs", ids[i]));
    }
    sbx_process_info *list = NULL;
    size_t count = 0;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_process_list(f.backend, "procs", &list, &count, &err), SBX_OK);
    CU_ASSERT_EQUAL(count, 3);
    if (list != NULL)
        CU_ASSERT_STRING_EQUAL(list->process_id, ids[1]);  /* oldest first */
    sbx_backend_free_processes(f.backend, list);
    sbx_process_info *info = NULL;
    CU_ASSERT_EQUAL(sbx_backend_process_wait(f.backend, "procs", ids[0], 0, &info, &err),
                    SBX_ERR_NO_SUCH_PROCESS);
    sbx_backend_free_processes(f.backend, info);
    fixture_teardown(&f);
}

/* Whatever a process prints, its state is its buffer and a header. */
static void test_state_stays_bounded(void)
{
    fixture f;
    fixture_setup(&f, "procs bounded", NULL, 0);
    sbx_process_request r = SBX_PROCESS_REQUEST_INIT;
    r.buffer_bytes = 65536;
    char id[SBX_PROCESS_ID_MAX + 1];
    proc_test_start_shell(f.backend, "procs", "head -c 8388608 /dev/zero; echo end >&2", &r, id);
    sbx_process_info *info = proc_test_wait_end(f.backend, "procs", id);
    CU_ASSERT_EQUAL(info->exit_code, 0);
    sbx_backend_free_processes(f.backend, info);
    char output[PATH_MAX + SBX_PROCESS_ID_MAX + 64];
    snprintf(output, sizeof output, "%s/.procs.procs/%s/output", f.state_dir, id);
    struct stat sb;
    CU_ASSERT_EQUAL_FATAL(stat(output, &sb), 0);
    CU_ASSERT((uint64_t)sb.st_blocks * 512 <= 2 * 65536 + 65536);
    proc_collected got = { 0 };
    CU_ASSERT(proc_test_read_until(f.backend, "procs", id, &got, NULL));
    CU_ASSERT_EQUAL(got.dropped_out, 8388608 - 65536);
    CU_ASSERT_EQUAL(got.dropped_err, 0);
    CU_ASSERT_EQUAL(got.err_len, 4);
    fixture_teardown(&f);
}

/* A forgotten id is never given again; another sandbox's ids are its own. */
static void test_ids_are_never_reused(void)
{
    fixture f;
    fixture_setup(&f, "procs ids", NULL, 0);
    char first[SBX_PROCESS_ID_MAX + 1], second[SBX_PROCESS_ID_MAX + 1];
    proc_test_start_shell(f.backend, "procs", "true", NULL, first);
    sbx_process_info *info = proc_test_wait_end(f.backend, "procs", first);
    sbx_backend_free_processes(f.backend, info);
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_process_forget(f.backend, "procs", first, &err), SBX_OK);
    proc_test_start_shell(f.backend, "procs", "true", NULL, second);
    CU_ASSERT_STRING_NOT_EQUAL(first, second);
    info = NULL;
    CU_ASSERT_EQUAL(sbx_backend_process_wait(f.backend, "procs", first, 0, &info, &err),
                    SBX_ERR_NO_SUCH_PROCESS);
    sbx_backend_free_processes(f.backend, info);
    fixture_teardown(&f);
}

/* On a terminal, `tty` names it (isolation=none: the host's /dev/pts is
 * the process's). */
static void test_tty_names_the_terminal(void)
{
    fixture f;
    fixture_setup(&f, "procs tty", NULL, 0);
    sbx_process_request r = SBX_PROCESS_REQUEST_INIT;
    r.pty = 1;
    r.rows = 10;
    r.cols = 40;
    char id[SBX_PROCESS_ID_MAX + 1];
    proc_test_start_shell(f.backend, "procs", "tty; stty size", &r, id);
    proc_collected got = { 0 };
    CU_ASSERT(proc_test_read_until(f.backend, "procs", id, &got, NULL));
    CU_ASSERT_EQUAL(got.exit_code, 0);
    CU_ASSERT_NSTRING_EQUAL(got.out, "/dev/pts/", 9);
    CU_ASSERT_PTR_NOT_NULL(strstr(got.out, "10 40"));
    fixture_teardown(&f);
}

/* An argv is run as given, and the info shows it word by word. */
static void test_an_argv_runs_as_given(void)
{
    fixture f;
    fixture_setup(&f, "procs argv", NULL, 0);
    static const char *const argv[] = { "printf", "%s|", "a b", "'c'", NULL };
    sbx_process_request r = SBX_PROCESS_REQUEST_INIT;
    r.argv = argv;
    sbx_process_info *info = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_process_start(f.backend, "procs", &r, &info, &err),
                          SBX_OK);
    for (size_t i = 0; i < 4; i++)
        CU_ASSERT_STRING_EQUAL(info->argv[i], argv[i]);
    CU_ASSERT_PTR_NULL(info->argv[4]);
    char id[SBX_PROCESS_ID_MAX + 1];
    snprintf(id, sizeof id, "%s", info->process_id);
    sbx_backend_free_processes(f.backend, info);
    proc_collected got = { 0 };
    CU_ASSERT(proc_test_read_until(f.backend, "procs", id, &got, NULL));
    CU_ASSERT_STRING_EQUAL(got.out, "a b|'c'|");
    fixture_teardown(&f);
}

/* ---- a host killed in the middle of a process call
 * The killed host is a forked child of the test with a host and backend
 * of its own; it tells the test where it is through a pipe.  The test is
 * a subreaper meanwhile, so that the supervisors, which detach from the
 * host that started them, are its descendants: once destroy returned,
 * every one of them must have ended (reaped here: none left running, none
 * a zombie). */

/* What the killed host tells the test: the id and the cursor of its
 * process (after its first line), then that it reads (or starts) again. */
typedef struct host_news {
    char id[SBX_PROCESS_ID_MAX + 1];
    sbx_process_cursor cursor;
    int starts;         /* starts done so far (the start case) */
} host_news;

/* In the killed host: a backend of its own on `state_dir`. */
static sbx_backend *second_backend(const char *state_dir, sbx_host **host)
{
    *host = sbx_local_test_new_host(NULL, NULL);
    sbx_option opts[2] = { { "state_dir", state_dir }, { "isolation", "none" } };
    return sbx_local_test_open(*host, opts, 2);
}

/* The killed host of the read case: start a process that prints a line
 * and then waits for its stdin, read the line, tell the test, then block
 * in a read until it is killed. */
_Noreturn static void host_blocked_in_read(const char *state_dir, int news_fd)
{
    sbx_host *host;
    sbx_backend *b = second_backend(state_dir, &host);
    sbx_process_request r = SBX_PROCESS_REQUEST_INIT;
    r.shell_command = "echo one; read x; echo two $x";
    r.stdin_open = 1;
    sbx_process_info *info = NULL;
    sbx_error err;
    if (b == NULL || sbx_backend_process_start(b, "procs", &r, &info, &err) != SBX_OK)
        _exit(1);
    host_news news = { { 0 }, { 0, 0 }, 0 };
    snprintf(news.id, sizeof news.id, "%s", info->process_id);
    proc_collected got = { 0 };
    if (!proc_test_read_until(b, "procs", news.id, &got, "one\n"))
        _exit(1);
    news.cursor = got.cursor;
    if (write(news_fd, &news, sizeof news) != (ssize_t)sizeof news)
        _exit(1);
    for (;;)
        proc_test_read_once(b, "procs", news.id, &got, PROC_TEST_SLICE_MS, SBX_PROCESS_DEFAULT);
}

/* The killed host of the start case: start processes one after another,
 * telling the test before each start. */
_Noreturn static void host_starting(const char *state_dir, int news_fd)
{
    sbx_host *host;
    sbx_backend *b = second_backend(state_dir, &host);
    host_news news = { { 0 }, { 0, 0 }, 0 };
    for (;; news.starts++) {
        sbx_process_request r = SBX_PROCESS_REQUEST_INIT;
        r.shell_command = "echo started; exec sleep 1000";
        sbx_process_info *info = NULL;
        sbx_error err;
        if (b == NULL || write(news_fd, &news, sizeof news) != (ssize_t)sizeof news ||
            sbx_backend_process_start(b, "procs", &r, &info, &err) != SBX_OK)
            _exit(1);
        sbx_backend_free_processes(b, info);
    }
}

/* 1 once the process `pid` sleeps in a call (its state 'S'), within the
 * deadline. */
static int sleeps_in_a_call(pid_t pid)
{
    char path[64], text[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    for (long until = sbx_test_now_ms() + PROC_TEST_DEADLINE_MS; sbx_test_now_ms() < until;) {
        FILE *f = fopen(path, "r");
        size_t n = f != NULL ? fread(text, 1, sizeof text - 1, f) : 0;
        if (f != NULL)
            fclose(f);
        text[n] = '\0';
        const char *end = strrchr(text, ')');
        if (end != NULL && end[1] == ' ' && end[2] == 'S')
            return 1;
        sched_yield();
    }
    return 0;
}

/* Reap every descendant that ended until none is left, within the
 * deadline; 1 when none is left. */
static int no_descendant_left(void)
{
    for (long until = sbx_test_now_ms() + PROC_TEST_DEADLINE_MS; sbx_test_now_ms() < until;) {
        pid_t got = waitpid(-1, NULL, WNOHANG);
        if (got < 0 && errno == ECHILD)
            return 1;
        if (got == 0)
            sched_yield();
    }
    return 0;
}

/* Become a subreaper (until destroy_leaves_nothing), run `killed_host`
 * in a child, SIGKILL it once its news came (and, for a read, once it
 * sleeps in the call), reap it; its last news into *news. */
static void kill_host_in_call(const char *state_dir, int starts_before_kill,
                              void (*killed_host)(const char *, int), host_news *news)
{
    CU_ASSERT_FATAL(no_descendant_left());
    CU_ASSERT_EQUAL_FATAL(prctl(PR_SET_CHILD_SUBREAPER, 1L, 0L, 0L, 0L), 0);
    int pipe_fds[2];
    CU_ASSERT_EQUAL_FATAL(pipe(pipe_fds), 0);
    pid_t child = fork();
    CU_ASSERT_FATAL(child >= 0);
    if (child == 0) {
        close(pipe_fds[0]);
        killed_host(state_dir, pipe_fds[1]);
        _exit(1);
    }
    close(pipe_fds[1]);
    do {
        CU_ASSERT_EQUAL_FATAL(read(pipe_fds[0], news, sizeof *news), (ssize_t)sizeof *news);
    } while (news->starts < starts_before_kill);
    if (starts_before_kill == 0)
        CU_ASSERT(sleeps_in_a_call(child));
    kill(child, SIGKILL);
    int status = 0;
    CU_ASSERT_EQUAL(waitpid(child, &status, 0), child);
    CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    close(pipe_fds[0]);
}

/* Destroy from this host: nothing of the sandbox is left, no process (the
 * supervisors and commands all ended and were reaped) and no file; no
 * longer a subreaper. */
static void destroy_leaves_nothing(fixture *f)
{
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_destroy(f->backend, "procs", &err), SBX_OK);
    CU_ASSERT(no_descendant_left());
    CU_ASSERT_EQUAL(sbx_local_test_count_entries(f->state_dir), 0);
    prctl(PR_SET_CHILD_SUBREAPER, 0L, 0L, 0L, 0L);
    sbx_backend_close(f->backend);
    sbx_host_free(f->host);
    sbx_test_remove_tree(f->state_dir);
}

/* A host killed while it blocks in a read: another host finds the process
 * by its id and reads on from the killed host's cursor. */
static void test_a_host_killed_in_a_read(void)
{
    fixture f;
    fixture_setup(&f, "procs killed read", NULL, 0);
    host_news news;
    kill_host_in_call(f.state_dir, 0, host_blocked_in_read, &news);
    proc_test_write_stdin(f.backend, "procs", news.id, "x", 1);
    proc_collected got = { 0 };
    got.cursor = news.cursor;
    CU_ASSERT(proc_test_read_until(f.backend, "procs", news.id, &got, NULL));
    CU_ASSERT_STRING_EQUAL(got.out, "two x\n");
    CU_ASSERT_EQUAL(got.exit_code, 0);
    destroy_leaves_nothing(&f);
}

/* A host killed while it starts processes: every process another host
 * lists can be read from the start; one the killed start left half made
 * is no process, and destroy ends what it started all the same. */
static void test_a_host_killed_in_a_start(void)
{
    fixture f;
    fixture_setup(&f, "procs killed start", NULL, 0);
    host_news news;
    kill_host_in_call(f.state_dir, 3, host_starting, &news);
    sbx_process_info *list = NULL;
    size_t count = 0;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_process_list(f.backend, "procs", &list, &count, &err), SBX_OK);
    CU_ASSERT(count >= 3 && count <= 4);
    for (sbx_process_info *p = list; p != NULL; p = p->next) {
        proc_collected got = { 0 };
        CU_ASSERT(proc_test_read_until(f.backend, "procs", p->process_id, &got, "\n"));
        CU_ASSERT_STRING_EQUAL(got.out, "started\n");
    }
    sbx_backend_free_processes(f.backend, list);
    destroy_leaves_nothing(&f);
}

static const CU_TestInfo process_tests[] = {
    { "an argv runs as given", test_an_argv_runs_as_given },
    { "tty names the terminal", test_tty_names_the_terminal },
    { "a signal leaves no grandchild", test_a_signal_leaves_no_grandchild },
    { "a signal right after the start is not lost",
      test_a_signal_right_after_the_start_is_not_lost },
    { "an isolated signal right after the start is not lost",
      test_an_isolated_signal_right_after_the_start },
    { "destroy leaves no process, no zombie, no state", test_destroy_leaves_no_process },
    { "the process limit refuses with its name", test_the_process_limit_refuses_with_its_name },
    { "ended ones are kept up to the limit", test_ended_ones_are_kept_up_to_the_limit },
    { "a process's state stays bounded", test_state_stays_bounded },
    { "ids are never reused", test_ids_are_never_reused },
    { "a host killed in a read: another reads on", test_a_host_killed_in_a_read },
    { "a host killed in a start: another finds all", test_a_host_killed_in_a_start },
    CU_TEST_INFO_NULL
};

void sbx_test_register(void)
{
    sbx_test_add_suite("local processes", NULL, NULL, process_tests);
}
