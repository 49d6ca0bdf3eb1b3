/* Raw json-c parses of answers: the floor a decoder can reach. */
#include <config.h>

#include "bench/json_baseline.h"

#include <json-c/json.h>
#include <string.h>

static json_object *parse(const char *body, size_t len)
{
    json_tokener *tok = json_tokener_new();
    if (tok == NULL)
        return NULL;
    json_object *root = json_tokener_parse_ex(tok, body, (int)len);
    json_tokener_free(tok);
    return root;
}

long sbx_bench_parse_list(const char *body, size_t len)
{
    json_object *root = parse(body, len);
    json_object *list = NULL;
    long found = -1;
    if (root != NULL && json_object_object_get_ex(root, "sandboxes", &list) &&
        json_object_is_type(list, json_type_array)) {
        found = 0;
        size_t n = json_object_array_length(list);
        for (size_t i = 0; i < n; i++) {
            json_object *entry = json_object_array_get_idx(list, i);
            json_object *id = NULL, *url = NULL;
            if (json_object_object_get_ex(entry, "sandbox_id", &id) &&
                json_object_object_get_ex(entry, "sandbox_url", &url) &&
                json_object_is_type(id, json_type_string) &&
                json_object_is_type(url, json_type_string))
                found++;
        }
    }
    json_object_put(root);
    return found;
}

int sbx_bench_parse_alive(const char *body, size_t len)
{
    json_object *root = parse(body, len);
    json_object *status = NULL;
    int alive = -1;
    if (root != NULL && json_object_object_get_ex(root, "status", &status) &&
        json_object_is_type(status, json_type_string))
        alive = strcmp(json_object_get_string(status), "Running") == 0;
    json_object_put(root);
    return alive;
}
