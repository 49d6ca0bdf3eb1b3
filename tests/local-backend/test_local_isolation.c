/*
 * The local backend's isolation=namespaces through the host library, with
 * real commands: what a confined command can no longer see or do (host
 * processes, the host's network, writes outside its directory, mounts and
 * namespaces, more processes or larger files than its limits), and that
 * it still runs as an exec must (exit codes, signals, env, stdin, output,
 * working directories, timeouts that end everything).  Run as root, the
 * suite drops to an unprivileged user first, as a real host should run
 * (docs/local.md, "Isolation").
 */
#include <config.h>

#include "tests/local-backend/local_fixture.h"
#include "tests/local-backend/local_wait.h"
#include "tests/support/backend_calls.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/holders_left.h"
#include "tests/support/http_probe.h"
#include "tests/support/proc_table.h"
#include "tests/support/scratch_dir.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

/* A sandbox "iso" of a backend opened with isolation=`mode` and `extra`
 * (a limit option, or NULL). */
static void fixture_setup_with(fixture *f, const char *tag, const char *mode,
                               const sbx_option *extra)
{
    sbx_local_test_make_dir(f->state_dir, sizeof f->state_dir, tag);
    char outside_tag[128];
    snprintf(outside_tag, sizeof outside_tag, "%s-outside", tag);
    sbx_local_test_make_dir(f->outside, sizeof f->outside, outside_tag);
    f->host = sbx_local_test_new_host(NULL, NULL);
    sbx_option opts[3] = { { "state_dir", f->state_dir }, { "isolation", mode } };
    size_t count = 2;
    if (extra != NULL)
        opts[count++] = *extra;
    f->backend = sbx_local_test_open(f->host, opts, count);
    sbx_error err;
    sbx_sandbox *sb = sbx_test_create(f->backend, "iso", NULL, NULL, &err);
    CU_ASSERT_FATAL(sb != NULL);
    sbx_backend_free_sandboxes(f->backend, sb, 1);
    snprintf(f->dir, sizeof f->dir, "%s/iso", f->state_dir);
}

static void fixture_setup(fixture *f, const char *tag)
{
    fixture_setup_with(f, tag, "namespaces", NULL);
}

static void fixture_teardown(fixture *f)
{
    sbx_error err;
    CU_ASSERT(sbx_backend_destroy(f->backend, "iso", &err) == SBX_OK);
    sbx_backend_close(f->backend);
    sbx_host_free(f->host);
    sbx_test_remove_tree(f->state_dir);
    sbx_test_remove_tree(f->outside);
}

/* Run `req` in "iso"; the result (the caller frees it), fatal when exec
 * fails. */
static sbx_exec_result *exec_request(fixture *f, const sbx_exec_request *req)
{
    sbx_exec_result *out = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_exec(f->backend, "iso", req, &out, &err);
    if (st != SBX_OK)
        fprintf(stderr, "exec: %s\n", err.message);
    CU_ASSERT_FATAL(st == SBX_OK);
    return out;
}

static sbx_exec_result *run_for(fixture *f, const char *text, int64_t timeout_ms)
{
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.shell_command = text;
    r.timeout_ms = timeout_ms;
    return exec_request(f, &r);
}

static sbx_exec_result *run(fixture *f, const char *text)
{
    return run_for(f, text, 0);
}

/* The exit code of shell text (-1 when it did not exit). */
static int exit_of(fixture *f, const char *text)
{
    sbx_exec_result *r = run(f, text);
    int code = r->outcome == SBX_EXEC_EXITED ? r->exit_code : -1;
    sbx_backend_free_exec_result(f->backend, r);
    return code;
}

/* 1 when shell text's stdout is `want`. */
static int output_is(fixture *f, const char *text, const char *want)
{
    sbx_exec_result *r = run(f, text);
    int same = r->outcome == SBX_EXEC_EXITED && strcmp(r->stdout_data, want) == 0;
    if (!same)
        fprintf(stderr, "%s: exit %d, out '%s', err '%s'\n", text, r->exit_code,
                r->stdout_data, r->stderr_data);
    sbx_backend_free_exec_result(f->backend, r);
    return same;
}

static int lines_of(const char *text)
{
    int n = 0;
    for (; *text != '\0'; text++)
        n += *text == '\n';
    return n;
}

/* 1 when `rel` exists in the sandbox directory, seen from the host. */
static int sandbox_has(const fixture *f, const char *rel)
{
    char path[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", f->dir, rel);
    return sbx_local_test_path_exists(path);
}

/* ------------------------------------------------------------ still an exec */

static void test_commands_still_run_as_an_exec(void)
{
    fixture f;
    fixture_setup(&f, "iso run");
    static const struct { const char *text; int code; } exits[] = {
        { "exit 0", 0 }, { "exit 1", 1 }, { "exit 255", 255 }, { "no-such-program-here", 127 },
    };
    for (size_t i = 0; i < sizeof exits / sizeof exits[0]; i++)
        CU_ASSERT(exit_of(&f, exits[i].text) == exits[i].code);
    sbx_exec_result *r = run(&f, "kill -9 $$");
    CU_ASSERT(r->outcome == SBX_EXEC_SIGNALED && r->term_signal == 9);
    sbx_backend_free_exec_result(f.backend, r);
    /* env, stdin, output, HOME and the working directory. */
    sbx_env_var env[] = { { "GREETING", "hi there" } };
    sbx_exec_request req = SBX_EXEC_REQUEST_INIT;
    req.shell_command = "printf '%s|%s|' \"$GREETING\" \"$HOME\"; pwd; cat";
    req.env = env;
    req.env_count = 1;
    req.stdin_data = "from stdin";
    req.stdin_length = 10;
    r = exec_request(&f, &req);
    char want[3 * PATH_MAX];
    snprintf(want, sizeof want, "hi there|%s|%s\nfrom stdin", f.dir, f.dir);
    CU_ASSERT(r->exit_code == 0);
    CU_ASSERT_STRING_EQUAL(r->stdout_data, want);
    sbx_backend_free_exec_result(f.backend, r);
    CU_ASSERT(exit_of(&f, "mkdir -p sub/deeper && echo made > sub/deeper/f") == 0);
    sbx_exec_request in_sub = SBX_EXEC_REQUEST_INIT;
    in_sub.shell_command = "pwd; cat f";
    in_sub.working_dir = "sub/deeper";
    r = exec_request(&f, &in_sub);
    snprintf(want, sizeof want, "%s/sub/deeper\nmade\n", f.dir);
    CU_ASSERT_STRING_EQUAL(r->stdout_data, want);
    sbx_backend_free_exec_result(f.backend, r);
    /* What the command wrote is on the host, in the sandbox directory. */
    CU_ASSERT(sandbox_has(&f, "sub/deeper/f"));
    fixture_teardown(&f);
}

/* ------------------------------------------------------------ what it cannot see */

static void test_sees_only_its_own_processes(void)
{
    fixture f;
    fixture_setup(&f, "iso pid");
    /* The shell's own listing: the namespace's init and the shell. */
    sbx_exec_result *r = run(&f, "for p in /proc/[0-9]*; do echo ${p#/proc/}; done");
    CU_ASSERT(r->exit_code == 0);
    CU_ASSERT(lines_of(r->stdout_data) >= 1 && lines_of(r->stdout_data) <= 3);
    char mine[32];
    snprintf(mine, sizeof mine, "%ld\n", (long)getpid());
    CU_ASSERT(strstr(r->stdout_data, mine) == NULL);
    sbx_backend_free_exec_result(f.backend, r);
    if (access("/usr/bin/ps", X_OK) == 0) {
        r = run(&f, "ps -e -o pid=");
        CU_ASSERT(r->exit_code == 0);
        CU_ASSERT(lines_of(r->stdout_data) >= 1 && lines_of(r->stdout_data) <= 4);
        sbx_backend_free_exec_result(f.backend, r);
    }
    /* Another exec's processes are not there either. */
    CU_ASSERT(output_is(&f, "echo $$", "2\n"));
    fixture_teardown(&f);
}

/* Write `text` to the file `path`; 1 when all of it was written. */
static int put(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text);
}

/* A listener of the test's on 127.0.0.1; its port into *port. */
static int host_listener(int *port)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    CU_ASSERT_FATAL(s >= 0 && bind(s, (struct sockaddr *)&a, sizeof a) == 0 &&
                    listen(s, 16) == 0 && getsockname(s, (struct sockaddr *)&a, &len) == 0);
    *port = ntohs(a.sin_port);
    return s;
}

static void test_network_is_only_its_own_loopback(void)
{
    int port;
    int s = host_listener(&port);
    char text[128];
    snprintf(text, sizeof text, "exec bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d'", port);
    /* The control: without isolation the host's listener is reached. */
    fixture f;
    fixture_setup_with(&f, "iso net none", "none", NULL);
    CU_ASSERT(exit_of(&f, text) == 0);
    fixture_teardown(&f);
    fixture_setup(&f, "iso net");
    CU_ASSERT(exit_of(&f, text) == 1);
    /* Only "lo" (two header lines, one interface), and it is up: the
     * command's own server on 127.0.0.1 is reachable from inside. */
    CU_ASSERT(output_is(&f, "grep -c : /proc/net/dev", "1\n"));
    CU_ASSERT(output_is(&f, "grep -o 'lo:' /proc/net/dev", "lo:\n"));
    CU_ASSERT(exit_of(&f, "cat /sys/class/net/eth0/address") != 0);
    fixture_teardown(&f);
    close(s);
}

/* ------------------------------------------------------------ what it cannot do */

/* 1 when `path` exists on the host (reporting it). */
static int exists_on_host(const char *path)
{
    int there = sbx_local_test_path_exists(path);
    if (there)
        fprintf(stderr, "written outside the sandbox: %s\n", path);
    return there;
}

static void test_writes_outside_the_sandbox_directory_fail(void)
{
    fixture f;
    fixture_setup(&f, "iso write");
    char text[3 * PATH_MAX], path[2 * PATH_MAX];
    snprintf(text, sizeof text, "echo x > '%s/f'", f.outside);
    CU_ASSERT(exit_of(&f, text) != 0);
    /* Made inside (the sandbox's parents are a private tmpfs): still
     * nothing on the host. */
    snprintf(text, sizeof text, "mkdir -p '%s' && echo x > '%s/f'", f.outside, f.outside);
    exit_of(&f, text);
    snprintf(path, sizeof path, "%s/f", f.outside);
    CU_ASSERT(!exists_on_host(path));
    snprintf(text, sizeof text, "echo x > '%s/beside'", f.state_dir);
    exit_of(&f, text);
    snprintf(path, sizeof path, "%s/beside", f.state_dir);
    CU_ASSERT(!exists_on_host(path));
    static const char *const system_paths[] = { "/etc/sbx-iso-probe", "/usr/sbx-iso-probe",
                                                "/usr/bin/sbx-iso-probe", "/sbx-iso-probe" };
    for (size_t i = 0; i < sizeof system_paths / sizeof system_paths[0]; i++) {
        snprintf(text, sizeof text, "echo x > %s", system_paths[i]);
        CU_ASSERT(exit_of(&f, text) != 0);
        CU_ASSERT(!exists_on_host(system_paths[i]));
    }
    /* Its own directory and its private /tmp are writable. */
    CU_ASSERT(exit_of(&f, "echo x > mine && echo y > /tmp/scratch && cat /tmp/scratch") == 0);
    CU_ASSERT(sandbox_has(&f, "mine"));
    fixture_teardown(&f);
}

static void test_mount_unshare_and_new_privileges_are_refused(void)
{
    fixture f;
    fixture_setup(&f, "iso seccomp");
    /* An unprivileged user may make a user namespace; the filter says no. */
    static const char *const refused[] = { "unshare -U true", "unshare -Urn true",
                                           "unshare -Urm true" };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        sbx_exec_result *r = run(&f, refused[i]);
        CU_ASSERT(r->outcome == SBX_EXEC_EXITED && r->exit_code != 0);
        CU_ASSERT(strstr(r->stderr_data, "Operation not permitted") != NULL);
        sbx_backend_free_exec_result(f.backend, r);
    }
    CU_ASSERT(output_is(&f, "grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status | tr -d ' \\t'",
                        "NoNewPrivs:1\nSeccomp:2\n"));
    if (access("/usr/bin/python3", X_OK) == 0)
        CU_ASSERT(output_is(&f,
                            "python3 -c 'import ctypes; c = ctypes.CDLL(None, use_errno=True); "
                            "print(c.mount(b\"none\", b\"/tmp\", b\"tmpfs\", 0, None), "
                            "ctypes.get_errno(), c.syscall(101, 0, 0, 0), "
                            "ctypes.get_errno())'",
                            "-1 1 -1 1\n"));
    fixture_teardown(&f);
}

static void test_processes_past_the_limit_are_refused(void)
{
    fixture f;
    sbx_option limit = { "limit_processes", "8" };
    fixture_setup_with(&f, "iso nproc", "namespaces", &limit);
    sbx_exec_result *r = run_for(&f, "i=0; while [ $i -lt 30 ]; do sleep 30 & i=$((i+1)); done; "
                                     "echo started all", 60000);
    CU_ASSERT(r->outcome == SBX_EXEC_EXITED && r->exit_code != 0);
    CU_ASSERT(strstr(r->stdout_data, "started all") == NULL);
    CU_ASSERT(strstr(r->stderr_data, "fork") != NULL);
    sbx_backend_free_exec_result(f.backend, r);
    /* Below the limit all is well. */
    CU_ASSERT(exit_of(&f, "sleep 0 & sleep 0 & wait") == 0);
    fixture_teardown(&f);
}

static void test_files_past_the_size_limit_fail(void)
{
    fixture f;
    sbx_option limit = { "limit_file_bytes", "65536" };
    fixture_setup_with(&f, "iso fsize", "namespaces", &limit);
    /* SIGXFSZ (25) ends the writer: the shell says 128 + 25. */
    CU_ASSERT(output_is(&f, "head -c 200000 /dev/zero > big; echo $?", "153\n"));
    char path[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/big", f.dir);
    struct stat st;
    CU_ASSERT(stat(path, &st) == 0 && st.st_size <= 65536);
    CU_ASSERT(output_is(&f, "head -c 65536 /dev/zero > small; echo $?", "0\n"));
    fixture_teardown(&f);
}

/* ------------------------------------------------------------ escapes */

/* A file of the test's holding "marker" at `path`. */
static void place_marker(const char *path)
{
    sbx_local_test_write_file(path, "marker\n");
}

/* 1 when shell text fails and says nothing of the marker. */
static int fails_without_marker(fixture *f, const char *text)
{
    sbx_exec_result *r = run(f, text);
    int ok = !(r->outcome == SBX_EXEC_EXITED && r->exit_code == 0) &&
             strstr(r->stdout_data, "marker") == NULL;
    if (!ok)
        fprintf(stderr, "%s: exit %d, out '%s'\n", text, r->exit_code, r->stdout_data);
    sbx_backend_free_exec_result(f->backend, r);
    return ok;
}

static void test_markers_outside_the_sandbox_cannot_be_read(void)
{
    fixture f;
    fixture_setup(&f, "iso markers");
    char host_tmp[64], outside[2 * PATH_MAX], other[2 * PATH_MAX + 16], text[5 * PATH_MAX];
    snprintf(host_tmp, sizeof host_tmp, "/tmp/sbx-iso-marker-%ld", (long)getpid());
    place_marker(host_tmp);
    snprintf(outside, sizeof outside, "%s/marker", f.outside);
    place_marker(outside);
    sbx_error err;
    sbx_sandbox *sb = sbx_test_create(f.backend, "other", NULL, NULL, &err);
    CU_ASSERT_FATAL(sb != NULL);
    sbx_backend_free_sandboxes(f.backend, sb, 1);
    snprintf(other, sizeof other, "%s/other/secret", f.state_dir);
    place_marker(other);
    const char *const paths[] = { host_tmp, outside, other };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        snprintf(text, sizeof text, "cat '%s'", paths[i]);
        CU_ASSERT(fails_without_marker(&f, text));
    }
    /* The state directory shows only this sandbox; no record, no home. */
    snprintf(text, sizeof text, "cat '%s/iso.json' '%s/other.json'", f.state_dir, f.state_dir);
    CU_ASSERT(fails_without_marker(&f, text));
    snprintf(text, sizeof text, "ls -A '%s'", f.state_dir);
    CU_ASSERT(output_is(&f, text, "iso\n"));
    CU_ASSERT(exit_of(&f, "test -e /root || test -e /home || test -e /var") == 1);
    /* The host and the other sandbox are as they were. */
    CU_ASSERT(exit_of(&f, "echo mine > /tmp/mine") == 0);
    CU_ASSERT(sbx_local_test_path_exists(other) && !sbx_local_test_path_exists("/tmp/mine"));
    CU_ASSERT(sbx_backend_destroy(f.backend, "other", &err) == SBX_OK);
    unlink(host_tmp);
    fixture_teardown(&f);
}

static void test_symlinks_made_inside_lead_nowhere(void)
{
    fixture f;
    fixture_setup(&f, "iso links");
    char marker[2 * PATH_MAX], text[5 * PATH_MAX];
    snprintf(marker, sizeof marker, "%s/marker", f.outside);
    place_marker(marker);
    snprintf(text, sizeof text, "ln -s '%s' out && ln -s /etc/hostname etc && ln -s / root", marker);
    CU_ASSERT(exit_of(&f, text) == 0);
    CU_ASSERT(fails_without_marker(&f, "cat out"));
    /* Through the host's file operations: refused, nothing read or written. */
    const char *const links[] = { "out", "etc", "root/etc/hostname" };
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        sbx_file_content *c = NULL;
        sbx_error err;
        CU_ASSERT(sbx_backend_read_file(f.backend, "iso", links[i], 0, 4096, &c, &err) ==
                  SBX_ERR_REFUSED);
        CU_ASSERT(sbx_backend_write_file(f.backend, "iso", links[i], "x", 1, 0, 0644, &err) ==
                  SBX_ERR_REFUSED);
    }
    FILE *in = fopen(marker, "r");
    char line[32] = "";
    CU_ASSERT(in != NULL && fgets(line, sizeof line, in) != NULL);
    CU_ASSERT_STRING_EQUAL(line, "marker\n");
    if (in != NULL)
        fclose(in);
    fixture_teardown(&f);
}

static void test_host_processes_cannot_be_signalled_or_traced(void)
{
    fixture f;
    fixture_setup(&f, "iso signal");
    char text[256];
    snprintf(text, sizeof text, "kill -0 %ld", (long)getpid());
    CU_ASSERT(exit_of(&f, text) != 0);
    /* Nor is the exec's init readable through /proc (it may share the
     * host's memory): its command line (the host's), environment, maps,
     * memory, descriptors, threads, root. */
    CU_ASSERT(exit_of(&f, "cat /proc/1/cmdline") != 0);
    CU_ASSERT(exit_of(&f, "cat /proc/1/task/1/cmdline") != 0);
    CU_ASSERT(exit_of(&f, "cat /proc/1/environ") != 0);
    CU_ASSERT(exit_of(&f, "cat /proc/1/maps") != 0);
    CU_ASSERT(exit_of(&f, "head -c 1 /proc/1/mem") != 0);
    CU_ASSERT(exit_of(&f, "ls /proc/1/fd") != 0);
    CU_ASSERT(exit_of(&f, "ls /proc/1/root/") != 0);
    if (access("/usr/bin/python3", X_OK) == 0) {
        /* PTRACE_ATTACH (16) of its own pid 1 and of the host's pid. */
        snprintf(text, sizeof text,
                 "python3 -c 'import ctypes; c = ctypes.CDLL(None, use_errno=True); "
                 "print(c.ptrace(16, 1, 0, 0), ctypes.get_errno(), "
                 "c.ptrace(16, %ld, 0, 0), ctypes.get_errno())'", (long)getpid());
        CU_ASSERT(output_is(&f, text, "-1 1 -1 1\n"));
    }
    fixture_teardown(&f);
}

static void test_fork_and_memory_bombs_are_contained(void)
{
    fixture f;
    sbx_option limit = { "limit_processes", "32" };
    fixture_setup_with(&f, "iso bombs", "namespaces", &limit);
    /* However it ends (forks refused, the timeout), it ends. */
    sbx_exec_result *r = run_for(&f, "b() { b | b & }; b; wait", 3000);
    sbx_backend_free_exec_result(f.backend, r);
    /* Nothing of it is left (this shell alone: the init is hidden), and
     * the sandbox still runs commands. */
    CU_ASSERT(output_is(&f, "set -- /proc/[0-9]*; echo $#", "1\n"));
    fixture_teardown(&f);
    limit = (sbx_option){ "limit_address_bytes", "268435456" };
    fixture_setup_with(&f, "iso memory", "namespaces", &limit);
    /* awk doubles a string until it cannot allocate. */
    r = run_for(&f, "awk 'BEGIN { s = \"x\"; while (1) s = s s }'", 60000);
    CU_ASSERT(r->outcome != SBX_EXEC_TIMED_OUT);
    CU_ASSERT(!(r->outcome == SBX_EXEC_EXITED && r->exit_code == 0));
    sbx_backend_free_exec_result(f.backend, r);
    CU_ASSERT(exit_of(&f, "true") == 0);
    fixture_teardown(&f);
}

static void test_cpu_time_past_the_limit_ends_the_command(void)
{
    fixture f;
    sbx_option limit = { "limit_cpu_seconds", "1" };
    fixture_setup_with(&f, "iso cpu", "namespaces", &limit);
    /* SIGXCPU (24) at the soft limit: a shell loop does not catch it. */
    sbx_exec_result *r = run_for(&f, "exec sh -c 'while :; do :; done'", 120000);
    CU_ASSERT(r->outcome == SBX_EXEC_SIGNALED &&
              (r->term_signal == SIGXCPU || r->term_signal == SIGKILL));
    sbx_backend_free_exec_result(f.backend, r);
    fixture_teardown(&f);
}

static void test_without_a_holder_exec_builds_its_own_namespaces(void)
{
    /* Made with isolation=none (no holder), run with namespaces. */
    fixture f;
    fixture_setup_with(&f, "iso no holder", "none", NULL);
    CU_ASSERT(sbx_local_test_metadata_long(f.state_dir, "iso", "holder_pid") == 0);
    sbx_option opts[2] = { { "state_dir", f.state_dir }, { "isolation", "namespaces" } };
    sbx_backend *isolated = sbx_local_test_open(f.host, opts, 2);
    sbx_backend *plain = f.backend;
    f.backend = isolated;
    CU_ASSERT(output_is(&f, "echo $$; test -e /root || echo no-root", "2\nno-root\n"));
    /* Its init is a fork of the host's: hidden all the same. */
    CU_ASSERT(exit_of(&f, "cat /proc/1/cmdline") != 0);
    CU_ASSERT(exit_of(&f, "echo x > made") == 0);
    CU_ASSERT(sandbox_has(&f, "made"));
    sbx_backend_close(isolated);
    f.backend = plain;
    fixture_teardown(&f);
}

static void test_files_persist_between_execs_processes_do_not(void)
{
    fixture f;
    fixture_setup(&f, "iso persist");
    CU_ASSERT(exit_of(&f, "echo kept > /tmp/k && echo dir > d && (sleep 987660 &) ; true") == 0);
    CU_ASSERT(output_is(&f, "cat /tmp/k d", "kept\ndir\n"));
    sbx_exec_result *r = run(&f, "cat /proc/[0-9]*/cmdline | tr '\\000' ' '");
    CU_ASSERT(strstr(r->stdout_data, "987660") == NULL);
    sbx_backend_free_exec_result(f.backend, r);
    fixture_teardown(&f);
}

/* ------------------------------------------------------------ nothing outlives it */

static int gone_within_deadline(const char *word)
{
    return sbx_local_test_wait_no_process_with(word, GONE_DEADLINE_MS);
}

/* How many children the test process has, zombies included (the exec's
 * launcher and init are children of the calling thread until reaped). */
static int host_children(void)
{
    int count = 0;
    DIR *tasks = opendir("/proc/self/task");
    struct dirent *e;
    while (tasks != NULL && (e = readdir(tasks)) != NULL) {
        char path[300], list[4096];
        snprintf(path, sizeof path, "/proc/self/task/%s/children", e->d_name);
        FILE *fp = e->d_name[0] == '.' ? NULL : fopen(path, "r");
        if (fp == NULL)
            continue;
        size_t n = fread(list, 1, sizeof list - 1, fp);
        fclose(fp);
        list[n] = '\0';
        for (char *word = strtok(list, " \n"); word != NULL; word = strtok(NULL, " \n"))
            count++;
    }
    if (tasks != NULL)
        closedir(tasks);
    return count;
}

static void test_timeouts_and_exits_end_every_process(void)
{
    fixture f;
    fixture_setup(&f, "iso timeout");
    long start = sbx_test_now_ms();
    sbx_exec_result *r = run_for(&f, "setsid sleep 987651 & sleep 987652 & sleep 987653", 300);
    CU_ASSERT(r->outcome == SBX_EXEC_TIMED_OUT);
    CU_ASSERT(sbx_test_now_ms() - start < 20000);
    sbx_backend_free_exec_result(f.backend, r);
    CU_ASSERT(host_children() == 0);
    CU_ASSERT(!sbx_local_test_host_has_process_with("987651"));
    CU_ASSERT(gone_within_deadline("987651") && gone_within_deadline("987652") &&
              gone_within_deadline("987653"));
    /* A daemon left behind by a command that exits is ended too. */
    r = run(&f, "setsid sleep 987654 & (sleep 987655 &) ; echo left");
    CU_ASSERT(r->outcome == SBX_EXEC_EXITED && r->exit_code == 0);
    sbx_backend_free_exec_result(f.backend, r);
    CU_ASSERT(host_children() == 0);
    CU_ASSERT(!sbx_local_test_host_has_process_with("987654"));
    CU_ASSERT(gone_within_deadline("987654") && gone_within_deadline("987655"));
    fixture_teardown(&f);
}

/* One thread's execs: each in its own namespaces, writing its own file. */
typedef struct thread_job {
    fixture *f;
    int index;
    int failures;
} thread_job;

/* An exec left running while the sandbox is destroyed. */
static void *exec_until_destroyed(void *p)
{
    fixture *f = p;
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    /* `started` says the exec is under way (its processes forked). */
    r.shell_command = "setsid sleep 987671 & touch started; sleep 987672";
    r.timeout_ms = 120000;
    sbx_exec_result *out = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_exec(f->backend, "iso", &r, &out, &err);
    if (st == SBX_OK)
        sbx_backend_free_exec_result(f->backend, out);
    return (void *)(intptr_t)st;
}

static void test_destroy_ends_the_holder_and_every_process(void)
{
    fixture f;
    fixture_setup(&f, "iso destroy");
    long holder = sbx_local_test_metadata_long(f.state_dir, "iso", "holder_pid");
    CU_ASSERT_FATAL(holder > 0);
    CU_ASSERT(!sbx_local_test_process_gone(holder));
    pthread_t t;
    CU_ASSERT_FATAL(pthread_create(&t, NULL, exec_until_destroyed, &f) == 0);
    char started[PATH_MAX + 64];
    snprintf(started, sizeof started, "%s/iso/started", f.state_dir);
    CU_ASSERT(sbx_local_test_wait_path(started, GONE_DEADLINE_MS));
    sbx_error err;
    CU_ASSERT(sbx_backend_destroy(f.backend, "iso", &err) == SBX_OK);
    void *st = NULL;
    pthread_join(t, &st);
    CU_ASSERT((sbx_status)(intptr_t)st == SBX_ERR_NOT_FOUND);
    CU_ASSERT(gone_within_deadline("987671") && gone_within_deadline("987672"));
    CU_ASSERT(sbx_local_test_process_gone(holder));
    sbx_backend_close(f.backend);
    sbx_host_free(f.host);
    sbx_test_remove_tree(f.state_dir);
    sbx_test_remove_tree(f.outside);
}

/* Wait until no holder of this program runs, on each one's pidfd; 1 when
 * none is left. */
static int holders_gone_within_deadline(void)
{
    long deadline = sbx_test_now_ms() + GONE_DEADLINE_MS, holder;
    while (sbx_test_holders_left(&holder) > 0)
        if (!sbx_test_wait_process_end(holder, deadline))
            return 0;
    return 1;
}

/* The holder starts before the record is written: a create that cannot
 * write it (here a directory in the way of its temporary file) fails,
 * leaves nothing, and its holder ends. */
static void test_create_that_cannot_record_leaves_no_holder(void)
{
    char state_dir[PATH_MAX], tmp[PATH_MAX + 32], inside[PATH_MAX + 40];
    sbx_local_test_make_dir(state_dir, sizeof state_dir, "iso unrecorded");
    snprintf(tmp, sizeof tmp, "%s/.x.json.tmp", state_dir);
    snprintf(inside, sizeof inside, "%s/keep", tmp);
    sbx_host *host = sbx_local_test_new_host(NULL, NULL);
    sbx_option opts[2] = { { "state_dir", state_dir }, { "isolation", "namespaces" } };
    sbx_backend *backend = sbx_local_test_open(host, opts, 2);
    CU_ASSERT_FATAL(mkdir(tmp, 0700) == 0 && mkdir(inside, 0700) == 0);
    for (int i = 0; i < 3; i++) {
        sbx_error err;
        sbx_sandbox *sb = sbx_test_create(backend, "x", NULL, NULL, &err);
        CU_ASSERT(sb == NULL && strstr(err.message, ".x.json.tmp") != NULL);
        if (sb != NULL)
            sbx_backend_free_sandboxes(backend, sb, 1);
        CU_ASSERT(holders_gone_within_deadline());
    }
    char dir[PATH_MAX + 8], record[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s/x", state_dir);
    snprintf(record, sizeof record, "%s/x.json", state_dir);
    CU_ASSERT(!sbx_local_test_path_exists(dir) && !sbx_local_test_path_exists(record));
    sbx_backend_close(backend);
    sbx_host_free(host);
    sbx_test_remove_tree(state_dir);
}

static void *exec_many(void *p)
{
    thread_job *job = p;
    for (int i = 0; i < 4; i++) {
        char text[96];
        snprintf(text, sizeof text, "echo $$ > t%d-%d && cat t%d-%d", job->index, i,
                 job->index, i);
        sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
        r.shell_command = text;
        sbx_exec_result *out = NULL;
        sbx_error err;
        if (sbx_backend_exec(job->f->backend, "iso", &r, &out, &err) != SBX_OK) {
            job->failures++;
            continue;
        }
        job->failures += out->exit_code != 0 || strcmp(out->stdout_data, "2\n") != 0;
        sbx_backend_free_exec_result(job->f->backend, out);
    }
    return NULL;
}

static void test_eight_threads_exec_isolated_at_once(void)
{
    fixture f;
    fixture_setup(&f, "iso threads");
    pthread_t threads[8];
    thread_job jobs[8];
    for (int i = 0; i < 8; i++) {
        jobs[i] = (thread_job){ &f, i, 0 };
        CU_ASSERT_FATAL(pthread_create(&threads[i], NULL, exec_many, &jobs[i]) == 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(threads[i], NULL);
        CU_ASSERT(jobs[i].failures == 0);
    }
    CU_ASSERT(sandbox_has(&f, "t7-3") && sandbox_has(&f, "t0-0"));
    fixture_teardown(&f);
}

/* In a child of the test's, in a user namespace of its own that may make
 * no more (max_user_namespaces 0, as a host that forbids them): a create
 * must fail naming the option and what is missing, leaving no sandbox,
 * and an exec in the sandbox made outside (whose namespaces this one
 * cannot join) must fail without running.  The child's exit code: 0 when
 * all did, else the step that went wrong. */
static int where_user_namespaces_are_forbidden(fixture *f)
{
    char map[32];
    snprintf(map, sizeof map, "0 %u 1", (unsigned)geteuid());
    prctl(PR_SET_DUMPABLE, 1L, 0L, 0L, 0L);
    if (unshare(CLONE_NEWUSER) != 0 || !put("/proc/self/setgroups", "deny") ||
        !put("/proc/self/uid_map", map) || !put("/proc/sys/user/max_user_namespaces", "0"))
        return 2;
    sbx_error err;
    sbx_sandbox *sb = NULL;
    sbx_create_request c = SBX_CREATE_REQUEST_INIT;
    c.sandbox_id = "iso-forbidden";
    if (sbx_backend_create(f->backend, &c, &sb, &err) != SBX_ERR_UNSUPPORTED)
        return 3;
    if (strstr(err.message, "isolation=namespaces: cannot create user, mount, pid") == NULL ||
        strstr(err.message, "max_user_namespaces") == NULL ||
        strstr(err.message, "isolation=none") == NULL)
        return 4;
    char left[PATH_MAX + 32];
    snprintf(left, sizeof left, "%s/iso-forbidden", f->state_dir);
    if (access(left, F_OK) == 0)
        return 5;
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.shell_command = "touch ran";
    sbx_exec_result *out = NULL;
    if (sbx_backend_exec(f->backend, "iso", &r, &out, &err) != SBX_ERR_UNSUPPORTED)
        return 6;
    return strstr(err.message, "isolation=namespaces: cannot join") != NULL ? 0 : 7;
}

static void test_without_user_namespaces_create_and_exec_fail(void)
{
    fixture f;
    fixture_setup(&f, "iso forbidden");
    pid_t child = fork();
    CU_ASSERT_FATAL(child >= 0);
    if (child == 0)
        _exit(where_user_namespaces_are_forbidden(&f));
    int status = -1;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CU_ASSERT(!sandbox_has(&f, "ran"));
    /* Outside that namespace the same exec runs. */
    CU_ASSERT(exit_of(&f, "touch ran") == 0);
    CU_ASSERT(sandbox_has(&f, "ran"));
    fixture_teardown(&f);
}

/* ------------------------------------------------------------ the sandbox's command */

/* Open a backend with isolation=namespaces, network=`network` and
 * `command`, in a new state directory (and a directory beside it). */
static void command_setup(fixture *f, const char *tag, const char *network,
                          const char *command, const char *ready_ms)
{
    sbx_local_test_make_dir(f->state_dir, sizeof f->state_dir, tag);
    char outside_tag[128];
    snprintf(outside_tag, sizeof outside_tag, "%s-outside", tag);
    sbx_local_test_make_dir(f->outside, sizeof f->outside, outside_tag);
    f->host = sbx_local_test_new_host(NULL, NULL);
    sbx_option opts[] = { { "state_dir", f->state_dir }, { "isolation", "namespaces" },
                          { "network", network }, { "command", command },
                          { "ready_timeout_ms", ready_ms } };
    f->backend = sbx_local_test_open(f->host, opts, sizeof opts / sizeof opts[0]);
    snprintf(f->dir, sizeof f->dir, "%s/iso", f->state_dir);
}

/* The text of the sandbox directory's file `rel` ("" when there is none). */
static void sandbox_text(const fixture *f, const char *rel, char *out, size_t size)
{
    char path[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", f->dir, rel);
    out[0] = '\0';
    FILE *in = fopen(path, "r");
    if (in == NULL)
        return;
    size_t n = fread(out, 1, size - 1, in);
    out[n] = '\0';
    fclose(in);
}

/* 1 when the sandbox directory's file `rel` holds `want` (reporting it). */
static int sandbox_says(const fixture *f, const char *rel, const char *want)
{
    char text[4096];
    sandbox_text(f, rel, text, sizeof text);
    if (strcmp(text, want) != 0)
        fprintf(stderr, "%s: '%s', not '%s'\n", rel, text, want);
    return strcmp(text, want) == 0;
}

/* The server command of the sandbox, after probes of what it sees, each
 * written into the sandbox directory: its shell's pid, whether /home,
 * /root or /var exist, a host marker at `marker`, and whether the host's
 * listener on `port` answers. */
static void probing_command(char *out, size_t size, const char *marker, int port)
{
    snprintf(out, size,
             "echo $$ > {dir}/pid; ls /proc | grep -c '^[0-9]' > {dir}/procs; "
             "test -e /home -o -e /root -o -e /var; echo $? > {dir}/root; "
             "cat '%s' > {dir}/marker 2>&1; "
             "if bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d' 2>/dev/null; then echo reached; "
             "else echo refused; fi > {dir}/net; %s", marker, port,
             sbx_local_test_server_command());
}

/* Create "iso" and check what its command saw: its own pid namespace (its
 * shell is pid 2 after the init, a handful of processes), the private
 * root, no host marker.  The sandbox's URL into `url`. */
static void create_and_check_view(fixture *f, char *url, size_t size)
{
    sbx_error err;
    sbx_sandbox *sb = sbx_test_create(f->backend, "iso", NULL, NULL, &err);
    if (sb == NULL)
        fprintf(stderr, "create: %s\n", err.message);
    CU_ASSERT_FATAL(sb != NULL);
    snprintf(url, size, "%s", sb->sandbox_url);
    sbx_backend_free_sandboxes(f->backend, sb, 1);
    char procs[64], marker[4096];
    CU_ASSERT(sandbox_says(f, "pid", "2\n") && sandbox_says(f, "root", "1\n"));
    sandbox_text(f, "procs", procs, sizeof procs);
    CU_ASSERT(atoi(procs) > 0 && atoi(procs) < 10);
    sandbox_text(f, "marker", marker, sizeof marker);
    CU_ASSERT(strstr(marker, "marker") == NULL && marker[0] != '\0');
    CU_ASSERT(sbx_local_test_host_has_process_with(f->dir));
}

/* Destroy "iso": its command's processes leave the host's process table. */
static void destroy_and_check_gone(fixture *f)
{
    sbx_error err;
    long pid = sbx_local_test_metadata_pid(f->state_dir, "iso");
    long holder = sbx_local_test_metadata_long(f->state_dir, "iso", "holder_pid");
    CU_ASSERT(sbx_backend_destroy(f->backend, "iso", &err) == SBX_OK);
    CU_ASSERT(sbx_local_test_process_gone(pid) && sbx_local_test_process_gone(holder));
    CU_ASSERT(sbx_local_test_wait_no_process_with(f->dir, GONE_DEADLINE_MS));
    sbx_backend_close(f->backend);
    sbx_host_free(f->host);
    sbx_test_remove_tree(f->state_dir);
    sbx_test_remove_tree(f->outside);
}

/* Run the probing server command in a sandbox with network=`network`,
 * check its view, then what `check` says of its URL, then destroy it. */
static void serve_probed(const char *network, void (*check)(fixture *f, const char *url))
{
    if (sbx_local_test_server_command() == NULL)
        return;
    int host_port;
    int s = host_listener(&host_port);
    fixture f;
    char command[4 * PATH_MAX], marker[64], url[PATH_MAX + 32], tag[64];
    snprintf(marker, sizeof marker, "/tmp/sbx-iso-command-probe-%ld", (long)getpid());
    place_marker(marker);
    probing_command(command, sizeof command, marker, host_port);
    snprintf(tag, sizeof tag, "iso cmd %s", network);
    command_setup(&f, tag, network, command, SBX_TEST_READY_TIMEOUT_MS);
    create_and_check_view(&f, url, sizeof url);
    check(&f, url);
    destroy_and_check_gone(&f);
    unlink(marker);
    close(s);
}

/* Nothing outside reaches its port, so its URL is its directory; it did
 * not reach the host's listener either; an exec shares its loopback (and
 * create returned once it served there). */
static void served_only_inside(fixture *f, const char *url)
{
    char want[PATH_MAX + 16];
    snprintf(want, sizeof want, "file://%s", f->dir);
    CU_ASSERT(strcmp(url, want) == 0);
    CU_ASSERT(sandbox_says(f, "net", "refused\n"));
    long port = sbx_local_test_metadata_long(f->state_dir, "iso", "port");
    char host_url[64], text[128];
    snprintf(host_url, sizeof host_url, "http://127.0.0.1:%ld/", port);
    CU_ASSERT(port > 0 && sbx_test_http_get_once(host_url, 5000) == -1);
    snprintf(text, sizeof text, "exec bash -c 'exec 3<>/dev/tcp/127.0.0.1/%ld'", port);
    CU_ASSERT(exit_of(f, text) == 0);
}

/* The explicit choice: the host's network, both ways. */
static void served_to_the_host(fixture *f, const char *url)
{
    CU_ASSERT(strncmp(url, "http://127.0.0.1:", 17) == 0);
    CU_ASSERT(sbx_test_http_get_once(url, 30000) == 200);
    CU_ASSERT(sandbox_says(f, "net", "reached\n"));
    /* Its execs join the same (the host's) network. */
    char text[PATH_MAX + 96];
    snprintf(text, sizeof text, "exec bash -c 'exec 3<>/dev/tcp/127.0.0.1/%s'", url + 17);
    CU_ASSERT(exit_of(f, text) == 0);
}

/* The host reaches the command through the forwarded port (several
 * connections at once, a body both ways), while the command still cannot
 * reach the host's listener. */
static void served_forwarded(fixture *f, const char *url)
{
    CU_ASSERT(strncmp(url, "http://127.0.0.1:", 17) == 0);
    CU_ASSERT(sandbox_says(f, "net", "refused\n"));
    char path[2 * PATH_MAX], file_url[PATH_MAX + 64], big[200001];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    snprintf(path, sizeof path, "%s/big.txt", f->dir);
    sbx_local_test_write_file(path, big);
    snprintf(file_url, sizeof file_url, "%s/big.txt", url);
    for (int i = 0; i < 3; i++) {
        char *body = NULL;
        CU_ASSERT(sbx_test_http_get(file_url, 30000, &body) == 200);
        CU_ASSERT(body != NULL && strcmp(body, big) == 0);
        free(body);
    }
}

static void test_command_without_network_serves_only_inside(void)
{
    serve_probed("none", served_only_inside);
}

static void test_command_with_host_network_serves_the_host(void)
{
    serve_probed("host", served_to_the_host);
}

static void test_command_with_a_forwarded_port_serves_the_host(void)
{
    serve_probed("forward", served_forwarded);
}

static void test_command_without_network_that_never_serves_fails_create(void)
{
    static const struct { const char *network, *command, *says; } cases[] = {
        { "none", "exec sleep 987681", "inside the sandbox (network=none) within 300 ms" },
        { "none", "exit 3", "exited with status 3" },
        { "none", "kill -9 $$", "killed by signal 9" },
        /* The forwarded port listens only once the command serves. */
        { "forward", "exec sleep 987681", "within 300 ms (ready_timeout_ms" },
        { "forward", "exit 3", "exited with status 3" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fixture f;
        command_setup(&f, "iso cmd never", cases[i].network, cases[i].command, "300");
        sbx_error err;
        sbx_sandbox *sb = sbx_test_create(f.backend, "iso", NULL, NULL, &err);
        CU_ASSERT(sb == NULL && err.kind == SBX_ERR_TRANSPORT);
        if (sb == NULL && strstr(err.message, cases[i].says) == NULL)
            fprintf(stderr, "create: %s\n", err.message);
        CU_ASSERT(sb == NULL && strstr(err.message, cases[i].says) != NULL);
        CU_ASSERT(sb == NULL && strstr(err.message, "left for destroy") != NULL);
        CU_ASSERT(sbx_backend_destroy(f.backend, "iso", &err) == SBX_OK);
        CU_ASSERT(gone_within_deadline("987681"));
        sbx_backend_close(f.backend);
        sbx_host_free(f.host);
        sbx_test_remove_tree(f.state_dir);
        sbx_test_remove_tree(f.outside);
    }
}

static void test_isolation_option_values(void)
{
    char state_dir[PATH_MAX];
    sbx_local_test_make_dir(state_dir, sizeof state_dir, "iso options");
    sbx_host *host = sbx_local_test_new_host(NULL, NULL);
    static const char *const bad[][2] = {
        { "isolation", "bwrap" }, { "isolation", "" }, { "limit_processes", "-1" },
        { "limit_file_bytes", "lots" }, { "network", "bridge" }, { "network", "" },
        /* Never root; and an unprivileged host runs nothing as another. */
        { "sandbox_uid", "0" }, { "sandbox_gid", "0" }, { "sandbox_uid", "many" },
        { "sandbox_uid", "12345" }, { "sandbox_gid", "12345" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sbx_option opts[2] = { { "state_dir", state_dir }, { bad[i][0], bad[i][1] } };
        sbx_backend *b = NULL;
        sbx_error err;
        CU_ASSERT(sbx_backend_open(host, "local", opts, 2, &b, &err) == SBX_ERR_CONFIG);
        CU_ASSERT(strstr(err.message, bad[i][0]) != NULL);
    }
    sbx_host_free(host);
    sbx_test_remove_tree(state_dir);
}

void sbx_test_register(void)
{
    sbx_local_test_drop_root("test_local_isolation");
    if (!sbx_local_test_namespaces_allowed()) {
        fprintf(stderr, "test_local_isolation: skipped: this kernel refuses user, mount, pid "
                        "and network namespaces to this user (docs/local.md, Isolation)\n");
        exit(77);
    }
    static const CU_TestInfo tests[] = {
        { "namespaces: exit codes, signals, env, stdin, output, working dirs",
          test_commands_still_run_as_an_exec },
        { "namespaces: only its own processes", test_sees_only_its_own_processes },
        { "namespaces: only its own loopback", test_network_is_only_its_own_loopback },
        { "namespaces: no write outside the sandbox directory",
          test_writes_outside_the_sandbox_directory_fail },
        { "namespaces: mount, unshare refused; no new privileges",
          test_mount_unshare_and_new_privileges_are_refused },
        { "namespaces: no fork past limit_processes", test_processes_past_the_limit_are_refused },
        { "namespaces: no file past limit_file_bytes", test_files_past_the_size_limit_fail },
        { "namespaces: timeouts and exits end every process, none left to the host",
          test_timeouts_and_exits_end_every_process },
        { "namespaces: eight threads at once", test_eight_threads_exec_isolated_at_once },
        { "namespaces: forbidden by the host -> create and exec unsupported, nothing runs",
          test_without_user_namespaces_create_and_exec_fail },
        { "escape: markers in /tmp, another sandbox, the state dir unreadable",
          test_markers_outside_the_sandbox_cannot_be_read },
        { "escape: symlinks made inside lead nowhere, also for file ops",
          test_symlinks_made_inside_lead_nowhere },
        { "escape: host processes cannot be signalled or traced",
          test_host_processes_cannot_be_signalled_or_traced },
        { "escape: fork and memory bombs are contained",
          test_fork_and_memory_bombs_are_contained },
        { "limit_cpu_seconds ends a spinning command", test_cpu_time_past_the_limit_ends_the_command },
        { "holder: destroy ends it, a running exec and its daemons",
          test_destroy_ends_the_holder_and_every_process },
        { "holder: a create that cannot write its record leaves none",
          test_create_that_cannot_record_leaves_no_holder },
        { "holder: without one (made with none) exec builds its own namespaces",
          test_without_a_holder_exec_builds_its_own_namespaces },
        { "holder: files persist between execs, processes do not",
          test_files_persist_between_execs_processes_do_not },
        { "command: network=none, in the namespaces, served only inside, ends with destroy",
          test_command_without_network_serves_only_inside },
        { "command: network=host, in the namespaces, served to the host, ends with destroy",
          test_command_with_host_network_serves_the_host },
        { "command: network=forward, in the namespaces, port forwarded, ends with destroy",
          test_command_with_a_forwarded_port_serves_the_host },
        { "command: none or forward, not serving inside -> create fails, says why",
          test_command_without_network_that_never_serves_fails_create },
        { "isolation options: bad values are refused", test_isolation_option_values },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("local backend isolation", NULL, NULL, tests);
}
