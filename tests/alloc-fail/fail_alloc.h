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

#endif /* SBX_TEST_FAIL_ALLOC_H */
