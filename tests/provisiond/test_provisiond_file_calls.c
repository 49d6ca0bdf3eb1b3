/* The remote backend's file calls through sbx-provisiond over the local
 * backend, one request each: a plain write runs nothing in the sandbox
 * and keeps the write rules (a missing parent, a directory in the way, a
 * new file's mode 0644), a write with a mode or EXCLUSIVE still gets them;
 * reads and listings reuse discover's answer; a sandbox destroyed or made
 * again behind the backend's back is followed (not_found, or the new
 * one).  One daemon (--verbose, its request lines counted) for the suite,
 * started by the first test, stopped by the last. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/provisiond/provd_process.h"
#include "tests/support/cunit_main.h"
#include "tests/support/remote_helpers.h"

static provd_local daemon_;
static sbx_host *host, *other_host;
static sbx_backend *remote, *other; /* two clients of the same daemon */

/* Start the daemon and the two clients at the first test (the daemon's
 * start asserts, so it runs inside a test).  1 when they run. */
static int started(void)
{
    static int tried;
    if (!tried) {
        tried = 1;
        const char *const verbose[] = {"--verbose", NULL};
        if (!provd_local_start(&daemon_, 1, verbose))
            return 0;
        sbx_error err;
        remote = sbx_test_open_remote(&host, provd_url(daemon_.proc), NULL, NULL, 0, &err);
        other = sbx_test_open_remote(&other_host, provd_url(daemon_.proc), NULL, NULL, 0, &err);
    }
    return remote != NULL && other != NULL;
}

static void test_the_daemon_stops_cleanly(void)
{
    if (!started())
        CU_FAIL("the daemon did not start");
    sbx_backend_close(remote);
    sbx_backend_close(other);
    sbx_host_free(host);
    sbx_host_free(other_host);
    if (daemon_.proc != NULL)
        CU_ASSERT_EQUAL(provd_local_stop(&daemon_, 0), 0);
}

/* How many of the daemon's request lines hold `text`, read now. */
static int requests(const char *text)
{
    return provd_local_stderr_count(&daemon_, text);
}

static int make(sbx_backend *b, const char *id)
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = id;
    sbx_sandbox *s = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_create(b, &req, &s, &err);
    if (st != SBX_OK)
        fprintf(stderr, "create %s: %s\n", id, err.message);
    else
        sbx_backend_free_sandboxes(b, s, 1);
    return st == SBX_OK;
}

/* The status of writing "data" to `path` of `id` through the first client. */
static sbx_status write_as(const char *id, const char *path, unsigned flags, uint32_t mode)
{
    sbx_error err;
    return sbx_backend_write_file(remote, id, path, "data", 4, flags, mode, &err);
}

/* The permission bits of `name` in local sandbox `id`, seen on disk; -1:
 * no such file. */
static int mode_on_disk(const char *id, const char *name)
{
    char path[600];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s/%s", daemon_.local_dir, id, name);
    return stat(path, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
}

static void test_a_plain_write_runs_nothing_and_keeps_the_rules(void)
{
    CU_ASSERT_FATAL(started());
    CU_ASSERT_FATAL(make(remote, "plain"));
    int execs = requests("/v1/bash/exec");
    CU_ASSERT_EQUAL(write_as("plain", "new.txt", 0, 0), SBX_OK);
    CU_ASSERT_EQUAL(mode_on_disk("plain", "new.txt"), 0644);
    CU_ASSERT_EQUAL(write_as("plain", "new.txt", SBX_WRITE_APPEND, 0), SBX_OK);
    CU_ASSERT_EQUAL(write_as("plain", "missing/new.txt", 0, 0), SBX_ERR_NO_SUCH_PATH);
    CU_ASSERT_EQUAL(write_as("plain", "new.txt/below", 0, 0), SBX_ERR_NOT_A_DIRECTORY);
    CU_ASSERT_EQUAL(write_as("plain", ".", 0, 0), SBX_ERR_IS_A_DIRECTORY);
    CU_ASSERT_EQUAL(requests("/v1/bash/exec"), execs);
    sbx_file_content *c = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_read_file(remote, "plain", "new.txt", 0, 64, &c, &err),
                          SBX_OK);
    CU_ASSERT_EQUAL(c->length, 8);
    CU_ASSERT_EQUAL(memcmp(c->data, "datadata", 8), 0);
    sbx_backend_free_file_content(remote, c);
}

static void test_a_mode_exclusive_or_mkdirs_still_gets_its_check(void)
{
    CU_ASSERT_FATAL(started());
    CU_ASSERT_FATAL(make(remote, "checked"));
    CU_ASSERT_EQUAL(write_as("checked", "own.txt", 0, 0600), SBX_OK);
    CU_ASSERT_EQUAL(mode_on_disk("checked", "own.txt"), 0600);
    CU_ASSERT_EQUAL(write_as("checked", "own.txt", SBX_WRITE_EXCLUSIVE, 0), SBX_ERR_EXISTS);
    CU_ASSERT_EQUAL(write_as("checked", "a/b/c.txt", SBX_WRITE_MKDIRS, 0), SBX_OK);
    CU_ASSERT_EQUAL(mode_on_disk("checked", "a/b/c.txt"), 0644);
}

static void test_reads_and_listings_ask_the_provisioner_once(void)
{
    CU_ASSERT_FATAL(started());
    CU_ASSERT_FATAL(make(remote, "kept"));
    CU_ASSERT_EQUAL_FATAL(write_as("kept", "f.txt", 0, 0), SBX_OK);
    int discovers = requests("GET /api/sandboxes/kept ");
    int downloads = requests("/v1/file/download");
    sbx_error err;
    for (int i = 0; i < 3; i++) {
        sbx_file_content *c = NULL;
        CU_ASSERT_EQUAL(sbx_backend_read_file(remote, "kept", "f.txt", 0, 64, &c, &err), SBX_OK);
        sbx_backend_free_file_content(remote, c);
        sbx_dir_listing *l = NULL;
        CU_ASSERT_EQUAL(sbx_backend_list_dir(remote, "kept", ".", 1, 100, &l, &err), SBX_OK);
        sbx_backend_free_listing(remote, l);
    }
    CU_ASSERT_EQUAL(requests("/v1/file/download"), downloads + 3);
    /* the create's and the write's discovers came before: none since */
    CU_ASSERT_EQUAL(requests("GET /api/sandboxes/kept "), discovers);
}

static void test_a_sandbox_gone_or_made_again_behind_its_back_is_followed(void)
{
    CU_ASSERT_FATAL(started());
    CU_ASSERT_FATAL(make(remote, "moved"));
    CU_ASSERT_EQUAL_FATAL(write_as("moved", "old.txt", 0, 0), SBX_OK);
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_destroy(other, "moved", &err), SBX_OK);
    sbx_file_content *c = NULL;
    CU_ASSERT_EQUAL(sbx_backend_read_file(remote, "moved", "old.txt", 0, 64, &c, &err),
                    SBX_ERR_NOT_FOUND);
    CU_ASSERT_FATAL(make(other, "moved"));
    CU_ASSERT_EQUAL(write_as("moved", "new.txt", 0, 0), SBX_OK);
    CU_ASSERT_EQUAL(mode_on_disk("moved", "new.txt"), 0644);
    CU_ASSERT_EQUAL(mode_on_disk("moved", "old.txt"), -1);
    /* again, its address now kept: destroyed and made again once more */
    CU_ASSERT_EQUAL_FATAL(sbx_backend_destroy(other, "moved", &err), SBX_OK);
    CU_ASSERT_FATAL(make(other, "moved"));
    sbx_dir_listing *l = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_list_dir(remote, "moved", ".", 1, 100, &l, &err), SBX_OK);
    int has_new = 0;
    for (const sbx_dir_entry *e = l->entries; e != NULL; e = e->next)
        has_new |= strcmp(e->path, "new.txt") == 0;
    CU_ASSERT_FALSE(has_new);
    sbx_backend_free_listing(remote, l);
}

/* The bytes of `name` in local sandbox `id` as they are on disk equal the
 * `len` bytes at `want`. */
static int on_disk_is(const char *id, const char *name, const char *want, size_t len)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s/%s", daemon_.local_dir, id, name);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return 0;
    char *got = malloc(len + 1);
    size_t n = got != NULL ? fread(got, 1, len + 1, f) : 0;
    int same = got != NULL && n == len && memcmp(got, want, len) == 0;
    free(got);
    fclose(f);
    return same;
}

/* Write `len` bytes of `data` to `name` of `id` and check them on disk and
 * read back through the daemon. */
static void write_and_read_back(const char *id, const char *name, const char *data, size_t len)
{
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_write_file(remote, id, name, data, len, 0, 0, &err),
                          SBX_OK);
    CU_ASSERT(on_disk_is(id, name, data, len));
    sbx_file_content *c = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_read_file(remote, id, name, 0, len + 1, &c, &err), SBX_OK);
    CU_ASSERT_EQUAL(c->length, len);
    CU_ASSERT(c->length == len && memcmp(c->data, data, len) == 0);
    CU_ASSERT_FALSE(c->truncated);
    sbx_backend_free_file_content(remote, c);
}

/* Text goes as a JSON string, other bytes (and text whose escapes would
 * be longer than its base64) as base64: both arrive as they were,
 * whatever their escapes (each class, at each place of the escaper's
 * sixteen-byte blocks) and size. */
static void test_text_and_binary_contents_arrive_byte_exact(void)
{
    CU_ASSERT_FATAL(started());
    CU_ASSERT_FATAL(make(remote, "bytes"));
    static const char text[] = "quote \" backslash \\ slash / \b\f\n\r\t \x01\x1f\x7f"
                               " U+2028 \xE2\x80\xA8 e \xC3\xA9 euro \xE2\x82\xAC"
                               " emoji \xF0\x9F\x98\x80 \\u0041 end\r\n";
    write_and_read_back("bytes", "text.txt", text, sizeof text - 1);
    static const char controls[] = "\x01\x02\x03\x04\x05\x06\x07\x0e\x0f\x10\x11\x12";
    write_and_read_back("bytes", "controls.txt", controls, sizeof controls - 1);
    static const char nul[] = "text with a NUL \0 inside";
    write_and_read_back("bytes", "nul.bin", nul, sizeof nul - 1);
    static const char invalid[] = "caf\xE9 latin-1, a lone \x80 and \xED\xA0\x80";
    write_and_read_back("bytes", "invalid.bin", invalid, sizeof invalid - 1);
    /* 300 KB: the text repeated at every shift against the blocks */
    size_t len = 300000, at = 0;
    char *big = malloc(len);
    CU_ASSERT_FATAL(big != NULL);
    for (size_t shift = 0; at < len; shift = (shift + 1) % 16) {
        size_t n = shift + sizeof text - 1 < len - at ? shift + sizeof text - 1 : len - at;
        memset(big + at, 'a', n);
        memcpy(big + at + shift, text, n > shift ? n - shift : 0);
        at += n;
    }
    len = at;
    while (len > 0 && (unsigned char)big[len - 1] >= 0x80) /* no character cut at the end */
        len--;
    write_and_read_back("bytes", "big.txt", big, len);
    big[len / 2] = '\0';
    write_and_read_back("bytes", "big.bin", big, len);
    free(big);
}

void sbx_test_register(void)
{
    static CU_TestInfo tests[] = {
        {"a plain write runs nothing and keeps the rules",
         test_a_plain_write_runs_nothing_and_keeps_the_rules},
        {"a mode, exclusive or mkdirs still gets its check",
         test_a_mode_exclusive_or_mkdirs_still_gets_its_check},
        {"reads and listings ask the provisioner once",
         test_reads_and_listings_ask_the_provisioner_once},
        {"a sandbox gone or made again behind its back is followed",
         test_a_sandbox_gone_or_made_again_behind_its_back_is_followed},
        {"text and binary contents arrive byte-exact",
         test_text_and_binary_contents_arrive_byte_exact},
        {"the daemon stops cleanly", test_the_daemon_stops_cleanly},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("remote file calls through sbx-provisiond", NULL, NULL, tests);
}
