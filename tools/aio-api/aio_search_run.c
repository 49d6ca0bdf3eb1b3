/* The walks of the AIO search routes (aio_search.h): the start path
 * checked by the backend, a tree listed by the backend, one exec of sh in
 * the sandbox, their failures answered. */
#include <config.h>

#include "tools/aio-api/aio_search.h"

#include "tools/aio-api/aio_answers.h"
#include "tools/provisioner-common/prov_alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int aio_search_path_ok(const aio_call *call, const char *operation, const char *path,
                       prov_reply *reply)
{
    sbx_error err;
    sbx_error_clear(&err);
    /* The file operations resolve beneath the sandbox (a symlink leading
     * out is refused): a path they reach is one a walk may start at. */
    sbx_dir_listing *listing = NULL;
    sbx_status st =
        sbx_backend_list_dir(call->backend, call->sandbox_id, path, 1, 1, &listing, &err);
    sbx_backend_free_listing(call->backend, listing);
    if (st == SBX_ERR_NOT_A_DIRECTORY) {
        sbx_file_content *content = NULL;
        sbx_error_clear(&err);
        st = sbx_backend_read_file(call->backend, call->sandbox_id, path, 0, 1, &content, &err);
        sbx_backend_free_file_content(call->backend, content);
    }
    if (st == SBX_OK)
        return 1;
    aio_answer_file_error(reply, operation, path, &err);
    return 0;
}

int aio_search_list(const aio_call *call, const char *operation, const char *path,
                    unsigned max_depth, sbx_dir_listing **out, prov_reply *reply)
{
    sbx_error err;
    sbx_error_clear(&err);
    *out = NULL;
    /* One call lists the tree: in-process on a local sandbox, one exec of
     * find and stat (busybox's do) in a container. */
    sbx_status st = sbx_backend_list_dir(call->backend, call->sandbox_id, path, max_depth,
                                         AIO_SEARCH_MAX_ENTRIES, out, &err);
    if (st == SBX_OK)
        return 1;
    if (st == SBX_ERR_NOT_A_DIRECTORY)
        return aio_search_path_ok(call, operation, path, reply);
    aio_answer_file_error(reply, operation, path, &err);
    return 0;
}

char *aio_search_join(const char *base, const char *rel)
{
    size_t n = strlen(base);
    while (n > 1 && base[n - 1] == '/')
        n--;
    size_t rel_len = strlen(rel), sep = n > 0 && base[n - 1] != '/';
    char *path = prov_malloc(n + sep + rel_len + 1);
    if (path == NULL)
        return NULL;
    memcpy(path, base, n);
    path[n] = '/';
    memcpy(path + n + sep, rel, rel_len + 1);
    return path;
}

/* The walk's time limit: the server's exec timeout, at most
 * AIO_SEARCH_TIMEOUT_MS and the backend's longest. */
static int64_t walk_timeout(const aio_call *call)
{
    sbx_operations_info info = {.struct_size = sizeof info};
    sbx_error err;
    sbx_backend_operations_info(call->backend, &info, &err);
    int64_t ms = call->exec_timeout_ms > 0 && call->exec_timeout_ms < AIO_SEARCH_TIMEOUT_MS
                     ? call->exec_timeout_ms
                     : AIO_SEARCH_TIMEOUT_MS;
    return info.max_timeout_ms > 0 && info.max_timeout_ms < ms ? info.max_timeout_ms : ms;
}

int aio_search_run(const aio_call *call, const aio_walk *walk, const char *operation,
                   const char *path, sbx_exec_result **out, prov_reply *reply)
{
    const char **argv = prov_malloc((walk->count + 5) * sizeof *argv);
    if (argv == NULL) {
        prov_reply_out_of_memory(reply);
        return 0;
    }
    size_t shell = 0;
    if (walk->script != NULL) {
        const char *head[] = {"sh", "-c", walk->script, "sh"};
        shell = sizeof head / sizeof head[0];
        memcpy(argv, head, sizeof head);
    }
    memcpy(argv + shell, walk->args, walk->count * sizeof *argv);
    argv[walk->count + shell] = NULL;
    sbx_exec_request request = SBX_EXEC_REQUEST_INIT;
    request.argv = argv;
    request.env = walk->env;
    request.env_count = walk->env_count;
    request.working_dir = walk->working_dir;
    request.timeout_ms = walk_timeout(call);
    request.max_output_bytes = walk->max_output > 0 ? walk->max_output : AIO_SEARCH_MAX_OUTPUT + 1;
    request.cancel_fd = call->req->client_fd;
    sbx_error err;
    sbx_error_clear(&err);
    *out = NULL;
    sbx_status st = sbx_backend_exec(call->backend, call->sandbox_id, &request, out, &err);
    free(argv);
    if (st == SBX_ERR_NOT_FOUND) {
        prov_reply_detail(reply, 404, err.message);
    } else if (st != SBX_OK) {
        aio_answer_file_error(reply, operation, path, &err);
    } else if ((*out)->outcome != SBX_EXEC_EXITED) {
        char message[160];
        snprintf(message, sizeof message,
                 "the %s did not end within %lld ms: search a smaller tree or a simpler "
                 "pattern",
                 operation, (long long)request.timeout_ms);
        aio_answer_file_problem(reply, operation, path, "timeout", message);
    } else {
        return 1;
    }
    sbx_backend_free_exec_result(call->backend, *out);
    *out = NULL;
    return 0;
}

const char *aio_search_next(const char *data, size_t len, size_t *at, char end,
                            size_t *record_len)
{
    if (*at >= len)
        return NULL;
    const char *start = data + *at;
    const char *stop = memchr(start, end, len - *at);
    if (stop == NULL)
        return NULL;
    *record_len = (size_t)(stop - start);
    *at += *record_len + 1;
    return start;
}

int64_t aio_search_int(json_object *body, const char *name, int64_t fallback, int64_t min,
                       int64_t max, aio_problems *p)
{
    json_object *value = aio_member(body, name);
    if (value == NULL)
        return fallback;
    int64_t n = json_object_get_int64(value);
    if (n >= min && n <= max)
        return n;
    char msg[80];
    int low = n < min;
    snprintf(msg, sizeof msg, "Input should be %s than or equal to %lld",
             low ? "greater" : "less", (long long)(low ? min : max));
    aio_problem(p, low ? "greater_than_equal" : "less_than_equal",
                (aio_loc){"body", name, NULL}, msg, value);
    return fallback;
}
