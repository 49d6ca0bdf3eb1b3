/* POST /v1/file/str_replace_editor (aio_routes.h): the view, create,
 * str_replace, insert and undo_edit commands of the editor tool the AIO
 * server takes from openhands_aci, with its output texts, through the
 * backend's read_file, write_file and list_dir.  A refusal of the tool
 * (a missing parameter, old_str not found or not unique, a line out of
 * range, no history) answers success false with the StrReplaceEditorResult
 * whose `error` says it; a file the backend cannot read or write answers
 * the FileOperationError of the other file routes. */
#include <config.h>

#include "common/dynbuf.h"
#include "common/utf8.h"

#include "tools/aio-api/aio_answers.h"
#include "tools/aio-api/aio_body.h"
#include "tools/aio-api/aio_edit_history.h"
#include "tools/aio-api/aio_files.h"
#include "tools/aio-api/aio_routes.h"
#include "tools/provisioner-common/prov_json.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const commands[] = {"view", "create", "str_replace", "insert", "undo_edit",
                                       NULL};
static const char *const replace_modes[] = {"ALL", "FIRST", "LAST", NULL};

static const aio_field editor_fields[] = {
    {"command", AIO_FIELD_STRING, 1, 0, commands},
    {"path", AIO_FIELD_STRING, 1, 0, NULL},
    {"file_text", AIO_FIELD_STRING, 0, 1, NULL},
    {"old_str", AIO_FIELD_STRING, 0, 1, NULL},
    {"new_str", AIO_FIELD_STRING, 0, 1, NULL},
    {"insert_line", AIO_FIELD_INTEGER, 0, 1, NULL},
    {"view_range", AIO_FIELD_INTEGER_ARRAY, 0, 1, NULL},
    {"replace_mode", AIO_FIELD_STRING, 0, 1, replace_modes},
    {"page_range", AIO_FIELD_INTEGER_ARRAY, 0, 1, NULL},
    {"sheet_name", AIO_FIELD_STRING, 0, 1, NULL},
    {"row_range", AIO_FIELD_INTEGER_ARRAY, 0, 1, NULL},
    {"slide_range", AIO_FIELD_INTEGER_ARRAY, 0, 1, NULL},
    {"enable_metadata", AIO_FIELD_BOOLEAN, 0, 1, NULL},
};

/* Append a string literal to a dynbuf. */
#define ADD_TEXT(buf, literal) common_dynbuf_add((buf), (literal), sizeof(literal) - 1)

/* Entries a directory's view lists at most. */
#define AIO_EDITOR_LIST_MAX 10000
/* Lines the snippet after an edit shows around it (openhands' SNIPPET_LINES). */
#define SNIPPET_LINES 4

/* One editor request: its body, the answer's members as they are found. */
typedef struct editor {
    const aio_call *call;
    json_object *body;
    const char *path;
    int prev_exist;
    sbx_file_content *old;      /* the file's content read, or NULL */
    common_dynbuf output;
} editor;

/* A text with its length. */
typedef struct text {
    const char *data;
    size_t len;
} text;

/* Lines of `t` as Python's str.split("\n") counts them (n newlines, n + 1). */
static size_t line_count(text t)
{
    size_t n = 1;
    for (const char *p = t.data; (p = memchr(p, '\n', (size_t)(t.data + t.len - p))) != NULL;
         p++)
        n++;
    return n;
}

/* The byte where line `index` (0-based, split on "\n") starts; t.len past
 * the last. */
static size_t line_at(text t, size_t index)
{
    size_t at = 0;
    for (size_t i = 0; i < index; i++) {
        const char *nl = memchr(t.data + at, '\n', t.len - at);
        if (nl == NULL)
            return t.len;
        at = (size_t)(nl - t.data) + 1;
    }
    return at;
}

/* Lines [first, end) of `t` (0-based, split on "\n"), without the
 * newline that ends the last of them. */
static text lines_of(text t, size_t first, size_t end)
{
    size_t from = line_at(t, first);
    size_t to = end >= line_count(t) ? t.len : line_at(t, end) - 1;
    return (text){t.data + from, to > from ? to - from : 0};
}

/* openhands' _make_output: "Here's the result of running `cat -n` on
 * <what>:\n" and each line of `t` as "%6d\t<line>", numbered from `first`. */
static void cat_n(common_dynbuf *out, text t, const char *what, size_t first)
{
    char number[32];
    ADD_TEXT(out, "Here's the result of running `cat -n` on ");
    common_dynbuf_add(out, what, strlen(what));
    ADD_TEXT(out, ":\n");
    const char *at = t.data, *end = t.data + t.len;
    for (size_t line = first;; line++) {
        const char *nl = memchr(at, '\n', (size_t)(end - at));
        int n = snprintf(number, sizeof number, "%6zu\t", line);
        common_dynbuf_add(out, number, (size_t)n);
        common_dynbuf_add(out, at, (size_t)((nl != NULL ? nl : end) - at));
        ADD_TEXT(out, "\n");
        if (nl == NULL)
            break;
        at = nl + 1;
    }
}

/* The answer: success, message and the StrReplaceEditorResult, `error`
 * NULL for a success; the new content when the file was written. */
static void answer(editor *ed, prov_reply *reply, const char *error, const text *new_content)
{
    if (ed->output.failed != COMMON_DYNBUF_OK) {
        prov_reply_out_of_memory(reply);
        return;
    }
    json_object *data = json_object_new_object(), *envelope = json_object_new_object();
    int built = data != NULL && envelope != NULL &&
                prov_json_add(data, "output", json_object_new_string_len(
                                                  ed->output.data != NULL ? ed->output.data : "",
                                                  (int)ed->output.len)) &&
                (error != NULL ? prov_json_add_string(data, "error", error)
                               : json_object_object_add(data, "error", NULL) == 0) &&
                prov_json_add_string(data, "path", ed->path) &&
                prov_json_add(data, "prev_exist", json_object_new_boolean(ed->prev_exist)) &&
                (ed->old != NULL ? prov_json_add(data, "old_content",
                                                 json_object_new_string_len(
                                                     ed->old->data, (int)ed->old->length))
                                 : json_object_object_add(data, "old_content", NULL) == 0) &&
                (new_content != NULL
                     ? prov_json_add(data, "new_content", json_object_new_string_len(
                                                              new_content->data,
                                                              (int)new_content->len))
                     : json_object_object_add(data, "new_content", NULL) == 0) &&
                json_object_object_add(data, "metadata", NULL) == 0;
    if (built) {
        built = prov_json_add(envelope, "success", json_object_new_boolean(error == NULL)) &&
                prov_json_add_string(envelope, "message",
                                     error == NULL ? "Operation successful" : error) &&
                prov_json_add(envelope, "data", data) &&
                json_object_object_add(envelope, "hint", NULL) == 0;
        data = NULL;
    }
    json_object_put(data);
    prov_reply_json(reply, 200, prov_json_built(envelope, built));
}

/* A refusal of the tool: its message (printf format) as `error`. */
static void refuse(editor *ed, prov_reply *reply, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static void refuse(editor *ed, prov_reply *reply, const char *format, ...)
{
    char message[1024];
    va_list ap;
    va_start(ap, format);
    vsnprintf(message, sizeof message, format, ap);
    va_end(ap);
    common_dynbuf_free(&ed->output);
    common_dynbuf_init(&ed->output, 0);
    answer(ed, reply, message, NULL);
}

/* Read the file into ed->old: 1, or 0 with the answer made. */
static int read_file(editor *ed, prov_reply *reply)
{
    sbx_error err;
    sbx_error_clear(&err);
    if (aio_read_whole(ed->call, ed->path, &ed->old, &err) != SBX_OK) {
        aio_answer_file_error(reply, "str_replace_editor", ed->path, &err);
        return 0;
    }
    ed->prev_exist = 1;
    if (!common_utf8_is_valid(ed->old->data, ed->old->length)) {
        aio_answer_file_problem(reply, "str_replace_editor", ed->path, "decode_error",
                                "the file is not UTF-8 text");
        return 0;
    }
    return 1;
}

/* Write `t` over the file: 1, or 0 with the answer made. */
static int write_file(editor *ed, text t, prov_reply *reply)
{
    sbx_error err;
    sbx_error_clear(&err);
    if (sbx_backend_write_file(ed->call->backend, ed->call->sandbox_id, ed->path, t.data, t.len,
                               0, 0, &err) != SBX_OK) {
        aio_answer_file_error(reply, "str_replace_editor", ed->path, &err);
        return 0;
    }
    return 1;
}

/* The history's key of the call's sandbox: its id and incarnation. */
static void history_key(const aio_call *call, char *key, size_t size)
{
    sbx_sandbox_record *record = NULL;
    sbx_error err;
    sbx_error_clear(&err);
    int found = sbx_backend_discover_record(call->backend, call->sandbox_id, &record, &err) ==
                    SBX_OK && record != NULL && record->incarnation_id != NULL;
    snprintf(key, size, "%s\n%s", call->sandbox_id, found ? record->incarnation_id : "");
    sbx_backend_free_records(call->backend, record);
}

static void keep_for_undo(editor *ed)
{
    char key[512];
    history_key(ed->call, key, sizeof key);
    aio_edit_history_push(ed->call->backend, key, ed->path, ed->old->data, ed->old->length);
}

/* view of a directory: find's listing two levels deep, hidden entries
 * left out, as openhands prints it. */
static void view_directory(editor *ed, prov_reply *reply)
{
    if (aio_member(ed->body, "view_range") != NULL) {
        refuse(ed, reply, "The `view_range` parameter is not allowed when `path` points to a "
                          "directory.");
        return;
    }
    sbx_dir_listing *listing = NULL;
    sbx_error err;
    sbx_error_clear(&err);
    if (sbx_backend_list_dir(ed->call->backend, ed->call->sandbox_id, ed->path, 2,
                             AIO_EDITOR_LIST_MAX, &listing, &err) != SBX_OK) {
        aio_answer_file_error(reply, "str_replace_editor", ed->path, &err);
        return;
    }
    size_t dir_len = strlen(ed->path);
    while (dir_len > 1 && ed->path[dir_len - 1] == '/')
        dir_len--;
    common_dynbuf *out = &ed->output;
    ADD_TEXT(out, "Here's the files and directories up to 2 levels deep in ");
    common_dynbuf_add(out, ed->path, strlen(ed->path));
    ADD_TEXT(out, ", excluding hidden items:\n");
    common_dynbuf_add(out, ed->path, dir_len);
    ADD_TEXT(out, "\n");
    for (const sbx_dir_entry *e = listing->entries; e != NULL; e = e->next) {
        if (e->path[0] == '.' || strstr(e->path, "/.") != NULL)
            continue;
        common_dynbuf_add(out, ed->path, dir_len);
        if (dir_len > 1)
            ADD_TEXT(out, "/");
        common_dynbuf_add(out, e->path, strlen(e->path));
        ADD_TEXT(out, "\n");
    }
    sbx_backend_free_listing(ed->call->backend, listing);
    answer(ed, reply, NULL, NULL);
}

static void view(editor *ed, prov_reply *reply)
{
    sbx_error err;
    sbx_error_clear(&err);
    sbx_dir_listing *probe = NULL;
    /* A directory lists; a file's listing is refused as not a directory. */
    if (sbx_backend_list_dir(ed->call->backend, ed->call->sandbox_id, ed->path, 1, 1, &probe,
                             &err) == SBX_OK) {
        sbx_backend_free_listing(ed->call->backend, probe);
        view_directory(ed, reply);
        return;
    }
    if (!read_file(ed, reply))
        return;
    text t = {ed->old->data, ed->old->length};
    size_t lines = line_count(t), first = 1, end = lines;
    json_object *range = aio_member(ed->body, "view_range");
    if (range != NULL && json_object_array_length(range) > 0) {
        if (json_object_array_length(range) != 2) {
            refuse(ed, reply, "Invalid `view_range` parameter: %s. It should be a list of two "
                              "integers.", json_object_to_json_string(range));
            return;
        }
        int64_t init = json_object_get_int64(json_object_array_get_idx(range, 0));
        int64_t final = json_object_get_int64(json_object_array_get_idx(range, 1));
        if (init < 1 || (uint64_t)init > lines) {
            refuse(ed, reply, "Invalid `view_range` parameter: [%lld, %lld]. Its first element "
                              "`%lld` should be within the range of lines of the file: "
                              "[1, %zu].", (long long)init, (long long)final, (long long)init,
                   lines);
            return;
        }
        if (final != -1 && (uint64_t)final > lines) {
            refuse(ed, reply, "Invalid `view_range` parameter: [%lld, %lld]. Its second element "
                              "`%lld` should be smaller than the number of lines in the file: "
                              "`%zu`.", (long long)init, (long long)final, (long long)final,
                   lines);
            return;
        }
        if (final != -1 && final < init) {
            refuse(ed, reply, "Invalid `view_range` parameter: [%lld, %lld]. Its second element "
                              "`%lld` should be larger or equal than its first `%lld`.",
                   (long long)init, (long long)final, (long long)final, (long long)init);
            return;
        }
        first = (size_t)init;
        end = final == -1 ? lines : (size_t)final;
    }
    cat_n(&ed->output, lines_of(t, first - 1, end), ed->path, first);
    answer(ed, reply, NULL, NULL);
}

static void create(editor *ed, prov_reply *reply)
{
    json_object *file_text = aio_member(ed->body, "file_text");
    if (file_text == NULL) {
        refuse(ed, reply, "Parameter `file_text` is required for command: create");
        return;
    }
    text t = {json_object_get_string(file_text), (size_t)json_object_get_string_len(file_text)};
    sbx_error err;
    sbx_error_clear(&err);
    sbx_status st = sbx_backend_write_file(ed->call->backend, ed->call->sandbox_id, ed->path,
                                           t.data, t.len, SBX_WRITE_EXCLUSIVE, 0, &err);
    if (st == SBX_ERR_EXISTS) {
        ed->prev_exist = 1;
        refuse(ed, reply, "File already exists at: %s. Cannot overwrite files using command "
                          "`create`.", ed->path);
    } else if (st != SBX_OK) {
        aio_answer_file_error(reply, "str_replace_editor", ed->path, &err);
    } else {
        ADD_TEXT(&ed->output, "File created successfully at: ");
        common_dynbuf_add(&ed->output, ed->path, strlen(ed->path));
        answer(ed, reply, NULL, &t);
    }
}

/* The 1-based line numbers of the occurrences of `old` in `t`, as
 * Python prints a list ("[1, 5]"), in `out` (`size` bytes, cut when long). */
static void occurrence_lines(text t, text old, char *out, size_t size)
{
    size_t used = (size_t)snprintf(out, size, "[");
    size_t line = 1;
    const char *counted = t.data, *end = t.data + t.len;
    for (const char *hit = t.data; (hit = memmem(hit, (size_t)(end - hit), old.data, old.len));
         hit += old.len) {
        for (; counted < hit; counted++)
            line += *counted == '\n';
        if (used < size)
            used += (size_t)snprintf(out + used, size - used, "%s%zu",
                                     out[used - 1] == '[' ? "" : ", ", line);
    }
    if (used < size)
        snprintf(out + used, size - used, "]");
}

/* How an edit shows: the snippet's lines [start, stop) of the edited
 * file, what it is called, and the closing advice. */
typedef struct snippet {
    size_t start, stop;
    const char *what;
    const char *review;
} snippet;

/* Write the edited content `result` (its buffer), keep the content
 * before for undo_edit, and answer "The file ... has been edited." with
 * the snippet; out of memory, or a write refused, answered as such.
 * Frees `result`. */
static void finish_edit(editor *ed, common_dynbuf *result, snippet sn, prov_reply *reply)
{
    text edited = {result->data, result->len};
    if (result->failed != COMMON_DYNBUF_OK) {
        prov_reply_out_of_memory(reply);
    } else if (write_file(ed, edited, reply)) {
        keep_for_undo(ed);
        size_t lines = line_count(edited);
        ADD_TEXT(&ed->output, "The file ");
        common_dynbuf_add(&ed->output, ed->path, strlen(ed->path));
        ADD_TEXT(&ed->output, " has been edited. ");
        cat_n(&ed->output, lines_of(edited, sn.start, sn.stop < lines ? sn.stop : lines),
              sn.what, sn.start + 1);
        common_dynbuf_add(&ed->output, sn.review, strlen(sn.review));
        answer(ed, reply, NULL, &edited);
    }
    common_dynbuf_free(result);
}

static void str_replace(editor *ed, prov_reply *reply)
{
    json_object *old_value = aio_member(ed->body, "old_str");
    if (old_value == NULL) {
        refuse(ed, reply, "Parameter `old_str` is required for command: str_replace");
        return;
    }
    if (!read_file(ed, reply))
        return;
    text t = {ed->old->data, ed->old->length};
    text old = {json_object_get_string(old_value), (size_t)json_object_get_string_len(old_value)};
    json_object *new_value = aio_member(ed->body, "new_str");
    text new_text = {new_value != NULL ? json_object_get_string(new_value) : "",
                     new_value != NULL ? (size_t)json_object_get_string_len(new_value) : 0};
    const char *mode = aio_string(ed->body, "replace_mode", "");
    const char *end = t.data + t.len, *first = NULL, *last = NULL;
    size_t count = 0;
    for (const char *hit = t.data;
         old.len > 0 && (hit = memmem(hit, (size_t)(end - hit), old.data, old.len)) != NULL;
         hit += old.len, count++) {
        if (first == NULL)
            first = hit;
        last = hit;
    }
    if (count == 0) {
        refuse(ed, reply, "No replacement was performed, old_str `%.*s` did not appear "
                          "verbatim in %s.", (int)(old.len < 400 ? old.len : 400), old.data,
               ed->path);
        return;
    }
    if (count > 1 && mode[0] == '\0') {
        char lines[256];
        occurrence_lines(t, old, lines, sizeof lines);
        refuse(ed, reply, "No replacement was performed. Multiple occurrences of old_str `%.*s` "
                          "in lines %s. Please ensure it is unique.",
               (int)(old.len < 400 ? old.len : 400), old.data, lines);
        return;
    }
    int all = strcmp(mode, "ALL") == 0;
    const char *only = strcmp(mode, "LAST") == 0 ? last : first;
    common_dynbuf result;
    common_dynbuf_init(&result, t.len);
    const char *at = t.data;
    for (const char *hit = t.data; (hit = memmem(hit, (size_t)(end - hit), old.data, old.len));
         hit += old.len) {
        if (!all && hit != only)
            continue;
        common_dynbuf_add(&result, at, (size_t)(hit - at));
        common_dynbuf_add(&result, new_text.data, new_text.len);
        at = hit + old.len;
    }
    common_dynbuf_add(&result, at, (size_t)(end - at));
    ADD_TEXT(&result, "");
    /* The snippet: SNIPPET_LINES lines either side of the (first) edit. */
    size_t line = 0;
    for (const char *p = t.data; p < only; p++)
        line += *p == '\n';
    char what[4200];
    snprintf(what, sizeof what, "a snippet of %s", ed->path);
    snippet sn = {line > SNIPPET_LINES ? line - SNIPPET_LINES : 0,
                  line + SNIPPET_LINES + line_count(new_text), what,
                  "Review the changes and make sure they are as expected. Edit the file again "
                  "if necessary."};
    finish_edit(ed, &result, sn, reply);
}

static void insert(editor *ed, prov_reply *reply)
{
    json_object *at_value = aio_member(ed->body, "insert_line");
    json_object *new_value = aio_member(ed->body, "new_str");
    if (at_value == NULL) {
        refuse(ed, reply, "Parameter `insert_line` is required for command: insert");
        return;
    }
    if (new_value == NULL) {
        refuse(ed, reply, "Parameter `new_str` is required for command: insert");
        return;
    }
    if (!read_file(ed, reply))
        return;
    text t = {ed->old->data, ed->old->length};
    text new_text = {json_object_get_string(new_value),
                     (size_t)json_object_get_string_len(new_value)};
    size_t lines = line_count(t);
    int64_t at_line = json_object_get_int64(at_value);
    if (at_line < 0 || (uint64_t)at_line > lines) {
        refuse(ed, reply, "Invalid `insert_line` parameter: %lld. It should be within the range "
                          "of lines of the file: [0, %zu]", (long long)at_line, lines);
        return;
    }
    /* Lines [0, at) then the new lines then the rest, split and joined on
     * "\n" as openhands does. */
    size_t split = at_line == 0 ? 0 : line_at(t, (size_t)at_line);
    int after_last = (size_t)at_line == lines;
    common_dynbuf result;
    common_dynbuf_init(&result, t.len + new_text.len + 2);
    common_dynbuf_add(&result, t.data, after_last ? t.len : split);
    if (after_last && at_line > 0)
        ADD_TEXT(&result, "\n");
    common_dynbuf_add(&result, new_text.data, new_text.len);
    if (!after_last) {
        ADD_TEXT(&result, "\n");
        common_dynbuf_add(&result, t.data + split, t.len - split);
    }
    ADD_TEXT(&result, "");
    snippet sn = {at_line > SNIPPET_LINES ? (size_t)at_line - SNIPPET_LINES : 0,
                  (size_t)at_line + SNIPPET_LINES + line_count(new_text),
                  "a snippet of the edited file",
                  "Review the changes and make sure they are as expected (correct indentation, "
                  "no duplicate lines, etc). Edit the file again if necessary."};
    finish_edit(ed, &result, sn, reply);
}

static void undo_edit(editor *ed, prov_reply *reply)
{
    char key[512];
    history_key(ed->call, key, sizeof key);
    size_t len = 0;
    char *before = aio_edit_history_pop(ed->call->backend, key, ed->path, &len);
    if (before == NULL) {
        refuse(ed, reply, "No edit history found for %s.", ed->path);
        return;
    }
    if (!read_file(ed, reply)) {
        free(before);
        return;
    }
    text t = {before, len};
    if (write_file(ed, t, reply)) {
        ADD_TEXT(&ed->output, "Last edit to ");
        common_dynbuf_add(&ed->output, ed->path, strlen(ed->path));
        ADD_TEXT(&ed->output, " undone successfully. ");
        cat_n(&ed->output, t, ed->path, 1);
        answer(ed, reply, NULL, &t);
    }
    free(before);
}

void aio_route_str_replace_editor(const aio_call *call, prov_reply *reply)
{
    json_object *body = aio_body_read(call->req->body, call->req->body_len, editor_fields,
                                      sizeof editor_fields / sizeof editor_fields[0], reply);
    if (body == NULL)
        return;
    editor ed = {.call = call, .body = body, .path = aio_string(body, "path", "")};
    common_dynbuf_init(&ed.output, 0);
    const char *command = aio_string(body, "command", "");
    if (ed.path[0] != '/') {
        refuse(&ed, reply, "The path %s is not an absolute path, it should start with `/`.",
               ed.path);
    } else if (strcmp(command, "view") == 0) {
        view(&ed, reply);
    } else if (strcmp(command, "create") == 0) {
        create(&ed, reply);
    } else if (strcmp(command, "str_replace") == 0) {
        str_replace(&ed, reply);
    } else if (strcmp(command, "insert") == 0) {
        insert(&ed, reply);
    } else {
        undo_edit(&ed, reply);
    }
    common_dynbuf_free(&ed.output);
    sbx_backend_free_file_content(call->backend, ed.old);
    json_object_put(body);
}
