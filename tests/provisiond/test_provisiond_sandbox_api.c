/* The sandbox API of sbx-provisiond over the local backend: the remote
 * backend, pointed at the daemon, runs commands and moves files in the
 * sandboxes it creates (remote -> sbx-provisiond -> local), through the
 * per-sandbox capability URL BASE/s/TOKEN.  Tokens: a wrong, truncated or
 * destroyed sandbox's token answers 404 with a JSON detail and touches
 * nothing (also once the id is made again, with a new token); one sandbox's token reaches that sandbox only; a restart keeps
 * a token valid; no token reaches the daemon's log; --public-url is the
 * URLs' base; --sandbox-api-key is required on top when set; GET
 * /v1/sandbox's home_dir is where commands start, answered without
 * starting one, and asked once per sandbox incarnation. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/provisiond/provd_process.h"
#include "tests/support/backend_calls.h"
#include "tests/support/cunit_main.h"
#include "tests/support/http_probe.h"
#include "tests/support/remote_helpers.h"

#define TOKEN_LEN 64
#define REQUEST_MS 30000L

/* The remote backend on `d`'s daemon (sandbox_api_key `key` when not
 * NULL); NULL after a CUnit failure. */
static sbx_backend *open_remote(const provd_local *d, const char *key, sbx_host **host)
{
    sbx_error err;
    const sbx_option extra[] = {{"sandbox_api_key", key}};
    sbx_backend *b = sbx_test_open_remote(host, provd_url(d->proc), NULL, extra,
                                          key != NULL ? 1 : 0, &err);
    if (b == NULL)
        fprintf(stderr, "open remote: %s\n", err.message);
    CU_ASSERT_PTR_NOT_NULL(b);
    return b;
}

static void close_remote(sbx_backend *b, sbx_host *host)
{
    sbx_backend_close(b);
    sbx_host_free(host);
}

/* A daemon over the local backend (ownership records kept) and the remote
 * backend on it. */
typedef struct session {
    provd_local d;
    sbx_host *host;
    sbx_backend *b;
} session;

/* Start `s` with the daemon's `extra` arguments.  Returns 1, or 0 after a
 * CUnit failure (nothing left). */
static int session_start(session *s, const char *const *extra)
{
    s->host = NULL;
    if (!provd_local_start(&s->d, 1, extra))
        return 0;
    s->b = open_remote(&s->d, NULL, &s->host);
    if (s->b == NULL) {
        sbx_host_free(s->host);
        provd_local_stop(&s->d, 0);
        return 0;
    }
    return 1;
}

/* Close the remote backend and stop the daemon, which must exit 0. */
static void session_end(session *s)
{
    close_remote(s->b, s->host);
    CU_ASSERT_EQUAL(provd_local_stop(&s->d, 0), 0);
}

/* Create `id` for user "u" through the remote backend and copy the token
 * of its sandbox_url (after "/s/") into `token` (TOKEN_LEN + 1 bytes), the
 * URL into `url` (512 bytes) when not NULL.  Returns 1, or 0 after a CUnit
 * failure. */
static int create_with_token(sbx_backend *b, const char *id, char *token, char *url)
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = id;
    req.user_id = "u";
    sbx_sandbox *s = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_create(b, &req, &s, &err);
    CU_ASSERT_EQUAL(st, SBX_OK);
    if (st != SBX_OK) {
        fprintf(stderr, "create %s: %s\n", id, err.message);
        return 0;
    }
    const char *mark = s->sandbox_url != NULL ? strstr(s->sandbox_url, "/s/") : NULL;
    int ok = mark != NULL && strlen(mark + 3) == TOKEN_LEN &&
             strspn(mark + 3, "0123456789abcdef") == TOKEN_LEN;
    CU_ASSERT_TRUE(ok);
    if (ok) {
        snprintf(token, TOKEN_LEN + 1, "%s", mark + 3);
        if (url != NULL)
            snprintf(url, 512, "%s", s->sandbox_url);
    }
    sbx_backend_free_sandboxes(b, s, 1);
    return ok;
}

/* Run shell text `command` with `env` (`env_count`) and `timeout_ms`. */
static sbx_exec_result *run(sbx_backend *b, const char *id, const char *command,
                            const sbx_env_var *env, size_t env_count, int64_t timeout_ms)
{
    sbx_exec_result *r;
    sbx_error err;
    sbx_test_command shell = { command, env, env_count, timeout_ms };
    sbx_status st = sbx_test_shell(b, id, &shell, &r, &err);
    CU_ASSERT_EQUAL(st, SBX_OK);
    if (st != SBX_OK)
        fprintf(stderr, "exec '%s': %s: %s\n", command, sbx_status_name(st), err.message);
    return r;
}

/* Whether a file `name` exists in local sandbox `id` of `d`, seen on
 * disk without the daemon. */
static int sandbox_has(const provd_local *d, const char *id, const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s/%s", d->local_dir, id, name);
    return access(path, F_OK) == 0;
}

/* POST an AIO write of `name` to BASE/s/`token`: the HTTP status, with
 * the answer in `answer`. */
static long write_through(const char *base, const char *token, const char *name,
                          char *answer, size_t cap)
{
    char path[256], body[256];
    snprintf(path, sizeof path, "/s/%s/v1/file/write", token);
    snprintf(body, sizeof body, "{\"file\":\"%s\",\"content\":\"x\"}", name);
    return provd_request(base, (provd_send){"POST", path, body}, REQUEST_MS, answer, cap);
}

/* Whether the daemon's stderr holds `text`, read now. */
static int log_holds(const provd_local *d, const char *text)
{
    FILE *f = fopen(d->stderr_path, "r");
    if (f == NULL)
        return 0;
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, f) != NULL)
        found = strstr(line, text) != NULL;
    fclose(f);
    return found;
}

static void test_exec_through_the_daemon_reports_exits_env_and_timeouts(void)
{
    session s;
    const char *const verbose[] = {"--verbose", NULL};
    if (!session_start(&s, verbose))
        return;
    sbx_backend *b = s.b;
    char token[TOKEN_LEN + 1];
    if (create_with_token(b, "ops", token, NULL)) {
        static const struct {
            const char *command;
            int code;
        } exits[] = {{"true", 0}, {"exit 1", 1}, {"exit 255", 255}, {"no-such-program-x", 127}};
        for (size_t i = 0; i < sizeof exits / sizeof exits[0]; i++) {
            sbx_exec_result *r = run(b, "ops", exits[i].command, NULL, 0, SBX_EXEC_DEFAULT);
            CU_ASSERT(r != NULL && r->outcome == SBX_EXEC_EXITED &&
                      r->exit_code == exits[i].code);
            sbx_backend_free_exec_result(b, r);
        }
        /* Values reach the command as they are: nothing is spliced. */
        const sbx_env_var env[] = {{"GREETING", "a b;$(echo no)'\"\n"}, {"SECOND", ""}};
        sbx_exec_result *r =
            run(b, "ops", "printf '%s|%s' \"$GREETING\" \"${SECOND-unset}\"", env, 2, 0);
        CU_ASSERT(r != NULL && strcmp(r->stdout_data, "a b;$(echo no)'\"\n|") == 0);
        sbx_backend_free_exec_result(b, r);
        r = run(b, "ops", "echo out; echo err >&2; exit 3", NULL, 0, 0);
        CU_ASSERT(r != NULL && strcmp(r->stdout_data, "out\n") == 0 &&
                  strcmp(r->stderr_data, "err\n") == 0 && r->exit_code == 3);
        sbx_backend_free_exec_result(b, r);
        r = run(b, "ops", "sleep 60", NULL, 0, 300);
        CU_ASSERT(r != NULL && r->outcome == SBX_EXEC_TIMED_OUT && r->duration_ms < 30000);
        sbx_backend_free_exec_result(b, r);
        /* The requests were logged without their token. */
        CU_ASSERT_TRUE(log_holds(&s.d, "POST /s/.../v1/bash/exec -> 200"));
        CU_ASSERT_FALSE(log_holds(&s.d, token));
    }
    session_end(&s);
}

static void test_binary_files_round_trip_byte_exact_and_list(void)
{
    session s;
    if (!session_start(&s, NULL))
        return;
    sbx_backend *b = s.b;
    char token[TOKEN_LEN + 1];
    if (create_with_token(b, "files", token, NULL)) {
        unsigned char bytes[1024];
        for (size_t i = 0; i < sizeof bytes; i++)
            bytes[i] = (unsigned char)(i * 7 % 256);   /* every byte value, NUL included */
        sbx_error err;
        CU_ASSERT_EQUAL(sbx_backend_write_file(b, "files", "dir/blob.bin", bytes, sizeof bytes,
                                               SBX_WRITE_MKDIRS, 0600, &err),
                        SBX_OK);
        sbx_file_content *c = NULL;
        CU_ASSERT_EQUAL(sbx_backend_read_file(b, "files", "dir/blob.bin", 0, 1 << 20, &c, &err),
                        SBX_OK);
        CU_ASSERT(c != NULL && c->length == sizeof bytes && !c->truncated &&
                  memcmp(c->data, bytes, sizeof bytes) == 0);
        sbx_backend_free_file_content(b, c);
        sbx_dir_listing *l = NULL;
        CU_ASSERT_EQUAL(sbx_backend_list_dir(b, "files", ".", 2, 100, &l, &err), SBX_OK);
        int listed = 0;
        for (const sbx_dir_entry *e = l != NULL ? l->entries : NULL; e != NULL; e = e->next)
            listed += strcmp(e->path, "dir/blob.bin") == 0 && e->type == SBX_FILE_REGULAR &&
                      e->size == sizeof bytes;
        CU_ASSERT_EQUAL(listed, 1);
        sbx_backend_free_listing(b, l);
        /* The bytes are on the local backend's disk, in that sandbox. */
        CU_ASSERT_TRUE(sandbox_has(&s.d, "files", "dir/blob.bin"));
    }
    session_end(&s);
}

static void test_bad_tokens_answer_404_and_touch_nothing(void)
{
    session s;
    if (!session_start(&s, NULL))
        return;
    sbx_backend *b = s.b;
    char a[TOKEN_LEN + 1], other[TOKEN_LEN + 1], gone[TOKEN_LEN + 1];
    sbx_error err;
    if (create_with_token(b, "a", a, NULL) &&
        create_with_token(b, "b", other, NULL) && create_with_token(b, "gone", gone, NULL)) {
        CU_ASSERT_STRING_NOT_EQUAL(a, other);
        CU_ASSERT_EQUAL(sbx_backend_destroy(b, "gone", &err), SBX_OK);
        char flipped[TOKEN_LEN + 1], truncated[TOKEN_LEN + 1], upper[TOKEN_LEN + 1],
            longer[TOKEN_LEN + 2];
        snprintf(flipped, sizeof flipped, "%s", a);
        flipped[TOKEN_LEN - 1] = flipped[TOKEN_LEN - 1] == '0' ? '1' : '0';
        snprintf(truncated, sizeof truncated, "%.*s", TOKEN_LEN - 1, a);
        snprintf(upper, sizeof upper, "%s", a);
        for (char *p = upper; *p != '\0'; p++)
            *p = *p >= 'a' && *p <= 'f' ? (char)(*p - 'a' + 'A') : *p;
        snprintf(longer, sizeof longer, "%s0", a);
        const char *const bad[] = {flipped, truncated, upper, longer, gone, "", "ops"};
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            char answer[512];
            long status = write_through(provd_url(s.d.proc), bad[i], "touched", answer,
                                        sizeof answer);
            CU_ASSERT_EQUAL(status, 404);
            CU_ASSERT_PTR_NOT_NULL(strstr(answer, "\"detail\""));
        }
        CU_ASSERT_FALSE(sandbox_has(&s.d, "a", "touched"));
        CU_ASSERT_FALSE(sandbox_has(&s.d, "b", "touched"));
        /* One sandbox's token reaches that sandbox only. */
        char answer[512];
        CU_ASSERT_EQUAL(write_through(provd_url(s.d.proc), other, "mine", answer, sizeof answer),
                        200);
        CU_ASSERT_TRUE(sandbox_has(&s.d, "b", "mine"));
        CU_ASSERT_FALSE(sandbox_has(&s.d, "a", "mine"));
        /* Through the remote backend, the destroyed sandbox is gone. */
        sbx_exec_result *r = NULL;
        sbx_exec_request req = SBX_EXEC_REQUEST_INIT;
        req.shell_command = "true";
        CU_ASSERT_EQUAL(sbx_backend_exec(b, "gone", &req, &r, &err), SBX_ERR_NOT_FOUND);
        sbx_backend_free_exec_result(b, r);
        /* The id made again is another sandbox: a new token, the old one
         * still dead. */
        char again[TOKEN_LEN + 1];
        if (create_with_token(b, "gone", again, NULL)) {
            CU_ASSERT_STRING_NOT_EQUAL(again, gone);
            CU_ASSERT_EQUAL(write_through(provd_url(s.d.proc), gone, "touched", answer,
                                          sizeof answer),
                            404);
            CU_ASSERT_FALSE(sandbox_has(&s.d, "gone", "touched"));
        }
    }
    session_end(&s);
}

static void test_a_restart_keeps_a_token_valid(void)
{
    provd_local d;
    if (!provd_local_start(&d, 1, NULL))
        return;
    sbx_host *host = NULL;
    sbx_backend *b = open_remote(&d, NULL, &host);
    char token[TOKEN_LEN + 1];
    int made = b != NULL && create_with_token(b, "kept", token, NULL);
    close_remote(b, host);
    if (!made) {
        provd_local_stop(&d, 0);
        return;
    }
    CU_ASSERT_EQUAL(provd_local_stop(&d, 1), 0);
    if (!provd_local_restart(&d, 1, NULL))
        return;
    char answer[512];
    CU_ASSERT_EQUAL(write_through(provd_url(d.proc), token, "after", answer, sizeof answer),
                    200);
    CU_ASSERT_TRUE(sandbox_has(&d, "kept", "after"));
    host = NULL;
    b = open_remote(&d, NULL, &host);
    char again[TOKEN_LEN + 1];
    /* The same owner creating it again gets the same token (new port). */
    if (b != NULL && create_with_token(b, "kept", again, NULL)) {
        CU_ASSERT_STRING_EQUAL(again, token);
        sbx_exec_result *r = run(b, "kept", "cat after", NULL, 0, 0);
        CU_ASSERT(r != NULL && strcmp(r->stdout_data, "x") == 0);
        sbx_backend_free_exec_result(b, r);
    }
    close_remote(b, host);
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

static void test_public_url_is_the_base_of_sandbox_urls(void)
{
    provd_local d;
    const char *const extra[] = {"--public-url", "https://sandboxes.example.test:9443/", NULL};
    if (!provd_local_start(&d, 1, extra))
        return;
    char answer[1024];
    CU_ASSERT_EQUAL(provd_create(provd_url(d.proc), "pub", "u", REQUEST_MS, answer,
                                 sizeof answer),
                    200);
    const char *want = "\"sandbox_url\":\"https://sandboxes.example.test:9443/s/";
    const char *at = strstr(answer, want);
    CU_ASSERT_PTR_NOT_NULL(at);
    if (at != NULL) {
        const char *token = at + strlen(want);
        CU_ASSERT_EQUAL(strspn(token, "0123456789abcdef"), TOKEN_LEN);
        CU_ASSERT_EQUAL(token[TOKEN_LEN], '"');
    }
    /* The list says the same. */
    CU_ASSERT_EQUAL(provd_request(provd_url(d.proc), (provd_send){"GET", "/api/sandboxes", NULL},
                                  REQUEST_MS, answer, sizeof answer),
                    200);
    CU_ASSERT_PTR_NOT_NULL(strstr(answer, want));
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
    char output[1024];
    const char *const refused[] = {"--public-url", "ftp://x", NULL};
    CU_ASSERT_EQUAL(provd_run_refused(refused, output, sizeof output), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(output, "--public-url"));
}

static void test_sandbox_api_key_is_required_on_top_of_the_token(void)
{
    provd_local d;
    const char *const extra[] = {"--sandbox-api-key", "sandbox-secret", "--verbose", NULL};
    if (!provd_local_start(&d, 1, extra))
        return;
    sbx_host *host = NULL, *keyless_host = NULL;
    sbx_backend *b = open_remote(&d, "sandbox-secret", &host);
    sbx_backend *keyless = open_remote(&d, NULL, &keyless_host);
    char token[TOKEN_LEN + 1];
    if (b != NULL && keyless != NULL && create_with_token(b, "keyed", token, NULL)) {
        sbx_exec_result *r = run(b, "keyed", "echo ok", NULL, 0, 0);
        CU_ASSERT(r != NULL && strcmp(r->stdout_data, "ok\n") == 0);
        sbx_backend_free_exec_result(b, r);
        sbx_exec_request req = SBX_EXEC_REQUEST_INIT;
        req.shell_command = "touch touched";
        sbx_error err;
        r = NULL;
        CU_ASSERT_NOT_EQUAL(sbx_backend_exec(keyless, "keyed", &req, &r, &err), SBX_OK);
        sbx_backend_free_exec_result(keyless, r);
        char answer[512];
        CU_ASSERT_EQUAL(write_through(provd_url(d.proc), token, "touched", answer,
                                      sizeof answer),
                        401);
        CU_ASSERT_FALSE(sandbox_has(&d, "keyed", "touched"));
        /* The lifecycle API does not take the sandbox key's place. */
        CU_ASSERT_FALSE(log_holds(&d, "sandbox-secret"));
        CU_ASSERT_FALSE(log_holds(&d, token));
    }
    close_remote(keyless, keyless_host);
    close_remote(b, host);
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

/* GET BASE/s/`token`/v1/sandbox: its home_dir into `home` (`cap` bytes),
 * or "" when the answer is not 200 or has none. */
static void home_through(const char *base, const char *token, char *home, size_t cap)
{
    char path[256], answer[8192];
    snprintf(path, sizeof path, "/s/%s/v1/sandbox", token);
    home[0] = '\0';
    long status = provd_request(base, (provd_send){"GET", path, NULL}, REQUEST_MS, answer,
                                sizeof answer);
    CU_ASSERT_EQUAL(status, 200);
    const char *at = strstr(answer, "\"home_dir\":\"");
    if (status == 200 && at != NULL) {
        at += strlen("\"home_dir\":\"");
        size_t n = strcspn(at, "\"");
        snprintf(home, cap, "%.*s", (int)(n < cap ? n : cap - 1), at);
    }
}

/* home_dir is the directory commands start in, and it is answered from
 * the sandbox's record: a daemon whose sandboxes cannot start a process
 * (an address-space limit of one byte) still answers it, and relative
 * paths still land there. */
static void test_home_dir_is_the_working_dir_and_needs_no_command(void)
{
    session s;
    if (!session_start(&s, NULL))
        return;
    char token[TOKEN_LEN + 1], home[600];
    if (create_with_token(s.b, "homes", token, NULL)) {
        sbx_exec_result *r = run(s.b, "homes", "pwd", NULL, 0, 30000);
        home_through(provd_url(s.d.proc), token, home, sizeof home);
        CU_ASSERT(r != NULL && strncmp(r->stdout_data, home, strlen(home)) == 0 &&
                  strcmp(r->stdout_data + strlen(home), "\n") == 0);
        sbx_backend_free_exec_result(s.b, r);
    }
    session_end(&s);

    const char *const no_processes[] = {"--set", "limit_address_bytes=1", NULL};
    if (!session_start(&s, no_processes))
        return;
    if (create_with_token(s.b, "bare", token, NULL)) {
        sbx_exec_result *r = NULL;
        sbx_error err;
        sbx_test_command shell = {"pwd", NULL, 0, 30000};
        sbx_status st = sbx_test_shell(s.b, "bare", &shell, &r, &err);
        /* A user sees the command fail... */
        CU_ASSERT(st != SBX_OK || r->outcome != SBX_EXEC_EXITED || r->exit_code != 0);
        sbx_backend_free_exec_result(s.b, r);
        /* ...and the home directory answered, relative paths landing in it. */
        char expected[600];
        snprintf(expected, sizeof expected, "%s/bare", s.d.local_dir);
        home_through(provd_url(s.d.proc), token, home, sizeof home);
        CU_ASSERT_STRING_EQUAL(home, expected);
        char answer[512];
        CU_ASSERT_EQUAL(write_through(provd_url(s.d.proc), token, "rel.txt", answer,
                                      sizeof answer),
                        200);
        CU_ASSERT_TRUE(sandbox_has(&s.d, "bare", "rel.txt"));
    }
    session_end(&s);
}

/* Write "name" (relative) in `id` through `b`; 1 when it is then on disk
 * in that sandbox. */
static int write_relative(sbx_backend *b, const provd_local *d, const char *id,
                          const char *name)
{
    sbx_error err;
    sbx_status st = sbx_backend_write_file(b, id, name, "x", 1, 0, 0, &err);
    if (st != SBX_OK)
        fprintf(stderr, "write %s in %s: %s\n", name, id, err.message);
    return st == SBX_OK && sandbox_has(d, id, name);
}

/* The remote backend keeps a sandbox's home directory for the incarnation
 * discover names: one GET /v1/sandbox per incarnation, none shared between
 * sandboxes, and a sandbox destroyed and made again under the same id by
 * another client is asked again. */
static void test_home_dir_is_asked_once_per_incarnation(void)
{
    session s;
    const char *const verbose[] = {"--verbose", NULL};
    if (!session_start(&s, verbose))
        return;
    sbx_host *other_host = NULL;
    sbx_backend *other = open_remote(&s.d, NULL, &other_host);
    char token[TOKEN_LEN + 1];
    const char *asked = "/v1/sandbox -> 200";
    if (other != NULL && create_with_token(s.b, "inc1", token, NULL) &&
        create_with_token(s.b, "inc2", token, NULL)) {
        CU_ASSERT_TRUE(write_relative(s.b, &s.d, "inc1", "a"));
        CU_ASSERT_TRUE(write_relative(s.b, &s.d, "inc1", "b"));
        CU_ASSERT_EQUAL(provd_local_stderr_count(&s.d, asked), 1);
        CU_ASSERT_TRUE(write_relative(s.b, &s.d, "inc2", "a"));
        CU_ASSERT_EQUAL(provd_local_stderr_count(&s.d, asked), 2);
        /* Made again by another client: this one's kept home is stale. */
        sbx_error err;
        CU_ASSERT_EQUAL(sbx_backend_destroy(other, "inc1", &err), SBX_OK);
        CU_ASSERT_TRUE(create_with_token(other, "inc1", token, NULL));
        CU_ASSERT_TRUE(write_relative(s.b, &s.d, "inc1", "c"));
        CU_ASSERT_EQUAL(provd_local_stderr_count(&s.d, asked), 3);
        CU_ASSERT_FALSE(sandbox_has(&s.d, "inc1", "a"));
        CU_ASSERT_TRUE(write_relative(s.b, &s.d, "inc1", "d"));
        CU_ASSERT_EQUAL(provd_local_stderr_count(&s.d, asked), 3);
    }
    if (other != NULL)
        close_remote(other, other_host);
    session_end(&s);
}

void sbx_test_register(void)
{
    static CU_TestInfo tests[] = {
        {"exec through the daemon reports exits, env and timeouts",
         test_exec_through_the_daemon_reports_exits_env_and_timeouts},
        {"binary files round-trip byte-exact and list",
         test_binary_files_round_trip_byte_exact_and_list},
        {"bad tokens answer 404 and touch nothing", test_bad_tokens_answer_404_and_touch_nothing},
        {"a restart keeps a token valid", test_a_restart_keeps_a_token_valid},
        {"--public-url is the base of sandbox URLs", test_public_url_is_the_base_of_sandbox_urls},
        {"--sandbox-api-key is required on top of the token",
         test_sandbox_api_key_is_required_on_top_of_the_token},
        {"home_dir is the working dir and needs no command",
         test_home_dir_is_the_working_dir_and_needs_no_command},
        {"home_dir is asked once per incarnation", test_home_dir_is_asked_once_per_incarnation},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("sbx-provisiond sandbox API", NULL, NULL, tests);
}
