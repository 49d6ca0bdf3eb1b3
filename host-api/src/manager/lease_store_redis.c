/*
 * The redis lease store: the leases of many machines, in keys
 * `<key_prefix>:<sandbox_id>` holding "own:<owner>" or "del:<owner>" with a
 * millisecond TTL, exactly as DeerFlow's gateways write them, so that both
 * can share one fleet.  Every read-modify-write is one server-side script;
 * every round trip (connect included) is bounded by REDIS_TIMEOUT_MS.  The
 * connection is made lazily and remade after any error.
 */
#include <config.h>

#include "host-api/src/manager/lease_store.h"

#include <hiredis/hiredis.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REDIS_TIMEOUT_MS 5000

/* take: anything but a teardown is taken over. */
static const char take_script[] =
    "local v = redis.call('GET', KEYS[1]) "
    "if v and string.sub(v, 1, 4) == 'del:' then return 0 end "
    "redis.call('SET', KEYS[1], 'own:' .. ARGV[1], 'PX', ARGV[2]) return 1";

/* claim: only unowned or ours; a plain claim never downgrades our del:. */
static const char claim_script[] =
    "local v = redis.call('GET', KEYS[1]) "
    "local own, del = 'own:' .. ARGV[1], 'del:' .. ARGV[1] "
    "if ARGV[3] == '0' and v == del then return 0 end "
    "if v and v ~= own and v ~= del then return 0 end "
    "if ARGV[3] == '1' then redis.call('SET', KEYS[1], del, 'PX', ARGV[2]) "
    "else redis.call('SET', KEYS[1], own, 'PX', ARGV[2]) end return 1";

/* renew: 1 renewed, -1 lapsed, 0 lost. */
static const char renew_script[] =
    "local v = redis.call('GET', KEYS[1]) "
    "if not v then return -1 end "
    "if v == 'own:' .. ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end "
    "return 0";

/* release: only our own lease, in either state. */
static const char release_script[] =
    "local v = redis.call('GET', KEYS[1]) "
    "if v == 'own:' .. ARGV[1] or v == 'del:' .. ARGV[1] then "
    "return redis.call('DEL', KEYS[1]) end return 0";

typedef struct redis_store {
    sbx_lease_store base;
    pthread_mutex_t lock;          /* one connection, one round trip at a time */
    redisContext *ctx;
    char *url_host;                /* host name, or the socket path */
    int port;                      /* 0: unix socket */
    char *password;                /* NULL: no AUTH */
    int db;
    char *prefix;                  /* without a trailing ':' */
    char ttl[24];                  /* the TTL in ms, as text for the scripts */
} redis_store;

static sbx_status redis_error(redis_store *s, const char *what, const char *id, const char *why,
                              sbx_error *err)
{
    char port[16] = "";
    if (s->port)
        snprintf(port, sizeof port, ":%d", s->port);
    return sbx_error_set(err, SBX_ERR_TRANSPORT, "redis lease store %s%s: %s of %s failed: %s",
                         s->url_host, port, what, id != NULL ? id : "the store", why);
}

/* A write to a connection the server closed raises SIGPIPE, which would kill
 * the host: it is blocked in this thread for the round trip, and one raised
 * meanwhile is consumed (unless one was already pending for the host). */
typedef struct pipe_guard {
    sigset_t old;
    int was_pending;
} pipe_guard;

static void block_sigpipe(pipe_guard *g)
{
    sigset_t pipe, pending;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    sigpending(&pending);
    g->was_pending = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, &g->old);
}

static void restore_sigpipe(const pipe_guard *g)
{
    if (!g->was_pending) {
        sigset_t pipe;
        sigemptyset(&pipe);
        sigaddset(&pipe, SIGPIPE);
        const struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe, NULL, &zero) == SIGPIPE)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

static void drop_connection(redis_store *s)
{
    if (s->ctx != NULL)
        redisFree(s->ctx);
    s->ctx = NULL;
}

/* A reply of `ctx` to a command, or NULL (the connection is then dropped). */
static redisReply *command(redis_store *s, const char *what, const char *id, sbx_error *err,
                           int argc, const char **argv)
{
    redisReply *reply = redisCommandArgv(s->ctx, argc, argv, NULL);
    if (reply == NULL) {
        redis_error(s, what, id, s->ctx->errstr, err);
        drop_connection(s);
        return NULL;
    }
    if (reply->type == REDIS_REPLY_ERROR) {
        redis_error(s, what, id, reply->str, err);
        freeReplyObject(reply);
        return NULL;
    }
    return reply;
}

static sbx_status connect_once(redis_store *s, const char *what, const char *id, sbx_error *err)
{
    if (s->ctx != NULL)
        return SBX_OK;
    struct timeval tv = {REDIS_TIMEOUT_MS / 1000, (REDIS_TIMEOUT_MS % 1000) * 1000};
    s->ctx = s->port ? redisConnectWithTimeout(s->url_host, s->port, tv)
                     : redisConnectUnixWithTimeout(s->url_host, tv);
    if (s->ctx == NULL)
        return redis_error(s, what, id, "cannot connect: out of memory", err);
    if (s->ctx->err) {
        char why[sizeof "cannot connect: " + sizeof s->ctx->errstr];
        snprintf(why, sizeof why, "cannot connect: %s", s->ctx->errstr);
        sbx_status st = redis_error(s, what, id, why, err);
        drop_connection(s);
        return st;
    }
    redisSetTimeout(s->ctx, tv);
    char db[16];
    snprintf(db, sizeof db, "%d", s->db);
    const char *auth[] = {"AUTH", s->password};
    const char *select[] = {"SELECT", db};
    redisReply *reply;
    if (s->password != NULL) {
        if ((reply = command(s, "AUTH before a lease operation", id, err, 2, auth)) == NULL)
            goto failed;
        freeReplyObject(reply);
    }
    if (s->db != 0) {
        if ((reply = command(s, "SELECT before a lease operation", id, err, 2, select)) == NULL)
            goto failed;
        freeReplyObject(reply);
    }
    return SBX_OK;
failed:
    drop_connection(s);
    return err->kind;
}

/* EVAL `script` on the key of `id` with ARGV owner, ttl[, flag]; the
 * integer answer in *answer. */
static sbx_status eval(redis_store *s, const char *what, const char *script, const char *id,
                       const char *flag, long long *answer, sbx_error *err)
{
    size_t n = strlen(s->prefix) + strlen(id) + 2;
    char *key = malloc(n);
    if (key == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    snprintf(key, n, "%s:%s", s->prefix, id);
    const char *argv[] = {"EVAL", script, "1", key, s->base.owner_id, s->ttl, flag};
    pthread_mutex_lock(&s->lock);
    pipe_guard guard;
    block_sigpipe(&guard);
    sbx_status st = connect_once(s, what, id, err);
    if (st == SBX_OK) {
        redisReply *reply = command(s, what, id, err, flag != NULL ? 7 : 6, argv);
        if (reply == NULL)
            st = err->kind;
        else if (reply->type != REDIS_REPLY_INTEGER)
            st = redis_error(s, what, id, "unexpected reply type", err);
        else
            *answer = reply->integer;
        freeReplyObject(reply);
    }
    restore_sigpipe(&guard);
    pthread_mutex_unlock(&s->lock);
    free(key);
    return st;
}

static sbx_status rd_take(sbx_lease_store *store, const char *id, int *taken, sbx_error *err)
{
    long long v = 0;
    sbx_status st = eval((redis_store *)store, "take", take_script, id, NULL, &v, err);
    *taken = st == SBX_OK && v == 1;
    return st;
}

static sbx_status rd_claim(sbx_lease_store *store, const char *id, int for_destroy, int *claimed,
                           sbx_error *err)
{
    long long v = 0;
    sbx_status st = eval((redis_store *)store, "claim", claim_script, id, for_destroy ? "1" : "0",
                         &v, err);
    *claimed = st == SBX_OK && v == 1;
    return st;
}

static sbx_status rd_renew(sbx_lease_store *store, const char *id, sbx_lease_renewal *out,
                           sbx_error *err)
{
    long long v = 0;
    sbx_status st = eval((redis_store *)store, "renew", renew_script, id, NULL, &v, err);
    *out = v == 1 ? SBX_LEASE_RENEWED : v == -1 ? SBX_LEASE_LAPSED : SBX_LEASE_LOST;
    return st;
}

static sbx_status rd_release(sbx_lease_store *store, const char *id, sbx_error *err)
{
    long long v = 0;
    return eval((redis_store *)store, "release", release_script, id, NULL, &v, err);
}

static sbx_status rd_owner(sbx_lease_store *store, const char *id, char **owner, int *destroying,
                           sbx_error *err)
{
    redis_store *s = (redis_store *)store;
    *owner = NULL;
    if (destroying != NULL)
        *destroying = 0;
    size_t n = strlen(s->prefix) + strlen(id) + 2;
    char *key = malloc(n);
    if (key == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    snprintf(key, n, "%s:%s", s->prefix, id);
    const char *argv[] = {"GET", key};
    pthread_mutex_lock(&s->lock);
    pipe_guard guard;
    block_sigpipe(&guard);
    sbx_status st = connect_once(s, "owner read", id, err);
    if (st == SBX_OK) {
        redisReply *reply = command(s, "owner read", id, err, 2, argv);
        if (reply == NULL) {
            st = err->kind;
        } else if (reply->type == REDIS_REPLY_STRING) {
            int state = strncmp(reply->str, "own:", 4) == 0 ? 0
                        : strncmp(reply->str, "del:", 4) == 0 ? 1 : -1;
            if (destroying != NULL)
                *destroying = state == 1;
            if ((*owner = strdup(state >= 0 ? reply->str + 4 : reply->str)) == NULL)
                st = sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
        } else if (reply->type != REDIS_REPLY_NIL) {
            st = redis_error(s, "owner read", id, "unexpected reply type", err);
        }
        freeReplyObject(reply);
    }
    restore_sigpipe(&guard);
    pthread_mutex_unlock(&s->lock);
    free(key);
    return st;
}

static void rd_close(sbx_lease_store *store)
{
    redis_store *s = (redis_store *)store;
    drop_connection(s);
    pthread_mutex_destroy(&s->lock);
    free(s->url_host);
    free(s->password);
    free(s->prefix);
    free(s->base.owner_id);
    free(s);
}

/* The value and TTL of each key of a SCAN batch, read in one script so
 * that both come from one moment: {value or false, pttl, ...}. */
static const char read_batch_script[] =
    "local out = {} for i, k in ipairs(KEYS) do "
    "out[2 * i - 1] = redis.call('GET', k) out[2 * i] = redis.call('PTTL', k) end "
    "return out";

/* The SCAN pattern of our keys: the prefix with glob characters escaped. */
static char *key_pattern(const char *prefix)
{
    char *pattern = malloc(strlen(prefix) * 2 + 3);
    if (pattern == NULL)
        return NULL;
    char *p = pattern;
    for (const char *c = prefix; *c != '\0'; c++) {
        if (strchr("*?[]\\", *c) != NULL)
            *p++ = '\\';
        *p++ = *c;
    }
    memcpy(p, ":*", 3);
    return pattern;
}

/* Read the keys of one SCAN answer into the records. */
static sbx_status list_batch(redis_store *s, redisReply *keys, sbx_lease_record **out,
                             size_t *count, size_t *cap, sbx_error *err)
{
    if (keys->elements == 0)
        return SBX_OK;
    const char **argv = malloc((keys->elements + 3) * sizeof *argv);
    if (argv == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    char nkeys[24];
    snprintf(nkeys, sizeof nkeys, "%zu", keys->elements);
    argv[0] = "EVAL";
    argv[1] = read_batch_script;
    argv[2] = nkeys;
    for (size_t i = 0; i < keys->elements; i++)
        argv[3 + i] = keys->element[i]->str;
    redisReply *r = command(s, "listing", NULL, err, (int)keys->elements + 3, argv);
    free(argv);
    if (r == NULL)
        return err->kind;
    sbx_status st = SBX_OK;
    size_t skip = strlen(s->prefix) + 1;
    for (size_t i = 0; st == SBX_OK && i < keys->elements && 2 * i + 1 < r->elements; i++) {
        const redisReply *v = r->element[2 * i], *ttl = r->element[2 * i + 1];
        if (v->type != REDIS_REPLY_STRING || ttl->type != REDIS_REPLY_INTEGER ||
            strlen(keys->element[i]->str) <= skip)
            continue;   /* gone meanwhile, or not one of ours */
        if (sbx_lease_records_append(out, count, cap, keys->element[i]->str + skip, v->str,
                                     ttl->integer) != 0)
            st = sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    freeReplyObject(r);
    return st;
}

static sbx_status rd_list(sbx_lease_store *store, sbx_lease_record **out, size_t *count,
                          sbx_error *err)
{
    redis_store *s = (redis_store *)store;
    *out = NULL;
    *count = 0;
    size_t cap = 0;
    char *pattern = key_pattern(s->prefix);
    if (pattern == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    char cursor[32] = "0";
    pthread_mutex_lock(&s->lock);
    pipe_guard guard;
    block_sigpipe(&guard);
    sbx_status st = connect_once(s, "listing", NULL, err);
    /* SCAN, not KEYS: a large keyspace is walked in steps, never blocking
     * the server for the whole walk. */
    do {
        const char *argv[] = {"SCAN", cursor, "MATCH", pattern, "COUNT", "500"};
        redisReply *r = st == SBX_OK ? command(s, "listing", NULL, err, 6, argv) : NULL;
        if (r == NULL) {
            st = err->kind;
            break;
        }
        if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
            r->element[0]->type != REDIS_REPLY_STRING || r->element[1]->type != REDIS_REPLY_ARRAY)
            st = redis_error(s, "listing", NULL, "unexpected reply type", err);
        /* A cursor is an unsigned 64-bit number: a longer one is not. */
        else if (r->element[0]->len >= sizeof cursor)
            st = redis_error(s, "listing", NULL, "a SCAN cursor longer than 20 digits", err);
        else {
            memcpy(cursor, r->element[0]->str, r->element[0]->len + 1);
            st = list_batch(s, r->element[1], out, count, &cap, err);
        }
        freeReplyObject(r);
    } while (st == SBX_OK && strcmp(cursor, "0") != 0);
    restore_sigpipe(&guard);
    pthread_mutex_unlock(&s->lock);
    free(pattern);
    if (st != SBX_OK) {
        sbx_lease_records_free(*out, *count);
        *out = NULL;
        *count = 0;
    } else {
        sbx_lease_records_sort(*out, *count);
    }
    return st;
}

static const sbx_lease_store_ops redis_ops = {
    rd_take, rd_claim, rd_renew, rd_release, rd_owner, rd_close, rd_list,
};

/* redis://[[user]:password@]host[:port][/db] or unix:///path; 0 or -1. */
static int parse_url(redis_store *s, const char *url)
{
    if (strncmp(url, "unix://", 7) == 0) {
        s->port = 0;
        return url[7] == '/' && (s->url_host = strdup(url + 7)) != NULL ? 0 : -1;
    }
    if (strncmp(url, "redis://", 8) != 0)
        return -1;
    const char *p = url + 8;
    const char *at = strrchr(p, '@');
    if (at != NULL) {
        const char *colon = memchr(p, ':', (size_t)(at - p));
        const char *pw = colon != NULL ? colon + 1 : p;
        if (at > pw && (s->password = strndup(pw, (size_t)(at - pw))) == NULL)
            return -1;
        p = at + 1;
    }
    const char *end = p + strcspn(p, ":/");
    if (end == p || (s->url_host = strndup(p, (size_t)(end - p))) == NULL)
        return -1;
    s->port = 6379;
    if (*end == ':') {
        char *stop;
        long port = strtol(end + 1, &stop, 10);
        if (stop == end + 1 || port < 1 || port > 65535 || (*stop != '\0' && *stop != '/'))
            return -1;
        s->port = (int)port;
        end = stop;
    }
    if (*end == '/' && end[1] != '\0') {
        char *stop;
        long db = strtol(end + 1, &stop, 10);
        if (*stop != '\0' || db < 0 || db > 1000000)
            return -1;
        s->db = (int)db;
    }
    return 0;
}

sbx_status sbx_lease_store_redis_open(const char *url, const char *key_prefix,
                                      const char *owner_id, int64_t ttl_ms,
                                      sbx_lease_store **out, sbx_error *err)
{
    redis_store *s = calloc(1, sizeof *s);
    if (s == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory opening the redis lease store");
    sbx_status st = sbx_lease_store_init(&s->base, &redis_ops, "redis", 1, owner_id, ttl_ms, err);
    if (st != SBX_OK) {
        free(s);
        return st;
    }
    pthread_mutex_init(&s->lock, NULL);
    snprintf(s->ttl, sizeof s->ttl, "%lld", (long long)ttl_ms);
    size_t plen = strlen(key_prefix);
    while (plen > 0 && key_prefix[plen - 1] == ':')
        plen--;
    if ((s->prefix = strndup(key_prefix, plen)) == NULL)
        st = sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory opening the redis lease store");
    else if (parse_url(s, url) != 0)
        /* The URL may carry a password: never quote it. */
        st = sbx_error_set(err, SBX_ERR_CONFIG, "ownership.redis_url is not "
                           "redis://[:password@]host[:port][/db] or unix:///path");
    if (st != SBX_OK) {
        rd_close(&s->base);
        return st;
    }
    *out = &s->base;
    return SBX_OK;
}
