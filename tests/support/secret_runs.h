/* Test support: whether a text holds any part of a secret.  Stricter than
 * the tree's last-defence masking (common/redact.h hides whole occurrences
 * only): for text that must carry none of a secret, such as a message that
 * leaves a URL's password out where it is made. */
#ifndef SBX_TEST_SECRET_RUNS_H
#define SBX_TEST_SECRET_RUNS_H

/* 1 when `text` holds a run of 4 characters of `secret` (all of a shorter
 * one), else 0. */
int sbx_test_holds_run_of(const char *text, const char *secret);

#endif
