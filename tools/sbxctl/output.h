/* What sbxctl prints: human text or exactly one JSON object on stdout
 * (shapes of sbxctl(1)), and error lines on stderr.  Results (ids, URLs,
 * statuses, every field) are printed exactly; only an error's message, on
 * stderr and in JSON, passes through the redactor (in JSON before it is
 * encoded, so that masking never touches the document's syntax).  JSON is
 * always valid UTF-8: a string that is not (from a backend, a path, the
 * environment) is written with one U+FFFD in place of each maximal subpart
 * of an ill-formed sequence (common/utf8.h's repair). */
#ifndef CTL_OUTPUT_H
#define CTL_OUTPUT_H

#include <stddef.h>
#include <sbx/host.h>
#include <sbx/manager.h>
#include <sbx/session.h>

#include "tools/sbxctl/redact.h"

/* How to print; `redactor` (borrowed, may be NULL) masks error messages. */
typedef struct ctl_output {
    int json;
    const ctl_redactor *redactor;
} ctl_output;

/* A failure: always the line "sbxctl: KIND: MESSAGE" on stderr, and with
 * --json also {"error":{kind,message,http_status,expected,actual}} on stdout. */
void ctl_print_error(const ctl_output *out, const sbx_error *err);

/* A failed call's ending: print `err` (as ctl_print_error) and return
 * the process exit code of its kind (exit_code.h). */
int ctl_fail(const ctl_output *out, const sbx_error *err);

/* acquire (the manager's sandbox): one sandbox, its 1.1 fields. */
void ctl_print_sandbox(const ctl_output *out, const sbx_sandbox *sandbox);

/* create and discover: one record (the 1.1 fields, its status, then the
 * members of ABI 1.2). */
void ctl_print_record(const ctl_output *out, const sbx_sandbox_record *record);

/* alive: whether `sandbox_id` runs. */
void ctl_print_alive(const ctl_output *out, const char *sandbox_id, int alive);

/* list: a chain of `count` records (aligned columns, or
 * {"sandboxes":[...],"count":N}). */
void ctl_print_records(const ctl_output *out, const sbx_sandbox_record *records,
                           size_t count);

/* capabilities: the mount contract as the backend knows it. */
void ctl_print_capabilities(const ctl_output *out, const sbx_capabilities *caps);

/* reconcile: the outcome for `sandbox_id`. */
void ctl_print_reconciliation(const ctl_output *out, const char *sandbox_id,
                                  const sbx_reconciliation *result);

/* backends: what the host can load (aligned columns, or {"backends":[...]}). */
void ctl_print_backends(const ctl_output *out, const sbx_backend_info *entries,
                            size_t count);

/* extend: `sandbox_id` now expires at `expires_at` (ms since the epoch). */
void ctl_print_extended(const ctl_output *out, const char *sandbox_id, int64_t expires_at);

/* destroy: `sandbox_id` is gone. */
void ctl_print_destroyed(const ctl_output *out, const char *sandbox_id);

/* leases: the leases of a store (SANDBOX STATE OWNER TTL_MS, or
 * {"leases":[{sandbox_id,state,owner,ttl_ms}],"count":N}). */
void ctl_print_leases(const ctl_output *out, const sbx_lease_record *leases,
                          size_t count);

/* manage and acquire: one event line, "EVENT VALUE" or
 * {"event":EVENT,KEY:VALUE} (key NULL: the event alone), flushed at once.
 * Callers serialise calls from several threads. */
void ctl_print_event(const ctl_output *out, const char *event, const char *key,
                         const char *value);

/* exec --json: {"sandbox_id","outcome","exit_code","signal","duration_ms",
 * "stdout" (or "stdout_base64" when not clean UTF-8), "stdout_truncated",
 * the same for stderr}.  (Without --json the command's bytes are written
 * as they come: see ctl_cmd_exec.) */
void ctl_print_exec_json(const char *sandbox_id, const sbx_exec_result *result);

/* exec and shell: sbxctl's notes on stderr that a stream was cut after the
 * bytes kept (0: not cut). */
void ctl_print_cut_notes(size_t stdout_kept, size_t stderr_kept);

/* exec (without --json) and exec -i/-t: sbxctl's note on stderr when the
 * command timed out (after `duration_ms`, when >= 0) or a signal ended it;
 * nothing when it exited. */
void ctl_print_ending_note(sbx_exec_outcome outcome, int term_signal, int64_t duration_ms);

/* ps: the processes of `sandbox_id` (PROCESS_ID STATE STARTED EXIT COMMAND,
 * or {"sandbox_id","processes":[{process_id,state,pty,started_at,ended_at,
 * outcome,exit_code,signal,argv}],"count"}). */
void ctl_print_processes(const ctl_output *out, const char *sandbox_id,
                         const sbx_process_info *processes, size_t count);

/* exec -d: the started process's id on a line, or {"sandbox_id","process_id"}. */
void ctl_print_process_started(const ctl_output *out, const char *sandbox_id,
                               const sbx_process_info *process);

/* kill: nothing, or {"sandbox_id","process_id","signal"} with --json. */
void ctl_print_signal_sent(const ctl_output *out, const char *sandbox_id,
                           const char *process_id, int signal);

/* shell: one command's result.  Its stdout and stderr bytes exactly, on
 * sbxctl's stdout and stderr, then sbxctl's notes (timed out, shell
 * restarted, cut, dropped) on stderr; or one line per command
 * {"command","exit_code","timed_out","restarted","stdout" (or
 * "stdout_base64"),"stdout_truncated", the same for stderr,
 * "dropped_bytes"}, flushed at once. */
void ctl_print_session_result(const ctl_output *out, const char *command,
                              const sbx_session_result *result);

/* ls: one line per entry (TYPE MODE SIZE MTIME PATH), or
 * {"sandbox_id","path","entries":[{path,type,size,mtime,mode}],"count","truncated"}. */
void ctl_print_listing(const ctl_output *out, const char *sandbox_id, const char *path,
                       const sbx_dir_listing *listing);

/* cp: nothing, or {"source","destination","bytes"} with --json. */
void ctl_print_copied(const ctl_output *out, const char *source, const char *destination,
                      uint64_t bytes);

/* --version: the program's name and version. */
void ctl_print_version(const ctl_output *out);

#endif
