/* A /v1/file/list answer written into one buffer (see aio_list_answer.h). */
#include <config.h>

#include "tools/aio-api/aio_list_answer.h"

#include "tools/provisioner-common/prov_json.h"

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

/* The civil date of `days` since 1970-01-01 (proleptic Gregorian, days >= 0). */
static void civil_from_days(int64_t days, int64_t *year, unsigned *month, unsigned *day)
{
    int64_t z = days + 719468, era = z / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    *day = doy - (153 * mp + 2) / 5 + 1;
    *month = mp < 10 ? mp + 3 : mp - 9;
    *year = (int64_t)yoe + era * 400 + (*month <= 2);
}

/* `value` as `width` decimal digits (leading zeros) at `out`. */
static void put_digits(char *out, unsigned value, int width)
{
    for (int i = width - 1; i >= 0; i--, value /= 10)
        out[i] = (char)('0' + value % 10);
}

/* Latest time (ms) written by hand: the end of year 9999, past which
 * strftime's %Y takes more than 4 digits. */
#define HAND_WRITTEN_MS_MAX 253402300799999

/* An ISO 8601 time (UTC, microseconds) of `ms`, or null when unknown.  The
 * common times (1970 to 9999) are written by hand, byte for byte what
 * strftime and snprintf write, which cost more than the rest of an entry;
 * the others go through them. */
static void add_time(common_dynbuf *b, int64_t ms)
{
    if (ms >= 0 && ms <= HAND_WRITTEN_MS_MAX) {
        char text[] = "\"YYYY-MM-DDTHH:MM:SS.mmm000\"";
        int64_t seconds = ms / 1000, year;
        unsigned month, day, in_day = (unsigned)(seconds % 86400);
        civil_from_days(seconds / 86400, &year, &month, &day);
        put_digits(text + 1, (unsigned)year, 4);
        put_digits(text + 6, month, 2);
        put_digits(text + 9, day, 2);
        put_digits(text + 12, in_day / 3600, 2);
        put_digits(text + 15, in_day / 60 % 60, 2);
        put_digits(text + 18, in_day % 60, 2);
        put_digits(text + 21, (unsigned)(ms % 1000), 3);
        common_dynbuf_add(b, text, sizeof text - 1);
        return;
    }
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

/* `value` in decimal, as "%" PRId64 writes it. */
static void add_int64(common_dynbuf *b, int64_t value)
{
    char text[24];
    size_t at = sizeof text;
    uint64_t magnitude = value < 0 ? 0 - (uint64_t)value : (uint64_t)value;
    do {
        text[--at] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude > 0);
    if (value < 0)
        text[--at] = '-';
    common_dynbuf_add(b, text + at, sizeof text - at);
}

/* The permission bits of `mode` as a JSON string in octal, as "\"%o\"". */
static void add_permissions(common_dynbuf *b, unsigned mode)
{
    char text[5];
    size_t at = sizeof text;
    mode &= 0777u;
    text[--at] = '"';
    do {
        text[--at] = (char)('0' + (mode & 7u));
        mode >>= 3;
    } while (mode > 0);
    text[--at] = '"';
    common_dynbuf_add(b, text + at, sizeof text - at);
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
        add_int64(b, (int64_t)f->size);
    else
        add_literal(b, "null");
    add_literal(b, ",\"modified_time\":");
    add_time(b, f->mtime_ms);
    add_literal(b, ",\"permissions\":");
    if (f->with_permissions)
        add_permissions(b, f->mode);
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
