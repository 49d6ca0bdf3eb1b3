/* Kubernetes-style uids (random UUIDs) for the emulated namespace and pods. */
#ifndef EMU_UID_H
#define EMU_UID_H

/* Characters of a uid, without the terminating NUL. */
#define EMU_UID_LEN 36

/* Write a fresh random version-4 UUID ("xxxxxxxx-xxxx-4xxx-...") into
 * `out`, which holds EMU_UID_LEN + 1 bytes. */
void emu_uid_generate(char out[EMU_UID_LEN + 1]);

#endif
