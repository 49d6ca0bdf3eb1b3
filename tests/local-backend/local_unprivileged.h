/*
 * Running part of a test as an unprivileged host would: a host running as
 * root passes every permission check, so the defects of a host that does
 * not (a read-only tree it cannot empty, a holder it may not enter) only
 * show as another user.  The part runs in a child process, as uid and gid
 * 65534 when the suite runs as root, and tells the parent what failed.
 */
#ifndef SBX_TEST_LOCAL_UNPRIVILEGED_H
#define SBX_TEST_LOCAL_UNPRIVILEGED_H

#include <stddef.h>

/* The uid and gid the part runs as under root. */
#define SBX_LOCAL_TEST_UNPRIVILEGED_ID 65534

/* What a part writes when a check fails (the first failure is kept). */
typedef struct sbx_local_test_verdict {
    char why[1024];
} sbx_local_test_verdict;

/* Record `what` as the part's failure unless `ok` (printf-style); returns
 * `ok`, so that a part can stop at the first failure. */
int sbx_local_test_check(sbx_local_test_verdict *v, int ok, const char *what, ...)
    __attribute__((format(printf, 3, 4)));

/* Run `part(v, ctx)` in a child, unprivileged when this process is root
 * (TMPDIR and HOME then /tmp, which that user may write), and return its
 * verdict: "" when every check passed, else the first failure, or how
 * the child ended (a crash included).  No CUnit call may be made in the
 * part: the child is a copy of the whole test program. */
void sbx_local_test_run_unprivileged(void (*part)(sbx_local_test_verdict *v, void *ctx),
                                     void *ctx, sbx_local_test_verdict *out);

#endif
