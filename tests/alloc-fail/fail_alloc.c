/* The counting allocator of fail_alloc.h: the C library's allocator behind
 * a per-thread countdown that only sbx code's requests decrement, or a
 * process-wide one that the program's own and libmicrohttpd's do too. */
#include <config.h>

#include "tests/alloc-fail/fail_alloc.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
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
/* Depth of sbx_fail_alloc_exempt_begin on this thread. */
static _Thread_local int exempt;

/* The process-wide countdown.  fail_at is set before armed (and armed
 * cleared before it is read back), so a thread that sees armed sees its
 * target; program_base is where the executable is mapped. */
static atomic_int process_armed;
static atomic_ulong process_fail_at;
static atomic_ulong process_seen;
static const void *program_base;
static pthread_once_t process_once = PTHREAD_ONCE_INIT;

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

static void disarm_in_child(void)
{
    atomic_store(&process_armed, 0);
}

static void process_setup(void)
{
    /* The object that holds this file's data is the one it is linked into. */
    Dl_info info;
    if (dladdr(&process_once, &info) != 0)
        program_base = info.dli_fbase;
    /* A forked child (a backend's sandbox process) is not the server. */
    pthread_atfork(NULL, NULL, disarm_in_child);
}

void sbx_fail_alloc_arm_process(unsigned long nth)
{
    pthread_once(&process_once, process_setup);
    atomic_store(&process_seen, 0);
    atomic_store(&process_fail_at, nth);
    atomic_store(&process_armed, 1);
}

unsigned long sbx_fail_alloc_disarm_process(void)
{
    atomic_store(&process_armed, 0);
    return atomic_load(&process_seen);
}

void sbx_fail_alloc_exempt_begin(void)
{
    exempt++;
}

void sbx_fail_alloc_exempt_end(void)
{
    exempt--;
}

/* 1 when code at `caller` counts: sbx code (the host library or a module)
 * and, for the process-wide count (`whole_program`), the executable,
 * libmicrohttpd and json-c. */
static int is_counted_code(const void *caller, int whole_program)
{
    Dl_info info;
    if (dladdr(caller, &info) == 0 || info.dli_fname == NULL)
        return 0;
    if (whole_program && info.dli_fbase == program_base)
        return 1;
    const char *base = strrchr(info.dli_fname, '/');
    base = base != NULL ? base + 1 : info.dli_fname;
    return strncmp(base, "libsbx-host", 11) == 0 || strncmp(base, "sbx-", 4) == 0 ||
           (whole_program && (strncmp(base, "libmicrohttpd", 13) == 0 ||
                              strncmp(base, "libjson-c", 9) == 0));
}

/* Decide for one request from `caller`: 1 when it must fail. */
static int should_fail(const void *caller)
{
    int whole_program = !armed && atomic_load(&process_armed);
    if ((!armed && !whole_program) || deciding || (whole_program && exempt > 0))
        return 0;
    deciding = 1;
    int ours = is_counted_code(caller, whole_program);
    deciding = 0;
    if (!ours)
        return 0;
    unsigned long count = whole_program ? atomic_fetch_add(&process_seen, 1) + 1 : ++seen;
    if (count == (whole_program ? atomic_load(&process_fail_at) : fail_at)) {
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
