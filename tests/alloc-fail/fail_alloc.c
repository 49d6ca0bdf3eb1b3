/* The counting allocator of fail_alloc.h: the C library's allocator behind
 * a per-thread countdown that only sbx code's requests decrement. */
#include <config.h>

#include "tests/alloc-fail/fail_alloc.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* glibc's own allocator entry points, which these definitions forward to. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);

/* Per thread: counting on?, which one fails, how many seen, and a guard
 * against counting allocations made while deciding (dladdr). */
static _Thread_local int armed;
static _Thread_local int deciding;
static _Thread_local unsigned long fail_at;
static _Thread_local unsigned long seen;

void sbx_fail_alloc_arm(unsigned long nth)
{
    seen = 0;
    fail_at = nth;
    armed = 1;
}

unsigned long sbx_fail_alloc_disarm(void)
{
    armed = 0;
    return seen;
}

/* 1 when code at `caller` belongs to sbx: the host library or a module. */
static int is_sbx_code(const void *caller)
{
    Dl_info info;
    if (dladdr(caller, &info) == 0 || info.dli_fname == NULL)
        return 0;
    const char *base = strrchr(info.dli_fname, '/');
    base = base != NULL ? base + 1 : info.dli_fname;
    return strncmp(base, "libsbx-host", 11) == 0 || strncmp(base, "sbx-", 4) == 0;
}

/* Decide for one request from `caller`: 1 when it must fail. */
static int should_fail(const void *caller)
{
    if (!armed || deciding)
        return 0;
    deciding = 1;
    int ours = is_sbx_code(caller);
    deciding = 0;
    if (!ours)
        return 0;
    seen++;
    if (seen == fail_at) {
        errno = ENOMEM;
        return 1;
    }
    return 0;
}

void *malloc(size_t size)
{
    return should_fail(__builtin_return_address(0)) ? NULL : __libc_malloc(size);
}

void *calloc(size_t count, size_t size)
{
    return should_fail(__builtin_return_address(0)) ? NULL : __libc_calloc(count, size);
}

void *realloc(void *ptr, size_t size)
{
    return should_fail(__builtin_return_address(0)) ? NULL : __libc_realloc(ptr, size);
}

/* strdup/strndup are defined here too so that their caller is the one
 * judged (inside the C library they would call malloc from libc). */
char *strdup(const char *s)
{
    if (should_fail(__builtin_return_address(0)))
        return NULL;
    size_t len = strlen(s) + 1;
    char *copy = __libc_malloc(len);
    return copy != NULL ? memcpy(copy, s, len) : NULL;
}

char *strndup(const char *s, size_t n)
{
    if (should_fail(__builtin_return_address(0)))
        return NULL;
    size_t len = strnlen(s, n);
    char *copy = __libc_malloc(len + 1);
    if (copy == NULL)
        return NULL;
    memcpy(copy, s, len);
    copy[len] = '\0';
    return copy;
}
