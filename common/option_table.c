/* Table-driven option parsing shared by the backends (see option_table.h). */
#include <config.h>

#include "common/option_table.h"

#include "common/option_values.h"
#include "common/printable.h"

#include <sbx/backend_support.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *field_of(void *target, const common_option_spec *spec)
{
    return (char *)target + spec->offset;
}

/* A value the spec refuses.  The value is quoted as common_printable_url
 * shows it, so that credentials in any value (a URL's password) stay out
 * of the message; a secret is not quoted at all. */
static sbx_status refuse(const common_option_table *table, const common_option_spec *spec,
                         const char *value, const char *rule, sbx_error *err)
{
    if (spec->flags & COMMON_OPTION_SECRET)
        return sbx_backend_error_set(err, SBX_ERR_CONFIG, "option '%s' of backend '%s' %s",
                                     spec->key, table->backend, rule);
    char shown[80];
    return sbx_backend_error_set(err, SBX_ERR_CONFIG, "option '%s' of backend '%s': '%s' %s",
                                 spec->key, table->backend,
                                 common_printable_url(value, shown, sizeof shown), rule);
}

/* The key is quoted as common_printable shows it: it may be anything. */
static sbx_status refuse_unknown(const common_option_table *table, const char *key,
                                 sbx_error *err)
{
    char known[SBX_ERROR_MESSAGE_MAX] = "";
    size_t used = 0;
    for (size_t i = 0; i < table->count && used < sizeof known; i++) {
        int n = snprintf(known + used, sizeof known - used, "%s%s", i > 0 ? ", " : "",
                         table->specs[i].key);
        used += n > 0 ? (size_t)n : 0;
    }
    char shown[80];
    return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                 "unknown option '%s' for backend '%s' (known: %s)",
                                 common_printable(key, shown, sizeof shown), table->backend,
                                 known);
}

static void free_string(char **slot, unsigned flags)
{
    if (*slot != NULL && (flags & COMMON_OPTION_SECRET))
        memset(*slot, 0, strlen(*slot));
    free(*slot);
    *slot = NULL;
}

static sbx_status apply_string(const common_option_table *table, const common_option_spec *spec,
                               const char *value, void *target, sbx_error *err)
{
    char **slot = field_of(target, spec);
    if ((spec->flags & COMMON_OPTION_SECRET) && strpbrk(value, "\r\n") != NULL)
        return refuse(table, spec, value, "contains CR or LF", err);
    if ((spec->flags & COMMON_OPTION_NOT_EMPTY) && value[0] == '\0')
        return refuse(table, spec, value, "must not be empty", err);
    if (spec->valid != NULL && !spec->valid(value))
        return refuse(table, spec, value, spec->rule, err);
    if ((spec->flags & COMMON_OPTION_EMPTY_IS_NONE) && value[0] == '\0') {
        free_string(slot, spec->flags);
        return SBX_OK;
    }
    char *old = *slot;
    *slot = NULL;
    sbx_status st = common_option_copy_string(slot, value, err);
    if (st == SBX_OK)
        free_string(&old, spec->flags);
    else
        *slot = old;
    return st;
}

/* LONG and SIZE: the bounds are part of every refusal. */
static sbx_status apply_integer(const common_option_table *table,
                                const common_option_spec *spec, const char *value,
                                void *target, sbx_error *err)
{
    long v = 0;
    if (!common_option_integer(value, spec->min, spec->max, &v)) {
        char rule[96];
        snprintf(rule, sizeof rule, "is not an integer from %ld to %ld", spec->min, spec->max);
        return refuse(table, spec, value, rule, err);
    }
    if (spec->kind == COMMON_OPTION_SIZE)
        *(size_t *)field_of(target, spec) = (size_t)v;
    else
        *(long *)field_of(target, spec) = v;
    return SBX_OK;
}

static sbx_status apply_word(const common_option_table *table, const common_option_spec *spec,
                             const char *value, void *target, sbx_error *err)
{
    int index = common_option_word(value, spec->words);
    if (index >= 0) {
        *(int *)field_of(target, spec) = index;
        return SBX_OK;
    }
    char rule[128] = "is not one of";
    size_t used = strlen(rule);
    for (size_t i = 0; spec->words[i] != NULL && used < sizeof rule; i++) {
        int n = snprintf(rule + used, sizeof rule - used, "%s %s", i > 0 ? "," : "",
                         spec->words[i]);
        used += n > 0 ? (size_t)n : 0;
    }
    return refuse(table, spec, value, rule, err);
}

static sbx_status apply_custom(const common_option_table *table,
                               const common_option_spec *spec, const char *value,
                               void *target, sbx_error *err)
{
    char rule[160] = "is not valid";
    sbx_status st = spec->parse(target, value, rule, sizeof rule, err);
    return st == SBX_ERR_CONFIG ? refuse(table, spec, value, rule, err) : st;
}

static sbx_status apply(const common_option_table *table, const common_option_spec *spec,
                        const char *value, void *target, sbx_error *err)
{
    switch (spec->kind) {
    case COMMON_OPTION_STRING:
        return apply_string(table, spec, value, target, err);
    case COMMON_OPTION_LONG:
    case COMMON_OPTION_SIZE:
        return apply_integer(table, spec, value, target, err);
    case COMMON_OPTION_WORD:
        return apply_word(table, spec, value, target, err);
    case COMMON_OPTION_CUSTOM:
        return apply_custom(table, spec, value, target, err);
    }
    return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "option '%s' of backend '%s' has no kind",
                                 spec->key, table->backend);
}

static sbx_status apply_defaults(const common_option_table *table, void *target,
                                 sbx_error *err)
{
    for (size_t i = 0; i < table->count; i++) {
        const common_option_spec *spec = &table->specs[i];
        void *field = field_of(target, spec);
        sbx_status st = SBX_OK;
        if (spec->kind == COMMON_OPTION_LONG)
            *(long *)field = spec->fallback;
        else if (spec->kind == COMMON_OPTION_SIZE)
            *(size_t *)field = (size_t)spec->fallback;
        else if (spec->kind == COMMON_OPTION_WORD)
            *(int *)field = (int)spec->fallback;
        else if (spec->kind == COMMON_OPTION_STRING && spec->fallback_text != NULL)
            st = common_option_copy_string(field, spec->fallback_text, err);
        if (st != SBX_OK)
            return st;
    }
    return SBX_OK;
}

static const common_option_spec *find(const common_option_table *table, const char *key,
                                      size_t *index)
{
    for (size_t i = 0; i < table->count; i++) {
        if (strcmp(table->specs[i].key, key) == 0) {
            *index = i;
            return &table->specs[i];
        }
    }
    return NULL;
}

sbx_status common_option_table_parse(const common_option_table *table,
                                     const sbx_option *options, size_t count, void *target,
                                     sbx_error *err)
{
    if (table->count > COMMON_OPTION_TABLE_MAX)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL,
                                     "backend '%s' declares more than %d options",
                                     table->backend, COMMON_OPTION_TABLE_MAX);
    sbx_status st = apply_defaults(table, target, err);
    uint64_t given = 0;
    for (size_t i = 0; st == SBX_OK && i < count; i++) {
        size_t index = 0;
        const common_option_spec *spec = find(table, options[i].key, &index);
        if (spec == NULL)
            return refuse_unknown(table, options[i].key, err);
        st = apply(table, spec, options[i].value, target, err);
        given |= (uint64_t)1 << index;
    }
    for (size_t i = 0; st == SBX_OK && i < table->count; i++)
        if ((table->specs[i].flags & COMMON_OPTION_REQUIRED) && !(given & ((uint64_t)1 << i)))
            st = sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                       "option '%s' of backend '%s' is required",
                                       table->specs[i].key, table->backend);
    return st;
}
