/* The hostile body table and its check (see hostile_json.h). */
#include <config.h>

#include "tests/support/hostile_json.h"

#include "tests/support/http_probe.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#define NOT_STRICT "not strict JSON"
#define RAW(text) text, sizeof text - 1

const sbx_test_hostile_body sbx_test_hostile_bodies[] = {
    {"a block comment", "{\"sandbox_id\":\"h1\"/* x */}", 0, NOT_STRICT},
    {"a line comment", "{\"sandbox_id\":\"h1\", // x\n\"user_id\":\"alice\"}", 0, NOT_STRICT},
    {"single-quoted names", "{'sandbox_id':'h1'}", 0, NOT_STRICT},
    {"a single-quoted value", "{\"sandbox_id\":'h1'}", 0, NOT_STRICT},
    {"a trailing comma in an object", "{\"sandbox_id\":\"h1\",}", 0, NOT_STRICT},
    {"a trailing comma in an array", "{\"sandbox_id\":\"h1\",\"x\":[1,]}", 0, NOT_STRICT},
    {"NaN", "{\"sandbox_id\":\"h1\",\"x\":NaN}", 0, NOT_STRICT},
    {"-Infinity", "{\"sandbox_id\":\"h1\",\"x\":-Infinity}", 0, NOT_STRICT},
    {"a literal in capitals", "{\"sandbox_id\":\"h1\",\"include_legacy_skills\":TRUE}", 0,
     NOT_STRICT},
    {"a number with a leading zero", "{\"sandbox_id\":\"h1\",\"x\":02}", 0, NOT_STRICT},
    {"a number ending in a point", "{\"sandbox_id\":\"h1\",\"x\":1.}", 0, NOT_STRICT},
    {"a raw tab in a string", "{\"sandbox_id\":\"h1\",\"x\":\"a\tb\"}", 0, NOT_STRICT},
    {"a lone high surrogate", "{\"sandbox_id\":\"h1\",\"x\":\"\\ud800\"}", 0, NOT_STRICT},
    {"a lone low surrogate", "{\"sandbox_id\":\"h1\",\"x\":\"\\udc00\"}", 0, NOT_STRICT},
    {"a high surrogate before a letter", "{\"sandbox_id\":\"h1\",\"x\":\"\\ud800\\u0041\"}", 0,
     NOT_STRICT},
    {"a lone surrogate in a name", "{\"sandbox_id\":\"h1\",\"\\ud800\":1}", 0, NOT_STRICT},
    {"the sandbox id twice", "{\"sandbox_id\":\"h1\",\"sandbox_id\":\"h2\"}", 0,
     "duplicate member name 'sandbox_id'"},
    {"the user twice", "{\"sandbox_id\":\"own1\",\"user_id\":\"mallory\",\"user_id\":\"alice\"}",
     0, "duplicate member name 'user_id'"},
    {"the user twice, once escaped",
     "{\"sandbox_id\":\"own1\",\"user_id\":\"mallory\",\"user\\u005fid\":\"alice\"}", 0,
     "duplicate member name 'user_id'"},
    {"a mount's path twice",
     "{\"sandbox_id\":\"h1\",\"extra_mounts\":[{\"host_path\":\"/.deer-flow/a\","
     "\"host_path\":\"/.deer-flow/b\",\"container_path\":\"/mnt/c\"}]}",
     0, "duplicate member name 'host_path'"},
    {"a name that differs only after \\u0000",
     "{\"sandbox_id\":\"own1\",\"user_id\":\"alice\",\"user_id\\u0000x\":\"mallory\"}", 0,
     "a NUL character in member name 'user_id\\u0000x'"},
    {"a name cut to sandbox_id at \\u0000",
     "{\"sandbox_id\\u0000\":\"own1\",\"user_id\":\"alice\",\"thread_id\":\"t1\"}", 0,
     "a NUL character in member name 'sandbox_id\\u0000'"},
    {"\\u0000 in the user", "{\"sandbox_id\":\"own1\",\"user_id\":\"alice\\u0000mallory\"}", 0,
     "a NUL character in the value of member 'user_id'"},
    {"\\u0000 in the thread",
     "{\"sandbox_id\":\"own1\",\"user_id\":\"alice\",\"thread_id\":\"t1\\u0000x\"}", 0,
     "a NUL character in the value of member 'thread_id'"},
    {"\\u0000 in the sandbox id",
     "{\"sandbox_id\":\"own1\\u0000zzz\",\"user_id\":\"alice\",\"thread_id\":\"t1\"}", 0,
     "a NUL character in the value of member 'sandbox_id'"},
    {"\\u0000 in a mount path",
     "{\"sandbox_id\":\"h1\",\"extra_mounts\":[{\"host_path\":\"/.deer-flow/a\\u0000/b\","
     "\"container_path\":\"/mnt/c\"}]}",
     0, "a NUL character in the value of member 'host_path'"},
    {"a raw NUL in the sandbox id",
     RAW("{\"sandbox_id\":\"own1\0zzz\",\"user_id\":\"alice\",\"thread_id\":\"t1\"}"), NULL},
    {"a raw NUL in the user", RAW("{\"sandbox_id\":\"own1\",\"user_id\":\"alice\0x\"}"), NULL},
    {"a raw NUL after the body", RAW("{\"sandbox_id\":\"h1\"}\0"), NULL},
    {"a byte that is not UTF-8", "{\"sandbox_id\":\"h1\",\"x\":\"\xff\"}", 0,
     "invalid UTF-8 in the value of member 'x'"},
    {"a name that is not UTF-8", "{\"sandbox_id\":\"h1\",\"\xc0\xaf\":1}", 0,
     "invalid UTF-8 in member name"},
    {"an integer over int64", "{\"sandbox_id\":\"h1\",\"required_mount_contract_version\":"
     "9223372036854775808}", 0, "an integer beyond 64 bits as the value of member "
     "'required_mount_contract_version'"},
    {"an integer under int64", "{\"sandbox_id\":\"h1\",\"x\":-9223372036854775809}", 0,
     "an integer beyond 64 bits as the value of member 'x'"},
    {"a double over its range", "{\"sandbox_id\":\"h1\",\"x\":1e309}", 0,
     "a number beyond a double's range as the value of member 'x'"},
};

const size_t sbx_test_hostile_body_count =
    sizeof sbx_test_hostile_bodies / sizeof sbx_test_hostile_bodies[0];

/* The ctx.error of the first error of a 422 json_invalid answer, else NULL. */
static const char *json_invalid_reason(json_object *answer)
{
    json_object *detail = NULL, *type = NULL, *ctx = NULL, *error = NULL;
    if (!json_object_object_get_ex(answer, "detail", &detail) ||
        !json_object_is_type(detail, json_type_array) || json_object_array_length(detail) == 0)
        return NULL;
    json_object *first = json_object_array_get_idx(detail, 0);
    if (!json_object_object_get_ex(first, "type", &type) ||
        strcmp(json_object_get_string(type), "json_invalid") != 0 ||
        !json_object_object_get_ex(first, "ctx", &ctx) ||
        !json_object_object_get_ex(ctx, "error", &error))
        return NULL;
    return json_object_get_string(error);
}

int sbx_test_hostile_body_refused(const char *base_url, const char *const *headers,
                                  const sbx_test_hostile_body *row)
{
    char url[512];
    snprintf(url, sizeof url, "%s/api/sandboxes", base_url);
    size_t len = row->len != 0 ? row->len : strlen(row->body);
    sbx_test_http_result r;
    int sent = sbx_test_http_post_bytes(url, headers, row->body, len, 30000, &r);
    json_object *answer = sent == 0 ? json_tokener_parse(r.body) : NULL;
    const char *reason = json_invalid_reason(answer);
    int refused = sent == 0 && r.status == 422 && reason != NULL &&
                  (row->why == NULL || strstr(reason, row->why) != NULL);
    if (!refused)
        fprintf(stderr, "hostile body '%s': %ld %s\n", row->what, r.status,
                r.body != NULL ? r.body : "(no answer)");
    json_object_put(answer);
    sbx_test_http_result_clear(&r);
    return refused;
}
