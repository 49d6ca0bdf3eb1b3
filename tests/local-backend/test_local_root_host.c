/*
 * The local backend's isolation=namespaces on a host running as root (as
 * README command 1, CI and a provisioner in a container run it): no
 * process of a sandbox holds root outside, so no host-wide sysctl can be
 * written and no root-only file of /etc read; /proc/sys is read-only and
 * /sys absent; the host's command line and memory are out of reach of
 * every process of the sandbox; io_uring is refused; a setuid or setgid
 * bit made in the sandbox directory never reaches the host
 * (docs/local.md, "Isolation").  Skipped unless run as root.
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
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Generous: a loaded machine must not fail a correct run. */
#define DEADLINE_MS 30000L

/* The ids a sandbox is configured to run as in one case. */
#define CONFIGURED_UID "1999990001"
#define CONFIGURED_GID "1999990002"

/* Shell text writing kernel.ctrl-alt-del, a host-wide setting, with the
 * value it already has (so that even a broken sandbox changes nothing):
 * "refused" or "written". */
#define REWRITE_SYSCTL                                                                  \
    "v=$(cat /proc/sys/kernel/ctrl-alt-del) && "                                        \
    "{ echo $v > /proc/sys/kernel/ctrl-alt-del; } 2>/dev/null && echo written || echo refused"

/* Shell text: "ro" when every mount at `path` (a literal) is read-only,
 * as /proc/self/mountinfo lists them. */
#define MOUNTED_READ_ONLY(path)                                                          \
    "awk '$5 == \"" path "\" { n++; if ($6 !~ /^ro,/) w++ } "                           \
    "END { print (n > 0 && w == 0) ? \"ro\" : \"rw\" }' /proc/self/mountinfo"

typedef struct fixture {
    char state_dir[PATH_MAX];
    char dir[PATH_MAX + 8];
    sbx_host *host;
    sbx_backend *backend;
} fixture;

/* A sandbox "root" of a backend opened with `count` more options. */
static void setup_with(fixture *f, const char *tag, const sbx_option *more, size_t count)
{
    sbx_local_test_make_dir(f->state_dir, sizeof f->state_dir, tag);
    f->host = sbx_local_test_new_host(NULL, NULL);
    sbx_option opts[6] = { { "state_dir", f->state_dir } };
    for (size_t i = 0; i < count && i + 1 < sizeof opts / sizeof opts[0]; i++)
        opts[i + 1] = more[i];
    f->backend = sbx_local_test_open(f->host, opts, count + 1);
    sbx_error err;
    sbx_sandbox *sb = sbx_test_create(f->backend, "root", NULL, NULL, &err);
    if (sb == NULL)
        fprintf(stderr, "create: %s\n", err.message);
    CU_ASSERT_FATAL(sb != NULL);
    sbx_backend_free_sandboxes(f->backend, sb, 1);
    snprintf(f->dir, sizeof f->dir, "%s/root", f->state_dir);
}

static void setup(fixture *f, const char *tag)
{
    setup_with(f, tag, NULL, 0);
}

static void teardown(fixture *f)
{
    sbx_error err;
    CU_ASSERT(sbx_backend_destroy(f->backend, "root", &err) == SBX_OK);
    sbx_backend_close(f->backend);
    sbx_host_free(f->host);
    sbx_test_remove_tree(f->state_dir);
}

static sbx_exec_result *run(fixture *f, const char *text)
{
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.shell_command = text;
    sbx_exec_result *out = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_exec(f->backend, "root", &r, &out, &err);
    if (st != SBX_OK)
        fprintf(stderr, "exec: %s\n", err.message);
    CU_ASSERT_FATAL(st == SBX_OK);
    return out;
}

/* 1 when shell text's stdout is `want` (exit 0). */
static int output_is(fixture *f, const char *text, const char *want)
{
    sbx_exec_result *r = run(f, text);
    int same = r->outcome == SBX_EXEC_EXITED && r->exit_code == 0 &&
               strcmp(r->stdout_data, want) == 0;
    if (!same)
        fprintf(stderr, "%s: exit %d, out '%s', err '%s'\n", text, r->exit_code,
                r->stdout_data, r->stderr_data);
    sbx_backend_free_exec_result(f->backend, r);
    return same;
}

/* The Uid line of /proc/PID/status: its four ids into uid[]; 0 when it
 * cannot be read. */
static int uids_of(long pid, long uid[4])
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    FILE *in = fopen(path, "re");
    int found = 0;
    while (in != NULL && !found && fgets(line, sizeof line, in) != NULL)
        found = sscanf(line, "Uid: %ld %ld %ld %ld", &uid[0], &uid[1], &uid[2], &uid[3]) == 4;
    if (in != NULL)
        fclose(in);
    return found;
}

/* 1 when process `pid` holds uid 0 in none of its four ids. */
static int never_root(long pid)
{
    long uid[4];
    if (!uids_of(pid, uid)) {
        fprintf(stderr, "no status of pid %ld\n", pid);
        return 0;
    }
    return uid[0] != 0 && uid[1] != 0 && uid[2] != 0 && uid[3] != 0;
}

typedef struct running_exec {
    fixture *f;
    const char *text;
    sbx_exec_result *result;
} running_exec;

static void *exec_thread(void *arg)
{
    running_exec *x = arg;
    x->result = run(x->f, x->text);
    return NULL;
}

/* The process whose arguments hold `word`, and its parent. */
typedef struct found {
    const char *word;
    long pid, ppid;
} found;

static int find_word(const sbx_test_process *p, void *ctx)
{
    found *w = ctx;
    if (strstr(p->line, w->word) == NULL || strstr(p->line, "sh -c") != NULL)
        return 0;
    w->pid = p->pid;
    w->ppid = p->ppid;
    return 1;
}

/* The process running `word` (not its shell), once it runs; pid 0 when
 * none did within the deadline. */
static found await_word(const char *word)
{
    found w = { word, 0, 0 };
    long deadline = sbx_test_now_ms() + DEADLINE_MS;
    while (w.pid == 0 && sbx_test_now_ms() < deadline)
        if (!sbx_test_proc_each(find_word, &w))
            sched_yield();
    return w;
}

/* The holder and, while an exec runs, its init and command: none is root
 * outside, and the sandbox's uid maps to the ids it runs as. */
static void check_ids(fixture *f, const char *uid, const char *gid)
{
    long holder = sbx_local_test_metadata_long(f->state_dir, "root", "holder_pid");
    CU_ASSERT(holder > 0 && never_root(holder));
    char want[128];
    snprintf(want, sizeof want, "1000 %s 1\n1000 %s 1\n", uid, gid);
    CU_ASSERT(output_is(f, "for m in uid_map gid_map; do set -- $(cat /proc/self/$m); "
                           "echo $1 $2 $3; done", want));
    struct stat dir;
    CU_ASSERT(stat(f->dir, &dir) == 0 && (long)dir.st_uid == atol(uid) &&
              (long)dir.st_gid == atol(gid));
    running_exec x = { f, "exec sleep 987701", NULL };
    pthread_t thread;
    CU_ASSERT_FATAL(pthread_create(&thread, NULL, exec_thread, &x) == 0);
    found w = await_word("987701");
    CU_ASSERT(w.pid > 0 && never_root(w.pid));
    CU_ASSERT(w.ppid > 0 && never_root(w.ppid));
    if (w.pid > 0)
        kill((pid_t)w.pid, SIGKILL);
    pthread_join(thread, NULL);
    CU_ASSERT(x.result != NULL && x.result->outcome == SBX_EXEC_SIGNALED);
    sbx_backend_free_exec_result(f->backend, x.result);
}

static void test_sandbox_never_holds_host_root(void)
{
    fixture f;
    setup(&f, "root ids");
    char uid[32] = "", gid[32] = "";
    sbx_exec_result *r = run(&f, "set -- $(cat /proc/self/uid_map); echo $2; "
                                 "set -- $(cat /proc/self/gid_map); echo $2");
    CU_ASSERT(sscanf(r->stdout_data, "%31s %31s", uid, gid) == 2);
    CU_ASSERT(strcmp(uid, "0") != 0 && strcmp(gid, "0") != 0);
    sbx_backend_free_exec_result(f.backend, r);
    check_ids(&f, uid, gid);
    teardown(&f);
    const sbx_option ids[2] = { { "sandbox_uid", CONFIGURED_UID },
                                { "sandbox_gid", CONFIGURED_GID } };
    setup_with(&f, "root configured", ids, 2);
    check_ids(&f, CONFIGURED_UID, CONFIGURED_GID);
    teardown(&f);
}

static void test_no_host_wide_sysctl_can_be_written(void)
{
    fixture f;
    setup(&f, "root sysctl");
    CU_ASSERT(output_is(&f, REWRITE_SYSCTL, "refused\n"));
    /* Read-only whatever the ids: the mounts say so. */
    CU_ASSERT(output_is(&f, MOUNTED_READ_ONLY("/proc/sys"), "ro\n"));
    if (access("/proc/sysrq-trigger", F_OK) == 0)
        CU_ASSERT(output_is(&f, MOUNTED_READ_ONLY("/proc/sysrq-trigger"), "ro\n"));
    CU_ASSERT(output_is(&f, "test -e /sys && echo there || echo absent", "absent\n"));
    teardown(&f);
}

static void test_no_root_only_file_of_etc_can_be_read(void)
{
    char path[64];
    snprintf(path, sizeof path, "/etc/sbx-root-host-test-%ld", (long)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT(write(fd, "secret-987702\n", 14) == 14);
    close(fd);
    fixture f;
    setup(&f, "root etc");
    char text[128];
    snprintf(text, sizeof text, "cat %s 2>/dev/null; echo $?", path);
    CU_ASSERT(output_is(&f, text, "1\n"));
    if (access("/etc/shadow", F_OK) == 0)
        CU_ASSERT(output_is(&f, "head -c 1 /etc/shadow >/dev/null 2>&1; echo $?", "1\n"));
    teardown(&f);
    unlink(path);
}

/* The test's own command line: what no process of a sandbox may show. */
static void own_command_line(char *out, size_t size)
{
    FILE *in = fopen("/proc/self/cmdline", "re");
    size_t n = in != NULL ? fread(out, 1, size - 1, in) : 0;
    out[n] = '\0';
    if (in != NULL)
        fclose(in);
}

/* Every way /proc could show the exec's init (which may run on the host's
 * memory) or another process of the host's: nothing of the host's argv,
 * no environment, memory, maps, descriptors or threads of pid 1. */
static void check_host_hidden(fixture *f)
{
    char argv0[PATH_MAX];
    own_command_line(argv0, sizeof argv0);
    sbx_exec_result *r = run(f, "cat /proc/[0-9]*/cmdline /proc/[0-9]*/task/*/cmdline "
                                "/proc/[0-9]*/environ 2>/dev/null | tr '\\000' '\\n'");
    CU_ASSERT(argv0[0] != '\0' && strstr(r->stdout_data, argv0) == NULL);
    sbx_backend_free_exec_result(f->backend, r);
    static const char *const paths[] = {
        "/proc/1/cmdline", "/proc/1/environ", "/proc/1/mem", "/proc/1/maps", "/proc/1/fd/0",
        "/proc/1/task/1/cmdline", "/proc/1/task/1/environ", "/proc/1/status",
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "head -c 1 %s >/dev/null 2>&1 && echo read || echo no",
                 paths[i]);
        CU_ASSERT(output_is(f, text, "no\n"));
    }
    CU_ASSERT(output_is(f, "ls /proc/1/fd /proc/1/task >/dev/null 2>&1 && echo listed || "
                           "echo no", "no\n"));
}

static void test_host_command_line_and_memory_are_hidden(void)
{
    fixture f;
    setup(&f, "root argv");
    check_host_hidden(&f);
    teardown(&f);
}

/* The sandbox's `command` runs under an init forked from the host (a copy
 * of its memory): hidden from the command as an exec's is. */
static void test_command_sees_nothing_of_the_host(void)
{
    const sbx_option more[2] = {
        { "command", "cat /proc/[0-9]*/cmdline /proc/[0-9]*/environ 2>/dev/null | "
                     "tr '\\000' '\\n' > seen.tmp; ls /proc/1 >/dev/null 2>&1 && "
                     "echo pid-1-vis''ible >> seen.tmp; mv seen.tmp seen.txt; "
                     "exec sleep 987703" },
        { "ready_timeout_ms", "0" },
    };
    fixture f;
    setup_with(&f, "root command", more, 2);
    char seen[2 * PATH_MAX], argv0[PATH_MAX];
    snprintf(seen, sizeof seen, "%s/seen.txt", f.dir);
    CU_ASSERT_FATAL(sbx_local_test_wait_path(seen, DEADLINE_MS));
    own_command_line(argv0, sizeof argv0);
    FILE *in = fopen(seen, "re");
    char text[65536];
    size_t n = in != NULL ? fread(text, 1, sizeof text - 1, in) : 0;
    text[n] = '\0';
    if (in != NULL)
        fclose(in);
    CU_ASSERT(in != NULL && strstr(text, argv0) == NULL);
    CU_ASSERT(strstr(text, "pid-1-visible") == NULL);
    /* Nor the host's environment: the command's own is exec's. */
    CU_ASSERT(strstr(text, "HOME=/root") == NULL);
    char home[PATH_MAX + 16];
    snprintf(home, sizeof home, "HOME=%s\n", f.dir);
    CU_ASSERT(strstr(text, home) != NULL);
    /* The process the record names and the command are not root either. */
    long named = sbx_local_test_metadata_pid(f.state_dir, "root");
    CU_ASSERT(named > 0 && never_root(named));
    found w = await_word("987703");
    CU_ASSERT(w.pid > 0 && never_root(w.pid));
    teardown(&f);
}

/* A holder someone killed: each exec builds the namespaces itself, from a
 * copy of the directory's mounts the host makes, and is no more root. */
static void test_without_a_holder_exec_is_no_more_root(void)
{
    fixture f;
    setup(&f, "root no holder");
    long holder = sbx_local_test_metadata_long(f.state_dir, "root", "holder_pid");
    CU_ASSERT_FATAL(holder > 0);
    kill((pid_t)holder, SIGKILL);
    CU_ASSERT(sbx_test_wait_process_end(holder, sbx_test_now_ms() + DEADLINE_MS));
    CU_ASSERT(output_is(&f, "echo $$; echo x > made && cat made", "2\nx\n"));
    struct stat made;
    char path[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/made", f.dir);
    CU_ASSERT(stat(path, &made) == 0 && made.st_uid != 0);
    check_host_hidden(&f);
    CU_ASSERT(output_is(&f, REWRITE_SYSCTL, "refused\n"));
    teardown(&f);
}

static void test_io_uring_is_refused(void)
{
    if (access("/usr/bin/python3", X_OK) != 0) {
        fprintf(stderr, "io_uring: no python3, not checked\n");
        return;
    }
    fixture f;
    setup(&f, "root uring");
    /* io_uring_setup (425 on x86-64 and arm64) with zeroed parameters. */
    CU_ASSERT(output_is(&f, "python3 -c 'import ctypes; c = ctypes.CDLL(None, use_errno=True); "
                            "p = ctypes.create_string_buffer(120); "
                            "print(c.syscall(425, 8, p), ctypes.get_errno())'", "-1 1\n"));
    teardown(&f);
}

/* 1 when the sandbox file `name`, seen from the host, has no setuid or
 * setgid bit and is not root's. */
static int harmless(const fixture *f, const char *name)
{
    char path[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", f->dir, name);
    struct stat st;
    if (lstat(path, &st) != 0)
        return 1;
    if ((st.st_mode & (S_ISUID | S_ISGID)) != 0 || st.st_uid == 0)
        fprintf(stderr, "%s: mode %o, uid %ld\n", name, (unsigned)st.st_mode, (long)st.st_uid);
    return (st.st_mode & (S_ISUID | S_ISGID)) == 0 && st.st_uid != 0;
}

static void test_setuid_files_made_inside_grant_nothing(void)
{
    fixture f;
    setup(&f, "root-setuid");
    sbx_exec_result *r = run(&f, "cp /bin/sh s; chmod 4755 s; cp /bin/sh g; chmod g+s g; "
                                 "install -m 6755 /bin/sh i; true");
    sbx_backend_free_exec_result(f.backend, r);
    CU_ASSERT(harmless(&f, "s"));
    CU_ASSERT(harmless(&f, "g"));
    CU_ASSERT(harmless(&f, "i"));
    if (access("/usr/bin/python3", X_OK) == 0) {
        r = run(&f, "python3 -c 'import os; os.close(os.open(\"o\", os.O_CREAT | os.O_WRONLY, "
                    "0o6755))'; true");
        sbx_backend_free_exec_result(f.backend, r);
        CU_ASSERT(harmless(&f, "o"));
    }
    /* And the sandbox directory is mounted nosuid for every process. */
    char text[PATH_MAX + 64];
    snprintf(text, sizeof text, "grep -c ' %s rw,nosuid' /proc/self/mountinfo", f.dir);
    CU_ASSERT(output_is(&f, text, "1\n"));
    teardown(&f);
}

/* What the host wrote for the sandbox (new files, MKDIRS directories) is
 * the sandbox's to change. */
static void test_host_writes_are_the_sandbox_s(void)
{
    fixture f;
    setup(&f, "root files");
    sbx_error err;
    CU_ASSERT(sbx_backend_write_file(f.backend, "root", "a/b/new.txt", "x", 1,
                                     SBX_WRITE_MKDIRS, 0, &err) == SBX_OK);
    CU_ASSERT(sbx_backend_write_file(f.backend, "root", "whole.txt", "y", 1, 0, 0, &err) ==
              SBX_OK);
    CU_ASSERT(sbx_backend_write_file(f.backend, "root", "only.txt", "z", 1,
                                     SBX_WRITE_EXCLUSIVE, 0, &err) == SBX_OK);
    CU_ASSERT(output_is(&f, "echo 1 >> a/b/new.txt && echo 2 >> whole.txt && "
                            "echo 3 >> only.txt && mkdir a/b/c && rm -r a && echo ok", "ok\n"));
    teardown(&f);
}

void sbx_test_register(void)
{
    if (geteuid() != 0) {
        fprintf(stderr, "test_local_root_host: skipped: not run as root\n");
        exit(77);
    }
    if (!sbx_local_test_namespaces_allowed()) {
        fprintf(stderr, "test_local_root_host: skipped: this kernel refuses user, mount, pid "
                        "and network namespaces (docs/local.md, Isolation)\n");
        exit(77);
    }
    static const CU_TestInfo tests[] = {
        { "root host: no process of the sandbox is root outside",
          test_sandbox_never_holds_host_root },
        { "root host: no host-wide sysctl written; /proc/sys read-only, no /sys",
          test_no_host_wide_sysctl_can_be_written },
        { "root host: no 0600 file of root's in /etc readable",
          test_no_root_only_file_of_etc_can_be_read },
        { "root host: the host's argv, environ, memory, fds hidden",
          test_host_command_line_and_memory_are_hidden },
        { "root host: the sandbox's command sees nothing of the host",
          test_command_sees_nothing_of_the_host },
        { "root host: without a holder, exec is no more root",
          test_without_a_holder_exec_is_no_more_root },
        { "root host: io_uring refused", test_io_uring_is_refused },
        { "root host: setuid/setgid bits made inside never reach the host",
          test_setuid_files_made_inside_grant_nothing },
        { "root host: files the host writes stay the sandbox's to change",
          test_host_writes_are_the_sandbox_s },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("local backend on a root host", NULL, NULL, tests);
}
