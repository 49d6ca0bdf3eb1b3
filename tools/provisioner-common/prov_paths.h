/* POSIX path arithmetic with the semantics of Python's posixpath, which the
 * real provisioner applies to extra-mount paths: a server of the protocol must accept
 * and refuse exactly the same spellings. */
#ifndef PROV_PATHS_H
#define PROV_PATHS_H

/* posixpath.normpath(path): "." and empty components dropped, ".." folded
 * (never above "/"), one or three-plus leading slashes become "/", two stay
 * "//"; "" gives ".".  Returns a new string (free it), NULL when memory
 * runs out. */
char *prov_normpath(const char *path);

/* Whether `path` lies inside `base` (or is it) as the provisioner decides:
 * os.path.commonpath of the two normalised paths equals normalised `base`.
 * A relative `base` or `path` is never inside (commonpath refuses mixing).
 * Returns 1 or 0, or -1 when memory runs out. */
int prov_path_is_under(const char *path, const char *base);

/* pathlib's `base / part / ...` for `n` parts (an absolute part restarts
 * from itself), then normalised.  Returns a new string (free it), NULL
 * when memory runs out. */
char *prov_path_join(const char *base, const char *const *parts, int n);

#endif
