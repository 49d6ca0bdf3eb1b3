/* Create request checks shared by the backends (see create_request.h). */
#include <config.h>

#include "common/create_request.h"

#include "common/exec_request.h"
#include "common/expiry.h"
#include "common/fnv1a.h"
#include "common/sandbox_ids.h"

#include <sbx/backend_support.h>

#include <stddef.h>
#include <stdio.h>
#include <string.h>

sbx_status common_create_request_check(const char *backend, const sbx_create_request *req,
                                       sbx_error *err)
{
    /* A smaller struct_size is a caller built against another ABI: the
     * fields we would read are not there. */
    if (req == NULL ||
        req->struct_size < offsetof(sbx_create_request, required_contract) + sizeof(int))
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "%s: create request missing or built for another ABI "
                                     "(initialise it with SBX_CREATE_REQUEST_INIT)", backend);
    sbx_status st = common_check_sandbox_id(req->sandbox_id, err);
    if (st == SBX_OK)
        st = common_check_principal_id("thread_id", req->thread_id, err);
    if (st == SBX_OK)
        st = common_check_principal_id("user_id", req->user_id, err);
    return st;
}

const char *common_create_request_user(const sbx_create_request *req)
{
    return req->user_id != NULL ? req->user_id : COMMON_DEFAULT_USER_ID;
}

/* Equal as owners: NULL and "" both mean "none". */
static int same_principal(const char *a, const char *b)
{
    if (a == NULL || a[0] == '\0')
        return b == NULL || b[0] == '\0';
    return b != NULL && strcmp(a, b) == 0;
}

sbx_status common_create_request_check_owner(const char *backend, const sbx_create_request *req,
                                             const char *found_user, const char *found_thread,
                                             sbx_error *err)
{
    const char *user = found_user != NULL && found_user[0] != '\0' ? found_user
                                                                  : COMMON_DEFAULT_USER_ID;
    if (strcmp(user, common_create_request_user(req)) != 0)
        return sbx_backend_error_set(err, SBX_ERR_REFUSED,
                                     "%s: sandbox '%s' exists and belongs to another user",
                                     backend, req->sandbox_id);
    if (!same_principal(found_thread, req->thread_id))
        return sbx_backend_error_set(err, SBX_ERR_REFUSED,
                                     "%s: sandbox '%s' exists and belongs to another thread",
                                     backend, req->sandbox_id);
    return SBX_OK;
}

void common_create_request_read(const sbx_create_request *req, sbx_create_request *out)
{
    sbx_create_request defaults = SBX_CREATE_REQUEST_INIT;
    *out = defaults;
    size_t n = req->struct_size < sizeof *out ? req->struct_size : sizeof *out;
    memcpy(out, req, n);
    out->struct_size = sizeof *out;
}

unsigned common_create_request_fields_set(const sbx_create_request *full)
{
    unsigned set = 0;
    if (full->image != NULL)
        set |= SBX_CREATE_IMAGE;
    if (full->env_count > 0)
        set |= SBX_CREATE_ENV;
    if (full->label_count > 0)
        set |= SBX_CREATE_LABELS;
    if (full->memory_bytes != SBX_LIMIT_NONE)
        set |= SBX_CREATE_MEMORY;
    if (full->cpu_millicores != SBX_LIMIT_NONE)
        set |= SBX_CREATE_CPU;
    if (full->pids_limit != SBX_LIMIT_NONE)
        set |= SBX_CREATE_PIDS;
    if (full->disk_bytes != SBX_LIMIT_NONE)
        set |= SBX_CREATE_DISK;
    if (full->network != SBX_NETWORK_DEFAULT)
        set |= SBX_CREATE_NETWORK;
    if (full->expires_at != SBX_TIME_UNKNOWN)
        set |= SBX_CREATE_EXPIRY;
    return set;
}

/* The 1.5 members in the order of the request, with their bits. */
static const struct {
    unsigned bit;
    const char *name;
} create_fields[] = {
    { SBX_CREATE_IMAGE, "image" },           { SBX_CREATE_ENV, "env" },
    { SBX_CREATE_LABELS, "labels" },         { SBX_CREATE_MEMORY, "memory_bytes" },
    { SBX_CREATE_CPU, "cpu_millicores" },    { SBX_CREATE_PIDS, "pids_limit" },
    { SBX_CREATE_DISK, "disk_bytes" },       { SBX_CREATE_NETWORK, "network" },
    { SBX_CREATE_EXPIRY, "expires_at" },
};

const char *common_create_field_name(unsigned bit)
{
    for (size_t i = 0; i < sizeof create_fields / sizeof create_fields[0]; i++)
        if (create_fields[i].bit == bit)
            return create_fields[i].name;
    return "?";
}

/* Non-zero when `s` holds white space or a control byte. */
static int has_space_or_control(const char *s)
{
    for (; *s != '\0'; s++)
        if (*s == ' ' || (unsigned char)*s < 0x20 || *s == 0x7f)
            return 1;
    return 0;
}

static sbx_status check_image(const char *image, sbx_error *err)
{
    if (image == NULL)
        return SBX_OK;
    if (image[0] == '\0' || has_space_or_control(image))
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "create request: image must be a name without white "
                                     "space or control bytes");
    return SBX_OK;
}

static sbx_status check_env(const sbx_env_var *env, size_t count, sbx_error *err)
{
    if (count > 0 && env == NULL)
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "create request: env_count %zu but no env array", count);
    for (size_t i = 0; i < count; i++) {
        if (env[i].name == NULL || !common_env_name_valid(env[i].name))
            return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                         "create request: env #%zu: a name must match "
                                         "^[A-Za-z_][A-Za-z0-9_]*$", i);
        if (env[i].value == NULL)
            return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                         "create request: env #%zu (%s) has no value", i,
                                         env[i].name);
    }
    return SBX_OK;
}

static sbx_status check_label(const sbx_label *labels, size_t i, sbx_error *err)
{
    const char *key = labels[i].key;
    if (key == NULL || key[0] == '\0' || strchr(key, '=') != NULL || has_space_or_control(key))
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "create request: labels #%zu: a key must be non-empty, "
                                     "without '=', white space or control bytes", i);
    if (strlen(key) > SBX_LABEL_KEY_MAX)
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "create request: labels #%zu: key longer than %d bytes",
                                     i, SBX_LABEL_KEY_MAX);
    const char *value = labels[i].value;
    if (value == NULL || strlen(value) > SBX_LABEL_VALUE_MAX)
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "create request: labels #%zu (%s): value missing or "
                                     "longer than %d bytes", i, key, SBX_LABEL_VALUE_MAX);
    if (common_label_value(labels, i, key) != NULL)
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "create request: labels #%zu: key '%s' given twice", i, key);
    return SBX_OK;
}

static sbx_status check_labels(const sbx_label *labels, size_t count, sbx_error *err)
{
    if (count > 0 && labels == NULL)
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "create request: label_count %zu but no labels array",
                                     count);
    if (count > SBX_LABELS_MAX)
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "create request: label_count %zu is more than %d", count,
                                     SBX_LABELS_MAX);
    sbx_status st = SBX_OK;
    for (size_t i = 0; i < count && st == SBX_OK; i++)
        st = check_label(labels, i, err);
    return st;
}

/* A limit is SBX_LIMIT_NONE or at least `min`. */
static sbx_status check_limit(const char *member, int64_t value, int64_t min, sbx_error *err)
{
    if (value == SBX_LIMIT_NONE || value >= min)
        return SBX_OK;
    return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                 "create request: %s %lld is below its minimum %lld "
                                 "(SBX_LIMIT_NONE asks for no limit)", member,
                                 (long long)value, (long long)min);
}

sbx_status common_create_request_check_fields(const sbx_create_request *full, sbx_error *err)
{
    int64_t now_ms = common_epoch_now_ms();
    sbx_status st = check_image(full->image, err);
    if (st == SBX_OK)
        st = check_env(full->env, full->env_count, err);
    if (st == SBX_OK)
        st = check_labels(full->labels, full->label_count, err);
    if (st == SBX_OK)
        st = check_limit("memory_bytes", full->memory_bytes, SBX_MEMORY_MIN_BYTES, err);
    if (st == SBX_OK)
        st = check_limit("cpu_millicores", full->cpu_millicores, 1, err);
    if (st == SBX_OK)
        st = check_limit("pids_limit", full->pids_limit, 1, err);
    if (st == SBX_OK)
        st = check_limit("disk_bytes", full->disk_bytes, 1, err);
    if (st != SBX_OK)
        return st;
    if (full->network != SBX_NETWORK_DEFAULT && full->network != SBX_NETWORK_NONE &&
        full->network != SBX_NETWORK_EGRESS)
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "create request: network %d is none of "
                                     "SBX_NETWORK_DEFAULT, _NONE, _EGRESS", (int)full->network);
    if (full->expires_at != SBX_TIME_UNKNOWN)
        return common_expiry_check_future("create request", full->expires_at, now_ms, err);
    return SBX_OK;
}

sbx_status common_create_request_refuse_unhonoured(const char *backend,
                                                   const sbx_create_request *full,
                                                   unsigned honoured, sbx_error *err)
{
    unsigned refused = common_create_request_fields_set(full) & ~honoured;
    if (refused == 0)
        return SBX_OK;
    unsigned first = refused & -refused;
    return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED,
                                 "%s: create request member '%s' is not supported by this "
                                 "backend", backend, common_create_field_name(first));
}

const char *common_label_value(const sbx_label *labels, size_t count, const char *key)
{
    for (size_t i = 0; i < count; i++)
        if (labels[i].key != NULL && strcmp(labels[i].key, key) == 0)
            return labels[i].value;
    return NULL;
}

int common_labels_include(const sbx_label *have, size_t have_count, const sbx_label *want,
                          size_t want_count)
{
    for (size_t i = 0; i < want_count; i++) {
        const char *value = common_label_value(have, have_count, want[i].key);
        if (value == NULL || strcmp(value, want[i].value) != 0)
            return 0;
    }
    return 1;
}

/* The hash of one name/value pair, to be summed with the others: a sum
 * does not depend on their order. */
static uint64_t pair_hash(const char *tag, const char *name, const char *value)
{
    uint64_t h = common_fnv1a_string(COMMON_FNV1A_BASIS, tag);
    h = common_fnv1a_bytes(common_fnv1a_string(h, name), "", 1);
    return common_fnv1a_string(h, value);
}

/* `hash` extended by tag and number `n`. */
static uint64_t number_hash(uint64_t hash, const char *tag, int64_t n)
{
    char text[48];
    snprintf(text, sizeof text, "%s=%lld;", tag, (long long)n);
    return common_fnv1a_string(hash, text);
}

void common_create_spec_digest(const sbx_create_request *full,
                               char out[COMMON_SPEC_DIGEST_SIZE])
{
    uint64_t pairs = 0;
    for (size_t i = 0; i < full->env_count; i++) {
        int overridden = 0;
        for (size_t j = i + 1; j < full->env_count && !overridden; j++)
            overridden = strcmp(full->env[i].name, full->env[j].name) == 0;
        if (!overridden)
            pairs += pair_hash("env", full->env[i].name, full->env[i].value);
    }
    for (size_t i = 0; i < full->label_count; i++)
        pairs += pair_hash("label", full->labels[i].key, full->labels[i].value);
    uint64_t h = common_fnv1a_string(COMMON_FNV1A_BASIS, "image=");
    h = common_fnv1a_string(h, full->image != NULL ? full->image : "");
    h = number_hash(h, ";pairs", (int64_t)pairs);
    h = number_hash(h, "memory", full->memory_bytes);
    h = number_hash(h, "cpu", full->cpu_millicores);
    h = number_hash(h, "pids", full->pids_limit);
    h = number_hash(h, "disk", full->disk_bytes);
    h = number_hash(h, "network", (int64_t)full->network);
    snprintf(out, COMMON_SPEC_DIGEST_SIZE, "%016llx", (unsigned long long)h);
}

sbx_status common_create_request_check_spec(const char *backend,
                                            const sbx_create_request *full,
                                            const char *found, sbx_error *err)
{
    char want[COMMON_SPEC_DIGEST_SIZE], empty[COMMON_SPEC_DIGEST_SIZE];
    common_create_spec_digest(full, want);
    if (found == NULL) {
        sbx_create_request none = SBX_CREATE_REQUEST_INIT;
        common_create_spec_digest(&none, empty);
        found = empty;
    }
    if (strcmp(found, want) == 0)
        return SBX_OK;
    return sbx_backend_error_set(err, SBX_ERR_REFUSED,
                                 "%s: sandbox '%s' exists with another spec (image, env, "
                                 "labels, limits or network than this create asks for): it is "
                                 "left as it is; destroy it first or choose another id",
                                 backend, full->sandbox_id);
}
