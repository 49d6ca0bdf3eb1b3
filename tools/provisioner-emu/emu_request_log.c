/* The request log: a JSON array kept behind a mutex, copied on read. */
#include <config.h>

#include "tools/provisioner-emu/emu_request_log.h"

#include "tools/provisioner-emu/emu_alloc.h"

#include <pthread.h>
#include <stdlib.h>

struct emu_request_log {
    pthread_mutex_t lock;
    json_object *entries;   /* array */
};

emu_request_log *emu_request_log_new(void)
{
    emu_request_log *log = emu_xmalloc(sizeof *log, "the request log");
    pthread_mutex_init(&log->lock, NULL);
    log->entries = json_object_new_array();
    return log;
}

void emu_request_log_free(emu_request_log *log)
{
    if (log == NULL)
        return;
    json_object_put(log->entries);
    pthread_mutex_destroy(&log->lock);
    free(log);
}

static json_object *string_or_null(const char *text)
{
    return text != NULL ? json_object_new_string(text) : NULL;
}

void emu_request_log_add(emu_request_log *log, const prov_request *req)
{
    json_object *entry = json_object_new_object();
    json_object_object_add(entry, "method", json_object_new_string(req->method));
    json_object_object_add(entry, "path", json_object_new_string(req->path));
    json_object_object_add(entry, "api_key", string_or_null(req->api_key));
    json_object_object_add(entry, "content_type", string_or_null(req->content_type));
    json_object_object_add(entry, "body",
                           req->body != NULL && req->body_len > 0
                               ? json_object_new_string_len(req->body, (int)req->body_len)
                               : NULL);
    pthread_mutex_lock(&log->lock);
    json_object_array_add(log->entries, entry);
    pthread_mutex_unlock(&log->lock);
}

json_object *emu_request_log_json(emu_request_log *log)
{
    json_object *copy = NULL;
    pthread_mutex_lock(&log->lock);
    json_object_deep_copy(log->entries, &copy, NULL);
    pthread_mutex_unlock(&log->lock);
    json_object *answer = json_object_new_object();
    int count = (int)json_object_array_length(copy);
    json_object_object_add(answer, "requests", copy);
    json_object_object_add(answer, "count", json_object_new_int(count));
    return answer;
}

void emu_request_log_clear(emu_request_log *log)
{
    pthread_mutex_lock(&log->lock);
    json_object_put(log->entries);
    log->entries = json_object_new_array();
    pthread_mutex_unlock(&log->lock);
}
