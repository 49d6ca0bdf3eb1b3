/* common/skip_log: the skipped entries of a list answer come back in the
 * order noted, with their indexes (gaps of any size), kinds and, in a log
 * that keeps them, reasons; a reset forgets them. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "common/skip_log.h"

#include <stdio.h>
#include <string.h>

/* What a replay told, one line per entry: "index kind why". */
typedef struct told {
    char text[512];
    size_t count;
} told;

static void tell(void *ctx, size_t index, unsigned char kind, const char *why)
{
    told *t = ctx;
    size_t used = strlen(t->text);
    snprintf(t->text + used, sizeof t->text - used, "%zu %u %s;", index, kind,
             why != NULL ? why : "(none)");
    t->count++;
}

static told replay(const common_skip_log *log)
{
    told t = { .text = "", .count = 0 };
    common_skip_log_replay(log, tell, &t);
    return t;
}

/* Indexes in a row, apart and far apart (a gap that takes several varint
 * bytes) come back as noted, each with its kind. */
static void test_indexes_and_kinds_come_back_in_order(void)
{
    common_skip_log log;
    common_skip_log_init(&log, 0);
    CU_ASSERT_EQUAL(common_skip_log_add(&log, 0, 8, NULL), 0);
    CU_ASSERT_EQUAL(common_skip_log_add(&log, 1, 3, NULL), 0);
    CU_ASSERT_EQUAL(common_skip_log_add(&log, 5, 255, NULL), 0);
    CU_ASSERT_EQUAL(common_skip_log_add(&log, 100000, 0, NULL), 0);
    told t = replay(&log);
    CU_ASSERT_EQUAL(t.count, 4);
    CU_ASSERT_STRING_EQUAL(t.text, "0 8 (none);1 3 (none);5 255 (none);100000 0 (none);");
    common_skip_log_free(&log);
}

/* A log that keeps reasons gives each one back, the empty one too; one
 * that keeps none stores no text: two bytes for a small gap. */
static void test_reasons_are_kept_only_when_asked(void)
{
    common_skip_log log;
    common_skip_log_init(&log, 1);
    CU_ASSERT_EQUAL(common_skip_log_add(&log, 2, 1, "bad label"), 0);
    CU_ASSERT_EQUAL(common_skip_log_add(&log, 3, 0, ""), 0);
    told t = replay(&log);
    CU_ASSERT_EQUAL(t.count, 2);
    CU_ASSERT_STRING_EQUAL(t.text, "2 1 bad label;3 0 ;");
    common_skip_log_free(&log);

    common_skip_log_init(&log, 0);
    CU_ASSERT_EQUAL(common_skip_log_add(&log, 7, 1, "not kept"), 0);
    CU_ASSERT_EQUAL(log.bytes.len, 2);
    t = replay(&log);
    CU_ASSERT_STRING_EQUAL(t.text, "7 1 (none);");
    common_skip_log_free(&log);
}

/* Nothing noted, nothing told; after a reset the indexes start again at
 * 0 and only what follows is told. */
static void test_empty_and_reset_logs_tell_nothing_old(void)
{
    common_skip_log log;
    common_skip_log_init(&log, 1);
    CU_ASSERT_EQUAL(replay(&log).count, 0);
    CU_ASSERT_EQUAL(common_skip_log_add(&log, 4, 1, "first"), 0);
    common_skip_log_reset(&log);
    CU_ASSERT_EQUAL(replay(&log).count, 0);
    CU_ASSERT_EQUAL(common_skip_log_add(&log, 0, 0, "again"), 0);
    told t = replay(&log);
    CU_ASSERT_STRING_EQUAL(t.text, "0 0 again;");
    common_skip_log_free(&log);
    CU_ASSERT_EQUAL(replay(&log).count, 0);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"indexes and kinds come back in order", test_indexes_and_kinds_come_back_in_order},
        {"reasons are kept only when asked", test_reasons_are_kept_only_when_asked},
        {"empty and reset logs tell nothing old", test_empty_and_reset_logs_tell_nothing_old},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("skip_log", NULL, NULL, tests);
}
