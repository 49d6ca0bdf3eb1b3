/*
 * libFuzzer targets: the remote backend's decoders of provisioner answers
 * (plugin/remote/decode.h).  One source, one target per decoder, chosen at
 * compile time with -DSBX_FUZZ_DECODER=N (see fuzz/run):
 *   1 sbx_remote_decode_list            (GET /api/sandboxes)
 *   2 sbx_remote_decode_sandbox         (create/get answers)
 *   3 sbx_remote_decode_reconciliation  (GET .../reconciliation)
 *   4 sbx_remote_decode_capabilities    (GET /api/capabilities)
 *   5 sbx_remote_detail_text            (any error answer)
 * Each input is an answer body; every result is released and its invariants
 * are checked (the fuzzer aborts on a broken one, so it is a finding).
 */
#include "common/json_fields.h"
#include "common/sandbox_records.h"
#include "plugin/remote/decode.h"

#include <sbx/host.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#if SBX_FUZZ_DECODER <= 3
/* A decoded sandbox must have its two required strings. */
static void check_sandbox(const sbx_sandbox *sb)
{
    if (sb->sandbox_id == NULL || sb->sandbox_url == NULL || sb->sandbox_id[0] == '\0' ||
        sb->sandbox_url[0] == '\0')
        abort();
}
#endif

#if SBX_FUZZ_DECODER == 1 || SBX_FUZZ_DECODER == 5
static void check_terminated(const char *buf, size_t cap)
{
    if (memchr(buf, '\0', cap) == NULL)
        abort();
}
#endif

#if SBX_FUZZ_DECODER == 1
static void count_warning(void *ctx, const char *message)
{
    (void)strlen(message);
    ++*(size_t *)ctx;
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *body = (const char *)data;
    sbx_error err;
    sbx_error_clear(&err);
#if SBX_FUZZ_DECODER == 1
    sbx_sandbox *list = NULL;
    size_t count = 0, warnings = 0;
    if (sbx_remote_decode_list(body, size, count_warning, &warnings, &list, &count, &err) ==
        SBX_OK) {
        for (size_t i = 0; i < count; i++)
            check_sandbox(&list[i]);
        sbx_sandbox_records_free(list, count);
    } else {
        check_terminated(err.message, sizeof err.message);
    }
#elif SBX_FUZZ_DECODER == 2
    struct json_object *object = sbx_json_parse(body, size);
    sbx_sandbox sb;
    memset(&sb, 0, sizeof sb);
    if (object != NULL && sbx_remote_decode_sandbox(object, &sb, &err) == SBX_OK)
        check_sandbox(&sb);
    else if (sb.sandbox_id != NULL || sb.sandbox_url != NULL)
        abort(); /* on error the sandbox is left empty */
    sbx_sandbox_record_clear(&sb);
    json_object_put(object);
#elif SBX_FUZZ_DECODER == 3
    sbx_reconciliation rec;
    memset(&rec, 0, sizeof rec);
    const char *why = NULL;
    if (sbx_remote_decode_reconciliation(body, size, "fuzz-id", &rec, &why, &err) == SBX_OK) {
        if (rec.status == SBX_RECONCILE_FOUND &&
            (rec.sandbox == NULL || rec.backend_namespace == NULL || rec.incarnation_id == NULL))
            abort();
        if (rec.status == SBX_RECONCILE_FOUND)
            check_sandbox(rec.sandbox);
        if (rec.status == SBX_RECONCILE_ABSENT && rec.backend_namespace == NULL)
            abort();
        if (rec.status == SBX_RECONCILE_UNKNOWN && rec.sandbox != NULL)
            abort();
    }
    sbx_reconciliation_clear(&rec);
#elif SBX_FUZZ_DECODER == 4
    int version = -1;
    if (sbx_remote_decode_capabilities(body, size, &version, &err) == SBX_OK && version < 0)
        abort();
#elif SBX_FUZZ_DECODER == 5
    char small[16], large[512];
    sbx_remote_detail_text(body, size, small, sizeof small);
    sbx_remote_detail_text(body, size, large, sizeof large);
    check_terminated(small, sizeof small);
    check_terminated(large, sizeof large);
    for (const char *p = large; *p != '\0'; p++)
        if ((unsigned char)*p < 0x20)
            abort(); /* control characters must have become spaces */
#else
#error "SBX_FUZZ_DECODER must be 1..5"
#endif
    return 0;
}
