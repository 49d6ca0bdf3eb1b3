/* The host: its table of known backends, the module search path, and
 * finding a backend by name. */
#include <config.h>

#include "host-api/src/host_internal.h"
#include "host-api/src/module_loader.h"
#include "plugin/local/local_backend.h"

#include <sbx/backend_support.h>

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dlfcn.h>

#ifndef SBX_MODULE_DIR
#error "SBX_MODULE_DIR must be defined by the build"
#endif

const char *sbx_host_default_module_dir(void)
{
    return SBX_MODULE_DIR;
}

void host_log(const sbx_host *host, sbx_log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sbx_backend_vlog(&host->services, level, "host", fmt, ap);
    va_end(ap);
}

void host_strv_free(char **strv, size_t count)
{
    if (strv == NULL)
        return;
    for (size_t i = 0; i < count; i++)
        free(strv[i]);
    free(strv);
}

sbx_status sbx_host_new(const sbx_host_services *services, sbx_host **out, sbx_error *err)
{
    sbx_error_clear(err);
    *out = NULL;
    sbx_host *host = calloc(1, sizeof *host);
    if (host == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory creating the host");
    host->services.struct_size = sizeof host->services;
    /* Only the members the caller's struct has are read. */
    if (sbx_backend_can_log(services)) {
        host->services.log = services->log;
        host->services.log_ctx = services->log_ctx;
    }
    sbx_status st = sbx_host_register_backend(host, local_backend_descriptor(), err);
    if (st != SBX_OK) {
        sbx_host_free(host);
        return st;
    }
    *out = host;
    return SBX_OK;
}

void sbx_host_free(sbx_host *host)
{
    if (host == NULL)
        return;
    for (size_t i = 0; i < host->known_count; i++) {
        if (host->known[i].dl_handle != NULL)
            dlclose(host->known[i].dl_handle);
        free(host->known[i].path);
    }
    free(host->known);
    host_strv_free(host->module_dirs, host->module_dir_count);
    free(host->listing);
    free(host);
}

const host_known_backend *host_find_known(const sbx_host *host, const char *name)
{
    for (size_t i = 0; i < host->known_count; i++)
        if (strcmp(host->known[i].descriptor->name, name) == 0)
            return &host->known[i];
    return NULL;
}

sbx_status host_remember(sbx_host *host, const sbx_backend_descriptor *descriptor,
                             sbx_backend_kind kind, const char *path, void *dl_handle,
                             sbx_error *err)
{
    if (host->known_count == host->known_cap) {
        size_t cap = host->known_cap ? host->known_cap * 2 : 4;
        host_known_backend *grown = realloc(host->known, cap * sizeof *grown);
        if (grown == NULL)
            return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
        host->known = grown;
        host->known_cap = cap;
    }
    char *path_copy = NULL;
    if (path != NULL && (path_copy = strdup(path)) == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    host->known[host->known_count++] = (host_known_backend){
        .descriptor = descriptor, .kind = kind, .path = path_copy, .dl_handle = dl_handle};
    return SBX_OK;
}

sbx_status sbx_host_register_backend(sbx_host *host, const sbx_backend_descriptor *descriptor,
                                     sbx_error *err)
{
    sbx_error_clear(err);
    sbx_status st = host_descriptor_validate(descriptor, "in-process backend", "", err);
    if (st != SBX_OK)
        return st;
    if (host_find_known(host, descriptor->name) != NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "a backend named '%s' is already registered",
                             descriptor->name);
    return host_remember(host, descriptor, SBX_BACKEND_BUILTIN, NULL, NULL, err);
}

sbx_status sbx_host_set_module_path(sbx_host *host, const char *const *dirs, size_t dir_count,
                                    sbx_error *err)
{
    sbx_error_clear(err);
    char **copy = calloc(dir_count ? dir_count : 1, sizeof *copy);
    if (copy == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    for (size_t i = 0; i < dir_count; i++) {
        if ((copy[i] = strdup(dirs[i])) == NULL) {
            host_strv_free(copy, i);
            return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
        }
    }
    host_strv_free(host->module_dirs, host->module_dir_count);
    host->module_dirs = copy;
    host->module_dir_count = dir_count;
    return SBX_OK;
}

/* The module search path being built: `count` strings in `items`, room for
 * `cap`. */
typedef struct dir_list {
    char **items;
    size_t count, cap;
} dir_list;

/* Append a copy of `dir` (of `len` bytes) to the list, skipping empty ones. */
static sbx_status dir_list_push(dir_list *l, const char *dir, size_t len, sbx_error *err)
{
    if (len == 0)
        return SBX_OK;
    if (l->count == l->cap) {
        size_t grown_cap = l->cap ? l->cap * 2 : 8;
        char **grown = realloc(l->items, grown_cap * sizeof *grown);
        if (grown == NULL)
            return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
        l->items = grown;
        l->cap = grown_cap;
    }
    if ((l->items[l->count] = strndup(dir, len)) == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    l->count++;
    return SBX_OK;
}

/* Refuse a search path entry too long to hold a module's file name.
 * `source` says where the entry came from, `index` its place there. */
static sbx_status check_dir_length(const char *source, size_t index, const char *dir,
                                   size_t len, sbx_error *err)
{
    if (len <= HOST_MODULE_DIR_MAX)
        return SBX_OK;
    return sbx_error_set(err, SBX_ERR_CONFIG,
                         "module path entry #%zu of %s is too long: %zu bytes, at most %d "
                         "(it begins '%.60s')", index + 1, source, len, HOST_MODULE_DIR_MAX,
                         dir);
}

/* Check and append one entry of the search path. */
static sbx_status push_dir(dir_list *l, const char *source, size_t index, const char *dir,
                           size_t len, sbx_error *err)
{
    sbx_status st = check_dir_length(source, index, dir, len, err);
    return st != SBX_OK ? st : dir_list_push(l, dir, len, err);
}

sbx_status host_module_search_path(const sbx_host *host, char ***dirs, size_t *count,
                                  sbx_error *err)
{
    dir_list l = { NULL, 0, 0 };
    sbx_status st = SBX_OK;
    for (size_t i = 0; st == SBX_OK && i < host->module_dir_count; i++)
        st = push_dir(&l, "the configured module path", i, host->module_dirs[i],
                      strlen(host->module_dirs[i]), err);
    const char *env = getenv("SBX_MODULE_PATH");
    for (size_t i = 0; st == SBX_OK && env != NULL && *env != '\0'; i++) {
        const char *colon = strchr(env, ':');
        size_t len = colon ? (size_t)(colon - env) : strlen(env);
        st = push_dir(&l, "$SBX_MODULE_PATH", i, env, len, err);
        env = colon ? colon + 1 : NULL;
    }
    if (st == SBX_OK)
        st = push_dir(&l, "the install", 0, SBX_MODULE_DIR, strlen(SBX_MODULE_DIR), err);
    if (st != SBX_OK) {
        host_strv_free(l.items, l.count);
        return st;
    }
    *dirs = l.items;
    *count = l.count;
    return SBX_OK;
}

/* Backend names become file names: keep them to a safe alphabet. */
static int backend_name_is_valid(const char *name)
{
    if (name == NULL || name[0] == '\0' || strlen(name) > 64)
        return 0;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'))
            return 0;
    return 1;
}

/* The module the host loaded from `path`, or NULL. */
static const host_known_backend *find_loaded_file(const sbx_host *host, const char *path)
{
    for (size_t i = 0; i < host->known_count; i++)
        if (host->known[i].path != NULL && strcmp(host->known[i].path, path) == 0)
            return &host->known[i];
    return NULL;
}

sbx_status host_load_file(sbx_host *host, const char *path, const host_known_backend **out,
                              sbx_error *err)
{
    if ((*out = find_loaded_file(host, path)) != NULL)
        return SBX_OK;
    void *dl;
    const sbx_backend_descriptor *d;
    sbx_status st = host_module_open(path, &dl, &d, err);
    if (st != SBX_OK)
        return st;
    const host_known_backend *same = host_find_known(host, d->name);
    if (same != NULL) {
        /* Two files declaring one name: the first one found stays. */
        dlclose(dl);
        *out = same;
        return SBX_OK;
    }
    st = host_remember(host, d, SBX_BACKEND_MODULE, path, dl, err);
    if (st != SBX_OK) {
        dlclose(dl);
        return st;
    }
    *out = &host->known[host->known_count - 1];
    return SBX_OK;
}

/* "DIR:DIR:..." of the search path, for a message; NULL when out of memory. */
static char *joined_dirs(char *const *dirs, size_t count)
{
    size_t len = 1;
    for (size_t i = 0; i < count; i++)
        len += strlen(dirs[i]) + 1;
    char *text = malloc(len), *at = text;
    if (text == NULL)
        return NULL;
    *at = '\0';
    for (size_t i = 0; i < count; i++) {
        size_t n = strlen(dirs[i]);
        if (i > 0)
            *at++ = ':';
        memcpy(at, dirs[i], n + 1);
        at += n;
    }
    return text;
}

sbx_status sbx_host_load(sbx_host *host, const char *name, const sbx_backend_descriptor **out,
                         sbx_error *err)
{
    sbx_error_clear(err);
    *out = NULL;
    if (!backend_name_is_valid(name))
        return sbx_error_set(err, SBX_ERR_LOAD,
                             "no backend named '%s': names are 1-64 of [a-z0-9_-]",
                             name != NULL ? name : "");
    const host_known_backend *known = host_find_known(host, name);
    if (known != NULL) {
        *out = known->descriptor;
        return SBX_OK;
    }
    char **dirs;
    size_t dir_count;
    sbx_status st = host_module_search_path(host, &dirs, &dir_count, err);
    if (st != SBX_OK)
        return st;
    static const char *const prefixes[] = {"", "sbx-"};
    int tried = 0;
    for (size_t i = 0; i < dir_count && !tried; i++) {
        for (size_t p = 0; p < 2 && !tried; p++) {
            /* Fits: dirs[i] is at most HOST_MODULE_DIR_MAX, the file name
             * at most "sbx-" + 64 + ".so". */
            char path[PATH_MAX];
            struct stat sb;
            snprintf(path, sizeof path, "%s/%s%s.so", dirs[i], prefixes[p], name);
            if (stat(path, &sb) != 0)
                continue;
            /* The first file found decides: a broken one is reported, not
             * silently passed over for another. */
            tried = 1;
            st = host_load_file(host, path, &known, err);
            if (st == SBX_OK && strcmp(known->descriptor->name, name) != 0)
                st = sbx_error_set(err, SBX_ERR_LOAD,
                                   "cannot load backend module %s: it declares the name '%s', not '%s'",
                                   path, known->descriptor->name, name);
        }
    }
    if (!tried) {
        /* A long path is cut where the message ends, and marked so. */
        char *searched = joined_dirs(dirs, dir_count);
        st = searched == NULL
                 ? sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory")
                 : sbx_error_set(err, SBX_ERR_LOAD,
                                 "no backend named '%s': not built in, and no %s.so or sbx-%s.so "
                                 "in %s", name, name, name, searched);
        free(searched);
    } else if (st == SBX_OK) {
        *out = known->descriptor;
    }
    host_strv_free(dirs, dir_count);
    return st;
}
