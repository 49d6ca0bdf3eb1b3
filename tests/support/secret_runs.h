/* Test support: whether a text leaks any part of a secret, by the rule the
 * tree redacts with (common/redact.h: a run of 4 or more characters). */
#ifndef SBX_TEST_SECRET_RUNS_H
#define SBX_TEST_SECRET_RUNS_H

/* 1 when `text` holds a run of 4 characters of `secret` (all of a shorter
 * one), else 0. */
int sbx_test_holds_run_of(const char *text, const char *secret);

#endif
