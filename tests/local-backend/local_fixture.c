/* Shared fixtures of the local backend's suites (see local_fixture.h). */
#include <config.h>

#include "tests/local-backend/local_fixture.h"

#include "tests/support/backend_calls.h"
#include "tests/support/clock.h"
#include "tests/support/proc_table.h"
#include "tests/support/scratch_dir.h"

#include <CUnit/CUnit.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void sbx_local_test_make_dir(char *out, size_t size, const char *tag)
{
    CU_ASSERT_FATAL(sbx_test_scratch_dir(out, size, tag) == 0);
}

sbx_host *sbx_local_test_new_host(sbx_log_fn log, void *ctx)
{
    sbx_host_services services = { sizeof services, log, ctx };
    sbx_host *host = NULL;
    sbx_error err;
    CU_ASSERT_FATAL(sbx_host_new(&services, &host, &err) == SBX_OK);
    return host;
}

sbx_backend *sbx_local_test_open(sbx_host *host, const sbx_option *options, size_t count)
{
    sbx_backend *backend = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_open(host, "local", options, count, &backend, &err);
    if (st != SBX_OK)
        fprintf(stderr, "open local: %s\n", err.message);
    CU_ASSERT_FATAL(st == SBX_OK);
    return backend;
}

sbx_backend *sbx_local_test_open_with_sandbox(const char *state_dir, const char *id,
                                              sbx_host **host)
{
    *host = sbx_local_test_new_host(NULL, NULL);
    sbx_option opts[2] = { { "state_dir", state_dir }, { "isolation", "none" } };
    sbx_backend *b = sbx_local_test_open(*host, opts, 2);
    sbx_error err;
    sbx_sandbox *sb = sbx_test_create(b, id, NULL, NULL, &err);
    if (sb == NULL)
        fprintf(stderr, "create %s: %s\n", id, err.message);
    CU_ASSERT_FATAL(sb != NULL);
    sbx_backend_free_sandboxes(b, sb, 1);
    return b;
}

int sbx_local_test_on_path(const char *name)
{
    const char *path = getenv("PATH");
    char dir[PATH_MAX], candidate[PATH_MAX + 64];
    while (path != NULL && *path != '\0') {
        size_t len = strcspn(path, ":");
        snprintf(dir, sizeof dir, "%.*s", (int)len, path);
        snprintf(candidate, sizeof candidate, "%s/%s", dir[0] ? dir : ".", name);
        if (access(candidate, X_OK) == 0)
            return 1;
        path += len + (path[len] == ':');
    }
    return 0;
}

const char *sbx_local_test_server_command(void)
{
    if (sbx_local_test_on_path("python3"))
        return "exec python3 -m http.server {port} --bind 127.0.0.1 --directory {dir}";
    if (sbx_local_test_on_path("busybox"))
        return "exec busybox httpd -f -p 127.0.0.1:{port} -h {dir}";
    return NULL;
}

json_object *sbx_local_test_read_metadata(const char *state_dir, const char *id)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s.json", state_dir, id);
    return json_object_from_file(path);
}

long sbx_local_test_metadata_long(const char *state_dir, const char *id, const char *key)
{
    json_object *meta = sbx_local_test_read_metadata(state_dir, id), *v = NULL;
    long value = 0;
    if (meta != NULL && json_object_object_get_ex(meta, key, &v) && v != NULL)
        value = (long)json_object_get_int64(v);
    json_object_put(meta);
    return value;
}

long sbx_local_test_metadata_pid(const char *state_dir, const char *id)
{
    return sbx_local_test_metadata_long(state_dir, id, "pid");
}

/* Which process has the word `word` as one of its arguments. */
typedef struct word_search {
    const char *word;
    long pid;
} word_search;

static int has_argument(const sbx_test_process *p, void *ctx)
{
    word_search *s = ctx;
    for (size_t i = 0; i < p->args_len; i += strlen(p->args + i) + 1)
        if (strcmp(p->args + i, s->word) == 0) {
            s->pid = p->pid;
            return 1;
        }
    return 0;
}

long sbx_local_test_host_process_with(const char *word)
{
    word_search s = { word, 0 };
    sbx_test_proc_each(has_argument, &s);
    return s.pid;
}

int sbx_local_test_host_has_process_with(const char *word)
{
    return sbx_local_test_host_process_with(word) != 0;
}

int sbx_local_test_process_gone(long pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    return p != NULL && (p[2] == 'Z' || p[2] == 'X');
}

int sbx_local_test_path_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

int sbx_local_test_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
             strcmp(e->d_name, SBX_LOCAL_TEST_MARKER) != 0;
    if (d != NULL)
        closedir(d);
    return n;
}

void sbx_local_test_write_file(const char *path, const char *text)
{
    FILE *out = fopen(path, "w");
    CU_ASSERT_FATAL(out != NULL);
    fputs(text, out);
    CU_ASSERT_FATAL(fclose(out) == 0);
}

int sbx_local_test_namespaces_allowed(void)
{
    pid_t child = fork();
    if (child == 0)
        _exit(unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET) == 0 ? 0 : 1);
    int status = -1;
    while (child > 0 && waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    return child > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void sbx_local_test_drop_root(const char *program)
{
    if (geteuid() != 0)
        return;
    if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) {
        fprintf(stderr, "%s: dropping root: %s\n", program, strerror(errno));
        exit(1);
    }
    setenv("TMPDIR", "/tmp", 1);
    setenv("HOME", "/tmp", 1);
}
