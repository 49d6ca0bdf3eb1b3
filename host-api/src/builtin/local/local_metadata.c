/* Atomic JSON metadata of local sandboxes (see local_metadata.h). */
#include "host-api/src/builtin/local/local_metadata.h"

#include <sbx/host.h>

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A record is a few hundred bytes; anything far larger is not ours. */
#define METADATA_MAX_BYTES 65536

static json_object *string_or_null(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
}

static json_object *metadata_to_json(const sbx_local_metadata *m)
{
    json_object *o = json_object_new_object();
    if (o == NULL)
        return NULL;
    int ok = json_object_object_add(o, "sandbox_id", string_or_null(m->sandbox_id)) == 0 &&
             json_object_object_add(o, "thread_id", string_or_null(m->thread_id)) == 0 &&
             json_object_object_add(o, "user_id", string_or_null(m->user_id)) == 0 &&
             json_object_object_add(o, "url", string_or_null(m->url)) == 0 &&
             json_object_object_add(o, "pid", m->process.pid
                                    ? json_object_new_int64(m->process.pid) : NULL) == 0 &&
             json_object_object_add(o, "pid_start_time", m->process.pid
                                    ? json_object_new_uint64(m->process.start_time) : NULL) == 0 &&
             json_object_object_add(o, "port", m->port
                                    ? json_object_new_int(m->port) : NULL) == 0 &&
             json_object_object_add(o, "created", string_or_null(m->created)) == 0 &&
             json_object_object_add(o, "incarnation_id", string_or_null(m->incarnation_id)) == 0;
    if (!ok) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

/* Write `text` to a new temporary file next to `path` and rename it over
 * `path`; the temporary name starts with '.' so that listings skip it. */
static sbx_status write_atomically(const char *path, const char *text, sbx_error *err)
{
    char tmp[PATH_MAX], dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (slash == NULL || (size_t)(slash - path) >= sizeof dir ||
        snprintf(tmp, sizeof tmp, "%.*s/.%s.XXXXXX", (int)(slash - path), path,
                 slash + 1) >= (int)sizeof tmp)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "metadata path too long: %s", path);
    memcpy(dir, path, (size_t)(slash - path));
    dir[slash - path] = '\0';
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "cannot create a file in %s: %s",
                             dir, strerror(errno));
    size_t len = strlen(text);
    const char *p = text;
    int ok = 1;
    while (ok && len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0;
        if (ok) {
            p += n;
            len -= (size_t)n;
        }
    }
    int saved = errno;
    ok = ok && fsync(fd) == 0;
    saved = ok ? 0 : (saved ? saved : errno);
    if (close(fd) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = 0;
        saved = errno;
    }
    if (!ok) {
        unlink(tmp);
        return sbx_error_set(err, SBX_ERR_INTERNAL, "cannot write %s: %s", path,
                             strerror(saved));
    }
    /* Make the rename itself durable. */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return SBX_OK;
}

sbx_status sbx_local_metadata_write(const char *path, const sbx_local_metadata *meta,
                                    sbx_error *err)
{
    json_object *o = metadata_to_json(meta);
    if (o == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    sbx_status st = text ? write_atomically(path, text, err)
                         : sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    json_object_put(o);
    return st;
}

/* Read the whole file (bounded); NULL with errno set on failure. */
static char *read_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *buf = malloc(METADATA_MAX_BYTES + 1);
    size_t used = 0;
    while (buf != NULL && used < METADATA_MAX_BYTES) {
        ssize_t n = read(fd, buf + used, METADATA_MAX_BYTES - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            free(buf);
            buf = NULL;
        } else if (n == 0) {
            break;
        } else {
            used += (size_t)n;
        }
    }
    int saved = errno;
    close(fd);
    if (buf != NULL)
        buf[used] = '\0';
    errno = saved;
    return buf;
}

/* Copy an optional string member: 1 when absent, null or a string. */
static int take_string(json_object *o, const char *key, char **dst)
{
    json_object *v = NULL;
    *dst = NULL;
    if (!json_object_object_get_ex(o, key, &v) || v == NULL)
        return 1;
    if (!json_object_is_type(v, json_type_string))
        return 0;
    *dst = strdup(json_object_get_string(v));
    return *dst != NULL;
}

/* Read an optional integer member into *dst (0 when absent or null). */
static int take_int64(json_object *o, const char *key, int64_t *dst)
{
    json_object *v = NULL;
    *dst = 0;
    if (!json_object_object_get_ex(o, key, &v) || v == NULL)
        return 1;
    if (!json_object_is_type(v, json_type_int))
        return 0;
    *dst = json_object_get_int64(v);
    return 1;
}

static int metadata_from_json(json_object *o, sbx_local_metadata *m)
{
    int64_t pid = 0, start = 0, port = 0;
    int ok = json_object_is_type(o, json_type_object) &&
             take_string(o, "sandbox_id", &m->sandbox_id) &&
             take_string(o, "thread_id", &m->thread_id) &&
             take_string(o, "user_id", &m->user_id) &&
             take_string(o, "url", &m->url) &&
             take_string(o, "created", &m->created) &&
             take_string(o, "incarnation_id", &m->incarnation_id) &&
             take_int64(o, "pid", &pid) && take_int64(o, "pid_start_time", &start) &&
             take_int64(o, "port", &port);
    if (!ok || m->sandbox_id == NULL || m->url == NULL || pid < 0 || pid > INT_MAX ||
        start < 0 || port < 0 || port > 65535)
        return 0;
    m->process.pid = (long)pid;
    m->process.start_time = (unsigned long long)start;
    m->port = (int)port;
    return 1;
}

sbx_status sbx_local_metadata_read(const char *path, sbx_local_metadata *meta,
                                   sbx_error *err)
{
    memset(meta, 0, sizeof *meta);
    char *text = read_file(path);
    if (text == NULL) {
        if (errno == ENOENT)
            return sbx_error_set(err, SBX_ERR_NOT_FOUND, "no metadata at %s", path);
        return sbx_error_set(err, SBX_ERR_INTERNAL, "cannot read %s: %s", path,
                             strerror(errno));
    }
    json_object *o = json_tokener_parse(text);
    free(text);
    int ok = o != NULL && metadata_from_json(o, meta);
    json_object_put(o);
    if (!ok) {
        sbx_local_metadata_clear(meta);
        return sbx_error_set(err, SBX_ERR_PROTOCOL, "unreadable sandbox metadata in %s", path);
    }
    return SBX_OK;
}

void sbx_local_metadata_clear(sbx_local_metadata *meta)
{
    free(meta->sandbox_id);
    free(meta->thread_id);
    free(meta->user_id);
    free(meta->url);
    free(meta->created);
    free(meta->incarnation_id);
    memset(meta, 0, sizeof *meta);
}
