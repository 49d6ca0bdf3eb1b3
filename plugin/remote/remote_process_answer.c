/* Answers of live commands (see remote_process_answer.h). */
#include <config.h>

#include "plugin/remote/remote_process_answer.h"

#include "common/json_fields.h"
#include "plugin/remote/remote_aio_decode.h"
#include "plugin/remote/remote_process_ids.h"

#include <sbx/backend_support.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

remote_command_state remote_command_state_of(struct json_object *obj)
{
    remote_command_state st = {NULL, 0, 0, NULL};
    if (obj == NULL || !json_object_is_type(obj, json_type_object))
        return st;
    if (common_json_get_string(obj, "status", &st.status) != COMMON_JSON_OK)
        st.status = NULL;
    st.has_code = common_json_get_int(obj, "exit_code", &st.code) == COMMON_JSON_OK;
    if (common_json_get_string(obj, "command", &st.text) != COMMON_JSON_OK)
        st.text = NULL;
    return st;
}

int remote_command_running(const char *status)
{
    return status != NULL && (strcmp(status, "running") == 0 || strcmp(status, "pending") == 0);
}

void remote_process_infos_free(sbx_process_info *infos)
{
    while (infos != NULL) {
        sbx_process_info *next = infos->next;
        for (size_t i = 0; infos->argv != NULL && infos->argv[i] != NULL; i++)
            free(infos->argv[i]);
        free(infos->argv);
        free(infos->process_id);
        free(infos);
        infos = next;
    }
}

sbx_status remote_process_info_new(const char *process_id, const remote_command_state *state,
                                   sbx_process_info **out, sbx_error *err)
{
    *out = NULL;
    remote_aio_end end = {SBX_EXEC_EXITED, -1, 0};
    int running = remote_command_running(state->status);
    if (!running) {
        sbx_status st = remote_aio_read_end(state->status, state->has_code, state->code, &end,
                                            err);
        if (st != SBX_OK)
            return st;
    }
    sbx_process_info *info = calloc(1, sizeof *info);
    if (info != NULL) {
        info->struct_size = sizeof *info;
        info->process_id = strdup(process_id);
        info->argv = remote_process_argv(state->text != NULL ? state->text : "");
        info->state = running ? SBX_PROCESS_RUNNING : SBX_PROCESS_ENDED;
        info->started_at = SBX_TIME_UNKNOWN;
        info->ended_at = SBX_TIME_UNKNOWN;
        info->outcome = end.outcome;
        info->exit_code = end.exit_code;
        info->term_signal = end.term_signal;
    }
    if (info == NULL || info->process_id == NULL || info->argv == NULL) {
        remote_process_infos_free(info);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    *out = info;
    return SBX_OK;
}

void remote_process_output_free(sbx_process_output *output)
{
    if (output == NULL)
        return;
    free(output->data);
    free(output->chunks);
    free(output);
}

/* One stream of an answer: its text (NUL bytes kept) and where it ends. */
typedef struct stream_answer {
    const char *text;
    size_t len;
    uint64_t end;
} stream_answer;

/* Read stream `text_key` / `offset_key` of `data`. */
static sbx_status read_stream(struct json_object *data, const char *text_key,
                              const char *offset_key, uint64_t from, stream_answer *s,
                              sbx_error *err)
{
    struct json_object *text = NULL, *offset = NULL;
    s->text = "";
    s->len = 0;
    s->end = from;
    if (json_object_object_get_ex(data, text_key, &text) && text != NULL) {
        if (!json_object_is_type(text, json_type_string))
            return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                         "output answer: %s is not a string", text_key);
        s->text = json_object_get_string(text);
        s->len = (size_t)json_object_get_string_len(text);
    }
    if (!json_object_object_get_ex(data, offset_key, &offset) || offset == NULL ||
        !json_object_is_type(offset, json_type_int) || json_object_get_int64(offset) < 0)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "output answer: %s is missing or not a non-negative "
                                     "integer", offset_key);
    s->end = (uint64_t)json_object_get_int64(offset);
    if (s->end < from)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "output answer: %s %llu is before the %llu asked",
                                     offset_key, (unsigned long long)s->end,
                                     (unsigned long long)from);
    /* Text longer than the bytes it stands for: U+FFFD for single bytes. */
    if (s->len > s->end - from)
        s->len = (size_t)(s->end - from);
    return SBX_OK;
}

/* Add up to *budget bytes of `s` (read from `from`) to `o` as a chunk of
 * `stream`, and set o's next cursor and dropped count of that stream.
 * Returns 1 when it had to cut. */
static int take_stream(sbx_process_output *o, sbx_stream stream, const stream_answer *s,
                       uint64_t from, size_t *budget)
{
    int out = stream == SBX_STREAM_STDOUT;
    uint64_t *next = out ? &o->next.stdout_offset : &o->next.stderr_offset;
    uint64_t *dropped = out ? &o->stdout_dropped : &o->stderr_dropped;
    uint64_t gap = s->end - from - s->len;
    size_t take = s->len < *budget ? s->len : *budget;
    *dropped = gap;
    *next = from + gap + take;
    if (take > 0) {
        memcpy(o->data + o->length, s->text, take);
        o->chunks[o->chunk_count].stream = stream;
        o->chunks[o->chunk_count].length = take;
        o->chunk_count++;
        o->length += take;
        *budget -= take;
    }
    return take < s->len;
}

sbx_status remote_process_output_decode(struct json_object *data, sbx_process_cursor from,
                                        size_t max_bytes, sbx_process_output **out,
                                        sbx_error *err)
{
    *out = NULL;
    if (data == NULL || !json_object_is_type(data, json_type_object))
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "output answer: data is not an object");
    stream_answer so, se;
    sbx_status st = read_stream(data, "stdout", "offset", from.stdout_offset, &so, err);
    if (st == SBX_OK)
        st = read_stream(data, "stderr", "stderr_offset", from.stderr_offset, &se, err);
    struct json_object *command = NULL;
    json_object_object_get_ex(data, "command", &command);
    remote_command_state state = remote_command_state_of(command);
    remote_aio_end end = {SBX_EXEC_EXITED, -1, 0};
    int ended = command != NULL && !remote_command_running(state.status);
    if (st == SBX_OK && ended)
        st = remote_aio_read_end(state.status, state.has_code, state.code, &end, err);
    if (st != SBX_OK)
        return st;
    sbx_process_output *o = calloc(1, sizeof *o);
    size_t total = so.len + se.len;
    if (o != NULL) {
        o->data = malloc((total < max_bytes ? total : max_bytes) + 1);
        o->chunks = calloc(2, sizeof *o->chunks);
    }
    if (o == NULL || o->data == NULL || o->chunks == NULL) {
        remote_process_output_free(o);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    o->struct_size = sizeof *o;
    size_t budget = max_bytes;
    int cut = take_stream(o, SBX_STREAM_STDOUT, &so, from.stdout_offset, &budget);
    cut |= take_stream(o, SBX_STREAM_STDERR, &se, from.stderr_offset, &budget);
    o->data[o->length] = '\0';
    if (o->chunk_count == 0) {
        free(o->chunks);
        o->chunks = NULL;
    }
    o->ended = ended && !cut;
    o->outcome = end.outcome;
    o->exit_code = end.exit_code;
    o->term_signal = end.term_signal;
    *out = o;
    return SBX_OK;
}
