/* The sbxctl command line, parsed into one structure. */
#ifndef CTL_ARGS_H
#define CTL_ARGS_H

#include <stddef.h>
#include <sbx/host.h>

/* The commands of sbxctl(1). */
typedef enum ctl_command {
    CTL_NO_COMMAND = 0,
    CTL_BACKENDS,
    CTL_CREATE,
    CTL_DESTROY,
    CTL_ALIVE,
    CTL_DISCOVER,
    CTL_LIST,
    CTL_CAPABILITIES,
    CTL_RECONCILE,
    CTL_ACQUIRE,
    CTL_MANAGE,
    CTL_LEASES,
    CTL_EXEC,
    CTL_CP,
    CTL_LS,
    CTL_PS,
    CTL_LOGS,
    CTL_KILL,
    CTL_ATTACH,
    CTL_SHELL,
    CTL_EXTEND
} ctl_command;

/* One --set KEY=VALUE; `key` is owned by the args, `value` points into argv. */
typedef struct ctl_setting {
    char *key;
    const char *value;
} ctl_setting;

/* Everything the command line says.  Strings not documented as owned point
 * into argv; optional ones are NULL when not given. */
typedef struct ctl_args {
    const char *config_path;     /* --config */
    const char *backend;         /* --backend */
    ctl_setting *settings;   /* --set, in command-line order (owned) */
    size_t setting_count;
    int json;                    /* --json */
    int verbose;                 /* -v / --verbose */
    int help;                    /* -h / --help */
    int version;                 /* --version */

    ctl_command command;
    const char *command_name;    /* as typed */
    const char *operand;         /* the ID of destroy/alive/discover/reconcile/
                                  * exec/ls/ps/logs/kill/attach/shell; cp's SOURCE */
    const char *operand2;        /* ls's PATH (NULL: "."); cp's DESTINATION;
                                  * the PID (process id) of logs/kill/attach */
    int signal;                  /* kill's SIGNAL, parsed; SIGTERM when absent */
    int signal_given;            /* non-zero: kill's SIGNAL was given */
    int follow;                  /* logs -f / --follow */

    /* create */
    const char *thread_id;
    const char *sandbox_id;
    const char *user_id;
    sbx_mount *mounts;           /* owned, and so are their path strings */
    size_t mount_count;
    int legacy_skills;
    int lark_runtime;
    int lark_broker;
    int required_contract;       /* SBX_CONTRACT_NONE unless --require-contract */
    const char *image;           /* --image */
    sbx_label *labels;           /* --label KEY=VALUE, in order (owned array; keys
                                  * owned, values point into argv); list's filter too */
    size_t label_count;
    int64_t memory_bytes;        /* --memory; SBX_LIMIT_NONE when absent */
    int64_t cpu_millicores;      /* --cpus; SBX_LIMIT_NONE when absent */
    int64_t pids_limit;          /* --pids; SBX_LIMIT_NONE when absent */
    int64_t disk_bytes;          /* --disk; SBX_LIMIT_NONE when absent */
    sbx_network network;         /* --network; SBX_NETWORK_DEFAULT when absent */
    int64_t expire_in_ms;        /* --expire-in; 0 when absent (no expiry asked) */
    int64_t duration_ms;         /* extend's DURATION (operand2 as typed) */

    /* acquire (also takes the create options above but --id) */
    int keep_lease;              /* --keep-lease */

    /* exec ID [options] CMD ARGS... (--env, --workdir and --timeout: shell's too) */
    const char *const *exec_argv; /* the command: points into argv, NULL-terminated */
    sbx_env_var *env;             /* --env NAME=VALUE, in order (owned array;
                                   * names owned, values point into argv); also
                                   * create's and acquire's env of the sandbox */
    size_t env_count;
    const char *workdir;          /* --workdir */
    int64_t timeout_ms;           /* --timeout SECONDS; SBX_EXEC_DEFAULT when absent */
    int interactive;              /* -i / --interactive: stdin kept open, forwarded */
    int tty;                      /* -t / --tty: the command runs on a terminal */
    int detach;                   /* -d / --detach: started in the background */
} ctl_args;

/* Parse argv.  Global options may come before or after the command; short
 * flags that take no value may be joined (-it, -dit).  On a
 * usage error returns SBX_ERR_USAGE with a one-line message naming the
 * option, command or argument at fault (never the value of a --set, which
 * may be a secret); the fields parsed so far (notably `json`) stay set.
 * Arguments that go into requests or JSON (ids, user, thread, backend,
 * --set, --mount) must be UTF-8, and names and ids also free of control
 * characters: otherwise a usage error naming the argument, not its value.
 * SBX_ERR_INTERNAL when out of memory.  Release with ctl_args_free in
 * every case. */
sbx_status ctl_args_parse(int argc, char *const *argv, ctl_args *args,
                              sbx_error *err);

/* The create request the arguments describe (thread, user, mounts, runtime
 * flags, required contract, image, env, labels, limits, disk, network,
 * --expire-in from now), with no sandbox id: its strings and mounts are
 * borrowed from `args` and live as long as they do. */
sbx_create_request ctl_args_create_request(const ctl_args *args);

/* Release what the args own.  NULL is accepted. */
void ctl_args_free(ctl_args *args);

#endif
