/* Atomic JSON metadata of local sandboxes (see local_metadata.h). */
#include <config.h>

#include "plugin/local/local_metadata.h"

#include "common/utf8.h"
#include "plugin/local/local_net.h"
#include "plugin/local/local_state_file.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A record is a few hundred bytes; anything far larger is not ours. */
#define METADATA_MAX_BYTES 65536

/* Add member `key`: `value` (a new reference) when `present`, else JSON
 * null.  A present value that json-c could not make (NULL) or add is out
 * of memory: 0, the value put.  (json-c's NULL is also its null, so an
 * unchecked add would write a record with the member silently null.) */
static int add_member(json_object *o, const char *key, int present, json_object *value)
{
    if ((!present || value != NULL) && json_object_object_add(o, key, value) == 0)
        return 1;
    json_object_put(value);
    return 0;
}

static int add_string(json_object *o, const char *key, const char *s)
{
    return add_member(o, key, s != NULL, s != NULL ? json_object_new_string(s) : NULL);
}

/* Add member `key`: an object of the `count` pairs, or nothing when
 * there are none (a record of an older backend reads the same). */
static int add_pairs(json_object *o, const char *key, const sbx_label *pairs, size_t count)
{
    if (count == 0)
        return 1;
    json_object *map = json_object_new_object();
    if (map == NULL)
        return 0;
    for (size_t i = 0; i < count; i++) {
        json_object *v = json_object_new_string(pairs[i].value);
        if (v == NULL || json_object_object_add(map, pairs[i].key, v) != 0) {
            json_object_put(v);
            json_object_put(map);
            return 0;
        }
    }
    return add_member(o, key, 1, map);
}

static json_object *metadata_to_json(const local_metadata *m)
{
    json_object *o = json_object_new_object();
    if (o == NULL)
        return NULL;
    int pid = m->process.pid != 0, holder = m->holder.pid != 0;
    int ok = add_string(o, "sandbox_id", m->sandbox_id) &&
             add_string(o, "thread_id", m->thread_id) &&
             add_string(o, "user_id", m->user_id) &&
             add_string(o, "url", m->url) &&
             add_member(o, "pid", pid, pid ? json_object_new_int64(m->process.pid) : NULL) &&
             add_member(o, "pid_start_time", pid,
                        pid ? json_object_new_uint64(m->process.start_time) : NULL) &&
             add_member(o, "holder_pid", holder,
                        holder ? json_object_new_int64(m->holder.pid) : NULL) &&
             add_member(o, "holder_start_time", holder,
                        holder ? json_object_new_uint64(m->holder.start_time) : NULL) &&
             add_member(o, "port", m->port != 0,
                        m->port != 0 ? json_object_new_int(m->port) : NULL) &&
             add_string(o, "created", m->created) &&
             add_string(o, "incarnation_id", m->incarnation_id) &&
             (!m->creating || add_string(o, "state", "creating")) &&
             add_pairs(o, "labels", m->labels, m->label_count) &&
             add_pairs(o, "env", m->env, m->env_count) &&
             (m->spec == NULL || add_string(o, "spec", m->spec)) &&
             (m->expires_at == 0 ||
              add_member(o, "expires_at", 1, json_object_new_int64(m->expires_at))) &&
             (!m->without_cgroups || add_member(o, "cgroups", 1, json_object_new_boolean(0))) &&
             (m->network == 0 ||
              add_string(o, "network", local_network_words[LOCAL_NET_OF_RECORDED(m->network)]));
    if (!ok) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

/* Write `text` to `tmp` (next to `path`) and rename it over `path`.  The
 * temporary name is fixed, since only the holder of the sandbox's lock
 * writes: a writer killed half-way leaves a file that the next write
 * replaces and destroy removes, rather than one more unique name. */
static sbx_status write_atomically(const char *path, const char *tmp, const char *text,
                                   sbx_error *err)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (slash == NULL || (size_t)(slash - path) >= sizeof dir)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "metadata path too long: %s", path);
    memcpy(dir, path, (size_t)(slash - path));
    dir[slash - path] = '\0';
    /* Made anew, never opened as found: whatever a killed writer or anyone
     * else left under the name (a FIFO would block the open, a device act
     * on it) is unlinked, and O_EXCL fails on what cannot be. */
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
    if (fd < 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot create %s: %s", tmp,
                                     strerror(errno));
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
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot write %s: %s", path,
                                     strerror(saved));
    }
    /* Make the rename itself durable; the record is written either way. */
    sbx_error ignored;
    local_state_dir_sync(dir, &ignored);
    return SBX_OK;
}

sbx_status local_metadata_write(const char *path, const char *tmp,
                                const local_metadata *meta, sbx_error *err)
{
    json_object *o = metadata_to_json(meta);
    if (o == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    /* json-c 0.16 leaves out a piece whose buffer could not grow and still
     * returns the rest: a text written while an allocation failed is not
     * the record. */
    errno = 0;
    const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    if (errno == ENOMEM)
        text = NULL;
    sbx_status st = text ? write_atomically(path, tmp, text, err)
                         : sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    json_object_put(o);
    return st;
}

/* Read the whole of `fd` (bounded); NULL with errno set on failure.  The
 * descriptor stays open. */
static char *read_fd(int fd)
{
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
    if (buf != NULL)
        buf[used] = '\0';
    return buf;
}

/* Why a record is refused: the member and what is wrong with it. */
typedef struct bad_field {
    const char *key;
    const char *why;
} bad_field;

/* The `why` of a field that could not be copied: the record is fine, the
 * process is out of memory (internal, not protocol). */
static const char copy_failed[] = "cannot be copied (out of memory)";

static int refuse(bad_field *bad, const char *key, const char *why)
{
    bad->key = key;
    bad->why = why;
    return 0;
}

/* Copy the value `v` of member `key`: 1 when it is a string that C and
 * JSON can carry whole (no NUL, valid UTF-8: a NUL would cut it short and
 * let "alice\u0000mallory" pass as alice's). */
static int take_value(json_object *v, const char *key, char **dst, bad_field *bad)
{
    *dst = NULL;
    if (!json_object_is_type(v, json_type_string))
        return refuse(bad, key, "is not a string");
    const char *text = json_object_get_string(v);
    size_t len = (size_t)json_object_get_string_len(v);
    if (memchr(text, '\0', len) != NULL)
        return refuse(bad, key, "contains a NUL character");
    if (!common_text_is_clean(text, len))
        return refuse(bad, key, "is not valid UTF-8");
    *dst = strdup(text);
    return *dst != NULL || refuse(bad, key, copy_failed);
}

/* take_value of optional member `key` of `o`: 1 when absent or null. */
static int take_string(json_object *o, const char *key, char **dst, bad_field *bad)
{
    json_object *v = NULL;
    *dst = NULL;
    if (!json_object_object_get_ex(o, key, &v) || v == NULL)
        return 1;
    return take_value(v, key, dst, bad);
}

/* Read an optional integer member in [0, max] into *dst (0 when absent or
 * null). */
static int take_count(json_object *o, const char *key, int64_t max, int64_t *dst,
                      bad_field *bad)
{
    json_object *v = NULL;
    *dst = 0;
    if (!json_object_object_get_ex(o, key, &v) || v == NULL)
        return 1;
    if (!json_object_is_type(v, json_type_int))
        return refuse(bad, key, "is not an integer");
    errno = 0;
    *dst = json_object_get_int64(v);
    if (errno != 0 || *dst < 0 || *dst > max)
        return refuse(bad, key, "is out of range");
    return 1;
}

/* Read an optional boolean member: *without 1 when it is false, 0 when
 * it is true, absent or null. */
static int take_without(json_object *o, const char *key, int *without, bad_field *bad)
{
    json_object *v = NULL;
    *without = 0;
    if (!json_object_object_get_ex(o, key, &v) || v == NULL)
        return 1;
    if (!json_object_is_type(v, json_type_boolean))
        return refuse(bad, key, "is not a boolean");
    *without = !json_object_get_boolean(v);
    return 1;
}

/* The "state" member: absent or null in a complete record, "creating"
 * while the create that wrote it has not finished. */
static int take_state(json_object *o, int *creating, bad_field *bad)
{
    char *state = NULL;
    if (!take_string(o, "state", &state, bad))
        return 0;
    *creating = state != NULL;
    int ok = state == NULL || strcmp(state, "creating") == 0;
    free(state);
    return ok || refuse(bad, "state", "is neither null nor \"creating\"");
}

/* Release `count` pairs whose strings this file allocated. */
static void free_pairs(sbx_label *pairs, size_t count)
{
    for (size_t i = 0; pairs != NULL && i < count; i++) {
        free((void *)pairs[i].key);
        free((void *)pairs[i].value);
    }
    free(pairs);
}

/* Copies of from[0..count) into *to (NULL when count is 0): 1 when done. */
static int copy_pairs(const sbx_label *from, size_t count, sbx_label **to)
{
    *to = NULL;
    if (count == 0)
        return 1;
    sbx_label *copy = calloc(count, sizeof *copy);
    if (copy == NULL)
        return 0;
    int ok = 1;
    for (size_t i = 0; i < count && ok; i++) {
        copy[i].key = strdup(from[i].key);
        copy[i].value = strdup(from[i].value);
        ok = copy[i].key != NULL && copy[i].value != NULL;
    }
    if (!ok) {
        free_pairs(copy, count);
        return 0;
    }
    *to = copy;
    return 1;
}

/* Read optional member `key`, an object of strings, into *pairs and
 * *count (none when absent or null). */
static int take_pairs(json_object *o, const char *key, sbx_label **pairs, size_t *count,
                      bad_field *bad)
{
    json_object *map = NULL;
    *pairs = NULL;
    *count = 0;
    if (!json_object_object_get_ex(o, key, &map) || map == NULL)
        return 1;
    if (!json_object_is_type(map, json_type_object))
        return refuse(bad, key, "is not an object");
    size_t n = (size_t)json_object_object_length(map);
    sbx_label *list = n > 0 ? calloc(n, sizeof *list) : NULL;
    if (n > 0 && list == NULL)
        return refuse(bad, key, copy_failed);
    size_t used = 0;
    int ok = 1;
    json_object_object_foreach(map, name, value) {
        if (!ok || used == n)
            break;
        char *copy = NULL;
        ok = value != NULL ? take_value(value, key, &copy, bad)
                           : refuse(bad, key, "holds a null value");
        if (ok) {
            list[used].value = copy;
            list[used].key = strdup(name);
            ok = list[used++].key != NULL || refuse(bad, key, copy_failed);
        }
    }
    if (!ok) {
        free_pairs(list, used);
        return 0;
    }
    *pairs = list;
    *count = used;
    return 1;
}

/* Read optional member "network", a word of the `network` option, into
 * *network (LOCAL_NET_RECORDED; 0 when absent). */
static int take_network(json_object *o, int *network, bad_field *bad)
{
    json_object *word = NULL;
    *network = 0;
    if (!json_object_object_get_ex(o, "network", &word))
        return 1;
    const char *text = json_object_is_type(word, json_type_string)
                           ? json_object_get_string(word) : NULL;
    for (int i = 0; text != NULL && local_network_words[i] != NULL; i++)
        if (strcmp(text, local_network_words[i]) == 0) {
            *network = LOCAL_NET_RECORDED(i);
            return 1;
        }
    return refuse(bad, "network", "is not one of none, host, forward");
}

static int metadata_from_json(json_object *o, local_metadata *m, bad_field *bad)
{
    int64_t pid = 0, start = 0, port = 0, holder = 0, holder_start = 0;
    if (!json_object_is_type(o, json_type_object))
        return refuse(bad, NULL, "is not a JSON object");
    if (!take_string(o, "sandbox_id", &m->sandbox_id, bad) ||
        !take_string(o, "thread_id", &m->thread_id, bad) ||
        !take_string(o, "user_id", &m->user_id, bad) ||
        !take_string(o, "url", &m->url, bad) ||
        !take_string(o, "created", &m->created, bad) ||
        !take_string(o, "incarnation_id", &m->incarnation_id, bad) ||
        !take_state(o, &m->creating, bad) ||
        !take_count(o, "pid", INT_MAX, &pid, bad) ||
        !take_count(o, "pid_start_time", INT64_MAX, &start, bad) ||
        !take_count(o, "holder_pid", INT_MAX, &holder, bad) ||
        !take_count(o, "holder_start_time", INT64_MAX, &holder_start, bad) ||
        !take_count(o, "port", 65535, &port, bad) ||
        !take_pairs(o, "labels", &m->labels, &m->label_count, bad) ||
        !take_pairs(o, "env", &m->env, &m->env_count, bad) ||
        !take_string(o, "spec", &m->spec, bad) ||
        !take_count(o, "expires_at", INT64_MAX, &m->expires_at, bad) ||
        !take_without(o, "cgroups", &m->without_cgroups, bad) ||
        !take_network(o, &m->network, bad))
        return 0;
    if (m->sandbox_id == NULL)
        return refuse(bad, "sandbox_id", "is missing");
    if (m->url == NULL)
        return refuse(bad, "url", "is missing");
    m->process.pid = (long)pid;
    m->process.start_time = (unsigned long long)start;
    m->port = (int)port;
    m->holder.pid = (long)holder;
    m->holder.start_time = (unsigned long long)holder_start;
    return 1;
}

/* The error of a record file that could not be opened or read. */
static sbx_status unreadable(const char *path, int errnum, sbx_error *err)
{
    if (errnum == ENOENT)
        return sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "no metadata at %s", path);
    return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot read %s: %s", path,
                                 strerror(errnum));
}

sbx_status local_metadata_open(const char *path, int *fd, sbx_error *err)
{
    return local_state_file_open(path, METADATA_MAX_BYTES, fd, err);
}

sbx_status local_metadata_read_fd(int fd, const char *path, local_metadata *meta,
                                  sbx_error *err)
{
    memset(meta, 0, sizeof *meta);
    char *text = read_fd(fd);
    if (text == NULL)
        return unreadable(path, errno, err);
    json_object *o = json_tokener_parse(text);
    free(text);
    bad_field bad = { NULL, "is not JSON" };
    int ok = o != NULL && metadata_from_json(o, meta, &bad);
    json_object_put(o);
    if (ok)
        return SBX_OK;
    local_metadata_clear(meta);
    if (bad.key == NULL)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "unreadable sandbox metadata in %s: it %s",
                                     path, bad.why);
    sbx_status kind = bad.why == copy_failed ? SBX_ERR_INTERNAL : SBX_ERR_PROTOCOL;
    return sbx_backend_error_set(err, kind, "unreadable sandbox metadata in %s: field '%s' %s",
                                 path, bad.key, bad.why);
}

/* Copy an optional string: 1 when done (NULL copies as NULL). */
static int copy_string(const char *from, char **to)
{
    *to = from != NULL ? strdup(from) : NULL;
    return from == NULL || *to != NULL;
}

sbx_status local_metadata_copy(const local_metadata *from, local_metadata *to,
                               sbx_error *err)
{
    *to = *from;
    int ok = copy_string(from->sandbox_id, &to->sandbox_id) &
             copy_string(from->thread_id, &to->thread_id) &
             copy_string(from->user_id, &to->user_id) & copy_string(from->url, &to->url) &
             copy_string(from->created, &to->created) &
             copy_string(from->incarnation_id, &to->incarnation_id) &
             copy_string(from->spec, &to->spec) &
             copy_pairs(from->labels, from->label_count, &to->labels) &
             copy_pairs(from->env, from->env_count, &to->env);
    if (ok)
        return SBX_OK;
    local_metadata_clear(to);
    return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot copy the record of sandbox %s "
                                 "(out of memory)", from->sandbox_id);
}

void local_metadata_clear(local_metadata *meta)
{
    free(meta->sandbox_id);
    free(meta->thread_id);
    free(meta->user_id);
    free(meta->url);
    free(meta->created);
    free(meta->incarnation_id);
    free(meta->spec);
    free_pairs(meta->labels, meta->label_count);
    free_pairs(meta->env, meta->env_count);
    memset(meta, 0, sizeof *meta);
}
