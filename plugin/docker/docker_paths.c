/* Container paths for the file operations (see docker_paths.h). */
#include <config.h>

#include "plugin/docker/docker_paths.h"

#include <stdio.h>
#include <string.h>

/* Append component `c` (`len` bytes) to the cleaned path `out` of `*used`
 * bytes: "." is nothing, ".." drops the last component. */
static int push_component(char *out, size_t *used, const char *c, size_t len)
{
    if (len == 0 || (len == 1 && c[0] == '.'))
        return 0;
    if (len == 2 && c[0] == '.' && c[1] == '.') {
        while (*used > 0 && out[*used - 1] != '/')
            (*used)--;
        if (*used > 0)
            (*used)--;
        return 0;
    }
    if (*used + 1 + len >= DOCKER_PATH_MAX)
        return -1;
    out[(*used)++] = '/';
    memcpy(out + *used, c, len);
    *used += len;
    return 0;
}

/* Push every component of `p`. */
static int push_path(char *out, size_t *used, const char *p)
{
    while (*p != '\0') {
        size_t len = strcspn(p, "/");
        if (push_component(out, used, p, len) != 0)
            return -1;
        p += len;
        p += strspn(p, "/");
    }
    return 0;
}

int docker_path_resolve(const char *working_dir, const char *path, char *out)
{
    size_t used = 0;
    if (path[0] == '\0')
        return -1;
    if (path[0] != '/' && push_path(out, &used, working_dir) != 0)
        return -1;
    if (push_path(out, &used, path) != 0)
        return -1;
    if (used == 0)
        out[used++] = '/';
    out[used] = '\0';
    return 0;
}

int docker_path_split(const char *path, char *parent, char *name)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL || slash[1] == '\0')
        return -1;
    snprintf(name, DOCKER_PATH_MAX, "%s", slash + 1);
    if (slash == path)
        snprintf(parent, DOCKER_PATH_MAX, "/");
    else
        snprintf(parent, DOCKER_PATH_MAX, "%.*s", (int)(slash - path), path);
    return 0;
}

int docker_path_query(const char *prefix, const char *path, char *out, size_t size)
{
    int n = snprintf(out, size, "%s?path=", prefix);
    if (n < 0 || (size_t)n >= size)
        return -1;
    size_t used = (size_t)n;
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)path; *p != '\0'; p++) {
        int plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.' ||
                    *p == '~' || *p == '/';
        if (used + (plain ? 1 : 3) >= size)
            return -1;
        if (plain) {
            out[used++] = (char)*p;
        } else {
            out[used++] = '%';
            out[used++] = hex[*p >> 4];
            out[used++] = hex[*p & 15];
        }
    }
    out[used] = '\0';
    return 0;
}
