/*
 * Identities for reconciliation: the state directory's namespace id (one
 * per state directory, kept in STATE/.namespace) and a fresh incarnation id
 * per sandbox creation, so a host can tell a re-created sandbox of the same
 * id from the one it knew.
 */
#ifndef SBX_LOCAL_IDENTITY_H
#define SBX_LOCAL_IDENTITY_H

#include <sbx/backend.h>

/* Bytes of an id including the NUL: a UUID-shaped random value. */
#define LOCAL_ID_SIZE 37

/* A new random id (version 4 UUID text) into `out`.  SBX_ERR_INTERNAL when
 * the kernel's random source fails. */
sbx_status local_random_id(char out[LOCAL_ID_SIZE], sbx_error *err);

/* The namespace id of `state_dir`: read from STATE/.namespace, created
 * there on first use (concurrent first uses agree on one).
 * SBX_ERR_PROTOCOL naming the file when it is not a regular file holding
 * an id (a FIFO, a directory...: never waited on, never replaced);
 * SBX_ERR_INTERNAL when it can be neither read nor created. */
sbx_status local_namespace_id(const char *state_dir, char out[LOCAL_ID_SIZE],
                              sbx_error *err);

#endif
