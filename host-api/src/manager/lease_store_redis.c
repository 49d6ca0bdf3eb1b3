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

#include "common/hex_digit.h"

#include <hiredis/hiredis.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REDIS_TIMEOUT_MS 5000

/* What a script answers when it did nothing: the value at the key is not a
 * lease (another type, or not own:/del:<owner>), or the server ran it past
 * its deadline. */
#define ANSWER_NOT_A_LEASE (-3)
#define ANSWER_TOO_LATE (-9)

/* Every script first reads the value at the key into `v`: a key of another
 * type or a value that is not a lease is left alone (-3), never taken over
 * nor granted. */
#define READ_LEASE                                                                          \
    "local v = redis.pcall('GET', KEYS[1]) "                                                \
    "if type(v) == 'table' then return -3 end "                                             \
    "if v and (#v > 260 or not (string.find(v, '^own:[!-~]+$') or "                         \
    "string.find(v, '^del:[!-~]+$'))) then return -3 end "

/* A script that writes a claim first compares the server's clock with
 * ARGV[3], the time by that clock after which its client has stopped
 * waiting: a command that a stalled server runs late does nothing (-9), so
 * that no claim lands for a client that gave up, or died since. */
#define BEFORE_DEADLINE                                                                     \
    "local t = redis.call('TIME') "                                                         \
    "if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) >= tonumber(ARGV[3]) "    \
    "then return -9 end "

/* take: anything but a teardown is taken over. */
static const char take_script[] =
    BEFORE_DEADLINE READ_LEASE
    "if v and string.sub(v, 1, 4) == 'del:' then return 0 end "
    "redis.call('SET', KEYS[1], 'own:' .. ARGV[1], 'PX', ARGV[2]) return 1";

/* claim: only unowned or ours; a plain claim never downgrades our del:. */
static const char claim_script[] =
    BEFORE_DEADLINE READ_LEASE
    "local own, del = 'own:' .. ARGV[1], 'del:' .. ARGV[1] "
    "if ARGV[4] == '0' and v == del then return 0 end "
    "if v and v ~= own and v ~= del then return 0 end "
    "if ARGV[4] == '1' then redis.call('SET', KEYS[1], del, 'PX', ARGV[2]) "
    "else redis.call('SET', KEYS[1], own, 'PX', ARGV[2]) end return 1";

/* renew: 1 renewed, -1 lapsed, 0 lost. */
static const char renew_script[] =
    BEFORE_DEADLINE READ_LEASE
    "if not v then return -1 end "
    "if v == 'own:' .. ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end "
    "return 0";

/* release: only our own lease, in either state.  No deadline: a release
 * the server runs late only drops a lease of ours, which a client that
 * gave up or died wants dropped. */
static const char release_script[] =
    READ_LEASE
    "if v == 'own:' .. ARGV[1] or v == 'del:' .. ARGV[1] then "
    "return redis.call('DEL', KEYS[1]) end return 0";

/* A lease operation: its name in messages, its script, and the lowest
 * integer it answers (the highest is 1). */
typedef struct lease_op {
    const char *what;
    const char *script;
    long long lowest;
} lease_op;

static const lease_op take_op = { "take", take_script, 0 };
static const lease_op claim_op = { "claim", claim_script, 0 };
static const lease_op renew_op = { "renew", renew_script, -1 };
static const lease_op release_op = { "release", release_script, 0 };

typedef struct redis_store {
    mgr_lease_store base;
    pthread_mutex_t lock;          /* one connection, one round trip at a time */
    redisContext *ctx;
    char *url_host;                /* host name, or the socket path */
    int port;                      /* 0: unix socket */
    char *user;                    /* NULL: AUTH <password> (the default user) */
    char *password;                /* NULL: no AUTH */
    char store_name[320];          /* "redis lease store <host:port or socket>" */
    int64_t server_offset_ms;      /* server clock - our monotonic clock, at most */
    int db;
    char *prefix;                  /* without a trailing ':' */
    char ttl[24];                  /* the TTL in ms, as text for the scripts */
} redis_store;

static sbx_status redis_error_kind(redis_store *s, sbx_status kind, const char *what,
                                   const char *id, const char *why, sbx_error *err)
{
    return sbx_error_set(err, kind, "%s: %s of %s failed: %s", s->store_name, what,
                         id != NULL ? id : "the store", why);
}

static sbx_status redis_error(redis_store *s, const char *what, const char *id, const char *why,
                              sbx_error *err)
{
    return redis_error_kind(s, SBX_ERR_TRANSPORT, what, id, why, err);
}

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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

/* A reply of `ctx` to a command, or NULL (the connection is then dropped
 * when it failed, and a wait without an answer is charged to the budget). */
static redisReply *command(redis_store *s, const char *what, const char *id, sbx_error *err,
                           int argc, const char **argv)
{
    int64_t started = mono_ms();
    redisReply *reply = redisCommandArgv(s->ctx, argc, argv, NULL);
    if (reply == NULL) {
        redis_error(s, what, id, s->ctx->errstr, err);
        drop_connection(s);
        mgr_lease_store_charge(&s->base, mono_ms() - started);
        return NULL;
    }
    if (reply->type == REDIS_REPLY_ERROR) {
        /* A key of another type is bad data, a refused login or command
         * is ours to fix: neither is an unreachable store. */
        const char *e = reply->str;
        sbx_status kind = strncmp(e, "WRONGTYPE", 9) == 0 ? SBX_ERR_PROTOCOL
                          : strncmp(e, "WRONGPASS", 9) == 0 || strncmp(e, "NOAUTH", 6) == 0 ||
                            strncmp(e, "NOPERM", 6) == 0 ? SBX_ERR_UNAUTHORIZED
                          : SBX_ERR_TRANSPORT;
        redis_error_kind(s, kind, what, id, e, err);
        freeReplyObject(reply);
        return NULL;
    }
    return reply;
}

/* The server's clock against ours, from TIME: the offset is taken at the
 * reply's arrival, so that it never overstates the server's time (a
 * deadline derived from it falls no later than the client's). */
static sbx_status measure_clock(redis_store *s, const char *id, sbx_error *err)
{
    const char *time_argv[] = {"TIME"};
    redisReply *reply = command(s, "TIME before a lease operation", id, err, 1, time_argv);
    if (reply == NULL)
        return err->kind;
    int64_t arrived = mono_ms();
    sbx_status st = SBX_OK;
    char *end1 = NULL, *end2 = NULL;
    long long sec = 0, usec = 0;
    if (reply->type == REDIS_REPLY_ARRAY && reply->elements == 2 &&
        reply->element[0]->type == REDIS_REPLY_STRING &&
        reply->element[1]->type == REDIS_REPLY_STRING) {
        sec = strtoll(reply->element[0]->str, &end1, 10);
        usec = strtoll(reply->element[1]->str, &end2, 10);
    }
    if (end1 == NULL || *end1 != '\0' || *end2 != '\0' || sec <= 0 || sec > 1LL << 40 ||
        usec < 0 || usec >= 1000000)
        st = redis_error_kind(s, SBX_ERR_PROTOCOL, "TIME before a lease operation", id,
                              "the answer is not a time", err);
    else
        s->server_offset_ms = sec * 1000 + usec / 1000 - arrived;
    freeReplyObject(reply);
    return st;
}

/* Connect when not connected (AUTH, SELECT, TIME), every round trip
 * bounded by `bound_ms`. */
static sbx_status connect_once(redis_store *s, const char *what, const char *id, int64_t bound_ms,
                               sbx_error *err)
{
    struct timeval tv = {bound_ms / 1000, (bound_ms % 1000) * 1000};
    if (s->ctx != NULL) {
        redisSetTimeout(s->ctx, tv);
        return SBX_OK;
    }
    int64_t started = mono_ms();
    s->ctx = s->port ? redisConnectWithTimeout(s->url_host, s->port, tv)
                     : redisConnectUnixWithTimeout(s->url_host, tv);
    if (s->ctx == NULL)
        return redis_error(s, what, id, "cannot connect: out of memory", err);
    if (s->ctx->err) {
        char why[sizeof "cannot connect: " + sizeof s->ctx->errstr];
        snprintf(why, sizeof why, "cannot connect: %s", s->ctx->errstr);
        sbx_status st = redis_error(s, what, id, why, err);
        drop_connection(s);
        mgr_lease_store_charge(&s->base, mono_ms() - started);
        return st;
    }
    redisSetTimeout(s->ctx, tv);
    char db[16];
    snprintf(db, sizeof db, "%d", s->db);
    const char *auth[] = {"AUTH", s->user != NULL ? s->user : s->password, s->password};
    const char *select[] = {"SELECT", db};
    redisReply *reply;
    if (s->password != NULL) {
        /* The reply names neither (WRONGPASS ...): the error quotes it. */
        if ((reply = command(s, "AUTH before a lease operation", id, err, s->user ? 3 : 2,
                             auth)) == NULL)
            goto failed;
        freeReplyObject(reply);
    }
    if (s->db != 0) {
        if ((reply = command(s, "SELECT before a lease operation", id, err, 2, select)) == NULL)
            goto failed;
        freeReplyObject(reply);
    }
    if (measure_clock(s, id, err) != SBX_OK)
        goto failed;
    return SBX_OK;
failed:
    drop_connection(s);
    return err->kind;
}

/* Start a round trip under s->lock: connected, within the wait budget;
 * *bound_ms how long it may wait. */
static sbx_status begin(redis_store *s, const char *what, const char *id, pipe_guard *guard,
                        int64_t *bound_ms, sbx_error *err)
{
    pthread_mutex_lock(&s->lock);
    block_sigpipe(guard);
    *bound_ms = mgr_lease_store_wait_bound(&s->base, REDIS_TIMEOUT_MS);
    if (*bound_ms <= 0)
        return redis_error(s, what, id, "not tried: the store gave no answer within the "
                           "shutdown's budget", err);
    return connect_once(s, what, id, *bound_ms, err);
}

static void end(redis_store *s, const pipe_guard *guard)
{
    restore_sigpipe(guard);
    pthread_mutex_unlock(&s->lock);
}

/* EVAL the script of `op` on the key of `id` with ARGV owner, ttl,
 * deadline[, flag]; the integer answer, within [op->lowest, 1], in *answer. */
static sbx_status eval(redis_store *s, const lease_op *op, const char *id, const char *flag,
                       long long *answer, sbx_error *err)
{
    const char *what = op->what;
    size_t n = strlen(s->prefix) + strlen(id) + 2;
    char *key = malloc(n);
    if (key == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    snprintf(key, n, "%s:%s", s->prefix, id);
    pipe_guard guard;
    int64_t bound;
    sbx_status st = begin(s, what, id, &guard, &bound, err);
    if (st == SBX_OK) {
        /* 1 ms short of when we stop waiting, by the server's clock. */
        char deadline[24];
        snprintf(deadline, sizeof deadline, "%lld",
                 (long long)(mono_ms() + bound + s->server_offset_ms - 1));
        const char *argv[] = {"EVAL", op->script, "1", key, s->base.owner_id, s->ttl, deadline, flag};
        redisReply *reply = command(s, what, id, err, flag != NULL ? 8 : 7, argv);
        if (reply == NULL)
            st = err->kind;
        else if (reply->type != REDIS_REPLY_INTEGER)
            st = redis_error_kind(s, SBX_ERR_PROTOCOL, what, id, "unexpected reply type", err);
        else if (reply->integer == ANSWER_NOT_A_LEASE)
            st = mgr_lease_bad_row(s->store_name, key, "holds no lease (a key of another type, "
                                   "or not own:<owner> or del:<owner> with a printable owner of "
                                   "at most 256 bytes)", err);
        else if (reply->integer == ANSWER_TOO_LATE)
            st = redis_error(s, what, id, "the server ran it after its deadline; it did nothing",
                             err);
        else if (reply->integer < op->lowest || reply->integer > 1)
            st = redis_error_kind(s, SBX_ERR_PROTOCOL, what, id, "unexpected answer", err);
        else
            *answer = reply->integer;
        freeReplyObject(reply);
    }
    end(s, &guard);
    free(key);
    return st;
}

static sbx_status rd_take(mgr_lease_store *store, const char *id, int *taken, sbx_error *err)
{
    long long v = 0;
    sbx_status st = eval((redis_store *)store, &take_op, id, NULL, &v, err);
    *taken = st == SBX_OK && v == 1;
    return st;
}

static sbx_status rd_claim(mgr_lease_store *store, const char *id, int for_destroy, int *claimed,
                           sbx_error *err)
{
    long long v = 0;
    sbx_status st = eval((redis_store *)store, &claim_op, id, for_destroy ? "1" : "0", &v, err);
    *claimed = st == SBX_OK && v == 1;
    return st;
}

static sbx_status rd_renew(mgr_lease_store *store, const char *id, mgr_lease_renewal *out,
                           sbx_error *err)
{
    long long v = 0;
    sbx_status st = eval((redis_store *)store, &renew_op, id, NULL, &v, err);
    *out = v == 1 ? SBX_LEASE_RENEWED : v == -1 ? SBX_LEASE_LAPSED : SBX_LEASE_LOST;
    return st;
}

static sbx_status rd_release(mgr_lease_store *store, const char *id, sbx_error *err)
{
    long long v = 0;
    return eval((redis_store *)store, &release_op, id, NULL, &v, err);
}

static sbx_status rd_owner(mgr_lease_store *store, const char *id, char **owner, int *destroying,
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
    pipe_guard guard;
    int64_t bound;
    sbx_status st = begin(s, "owner read", id, &guard, &bound, err);
    if (st == SBX_OK) {
        redisReply *reply = command(s, "owner read", id, err, 2, argv);
        int state = 0;
        if (reply == NULL && err->kind == SBX_ERR_PROTOCOL)
            st = mgr_lease_bad_row(s->store_name, key, "is a key of another type", err);
        else if (reply == NULL)
            st = err->kind;
        else if (reply->type == REDIS_REPLY_STRING) {
            if ((st = mgr_lease_value_check(s->store_name, key, reply->str, reply->len, &state,
                                            err)) == SBX_OK &&
                (*owner = strndup(reply->str + 4, reply->len - 4)) == NULL)
                st = sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
            if (destroying != NULL)
                *destroying = st == SBX_OK && state == 1;
        } else if (reply->type != REDIS_REPLY_NIL) {
            st = redis_error_kind(s, SBX_ERR_PROTOCOL, "owner read", id, "unexpected reply type",
                                  err);
        }
        freeReplyObject(reply);
    }
    end(s, &guard);
    free(key);
    return st;
}

static void rd_close(mgr_lease_store *store)
{
    redis_store *s = (redis_store *)store;
    drop_connection(s);
    pthread_mutex_destroy(&s->lock);
    free(s->url_host);
    free(s->user);
    free(s->password);
    free(s->prefix);
    free(s->base.owner_id);
    free(s);
}

/* The value and TTL of each key of a SCAN batch, read in one script so
 * that both come from one moment: {value or false, pttl, ...}; a key of
 * another type reads as the value 0, to be reported. */
static const char read_batch_script[] =
    "local out = {} for i, k in ipairs(KEYS) do "
    "local v = redis.pcall('GET', k) if type(v) == 'table' then v = 0 end "
    "out[2 * i - 1] = v out[2 * i] = redis.call('PTTL', k) end "
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
static sbx_status list_batch(redis_store *s, redisReply *keys, mgr_lease_records *records,
                             sbx_error *err)
{
    if (keys->elements == 0)
        return SBX_OK;
    size_t skip = strlen(s->prefix) + 1;
    for (size_t i = 0; i < keys->elements; i++)
        if (keys->element[i]->type != REDIS_REPLY_STRING || keys->element[i]->len <= skip)
            return redis_error_kind(s, SBX_ERR_PROTOCOL, "listing", NULL,
                                    "SCAN answered a key that is not one of ours", err);
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
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 * keys->elements)
        st = redis_error_kind(s, SBX_ERR_PROTOCOL, "listing", NULL, "unexpected reply type", err);
    for (size_t i = 0; st == SBX_OK && i < keys->elements; i++) {
        const redisReply *k = keys->element[i];
        const redisReply *v = r->element[2 * i], *ttl = r->element[2 * i + 1];
        if (v->type == REDIS_REPLY_NIL || (ttl->type == REDIS_REPLY_INTEGER && ttl->integer == -2))
            continue;   /* gone meanwhile */
        if (!mgr_lease_text_ok(k->str + skip, k->len - skip))
            st = mgr_lease_bad_row(s->store_name, k->str, "does not end in a sandbox id", err);
        else if (v->type != REDIS_REPLY_STRING)
            st = mgr_lease_value_check(s->store_name, k->str, NULL, 0, NULL, err);
        else if (ttl->type != REDIS_REPLY_INTEGER || ttl->integer <= 0)
            st = mgr_lease_bad_row(s->store_name, k->str, "has no expiry: a lease always has one",
                                   err);
        else if ((st = mgr_lease_value_check(s->store_name, k->str, v->str, v->len, NULL,
                                             err)) == SBX_OK &&
                 mgr_lease_records_append(records, k->str + skip, v->str, ttl->integer) != 0)
            st = sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    freeReplyObject(r);
    return st;
}

static sbx_status rd_list(mgr_lease_store *store, sbx_lease_record **out, size_t *count,
                          sbx_error *err)
{
    redis_store *s = (redis_store *)store;
    *out = NULL;
    *count = 0;
    mgr_lease_records records = { NULL, 0, 0 };
    char *pattern = key_pattern(s->prefix);
    if (pattern == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    char cursor[32] = "0";
    pipe_guard guard;
    int64_t bound;
    sbx_status st = begin(s, "listing", NULL, &guard, &bound, err);
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
            st = list_batch(s, r->element[1], &records, err);
        }
        freeReplyObject(r);
    } while (st == SBX_OK && strcmp(cursor, "0") != 0);
    end(s, &guard);
    free(pattern);
    if (st != SBX_OK) {
        sbx_lease_records_free(records.items, records.count);
        return st;
    }
    mgr_lease_records_sort(records.items, records.count);
    *out = records.items;
    *count = records.count;
    return st;
}

static const mgr_lease_store_ops redis_ops = {
    "redis", 1,
    rd_take, rd_claim, rd_renew, rd_release, rd_owner, rd_close, rd_list,
};

/* `text` (len bytes) with its %XX escapes decoded, malloc'ed; NULL when
 * out of memory or an escape is bad or decodes to a NUL. */
static char *percent_decode(const char *text, size_t len)
{
    char *out = malloc(len + 1), *o = out;
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        if (text[i] != '%') {
            *o++ = text[i];
            continue;
        }
        int hi = i + 2 < len ? common_hex_digit(text[i + 1]) : -1;
        int lo = hi >= 0 ? common_hex_digit(text[i + 2]) : -1;
        if (lo < 0 || hi * 16 + lo == 0) {
            free(out);
            return NULL;
        }
        *o++ = (char)(hi * 16 + lo);
        i += 2;
    }
    *o = '\0';
    return out;
}

/* redis://[[user]:password@]host[:port][/db] or unix:///path; 0 or -1.
 * User and password are percent-decoded. */
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
        if (colon == NULL)
            return -1;   /* no ':': a user without a password */
        if (colon > p && (s->user = percent_decode(p, (size_t)(colon - p))) == NULL)
            return -1;
        if (at > colon + 1 &&
            (s->password = percent_decode(colon + 1, (size_t)(at - colon - 1))) == NULL)
            return -1;
        if (s->user != NULL && s->password == NULL)
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

sbx_status mgr_lease_store_redis_open(const char *url, const char *key_prefix,
                                      const char *owner_id, int64_t ttl_ms,
                                      mgr_lease_store **out, sbx_error *err)
{
    redis_store *s = calloc(1, sizeof *s);
    if (s == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory opening the redis lease store");
    sbx_status st = mgr_lease_store_init(&s->base, &redis_ops, owner_id, ttl_ms, err);
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
                           "redis://[[user]:password@]host[:port][/db] or unix:///path "
                           "(user and password percent-encoded)");
    else if (s->port)
        snprintf(s->store_name, sizeof s->store_name, "redis lease store %.200s:%d", s->url_host,
                 s->port);
    else
        snprintf(s->store_name, sizeof s->store_name, "redis lease store %.290s", s->url_host);
    if (st != SBX_OK) {
        rd_close(&s->base);
        return st;
    }
    *out = &s->base;
    return SBX_OK;
}
