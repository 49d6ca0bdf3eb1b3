/* Test support: the sandbox holders (docs/local.md "Isolation") a test
 * program left running, so that every suite proves it destroyed what it
 * created. */
#ifndef SBX_TEST_HOLDERS_LEFT_H
#define SBX_TEST_HOLDERS_LEFT_H

/* How many processes, not zombies, with this program's arguments run in a
 * pid namespace below ours: the holders of local sandboxes this program
 * (or another run of the same command) created and did not destroy, ready
 * or not yet (a holder is not dumpable until ready: only its arguments
 * and status can be read then).  *one (when not NULL) is the pid of one
 * of them, 0 when there is none. */
int sbx_test_holders_left(long *one);

#endif
