/* Expiry of docker sandboxes: the label, the override extend writes, and
 * the removal of a container past it (see docker_expiry.h). */
#include <config.h>

#include "plugin/docker/docker_expiry.h"

#include "common/expiry.h"
#include "common/sandbox_ids.h"
#include "plugin/docker/docker_archive.h"
#include "plugin/docker/docker_calls.h"

#include <stdio.h>
#include <string.h>

int docker_expiry_parse(const char *text, int64_t *out)
{
    if (text == NULL || text[0] == '\0' || strlen(text) > 19 ||
        text[strspn(text, "0123456789")] != '\0')
        return 0;
    int64_t v = 0;
    for (const char *p = text; *p != '\0'; p++) {
        if (v > (INT64_MAX - (*p - '0')) / 10)
            return 0;
        v = v * 10 + (*p - '0');
    }
    *out = v;
    return v > 0;
}

/* The override file's bytes as they arrive (a few digits and a newline). */
typedef struct override_text {
    char text[DOCKER_EXPIRY_TEXT_MAX + 2];
    size_t len;
} override_text;

static int read_override_visit(void *ctx, struct archive *a, struct archive_entry *e,
                               sbx_error *err)
{
    (void)e;
    (void)err;
    override_text *o = ctx;
    la_ssize_t n;
    while (o->len < sizeof o->text - 1 &&
           (n = archive_read_data(a, o->text + o->len, sizeof o->text - 1 - o->len)) > 0)
        o->len += (size_t)n;
    o->text[o->len] = '\0';
    return 1;
}

/* The override of the container at `at`: *found 1 and *out its time, or
 * *found 0 when there is none (or it is not a time: logged, the label
 * stands). */
static sbx_status read_override(sbx_backend_instance *inst, const docker_archive_path *at,
                                int *found, int64_t *out, sbx_error *err)
{
    override_text o;
    memset(&o, 0, sizeof o);
    *found = 0;
    sbx_status st = docker_archive_get(at, read_override_visit, &o, err);
    if (st == SBX_ERR_NO_SUCH_PATH) {
        sbx_backend_error_clear(err);
        return SBX_OK;
    }
    if (st != SBX_OK)
        return st;
    if (o.len > 0 && o.text[o.len - 1] == '\n')
        o.text[--o.len] = '\0';
    *found = docker_expiry_parse(o.text, out);
    if (!*found)
        DOCKER_LOG(inst, SBX_LOG_WARN, "%s: %s is not a time (ms since the epoch): the "
                   "create's expiry stands", at->what, at->path);
    return SBX_OK;
}

sbx_status docker_expiry_settle(sbx_backend_instance *inst, const char *sandbox_id,
                                const char *container_id, int always, int64_t *expires_at,
                                sbx_error *err)
{
    int64_t now = common_epoch_now_ms();
    if (*expires_at == SBX_TIME_UNKNOWN || (!always && !common_expiry_passed(*expires_at, now)))
        return SBX_OK;
    char name[DOCKER_NAME_MAX], what[96];
    if (container_id == NULL)
        docker_container_name(&inst->options, sandbox_id, name, sizeof name);
    sbx_backend_format(what, sizeof what, "expiry of sandbox '%s'", sandbox_id);
    docker_archive_path at = { .engine = &inst->engine,
                               .container_id = container_id != NULL ? container_id : name,
                               .what = what,
                               .path = DOCKER_EXPIRY_DIR "/" DOCKER_EXPIRY_FILE };
    int found = 0;
    int64_t moved = 0;
    sbx_error cause;
    sbx_backend_error_clear(&cause);
    sbx_status st = read_override(inst, &at, &found, &moved, &cause);
    if (st == SBX_ERR_NOT_FOUND)
        return sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "docker: sandbox '%s' not found",
                                     sandbox_id);
    if (st != SBX_OK) {
        DOCKER_LOG(inst, SBX_LOG_WARN, "sandbox %s: its moved expiry cannot be read, the "
                   "create's stands for now: %s", sandbox_id, cause.message);
        return SBX_OK;
    }
    if (found)
        *expires_at = moved;
    if (!common_expiry_passed(*expires_at, common_epoch_now_ms()))
        return SBX_OK;
    DOCKER_LOG(inst, SBX_LOG_INFO, "sandbox %s is past its expiry (%lld): destroying it",
               sandbox_id, (long long)*expires_at);
    st = docker_remove_container(inst, sandbox_id, container_id, err);
    if (st != SBX_OK && st != SBX_ERR_NOT_FOUND)
        return st;
    return sbx_backend_error_set(err, SBX_ERR_NOT_FOUND,
                                 "docker: sandbox '%s' not found (it passed its expiry and was "
                                 "destroyed)", sandbox_id);
}

sbx_status docker_extend(sbx_backend_instance *inst, const char *sandbox_id, int64_t expires_at,
                         sbx_error *err)
{
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st != SBX_OK)
        return st;
    char what[96];
    sbx_backend_format(what, sizeof what, "extend of sandbox '%s'", sandbox_id);
    json_object *inspect = NULL;
    st = docker_inspect_json(inst, sandbox_id, what, &inspect, err);
    if (st == SBX_ERR_NOT_FOUND)
        return sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "docker: sandbox '%s' not found",
                                     sandbox_id);
    if (st != SBX_OK)
        return st;
    docker_sandbox_view view;
    int running = 0;
    st = docker_view_from_inspect(&inst->options, inspect, sandbox_id, &view, &running, err);
    char container_id[DOCKER_CONTAINER_ID_MAX] = "";
    int64_t created_with = SBX_TIME_UNKNOWN, now_at = SBX_TIME_UNKNOWN;
    if (st == SBX_OK) {
        if (view.facts.container_id != NULL)
            snprintf(container_id, sizeof container_id, "%s", view.facts.container_id);
        created_with = now_at = view.facts.expires_at;
    }
    json_object_put(inspect);
    if (st == SBX_OK && created_with == SBX_TIME_UNKNOWN)
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "extend: sandbox '%s' was created without an expiry "
                                     "(expires_at): there is none to move", sandbox_id);
    const char *target = container_id[0] != '\0' ? container_id : NULL;
    if (st == SBX_OK)
        st = docker_expiry_settle(inst, sandbox_id, target, 0, &now_at, err);
    if (st == SBX_OK && expires_at < created_with)
        return sbx_backend_error_set(
            err, SBX_ERR_UNSUPPORTED,
            "extend: docker cannot move the expiry (expires_at) of sandbox '%s' before the "
            "one it was created with (%lld): that one is a container label, which no engine "
            "call changes", sandbox_id, (long long)created_with);
    if (st != SBX_OK)
        return st;
    char name[DOCKER_NAME_MAX], text[DOCKER_EXPIRY_TEXT_MAX + 2];
    docker_container_name(&inst->options, sandbox_id, name, sizeof name);
    int len = snprintf(text, sizeof text, "%lld\n", (long long)expires_at);
    docker_archive_path dir = { .engine = &inst->engine,
                                .container_id = target != NULL ? target : name,
                                .what = what, .path = DOCKER_EXPIRY_DIR };
    st = docker_archive_put(&dir, DOCKER_EXPIRY_FILE, text, (size_t)len, 0600, err);
    if (st == SBX_OK)
        DOCKER_LOG(inst, SBX_LOG_INFO, "sandbox %s now expires at %lld", sandbox_id,
                   (long long)expires_at);
    return st;
}
