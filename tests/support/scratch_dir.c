/* Scratch directories of tests (see scratch_dir.h).  The removal works on
 * directory descriptors (openat with O_NOFOLLOW, unlinkat), never on paths
 * below the top, so a symlink met on the way is never followed, however
 * the tree changes under it, and no path grows past PATH_MAX. */
#include <config.h>

#include "tests/support/scratch_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Directories nested deeper than this are moved up to the top and emptied
 * from there, so that the descriptors held stay few. */
#define MAX_OPEN_LEVELS 32

int sbx_test_scratch_dir(char *out, size_t cap, const char *tag)
{
    const char *base = getenv("TMPDIR");
    if (base == NULL || base[0] == '\0')
        base = "/tmp";
    int n = snprintf(out, cap, "%s/sbx-%s-XXXXXX", base, tag);
    if (n < 0 || (size_t)n >= cap) {
        fprintf(stderr, "scratch dir: %s/sbx-%s-XXXXXX is too long\n", base, tag);
        return -1;
    }
    if (mkdtemp(out) == NULL) {
        fprintf(stderr, "scratch dir: mkdtemp %s: %s\n", out, strerror(errno));
        return -1;
    }
    return 0;
}

typedef struct walk {
    int top;        /* descriptor of the tree's top directory */
    unsigned moved; /* directories moved up to the top so far */
} walk;

static void empty_dir(walk *w, int dir, int depth);

/* Remove the entry `name` of `dir`. */
static void remove_entry(walk *w, int dir, const char *name, int depth)
{
    if (unlinkat(dir, name, 0) == 0 || (errno != EISDIR && errno != EPERM))
        return;
    if (depth >= MAX_OPEN_LEVELS) {
        char up[64];
        snprintf(up, sizeof up, ".sbx-deep-%u", w->moved);
        w->moved += renameat(dir, name, w->top, up) == 0;
        return;
    }
    int child = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (child < 0)
        return;
    empty_dir(w, child, depth + 1);
    unlinkat(dir, name, AT_REMOVEDIR);
}

/* Remove what `dir` holds; closes `dir`. */
static void empty_dir(walk *w, int dir, int depth)
{
    DIR *d = dir >= 0 ? fdopendir(dir) : NULL;
    if (d == NULL) {
        if (dir >= 0)
            close(dir);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            remove_entry(w, dirfd(d), e->d_name, depth);
    closedir(d);
}

void sbx_test_remove_tree(const char *path)
{
    if (path == NULL || path[0] == '\0')
        return;
    walk w = {open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), 0};
    if (w.top < 0) {
        unlink(path); /* a file or a symlink: itself only */
        return;
    }
    /* Emptied again as long as deep directories keep arriving at the top. */
    unsigned before;
    do {
        before = w.moved;
        empty_dir(&w, dup(w.top), 0);
    } while (w.moved != before);
    close(w.top);
    rmdir(path);
}
