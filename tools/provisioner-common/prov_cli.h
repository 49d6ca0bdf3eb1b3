/* What the command lines of the provisioners (sbx-provisiond, the
 * emulator) read the same way: a number option within bounds, the PEM pair
 * of --tls-cert/--tls-key, and the file form of a key option.  Both say what is wrong on stderr,
 * prefixed with the program's name, as a command line's error should. */
#ifndef PROV_CLI_H
#define PROV_CLI_H

/* `text`, the value of `option`, as a decimal integer from `min` to `max`
 * into *out.  Returns 1, or 0 after saying on stderr "PROG: OPTION wants
 * an integer from MIN to MAX, not 'TEXT'" (a sign, blanks, other
 * characters and overflow are refused). */
int prov_cli_number(const char *prog, const char *option, const char *text, unsigned long min,
                    unsigned long max, unsigned long *out);

/* The PEM files `cert_path` (--tls-cert) and `key_path` (--tls-key) as new
 * strings in *cert and *key (release them with prov_cli_tls_free).
 * Returns 1, or 0 after saying on stderr which cannot be read and why
 * (both are then NULL). */
int prov_cli_read_tls(const char *prog, const char *cert_path, const char *key_path,
                      char **cert, char **key);

/* Free what prov_cli_read_tls gave, wiping the key first (a secret must
 * not stay in freed memory).  NULLs are accepted. */
void prov_cli_tls_free(char *cert, char *key);

/* `path`, the value of `option` (a key's file form, e.g. --api-key-file):
 * the key it holds (common/secret_file.h) into *slot, a key an earlier use
 * of the option read wiped and freed.  Returns 1, or 0 after saying on
 * stderr "PROG: OPTION PATH WHY" (e.g. "... is readable or writable by
 * group or others (mode 0644): run chmod 600 on it"), never the key. */
int prov_cli_key_file(const char *prog, const char *option, const char *path, char **slot);

#endif
