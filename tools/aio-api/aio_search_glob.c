/* Glob matching of relative paths, component by component (aio_search.h):
 * fnmatch(3) per component, "**" any run of components, a table of the
 * (pattern, path) positions already refused so that patterns with many
 * "**" stay polynomial. */
#include <config.h>

#include "tools/aio-api/aio_search.h"

#include "tools/provisioner-common/prov_alloc.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* The components of a path split in place: pointers into `text`. */
typedef struct components {
    char *text;
    char **part;
    size_t count;
} components;

/* Split a copy of `path` at '/', empty components dropped; 0 when memory
 * ran out. */
static int split(const char *path, components *c)
{
    size_t len = strlen(path);
    c->count = 0;
    c->text = prov_malloc(len + 1);
    c->part = prov_malloc((len / 2 + 2) * sizeof *c->part);
    if (c->text == NULL || c->part == NULL)
        return 0;
    memcpy(c->text, path, len + 1);
    for (char *s = c->text; *s != '\0';) {
        char *slash = strchr(s, '/');
        if (slash != NULL)
            *slash = '\0';
        if (*s != '\0')
            c->part[c->count++] = s;
        if (slash == NULL)
            break;
        s = slash + 1;
    }
    return 1;
}

/* Search state: both splits and the positions known not to match. */
typedef struct matcher {
    const components *pattern;
    const components *path;
    unsigned char *refused; /* (pattern->count + 1) x (path->count + 1) */
} matcher;

/* Whether pattern components i.. match path components j.. (all of them). */
static int match_from(matcher *m, size_t i, size_t j)
{
    size_t width = m->path->count + 1;
    if (m->refused[i * width + j])
        return 0;
    int ok;
    if (i == m->pattern->count)
        ok = j == m->path->count;
    else if (strcmp(m->pattern->part[i], "**") == 0)
        ok = match_from(m, i + 1, j) || (j < m->path->count && match_from(m, i, j + 1));
    else
        ok = j < m->path->count && fnmatch(m->pattern->part[i], m->path->part[j], 0) == 0 &&
             match_from(m, i + 1, j + 1);
    if (!ok)
        m->refused[i * width + j] = 1;
    return ok;
}

int aio_search_glob_match(const char *pattern, const char *rel, int anchored)
{
    components pat = {0}, path = {0};
    int ok = 0;
    if (split(pattern, &pat) && split(rel, &path)) {
        matcher m = {&pat, &path, calloc((pat.count + 1) * (path.count + 1), 1)};
        if (m.refused != NULL) {
            /* Unanchored: the pattern's components end at the path's end,
             * starting anywhere (PurePath.match). */
            size_t first = anchored ? 0 : path.count;
            for (size_t j = 0; j <= first && !ok; j++)
                ok = match_from(&m, 0, anchored ? 0 : first - j);
        }
        free(m.refused);
    }
    free(pat.text);
    free(pat.part);
    free(path.text);
    free(path.part);
    return ok;
}

int aio_search_hidden(const char *rel)
{
    return rel[0] == '.' || strstr(rel, "/.") != NULL;
}
