/*
 * Options of the "docker" backend module (docs/docker.md).
 */
#ifndef SBX_DOCKER_OPTIONS_H
#define SBX_DOCKER_OPTIONS_H

#include <stddef.h>
#include <sbx/backend.h>

/* The name the backend registers and logs under. */
#define DOCKER_NAME "docker"

/* A KEY=VALUE pair from the `env` or `labels` option. */
typedef struct docker_pair {
    char *key;
    char *value;
} docker_pair;

/* The pairs of one such option. */
typedef struct docker_pairs {
    docker_pair *items;
    size_t count;
} docker_pairs;

/* The `init` option: an init process as PID 1 of each sandbox.  The values
 * are the words' places in the option table ("auto", "true", "false"). */
typedef enum docker_init_mode {
    DOCKER_INIT_AUTO = 0,  /* when the engine has an init binary */
    DOCKER_INIT_ON = 1,    /* always; an engine without one is a config error */
    DOCKER_INIT_OFF = 2    /* never */
} docker_init_mode;

/* What an instance was opened with.  Immutable after parsing: every thread
 * may read it without a lock. */
typedef struct docker_options {
    char *socket_path;         /* the engine's unix socket */
    char *image;               /* NULL: create is refused (SBX_ERR_CONFIG) */
    char *name_prefix;         /* containers are named PREFIX-SANDBOXID */
    char *bind_host;           /* host address the sandbox port is published on */
    long port;                 /* sandbox port inside the container */
    docker_pairs env;          /* container environment */
    docker_pairs labels;       /* extra container labels (never sbx.*) */
    char *command;             /* NULL: the image's own command */
    char *api_version;         /* "v1.41": path prefix of every call */
    long timeout_ms;           /* bound of each engine call */
    long stop_grace_s;         /* SIGTERM-to-SIGKILL grace on destroy */
    long ready_timeout_ms;     /* create waits this long for the published port; 0: no wait */
    int init;                  /* a docker_init_mode: the `init` option */
    long max_processes;        /* running processes per sandbox (ABI 1.4) */
    long process_buffer_bytes; /* bytes kept of each stream of a process by default */
    long max_process_buffer_bytes; /* the largest buffer_bytes a start may ask */
    char *pty_helper;          /* the static sbx-docker-pty copied into containers */
} docker_options;

/* Parse `options` into *out (zeroed first).  Unknown keys (the message
 * lists the known ones) and bad values are SBX_ERR_CONFIG naming the key.  The socket is the `socket` option,
 * else $DOCKER_HOST when it is unix://PATH (another scheme is
 * SBX_ERR_CONFIG), else /var/run/docker.sock.  The terminal helper is
 * `pty_helper`, else $SBX_DOCKER_PTY_HELPER, else the installed one.  On error *out holds
 * nothing.  Release with docker_options_clear. */
sbx_status docker_options_parse(const sbx_option *options, size_t count,
                                docker_options *out, sbx_error *err);

/* The table docker_options_parse follows (static data): its keys are the
 * ones sbxctl's hints name. */
struct common_option_table;
const struct common_option_table *docker_options_table(void);

/* Free what *options holds.  Zeroed storage is accepted. */
void docker_options_clear(docker_options *options);

#endif
