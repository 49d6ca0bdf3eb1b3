/* The bash sessions kept in --state-dir (provd_bash_store.h).  A file:
 * {"sessions":[{"session_id","working_dir","created_at","last_used_at",
 * "command_count"}, ...]}, oldest first, times in ms since the epoch. */
#include <config.h>

#include "tools/provisiond/provd_bash_store.h"

#include "common/sandbox_ids.h"
#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisioner-common/prov_files.h"
#include "tools/provisioner-common/prov_json.h"
#include "tools/provisiond/provd_state_file.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SUFFIX ".bash"

/* 64 sessions whose working directories are 4095 bytes escaped six-fold
 * stay below this; anything larger is not ours. */
#define MAX_FILE_BYTES (2 * 1024 * 1024)

struct provd_bash_store {
    aio_bash_store hook;
    char *dir;
    void (*warn)(void *, const char *);
    void *ctx;
};

/* The file name of `sandbox_id`'s sessions. */
typedef char file_name[COMMON_SANDBOX_ID_MAX + sizeof SUFFIX];

static void name_of(const char *sandbox_id, file_name name)
{
    snprintf(name, sizeof(file_name), "%s" SUFFIX, sandbox_id);
}

/* Say `what` about file `name` and `why` through the warn callback. */
static void warn_file(const provd_bash_store *store, const char *what, const char *name,
                      const char *why)
{
    char line[1024];
    snprintf(line, sizeof line, "%s %s/%s: %s", what, store->dir, name, why);
    store->warn(store->ctx, line);
}

/* The text of `sessions` (`count`) in *obj; NULL when memory ran out. */
static const char *sessions_text(const aio_bash_session *sessions, size_t count,
                                 json_object **obj)
{
    json_object *list = json_object_new_array();
    *obj = json_object_new_object();
    int built = prov_json_add(*obj, "sessions", list);
    for (size_t i = 0; built && i < count; i++) {
        const aio_bash_session *s = &sessions[i];
        json_object *o = json_object_new_object();
        built = prov_json_append(list, o) && prov_json_add_string(o, "session_id", s->id) &&
                prov_json_add_string(o, "working_dir", s->working_dir) &&
                prov_json_add(o, "created_at", json_object_new_int64(s->created_at)) &&
                prov_json_add(o, "last_used_at", json_object_new_int64(s->used_at)) &&
                prov_json_add(o, "command_count", json_object_new_int(s->command_count));
    }
    return built ? prov_json_text(*obj) : NULL;
}

/* The hook's save: the sandbox's file replaced, or removed when it has no
 * session left.  A failure is told, and the sessions serve on. */
static void save(void *ctx, const char *sandbox_id, const aio_bash_session *sessions,
                 size_t count)
{
    const provd_bash_store *store = ctx;
    file_name name;
    name_of(sandbox_id, name);
    if (count == 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", store->dir, name);
        if (unlink(path) != 0 && errno != ENOENT)
            warn_file(store, "cannot remove the bash sessions file", name, strerror(errno));
        return;
    }
    json_object *obj = NULL;
    const char *text = sessions_text(sessions, count, &obj);
    if (text == NULL)
        warn_file(store, "cannot write the bash sessions file", name, "out of memory");
    else if (!provd_state_file_replace(store->dir, name, text, strlen(text)))
        warn_file(store, "cannot write the bash sessions file", name, strerror(errno));
    json_object_put(obj);
}

provd_bash_store *provd_bash_store_new(const char *dir, void (*warn)(void *, const char *),
                                       void *ctx)
{
    provd_bash_store *store = prov_malloc(sizeof *store);
    char *copy = store != NULL ? prov_strdup(dir) : NULL;
    if (copy == NULL) {
        free(store);
        return NULL;
    }
    *store = (provd_bash_store){{save, store}, copy, warn, ctx};
    return store;
}

void provd_bash_store_free(provd_bash_store *store)
{
    if (store == NULL)
        return;
    free(store->dir);
    free(store);
}

const aio_bash_store *provd_bash_store_hook(provd_bash_store *store)
{
    return &store->hook;
}

static int int_member(json_object *obj, const char *key, int64_t *out)
{
    json_object *value = NULL;
    if (!json_object_object_get_ex(obj, key, &value) ||
        !json_object_is_type(value, json_type_int))
        return 0;
    *out = json_object_get_int64(value);
    return 1;
}

/* Session `o` into *s: NULL, or what is wrong with it. */
static const char *session_of(json_object *o, aio_bash_session *s)
{
    const char *id = prov_json_string_member(o, "session_id");
    const char *dir = prov_json_string_member(o, "working_dir");
    int64_t count = -1;
    if (id == NULL || !aio_bash_session_id_valid(id))
        return "a session_id is missing or invalid";
    if (dir == NULL || dir[0] != '/' || strlen(dir) > AIO_BASH_DIR_MAX)
        return "a working_dir is missing or not an absolute path";
    if (!int_member(o, "created_at", &s->created_at) ||
        !int_member(o, "last_used_at", &s->used_at) ||
        !int_member(o, "command_count", &count) || count < 0 || count > INT_MAX)
        return "a time or command_count is missing or ill-typed";
    snprintf(s->id, sizeof s->id, "%s", id);
    snprintf(s->working_dir, sizeof s->working_dir, "%s", dir);
    s->command_count = (int)count;
    return NULL;
}

/* The sessions of `text` into *out (the caller frees it) and their
 * number in *count: NULL, or what is wrong with the text. */
static const char *parse(const char *text, size_t len, aio_bash_session **out, size_t *count)
{
    size_t offset = 0;
    const char *why = NULL;
    json_object *obj = prov_json_parse(text, len, &offset, &why), *list = NULL;
    *out = NULL;
    *count = 0;
    const char *problem = NULL;
    if (why == prov_json_out_of_memory)
        problem = "out of memory";
    else if (!json_object_is_type(obj, json_type_object) ||
             !json_object_object_get_ex(obj, "sessions", &list) ||
             !json_object_is_type(list, json_type_array))
        problem = "not a JSON object with a \"sessions\" array";
    else if (json_object_array_length(list) > AIO_BASH_MAX_SESSIONS)
        problem = "more sessions than a sandbox may hold";
    size_t n = problem == NULL ? json_object_array_length(list) : 0;
    if (n > 0) {
        *out = prov_malloc(n * sizeof **out);
        problem = *out == NULL ? "out of memory" : NULL;
    }
    for (size_t i = 0; problem == NULL && i < n; i++) {
        json_object *o = json_object_array_get_idx(list, i);
        problem = json_object_is_type(o, json_type_object) ? session_of(o, &(*out)[i])
                                                           : "a session is not a JSON object";
    }
    json_object_put(obj);
    if (problem == NULL)
        *count = n;
    return problem;
}

/* Load file `name` of sandbox `sandbox_id` into `server`: NULL, or what
 * is wrong with it. */
static const char *load_file(const provd_bash_store *store, const char *name,
                             const char *sandbox_id, aio_server *server)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", store->dir, name);
    size_t len = 0;
    const char *problem = NULL;
    /* Without blocking or following a link, as the ownership records. */
    char *text = prov_read_regular(path, MAX_FILE_BYTES, 1, &len, &problem);
    if (text == NULL)
        return problem == prov_file_too_large ? "larger than 2 MiB" : problem;
    aio_bash_session *sessions = NULL;
    size_t count = 0;
    problem = parse(text, len, &sessions, &count);
    free(text);
    for (size_t i = 0; problem == NULL && i < count; i++)
        if (aio_server_restore_bash_session(server, sandbox_id, &sessions[i]) ==
            AIO_BASH_NO_MEMORY)
            problem = "out of memory (loaded in part)";
    free(sessions);
    return problem;
}

/* The sandbox id of file `name` (`id`, COMMON_SANDBOX_ID_MAX + 1 bytes):
 * 1, or 0 when `name` is not of a sessions file. */
static int sandbox_of(const char *name, char *id)
{
    size_t len = strlen(name), suffix = strlen(SUFFIX);
    if (name[0] == '.' || len <= suffix || strcmp(name + len - suffix, SUFFIX) != 0 ||
        len - suffix > COMMON_SANDBOX_ID_MAX)
        return 0;
    memcpy(id, name, len - suffix);
    id[len - suffix] = '\0';
    return common_sandbox_id_is_valid(id);
}

void provd_bash_store_load(provd_bash_store *store, aio_server *server,
                           int (*exists)(void *, const char *), void *ctx)
{
    DIR *d = opendir(store->dir);
    if (d == NULL) {
        char line[1024];
        snprintf(line, sizeof line, "cannot load the bash sessions kept in %s: %s", store->dir,
                 strerror(errno));
        store->warn(store->ctx, line);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        char id[COMMON_SANDBOX_ID_MAX + 1];
        if (!sandbox_of(de->d_name, id))
            continue;
        int there = exists(ctx, id);
        const char *problem = there == 1 ? load_file(store, de->d_name, id, server) : NULL;
        if (problem != NULL) {
            warn_file(store, "ignoring the bash sessions file", de->d_name, problem);
        } else if (there == 0) {
            warn_file(store, "dropping the bash sessions file", de->d_name,
                      "its sandbox no longer exists");
            save(store, id, NULL, 0);
        } else if (there < 0) {
            warn_file(store, "leaving the bash sessions file", de->d_name,
                      "unloaded: whether its sandbox exists cannot be told");
        }
    }
    closedir(d);
}
