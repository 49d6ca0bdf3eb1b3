/* The FileListResult answer of POST /v1/file/list, written straight into
 * one buffer: the same bytes json-c wrote of the answer's tree (members in
 * the same order, json-c's string escapes, other bytes of a name as they
 * are), without building or freeing a tree per entry. */
#ifndef AIO_LIST_ANSWER_H
#define AIO_LIST_ANSWER_H

#include <stddef.h>
#include <stdint.h>

#include "common/dynbuf.h"
#include "tools/provisioner-common/prov_reply.h"

/* What one FileInfo says. */
typedef struct aio_list_file {
    const char *dir;       /* the directory listed, as asked */
    const char *rel;       /* the entry's path below it */
    const char *name;      /* its last component */
    const char *extension; /* NULL: null */
    int directory;
    int with_size;         /* 0: size null */
    uint64_t size;
    int64_t mtime_ms;      /* SBX_TIME_UNKNOWN: modified_time null */
    int with_permissions;  /* 0: permissions null */
    unsigned mode;         /* its permission bits (0777 written in octal) */
} aio_list_file;

/* An answer being written: the text so far and what it counts. */
typedef struct aio_list_answer {
    common_dynbuf text;
    size_t files, directories;
} aio_list_answer;

/* Begin an answer with room for about `entries` FileInfos. */
void aio_list_answer_start(aio_list_answer *a, size_t entries);

/* Append the FileInfo of `f` (a memory failure shows at the finish). */
void aio_list_answer_add(aio_list_answer *a, const aio_list_file *f);

/* End the answer for directory `dir` and hand it to `reply` (200, the
 * success envelope), or the out-of-memory answer when any write failed;
 * `a` is released either way. */
void aio_list_answer_finish(aio_list_answer *a, const char *dir, prov_reply *reply);

#endif
