/*
 * The remote backend's process ids and command texts (docs/remote.md
 * "Processes (ABI 1.4)").  An AIO command is named by two ids, its
 * session_id and its command_id; the sbx process id holds both, so that
 * any host process can reach the command again with nothing but the id:
 * "<n>-<session><command>", n the session id's length in decimal, the
 * command id left out when it equals the session id (as sbx-provisiond
 * and the emulator answer).  Pure functions; thread-safe.
 */
#ifndef SBX_REMOTE_PROCESS_IDS_H
#define SBX_REMOTE_PROCESS_IDS_H

#include <sbx/backend.h>

/* The process id of AIO command `command` of session `session` in
 * out[SBX_PROCESS_ID_MAX + 1].  Ids that are empty, hold a byte outside
 * [A-Za-z0-9._-] or make an id longer than SBX_PROCESS_ID_MAX:
 * SBX_ERR_PROTOCOL naming the sandbox's answer. */
sbx_status remote_process_id_make(const char *session, const char *command,
                                  char out[SBX_PROCESS_ID_MAX + 1], sbx_error *err);

/* The session and command ids a process id holds, each in a buffer of
 * SBX_PROCESS_ID_MAX + 1 bytes.  Returns 0 for an id this backend never
 * makes (the caller answers SBX_ERR_NO_SUCH_PROCESS), else 1. */
int remote_process_id_split(const char *id, char session[SBX_PROCESS_ID_MAX + 1],
                            char command[SBX_PROCESS_ID_MAX + 1]);

/* The argv a command text stands for: the words of a text
 * remote_command_text made ("exec" then quoted words, or "exec /bin/sh -c
 * <text>"; a trailing " 0</dev/null" for closed stdin is skipped), else
 * {"/bin/sh", "-c", text} (a command someone else started).  A
 * NULL-terminated malloc'd array of malloc'd strings (free each, then it);
 * NULL when out of memory. */
char **remote_process_argv(const char *text);

/* The text that closes a command's stdin, appended to its command text. */
#define REMOTE_STDIN_CLOSED " 0</dev/null"

#endif /* SBX_REMOTE_PROCESS_IDS_H */
