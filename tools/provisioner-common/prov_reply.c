/* Building replies: every answer body goes through here. */
#include <config.h>

#include "tools/provisioner-common/prov_reply.h"

#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisioner-common/prov_json.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void prov_reply_clear(prov_reply *reply)
{
    if (reply->body_release != NULL)
        reply->body_release(reply->body_cls);
    else
        free(reply->body);
    if (reply->from_file)
        close(reply->file_fd);
    free(reply->content_type);
    free(reply->location);
    free(reply->allow);
    memset(reply, 0, sizeof *reply);
    reply->status = 200;
}

void prov_reply_text(prov_reply *reply, unsigned status, const char *body,
                         const char *content_type)
{
    prov_reply_clear(reply);
    reply->status = status;
    reply->body_len = body != NULL ? strlen(body) : 0;
    reply->body = prov_memdup(body != NULL ? body : "", reply->body_len);
    reply->content_type = prov_strdup(content_type);
    if (reply->body == NULL || (content_type != NULL && reply->content_type == NULL))
        prov_reply_out_of_memory(reply);
}

/* Clear the reply and give it a copy of `content_type` (NULL: none):
 * 0 when memory ran out. */
static int start_with_type(prov_reply *reply, const char *content_type)
{
    prov_reply_clear(reply);
    reply->content_type = prov_strdup(content_type);
    return content_type == NULL || reply->content_type != NULL;
}

void prov_reply_handed(prov_reply *reply, unsigned status, const char *content_type,
                       char *body, size_t len, void (*release)(void *cls), void *cls)
{
    if (!start_with_type(reply, content_type)) {
        release(cls);
        prov_reply_out_of_memory(reply);
        return;
    }
    reply->status = status;
    reply->body = body;
    reply->body_len = len;
    reply->body_release = release;
    reply->body_cls = cls;
}

void prov_reply_file(prov_reply *reply, unsigned status, const char *content_type, int fd,
                     uint64_t size)
{
    if (!start_with_type(reply, content_type)) {
        close(fd);
        prov_reply_out_of_memory(reply);
        return;
    }
    reply->status = status;
    reply->from_file = 1;
    reply->file_fd = fd;
    reply->file_size = size;
}

void prov_reply_pool(prov_reply *reply)
{
    prov_reply_clear(reply);
    reply->kind = PROV_REPLY_POOL;
}

void prov_reply_out_of_memory(prov_reply *reply)
{
    prov_reply_clear(reply);
    reply->status = PROV_OUT_OF_MEMORY_STATUS;
    reply->out_of_memory = 1;
}

void prov_reply_json(prov_reply *reply, unsigned status, json_object *value)
{
    const char *text = prov_json_text(value);
    if (text == NULL)
        prov_reply_out_of_memory(reply);
    else
        prov_reply_text(reply, status, text, "application/json");
    json_object_put(value);
}

void prov_reply_detail(prov_reply *reply, unsigned status, const char *detail)
{
    json_object *obj = json_object_new_object();
    int built = obj != NULL && prov_json_add(obj, "detail", json_object_new_string(detail));
    prov_reply_json(reply, status, prov_json_built(obj, built));
}
