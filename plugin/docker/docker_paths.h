/*
 * Paths in a sandbox's container as the file operations use them: made
 * absolute from the container's working directory and cleaned lexically
 * (as the engine's archive calls clean them: "a/../b" is "b", ".." at the
 * root stays there, since in a container every path is the sandbox's
 * own), split into parent and name, escaped for a query.  Pure.
 */
#ifndef SBX_DOCKER_PATHS_H
#define SBX_DOCKER_PATHS_H

#include <stddef.h>

/* Longest path the operations take (Linux's PATH_MAX, NUL included). */
#define DOCKER_PATH_MAX 4096

/* `path` taken from `working_dir` (absolute; "" is "/") and cleaned into
 * `out` (DOCKER_PATH_MAX bytes): "/" or "/a/b" without a trailing '/'.
 * 0, or -1 when `path` is empty or the result does not fit. */
int docker_path_resolve(const char *working_dir, const char *path, char *out);

/* The parent directory of cleaned path `path` into `parent` and its last
 * component into `name` (each DOCKER_PATH_MAX bytes).  -1 for "/", which
 * has neither. */
int docker_path_split(const char *path, char *parent, char *name);

/* "PREFIX?path=ESCAPED" into `out` (`size` bytes), every byte but the
 * unreserved ones percent-encoded.  -1 when it does not fit. */
int docker_path_query(const char *prefix, const char *path, char *out, size_t size);

#endif
