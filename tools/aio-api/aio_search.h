/* What the AIO search routes (/v1/file/find, glob, grep, search) share:
 * the check that a search's start path is one the file routes accept
 * (resolved beneath the sandbox by the backend), glob's tree listing (the
 * backend's list_dir: no process started on a local sandbox), a walk run
 * inside the sandbox as one exec of find, or of sh, find and grep
 * (symlinks never followed below the start path, output NUL-separated,
 * bounded in bytes and time), the answers of their failures, and the glob
 * matching of relative paths.
 * Thread-safe: nothing is shared between calls. */
#ifndef AIO_SEARCH_H
#define AIO_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "tools/aio-api/aio_body.h"
#include "tools/aio-api/aio_routes.h"

/* The most output bytes a walk keeps: past it the walk is stopped (its
 * pipe closed) and the answer says truncated. */
#define AIO_SEARCH_MAX_OUTPUT 16777216

/* AIO_SEARCH_MAX_OUTPUT as the text of a script's head -c argument. */
#define AIO_SEARCH_TEXT_(x) #x
#define AIO_SEARCH_TEXT(x) AIO_SEARCH_TEXT_(x)
#define AIO_SEARCH_CAP AIO_SEARCH_TEXT(AIO_SEARCH_MAX_OUTPUT)

/* The most entries a tree listing keeps: past it the listing says
 * truncated (about 25 MiB of listing held at most). */
#define AIO_SEARCH_MAX_ENTRIES 250000

/* The longest a walk runs (less when the server's exec timeout is). */
#define AIO_SEARCH_TIMEOUT_MS 60000

/* Whether `path` is a file or directory the backend's file operations
 * reach in the call's sandbox (so that it resolves beneath it).  1, or 0
 * after answering the FileOperationError of `operation` in `reply`. */
int aio_search_path_ok(const aio_call *call, const char *operation, const char *path,
                       prov_reply *reply);

/* One walk: `script` run by sh -c in the sandbox with "$1".. = `args`
 * (`count`), or with `script` NULL the command `args` itself (no shell
 * started), and `env` (`env_count`) added, in `working_dir` (NULL: the
 * sandbox's), the first `max_output` bytes of its stdout kept (0:
 * AIO_SEARCH_MAX_OUTPUT + 1; the rest is read and dropped).  Everything
 * borrowed. */
typedef struct aio_walk {
    const char *script;
    const char *const *args;
    size_t count;
    const sbx_env_var *env;
    size_t env_count;
    const char *working_dir;
    size_t max_output;
} aio_walk;

/* The entries below directory `path` down to `max_depth` levels
 * (UINT_MAX: any), listed by the backend's list_dir (symlinks listed, not
 * followed; at most AIO_SEARCH_MAX_ENTRIES), in *out (the caller frees
 * it with sbx_backend_free_listing; NULL when `path` is a file: nothing
 * below it).  0 after answering in `reply` (the FileOperationError of
 * `operation` on `path`). */
int aio_search_list(const aio_call *call, const char *operation, const char *path,
                    unsigned max_depth, sbx_dir_listing **out, prov_reply *reply);

/* `rel` (a listing's entry path) joined to `base` as find prints it:
 * "BASE/REL", one slash between.  NULL when memory ran out; the caller
 * frees it. */
char *aio_search_join(const char *base, const char *rel);

/* Run `walk`: its result in *out (the caller frees it with
 * sbx_backend_free_exec_result), or 0 after answering in `reply` (the
 * sandbox gone: 404; out of time: a FileOperationError of error_type
 * "timeout"; any other failure of `operation` on `path`). */
int aio_search_run(const aio_call *call, const aio_walk *walk, const char *operation,
                   const char *path, sbx_exec_result **out, prov_reply *reply);

/* The next record of `len` bytes of output ending in `end` ('\0' or '\n')
 * from *at: its start (*record_len bytes, `end` excluded), *at moved past
 * it; NULL at the end or when the last record is cut (no `end`). */
const char *aio_search_next(const char *data, size_t len, size_t *at, char end,
                            size_t *record_len);

/* Integer member `name` of a checked body, `fallback` when absent or
 * null; a value outside [min, max] is recorded in `p` as pydantic's
 * greater_than_equal or less_than_equal (then `fallback` is returned). */
int64_t aio_search_int(json_object *body, const char *name, int64_t fallback, int64_t min,
                       int64_t max, aio_problems *p);

/* Whether relative path `rel` matches glob `pattern` component by
 * component (fnmatch(3), '/' never matched by a wildcard, "**" a run of
 * zero or more components).  `anchored`: the whole path; else its last
 * components only (as Python's PurePath.match). */
int aio_search_glob_match(const char *pattern, const char *rel, int anchored);

/* Whether a component of relative path `rel` is a hidden name (starts
 * with '.'). */
int aio_search_hidden(const char *rel);

#endif
