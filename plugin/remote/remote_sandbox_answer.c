/* One sandbox answer read in one pass (see remote_sandbox_answer.h). */
#include <config.h>

#include "plugin/remote/remote_sandbox_answer.h"

#include <sbx/backend_support.h>

sbx_status remote_sandbox_answer_read(const char *body, size_t len, remote_sandbox_answer *a,
                                      remote_fields *f, sbx_error *err)
{
    common_json_stream_init(&a->lex);
    remote_field_reader_init(&a->fields);
    remote_field_reader_start(&a->fields);
    int root_object = 0;
    common_json_stream_feed(&a->lex, body, len);
    common_json_event event;
    /* The object's own keys and member values are those at depth 1. */
    while ((event = common_json_stream_next(&a->lex)) != COMMON_JSON_EVENT_NONE) {
        if (event == COMMON_JSON_EVENT_BEGIN && a->lex.depth == 0)
            root_object = a->lex.kind == COMMON_JSON_KIND_OBJECT;
        if (event == COMMON_JSON_EVENT_BEGIN && a->lex.depth == 1)
            remote_field_reader_value_begins(&a->fields, &a->lex);
        else if (event == COMMON_JSON_EVENT_BEGIN)
            remote_field_reader_other_begins(&a->fields);
        else if (event == COMMON_JSON_EVENT_KEY && a->lex.depth == 1)
            remote_field_reader_key(&a->fields, &a->lex);
        else if (event == COMMON_JSON_EVENT_SCALAR)
            remote_field_reader_value_ends(&a->fields, &a->lex);
    }
    common_json_outcome outcome = common_json_stream_end(&a->lex);
    if (a->lex.out_of_memory)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    if (outcome == COMMON_JSON_DEEP)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "sandbox answer is " COMMON_JSON_TOO_DEEP);
    remote_field_reader_fields(&a->fields, f);
    remote_problem problem = outcome != COMMON_JSON_COMPLETE || !root_object
                                 ? REMOTE_NOT_OBJECT
                                 : remote_check_fields(f);
    return problem != 0 ? remote_problem_error(problem, err) : SBX_OK;
}

void remote_sandbox_answer_free(remote_sandbox_answer *a)
{
    remote_field_reader_free(&a->fields);
}
