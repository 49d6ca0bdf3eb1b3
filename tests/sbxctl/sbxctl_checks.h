/* Assertions shared by the sbxctl suites about what a run printed. */
#ifndef SBX_TEST_SBXCTL_CHECKS_H
#define SBX_TEST_SBXCTL_CHECKS_H

#include <json-c/json.h>

#include "tests/sbxctl/run_sbxctl.h"

/* Deadline for one sbxctl run: a create on the docker engine took over
 * 20 s at a load of 36 on two cores; a correct run is far from it. */
#define SBX_TEST_RUN_TIMEOUT_MS 120000

/* A NULL-terminated argument or environment list. */
#define SBX_TEST_ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Run sbxctl (environment changes `env`, may be NULL); a run that cannot
 * start or does not finish fails the test. */
void sbx_test_sbxctl(sbx_test_run *run, const char *const *env, const char *const *args);

/* Run sbxctl --backend remote --set provisioner_url=`url`, then the
 * NULL-terminated `extra` (may be NULL) and `args` (at most 28 in all). */
void sbx_test_sbxctl_remote(sbx_test_run *run, const char *url, const char *const *extra,
                            const char *const *args);

/* Run sbxctl --set `state_setting` (the local backend's "state_dir=DIR")
 * then `args` (at most 36), stdin from the file `in` (NULL: /dev/null), for
 * at most `timeout_ms`; a run that cannot start or finish fails the test. */
void sbx_test_sbxctl_local(sbx_test_run *run, const char *state_setting, const char *in,
                           int timeout_ms, const char *const *args);

/* A suite's local backend state: a scratch directory named after a tag,
 * its state/ and the --set state_dir=... setting for it. */
typedef struct sbx_test_local_state {
    char scratch[4096];
    char state_dir[4096 + 16];
    char setting[4096 + 32];
} sbx_test_local_state;

/* Make *s (a suite's init): 0, or 1 when the scratch directory cannot be
 * made. */
int sbx_test_local_state_open(sbx_test_local_state *s, const char *tag);

/* Destroy the sandboxes of *s and remove its scratch directory. */
void sbx_test_local_state_close(const sbx_test_local_state *s);

/* With `create`: create --id `id` on that local state, else destroy `id`;
 * either must exit 0 (a failed create stops the test). */
void sbx_test_local_box(const char *state_setting, const char *id, int create);

/* Assert the run failed with `exit_code` and, besides backend log lines,
 * exactly one stderr line "sbxctl: KIND: ..." containing `needle` (the
 * thing at fault). */
void sbx_test_assert_failure(const sbx_test_run *run, int exit_code, const char *kind,
                             const char *needle);

/* Assert stdout is exactly one failure object of `kind`, with exactly the
 * five members sbxctl(1) documents, and return it (caller puts), else NULL. */
json_object *sbx_test_assert_json_failure(const sbx_test_run *run, const char *kind);

/* The string member `key` of `object`, or NULL when absent or not a string. */
const char *sbx_test_json_string(json_object *object, const char *key);

/* The integer member `key` of `object`, or `fallback` when absent or not an integer. */
int sbx_test_json_int(json_object *object, const char *key, int fallback);

/* Non-zero when member `key` of `object` is the boolean true. */
int sbx_test_json_true(json_object *object, const char *key);

/* Assert member `key` of `object` is the string `expected`. */
void sbx_test_assert_json_string(json_object *object, const char *key, const char *expected);

/* Non-zero when `object` has member `key` and it is JSON null. */
int sbx_test_json_is_null(json_object *object, const char *key);

/* Assert `table` (the human output of `list`) is an aligned table: every
 * column of the header line (SANDBOX_ID STATUS USER THREAD CONTRACT URL)
 * starts at the same offset on every line, after a space. */
void sbx_test_assert_list_table(const char *table);

/* Non-zero when `needle` occurs in neither stdout nor stderr of the run. */
int sbx_test_run_hides(const sbx_test_run *run, const char *needle);

#endif
