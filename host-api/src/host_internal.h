/* Internal declarations shared by the host library's files. */
#ifndef SBX_HOST_INTERNAL_H
#define SBX_HOST_INTERNAL_H

#include <sbx/host.h>

#include <limits.h>

/* A backend known to a host: built in, registered, or loaded from a module. */
typedef struct host_known_backend {
    const sbx_backend_descriptor *descriptor;
    sbx_backend_kind kind;
    char *path;          /* module file; NULL for in-process backends */
    void *dl_handle;     /* dlopen handle; NULL for in-process backends */
} host_known_backend;

struct sbx_host {
    sbx_host_services services;   /* copy; handed to every backend opened */
    host_known_backend *known;     /* in-process first, then modules as loaded */
    size_t known_count, known_cap;
    char **module_dirs;           /* configured directories */
    size_t module_dir_count;
    sbx_backend_info *listing;   /* storage behind sbx_host_list_backends */
    size_t listing_count;
};

/* An open backend instance as the host hands it out. */
struct sbx_backend {
    const sbx_host *host;
    const sbx_backend_descriptor *descriptor;
    sbx_backend_instance *instance;
};

/* True when the descriptor holds the member and it is set. */
#define HOST_HAS_OP(d, op) (SBX_DESCRIPTOR_HAS(d, op) && (d)->op != NULL)

/* SBX_ERR_UNSUPPORTED naming the backend, its ABI and operation `op`. */
sbx_status host_unsupported(const sbx_backend *backend, const char *op, sbx_error *err);

/* Pass on a backend's status `st` for operation `op`: an error the backend
 * returned without a message gets one naming the backend and `op`, and the
 * record's kind is made equal to `st`. */
sbx_status host_checked(const sbx_backend *backend, sbx_status st, const char *op,
                        sbx_error *err);

/* SBX_ERR_INTERNAL for a result a backend handed over malformed (`what`),
 * naming the backend and operation `op`; the caller has released it. */
sbx_status host_malformed(const sbx_backend *backend, const char *op, const char *what,
                          sbx_error *err);

/* SBX_ERR_USAGE naming `op` and `init` (the INIT macro the request is
 * made with) when a request of `size` bytes (0: none) is smaller than
 * `min_size`, the members the host reads; else SBX_OK. */
sbx_status host_check_request(const char *op, const char *init, size_t size, size_t min_size,
                              sbx_error *err);

/* host_check_request for request `r` (may be NULL) of `type`, whose
 * TYPE_INIT and TYPE_SIZE_1_4 macros <sbx/backend.h> defines. */
#define HOST_CHECK_REQUEST(op, type, r, err)                                         \
    host_check_request(op, #type "_INIT", (r) == NULL ? 0 : (r)->struct_size,       \
                       type##_SIZE_1_4, err)

/* Before a create reaches backend `b`: SBX_ERR_USAGE for a request holding
 * a malformed ABI 1.5 member, SBX_ERR_UNSUPPORTED
 * for a member it sets that `b` does not honour (both naming the member);
 * else SBX_OK.  A request that sets no 1.5 member costs no backend call. */
sbx_status host_check_create_request(sbx_backend *b, const sbx_create_request *request,
                                     sbx_error *err);

/* Remember a backend in the host's table (path copied). */
sbx_status host_remember(sbx_host *host, const sbx_backend_descriptor *descriptor,
                             sbx_backend_kind kind, const char *path, void *dl_handle,
                             sbx_error *err);

/* The backend called `name` the host already knows, or NULL. */
const host_known_backend *host_find_known(const sbx_host *host, const char *name);

/* Log a line through the host's callback (printf-style). */
void host_log(const sbx_host *host, sbx_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Load the module file at `path`, or reuse it when that file is already
 * loaded, and remember it; *out is the host's entry for it (the first one
 * of its name when another file declared that name first).  SBX_ERR_LOAD
 * naming the path when the module is refused. */
sbx_status host_load_file(sbx_host *host, const char *path, const host_known_backend **out,
                              sbx_error *err);

/* The longest module directory: one that leaves room in PATH_MAX for a
 * '/', a file name of NAME_MAX bytes and the NUL, so that every module file
 * path built from a directory of the search path fits char[PATH_MAX]. */
#define HOST_MODULE_DIR_MAX (PATH_MAX - NAME_MAX - 2)

/* Split the module search path into *dirs (configured, $SBX_MODULE_PATH,
 * compiled-in), each string owned by the array; free with host_strv_free.
 * SBX_ERR_CONFIG naming the entry (where it comes from, its position and
 * its beginning) when one is longer than HOST_MODULE_DIR_MAX: a module path
 * built from it would not fit, and a cut one must never be loaded. */
sbx_status host_module_search_path(const sbx_host *host, char ***dirs, size_t *count,
                                  sbx_error *err);

/* Free a NULL-terminated or counted string vector. */
void host_strv_free(char **strv, size_t count);

#endif
