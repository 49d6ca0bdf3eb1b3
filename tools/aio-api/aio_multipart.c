/* multipart/form-data (aio_multipart.h). */
#include <config.h>

#include "tools/aio-api/aio_multipart.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Bytes of a boundary (RFC 2046: 1 to 70), with the leading "--". */
#define DELIMITER_MAX 80

/* The "--BOUNDARY" of `content_type` into `out`; 0 when there is none. */
static int delimiter_of(const char *content_type, char *out)
{
    if (content_type == NULL || strncasecmp(content_type, "multipart/form-data", 19) != 0)
        return 0;
    const char *b = strcasestr(content_type, "boundary=");
    if (b == NULL)
        return 0;
    b += 9;
    int quoted = *b == '"';
    b += quoted;
    size_t n = strcspn(b, quoted ? "\"" : "; \t");
    if (n == 0 || n > 70)
        return 0;
    snprintf(out, DELIMITER_MAX, "--%.*s", (int)n, b);
    return 1;
}

/* Parameter `name` ("name=", "filename=") of a Content-Disposition value
 * of `len` bytes into `out` (`size` bytes).  1 when present. */
static int parameter(const char *value, size_t len, const char *name, char *out, size_t size)
{
    size_t name_len = strlen(name);
    for (size_t at = 0; at + name_len < len; at++) {
        /* a whole parameter: after ';' or whitespace, not "filename" for "name" */
        if (strncasecmp(value + at, name, name_len) != 0 ||
            (at > 0 && value[at - 1] != ';' && value[at - 1] != ' ' && value[at - 1] != '\t'))
            continue;
        const char *v = value + at + name_len;
        size_t left = len - at - name_len;
        int quoted = left > 0 && *v == '"';
        v += quoted;
        left -= (size_t)quoted;
        size_t n = 0;
        while (n < left && (quoted ? v[n] != '"' : v[n] != ';' && v[n] != ' '))
            n++;
        snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), v);
        return 1;
    }
    return 0;
}

/* Read the headers of a part (from `start` to the blank line) into `part`;
 * returns the offset of its data, or 0 when there is no blank line. */
static size_t part_headers(const char *body, size_t start, size_t end, aio_part *part)
{
    const char *blank = memmem(body + start, end - start, "\r\n\r\n", 4);
    if (blank == NULL)
        return 0;
    size_t headers_end = (size_t)(blank - body);
    for (size_t at = start; at < headers_end;) {
        const char *eol = memmem(body + at, headers_end - at, "\r\n", 2);
        size_t line_end = eol != NULL ? (size_t)(eol - body) : headers_end;
        static const char disposition[] = "Content-Disposition:";
        size_t dlen = sizeof disposition - 1;
        if (line_end - at > dlen && strncasecmp(body + at, disposition, dlen) == 0) {
            const char *value = body + at + dlen;
            size_t value_len = line_end - at - dlen;
            parameter(value, value_len, "name=", part->name, sizeof part->name);
            part->has_filename = parameter(value, value_len, "filename=", part->filename,
                                           sizeof part->filename);
        }
        at = line_end + 2;
    }
    return headers_end + 4;
}

int aio_multipart_parse(const char *content_type, const char *body, size_t len,
                        aio_part *parts, size_t max, size_t *count)
{
    char delimiter[DELIMITER_MAX];
    *count = 0;
    if (!delimiter_of(content_type, delimiter))
        return 0;
    size_t dlen = strlen(delimiter);
    const char *first = memmem(body, len, delimiter, dlen);
    if (first == NULL)
        return 0;
    size_t at = (size_t)(first - body) + dlen;
    for (;;) {
        if (len - at >= 2 && memcmp(body + at, "--", 2) == 0)
            return 1;   /* the closing delimiter */
        if (len - at < 2 || memcmp(body + at, "\r\n", 2) != 0 || *count == max)
            return 0;
        at += 2;
        /* the part ends at CRLF followed by the next delimiter */
        char next[DELIMITER_MAX + 2];
        snprintf(next, sizeof next, "\r\n%s", delimiter);
        const char *end = memmem(body + at, len - at, next, dlen + 2);
        if (end == NULL)
            return 0;
        size_t end_at = (size_t)(end - body);
        aio_part *part = &parts[*count];
        memset(part, 0, sizeof *part);
        size_t data = part_headers(body, at, end_at + 2, part);
        if (data == 0 || data > end_at)
            return 0;
        part->data = body + data;
        part->len = end_at - data;
        (*count)++;
        at = end_at + 2 + dlen;
    }
}
