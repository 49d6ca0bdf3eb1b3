/*
 * The local backend's sandbox operations (ABI 1.3) through the host
 * library, with real commands: exit codes and signals, output caps, NUL
 * bytes, stdin, timeouts, daemons that must not outlive the exec, many
 * threads; and file paths that must never lead out of the sandbox.
 */
#include <config.h>

#include "tests/local-backend/local_fixture.h"
#include "tests/local-backend/local_wait.h"
#include "tests/support/backend_calls.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/proc_table.h"
#include "tests/support/scratch_dir.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Generous: a loaded machine must not fail a correct run. */
#define GONE_DEADLINE_MS 30000L

typedef struct fixture {
    char state_dir[PATH_MAX];
    char dir[PATH_MAX + 8];  /* the sandbox directory */
    char outside[PATH_MAX];  /* a directory beside the state directory */
    sbx_host *host;
    sbx_backend *backend;
} fixture;

static void fixture_setup(fixture *f, const char *tag)
{
    sbx_local_test_make_dir(f->state_dir, sizeof f->state_dir, tag);
    char outside_tag[128];
    snprintf(outside_tag, sizeof outside_tag, "%s-outside", tag);
    sbx_local_test_make_dir(f->outside, sizeof f->outside, outside_tag);
    f->host = sbx_local_test_new_host(NULL, NULL);
    /* isolation=none: these checks watch the command's pids from the host
     * (test_local_isolation covers the same under namespaces). */
    sbx_option opts[2] = { { "state_dir", f->state_dir }, { "isolation", "none" } };
    f->backend = sbx_local_test_open(f->host, opts, 2);
    sbx_error err;
    sbx_sandbox *sb = sbx_test_create(f->backend, "ops", NULL, NULL, &err);
    CU_ASSERT_FATAL(sb != NULL);
    sbx_backend_free_sandboxes(f->backend, sb, 1);
    snprintf(f->dir, sizeof f->dir, "%s/ops", f->state_dir);
}

static void fixture_teardown(fixture *f)
{
    sbx_error err;
    CU_ASSERT(sbx_backend_destroy(f->backend, "ops", &err) == SBX_OK);
    sbx_backend_close(f->backend);
    sbx_host_free(f->host);
    sbx_test_remove_tree(f->state_dir);
    sbx_test_remove_tree(f->outside);
}

/* Run shell text in sandbox `id`; the result (the caller frees it), fatal
 * when exec fails. */
static sbx_exec_result *run_in(sbx_backend *b, const char *id, const char *text,
                               int64_t timeout_ms, size_t cap)
{
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.shell_command = text;
    r.timeout_ms = timeout_ms;
    r.max_output_bytes = cap;
    sbx_exec_result *out = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_exec(b, id, &r, &out, &err);
    if (st != SBX_OK)
        fprintf(stderr, "exec of %s: %s\n", text, err.message);
    CU_ASSERT_FATAL(st == SBX_OK);
    return out;
}

static sbx_exec_result *run(fixture *f, const char *text)
{
    return run_in(f->backend, "ops", text, 0, 0);
}

/* The exit code of shell text (-1 when it did not exit). */
static int exit_of(fixture *f, const char *text)
{
    sbx_exec_result *r = run(f, text);
    int code = r->outcome == SBX_EXEC_EXITED ? r->exit_code : -1;
    sbx_backend_free_exec_result(f->backend, r);
    return code;
}

/* ------------------------------------------------------------ exec */

static void test_exit_codes_and_signals(void)
{
    fixture f;
    fixture_setup(&f, "ops exit");
    CU_ASSERT(exit_of(&f, "exit 0") == 0);
    CU_ASSERT(exit_of(&f, "exit 1") == 1);
    CU_ASSERT(exit_of(&f, "exit 255") == 255);
    CU_ASSERT(exit_of(&f, "no-such-program-here") == 127);
    sbx_exec_result *r = run(&f, "kill -9 $$");
    CU_ASSERT(r->outcome == SBX_EXEC_SIGNALED);
    CU_ASSERT(r->term_signal == 9);
    CU_ASSERT(r->exit_code == -1);
    sbx_backend_free_exec_result(f.backend, r);
    fixture_teardown(&f);
}

static void test_argv_runs_without_a_shell_and_missing_program_exits_127(void)
{
    fixture f;
    fixture_setup(&f, "ops argv");
    const char *argv[] = { "printf", "%s|", "a b", "$HOME", NULL };
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.argv = argv;
    sbx_exec_result *out = NULL;
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_exec(f.backend, "ops", &r, &out, &err) == SBX_OK);
    CU_ASSERT(out->exit_code == 0);
    CU_ASSERT_STRING_EQUAL(out->stdout_data, "a b|$HOME|");
    sbx_backend_free_exec_result(f.backend, out);
    const char *missing[] = { "no-such-program-here", NULL };
    r.argv = missing;
    CU_ASSERT_FATAL(sbx_backend_exec(f.backend, "ops", &r, &out, &err) == SBX_OK);
    CU_ASSERT(out->outcome == SBX_EXEC_EXITED && out->exit_code == 127);
    CU_ASSERT(strstr(out->stderr_data, "no-such-program-here") != NULL);
    sbx_backend_free_exec_result(f.backend, out);
    fixture_teardown(&f);
}

/* Run `argv` in sandbox "ops"; the result (the caller frees it), fatal
 * when exec fails. */
static sbx_exec_result *run_argv(fixture *f, const char *const *argv)
{
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.argv = argv;
    sbx_exec_result *out = NULL;
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_exec(f->backend, "ops", &r, &out, &err) == SBX_OK);
    return out;
}

static void test_command_starts_clean_of_the_host(void)
{
    fixture f;
    fixture_setup(&f, "ops clean start");
    /* What the calling thread has that the command must not get: an
     * ignored signal, a blocked one, a descriptor without close-on-exec. */
    struct sigaction ignore, old_pipe;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    CU_ASSERT_FATAL(sigaction(SIGPIPE, &ignore, &old_pipe) == 0);
    sigset_t usr1, old_mask;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    CU_ASSERT_FATAL(pthread_sigmask(SIG_BLOCK, &usr1, &old_mask) == 0);
    int inherited = open("/dev/null", O_RDONLY);  /* no O_CLOEXEC: on purpose */
    CU_ASSERT_FATAL(inherited >= 0);
    const char *signals[] = { "grep", "-E", "^Sig(Blk|Ign):", "/proc/self/status", NULL };
    sbx_exec_result *r = run_argv(&f, signals);
    CU_ASSERT_STRING_EQUAL(r->stdout_data, "SigBlk:\t0000000000000000\n"
                                           "SigIgn:\t0000000000000000\n");
    sbx_backend_free_exec_result(f.backend, r);
    /* 0-2 and ls's own handle of the directory it lists. */
    const char *fds[] = { "ls", "/proc/self/fd", NULL };
    r = run_argv(&f, fds);
    CU_ASSERT_STRING_EQUAL(r->stdout_data, "0\n1\n2\n3\n");
    sbx_backend_free_exec_result(f.backend, r);
    close(inherited);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    sigaction(SIGPIPE, &old_pipe, NULL);
    /* A file without a #! line runs under sh, as a shell runs it; one
     * that cannot be executed exits 126 with a line on stderr. */
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_write_file(f.backend, "ops", "script", "echo from-script\n", 17,
                                           0, 0755, &err) == SBX_OK);
    CU_ASSERT_FATAL(sbx_backend_write_file(f.backend, "ops", "plain", "echo x\n", 7, 0, 0644,
                                           &err) == SBX_OK);
    const char *script[] = { "./script", NULL };
    r = run_argv(&f, script);
    CU_ASSERT(r->outcome == SBX_EXEC_EXITED && r->exit_code == 0);
    CU_ASSERT_STRING_EQUAL(r->stdout_data, "from-script\n");
    sbx_backend_free_exec_result(f.backend, r);
    const char *plain[] = { "./plain", NULL };
    r = run_argv(&f, plain);
    CU_ASSERT(r->outcome == SBX_EXEC_EXITED && r->exit_code == 126);
    CU_ASSERT(strstr(r->stderr_data, "./plain: cannot execute") != NULL);
    sbx_backend_free_exec_result(f.backend, r);
    fixture_teardown(&f);
}

static void test_environment_is_minimal_plus_the_request(void)
{
    fixture f;
    fixture_setup(&f, "ops env");
    setenv("SBX_HOST_SECRET", "must-not-pass", 1);
    sbx_env_var env[] = { { "GREETING", "hello; $(touch pwned)" }, { "LANG", "C" } };
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.shell_command = "env; pwd";
    r.env = env;
    r.env_count = 2;
    sbx_exec_result *out = NULL;
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_exec(f.backend, "ops", &r, &out, &err) == SBX_OK);
    CU_ASSERT(strstr(out->stdout_data, "GREETING=hello; $(touch pwned)\n") != NULL);
    CU_ASSERT(strstr(out->stdout_data, "LANG=C\n") != NULL);
    CU_ASSERT(strstr(out->stdout_data, "PATH=/usr/local/bin:/usr/bin:/bin\n") != NULL);
    char home[PATH_MAX + 16];
    snprintf(home, sizeof home, "HOME=%s\n", f.dir);
    CU_ASSERT(strstr(out->stdout_data, home) != NULL);
    CU_ASSERT(strstr(out->stdout_data, f.dir) != NULL);
    CU_ASSERT(strstr(out->stdout_data, "SBX_HOST_SECRET") == NULL);
    sbx_backend_free_exec_result(f.backend, out);
    unsetenv("SBX_HOST_SECRET");
    char pwned[PATH_MAX + 16];
    snprintf(pwned, sizeof pwned, "%s/pwned", f.dir);
    CU_ASSERT(!sbx_local_test_path_exists(pwned));
    /* Invalid names are refused before anything runs. */
    static const char *bad[] = { "", "1X", "A=B", "A B", "A-B", "É" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sbx_env_var one = { bad[i], "v" };
        r.env = &one;
        r.env_count = 1;
        r.shell_command = "touch pwned";
        CU_ASSERT(sbx_backend_exec(f.backend, "ops", &r, &out, &err) == SBX_ERR_USAGE);
    }
    CU_ASSERT(!sbx_local_test_path_exists(pwned));
    fixture_teardown(&f);
}

static void test_output_over_the_cap_is_cut_and_memory_bounded(void)
{
    fixture f;
    fixture_setup(&f, "ops cap");
    /* 4 MiB on each stream, 1000 bytes kept of each. */
    sbx_exec_result *r = run_in(f.backend, "ops",
                                "head -c 4194304 /dev/zero; head -c 4194304 /dev/zero >&2; "
                                "exit 3", 0, 1000);
    CU_ASSERT(r->exit_code == 3);
    CU_ASSERT(r->stdout_length == 1000 && r->stdout_truncated);
    CU_ASSERT(r->stderr_length == 1000 && r->stderr_truncated);
    sbx_backend_free_exec_result(f.backend, r);
    r = run_in(f.backend, "ops", "printf 12345", 0, 5);
    CU_ASSERT(r->stdout_length == 5 && !r->stdout_truncated);
    sbx_backend_free_exec_result(f.backend, r);
    fixture_teardown(&f);
}

static void test_nul_bytes_and_stdin(void)
{
    fixture f;
    fixture_setup(&f, "ops nul");
    sbx_exec_result *r = run(&f, "printf 'a\\000b\\000'");
    CU_ASSERT(r->stdout_length == 4);
    CU_ASSERT(memcmp(r->stdout_data, "a\0b\0", 5) == 0);
    sbx_backend_free_exec_result(f.backend, r);
    /* 1 MiB of stdin with NUL bytes comes back through cat. */
    size_t n = 1 << 20;
    char *in = malloc(n);
    CU_ASSERT_FATAL(in != NULL);
    for (size_t i = 0; i < n; i++)
        in[i] = (char)(i % 251);
    sbx_exec_request req = SBX_EXEC_REQUEST_INIT;
    const char *cat[] = { "cat", NULL };
    req.argv = cat;
    req.stdin_data = in;
    req.stdin_length = n;
    req.max_output_bytes = 2 << 20;
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_exec(f.backend, "ops", &req, &r, &err) == SBX_OK);
    CU_ASSERT(r->exit_code == 0);
    CU_ASSERT(r->stdout_length == n && memcmp(r->stdout_data, in, n) == 0);
    sbx_backend_free_exec_result(f.backend, r);
    /* A command that reads nothing of its stdin ends normally. */
    req.argv = NULL;
    req.shell_command = "exit 4";
    CU_ASSERT_FATAL(sbx_backend_exec(f.backend, "ops", &req, &r, &err) == SBX_OK);
    CU_ASSERT(r->exit_code == 4);
    sbx_backend_free_exec_result(f.backend, r);
    free(in);
    /* Without stdin bytes the command reads end of file at once. */
    r = run(&f, "cat; echo done");
    CU_ASSERT_STRING_EQUAL(r->stdout_data, "done\n");
    sbx_backend_free_exec_result(f.backend, r);
    fixture_teardown(&f);
}

static void test_timeouts_end_the_command(void)
{
    fixture f;
    fixture_setup(&f, "ops timeout");
    long start = sbx_test_now_ms();
    sbx_exec_result *r = run_in(f.backend, "ops", "sleep 30", 100, 0);
    long took = sbx_test_now_ms() - start;
    CU_ASSERT(r->outcome == SBX_EXEC_TIMED_OUT);
    CU_ASSERT(r->exit_code == -1);
    CU_ASSERT(r->duration_ms >= 100);
    CU_ASSERT(took < 20000);
    sbx_backend_free_exec_result(f.backend, r);
    /* A large timeout does not delay a quick command; 0 is the default. */
    r = run_in(f.backend, "ops", "exit 0", 3600000, 0);
    CU_ASSERT(r->outcome == SBX_EXEC_EXITED);
    sbx_backend_free_exec_result(f.backend, r);
    sbx_operations_info info = { .struct_size = sizeof info };
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_operations_info(f.backend, &info, &err) == SBX_OK);
    CU_ASSERT(info.default_timeout_ms == 600000);
    CU_ASSERT(info.default_output_bytes == 1 << 20);
    CU_ASSERT(info.operations & SBX_OP_EXEC_STDIN);
    sbx_exec_request req = SBX_EXEC_REQUEST_INIT;
    req.shell_command = "exit 0";
    req.timeout_ms = info.max_timeout_ms + 1;
    CU_ASSERT(sbx_backend_exec(f.backend, "ops", &req, &r, &err) == SBX_ERR_USAGE);
    req.timeout_ms = 0;
    req.max_output_bytes = info.max_output_bytes + 1;
    CU_ASSERT(sbx_backend_exec(f.backend, "ops", &req, &r, &err) == SBX_ERR_USAGE);
    fixture_teardown(&f);
}

/* 1 when `pid` ends within GONE_DEADLINE_MS and is then gone, not even a
 * zombie. */
static int gone_within_deadline(long pid)
{
    return sbx_test_wait_process_end(pid, sbx_test_now_ms() + GONE_DEADLINE_MS) && kill((pid_t)pid, 0) != 0 &&
           errno == ESRCH;
}

static void expect_daemon_gone(fixture *f, const char *text, int64_t timeout_ms)
{
    sbx_exec_result *r = run_in(f->backend, "ops", text, timeout_ms, 0);
    long pid = strtol(r->stdout_data, NULL, 10);
    CU_ASSERT(pid > 1);
    CU_ASSERT(r->outcome == (timeout_ms > 0 ? SBX_EXEC_TIMED_OUT : SBX_EXEC_EXITED));
    /* Gone when exec returned: kill(pid, 0) fails at once. */
    CU_ASSERT(pid > 1 && kill((pid_t)pid, 0) != 0 && errno == ESRCH);
    CU_ASSERT(pid > 1 && gone_within_deadline(pid));
    sbx_backend_free_exec_result(f->backend, r);
}

/* Shell text that starts `daemon` in the background (with DAEMON_PID
 * the file it writes its pid into), waits until the pid is written, prints
 * it, then runs `then`. */
#define WITH_DAEMON(daemon, then)                                              \
    "rm -f d.pid; " daemon " & "                                               \
    "until [ -s d.pid ]; do sleep 0.01; done; cat d.pid; " then
#define DAEMON_PID "echo $$ > d.tmp && mv d.tmp d.pid"

static void test_nothing_the_command_started_outlives_the_exec(void)
{
    fixture f;
    fixture_setup(&f, "ops daemon");
    /* A daemon in its own session holding stdout, an exec that exits. */
    expect_daemon_gone(&f, WITH_DAEMON("setsid sh -c '" DAEMON_PID "; exec sleep 1000'",
                                       "exit 0"), 0);
    /* A double fork with its streams closed: an orphan of the shell. */
    expect_daemon_gone(&f, WITH_DAEMON("(sh -c '" DAEMON_PID "; exec sleep 1000 >/dev/null "
                                       "2>&1 </dev/null' &)", "exit 0"), 0);
    /* The timeout ends the command and what it started; what was written
     * before it is kept. */
    expect_daemon_gone(&f, WITH_DAEMON("setsid sh -c '" DAEMON_PID "; exec sleep 1000'",
                                       "sleep 1000"), 3000);
    fixture_teardown(&f);
}

typedef struct destroyed_exec {
    sbx_backend *backend;
    sbx_status status;
} destroyed_exec;

static void *exec_until_destroyed(void *p)
{
    destroyed_exec *d = p;
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.shell_command = WITH_DAEMON("setsid sh -c '" DAEMON_PID "; exec sleep 1000'", "sleep 1000");
    sbx_exec_result *out = NULL;
    sbx_error err;
    d->status = sbx_backend_exec(d->backend, "ops", &r, &out, &err);
    if (d->status == SBX_OK)
        sbx_backend_free_exec_result(d->backend, out);
    return NULL;
}

static void test_destroy_ends_a_running_exec(void)
{
    fixture f;
    fixture_setup(&f, "ops destroy");
    destroyed_exec d = { f.backend, SBX_OK };
    pthread_t thread;
    CU_ASSERT_FATAL(pthread_create(&thread, NULL, exec_until_destroyed, &d) == 0);
    char pid_file[PATH_MAX + 16];
    snprintf(pid_file, sizeof pid_file, "%s/d.pid", f.dir);
    /* The daemon renames its pid file into place: once there, it is whole. */
    CU_ASSERT_FATAL(sbx_local_test_wait_path(pid_file, GONE_DEADLINE_MS));
    long pid = 0;
    FILE *fp = fopen(pid_file, "r");
    CU_ASSERT_FATAL(fp != NULL);
    if (fscanf(fp, "%ld", &pid) != 1)
        pid = 0;
    fclose(fp);
    CU_ASSERT_FATAL(pid > 1);
    long start = sbx_test_now_ms();
    sbx_error err;
    sbx_status st = sbx_backend_destroy(f.backend, "ops", &err);
    pthread_join(thread, NULL);
    CU_ASSERT(sbx_test_now_ms() - start < GONE_DEADLINE_MS);
    CU_ASSERT(d.status == SBX_ERR_NOT_FOUND);
    CU_ASSERT(kill((pid_t)pid, 0) != 0 && errno == ESRCH);
    /* A destroy that met a file the dying command made is finished by the
     * next one. */
    if (st != SBX_OK)
        st = sbx_backend_destroy(f.backend, "ops", &err);
    CU_ASSERT(st == SBX_OK);
    fixture_teardown(&f);
}

typedef struct exec_job {
    sbx_backend *backend;
    char id[16];
    int failures;
} exec_job;

static void *exec_many(void *p)
{
    exec_job *job = p;
    char text[64], want[64];
    for (int i = 0; i < 8; i++) {
        snprintf(text, sizeof text, "echo %s-%d; echo err >&2; exit %d", job->id, i, i);
        snprintf(want, sizeof want, "%s-%d\n", job->id, i);
        sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
        r.shell_command = text;
        sbx_exec_result *out = NULL;
        sbx_error err;
        if (sbx_backend_exec(job->backend, job->id, &r, &out, &err) != SBX_OK) {
            job->failures++;
            continue;
        }
        job->failures += out->exit_code != i || strcmp(out->stdout_data, want) != 0 ||
                         strcmp(out->stderr_data, "err\n") != 0;
        sbx_backend_free_exec_result(job->backend, out);
    }
    return NULL;
}

static void run_threads(fixture *f, int sandboxes)
{
    enum { THREADS = 16 };
    pthread_t threads[THREADS];
    exec_job jobs[THREADS];
    sbx_error err;
    for (int i = 0; i < sandboxes; i++) {
        char id[16];
        snprintf(id, sizeof id, "many-%d", i);
        sbx_sandbox *sb = sbx_test_create(f->backend, id, NULL, NULL, &err);
        CU_ASSERT_FATAL(sb != NULL);
        sbx_backend_free_sandboxes(f->backend, sb, 1);
    }
    for (int i = 0; i < THREADS; i++) {
        jobs[i].backend = f->backend;
        snprintf(jobs[i].id, sizeof jobs[i].id, "many-%d", i % sandboxes);
        jobs[i].failures = 0;
        CU_ASSERT_FATAL(pthread_create(&threads[i], NULL, exec_many, &jobs[i]) == 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        CU_ASSERT(jobs[i].failures == 0);
    }
    for (int i = 0; i < sandboxes; i++) {
        char id[16];
        snprintf(id, sizeof id, "many-%d", i);
        CU_ASSERT(sbx_backend_destroy(f->backend, id, &err) == SBX_OK);
    }
}

static void test_sixteen_threads_exec_on_one_sandbox_and_on_eight(void)
{
    fixture f;
    fixture_setup(&f, "ops threads");
    run_threads(&f, 1);
    run_threads(&f, 8);
    fixture_teardown(&f);
}

static void test_exec_of_a_gone_sandbox_and_working_dirs(void)
{
    fixture f;
    fixture_setup(&f, "ops gone");
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.shell_command = "pwd";
    sbx_exec_result *out = NULL;
    sbx_error err;
    CU_ASSERT(sbx_backend_exec(f.backend, "never-made", &r, &out, &err) == SBX_ERR_NOT_FOUND);
    CU_ASSERT(sbx_backend_exec(f.backend, "../etc", &r, &out, &err) == SBX_ERR_REFUSED);
    CU_ASSERT(exit_of(&f, "mkdir -p sub/dir && ln -s ../.. up") == 0);
    r.working_dir = "sub/dir";
    CU_ASSERT_FATAL(sbx_backend_exec(f.backend, "ops", &r, &out, &err) == SBX_OK);
    CU_ASSERT(strstr(out->stdout_data, "/ops/sub/dir\n") != NULL);
    sbx_backend_free_exec_result(f.backend, out);
    static const char *refused[] = { "..", "up", "/", "sub/../..", "/etc" };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        r.working_dir = refused[i];
        CU_ASSERT(sbx_backend_exec(f.backend, "ops", &r, &out, &err) == SBX_ERR_REFUSED);
    }
    r.working_dir = "missing";
    CU_ASSERT(sbx_backend_exec(f.backend, "ops", &r, &out, &err) == SBX_ERR_NO_SUCH_PATH);
    CU_ASSERT(exit_of(&f, "touch plain") == 0);
    r.working_dir = "plain";
    CU_ASSERT(sbx_backend_exec(f.backend, "ops", &r, &out, &err) == SBX_ERR_NOT_A_DIRECTORY);
    CU_ASSERT(sbx_backend_destroy(f.backend, "ops", &err) == SBX_OK);
    r.working_dir = NULL;
    CU_ASSERT(sbx_backend_exec(f.backend, "ops", &r, &out, &err) == SBX_ERR_NOT_FOUND);
    fixture_teardown(&f);
}

/* ------------------------------------------------------------ files */

static sbx_status write_text(fixture *f, const char *path, const char *text, unsigned flags)
{
    sbx_error err;
    return sbx_backend_write_file(f->backend, "ops", path, text, strlen(text), flags, 0, &err);
}

/* The size of read_text's buffer. */
#define TEXT_MAX 256

/* read_file of at most `max` bytes from `offset`: its status; the bytes
 * into `buf` (NUL-terminated, cut to TEXT_MAX) when SBX_OK. */
static sbx_status read_text(fixture *f, const char *path, uint64_t offset, uint64_t max,
                            char buf[TEXT_MAX], int *truncated)
{
    sbx_file_content *c = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_read_file(f->backend, "ops", path, offset, max, &c, &err);
    if (st == SBX_OK) {
        snprintf(buf, TEXT_MAX, "%s", c->data);
        if (truncated != NULL)
            *truncated = c->truncated;
        sbx_backend_free_file_content(f->backend, c);
    }
    return st;
}

static void test_write_read_append_exclusive_mkdirs(void)
{
    fixture f;
    fixture_setup(&f, "ops files");
    char buf[TEXT_MAX];
    int truncated = -1;
    CU_ASSERT(write_text(&f, "a.txt", "hello world", 0) == SBX_OK);
    CU_ASSERT(read_text(&f, "a.txt", 0, 100, buf, &truncated) == SBX_OK);
    CU_ASSERT_STRING_EQUAL(buf, "hello world");
    CU_ASSERT(truncated == 0);
    CU_ASSERT(read_text(&f, "a.txt", 6, 3, buf, &truncated) == SBX_OK);
    CU_ASSERT_STRING_EQUAL(buf, "wor");
    CU_ASSERT(truncated == 1);
    CU_ASSERT(read_text(&f, "a.txt", 100, 3, buf, &truncated) == SBX_OK);
    CU_ASSERT_STRING_EQUAL(buf, "");
    /* Replaced whole, appended, refused when it exists and must not. */
    CU_ASSERT(write_text(&f, "a.txt", "new", 0) == SBX_OK);
    CU_ASSERT(write_text(&f, "a.txt", "+more", SBX_WRITE_APPEND) == SBX_OK);
    CU_ASSERT(read_text(&f, "a.txt", 0, 100, buf, NULL) == SBX_OK);
    CU_ASSERT_STRING_EQUAL(buf, "new+more");
    CU_ASSERT(write_text(&f, "a.txt", "x", SBX_WRITE_EXCLUSIVE) == SBX_ERR_EXISTS);
    CU_ASSERT(write_text(&f, "b.txt", "x", SBX_WRITE_EXCLUSIVE) == SBX_OK);
    /* The same file through the sandbox's absolute path. */
    char abs[PATH_MAX + 24];
    snprintf(abs, sizeof abs, "%s/a.txt", f.dir);
    CU_ASSERT(read_text(&f, abs, 0, 100, buf, NULL) == SBX_OK);
    CU_ASSERT_STRING_EQUAL(buf, "new+more");
    /* Parents made only when asked. */
    CU_ASSERT(write_text(&f, "d1/d2/c.txt", "deep", 0) == SBX_ERR_NO_SUCH_PATH);
    CU_ASSERT(write_text(&f, "d1/d2/c.txt", "deep", SBX_WRITE_MKDIRS) == SBX_OK);
    CU_ASSERT(exit_of(&f, "test \"$(cat d1/d2/c.txt)\" = deep") == 0);
    /* The mode is the one asked, whatever the umask. */
    sbx_error err;
    CU_ASSERT(sbx_backend_write_file(f.backend, "ops", "run.sh", "#!/bin/sh\nexit 7\n", 17, 0,
                                     0750, &err) == SBX_OK);
    CU_ASSERT(exit_of(&f, "./run.sh") == 7);
    CU_ASSERT(exit_of(&f, "test \"$(stat -c %a run.sh)\" = 750") == 0);
    /* Kinds of what is at the path. */
    CU_ASSERT(read_text(&f, "d1", 0, 10, buf, NULL) == SBX_ERR_IS_A_DIRECTORY);
    CU_ASSERT(write_text(&f, "d1", "x", 0) == SBX_ERR_IS_A_DIRECTORY);
    CU_ASSERT(read_text(&f, "a.txt/x", 0, 10, buf, NULL) ==
              SBX_ERR_NOT_A_DIRECTORY);
    CU_ASSERT(read_text(&f, "missing", 0, 10, buf, NULL) == SBX_ERR_NO_SUCH_PATH);
    CU_ASSERT(exit_of(&f, "mkfifo fifo && chmod 000 b.txt") == 0);
    CU_ASSERT(read_text(&f, "fifo", 0, 10, buf, NULL) == SBX_ERR_REFUSED);
    CU_ASSERT(write_text(&f, "fifo", "x", SBX_WRITE_APPEND) == SBX_ERR_REFUSED);
    CU_ASSERT(write_text(&f, "fifo", "x", 0) == SBX_ERR_REFUSED);
    if (geteuid() != 0)
        CU_ASSERT(read_text(&f, "b.txt", 0, 10, buf, NULL) == SBX_ERR_PERMISSION);
    fixture_teardown(&f);
}

/* The bytes of a file outside the sandbox, checked unchanged. */
static void expect_outside_unchanged(const char *path)
{
    FILE *fp = fopen(path, "r");
    CU_ASSERT_FATAL(fp != NULL);
    char buf[64] = "";
    CU_ASSERT(fgets(buf, sizeof buf, fp) != NULL);
    fclose(fp);
    CU_ASSERT_STRING_EQUAL(buf, "outside\n");
}

static void test_paths_never_lead_out(void)
{
    fixture f;
    fixture_setup(&f, "ops escape");
    char secret[PATH_MAX + 16], text[4 * PATH_MAX];
    snprintf(secret, sizeof secret, "%s/secret", f.outside);
    sbx_local_test_write_file(secret, "outside\n");
    /* Links a command made inside, pointing out: absolute, relative, to a
     * directory, and a chain through a link inside. */
    snprintf(text, sizeof text,
             "ln -s '%s' abs && ln -s \"../../$(basename '%s')/secret\" rel && "
             "ln -s '%s' outdir && ln -s abs chain && ln -s /proc/self/root root",
             secret, f.outside, f.outside);
    CU_ASSERT_FATAL(exit_of(&f, text) == 0);
    static const char *escapes[] = { "abs", "rel", "outdir/secret", "chain", "../ops/abs",
                                     "..", "../x", "root/etc/passwd", "/etc/passwd" };
    char buf[TEXT_MAX];
    sbx_error err;
    for (size_t i = 0; i < sizeof escapes / sizeof escapes[0]; i++) {
        const char *p = escapes[i];
        CU_ASSERT(read_text(&f, p, 0, 10, buf, NULL) == SBX_ERR_REFUSED);
        CU_ASSERT(write_text(&f, p, "pwned\n", 0) == SBX_ERR_REFUSED);
        CU_ASSERT(write_text(&f, p, "pwned\n", SBX_WRITE_APPEND) == SBX_ERR_REFUSED);
        sbx_dir_listing *l = NULL;
        sbx_status st = sbx_backend_list_dir(f.backend, "ops", p, 1, 10, &l, &err);
        CU_ASSERT(st == SBX_ERR_REFUSED || st == SBX_ERR_NOT_A_DIRECTORY);
        if (st == SBX_OK)
            sbx_backend_free_listing(f.backend, l);
    }
    snprintf(text, sizeof text, "%s/new", f.outside);
    CU_ASSERT(write_text(&f, "outdir/new", "x", 0) == SBX_ERR_REFUSED);
    CU_ASSERT(write_text(&f, "outdir/new/x", "x", SBX_WRITE_MKDIRS) == SBX_ERR_REFUSED);
    CU_ASSERT(!sbx_local_test_path_exists(text));
    expect_outside_unchanged(secret);
    /* Removing a link removes the link, never what it points to. */
    CU_ASSERT(sbx_backend_remove_path(f.backend, "ops", "abs", 0, &err) == SBX_OK);
    CU_ASSERT(sbx_backend_remove_path(f.backend, "ops", "outdir", SBX_REMOVE_RECURSIVE, &err) ==
              SBX_OK);
    CU_ASSERT(sbx_backend_remove_path(f.backend, "ops", "..", SBX_REMOVE_RECURSIVE, &err) ==
              SBX_ERR_REFUSED);
    CU_ASSERT(sbx_backend_remove_path(f.backend, "ops", ".", SBX_REMOVE_RECURSIVE, &err) ==
              SBX_ERR_REFUSED);
    /* "chain" now dangles; "rel" leads out: nothing below either. */
    CU_ASSERT(sbx_backend_remove_path(f.backend, "ops", "chain/x", 0, &err) ==
              SBX_ERR_NO_SUCH_PATH);
    CU_ASSERT(sbx_backend_remove_path(f.backend, "ops", "rel/x", 0, &err) == SBX_ERR_REFUSED);
    expect_outside_unchanged(secret);
    /* A very long path and a long name are the caller's mistake. */
    char *longpath = malloc(PATH_MAX + 10);
    CU_ASSERT_FATAL(longpath != NULL);
    memset(longpath, 'a', PATH_MAX + 9);
    longpath[PATH_MAX + 9] = '\0';
    CU_ASSERT(read_text(&f, longpath, 0, 10, buf, NULL) == SBX_ERR_USAGE);
    longpath[300] = '\0';
    CU_ASSERT(write_text(&f, longpath, "x", 0) == SBX_ERR_USAGE);
    free(longpath);
    fixture_teardown(&f);
}

/* open_file (ABI 1.6) of `path`: its status, and the kind read_file
 * answers for the same path must be the same. */
static sbx_status open_like_read(fixture *f, const char *path)
{
    sbx_error err;
    int fd = -1;
    uint64_t size = 0;
    sbx_status st = sbx_backend_open_file(f->backend, "ops", path, &fd, &size, &err);
    if (st == SBX_OK)
        close(fd);
    char buf[TEXT_MAX];
    sbx_status read = read_text(f, path, 0, 10, buf, NULL);
    CU_ASSERT_EQUAL(st, read);
    return st;
}

static void test_open_file(void)
{
    fixture f;
    fixture_setup(&f, "ops open");
    CU_ASSERT(write_text(&f, "a.txt", "hello world", 0) == SBX_OK);
    sbx_error err;
    int fd = -1;
    uint64_t size = 0;
    CU_ASSERT_FATAL(sbx_backend_open_file(f.backend, "ops", "a.txt", &fd, &size, &err) == SBX_OK);
    CU_ASSERT_EQUAL(size, 11);
    CU_ASSERT_EQUAL(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
    CU_ASSERT(fcntl(fd, F_GETFD) & FD_CLOEXEC);
    char buf[32] = "";
    CU_ASSERT_EQUAL(pread(fd, buf, sizeof buf - 1, 0), 11);
    CU_ASSERT_STRING_EQUAL(buf, "hello world");
    CU_ASSERT_EQUAL(close(fd), 0);
    /* Links leading out, a directory, a FIFO, nothing there: as read_file. */
    char secret[PATH_MAX + 16], text[2 * PATH_MAX];
    snprintf(secret, sizeof secret, "%s/secret", f.outside);
    sbx_local_test_write_file(secret, "outside\n");
    snprintf(text, sizeof text, "ln -s '%s' abs && ln -s abs chain && mkdir d && mkfifo fifo",
             secret);
    CU_ASSERT_FATAL(exit_of(&f, text) == 0);
    CU_ASSERT(open_like_read(&f, "abs") == SBX_ERR_REFUSED);
    CU_ASSERT(open_like_read(&f, "chain") == SBX_ERR_REFUSED);
    CU_ASSERT(open_like_read(&f, "../x") == SBX_ERR_REFUSED);
    CU_ASSERT(open_like_read(&f, "/etc/passwd") == SBX_ERR_REFUSED);
    CU_ASSERT(open_like_read(&f, "d") == SBX_ERR_IS_A_DIRECTORY);
    CU_ASSERT(open_like_read(&f, "fifo") == SBX_ERR_REFUSED);
    CU_ASSERT(open_like_read(&f, "missing") == SBX_ERR_NO_SUCH_PATH);
    CU_ASSERT(open_like_read(&f, "a.txt/x") == SBX_ERR_NOT_A_DIRECTORY);
    /* The largest read's size is opened; a byte more is refused (sparse
     * files: nothing is written). */
    CU_ASSERT_FATAL(exit_of(&f, "truncate -s 268435456 max && truncate -s 268435457 over") == 0);
    CU_ASSERT(sbx_backend_open_file(f.backend, "ops", "max", &fd, &size, &err) == SBX_OK);
    CU_ASSERT_EQUAL(size, UINT64_C(268435456));
    close(fd);
    CU_ASSERT(sbx_backend_open_file(f.backend, "ops", "over", &fd, &size, &err) == SBX_ERR_USAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "larger than 268435456 bytes"));
    CU_ASSERT_EQUAL(fd, -1);
    CU_ASSERT(sbx_backend_open_file(f.backend, "never-made", "a.txt", &fd, &size, &err) ==
              SBX_ERR_NOT_FOUND);
    fixture_teardown(&f);
}

static void test_list_and_remove(void)
{
    fixture f;
    fixture_setup(&f, "ops list");
    CU_ASSERT_FATAL(exit_of(&f, "mkdir -p top/b/deep && printf 12345 > top/c && "
                                "touch top/a top/b/x top/b/deep/y && ln -s /etc top/l") == 0);
    sbx_dir_listing *l = NULL;
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_list_dir(f.backend, "ops", "top", 2, 100, &l, &err) == SBX_OK);
    static const char *want[] = { "a", "b", "b/deep", "b/x", "c", "l" };
    static const sbx_file_type types[] = { SBX_FILE_REGULAR, SBX_FILE_DIRECTORY,
                                           SBX_FILE_DIRECTORY, SBX_FILE_REGULAR,
                                           SBX_FILE_REGULAR, SBX_FILE_SYMLINK };
    CU_ASSERT(l->count == 6 && !l->truncated);
    size_t i = 0;
    for (sbx_dir_entry *e = l->entries; e != NULL && i < 6; e = e->next, i++) {
        CU_ASSERT_STRING_EQUAL(e->path, want[i]);
        CU_ASSERT(e->type == types[i]);
        CU_ASSERT(e->mtime > 0);
        if (strcmp(e->path, "c") == 0)
            CU_ASSERT(e->size == 5);
    }
    sbx_backend_free_listing(f.backend, l);
    CU_ASSERT_FATAL(sbx_backend_list_dir(f.backend, "ops", "top", 5, 3, &l, &err) == SBX_OK);
    CU_ASSERT(l->count == 3 && l->truncated);
    sbx_backend_free_listing(f.backend, l);
    CU_ASSERT(sbx_backend_list_dir(f.backend, "ops", "top/c", 1, 3, &l, &err) ==
              SBX_ERR_NOT_A_DIRECTORY);
    CU_ASSERT(sbx_backend_list_dir(f.backend, "ops", "nope", 1, 3, &l, &err) ==
              SBX_ERR_NO_SUCH_PATH);
    /* Remove: a file, a directory only when recursive, an absent path. */
    CU_ASSERT(sbx_backend_remove_path(f.backend, "ops", "top/a", 0, &err) == SBX_OK);
    CU_ASSERT(sbx_backend_remove_path(f.backend, "ops", "top/a", 0, &err) ==
              SBX_ERR_NO_SUCH_PATH);
    CU_ASSERT(sbx_backend_remove_path(f.backend, "ops", "top/b", 0, &err) ==
              SBX_ERR_IS_A_DIRECTORY);
    CU_ASSERT(sbx_backend_remove_path(f.backend, "ops", "top", SBX_REMOVE_RECURSIVE, &err) ==
              SBX_OK);
    CU_ASSERT(exit_of(&f, "test ! -e top && test -d /etc") == 0);
    CU_ASSERT(sbx_backend_remove_path(f.backend, "never-made", "x", 0, &err) ==
              SBX_ERR_NOT_FOUND);
    fixture_teardown(&f);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "exec: exit codes 0, 1, 255, 127 and a signal", test_exit_codes_and_signals },
        { "exec: argv without a shell; a missing program exits 127",
          test_argv_runs_without_a_shell_and_missing_program_exits_127 },
        { "exec: the command gets no signal state or descriptor of the host's; "
          "a file without #! runs under sh, one that cannot run exits 126",
          test_command_starts_clean_of_the_host },
        { "exec: minimal environment plus the request's",
          test_environment_is_minimal_plus_the_request },
        { "exec: output over the cap is cut", test_output_over_the_cap_is_cut_and_memory_bounded },
        { "exec: NUL bytes and stdin", test_nul_bytes_and_stdin },
        { "exec: timeouts end the command", test_timeouts_end_the_command },
        { "exec: nothing the command started outlives it",
          test_nothing_the_command_started_outlives_the_exec },
        { "exec: destroy ends a running exec and its daemons", test_destroy_ends_a_running_exec },
        { "exec: 16 threads on one sandbox and on eight",
          test_sixteen_threads_exec_on_one_sandbox_and_on_eight },
        { "exec: gone sandboxes and working directories",
          test_exec_of_a_gone_sandbox_and_working_dirs },
        { "files: write, read, append, exclusive, mkdirs",
          test_write_read_append_exclusive_mkdirs },
        { "files: no path leads out of the sandbox", test_paths_never_lead_out },
        { "files: list and remove", test_list_and_remove },
        { "files: open_file opens what read_file reads, refuses what it refuses",
          test_open_file },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("local backend operations", NULL, NULL, tests);
}
