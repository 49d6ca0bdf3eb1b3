/* Container archives with libarchive (see docker_archive.h). */
#include <config.h>

#include "plugin/docker/docker_archive.h"

#include "common/base64.h"
#include "common/dynbuf.h"
#include "common/json_fields.h"
#include "plugin/docker/docker_conn.h"
#include "plugin/docker/docker_container.h"
#include "plugin/docker/docker_paths.h"
#include <sbx/backend_support.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Bytes read from the engine at a time. */
#define READ_BLOCK 65536

/* The archive call's error for a non-2xx answer, as a path's kind:
 * `not_a_dir` for "not a directory" (dockerd's 500 for a file on the
 * path of a GET, where podman says 404; a PUT into a file). */
static sbx_status path_error(docker_conn *c, sbx_status not_a_dir, sbx_error *err)
{
    char text[1024];
    common_http_response resp;
    docker_conn_error_body(c, text, sizeof text, &resp);
    sbx_status kind = SBX_ERR_PROVISIONER;
    if (resp.status == 404)
        kind = SBX_ERR_NO_SUCH_PATH;
    else if (strstr(text, "not a directory") != NULL)
        kind = not_a_dir;
    else if (resp.status == 403 || strstr(text, "read-only") != NULL ||
             strstr(text, "ermission denied") != NULL)
        kind = SBX_ERR_PERMISSION;
    else if (resp.status == 409)
        kind = SBX_ERR_NOT_FOUND;
    docker_engine_error(&resp, c->what, kind, err);
    err->kind = kind;
    return kind;
}

/* The engine's answer as libarchive reads it. */
typedef struct body_reader {
    docker_conn *conn;
    char block[READ_BLOCK];
    sbx_error *err;
    int failed;
} body_reader;

static la_ssize_t read_body(struct archive *a, void *ctx, const void **buf)
{
    (void)a;
    body_reader *r = ctx;
    size_t got = 0;
    if (docker_conn_read_body(r->conn, r->block, sizeof r->block, &got, r->err) != SBX_OK) {
        r->failed = 1;
        return -1;
    }
    *buf = r->block;
    return (la_ssize_t)got;
}

/* METHOD (GET or HEAD) /containers/ID/archive?path=PATH on a connection
 * of its own, up to the answer's head. */
static sbx_status archive_ask(const docker_archive_path *at, const char *method, docker_conn *c,
                              sbx_error *err)
{
    char query[DOCKER_PATH_MAX * 3 + 96], prefix[DOCKER_CONTAINER_ID_MAX + 32];
    snprintf(prefix, sizeof prefix, "/containers/%s/archive", at->container_id);
    c->fd = -1;
    if (docker_path_query(prefix, at->path, query, sizeof query) != 0)
        return sbx_backend_error_set(err, SBX_ERR_USAGE, "docker: %s: the path is too long",
                                     at->what);
    sbx_status st = docker_conn_open(c, at->engine, at->what,
                                     docker_now_ms() + at->engine->timeout_ms, err);
    if (st == SBX_OK)
        st = docker_conn_send(c, at->engine,
                              &(docker_conn_request){ .method = method, .path = query,
                                                      .extra_headers = "Connection: close\r\n" },
                              err);
    if (st == SBX_OK)
        st = docker_conn_read_head(c, err);
    return st;
}

/* Go's os.FileMode type bits, as the engines' stat header gives them. */
#define GO_MODE_DIR (UINT64_C(1) << 31)
#define GO_MODE_SYMLINK (UINT64_C(1) << 27)

/* The stat header's JSON, decoded: 1 and *type from its mode, else 0. */
static int stat_header_type(const docker_conn *c, unsigned *type)
{
    size_t len = 0;
    const char *text = docker_conn_header(c, "X-Docker-Container-Path-Stat", &len);
    unsigned char json[DOCKER_CONN_HEAD_MAX];
    size_t json_len = 0;
    if (text == NULL || COMMON_BASE64_DECODED_MAX(len) > sizeof json ||
        common_base64_decode(text, len, COMMON_BASE64_STRICT, json, &json_len) != 0)
        return 0;
    json_object *o = common_json_parse((const char *)json, json_len), *mode = NULL;
    int ok = json_object_object_get_ex(o, "mode", &mode) &&
             json_object_is_type(mode, json_type_int);
    if (ok) {
        uint64_t bits = (uint64_t)json_object_get_int64(mode);
        *type = bits & GO_MODE_SYMLINK ? AE_IFLNK : bits & GO_MODE_DIR ? AE_IFDIR : AE_IFREG;
    }
    json_object_put(o);
    return ok;
}

sbx_status docker_archive_stat(const docker_archive_path *at, int *exists, unsigned *type,
                               sbx_error *err)
{
    *exists = -1;
    *type = 0;
    docker_conn c;
    sbx_status st = archive_ask(at, "HEAD", &c, err);
    if (st == SBX_OK && c.status == 200 && stat_header_type(&c, type))
        *exists = 1;
    else if (st == SBX_OK && c.status == 404 &&
             docker_conn_header(&c, "X-Docker-Container-Path-Stat", &(size_t){0}) == NULL)
        *exists = 0;
    docker_conn_close(&c);
    /* The engine did not say (or could not be asked): the caller's GET will,
     * with the engine's words for what is wrong. */
    if (st != SBX_OK)
        sbx_backend_error_clear(err);
    return SBX_OK;
}

struct docker_archive_reader {
    docker_conn conn;
    struct archive *archive;
    body_reader body;
    char what[DOCKER_WHAT_MAX];
};

void docker_archive_close(docker_archive_reader *r)
{
    if (r == NULL)
        return;
    if (r->archive != NULL)
        archive_read_free(r->archive);
    docker_conn_close(&r->conn);
    free(r);
}

sbx_status docker_archive_open(const docker_archive_path *at, docker_archive_reader **out,
                               sbx_error *err)
{
    *out = NULL;
    docker_archive_reader *r = calloc(1, sizeof *r);
    if (r == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    snprintf(r->what, sizeof r->what, "%s", at->what);
    sbx_status st = archive_ask(at, "GET", &r->conn, err);
    if (st == SBX_OK && r->conn.status != 200)
        st = path_error(&r->conn, SBX_ERR_NO_SUCH_PATH, err);
    if (st == SBX_OK && (r->archive = archive_read_new()) == NULL)
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    if (st == SBX_OK) {
        r->body.conn = &r->conn;
        r->body.err = err;
        archive_read_support_format_tar(r->archive);
        if (archive_read_open(r->archive, &r->body, NULL, read_body, NULL) != ARCHIVE_OK)
            st = r->body.failed ? err->kind
                                : sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                                        "docker: %s: the engine's archive is "
                                                        "not a tar: %s", at->what,
                                                        archive_error_string(r->archive));
    }
    if (st != SBX_OK) {
        docker_archive_close(r);
        return st;
    }
    *out = r;
    return SBX_OK;
}

void docker_archive_resume(docker_archive_reader *r, const docker_engine *engine, sbx_error *err)
{
    r->body.err = err;
    r->conn.deadline_ms = docker_now_ms() + engine->timeout_ms;
}

/* A failure of libarchive's, as the reader's error. */
static sbx_status archive_failure(docker_archive_reader *r, const char *doing, sbx_error *err)
{
    return r->body.failed ? err->kind
                          : sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                                  "docker: %s: the engine's archive is %s: %s",
                                                  r->what, doing,
                                                  archive_error_string(r->archive));
}

sbx_status docker_archive_next(docker_archive_reader *r, struct archive_entry **e, sbx_error *err)
{
    *e = NULL;
    int rc = archive_read_next_header(r->archive, e);
    if (rc == ARCHIVE_EOF) {
        *e = NULL;
        return SBX_OK;
    }
    if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) {
        *e = NULL;
        return archive_failure(r, "malformed", err);
    }
    return SBX_OK;
}

sbx_status docker_archive_data(docker_archive_reader *r, void *buf, size_t size, size_t *got,
                               sbx_error *err)
{
    la_ssize_t n = archive_read_data(r->archive, buf, size);
    if (n < 0)
        return archive_failure(r, "cut in a file", err);
    *got = (size_t)n;
    return SBX_OK;
}

sbx_status docker_archive_get(const docker_archive_path *at, docker_archive_visit_fn visit,
                              void *ctx, sbx_error *err)
{
    docker_archive_reader *r = NULL;
    sbx_status st = docker_archive_open(at, &r, err);
    while (st == SBX_OK) {
        struct archive_entry *e = NULL;
        st = docker_archive_next(r, &e, err);
        if (st != SBX_OK || e == NULL)
            break;
        int v = visit(ctx, r->archive, e, err);
        if (v < 0)
            st = err->kind;
        if (v != 0)
            break;
    }
    docker_archive_close(r);
    return st;
}

/* libarchive's output into a dynbuf. */
static la_ssize_t write_tar(struct archive *a, void *ctx, const void *buf, size_t n)
{
    (void)a;
    return common_dynbuf_add(ctx, buf, n) == COMMON_DYNBUF_OK ? (la_ssize_t)n : -1;
}

/* A one-member tar of `name` into *tar. */
static int build_tar(const char *name, const void *data, size_t length, uint32_t mode,
                     common_dynbuf *tar)
{
    struct archive *a = archive_write_new();
    struct archive_entry *e = archive_entry_new();
    int ok = a != NULL && e != NULL && archive_write_set_format_pax_restricted(a) == ARCHIVE_OK &&
             archive_write_set_bytes_in_last_block(a, 1) == ARCHIVE_OK &&
             archive_write_open(a, tar, NULL, write_tar, NULL) == ARCHIVE_OK;
    if (ok) {
        archive_entry_set_pathname(e, name);
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, mode & 07777);
        archive_entry_set_size(e, (la_int64_t)length);
        archive_entry_set_mtime(e, time(NULL), 0);
        ok = archive_write_header(a, e) == ARCHIVE_OK &&
             (length == 0 || archive_write_data(a, data, length) == (la_ssize_t)length) &&
             archive_write_close(a) == ARCHIVE_OK;
    }
    archive_entry_free(e);
    archive_write_free(a);
    return ok;
}

sbx_status docker_archive_put(const docker_archive_path *dir, const char *name, const void *data,
                              size_t length, uint32_t mode, sbx_error *err)
{
    char query[DOCKER_PATH_MAX * 3 + 128], prefix[DOCKER_CONTAINER_ID_MAX + 32];
    snprintf(prefix, sizeof prefix, "/containers/%s/archive", dir->container_id);
    if (docker_path_query(prefix, dir->path, query, sizeof query) != 0)
        return sbx_backend_error_set(err, SBX_ERR_USAGE, "docker: %s: the path is too long",
                                     dir->what);
    common_dynbuf tar;
    common_dynbuf_init(&tar, 0);
    if (!build_tar(name, data, length, mode, &tar)) {
        common_dynbuf_free(&tar);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL,
                                     "docker: %s: cannot build the archive (out of memory)",
                                     dir->what);
    }
    docker_conn c;
    /* The upload may take longer than a call: a second per MiB more. */
    int64_t deadline = docker_now_ms() + dir->engine->timeout_ms + (int64_t)(length >> 20) * 1000;
    sbx_status st = docker_conn_open(&c, dir->engine, dir->what, deadline, err);
    if (st == SBX_OK)
        st = docker_conn_send(&c, dir->engine,
                              &(docker_conn_request){
                                  .method = "PUT", .path = query,
                                  .extra_headers = "Content-Type: application/x-tar\r\n"
                                                   "Connection: close\r\n",
                                  .body = tar.data, .body_len = tar.len },
                              err);
    common_dynbuf_free(&tar);
    if (st == SBX_OK)
        st = docker_conn_read_head(&c, err);
    if (st == SBX_OK && c.status / 100 != 2)
        st = path_error(&c, SBX_ERR_NOT_A_DIRECTORY, err);
    docker_conn_close(&c);
    return st;
}
