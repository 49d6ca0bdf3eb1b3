/* A /v1/file/list answer written into one buffer (see aio_list_answer.h). */
#include <config.h>

#include "tools/aio-api/aio_list_answer.h"

#include "tools/provisioner-common/prov_json.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sbx/backend.h>

/* The answer's fixed bytes around the FileInfos. */
static const char head[] = "{\"success\":true,\"message\":\"Operation successful\","
                           "\"data\":{\"files\":[";
static const char tail[] = "},\"hint\":null}";

/* A FileInfo of a listing takes about this much besides its strings. */
#define INFO_BYTES 160u

static void add_literal(common_dynbuf *b, const char *text)
{
    common_dynbuf_add(b, text, strlen(text));
}

/* Append `len` bytes as a JSON string, escaped as json-c escapes them,
 * written over the last `back` bytes held. */
static void add_string_over(common_dynbuf *b, const char *text, size_t len, size_t back)
{
    size_t n = prov_json_string_size(text, len);
    if (common_dynbuf_reserve(b, n) != COMMON_DYNBUF_OK) {
        b->failed = COMMON_DYNBUF_NO_MEMORY;
        return;
    }
    if (b->failed != COMMON_DYNBUF_OK)
        return;
    prov_json_string_write(b->data + b->len - back, text, len);
    b->len += n - back;
    b->data[b->len] = '\0';
}

static void add_string(common_dynbuf *b, const char *text, size_t len)
{
    add_string_over(b, text, len, 0);
}

/* Append the text, or null for NULL. */
static void add_text_or_null(common_dynbuf *b, const char *text)
{
    if (text == NULL)
        add_literal(b, "null");
    else
        add_string(b, text, strlen(text));
}

/* The entry's full path: `dir`, a '/' unless it ends in one, `rel`.
 * Escaping is per byte, so the pieces escape as their whole would: `rel`
 * is written over the closing quote of `dir` (without its last '/'), and
 * its opening quote becomes the '/' between them. */
static void add_full_path(common_dynbuf *b, const char *dir, const char *rel)
{
    size_t dir_len = strlen(dir);
    add_string(b, dir, dir_len > 0 && dir[dir_len - 1] == '/' ? dir_len - 1 : dir_len);
    size_t quote = b->len - 1;
    add_string_over(b, rel, strlen(rel), 1);
    if (b->failed == COMMON_DYNBUF_OK)
        b->data[quote] = '/';
}

/* An ISO 8601 time (UTC, microseconds) of `ms`, or null when unknown. */
static void add_time(common_dynbuf *b, int64_t ms)
{
    time_t seconds = (time_t)(ms / 1000);
    struct tm tm;
    char text[48];
    if (ms == SBX_TIME_UNKNOWN || gmtime_r(&seconds, &tm) == NULL) {
        add_literal(b, "null");
        return;
    }
    size_t n = strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(text + n, sizeof text - n, ".%06d", (int)(ms % 1000) * 1000);
    add_string(b, text, strlen(text));
}

void aio_list_answer_start(aio_list_answer *a, size_t entries)
{
    common_dynbuf_init(&a->text, 0);
    a->files = 0;
    a->directories = 0;
    common_dynbuf_reserve(&a->text, sizeof head + sizeof tail + entries * INFO_BYTES);
    common_dynbuf_add(&a->text, head, sizeof head - 1);
}

void aio_list_answer_add(aio_list_answer *a, const aio_list_file *f)
{
    common_dynbuf *b = &a->text;
    add_literal(b, a->files + a->directories > 0 ? ",{\"name\":" : "{\"name\":");
    add_string(b, f->name, strlen(f->name));
    add_literal(b, ",\"path\":");
    add_full_path(b, f->dir, f->rel);
    add_literal(b, f->directory ? ",\"is_directory\":true,\"size\":"
                                : ",\"is_directory\":false,\"size\":");
    if (f->with_size)
        common_dynbuf_addf(b, "%" PRId64, (int64_t)f->size);
    else
        add_literal(b, "null");
    add_literal(b, ",\"modified_time\":");
    add_time(b, f->mtime_ms);
    add_literal(b, ",\"permissions\":");
    if (f->with_permissions)
        common_dynbuf_addf(b, "\"%o\"", f->mode & 0777u);
    else
        add_literal(b, "null");
    add_literal(b, ",\"extension\":");
    add_text_or_null(b, f->extension);
    add_literal(b, "}");
    if (f->directory)
        a->directories++;
    else
        a->files++;
}

void aio_list_answer_finish(aio_list_answer *a, const char *dir, prov_reply *reply)
{
    common_dynbuf *b = &a->text;
    add_literal(b, "],\"path\":");
    add_string(b, dir, strlen(dir));
    common_dynbuf_addf(b, ",\"total_count\":%zu,\"directory_count\":%zu,\"file_count\":%zu",
                       a->files + a->directories, a->directories, a->files);
    common_dynbuf_add(b, tail, sizeof tail - 1);
    if (b->failed == COMMON_DYNBUF_OK)
        prov_reply_text(reply, 200, NULL, "application/json");
    if (b->failed != COMMON_DYNBUF_OK || reply->out_of_memory) {
        common_dynbuf_free(b);
        prov_reply_out_of_memory(reply);
        return;
    }
    free(reply->body);
    reply->body = common_dynbuf_take(b, &reply->body_len);
}
