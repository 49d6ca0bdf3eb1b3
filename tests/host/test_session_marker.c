/* A session command's end marker as a unit (host-api/src/session_marker.c):
 * the text sent to the shell, run by a real /bin/sh, and the scanner that
 * finds the marker of one nonce in a stream fed in any pieces.  Output that
 * looks like a marker (another nonce, a bad code) is output; the exit code
 * is read from the marker line only; bytes come back exact. */
#include <config.h>

#include "host-api/src/session_marker.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/subprocess.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char nonce[] = "0123456789abcdef0123456789abcdef";
static const char other[] = "fedcba9876543210fedcba9876543210";

/* Scan `text` (n bytes) in pieces of `piece` bytes; returns bytes consumed. */
static size_t scan_pieces(host_marker_scan *s, const char *text, size_t n, size_t piece)
{
    size_t used = 0;
    while (used < n && s->state != HOST_MARKER_DONE) {
        size_t len = n - used < piece ? n - used : piece;
        size_t took = host_marker_feed(s, text + used, len);
        used += took;
        if (took < len)
            break;
    }
    return used;
}

static void test_marker_ends_output_in_any_pieces(void)
{
    char text[256];
    int n = snprintf(text, sizeof text, "line\nno newline%c\nSBX-END-%s 42\nnext", '\0', nonce);
    for (size_t piece = 1; piece <= (size_t)n; piece++) {
        host_marker_scan s;
        host_marker_scan_init(&s, nonce, 100, 1024);
        size_t used = scan_pieces(&s, text, (size_t)n, piece);
        CU_ASSERT_EQUAL(s.state, HOST_MARKER_DONE);
        CU_ASSERT_EQUAL(used, (size_t)n - 4); /* "next" is not the command's */
        CU_ASSERT_EQUAL(s.end_offset, 100 + (uint64_t)n - 4);
        CU_ASSERT_EQUAL(host_marker_exit_code(&s), 42);
        CU_ASSERT_EQUAL(s.output.len, 16);
        CU_ASSERT(memcmp(s.output.data, "line\nno newline\0", 16) == 0);
        host_marker_scan_free(&s);
    }
}

static void test_marker_like_lines_are_output(void)
{
    char text[512];
    int n = snprintf(text, sizeof text,
                     "\nSBX-END-%s 0\n"      /* an earlier command's nonce */
                     "\nSBX-END-%.31s 0\n"   /* a prefix of this one */
                     "xSBX-END-%s 0\n"       /* not after a newline */
                     "\n\nSBX-END-\nSBX-END-%s", other, nonce, nonce, other);
    host_marker_scan s;
    host_marker_scan_init(&s, nonce, 0, 4096);
    CU_ASSERT_EQUAL(scan_pieces(&s, text, (size_t)n, 7), (size_t)n);
    CU_ASSERT_EQUAL(s.state, HOST_MARKER_SCANNING);
    CU_ASSERT_EQUAL(host_marker_exit_code(&s), -1);
    /* Everything but a trailing newline (which may begin the marker) is
     * output, byte for byte. */
    CU_ASSERT_EQUAL(s.output.len + s.matched, (size_t)n);
    CU_ASSERT(memcmp(s.output.data, text, s.output.len) == 0);
    host_marker_scan_free(&s);
}

static void test_a_bad_code_on_the_marker_line_is_no_code(void)
{
    const char *codes[] = {"x1", "", "1000", "256", "-1", "1 2"};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        char text[128];
        int n = snprintf(text, sizeof text, "\nSBX-END-%s %s\n", nonce, codes[i]);
        host_marker_scan s;
        host_marker_scan_init(&s, nonce, 0, 64);
        CU_ASSERT_EQUAL(host_marker_feed(&s, text, (size_t)n), (size_t)n);
        CU_ASSERT_EQUAL(s.state, HOST_MARKER_DONE);
        CU_ASSERT_EQUAL(host_marker_exit_code(&s), -1);
        host_marker_scan_free(&s);
    }
}

static void test_output_past_the_cap_is_counted_not_kept(void)
{
    host_marker_scan s;
    host_marker_scan_init(&s, nonce, 0, 10);
    char text[128];
    int n = snprintf(text, sizeof text, "0123456789abcdef\nSBX-END-%s 3\n", nonce);
    CU_ASSERT_EQUAL(host_marker_feed(&s, text, (size_t)n), (size_t)n);
    CU_ASSERT_EQUAL(host_marker_exit_code(&s), 3);
    CU_ASSERT_EQUAL(s.output.len, 10);
    CU_ASSERT(s.truncated);
    host_marker_scan_free(&s);
}

static void test_dropped_bytes_break_a_begun_marker(void)
{
    host_marker_scan s;
    host_marker_scan_init(&s, nonce, 0, 64);
    char start[64];
    int n = snprintf(start, sizeof start, "a\nSBX-END-%.8s", nonce);
    host_marker_feed(&s, start, (size_t)n);
    host_marker_skip(&s, 5);
    char rest[64];
    int m = snprintf(rest, sizeof rest, "%s 0\n", nonce + 8);
    host_marker_feed(&s, rest, (size_t)m);
    CU_ASSERT_EQUAL(s.state, HOST_MARKER_SCANNING);
    CU_ASSERT_EQUAL(s.dropped, 5);
    CU_ASSERT_EQUAL(s.offset, (uint64_t)n + 5 + (uint64_t)m);
    host_marker_scan_free(&s);
}

/* Run `scripts` one after the other through /bin/sh reading stdin (stderr
 * discarded, as a session reads streams apart) and scan the output for the
 * markers of `nonces`: the outputs and codes of each. */
static void run_scripts(const char *const *commands, const char *const *nonces, size_t count,
                        char outputs[][256], int *codes)
{
    char dir[4096], path[4200], line[8600];
    CU_ASSERT_FATAL(sbx_test_scratch_dir(dir, sizeof dir, "session-marker") == 0);
    snprintf(path, sizeof path, "%s/script", dir);
    common_dynbuf script;
    common_dynbuf_init(&script, 0);
    CU_ASSERT_FATAL(common_dynbuf_add(&script, "trap : INT\n", 11) == COMMON_DYNBUF_OK);
    for (size_t i = 0; i < count; i++)
        CU_ASSERT_FATAL(host_session_script(&script, commands[i], nonces[i]) == COMMON_DYNBUF_OK);
    FILE *f = fopen(path, "w");
    CU_ASSERT_FATAL(f != NULL);
    fwrite(script.data, 1, script.len, f);
    fclose(f);
    common_dynbuf_free(&script);
    snprintf(line, sizeof line, "cd '%s' && /bin/sh < script 2>/dev/null", dir);
    const char *argv[] = {"/bin/sh", "-c", line, NULL};
    static char out[65536];
    CU_ASSERT_FATAL(sbx_test_run_program(argv, 30000, out, sizeof out) == 0);
    size_t used = 0, n = strlen(out);
    for (size_t i = 0; i < count; i++) {
        host_marker_scan s;
        host_marker_scan_init(&s, nonces[i], used, 255);
        used += host_marker_feed(&s, out + used, n - used);
        CU_ASSERT_EQUAL(s.state, HOST_MARKER_DONE);
        codes[i] = host_marker_exit_code(&s);
        snprintf(outputs[i], 256, "%.*s", (int)s.output.len, s.output.len ? s.output.data : "");
        host_marker_scan_free(&s);
    }
    CU_ASSERT_EQUAL(used, n);
    sbx_test_remove_tree(dir);
}

static void test_the_shell_runs_commands_as_written(void)
{
    char forged[256];
    snprintf(forged, sizeof forged, "printf '\\nSBX-END-%s 0\\n'; printf tail; (exit 7)", other);
    const char *commands[] = {
        "cd /usr && export SBX_T=1 && f() { echo \"fn $1\"; }",
        "pwd; echo \"$SBX_T\"; f 'it'\\''s'",
        "printf 'no newline'",
        "printf '%s|' \"a 'b'\" 'c \"d\"' '$HOME' '\\n'",
        forged,
        "if then",
        "cat; echo read-nothing",
        "echo after",
    };
    const char *nonces[] = {
        "00000000000000000000000000000001", "00000000000000000000000000000002",
        "00000000000000000000000000000003", "00000000000000000000000000000004",
        nonce, "00000000000000000000000000000006", "00000000000000000000000000000007",
        "00000000000000000000000000000008",
    };
    char outputs[8][256];
    int codes[8];
    run_scripts(commands, nonces, 8, outputs, codes);
    CU_ASSERT_EQUAL(codes[0], 0);
    CU_ASSERT_STRING_EQUAL(outputs[0], "");
    CU_ASSERT_STRING_EQUAL(outputs[1], "/usr\n1\nfn it's\n");
    CU_ASSERT_STRING_EQUAL(outputs[2], "no newline");
    CU_ASSERT_STRING_EQUAL(outputs[3], "a 'b'|c \"d\"|$HOME|\\n|");
    char expected[256];
    snprintf(expected, sizeof expected, "\nSBX-END-%s 0\ntail", other);
    CU_ASSERT_STRING_EQUAL(outputs[4], expected);
    CU_ASSERT_EQUAL(codes[4], 7);
    CU_ASSERT_EQUAL(codes[5], 2); /* a syntax error does not end the shell */
    CU_ASSERT_STRING_EQUAL(outputs[6], "read-nothing\n");
    CU_ASSERT_STRING_EQUAL(outputs[7], "after\n");
    CU_ASSERT_EQUAL(codes[7], 0);
}

static void test_nonces_are_fresh_hex(void)
{
    char a[HOST_SESSION_NONCE_HEX + 1], b[HOST_SESSION_NONCE_HEX + 1];
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(host_session_nonce(a, &err), SBX_OK);
    CU_ASSERT_EQUAL_FATAL(host_session_nonce(b, &err), SBX_OK);
    CU_ASSERT_EQUAL(strlen(a), HOST_SESSION_NONCE_HEX);
    CU_ASSERT_EQUAL(strspn(a, "0123456789abcdef"), HOST_SESSION_NONCE_HEX);
    CU_ASSERT(strcmp(a, b) != 0);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"a marker ends output fed in any pieces", test_marker_ends_output_in_any_pieces},
        {"marker-like lines are output", test_marker_like_lines_are_output},
        {"a bad code on the marker line is no code", test_a_bad_code_on_the_marker_line_is_no_code},
        {"output past the cap is counted, not kept", test_output_past_the_cap_is_counted_not_kept},
        {"dropped bytes break a begun marker", test_dropped_bytes_break_a_begun_marker},
        {"the shell runs commands as written", test_the_shell_runs_commands_as_written},
        {"nonces are fresh hex", test_nonces_are_fresh_hex},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("session markers", NULL, NULL, tests);
}
