/*
 * The script's read and wait in C (see sbx_docker_proc_native.h).  Each
 * step below names the script function it stands for; the arithmetic is
 * the script's, in the shell's signed 64 bits.  Where the script would
 * fail on a race (a segment removed between its glob and its `wc`), this
 * side looks again instead.
 */
#include "plugin/docker/sbx_docker_proc_native.h"

#include "plugin/docker/docker_proc_script.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The script's Z: a segment's name is Z + the offset of its first byte. */
#define SEGMENT_BASE 1000000000000000000LL
/* A nap of the script, which a waiting call without inotify keeps. */
#define NAP_MS 10
/* The script's runs: an answer stops at the 256th. */
#define RUNS_MAX 256
/* A process's directory, and room for the longest name in it. */
#define DIR_SIZE 4096
#define PATH_SIZE (DIR_SIZE + 64)
/* Looks at a stream's segments before giving up on a steady view. */
#define SPAN_TRIES 8

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* `text` as a decimal number of the shell (digits only, in 63 bits): 0,
 * or -1 for anything else. */
static int parse_number(const char *text, int64_t *out)
{
    if (text == NULL || *text == '\0' || strspn(text, "0123456789") != strlen(text))
        return -1;
    errno = 0;
    *out = strtoll(text, NULL, 10);
    return errno == 0 ? 0 : -1;
}

/* The first line of `path` with the blanks around it removed, as the
 * shell's `read` leaves it ("" when there is none), into `out`. */
static void first_line(const char *path, char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    if (fgets(out, (int)size, f) == NULL)
        out[0] = '\0';
    fclose(f);
    out[strcspn(out, "\n")] = '\0';
    size_t end = strlen(out), start = strspn(out, " \t");
    while (end > start && (out[end - 1] == ' ' || out[end - 1] == '\t'))
        end--;
    memmove(out, out + start, end - start);
    out[end - start] = '\0';
}

/* The shell's `[ -s PATH ]`. */
static int has_bytes(const char *path)
{
    struct stat s;
    return stat(path, &s) == 0 && s.st_size > 0;
}

/* One stream's kept output (the script's span): its segments' first
 * offsets in order, the end E and the oldest byte kept L. */
typedef struct span {
    int64_t *starts;
    size_t count;
    int64_t end, low;
} span;

static int by_offset(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The segments DIR/S.1[0-9]* (S "o" or "e") into s->starts: 0, or -1 out
 * of memory. */
static int list_segments(const char *dir, char stream, span *s)
{
    s->count = 0;
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    size_t cap = 0;
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d)) != NULL;) {
        const char *n = e->d_name;
        int64_t name = 0;
        if (n[0] != stream || n[1] != '.' || n[2] != '1' || n[3] < '0' || n[3] > '9' ||
            parse_number(n + 2, &name) != 0)
            continue;
        if (s->count == cap) {
            int64_t *grown = realloc(s->starts, (cap ? cap * 2 : 16) * sizeof *grown);
            if (grown == NULL) {
                rc = -1;
                break;
            }
            s->starts = grown;
            cap = cap ? cap * 2 : 16;
        }
        s->starts[s->count++] = name - SEGMENT_BASE;
    }
    closedir(d);
    qsort(s->starts, s->count, sizeof *s->starts, by_offset);
    return rc;
}

/* The bytes of a stream whose order line is kept: the TOTAL of its tick
 * "K TOTAL" (docker_proc_script.c), or -1 when there is none ("end", a
 * tick of an older script, "-"). */
static int64_t committed_of(const char *dir, char stream)
{
    char path[PATH_SIZE], tick[64];
    snprintf(path, sizeof path, "%s/%c.t", dir, stream);
    first_line(path, tick, sizeof tick);
    const char *space = strchr(tick, ' ');
    int64_t total = -1;
    if (space == NULL || parse_number(space + 1, &total) != 0)
        return -1;
    return total;
}

/* The script's span: 0, or -1 out of memory. */
static int span_of(const char *dir, char stream, int64_t buffer, span *s)
{
    for (int tries = 0; tries < SPAN_TRIES; tries++) {
        if (list_segments(dir, stream, s) != 0)
            return -1;
        s->end = s->low = 0;
        if (s->count == 0)
            return 0;
        char path[PATH_SIZE];
        int64_t last = s->starts[s->count - 1];
        snprintf(path, sizeof path, "%s/%c.%lld", dir, stream, (long long)(last + SEGMENT_BASE));
        struct stat st;
        if (stat(path, &st) != 0)
            continue; /* the copier moved on meanwhile */
        s->end = last + (int64_t)st.st_size;
        int64_t committed = committed_of(dir, stream);
        if (committed >= 0 && committed < s->end)
            s->end = committed;
        s->low = s->starts[0];
        if (s->end - buffer > s->low)
            s->low = s->end - buffer;
        return 0;
    }
    return 0;
}

/* The bytes [from, to) of a stream out of its segments (the script's
 * emit): fewer when a segment went meanwhile.  0, or -1 when the sink
 * failed. */
static int emit(const char *dir, char stream, const span *s, int64_t from, int64_t to,
                sbx_docker_sink sink, void *ctx)
{
    size_t first = 0;
    for (size_t i = 0; i < s->count; i++)
        if (s->starts[i] <= from)
            first = i;
    char buf[65536];
    for (size_t i = first; i < s->count && s->starts[i] < to; i++) {
        int64_t at = from > s->starts[i] ? from : s->starts[i];
        char path[PATH_SIZE];
        snprintf(path, sizeof path, "%s/%c.%lld", dir, stream,
                 (long long)(s->starts[i] + SEGMENT_BASE));
        int in = open(path, O_RDONLY | O_CLOEXEC);
        if (in < 0)
            return 0;
        int64_t left = to - at;
        off_t offset = (off_t)(at - s->starts[i]);
        while (left > 0) {
            ssize_t got = pread(in, buf, left < (int64_t)sizeof buf ? (size_t)left : sizeof buf,
                                offset);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0)
                break;
            if (sink(ctx, stream == 'o' ? 1 : 2, buf, (size_t)got) != 0) {
                close(in);
                return -1;
            }
            left -= got;
            offset += got;
        }
        close(in);
    }
    return 0;
}

/* An answer's window and runs (the script's clip and runs). */
typedef struct window {
    int64_t from[2], to[2];      /* [0] stdout, [1] stderr */
    int64_t clipped[2];          /* the script's co and ce */
    char runs[RUNS_MAX * 48 + 1];
    size_t runs_len;
    int count;
} window;

static void clip(window *w, int which, int64_t a, int64_t b)
{
    if (a < w->from[which])
        a = w->from[which];
    if (b > w->to[which])
        b = w->to[which];
    if (b <= a || w->count >= RUNS_MAX)
        return;
    w->runs_len += (size_t)snprintf(w->runs + w->runs_len, sizeof w->runs - w->runs_len,
                                    " %c %lld", which == 0 ? 'o' : 'e', (long long)(b - a));
    w->count++;
    w->clipped[which] = b;
}

/* One line of the order file, "S OFF" as the shell's `read s off` splits
 * it (*which 0 when S is "o", *is_e when it is "e"): 0, or -1 when the
 * script skips it. */
static int order_line(char *line, int *which, int *is_e, int64_t *offset)
{
    line += strspn(line, " \t");
    size_t first = strcspn(line, " \t");
    char *rest = line + first;
    rest += strspn(rest, " \t");
    size_t end = strlen(rest);
    while (end > 0 && (rest[end - 1] == ' ' || rest[end - 1] == '\t'))
        rest[--end] = '\0';
    if (parse_number(rest, offset) != 0)
        return -1;
    *which = first == 1 && line[0] == 'o' ? 0 : 1;
    *is_e = first == 1 && line[0] == 'e';
    return 0;
}

/* The runs of the window from DIR/order (the script's runs): the window's
 * ends then stop where the runs stop. */
static void runs_of(const char *dir, window *w)
{
    int64_t passed[2] = { 0, 0 };
    int last_is_e = 0;
    w->clipped[0] = w->from[0];
    w->clipped[1] = w->from[1];
    char path[PATH_SIZE];
    snprintf(path, sizeof path, "%s/order", dir);
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    while (f != NULL && (got = getline(&line, &cap, f)) > 0) {
        /* A line still being written is not one the script's read sees. */
        if (line[got - 1] != '\n')
            break;
        line[got - 1] = '\0';
        int which = 0, is_e = 0;
        int64_t offset = 0;
        if (order_line(line, &which, &is_e, &offset) != 0)
            continue;
        /* "o N": stdout read after stderr had N bytes, which came first. */
        int other = 1 - which;
        clip(w, other, passed[other], offset);
        if (offset >= passed[other])
            passed[other] = offset;
        last_is_e = is_e;
    }
    free(line);
    if (f != NULL)
        fclose(f);
    int first = last_is_e ? 1 : 0;
    clip(w, first, passed[first], w->to[first]);
    clip(w, 1 - first, passed[1 - first], w->to[1 - first]);
    w->to[0] = w->clipped[0];
    w->to[1] = w->clipped[1];
}

/* A watch on the process's directory for what ends a wait: an output
 * tick (written after each copy, the order line before it) or the status.
 * -1 when inotify cannot be had (then the wait naps as the script does). */
static int watch_open(const char *dir)
{
    int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (fd >= 0 && inotify_add_watch(fd, dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE_SELF) < 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Wait until something the watch names happens or `until_ms`. */
static void watch_wait(int fd, int64_t until_ms)
{
    for (;;) {
        int64_t left = until_ms - now_ms();
        if (left <= 0)
            return;
        if (fd < 0) {
            struct pollfd none = { -1, 0, 0 };
            poll(&none, 0, left < NAP_MS ? (int)left : NAP_MS);
            return;
        }
        struct pollfd p = { fd, POLLIN, 0 };
        if (poll(&p, 1, left > 60000 ? 60000 : (int)left) <= 0)
            continue;
        _Alignas(struct inotify_event) char events[4096];
        ssize_t got = read(fd, events, sizeof events);
        for (char *at = events; got > 0 && at < events + got;) {
            const struct inotify_event *e = (const struct inotify_event *)at;
            at += sizeof *e + e->len;
            const char *n = e->len > 0 ? e->name : "";
            if ((e->mask & (IN_DELETE_SELF | IN_IGNORED)) != 0 || strcmp(n, "o.t") == 0 ||
                strcmp(n, "e.t") == 0 || strcmp(n, "status") == 0)
                return;
        }
    }
}

/* The script's check that `dir` is a process: its directory and argc. */
static int is_process(const char *dir)
{
    char path[PATH_SIZE];
    struct stat s;
    snprintf(path, sizeof path, "%s/argc", dir);
    return stat(dir, &s) == 0 && S_ISDIR(s.st_mode) && stat(path, &s) == 0;
}

static int say(sbx_docker_sink sink, void *ctx, const char *text)
{
    return sink(ctx, 1, text, strlen(text));
}

/* What a read looked at: the status and both streams. */
typedef struct read_view {
    char state[512];
    span out, err;
} read_view;

static int look(const char *dir, int64_t buffer, read_view *v)
{
    char path[PATH_SIZE];
    snprintf(path, sizeof path, "%s/status", dir);
    v->state[0] = '\0';
    if (has_bytes(path))
        first_line(path, v->state, sizeof v->state);
    return span_of(dir, 'o', buffer, &v->out) == 0 && span_of(dir, 'e', buffer, &v->err) == 0
               ? 0
               : -1;
}

/* The answer of a read that looked at `v`: the window of at most `max`
 * bytes from the cursor, its runs, the header, the bytes. */
static int answer_window(const char *dir, const read_view *v, int64_t co, int64_t ce,
                         int64_t max, sbx_docker_sink sink, void *ctx)
{
    window w = { .count = 0 };
    w.from[0] = co > v->out.low ? co : v->out.low;
    w.to[0] = v->out.end - w.from[0] > max ? w.from[0] + max : v->out.end;
    w.from[1] = ce > v->err.low ? ce : v->err.low;
    int64_t room = max - (w.to[0] - w.from[0]);
    w.to[1] = v->err.end - w.from[1] > room ? w.from[1] + room : v->err.end;
    runs_of(dir, &w);
    char head[RUNS_MAX * 48 + 1024];
    snprintf(head, sizeof head, "sbx-read %lld %lld %lld %lld %lld %lld %s\nsbx-runs%s\n",
             (long long)w.from[0], (long long)w.to[0], (long long)w.from[1], (long long)w.to[1],
             (long long)v->out.end, (long long)v->err.end, v->state[0] ? v->state : "run",
             w.runs);
    if (say(sink, ctx, head) != 0 || emit(dir, 'o', &v->out, w.from[0], w.to[0], sink, ctx) != 0)
        return -1;
    return emit(dir, 'e', &v->err, w.from[1], w.to[1], sink, ctx);
}

/* read ID COUT CERR MAX NAPS: as the script, "past" when the cursor is
 * beyond the output, else the answer once there is something past the
 * cursor, the process ended, or the naps are over. */
static int answer_read(const char *dir, const int64_t numbers[4], sbx_docker_sink sink,
                       void *ctx)
{
    int64_t co = numbers[0], ce = numbers[1], max = numbers[2];
    char path[PATH_SIZE], line[64];
    snprintf(path, sizeof path, "%s/buf", dir);
    first_line(path, line, sizeof line);
    int64_t buffer = 0;
    if (parse_number(line, &buffer) != 0)
        buffer = 0;
    int64_t until = now_ms() + numbers[3] * NAP_MS;
    /* Watching before looking: what happens between the two wakes the wait. */
    int fd = numbers[3] > 0 ? watch_open(dir) : -1;
    read_view v = { .state = { 0 } };
    int rc = 0;
    for (;;) {
        if (look(dir, buffer, &v) != 0) {
            rc = -1;
            break;
        }
        if (co > v.out.end || ce > v.err.end) {
            char past[96];
            snprintf(past, sizeof past, "sbx-read past %lld %lld\n", (long long)v.out.end,
                     (long long)v.err.end);
            rc = say(sink, ctx, past);
            break;
        }
        if (v.state[0] != '\0' || v.out.end != co || v.err.end != ce || now_ms() >= until) {
            rc = answer_window(dir, &v, co, ce, max, sink, ctx);
            break;
        }
        watch_wait(fd, until);
    }
    if (fd >= 0)
        close(fd);
    free(v.out.starts);
    free(v.err.starts);
    return rc;
}

/* The script's info record of the process in `dir`, named `id`. */
static int info(const char *dir, const char *id, sbx_docker_sink sink, void *ctx)
{
    char path[PATH_SIZE], start[512], argc[512], state[512], record[6144];
    snprintf(path, sizeof path, "%s/start", dir);
    first_line(path, start, sizeof start);
    snprintf(path, sizeof path, "%s/argc", dir);
    first_line(path, argc, sizeof argc);
    snprintf(path, sizeof path, "%s/status", dir);
    state[0] = '\0';
    if (has_bytes(path))
        first_line(path, state, sizeof state);
    snprintf(path, sizeof path, "%s/pty", dir);
    struct stat s;
    const char *base = strrchr(id, '/');
    snprintf(record, sizeof record, "%c %s %s %s %s\n", stat(path, &s) == 0 ? 'T' : 'P',
             base != NULL ? base + 1 : id, start, argc, state[0] ? state : "run");
    if (say(sink, ctx, record) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/argv", dir);
    int in = open(path, O_RDONLY | O_CLOEXEC);
    char buf[65536];
    ssize_t got;
    while (in >= 0 && ((got = read(in, buf, sizeof buf)) > 0 || (got < 0 && errno == EINTR)))
        if (got > 0 && sink(ctx, 1, buf, (size_t)got) != 0) {
            close(in);
            return -1;
        }
    if (in >= 0)
        close(in);
    return 0;
}

/* wait ID NAPS. */
static int answer_wait(const char *dir, const char *id, int64_t naps, sbx_docker_sink sink,
                       void *ctx)
{
    char status[PATH_SIZE];
    snprintf(status, sizeof status, "%s/status", dir);
    int64_t until = now_ms() + naps * NAP_MS;
    int fd = naps > 0 ? watch_open(dir) : -1;
    while (!has_bytes(status) && now_ms() < until)
        watch_wait(fd, until);
    if (fd >= 0)
        close(fd);
    return info(dir, id, sink, ctx);
}

int sbx_docker_proc_native(char *const *args, sbx_docker_sink sink, void *ctx)
{
    size_t count = 0;
    while (args[count] != NULL)
        count++;
    int is_read = count == 6 && strcmp(args[0], "read") == 0;
    int is_wait = count == 3 && strcmp(args[0], "wait") == 0;
    int64_t numbers[4];
    for (size_t i = 2; i < count && (is_read || is_wait); i++)
        if (parse_number(args[i], &numbers[i - 2]) != 0)
            return 0;
    if (!is_read && !is_wait)
        return 0;
    char dir[DIR_SIZE];
    if ((size_t)snprintf(dir, sizeof dir, "%s/%s", DOCKER_PROC_ROOT, args[1]) >= sizeof dir)
        return 0;
    if (!is_process(dir))
        return say(sink, ctx, is_read ? "sbx-read none\n" : "sbx-wait none\n") == 0 ? 1 : -1;
    int rc = is_read ? answer_read(dir, numbers, sink, ctx)
                     : answer_wait(dir, args[1], numbers[0], sink, ctx);
    return rc == 0 ? 1 : -1;
}
