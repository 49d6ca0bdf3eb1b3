/* Deterministic sandbox ids for `sbxctl create` without --id. */
#ifndef SBX_CTL_SANDBOX_ID_H
#define SBX_CTL_SANDBOX_ID_H

/* Bytes of a derived id including its NUL: "t-" + 16 hex digits. */
#define SBX_CTL_DERIVED_ID_SIZE 19

/* Write into `out` the id "t-" followed by the 16 lower-case hex digits of
 * the 64-bit FNV-1a hash of `user_id`, one NUL byte, then `thread_id`.  A
 * NULL user counts as "default" (what the backends assume), so naming the
 * default user or none maps a thread to the same sandbox.  The result is a
 * valid DNS label of 18 characters; the same inputs always give the same id. */
void sbx_ctl_derive_sandbox_id(const char *user_id, const char *thread_id,
                               char out[SBX_CTL_DERIVED_ID_SIZE]);

#endif
