/*
 * The sqlite lease store: one database file shared by the processes of one
 * machine.  Every operation is one IMMEDIATE transaction (the read and the
 * write cannot interleave with a peer's), waiting at most
 * SQLITE_BUSY_TIMEOUT_MS for the file lock.  Values are those of the redis
 * store ("own:<owner>", "del:<owner>"); expiry is wall-clock milliseconds,
 * the clock every process of the machine shares.  A crashed process's leases
 * simply expire.
 */
#include <config.h>

#include "host-api/src/manager/lease_store.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Bound of every wait for the database lock. */
#define SQLITE_BUSY_TIMEOUT_MS 5000

typedef struct sqlite_store {
    mgr_lease_store base;
    pthread_mutex_t lock;          /* one connection, one statement at a time */
    sqlite3 *db;
    char *path;
    char *store_name;              /* "sqlite lease store <path>", for messages */
    char *own, *del;               /* our two lease values */
    sqlite3_stmt *select, *upsert, *remove;
} sqlite_store;

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static sbx_status db_error(sqlite_store *s, const char *what, const char *id, sbx_error *err)
{
    return sbx_error_set(err, SBX_ERR_TRANSPORT, "sqlite lease store %s: %s of %s failed: %s",
                         s->path, what, id != NULL ? id : "the store", sqlite3_errmsg(s->db));
}

static int exec(sqlite_store *s, const char *sql)
{
    return sqlite3_exec(s->db, sql, NULL, NULL, NULL);
}

/* Start one operation under s->lock: the busy timeout is what the wait
 * budget leaves (mgr_lease_store_limit_waits).  0, or -1 when the budget
 * is spent (err set). */
static int begin_op(sqlite_store *s, const char *what, const char *id, int64_t *started,
                    sbx_error *err)
{
    int64_t bound = mgr_lease_store_wait_bound(&s->base, SQLITE_BUSY_TIMEOUT_MS);
    if (bound <= 0) {
        sbx_error_set(err, SBX_ERR_TRANSPORT, "sqlite lease store %s: %s of %s not tried: the "
                      "store gave no answer within the shutdown's budget", s->path, what,
                      id != NULL ? id : "the store");
        return -1;
    }
    sqlite3_busy_timeout(s->db, (int)bound);
    *started = wall_ms();
    return 0;
}

/* A wait for the file lock that ended without it is charged to the budget. */
static void end_op(sqlite_store *s, int rc, int64_t started)
{
    if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
        mgr_lease_store_charge(&s->base, wall_ms() - started);
}

/* The lease an operation reads, and when; `what` names the operation in
 * messages. */
typedef struct lease_query {
    const char *what;
    const char *id;
    int64_t now;                   /* wall clock, ms */
} lease_query;

/* The live lease value of q->id at q->now (malloc'ed into *value, NULL
 * when none); a row that is not a lease (a table made by another schema
 * may hold NULLs, other types, anything) is SBX_ERR_PROTOCOL naming it. */
static sbx_status read_lease(sqlite_store *s, const lease_query *q, char **value, int *rc,
                             sbx_error *err)
{
    const char *what = q->what, *id = q->id;
    int64_t now = q->now;
    *value = NULL;
    sqlite3_reset(s->select);
    sqlite3_bind_text(s->select, 1, id, -1, SQLITE_STATIC);
    sbx_status st = SBX_OK;
    *rc = sqlite3_step(s->select);
    if (*rc == SQLITE_ROW) {
        *rc = SQLITE_OK;
        /* Types first: reading a column as text converts it. */
        int value_type = sqlite3_column_type(s->select, 0);
        const char *text = (const char *)sqlite3_column_text(s->select, 0);
        size_t len = (size_t)sqlite3_column_bytes(s->select, 0);
        if (sqlite3_column_type(s->select, 1) != SQLITE_INTEGER)
            st = mgr_lease_bad_row(s->store_name, id, "has an expires_at that is not an integer",
                                   err);
        else if (sqlite3_column_int64(s->select, 1) <= now)
            ;   /* expired: whatever it holds, it grants nothing and may be overwritten */
        else if (value_type != SQLITE_TEXT)
            st = mgr_lease_value_check(s->store_name, id, NULL, 0, NULL, err);
        else if ((st = mgr_lease_value_check(s->store_name, id, text, len, NULL, err)) == SBX_OK &&
                 (*value = strndup(text, len)) == NULL)
            st = sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory reading the lease of %s", id);
    } else if (*rc == SQLITE_DONE) {
        *rc = SQLITE_OK;
    } else {
        st = db_error(s, what, id, err);
    }
    sqlite3_reset(s->select);
    return st;
}

static int write_lease(sqlite_store *s, const char *id, const char *value, int64_t now)
{
    sqlite3_reset(s->upsert);
    sqlite3_bind_text(s->upsert, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_text(s->upsert, 2, value, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s->upsert, 3, now + s->base.ttl_ms);
    int rc = sqlite3_step(s->upsert);
    sqlite3_reset(s->upsert);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int delete_lease(sqlite_store *s, const char *id)
{
    sqlite3_reset(s->remove);
    sqlite3_bind_text(s->remove, 1, id, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s->remove);
    sqlite3_reset(s->remove);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* One operation's decision: given the live value (NULL: none), what to
 * write ("" : delete, NULL: nothing) and the answer. */
typedef const char *(*decide_fn)(sqlite_store *s, const char *current, int arg, int *answer);

/* A lease operation: its name in messages and its decision. */
typedef struct lease_op {
    const char *what;
    decide_fn decide;
} lease_op;

/* Run the decision of `op` on the lease of `id` inside one IMMEDIATE
 * transaction. */
static sbx_status run(sqlite_store *s, const lease_op *op, const char *id, int arg, int *answer,
                      sbx_error *err)
{
    const char *what = op->what;
    pthread_mutex_lock(&s->lock);
    int64_t started;
    if (begin_op(s, what, id, &started, err) != 0) {
        pthread_mutex_unlock(&s->lock);
        return err->kind;
    }
    int64_t now = wall_ms();
    char *current = NULL;
    sbx_status st = SBX_OK;
    int rc = exec(s, "BEGIN IMMEDIATE");
    if (rc != SQLITE_OK)
        st = db_error(s, what, id, err);
    else
        st = read_lease(s, &(lease_query){ what, id, now }, &current, &rc, err);
    if (st == SBX_OK) {
        const char *write = op->decide(s, current, arg, answer);
        if (write != NULL)
            rc = write[0] == '\0' ? delete_lease(s, id) : write_lease(s, id, write, now);
        if (rc == SQLITE_OK)
            rc = exec(s, "COMMIT");
        if (rc != SQLITE_OK)
            st = db_error(s, what, id, err);
    }
    if (st != SBX_OK)
        exec(s, "ROLLBACK");
    end_op(s, rc, started);
    pthread_mutex_unlock(&s->lock);
    free(current);
    return st;
}

static int is(const char *current, const char *value)
{
    return current != NULL && strcmp(current, value) == 0;
}

static const char *decide_take(sqlite_store *s, const char *current, int arg, int *taken)
{
    (void)arg;
    *taken = current == NULL || strncmp(current, "del:", 4) != 0;
    return *taken ? s->own : NULL;
}

static const char *decide_claim(sqlite_store *s, const char *current, int for_destroy, int *claimed)
{
    *claimed = current == NULL || is(current, s->own) || (is(current, s->del) && for_destroy);
    return *claimed ? (for_destroy ? s->del : s->own) : NULL;
}

static const char *decide_renew(sqlite_store *s, const char *current, int arg, int *outcome)
{
    (void)arg;
    *outcome = current == NULL ? SBX_LEASE_LAPSED
               : is(current, s->own) ? SBX_LEASE_RENEWED : SBX_LEASE_LOST;
    return *outcome == SBX_LEASE_RENEWED ? s->own : NULL;
}

static const char *decide_release(sqlite_store *s, const char *current, int arg, int *released)
{
    (void)arg;
    *released = is(current, s->own) || is(current, s->del);
    return *released ? "" : NULL;
}

static const lease_op take_op = { "take", decide_take };
static const lease_op claim_op = { "claim", decide_claim };
static const lease_op renew_op = { "renew", decide_renew };
static const lease_op release_op = { "release", decide_release };

static sbx_status sq_take(mgr_lease_store *store, const char *id, int *taken, sbx_error *err)
{
    *taken = 0;   /* what a failed operation answers: nothing granted */
    return run((sqlite_store *)store, &take_op, id, 0, taken, err);
}

static sbx_status sq_claim(mgr_lease_store *store, const char *id, int for_destroy, int *claimed,
                           sbx_error *err)
{
    *claimed = 0;
    return run((sqlite_store *)store, &claim_op, id, for_destroy, claimed, err);
}

static sbx_status sq_renew(mgr_lease_store *store, const char *id, mgr_lease_renewal *out,
                           sbx_error *err)
{
    int outcome = SBX_LEASE_LOST;
    sbx_status st = run((sqlite_store *)store, &renew_op, id, 0, &outcome, err);
    *out = (mgr_lease_renewal)outcome;
    return st;
}

static sbx_status sq_release(mgr_lease_store *store, const char *id, sbx_error *err)
{
    int released;
    return run((sqlite_store *)store, &release_op, id, 0, &released, err);
}

static sbx_status sq_owner(mgr_lease_store *store, const char *id, char **owner, int *destroying,
                           sbx_error *err)
{
    sqlite_store *s = (sqlite_store *)store;
    *owner = NULL;
    if (destroying != NULL)
        *destroying = 0;
    pthread_mutex_lock(&s->lock);
    char *value = NULL;
    int64_t started;
    int rc = SQLITE_OK;
    sbx_status st = begin_op(s, "owner read", id, &started, err) != 0
                        ? err->kind
                        : read_lease(s, &(lease_query){ "owner read", id, wall_ms() }, &value,
                                     &rc, err);
    end_op(s, rc, started);
    pthread_mutex_unlock(&s->lock);
    if (value != NULL) {
        if (destroying != NULL)
            *destroying = strncmp(value, "del:", 4) == 0;
        if ((*owner = strdup(value + 4)) == NULL)
            st = sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory reading the lease of %s", id);
    }
    free(value);
    return st;
}

static void sq_close(mgr_lease_store *store)
{
    sqlite_store *s = (sqlite_store *)store;
    sqlite3_finalize(s->select);
    sqlite3_finalize(s->upsert);
    sqlite3_finalize(s->remove);
    sqlite3_close(s->db);
    pthread_mutex_destroy(&s->lock);
    free(s->path);
    free(s->store_name);
    free(s->own);
    free(s->del);
    free(s->base.owner_id);
    free(s);
}

/* One row of the listing, checked: an id, a lease value and an integer
 * expiry. */
static sbx_status list_row(sqlite_store *s, sqlite3_stmt *stmt, int64_t now,
                           mgr_lease_records *records, sbx_error *err)
{
    /* Types first: reading a column as text converts it. */
    int id_type = sqlite3_column_type(stmt, 0), value_type = sqlite3_column_type(stmt, 1);
    const char *id = (const char *)sqlite3_column_text(stmt, 0);
    const char *value = (const char *)sqlite3_column_text(stmt, 1);
    if (id_type != SQLITE_TEXT ||
        !mgr_lease_text_ok(id, (size_t)sqlite3_column_bytes(stmt, 0)))
        return mgr_lease_bad_row(s->store_name, id != NULL ? id : "(NULL)",
                                 "is not a sandbox id (NULL, not text, too long or not printable)",
                                 err);
    if (sqlite3_column_type(stmt, 2) != SQLITE_INTEGER)
        return mgr_lease_bad_row(s->store_name, id, "has an expires_at that is not an integer",
                                 err);
    sbx_status st = mgr_lease_value_check(s->store_name, id,
                                          value_type == SQLITE_TEXT ? value : NULL,
                                          (size_t)sqlite3_column_bytes(stmt, 1), NULL, err);
    if (st == SBX_OK && mgr_lease_records_append(records, id, value,
                                                 sqlite3_column_int64(stmt, 2) - now) != 0)
        st = sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory listing the leases");
    return st;
}

static sbx_status sq_list(mgr_lease_store *store, sbx_lease_record **out, size_t *count,
                          sbx_error *err)
{
    sqlite_store *s = (sqlite_store *)store;
    *out = NULL;
    *count = 0;
    mgr_lease_records records = { NULL, 0, 0 };
    pthread_mutex_lock(&s->lock);
    int64_t started;
    if (begin_op(s, "listing", NULL, &started, err) != 0) {
        pthread_mutex_unlock(&s->lock);
        return err->kind;
    }
    int64_t now = wall_ms();
    sqlite3_stmt *stmt = NULL;
    /* Rows whose expiry is not an integer are listed, to be reported. */
    int rc = sqlite3_prepare_v2(s->db, "SELECT sandbox_id, value, expires_at FROM sbx_leases "
                                "WHERE typeof(expires_at) != 'integer' OR expires_at > ?1 "
                                "ORDER BY sandbox_id", -1, &stmt, NULL);
    if (rc == SQLITE_OK)
        sqlite3_bind_int64(stmt, 1, now);
    sbx_status st = SBX_OK;
    while (st == SBX_OK && rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        st = list_row(s, stmt, now, &records, err);
    }
    if (st == SBX_OK && rc != SQLITE_DONE)
        st = db_error(s, "listing", NULL, err);
    sqlite3_finalize(stmt);
    end_op(s, rc, started);
    pthread_mutex_unlock(&s->lock);
    if (st != SBX_OK) {
        sbx_lease_records_free(records.items, records.count);
        return st;
    }
    *out = records.items;
    *count = records.count;
    return st;
}

static const mgr_lease_store_ops sqlite_ops = {
    "sqlite", 1,
    sq_take, sq_claim, sq_renew, sq_release, sq_owner, sq_close, sq_list,
};

/* Schema and statements; under no lock (the store is not shared yet). */
static int prepare(sqlite_store *s)
{
    sqlite3_busy_timeout(s->db, SQLITE_BUSY_TIMEOUT_MS);
    /* WAL lets readers run beside a writer; a file system without shared
     * memory keeps the rollback journal, which is merely slower. */
    exec(s, "PRAGMA journal_mode=WAL");
    /* In WAL mode NORMAL commits without an fsync: a commit still survives
     * the crash of any process, and a power cut loses at most the last
     * commits, leases whose holders went down with the machine.  FULL's
     * fsync per operation stalled renewals for seconds on a disk other
     * work kept busy, long enough for a live holder's lease to lapse. */
    exec(s, "PRAGMA synchronous=NORMAL");
    int rc = exec(s, "CREATE TABLE IF NOT EXISTS sbx_leases ("
                     "sandbox_id TEXT PRIMARY KEY, value TEXT NOT NULL, "
                     "expires_at INTEGER NOT NULL)");
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(s->db, "SELECT value, expires_at FROM sbx_leases WHERE sandbox_id = ?1",
                                -1, &s->select, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(s->db, "INSERT OR REPLACE INTO sbx_leases (sandbox_id, value, "
                                "expires_at) VALUES (?1, ?2, ?3)", -1, &s->upsert, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(s->db, "DELETE FROM sbx_leases WHERE sandbox_id = ?1", -1,
                                &s->remove, NULL);
    return rc;
}

sbx_status mgr_lease_store_sqlite_open(const char *path, const char *owner_id, int64_t ttl_ms,
                                       mgr_lease_store **out, sbx_error *err)
{
    sqlite_store *s = calloc(1, sizeof *s);
    if (s == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory opening the sqlite lease store");
    sbx_status st = mgr_lease_store_init(&s->base, &sqlite_ops, owner_id, ttl_ms, err);
    pthread_mutex_init(&s->lock, NULL);
    if (st == SBX_OK && ((s->path = strdup(path)) == NULL ||
                         (s->store_name = malloc(strlen(path) + 20)) == NULL ||
                         (s->own = mgr_lease_value(owner_id, 0)) == NULL ||
                         (s->del = mgr_lease_value(owner_id, 1)) == NULL))
        st = sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory opening the sqlite lease store");
    if (st == SBX_OK) {
        snprintf(s->store_name, strlen(path) + 20, "sqlite lease store %s", path);
        int rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                                 SQLITE_OPEN_NOMUTEX, NULL);
        if (rc == SQLITE_OK)
            rc = prepare(s);
        if (rc != SQLITE_OK)
            st = sbx_error_set(err, SBX_ERR_CONFIG, "ownership.path %s: cannot open the sqlite "
                               "lease store: %s", path,
                               s->db != NULL ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
    }
    if (st != SBX_OK) {
        if (s->base.owner_id == NULL) {
            pthread_mutex_destroy(&s->lock);
            free(s);
        } else {
            sq_close(&s->base);
        }
        return st;
    }
    *out = &s->base;
    return SBX_OK;
}
