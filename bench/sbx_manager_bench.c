/*
 * sbx-manager-bench: the sandbox manager (<sbx/manager.h>) and its lease
 * stores, as bench/manager-run measures them (docs/performance.md, "The
 * sandbox manager").
 *
 *   sbx-manager-bench [-b BACKEND] [-o KEY=VALUE]... [-s memory|sqlite|redis]
 *                     [-p PATH_OR_URL] [-t TAG] OP COUNT THREADS
 *
 * BACKEND (default local) is opened with the -o options (at most 8); the
 * manager and the stores use the -s store at -p (a sqlite file, a redis URL).
 * OP is one of
 *   get         acquire TAG's sandbox once, then COUNT sbx_manager_get + unref
 *   acquire     acquire TAG's sandbox once, then COUNT acquires of it while
 *               it is active (each: one is_alive, one store take)
 *   alive-take  the baseline of acquire: create the sandbox acquire would
 *               make for TAG (its derived id, user and thread) on the
 *               backend, then COUNT times sbx_backend_is_alive of it and one
 *               take of its lease in a store of the same kind
 *   warm        acquire + release TAG's sandbox once, then COUNT times an
 *               acquire of the warm sandbox and its release (acquire_us:
 *               the acquire alone)
 *   cold        COUNT acquires of a new thread each (create, readiness
 *               wait), each destroyed after (acquire_us, destroy_us)
 *   take, renew COUNT store operations (a take of one of 100 ids; a renew of
 *               a lease the thread took first), no manager, no backend
 *   private     the machine's own scaling, get's baseline: COUNT hashes
 *               (FNV-1a, as the manager's table hashes an id) of a 64-byte
 *               id, sharing no written memory between threads; no manager,
 *               no backend
 * Prints one result line (bench_util.h), with the extra keys named above.
 */
#include <config.h>

#include "bench/bench_util.h"
#include "common/fnv1a.h"
#include "host-api/src/manager/lease_store.h"

#include <sbx/host.h>
#include <sbx/manager.h>

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_OPTIONS 8
#define MAX_THREADS 64

typedef struct bench {
    const char *op, *tag;
    sbx_backend *backend;
    sbx_manager *manager;
    mgr_lease_store *store;
    char id[SBX_DERIVED_ID_SIZE];      /* the sandbox get/acquire/warm use */
    double acquire_s[MAX_THREADS];     /* warm, cold: time in acquire */
    double destroy_s[MAX_THREADS];     /* cold: time in destroy */
} bench;

static int failed(const char *what, const sbx_error *err)
{
    fprintf(stderr, "sbx-manager-bench: %s failed: %s: %s\n", what, sbx_status_name(err->kind),
            err->message);
    return -1;
}

static void die(const char *what, const sbx_error *err)
{
    failed(what, err);
    exit(1);
}

/* The user of every acquire. */
#define BENCH_USER "bench"

/* Acquire (user BENCH_USER, thread `thread`); the reference is dropped. */
static int acquire(bench *b, const char *thread, char *id_out)
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.user_id = BENCH_USER;
    req.thread_id = thread;
    sbx_managed *sb = NULL;
    sbx_error err;
    if (sbx_manager_acquire(b->manager, &req, &sb, &err) != SBX_OK)
        return failed("acquire", &err);
    if (id_out != NULL)
        snprintf(id_out, SBX_DERIVED_ID_SIZE, "%s", sbx_managed_sandbox(sb)->sandbox_id);
    sbx_managed_unref(sb);
    return 0;
}

static int call_get(void *ctx, unsigned thread, unsigned long index)
{
    bench *b = ctx;
    (void)thread, (void)index;
    sbx_managed *sb = sbx_manager_get(b->manager, b->id);
    if (sb == NULL)
        return -1;
    sbx_managed_unref(sb);
    return 0;
}

/* Work that scales perfectly with free cores: what get's scaling is read
 * against, since a shared machine rarely gives a second thread a full core. */
static int call_private(void *ctx, unsigned thread, unsigned long index)
{
    (void)ctx, (void)thread;
    static const char id[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    uint64_t hash = common_fnv1a_string(COMMON_FNV1A_BASIS ^ index, id);
    return hash == 0 ? -1 : 0; /* used, so the loop is not optimised away */
}

/* The newest change time of the files under a directory (nftw callback). */
static double newest_change;

static int note_change(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)path, (void)type, (void)ftw;
    double t[] = {(double)st->st_ctim.tv_sec + (double)st->st_ctim.tv_nsec / 1e9,
                  (double)st->st_mtim.tv_sec + (double)st->st_mtim.tv_nsec / 1e9};
    for (int i = 0; i < 2; i++)
        if (t[i] > newest_change)
            newest_change = t[i];
    return 0;
}

/* Wait until the local backend trusts its cached records: every file under
 * its state_dir unchanged for LOCAL_CACHE_SETTLE_MS (1 s; 1.2 s here).
 * Otherwise the first second of a loop re-reads the record on each call
 * and the per-call figures depend on how fast the loop ran (callgrind). */
static int wait_settled(const char *dir)
{
    for (int tries = 0; tries < 100; tries++) {
        newest_change = 0;
        if (nftw(dir, note_change, 16, FTW_PHYS) != 0) {
            fprintf(stderr, "sbx-manager-bench: cannot walk %s\n", dir);
            return -1;
        }
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        double age = (double)now.tv_sec + (double)now.tv_nsec / 1e9 - newest_change;
        if (age >= 1.2)
            return 0;
        struct timespec pause = {0, 100 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    fprintf(stderr, "sbx-manager-bench: %s keeps changing\n", dir);
    return -1;
}

static int call_acquire(void *ctx, unsigned thread, unsigned long index)
{
    bench *b = ctx;
    (void)thread, (void)index;
    return acquire(b, b->tag, NULL);
}

static int call_alive_take(void *ctx, unsigned thread, unsigned long index)
{
    bench *b = ctx;
    (void)thread, (void)index;
    int alive = 0, taken = 0;
    sbx_error err;
    if (sbx_backend_is_alive(b->backend, b->id, &alive, &err) != SBX_OK)
        return failed("is_alive", &err);
    if (b->store->ops->take(b->store, b->id, &taken, &err) != SBX_OK)
        return failed("take", &err);
    return alive && taken ? 0 : -1;
}

static int call_warm(void *ctx, unsigned thread, unsigned long index)
{
    bench *b = ctx;
    (void)index;
    double t0 = sbx_bench_now();
    if (acquire(b, b->tag, NULL) != 0)
        return -1;
    b->acquire_s[thread] += sbx_bench_now() - t0;
    sbx_error err;
    return sbx_manager_release(b->manager, b->id, &err) == SBX_OK ? 0 : failed("release", &err);
}

static int call_cold(void *ctx, unsigned thread, unsigned long index)
{
    bench *b = ctx;
    char thread_id[96], id[SBX_DERIVED_ID_SIZE];
    snprintf(thread_id, sizeof thread_id, "%s-%u-%lu", b->tag, thread, index);
    double t0 = sbx_bench_now();
    if (acquire(b, thread_id, id) != 0)
        return -1;
    double t1 = sbx_bench_now();
    sbx_error err;
    if (sbx_manager_destroy(b->manager, id, &err) != SBX_OK)
        return failed("destroy", &err);
    b->acquire_s[thread] += t1 - t0;
    b->destroy_s[thread] += sbx_bench_now() - t1;
    return 0;
}

static int call_take(void *ctx, unsigned thread, unsigned long index)
{
    bench *b = ctx;
    char id[96];
    snprintf(id, sizeof id, "%s-%u-%lu", b->tag, thread, index % 100);
    int taken = 0;
    sbx_error err;
    if (b->store->ops->take(b->store, id, &taken, &err) != SBX_OK)
        return failed("take", &err);
    return taken ? 0 : -1;
}

static int call_renew(void *ctx, unsigned thread, unsigned long index)
{
    bench *b = ctx;
    char id[96];
    snprintf(id, sizeof id, "%s-renew-%u", b->tag, thread);
    sbx_error err;
    if (index == 0) {
        int taken = 0;
        if (b->store->ops->take(b->store, id, &taken, &err) != SBX_OK || !taken)
            return -1;
    }
    mgr_lease_renewal outcome;
    if (b->store->ops->renew(b->store, id, &outcome, &err) != SBX_OK)
        return failed("renew", &err);
    return outcome == SBX_LEASE_RENEWED ? 0 : -1;
}

static void log_line(void *ctx, sbx_log_level level, const char *backend, const char *message)
{
    (void)ctx;
    if (level == SBX_LOG_ERROR)
        fprintf(stderr, "sbx-manager-bench: %s: %s\n", backend, message);
}

static sbx_manager_store store_kind(const char *name)
{
    if (strcmp(name, "memory") == 0)
        return SBX_MANAGER_STORE_MEMORY;
    if (strcmp(name, "sqlite") == 0)
        return SBX_MANAGER_STORE_SQLITE;
    if (strcmp(name, "redis") == 0)
        return SBX_MANAGER_STORE_REDIS;
    fprintf(stderr, "sbx-manager-bench: unknown store '%s'\n", name);
    exit(2);
}

/* The memory store's clock: the manager's default (CLOCK_MONOTONIC, ms). */
static int64_t monotonic_ms(void *ctx)
{
    (void)ctx;
    return (int64_t)(sbx_bench_now() * 1000.0);
}

/* The lease store the baselines use: the same kind as the manager's. */
static void open_store(bench *b, sbx_manager_store kind, const char *where)
{
    sbx_error err;
    sbx_status st;
    if (kind == SBX_MANAGER_STORE_SQLITE)
        st = mgr_lease_store_sqlite_open(where, "bench:owner", 120000, &b->store, &err);
    else if (kind == SBX_MANAGER_STORE_REDIS)
        st = mgr_lease_store_redis_open(where, "sbx:bench", "bench:owner", 120000, &b->store, &err);
    else
        st = mgr_lease_store_memory_open("bench:owner", 120000,
                                         (mgr_lease_clock){ monotonic_ms, NULL }, NULL, &b->store,
                                         &err);
    if (st != SBX_OK)
        die("opening the store", &err);
}

static void usage(void)
{
    fprintf(stderr, "usage: sbx-manager-bench [-b BACKEND] [-o KEY=VALUE]... "
            "[-s memory|sqlite|redis] [-p PATH_OR_URL] [-t TAG] OP COUNT THREADS\n");
    exit(2);
}

int main(int argc, char **argv)
{
    bench b = {.tag = "t1"};
    const char *backend_name = "local", *where = NULL;
    sbx_manager_store kind = SBX_MANAGER_STORE_MEMORY;
    sbx_option options[MAX_OPTIONS];
    size_t option_count = 0;
    int c;
    while ((c = getopt(argc, argv, "b:o:s:p:t:")) != -1) {
        switch (c) {
        case 'b': backend_name = optarg; break;
        case 's': kind = store_kind(optarg); break;
        case 'p': where = optarg; break;
        case 't': b.tag = optarg; break;
        case 'o':
            if (sbx_bench_add_option(optarg, options, &option_count, MAX_OPTIONS) != 0)
                usage();
            break;
        default: usage();
        }
    }
    if (argc - optind != 3)
        usage();
    b.op = argv[optind];
    unsigned long count = sbx_bench_count_arg(argv[optind + 1], "COUNT");
    unsigned long threads = sbx_bench_count_arg(argv[optind + 2], "THREADS");
    if (threads > MAX_THREADS)
        usage();

    sbx_error err;
    sbx_bench_call_fn fn = NULL;
    sbx_host *host = NULL;
    int store_only = strcmp(b.op, "take") == 0 || strcmp(b.op, "renew") == 0;
    int no_backend = store_only || strcmp(b.op, "private") == 0;
    if (!no_backend) {
        sbx_host_services services = {sizeof services, log_line, NULL};
        if (sbx_host_new(&services, &host, &err) != SBX_OK ||
            sbx_backend_open(host, backend_name, options, option_count, &b.backend, &err) != SBX_OK)
            die("opening the backend", &err);
    }
    if (strcmp(b.op, "private") == 0) {
        fn = call_private;
    } else if (store_only || strcmp(b.op, "alive-take") == 0) {
        open_store(&b, kind, where);
        fn = strcmp(b.op, "take") == 0 ? call_take : strcmp(b.op, "renew") == 0 ? call_renew
                                                                                 : call_alive_take;
        if (fn == call_alive_take) {
            /* The id, and so the paths and keys, of acquire's sandbox: the
             * backend's and the store's costs grow with the id's length. */
            if (sbx_sandbox_id_derive(BENCH_USER, b.tag, b.id, &err) != SBX_OK)
                die("deriving the id", &err);
            sbx_create_request req = SBX_CREATE_REQUEST_INIT;
            req.sandbox_id = b.id;
            req.user_id = BENCH_USER;
            req.thread_id = b.tag;
            sbx_sandbox *sb = NULL;
            if (sbx_backend_create(b.backend, &req, &sb, &err) != SBX_OK)
                die("create", &err);
            sbx_backend_free_sandboxes(b.backend, sb, 1);
        }
    } else {
        sbx_manager_config cfg = SBX_MANAGER_CONFIG_INIT;
        cfg.store = kind;
        cfg.store_path = kind == SBX_MANAGER_STORE_SQLITE ? where : NULL;
        cfg.redis_url = kind == SBX_MANAGER_STORE_REDIS ? where : NULL;
        cfg.log = log_line;
        /* The docker bench's sandboxes serve busybox httpd's index page. */
        cfg.ready_path = "/";
        cfg.ready_interval_ms = 20;
        /* The emulator's sandbox URLs name node ports nothing serves. */
        if (strcmp(backend_name, "remote") == 0)
            cfg.ready_timeout_ms = 0;
        cfg.replicas = 1000;
        if (sbx_manager_open(b.backend, &cfg, &b.manager, &err) != SBX_OK)
            die("opening the manager", &err);
        if (strcmp(b.op, "get") == 0)
            fn = call_get;
        else if (strcmp(b.op, "acquire") == 0)
            fn = call_acquire;
        else if (strcmp(b.op, "warm") == 0)
            fn = call_warm;
        else if (strcmp(b.op, "cold") == 0)
            fn = call_cold;
        else
            usage();
        if (fn != call_cold && acquire(&b, b.tag, b.id) != 0)
            return 1;
        if (fn == call_warm && sbx_manager_release(b.manager, b.id, &err) != SBX_OK)
            die("release", &err);
    }

    for (size_t i = 0; i < option_count; i++)
        if (strcmp(options[i].key, "state_dir") == 0 && wait_settled(options[i].value) != 0)
            return 1;

    sbx_bench_result r;
    sbx_bench_run((unsigned)threads, count, fn, &b, &r);
    char label[64];
    snprintf(label, sizeof label, "sbx %s", b.op);
    sbx_bench_print(label, (unsigned)threads, &r);
    if (fn == call_warm || fn == call_cold) {
        double acquire_s = 0, destroy_s = 0;
        for (unsigned long t = 0; t < threads; t++) {
            acquire_s += b.acquire_s[t];
            destroy_s += b.destroy_s[t];
        }
        unsigned long n = r.calls ? r.calls : 1;
        printf(" acquire_us=%.2f", acquire_s * 1e6 / (double)n);
        if (fn == call_cold)
            printf(" destroy_us=%.2f", destroy_s * 1e6 / (double)n);
    }
    printf("\n");

    int status = r.failures ? 1 : 0;
    if (b.manager != NULL) {
        if (sbx_manager_shutdown(b.manager, &err) != SBX_OK)
            status = failed("shutdown", &err);
        sbx_manager_free(b.manager);
    }
    if (fn == call_alive_take && sbx_backend_destroy(b.backend, b.id, &err) != SBX_OK)
        status = failed("destroy", &err);
    if (b.store != NULL)
        mgr_lease_store_close(b.store);
    sbx_backend_close(b.backend);
    sbx_host_free(host);
    return status;
}
