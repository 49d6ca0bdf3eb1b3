/* The process script's answers as ABI 1.4 values (see docker_proc_answers.h). */
#include <config.h>

#include "plugin/docker/docker_proc_answers.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A decimal number of at most 19 digits at *p, which moves past it; -1
 * when there is none. */
static int take_number(const char **p, uint64_t *value)
{
    const char *s = *p;
    uint64_t v = 0;
    size_t digits = 0;
    while (*s >= '0' && *s <= '9' && digits < 19) {
        v = v * 10 + (uint64_t)(*s++ - '0');
        digits++;
    }
    if (digits == 0 || (*s >= '0' && *s <= '9'))
        return -1;
    *value = v;
    *p = s;
    return 0;
}

/* A space, then a number. */
static int take_field(const char **p, uint64_t *value)
{
    if (**p != ' ')
        return -1;
    (*p)++;
    return take_number(p, value);
}

/* The end of a line: a newline or the string's end. */
static int at_line_end(const char *p)
{
    return *p == '\n' || *p == '\0';
}

int docker_proc_parse_state(const char *text, docker_proc_state *out)
{
    memset(out, 0, sizeof *out);
    out->exit_code = -1;
    if (strncmp(text, "run", 3) == 0 && at_line_end(text + 3))
        return 0;
    if (strncmp(text, "end", 3) != 0)
        return -1;
    const char *p = text + 3;
    uint64_t code, seconds, timed_out;
    if (take_field(&p, &code) != 0 || take_field(&p, &seconds) != 0 ||
        take_field(&p, &timed_out) != 0 || !at_line_end(p) || code > 255 || timed_out > 1 ||
        seconds > INT64_MAX / 1000)
        return -1;
    out->ended = 1;
    out->ended_at = (int64_t)seconds * 1000;
    if (timed_out) {
        out->outcome = SBX_EXEC_TIMED_OUT;
    } else if (code > 128 && code <= 128 + SBX_SIGNAL_MAX) {
        /* The shell reports a process a signal ended as 128+N. */
        out->outcome = SBX_EXEC_SIGNALED;
        out->term_signal = (int)code - 128;
    } else {
        out->outcome = SBX_EXEC_EXITED;
        out->exit_code = (int)code;
    }
    return 0;
}

sbx_process_info *docker_proc_info_new(const char *id, size_t argc)
{
    sbx_process_info *info = calloc(1, sizeof *info);
    if (info == NULL)
        return NULL;
    info->struct_size = sizeof *info;
    info->process_id = strdup(id);
    info->argv = calloc(argc + 1, sizeof *info->argv);
    info->state = SBX_PROCESS_RUNNING;
    info->exit_code = -1;
    if (info->process_id == NULL || info->argv == NULL) {
        docker_proc_free_infos(info);
        return NULL;
    }
    return info;
}

void docker_proc_info_settle(sbx_process_info *info, const docker_proc_state *state)
{
    if (!state->ended)
        return;
    info->state = SBX_PROCESS_ENDED;
    /* The container's clock gives whole seconds: an end in the second of
     * the start would read as before it. */
    info->ended_at = state->ended_at > info->started_at ? state->ended_at : info->started_at;
    info->outcome = state->outcome;
    info->exit_code = state->exit_code;
    info->term_signal = state->term_signal;
}

/* Bytes of a process id, as the script's glob (p*) and the id rule allow. */
static size_t id_length(const char *p, const char *end)
{
    size_t n = 0;
    while (p + n < end && n <= SBX_PROCESS_ID_MAX && p[n] != ' ' && p[n] != '\n')
        n++;
    return n;
}

/* One record at *p (before `end`) into a new info; *p moves past it.
 * 0, -1 malformed, -2 out of memory. */
static int parse_record(const char **p, const char *end, sbx_process_info **out)
{
    const char *s = *p;
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    /* "P" a process, "T" one on a terminal. */
    if (nl == NULL || end - s < 2 || (s[0] != 'P' && s[0] != 'T') || s[1] != ' ')
        return -1;
    int pty = s[0] == 'T';
    s += 2;
    size_t idn = id_length(s, nl);
    if (idn == 0 || idn > SBX_PROCESS_ID_MAX || s[idn] != ' ')
        return -1;
    char id[SBX_PROCESS_ID_MAX + 1];
    memcpy(id, s, idn);
    id[idn] = '\0';
    s += idn;
    uint64_t started, argc;
    docker_proc_state state;
    if (take_field(&s, &started) != 0 || take_field(&s, &argc) != 0 || *s++ != ' ' ||
        docker_proc_parse_state(s, &state) != 0 || argc > (uint64_t)(end - nl))
        return -1;
    sbx_process_info *info = docker_proc_info_new(id, (size_t)argc);
    if (info == NULL)
        return -2;
    info->started_at = started <= INT64_MAX ? (int64_t)started : 0;
    info->pty = pty;
    docker_proc_info_settle(info, &state);
    s = nl + 1;
    for (size_t i = 0; i < argc; i++) {
        const char *nul = memchr(s, '\0', (size_t)(end - s));
        if (nul == NULL) {
            docker_proc_free_infos(info);
            return -1;
        }
        info->argv[i] = strdup(s);
        if (info->argv[i] == NULL) {
            docker_proc_free_infos(info);
            return -2;
        }
        s = nul + 1;
    }
    *p = s;
    *out = info;
    return 0;
}

int docker_proc_parse_infos(const char *data, size_t length, sbx_process_info **first,
                            size_t *count)
{
    *first = NULL;
    *count = 0;
    sbx_process_info **tail = first;
    const char *p = data, *end = data + length;
    while (p < end) {
        sbx_process_info *info = NULL;
        int rc = parse_record(&p, end, &info);
        if (rc != 0) {
            docker_proc_free_infos(*first);
            *first = NULL;
            *count = 0;
            return rc;
        }
        *tail = info;
        tail = &info->next;
        (*count)++;
    }
    return 0;
}

int docker_proc_parse_read_header(const char *line, docker_proc_read_header *out)
{
    memset(out, 0, sizeof *out);
    const char *p = line;
    if (strncmp(p, "sbx-read", 8) != 0)
        return -1;
    p += 8;
    if (take_field(&p, &out->out_from) != 0 || take_field(&p, &out->out_to) != 0 ||
        take_field(&p, &out->err_from) != 0 || take_field(&p, &out->err_to) != 0 ||
        take_field(&p, &out->out_end) != 0 || take_field(&p, &out->err_end) != 0 ||
        *p++ != ' ' || docker_proc_parse_state(p, &out->state) != 0)
        return -1;
    if (out->out_from > out->out_to || out->out_to > out->out_end ||
        out->err_from > out->err_to || out->err_to > out->err_end)
        return -1;
    return 0;
}

/* The runs' lengths added up per stream into sums[0] (stdout) and
 * sums[1], and their count; -1 when the text is not runs. */
static int sum_runs(const char *runs, uint64_t sums[2], size_t *count)
{
    sums[0] = sums[1] = 0;
    *count = 0;
    const char *p = runs;
    while (!at_line_end(p)) {
        uint64_t length;
        if (p[0] != ' ' || (p[1] != 'o' && p[1] != 'e'))
            return -1;
        int err_stream = p[1] == 'e';
        p += 2;
        if (take_field(&p, &length) != 0 || length == 0)
            return -1;
        sums[err_stream] += length;
        (*count)++;
    }
    return 0;
}

/* Append a run's bytes to o (chunks merged with a previous one of the
 * same stream). */
static void add_run(sbx_process_output *o, sbx_stream stream, const char *bytes, size_t n)
{
    if (n == 0)
        return;
    memcpy(o->data + o->length, bytes, n);
    o->length += n;
    if (o->chunk_count > 0 && o->chunks[o->chunk_count - 1].stream == stream)
        o->chunks[o->chunk_count - 1].length += n;
    else
        o->chunks[o->chunk_count++] = (sbx_output_chunk){ stream, n };
}

/* The runs' bytes into o, in order. */
static void fill_runs(sbx_process_output *o, const docker_proc_read_bytes *b)
{
    size_t taken[2] = { 0, 0 };
    size_t have[2] = { b->out_len, b->err_len };
    const char *from[2] = { b->out, b->err };
    const char *p = b->runs;
    while (!at_line_end(p)) {
        int e = p[1] == 'e';
        uint64_t length;
        p += 2;
        take_field(&p, &length);
        size_t n = have[e] - taken[e] < length ? have[e] - taken[e] : (size_t)length;
        add_run(o, e ? SBX_STREAM_STDERR : SBX_STREAM_STDOUT, from[e] + taken[e], n);
        taken[e] += n;
        /* A run cut short: the rest of that stream came no more. */
        if (n < length)
            have[e] = taken[e];
    }
}

int docker_proc_output_new(const sbx_process_cursor *cursor, const docker_proc_read_header *h,
                           const docker_proc_read_bytes *bytes, sbx_process_output **out)
{
    *out = NULL;
    uint64_t sums[2];
    size_t runs;
    if (sum_runs(bytes->runs, sums, &runs) != 0 || sums[0] != h->out_to - h->out_from ||
        sums[1] != h->err_to - h->err_from || bytes->out_len > sums[0] ||
        bytes->err_len > sums[1])
        return -1;
    sbx_process_output *o = calloc(1, sizeof *o);
    if (o == NULL)
        return -2;
    o->struct_size = sizeof *o;
    o->data = malloc(bytes->out_len + bytes->err_len + 1);
    o->chunks = runs > 0 ? calloc(runs, sizeof *o->chunks) : NULL;
    if (o->data == NULL || (runs > 0 && o->chunks == NULL)) {
        docker_proc_free_output(o);
        return -2;
    }
    fill_runs(o, bytes);
    if (o->chunk_count == 0) {
        free(o->chunks);
        o->chunks = NULL;
    }
    o->data[o->length] = '\0';
    uint64_t got[2] = { 0, 0 };
    for (size_t i = 0; i < o->chunk_count; i++)
        got[o->chunks[i].stream == SBX_STREAM_STDERR] += o->chunks[i].length;
    /* The script answers from max(cursor, oldest kept byte): what lies
     * between was dropped. */
    o->stdout_dropped = h->out_from > cursor->stdout_offset ? h->out_from - cursor->stdout_offset
                                                            : 0;
    o->stderr_dropped = h->err_from > cursor->stderr_offset ? h->err_from - cursor->stderr_offset
                                                            : 0;
    o->next.stdout_offset = cursor->stdout_offset + o->stdout_dropped + got[0];
    o->next.stderr_offset = cursor->stderr_offset + o->stderr_dropped + got[1];
    /* The end is seen only once the process ended and both streams were
     * answered to the end they had then (which is final). */
    o->ended = h->state.ended && o->next.stdout_offset == h->out_end &&
               o->next.stderr_offset == h->err_end;
    o->exit_code = -1;
    if (o->ended) {
        o->outcome = h->state.outcome;
        o->exit_code = h->state.exit_code;
        o->term_signal = h->state.term_signal;
    }
    *out = o;
    return 0;
}

void docker_proc_free_infos(sbx_process_info *first)
{
    while (first != NULL) {
        sbx_process_info *next = first->next;
        if (first->argv != NULL)
            for (char **a = first->argv; *a != NULL; a++)
                free(*a);
        free(first->argv);
        free(first->process_id);
        free(first);
        first = next;
    }
}

void docker_proc_free_output(sbx_process_output *output)
{
    if (output == NULL)
        return;
    free(output->data);
    free(output->chunks);
    free(output);
}
