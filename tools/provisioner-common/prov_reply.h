/* What a provisioner server answers to one request, independent of the HTTP
 * library: the handlers fill an prov_reply, the server sends it. */
#ifndef PROV_REPLY_H
#define PROV_REPLY_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

typedef enum prov_reply_kind {
    PROV_REPLY_NORMAL = 0,   /* status, headers and the whole body */
    PROV_REPLY_TRUNCATE,     /* announce more bytes than sent, then close */
    PROV_REPLY_DROP,         /* close the connection without answering */
    PROV_REPLY_POOL          /* no answer yet: a request tried on the server's
                              * worker (prov_request.worker_bytes) is larger
                              * than it may do there; the server answers it
                              * again on its pool */
} prov_reply_kind;

/* An answer.  Owns its strings (NULL content_type: no Content-Type
 * header at all, as the reference's 401). */
typedef struct prov_reply {
    prov_reply_kind kind;
    unsigned status;
    char *body;
    size_t body_len;
    void (*body_release)(void *cls); /* NULL: body is free()d; else body is
                                      * released by body_release(body_cls) */
    void *body_cls;
    int from_file;          /* non-zero: the body is the file open at file_fd,
                             * file_size bytes from its start (body unused) */
    int file_fd;            /* with from_file: owned, closed once sent or dropped */
    uint64_t file_size;
    char *content_type;
    char *location;         /* NULL: no Location header */
    char *allow;            /* NULL: no Allow header (a 405 names the method) */
    int out_of_memory;      /* building the answer ran out of memory: the
                             * server sends PROV_OUT_OF_MEMORY_BODY instead */
} prov_reply;

/* The status and body of an answer whose building ran out of memory (a
 * static text: sending it allocates nothing of ours). */
#define PROV_OUT_OF_MEMORY_STATUS 503
#define PROV_OUT_OF_MEMORY_BODY "{\"detail\":\"out of memory\"}"

/* Make the reply the out-of-memory answer (what it held is released). */
void prov_reply_out_of_memory(prov_reply *reply);

/* Answer `status` with `body` (copied; NULL is empty) and `content_type`
 * (copied; NULL for none).  Replaces what the reply held; the
 * out-of-memory answer when the copies cannot be made. */
void prov_reply_text(prov_reply *reply, unsigned status, const char *body,
                         const char *content_type);

/* Answer `status` with the compact JSON text of `value`; takes the
 * caller's reference to `value` (put here).  A NULL `value` (a builder
 * that ran out of memory) or a text json-c could not write whole is the
 * out-of-memory answer, never a JSON null or a short body. */
void prov_reply_json(prov_reply *reply, unsigned status, json_object *value);

/* Answer `status` with {"detail": detail} (detail copied). */
void prov_reply_detail(prov_reply *reply, unsigned status, const char *detail);

/* Answer `status` with `len` bytes at `body`, handed over rather than
 * copied (a file's bytes sent as they were read): release(cls) frees them
 * once sent or dropped, and at once when the reply cannot be made. */
void prov_reply_handed(prov_reply *reply, unsigned status, const char *content_type,
                       char *body, size_t len, void (*release)(void *cls), void *cls);

/* Answer `status` with the `size` bytes of the file open at `fd`, sent
 * from the file (sendfile where the connection allows) rather than read
 * into memory: the reply takes `fd`, closed once sent or dropped, and at
 * once when the reply cannot be made.  A file found shorter while sent
 * ends the answer short of its Content-Length: the connection is closed. */
void prov_reply_file(prov_reply *reply, unsigned status, const char *content_type, int fd,
                     uint64_t size);

/* Make the reply PROV_REPLY_POOL (what it held is released). */
void prov_reply_pool(prov_reply *reply);

/* Release what the reply owns and make it an empty 200. */
void prov_reply_clear(prov_reply *reply);

#endif
