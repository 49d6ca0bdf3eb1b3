/* Internal declarations shared by the host library's files. */
#ifndef SBX_HOST_INTERNAL_H
#define SBX_HOST_INTERNAL_H

#include <sbx/host.h>

/* A backend known to a host: built in, registered, or loaded from a module. */
typedef struct sbx_known_backend {
    const sbx_backend_descriptor *descriptor;
    sbx_backend_kind kind;
    char *path;          /* module file; NULL for in-process backends */
    void *dl_handle;     /* dlopen handle; NULL for in-process backends */
} sbx_known_backend;

struct sbx_host {
    sbx_host_services services;   /* copy; handed to every backend opened */
    sbx_known_backend *known;     /* in-process first, then modules as loaded */
    size_t known_count, known_cap;
    char **module_dirs;           /* configured directories */
    size_t module_dir_count;
    sbx_backend_info *listing;   /* storage behind sbx_host_list_backends */
    size_t listing_count;
};

/* Check a descriptor before anything in it is used: ABI major, size, name,
 * version and the mandatory 1.0 operations.  `origin` names the module path
 * (or "in-process backend") in the one-line SBX_ERR_LOAD message. */
sbx_status sbx_descriptor_validate(const sbx_backend_descriptor *descriptor,
                                   const char *origin, sbx_error *err);

/* dlopen `path`, find the entry point, validate its descriptor.  On success
 * *handle and *descriptor are set (the caller dlcloses the handle); on
 * failure nothing stays loaded and the message names the path. */
sbx_status sbx_module_open(const char *path, void **handle,
                           const sbx_backend_descriptor **descriptor, sbx_error *err);

/* Remember a backend in the host's table (path copied). */
sbx_status sbx_host_remember(sbx_host *host, const sbx_backend_descriptor *descriptor,
                             sbx_backend_kind kind, const char *path, void *dl_handle,
                             sbx_error *err);

/* The backend called `name` the host already knows, or NULL. */
const sbx_known_backend *sbx_host_find_known(const sbx_host *host, const char *name);

/* Log a line through the host's callback (printf-style). */
void sbx_host_log(const sbx_host *host, sbx_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Split the module search path into *dirs (configured, $SBX_MODULE_PATH,
 * compiled-in), each string owned by the array; free with sbx_strv_free. */
sbx_status sbx_module_search_path(const sbx_host *host, char ***dirs, size_t *count,
                                  sbx_error *err);

/* Free a NULL-terminated or counted string vector. */
void sbx_strv_free(char **strv, size_t count);

#endif
