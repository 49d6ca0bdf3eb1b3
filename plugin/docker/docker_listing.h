/*
 * A directory listing from the records of a walk run in the container
 * (docs/docker.md, list_dir): `find . -maxdepth D -exec stat -c FORMAT`
 * in the listed directory prints, for every entry, one record
 *
 *     MODE SIZE MTIME ./PATH//\n
 *
 * (MODE the raw st_mode in hex, MTIME seconds).  A path find prints has no
 * empty component, so "//\n" never occurs inside one: names with
 * newlines or spaces decode exactly.  Only metadata is read, never a
 * file's bytes.  Pure: no engine, no I/O.
 */
#ifndef SBX_DOCKER_LISTING_H
#define SBX_DOCKER_LISTING_H

#include <sbx/backend.h>

#include <stddef.h>

/* The stat format that prints one record (find supplies the path). */
#define DOCKER_LISTING_STAT_FORMAT "%f %s %Y %n//"

/* The walk's output: `len` bytes of records at `text`. */
typedef struct docker_listing_records {
    char *text;          /* modified in place by the decoding */
    size_t len;
    int cut;             /* the output was cut short */
} docker_listing_records;

/* Decode `records` into a listing: depth first, each directory's entries
 * sorted by name (bytes), at most `max_entries` (more: truncated), the
 * listed directory's own record (".") left out.  Output that was cut
 * short loses its partial last record and makes the listing truncated.
 * SBX_ERR_PROTOCOL naming `what` for a record that is not understood,
 * SBX_ERR_INTERNAL when out of memory. */
sbx_status docker_listing_decode(const docker_listing_records *records, size_t max_entries,
                                 const char *what, sbx_dir_listing **out, sbx_error *err);

#endif
