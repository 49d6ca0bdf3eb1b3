/* The seccomp deny-list (see local_isolation_filter.h). */
#include <config.h>

#include "plugin/local/local_isolation_filter.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a sandboxed command never needs and what widens the kernel's
 * attack surface or leads out of the namespaces: mounts and namespaces,
 * tracing, keys, BPF, modules, kexec, the clock, swap, reboot, io_uring
 * (its rings carry operations this filter never sees).  A name this
 * architecture lacks is skipped. */
static const char *const denied[] = {
    "mount", "umount", "umount2", "pivot_root", "chroot", "unshare", "setns",
    "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
    "open_by_handle_at", "name_to_handle_at", "ptrace", "process_vm_readv",
    "process_vm_writev", "keyctl", "add_key", "request_key", "bpf", "perf_event_open",
    "userfaultfd", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "swapon", "swapoff", "reboot", "acct", "quotactl", "iopl", "ioperm",
    "syslog", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "vhangup",
    "lookup_dcookie", "uselib", "io_uring_setup", "io_uring_enter", "io_uring_register",
};

/* The calls that give a file a mode, with the index of the mode argument
 * and of the flags that must ask for a new file (-1: the call always sets
 * a mode): none may set the setuid or setgid bit in the sandbox
 * directory, which is the host's and would keep it (docs/local.md). */
static const struct {
    const char *name;
    unsigned mode_arg;
    int flags_arg;
} mode_setters[] = {
    { "chmod", 1, -1 }, { "fchmod", 1, -1 }, { "fchmodat", 2, -1 }, { "fchmodat2", 2, -1 },
    { "creat", 1, -1 }, { "mknod", 1, -1 }, { "mknodat", 2, -1 }, { "open", 2, 1 },
    { "openat", 3, 2 },
};
static const scmp_datum_t special_bits[] = { S_ISUID, S_ISGID };
static const scmp_datum_t creating_flags[] = { O_CREAT, O_TMPFILE & ~O_DIRECTORY };

/* fchmodat2 by number where libseccomp does not know it (Linux 6.6). */
#if defined(__x86_64__) || defined(__aarch64__)
#define FCHMODAT2_NR 452
#else
#define FCHMODAT2_NR (-1)
#endif

static int add_mode_rules(scmp_filter_ctx ctx)
{
    for (size_t i = 0; i < sizeof mode_setters / sizeof mode_setters[0]; i++) {
        int nr = seccomp_syscall_resolve_name(mode_setters[i].name);
        if (nr < 0 && strcmp(mode_setters[i].name, "fchmodat2") == 0)
            nr = FCHMODAT2_NR;
        if (nr < 0)
            continue;
        for (size_t b = 0; b < sizeof special_bits / sizeof special_bits[0]; b++) {
            struct scmp_arg_cmp mode = SCMP_CMP(mode_setters[i].mode_arg, SCMP_CMP_MASKED_EQ,
                                                special_bits[b], special_bits[b]);
            if (mode_setters[i].flags_arg < 0) {
                if (seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1, &mode) != 0)
                    return 0;
                continue;
            }
            for (size_t f = 0; f < sizeof creating_flags / sizeof creating_flags[0]; f++) {
                struct scmp_arg_cmp both[2] = {
                    mode, SCMP_CMP((unsigned)mode_setters[i].flags_arg, SCMP_CMP_MASKED_EQ,
                                   creating_flags[f], creating_flags[f]),
                };
                if (seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), nr, 2, both) != 0)
                    return 0;
            }
        }
    }
    return 1;
}

/* clone's flags that would make namespaces. */
static const unsigned long namespace_flags[] = {
    CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWIPC, CLONE_NEWUTS,
    CLONE_NEWCGROUP,
};

static int add_rules(scmp_filter_ctx ctx)
{
    for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++) {
        int nr = seccomp_syscall_resolve_name(denied[i]);
        if (nr >= 0 && seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0) != 0)
            return 0;
    }
    for (size_t i = 0; i < sizeof namespace_flags / sizeof namespace_flags[0]; i++)
        if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                             SCMP_A0(SCMP_CMP_MASKED_EQ, namespace_flags[i],
                                     namespace_flags[i])) != 0)
            return 0;
    /* clone3's flags and openat2's mode are out of a filter's reach (libc
     * falls back to clone and openat); TIOCSTI pushes bytes into a
     * terminal's input (CVE-2017-5226's class). */
    return add_mode_rules(ctx) &&
           seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) == 0 &&
           seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0) == 0 &&
           seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                            SCMP_A1(SCMP_CMP_EQ, (scmp_datum_t)TIOCSTI)) == 0;
}

/* The program, through a memory file (libseccomp 2.5 exports only to a
 * descriptor). */
static int export_program(scmp_filter_ctx ctx, void **filter, unsigned short *count)
{
    int fd = memfd_create("sbx-seccomp", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    int ok = seccomp_export_bpf(ctx, fd) == 0 && fstat(fd, &st) == 0 && st.st_size > 0 &&
             st.st_size % (off_t)sizeof(struct sock_filter) == 0 &&
             st.st_size / (off_t)sizeof(struct sock_filter) <= 65535 &&
             lseek(fd, 0, SEEK_SET) == 0;
    char *buf = ok ? malloc((size_t)st.st_size) : NULL;
    size_t got = 0;
    while (buf != NULL && got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n <= 0 && !(n < 0 && errno == EINTR))
            break;
        got += n > 0 ? (size_t)n : 0;
    }
    close(fd);
    if (buf == NULL || got != (size_t)st.st_size) {
        free(buf);
        return 0;
    }
    *filter = buf;
    *count = (unsigned short)(st.st_size / (off_t)sizeof(struct sock_filter));
    return 1;
}

/* The process's program, built by the first call that succeeds (a failed
 * build, out of memory, is tried again by the next). */
static pthread_mutex_t program_lock = PTHREAD_MUTEX_INITIALIZER;
static void *program;
static unsigned short program_count;

static void build(void)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (ctx != NULL && seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) == 0 && add_rules(ctx))
        export_program(ctx, &program, &program_count);
    if (ctx != NULL)
        seccomp_release(ctx);
}

sbx_status local_isolation_filter_get(const void **filter, unsigned short *count, sbx_error *err)
{
    /* Built once: libseccomp's compiler costs about as much as a fork. */
    pthread_mutex_lock(&program_lock);
    if (program == NULL)
        build();
    *filter = program;
    *count = program_count;
    pthread_mutex_unlock(&program_lock);
    if (*filter == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL,
                                     "isolation: cannot build the seccomp filter");
    return SBX_OK;
}
