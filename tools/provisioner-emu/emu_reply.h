/* What the emulator answers to one request, independent of the HTTP
 * library: the handlers fill an sbx_emu_reply, the server sends it. */
#ifndef SBX_EMU_REPLY_H
#define SBX_EMU_REPLY_H

#include <stddef.h>
#include <json-c/json.h>

typedef enum sbx_emu_reply_kind {
    SBX_EMU_REPLY_NORMAL = 0,   /* status, headers and the whole body */
    SBX_EMU_REPLY_TRUNCATE,     /* announce more bytes than sent, then close */
    SBX_EMU_REPLY_DROP          /* close the connection without answering */
} sbx_emu_reply_kind;

/* An answer.  Owns its strings (NULL content_type: no Content-Type
 * header at all, as the reference's 401). */
typedef struct sbx_emu_reply {
    sbx_emu_reply_kind kind;
    unsigned status;
    char *body;
    size_t body_len;
    char *content_type;
    char *location;         /* NULL: no Location header */
    char *allow;            /* NULL: no Allow header (a 405 names the method) */
} sbx_emu_reply;

/* Answer `status` with `body` (copied; NULL is empty) and `content_type`
 * (copied; NULL for none).  Replaces what the reply held. */
void sbx_emu_reply_text(sbx_emu_reply *reply, unsigned status, const char *body,
                        const char *content_type);

/* Answer `status` with the compact JSON text of `value`; takes the
 * caller's reference to `value` (put here). */
void sbx_emu_reply_json(sbx_emu_reply *reply, unsigned status, json_object *value);

/* Answer `status` with {"detail": detail} (detail copied). */
void sbx_emu_reply_detail(sbx_emu_reply *reply, unsigned status, const char *detail);

/* Release what the reply owns and make it an empty 200. */
void sbx_emu_reply_clear(sbx_emu_reply *reply);

#endif
