/* Listings from the walk's records (see docker_listing.h). */
#include <config.h>

#include "plugin/docker/docker_listing.h"

#include "common/op_results.h"

#include <sbx/backend_support.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One decoded record; `path` points into the records, NUL-terminated. */
typedef struct listing_record {
    const char *path;
    sbx_file_type type;
    uint64_t size;
    int64_t mtime_ms;
    uint32_t mode;
} listing_record;

static const char TERMINATOR[] = "//\n";

/* Digits of `base` (10 or 16) at *p up to a space, into *value; the
 * cursor moves past the space.  -1 when there are none or no space. */
static int take_number(const char **p, const char *end, int base, uint64_t *value)
{
    const char *q = *p;
    uint64_t v = 0;
    for (; q < end && *q != ' '; q++) {
        unsigned digit;
        if (*q >= '0' && *q <= '9')
            digit = (unsigned)(*q - '0');
        else if (base == 16 && *q >= 'a' && *q <= 'f')
            digit = (unsigned)(*q - 'a' + 10);
        else
            return -1;
        if (v > (UINT64_MAX - digit) / (unsigned)base)
            return -1;
        v = v * (unsigned)base + digit;
    }
    if (q == *p || q == end)
        return -1;
    *value = v;
    *p = q + 1;
    return 0;
}

static sbx_file_type type_of(uint64_t mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG: return SBX_FILE_REGULAR;
    case S_IFDIR: return SBX_FILE_DIRECTORY;
    case S_IFLNK: return SBX_FILE_SYMLINK;
    default: return SBX_FILE_OTHER;
    }
}

/* The record at `line` (up to `stop`, its "//\n") into *r, its path
 * NUL-terminated in place.  -1 when it is not a record. */
static int decode_record(char *line, char *stop, listing_record *r)
{
    const char *p = line;
    uint64_t mode, size, mtime;
    int negative;
    if (take_number(&p, stop, 16, &mode) != 0 || take_number(&p, stop, 10, &size) != 0)
        return -1;
    negative = p < stop && *p == '-';
    p += negative;
    if (take_number(&p, stop, 10, &mtime) != 0 || mtime > INT64_MAX / 1000)
        return -1;
    if (stop - p == 1 && *p == '.') {
        r->path = NULL; /* the listed directory itself */
        return 0;
    }
    if (stop - p < 3 || p[0] != '.' || p[1] != '/')
        return -1;
    *stop = '\0';
    r->path = p + 2;
    r->type = type_of(mode);
    /* Only a regular file's size is its bytes (abi: 0 for the others). */
    r->size = r->type == SBX_FILE_REGULAR ? size : 0;
    r->mtime_ms = (negative ? -(int64_t)mtime : (int64_t)mtime) * 1000;
    r->mode = (uint32_t)(mode & 07777);
    return 0;
}

/* Depth first, each directory's entries by name: bytes compared with
 * '/' below every other byte (a name holds no NUL), and a path before
 * every path it is a prefix of. */
static int depth_first(const void *a, const void *b)
{
    const unsigned char *x = (const unsigned char *)((const listing_record *)a)->path;
    const unsigned char *y = (const unsigned char *)((const listing_record *)b)->path;
    for (;; x++, y++) {
        int cx = *x == '/' ? 0 : *x == '\0' ? -1 : *x;
        int cy = *y == '/' ? 0 : *y == '\0' ? -1 : *y;
        if (cx != cy)
            return cx < cy ? -1 : 1;
        if (cx == -1)
            return 0;
    }
}

/* Decode every record of `in` into *records (*count of them). */
static sbx_status decode_all(const docker_listing_records *in, const char *what,
                             listing_record **records, size_t *count, sbx_error *err)
{
    size_t n = 0, cap = 0;
    listing_record *all = NULL;
    char *text = in->text, *p = text, *end = text + in->len;
    sbx_status st = SBX_OK;
    while (st == SBX_OK && p < end) {
        char *stop = memmem(p, (size_t)(end - p), TERMINATOR, sizeof TERMINATOR - 1);
        listing_record r;
        if (stop == NULL && in->cut)
            break; /* the record the cut went through */
        if (stop == NULL || decode_record(p, stop, &r) != 0) {
            st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                       "docker: %s: the listing command printed a line that is "
                                       "not a record at byte %zu (is the image's stat or find "
                                       "unusual?)", what, (size_t)(p - text));
            break;
        }
        p = stop + sizeof TERMINATOR - 1;
        if (r.path == NULL)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            listing_record *grown = realloc(all, cap * sizeof *all);
            if (grown == NULL) {
                st = sbx_backend_error_set(err, SBX_ERR_INTERNAL,
                                           "out of memory listing a directory");
                break;
            }
            all = grown;
        }
        all[n++] = r;
    }
    if (st != SBX_OK) {
        free(all);
        return st;
    }
    *records = all;
    *count = n;
    return SBX_OK;
}

sbx_status docker_listing_decode(const docker_listing_records *records, size_t max_entries,
                                 const char *what, sbx_dir_listing **out, sbx_error *err)
{
    *out = NULL;
    listing_record *all = NULL;
    size_t n = 0;
    sbx_status st = decode_all(records, what, &all, &n, err);
    if (st != SBX_OK)
        return st;
    if (n > 1)
        qsort(all, n, sizeof *all, depth_first);
    common_listing_builder b;
    st = common_listing_start(&b, err);
    for (size_t i = 0; st == SBX_OK && i < n && i < max_entries; i++)
        st = common_listing_add(&b, &(common_listing_entry){ all[i].path, all[i].type,
                                all[i].size, all[i].mtime_ms, all[i].mode }, err);
    free(all);
    if (st != SBX_OK) {
        if (b.listing != NULL)
            common_listing_free(b.listing);
        return st;
    }
    b.listing->truncated = records->cut || n > max_entries;
    *out = b.listing;
    return SBX_OK;
}
