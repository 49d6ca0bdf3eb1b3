/* Building replies: every answer body goes through here. */
#include <config.h>

#include "tools/provisioner-common/prov_reply.h"

#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisioner-common/prov_json.h"

#include <stdlib.h>
#include <string.h>

void sbx_prov_reply_clear(sbx_prov_reply *reply)
{
    free(reply->body);
    free(reply->content_type);
    free(reply->location);
    free(reply->allow);
    memset(reply, 0, sizeof *reply);
    reply->status = 200;
}

void sbx_prov_reply_text(sbx_prov_reply *reply, unsigned status, const char *body,
                         const char *content_type)
{
    sbx_prov_reply_clear(reply);
    reply->status = status;
    reply->body_len = body != NULL ? strlen(body) : 0;
    reply->body = sbx_prov_memdup(body != NULL ? body : "", reply->body_len);
    reply->content_type = sbx_prov_strdup(content_type);
    if (reply->body == NULL || (content_type != NULL && reply->content_type == NULL))
        sbx_prov_reply_out_of_memory(reply);
}

void sbx_prov_reply_out_of_memory(sbx_prov_reply *reply)
{
    sbx_prov_reply_clear(reply);
    reply->status = SBX_PROV_OUT_OF_MEMORY_STATUS;
    reply->out_of_memory = 1;
}

void sbx_prov_reply_json(sbx_prov_reply *reply, unsigned status, json_object *value)
{
    const char *text = sbx_prov_json_text(value);
    if (text == NULL)
        sbx_prov_reply_out_of_memory(reply);
    else
        sbx_prov_reply_text(reply, status, text, "application/json");
    json_object_put(value);
}

void sbx_prov_reply_detail(sbx_prov_reply *reply, unsigned status, const char *detail)
{
    json_object *obj = json_object_new_object();
    int built = obj != NULL && sbx_prov_json_add(obj, "detail", json_object_new_string(detail));
    sbx_prov_reply_json(reply, status, sbx_prov_json_built(obj, built));
}
