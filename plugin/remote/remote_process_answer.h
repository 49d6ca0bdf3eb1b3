/*
 * Decoders of the AIO answers of live commands (POST /v1/bash/exec with
 * async_mode, /v1/bash/output) into ABI 1.4 process infos and outputs,
 * and their release (the descriptor's free_processes and
 * free_process_output).  Pure functions of the answer: no I/O, no locks.
 */
#ifndef SBX_REMOTE_PROCESS_ANSWER_H
#define SBX_REMOTE_PROCESS_ANSWER_H

#include <stddef.h>
#include <json-c/json.h>
#include <sbx/backend.h>

/* What an answer says of a command: its status (NULL when missing or not
 * clean text), exit_code (has_code: an integer that fits an int) and
 * command text (NULL when missing).  Strings borrowed from the answer. */
typedef struct remote_command_state {
    const char *status;
    int has_code, code;
    const char *text;
} remote_command_state;

/* The command state of a BashExecResult or BashCommandInfo object `obj`
 * (NULL or JSON null: all NULL, meaning no command). */
remote_command_state remote_command_state_of(struct json_object *obj);

/* Whether `status` says the command still runs ("running", "pending"). */
int remote_command_running(const char *status);

/* One info for process `process_id` whose command state is `state`:
 * argv from its text (remote_process_argv), RUNNING or ENDED as
 * remote_aio_read_end reads it; times unknown (the wire has none).
 * *out is released with remote_process_infos_free. */
sbx_status remote_process_info_new(const char *process_id, const remote_command_state *state,
                                   sbx_process_info **out, sbx_error *err);

/* Release a chain of infos.  NULL is accepted. */
void remote_process_infos_free(sbx_process_info *infos);

/*
 * A BashOutputResult (`data`) read from cursor `from` as an output of at
 * most `max_bytes` (stdout's bytes first, then stderr's).  The answer's
 * offsets say where each stream now ends: bytes between `from` and the
 * text the answer holds were no longer kept (dropped).  A text longer
 * than its offsets allow (bytes that were not UTF-8 and became U+FFFD) is
 * cut to them so that the cursor stays exact.  ended is set when the
 * command's status says it ended and nothing was cut by max_bytes.
 * Offsets before `from`, ill-typed members: SBX_ERR_PROTOCOL.  *out is
 * released with remote_process_output_free.
 */
sbx_status remote_process_output_decode(struct json_object *data, sbx_process_cursor from,
                                        size_t max_bytes, sbx_process_output **out,
                                        sbx_error *err);

/* Release an output.  NULL is accepted. */
void remote_process_output_free(sbx_process_output *output);

#endif /* SBX_REMOTE_PROCESS_ANSWER_H */
