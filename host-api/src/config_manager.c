/* The configuration file's `manager` section (docs/configuration.md,
 * docs/manager.md): durations in seconds (fractions allowed, so that tests
 * can use milliseconds), numbers or strings (which expand ${VAR}). */
#include <config.h>

#include "host-api/src/config_manager.h"
#include "host-api/src/env_expand.h"
#include "host-api/src/manager/manager_config.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct host_config_manager_section {
    sbx_manager_config config;
    char *ready_path, *store_path, *redis_url, *key_prefix, *lock_dir;
};

/* The keys of the two objects, for the unknown-key message. */
#define MANAGER_KEYS "idle_timeout_s, replicas, check_interval_s, ready_path, " \
                     "ready_timeout_s, ready_interval_s, shutdown, lock_dir, " \
                     "reap_running_processes, default_lifetime_s, max_lifetime_s, " \
                     "ownership"
#define OWNERSHIP_KEYS "store, path, redis_url, key_prefix, renewal_interval_s, ttl_multiplier"

/* A number in the file: a JSON number, or a string (after expansion) that
 * holds one.  SBX_ERR_CONFIG naming `where`. */
static sbx_status read_number(json_object *v, const char *where, double *out, sbx_error *err)
{
    json_type type = json_object_get_type(v);
    if (type == json_type_int || type == json_type_double) {
        *out = json_object_get_double(v);
    } else if (type == json_type_string) {
        char *text = NULL;
        sbx_status st = host_config_expand_string(v, where, &text, err);
        if (st != SBX_OK)
            return st;
        char *end = NULL;
        errno = 0;
        *out = strtod(text, &end);
        int bad = end == text || *end != '\0' || errno != 0;
        free(text);
        if (bad)
            return sbx_error_set(err, SBX_ERR_CONFIG, "%s must be a number", where);
    } else {
        return sbx_error_set(err, SBX_ERR_CONFIG, "%s must be a number", where);
    }
    if (!isfinite(*out) || *out < 0)
        return sbx_error_set(err, SBX_ERR_CONFIG, "%s must be a number >= 0", where);
    return SBX_OK;
}

/* Seconds, stored as whole milliseconds (at most ten years). */
static sbx_status read_seconds(json_object *v, const char *where, int64_t *ms, sbx_error *err)
{
    double s;
    sbx_status st = read_number(v, where, &s, err);
    if (st != SBX_OK)
        return st;
    if (s > 315360000.0)
        return sbx_error_set(err, SBX_ERR_CONFIG, "%s must be at most 315360000 (ten years)",
                             where);
    *ms = (int64_t)(s * 1000.0 + 0.5);
    if (*ms == 0 && s > 0)
        return sbx_error_set(err, SBX_ERR_CONFIG, "%s must be 0 or at least 0.001", where);
    return SBX_OK;
}

static sbx_status read_count(json_object *v, const char *where, unsigned *out, sbx_error *err)
{
    double n;
    sbx_status st = read_number(v, where, &n, err);
    if (st != SBX_OK)
        return st;
    if (n > 1000000 || n != (double)(unsigned)n)
        return sbx_error_set(err, SBX_ERR_CONFIG, "%s must be a whole number up to 1000000",
                             where);
    *out = (unsigned)n;
    return SBX_OK;
}

static sbx_status read_string(json_object *v, const char *where, char **slot, sbx_error *err)
{
    if (!json_object_is_type(v, json_type_string))
        return sbx_error_set(err, SBX_ERR_CONFIG, "%s must be a string", where);
    char *text = NULL;
    sbx_status st = host_config_expand_string(v, where, &text, err);
    if (st != SBX_OK)
        return st;
    free(*slot);
    *slot = text;
    return SBX_OK;
}

/* One of `names` (NULL-terminated); its index in *out. */
static sbx_status read_choice(json_object *v, const char *where, const char *const *names,
                              int *out, sbx_error *err)
{
    char *text = NULL;
    sbx_status st = read_string(v, where, &text, err);
    if (st != SBX_OK)
        return st;
    st = sbx_error_set(err, SBX_ERR_CONFIG, "%s must be %s or %s%s%s", where, names[0],
                       names[1], names[2] != NULL ? " or " : "",
                       names[2] != NULL ? names[2] : "");
    for (int i = 0; names[i] != NULL; i++)
        if (strcmp(text, names[i]) == 0) {
            *out = i;
            sbx_error_clear(err);
            st = SBX_OK;
        }
    free(text);
    return st;
}

/* A JSON boolean, or a string (after expansion) "true" or "false". */
static sbx_status read_flag(json_object *v, const char *where, int *out, sbx_error *err)
{
    static const char *const flags[] = {"false", "true", NULL};
    if (json_object_is_type(v, json_type_boolean)) {
        *out = json_object_get_boolean(v) ? 1 : 0;
        return SBX_OK;
    }
    if (!json_object_is_type(v, json_type_string))
        return sbx_error_set(err, SBX_ERR_CONFIG, "%s must be true or false", where);
    return read_choice(v, where, flags, out, err);
}

static sbx_status parse_ownership(host_config_manager_section *s, json_object *v,
                                  const char *origin, sbx_error *err)
{
    if (!json_object_is_type(v, json_type_object))
        return sbx_error_set(err, SBX_ERR_CONFIG, "%s: manager.ownership must be an object",
                             origin);
    static const char *const stores[] = {"memory", "sqlite", "redis", NULL};
    json_object_object_foreach(v, key, value) {
        char where[384];
        sbx_backend_format(where, sizeof where, "%s: manager.ownership.%s", origin, key);
        sbx_status st;
        int choice = 0;
        if (strcmp(key, "store") == 0) {
            st = read_choice(value, where, stores, &choice, err);
            s->config.store = (sbx_manager_store)choice;
        } else if (strcmp(key, "path") == 0) {
            st = read_string(value, where, &s->store_path, err);
        } else if (strcmp(key, "redis_url") == 0) {
            st = read_string(value, where, &s->redis_url, err);
        } else if (strcmp(key, "key_prefix") == 0) {
            st = read_string(value, where, &s->key_prefix, err);
        } else if (strcmp(key, "renewal_interval_s") == 0) {
            st = read_seconds(value, where, &s->config.renewal_interval_ms, err);
        } else if (strcmp(key, "ttl_multiplier") == 0) {
            st = read_count(value, where, &s->config.ttl_multiplier, err);
        } else {
            return sbx_error_set(err, SBX_ERR_CONFIG, "%s: unknown key 'manager.ownership.%s' "
                                 "(expected " OWNERSHIP_KEYS ")", origin, key);
        }
        if (st != SBX_OK)
            return st;
    }
    return SBX_OK;
}

static sbx_status parse_key(host_config_manager_section *s, const char *key, json_object *value,
                            const char *origin, sbx_error *err)
{
    static const char *const modes[] = {"destroy", "keep", NULL};
    char where[384];
    sbx_backend_format(where, sizeof where, "%s: manager.%s", origin, key);
    sbx_manager_config *c = &s->config;
    if (strcmp(key, "idle_timeout_s") == 0)
        return read_seconds(value, where, &c->idle_timeout_ms, err);
    if (strcmp(key, "check_interval_s") == 0)
        return read_seconds(value, where, &c->check_interval_ms, err);
    if (strcmp(key, "ready_timeout_s") == 0)
        return read_seconds(value, where, &c->ready_timeout_ms, err);
    if (strcmp(key, "ready_interval_s") == 0)
        return read_seconds(value, where, &c->ready_interval_ms, err);
    if (strcmp(key, "replicas") == 0)
        return read_count(value, where, &c->replicas, err);
    if (strcmp(key, "ready_path") == 0)
        return read_string(value, where, &s->ready_path, err);
    if (strcmp(key, "lock_dir") == 0)
        return read_string(value, where, &s->lock_dir, err);
    if (strcmp(key, "shutdown") == 0) {
        int mode = 0;
        sbx_status st = read_choice(value, where, modes, &mode, err);
        c->shutdown = (sbx_manager_shutdown_mode)mode;
        return st;
    }
    if (strcmp(key, "reap_running_processes") == 0)
        return read_flag(value, where, &c->reap_running_processes, err);
    if (strcmp(key, "default_lifetime_s") == 0)
        return read_seconds(value, where, &c->default_lifetime_ms, err);
    if (strcmp(key, "max_lifetime_s") == 0)
        return read_seconds(value, where, &c->max_lifetime_ms, err);
    if (strcmp(key, "ownership") == 0)
        return parse_ownership(s, value, origin, err);
    return sbx_error_set(err, SBX_ERR_CONFIG, "%s: unknown key 'manager.%s' (expected "
                         MANAGER_KEYS ")", origin, key);
}

sbx_status host_config_manager_section_parse(host_config_manager_section **section,
                                            json_object *v, const char *origin,
                                            sbx_error *err)
{
    if (!json_object_is_type(v, json_type_object))
        return sbx_error_set(err, SBX_ERR_CONFIG, "%s: manager must be an object", origin);
    if (*section == NULL) {
        static const sbx_manager_config defaults = SBX_MANAGER_CONFIG_INIT;
        if ((*section = calloc(1, sizeof **section)) == NULL)
            return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
        (*section)->config = defaults;
    }
    host_config_manager_section *s = *section;
    json_object_object_foreach(v, key, value) {
        sbx_status st = parse_key(s, key, value, origin, err);
        if (st != SBX_OK)
            return st;
    }
    sbx_manager_config checked;
    host_config_manager_section_get(s, &checked);
    sbx_status st = mgr_check_config(&checked, err);
    if (st != SBX_OK) {
        return sbx_backend_error_prefix(err, "%s", origin);
    }
    return SBX_OK;
}

void host_config_manager_section_free(host_config_manager_section *s)
{
    if (s == NULL)
        return;
    free(s->ready_path);
    free(s->store_path);
    free(s->redis_url);
    free(s->key_prefix);
    free(s->lock_dir);
    free(s);
}

void host_config_manager_section_get(const host_config_manager_section *s,
                                    sbx_manager_config *out)
{
    static const sbx_manager_config defaults = SBX_MANAGER_CONFIG_INIT;
    if (s == NULL) {
        *out = defaults;
        return;
    }
    *out = s->config;
    out->ready_path = s->ready_path;
    out->store_path = s->store_path;
    out->redis_url = s->redis_url;
    out->key_prefix = s->key_prefix;
    out->lock_dir = s->lock_dir;
}
