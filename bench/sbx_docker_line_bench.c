/*
 * sbx-docker-line-bench: the latency to the host of a line a docker
 * process prints (docs/performance.md, "Docker processes"), against the
 * Engine's own attach stream.
 *
 *   sbx-docker-line-bench SOCKET IMAGE LINES
 *
 * In one sandbox of IMAGE, LINES turns of each, alternating:
 *   library  a process (process_start) waits on a FIFO, then echoes the
 *            line; a thread keeps a process_read waiting on it
 *   attach   an exec of the same command, attached (POST /exec/ID/start
 *            on a connection of its own, the stream read as it comes)
 * Both are triggered the same way, 300 ms after the reader is waiting: an
 * exec that writes the line into the FIFO.  The time is from the
 * trigger's start to the line's arrival.  Prints each path's median and
 * p90 in microseconds and the ratio of the medians (issue target <= 1.3).
 * Then the cost of one process call: LINES polls (process_read, wait 0)
 * of a running process, their median.
 * The docker module is found through $SBX_MODULE_PATH.
 */
#include <config.h>

#include <sbx/host.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define BOX "line-bench"
#define FIFO "/tmp/line-bench.fifo"
#define WAITER "read l < " FIFO " && echo \"$l\""
#define SETTLE_NS 300000000L

static const char *engine_socket;
static sbx_backend *backend;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void die(const char *what, const sbx_error *err)
{
    fprintf(stderr, "sbx-docker-line-bench: %s: %s\n", what, err != NULL ? err->message : "failed");
    exit(1);
}

/* Run `text` in the sandbox to its end (the trigger and the setup). */
static void run(const char *text)
{
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.shell_command = text;
    sbx_exec_result *res = NULL;
    sbx_error err;
    if (sbx_backend_exec(backend, BOX, &r, &res, &err) != SBX_OK)
        die(text, &err);
    sbx_backend_free_exec_result(backend, res);
}

/* A reader of one turn: sets `arrived` when `line` is in what it read. */
typedef struct turn {
    const char *line;
    char process_id[SBX_PROCESS_ID_MAX + 1];
    int fd;                    /* attach: the hijacked connection */
    double arrived;
    volatile int waiting;      /* the reader has begun its wait */
} turn;

static void *library_reader(void *arg)
{
    turn *t = arg;
    sbx_process_read_request r = SBX_PROCESS_READ_REQUEST_INIT;
    r.wait_ms = 20000;
    char seen[256] = "";
    size_t len = 0;
    while (strstr(seen, t->line) == NULL) {
        t->waiting = 1;
        sbx_process_output *o = NULL;
        sbx_error err;
        if (sbx_backend_process_read(backend, BOX, t->process_id, &r, &o, &err) != SBX_OK)
            die("process_read", &err);
        size_t n = o->length < sizeof seen - 1 - len ? o->length : sizeof seen - 1 - len;
        memcpy(seen + len, o->data, n);
        len += n;
        seen[len] = '\0';
        r.cursor = o->next;
        sbx_backend_free_process_output(backend, o);
    }
    t->arrived = now_s();
    return NULL;
}

static void *attach_reader(void *arg)
{
    turn *t = arg;
    char buf[4096];
    size_t len = 0;
    t->waiting = 1;
    /* The headers and the stream's frames: the line's bytes show in them
     * as they are, after the 8-byte frame header. */
    while (len < sizeof buf - 1) {
        ssize_t n = read(t->fd, buf + len, sizeof buf - 1 - len);
        if (n <= 0)
            die("the attach stream ended before the line", NULL);
        len += (size_t)n;
        buf[len] = '\0';
        char *body = strstr(buf, "\r\n\r\n");
        if (body != NULL && memmem(body, len - (size_t)(body - buf), t->line,
                                   strlen(t->line)) != NULL)
            break;
    }
    t->arrived = now_s();
    return NULL;
}

/* One HTTP request on a new connection to the engine; the answer's first
 * bytes into `answer` (NUL-terminated).  Returns the fd when `keep`. */
static int engine_call(const char *method, const char *path, const char *body, char *answer,
                       size_t size, int keep)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    snprintf(a.sun_path, sizeof a.sun_path, "%s", engine_socket);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
        die("connect to the engine", NULL);
    char head[512];
    int n = snprintf(head, sizeof head,
                     "%s %s HTTP/1.1\r\nHost: d\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\n%s\r\n",
                     method, path, strlen(body),
                     keep ? "Connection: Upgrade\r\nUpgrade: tcp\r\n" : "Connection: close\r\n");
    if (write(fd, head, (size_t)n) != n ||
        write(fd, body, strlen(body)) != (ssize_t)strlen(body))
        die("write to the engine", NULL);
    if (keep)
        return fd;
    size_t len = 0;
    ssize_t got;
    while (len < size - 1 && (got = read(fd, answer + len, size - 1 - len)) > 0)
        len += (size_t)got;
    answer[len] = '\0';
    close(fd);
    return -1;
}

/* The time of one turn on `path` (1 library, 0 attach), in seconds. */
static double one_turn(int library, int index)
{
    char line[64];
    snprintf(line, sizeof line, "line-%d-%d", library, index);
    turn t = { .line = line, .fd = -1 };
    pthread_t reader;
    if (library) {
        sbx_process_request r = SBX_PROCESS_REQUEST_INIT;
        r.shell_command = WAITER;
        sbx_process_info *info = NULL;
        sbx_error err;
        if (sbx_backend_process_start(backend, BOX, &r, &info, &err) != SBX_OK)
            die("process_start", &err);
        snprintf(t.process_id, sizeof t.process_id, "%s", info->process_id);
        sbx_backend_free_processes(backend, info);
        pthread_create(&reader, NULL, library_reader, &t);
    } else {
        char answer[4096], path[256];
        engine_call("POST", "/v1.41/containers/sbx-" BOX "/exec",
                    "{\"Cmd\":[\"sh\",\"-c\",\"" "read l < " FIFO " && echo \\\"$l\\\"" "\"],"
                    "\"AttachStdout\":true,\"AttachStderr\":true}",
                    answer, sizeof answer, 0);
        const char *id = strstr(answer, "\"Id\":\"");
        if (id == NULL)
            die("exec create", NULL);
        snprintf(path, sizeof path, "/v1.41/exec/%.64s/start", id + 6);
        t.fd = engine_call("POST", path, "{\"Detach\":false,\"Tty\":false}", NULL, 0, 1);
        pthread_create(&reader, NULL, attach_reader, &t);
    }
    while (!t.waiting)
        sched_yield();
    nanosleep(&(struct timespec){ 0, SETTLE_NS }, NULL);
    char trigger[128];
    snprintf(trigger, sizeof trigger, "echo %s > " FIFO, line);
    double t0 = now_s();
    run(trigger);
    pthread_join(reader, NULL);
    if (t.fd >= 0)
        close(t.fd);
    if (library) {
        sbx_process_info *info = NULL;
        sbx_error err;
        sbx_backend_process_wait(backend, BOX, t.process_id, 10000, &info, &err);
        sbx_backend_free_processes(backend, info);
        sbx_backend_process_forget(backend, BOX, t.process_id, &err);
    }
    return t.arrived - t0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median time of `count` polls of a running process, in seconds. */
static double call_median(int count)
{
    sbx_process_request r = SBX_PROCESS_REQUEST_INIT;
    r.shell_command = "exec sleep 1000";
    sbx_process_info *info = NULL;
    sbx_error err;
    if (sbx_backend_process_start(backend, BOX, &r, &info, &err) != SBX_OK)
        die("process_start", &err);
    char id[SBX_PROCESS_ID_MAX + 1];
    snprintf(id, sizeof id, "%s", info->process_id);
    sbx_backend_free_processes(backend, info);
    double *times = calloc((size_t)count, sizeof(double));
    sbx_process_read_request rr = SBX_PROCESS_READ_REQUEST_INIT;
    for (int i = 0; i < count; i++) {
        sbx_process_output *o = NULL;
        double t0 = now_s();
        if (sbx_backend_process_read(backend, BOX, id, &rr, &o, &err) != SBX_OK)
            die("process_read", &err);
        times[i] = now_s() - t0;
        sbx_backend_free_process_output(backend, o);
    }
    sbx_backend_process_signal(backend, BOX, id, 9, &err);
    qsort(times, (size_t)count, sizeof(double), by_value);
    double median = times[count / 2];
    free(times);
    return median;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: sbx-docker-line-bench SOCKET IMAGE LINES\n");
        return 2;
    }
    engine_socket = argv[1];
    int lines = atoi(argv[3]);
    if (lines < 1 || lines > 10000) {
        fprintf(stderr, "sbx-docker-line-bench: LINES must be 1 to 10000\n");
        return 2;
    }
    sbx_host *host = NULL;
    sbx_error err;
    sbx_option opts[] = { { "socket", argv[1] }, { "image", argv[2] }, { "stop_grace_s", "0" },
                          { "command", "exec sleep 100000" }, { "ready_timeout_ms", "0" } };
    sbx_host_services services = { sizeof services, NULL, NULL };
    if (sbx_host_new(&services, &host, &err) != SBX_OK ||
        sbx_backend_open(host, "docker", opts, 5, &backend, &err) != SBX_OK)
        die("open docker", &err);
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = BOX;
    sbx_sandbox *sb = NULL;
    if (sbx_backend_create(backend, &req, &sb, &err) != SBX_OK)
        die("create", &err);
    sbx_backend_free_sandboxes(backend, sb, 1);
    run("mkfifo " FIFO);
    double *times[2] = { calloc((size_t)lines, sizeof(double)),
                         calloc((size_t)lines, sizeof(double)) };
    for (int i = 0; i < lines; i++)
        for (int library = 0; library <= 1; library++)
            times[library][i] = one_turn(library, i);
    const char *names[2] = { "attach", "library" };
    double median[2];
    for (int k = 0; k < 2; k++) {
        qsort(times[k], (size_t)lines, sizeof(double), by_value);
        median[k] = times[k][lines / 2];
        printf("docker-line %s lines=%d median_us=%.0f p90_us=%.0f\n", names[k], lines,
               median[k] * 1e6, times[k][lines * 9 / 10] * 1e6);
        free(times[k]);
    }
    printf("docker-line ratio library/attach=%.2f (target <= 1.3)\n", median[1] / median[0]);
    printf("docker-line call (process_read, wait 0) median_us=%.0f\n", call_median(lines) * 1e6);
    sbx_backend_destroy(backend, BOX, &err);
    sbx_backend_close(backend);
    sbx_host_free(host);
    return 0;
}
