/* The end marker of a session command: the text the shell is sent and the
 * per-stream scanner (see session_marker.h). */
#include <config.h>

#include "host-api/src/session_marker.h"

#include "common/random_bytes.h"
#include "common/shell_quote.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

sbx_status host_session_nonce(char nonce[HOST_SESSION_NONCE_HEX + 1], sbx_error *err)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char bytes[HOST_SESSION_NONCE_HEX / 2];
    if (common_random_bytes(bytes, sizeof bytes) != 0)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "session: no random bytes for a "
                             "marker nonce: %s", strerror(errno));
    for (size_t i = 0; i < sizeof bytes; i++) {
        nonce[2 * i] = hex[bytes[i] >> 4];
        nonce[2 * i + 1] = hex[bytes[i] & 15];
    }
    nonce[HOST_SESSION_NONCE_HEX] = '\0';
    return SBX_OK;
}

int host_session_script(common_dynbuf *script, const char *command, const char *nonce)
{
    /* The command runs in a function of the shell itself, so that cd,
     * export and functions persist, and so that the interrupt's trap can
     * `return` from it: the rest of the command is abandoned, as Ctrl-C
     * abandons a line.  The trap and the function are set again for every
     * command (a command may have replaced them).  The text is one
     * single-quoted word: nothing in it is parsed before eval, and
     * `command eval` keeps a syntax error from ending the shell.  The word
     * and the nonce are printed as two arguments, so that no line of this
     * text (echoed by `set -v`) holds the marker itself. */
    common_dynbuf_add(script, HOST_SESSION_TRAP, sizeof HOST_SESSION_TRAP - 1);
    common_dynbuf_addf(script, "__sbx_run() { __sbx_in=1; command eval \"$__sbx_cmd\"; "
                       "__sbx_rc=$?; __sbx_in=; return $__sbx_rc; }\n__sbx_cmd=");
    common_shell_quote(script, command);
    return common_dynbuf_addf(script,
                              "\n__sbx_run </dev/null\n"
                              "__sbx_rc=$?\n"
                              "__sbx_in=\n"
                              "printf '\\n%%s%%s %%d\\n' %s %s \"$__sbx_rc\" >&2\n"
                              "printf '\\n%%s%%s %%d\\n' %s %s \"$__sbx_rc\"\n",
                              HOST_SESSION_MARKER_WORD, nonce, HOST_SESSION_MARKER_WORD, nonce);
}

void host_marker_scan_init(host_marker_scan *s, const char *nonce, uint64_t offset, size_t cap)
{
    memset(s, 0, sizeof *s);
    s->pattern_len = (size_t)snprintf(s->pattern, sizeof s->pattern, "\n%s%s ",
                                      HOST_SESSION_MARKER_WORD, nonce);
    s->offset = offset;
    s->cap = cap;
    common_dynbuf_init(&s->output, 0);
}

/* Keep `n` bytes of the command's output, up to the cap. */
static void keep(host_marker_scan *s, const char *bytes, size_t n)
{
    size_t room = s->cap - s->output.len;
    if (n > room) {
        s->truncated = 1;
        n = room;
    }
    common_dynbuf_add(&s->output, bytes, n);
}

/* The pattern's first `matched` bytes were output after all. */
static void release_match(host_marker_scan *s)
{
    keep(s, s->pattern, s->matched);
    s->matched = 0;
}

/* One byte of the marker line after the nonce. */
static void status_byte(host_marker_scan *s, char c)
{
    if (c == '\n') {
        s->state = HOST_MARKER_DONE;
        s->end_offset = s->offset;
        s->status_bad |= s->status_len == 0;
    } else if (c >= '0' && c <= '9' && s->status_len < 3) {
        s->status[s->status_len++] = c;
    } else {
        s->status_bad = 1;
    }
}

size_t host_marker_feed(host_marker_scan *s, const char *bytes, size_t n)
{
    size_t i = 0;
    while (i < n && s->state != HOST_MARKER_DONE) {
        if (s->state == HOST_MARKER_STATUS) {
            s->offset++;
            status_byte(s, bytes[i++]);
            continue;
        }
        if (s->matched == 0) {
            /* The pattern starts with its only newline: output runs to the
             * next newline in one piece. */
            const char *nl = memchr(bytes + i, '\n', n - i);
            size_t run = nl == NULL ? n - i : (size_t)(nl - (bytes + i));
            keep(s, bytes + i, run);
            s->offset += run;
            i += run;
            if (nl == NULL)
                break;
        }
        char c = bytes[i++];
        s->offset++;
        if (c == s->pattern[s->matched]) {
            if (++s->matched == s->pattern_len) {
                s->matched = 0;
                s->state = HOST_MARKER_STATUS;
            }
            continue;
        }
        /* A mismatch: what matched so far was output; a newline may begin
         * the pattern again (it holds no other newline). */
        release_match(s);
        if (c == '\n')
            s->matched = 1;
        else
            keep(s, &c, 1);
    }
    return i;
}

void host_marker_skip(host_marker_scan *s, uint64_t n)
{
    if (n == 0 || s->state == HOST_MARKER_DONE)
        return;
    release_match(s);
    s->offset += n;
    s->dropped += n;
}

int host_marker_exit_code(const host_marker_scan *s)
{
    if (s->state != HOST_MARKER_DONE || s->status_bad)
        return -1;
    int code = 0;
    for (size_t i = 0; i < s->status_len; i++)
        code = code * 10 + (s->status[i] - '0');
    return code <= 255 ? code : -1;
}

void host_marker_scan_free(host_marker_scan *s)
{
    common_dynbuf_free(&s->output);
}
