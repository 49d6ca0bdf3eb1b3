/* Test support: the sandbox holders (docs/local.md "Isolation") a test
 * program left running, so that every suite proves it destroyed what it
 * created. */
#ifndef SBX_TEST_HOLDERS_LEFT_H
#define SBX_TEST_HOLDERS_LEFT_H

/* How many processes, not zombies, run this program's executable in a pid
 * namespace other than ours: the holders of local sandboxes this program
 * (or another run of the same file) created and did not destroy. */
int sbx_test_holders_left(void);

#endif
