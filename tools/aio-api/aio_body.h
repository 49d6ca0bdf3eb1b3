/* Request checking of the AIO sandbox routes: the JSON body of a route
 * against its fields (as the AIO server's pydantic models, strict types),
 * and the 422 {"detail":[{"type","loc","msg","input"}...]} answer listing
 * every problem found. */
#ifndef AIO_BODY_H
#define AIO_BODY_H

#include <stddef.h>
#include <json-c/json.h>

#include "tools/provisioner-common/prov_reply.h"

/* The JSON type a field takes. */
typedef enum aio_field_type {
    AIO_FIELD_STRING,
    AIO_FIELD_BOOLEAN,
    AIO_FIELD_INTEGER,
    AIO_FIELD_NUMBER,           /* integer or float */
    AIO_FIELD_STRING_MAP,       /* an object whose values are strings */
    AIO_FIELD_STRING_ARRAY,
    AIO_FIELD_INTEGER_ARRAY
} aio_field_type;

/* One field of a request model. */
typedef struct aio_field {
    const char *name;
    aio_field_type type;
    int required;               /* absent: "missing" */
    int nullable;               /* null allowed (then it reads as absent) */
    const char *const *choices; /* STRING: NULL-terminated allowed values, or NULL */
} aio_field;

/* The errors of one request, as they are found.  `errors` is NULL until the
 * first one; `out_of_memory` once building one failed. */
typedef struct aio_problems {
    json_object *errors;
    int out_of_memory;
} aio_problems;

/* Where a problem is: pydantic's loc [where, field, member], `field` and
 * `member` NULL when the loc stops before them.  Borrowed. */
typedef struct aio_loc {
    const char *where; /* "body" or "query" */
    const char *field;
    const char *member;
} aio_loc;

/* Add one error of `type` at `at` with `input` (borrowed; NULL is JSON
 * null). */
void aio_problem(aio_problems *p, const char *type, aio_loc at, const char *msg,
                 json_object *input);

/* Whether any error (or memory exhaustion) was recorded. */
int aio_problems_found(const aio_problems *p);

/* Answer the problems: 422 with their list, or the out-of-memory answer;
 * releases them. */
void aio_problems_answer(aio_problems *p, prov_reply *reply);

/* Check each of the `count` `fields` of the parsed object `obj`, recording
 * what is wrong in *p (aio_problems_found says whether anything was). */
void aio_body_check_fields(json_object *obj, const aio_field *fields, size_t count,
                           aio_problems *p);

/* Parse `body` as the JSON object of a model of `count` `fields` and check
 * each field.  Returns the object (the caller puts it) when it passes,
 * else NULL with the problems recorded in *p (the body not strict JSON,
 * not an object, missing, or fields of the wrong type or value). */
json_object *aio_body_parse(const char *body, size_t len, const aio_field *fields,
                            size_t count, aio_problems *p);

/* aio_body_parse of a request's body: the object, or NULL after answering
 * the 422 (or out of memory) in `reply`. */
json_object *aio_body_read(const char *body, size_t len, const aio_field *fields, size_t count,
                           prov_reply *reply);

/* Member `name` of a checked body: NULL when absent or null. */
json_object *aio_member(json_object *body, const char *name);

/* A checked string member, or `fallback` when absent or null. */
const char *aio_string(json_object *body, const char *name, const char *fallback);

/* A checked boolean member, or `fallback` when absent or null. */
int aio_boolean(json_object *body, const char *name, int fallback);

#endif
