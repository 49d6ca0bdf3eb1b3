/* The TLS suite's throw-away PKI, made by running the openssl CLI. */
#include <config.h>

#include "tests/remote/tls_certs.h"

#include "tests/support/scratch_dir.h"
#include "tests/support/subprocess.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One openssl run makes a key or signs a certificate: far below this. */
#define OPENSSL_TIMEOUT_MS 30000L

/* Our own configuration, so that the system's openssl.cnf (which differs
 * between distributions) adds nothing.  -subj sets each subject. */
static const char CONFIG[] =
    "[req]\n"
    "distinguished_name = dn\n"
    "prompt = no\n"
    "[dn]\n"
    "CN = placeholder\n"
    "[ca]\n"
    "basicConstraints = critical,CA:TRUE\n"
    "keyUsage = critical,keyCertSign,cRLSign\n"
    "subjectKeyIdentifier = hash\n"
    "[loopback]\n"
    "basicConstraints = critical,CA:FALSE\n"
    "keyUsage = critical,digitalSignature\n"
    "extendedKeyUsage = serverAuth\n"
    "subjectAltName = IP:127.0.0.1\n"
    "[wrong_name]\n"
    "basicConstraints = critical,CA:FALSE\n"
    "keyUsage = critical,digitalSignature\n"
    "extendedKeyUsage = serverAuth\n"
    "subjectAltName = DNS:example.invalid\n";

int sbx_tls_openssl_available(void)
{
    const char *argv[] = {"openssl", "version", NULL};
    return sbx_test_run_program(argv, OPENSSL_TIMEOUT_MS, NULL, 0) == 0;
}

/* Run openssl with `argv` (argv[0] is "openssl"); 1 when it succeeded, else
 * 0 with its output in `why`. */
static int run_openssl(const char *const *argv, char *why, size_t why_len)
{
    char output[1024];
    int status = sbx_test_run_program(argv, OPENSSL_TIMEOUT_MS, output, sizeof output);
    if (status == 0)
        return 1;
    snprintf(why, why_len, "openssl %s failed (%d): %s", argv[1], status, output);
    return 0;
}

static void path_in(const sbx_tls_certs *certs, char *out, const char *name)
{
    snprintf(out, SBX_TLS_PATH_MAX, "%s/%s", certs->dir, name);
}

/* One certificate to make: its extensions (a section of CONFIG), its
 * subject, and the files its certificate and new key go to. */
typedef struct cert_spec {
    const char *section;
    const char *subject;
    const char *cert;
    const char *key;
} cert_spec;

/* The CA that signs: its certificate and key files. */
typedef struct signer {
    const char *cert;
    const char *key;
} signer;

/* A self-signed certificate as `c` says. */
static int make_self_signed(const char *config, const cert_spec *c, char *why, size_t why_len)
{
    const char *argv[] = {"openssl", "req", "-x509", "-config", config, "-extensions",
                          c->section, "-newkey", "ec", "-pkeyopt",
                          "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", c->key, "-out",
                          c->cert, "-days", "1", "-subj", c->subject, NULL};
    return run_openssl(argv, why, why_len);
}

/* A key and a certificate as `c` says, signed by `ca`; `serial` differs
 * per certificate of that CA. */
static int make_signed(const char *config, const signer *ca, const char *serial,
                       const cert_spec *c, char *why, size_t why_len)
{
    char csr[SBX_TLS_PATH_MAX + 4];
    snprintf(csr, sizeof csr, "%s.csr", c->cert);
    const char *request[] = {"openssl", "req", "-new", "-config", config, "-newkey", "ec",
                             "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                             "-keyout", c->key, "-out", csr, "-subj", c->subject, NULL};
    const char *sign[] = {"openssl", "x509", "-req", "-in", csr, "-CA", ca->cert,
                          "-CAkey", ca->key, "-set_serial", serial, "-days", "1",
                          "-extfile", config, "-extensions", c->section, "-out", c->cert,
                          NULL};
    return run_openssl(request, why, why_len) && run_openssl(sign, why, why_len);
}

static int write_config(const char *path, char *why, size_t why_len)
{
    FILE *f = fopen(path, "w");
    int ok = f != NULL && fputs(CONFIG, f) >= 0;
    if (f != NULL && fclose(f) != 0)
        ok = 0;
    if (!ok)
        snprintf(why, why_len, "cannot write %s: %s", path, strerror(errno));
    return ok;
}

int sbx_tls_certs_make(sbx_tls_certs *certs, char *why, size_t why_len)
{
    memset(certs, 0, sizeof *certs);
    if (sbx_test_scratch_dir(certs->dir, sizeof certs->dir, "tls") != 0) {
        snprintf(why, why_len, "no scratch directory for the certificates (see above)");
        certs->dir[0] = '\0';
        return 0;
    }
    char config[SBX_TLS_PATH_MAX], ca_key[SBX_TLS_PATH_MAX], other_ca_key[SBX_TLS_PATH_MAX];
    path_in(certs, config, "openssl.cnf");
    path_in(certs, ca_key, "ca.key");
    path_in(certs, other_ca_key, "other-ca.key");
    path_in(certs, certs->ca_cert, "ca.pem");
    path_in(certs, certs->other_ca_cert, "other-ca.pem");
    path_in(certs, certs->server_cert, "server.pem");
    path_in(certs, certs->server_key, "server.key");
    path_in(certs, certs->wrong_name_cert, "wrong-name.pem");
    path_in(certs, certs->wrong_name_key, "wrong-name.key");
    path_in(certs, certs->self_signed_cert, "self-signed.pem");
    path_in(certs, certs->self_signed_key, "self-signed.key");

    const cert_spec ca = { "ca", "/CN=sbx test CA", certs->ca_cert, ca_key };
    const cert_spec other_ca = { "ca", "/CN=sbx unrelated test CA", certs->other_ca_cert,
                                 other_ca_key };
    const cert_spec self_signed = { "loopback", "/CN=127.0.0.1", certs->self_signed_cert,
                                    certs->self_signed_key };
    const cert_spec server = { "loopback", "/CN=127.0.0.1", certs->server_cert,
                               certs->server_key };
    const cert_spec wrong_name = { "wrong_name", "/CN=example.invalid", certs->wrong_name_cert,
                                   certs->wrong_name_key };
    const signer by_ca = { certs->ca_cert, ca_key };
    int ok = write_config(config, why, why_len) &&
             make_self_signed(config, &ca, why, why_len) &&
             make_self_signed(config, &other_ca, why, why_len) &&
             make_self_signed(config, &self_signed, why, why_len) &&
             make_signed(config, &by_ca, "2", &server, why, why_len) &&
             make_signed(config, &by_ca, "3", &wrong_name, why, why_len);
    if (!ok)
        sbx_tls_certs_remove(certs);
    return ok;
}

void sbx_tls_certs_remove(sbx_tls_certs *certs)
{
    if (certs->dir[0] == '\0')
        return;
    sbx_test_remove_tree(certs->dir);
    memset(certs, 0, sizeof *certs);
}
