/* A live process's output file, mapped by its supervisor and its readers
 * (see local_ring.h). */
#include <config.h>

#include "plugin/local/local_ring.h"

#include "plugin/local/local_time.h"
#include <sbx/backend_support.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RING_MAGIC 0x53425850u   /* "SBXP" */
#define RING_VERSION 1u

/* Runs of one stream remembered in the order they were written; older runs
 * are forgotten, and a reader then gets their bytes stream by stream. */
#define JOURNAL_SLOTS 1024

/* One run of bytes of one stream. */
typedef struct ring_run {
    uint32_t stream;   /* 0 stdout, 1 stderr */
    uint32_t unused;
    uint64_t start;    /* the stream's offset of its first byte */
    uint64_t length;
} ring_run;

struct local_ring_header {
    uint32_t magic, version;
    uint64_t capacity;            /* bytes kept per stream */
    uint64_t data_offset;         /* where stdout's ring starts in the file */
    pthread_mutex_t lock;         /* robust, process-shared: everything below */
    uint32_t wake;                /* futex word: bumped at every change */
    uint32_t unused;
    uint64_t total[2];            /* bytes each stream produced */
    uint64_t runs;                /* runs ever recorded */
    int32_t ended, outcome, exit_code, term_signal;
    int64_t started_at, ended_at;
    int32_t pty, stdin_open;
    int32_t supervisor;           /* its pid, once it runs */
    int32_t unused2;
    ring_run journal[JOURNAL_SLOTS];
};

static size_t data_offset(void)
{
    size_t page = 4096;
    return (sizeof(struct local_ring_header) + page - 1) / page * page;
}

static void lock(local_ring *ring)
{
    if (pthread_mutex_lock(&ring->h->lock) == EOWNERDEAD)
        pthread_mutex_consistent(&ring->h->lock);   /* a holder was killed */
}

static void unlock(local_ring *ring)
{
    pthread_mutex_unlock(&ring->h->lock);
}

/* Bump the futex word and wake every waiter (the lock held). */
static void wake_all(local_ring *ring)
{
    __atomic_add_fetch(&ring->h->wake, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &ring->h->wake, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

static int map_file(local_ring *ring, size_t size)
{
    void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, ring->fd, 0);
    if (m == MAP_FAILED)
        return -1;
    ring->h = m;
    ring->size = size;
    return 0;
}

static int init_header(struct local_ring_header *h, size_t capacity, int pty, int stdin_open)
{
    h->magic = RING_MAGIC;
    h->version = RING_VERSION;
    h->capacity = capacity;
    h->data_offset = data_offset();
    h->started_at = local_epoch_ms();
    h->ended_at = SBX_TIME_UNKNOWN;
    h->exit_code = -1;
    h->pty = pty;
    h->stdin_open = stdin_open;
    pthread_mutexattr_t attr;
    if (pthread_mutexattr_init(&attr) != 0)
        return -1;
    int e = pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    if (e == 0)
        e = pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
    if (e == 0)
        e = pthread_mutex_init(&h->lock, &attr);
    pthread_mutexattr_destroy(&attr);
    errno = e;
    return e == 0 ? 0 : -1;
}

int local_ring_create(int dir_fd, const char *name, size_t capacity, int pty, int stdin_open,
                      local_ring *ring)
{
    ring->h = NULL;
    ring->fd = openat(dir_fd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (ring->fd < 0)
        return -1;
    size_t size = data_offset() + 2 * capacity;
    /* Held by whoever has this descriptor (the supervisor, once forked):
     * readers take its release for the supervisor's end. */
    if (flock(ring->fd, LOCK_EX) != 0 || ftruncate(ring->fd, (off_t)size) != 0 ||
        map_file(ring, size) != 0 || init_header(ring->h, capacity, pty, stdin_open) != 0) {
        int e = errno;
        local_ring_close(ring);
        errno = e;
        return -1;
    }
    return 0;
}

int local_ring_open(int dir_fd, const char *name, local_ring *ring)
{
    ring->h = NULL;
    ring->fd = openat(dir_fd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (ring->fd < 0)
        return -1;
    struct stat sb;
    int ok = fstat(ring->fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
             (size_t)sb.st_size >= data_offset() && map_file(ring, (size_t)sb.st_size) == 0;
    if (ok && (ring->h->magic != RING_MAGIC || ring->h->version != RING_VERSION ||
               ring->h->data_offset != data_offset() ||
               (ring->size - data_offset()) / 2 < ring->h->capacity))
        ok = 0;
    if (!ok) {
        local_ring_close(ring);
        errno = EPROTO;
        return -1;
    }
    return 0;
}

void local_ring_close(local_ring *ring)
{
    if (ring->h != NULL)
        munmap(ring->h, ring->size);
    ring->h = NULL;
    if (ring->fd >= 0)
        close(ring->fd);
    ring->fd = -1;
}

static char *stream_base(local_ring *ring, int s)
{
    return (char *)ring->h + ring->h->data_offset + (size_t)s * ring->h->capacity;
}

/* Copy `n` bytes of stream `s` from its offset `at` (still kept) to `to`. */
static void copy_out(local_ring *ring, int s, uint64_t at, char *to, size_t n)
{
    uint64_t cap = ring->h->capacity;
    while (n > 0) {
        size_t pos = (size_t)(at % cap), part = (size_t)(cap - pos) < n ? (size_t)(cap - pos) : n;
        memcpy(to, stream_base(ring, s) + pos, part);
        to += part;
        at += part;
        n -= part;
    }
}

void local_ring_append(local_ring *ring, sbx_stream stream, const char *data, size_t length)
{
    struct local_ring_header *h = ring->h;
    int s = stream == SBX_STREAM_STDERR;
    lock(ring);
    uint64_t at = h->total[s];
    size_t skip = length > h->capacity ? length - (size_t)h->capacity : 0;
    for (size_t done = skip; done < length;) {
        uint64_t off = at + done;
        size_t pos = (size_t)(off % h->capacity);
        size_t part = (size_t)(h->capacity - pos) < length - done ? (size_t)(h->capacity - pos)
                                                                 : length - done;
        memcpy(stream_base(ring, s) + pos, data + done, part);
        done += part;
    }
    h->total[s] = at + length;
    ring_run *last = h->runs > 0 ? &h->journal[(h->runs - 1) % JOURNAL_SLOTS] : NULL;
    if (last != NULL && last->stream == (uint32_t)s && last->start + last->length == at) {
        last->length += length;
    } else {
        ring_run *run = &h->journal[h->runs % JOURNAL_SLOTS];
        *run = (ring_run){ (uint32_t)s, 0, at, length };
        h->runs++;
    }
    wake_all(ring);
    unlock(ring);
}

void local_ring_finish(local_ring *ring, sbx_exec_outcome outcome, int exit_code,
                       int term_signal)
{
    lock(ring);
    if (!ring->h->ended) {
        ring->h->outcome = (int32_t)outcome;
        ring->h->exit_code = exit_code;
        ring->h->term_signal = term_signal;
        ring->h->ended_at = local_epoch_ms();
        ring->h->stdin_open = 0;
        ring->h->ended = 1;
    }
    wake_all(ring);
    unlock(ring);
}

int local_ring_close_stdin(local_ring *ring)
{
    lock(ring);
    int was = ring->h->stdin_open;
    ring->h->stdin_open = 0;
    unlock(ring);
    return was;
}

static void state_locked(local_ring *ring, local_ring_state *st)
{
    struct local_ring_header *h = ring->h;
    st->ended = h->ended != 0;
    st->outcome = (sbx_exec_outcome)h->outcome;
    st->exit_code = h->ended ? h->exit_code : -1;
    st->term_signal = h->term_signal;
    st->started_at = h->started_at;
    st->ended_at = h->ended ? h->ended_at : SBX_TIME_UNKNOWN;
    st->pty = h->pty;
    st->stdin_open = h->stdin_open;
}

void local_ring_state_of(local_ring *ring, local_ring_state *state)
{
    lock(ring);
    state_locked(ring, state);
    unlock(ring);
}

/* An answer being built. */
typedef struct answer {
    local_ring *ring;
    sbx_process_output *o;
    uint64_t from[2], total[2];
    size_t budget;
} answer;

/* Answer the bytes of stream `s` from a->from[s] up to `until` (within the
 * budget), as a chunk joined to the last when of the same stream. */
static void emit(answer *a, int s, uint64_t until)
{
    if (until > a->total[s])
        until = a->total[s];
    if (until <= a->from[s] || a->budget == 0)
        return;
    size_t n = until - a->from[s] < a->budget ? (size_t)(until - a->from[s]) : a->budget;
    sbx_process_output *o = a->o;
    copy_out(a->ring, s, a->from[s], o->data + o->length, n);
    sbx_stream stream = s == 0 ? SBX_STREAM_STDOUT : SBX_STREAM_STDERR;
    if (o->chunk_count > 0 && o->chunks[o->chunk_count - 1].stream == stream)
        o->chunks[o->chunk_count - 1].length += n;
    else
        o->chunks[o->chunk_count++] = (sbx_output_chunk){ stream, n };
    o->length += n;
    a->from[s] += n;
    a->budget -= n;
}

/* Walk the remembered runs in order; the bytes of each stream before its
 * first remembered run come first. */
static void walk(answer *a)
{
    struct local_ring_header *h = a->ring->h;
    uint64_t first = h->runs > JOURNAL_SLOTS ? h->runs - JOURNAL_SLOTS : 0;
    uint64_t earliest[2] = { a->total[0], a->total[1] };
    for (uint64_t i = h->runs; i > first; i--) {
        const ring_run *r = &h->journal[(i - 1) % JOURNAL_SLOTS];
        earliest[r->stream & 1] = r->start;
    }
    emit(a, 0, earliest[0]);
    emit(a, 1, earliest[1]);
    for (uint64_t i = first; i < h->runs && a->budget > 0; i++) {
        const ring_run *r = &h->journal[i % JOURNAL_SLOTS];
        int s = (int)(r->stream & 1);
        if (a->from[s] < r->start + r->length && a->from[s] >= r->start)
            emit(a, s, r->start + r->length);
    }
}

/* The answer's buffers for at most `bytes` bytes (in at most runs + 2
 * chunks); 0 when out of memory. */
static int answer_alloc(sbx_process_output *o, size_t bytes, size_t chunks)
{
    o->data = malloc(bytes + 1);
    o->chunks = calloc(chunks, sizeof *o->chunks);
    return o->data != NULL && o->chunks != NULL;
}

sbx_status local_ring_read(local_ring *ring, const char *process_id,
                           const sbx_process_read_request *request, sbx_process_output **out,
                           uint32_t *wake, sbx_error *err)
{
    const sbx_process_cursor *cursor = &request->cursor;
    sbx_process_output *o = calloc(1, sizeof *o);
    if (o == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "process read: out of memory");
    o->struct_size = sizeof *o;
    answer a = { ring, o, { cursor->stdout_offset, cursor->stderr_offset }, { 0, 0 },
                 request->max_bytes };
    lock(ring);
    struct local_ring_header *h = ring->h;
    *wake = __atomic_load_n(&h->wake, __ATOMIC_ACQUIRE);
    a.total[0] = h->total[0];
    a.total[1] = h->total[1];
    if (a.from[0] > a.total[0] || a.from[1] > a.total[1]) {
        unlock(ring);
        free(o);
        return sbx_backend_error_set(err, SBX_ERR_USAGE, "process read of '%s': the cursor "
                                     "(%llu, %llu) is past the end of the output (%llu, %llu "
                                     "bytes produced)", process_id,
                                     (unsigned long long)a.from[0],
                                     (unsigned long long)a.from[1],
                                     (unsigned long long)a.total[0],
                                     (unsigned long long)a.total[1]);
    }
    uint64_t pending = 0;
    for (int s = 0; s < 2; s++) {
        uint64_t kept = a.total[s] > h->capacity ? a.total[s] - h->capacity : 0;
        if (a.from[s] < kept)
            a.from[s] = kept;
        pending += a.total[s] - a.from[s];
    }
    o->stdout_dropped = a.from[0] - cursor->stdout_offset;
    o->stderr_dropped = a.from[1] - cursor->stderr_offset;
    if (a.budget > pending)
        a.budget = (size_t)pending;
    size_t runs = h->runs < JOURNAL_SLOTS ? (size_t)h->runs : JOURNAL_SLOTS;
    if (!answer_alloc(o, a.budget, runs + 2)) {
        unlock(ring);
        local_ring_free_output(o);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "process read: out of memory");
    }
    walk(&a);
    local_ring_state state;
    state_locked(ring, &state);
    unlock(ring);
    o->data[o->length] = '\0';
    o->next.stdout_offset = a.from[0];
    o->next.stderr_offset = a.from[1];
    o->ended = state.ended && a.from[0] == a.total[0] && a.from[1] == a.total[1];
    o->exit_code = -1;
    if (o->ended) {
        o->outcome = state.outcome;
        o->exit_code = state.exit_code;
        o->term_signal = state.term_signal;
    }
    if (o->chunk_count == 0) {
        free(o->chunks);
        o->chunks = NULL;
    }
    *out = o;
    return SBX_OK;
}

uint32_t local_ring_wake_value(local_ring *ring)
{
    return __atomic_load_n(&ring->h->wake, __ATOMIC_ACQUIRE);
}

void local_ring_wait(local_ring *ring, uint32_t seen, int64_t timeout_ms)
{
    struct timespec t = { (time_t)(timeout_ms / 1000), (long)(timeout_ms % 1000) * 1000000L };
    syscall(SYS_futex, &ring->h->wake, FUTEX_WAIT, seen, &t, NULL, 0);
}

/* 1 while the supervisor holds the file's lock. */
static int supervised(local_ring *ring)
{
    if (flock(ring->fd, LOCK_SH | LOCK_NB) != 0)
        return 1;
    flock(ring->fd, LOCK_UN);
    return 0;
}

void local_ring_set_supervisor(local_ring *ring, pid_t pid)
{
    lock(ring);
    ring->h->supervisor = (int32_t)pid;
    unlock(ring);
}

void local_ring_kill_supervisor(local_ring *ring)
{
    lock(ring);
    pid_t pid = (pid_t)ring->h->supervisor;
    unlock(ring);
    if (pid > 0 && supervised(ring))
        kill(pid, SIGKILL);
}

int local_ring_reap_orphan(local_ring *ring)
{
    if (supervised(ring))
        return 0;
    lock(ring);
    int orphan = !ring->h->ended;
    unlock(ring);
    if (orphan)
        local_ring_finish(ring, SBX_EXEC_SIGNALED, -1, SIGKILL);
    return orphan;
}

void local_ring_free_output(sbx_process_output *output)
{
    if (output == NULL)
        return;
    free(output->data);
    free(output->chunks);
    free(output);
}
