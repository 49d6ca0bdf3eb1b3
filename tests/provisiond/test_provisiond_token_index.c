/* sbx-provisiond's index of sandbox tokens, as a client of the sandbox API
 * sees it, with a few hundred sandboxes over the local backend: every
 * token reaches its own sandbox and no other; a token never made, one
 * differing from a live token in one character (first, middle, last) and
 * a destroyed sandbox's token all get the one answer an unknown token
 * gets (404 {"detail":"Sandbox not found"}); an id made again answers to
 * its new token only; after a restart from the state directory the
 * tokens find their sandboxes again and the dead ones stay dead. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "tests/provisiond/provd_process.h"
#include "tests/support/cunit_main.h"

/* Enough to give the index's buckets several generations of growth while
 * the creates (a process each) stay quick on a loaded 2-core machine. */
#define SANDBOXES 300
#define REQUEST_MS 30000L
#define UNKNOWN_ANSWER "{\"detail\":\"Sandbox not found\"}"

typedef struct sandbox {
    char id[16];
    char token[PROVD_TEST_TOKEN_LEN + 1];
    int destroyed;
} sandbox;

static sandbox sandboxes[SANDBOXES];

/* GET /s/`token`/v1/sandbox: the status, the answer in `answer`. */
static long sandbox_info(const provd_local *d, const char *token, char *answer, size_t cap)
{
    char path[128];
    snprintf(path, sizeof path, "/s/%s/v1/sandbox", token);
    return provd_request(provd_url(d->proc), (provd_send){"GET", path, NULL}, REQUEST_MS,
                         answer, cap);
}

/* Whether `token` reaches sandbox `id`: its answer names the home of `id`
 * in the local backend's directory, and so no other sandbox's. */
static int reaches(const provd_local *d, const char *token, const char *id)
{
    char answer[8192], home[400];
    snprintf(home, sizeof home, "\"home_dir\":\"%s/%s\"", d->local_dir, id);
    return sandbox_info(d, token, answer, sizeof answer) == 200 &&
           strstr(answer, home) != NULL;
}

/* Whether `token` gets exactly what an unknown token gets. */
static int unknown(const provd_local *d, const char *token)
{
    char answer[8192];
    return sandbox_info(d, token, answer, sizeof answer) == 404 &&
           strcmp(answer, UNKNOWN_ANSWER) == 0;
}

/* Every live token reaches its sandbox, every destroyed one is unknown:
 * how many did not. */
static int misses(const provd_local *d)
{
    int missed = 0;
    for (int i = 0; i < SANDBOXES; i++) {
        const sandbox *s = &sandboxes[i];
        missed += s->destroyed ? !unknown(d, s->token) : !reaches(d, s->token, s->id);
    }
    return missed;
}

/* `token` with its character at `at` changed to another hex digit. */
static void one_char_off(const char *token, size_t at, char *out)
{
    snprintf(out, PROVD_TEST_TOKEN_LEN + 1, "%s", token);
    out[at] = out[at] == 'a' ? 'b' : 'a';
}

static int destroy(const provd_local *d, const sandbox *s)
{
    char path[sizeof "/api/sandboxes/" + sizeof s->id];
    snprintf(path, sizeof path, "/api/sandboxes/%.*s", (int)sizeof s->id - 1, s->id);
    return provd_request(provd_url(d->proc), (provd_send){"DELETE", path, NULL}, REQUEST_MS,
                         NULL, 0) == 200;
}

static void test_many_tokens_each_reach_their_own_sandbox(void)
{
    provd_local d;
    if (!provd_local_start(&d, 1, NULL))
        return;
    int made = 1;
    for (int i = 0; i < SANDBOXES && made; i++) {
        snprintf(sandboxes[i].id, sizeof sandboxes[i].id, "many%03d", i);
        sandboxes[i].destroyed = 0;
        made = provd_create_token(provd_url(d.proc), sandboxes[i].id, "u", sandboxes[i].token);
    }
    if (!made) {
        provd_local_stop(&d, 0);
        return;
    }
    CU_ASSERT_EQUAL(misses(&d), 0);

    /* Near misses of a live token, and a token never made. */
    const char *live = sandboxes[SANDBOXES / 2].token;
    const size_t positions[] = {0, PROVD_TEST_TOKEN_LEN / 2, PROVD_TEST_TOKEN_LEN - 1};
    char off[PROVD_TEST_TOKEN_LEN + 1];
    for (size_t i = 0; i < sizeof positions / sizeof positions[0]; i++) {
        one_char_off(live, positions[i], off);
        CU_ASSERT_TRUE(unknown(&d, off));
    }
    char never[PROVD_TEST_TOKEN_LEN + 1];
    memset(never, '7', PROVD_TEST_TOKEN_LEN);
    never[PROVD_TEST_TOKEN_LEN] = '\0';
    CU_ASSERT_TRUE(unknown(&d, never));

    /* Destroyed sandboxes' tokens die; their neighbours' live on. */
    for (int i = 0; i < SANDBOXES; i += 7) {
        CU_ASSERT_TRUE(destroy(&d, &sandboxes[i]));
        sandboxes[i].destroyed = 1;
    }
    CU_ASSERT_EQUAL(misses(&d), 0);

    /* An id made again answers to its new token, not the old one. */
    sandbox *again = &sandboxes[7];
    char old[PROVD_TEST_TOKEN_LEN + 1];
    snprintf(old, sizeof old, "%s", again->token);
    if (provd_create_token(provd_url(d.proc), again->id, "u", again->token)) {
        again->destroyed = 0;
        CU_ASSERT_STRING_NOT_EQUAL(again->token, old);
        CU_ASSERT_TRUE(unknown(&d, old));
        CU_ASSERT_TRUE(reaches(&d, again->token, again->id));
    }

    /* A restart loads the tokens from the state directory. */
    CU_ASSERT_EQUAL(provd_local_stop(&d, 1), 0);
    if (!provd_local_restart(&d, 1, NULL))
        return;
    CU_ASSERT_EQUAL(misses(&d), 0);
    CU_ASSERT_TRUE(unknown(&d, old));
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"many tokens each reach their own sandbox; near misses and dead tokens are unknown",
         test_many_tokens_each_reach_their_own_sandbox},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("provisiond token index", NULL, NULL, tests);
}
