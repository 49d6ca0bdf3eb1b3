/*
 * The end marker of a session command (docs/sessions.md): the text the
 * shell is sent for one command, and the scanner that finds the marker in
 * one output stream, keeps the command's bytes before it (up to a cap) and
 * reads the exit code from the marker line only.
 *
 * The marker line is "\n" SBX-END- NONCE " " CODE "\n", the NONCE fresh per
 * command (32 hex characters of getrandom); the leading newline is the
 * shell's, so a command's last line without a newline comes back exact.
 * Output that merely looks like a marker (an older nonce, a guess, the
 * trace of `set -x`) is the command's output.
 */
#ifndef SBX_HOST_SESSION_MARKER_H
#define SBX_HOST_SESSION_MARKER_H

#include <stddef.h>
#include <stdint.h>
#include <sbx/error.h>

#include "common/dynbuf.h"

/* The shell's trap of SIGINT: inside a command, return from it (exit
 * code 130); between commands, nothing.  Sent when the shell starts and
 * before every command. */
#define HOST_SESSION_TRAP "trap '[ -z \"$__sbx_in\" ] || return 130' INT\n"

/* Hex characters of a nonce (without the NUL). */
#define HOST_SESSION_NONCE_HEX 32

/* The word before the nonce on a marker line. */
#define HOST_SESSION_MARKER_WORD "SBX-END-"

/* "\n" + word + nonce + " " */
#define HOST_SESSION_PATTERN_MAX (1 + sizeof HOST_SESSION_MARKER_WORD - 1 + HOST_SESSION_NONCE_HEX + 1)

typedef enum host_marker_state {
    HOST_MARKER_SCANNING = 0,      /* the command's output */
    HOST_MARKER_STATUS = 1,        /* inside the marker line, after the nonce */
    HOST_MARKER_DONE = 2           /* the marker line has ended */
} host_marker_state;

/* One stream of one command. */
typedef struct host_marker_scan {
    char pattern[HOST_SESSION_PATTERN_MAX + 1];
    size_t pattern_len;
    size_t matched;                /* bytes of pattern seen last, not yet output */
    host_marker_state state;
    char status[8];                /* the code's digits */
    size_t status_len;
    int status_bad;                /* a marker line that is not "digits\n" */
    uint64_t offset;               /* the stream offset of the next byte fed */
    uint64_t end_offset;           /* DONE: the offset just past the marker line */
    common_dynbuf output;          /* the command's bytes, at most `cap` */
    size_t cap;
    int truncated;                 /* bytes past `cap` were printed */
    uint64_t dropped;              /* bytes the backend no longer had */
} host_marker_scan;

/* Fill `nonce` with HOST_SESSION_NONCE_HEX fresh random hex characters
 * and a NUL (getrandom).  SBX_ERR_INTERNAL when the kernel gives none. */
sbx_status host_session_nonce(char nonce[HOST_SESSION_NONCE_HEX + 1], sbx_error *err);

/* Append to `script` the shell text that runs `command` (stdin /dev/null,
 * in the shell itself, so that cd, export and functions persist; an
 * interrupt abandons it) and then prints the marker of `nonce` on stderr
 * and stdout.  The command is single-quoted: nothing in it is parsed
 * before eval.  0, or the dynbuf's error code. */
int host_session_script(common_dynbuf *script, const char *command, const char *nonce);

/* Start scanning a stream at `offset` for the marker of `nonce`, keeping
 * at most `cap` bytes of output. */
void host_marker_scan_init(host_marker_scan *s, const char *nonce, uint64_t offset, size_t cap);

/* Feed `n` bytes of the stream (at s->offset).  Returns how many were
 * consumed: all of them, unless the marker line ended among them (then up
 * to and including its newline; the rest belong to what comes next).
 * Nothing is consumed once DONE. */
size_t host_marker_feed(host_marker_scan *s, const char *bytes, size_t n);

/* `n` bytes of the stream are lost (the backend dropped them): a marker
 * begun before them is output after all. */
void host_marker_skip(host_marker_scan *s, uint64_t n);

/* DONE: the exit code on the marker line (0..255), or -1 when it is not
 * one. */
int host_marker_exit_code(const host_marker_scan *s);

/* Release the kept output. */
void host_marker_scan_free(host_marker_scan *s);

#endif
