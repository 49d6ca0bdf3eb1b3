/*
 * The local backend's live processes (ABI 1.4) as only local can show
 * them, watched from the host (isolation=none, so that the processes'
 * pids are the host's): a signal to the group leaves no grandchild; destroy
 * leaves no process, not even a zombie, and no state; the process limit;
 * the state a process keeps stays bounded whatever it prints; ids are never
 * reused.  The backend-independent cases are in
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
#include <sys/stat.h>
#include <unistd.h>

typedef struct fixture {
    char state_dir[PATH_MAX];
    sbx_host *host;
    sbx_backend *backend;
} fixture;

/* A backend on a fresh state directory (isolation=none, plus `extra`
 * options) with sandbox "procs". */
static void fixture_setup(fixture *f, const char *tag, const sbx_option *extra, size_t count)
{
    sbx_local_test_make_dir(f->state_dir, sizeof f->state_dir, tag);
    f->host = sbx_local_test_new_host(NULL, NULL);
    sbx_option opts[4] = { { "state_dir", f->state_dir }, { "isolation", "none" } };
    for (size_t i = 0; i < count && i < 2; i++)
        opts[2 + i] = extra[i];
    f->backend = sbx_local_test_open(f->host, opts, 2 + (count < 2 ? count : 2));
    sbx_error err;
    sbx_sandbox *sb = sbx_test_create(f->backend, "procs", NULL, NULL, &err);
    CU_ASSERT_FATAL(sb != NULL);
    sbx_backend_free_sandboxes(f->backend, sb, 1);
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

static const CU_TestInfo process_tests[] = {
    { "an argv runs as given", test_an_argv_runs_as_given },
    { "tty names the terminal", test_tty_names_the_terminal },
    { "a signal leaves no grandchild", test_a_signal_leaves_no_grandchild },
    { "destroy leaves no process, no zombie, no state", test_destroy_leaves_no_process },
    { "the process limit refuses with its name", test_the_process_limit_refuses_with_its_name },
    { "ended ones are kept up to the limit", test_ended_ones_are_kept_up_to_the_limit },
    { "a process's state stays bounded", test_state_stays_bounded },
    { "ids are never reused", test_ids_are_never_reused },
    CU_TEST_INFO_NULL
};

void sbx_test_register(void)
{
    sbx_test_add_suite("local processes", NULL, NULL, process_tests);
}
