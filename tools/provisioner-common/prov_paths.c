/* Path components are handled as (pointer, length) slices of the input, so
 * nothing here allocates more than the one result string. */
#include <config.h>

#include "tools/provisioner-common/prov_paths.h"

#include "tools/provisioner-common/prov_alloc.h"

#include <stdlib.h>
#include <string.h>

typedef struct slice {
    const char *at;
    size_t len;
} slice;

/* The non-empty, non-"." components of `path` into `out`, which the caller
 * sizes for strlen(path) + 1 of them (there are never more). */
static size_t split(const char *path, slice *out)
{
    size_t n = 0;
    for (const char *p = path; *p != '\0';) {
        while (*p == '/')
            p++;
        const char *start = p;
        while (*p != '\0' && *p != '/')
            p++;
        size_t len = (size_t)(p - start);
        if (len == 0 || (len == 1 && start[0] == '.'))
            continue;
        out[n++] = (slice){start, len};
    }
    return n;
}

static int is_dotdot(slice s)
{
    return s.len == 2 && s.at[0] == '.' && s.at[1] == '.';
}

char *prov_normpath(const char *path)
{
    size_t len = strlen(path);
    if (len == 0)
        return prov_strdup(".");
    size_t slashes = strspn(path, "/");
    const char *root = slashes == 2 ? "//" : slashes > 0 ? "/" : "";
    slice *parts = prov_malloc((len + 1) * sizeof *parts);
    char *out = prov_malloc(len + 3);
    if (parts == NULL || out == NULL) {
        free(parts);
        free(out);
        return NULL;
    }
    size_t n = split(path, parts), kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_dotdot(parts[i]))
            parts[kept++] = parts[i];
        else if (kept > 0 && !is_dotdot(parts[kept - 1]))
            kept--;
        else if (root[0] == '\0')
            parts[kept++] = parts[i];   /* a relative path keeps leading ".." */
        /* at the root, ".." stays at the root */
    }
    size_t at = strlen(root);
    memcpy(out, root, at);
    for (size_t i = 0; i < kept; i++) {
        if (i > 0)
            out[at++] = '/';
        memcpy(out + at, parts[i].at, parts[i].len);
        at += parts[i].len;
    }
    if (at == 0)
        out[at++] = '.';
    out[at] = '\0';
    free(parts);
    return out;
}

int prov_path_is_under(const char *path, const char *base)
{
    char *p = prov_normpath(path), *b = prov_normpath(base);
    int under = p == NULL || b == NULL ? -1 : 0;
    if (under == 0 && p[0] == '/' && b[0] == '/') {
        size_t plen = strlen(p), blen = strlen(b);
        slice *pp = prov_malloc((plen + 1) * sizeof *pp);
        slice *bp = prov_malloc((blen + 1) * sizeof *bp);
        if (pp == NULL || bp == NULL) {
            free(pp);
            free(bp);
            free(p);
            free(b);
            return -1;
        }
        size_t np = split(p, pp), nb = split(b, bp), common = 0;
        while (common < np && common < nb && pp[common].len == bp[common].len &&
               memcmp(pp[common].at, bp[common].at, pp[common].len) == 0)
            common++;
        /* commonpath rebuilds "/" + the common components; it equals the
         * normalised base only when every base component is shared and the
         * base is spelt with a single leading slash. */
        under = common == nb && strncmp(b, "//", 2) != 0;
        free(pp);
        free(bp);
    }
    free(p);
    free(b);
    return under;
}

char *prov_path_join(const char *base, const char *const *parts, int n)
{
    size_t total = strlen(base) + 1;
    for (int i = 0; i < n; i++)
        total += strlen(parts[i]) + 1;
    char *joined = prov_malloc(total);
    if (joined == NULL)
        return NULL;
    strcpy(joined, base);
    for (int i = 0; i < n; i++) {
        if (parts[i][0] == '/') {
            strcpy(joined, parts[i]);
            continue;
        }
        if (joined[0] != '\0' && joined[strlen(joined) - 1] != '/')
            strcat(joined, "/");
        strcat(joined, parts[i]);
    }
    char *normal = prov_normpath(joined);
    free(joined);
    return normal;
}
