/*
 * Sandbox records the remote backend returns, and their release (what the
 * descriptor's free_sandboxes and clear_reconciliation call: the host never
 * frees our memory itself).
 */
#ifndef SBX_REMOTE_SANDBOX_H
#define SBX_REMOTE_SANDBOX_H

#include <stddef.h>
#include <sbx/backend.h>

/* Free the strings *sb holds and reset it (contract version to NONE). */
void sbx_remote_sandbox_clear(sbx_sandbox *sb);

/* Free an array of `count` sandboxes and the array.  NULL is accepted. */
void sbx_remote_free_sandboxes(sbx_sandbox *sandboxes, size_t count);

/* Move *sb into a new one-element array at *out (sb is left cleared).
 * SBX_ERR_INTERNAL when out of memory (then sb is cleared too). */
sbx_status sbx_remote_sandbox_box(sbx_sandbox *sb, sbx_sandbox **out, sbx_error *err);

/* Release what a reconciliation result holds and zero it. */
void sbx_remote_clear_reconciliation(sbx_reconciliation *result);

#endif /* SBX_REMOTE_SANDBOX_H */
