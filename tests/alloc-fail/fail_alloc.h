/*
 * Allocation-failure injection for tests, in the manner of SQLite's and
 * libcurl's torture tests: make the Nth allocation of sbx code fail.
 *
 * A test program that links fail_alloc.c defines malloc, calloc, realloc,
 * strdup and strndup itself.  Definitions in the executable take precedence
 * over the C library's for every object of the process, dlopen'ed backend
 * modules included, so no LD_PRELOAD is needed.  While armed on a thread,
 * they count the allocations that sbx code asks for (callers inside
 * libsbx-host or an sbx-*.so module, found with dladdr) and fail the Nth;
 * allocations of other code (libcurl, json-c, libc, the test itself) and of
 * other threads pass through uncounted.
 *
 * A server under test counts process-wide instead (sbx_fail_alloc_arm_process,
 * driven from outside by fail_alloc_control.c): its requests are served on
 * threads the test does not own.
 *
 * Not for sanitizer builds: ASan replaces the allocator itself.
 */
#ifndef SBX_TEST_FAIL_ALLOC_H
#define SBX_TEST_FAIL_ALLOC_H

/* Start counting on the calling thread; the `nth` sbx allocation from now
 * on returns NULL (0: none fails, only count). */
void sbx_fail_alloc_arm(unsigned long nth);

/* Stop counting on the calling thread.  Returns how many sbx allocations
 * were asked for since sbx_fail_alloc_arm (the failed one included). */
unsigned long sbx_fail_alloc_disarm(void);

/* Start counting on every thread of the process: the `nth` allocation
 * from now on fails.  Counted are the requests of sbx code as above, and
 * of the program itself (the code linked into the executable: a server's
 * own and its static libraries), of libmicrohttpd and of json-c (the
 * objects and texts of answers: its parser is exempt, see
 * fail_alloc_json.c); those of libc and other libraries pass through.  A
 * child forked while armed starts disarmed.  Thread-safe. */
void sbx_fail_alloc_arm_process(unsigned long nth);

/* Stop counting process-wide.  Returns how many allocations were counted
 * since sbx_fail_alloc_arm_process (the failed one included). */
unsigned long sbx_fail_alloc_disarm_process(void);

/* Exempt the calling thread's allocations from the process-wide count
 * until the matching sbx_fail_alloc_exempt_end (they nest). */
void sbx_fail_alloc_exempt_begin(void);
void sbx_fail_alloc_exempt_end(void);

#endif /* SBX_TEST_FAIL_ALLOC_H */
