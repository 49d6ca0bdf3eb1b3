/*
 * Waiting, with a deadline, for what a local backend test provoked: the
 * end of a process, a file that appears.  Each waits on the kernel's
 * notice of the event (a pidfd, inotify), never a pause.
 */
#ifndef SBX_TEST_LOCAL_WAIT_H
#define SBX_TEST_LOCAL_WAIT_H

/* 1 when no process of the host has the argument `word` within
 * `timeout_ms` (each one found is waited for through its pidfd), else 0. */
int sbx_local_test_wait_no_process_with(const char *word, long timeout_ms);

/* 1 when `path` exists within `timeout_ms` (its directory must exist
 * when the wait starts: the wait follows that directory's inotify
 * events), else 0. */
int sbx_local_test_wait_path(const char *path, long timeout_ms);

#endif
