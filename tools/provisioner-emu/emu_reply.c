/* Building replies: every answer body goes through here. */
#include "tools/provisioner-emu/emu_reply.h"

#include "tools/provisioner-emu/emu_alloc.h"
#include "tools/provisioner-emu/emu_json.h"

#include <stdlib.h>
#include <string.h>

void sbx_emu_reply_clear(sbx_emu_reply *reply)
{
    free(reply->body);
    free(reply->content_type);
    free(reply->location);
    free(reply->allow);
    memset(reply, 0, sizeof *reply);
    reply->status = 200;
}

void sbx_emu_reply_text(sbx_emu_reply *reply, unsigned status, const char *body,
                        const char *content_type)
{
    sbx_emu_reply_clear(reply);
    reply->status = status;
    reply->body_len = body != NULL ? strlen(body) : 0;
    reply->body = sbx_emu_xmemdup(body != NULL ? body : "", reply->body_len);
    reply->content_type = sbx_emu_xstrdup(content_type);
}

void sbx_emu_reply_json(sbx_emu_reply *reply, unsigned status, json_object *value)
{
    sbx_emu_reply_text(reply, status, sbx_emu_json_text(value), "application/json");
    json_object_put(value);
}

void sbx_emu_reply_detail(sbx_emu_reply *reply, unsigned status, const char *detail)
{
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "detail", json_object_new_string(detail));
    sbx_emu_reply_json(reply, status, obj);
}
