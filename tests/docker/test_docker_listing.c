/* The listing decoder (plugin/docker/docker_listing.h): the walk's
 * records become a listing in depth-first order with each directory's
 * names sorted, whatever order find printed them in; odd names decode
 * exactly; a cut walk is a truncated listing; anything else is a
 * protocol error.  No engine needed. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "plugin/docker/docker_listing.h"

#include "common/op_results.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decode `text` (copied: the decoder writes into it). */
static sbx_status decode(const char *text, int cut, size_t max, sbx_dir_listing **out,
                         sbx_error *err)
{
    char *copy = strdup(text);
    CU_ASSERT_FATAL(copy != NULL);
    docker_listing_records records = { copy, strlen(copy), cut };
    sbx_status st = docker_listing_decode(&records, max, "list_dir", out, err);
    free(copy);
    return st;
}

static void expect_paths(const sbx_dir_listing *l, const char *const *want, size_t n)
{
    CU_ASSERT_EQUAL_FATAL(l->count, n);
    size_t i = 0;
    for (const sbx_dir_entry *e = l->entries; e != NULL; e = e->next, i++)
        CU_ASSERT_STRING_EQUAL(e->path, want[i]);
}

static void test_order_types_and_fields(void)
{
    const char *records = "41ed 4096 100 .//\n"
                          "81a4 6 1700000000 ./a-c//\n"
                          "41e8 4096 5 ./a//\n"
                          "a1ff 4 -2 ./a/l//\n"
                          "11b6 0 7 ./a/p//\n"
                          "41ed 4096 5 ./a/b//\n"
                          "81a4 9 5 ./.h//\n";
    sbx_dir_listing *l = NULL;
    sbx_error err;
    CU_ASSERT_FATAL(decode(records, 0, 100, &l, &err) == SBX_OK);
    const char *want[] = { ".h", "a", "a/b", "a/l", "a/p", "a-c" };
    expect_paths(l, want, 6);
    const sbx_dir_entry *e = l->entries->next; /* a */
    CU_ASSERT_EQUAL(e->type, SBX_FILE_DIRECTORY);
    CU_ASSERT_EQUAL(e->size, 0);
    CU_ASSERT_EQUAL(e->mode, 0750);
    CU_ASSERT_EQUAL(e->mtime, 5000);
    e = e->next->next; /* a/l */
    CU_ASSERT_EQUAL(e->type, SBX_FILE_SYMLINK);
    CU_ASSERT_EQUAL(e->size, 0);
    CU_ASSERT_EQUAL(e->mtime, -2000);
    CU_ASSERT_EQUAL(e->next->type, SBX_FILE_OTHER);
    CU_ASSERT_EQUAL(e->next->next->type, SBX_FILE_REGULAR);
    CU_ASSERT_EQUAL(e->next->next->size, 6);
    CU_ASSERT_EQUAL(e->next->next->mtime, INT64_C(1700000000000));
    CU_ASSERT(!l->truncated);
    common_listing_free(l);
}

static void test_odd_names(void)
{
    sbx_dir_listing *l = NULL;
    sbx_error err;
    const char *records = "81a4 1 1 ./n\nl//\n81a4 1 1 ./x y//\n81a4 1 1 ./ lead//\n";
    CU_ASSERT_FATAL(decode(records, 0, 100, &l, &err) == SBX_OK);
    const char *want[] = { " lead", "n\nl", "x y" };
    expect_paths(l, want, 3);
    common_listing_free(l);
}

static void test_cap_and_cut(void)
{
    const char *records = "81a4 1 1 ./c//\n81a4 1 1 ./b//\n81a4 1 1 ./a//\n";
    sbx_dir_listing *l = NULL;
    sbx_error err;
    CU_ASSERT_FATAL(decode(records, 0, 2, &l, &err) == SBX_OK);
    const char *first[] = { "a", "b" };
    expect_paths(l, first, 2);
    CU_ASSERT(l->truncated);
    common_listing_free(l);
    /* The walk's output cut through its last record. */
    CU_ASSERT_FATAL(decode("81a4 1 1 ./c//\n81a4 1 1 ./b//\n81a4 1 1 ./a", 1, 10, &l, &err) ==
                    SBX_OK);
    const char *kept[] = { "b", "c" };
    expect_paths(l, kept, 2);
    CU_ASSERT(l->truncated);
    common_listing_free(l);
    CU_ASSERT_FATAL(decode("", 0, 10, &l, &err) == SBX_OK);
    CU_ASSERT_EQUAL(l->count, 0);
    CU_ASSERT_PTR_NULL(l->entries);
    common_listing_free(l);
}

static void test_not_records(void)
{
    const char *bad[] = { "81a4 1 1 ./a", "81a4 1 1 a//\n", "zz 1 1 ./a//\n", "81a4 -1 1 ./a//\n",
                          "81a4 1 ./a//\n", "81a4 1 1 .//\nsh: find: not found\n",
                          "81a4 99999999999999999999 1 ./a//\n", "81a4 1 1 .///\n" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sbx_dir_listing *l = NULL;
        sbx_error err;
        CU_ASSERT_EQUAL(decode(bad[i], 0, 10, &l, &err), SBX_ERR_PROTOCOL);
        CU_ASSERT_PTR_NULL(l);
    }
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "depth first, names sorted, types and fields", test_order_types_and_fields },
        { "names with newlines and spaces", test_odd_names },
        { "max_entries and a cut walk: truncated", test_cap_and_cut },
        { "what is not a record: protocol error", test_not_records },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("docker listing decoder", NULL, NULL, tests);
}
