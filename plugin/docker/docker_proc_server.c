/* The process calls through a container's process server (see
 * docker_proc_server.h and docker_proc_links.h). */
#include <config.h>

#include "plugin/docker/docker_proc_server.h"

#include "common/json_fields.h"
#include "common/op_results.h"
#include "plugin/docker/docker_conn.h"
#include "plugin/docker/docker_frames.h"
#include "plugin/docker/docker_proc_wire.h"
#include "plugin/docker/docker_pty_helper.h"

#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of what the server says on its stderr kept for a message. */
#define COMPLAINT_MAX 512

struct docker_proc_link {
    char container_id[DOCKER_CONTAINER_ID_MAX];
    docker_conn conn;
    docker_frames frames;
};

void docker_proc_links_init(docker_proc_links *links)
{
    memset(links, 0, sizeof *links);
    pthread_mutex_init(&links->lock, NULL);
}

static void link_close(docker_proc_link *l)
{
    if (l == NULL)
        return;
    docker_conn_close(&l->conn);
    free(l);
}

void docker_proc_links_fini(docker_proc_links *links)
{
    for (size_t i = 0; i < DOCKER_PROC_LINKS_IDLE; i++)
        link_close(links->idle[i]);
    pthread_mutex_destroy(&links->lock);
}

/* 1 when an idle connection can take a request: nothing came on it since
 * its last answer (a server that ended, or a container removed, shows as
 * a hang-up). */
static int link_alive(const docker_proc_link *l)
{
    if (l->conn.pending_at < l->conn.head_len || !docker_frames_complete(&l->frames))
        return 0;
    struct pollfd p = { l->conn.fd, POLLIN | POLLRDHUP, 0 };
    return poll(&p, 1, 0) == 0;
}

/* An idle connection to `container_id`'s server, taken out of the set;
 * NULL when there is none. */
static docker_proc_link *links_take(docker_proc_links *links, const char *container_id)
{
    docker_proc_link *found = NULL, *dead[DOCKER_PROC_LINKS_IDLE];
    size_t dead_count = 0;
    pthread_mutex_lock(&links->lock);
    for (size_t i = 0; i < DOCKER_PROC_LINKS_IDLE && found == NULL; i++) {
        docker_proc_link *l = links->idle[i];
        if (l == NULL || strcmp(l->container_id, container_id) != 0)
            continue;
        links->idle[i] = NULL;
        if (link_alive(l))
            found = l;
        else
            dead[dead_count++] = l;
    }
    pthread_mutex_unlock(&links->lock);
    for (size_t i = 0; i < dead_count; i++)
        link_close(dead[i]);
    return found;
}

/* Keep `l` for the next call (closing the one it replaces when all slots
 * are used). */
static void links_give(docker_proc_links *links, docker_proc_link *l)
{
    docker_proc_link *replaced = NULL;
    pthread_mutex_lock(&links->lock);
    size_t slot = DOCKER_PROC_LINKS_IDLE;
    for (size_t i = 0; i < DOCKER_PROC_LINKS_IDLE && slot == DOCKER_PROC_LINKS_IDLE; i++)
        if (links->idle[i] == NULL)
            slot = i;
    if (slot == DOCKER_PROC_LINKS_IDLE) {
        slot = links->idle_next++ % DOCKER_PROC_LINKS_IDLE;
        replaced = links->idle[slot];
    }
    links->idle[slot] = l;
    pthread_mutex_unlock(&links->lock);
    link_close(replaced);
}

static int links_refused(docker_proc_links *links, const char *container_id)
{
    int refused = 0;
    pthread_mutex_lock(&links->lock);
    for (size_t i = 0; i < DOCKER_PROC_LINKS_REFUSED && !refused; i++)
        refused = strcmp(links->refused[i], container_id) == 0;
    pthread_mutex_unlock(&links->lock);
    return refused;
}

static void links_refuse(docker_proc_links *links, const char *container_id)
{
    pthread_mutex_lock(&links->lock);
    snprintf(links->refused[links->refused_next++ % DOCKER_PROC_LINKS_REFUSED],
             DOCKER_CONTAINER_ID_MAX, "%s", container_id);
    pthread_mutex_unlock(&links->lock);
}

/* What came back on a connection for one call: the hello or an answer,
 * and the server's own complaints. */
typedef struct answer_state {
    size_t hello_left;                          /* hello bytes still due */
    unsigned char head[DOCKER_PROC_WIRE_ANSWER_WORDS * 4];
    size_t head_len;
    uint32_t words[DOCKER_PROC_WIRE_ANSWER_WORDS];  /* KIND VALUE OUT_LEN ERR_LEN FLAGS */
    uint64_t body_left;                         /* answer bytes still due */
    common_output out, errs;
    char complaint[COMPLAINT_MAX + 1];
    size_t complaint_len;
    int done, malformed;
    sbx_error *err;
} answer_state;

/* The server's stdout bytes: the hello, then an answer's head and body. */
static int take_answer(answer_state *a, const char *bytes, size_t n)
{
    if (a->hello_left > 0) {
        size_t at = DOCKER_PROC_WIRE_HELLO_LEN - a->hello_left;
        size_t k = n < a->hello_left ? n : a->hello_left;
        if (memcmp(bytes, DOCKER_PROC_WIRE_HELLO + at, k) != 0)
            return a->malformed = 1;
        a->hello_left -= k;
        a->done = a->hello_left == 0;
        return n > k ? (a->malformed = 1) : 0;
    }
    while (n > 0 && !a->done) {
        if (a->head_len < sizeof a->head) {
            size_t k = sizeof a->head - a->head_len;
            k = n < k ? n : k;
            memcpy(a->head + a->head_len, bytes, k);
            a->head_len += k;
            bytes += k;
            n -= k;
            if (a->head_len < sizeof a->head)
                return 0;
            for (size_t i = 0; i < DOCKER_PROC_WIRE_ANSWER_WORDS; i++)
                a->words[i] = docker_proc_wire_get(a->head + 4 * i);
            a->body_left = (uint64_t)a->words[2] + a->words[3];
            a->done = a->body_left == 0;
            continue;
        }
        /* Bytes still due of stdout come before stderr's. */
        uint64_t out_left = a->body_left > a->words[3] ? a->body_left - a->words[3] : 0;
        size_t k = n < a->body_left ? n : (size_t)a->body_left;
        size_t to_out = k < out_left ? k : (size_t)out_left;
        if (common_output_add(&a->out, bytes, to_out, a->err) != SBX_OK ||
            common_output_add(&a->errs, bytes + to_out, k - to_out, a->err) != SBX_OK)
            return 2;
        a->body_left -= k;
        a->done = a->body_left == 0;
        bytes += k;
        n -= k;
    }
    return n > 0 ? (a->malformed = 1) : 0;
}

/* docker_frames_fn: the server's stdout is its answers, its stderr its
 * complaints. */
static int take_frame(void *ctx, int stream, const char *bytes, size_t n)
{
    answer_state *a = ctx;
    if (stream == DOCKER_STREAM_STDOUT)
        return take_answer(a, bytes, n);
    size_t k = COMPLAINT_MAX - a->complaint_len;
    k = n < k ? n : k;
    memcpy(a->complaint + a->complaint_len, bytes, k);
    a->complaint_len += k;
    a->complaint[a->complaint_len] = '\0';
    return 0;
}

/* How a wait for the server's bytes ended. */
enum { GOT_ALL, GOT_TIMEOUT, GOT_END };

/* Read until the state is done, the server's side ends, or `until_ms`. */
static sbx_status await(docker_proc_link *l, answer_state *a, int64_t until_ms, int *how,
                        sbx_error *err)
{
    l->frames.ctx = a;
    char buf[65536];
    while (!a->done) {
        docker_conn_read in = { .buf = buf, .size = sizeof buf, .until_ms = until_ms };
        sbx_status st = docker_conn_pump(&l->conn, NULL, &in, err);
        if (st != SBX_OK)
            return st;
        if (in.timed_out || in.got == 0) {
            *how = in.timed_out ? GOT_TIMEOUT : GOT_END;
            return SBX_OK;
        }
        int rc = docker_frames_feed(&l->frames, buf, in.got);
        if (rc == 2)
            return SBX_ERR_INTERNAL; /* common_output_add filled err */
        if (rc != 0 || a->malformed)
            return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                         "docker: %s: the process server's answer is malformed",
                                         l->conn.what);
    }
    *how = GOT_ALL;
    return SBX_OK;
}

/* The exec create of a server; SBX_OK with its id in `id`. */
static sbx_status server_create(sbx_backend_instance *inst, const docker_target *t, char *id,
                                sbx_error *err)
{
    static const char body[] = "{\"AttachStdin\":true,\"AttachStdout\":true,"
                               "\"AttachStderr\":true,\"Tty\":false,\"Cmd\":[\""
                               DOCKER_PTY_HELPER_PATH "\",\"serve\"]}";
    char path[DOCKER_CONTAINER_ID_MAX + 32];
    snprintf(path, sizeof path, "/containers/%s/exec", t->container_id);
    common_http_response resp;
    sbx_status st = docker_engine_call(
        &inst->engine, &(common_http_call){ .method = "POST", .path = path, .json_body = body },
        t->what, &resp, err);
    if (st != SBX_OK)
        return st;
    json_object *o = resp.status == 201 || resp.status == 200
                         ? docker_engine_parse(&resp, json_type_object, t->what, err)
                         : NULL;
    if (o == NULL && resp.status != 201 && resp.status != 200)
        st = docker_engine_error(&resp, t->what, SBX_ERR_NOT_FOUND, err);
    common_http_response_clear(&resp);
    const char *got = NULL;
    if (o == NULL)
        return st != SBX_OK ? st : SBX_ERR_PROTOCOL;
    if (common_json_get_string(o, "Id", &got) != COMMON_JSON_OK ||
        docker_container_id_checked(got) == NULL)
        st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                   "docker: %s: the exec create answer has no valid Id", t->what);
    else
        snprintf(id, DOCKER_CONTAINER_ID_MAX, "%s", got);
    json_object_put(o);
    return st;
}

/* How starting a server went. */
enum { SERVER_UP, SERVER_CANNOT_RUN, SERVER_ENGINE_FAILED };

/* Start a server in the target's container and wait for its hello:
 * SERVER_UP with *out, SERVER_CANNOT_RUN (the helper missing or failing:
 * `why` says what it said), or SERVER_ENGINE_FAILED (err filled). */
static int server_start(sbx_backend_instance *inst, const docker_target *t,
                        docker_proc_link **out, char *why, size_t why_size, sbx_error *err)
{
    *out = NULL;
    snprintf(why, why_size, "it ended before it answered");
    docker_proc_link *l = calloc(1, sizeof *l);
    char id[DOCKER_CONTAINER_ID_MAX];
    sbx_status st = l != NULL ? server_create(inst, t, id, err)
                              : sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    if (st != SBX_OK) {
        free(l);
        return SERVER_ENGINE_FAILED;
    }
    snprintf(l->container_id, sizeof l->container_id, "%s", t->container_id);
    int64_t until = docker_now_ms() + inst->engine.timeout_ms;
    st = docker_conn_open(&l->conn, &inst->engine, t->what, until, err);
    char path[DOCKER_CONTAINER_ID_MAX + 32];
    snprintf(path, sizeof path, "/exec/%s/start", id);
    static const char body[] = "{\"Detach\":false,\"Tty\":false}";
    const docker_conn_request start = {
        .method = "POST", .path = path,
        .extra_headers = "Content-Type: application/json\r\nConnection: Upgrade\r\n"
                         "Upgrade: tcp\r\n",
        .body = body, .body_len = sizeof body - 1 };
    if (st == SBX_OK)
        st = docker_conn_send(&l->conn, &inst->engine, &start, err);
    if (st == SBX_OK)
        st = docker_conn_read_head(&l->conn, err);
    int result = st == SBX_OK ? SERVER_CANNOT_RUN : SERVER_ENGINE_FAILED;
    if (st == SBX_OK && l->conn.status != 101 && l->conn.status != 200) {
        common_http_response resp;
        docker_conn_error_body(&l->conn, why, why_size, &resp);
    } else if (st == SBX_OK) {
        docker_frames_init(&l->frames, take_frame, NULL);
        answer_state a = { .hello_left = DOCKER_PROC_WIRE_HELLO_LEN, .err = err };
        int how = GOT_END;
        st = await(l, &a, until, &how, err);
        if (st == SBX_OK && how == GOT_ALL)
            result = SERVER_UP;
        else if (st == SBX_OK && a.complaint_len > 0)
            snprintf(why, why_size, "%s", a.complaint);
        else if (st == SBX_OK && how == GOT_TIMEOUT)
            snprintf(why, why_size, "it did not answer within %ld ms", inst->engine.timeout_ms);
        else if (st != SBX_OK)
            snprintf(why, why_size, "%s", err->message);
    }
    if (result != SERVER_UP) {
        link_close(l);
        return result;
    }
    *out = l;
    return SERVER_UP;
}

/* A connection to the target's server: kept, or started (the helper
 * copied in first when it is not there).  NULL when the call goes through
 * an exec of its own. */
static docker_proc_link *link_for(sbx_backend_instance *inst, const docker_target *t)
{
    docker_proc_links *links = &inst->proc_links;
    docker_proc_link *l = links_take(links, t->container_id);
    if (l != NULL || links_refused(links, t->container_id))
        return l;
    char why[COMPLAINT_MAX + 1];
    sbx_error err;
    int started = server_start(inst, t, &l, why, sizeof why, &err);
    if (started == SERVER_CANNOT_RUN) {
        /* Most often the container's first call: the helper is not there
         * yet (docker_pty_helper.h). */
        sbx_status st = docker_pty_helper_install(inst, t->sandbox_id, &err);
        if (st == SBX_OK)
            started = server_start(inst, t, &l, why, sizeof why, &err);
        else
            snprintf(why, sizeof why, "%s", err.message);
    }
    if (started == SERVER_CANNOT_RUN) {
        links_refuse(links, t->container_id);
        DOCKER_LOG(inst, SBX_LOG_WARN,
                   "%s: no process server in the container (%.200s): each process call is "
                   "an exec of its own there", t->what, why);
    } else if (started == SERVER_ENGINE_FAILED) {
        /* The engine's answer (the container gone...) comes again from
         * the exec the call falls back to, which says it as exec does. */
        DOCKER_LOG(inst, SBX_LOG_DEBUG, "%s: no process server this time: %s", t->what,
                   err.message);
    }
    return l;
}

/* The request's head and words: the working directory, then argv. */
static char *request_of(const docker_exec_spec *spec, size_t *length)
{
    const char *dir = spec->working_dir != NULL ? spec->working_dir : "";
    size_t words = strlen(dir) + 1;
    for (size_t i = 0; spec->argv[i] != NULL; i++)
        words += strlen(spec->argv[i]) + 1;
    size_t head = DOCKER_PROC_WIRE_REQUEST_WORDS * 4;
    if (words > DOCKER_PROC_WIRE_WORDS_MAX || spec->stdin_length > UINT32_MAX)
        return NULL;
    char *r = malloc(head + words);
    if (r == NULL)
        return NULL;
    uint32_t max = spec->max_output_bytes < UINT32_MAX ? (uint32_t)spec->max_output_bytes
                                                       : UINT32_MAX;
    /* Every call through a server is one of the process script's. */
    uint32_t numbers[DOCKER_PROC_WIRE_REQUEST_WORDS] = {
        (uint32_t)words, spec->stdin_data != NULL ? (uint32_t)spec->stdin_length : 0, max,
        DOCKER_PROC_WIRE_SCRIPT };
    for (size_t i = 0; i < DOCKER_PROC_WIRE_REQUEST_WORDS; i++)
        docker_proc_wire_put((unsigned char *)r + 4 * i, numbers[i]);
    size_t at = head;
    memcpy(r + at, dir, strlen(dir) + 1);
    at += strlen(dir) + 1;
    for (size_t i = 0; spec->argv[i] != NULL; i++) {
        memcpy(r + at, spec->argv[i], strlen(spec->argv[i]) + 1);
        at += strlen(spec->argv[i]) + 1;
    }
    *length = at;
    return r;
}

/* The result of an answer (or of a call past its timeout). */
static sbx_status result_of(answer_state *a, int timed_out, const char *what, int64_t duration,
                            sbx_exec_result **out, sbx_error *err)
{
    if (!timed_out && a->words[0] == DOCKER_PROC_WIRE_NODIR)
        return sbx_backend_error_set(err, SBX_ERR_NO_SUCH_PATH,
                                     "docker: %s: the working directory does not exist", what);
    if (!timed_out && a->words[0] == DOCKER_PROC_WIRE_NOSTART)
        return sbx_backend_error_set(err, SBX_ERR_TRANSPORT,
                                     "docker: %s: the process server could not start the call: "
                                     "%s", what, strerror((int)a->words[1]));
    sbx_exec_result *r = common_exec_result_new(&a->out, &a->errs);
    if (r == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    r->duration_ms = duration;
    r->stdout_truncated |= (a->words[4] & DOCKER_PROC_WIRE_OUT_TRUNCATED) != 0;
    r->stderr_truncated |= (a->words[4] & DOCKER_PROC_WIRE_ERR_TRUNCATED) != 0;
    if (timed_out) {
        r->outcome = SBX_EXEC_TIMED_OUT;
        r->exit_code = -1;
    } else if (a->words[0] == DOCKER_PROC_WIRE_SIGNALED) {
        r->outcome = SBX_EXEC_SIGNALED;
        r->exit_code = -1;
        r->term_signal = (int)a->words[1];
    } else {
        r->exit_code = (int)(a->words[1] & 255);
    }
    *out = r;
    return SBX_OK;
}

/* One request on `l`.  *keep 1 when the connection can serve again. */
static sbx_status link_call(docker_proc_link *l, const docker_target *t,
                            const docker_exec_spec *spec, sbx_exec_result **out, int *keep,
                            sbx_error *err)
{
    *keep = 0;
    int64_t start = docker_now_ms(), until = start + spec->timeout_ms;
    l->conn.what = t->what;
    /* Past `until` the call is over (TIMED_OUT); the deadline is only for
     * the sending. */
    l->conn.deadline_ms = until + 1000;
    size_t length = 0;
    char *request = request_of(spec, &length);
    if (request == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL,
                                     "docker: %s: the request does not fit the process server",
                                     t->what);
    sbx_status st = docker_conn_send_bytes(&l->conn, request, length, err);
    free(request);
    if (st == SBX_OK && spec->stdin_data != NULL && spec->stdin_length > 0)
        st = docker_conn_send_bytes(&l->conn, spec->stdin_data, spec->stdin_length, err);
    answer_state a = { .err = err };
    common_output_init(&a.out, spec->max_output_bytes);
    common_output_init(&a.errs, spec->max_output_bytes);
    int how = GOT_END;
    if (st == SBX_OK)
        st = await(l, &a, until, &how, err);
    if (st == SBX_OK && how == GOT_END)
        st = sbx_backend_error_set(err, SBX_ERR_TRANSPORT,
                                   "docker: %s: the process server ended in the middle of the "
                                   "call: %.200s", t->what,
                                   a.complaint_len > 0 ? a.complaint : "(it said nothing)");
    if (st == SBX_OK)
        st = result_of(&a, how == GOT_TIMEOUT, t->what, docker_now_ms() - start, out, err);
    /* A call that timed out leaves its command running: closing the
     * connection has the server kill its session. */
    *keep = st == SBX_OK && how == GOT_ALL;
    common_output_free(&a.out);
    common_output_free(&a.errs);
    return st;
}

sbx_status docker_proc_exec_run(sbx_backend_instance *inst, const docker_target *t,
                                const docker_exec_spec *spec, sbx_exec_result **out,
                                sbx_error *err)
{
    *out = NULL;
    docker_proc_link *l = link_for(inst, t);
    if (l == NULL)
        return docker_exec_run(inst, t, spec, out, err);
    int keep = 0;
    sbx_status st = link_call(l, t, spec, out, &keep, err);
    if (keep)
        links_give(&inst->proc_links, l);
    else
        link_close(l);
    return st;
}
