/*
 * Encodings the AIO sandbox API needs of what a caller hands the remote
 * backend: a command line as one POSIX shell text, a path in a URL query,
 * and the shell scripts the file operations run in the sandbox (bytes go
 * as base64 through common/base64.h).  Pure functions of their arguments (no I/O, no locks).
 */
#ifndef SBX_REMOTE_AIO_TEXT_H
#define SBX_REMOTE_AIO_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include <sbx/backend.h>

#include "common/dynbuf.h"

/* The text /v1/bash/exec runs for a request: "exec" and argv's words each
 * quoted, joined by spaces (argv[0] is a program looked up in PATH, never
 * a shell builtin or function), or, for a shell text, "exec /bin/sh -c
 * <quoted text>" (the ABI's shell is /bin/sh; AIO runs its command in
 * bash).  Exactly one of
 * argv and shell_command is non-NULL.  A malloc'd string, NULL when out
 * of memory. */
char *remote_command_text(const char *const *argv, const char *shell_command);

/* Append the NUL-terminated `text` to *b as a JSON string: in double
 * quotes, with " and \\ and the control characters escaped, every other
 * byte as it is (the callers send UTF-8 text).  COMMON_DYNBUF_OK or the
 * dynbuf's code. */
int remote_json_quote(common_dynbuf *b, const char *text);

/* Append `text` to *b percent-encoded for a URL query value: every byte
 * but A-Z a-z 0-9 - . _ ~ '/' becomes %XX.  COMMON_DYNBUF_OK or the
 * dynbuf's code. */
int remote_query_escape(common_dynbuf *b, const char *text);

/* The directory part of absolute path `abs` ("/" for "/name"; trailing
 * '/' ignored), malloc'd; NULL when out of memory. */
char *remote_parent_dir(const char *abs);

/* The POSIX sh script write_file runs before it sends the bytes of `abs`
 * (in directory `parent`): it exits 0 when the write may go on, else with
 * the number of the sbx kind it found (12 no such parent, 13 the parent is
 * not a directory, 14 `abs` is a directory, 15 it exists and `flags` has
 * SBX_WRITE_EXCLUSIVE, 16 permission).  It makes the parent with
 * SBX_WRITE_MKDIRS, and a missing file empty with its mode (`mode`, 0:
 * 0644) and O_EXCL (set -C).  Malloc'd; NULL when out of memory. */
char *remote_write_check_script(const char *abs, const char *parent, unsigned flags,
                                uint32_t mode);

/* The POSIX sh script of remove_path: removes a link itself, a file, or a
 * directory when `recursive`; else exits with the sbx kind's number (12 no
 * such path, 14 a directory without `recursive`, 16 rm failed).  Malloc'd;
 * NULL when out of memory. */
char *remote_remove_script(const char *abs, int recursive);

#endif /* SBX_REMOTE_AIO_TEXT_H */
