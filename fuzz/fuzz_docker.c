/*
 * libFuzzer targets: the docker backend's readers of Engine API answers
 * (plugin/docker/docker_container.h, docker_engine.h), chosen at compile
 * time with -DSBX_FUZZ_DECODER=N (see fuzz/run):
 *   1 an inspect answer: docker_engine_parse (object), then
 *     docker_view_from_inspect; and the same body as an error answer
 *     (docker_engine_error, docker_engine_is_name_conflict)
 *   2 a container list answer: docker_engine_parse (array), then
 *     docker_view_from_list_entry on every entry (keeping sandboxes
 *     without a published port, as list_records does)
 * The options are the backend's defaults (no option given).
 */
#include <config.h>

#include "common/http_client.h"
#include "common/record_chain.h"
#include "plugin/docker/docker_container.h"
#include "plugin/docker/docker_engine.h"
#include "plugin/docker/docker_options.h"

#include <sbx/host.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A sandbox read back must have its id and a URL ("" when it has no
 * address), and make a record. */
static void check_sandbox(const docker_sandbox_view *view)
{
    const common_record_facts *f = &view->facts;
    sbx_sandbox_record *record = NULL;
    sbx_error err;
    if (f->sandbox_id == NULL || f->sandbox_url == NULL || f->sandbox_id[0] == '\0' ||
        common_record_new(f, &record, &err) != SBX_OK)
        abort();
    common_records_free(record);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static docker_options options;
    static int have_options;
    sbx_error err;
    if (!have_options) {
        if (docker_options_parse(NULL, 0, &options, &err) != SBX_OK)
            abort();
        have_options = 1;
    }
    /* The HTTP client's answers are NUL-terminated; so is this copy. */
    char *body = malloc(size + 1);
    if (body == NULL)
        return 0;
    memcpy(body, data, size);
    body[size] = '\0';
    common_http_response resp = {.status = 200, .body = body, .body_len = size};
    docker_sandbox_view view;
#if SBX_FUZZ_DECODER == 1
    json_object *inspect = docker_engine_parse(&resp, json_type_object, "inspect", &err);
    int running = 0;
    if (inspect != NULL &&
        docker_view_from_inspect(&options, inspect, "fuzz-id", &view, &running, &err) == SBX_OK)
        check_sandbox(&view);
    json_object_put(inspect);
    for (long status = 404; status <= 500; status += 96) {
        resp.status = status;
        (void)docker_engine_is_name_conflict(&resp);
        if (docker_engine_error(&resp, "fuzz call", SBX_ERR_NOT_FOUND, &err) == SBX_OK ||
            memchr(err.message, '\0', sizeof err.message) == NULL)
            abort();
    }
#elif SBX_FUZZ_DECODER == 2
    json_object *list = docker_engine_parse(&resp, json_type_array, "list", &err);
    size_t n = list != NULL ? json_object_array_length(list) : 0;
    for (size_t i = 0; i < n; i++) {
        char why[200];
        docker_skip skip;
        if (docker_view_from_list_entry(&options, json_object_array_get_idx(list, i), 1, &view,
                                        &skip, why, sizeof why))
            check_sandbox(&view);
        else if (memchr(why, '\0', sizeof why) == NULL)
            abort();
    }
    json_object_put(list);
#else
#error "SBX_FUZZ_DECODER must be 1 or 2"
#endif
    free(body);
    return 0;
}
