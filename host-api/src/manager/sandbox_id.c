/* Sandbox ids and owner ids of the manager (docs/manager.md rule 1, "owner id"). */
#include <config.h>

#include "host-api/src/manager/sandbox_id.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/sandbox_ids.h"

static void hex_encode(const unsigned char *bytes, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 0xf];
    }
    out[2 * n] = '\0';
}

/* SHA-256, fetched from the provider once per process: EVP_sha256()
 * looks the implementation up again on every digest, and with the id
 * formatted into a heap string first, deriving an id cost an acquire of an
 * active sandbox 7 200 instructions (bench/manager-run).  Kept for the life
 * of the process; NULL when the fetch failed (EVP_sha256() then). */
static EVP_MD *sha256_md;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

static void sha256_fetch(void)
{
    sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
}

static const EVP_MD *sha256(void)
{
    pthread_once(&sha256_once, sha256_fetch);
    return sha256_md != NULL ? sha256_md : EVP_sha256();
}

sbx_status sbx_sandbox_id_derive(const char *user_id, const char *thread_id,
                                 char out[SBX_DERIVED_ID_SIZE], sbx_error *err)
{
    if (thread_id == NULL || out == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "a derived sandbox id needs a thread id");
    const char *user = user_id != NULL ? user_id : COMMON_DEFAULT_USER_ID;
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int digest_len = 0;
    /* "<user>:<thread>", hashed in three pieces rather than formatted. */
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx != NULL && EVP_DigestInit_ex(ctx, sha256(), NULL) &&
             EVP_DigestUpdate(ctx, user, strlen(user)) && EVP_DigestUpdate(ctx, ":", 1) &&
             EVP_DigestUpdate(ctx, thread_id, strlen(thread_id)) &&
             EVP_DigestFinal_ex(ctx, digest, &digest_len);
    EVP_MD_CTX_free(ctx);
    if (!ok || digest_len < (SBX_DERIVED_ID_SIZE - 1) / 2)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "SHA-256 failed deriving a sandbox id");
    hex_encode(digest, (SBX_DERIVED_ID_SIZE - 1) / 2, out);
    return SBX_OK;
}

sbx_status mgr_random_hex(char *out, size_t bytes, sbx_error *err)
{
    unsigned char buf[64];
    if (bytes > sizeof buf || RAND_bytes(buf, (int)bytes) != 1)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "no random bytes for an id");
    hex_encode(buf, bytes, out);
    return SBX_OK;
}

char *mgr_owner_id_new(sbx_error *err)
{
    char host[256];
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = '\0';
    char random[33];
    if (mgr_random_hex(random, 16, err) != SBX_OK)
        return NULL;
    size_t n = strlen(host) + sizeof random + 1;
    char *id = malloc(n);
    if (id == NULL) {
        sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory making an owner id");
        return NULL;
    }
    snprintf(id, n, "%s:%s", host, random);
    return id;
}
