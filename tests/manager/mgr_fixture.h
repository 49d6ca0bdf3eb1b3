/*
 * The manager suites' fixture: a host with the "mgrtest" backend registered
 * and open, a log capture, a clock the test moves by hand, and a manager
 * opened on them with millisecond settings.
 */
#ifndef SBX_TEST_MGR_FIXTURE_H
#define SBX_TEST_MGR_FIXTURE_H

#include <stddef.h>
#include <stdint.h>
#include <sbx/manager.h>

#include "tests/manager/mgr_test_backend.h"
#include "tests/support/log_capture.h"

extern sbx_host *mf_host;
extern sbx_backend *mf_backend;
extern sbx_test_log_capture *mf_logs;

/* Open the host, the backend and the log capture (and reset the clock);
 * returns 0, or -1 with a message on stderr. */
int mf_start(void);

/* Close what mf_start opened. */
void mf_stop(void);

/* The test clock (ms) and how to move it. */
int64_t mf_clock(void *ctx);
void mf_advance(int64_t ms);

/* A configuration on the test clock and log capture, with intervals long
 * enough that the background threads never run unless a test wakes them. */
sbx_manager_config mf_config(void);

/* Open a manager on mf_backend; NULL (after a CUnit failure) when it cannot. */
sbx_manager *mf_open(const sbx_manager_config *config);

/* The same on another backend (the local one). */
sbx_manager *mf_open_on(sbx_backend *backend, const sbx_manager_config *config);

/* mf_start, then the built-in local backend on a new scratch directory
 * (its path in `state_dir`, named after `tag`): NULL (with a message) when
 * any of it fails.  For a suite's init; undone by mf_stop_local. */
sbx_backend *mf_start_local(char *state_dir, size_t size, const char *tag);

/* Close `local`, mf_stop, and remove `state_dir`. */
void mf_stop_local(sbx_backend *local, const char *state_dir);

/* Acquire (user, thread) and return the sandbox id (a static buffer per
 * call site is not needed: copied into `id`), or 0 on failure. */
int mf_acquire(sbx_manager *m, const char *user, const char *thread, char id[64]);

/* The rule-1 id of (user, thread). */
void mf_derive(const char *user, const char *thread, char id[SBX_DERIVED_ID_SIZE]);

/* The counters of `m`. */
sbx_manager_counters mf_counters(sbx_manager *m);

#endif
