/* Printing for sbxctl.  Results are printed exactly; only free text (an
 * error message) goes through the redactor, composed in memory first so
 * that it sees whole lines.  JSON goes through json-c for correct escaping. */

#include <config.h>

#include "tools/sbxctl/output.h"

#include "common/base64.h"
#include "common/utf8.h"
#include "tools/sbxctl/exit_code.h"
#include "tools/sbxctl/signal_names.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Shown in human output for an unknown (NULL) value. */
#define UNKNOWN_CELL "-"

#define STRINGIFY_TOKEN(x) #x
#define STRINGIFY(x) STRINGIFY_TOKEN(x)
#define ABI_VERSION_TEXT STRINGIFY(SBX_BACKEND_ABI_MAJOR) "." STRINGIFY(SBX_BACKEND_ABI_MINOR)

/* The most columns a table has. */
#define MAX_COLUMNS 8

/* The encoded document is written as it is: the one free text in it (an
 * error's message) was masked before encoding, and masking the document
 * could cut into its syntax (a secret holding "null" or "\",\"") or
 * rewrite its member names and results. */
static void emit_json(json_object *object)
{
    const char *text = json_object_to_json_string_ext(
        object, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    fputs(text != NULL ? text : "null", stdout);
    fputc('\n', stdout);
    json_object_put(object);
}

/* Build human output in a memory stream, then emit it in one piece. */
typedef struct text_buffer {
    FILE *stream;
    char *data;
    size_t size;
} text_buffer;

static FILE *text_open(text_buffer *buffer)
{
    buffer->data = NULL;
    buffer->size = 0;
    buffer->stream = open_memstream(&buffer->data, &buffer->size);
    return buffer->stream;
}

/* Close the stream and write what it holds to `destination`: a result
 * exactly, or with `out` (not NULL) as free text, flattened to one line
 * and with secrets masked. */
static void text_emit_with(const ctl_output *out, text_buffer *buffer, FILE *destination)
{
    fclose(buffer->stream);
    if (buffer->data != NULL) {
        if (out != NULL) {
            ctl_flatten_line(buffer->data);
            ctl_redacted_write(out->redactor, buffer->data, destination);
        } else {
            fputs(buffer->data, destination);
        }
    }
    free(buffer->data);
}

/* A result, exactly as it was composed, on stdout. */
static void text_emit(text_buffer *buffer)
{
    text_emit_with(NULL, buffer, stdout);
}

/* Where a result goes: with --json, `object` (built by the caller, NULL
 * otherwise) is emitted and NULL returned; else a text buffer is opened and
 * its stream returned (NULL when out of memory: nothing is printed). */
static FILE *json_or_text(const ctl_output *out, json_object *object, text_buffer *text)
{
    if (out->json) {
        emit_json(object);
        return NULL;
    }
    return text_open(text);
}

/* `value` as the redactor writes it (secrets masked), malloc'd; NULL when
 * out of memory. */
static char *redacted_copy(const ctl_output *out, const char *value)
{
    char *data = NULL;
    size_t size = 0;
    FILE *stream = open_memstream(&data, &size);
    if (stream == NULL)
        return NULL;
    int failed = ctl_redacted_write(out->redactor, value, stream) != 0;
    if (fclose(stream) != 0 || failed) {
        free(data);
        return NULL;
    }
    return data;
}

/* A JSON string for the result `value` (NULL: JSON null), exactly as it
 * is, except that bytes that are not UTF-8 (from a backend, a path, the
 * environment) become U+FFFD (common_utf8_repair), so that every document
 * sbxctl writes is valid UTF-8 JSON whatever it was handed.  Out of memory: JSON null. */
static json_object *json_text(const char *value)
{
    if (value == NULL)
        return NULL;
    size_t len = strlen(value);
    if (common_text_is_clean(value, len))
        return json_object_new_string(value);
    char *valid = common_utf8_repair(value, len, NULL, NULL);
    json_object *string = valid != NULL ? json_object_new_string(valid) : NULL;
    free(valid);
    return string;
}

/* json_text for free text (an error's message): secrets masked first.
 * Out of memory: JSON null. */
static json_object *json_free_text(const ctl_output *out, const char *text)
{
    char *redacted = redacted_copy(out, text);
    json_object *string = redacted != NULL ? json_text(redacted) : NULL;
    free(redacted);
    return string;
}

static json_object *json_contract_or_null(int version)
{
    return version != SBX_CONTRACT_NONE ? json_object_new_int(version) : NULL;
}

static json_object *sandbox_json(const sbx_sandbox *sandbox)
{
    json_object *object = json_object_new_object();
    json_object_object_add(object, "sandbox_id", json_text(sandbox->sandbox_id));
    json_object_object_add(object, "sandbox_url", json_text(sandbox->sandbox_url));
    json_object_object_add(object, "user_id", json_text(sandbox->user_id));
    json_object_object_add(object, "thread_id", json_text(sandbox->thread_id));
    json_object_object_add(object, "mount_contract_version",
                           json_contract_or_null(sandbox->mount_contract_version));
    return object;
}

/* Bytes of a time as format_time writes it, with its NUL. */
#define TIME_TEXT_SIZE 40

/* `ms` (milliseconds since the epoch) as ISO 8601 UTC with milliseconds,
 * "2026-12-02T15:30:00.000Z"; "" when unknown. */
static void format_time(int64_t ms, char *buf, size_t size)
{
    buf[0] = '\0';
    if (ms == SBX_TIME_UNKNOWN)
        return;
    int64_t seconds = ms / 1000, millis = ms % 1000;
    if (millis < 0) {   /* before 1970: round toward the past */
        millis += 1000;
        seconds--;
    }
    time_t t = (time_t)seconds;
    struct tm tm;
    char date[32];
    if (gmtime_r(&t, &tm) == NULL || strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
        return;
    snprintf(buf, size, "%s.%03dZ", date, (int)millis);
}

/* A record's members beyond the 1.1 fields, named as sbxctl(1) shows them. */
typedef struct record_extras {
    char created_at[TIME_TEXT_SIZE];   /* "" when unknown */
    char pid[24];                      /* "" when unknown */
    char expires_at[TIME_TEXT_SIZE];   /* "" when none or unknown (ABI 1.5) */
} record_extras;

static void record_extras_of(const sbx_sandbox_record *r, record_extras *x)
{
    format_time(r->created_at, x->created_at, sizeof x->created_at);
    x->pid[0] = '\0';
    if (r->pid > 0)
        snprintf(x->pid, sizeof x->pid, "%" PRId64, r->pid);
    format_time(SBX_RECORD_HAS(r, expires_at) ? r->expires_at : SBX_TIME_UNKNOWN,
                x->expires_at, sizeof x->expires_at);
}

/* The string members of ABI 1.2 in the order sbxctl shows them. */
#define RECORD_STRING_MEMBERS(X) \
    X(incarnation_id) X(container_id) X(container_name) X(engine) X(engine_version) X(directory)

static json_object *record_json(const sbx_sandbox_record *r)
{
    record_extras x;
    record_extras_of(r, &x);
    json_object *object = sandbox_json(&r->sandbox);
    json_object_object_add(object, "status", json_text(r->sandbox.status));
    json_object_object_add(object, "created_at",
                           x.created_at[0] ? json_object_new_string(x.created_at) : NULL);
#define ADD_STRING(member) json_object_object_add(object, #member, json_text(r->member));
    RECORD_STRING_MEMBERS(ADD_STRING)
#undef ADD_STRING
    json_object_object_add(object, "pid", r->pid > 0 ? json_object_new_int64(r->pid) : NULL);
    json_object *labels = json_object_new_object();
    for (size_t i = 0; SBX_RECORD_HAS(r, label_count) && i < r->label_count; i++)
        json_object_object_add(labels, r->labels[i].key, json_text(r->labels[i].value));
    json_object_object_add(object, "labels", labels);
    json_object_object_add(object, "expires_at",
                           x.expires_at[0] ? json_object_new_string(x.expires_at) : NULL);
    return object;
}

static const char *cell(const char *value)
{
    return value != NULL && value[0] != '\0' ? value : UNKNOWN_CELL;
}

/* Print a peer-supplied value padded to `width`: control characters (a
 * newline in a URL, a terminal escape) become spaces, so that one value
 * stays on its line and cannot drive the terminal. */
static void print_clean(FILE *stream, const char *value, size_t width)
{
    size_t len = 0;
    for (; value[len] != '\0'; len++) {
        unsigned char c = (unsigned char)value[len];
        fputc(c < 0x20 || c == 0x7f ? ' ' : c, stream);
    }
    for (; len < width; len++)
        fputc(' ', stream);
}

static void print_field(FILE *stream, const char *key, const char *value)
{
    fprintf(stream, "%s: ", key);
    print_clean(stream, cell(value), 0);
    fputc('\n', stream);
}

static void print_contract_field(FILE *stream, int version)
{
    if (version == SBX_CONTRACT_NONE)
        print_field(stream, "mount_contract_version", NULL);
    else
        fprintf(stream, "mount_contract_version: %d\n", version);
}

static void print_sandbox_fields(FILE *stream, const sbx_sandbox *sandbox)
{
    print_field(stream, "sandbox_id", sandbox->sandbox_id);
    print_field(stream, "sandbox_url", sandbox->sandbox_url);
    print_field(stream, "user_id", sandbox->user_id);
    print_field(stream, "thread_id", sandbox->thread_id);
    print_contract_field(stream, sandbox->mount_contract_version);
    print_field(stream, "status", sandbox->status);
}

/* The labels of `r` as KEY=VALUE,... ("" when none), on `stream`. */
static void print_labels(FILE *stream, const sbx_sandbox_record *r)
{
    fputs("labels: ", stream);
    size_t count = SBX_RECORD_HAS(r, label_count) ? r->label_count : 0;
    if (count == 0)
        fputs(UNKNOWN_CELL, stream);
    for (size_t i = 0; i < count; i++) {
        if (i > 0)
            fputc(',', stream);
        print_clean(stream, r->labels[i].key, 0);
        fputc('=', stream);
        print_clean(stream, r->labels[i].value, 0);
    }
    fputc('\n', stream);
}

static void print_record_fields(FILE *stream, const sbx_sandbox_record *r)
{
    record_extras x;
    record_extras_of(r, &x);
    print_sandbox_fields(stream, &r->sandbox);
    print_field(stream, "created_at", x.created_at);
#define PRINT_STRING(member) print_field(stream, #member, r->member);
    RECORD_STRING_MEMBERS(PRINT_STRING)
#undef PRINT_STRING
    print_field(stream, "pid", x.pid);
    print_labels(stream, r);
    print_field(stream, "expires_at", x.expires_at);
}

/* Columns padded to their widest cell, two spaces apart; the last column
 * is not padded.  `cells` holds rows * columns entries, row by row. */
static void print_table(FILE *stream, const char *const *headers, size_t columns,
                        const char *const *cells, size_t rows)
{
    size_t widths[MAX_COLUMNS] = {0};
    if (columns > MAX_COLUMNS)
        columns = MAX_COLUMNS;
    for (size_t c = 0; c < columns; c++) {
        widths[c] = strlen(headers[c]);
        for (size_t r = 0; r < rows; r++) {
            size_t len = strlen(cells[r * columns + c]);
            if (len > widths[c])
                widths[c] = len;
        }
    }
    for (size_t r = 0; r <= rows; r++) {
        const char *const *row = r == 0 ? headers : cells + (r - 1) * columns;
        for (size_t c = 0; c < columns; c++) {
            if (c + 1 < columns) {
                print_clean(stream, row[c], widths[c]);
                fputs("  ", stream);
            } else {
                print_clean(stream, row[c], 0);
                fputc('\n', stream);
            }
        }
    }
}

/* print_table into a memory stream, emitted on stdout in one piece. */
static void emit_table(const char *const *headers, size_t columns, const char *const *cells,
                       size_t rows)
{
    text_buffer text;
    FILE *stream = text_open(&text);
    if (stream == NULL)
        return;
    print_table(stream, headers, columns, cells, rows);
    text_emit(&text);
}

void ctl_print_error(const ctl_output *out, const sbx_error *err)
{
    const char *kind = sbx_status_name(err->kind);
    const char *message = err->message[0] != '\0' ? err->message : kind;

    text_buffer line;
    FILE *stream = text_open(&line);
    if (stream != NULL) {
        fprintf(stream, "sbxctl: %s: %s\n", kind, message);
        text_emit_with(out, &line, stderr);
    }

    if (!out->json)
        return;
    json_object *error = json_object_new_object();
    json_object_object_add(error, "kind", json_object_new_string(kind));
    json_object_object_add(error, "message", json_free_text(out, message));
    json_object_object_add(error, "http_status",
                           err->http_status > 0 ? json_object_new_int(err->http_status) : NULL);
    json_object_object_add(error, "expected", json_contract_or_null(err->expected_contract));
    json_object_object_add(error, "actual", json_contract_or_null(err->actual_contract));
    json_object *object = json_object_new_object();
    json_object_object_add(object, "error", error);
    emit_json(object);
}

void ctl_print_sandbox(const ctl_output *out, const sbx_sandbox *sandbox)
{
    text_buffer text;
    FILE *stream = json_or_text(out, out->json ? sandbox_json(sandbox) : NULL, &text);
    if (stream == NULL)
        return;
    print_sandbox_fields(stream, sandbox);
    text_emit(&text);
}

void ctl_print_record(const ctl_output *out, const sbx_sandbox_record *record)
{
    text_buffer text;
    FILE *stream = json_or_text(out, out->json ? record_json(record) : NULL, &text);
    if (stream == NULL)
        return;
    print_record_fields(stream, record);
    text_emit(&text);
}

/* A sandbox id and one yes/no fact about it: {"sandbox_id": ID, KEY: BOOL},
 * or the lines "sandbox_id: ID" and "KEY: yes|no". */
static void print_id_and_flag(const ctl_output *out, const char *sandbox_id,
                              const char *key, int flag)
{
    json_object *object = NULL;
    if (out->json) {
        object = json_object_new_object();
        json_object_object_add(object, "sandbox_id", json_text(sandbox_id));
        json_object_object_add(object, key, json_object_new_boolean(flag != 0));
    }
    text_buffer text;
    FILE *stream = json_or_text(out, object, &text);
    if (stream == NULL)
        return;
    print_field(stream, "sandbox_id", sandbox_id);
    print_field(stream, key, flag ? "yes" : "no");
    text_emit(&text);
}

void ctl_print_extended(const ctl_output *out, const char *sandbox_id, int64_t expires_at)
{
    char when[TIME_TEXT_SIZE];
    format_time(expires_at, when, sizeof when);
    json_object *object = NULL;
    if (out->json) {
        object = json_object_new_object();
        json_object_object_add(object, "sandbox_id", json_text(sandbox_id));
        json_object_object_add(object, "expires_at", json_object_new_string(when));
    }
    text_buffer text;
    FILE *stream = json_or_text(out, object, &text);
    if (stream == NULL)
        return;
    print_field(stream, "sandbox_id", sandbox_id);
    print_field(stream, "expires_at", when);
    text_emit(&text);
}

void ctl_print_alive(const ctl_output *out, const char *sandbox_id, int alive)
{
    print_id_and_flag(out, sandbox_id, "alive", alive);
}

enum { LIST_COLUMNS = 7 };
_Static_assert(LIST_COLUMNS <= MAX_COLUMNS, "the list table fits print_table");

/* One row of the list table; the texts it points to live in `x`. */
static void list_row(const sbx_sandbox_record *r, record_extras *x, char *contract,
                     size_t contract_size, const char **row)
{
    const sbx_sandbox *s = &r->sandbox;
    record_extras_of(r, x);
    contract[0] = '\0';
    if (s->mount_contract_version != SBX_CONTRACT_NONE)
        snprintf(contract, contract_size, "%d", s->mount_contract_version);
    row[0] = cell(s->sandbox_id);
    row[1] = cell(s->status);
    row[2] = cell(x->created_at);
    row[3] = cell(s->user_id);
    row[4] = cell(s->thread_id);
    row[5] = cell(contract);
    row[6] = cell(s->sandbox_url);
}

void ctl_print_records(const ctl_output *out, const sbx_sandbox_record *records,
                           size_t count)
{
    if (out->json) {
        json_object *array = json_object_new_array();
        for (const sbx_sandbox_record *r = records; r != NULL; r = r->next)
            json_object_array_add(array, record_json(r));
        json_object *object = json_object_new_object();
        json_object_object_add(object, "sandboxes", array);
        json_object_object_add(object, "count", json_object_new_int64((int64_t)count));
        emit_json(object);
        return;
    }
    static const char *const headers[LIST_COLUMNS] = {
        "SANDBOX_ID", "STATUS", "CREATED", "USER", "THREAD", "CONTRACT", "URL"};
    const char **cells = calloc(count * LIST_COLUMNS + 1, sizeof *cells);
    record_extras *extras = calloc(count + 1, sizeof *extras);
    char (*contracts)[16] = calloc(count + 1, sizeof *contracts);
    if (cells != NULL && extras != NULL && contracts != NULL) {
        size_t i = 0;
        for (const sbx_sandbox_record *r = records; r != NULL && i < count; r = r->next, i++)
            list_row(r, &extras[i], contracts[i], sizeof contracts[i], cells + i * LIST_COLUMNS);
        emit_table(headers, LIST_COLUMNS, cells, i);
    }
    free(contracts);
    free(extras);
    free(cells);
}

void ctl_print_capabilities(const ctl_output *out, const sbx_capabilities *caps)
{
    json_object *object = NULL;
    if (out->json) {
        object = json_object_new_object();
        json_object_object_add(object, "mount_contract_version",
                               json_contract_or_null(caps->mount_contract_version));
        json_object_object_add(object, "known", json_object_new_boolean(caps->known != 0));
    }
    text_buffer text;
    FILE *stream = json_or_text(out, object, &text);
    if (stream == NULL)
        return;
    print_contract_field(stream, caps->mount_contract_version);
    print_field(stream, "known", caps->known ? "yes" : "no");
    text_emit(&text);
}

static const char *reconcile_status_name(sbx_reconcile_status status)
{
    switch (status) {
    case SBX_RECONCILE_FOUND: return "found";
    case SBX_RECONCILE_ABSENT: return "absent";
    case SBX_RECONCILE_UNKNOWN: return "unknown";
    }
    return "unknown";
}

void ctl_print_reconciliation(const ctl_output *out, const char *sandbox_id,
                                  const sbx_reconciliation *result)
{
    const char *status = reconcile_status_name(result->status);
    json_object *object = NULL;
    if (out->json) {
        object = json_object_new_object();
        json_object_object_add(object, "status", json_object_new_string(status));
        json_object_object_add(object, "sandbox",
                               result->sandbox != NULL ? sandbox_json(result->sandbox)
                                                       : NULL);
        json_object_object_add(object, "backend_namespace",
                               json_text(result->backend_namespace));
        json_object_object_add(object, "incarnation_id", json_text(result->incarnation_id));
    }
    text_buffer text;
    FILE *stream = json_or_text(out, object, &text);
    if (stream == NULL)
        return;
    print_field(stream, "reconciliation", status);
    if (result->sandbox != NULL) {
        print_sandbox_fields(stream, result->sandbox);
    } else {
        print_field(stream, "sandbox_id", sandbox_id);
    }
    print_field(stream, "backend_namespace", result->backend_namespace);
    print_field(stream, "incarnation_id", result->incarnation_id);
    text_emit(&text);
}

static const char *backend_kind_name(sbx_backend_kind kind)
{
    return kind == SBX_BACKEND_MODULE ? "module" : "builtin";
}

enum { BACKEND_COLUMNS = 5 };
_Static_assert(BACKEND_COLUMNS <= MAX_COLUMNS, "the backends table fits print_table");

void ctl_print_backends(const ctl_output *out, const sbx_backend_info *entries,
                            size_t count)
{
    char (*abis)[32] = calloc(count + 1, sizeof *abis);
    if (abis == NULL)
        return;
    for (size_t i = 0; i < count; i++)
        snprintf(abis[i], sizeof abis[i], "%u.%u", entries[i].abi_major, entries[i].abi_minor);

    if (out->json) {
        json_object *array = json_object_new_array();
        for (size_t i = 0; i < count; i++) {
            json_object *entry = json_object_new_object();
            json_object_object_add(entry, "name", json_text(entries[i].name));
            json_object_object_add(entry, "kind",
                                   json_object_new_string(backend_kind_name(entries[i].kind)));
            json_object_object_add(entry, "path", json_text(entries[i].path));
            json_object_object_add(entry, "abi", json_object_new_string(abis[i]));
            json_object_object_add(entry, "version", json_text(entries[i].version));
            json_object_array_add(array, entry);
        }
        json_object *object = json_object_new_object();
        json_object_object_add(object, "backends", array);
        emit_json(object);
        free(abis);
        return;
    }
    static const char *const headers[BACKEND_COLUMNS] = {"NAME", "KIND", "ABI", "VERSION",
                                                         "PATH"};
    const char **cells = calloc(count * BACKEND_COLUMNS + 1, sizeof *cells);
    if (cells != NULL) {
        for (size_t i = 0; i < count; i++) {
            const char **row = cells + i * BACKEND_COLUMNS;
            row[0] = cell(entries[i].name);
            row[1] = backend_kind_name(entries[i].kind);
            row[2] = abis[i];
            row[3] = cell(entries[i].version);
            row[4] = cell(entries[i].path);
        }
        emit_table(headers, BACKEND_COLUMNS, cells, count);
    }
    free(cells);
    free(abis);
}

void ctl_print_destroyed(const ctl_output *out, const char *sandbox_id)
{
    print_id_and_flag(out, sandbox_id, "destroyed", 1);
}

void ctl_print_version(const ctl_output *out)
{
    if (out->json) {
        json_object *object = json_object_new_object();
        json_object_object_add(object, "name", json_object_new_string("sbxctl"));
        json_object_object_add(object, "version", json_object_new_string(PACKAGE_VERSION));
        json_object_object_add(object, "abi", json_object_new_string(ABI_VERSION_TEXT));
        emit_json(object);
        return;
    }
    fputs("sbxctl " PACKAGE_VERSION " (backend ABI " ABI_VERSION_TEXT ")\n", stdout);
}

#define LEASE_COLUMNS 4

void ctl_print_leases(const ctl_output *out, const sbx_lease_record *leases,
                          size_t count)
{
    if (out->json) {
        json_object *array = json_object_new_array();
        for (size_t i = 0; i < count; i++) {
            json_object *entry = json_object_new_object();
            json_object_object_add(entry, "sandbox_id", json_text(leases[i].sandbox_id));
            json_object_object_add(entry, "state",
                                   json_object_new_string(leases[i].destroying ? "del" : "own"));
            json_object_object_add(entry, "owner", json_text(leases[i].owner));
            json_object_object_add(entry, "ttl_ms", json_object_new_int64(leases[i].ttl_ms));
            json_object_array_add(array, entry);
        }
        json_object *object = json_object_new_object();
        json_object_object_add(object, "leases", array);
        json_object_object_add(object, "count", json_object_new_int64((int64_t)count));
        emit_json(object);
        return;
    }
    static const char *const headers[LEASE_COLUMNS] = {"SANDBOX", "STATE", "OWNER", "TTL_MS"};
    const char **cells = calloc(count * LEASE_COLUMNS + 1, sizeof *cells);
    char (*ttls)[24] = calloc(count + 1, sizeof *ttls);
    if (cells != NULL && ttls != NULL) {
        for (size_t i = 0; i < count; i++) {
            const char **row = cells + i * LEASE_COLUMNS;
            snprintf(ttls[i], sizeof ttls[i], "%lld", (long long)leases[i].ttl_ms);
            row[0] = cell(leases[i].sandbox_id);
            row[1] = leases[i].destroying ? "del" : "own";
            row[2] = cell(leases[i].owner);
            row[3] = ttls[i];
        }
        emit_table(headers, LEASE_COLUMNS, cells, count);
    }
    free(cells);
    free(ttls);
}

void ctl_print_event(const ctl_output *out, const char *event, const char *key,
                         const char *value)
{
    if (out->json) {
        json_object *object = json_object_new_object();
        json_object_object_add(object, "event", json_object_new_string(event));
        if (key != NULL)
            json_object_object_add(object, key, json_text(value));
        emit_json(object);
    } else {
        text_buffer text;
        FILE *stream = text_open(&text);
        if (stream == NULL)
            return;
        fprintf(stream, "%s", event);
        if (key != NULL) {
            fputc(' ', stream);
            print_clean(stream, value, 0);
        }
        fputc('\n', stream);
        text_emit(&text);
    }
    fflush(stdout);
}

int ctl_fail(const ctl_output *out, const sbx_error *err)
{
    ctl_print_error(out, err);
    return ctl_exit_code(err->kind);
}

/* A stream of a command's output in JSON: "NAME" as text when it is clean
 * UTF-8 (no NUL), else "NAME_base64", so that bytes are never altered. */
static void add_output_json(json_object *object, const char *name, const char *data,
                            size_t len, int truncated)
{
    char key[32];
    if (common_text_is_clean(data, len)) {
        json_object_object_add(object, name, json_object_new_string_len(data, (int)len));
    } else {
        char *encoded = common_base64_encode_alloc(data, len);
        snprintf(key, sizeof key, "%s_base64", name);
        json_object_object_add(object, key,
                               encoded != NULL ? json_object_new_string(encoded) : NULL);
        free(encoded);
    }
    snprintf(key, sizeof key, "%s_truncated", name);
    json_object_object_add(object, key, json_object_new_boolean(truncated));
}

static const char *outcome_name(sbx_exec_outcome outcome)
{
    switch (outcome) {
    case SBX_EXEC_EXITED: return "exited";
    case SBX_EXEC_SIGNALED: return "signaled";
    case SBX_EXEC_TIMED_OUT: return "timed_out";
    }
    return "unknown";
}

void ctl_print_exec_json(const char *sandbox_id, const sbx_exec_result *r)
{
    json_object *object = json_object_new_object();
    json_object_object_add(object, "sandbox_id", json_text(sandbox_id));
    json_object_object_add(object, "outcome", json_object_new_string(outcome_name(r->outcome)));
    json_object_object_add(object, "exit_code", r->outcome == SBX_EXEC_EXITED
                                                    ? json_object_new_int(r->exit_code)
                                                    : NULL);
    json_object_object_add(object, "signal", r->outcome == SBX_EXEC_SIGNALED
                                                 ? json_object_new_int(r->term_signal)
                                                 : NULL);
    json_object_object_add(object, "duration_ms", json_object_new_int64(r->duration_ms));
    add_output_json(object, "stdout", r->stdout_data, r->stdout_length, r->stdout_truncated);
    add_output_json(object, "stderr", r->stderr_data, r->stderr_length, r->stderr_truncated);
    emit_json(object);
}

void ctl_print_cut_notes(size_t stdout_kept, size_t stderr_kept)
{
    if (stdout_kept > 0)
        fprintf(stderr, "sbxctl: stdout was cut after %zu bytes\n", stdout_kept);
    if (stderr_kept > 0)
        fprintf(stderr, "sbxctl: stderr was cut after %zu bytes\n", stderr_kept);
}

void ctl_print_ending_note(sbx_exec_outcome outcome, int term_signal, int64_t duration_ms)
{
    if (outcome == SBX_EXEC_TIMED_OUT && duration_ms >= 0)
        fprintf(stderr, "sbxctl: the command timed out after %lld ms and was killed\n",
                (long long)duration_ms);
    else if (outcome == SBX_EXEC_TIMED_OUT)
        fputs("sbxctl: the command timed out and was killed\n", stderr);
    else if (outcome == SBX_EXEC_SIGNALED)
        fprintf(stderr, "sbxctl: the command was killed by signal %d\n", term_signal);
}

static const char *file_type_name(sbx_file_type type)
{
    switch (type) {
    case SBX_FILE_REGULAR: return "file";
    case SBX_FILE_DIRECTORY: return "directory";
    case SBX_FILE_SYMLINK: return "symlink";
    case SBX_FILE_OTHER: return "other";
    }
    return "other";
}

void ctl_print_listing(const ctl_output *out, const char *sandbox_id, const char *path,
                       const sbx_dir_listing *listing)
{
    char when[TIME_TEXT_SIZE];
    if (out->json) {
        json_object *array = json_object_new_array();
        for (const sbx_dir_entry *e = listing->entries; e != NULL; e = e->next) {
            json_object *entry = json_object_new_object();
            format_time(e->mtime, when, sizeof when);
            json_object_object_add(entry, "path", json_text(e->path));
            json_object_object_add(entry, "type", json_object_new_string(file_type_name(e->type)));
            json_object_object_add(entry, "size", json_object_new_uint64(e->size));
            json_object_object_add(entry, "mtime", when[0] != '\0' ? json_object_new_string(when)
                                                                    : NULL);
            json_object_object_add(entry, "mode", json_object_new_int((int)e->mode));
            json_object_array_add(array, entry);
        }
        json_object *object = json_object_new_object();
        json_object_object_add(object, "sandbox_id", json_text(sandbox_id));
        json_object_object_add(object, "path", json_text(path));
        json_object_object_add(object, "entries", array);
        json_object_object_add(object, "count", json_object_new_uint64(listing->count));
        json_object_object_add(object, "truncated", json_object_new_boolean(listing->truncated));
        emit_json(object);
        return;
    }
    text_buffer text;
    FILE *stream = text_open(&text);
    if (stream == NULL)
        return;
    for (const sbx_dir_entry *e = listing->entries; e != NULL; e = e->next) {
        format_time(e->mtime, when, sizeof when);
        fprintf(stream, "%-9s %04o %12llu %-24s ", file_type_name(e->type), (unsigned)e->mode,
                (unsigned long long)e->size, when[0] != '\0' ? when : "-");
        print_clean(stream, e->path, 0);
        fputc('\n', stream);
    }
    if (listing->truncated)
        fprintf(stream, "(cut after %zu entries)\n", listing->count);
    text_emit(&text);
}

void ctl_print_copied(const ctl_output *out, const char *source, const char *destination,
                      uint64_t bytes)
{
    if (!out->json)
        return; /* as cp: silence is success */
    json_object *object = json_object_new_object();
    json_object_object_add(object, "source", json_text(source));
    json_object_object_add(object, "destination", json_text(destination));
    json_object_object_add(object, "bytes", json_object_new_uint64(bytes));
    emit_json(object);
}

/* How an ended process ended, for ps's EXIT column: its code, "timeout",
 * or the signal's name ("KILL", else its number). */
static void exit_cell(const sbx_process_info *p, char *buf, size_t size)
{
    const char *name = ctl_signal_name(p->term_signal);
    if (p->state == SBX_PROCESS_RUNNING)
        snprintf(buf, size, "%s", UNKNOWN_CELL);
    else if (p->outcome == SBX_EXEC_EXITED)
        snprintf(buf, size, "%d", p->exit_code);
    else if (p->outcome == SBX_EXEC_TIMED_OUT)
        snprintf(buf, size, "timeout");
    else if (name != NULL)
        snprintf(buf, size, "SIG%s", name);
    else
        snprintf(buf, size, "signal %d", p->term_signal);
}

static json_object *process_json(const sbx_process_info *p)
{
    char started[TIME_TEXT_SIZE], ended[TIME_TEXT_SIZE];
    format_time(p->started_at, started, sizeof started);
    format_time(p->ended_at, ended, sizeof ended);
    int is_ended = p->state == SBX_PROCESS_ENDED;
    json_object *argv = json_object_new_array();
    for (char **arg = p->argv; *arg != NULL; arg++)
        json_object_array_add(argv, json_text(*arg));
    json_object *object = json_object_new_object();
    json_object_object_add(object, "process_id", json_text(p->process_id));
    json_object_object_add(object, "state", json_object_new_string(is_ended ? "ended" : "running"));
    json_object_object_add(object, "pty", json_object_new_boolean(p->pty));
    json_object_object_add(object, "started_at", started[0] ? json_object_new_string(started) : NULL);
    json_object_object_add(object, "ended_at", ended[0] ? json_object_new_string(ended) : NULL);
    json_object_object_add(object, "outcome",
                           is_ended ? json_object_new_string(outcome_name(p->outcome)) : NULL);
    json_object_object_add(object, "exit_code", is_ended && p->outcome == SBX_EXEC_EXITED
                                                    ? json_object_new_int(p->exit_code) : NULL);
    json_object_object_add(object, "signal", is_ended && p->outcome == SBX_EXEC_SIGNALED
                                                 ? json_object_new_int(p->term_signal) : NULL);
    json_object_object_add(object, "argv", argv);
    return object;
}

/* The argv as one line: the words joined by spaces. */
static char *command_line(char **argv)
{
    char *line = NULL;
    size_t size = 0;
    FILE *stream = open_memstream(&line, &size);
    if (stream == NULL)
        return NULL;
    for (char **arg = argv; *arg != NULL; arg++)
        fprintf(stream, "%s%s", arg == argv ? "" : " ", *arg);
    if (fclose(stream) != 0) {
        free(line);
        return NULL;
    }
    return line;
}

#define PS_COLUMNS 5

void ctl_print_processes(const ctl_output *out, const char *sandbox_id,
                         const sbx_process_info *processes, size_t count)
{
    if (out->json) {
        json_object *array = json_object_new_array();
        for (const sbx_process_info *p = processes; p != NULL; p = p->next)
            json_object_array_add(array, process_json(p));
        json_object *object = json_object_new_object();
        json_object_object_add(object, "sandbox_id", json_text(sandbox_id));
        json_object_object_add(object, "processes", array);
        json_object_object_add(object, "count", json_object_new_uint64(count));
        emit_json(object);
        return;
    }
    static const char *const headers[PS_COLUMNS] = {"PROCESS_ID", "STATE", "STARTED", "EXIT",
                                                     "COMMAND"};
    const char **cells = calloc(count * PS_COLUMNS + 1, sizeof *cells);
    char (*texts)[2][TIME_TEXT_SIZE] = calloc(count + 1, sizeof *texts);
    char **commands = calloc(count + 1, sizeof *commands);
    size_t row = 0;
    for (const sbx_process_info *p = processes; p != NULL && cells != NULL && texts != NULL &&
                                                commands != NULL && row < count;
         p = p->next, row++) {
        format_time(p->started_at, texts[row][0], sizeof texts[row][0]);
        exit_cell(p, texts[row][1], sizeof texts[row][1]);
        commands[row] = command_line(p->argv);
        const char **cell_row = cells + row * PS_COLUMNS;
        cell_row[0] = p->process_id;
        cell_row[1] = p->state == SBX_PROCESS_ENDED ? "ended" : "running";
        cell_row[2] = cell(texts[row][0]);
        cell_row[3] = texts[row][1];
        cell_row[4] = cell(commands[row]);
    }
    if (cells != NULL && texts != NULL && commands != NULL)
        emit_table(headers, PS_COLUMNS, cells, row);
    for (size_t i = 0; commands != NULL && i < row; i++)
        free(commands[i]);
    free(commands);
    free(texts);
    free(cells);
}

void ctl_print_process_started(const ctl_output *out, const char *sandbox_id,
                               const sbx_process_info *process)
{
    if (!out->json) {
        text_buffer text;
        FILE *stream = text_open(&text);
        if (stream == NULL)
            return;
        print_clean(stream, process->process_id, 0);
        fputc('\n', stream);
        text_emit(&text);
        return;
    }
    json_object *object = json_object_new_object();
    json_object_object_add(object, "sandbox_id", json_text(sandbox_id));
    json_object_object_add(object, "process_id", json_text(process->process_id));
    emit_json(object);
}

void ctl_print_signal_sent(const ctl_output *out, const char *sandbox_id,
                           const char *process_id, int signal)
{
    if (!out->json)
        return; /* as kill(1): silence is success */
    json_object *object = json_object_new_object();
    json_object_object_add(object, "sandbox_id", json_text(sandbox_id));
    json_object_object_add(object, "process_id", json_text(process_id));
    json_object_object_add(object, "signal", json_object_new_int(signal));
    emit_json(object);
}

void ctl_print_session_result(const ctl_output *out, const char *command,
                              const sbx_session_result *r)
{
    if (out->json) {
        json_object *object = json_object_new_object();
        json_object_object_add(object, "command", json_text(command));
        json_object_object_add(object, "exit_code",
                               r->exit_code >= 0 ? json_object_new_int(r->exit_code) : NULL);
        json_object_object_add(object, "timed_out", json_object_new_boolean(r->timed_out));
        json_object_object_add(object, "restarted", json_object_new_boolean(r->restarted));
        add_output_json(object, "stdout", r->stdout_data, r->stdout_length, r->stdout_truncated);
        add_output_json(object, "stderr", r->stderr_data, r->stderr_length, r->stderr_truncated);
        json_object_object_add(object, "dropped_bytes", json_object_new_uint64(r->dropped_bytes));
        emit_json(object);
        fflush(stdout);
        return;
    }
    fwrite(r->stdout_data, 1, r->stdout_length, stdout);
    fflush(stdout);
    fwrite(r->stderr_data, 1, r->stderr_length, stderr);
    ctl_print_cut_notes(r->stdout_truncated ? r->stdout_length : 0,
                        r->stderr_truncated ? r->stderr_length : 0);
    if (r->dropped_bytes > 0)
        fprintf(stderr, "sbxctl: %llu bytes of output were dropped\n",
                (unsigned long long)r->dropped_bytes);
    if (r->timed_out)
        fputs("sbxctl: the command timed out and was interrupted\n", stderr);
    if (r->restarted)
        fputs("sbxctl: the shell was restarted (directory, variables and functions are "
              "those of a new session)\n", stderr);
}
