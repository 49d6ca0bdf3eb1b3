/* The JSON configuration file: parsing, validation, expansion, overrides. */
#include <config.h>

#include "host-api/src/config_manager.h"
#include "host-api/src/env_expand.h"
#include <sbx/host.h>
#include <sbx/backend_support.h>

#include "common/dynbuf.h"
#include "common/json_stream.h"
#include "common/printable.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Options of one backend, strings owned. */
typedef struct backend_options {
    char *name;
    sbx_option *options;   /* key/value point to owned copies */
    size_t count, cap;
} backend_options;

struct sbx_config {
    char *backend;
    char **module_path;
    size_t module_path_count;
    backend_options *backends;
    size_t backend_count, backend_cap;
    host_config_manager_section *manager;   /* NULL: no `manager` section */
};

/* Largest configuration file accepted: configs are small; this bounds reads. */
#define CONFIG_MAX_BYTES (1024 * 1024)

sbx_status sbx_config_new(sbx_config **out, sbx_error *err)
{
    sbx_error_clear(err);
    *out = calloc(1, sizeof **out);
    return *out ? SBX_OK : sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
}

void sbx_config_free(sbx_config *c)
{
    if (c == NULL)
        return;
    free(c->backend);
    for (size_t i = 0; i < c->module_path_count; i++)
        free(c->module_path[i]);
    free(c->module_path);
    for (size_t i = 0; i < c->backend_count; i++) {
        for (size_t j = 0; j < c->backends[i].count; j++) {
            free((char *)c->backends[i].options[j].key);
            free((char *)c->backends[i].options[j].value);
        }
        free(c->backends[i].options);
        free(c->backends[i].name);
    }
    free(c->backends);
    host_config_manager_section_free(c->manager);
    free(c);
}

void sbx_config_manager(const sbx_config *c, sbx_manager_config *out)
{
    host_config_manager_section_get(c != NULL ? c->manager : NULL, out);
}

const char *sbx_config_backend(const sbx_config *c)
{
    return c->backend;
}

const char *const *sbx_config_module_path(const sbx_config *c, size_t *count)
{
    *count = c->module_path_count;
    return (const char *const *)c->module_path;
}

static backend_options *find_backend(const sbx_config *c, const char *name)
{
    for (size_t i = 0; i < c->backend_count; i++)
        if (strcmp(c->backends[i].name, name) == 0)
            return &c->backends[i];
    return NULL;
}

const sbx_option *sbx_config_backend_options(const sbx_config *c, const char *name,
                                             size_t *count)
{
    backend_options *b = find_backend(c, name);
    *count = b ? b->count : 0;
    return b ? b->options : NULL;
}

static backend_options *add_backend(sbx_config *c, const char *name)
{
    backend_options *b = find_backend(c, name);
    if (b != NULL)
        return b;
    if (c->backend_count == c->backend_cap) {
        size_t cap = c->backend_cap ? c->backend_cap * 2 : 4;
        backend_options *grown = realloc(c->backends, cap * sizeof *grown);
        if (grown == NULL)
            return NULL;
        c->backends = grown;
        c->backend_cap = cap;
    }
    b = &c->backends[c->backend_count];
    *b = (backend_options){.name = strdup(name)};
    if (b->name == NULL)
        return NULL;
    c->backend_count++;
    return b;
}

/* Set key=value in `b`, taking ownership of `value` (freed on failure). */
static sbx_status put_option(backend_options *b, const char *key, char *value, sbx_error *err)
{
    for (size_t i = 0; i < b->count; i++) {
        if (strcmp(b->options[i].key, key) == 0) {
            free((char *)b->options[i].value);
            b->options[i].value = value;
            return SBX_OK;
        }
    }
    if (b->count == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 8;
        sbx_option *grown = realloc(b->options, cap * sizeof *grown);
        if (grown == NULL) {
            free(value);
            return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
        }
        b->options = grown;
        b->cap = cap;
    }
    char *key_copy = strdup(key);
    if (key_copy == NULL) {
        free(value);
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    b->options[b->count++] = (sbx_option){.key = key_copy, .value = value};
    return SBX_OK;
}

sbx_status sbx_config_set_option(sbx_config *c, const char *name, const char *key,
                                 const char *value, sbx_error *err)
{
    sbx_error_clear(err);
    char shown_key[80], shown_name[80], what[200];
    sbx_backend_format(what, sizeof what, "option '%s' of backend '%s'",
             common_printable(key, shown_key, sizeof shown_key),
             common_printable(name, shown_name, sizeof shown_name));
    sbx_status st = host_config_check_text(key, strlen(key), what, err);
    if (st == SBX_OK)
        st = host_config_check_text(value, strlen(value), what, err);
    if (st != SBX_OK)
        return st;
    backend_options *b = add_backend(c, name);
    char *copy = b ? strdup(value) : NULL;
    if (copy == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    return put_option(b, key, copy, err);
}

sbx_status sbx_config_set_backend(sbx_config *c, const char *name, sbx_error *err)
{
    sbx_error_clear(err);
    char *copy = strdup(name);
    if (copy == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    free(c->backend);
    c->backend = copy;
    return SBX_OK;
}

static sbx_status parse_module_path(sbx_config *c, json_object *v, const char *origin,
                                    sbx_error *err)
{
    if (!json_object_is_type(v, json_type_array))
        return sbx_error_set(err, SBX_ERR_CONFIG,
                             "%s: module_path must be an array of directory strings", origin);
    size_t n = json_object_array_length(v);
    c->module_path = calloc(n ? n : 1, sizeof *c->module_path);
    if (c->module_path == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        json_object *item = json_object_array_get_idx(v, i);
        char where[256];
        sbx_backend_format(where, sizeof where, "%s: module_path[%zu]", origin, i);
        if (!json_object_is_type(item, json_type_string))
            return sbx_error_set(err, SBX_ERR_CONFIG, "%s must be a string", where);
        sbx_status st = host_config_expand_string(item, where, &c->module_path[i], err);
        if (st != SBX_OK)
            return st;
        c->module_path_count++;
    }
    return SBX_OK;
}

static sbx_status parse_backend_options(sbx_config *c, const char *name, json_object *v,
                                        const char *origin, sbx_error *err)
{
    if (!json_object_is_type(v, json_type_object))
        return sbx_error_set(err, SBX_ERR_CONFIG, "%s: backends.%s must be an object",
                             origin, name);
    backend_options *b = add_backend(c, name);
    if (b == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    json_object_object_foreach(v, key, value) {
        char where[384];
        sbx_backend_format(where, sizeof where, "%s: backends.%s.%s", origin, name, key);
        char *text;
        sbx_status st;
        switch (json_object_get_type(value)) {
        case json_type_string:
            st = host_config_expand_string(value, where, &text, err);
            if (st != SBX_OK)
                return st;
            break;
        case json_type_int:
        case json_type_double:
        case json_type_boolean:
            /* Options are text at the ABI; keep the JSON spelling. */
            text = strdup(json_object_to_json_string_ext(value, JSON_C_TO_STRING_PLAIN));
            if (text == NULL)
                return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
            break;
        default:
            return sbx_error_set(err, SBX_ERR_CONFIG,
                                 "%s must be a string, number or boolean", where);
        }
        st = put_option(b, key, text, err);
        if (st != SBX_OK)
            return st;
    }
    return SBX_OK;
}

static sbx_status parse_root(sbx_config *c, json_object *root, const char *origin,
                             sbx_error *err)
{
    if (!json_object_is_type(root, json_type_object))
        return sbx_error_set(err, SBX_ERR_CONFIG, "%s: the configuration must be a JSON object",
                             origin);
    json_object_object_foreach(root, key, value) {
        sbx_status st;
        if (strcmp(key, "backend") == 0) {
            char where[256];
            sbx_backend_format(where, sizeof where, "%s: backend", origin);
            if (!json_object_is_type(value, json_type_string))
                return sbx_error_set(err, SBX_ERR_CONFIG, "%s must be a string", where);
            free(c->backend);
            c->backend = NULL;
            st = host_config_expand_string(value, where, &c->backend, err);
        } else if (strcmp(key, "module_path") == 0) {
            st = parse_module_path(c, value, origin, err);
        } else if (strcmp(key, "backends") == 0) {
            if (!json_object_is_type(value, json_type_object))
                return sbx_error_set(err, SBX_ERR_CONFIG, "%s: backends must be an object",
                                     origin);
            st = SBX_OK;
            json_object_object_foreach(value, name, options) {
                st = parse_backend_options(c, name, options, origin, err);
                if (st != SBX_OK)
                    break;
            }
        } else if (strcmp(key, "manager") == 0) {
            st = host_config_manager_section_parse(&c->manager, value, origin, err);
        } else {
            return sbx_error_set(err, SBX_ERR_CONFIG,
                                 "%s: unknown key '%s' (expected backend, module_path, backends, "
                                 "manager)", origin, key);
        }
        if (st != SBX_OK)
            return st;
    }
    return SBX_OK;
}

/* ------------------------------------------------------------ key scan */

/* json-c keeps the last of two equal keys, so {"backend":"local",
 * "backend":"remote"} would select remote without a word.  Once json-c has
 * accepted the text, the shared streaming lexer (common/json_stream.h,
 * which reads it as json-c does) walks it again, and each key it reports
 * is refused when repeated in its object (or when it is not clean text,
 * see check_text), named with its path. */

typedef struct key_frame {
    json_object *seen;     /* keys of this object (as a set); NULL for an array */
    size_t index;          /* the next element of this array */
    size_t path_len;       /* length of the path naming this container's parent */
} key_frame;

typedef struct key_scan {
    common_json_stream lex;
    common_dynbuf key_full;   /* the lexer's key_full: each key whole */
    key_frame frames[COMMON_JSON_STREAM_MAX_OPEN];
    size_t depth;
    char path[256];        /* dotted path of the current container; a cut one ends
                            * in SBX_CUT_MARK */
    char key[80];          /* the last key of the current object, printable */
} key_scan;

/* The path grows by the current key (in an object) or by `index` (in an
 * array); a path too long for the buffer is cut and marked, and stays so. */
static void path_push(key_scan *s, const key_frame *parent, size_t index)
{
    size_t used = strlen(s->path);
    size_t room = sizeof s->path - used;
    if (room <= sizeof SBX_CUT_MARK) {
        /* Full to the last bytes (keys are printable ASCII: no character
         * is split): mark it unless it is marked already. */
        memcpy(s->path + sizeof s->path - sizeof SBX_CUT_MARK, SBX_CUT_MARK,
               sizeof SBX_CUT_MARK);
        return;
    }
    char *at = s->path + used;
    if (parent->seen != NULL)
        sbx_backend_format(at, room, "%s%s", used > 0 ? "." : "", s->key);
    else
        sbx_backend_format(at, room, "[%zu]", index);
}

/* A value begins at the lexer's depth; a container opens a frame (the
 * lexer refuses one past COMMON_JSON_STREAM_MAX_OPEN - 1 open). */
static sbx_status key_scan_begin(key_scan *s, sbx_error *err)
{
    size_t index = 0;
    if (s->depth > 0 && s->frames[s->depth - 1].seen == NULL)
        index = s->frames[s->depth - 1].index++;
    if (s->lex.kind != COMMON_JSON_KIND_OBJECT && s->lex.kind != COMMON_JSON_KIND_ARRAY)
        return SBX_OK;
    size_t path_len = strlen(s->path);
    if (s->depth > 0)
        path_push(s, &s->frames[s->depth - 1], index);
    key_frame *f = &s->frames[s->depth++];
    *f = (key_frame){.path_len = path_len};
    if (s->lex.kind == COMMON_JSON_KIND_OBJECT && (f->seen = json_object_new_object()) == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    return SBX_OK;
}

static void key_scan_close(key_scan *s)
{
    key_frame *f = &s->frames[--s->depth];
    json_object_put(f->seen);
    s->path[f->path_len] = '\0';
}

/* The key the lexer just read (whole in key_full) in the current object. */
static sbx_status key_scan_key(key_scan *s, const char *origin, sbx_error *err)
{
    key_frame *f = &s->frames[s->depth - 1];
    const char *key = s->key_full.data;
    common_printable(key, s->key, sizeof s->key);
    const char *sep = s->path[0] != '\0' ? "." : "";
    char what[512];
    sbx_backend_format(what, sizeof what, "%s: key '%s%s%s'", origin, s->path, sep, s->key);
    sbx_status st = host_config_check_text(key, s->key_full.len, what, err);
    if (st == SBX_OK && json_object_object_get_ex(f->seen, key, NULL))
        st = sbx_error_set(err, SBX_ERR_CONFIG,
                           "%s: duplicate key '%s%s%s' (each key may appear once)",
                           origin, s->path, sep, s->key);
    if (st == SBX_OK && json_object_object_add(f->seen, key, NULL) != 0)
        st = sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    return st;
}

/* Refuse repeated or unclean keys in `text`, which json-c accepted. */
static sbx_status check_keys(const char *text, size_t len, const char *origin, sbx_error *err)
{
    key_scan s;
    common_json_stream_init(&s.lex);
    common_dynbuf_init(&s.key_full, 0);
    s.lex.key_full = &s.key_full;
    s.depth = 0;
    s.path[0] = '\0';
    s.key[0] = '\0';
    common_json_stream_feed(&s.lex, text, len);
    sbx_status st = SBX_OK;
    common_json_event event;
    while (st == SBX_OK && (event = common_json_stream_next(&s.lex)) != COMMON_JSON_EVENT_NONE &&
           !s.lex.out_of_memory) {
        if (event == COMMON_JSON_EVENT_BEGIN)
            st = key_scan_begin(&s, err);
        else if (event == COMMON_JSON_EVENT_KEY)
            st = key_scan_key(&s, origin, err);
        else if (event == COMMON_JSON_EVENT_CLOSE)
            key_scan_close(&s);
    }
    if (st == SBX_OK && s.lex.out_of_memory)
        st = sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    else if (st == SBX_OK && common_json_stream_end(&s.lex) != COMMON_JSON_COMPLETE)
        st = sbx_error_set(err, SBX_ERR_CONFIG, "%s: invalid JSON", origin); /* json-c disagrees */
    while (s.depth > 0)
        key_scan_close(&s);
    common_dynbuf_free(&s.key_full);
    return st;
}

sbx_status sbx_config_parse(const char *text, const char *origin, sbx_config **out,
                            sbx_error *err)
{
    sbx_error_clear(err);
    *out = NULL;
    json_tokener *tok = json_tokener_new();
    if (tok == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    size_t len = strlen(text);
    json_object *root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t used = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (root == NULL || jerr != json_tokener_success) {
        json_object_put(root);
        return sbx_error_set(err, SBX_ERR_CONFIG, "%s: invalid JSON: %s", origin,
                             jerr == json_tokener_continue ? "unexpected end of file"
                                                           : json_tokener_error_desc(jerr));
    }
    for (; used < len; used++) {
        if (strchr(" \t\r\n", text[used]) == NULL) {
            json_object_put(root);
            return sbx_error_set(err, SBX_ERR_CONFIG,
                                 "%s: invalid JSON: trailing text after the object", origin);
        }
    }
    sbx_config *c = NULL;
    sbx_status st = check_keys(text, len, origin, err);
    if (st == SBX_OK)
        st = sbx_config_new(&c, err);
    if (st == SBX_OK)
        st = parse_root(c, root, origin, err);
    json_object_put(root);
    if (st != SBX_OK) {
        sbx_config_free(c);
        return st;
    }
    *out = c;
    return SBX_OK;
}

sbx_status sbx_config_load_file(const char *path, sbx_config **out, sbx_error *err)
{
    sbx_error_clear(err);
    *out = NULL;
    /* O_NONBLOCK: opening a FIFO that has no writer would otherwise wait
     * for one forever; only a regular file is read. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return sbx_error_set(err, SBX_ERR_CONFIG, "cannot read configuration %s: %s", path,
                             strerror(errno));
    struct stat st_file;
    if (fstat(fd, &st_file) != 0 || !S_ISREG(st_file.st_mode)) {
        close(fd);
        return sbx_error_set(err, SBX_ERR_CONFIG,
                             "cannot read configuration %s: not a regular file", path);
    }
    FILE *f = fdopen(fd, "rb");
    if (f == NULL) {
        close(fd);
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    char *text = malloc(CONFIG_MAX_BYTES + 1);
    if (text == NULL) {
        fclose(f);
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    size_t n = fread(text, 1, CONFIG_MAX_BYTES + 1, f);
    int failed = ferror(f);
    fclose(f);
    sbx_status st;
    if (failed)
        st = sbx_error_set(err, SBX_ERR_CONFIG, "cannot read configuration %s", path);
    else if (n > CONFIG_MAX_BYTES)
        st = sbx_error_set(err, SBX_ERR_CONFIG, "configuration %s is larger than %d bytes",
                           path, CONFIG_MAX_BYTES);
    else if (memchr(text, '\0', n) != NULL)
        st = sbx_error_set(err, SBX_ERR_CONFIG, "configuration %s contains a NUL byte", path);
    else {
        text[n] = '\0';
        st = sbx_config_parse(text, path, out, err);
    }
    free(text);
    return st;
}
