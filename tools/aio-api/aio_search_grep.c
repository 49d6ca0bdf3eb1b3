/* POST /v1/file/grep and POST /v1/file/search (aio_routes.h): one walk in
 * the sandbox, find(1) choosing the files (no symlink followed below the
 * start path, hidden names and files above max_file_size skipped, the
 * include, exclude and type filters) and GNU grep searching them in
 * batches, or, with no filter but hidden names and no file too big,
 * grep -r walking alone (-Z: names NUL-terminated; PCRE for regexes, whose
 * match limits bound a pattern that backtracks), its output cut at
 * AIO_SEARCH_MAX_OUTPUT bytes so that a walk past the cap stops.  A small
 * tree the backend lists in-process, no file of it too big, is searched by
 * one exec of grep -r alone (no shell, find or head: each process started
 * costs about what grep's search of such a tree does). */
#include <config.h>

#include "common/utf8.h"

#include "tools/aio-api/aio_answers.h"
#include "tools/aio-api/aio_body.h"
#include "tools/aio-api/aio_search.h"
#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisioner-common/prov_json.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const aio_field grep_fields[] = {
    {"path", AIO_FIELD_STRING, 1, 0, NULL},
    {"pattern", AIO_FIELD_STRING, 1, 0, NULL},
    {"include", AIO_FIELD_STRING_ARRAY, 0, 1, NULL},
    {"exclude", AIO_FIELD_STRING_ARRAY, 0, 1, NULL},
    {"case_insensitive", AIO_FIELD_BOOLEAN, 0, 1, NULL},
    {"fixed_strings", AIO_FIELD_BOOLEAN, 0, 1, NULL},
    {"context_before", AIO_FIELD_INTEGER, 0, 1, NULL},
    {"context_after", AIO_FIELD_INTEGER, 0, 1, NULL},
    {"max_results", AIO_FIELD_INTEGER, 0, 1, NULL},
    {"max_file_size", AIO_FIELD_STRING, 0, 1, NULL},
    {"multiline", AIO_FIELD_BOOLEAN, 0, 1, NULL},
    {"offset", AIO_FIELD_INTEGER, 0, 1, NULL},
    {"type", AIO_FIELD_STRING, 0, 1, NULL},
    {"recursive", AIO_FIELD_BOOLEAN, 0, 1, NULL},
};

static const aio_field search_fields[] = {
    {"file", AIO_FIELD_STRING, 1, 0, NULL},
    {"regex", AIO_FIELD_STRING, 1, 0, NULL},
    {"sudo", AIO_FIELD_BOOLEAN, 0, 1, NULL},
};

/* The walk: "$@" is the find command; $GREP_OPTIONS_ our own flags (no
 * request text), $GREP_PATTERN_ the pattern.  check tries the pattern on
 * nothing: a grep that refuses it exits 2; then a grep lacking one of
 * GNU grep's options the walk needs (busybox's lacks all three) makes the
 * walk exit 4 naming them on stderr, else it exits 3 with grep's words on
 * stderr.
 * With $GREP_BIG_ set (a recursive search of a directory, $GREP_ROOT_, by
 * no filter but hidden names and size), grep -r walks the tree itself,
 * from inside it (run on an operand, its --exclude-dir would skip a start
 * path below a hidden directory), when a find that does not print names
 * saw no file above $GREP_BIG_ bytes: one walk by grep instead of find
 * handing it every name, and find's output, a letter a file, counts what
 * grep searches ("%COUNT" on stderr: the names printed are relative).
 * There check runs only when grep -r exited 2 (its status passed on fd
 * 4): a grep started costs ~4 ms of CPU, and a pattern grep -r took needs
 * no check.  Else (a file too big, a find without -printf, a directory it
 * could not read) check runs first, then find chooses the files and xargs
 * hands them to grep: each batch writes "#COUNT" on stderr; batches of
 * up to 1 MiB of names (xargs' default, 128 KiB, starts a grep per ~1 700
 * files). */
static const char grep_script[] =
    "set -f; unset CDPATH\n"
    "check() {\n"
    "  e=$(grep $GREP_OPTIONS_ -e \"$GREP_PATTERN_\" </dev/null 2>&1 >/dev/null)\n"
    "  [ $? = 2 ] || return 0\n"
    "  m=\n"
    "  for o in -Z --no-group-separator -P; do case \" $GREP_OPTIONS_ \" in *\" $o \"*)\n"
    "    grep $o -e x </dev/null >/dev/null 2>&1; [ $? = 2 ] && m=\"$m $o\";; esac; done\n"
    "  [ -n \"$m\" ] && { echo \"$m\" >&2; exit 4; }\n"
    "  printf '%s\\n' \"$e\" >&2; exit 3\n"
    "}\n"
    "if [ -n \"$GREP_BIG_\" ] && c=$(cd -- \"$GREP_ROOT_\" && find . \\( -name '.*' ! -name . \\) "
    "-prune -o -type f \\( -size +\"$GREP_BIG_\"c -printf B -o -printf s \\) 2>/dev/null) &&\n"
    "  case $c in *B*) false;; esac && cd -- \"$GREP_ROOT_\"; then\n"
    "  exec 3>&1\n"
    "  s=$( { { grep -r $GREP_OPTIONS_ --exclude='.*' --exclude-dir='.*' -e \"$GREP_PATTERN_\" "
    "2>/dev/null; echo $? >&4; } | head -c " AIO_SEARCH_CAP " >&3; } 4>&1 )\n"
    "  [ \"$s\" = 2 ] && check\n"
    "  echo \"%${#c}\" >&2\n"
    "  exit 0\n"
    "fi\n"
    "check\n"
    "\"$@\" | xargs -0 -r -s 1048576 sh -c 'set -f; echo \"#$#\" >&2; "
    "exec grep $GREP_OPTIONS_ -e \"$GREP_PATTERN_\" -- \"$@\"' sh | head -c " AIO_SEARCH_CAP;

/* The walk's exit status for a pattern grep refused. */
#define PATTERN_REFUSED 3

/* The walk's exit status for a grep lacking options the walk needs. */
#define GREP_LACKING 4

/* ripgrep's type names the type filter knows, with their globs. */
static const struct {
    const char *type;
    const char *globs[6];
} file_types[] = {
    {"py", {"*.py", "*.pyi", NULL}},       {"js", {"*.js", "*.jsx", "*.mjs", "*.cjs", NULL}},
    {"ts", {"*.ts", "*.tsx", "*.mts", "*.cts", NULL}},
    {"rust", {"*.rs", NULL}},              {"go", {"*.go", NULL}},
    {"c", {"*.c", "*.h", NULL}},           {"cpp", {"*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", NULL}},
    {"java", {"*.java", NULL}},            {"md", {"*.md", "*.markdown", NULL}},
    {"markdown", {"*.md", "*.markdown", NULL}},
    {"json", {"*.json", NULL}},            {"yaml", {"*.yaml", "*.yml", NULL}},
    {"toml", {"*.toml", NULL}},            {"sh", {"*.sh", "*.bash", NULL}},
    {"html", {"*.html", "*.htm", NULL}},   {"css", {"*.css", NULL}},
    {"txt", {"*.txt", NULL}},              {"ruby", {"*.rb", NULL}},
    {"php", {"*.php", NULL}},              {"sql", {"*.sql", NULL}},
};

/* The globs of type `name`; NULL when unknown. */
static const char *const *type_globs(const char *name)
{
    for (size_t i = 0; i < sizeof file_types / sizeof file_types[0]; i++) {
        if (strcmp(file_types[i].type, name) == 0)
            return file_types[i].globs;
    }
    return NULL;
}

/* A size such as "1M", "500K", "2.5G", "100" or "1MB" in bytes; -1 when
 * it is not one. */
static int64_t parse_size(const char *text)
{
    char *end = NULL;
    double n = strtod(text, &end);
    if (end == text || n < 0 || !isdigit((unsigned char)text[0]))
        return -1;
    double unit = 1;
    const char *units = "KMGT";
    const char *u = *end != '\0' ? strchr(units, toupper((unsigned char)*end)) : NULL;
    if (u != NULL) {
        for (const char *k = units; k <= u; k++)
            unit *= 1024;
        end++;
        end += (*end == 'i' || *end == 'I') && (end[1] == 'B' || end[1] == 'b');
    }
    if (*end == 'B' || *end == 'b')
        end++;
    double bytes = n * unit;
    return *end != '\0' || bytes > 9e18 ? -1 : (int64_t)bytes;
}

/* A growing argv of borrowed or owned strings. */
typedef struct argv_list {
    const char **item;
    char **owned;            /* the strings to free */
    size_t count, owned_count, cap;
    int failed;
} argv_list;

static void push(argv_list *a, const char *s)
{
    if (a->failed)
        return;
    if (a->count == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 32;
        const char **item = realloc(a->item, cap * sizeof *item);
        char **owned = realloc(a->owned, cap * sizeof *owned);
        if (item != NULL)
            a->item = item;
        if (owned != NULL)
            a->owned = owned;
        if (item == NULL || owned == NULL) {
            a->failed = 1;
            return;
        }
        a->cap = cap;
    }
    a->item[a->count++] = s;
}

/* Push a new string (freed with the list). */
static void push_owned(argv_list *a, char *s)
{
    if (s == NULL)
        a->failed = 1;
    push(a, s);
    if (!a->failed)
        a->owned[a->owned_count++] = s;
    else
        free(s);
}

static void argv_free(argv_list *a)
{
    for (size_t i = 0; i < a->owned_count; i++)
        free(a->owned[i]);
    free(a->owned);
    free(a->item);
}

/* The find test of one rg-style glob: -name for a name pattern, -path
 * "*" "/PATTERN" for one with a '/'. */
static void push_glob_test(argv_list *a, const char *glob)
{
    if (strchr(glob, '/') == NULL) {
        push(a, "-name");
        push(a, glob);
        return;
    }
    while (*glob == '/')
        glob++;
    size_t n = strlen(glob) + 3;
    char *p = prov_malloc(n);
    if (p != NULL)
        snprintf(p, n, "*/%s", glob);
    push(a, "-path");
    push_owned(a, p);
}

/* "( T1 -o T2 ... )" of the globs of `array` (JSON strings) and `extra`
 * (NULL-terminated, may be NULL); nothing when both are empty. */
static void push_any(argv_list *a, json_object *array, const char *const *extra)
{
    size_t n = array != NULL ? json_object_array_length(array) : 0, e = 0;
    while (extra != NULL && extra[e] != NULL)
        e++;
    if (n + e == 0)
        return;
    push(a, "(");
    for (size_t i = 0; i < n + e; i++) {
        if (i > 0)
            push(a, "-o");
        push_glob_test(a, i < n ? json_object_get_string(json_object_array_get_idx(array, i))
                                : extra[i - n]);
    }
    push(a, ")");
}

/* What a grep walk searches and how. */
typedef struct grep_plan {
    const char *path;
    const char *pattern;
    int fixed, ignore_case, recursive, skip_hidden;
    int64_t before, after;
    int64_t max_size;            /* -1: any size */
    json_object *include, *exclude;
    const char *const *type_globs;
} grep_plan;

/* The find command of `plan` in `a`. */
static void find_command(argv_list *a, const grep_plan *plan)
{
    push(a, "find");
    push(a, "-H");
    push(a, plan->path);
    if (!plan->recursive) {
        push(a, "-maxdepth");
        push(a, "1");
    }
    if (plan->skip_hidden) {
        /* Hidden names below the start path, never the start itself. */
        const char *const hidden[] = {"(", "-name", ".*", "!", "-samefile", plan->path, ")",
                                      "-prune", "-o", NULL};
        for (size_t i = 0; hidden[i] != NULL; i++)
            push(a, hidden[i]);
    }
    if (plan->exclude != NULL && json_object_array_length(plan->exclude) > 0) {
        push_any(a, plan->exclude, NULL);
        push(a, "-prune");
        push(a, "-o");
    }
    push(a, "-type");
    push(a, "f");
    if (plan->max_size >= 0) {
        char *size = prov_malloc(32);
        if (size != NULL)
            snprintf(size, 32, "-%lldc", (long long)plan->max_size + 1);
        push(a, "-size");
        push_owned(a, size);
    }
    push_any(a, plan->include, NULL);
    push_any(a, NULL, plan->type_globs);
    push(a, "-print0");
}

/* Whether grep -r may walk for `plan`: a recursive search whose only
 * filters are hidden names and size (the include, exclude and type globs
 * are find's tests). */
static int grep_r_fits(const grep_plan *plan)
{
    return plan->recursive && plan->skip_hidden && plan->max_size >= 0 &&
           plan->type_globs == NULL &&
           (plan->include == NULL || json_object_array_length(plan->include) == 0) &&
           (plan->exclude == NULL || json_object_array_length(plan->exclude) == 0);
}

/* grep's options for `plan` (no request text), in `out`. */
static void grep_options(const grep_plan *plan, char *out, size_t size)
{
    snprintf(out, size, "-nHsI -Z --no-group-separator %s%s -A %lld -B %lld",
             plan->fixed ? "-F" : "-P", plan->ignore_case ? " -i" : "",
             (long long)plan->after, (long long)plan->before);
}

/* Answer the walk `r` that exited GREP_LACKING or PATTERN_REFUSED: what
 * its stderr names (the options missing, or grep's words on the pattern). */
static void answer_refusal(const sbx_exec_result *r, const grep_plan *plan,
                           const char *operation, prov_reply *reply)
{
    char message[400];
    size_t n = r->stderr_length;
    while (n > 0 && r->stderr_data[n - 1] == '\n')
        n--;
    int words = (int)(n > 300 ? 300 : n);
    if (r->exit_code == GREP_LACKING) {
        snprintf(message, sizeof message,
                 "the sandbox's grep lacks%.*s, which the %s needs: install GNU grep in the "
                 "sandbox (busybox's grep has none of -Z, --no-group-separator, -P)",
                 words, r->stderr_data, operation);
        aio_answer_file_problem(reply, operation, plan->path, "unsupported", message);
        return;
    }
    snprintf(message, sizeof message, "the sandbox's grep refused pattern %.60s%s: %.*s",
             plan->pattern, strlen(plan->pattern) > 60 ? "..." : "", words, r->stderr_data);
    aio_answer_file_problem(reply, operation, plan->path, "invalid_argument", message);
}

/* The files the walk said grep searched ("#COUNT" or "%COUNT" lines on
 * stderr); *relative set when grep -r walked (a "%" line: the names it
 * printed are relative to the start path). */
static long long files_searched(const sbx_exec_result *r, int *relative)
{
    long long total = 0;
    size_t at = 0, len = 0;
    *relative = 0;
    for (const char *l; (l = aio_search_next(r->stderr_data, r->stderr_length, &at, '\n',
                                              &len)) != NULL;) {
        if (len > 1 && (l[0] == '#' || l[0] == '%'))
            total += strtoll(l + 1, NULL, 10);
        *relative |= len > 1 && l[0] == '%';
    }
    return total;
}

/* The most entries and file bytes below a path that grep -r searches
 * alone: its output past the cap (the backend keeps the first
 * AIO_SEARCH_MAX_OUTPUT bytes and drops the rest) is bounded by the
 * tree, with no head to stop it. */
#define SMALL_TREE_ENTRIES 512
#define SMALL_TREE_BYTES 4194304

/* The files grep -r would search for `plan` when the backend's list_dir
 * is in-process and lists the tree whole within the SMALL_TREE bounds,
 * none of them above max_file_size (hidden names skipped as grep's
 * --exclude and --exclude-dir do): their count; -1 otherwise (the walk's
 * own find decides). */
static long long small_tree_files(const aio_call *call, const grep_plan *plan)
{
    sbx_operations_info info = {.struct_size = sizeof info};
    sbx_error err;
    sbx_error_clear(&err);
    if (!grep_r_fits(plan) ||
        sbx_backend_operations_info(call->backend, &info, &err) != SBX_OK ||
        !info.file_calls_local)
        return -1;
    sbx_dir_listing *listing = NULL;
    sbx_status st = sbx_backend_list_dir(call->backend, call->sandbox_id, plan->path, UINT_MAX,
                                         SMALL_TREE_ENTRIES, &listing, &err);
    long long files = st == SBX_OK && listing != NULL && !listing->truncated ? 0 : -1;
    uint64_t bytes = 0;
    for (const sbx_dir_entry *e = files == 0 ? listing->entries : NULL; e != NULL && files >= 0;
         e = e->next) {
        if (e->type != SBX_FILE_REGULAR || aio_search_hidden(e->path))
            continue;
        bytes += e->size;
        files = e->size > (uint64_t)plan->max_size || bytes > SMALL_TREE_BYTES ? -1 : files + 1;
    }
    sbx_backend_free_listing(call->backend, listing);
    return files;
}

/* grep -r run alone (no shell, find or head) in `plan`'s path, names
 * relative to it: 1 with its result when grep exited 0 or 1; -1 when it
 * exited otherwise (a pattern grep refused, a grep lacking an option, a
 * file it could not read: the walk runs and says which); 0 after
 * answering. */
static int run_grep_alone(const aio_call *call, const grep_plan *plan, const char *operation,
                          sbx_exec_result **out, prov_reply *reply)
{
    char options[160];
    grep_options(plan, options, sizeof options);
    const char *args[24] = {"grep", "-r"};
    size_t n = 2;
    /* The walk's options word-split as sh splits them (no request text). */
    char *save = NULL;
    for (char *o = strtok_r(options, " ", &save); o != NULL && n < 20;
         o = strtok_r(NULL, " ", &save))
        args[n++] = o;
    const char *const tail[] = {"--exclude=.*", "--exclude-dir=.*", "-e", plan->pattern};
    memcpy(args + n, tail, sizeof tail);
    n += sizeof tail / sizeof tail[0];
    const sbx_env_var env[] = {{"LC_ALL", "C.UTF-8"}};
    const aio_walk walk = {NULL, args, n, env, 1, plan->path, AIO_SEARCH_MAX_OUTPUT};
    if (!aio_search_run(call, &walk, operation, plan->path, out, reply))
        return 0;
    if ((*out)->exit_code == 0 || (*out)->exit_code == 1)
        return 1;
    sbx_backend_free_exec_result(call->backend, *out);
    *out = NULL;
    return -1;
}

/* Run the walk of `plan`: its result, the files it searched in *searched
 * and *relative set when grep -r walked (names relative to the path), or
 * 0 after answering. */
static int run_grep(const aio_call *call, const grep_plan *plan, const char *operation,
                    sbx_exec_result **out, long long *searched, int *relative,
                    prov_reply *reply)
{
    *searched = small_tree_files(call, plan);
    *relative = 1;
    int alone = *searched >= 0 ? run_grep_alone(call, plan, operation, out, reply) : -1;
    if (alone >= 0)
        return alone;
    argv_list a = {0};
    find_command(&a, plan);
    char options[160], big[32] = "";
    grep_options(plan, options, sizeof options);
    /* Always set: empty, a variable of the sandbox's own of that name
     * cannot turn grep -r on. */
    if (grep_r_fits(plan))
        snprintf(big, sizeof big, "%lld", (long long)plan->max_size);
    const sbx_env_var env[] = {{"GREP_OPTIONS_", options},
                               {"GREP_PATTERN_", plan->pattern},
                               {"LC_ALL", "C.UTF-8"},
                               {"GREP_ROOT_", plan->path},
                               {"GREP_BIG_", big}};
    const aio_walk walk = {grep_script, a.item, a.count, env, sizeof env / sizeof env[0], NULL, 0};
    int ran = 0;
    if (a.failed)
        prov_reply_out_of_memory(reply);
    else if (aio_search_path_ok(call, operation, plan->path, reply))
        ran = aio_search_run(call, &walk, operation, plan->path, out, reply);
    argv_free(&a);
    if (ran && ((*out)->exit_code == GREP_LACKING || (*out)->exit_code == PATTERN_REFUSED)) {
        answer_refusal(*out, plan, operation, reply);
        sbx_backend_free_exec_result(call->backend, *out);
        *out = NULL;
        ran = 0;
    }
    if (ran)
        *searched = files_searched(*out, relative);
    return ran;
}

/* One line grep printed: FILE\0NUMBER(':' a match | '-' context)TEXT\n. */
typedef struct grep_line {
    const char *file;
    size_t file_len;
    long long number;
    int is_match;
    const char *text;
    size_t text_len;
} grep_line;

/* The next line of grep's output from *at; 0 at the end (or a cut line). */
static int next_line(const sbx_exec_result *r, size_t *at, grep_line *line)
{
    const char *data = r->stdout_data;
    size_t len = r->stdout_length, start = *at;
    line->file = aio_search_next(data, len, at, '\0', &line->file_len);
    if (line->file == NULL)
        return 0;
    char *end = NULL;
    line->number = strtoll(data + *at, &end, 10);
    if (end == NULL || end >= data + len || (*end != ':' && *end != '-')) {
        *at = start;
        return 0;
    }
    line->is_match = *end == ':';
    *at = (size_t)(end + 1 - data);
    line->text = aio_search_next(data, len, at, '\n', &line->text_len);
    if (line->text == NULL)
        *at = start;
    return line->text != NULL;
}

/* Text as a JSON string (bytes not UTF-8 repaired); NULL when memory ran
 * out. */
static json_object *text_value(const char *bytes, size_t len)
{
    if (common_utf8_is_valid(bytes, len))
        return json_object_new_string_len(bytes, (int)len);
    size_t text_len = 0, chars = 0;
    char *text = common_utf8_repair(bytes, len, &text_len, &chars);
    json_object *value = text != NULL ? json_object_new_string_len(text, (int)text_len) : NULL;
    free(text);
    return value;
}

/* What building a FileGrepResult keeps between lines. */
typedef struct grep_build {
    json_object *matches;
    json_object *last_after;     /* the context_after of the last match kept */
    grep_line last;              /* that match */
    json_object *before;         /* context lines since (same file, in a row) */
    long long before_last;       /* the number of the last of them */
    const char *before_file;
    size_t before_file_len;
    long long seen, files_matched;
    int truncated;
    int relative;                /* grep -r walked: names relative to the path */
} grep_build;

static int same_file(const char *a, size_t a_len, const char *b, size_t b_len)
{
    return a != NULL && b != NULL && a_len == b_len && memcmp(a, b, a_len) == 0;
}

/* Keep context line `l` for the match before it and the one after. */
static int add_context(grep_build *b, const grep_line *l, const grep_plan *plan)
{
    if (b->last_after != NULL && same_file(l->file, l->file_len, b->last.file,
                                           b->last.file_len) &&
        l->number <= b->last.number + plan->after &&
        !prov_json_append(b->last_after, text_value(l->text, l->text_len)))
        return 0;
    if (!same_file(l->file, l->file_len, b->before_file, b->before_file_len) ||
        l->number != b->before_last + 1) {
        json_object_put(b->before);
        b->before = json_object_new_array();
        b->before_file = l->file;
        b->before_file_len = l->file_len;
    }
    b->before_last = l->number;
    if (b->before != NULL && (int64_t)json_object_array_length(b->before) >= plan->before &&
        json_object_array_length(b->before) > 0)
        json_object_array_del_idx(b->before, 0, 1);
    return plan->before == 0 ||
           (b->before != NULL && prov_json_append(b->before, text_value(l->text, l->text_len)));
}

/* The file of `l` as find prints it (a relative name joined to the start
 * path); NULL when memory ran out. */
static json_object *file_value(const grep_build *b, const grep_line *l, const grep_plan *plan)
{
    if (!b->relative)
        return text_value(l->file, l->file_len);
    char *path = aio_search_join(plan->path, l->file);
    json_object *value = path != NULL ? text_value(path, strlen(path)) : NULL;
    free(path);
    return value;
}

/* The GrepMatch of `l`; NULL when memory ran out. */
static json_object *match_value(grep_build *b, const grep_line *l, const grep_plan *plan)
{
    json_object *m = json_object_new_object();
    int built = m != NULL &&
                prov_json_add(m, "file", file_value(b, l, plan)) &&
                prov_json_add(m, "line_number", json_object_new_int64(l->number)) &&
                prov_json_add(m, "line_content", text_value(l->text, l->text_len));
    int before_here = b->before != NULL && l->number == b->before_last + 1 &&
                      same_file(l->file, l->file_len, b->before_file, b->before_file_len);
    if (built && plan->before > 0)
        built = prov_json_add(m, "context_before",
                              before_here ? json_object_get(b->before)
                                          : json_object_new_array());
    else if (built)
        built = json_object_object_add(m, "context_before", NULL) == 0;
    b->last_after = NULL;
    if (built && plan->after > 0) {
        json_object *after = json_object_new_array();
        built = prov_json_add(m, "context_after", after);
        b->last_after = built ? after : NULL;
    } else if (built) {
        built = json_object_object_add(m, "context_after", NULL) == 0;
    }
    /* A match ends the run of context lines before the next one. */
    json_object_put(b->before);
    b->before = NULL;
    b->before_file = NULL;
    return prov_json_built(m, built);
}

/* Read grep's output into `b`: the matches from offset on, at most
 * max_results; 0 when memory ran out. */
static int read_matches(grep_build *b, const sbx_exec_result *r, const grep_plan *plan,
                        int64_t offset, int64_t max_results)
{
    size_t at = 0, kept = 0;
    grep_line l, previous_match = {0};
    while (next_line(r, &at, &l)) {
        if (!l.is_match) {
            if (!add_context(b, &l, plan))
                return 0;
            continue;
        }
        if (!same_file(l.file, l.file_len, previous_match.file, previous_match.file_len))
            b->files_matched++;
        previous_match = l;
        if (b->seen++ < offset)
            continue;
        if ((int64_t)kept == max_results) {
            b->truncated = 1;
            b->seen--;
            break;
        }
        if (!prov_json_append(b->matches, match_value(b, &l, plan)))
            return 0;
        b->last = l;
        kept++;
    }
    /* The cap cut the walk: more may have followed. */
    b->truncated |= r->stdout_length >= AIO_SEARCH_MAX_OUTPUT;
    return 1;
}

/* The FileGrepResult of a walk that searched `searched` files (`relative`:
 * grep -r walked, names relative to the path); NULL when memory ran out. */
static json_object *grep_result(const grep_plan *plan, const sbx_exec_result *r,
                                long long searched, int relative, int64_t offset,
                                int64_t max_results)
{
    grep_build b = {.matches = json_object_new_array(), .relative = relative};
    json_object *data = json_object_new_object();
    int built = data != NULL && prov_json_add(data, "matches", b.matches) &&
                read_matches(&b, r, plan, offset, max_results) &&
                prov_json_add_string(data, "path", plan->path) &&
                prov_json_add_string(data, "pattern", plan->pattern) &&
                prov_json_add(data, "match_count", json_object_new_int64(b.seen)) &&
                prov_json_add(data, "files_searched", json_object_new_int64(searched)) &&
                prov_json_add(data, "files_matched", json_object_new_int64(b.files_matched)) &&
                prov_json_add(data, "truncated", json_object_new_boolean(b.truncated));
    if (data == NULL)
        json_object_put(b.matches);
    json_object_put(b.before);
    return prov_json_built(data, built);
}

/* The plan of a grep request; 0 after answering a bad field (422). */
static int grep_plan_of(json_object *body, grep_plan *plan, int64_t *offset,
                        int64_t *max_results, prov_reply *reply)
{
    aio_problems problems = {NULL, 0};
    *plan = (grep_plan){
        .path = aio_string(body, "path", ""),
        .pattern = aio_string(body, "pattern", ""),
        .fixed = aio_boolean(body, "fixed_strings", 0),
        .ignore_case = aio_boolean(body, "case_insensitive", 0),
        .recursive = aio_boolean(body, "recursive", 1),
        .skip_hidden = 1,
        .before = aio_search_int(body, "context_before", 0, 0, 20, &problems),
        .after = aio_search_int(body, "context_after", 0, 0, 20, &problems),
        .include = aio_member(body, "include"),
        .exclude = aio_member(body, "exclude"),
    };
    *max_results = aio_search_int(body, "max_results", 500, 1, 10000, &problems);
    *offset = aio_search_int(body, "offset", 0, 0, INT64_MAX, &problems);
    const char *size = aio_string(body, "max_file_size", "1M");
    plan->max_size = parse_size(size);
    if (plan->max_size < 0)
        aio_problem(&problems, "value_error", (aio_loc){"body", "max_file_size", NULL},
                    "Value error, a size such as 1M, 500K or 100 (bytes) is expected",
                    aio_member(body, "max_file_size"));
    const char *type = aio_string(body, "type", NULL);
    if (type != NULL && (plan->type_globs = type_globs(type)) == NULL)
        aio_problem(&problems, "value_error", (aio_loc){"body", "type", NULL},
                    "Value error, unknown file type: known are py, js, ts, rust, go, c, cpp, "
                    "java, md, markdown, json, yaml, toml, sh, html, css, txt, ruby, php, sql",
                    aio_member(body, "type"));
    if (aio_boolean(body, "multiline", 0))
        aio_problem(&problems, "value_error", (aio_loc){"body", "multiline", NULL},
                    "Value error, multiline matching is not supported by this server",
                    aio_member(body, "multiline"));
    if (!aio_problems_found(&problems))
        return 1;
    aio_problems_answer(&problems, reply);
    return 0;
}

void aio_route_grep(const aio_call *call, prov_reply *reply)
{
    json_object *body = aio_body_read(call->req->body, call->req->body_len, grep_fields,
                                      sizeof grep_fields / sizeof grep_fields[0], reply);
    if (body == NULL)
        return;
    grep_plan plan;
    int64_t offset = 0, max_results = 0;
    long long searched = 0;
    int relative = 0;
    sbx_exec_result *result = NULL;
    if (grep_plan_of(body, &plan, &offset, &max_results, reply) &&
        run_grep(call, &plan, "grep", &result, &searched, &relative, reply))
        aio_answer_data(reply,
                        grep_result(&plan, result, searched, relative, offset, max_results));
    sbx_backend_free_exec_result(call->backend, result);
    json_object_put(body);
}

/* The FileSearchResult of a walk over one file; NULL when memory ran out. */
static json_object *search_result(const char *file, const sbx_exec_result *r)
{
    json_object *matches = json_object_new_array();
    json_object *numbers = json_object_new_array();
    json_object *data = json_object_new_object();
    int built = data != NULL && prov_json_add(data, "matches", matches) &&
                prov_json_add(data, "line_numbers", numbers) &&
                prov_json_add_string(data, "file", file);
    if (data == NULL) {
        json_object_put(matches);
        json_object_put(numbers);
    }
    size_t at = 0;
    grep_line l;
    while (built && next_line(r, &at, &l))
        built = prov_json_append(matches, text_value(l.text, l.text_len)) &&
                prov_json_append(numbers, json_object_new_int64(l.number));
    return prov_json_built(data, built);
}

void aio_route_search(const aio_call *call, prov_reply *reply)
{
    json_object *body = aio_body_read(call->req->body, call->req->body_len, search_fields,
                                      sizeof search_fields / sizeof search_fields[0], reply);
    if (body == NULL)
        return;
    const grep_plan plan = {.path = aio_string(body, "file", ""),
                            .pattern = aio_string(body, "regex", ""),
                            .max_size = -1};
    sbx_exec_result *result = NULL;
    long long searched = 0;
    int relative = 0;
    if (run_grep(call, &plan, "search", &result, &searched, &relative, reply))
        aio_answer_data(reply, search_result(plan.path, result));
    sbx_backend_free_exec_result(call->backend, result);
    json_object_put(body);
}
