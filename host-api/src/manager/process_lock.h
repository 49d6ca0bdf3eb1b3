/* Cross-process locks and state directories of the manager. */
#ifndef SBX_MANAGER_PROCESS_LOCK_H
#define SBX_MANAGER_PROCESS_LOCK_H

#include <sbx/backend.h>

/* Lock `<dir>/<id>.lock` exclusively across processes (flock), waiting for
 * a holder.  Returns the descriptor (>= 0) to hand to mgr_process_unlock, or
 * -1 with `err` filled. */
int mgr_process_lock(const char *dir, const char *id, sbx_error *err);

/* Release a lock from mgr_process_lock (-1 accepted). */
void mgr_process_unlock(int fd);

/* Make `path` and its missing parents (mode 0700).  SBX_ERR_CONFIG naming
 * `what` and the path. */
sbx_status mgr_make_dirs(const char *path, const char *what, sbx_error *err);

/* $XDG_STATE_HOME/sbx/<leaf> (absolute XDG_STATE_HOME only), else
 * $HOME/.local/state/sbx/<leaf>, malloc'ed; NULL with SBX_ERR_CONFIG when
 * neither is set. */
char *mgr_state_path(const char *leaf, sbx_error *err);

#endif
