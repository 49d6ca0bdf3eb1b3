/*
 * What the local backend's suites share: fresh state directories, the
 * backend opened through a host, and reading what the backend left on
 * disk and in /proc.  Failures to set up are fatal CUnit assertions.
 */
#ifndef SBX_TEST_LOCAL_FIXTURE_H
#define SBX_TEST_LOCAL_FIXTURE_H

#include <sbx/host.h>

#include <json-c/json.h>
#include <stddef.h>

/* The file that marks a directory as the backend's state directory
 * (docs/local.md): the suites count everything else. */
#define SBX_LOCAL_TEST_MARKER ".sbx-local-state"

/* A new empty scratch directory named after `tag` (which may hold spaces
 * and quotes, to prove that paths reach the shell safely); remove it with
 * sbx_test_remove_tree (tests/support/scratch_dir.h).  Fatal on failure. */
void sbx_local_test_make_dir(char *out, size_t size, const char *tag);

/* A host whose log goes to `log` (may be NULL) with `ctx`. */
sbx_host *sbx_local_test_new_host(sbx_log_fn log, void *ctx);

/* Open "local" with `count` options; fatal when that fails (the message
 * goes to stderr). */
sbx_backend *sbx_local_test_open(sbx_host *host, const sbx_option *options, size_t count);

/* A new host (*host) with "local" opened on `state_dir` with
 * isolation=none, and sandbox `id` created in it; fatal on failure. */
sbx_backend *sbx_local_test_open_with_sandbox(const char *state_dir, const char *id,
                                              sbx_host **host);

/* 1 when an executable `name` is on $PATH. */
int sbx_local_test_on_path(const char *name);

/* A sandbox command serving {dir} over HTTP on 127.0.0.1:{port}, or NULL
 * when neither python3 nor busybox is installed. */
const char *sbx_local_test_server_command(void);

/* STATE/ID.json parsed (put it), or NULL. */
json_object *sbx_local_test_read_metadata(const char *state_dir, const char *id);

/* The integer member `key` of STATE/ID.json, 0 when absent or null. */
long sbx_local_test_metadata_long(const char *state_dir, const char *id, const char *key);

/* The pid recorded for a command sandbox, 0 when none. */
long sbx_local_test_metadata_pid(const char *state_dir, const char *id);

/* The pid of a process of the host (not a zombie's empty cmdline) that
 * has `word` as one of its arguments; 0 when none has. */
long sbx_local_test_host_process_with(const char *word);

/* 1 when such a process exists. */
int sbx_local_test_host_has_process_with(const char *word);

/* 1 when `pid` has exited (gone, or a zombie nobody reaped yet). */
int sbx_local_test_process_gone(long pid);

/* 1 when `path` exists (a dangling symlink included). */
int sbx_local_test_path_exists(const char *path);

/* Entries of `dir` other than ".", ".." and the marker. */
int sbx_local_test_count_entries(const char *dir);

/* Write `text` to `path` (created or truncated); fatal on failure. */
void sbx_local_test_write_file(const char *path, const char *text);

/* Root passes RLIMIT_NPROC by and owns every file it maps to: a suite run
 * as root goes on as uid and gid 65534 (TMPDIR and HOME /tmp, which that
 * user may write), as a real host should run; when that fails it says so
 * naming `program` and exits 1.  Nothing when not root. */
void sbx_local_test_drop_root(const char *program);

/* 1 when this user may make the namespaces isolation=namespaces needs (in
 * a child, which exits at once). */
int sbx_local_test_namespaces_allowed(void);

#endif
