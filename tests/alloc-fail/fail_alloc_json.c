/*
 * json-c's parser, exempt from the process-wide allocation count of
 * fail_alloc.h.  The count reaches json-c (its malloc, calloc, realloc and
 * strdup calls land on fail_alloc.c's definitions like everyone's), but
 * json-c 0.16's tokener does not survive its own allocation failures: when
 * the strdup of an object's member name fails it goes on to add the NULL
 * name (SIGSEGV in strlen under json_object_object_add_ex, called from
 * json_tokener_parse_ex; seen with this suite), and its printbuf appends
 * ignore a buffer that could not grow.  Failing those would test json-c,
 * not sbx, so while a thread is inside one of the tokener's entry points
 * below its allocations pass through uncounted.  json-c's other
 * allocations (the objects, member tables, arrays and texts the answer
 * builders make) are counted.
 *
 * These definitions in the executable take precedence over json-c's for
 * every object of the process (the daemon's own code, libsbx-host and its
 * backend modules); each forwards to json-c's own, found with RTLD_NEXT.
 */
#include <config.h>

#include "tests/alloc-fail/fail_alloc.h"

#include <dlfcn.h>
#include <json-c/json.h>
#include <stdlib.h>

typedef json_tokener *tokener_new_fn(void);
typedef json_tokener *tokener_new_ex_fn(int);
typedef json_object *parse_fn(const char *);
typedef json_object *parse_verbose_fn(const char *, enum json_tokener_error *);
typedef json_object *parse_ex_fn(json_tokener *, const char *, int);

/* json-c's own definitions, found before main (no thread races them). */
static tokener_new_fn *real_new;
static tokener_new_ex_fn *real_new_ex;
static parse_fn *real_parse;
static parse_verbose_fn *real_parse_verbose;
static parse_ex_fn *real_parse_ex;

/* json-c's definition of `name`; the process cannot run without it. */
static void *next(const char *name)
{
    void *found = dlsym(RTLD_NEXT, name);
    if (found == NULL)
        abort();
    return found;
}

__attribute__((constructor)) static void find_json_c(void)
{
    *(void **)&real_new = next("json_tokener_new");
    *(void **)&real_new_ex = next("json_tokener_new_ex");
    *(void **)&real_parse = next("json_tokener_parse");
    *(void **)&real_parse_verbose = next("json_tokener_parse_verbose");
    *(void **)&real_parse_ex = next("json_tokener_parse_ex");
}

/* Call `real` with `args`, exempt from the count, into `result`. */
#define EXEMPT(result, real, args)                                                            \
    do {                                                                                      \
        sbx_fail_alloc_exempt_begin();                                                        \
        result = real args;                                                                   \
        sbx_fail_alloc_exempt_end();                                                          \
    } while (0)

json_tokener *json_tokener_new(void)
{
    json_tokener *tok;
    EXEMPT(tok, real_new, ());
    return tok;
}

json_tokener *json_tokener_new_ex(int depth)
{
    json_tokener *tok;
    EXEMPT(tok, real_new_ex, (depth));
    return tok;
}

json_object *json_tokener_parse(const char *str)
{
    json_object *obj;
    EXEMPT(obj, real_parse, (str));
    return obj;
}

json_object *json_tokener_parse_verbose(const char *str, enum json_tokener_error *error)
{
    json_object *obj;
    EXEMPT(obj, real_parse_verbose, (str, error));
    return obj;
}

json_object *json_tokener_parse_ex(json_tokener *tok, const char *str, int len)
{
    json_object *obj;
    EXEMPT(obj, real_parse_ex, (tok, str, len));
    return obj;
}
