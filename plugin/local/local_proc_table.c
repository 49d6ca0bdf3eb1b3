/* The live processes' directory of a sandbox (see local_proc_table.h). */
#include <config.h>

#include "plugin/local/local_proc_table.h"

#include "plugin/local/local_remove.h"
#include "plugin/local/local_supervisor.h"
#include "plugin/local/local_time.h"

#include <dirent.h>
#include <sbx/backend_support.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NEW_SUFFIX ".new"

sbx_status local_proc_table_path(const local_paths *paths, char *out, sbx_error *err)
{
    int n = snprintf(out, PATH_MAX, "%s/.%s.procs", paths->state_dir, paths->id);
    if (n < 0 || n >= PATH_MAX)
        return sbx_backend_error_set(err, SBX_ERR_CONFIG, "the process directory of "
                                     "sandbox '%s' does not fit PATH_MAX", paths->id);
    return SBX_OK;
}

/* The process directory open (O_DIRECTORY), or -1 with errno. */
static int open_table(const local_paths *paths, int create, sbx_error *err, sbx_status *st)
{
    char path[PATH_MAX];
    *st = local_proc_table_path(paths, path, err);
    if (*st != SBX_OK)
        return -1;
    if (create && mkdir(path, 0700) != 0 && errno != EEXIST) {
        *st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot make %s: %s", path,
                                    strerror(errno));
        return -1;
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && (create || errno != ENOENT))
        *st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot open %s: %s", path,
                                    strerror(errno));
    return fd;
}

/* The number of id "pN" (N >= 1, no leading zero, no suffix), or 0. */
static unsigned long long id_number(const char *name)
{
    if (name[0] != 'p' || name[1] < '1' || name[1] > '9' || strlen(name) > 21)
        return 0;
    unsigned long long n = 0;
    for (const char *c = name + 1; *c != '\0'; c++) {
        if (*c < '0' || *c > '9')
            return 0;
        n = n * 10 + (unsigned long long)(*c - '0');
    }
    return n;
}

sbx_status local_proc_open(const local_paths *paths, const char *process_id, local_proc *p,
                           sbx_error *err)
{
    p->dir_fd = -1;
    p->ring.fd = -1;
    p->ring.h = NULL;
    sbx_status st = SBX_OK;
    int table = open_table(paths, 0, err, &st);
    if (st != SBX_OK)
        return st;
    if (table >= 0 && id_number(process_id) != 0)
        p->dir_fd = openat(table, process_id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (table >= 0)
        close(table);
    if (p->dir_fd < 0 || local_ring_open(p->dir_fd, LOCAL_PROC_OUTPUT, &p->ring) != 0) {
        local_proc_close(p);
        return sbx_backend_error_set(err, SBX_ERR_NO_SUCH_PROCESS, "sandbox '%s' has "
                                     "no process '%s'", paths->id, process_id);
    }
    snprintf(p->id, sizeof p->id, "%s", process_id);
    local_ring_reap_orphan(&p->ring);
    return SBX_OK;
}

void local_proc_close(local_proc *p)
{
    local_ring_close(&p->ring);
    if (p->dir_fd >= 0)
        close(p->dir_fd);
    p->dir_fd = -1;
}

static int by_number(const void *a, const void *b)
{
    unsigned long long x = id_number(*(char *const *)a), y = id_number(*(char *const *)b);
    return x < y ? -1 : x > y;
}

void local_proc_ids_free(char **ids, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(ids[i]);
    free(ids);
}

/* The entries of `table` whose names `keep` accepts, into *names. */
static int read_entries(int table, int (*keep)(const char *), char ***names, size_t *count)
{
    *names = NULL;
    *count = 0;
    int fd = dup(table);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d == NULL) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    /* The duplicate shares the offset of earlier reads. */
    rewinddir(d);
    size_t room = 0;
    int ok = 1;
    for (struct dirent *e; ok && (e = readdir(d)) != NULL;) {
        if (!keep(e->d_name))
            continue;
        if (*count == room) {
            room = room == 0 ? 16 : room * 2;
            char **more = realloc(*names, room * sizeof *more);
            ok = more != NULL;
            if (ok)
                *names = more;
        }
        if (ok && ((*names)[*count] = strdup(e->d_name)) != NULL)
            (*count)++;
        else
            ok = 0;
    }
    closedir(d);
    if (!ok) {
        local_proc_ids_free(*names, *count);
        *names = NULL;
        *count = 0;
    }
    return ok;
}

static int is_id(const char *name)
{
    return id_number(name) != 0;
}

/* Every entry but . and .. (what destroy removes). */
static int is_process_entry(const char *name)
{
    return name[0] == 'p';
}

sbx_status local_proc_ids(const local_paths *paths, char ***ids, size_t *count,
                          sbx_error *err)
{
    sbx_status st = SBX_OK;
    *ids = NULL;
    *count = 0;
    int table = open_table(paths, 0, err, &st);
    if (table < 0)
        return st;
    int ok = read_entries(table, is_id, ids, count);
    close(table);
    if (!ok)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot list the processes "
                                     "of sandbox '%s'", paths->id);
    if (*count > 0)
        qsort(*ids, *count, sizeof **ids, by_number);
    return SBX_OK;
}

/* Read the counter of `table` (1 when there is none yet). */
static unsigned long long read_next(int table)
{
    char text[32] = { 0 };
    int fd = openat(table, "next", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 1;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    unsigned long long v = n > 0 ? strtoull(text, NULL, 10) : 0;
    return v == 0 ? 1 : v;
}

static int write_next(int table, unsigned long long next)
{
    char text[32];
    int len = snprintf(text, sizeof text, "%llu\n", next);
    int fd = openat(table, "next.tmp", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                    0600);
    if (fd < 0)
        return 0;
    int ok = write(fd, text, (size_t)len) == len;
    close(fd);
    return ok && renameat(table, "next.tmp", table, "next") == 0;
}

/* Remove the entries killed starts left ("pN.new"). */
static void sweep_half_made(int table, char **names, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        size_t len = strlen(names[i]);
        int half = len > strlen(NEW_SUFFIX) &&
                   strcmp(names[i] + len - strlen(NEW_SUFFIX), NEW_SUFFIX) == 0;
        if (!half)
            continue;
        /* A start killed after its fork left a supervisor running: it
         * ends its process on this word, before its directory goes. */
        local_supervisor_ask(table, names[i], LOCAL_CONTROL_STOP, 0, 0);
        local_remove_tree(table, names[i], names[i], &(sbx_error){ 0 });
    }
}

/* Count the running processes among `ids` and forget the oldest ended
 * ones beyond `keep_ended`; *running the count. */
static void count_and_retire(int table, char **ids, size_t count, size_t keep_ended,
                             size_t *running)
{
    size_t ended = 0;
    *running = 0;
    for (size_t i = count; i > 0; i--) {
        int dir = openat(table, ids[i - 1], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        local_ring ring = { -1, NULL, 0 };
        if (dir < 0 || local_ring_open(dir, LOCAL_PROC_OUTPUT, &ring) != 0) {
            if (dir >= 0)
                close(dir);
            continue;
        }
        local_ring_reap_orphan(&ring);
        local_ring_state state;
        local_ring_state_of(&ring, &state);
        local_ring_close(&ring);
        close(dir);
        if (!state.ended)
            (*running)++;
        else if (++ended > keep_ended)
            local_remove_tree(table, ids[i - 1], ids[i - 1], &(sbx_error){ 0 });
    }
}

sbx_status local_proc_reserve(const local_paths *paths, size_t max_processes, char *id,
                              int *dir_fd, sbx_error *err)
{
    sbx_status st = SBX_OK;
    int table = open_table(paths, 1, err, &st);
    if (table < 0)
        return sbx_backend_error_prefix(err, "process start in sandbox '%s'", paths->id);
    char **names = NULL;
    size_t count = 0, running = 0;
    if (read_entries(table, is_process_entry, &names, &count)) {
        sweep_half_made(table, names, count);
        local_proc_ids_free(names, count);
    }
    if (read_entries(table, is_id, &names, &count)) {
        if (count > 0)
            qsort(names, count, sizeof *names, by_number);
        count_and_retire(table, names, count, max_processes, &running);
        local_proc_ids_free(names, count);
    }
    if (running >= max_processes) {
        close(table);
        return sbx_backend_error_set(err, SBX_ERR_REFUSED, "process start in sandbox '%s': "
                                     "%zu processes run already, the limit (option "
                                     "max_processes) is %zu", paths->id, running,
                                     max_processes);
    }
    unsigned long long next = read_next(table);
    char name[48];
    snprintf(id, 32, "p%llu", next);
    snprintf(name, sizeof name, "%s%s", id, NEW_SUFFIX);
    if (!write_next(table, next + 1) || mkdirat(table, name, 0700) != 0 ||
        (*dir_fd = openat(table, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "process start in sandbox '%s': "
                                   "cannot make its state: %s", paths->id, strerror(errno));
    close(table);
    return st;
}

sbx_status local_proc_publish(const local_paths *paths, const char *id, int keep,
                              sbx_error *err)
{
    sbx_status st = SBX_OK;
    int table = open_table(paths, 0, err, &st);
    if (table < 0)
        return st == SBX_OK ? sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "process start: "
                                                    "sandbox '%s' was destroyed", paths->id)
                            : sbx_backend_error_prefix(err, "process start in sandbox '%s'",
                                                       paths->id);
    char name[48];
    snprintf(name, sizeof name, "%s%s", id, NEW_SUFFIX);
    if (!keep)
        local_remove_tree(table, name, name, &(sbx_error){ 0 });
    else if (renameat(table, name, table, id) != 0)
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "process start in sandbox '%s': "
                                   "cannot publish %s: %s", paths->id, id, strerror(errno));
    close(table);
    return st;
}

sbx_status local_proc_forget(const local_paths *paths, const char *process_id,
                             sbx_error *err)
{
    local_proc p;
    sbx_status st = local_proc_open(paths, process_id, &p, err);
    if (st != SBX_OK)
        return sbx_backend_error_prefix(err, "process forget");
    local_ring_state state;
    local_ring_state_of(&p.ring, &state);
    local_proc_close(&p);
    if (!state.ended)
        return sbx_backend_error_set(err, SBX_ERR_USAGE, "process forget of '%s' in sandbox "
                                     "'%s': it is still running (signal it first)",
                                     process_id, paths->id);
    int table = open_table(paths, 0, err, &st);
    if (table >= 0) {
        st = local_remove_tree(table, process_id, process_id, err);
        close(table);
    }
    return st == SBX_OK ? st : sbx_backend_error_prefix(err, "process forget of '%s' in "
                                                        "sandbox '%s'", process_id, paths->id);
}

/* Wait until the process of directory `name` ended (its supervisor,
 * asked to stop, ended it and everything it started) or `until` passed;
 * then kill the supervisor, which ends the process as well. */
static void await_end(int table, const char *name, long until)
{
    int dir = openat(table, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    local_ring ring = { -1, NULL, 0 };
    if (dir < 0 || local_ring_open(dir, LOCAL_PROC_OUTPUT, &ring) != 0) {
        if (dir >= 0)
            close(dir);
        return;
    }
    for (;;) {
        uint32_t seen = local_ring_wake_value(&ring);
        local_ring_state state;
        local_ring_reap_orphan(&ring);
        local_ring_state_of(&ring, &state);
        if (state.ended)
            break;
        if (local_now_ms() >= until) {
            local_ring_kill_supervisor(&ring);
            until = local_now_ms() + 5000L;
        }
        /* The supervisor's end wakes this; its death (no wake) is seen
         * at the next slice. */
        local_ring_wait(&ring, seen, 50);
    }
    local_ring_close(&ring);
    close(dir);
}

sbx_status local_proc_end_all(const local_paths *paths, long stop_timeout_ms,
                              sbx_error *err)
{
    sbx_status st = SBX_OK;
    int table = open_table(paths, 0, err, &st);
    if (table < 0)
        return st == SBX_OK ? st : sbx_backend_error_prefix(err, "destroy of sandbox '%s'",
                                                            paths->id);
    char **names = NULL;
    size_t count = 0;
    read_entries(table, is_process_entry, &names, &count);
    long until = local_now_ms() + stop_timeout_ms;
    /* All asked first, so that they end side by side. */
    for (size_t i = 0; i < count; i++)
        local_supervisor_ask(table, names[i], LOCAL_CONTROL_STOP, 0, 0);
    for (size_t i = 0; i < count; i++)
        await_end(table, names[i], until);
    local_proc_ids_free(names, count);
    close(table);
    char path[PATH_MAX];
    st = local_proc_table_path(paths, path, err);
    if (st != SBX_OK)
        return sbx_backend_error_prefix(err, "destroy of sandbox '%s'", paths->id);
    int parent = open(paths->state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (parent < 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "destroy of sandbox '%s': cannot "
                                     "open %s: %s", paths->id, paths->state_dir,
                                     strerror(errno));
    st = local_remove_tree(parent, strrchr(path, '/') + 1, path, err);
    close(parent);
    return st;
}
