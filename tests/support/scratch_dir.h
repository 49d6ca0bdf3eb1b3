/* Test support: private scratch directories.  One is made with mkdtemp
 * under $TMPDIR (/tmp when unset or empty), so that it is the test's
 * alone, and removed with everything below it without ever following a
 * symbolic link out of it: a link is removed, never what it points to. */
#ifndef SBX_TEST_SCRATCH_DIR_H
#define SBX_TEST_SCRATCH_DIR_H

#include <stddef.h>

/* Make $TMPDIR/sbx-TAG-XXXXXX (`tag` may hold spaces and quotes, to prove
 * that paths reach a shell safely) and put its path in `out` (`cap`
 * bytes).  Returns 0, or -1 after saying why on stderr. */
int sbx_test_scratch_dir(char *out, size_t cap, const char *tag);

/* Remove `path` and everything below it, quietly and as far as it can: a
 * symlink (`path` included) is removed itself; a tree of any depth is
 * removed with a bounded number of open descriptors. */
void sbx_test_remove_tree(const char *path);

#endif
