/*
 * The local backend against hostile state and careless use: bind mounts
 * inside a sandbox, a state directory that is not the backend's, records
 * that are junk or hide a NUL, processes killed in the middle of create and
 * destroy, a lock held too long, a command that exits at once, a log that
 * is a symlink, a sandbox tree deeper than PATH_MAX.  Each test asserts
 * what a user would see: data outside the sandbox intact, an id usable
 * again, an error that names the cause.
 */
#include <config.h>

#include "tests/local-backend/local_fixture.h"
#include "tests/local-backend/local_wait.h"
#include "tests/support/backend_calls.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/proc_table.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/log_capture.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long a test waits for a condition it provoked (a file, a child):
 * generous, so that a loaded machine cannot fail a correct run. */
#define CONDITION_MS 30000L

/* ------------------------------------------------------------ helpers */

/* Open "local" on `state_dir`; NULL values leave an option out. */
static sbx_backend *open_backend(sbx_host *host, const char *state_dir, const char *command,
                                 const char *ready_ms, const char *stop_ms, const char *lock_ms)
{
    sbx_option opts[5];
    size_t n = 0;
    opts[n++] = (sbx_option){ "state_dir", state_dir };
    if (command != NULL)
        opts[n++] = (sbx_option){ "command", command };
    if (ready_ms != NULL)
        opts[n++] = (sbx_option){ "ready_timeout_ms", ready_ms };
    if (stop_ms != NULL)
        opts[n++] = (sbx_option){ "stop_timeout_ms", stop_ms };
    if (lock_ms != NULL)
        opts[n++] = (sbx_option){ "lock_timeout_ms", lock_ms };
    return sbx_local_test_open(host, opts, n);
}

static void path_in(char *out, size_t size, const char *dir, const char *name)
{
    CU_ASSERT_FATAL((size_t)snprintf(out, size, "%s/%s", dir, name) < size);
}

/* 1 when `path` holds exactly `text`. */
static int file_holds(const char *path, const char *text)
{
    char buf[256];
    FILE *in = fopen(path, "r");
    if (in == NULL)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, in);
    fclose(in);
    buf[n] = '\0';
    return strcmp(buf, text) == 0;
}

/* Wait for child `pid` at most `timeout_ms`; its wait status, or -1 when
 * it ran out of time (it is then killed and reaped). */
static int wait_child(pid_t pid, long timeout_ms)
{
    int ended = sbx_test_wait_process_end(pid, sbx_test_now_ms() + timeout_ms);
    if (!ended)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return ended ? status : -1;
}

/* The text sought by process_mentioning() and the pid found (0: none). */
struct mention {
    const char *text;
    long pid;
};

/* Whether `p` is live, not this process, and its command line mentions
 * the text of the mention `ctx` (then recorded there). */
static int mentions(const sbx_test_process *p, void *ctx)
{
    struct mention *m = ctx;
    size_t text_len = strlen(m->text);
    if (p->pid == (long)getpid())
        return 0;
    for (size_t i = 0; i + text_len <= p->args_len; i++)
        if (memcmp(p->args + i, m->text, text_len) == 0 && !sbx_local_test_process_gone(p->pid)) {
            m->pid = p->pid;
            return 1;
        }
    return 0;
}

/* A live process (not this one, not a zombie) whose command line
 * mentions `text`, or 0. */
static long process_mentioning(const char *text)
{
    struct mention want = {text, 0};
    sbx_test_proc_each(mentions, &want);
    return want.pid;
}

/* 1 when, within CONDITION_MS, no live process mentions `text`: waits for
 * the end of each one found in turn. */
static int no_process_mentions(const char *text)
{
    long deadline = sbx_test_now_ms() + CONDITION_MS, pid;
    while ((pid = process_mentioning(text)) != 0)
        if (!sbx_test_wait_process_end(pid, deadline))
            return 0;
    return 1;
}

/* Name what `dir` holds besides the marker on stderr (for a failure's
 * log). */
static void print_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            strcmp(e->d_name, SBX_LOCAL_TEST_MARKER))
            fprintf(stderr, "  left in %s: %s\n", dir, e->d_name);
    if (d != NULL)
        closedir(d);
}

/* ------------------------------------------------------------ item 1: mounts */

/* What a destroy run inside a private mount namespace saw. */
typedef struct mount_result {
    int skipped_errno;     /* mounting was not permitted: why */
    sbx_status status;
    char message[SBX_ERROR_MESSAGE_MAX];
} mount_result;

/* Bind-mount `source` on `target` in a child with its own mount namespace
 * (the mount vanishes with the child, whatever happens), destroy `id`
 * there, and report. */
static mount_result destroy_with_mount(sbx_backend *b, const char *id, const char *source,
                                       const char *target)
{
    mount_result r;
    memset(&r, 0, sizeof r);
    int pipe_fds[2];
    CU_ASSERT_FATAL(pipe(pipe_fds) == 0);
    pid_t child = fork();
    CU_ASSERT_FATAL(child >= 0);
    if (child == 0) {
        close(pipe_fds[0]);
        if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
            mount(source, target, NULL, MS_BIND, NULL) != 0) {
            r.skipped_errno = errno ? errno : EPERM;
        } else {
            sbx_error err;
            r.status = sbx_backend_destroy(b, id, &err);
            snprintf(r.message, sizeof r.message, "%s", r.status ? err.message : "");
        }
        _exit(write(pipe_fds[1], &r, sizeof r) == (ssize_t)sizeof r ? 0 : 1);
    }
    close(pipe_fds[1]);
    ssize_t n = read(pipe_fds[0], &r, sizeof r);
    close(pipe_fds[0]);
    int status = wait_child(child, CONDITION_MS);
    CU_ASSERT_FATAL(n == (ssize_t)sizeof r && status == 0);
    return r;
}

/* A sandbox holding a bind mount of a directory or a file from outside the
 * state directory, or being one itself: destroy stops at the mount point,
 * names it, and removes nothing below it; once unmounted, destroy works. */
static void test_destroy_never_crosses_a_mount(void)
{
    char state[PATH_MAX], outside[PATH_MAX], odir[PATH_MAX + 16], ofile[PATH_MAX + 16],
        onested[PATH_MAX + 32], onested_file[PATH_MAX + 48], oa[PATH_MAX + 32];
    sbx_local_test_make_dir(state, sizeof state, "mount-state");
    sbx_local_test_make_dir(outside, sizeof outside, "mount-outside");
    path_in(odir, sizeof odir, outside, "dir");
    path_in(ofile, sizeof ofile, outside, "file.txt");
    path_in(oa, sizeof oa, odir, "a.txt");
    path_in(onested, sizeof onested, odir, "nested");
    path_in(onested_file, sizeof onested_file, onested, "b.txt");
    CU_ASSERT_FATAL(mkdir(odir, 0700) == 0 && mkdir(onested, 0700) == 0);
    sbx_local_test_write_file(oa, "a\n");
    sbx_local_test_write_file(onested_file, "b\n");
    sbx_local_test_write_file(ofile, "f\n");

    sbx_host *host = sbx_local_test_new_host(NULL, NULL);
    sbx_backend *b = open_backend(host, state, NULL, NULL, NULL, NULL);
    sbx_error err;
    static const char *const ids[] = { "deep-mount", "file-mount", "self-mount" };
    for (size_t i = 0; i < 3; i++) {
        sbx_sandbox *sb = sbx_test_create(b, ids[i], NULL, NULL, &err);
        CU_ASSERT_FATAL(sb != NULL);
        sbx_backend_free_sandboxes(b, sb, 1);
    }
    char box[PATH_MAX + 64], target[PATH_MAX + 96], sibling[PATH_MAX + 96];
    /* A directory mounted two levels down, next to a file of the sandbox. */
    path_in(box, sizeof box, state, "deep-mount");
    path_in(sibling, sizeof sibling, box, "own.txt");
    sbx_local_test_write_file(sibling, "own\n");
    path_in(target, sizeof target, box, "sub");
    CU_ASSERT_FATAL(mkdir(target, 0700) == 0);
    path_in(target, sizeof target, box, "sub/m");
    CU_ASSERT_FATAL(mkdir(target, 0700) == 0);
    mount_result r = destroy_with_mount(b, "deep-mount", odir, target);
    if (r.skipped_errno != 0) {
        fprintf(stderr, "SKIP mounts: cannot bind-mount here (%s)\n", strerror(r.skipped_errno));
    } else {
        CU_ASSERT_EQUAL(r.status, SBX_ERR_INTERNAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.message, target));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.message, "mount point"));
        /* A file mounted over a file of the sandbox. */
        path_in(box, sizeof box, state, "file-mount");
        path_in(target, sizeof target, box, "f.txt");
        sbx_local_test_write_file(target, "mine\n");
        r = destroy_with_mount(b, "file-mount", ofile, target);
        CU_ASSERT_EQUAL(r.status, SBX_ERR_INTERNAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.message, target));
        /* The sandbox directory itself a mount point. */
        path_in(box, sizeof box, state, "self-mount");
        r = destroy_with_mount(b, "self-mount", odir, box);
        CU_ASSERT_EQUAL(r.status, SBX_ERR_INTERNAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.message, box));
    }
    /* Nothing outside was touched, and each sandbox is still recorded. */
    CU_ASSERT(file_holds(oa, "a\n"));
    CU_ASSERT(file_holds(onested_file, "b\n"));
    CU_ASSERT(file_holds(ofile, "f\n"));
    /* Unmounted (the namespace is gone), destroy finishes the job. */
    for (size_t i = 0; i < 3; i++)
        CU_ASSERT_EQUAL(sbx_backend_destroy(b, ids[i], &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_local_test_count_entries(state), 0);
    CU_ASSERT(file_holds(oa, "a\n") && file_holds(onested_file, "b\n") &&
              file_holds(ofile, "f\n"));
    sbx_backend_close(b);
    sbx_host_free(host);
    sbx_test_remove_tree(state);
    sbx_test_remove_tree(outside);
}

/* ------------------------------------------------------------ item 2: ownership */

/* A state directory named by mistake (a home directory) is refused; in the
 * backend's own directory, only what a valid record describes is removed. */
static void test_only_what_a_record_describes_is_removed(void)
{
    char home[PATH_MAX], userdata[PATH_MAX + 16], notes[PATH_MAX + 32], profile[PATH_MAX + 16],
        marker[PATH_MAX + 32];
    sbx_local_test_make_dir(home, sizeof home, "home");
    path_in(userdata, sizeof userdata, home, "userdata");
    path_in(notes, sizeof notes, userdata, "notes.txt");
    path_in(profile, sizeof profile, home, ".profile");
    path_in(marker, sizeof marker, home, SBX_LOCAL_TEST_MARKER);
    CU_ASSERT_FATAL(mkdir(userdata, 0700) == 0);
    sbx_local_test_write_file(notes, "mine\n");
    sbx_local_test_write_file(profile, "export X=1\n");

    sbx_host *host = sbx_local_test_new_host(NULL, NULL);
    sbx_option opts[] = { { "state_dir", home } };
    sbx_backend *b = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_open(host, "local", opts, 1, &b, &err), SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, home));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, SBX_LOCAL_TEST_MARKER));
    CU_ASSERT(!sbx_local_test_path_exists(marker));
    CU_ASSERT(file_holds(notes, "mine\n") && file_holds(profile, "export X=1\n"));
    /* A marker that is not a regular file marks nothing. */
    char elsewhere[PATH_MAX];
    sbx_local_test_make_dir(elsewhere, sizeof elsewhere, "symlinked-marker");
    path_in(marker, sizeof marker, elsewhere, SBX_LOCAL_TEST_MARKER);
    CU_ASSERT_FATAL(symlink(profile, marker) == 0);
    opts[0].value = elsewhere;
    CU_ASSERT_EQUAL(sbx_backend_open(host, "local", opts, 1, &b, &err), SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, SBX_LOCAL_TEST_MARKER));
    sbx_test_remove_tree(elsewhere);

    /* A new directory is marked at first use. */
    char state[PATH_MAX + 16];
    path_in(state, sizeof state, home, "sbx-state");
    b = open_backend(host, state, NULL, NULL, NULL, NULL);
    path_in(marker, sizeof marker, state, SBX_LOCAL_TEST_MARKER);
    struct stat st;
    CU_ASSERT(lstat(marker, &st) == 0 && S_ISREG(st.st_mode));

    /* A user's directory inside it, with no record: never removed. */
    char theirs[PATH_MAX + 32], their_file[PATH_MAX + 48];
    path_in(theirs, sizeof theirs, state, "userdata");
    path_in(their_file, sizeof their_file, theirs, "notes.txt");
    CU_ASSERT_FATAL(mkdir(theirs, 0700) == 0);
    sbx_local_test_write_file(their_file, "mine\n");
    CU_ASSERT_EQUAL(sbx_backend_destroy(b, "userdata", &err), SBX_ERR_REFUSED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, theirs));
    CU_ASSERT_PTR_NULL(sbx_test_create(b, "userdata", NULL, NULL, &err));
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_REFUSED);
    CU_ASSERT_EQUAL(sbx_test_is_alive(b, "userdata"), 0);
    CU_ASSERT(file_holds(their_file, "mine\n"));

    /* A junk record and a record of another id describe nothing. */
    char junk_dir[PATH_MAX + 32], junk_file[PATH_MAX + 48], junk_record[PATH_MAX + 32];
    path_in(junk_dir, sizeof junk_dir, state, "junk");
    path_in(junk_file, sizeof junk_file, junk_dir, "data.txt");
    path_in(junk_record, sizeof junk_record, state, "junk.json");
    CU_ASSERT_FATAL(mkdir(junk_dir, 0700) == 0);
    sbx_local_test_write_file(junk_file, "data\n");
    static const char *const records[] = {
        "{not json",
        "{\"sandbox_id\":\"somebody-else\",\"url\":\"file:///x\"}",
        "[\"sandbox_id\",\"junk\"]",
    };
    for (size_t i = 0; i < sizeof records / sizeof records[0]; i++) {
        sbx_local_test_write_file(junk_record, records[i]);
        CU_ASSERT_EQUAL(sbx_backend_destroy(b, "junk", &err), SBX_ERR_PROTOCOL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, junk_record));
        CU_ASSERT(file_holds(junk_file, "data\n"));
        CU_ASSERT(file_holds(junk_record, records[i]));
    }

    /* A directory sandbox's record does not describe a log next to it. */
    char dir_log[PATH_MAX + 32], dir_box[PATH_MAX + 32];
    sbx_sandbox *sb = sbx_test_create(b, "dir-box", NULL, NULL, &err);
    CU_ASSERT_FATAL(sb != NULL);
    sbx_backend_free_sandboxes(b, sb, 1);
    path_in(dir_log, sizeof dir_log, state, "dir-box.log");
    path_in(dir_box, sizeof dir_box, state, "dir-box");
    sbx_local_test_write_file(dir_log, "someone's log\n");
    CU_ASSERT_EQUAL(sbx_backend_destroy(b, "dir-box", &err), SBX_OK);
    CU_ASSERT(!sbx_local_test_path_exists(dir_box));
    CU_ASSERT(file_holds(dir_log, "someone's log\n"));

    sbx_backend_close(b);
    sbx_host_free(host);
    sbx_test_remove_tree(home);
}

/* ------------------------------------------------------------ item 8: records */

/* Build a record whose `field` holds `bad` (raw JSON text), the others
 * valid, for sandbox "bad-rec" of alice's thread t. */
static void write_record_with(const char *path, const char *field, const char *bad)
{
    static const char *const keys[] = { "sandbox_id", "thread_id", "user_id", "url",
                                        "created", "incarnation_id", "state" };
    static const char *const good[] = { "\"bad-rec\"", "\"t\"", "\"alice\"",
                                        "\"file:///nowhere\"", "\"2026-01-01T00:00:00Z\"",
                                        "\"5f0c8a4e-2b1d-4c3e-9a7f-0d6e1b2c3a4f\"", "null" };
    char text[1024];
    size_t used = (size_t)snprintf(text, sizeof text, "{");
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s\"%s\":%s", i ? "," : "",
                                 keys[i], strcmp(keys[i], field) == 0 ? bad : good[i]);
    snprintf(text + used, sizeof text - used, "}");
    sbx_local_test_write_file(path, text);
}

/* A string with a NUL or invalid UTF-8 in any field of a record makes it
 * invalid, with an error naming the field: "alice\u0000mallory" is not
 * alice, and such a record is never handed out, listed or acted on. */
static void test_records_hiding_nul_or_bad_utf8_are_refused(void)
{
    static const char *const fields[] = { "sandbox_id", "thread_id", "user_id", "url",
                                          "created", "incarnation_id", "state" };
    static const char *const nul_values[] = { "\"bad-rec\\u0000x\"", "\"t\\u0000x\"",
                                              "\"alice\\u0000mallory\"",
                                              "\"file:///nowhere\\u0000x\"", "\"x\\u0000\"",
                                              "\"\\u0000\"", "\"creating\\u0000x\"" };
    char state[PATH_MAX], record[PATH_MAX + 32], dir[PATH_MAX + 32], kept[PATH_MAX + 48];
    sbx_local_test_make_dir(state, sizeof state, "records");
    sbx_test_log_capture *log = sbx_test_log_capture_new();
    sbx_host *host = sbx_local_test_new_host(sbx_test_log_capture_fn, log);
    sbx_backend *b = open_backend(host, state, NULL, NULL, NULL, NULL);
    path_in(record, sizeof record, state, "bad-rec.json");
    path_in(dir, sizeof dir, state, "bad-rec");
    path_in(kept, sizeof kept, dir, "kept.txt");
    CU_ASSERT_FATAL(mkdir(dir, 0700) == 0);
    sbx_local_test_write_file(kept, "kept\n");
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        for (int kind = 0; kind < 2; kind++) {
            /* Raw byte 0xff: not UTF-8 (json-c passes it through). */
            char bad_utf8[64];
            snprintf(bad_utf8, sizeof bad_utf8, "\"%s\xff\"",
                     strcmp(fields[i], "state") == 0 ? "creating" : "x");
            write_record_with(record, fields[i], kind == 0 ? nul_values[i] : bad_utf8);
            char quoted[64];
            snprintf(quoted, sizeof quoted, "'%s'", fields[i]);
            sbx_error err;
            sbx_sandbox *sb = NULL;
            CU_ASSERT_EQUAL(sbx_backend_discover(b, "bad-rec", &sb, &err), SBX_ERR_PROTOCOL);
            CU_ASSERT_PTR_NOT_NULL(strstr(err.message, quoted));
            sb = sbx_test_create(b, "bad-rec", "t", "alice", &err);
            CU_ASSERT_PTR_NULL(sb);
            CU_ASSERT_EQUAL(err.kind, SBX_ERR_PROTOCOL);
            CU_ASSERT_EQUAL(sbx_backend_destroy(b, "bad-rec", &err), SBX_ERR_PROTOCOL);
            CU_ASSERT_PTR_NOT_NULL(strstr(err.message, quoted));
            CU_ASSERT(file_holds(kept, "kept\n"));
            sbx_test_log_clear(log);
            sbx_sandbox *all = NULL;
            size_t count = 9;
            CU_ASSERT_EQUAL(sbx_backend_list_running(b, &all, &count, &err), SBX_OK);
            CU_ASSERT_EQUAL(count, 0);
            sbx_backend_free_sandboxes(b, all, count);
            CU_ASSERT(sbx_test_log_contains(log, quoted));
            if (sb != NULL)
                sbx_backend_free_sandboxes(b, sb, 1);
        }
    }
    sbx_backend_close(b);
    sbx_host_free(host);
    sbx_test_log_capture_free(log);
    sbx_test_remove_tree(state);
}

/* ------------------------------------------------------------ item 4: kills */

/* A sandbox command that never listens, notes that it started and that it
 * got SIGTERM, and outlives SIGTERM (so destroy waits for it). */
#define STUBBORN_COMMAND \
    "trap 'touch {dir}/got-term' TERM; touch {dir}/started; while :; do sleep 1 & wait $!; done"

typedef struct kill_point {
    const char *name;
    int destroying;       /* 0: the killed process creates, 1: it destroys */
    int with_command;     /* 0: a directory sandbox with many files */
    /* 1 when the killed process (pid) has reached the point. */
    int (*reached)(pid_t pid, const char *state_dir);
} kill_point;

static int has_a_child(pid_t pid, const char *state_dir)
{
    (void)state_dir;
    char path[96], buf[64];
    snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", (long)pid, (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 1;   /* no such /proc file: any moment will do */
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    return n > 0;
}

static int exists_under(const char *state_dir, const char *name)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", state_dir, name);
    return sbx_local_test_path_exists(path);
}

static int has_record(pid_t pid, const char *state_dir)
{
    (void)pid;
    return exists_under(state_dir, "kill-box.json");
}

static int command_started(pid_t pid, const char *state_dir)
{
    (void)pid;
    return exists_under(state_dir, "kill-box/started");
}

static int command_got_term(pid_t pid, const char *state_dir)
{
    (void)pid;
    return exists_under(state_dir, "kill-box/got-term");
}

#define MANY_FILES 4000

static int files_vanishing(pid_t pid, const char *state_dir)
{
    (void)pid;
    char dir[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/kill-box", state_dir);
    return sbx_local_test_count_entries(dir) < MANY_FILES;
}

/* In a child (never returns): open the backend and create or destroy
 * kill-box; exit 0 when that succeeded. */
static void run_operation(const char *state_dir, const char *command, int destroying,
                          const char *ready_ms, const char *stop_ms)
{
    sbx_host *host = NULL;
    sbx_backend *b = NULL;
    sbx_host_services services = { sizeof services, NULL, NULL };
    sbx_option opts[4] = { { "state_dir", state_dir }, { "ready_timeout_ms", ready_ms },
                           { "stop_timeout_ms", stop_ms }, { "command", command } };
    sbx_error err;
    if (sbx_host_new(&services, &host, &err) != SBX_OK ||
        sbx_backend_open(host, "local", opts, command ? 4 : 3, &b, &err) != SBX_OK)
        _exit(2);
    int ok;
    if (destroying) {
        ok = sbx_backend_destroy(b, "kill-box", &err) == SBX_OK;
    } else {
        sbx_sandbox *sb = sbx_test_create(b, "kill-box", "t", "alice", &err);
        ok = sb != NULL;
        sbx_backend_free_sandboxes(b, sb, ok ? 1 : 0);
    }
    if (!ok)
        fprintf(stderr, "  %s: %s\n", destroying ? "destroy" : "create", err.message);
    _exit(ok ? 0 : 1);
}

static pid_t start_operation(const char *state_dir, const char *command, int destroying,
                             const char *ready_ms, const char *stop_ms)
{
    fflush(NULL);
    pid_t child = fork();
    CU_ASSERT_FATAL(child >= 0);
    if (child == 0)
        run_operation(state_dir, command, destroying, ready_ms, stop_ms);
    return child;
}

/* The sandbox a destroy is killed in: running its command, or a directory
 * with many files (so that removal takes a while). */
static void make_victim(const char *state_dir, const kill_point *point)
{
    pid_t maker = start_operation(state_dir, point->with_command ? STUBBORN_COMMAND : NULL, 0,
                                  "0", "200");
    CU_ASSERT_FATAL(wait_child(maker, CONDITION_MS) == 0);
    if (point->with_command) {
        char started[PATH_MAX + 32];
        path_in(started, sizeof started, state_dir, "kill-box/started");
        CU_ASSERT_FATAL(sbx_local_test_wait_path(started, CONDITION_MS));
        return;
    }
    char path[PATH_MAX + 64];
    for (int i = 0; i < MANY_FILES; i++) {
        snprintf(path, sizeof path, "%s/kill-box/f%04d", state_dir, i);
        sbx_local_test_write_file(path, "x");
    }
}

/* A state directory for the kill test, which times create and destroy
 * against the 5 s: in memory (/dev/shm) when it can be, so that a
 * disk busy with the docker suites' engines (a record's fsync can wait
 * seconds behind them) does not decide the outcome. */
static void make_kill_dir(char *out, size_t size)
{
    struct stat st;
    if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0) {
        snprintf(out, size, "/dev/shm/sbx-kill.XXXXXX");
        if (mkdtemp(out) != NULL)
            return;
    }
    sbx_local_test_make_dir(out, size, "kill");
}

/* SIGKILL a create or destroy of kill-box at each point; then a create and
 * a destroy of the same id must both succeed within 5 s, and nothing may
 * be left: no file, no process of the sandbox. */
static void test_kill_during_create_and_destroy(void)
{
    if (!sbx_local_test_on_path("sleep")) {
        fprintf(stderr, "SKIP kills: no sleep on PATH\n");
        return;
    }
    static const kill_point points[] = {
        { "create: starting the command", 0, 1, has_a_child },
        { "create: record written", 0, 1, has_record },
        { "create: waiting for the command to serve", 0, 1, command_started },
        { "destroy: stopping the command", 1, 1, command_got_term },
        { "destroy: removing the files", 1, 0, files_vanishing },
    };
    for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
        const kill_point *p = &points[i];
        fprintf(stderr, "  kill point: %s\n", p->name);
        char state[PATH_MAX];
        make_kill_dir(state, sizeof state);
        if (p->destroying)
            make_victim(state, p);
        /* The victim would wait long for the command to serve or stop. */
        pid_t victim = start_operation(state, p->with_command ? STUBBORN_COMMAND : NULL,
                                       p->destroying, "10000", "10000");
        long deadline = sbx_test_now_ms() + CONDITION_MS;
        int reached;
        siginfo_t exited;
        while (!(reached = p->reached(victim, state)) && sbx_test_now_ms() < deadline &&
               (exited.si_pid = 0,
                waitid(P_PID, (id_t)victim, &exited, WEXITED | WNOHANG | WNOWAIT) == 0 &&
                exited.si_pid == 0))
            ;
        CU_ASSERT(reached);
        kill(victim, SIGKILL);
        wait_child(victim, CONDITION_MS);

        long started = sbx_test_now_ms();
        pid_t again = start_operation(state, STUBBORN_COMMAND, 0, "0", "200");
        int created = wait_child(again, 5000);
        pid_t gone = start_operation(state, STUBBORN_COMMAND, 1, "0", "200");
        int destroyed = wait_child(gone, 5000);
        long took = sbx_test_now_ms() - started;
        CU_ASSERT_EQUAL(created, 0);
        CU_ASSERT_EQUAL(destroyed, 0);
        CU_ASSERT(took < 5000);
        if (created != 0 || destroyed != 0 || took >= 5000)
            fprintf(stderr, "  after the kill: create %d, destroy %d, %ld ms\n", created,
                    destroyed, took);
        CU_ASSERT(no_process_mentions(state));
        CU_ASSERT_EQUAL(sbx_local_test_count_entries(state), 0);
        print_entries(state);
        sbx_test_remove_tree(state);
    }
}

/* ------------------------------------------------------------ issue 20 item 2: tombs */

/* What finishes a destroy that was killed. */
enum finisher { BY_CREATE, BY_DESTROY, BY_LIST, BY_OPEN, FINISHERS };
static const char *const finisher_names[FINISHERS] = { "create", "destroy", "list", "open" };

/* The incarnation reconcile reports for kill-box (malloc'ed; NULL when
 * absent), asserting the call succeeded and `expected` is the status. */
static char *reconciled_incarnation(sbx_backend *b, sbx_reconcile_status expected)
{
    sbx_reconciliation rec;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_reconcile(b, "kill-box", &rec, &err), SBX_OK);
    CU_ASSERT_EQUAL(rec.status, expected);
    char *incarnation = rec.incarnation_id != NULL ? strdup(rec.incarnation_id) : NULL;
    sbx_backend_clear_reconciliation(b, &rec);
    return incarnation;
}

/* 1 when list_running of `b` names kill-box. */
static int listed(sbx_backend *b)
{
    sbx_sandbox *all = NULL;
    size_t count = 0;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_list_running(b, &all, &count, &err), SBX_OK);
    int found = 0;
    for (size_t i = 0; i < count; i++)
        found |= strcmp(all[i].sandbox_id, "kill-box") == 0;
    sbx_backend_free_sandboxes(b, all, count);
    return found;
}

/* Kill a destroy of kill-box at the stage `p` names; 1 when it was caught
 * there (not yet done), 0 when it finished first. */
static int kill_a_destroy(const char *state, const kill_point *p)
{
    pid_t victim = start_operation(state, p->with_command ? STUBBORN_COMMAND : NULL, 1,
                                   "10000", "10000");
    long deadline = sbx_test_now_ms() + CONDITION_MS;
    int reached, running = 1;
    siginfo_t exited;
    while (!(reached = p->reached(victim, state)) && sbx_test_now_ms() < deadline &&
           (exited.si_pid = 0,
            running = waitid(P_PID, (id_t)victim, &exited, WEXITED | WNOHANG | WNOWAIT) == 0 &&
                      exited.si_pid == 0))
        ;
    kill(victim, SIGKILL);
    int status = wait_child(victim, CONDITION_MS);
    /* Killed by our SIGKILL: the destroy was cut short. */
    return reached && running && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

/* SIGKILL a destroy while it stops the command and while it removes many
 * files: from then on nobody sees the sandbox (discover, is_alive,
 * reconcile, list), and whatever comes next (a create, a destroy, a list,
 * an open) finishes the destroy: no file, no process left, a create gets
 * a new incarnation with none of the old files, and nothing outside the
 * sandbox is touched. */
static void test_killed_destroy_is_invisible_and_finished(void)
{
    if (!sbx_local_test_on_path("sleep")) {
        fprintf(stderr, "SKIP killed destroys: no sleep on PATH\n");
        return;
    }
    static const kill_point points[] = {
        { "destroy: stopping the command", 1, 1, command_got_term },
        { "destroy: removing the files", 1, 0, files_vanishing },
    };
    char outside[PATH_MAX], kept[PATH_MAX + 16];
    sbx_local_test_make_dir(outside, sizeof outside, "tomb-outside");
    path_in(kept, sizeof kept, outside, "kept.txt");
    sbx_local_test_write_file(kept, "kept\n");
    sbx_host *host = sbx_local_test_new_host(NULL, NULL);
    for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
        const kill_point *p = &points[i];
        for (int by = 0; by < FINISHERS; by++) {
            fprintf(stderr, "  %s, finished by %s\n", p->name, finisher_names[by]);
            char state[PATH_MAX], box[PATH_MAX + 16], record[PATH_MAX + 16],
                tomb[PATH_MAX + 16], link[PATH_MAX + 32];
            make_kill_dir(state, sizeof state);
            path_in(box, sizeof box, state, "kill-box");
            path_in(record, sizeof record, state, "kill-box.json");
            path_in(tomb, sizeof tomb, state, ".kill-box.tomb");
            path_in(link, sizeof link, box, "outside");
            /* Removal may win the race with the kill: then try again. */
            int caught = 0;
            for (int attempt = 0; !caught && attempt < 5; attempt++) {
                make_victim(state, p);
                CU_ASSERT_FATAL(symlink(outside, link) == 0);
                /* Opened before the destroy: an open would finish it. */
                sbx_backend *b = open_backend(host, state, STUBBORN_COMMAND, "0", "200", NULL);
                char *before = reconciled_incarnation(b, SBX_RECONCILE_FOUND);
                caught = kill_a_destroy(state, p);
                if (!caught) {
                    fprintf(stderr, "  the destroy ended before the kill: again\n");
                    free(before);
                    sbx_backend_close(b);
                    continue;
                }
                /* Half destroyed, and nobody sees it. */
                CU_ASSERT(!sbx_local_test_path_exists(record));
                CU_ASSERT(sbx_local_test_path_exists(tomb));
                sbx_error err;
                sbx_sandbox *sb = NULL;
                CU_ASSERT_EQUAL(sbx_backend_discover(b, "kill-box", &sb, &err),
                                SBX_ERR_NOT_FOUND);
                CU_ASSERT_EQUAL(sbx_test_is_alive(b, "kill-box"), 0);
                free(reconciled_incarnation(b, SBX_RECONCILE_ABSENT));
                if (by == BY_CREATE) {
                    sb = sbx_test_create(b, "kill-box", "t", "alice", &err);
                    CU_ASSERT_PTR_NOT_NULL(sb);
                    if (sb != NULL)
                        sbx_backend_free_sandboxes(b, sb, 1);
                    char *now = reconciled_incarnation(b, SBX_RECONCILE_FOUND);
                    CU_ASSERT(now != NULL && before != NULL && strcmp(now, before) != 0);
                    free(now);
                    char old_file[PATH_MAX + 32];
                    path_in(old_file, sizeof old_file, box, "f0000");
                    CU_ASSERT(!sbx_local_test_path_exists(old_file));
                    CU_ASSERT(!sbx_local_test_path_exists(link));
                    CU_ASSERT(!sbx_local_test_path_exists(tomb));
                    CU_ASSERT_EQUAL(sbx_backend_destroy(b, "kill-box", &err), SBX_OK);
                } else if (by == BY_DESTROY) {
                    CU_ASSERT_EQUAL(sbx_backend_destroy(b, "kill-box", &err), SBX_OK);
                } else if (by == BY_LIST) {
                    CU_ASSERT(!listed(b));
                } else {
                    sbx_backend *next = open_backend(host, state, NULL, NULL, "200", NULL);
                    sbx_backend_close(next);
                }
                CU_ASSERT(no_process_mentions(state));
                /* All but the namespace id that reconcile wrote. */
                CU_ASSERT_EQUAL(sbx_local_test_count_entries(state), 1);
                CU_ASSERT(exists_under(state, ".namespace"));
                if (sbx_local_test_count_entries(state) != 1)
                    print_entries(state);
                CU_ASSERT(file_holds(kept, "kept\n"));
                free(before);
                sbx_backend_close(b);
            }
            CU_ASSERT(caught);
            sbx_test_remove_tree(state);
        }
    }
    sbx_host_free(host);
    sbx_test_remove_tree(outside);
}

/* A lock held longer than lock_timeout_ms (a destroy waiting for a command
 * that ignores SIGTERM): create and destroy give up at the bound, naming
 * the id and the holder's pid; the lock frees when its holder dies. */
static void test_lock_waits_are_bounded(void)
{
    if (!sbx_local_test_on_path("sleep")) {
        fprintf(stderr, "SKIP lock bound: no sleep on PATH\n");
        return;
    }
    char state[PATH_MAX], got_term[PATH_MAX + 32], started_file[PATH_MAX + 32];
    sbx_local_test_make_dir(state, sizeof state, "lock");
    path_in(got_term, sizeof got_term, state, "kill-box/got-term");
    path_in(started_file, sizeof started_file, state, "kill-box/started");
    sbx_host *host = sbx_local_test_new_host(NULL, NULL);
    sbx_backend *maker = open_backend(host, state, STUBBORN_COMMAND, "0", NULL, NULL);
    sbx_error err;
    sbx_sandbox *sb = sbx_test_create(maker, "kill-box", "t", "alice", &err);
    CU_ASSERT_FATAL(sb != NULL);
    sbx_backend_free_sandboxes(maker, sb, 1);
    sbx_backend_close(maker);
    /* Once started, the command has set its trap: SIGTERM leaves it running. */
    CU_ASSERT_FATAL(sbx_local_test_wait_path(started_file, CONDITION_MS));

    /* A destroy that will hold the lock for 60 s. */
    fflush(NULL);
    pid_t holder = fork();
    CU_ASSERT_FATAL(holder >= 0);
    if (holder == 0) {
        sbx_host *h = NULL;
        sbx_backend *slow = NULL;
        sbx_host_services services = { sizeof services, NULL, NULL };
        sbx_option opts[] = { { "state_dir", state }, { "stop_timeout_ms", "60000" } };
        if (sbx_host_new(&services, &h, &err) != SBX_OK ||
            sbx_backend_open(h, "local", opts, 2, &slow, &err) != SBX_OK)
            _exit(2);
        _exit(sbx_backend_destroy(slow, "kill-box", &err) == SBX_OK ? 0 : 1);
    }
    CU_ASSERT_FATAL(sbx_local_test_wait_path(got_term, CONDITION_MS));

    sbx_backend *b = open_backend(host, state, STUBBORN_COMMAND, "0", "200", "300");
    char holder_text[32];
    snprintf(holder_text, sizeof holder_text, "process %ld ", (long)holder);
    for (int destroying = 0; destroying < 2; destroying++) {
        long started = sbx_test_now_ms();
        sbx_status st = destroying ? sbx_backend_destroy(b, "kill-box", &err)
                                   : (sbx_test_create(b, "kill-box", "t", "alice", &err)
                                          ? SBX_OK : err.kind);
        long elapsed = sbx_test_now_ms() - started;
        CU_ASSERT_EQUAL(st, SBX_ERR_TRANSPORT);
        CU_ASSERT(elapsed >= 300 && elapsed < 3000);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "'kill-box'"));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, holder_text));
    }
    kill(holder, SIGKILL);
    wait_child(holder, CONDITION_MS);
    sb = sbx_test_create(b, "kill-box", "t", "alice", &err);
    CU_ASSERT_PTR_NOT_NULL(sb);
    if (sb != NULL)
        sbx_backend_free_sandboxes(b, sb, 1);
    CU_ASSERT_EQUAL(sbx_backend_destroy(b, "kill-box", &err), SBX_OK);
    CU_ASSERT(no_process_mentions(state));
    CU_ASSERT_EQUAL(sbx_local_test_count_entries(state), 0);
    sbx_backend_close(b);
    sbx_host_free(host);
    sbx_test_remove_tree(state);
}

/* ------------------------------------------------------------ item 14 */

/* A command that exits (at once, after a while, by a signal) ends create's
 * wait for its port at once, with its exit status; the sandbox stays for
 * destroy, its output in the log. */
static void test_command_exit_is_reported_at_once(void)
{
    static const struct {
        const char *command;
        const char *expected;
    } cases[] = {
        { "echo boom >&2; exit 3", "its command exited with status 3 " },
        { "sleep 0.3; exit 4", "its command exited with status 4 " },
        { "kill -9 $$", "its command was killed by signal 9 " },
    };
    char state[PATH_MAX], log_path[PATH_MAX + 32];
    sbx_local_test_make_dir(state, sizeof state, "exits");
    path_in(log_path, sizeof log_path, state, "exit-box.log");
    sbx_host *host = sbx_local_test_new_host(NULL, NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sbx_backend *b = open_backend(host, state, cases[i].command, "20000", NULL, NULL);
        sbx_error err;
        long started = sbx_test_now_ms();
        sbx_sandbox *sb = sbx_test_create(b, "exit-box", NULL, NULL, &err);
        long elapsed = sbx_test_now_ms() - started;
        CU_ASSERT_PTR_NULL(sb);
        CU_ASSERT_EQUAL(err.kind, SBX_ERR_TRANSPORT);
        CU_ASSERT(elapsed < 5000);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, cases[i].expected));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "'exit-box'"));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, log_path));
        if (i == 0)
            CU_ASSERT(file_holds(log_path, "boom\n"));
        CU_ASSERT_EQUAL(sbx_test_is_alive(b, "exit-box"), 0);
        CU_ASSERT_EQUAL(sbx_backend_destroy(b, "exit-box", &err), SBX_OK);
        CU_ASSERT_EQUAL(sbx_local_test_count_entries(state), 0);
        sbx_backend_close(b);
    }
    sbx_host_free(host);
    sbx_test_remove_tree(state);
}

/* ------------------------------------------------------------ item 17 */

/* ID.log planted as a symlink (to a file, or dangling): create refuses it
 * and writes nothing through it. */
static void test_log_symlink_is_never_followed(void)
{
    char state[PATH_MAX], outside[PATH_MAX], victim[PATH_MAX + 16], fresh[PATH_MAX + 16],
        link_path[PATH_MAX + 32];
    sbx_local_test_make_dir(state, sizeof state, "log-link");
    sbx_local_test_make_dir(outside, sizeof outside, "log-victim");
    path_in(victim, sizeof victim, outside, "victim.txt");
    path_in(fresh, sizeof fresh, outside, "new.txt");
    sbx_local_test_write_file(victim, "precious\n");
    sbx_host *host = sbx_local_test_new_host(NULL, NULL);
    sbx_backend *b = open_backend(host, state, "echo pwned", "0", NULL, NULL);
    const char *targets[] = { victim, fresh };
    for (size_t i = 0; i < 2; i++) {
        path_in(link_path, sizeof link_path, state, "link-box.log");
        CU_ASSERT_FATAL(symlink(targets[i], link_path) == 0);
        sbx_error err;
        sbx_sandbox *sb = sbx_test_create(b, "link-box", NULL, NULL, &err);
        CU_ASSERT_PTR_NULL(sb);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, link_path));
        if (sb != NULL)
            sbx_backend_free_sandboxes(b, sb, 1);
        CU_ASSERT(file_holds(victim, "precious\n"));
        CU_ASSERT(!sbx_local_test_path_exists(fresh));
        /* Only the planted link is there: no record, no directory. */
        CU_ASSERT_EQUAL(sbx_local_test_count_entries(state), 1);
        CU_ASSERT_FATAL(unlink(link_path) == 0);
    }
    sbx_backend_close(b);
    sbx_host_free(host);
    sbx_test_remove_tree(state);
    sbx_test_remove_tree(outside);
}

/* A sandbox tree deeper than PATH_MAX, with files on the way and symlinks
 * out of the state directory at the bottom, is destroyed whole; what the
 * links point to is untouched. */
static void test_tree_deeper_than_path_max_is_destroyed(void)
{
    char state[PATH_MAX], outside[PATH_MAX], kept[PATH_MAX + 16];
    sbx_local_test_make_dir(state, sizeof state, "deep");
    sbx_local_test_make_dir(outside, sizeof outside, "deep-outside");
    path_in(kept, sizeof kept, outside, "kept.txt");
    sbx_local_test_write_file(kept, "kept\n");
    sbx_host *host = sbx_local_test_new_host(NULL, NULL);
    sbx_backend *b = open_backend(host, state, NULL, NULL, NULL, NULL);
    sbx_error err;
    sbx_sandbox *sb = sbx_test_create(b, "deep-box", NULL, NULL, &err);
    CU_ASSERT_FATAL(sb != NULL);
    sbx_backend_free_sandboxes(b, sb, 1);
    char box[PATH_MAX + 16];
    path_in(box, sizeof box, state, "deep-box");
    int fd = open(box, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    CU_ASSERT_FATAL(fd >= 0);
    enum { LEVELS = PATH_MAX / 2 + 64 };   /* "d/" per level: past PATH_MAX */
    for (int level = 0; level < LEVELS; level++) {
        if (level % 512 == 0) {
            int file = openat(fd, "file.txt", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
            CU_ASSERT_FATAL(file >= 0);
            close(file);
        }
        CU_ASSERT_FATAL(mkdirat(fd, "d", 0700) == 0);
        int next = openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CU_ASSERT_FATAL(next >= 0);
        close(fd);
        fd = next;
    }
    CU_ASSERT_FATAL(symlinkat(outside, fd, "out-dir") == 0);
    CU_ASSERT_FATAL(symlinkat(kept, fd, "out-file") == 0);
    close(fd);
    sbx_status st = sbx_backend_destroy(b, "deep-box", &err);
    CU_ASSERT_EQUAL(st, SBX_OK);
    if (st != SBX_OK)
        fprintf(stderr, "  destroy: %s\n", err.message);
    CU_ASSERT(!sbx_local_test_path_exists(box));
    CU_ASSERT_EQUAL(sbx_local_test_count_entries(state), 0);
    CU_ASSERT(file_holds(kept, "kept\n"));
    sbx_backend_close(b);
    sbx_host_free(host);
    sbx_test_remove_tree(state);
    sbx_test_remove_tree(outside);
}

/* ------------------------------------------------------------ issue 20 item 9: odd files */

/* Failures seen in the child that runs the operations (CUnit's asserts do
 * not cross a fork): each one is named on stderr. */
static int odd_failures;

static void expect(int ok, const char *what, const char *detail)
{
    if (!ok) {
        odd_failures++;
        fprintf(stderr, "  odd files: %s (%s)\n", what, detail);
    }
}

/* An error of kind `kind` whose message names `path`. */
static void expect_error(sbx_status st, const sbx_error *err, sbx_status kind, const char *path,
                         const char *what)
{
    expect(st == kind && strstr(err->message, path) != NULL, what,
           st == SBX_OK ? "succeeded" : err->message);
}

/* Make `name` in `state` of the odd kind `kind` (0 FIFO, 1 directory,
 * 2 device, 3 symlink to a valid record, 4 a file too large). */
static int make_odd(const char *state, const char *name, int kind, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", state, name);
    if (kind == 0)
        return mkfifo(path, 0600);
    if (kind == 1)
        return mkdir(path, 0700);
    if (kind == 2)
        return mknod(path, S_IFCHR | 0600, makedev(1, 3));
    if (kind == 3) {
        char real[PATH_MAX + 32];
        snprintf(real, sizeof real, "%s/real-record", state);
        sbx_local_test_write_file(real, "{\"sandbox_id\":\"odd-box\",\"url\":\"file:///x\"}");
        return symlink(real, path);
    }
    FILE *out = fopen(path, "w");
    int ok = out != NULL && fprintf(out, "{\"sandbox_id\":\"odd-box\",\"url\":\"%070000d\"}",
                                    0) > 0;
    return (out != NULL && fclose(out) == 0 && ok) ? 0 : -1;
}

/* In a child: every operation on state with an odd file where the record,
 * the tomb, the temporary record or the namespace file of odd-box should
 * be.  Exits with the number of failures. */
static void run_odd_operations(const char *state, int kind, sbx_test_log_capture *log)
{
    static const char *const kinds[] = { "FIFO", "directory", "device", "symlink", "huge file" };
    sbx_host *host = sbx_local_test_new_host(sbx_test_log_capture_fn, log);
    sbx_backend *b = open_backend(host, state, NULL, NULL, NULL, NULL);
    char path[PATH_MAX + 32];
    sbx_error err;
    sbx_sandbox *sb = NULL;
    fprintf(stderr, "  odd files: %s\n", kinds[kind]);
    /* The record. */
    if (make_odd(state, "odd-box.json", kind, path, sizeof path) != 0) {
        fprintf(stderr, "SKIP odd %s: %s\n", kinds[kind], strerror(errno));
        _exit(0);
    }
    expect_error(sbx_backend_discover(b, "odd-box", &sb, &err), &err, SBX_ERR_PROTOCOL, path,
                 "discover");
    int alive = 0;
    expect_error(sbx_backend_is_alive(b, "odd-box", &alive, &err), &err, SBX_ERR_PROTOCOL, path,
                 "is_alive");
    sb = sbx_test_create(b, "odd-box", "t", "alice", &err);
    expect_error(sb ? SBX_OK : err.kind, &err, SBX_ERR_PROTOCOL, path, "create");
    expect_error(sbx_backend_destroy(b, "odd-box", &err), &err, SBX_ERR_PROTOCOL, path,
                 "destroy");
    expect(sbx_local_test_path_exists(path), "the odd record is left", path);
    sbx_reconciliation rec;
    expect(sbx_backend_reconcile(b, "odd-box", &rec, &err) == SBX_OK &&
           rec.status == SBX_RECONCILE_UNKNOWN, "reconcile is unknown", path);
    sbx_backend_clear_reconciliation(b, &rec);
    sbx_sandbox *all = NULL;
    size_t count = 0;
    sbx_test_log_clear(log);
    expect(sbx_backend_list_running(b, &all, &count, &err) == SBX_OK && count == 0,
           "list goes on", err.message);
    sbx_backend_free_sandboxes(b, all, count);
    expect(sbx_test_log_contains(log, path), "list warns naming it", path);
    unlink(path);
    rmdir(path);
    /* The tomb: listed with a warning, refused by destroy, kept. */
    expect(make_odd(state, ".odd-box.tomb", kind, path, sizeof path) == 0, "make it", path);
    sbx_test_log_clear(log);
    expect(sbx_backend_list_running(b, &all, &count, &err) == SBX_OK && count == 0,
           "list with an odd tomb goes on", err.message);
    sbx_backend_free_sandboxes(b, all, count);
    expect(sbx_test_log_contains(log, path), "list warns naming the tomb", path);
    expect_error(sbx_backend_destroy(b, "odd-box", &err), &err, SBX_ERR_PROTOCOL, path,
                 "destroy with an odd tomb");
    sb = sbx_test_create(b, "odd-box", "t", "alice", &err);
    expect_error(sb ? SBX_OK : err.kind, &err, SBX_ERR_PROTOCOL, path, "create with an odd tomb");
    expect(sbx_local_test_path_exists(path), "the odd tomb is left", path);
    sbx_backend *reopened = open_backend(host, state, NULL, NULL, NULL, NULL);
    sbx_backend_close(reopened);
    expect(sbx_local_test_path_exists(path), "open leaves the odd tomb", path);
    unlink(path);
    rmdir(path);
    /* The temporary record: unlinked, never opened; a directory, which
     * unlink cannot remove, fails the create naming it. */
    expect(make_odd(state, ".odd-box.json.tmp", kind, path, sizeof path) == 0, "make it", path);
    sb = sbx_test_create(b, "odd-box", "t", "alice", &err);
    if (kind == 1)
        expect_error(sb ? SBX_OK : err.kind, &err, SBX_ERR_INTERNAL, path,
                     "create over a directory as temporary record");
    else
        expect(sb != NULL, "create over an odd temporary record", sb ? path : err.message);
    if (sb != NULL)
        sbx_backend_free_sandboxes(b, sb, 1);
    expect(sbx_backend_destroy(b, "odd-box", &err) == SBX_OK, "destroy", err.message);
    rmdir(path);
    /* The namespace file: reconcile is unknown, naming it. */
    /* (The reconcile above wrote the real one.) */
    snprintf(path, sizeof path, "%s/.namespace", state);
    unlink(path);
    expect(make_odd(state, ".namespace", kind, path, sizeof path) == 0, "make it", path);
    sbx_test_log_clear(log);
    expect(sbx_backend_reconcile(b, "odd-box", &rec, &err) == SBX_OK &&
           rec.status == SBX_RECONCILE_UNKNOWN, "reconcile with an odd namespace", path);
    sbx_backend_clear_reconciliation(b, &rec);
    expect(sbx_test_log_contains(log, path), "reconcile warns naming the namespace", path);
    sbx_backend_close(b);
    sbx_host_free(host);
    _exit(odd_failures > 100 ? 100 : odd_failures);
}

/* A FIFO, a directory, a device, a symlink or a huge file named like a
 * record, a tomb, a temporary record or the namespace file: no operation
 * hangs or crashes; each fails with an error naming the file (a list goes
 * on, warning), and the odd file is left where it is. */
static void test_odd_state_files_never_hang(void)
{
    for (int kind = 0; kind < 5; kind++) {
        char state[PATH_MAX];
        sbx_local_test_make_dir(state, sizeof state, "odd");
        sbx_test_log_capture *log = sbx_test_log_capture_new();
        fflush(NULL);
        pid_t child = fork();
        CU_ASSERT_FATAL(child >= 0);
        if (child == 0)
            run_odd_operations(state, kind, log);
        /* A hang is a failure at the deadline, not a stuck suite. */
        int status = wait_child(child, 60000);
        CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            fprintf(stderr, "  odd files, kind %d: wait status %d\n", kind, status);
        sbx_test_log_capture_free(log);
        sbx_test_remove_tree(state);
    }
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "destroy never crosses a mount point", test_destroy_never_crosses_a_mount },
        { "only what a valid record describes is removed", test_only_what_a_record_describes_is_removed },
        { "records hiding a NUL or invalid UTF-8 are refused", test_records_hiding_nul_or_bad_utf8_are_refused },
        { "SIGKILL during create or destroy leaves the id usable", test_kill_during_create_and_destroy },
        { "a killed destroy is invisible and the next operation finishes it",
          test_killed_destroy_is_invisible_and_finished },
        { "lock waits are bounded and name the holder", test_lock_waits_are_bounded },
        { "a command that exits is reported at once", test_command_exit_is_reported_at_once },
        { "the log is never a symlink's target", test_log_symlink_is_never_followed },
        { "a tree deeper than PATH_MAX is destroyed", test_tree_deeper_than_path_max_is_destroyed },
        { "odd files named like state files never hang an operation",
          test_odd_state_files_never_hang },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("local backend, hostile", NULL, NULL, tests);
}
