/* Replacing one small file of sbx-provisiond's --state-dir (an ownership
 * record, a sandbox's bash sessions) so that a crash leaves the old file
 * or the new one, never half of one. */
#ifndef SBX_PROVD_STATE_FILE_H
#define SBX_PROVD_STATE_FILE_H

#include <stddef.h>

/* Make DIR/NAME hold `len` bytes of `text`: written (mode 0600, the files
 * hold secrets) to DIR/.NAME, whatever lay there replaced and never
 * followed, fsync'd, then renamed over DIR/NAME.  Returns 1, or 0 with
 * errno saying why (the temporary file removed). */
int provd_state_file_replace(const char *dir, const char *name, const char *text, size_t len);

#endif
