/* Growable sandbox records (see record_chain.h). */
#include <config.h>

#include "common/record_chain.h"

#include <sbx/backend_support.h>

#include <stdlib.h>
#include <string.h>

void common_record_facts_init(common_record_facts *facts)
{
    memset(facts, 0, sizeof *facts);
    facts->mount_contract_version = SBX_CONTRACT_NONE;
    facts->created_at = SBX_TIME_UNKNOWN;
    facts->expires_at = SBX_TIME_UNKNOWN;
}

void common_record_facts_of_sandbox(const sbx_sandbox *sandbox, common_record_facts *facts)
{
    common_record_facts_init(facts);
    facts->sandbox_id = sandbox->sandbox_id;
    facts->sandbox_url = sandbox->sandbox_url;
    facts->user_id = sandbox->user_id;
    facts->thread_id = sandbox->thread_id;
    facts->status = sandbox->status;
    facts->mount_contract_version = sandbox->mount_contract_version;
}

sbx_status common_record_facts_fill(const common_record_facts *facts, sbx_sandbox *out,
                                    sbx_error *err)
{
    common_sandbox_fields fields = { facts->sandbox_id, facts->sandbox_url, facts->user_id,
                                     facts->thread_id, facts->status,
                                     facts->mount_contract_version };
    return common_sandbox_record_fill(out, &fields, err);
}

/* The string members of a record, each beside the fact it copies. */
#define RECORD_STRINGS(X)                   \
    X(sandbox.sandbox_id, sandbox_id)       \
    X(sandbox.sandbox_url, sandbox_url)     \
    X(sandbox.user_id, user_id)             \
    X(sandbox.thread_id, thread_id)         \
    X(sandbox.status, status)               \
    X(incarnation_id, incarnation_id)       \
    X(container_id, container_id)           \
    X(container_name, container_name)       \
    X(engine, engine)                       \
    X(engine_version, engine_version)       \
    X(directory, directory)

/* Bytes the copy of `s` takes (none for NULL). */
static size_t copy_size(const char *s)
{
    return s != NULL ? strlen(s) + 1 : 0;
}

/* Copy `src` (NULL: none) to *at and point *slot at the copy. */
static void place(char **slot, char **at, const char *src)
{
    if (src == NULL)
        return;
    size_t n = strlen(src) + 1;
    memcpy(*at, src, n);
    *slot = *at;
    *at += n;
}

/* Copy `src` (never NULL) to *at and answer the copy. */
static const char *place_const(char **at, const char *src)
{
    char *copy = NULL;
    place(&copy, at, src);
    return copy;
}

sbx_status common_record_new(const common_record_facts *facts, sbx_sandbox_record **out,
                             sbx_error *err)
{
    *out = NULL;
    if (facts->sandbox_id == NULL || facts->sandbox_url == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "sandbox record without id or url");
    /* The labels' array follows the struct (both pointer-aligned), then
     * every string. */
    size_t size = sizeof(sbx_sandbox_record) + facts->label_count * sizeof(sbx_label);
#define ADD_SIZE(member, fact) size += copy_size(facts->fact);
    RECORD_STRINGS(ADD_SIZE)
#undef ADD_SIZE
    for (size_t i = 0; i < facts->label_count; i++)
        size += copy_size(facts->labels[i].key) + copy_size(facts->labels[i].value);
    /* Strings that exist in memory cannot make this overflow. */
    sbx_sandbox_record *r = calloc(1, size);
    if (r == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    r->struct_size = sizeof *r;
    r->sandbox.mount_contract_version = facts->mount_contract_version;
    r->created_at = facts->created_at;
    r->pid = facts->pid;
    sbx_label *labels = (sbx_label *)(r + 1);
    char *at = (char *)(labels + facts->label_count);
#define PLACE(member, fact) place(&r->member, &at, facts->fact);
    RECORD_STRINGS(PLACE)
#undef PLACE
    for (size_t i = 0; i < facts->label_count; i++) {
        labels[i].key = place_const(&at, facts->labels[i].key);
        labels[i].value = place_const(&at, facts->labels[i].value);
    }
    r->labels = facts->label_count > 0 ? labels : NULL;
    r->label_count = facts->label_count;
    r->expires_at = facts->expires_at;
    *out = r;
    return SBX_OK;
}

void common_records_free(sbx_sandbox_record *records)
{
    while (records != NULL) {
        sbx_sandbox_record *next = records->next;
        free(records);  /* the one allocation holding the struct and its strings */
        records = next;
    }
}

void common_record_list_push(common_record_list *list, sbx_sandbox_record *record)
{
    record->next = NULL;
    if (list->last != NULL)
        list->last->next = record;
    else
        list->first = record;
    list->last = record;
    list->count++;
}

sbx_status common_record_list_finish(common_record_list *list, sbx_status st,
                                     sbx_sandbox_record **out, size_t *count)
{
    if (st != SBX_OK) {
        common_records_free(list->first);
        *out = NULL;
        *count = 0;
    } else {
        *out = list->first;
        *count = list->count;
    }
    memset(list, 0, sizeof *list);
    return st;
}

sbx_status common_answer_one(const common_answer *to, const common_record_facts *facts,
                             sbx_error *err)
{
    if (to->record != NULL)
        return common_record_new(facts, to->record, err);
    sbx_sandbox one;
    sbx_status st = common_record_facts_fill(facts, &one, err);
    return st == SBX_OK ? common_sandbox_record_box(&one, to->sandbox, err) : st;
}

sbx_status common_answer_left_for_destroy(const char *sandbox_id, sbx_error *err)
{
    if (strstr(err->message, "left for destroy") != NULL)
        return err->kind;
    char why[sizeof err->message];
    memcpy(why, err->message, sizeof why);
    /* The note first: a long message is cut at its end. */
    return sbx_backend_error_set(err, err->kind,
                                 "sandbox '%.100s' exists and is left for destroy, but answering "
                                 "it failed: %s", sandbox_id, why);
}

const sbx_sandbox *common_answer_sandbox(const common_answer *to)
{
    return to->record != NULL ? &(*to->record)->sandbox : *to->sandbox;
}

void common_answer_free(const common_answer *to)
{
    if (to->record != NULL) {
        common_records_free(*to->record);
        *to->record = NULL;
    } else {
        common_sandbox_records_free(*to->sandbox, *to->sandbox != NULL ? 1 : 0);
        *to->sandbox = NULL;
    }
}

void common_list_answer_start(common_list_answer *list, sbx_sandbox **sandboxes,
                              sbx_sandbox_record **records, size_t *count)
{
    memset(list, 0, sizeof *list);
    list->sandboxes = sandboxes;
    list->records = records;
    list->count = count;
    if (sandboxes != NULL)
        *sandboxes = NULL;
    if (records != NULL)
        *records = NULL;
    *count = 0;
}

sbx_status common_list_answer_add(common_list_answer *list, const common_record_facts *facts,
                                  sbx_error *err)
{
    if (list->records != NULL) {
        sbx_sandbox_record *record = NULL;
        sbx_status st = common_record_new(facts, &record, err);
        if (st == SBX_OK)
            common_record_list_push(&list->chain, record);
        return st;
    }
    sbx_sandbox *s = common_sandbox_list_append(&list->array, err);
    if (s == NULL)
        return SBX_ERR_INTERNAL;
    sbx_status st = common_record_facts_fill(facts, s, err);
    if (st != SBX_OK)
        common_sandbox_list_drop_last(&list->array);
    return st;
}

sbx_status common_list_answer_finish(common_list_answer *list, sbx_status st)
{
    if (list->records != NULL)
        return common_record_list_finish(&list->chain, st, list->records, list->count);
    return common_sandbox_list_finish(&list->array, st, list->sandboxes, list->count);
}
