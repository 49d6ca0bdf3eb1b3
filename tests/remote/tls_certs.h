/*
 * A throw-away PKI for the TLS suite, made at test time by the openssl CLI
 * in a fresh private directory under $TMPDIR (or /tmp), and removed
 * afterwards: a CA, a server certificate it signed for 127.0.0.1 (IP
 * subjectAltName), one it signed for example.invalid only, a self-signed
 * certificate for 127.0.0.1, and a second CA that signed none of them.
 * Keys are EC P-256 (fast to make); certificates are valid for one day.
 * Not thread-safe: made and removed by one thread, read by any.
 */
#ifndef SBX_TESTS_REMOTE_TLS_CERTS_H
#define SBX_TESTS_REMOTE_TLS_CERTS_H

#include <stddef.h>

/* The directory's path is shorter than SBX_TLS_DIR_MAX; a file's path
 * (directory, '/', a name of at most 31 bytes) shorter than SBX_TLS_PATH_MAX. */
#define SBX_TLS_DIR_MAX 256
#define SBX_TLS_PATH_MAX (SBX_TLS_DIR_MAX + 32)

/* Paths of the PEM files (certificate `*_cert`, private key `*_key`). */
typedef struct sbx_tls_certs {
    char dir[SBX_TLS_DIR_MAX];
    char ca_cert[SBX_TLS_PATH_MAX];
    char other_ca_cert[SBX_TLS_PATH_MAX];    /* signed nothing below */
    char server_cert[SBX_TLS_PATH_MAX];      /* by ca_cert, for IP 127.0.0.1 */
    char server_key[SBX_TLS_PATH_MAX];
    char wrong_name_cert[SBX_TLS_PATH_MAX];  /* by ca_cert, for example.invalid only */
    char wrong_name_key[SBX_TLS_PATH_MAX];
    char self_signed_cert[SBX_TLS_PATH_MAX]; /* its own issuer, for IP 127.0.0.1 */
    char self_signed_key[SBX_TLS_PATH_MAX];
} sbx_tls_certs;

/* 1 when the `openssl` command can be run (found in PATH), 0 when not. */
int sbx_tls_openssl_available(void);

/* Make the directory and every file.  Returns 1, or 0 with the reason in
 * `why` (`why_len` bytes; openssl's own words when it failed), having
 * removed whatever it had made. */
int sbx_tls_certs_make(sbx_tls_certs *certs, char *why, size_t why_len);

/* Remove the files and the directory.  Safe on a zeroed or removed set. */
void sbx_tls_certs_remove(sbx_tls_certs *certs);

#endif
