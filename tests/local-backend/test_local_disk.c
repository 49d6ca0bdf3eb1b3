/*
 * The local backend's disk limit (docs/local.md, "Disk"): a sandbox
 * created with disk_bytes writes into a file system of its own of that
 * size; past it a write fails inside with ENOSPC while the host and
 * another sandbox keep writing and creating; the reserve
 * (disk_reserve_bytes) refuses a create that would eat into it, naming
 * it, also when many processes create at the same moment; destroy leaves no mount, loop device or image, nor does a destroy
 * a killed host left; a host that is not root gets `unsupported`.  The
 * state directory is on a small tmpfs of the suite's own, in a mount
 * namespace of its own (nothing it mounts is seen outside, nothing stays
 * when it exits).  Skipped unless run as root with loop devices and
 * mkfs.ext4.
 */
#include <config.h>

#include "tests/local-backend/local_fixture.h"
#include "tests/local-backend/local_unprivileged.h"
#include "tests/support/backend_calls.h"
#include "tests/support/cunit_main.h"
#include "tests/support/scratch_dir.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <json-c/json.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#define MIB (INT64_C(1) << 20)

/* The state directory's file system, the sandboxes' disks, the reserve:
 * two disks and the reserve fit, a third disk of BIG_DISK does not. */
#define TMPFS_OPTIONS "size=96m,mode=0755"
#define DISK (16 * MIB)
#define BIG_DISK (40 * MIB)
#define RESERVE (32 * MIB)
/* Creates at the same moment, each of its own process, and their disks:
 * more than the room left above the reserve. */
#define RACERS 12
#define RACER_DISK (4 * MIB)

/* The suite's backend, its state directory on its tmpfs. */
static struct {
    char scratch[1024];
    char fs[1024 + 8];
    char state_dir[1024 + 16];
    sbx_host *host;
    sbx_backend *backend;
} shared;

static sbx_create_request with_disk(const char *id, int64_t bytes)
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = id;
    req.disk_bytes = bytes;
    return req;
}

/* Create `id` with a disk of `bytes`; the status, the message on stderr
 * when it fails. */
static sbx_status create(sbx_backend *b, const char *id, int64_t bytes, sbx_error *err)
{
    sbx_create_request req = with_disk(id, bytes);
    sbx_sandbox *sb = NULL;
    sbx_status st = sbx_backend_create(b, &req, &sb, err);
    if (st == SBX_OK)
        sbx_backend_free_sandboxes(b, sb, 1);
    return st;
}

/* A backend on `host` with the suite's options: its state directory,
 * isolation and reserve. */
static sbx_backend *open_backend(sbx_host *host)
{
    char reserve[32];
    snprintf(reserve, sizeof reserve, "%lld", (long long)RESERVE);
    sbx_option opts[3] = { { "state_dir", shared.state_dir },
                           { "isolation", sbx_local_test_namespaces_allowed() ? "namespaces"
                                                                              : "none" },
                           { "disk_reserve_bytes", reserve } };
    return sbx_local_test_open(host, opts, 3);
}

static void open_shared(void)
{
    if (shared.backend != NULL)
        return;
    sbx_local_test_make_dir(shared.scratch, sizeof shared.scratch, "disk");
    snprintf(shared.fs, sizeof shared.fs, "%s/fs", shared.scratch);
    snprintf(shared.state_dir, sizeof shared.state_dir, "%s/state", shared.fs);
    CU_ASSERT_FATAL(mkdir(shared.fs, 0755) == 0);
    CU_ASSERT_FATAL(mount("tmpfs", shared.fs, "tmpfs", 0, TMPFS_OPTIONS) == 0);
    shared.host = sbx_local_test_new_host(NULL, NULL);
    shared.backend = open_backend(shared.host);
    sbx_error err;
    sbx_status st = create(shared.backend, "full", DISK, &err);
    if (st != SBX_OK)
        fprintf(stderr, "create: %s\n", err.message);
    CU_ASSERT_FATAL(st == SBX_OK);
}

static int close_shared(void)
{
    if (shared.backend == NULL)
        return 0;
    sbx_error err;
    int failed = sbx_backend_destroy(shared.backend, "full", &err) != SBX_OK;
    sbx_backend_close(shared.backend);
    sbx_host_free(shared.host);
    failed |= umount2(shared.fs, MNT_DETACH) != 0;
    sbx_test_remove_tree(shared.scratch);
    return failed;
}

/* Run shell text in `id`; fatal when exec fails.  Free with done(). */
static sbx_exec_result *run(const char *id, const char *text)
{
    open_shared();
    return sbx_test_shell_ok(shared.backend, id, text, 0);
}

static void done(sbx_exec_result *r)
{
    sbx_backend_free_exec_result(shared.backend, r);
}

/* 1 when shell text exits 0 in `id`. */
static int succeeds(const char *id, const char *text)
{
    sbx_exec_result *r = run(id, text);
    int ok = r->outcome == SBX_EXEC_EXITED && r->exit_code == 0;
    if (!ok)
        fprintf(stderr, "%s: exit %d, out '%s', err '%s'\n", text, r->exit_code,
                r->stdout_data, r->stderr_data);
    done(r);
    return ok;
}

/* STATE/NAME into buf. */
static const char *in_state(const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s", shared.state_dir, name);
    return buf;
}

/* 1 when something is mounted at `path` (this namespace's mount table). */
static int mounted_at(const char *path)
{
    FILE *in = fopen("/proc/self/mountinfo", "re");
    char line[2 * PATH_MAX], point[PATH_MAX];
    int found = 0;
    while (in != NULL && !found && fgets(line, sizeof line, in) != NULL)
        found = sscanf(line, "%*s %*s %*s %*s %4095s", point) == 1 && strcmp(point, path) == 0;
    if (in != NULL)
        fclose(in);
    return found;
}

/* How many loop devices are backed by the image `image`. */
static int loop_backs(const char *image)
{
    DIR *dir = opendir("/sys/block");
    struct dirent *e;
    int found = 0;
    while (dir != NULL && (e = readdir(dir)) != NULL) {
        if (strncmp(e->d_name, "loop", 4) != 0)
            continue;
        char path[PATH_MAX], backing[PATH_MAX] = "";
        snprintf(path, sizeof path, "/sys/block/%s/loop/backing_file", e->d_name);
        FILE *in = fopen(path, "re");
        if (in != NULL && fgets(backing, sizeof backing, in) != NULL)
            found += strncmp(backing, image, strlen(image)) == 0;
        if (in != NULL)
            fclose(in);
    }
    if (dir != NULL)
        closedir(dir);
    return found;
}

/* Nothing of sandbox `id`'s disk is left: no mount at its directory, no
 * image, and (once the last namespace holding the mount is gone, which
 * the kernel finishes after the processes' exit) no loop device. */
static void assert_no_disk_left(const char *id)
{
    char dir[PATH_MAX], image[PATH_MAX], name[300];
    in_state(id, dir, sizeof dir);
    snprintf(name, sizeof name, ".%s.disk", id);
    in_state(name, image, sizeof image);
    CU_ASSERT(!mounted_at(dir));
    CU_ASSERT(!sbx_local_test_path_exists(image));
    CU_ASSERT(!sbx_local_test_path_exists(dir));
    CU_ASSERT(!loop_backs(image));
}

static void test_writing_past_the_disk_fails_inside_with_enospc(void)
{
    /* The file system is the disk's size: df counts it in KiB. */
    sbx_exec_result *r = run("full", "df -k . | tail -n 1");
    long kib = 0;
    CU_ASSERT(sscanf(r->stdout_data, "%*s %ld", &kib) == 1);
    CU_ASSERT(kib > DISK / 1024 * 3 / 4 && kib <= DISK / 1024);
    if (!(kib > DISK / 1024 * 3 / 4 && kib <= DISK / 1024))
        fprintf(stderr, "df: '%s' '%s'\n", r->stdout_data, r->stderr_data);
    done(r);
    /* Twice the disk: the write stops at its end. */
    r = run("full", "head -c 33554432 /dev/zero > big");
    CU_ASSERT(r->outcome == SBX_EXEC_EXITED && r->exit_code != 0);
    CU_ASSERT(strstr(r->stderr_data, "No space left on device") != NULL);
    if (strstr(r->stderr_data, "No space left on device") == NULL)
        fprintf(stderr, "head: exit %d, err '%s'\n", r->exit_code, r->stderr_data);
    done(r);
    CU_ASSERT(succeeds("full", "test $(wc -c < big) -gt 8000000"));
}

static void test_the_host_and_another_sandbox_keep_writing_and_creating(void)
{
    open_shared();
    /* "full" is full (above): the records' file system is not. */
    char path[PATH_MAX];
    sbx_local_test_write_file(in_state("host-file", path, sizeof path), "written\n");
    unlink(path);
    sbx_error err;
    sbx_status st = create(shared.backend, "other", DISK, &err);
    if (st != SBX_OK)
        fprintf(stderr, "create other: %s\n", err.message);
    CU_ASSERT_FATAL(st == SBX_OK);
    CU_ASSERT(succeeds("other", "head -c 4194304 /dev/zero > four && test $(wc -c < four) = "
                                "4194304"));
    /* The host's file calls write into the disks too: "other" has room,
     * "full" none. */
    static char mib[1 << 20];
    CU_ASSERT(sbx_backend_write_file(shared.backend, "other", "one", mib, sizeof mib, 0, 0644,
                                     &err) == SBX_OK);
    st = sbx_backend_write_file(shared.backend, "full", "one", mib, sizeof mib, 0, 0644, &err);
    CU_ASSERT(st != SBX_OK && strstr(err.message, "No space left on device") != NULL);
    if (st == SBX_OK || strstr(err.message, "No space left on device") == NULL)
        fprintf(stderr, "write_file into the full disk: %d %s\n", (int)st, err.message);
    /* A sandbox without a disk too. */
    CU_ASSERT(create(shared.backend, "plain", SBX_LIMIT_NONE, &err) == SBX_OK);
    CU_ASSERT(succeeds("plain", "echo fine > f"));
    CU_ASSERT(sbx_backend_destroy(shared.backend, "plain", &err) == SBX_OK);
    /* The full sandbox still runs, and frees its own space. */
    CU_ASSERT(succeeds("full", "rm big && echo again > small"));
    sbx_sandbox_record *records = NULL;
    size_t count = 0;
    CU_ASSERT(sbx_backend_list_records(shared.backend, &records, &count, &err) == SBX_OK);
    CU_ASSERT(count == 2);
    sbx_backend_free_records(shared.backend, records);
}

static void test_the_reserve_refuses_a_create_naming_it(void)
{
    open_shared();
    sbx_error err;
    /* 96 MiB less two disks of 16 leave about 64 MiB: 40 more would
     * leave less than the 32 kept. */
    CU_ASSERT(create(shared.backend, "big", BIG_DISK, &err) == SBX_ERR_REFUSED);
    CU_ASSERT(strstr(err.message, "disk_reserve_bytes") != NULL &&
              strstr(err.message, "'big'") != NULL);
    char path[PATH_MAX];
    CU_ASSERT(!sbx_local_test_path_exists(in_state("big", path, sizeof path)));
    CU_ASSERT(!sbx_local_test_path_exists(in_state("big.json", path, sizeof path)));
    CU_ASSERT(!sbx_local_test_path_exists(in_state(".big.disk", path, sizeof path)));
    /* What fits is made. */
    CU_ASSERT(create(shared.backend, "small", 4 * MIB, &err) == SBX_OK);
    CU_ASSERT(sbx_backend_destroy(shared.backend, "small", &err) == SBX_OK);
}

/* What a racer answers its parent: its create's status and message. */
typedef struct racer_answer {
    sbx_status status;
    char message[SBX_ERROR_MESSAGE_MAX];
} racer_answer;

/* A racer: a host of its own opens the backend, says so on `ready`, waits
 * for `go` to close, creates `id` and answers on `answer`. */
static void race(const char *id, int ready, int go, int answer)
{
    sbx_host *host = sbx_local_test_new_host(NULL, NULL);
    sbx_backend *b = open_backend(host);
    char byte = 'r', none;
    racer_answer a;
    memset(&a, 0, sizeof a);
    if (write(ready, &byte, 1) != 1 || read(go, &none, 1) != 0)
        _exit(1);
    sbx_error err;
    a.status = create(b, id, RACER_DISK, &err);
    if (a.status != SBX_OK)
        snprintf(a.message, sizeof a.message, "%s", err.message);
    sbx_backend_close(b);
    sbx_host_free(host);
    _exit(write(answer, &a, sizeof a) == (ssize_t)sizeof a ? 0 : 1);
}

static void test_creates_at_the_same_moment_keep_the_reserve(void)
{
    open_shared();
    int ready[2], go[2], answers[RACERS][2];
    pid_t racers[RACERS];
    char ids[RACERS][16];
    CU_ASSERT_FATAL(pipe(ready) == 0 && pipe(go) == 0);
    for (int i = 0; i < RACERS; i++) {
        snprintf(ids[i], sizeof ids[i], "racer-%d", i);
        CU_ASSERT_FATAL(pipe(answers[i]) == 0);
        racers[i] = fork();
        CU_ASSERT_FATAL(racers[i] >= 0);
        if (racers[i] == 0) {
            close(ready[0]);
            close(go[1]);
            close(answers[i][0]);
            race(ids[i], ready[1], go[0], answers[i][1]);
        }
        close(answers[i][1]);
    }
    close(ready[1]);
    close(go[0]);
    /* Every racer has its backend open: they all start now. */
    char byte;
    int readied = 0;
    while (readied < RACERS && read(ready[0], &byte, 1) == 1)
        readied++;
    CU_ASSERT_FATAL(readied == RACERS);
    close(go[1]);
    close(ready[0]);
    int made = 0, refused = 0;
    char figure[64], path[PATH_MAX], image[PATH_MAX], name[32];
    for (int i = 0; i < RACERS; i++) {
        racer_answer a;
        int status = 0;
        CU_ASSERT_FATAL(read(answers[i][0], &a, sizeof a) == (ssize_t)sizeof a);
        close(answers[i][0]);
        CU_ASSERT(waitpid(racers[i], &status, 0) == racers[i] && WIFEXITED(status) &&
                  WEXITSTATUS(status) == 0);
        made += a.status == SBX_OK;
        if (a.status == SBX_OK)
            continue;
        refused++;
        /* Refused naming both figures, and nothing made. */
        CU_ASSERT(a.status == SBX_ERR_REFUSED);
        snprintf(figure, sizeof figure, "disk_bytes %lld", (long long)RACER_DISK);
        CU_ASSERT(strstr(a.message, figure) != NULL);
        snprintf(figure, sizeof figure, "disk_reserve_bytes %lld", (long long)RESERVE);
        CU_ASSERT(strstr(a.message, figure) != NULL);
        if (a.status != SBX_ERR_REFUSED || strstr(a.message, figure) == NULL)
            fprintf(stderr, "%s: %d %s\n", ids[i], (int)a.status, a.message);
        /* Bounded by the id's own buffer, which some builds cannot see. */
        snprintf(name, sizeof name, ".%.*s.disk", (int)sizeof ids[i] - 1, ids[i]);
        CU_ASSERT(!sbx_local_test_path_exists(in_state(ids[i], path, sizeof path)));
        CU_ASSERT(!sbx_local_test_path_exists(in_state(name, image, sizeof image)));
    }
    /* The disks taken stay; what is free now is the least it ever was. */
    struct statvfs fs;
    CU_ASSERT_FATAL(statvfs(shared.fs, &fs) == 0);
    int64_t free_bytes = (int64_t)fs.f_bavail * (int64_t)fs.f_frsize;
    fprintf(stderr, "%d creates at once: %d made, %d refused, %lld bytes free, %lld kept\n",
            RACERS, made, refused, (long long)free_bytes, (long long)RESERVE);
    CU_ASSERT(free_bytes >= RESERVE);
    CU_ASSERT(made > 0 && refused > 0);
    sbx_error err;
    for (int i = 0; i < RACERS; i++)
        if (sbx_local_test_path_exists(in_state(ids[i], path, sizeof path)))
            CU_ASSERT(sbx_backend_destroy(shared.backend, ids[i], &err) == SBX_OK);
}

static void test_destroy_leaves_no_mount_loop_device_or_image(void)
{
    open_shared();
    char image[PATH_MAX];
    in_state(".other.disk", image, sizeof image);
    CU_ASSERT_FATAL(loop_backs(image) == 1);
    struct statvfs before, after;
    CU_ASSERT_FATAL(statvfs(shared.fs, &before) == 0);
    sbx_error err;
    CU_ASSERT(sbx_backend_destroy(shared.backend, "other", &err) == SBX_OK);
    assert_no_disk_left("other");
    /* Its space is back once the loop device let go of the image (less
     * a few pages of the tmpfs's own accounting). */
    CU_ASSERT(statvfs(shared.fs, &after) == 0);
    CU_ASSERT((int64_t)(after.f_bavail - before.f_bavail) * (int64_t)after.f_frsize >=
              DISK - DISK / 16);
}

static void test_what_a_killed_host_left_is_cleaned(void)
{
    open_shared();
    /* A host killed with a sandbox made: another destroys it. */
    pid_t child = fork();
    if (child == 0) {
        sbx_host *host = NULL;
        sbx_host_services services = { sizeof services, NULL, NULL };
        sbx_backend *b = NULL;
        sbx_error e;
        sbx_option opts[1] = { { "state_dir", shared.state_dir } };
        if (sbx_host_new(&services, &host, &e) != SBX_OK ||
            sbx_backend_open(host, "local", opts, 1, &b, &e) != SBX_OK ||
            create(b, "orphan", DISK, &e) != SBX_OK)
            _exit(1);
        raise(SIGKILL);
        _exit(2);
    }
    int status = 0;
    CU_ASSERT_FATAL(waitpid(child, &status, 0) == child);
    CU_ASSERT_FATAL(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    char path[PATH_MAX], tomb[PATH_MAX];
    CU_ASSERT(mounted_at(in_state("orphan", path, sizeof path)));
    sbx_error err;
    CU_ASSERT(sbx_backend_destroy(shared.backend, "orphan", &err) == SBX_OK);
    assert_no_disk_left("orphan");
    /* A host killed in a create (its record says so): the next create of
     * the id removes the disk it made and makes one anew. */
    CU_ASSERT_FATAL(create(shared.backend, "cut", DISK, &err) == SBX_OK);
    json_object *record = sbx_local_test_read_metadata(shared.state_dir, "cut");
    CU_ASSERT_FATAL(record != NULL);
    json_object_object_add(record, "state", json_object_new_string("creating"));
    CU_ASSERT_FATAL(json_object_to_file(in_state("cut.json", path, sizeof path), record) == 0);
    json_object_put(record);
    CU_ASSERT(create(shared.backend, "cut", DISK, &err) == SBX_OK);
    CU_ASSERT(loop_backs(in_state(".cut.disk", path, sizeof path)) == 1);
    CU_ASSERT(mounted_at(in_state("cut", path, sizeof path)));
    CU_ASSERT(succeeds("cut", "test ! -e lost+found && echo new > f"));
    CU_ASSERT(sbx_backend_destroy(shared.backend, "cut", &err) == SBX_OK);
    assert_no_disk_left("cut");
    /* A host killed in a destroy, its record buried: list finishes it. */
    CU_ASSERT_FATAL(create(shared.backend, "buried", DISK, &err) == SBX_OK);
    CU_ASSERT_FATAL(rename(in_state("buried.json", path, sizeof path),
                           in_state(".buried.tomb", tomb, sizeof tomb)) == 0);
    sbx_sandbox_record *records = NULL;
    size_t count = 0;
    CU_ASSERT(sbx_backend_list_records(shared.backend, &records, &count, &err) == SBX_OK);
    sbx_backend_free_records(shared.backend, records);
    CU_ASSERT(count == 1);
    assert_no_disk_left("buried");
}

static void test_bad_sizes_are_refused_naming_the_member(void)
{
    open_shared();
    sbx_error err;
    CU_ASSERT(create(shared.backend, "tiny", 4096, &err) == SBX_ERR_USAGE);
    CU_ASSERT(strstr(err.message, "disk_bytes") != NULL);
    CU_ASSERT(create(shared.backend, "zero", 0, &err) != SBX_OK);
    CU_ASSERT(strstr(err.message, "disk_bytes") != NULL);
    char path[PATH_MAX];
    CU_ASSERT(!sbx_local_test_path_exists(in_state("tiny", path, sizeof path)));
    CU_ASSERT(!sbx_local_test_path_exists(in_state("zero", path, sizeof path)));
}

/* As uid 65534: a create asking a disk is unsupported, naming what is
 * missing, and makes nothing; one asking none works. */
static void unprivileged_create(sbx_local_test_verdict *v, void *ctx)
{
    const char *state_dir = ctx;
    sbx_host *host = NULL;
    sbx_host_services services = { sizeof services, NULL, NULL };
    sbx_backend *b = NULL;
    sbx_error e;
    sbx_option opts[2] = { { "state_dir", state_dir }, { "isolation", "none" } };
    if (!sbx_local_test_check(v, sbx_host_new(&services, &host, &e) == SBX_OK, "host") ||
        !sbx_local_test_check(v, sbx_backend_open(host, "local", opts, 2, &b, &e) == SBX_OK,
                              "open: %s", e.message))
        return;
    sbx_status st = create(b, "wanting", DISK, &e);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/wanting", state_dir);
    if (sbx_local_test_check(v, st == SBX_ERR_UNSUPPORTED, "create: status %d: %s", (int)st,
                             e.message) &&
        sbx_local_test_check(v, strstr(e.message, "disk_bytes") != NULL &&
                                    strstr(e.message, "root") != NULL,
                             "message: %s", e.message) &&
        sbx_local_test_check(v, !sbx_local_test_path_exists(dir), "%s was made", dir) &&
        sbx_local_test_check(v, create(b, "wanting", SBX_LIMIT_NONE, &e) == SBX_OK,
                             "create without a disk: %s", e.message))
        sbx_local_test_check(v, sbx_backend_destroy(b, "wanting", &e) == SBX_OK, "destroy: %s",
                             e.message);
    sbx_backend_close(b);
    sbx_host_free(host);
}

static void test_a_host_not_root_gets_unsupported(void)
{
    char state_dir[PATH_MAX];
    sbx_local_test_make_dir(state_dir, sizeof state_dir, "disk unprivileged");
    CU_ASSERT_FATAL(chown(state_dir, SBX_LOCAL_TEST_UNPRIVILEGED_ID,
                          SBX_LOCAL_TEST_UNPRIVILEGED_ID) == 0);
    sbx_local_test_verdict v;
    sbx_local_test_run_unprivileged(unprivileged_create, state_dir, &v);
    if (v.why[0] != '\0')
        fprintf(stderr, "unprivileged: %s\n", v.why);
    CU_ASSERT(v.why[0] == '\0');
    sbx_test_remove_tree(state_dir);
}

/* Root, loop devices and mkfs.ext4, and a mount namespace of the suite's
 * own, private, so that nothing it mounts reaches the host's. */
static int disk_possible(void)
{
    return geteuid() == 0 && access("/dev/loop-control", R_OK | W_OK) == 0 &&
           (sbx_local_test_on_path("mkfs.ext4") || access("/usr/sbin/mkfs.ext4", X_OK) == 0 ||
            access("/sbin/mkfs.ext4", X_OK) == 0) &&
           unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0;
}

void sbx_test_register(void)
{
    if (!disk_possible()) {
        fprintf(stderr, "test_local_disk: skipped: not root, no /dev/loop-control, no mkfs.ext4 "
                        "or no mount namespace\n");
        exit(77);
    }
    static const CU_TestInfo tests[] = {
        { "disk: writing past it fails inside with ENOSPC",
          test_writing_past_the_disk_fails_inside_with_enospc },
        { "disk: the host and another sandbox keep writing and creating",
          test_the_host_and_another_sandbox_keep_writing_and_creating },
        { "disk: the reserve refuses a create, naming it",
          test_the_reserve_refuses_a_create_naming_it },
        { "disk: creates at the same moment keep the reserve",
          test_creates_at_the_same_moment_keep_the_reserve },
        { "disk: destroy leaves no mount, loop device or image",
          test_destroy_leaves_no_mount_loop_device_or_image },
        { "disk: what a killed host left is cleaned", test_what_a_killed_host_left_is_cleaned },
        { "disk: bad sizes refused naming disk_bytes", test_bad_sizes_are_refused_naming_the_member },
        { "disk: a host not root gets unsupported", test_a_host_not_root_gets_unsupported },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("local backend disk", NULL, close_shared, tests);
}
