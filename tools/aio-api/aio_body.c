/* Body checks and 422 answers of the AIO routes (aio_body.h).  The error
 * types and messages are pydantic 2's, which FastAPI sends. */
#include <config.h>

#include "tools/aio-api/aio_body.h"

#include "tools/provisioner-common/prov_json.h"
#include "tools/provisioner-common/prov_json_strict.h"

#include <stdio.h>
#include <string.h>

void aio_problem(aio_problems *p, const char *type, aio_loc at, const char *msg, json_object *input)
{
    if (p->out_of_memory)
        return;
    json_object *e = json_object_new_object();
    json_object *loc = json_object_new_array();
    int built = e != NULL && loc != NULL &&
                prov_json_append(loc, json_object_new_string(at.where)) &&
                (at.field == NULL || prov_json_append(loc, json_object_new_string(at.field))) &&
                (at.member == NULL || prov_json_append(loc, json_object_new_string(at.member)));
    /* "loc" first: prov_json_add takes it whether or not it is added */
    if (built)
        built = prov_json_add(e, "loc", loc);
    else
        json_object_put(loc);
    built = built && prov_json_add_string(e, "type", type) &&
            prov_json_add_string(e, "msg", msg) &&
            (input != NULL ? prov_json_add(e, "input", json_object_get(input))
                           : json_object_object_add(e, "input", NULL) == 0);
    if (built && p->errors == NULL)
        p->errors = json_object_new_array();
    if (!built || p->errors == NULL) {
        json_object_put(e);
        p->out_of_memory = 1;
        return;
    }
    if (!prov_json_append(p->errors, e))
        p->out_of_memory = 1;
}

int aio_problems_found(const aio_problems *p)
{
    return p->out_of_memory || p->errors != NULL;
}

void aio_problems_answer(aio_problems *p, prov_reply *reply)
{
    json_object *answer = p->out_of_memory ? NULL : json_object_new_object();
    int built = answer != NULL && prov_json_add(answer, "detail", p->errors);
    p->errors = NULL;
    prov_reply_json(reply, 422, prov_json_built(answer, built));
    p->out_of_memory = 0;
}

/* The pydantic type and message of a value that is not of `type`. */
static void wrong_type(aio_field_type type, const char **code, const char **msg)
{
    switch (type) {
    case AIO_FIELD_STRING:
        *code = "string_type";
        *msg = "Input should be a valid string";
        break;
    case AIO_FIELD_BOOLEAN:
        *code = "bool_type";
        *msg = "Input should be a valid boolean";
        break;
    case AIO_FIELD_INTEGER:
        *code = "int_type";
        *msg = "Input should be a valid integer";
        break;
    case AIO_FIELD_NUMBER:
        *code = "float_type";
        *msg = "Input should be a valid number";
        break;
    case AIO_FIELD_STRING_MAP:
        *code = "dict_type";
        *msg = "Input should be a valid dictionary";
        break;
    case AIO_FIELD_STRING_ARRAY:
    case AIO_FIELD_INTEGER_ARRAY:
        *code = "list_type";
        *msg = "Input should be a valid list";
        break;
    }
}

static int has_type(json_object *value, aio_field_type type)
{
    switch (type) {
    case AIO_FIELD_STRING:
        return json_object_is_type(value, json_type_string);
    case AIO_FIELD_BOOLEAN:
        return json_object_is_type(value, json_type_boolean);
    case AIO_FIELD_INTEGER:
        return json_object_is_type(value, json_type_int);
    case AIO_FIELD_NUMBER:
        return json_object_is_type(value, json_type_int) ||
               json_object_is_type(value, json_type_double);
    case AIO_FIELD_STRING_MAP:
        return json_object_is_type(value, json_type_object);
    case AIO_FIELD_STRING_ARRAY:
    case AIO_FIELD_INTEGER_ARRAY:
        return json_object_is_type(value, json_type_array);
    }
    return 0;
}

/* The members of a map or the items of an array that are not strings. */
static void check_items(json_object *value, const aio_field *f, aio_problems *p)
{
    if (f->type == AIO_FIELD_STRING_MAP) {
        json_object_object_foreach(value, key, member) {
            if (!json_object_is_type(member, json_type_string))
                aio_problem(p, "string_type", (aio_loc){"body", f->name, key},
                            "Input should be a valid string", member);
        }
    } else if (f->type == AIO_FIELD_STRING_ARRAY || f->type == AIO_FIELD_INTEGER_ARRAY) {
        int strings = f->type == AIO_FIELD_STRING_ARRAY;
        for (size_t i = 0; i < json_object_array_length(value); i++) {
            json_object *item = json_object_array_get_idx(value, i);
            char index[24];
            snprintf(index, sizeof index, "%zu", i);
            if (!json_object_is_type(item, strings ? json_type_string : json_type_int))
                aio_problem(p, strings ? "string_type" : "int_type",
                            (aio_loc){"body", f->name, index},
                            strings ? "Input should be a valid string"
                                    : "Input should be a valid integer", item);
        }
    }
}

/* A string outside the field's choices: pydantic's enum error. */
static void check_choice(json_object *value, const aio_field *f, aio_problems *p)
{
    const char *text = json_object_get_string(value);
    char expected[160] = "";
    size_t used = 0;
    for (size_t i = 0; f->choices[i] != NULL; i++) {
        if (strcmp(text, f->choices[i]) == 0)
            return;
        int n = snprintf(expected + used, sizeof expected - used, "%s'%s'",
                         i == 0 ? "" : f->choices[i + 1] == NULL ? " or " : ", ",
                         f->choices[i]);
        if (n > 0 && (size_t)n < sizeof expected - used)
            used += (size_t)n;
    }
    char msg[200];
    snprintf(msg, sizeof msg, "Input should be %s", expected);
    aio_problem(p, "enum", (aio_loc){"body", f->name, NULL}, msg, value);
}

static void check_field(json_object *body, const aio_field *f, aio_problems *p)
{
    json_object *value = NULL;
    if (!json_object_object_get_ex(body, f->name, &value)) {
        if (f->required)
            aio_problem(p, "missing", (aio_loc){"body", f->name, NULL}, "Field required", body);
        return;
    }
    if (value == NULL && f->nullable)
        return;
    if (value == NULL || !has_type(value, f->type)) {
        const char *code = NULL, *msg = NULL;
        wrong_type(f->type, &code, &msg);
        aio_problem(p, code, (aio_loc){"body", f->name, NULL}, msg, value);
        return;
    }
    check_items(value, f, p);
    if (f->choices != NULL)
        check_choice(value, f, p);
}

void aio_body_check_fields(json_object *obj, const aio_field *fields, size_t count,
                           aio_problems *p)
{
    for (size_t i = 0; i < count; i++)
        check_field(obj, &fields[i], p);
}

json_object *aio_body_parse(const char *body, size_t len, const aio_field *fields,
                            size_t count, aio_problems *p)
{
    size_t offset = 0;
    char why[160];
    if (len == 0) {
        aio_problem(p, "missing", (aio_loc){"body", NULL, NULL}, "Field required", NULL);
        return NULL;
    }
    prov_strict_result strict = prov_json_strict_check(body, len, &offset, why, sizeof why);
    if (strict == PROV_STRICT_OUT_OF_MEMORY) {
        p->out_of_memory = 1;
        return NULL;
    }
    const char *reason = NULL;
    json_object *obj =
        strict == PROV_STRICT_OK ? prov_json_parse(body, len, &offset, &reason) : NULL;
    if (reason == prov_json_out_of_memory) {
        p->out_of_memory = 1;
        return NULL;
    }
    if (strict != PROV_STRICT_OK || reason != NULL) {
        char at[24];
        snprintf(at, sizeof at, "%zu", offset);
        char msg[220];
        snprintf(msg, sizeof msg, "JSON decode error: %s",
                 strict != PROV_STRICT_OK ? why : reason);
        aio_problem(p, "json_invalid", (aio_loc){"body", at, NULL}, msg, NULL);
        return NULL;
    }
    if (!json_object_is_type(obj, json_type_object)) {
        aio_problem(p, obj == NULL ? "missing" : "model_attributes_type",
                    (aio_loc){"body", NULL, NULL},
                    obj == NULL ? "Field required"
                                : "Input should be a valid dictionary or object to extract "
                                  "fields from",
                    obj);
        json_object_put(obj);
        return NULL;
    }
    aio_body_check_fields(obj, fields, count, p);
    if (aio_problems_found(p)) {
        json_object_put(obj);
        return NULL;
    }
    return obj;
}

json_object *aio_body_read(const char *body, size_t len, const aio_field *fields, size_t count,
                           prov_reply *reply)
{
    aio_problems problems = {NULL, 0};
    json_object *obj = aio_body_parse(body, len, fields, count, &problems);
    if (obj == NULL)
        aio_problems_answer(&problems, reply);
    return obj;
}

json_object *aio_member(json_object *body, const char *name)
{
    json_object *value = NULL;
    return json_object_object_get_ex(body, name, &value) ? value : NULL;
}

const char *aio_string(json_object *body, const char *name, const char *fallback)
{
    json_object *value = aio_member(body, name);
    return value != NULL ? json_object_get_string(value) : fallback;
}

int aio_boolean(json_object *body, const char *name, int fallback)
{
    json_object *value = aio_member(body, name);
    return value != NULL ? json_object_get_boolean(value) : fallback;
}
