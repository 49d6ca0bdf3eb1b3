/*
 * "mgrtest": an in-process backend for the manager's suites, registered with
 * the host like any third party's.  Its sandboxes live in a table of this
 * process; the test can add sandboxes made outside the manager (orphans),
 * kill them, give them running processes, count the calls made and inject
 * failures.  One instance at a
 * time: opening it resets the table.  Thread-safe.
 */
#ifndef SBX_TEST_MGR_BACKEND_H
#define SBX_TEST_MGR_BACKEND_H

#include <sbx/host.h>

/* The descriptor to register with sbx_host_register_backend. */
const sbx_backend_descriptor *mt_descriptor(void);

/* Calls made since the instance was opened. */
typedef struct mt_stats {
    int creates, destroys, is_alive_calls, discovers, lists, process_lists;
} mt_stats;

mt_stats mt_get_stats(void);

/* Operations a test can make fail, answering SBX_ERR_TRANSPORT. */
typedef enum mt_op {
    MT_CREATE, MT_DESTROY, MT_IS_ALIVE, MT_DISCOVER, MT_LIST, MT_PROCESS_LIST, MT_OP_COUNT
} mt_op;

/* Make `op` fail (1) or work (0) from now on. */
void mt_set_failing(mt_op op, int failing);

/* A running sandbox made outside the manager (user/thread may be NULL). */
void mt_add_running(const char *id, const char *user, const char *thread);

/* Give sandbox `id` `running` running processes (process_list answers
 * them; process_start is refused: the test says what runs). */
void mt_set_processes(const char *id, int running);

/* Mark a sandbox as stopped (is_alive 0, not listed) or running again. */
void mt_set_alive(const char *id, int alive);

/* 1 when the backend still has `id` (running or stopped). */
int mt_exists(const char *id);

/* Number of sandboxes the backend has. */
int mt_count(void);

/* While held, `op` (MT_CREATE, MT_DESTROY, MT_IS_ALIVE, or MT_LIST once it
 * has read the table) waits until it is let go;
 * mt_wait_held waits (at most timeout_ms) until a call of `op` is waiting:
 * 1, else 0. */
void mt_hold(mt_op op, int hold);
int mt_wait_held(mt_op op, int timeout_ms);

/* Give every sandbox the URL `url` from now on (an HTTP server of the
 * test, for the readiness wait); NULL: mem://<id> again. */
void mt_set_url(const char *url);

#endif
