/* Kubernetes-style uids (random UUIDs) for the emulated namespace and pods. */
#ifndef SBX_EMU_UID_H
#define SBX_EMU_UID_H

/* Characters of a uid, without the terminating NUL. */
#define SBX_EMU_UID_LEN 36

/* Write a fresh random version-4 UUID ("xxxxxxxx-xxxx-4xxx-...") into
 * `out`, which holds SBX_EMU_UID_LEN + 1 bytes. */
void sbx_emu_uid_generate(char out[SBX_EMU_UID_LEN + 1]);

#endif
