/* A property of sbxctl --json, checked over many generated hostile inputs:
 * whatever the arguments and whatever a backend answers, standard output is
 * exactly one strict JSON object in valid UTF-8 (sbx_test_run_json), and an
 * argument that cannot be text (bytes that are not UTF-8; a control
 * character in an id or a name) is a usage error naming the argument.
 * Inputs come from a seeded generator: a failure prints its seed and input,
 * and SBX_TEST_SEED=N replays a run. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <json-c/json.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/sbxctl/run_sbxctl.h"
#include "tests/sbxctl/sbxctl_checks.h"
#include "tests/support/cunit_main.h"
#include "tests/support/emulator.h"
#include "tests/support/scratch_dir.h"

#define ARGS SBX_TEST_ARGS

/* Runs of each part; enough to meet every piece in every position often. */
#define LOCAL_RUNS 120
#define REMOTE_ROUNDS 30

/* ------------------------------------------------------------ generator */

static uint64_t seed;
static uint64_t rng;

/* xorshift64*: small, deterministic for a seed. */
static uint32_t next_random(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * UINT64_C(2685821657736338717)) >> 32);
}

static size_t pick(size_t n)
{
    return next_random() % n;
}

/* What hostile text is made of: bytes that are not UTF-8 (stray
 * continuation bytes, overlong forms, surrogates, past U+10FFFF, cut
 * sequences), control characters and a terminal escape, JSON and URL
 * syntax, escapes spelled out, and well-formed text of other scripts. */
static const char *const pieces[] = {
    "\xff", "\xfe", "\x80", "\xbf", "\xc0\x80", "\xc1\xbf", "\xe0\x80\xaf", "\xed\xa0\x80",
    "\xed\xbf\xbf", "\xf4\x90\x80\x80", "\xf8\x88\x80\x80\x80", "\xc3", "\xe2\x82", "\xf0\x9f\x98",
    "\x01", "\x1b[31m", "\n", "\r", "\t", "\x7f", "\"", "\\", "\\u0000", "\\ud800", "\\\"",
    "{", "}", "[", "]", ",", ":", "null", "%00", "%ff", "'", "$HOME", "${X}", "*", " ",
    "\xc3\xa9", "\xf0\x9f\x98\x80", "\xef\xbf\xbd", "\xe2\x80\xae", "a", "sb-1", "Z9_",
};

/* Build 1 to 8 pieces (now and then one long run) into buf[cap]. */
static void hostile_text(char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    if (pick(20) == 0) {
        size_t n = 200 + pick(300);
        for (; used < n && used + 1 < cap; used++)
            buf[used] = (char)('a' + pick(26));
        buf[used] = '\0';
    }
    size_t count = 1 + pick(8);
    for (size_t i = 0; i < count; i++) {
        const char *piece = pieces[pick(sizeof pieces / sizeof pieces[0])];
        size_t len = strlen(piece);
        if (used + len + 1 > cap)
            break;
        memcpy(buf + used, piece, len + 1);
        used += len;
    }
}

/* Well-formed UTF-8 without NUL (an independent check: the tree's own
 * validator is what is under test). */
static int is_utf8(const unsigned char *s)
{
    while (*s != '\0') {
        size_t n;
        uint32_t cp;
        if (s[0] < 0x80) {
            s++;
            continue;
        } else if ((s[0] & 0xE0) == 0xC0) {
            n = 2;
            cp = s[0] & 0x1Fu;
        } else if ((s[0] & 0xF0) == 0xE0) {
            n = 3;
            cp = s[0] & 0x0Fu;
        } else if ((s[0] & 0xF8) == 0xF0) {
            n = 4;
            cp = s[0] & 0x07u;
        } else {
            return 0;
        }
        for (size_t i = 1; i < n; i++) {
            if ((s[i] & 0xC0) != 0x80)
                return 0;
            cp = (cp << 6) | (s[i] & 0x3Fu);
        }
        static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < least[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        s += n;
    }
    return 1;
}

static int has_control(const char *s)
{
    for (; *s != '\0'; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 1;
    return 0;
}

/* ------------------------------------------------------------ the property */

/* Print what a failing run was given, bytes escaped. */
static void report(const char *what, const char *const *args, const sbx_test_run *run)
{
    fprintf(stderr, "seed %" PRIu64 ": %s:", seed, what);
    for (size_t i = 0; args[i] != NULL; i++) {
        fputs(" '", stderr);
        for (const unsigned char *c = (const unsigned char *)args[i]; *c != '\0'; c++)
            fprintf(stderr, *c >= 0x20 && *c < 0x7f ? "%c" : "\\x%02x", *c);
        fputc('\'', stderr);
    }
    fprintf(stderr, "\n  exit %d, stdout [%s], stderr [%s]\n", run->exit_code,
            run->out != NULL ? run->out : "", run->err != NULL ? run->err : "");
}

/* Run sbxctl; its stdout must be one strict JSON object in UTF-8 (the
 * object is returned, the caller puts it).  When `refused_as` is not NULL
 * the run must be the usage error whose message contains it. */
static json_object *run_checked(const char *const *args, const char *refused_as)
{
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, args);
    json_object *object = sbx_test_run_json(&run);
    CU_ASSERT_PTR_NOT_NULL(object);
    if (object == NULL)
        report("stdout is not one strict JSON object", args, &run);
    if (refused_as != NULL) {
        json_object *error = json_object_object_get(object, "error");
        const char *kind = sbx_test_json_string(error, "kind");
        const char *message = sbx_test_json_string(error, "message");
        int refused = run.exit_code == 2 && kind != NULL && strcmp(kind, "usage") == 0 &&
                      message != NULL && strstr(message, refused_as) != NULL;
        CU_ASSERT_TRUE(refused);
        if (!refused)
            report(refused_as, args, &run);
    }
    sbx_test_run_clear(&run);
    return object;
}

static void start_generator(void)
{
    const char *fixed = getenv("SBX_TEST_SEED");
    seed = fixed != NULL ? strtoull(fixed, NULL, 10)
                         : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    rng = seed != 0 ? seed : 1;
    fprintf(stderr, "hostile inputs from seed %" PRIu64 " (SBX_TEST_SEED replays it)\n", seed);
}

/* ------------------------------------------------------------ local */

/* Every argument position sbxctl has, filled with hostile text, against the
 * local backend in a state directory of its own. */
static void test_local_arguments(void)
{
    start_generator();
    char state_dir[256];
    CU_ASSERT_FATAL(sbx_test_scratch_dir(state_dir, sizeof state_dir, "hostile") == 0);
    char state_setting[300];
    snprintf(state_setting, sizeof state_setting, "state_dir=%s", state_dir);

    for (int i = 0; i < LOCAL_RUNS; i++) {
        char text[1024], arg[1400];
        hostile_text(text, sizeof text);
        int utf8 = is_utf8((const unsigned char *)text);
        int name_ok = utf8 && !has_control(text);
        const char *refused = NULL;
        json_object *object = NULL;
        switch (pick(11)) {
        case 0:
            object = run_checked(ARGS("--json", "--set", state_setting, "create", "--id", text),
                                 name_ok ? NULL : "option '--id'");
            break;
        case 1:
            object = run_checked(ARGS("--json", "--set", state_setting, "create", "--thread",
                                      text, "--user", "u"),
                                 name_ok ? NULL : "option '--thread'");
            break;
        case 2:
            object = run_checked(ARGS("--json", "--set", state_setting, "create", "--id", "h-1",
                                      "--user", text),
                                 name_ok ? NULL : "option '--user'");
            break;
        case 3:
            snprintf(arg, sizeof arg, "/srv/%s:/mnt/x%s", text, pick(2) ? ":ro" : "");
            object = run_checked(ARGS("--json", "--set", state_setting, "create", "--id", "h-2",
                                      "--mount", arg),
                                 utf8 ? NULL : "option '--mount'");
            break;
        case 4: {
            static const char *const commands[] = {"destroy", "alive", "discover",
                                                   "reconcile"};
            const char *command = commands[pick(4)];
            snprintf(arg, sizeof arg, "command '%s'", command);
            refused = name_ok ? NULL : arg;
            object = run_checked(ARGS("--json", "--set", state_setting, command, text), refused);
            break;
        }
        case 5:
            object = run_checked(ARGS("--json", "--backend", text, "list"),
                                 name_ok ? NULL : "option '--backend'");
            break;
        case 6: {
            /* The key ends at the first '=': judge what sbxctl sees. */
            char key[1024];
            size_t key_len = strcspn(text, "=");
            memcpy(key, text, key_len);
            key[key_len] = '\0';
            if (key_len > 0 && (!is_utf8((const unsigned char *)key) || has_control(key)))
                refused = "the KEY of option '--set'";
            snprintf(arg, sizeof arg, "%s=1", text);
            object = run_checked(ARGS("--json", "--set", arg, "list"), refused);
            break;
        }
        case 7:
            snprintf(arg, sizeof arg, "api_key=%s", text);
            object = run_checked(ARGS("--json", "--set", arg, "--set", state_setting, "list"),
                                 utf8 ? NULL : "the value of option '--set api_key'");
            break;
        case 8:
            snprintf(arg, sizeof arg, "%s/none-%s", state_dir, text);
            object = run_checked(ARGS("--json", "--config", arg, "list"), NULL);
            break;
        case 9:
            object = run_checked(ARGS("--json", text), NULL);
            break;
        default:
            snprintf(arg, sizeof arg, "--%s", text);
            object = run_checked(ARGS("--json", arg, "list"), NULL);
            break;
        }
        json_object_put(object);
    }
    /* What the runs created, then the directory. */
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("--set", state_setting, "destroy", "h-1"));
    sbx_test_run_clear(&run);
    sbx_test_sbxctl(&run, NULL, ARGS("--set", state_setting, "destroy", "h-2"));
    sbx_test_run_clear(&run);
    sbx_test_remove_tree(state_dir);
}

/* ------------------------------------------------------------ remote */

/* `text` as the inside of a JSON string that json-c reads back byte for
 * byte: quotes, backslashes and control characters escaped, every other
 * byte (not UTF-8 included) raw, so that the emulator answers it raw. */
static void json_inner(const char *text, char *out, size_t cap)
{
    size_t used = 0;
    for (const unsigned char *c = (const unsigned char *)text; *c != '\0'; c++) {
        char piece[8];
        if (*c == '"' || *c == '\\')
            snprintf(piece, sizeof piece, "\\%c", *c);
        else if (*c < 0x20)
            snprintf(piece, sizeof piece, "\\u%04x", *c);
        else
            snprintf(piece, sizeof piece, "%c", *c);
        size_t len = strlen(piece);
        if (used + len + 1 > cap)
            break;
        memcpy(out + used, piece, len + 1);
        used += len;
    }
    if (cap > 0)
        out[used] = '\0';
}

/* The emulator answers what each round stores: sandboxes whose fields
 * hold hostile text (sometimes with \u0000 or a lone surrogate escape
 * spelled into the JSON), and error details of the same kind.  Every
 * command sbxctl has must still write one strict JSON object. */
static void test_remote_answers(void)
{
    start_generator();
    static const char *const emu_args[] = {"--contract", "2", NULL};
    sbx_test_emu *emu = sbx_test_emu_start(emu_args);
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    char url_setting[128];
    snprintf(url_setting, sizeof url_setting, "provisioner_url=%s", sbx_test_emu_url(emu));
    static const char *const fields[] = {"sandbox_url", "user_id", "thread_id", "status",
                                         "sandbox_id"};

    for (int round = 0; round < REMOTE_ROUNDS; round++) {
        char id[32], path[64], text[1024], inner[4096], body[8192];
        snprintf(id, sizeof id, "h-%d", round);
        snprintf(path, sizeof path, "/_emu/sandboxes/%s", id);
        hostile_text(text, sizeof text);
        json_inner(text, inner, sizeof inner);
        const char *field = fields[pick(sizeof fields / sizeof fields[0])];
        const char *extra = pick(4) == 0 ? (pick(2) ? "\\u0000x" : "\\ud800") : "";
        snprintf(body, sizeof body,
                 "{\"sandbox_id\":\"%s\",\"sandbox_url\":\"http://127.0.0.1:1\","
                 "\"user_id\":\"default\",\"thread_id\":null,\"status\":\"Running\","
                 "\"mount_contract_version\":2,\"%s\":\"%s%s\"}",
                 id, field, inner, extra);
        int status = sbx_test_emu_control(emu, "PUT", path, body, NULL);
        CU_ASSERT_EQUAL(status, 200);

        /* An error answer whose detail is hostile, for the next create:
         * the answer's JSON, itself a string in the fault's JSON. */
        char answer[4200];
        snprintf(answer, sizeof answer, "{\"detail\":\"%s%s\"}", inner, extra);
        json_inner(answer, inner, sizeof inner);
        snprintf(body, sizeof body,
                 "{\"route\":\"create\",\"action\":\"respond\",\"status\":%d,"
                 "\"body\":\"%s\"}",
                 pick(2) ? 500 : 422, inner);
        CU_ASSERT_EQUAL(sbx_test_emu_fault(emu, body), 200);

        const char *const *runs[] = {
            ARGS("--json", "--backend", "remote", "--set", url_setting, "list"),
            ARGS("--json", "--backend", "remote", "--set", url_setting, "discover", id),
            ARGS("--json", "--backend", "remote", "--set", url_setting, "alive", id),
            ARGS("--json", "--backend", "remote", "--set", url_setting, "reconcile", id),
            ARGS("--json", "--backend", "remote", "--set", url_setting, "create", "--id",
                 "h-new"),
        };
        for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
            json_object_put(run_checked(runs[i], NULL));
    }
    sbx_test_emu_stop(emu);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"local: hostile arguments", test_local_arguments},
        {"remote: hostile answers", test_remote_answers},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("sbxctl --json under hostile input", NULL, NULL, tests);
}
