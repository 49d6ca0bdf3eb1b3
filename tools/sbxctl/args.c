/* Command-line parsing.  Written by hand rather than with getopt_long so
 * that every usage error can name the exact token at fault, global options
 * can follow the command, and a --set value is never echoed. */
#include <config.h>

#include "tools/sbxctl/args.h"

#include "common/expiry.h"
#include "common/utf8.h"
#include "tools/sbxctl/duration_args.h"
#include "tools/sbxctl/resource_args.h"
#include "tools/sbxctl/signal_names.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum option_id {
    OPT_CONFIG,
    OPT_BACKEND,
    OPT_SET,
    OPT_JSON,
    OPT_VERBOSE,
    OPT_HELP,
    OPT_VERSION,
    OPT_THREAD,
    OPT_ID,
    OPT_USER,
    OPT_MOUNT,
    OPT_LEGACY_SKILLS,
    OPT_LARK_RUNTIME,
    OPT_LARK_BROKER,
    OPT_REQUIRE_CONTRACT,
    OPT_KEEP_LEASE,
    OPT_ENV,
    OPT_WORKDIR,
    OPT_TIMEOUT,
    OPT_INTERACTIVE,
    OPT_TTY,
    OPT_DETACH,
    OPT_FOLLOW,
    OPT_IMAGE,
    OPT_LABEL,
    OPT_MEMORY,
    OPT_CPUS,
    OPT_PIDS,
    OPT_DISK,
    OPT_NETWORK,
    OPT_EXPIRE_IN
} option_id;

typedef struct option_spec {
    const char *long_name;   /* with its leading dashes */
    const char *short_name;  /* "-v", or NULL */
    int takes_value;
    unsigned commands;       /* OPT_FOR_* of the commands taking it; 0: global */
    option_id id;
} option_spec;

/* Which commands an option that is not global belongs to. */
#define OPT_FOR_CREATE 1u
#define OPT_FOR_ACQUIRE 2u
#define OPT_FOR_BOTH (OPT_FOR_CREATE | OPT_FOR_ACQUIRE)
#define OPT_FOR_EXEC 4u
#define OPT_FOR_LOGS 8u
#define OPT_FOR_SHELL 16u
#define OPT_FOR_COMMANDS (OPT_FOR_EXEC | OPT_FOR_SHELL)
#define OPT_FOR_LIST 32u

static const option_spec options[] = {
    {"--config", NULL, 1, 0, OPT_CONFIG},
    {"--backend", NULL, 1, 0, OPT_BACKEND},
    {"--set", NULL, 1, 0, OPT_SET},
    {"--json", NULL, 0, 0, OPT_JSON},
    {"--verbose", "-v", 0, 0, OPT_VERBOSE},
    {"--help", "-h", 0, 0, OPT_HELP},
    {"--version", NULL, 0, 0, OPT_VERSION},
    {"--thread", NULL, 1, OPT_FOR_BOTH, OPT_THREAD},
    {"--id", NULL, 1, OPT_FOR_CREATE, OPT_ID},
    {"--user", NULL, 1, OPT_FOR_BOTH, OPT_USER},
    {"--mount", NULL, 1, OPT_FOR_BOTH, OPT_MOUNT},
    {"--legacy-skills", NULL, 0, OPT_FOR_BOTH, OPT_LEGACY_SKILLS},
    {"--lark-runtime", NULL, 0, OPT_FOR_BOTH, OPT_LARK_RUNTIME},
    {"--lark-broker", NULL, 0, OPT_FOR_BOTH, OPT_LARK_BROKER},
    {"--require-contract", NULL, 1, OPT_FOR_BOTH, OPT_REQUIRE_CONTRACT},
    {"--keep-lease", NULL, 0, OPT_FOR_ACQUIRE, OPT_KEEP_LEASE},
    {"--image", NULL, 1, OPT_FOR_BOTH, OPT_IMAGE},
    {"--label", NULL, 1, OPT_FOR_BOTH | OPT_FOR_LIST, OPT_LABEL},
    {"--memory", NULL, 1, OPT_FOR_BOTH, OPT_MEMORY},
    {"--cpus", NULL, 1, OPT_FOR_BOTH, OPT_CPUS},
    {"--pids", NULL, 1, OPT_FOR_BOTH, OPT_PIDS},
    {"--disk", NULL, 1, OPT_FOR_BOTH, OPT_DISK},
    {"--network", NULL, 1, OPT_FOR_BOTH, OPT_NETWORK},
    {"--expire-in", NULL, 1, OPT_FOR_BOTH, OPT_EXPIRE_IN},
    {"--env", "-e", 1, OPT_FOR_COMMANDS | OPT_FOR_BOTH, OPT_ENV},
    {"--workdir", "-w", 1, OPT_FOR_COMMANDS, OPT_WORKDIR},
    {"--timeout", NULL, 1, OPT_FOR_COMMANDS, OPT_TIMEOUT},
    {"--interactive", "-i", 0, OPT_FOR_EXEC, OPT_INTERACTIVE},
    {"--tty", "-t", 0, OPT_FOR_EXEC, OPT_TTY},
    {"--detach", "-d", 0, OPT_FOR_EXEC, OPT_DETACH},
    {"--follow", "-f", 0, OPT_FOR_LOGS, OPT_FOLLOW},
};

/* What follows a command's name. */
typedef enum operands {
    OPERANDS_NONE,
    OPERANDS_ID,          /* ID */
    OPERANDS_ID_COMMAND,  /* ID CMD ARGS... (exec) */
    OPERANDS_ID_PATH,     /* ID [PATH] (ls) */
    OPERANDS_TWO_PATHS,   /* SOURCE DESTINATION (cp) */
    OPERANDS_ID_PROCESS,  /* ID PID (logs, attach) */
    OPERANDS_ID_PROCESS_SIGNAL, /* ID PID [SIGNAL] (kill) */
    OPERANDS_ID_DURATION  /* ID DURATION (extend) */
} operands;

typedef struct command_spec {
    const char *name;
    ctl_command command;
    operands operands;
} command_spec;

static const command_spec commands[] = {
    {"backends", CTL_BACKENDS, OPERANDS_NONE},
    {"create", CTL_CREATE, OPERANDS_NONE},
    {"destroy", CTL_DESTROY, OPERANDS_ID},
    {"alive", CTL_ALIVE, OPERANDS_ID},
    {"discover", CTL_DISCOVER, OPERANDS_ID},
    {"list", CTL_LIST, OPERANDS_NONE},
    {"capabilities", CTL_CAPABILITIES, OPERANDS_NONE},
    {"reconcile", CTL_RECONCILE, OPERANDS_ID},
    {"acquire", CTL_ACQUIRE, OPERANDS_NONE},
    {"manage", CTL_MANAGE, OPERANDS_NONE},
    {"leases", CTL_LEASES, OPERANDS_NONE},
    {"exec", CTL_EXEC, OPERANDS_ID_COMMAND},
    {"cp", CTL_CP, OPERANDS_TWO_PATHS},
    {"ls", CTL_LS, OPERANDS_ID_PATH},
    {"ps", CTL_PS, OPERANDS_ID},
    {"logs", CTL_LOGS, OPERANDS_ID_PROCESS},
    {"kill", CTL_KILL, OPERANDS_ID_PROCESS_SIGNAL},
    {"attach", CTL_ATTACH, OPERANDS_ID_PROCESS},
    {"shell", CTL_SHELL, OPERANDS_ID},
    {"extend", CTL_EXTEND, OPERANDS_ID_DURATION},
};

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

static const option_spec *find_option(const char *name, size_t name_len)
{
    for (size_t i = 0; i < COUNT_OF(options); i++) {
        const option_spec *o = &options[i];
        if (strlen(o->long_name) == name_len && strncmp(o->long_name, name, name_len) == 0)
            return o;
        if (o->short_name != NULL && strlen(o->short_name) == name_len &&
            strncmp(o->short_name, name, name_len) == 0)
            return o;
    }
    return NULL;
}

static const char *option_name(option_id id)
{
    for (size_t i = 0; i < COUNT_OF(options); i++)
        if (options[i].id == id)
            return options[i].long_name;
    return "?";
}

static const command_spec *find_command(const char *name)
{
    for (size_t i = 0; i < COUNT_OF(commands); i++) {
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    }
    return NULL;
}

static sbx_status out_of_memory(sbx_error *err)
{
    return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
}

/* Whether an argument may hold control characters: a path or an option
 * value may (POSIX allows them in names, a command may span lines); an id,
 * a user, a backend or option name cannot. */
typedef enum text_kind { TEXT_NAME, TEXT_ANY } text_kind;

/* Arguments go into requests and into the JSON sbxctl prints, so they must
 * be UTF-8 text.  The message names the argument (`what`), never its value,
 * which may be a secret or bytes that would garble a terminal. */
static sbx_status check_text(const char *value, size_t len, text_kind kind, const char *what,
                             sbx_error *err)
{
    if (!common_text_is_clean(value, len))
        return sbx_error_set(err, SBX_ERR_USAGE, "%s is not valid UTF-8", what);
    for (size_t i = 0; kind == TEXT_NAME && i < len; i++) {
        unsigned char c = (unsigned char)value[i];
        if (c < 0x20 || c == 0x7f)
            return sbx_error_set(err, SBX_ERR_USAGE, "%s holds a control character", what);
    }
    return SBX_OK;
}

/* check_text for the whole value of option `name`. */
static sbx_status check_option_text(const char *name, const char *value, text_kind kind,
                                    sbx_error *err)
{
    char what[64];
    sbx_backend_format(what, sizeof what, "the argument of option '%s'", name);
    return check_text(value, strlen(value), kind, what, err);
}

/* KEY=VALUE: the message names the option only, as the text may hold a secret. */
static sbx_status add_setting(ctl_args *args, const char *text, sbx_error *err)
{
    const char *equals = strchr(text, '=');
    if (equals == NULL || equals == text)
        return sbx_error_set(err, SBX_ERR_USAGE,
                             "option '--set' needs an argument of the form KEY=VALUE");
    sbx_status status = check_text(text, (size_t)(equals - text), TEXT_NAME,
                                   "the KEY of option '--set'", err);
    if (status != SBX_OK)
        return status;
    /* The key is clean text by now; a long one is cut, between characters,
     * and marked. */
    size_t key_len = (size_t)(equals - text), shown = common_utf8_cut(text, key_len, 64);
    char what[128];
    snprintf(what, sizeof what, "the value of option '--set %.*s%s'", (int)shown, text,
             shown < key_len ? SBX_CUT_MARK : "");
    status = check_text(equals + 1, strlen(equals + 1), TEXT_ANY, what, err);
    if (status != SBX_OK)
        return status;
    ctl_setting *grown = realloc(args->settings,
                                     (args->setting_count + 1) * sizeof *grown);
    if (grown == NULL)
        return out_of_memory(err);
    args->settings = grown;
    char *key = strndup(text, (size_t)(equals - text));
    if (key == NULL)
        return out_of_memory(err);
    grown[args->setting_count].key = key;
    grown[args->setting_count].value = equals + 1;
    args->setting_count++;
    return SBX_OK;
}

/* HOST:CONTAINER, HOST:CONTAINER:ro or HOST:CONTAINER:rw.  The container
 * path is the last ':'-separated field so that a host path may hold ':'. */
static sbx_status add_mount(ctl_args *args, const char *text, sbx_error *err)
{
    sbx_status status = check_option_text("--mount", text, TEXT_ANY, err);
    if (status != SBX_OK)
        return status;
    size_t len = strlen(text);
    int read_only = 0;
    if (len > 3 && strcmp(text + len - 3, ":ro") == 0) {
        read_only = 1;
        len -= 3;
    } else if (len > 3 && strcmp(text + len - 3, ":rw") == 0) {
        len -= 3;
    }
    const char *colon = NULL;
    for (size_t i = len; i > 0; i--) {
        if (text[i - 1] == ':') {
            colon = text + i - 1;
            break;
        }
    }
    if (colon == NULL || colon == text || (size_t)(colon - text) + 1 == len)
        return sbx_error_set(err, SBX_ERR_USAGE,
                             "option '--mount' needs HOST:CONTAINER[:ro], got '%s'", text);

    sbx_mount *grown = realloc(args->mounts, (args->mount_count + 1) * sizeof *grown);
    if (grown == NULL)
        return out_of_memory(err);
    args->mounts = grown;
    char *host_path = strndup(text, (size_t)(colon - text));
    char *container_path = strndup(colon + 1, len - (size_t)(colon - text) - 1);
    if (host_path == NULL || container_path == NULL) {
        free(host_path);
        free(container_path);
        return out_of_memory(err);
    }
    grown[args->mount_count] = (sbx_mount){host_path, container_path, read_only};
    args->mount_count++;
    return SBX_OK;
}

static sbx_status parse_contract(ctl_args *args, const char *text, sbx_error *err)
{
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < 0 || value > INT_MAX)
        return sbx_error_set(err, SBX_ERR_USAGE,
                             "option '--require-contract' needs a non-negative integer, got '%s'",
                             text);
    args->required_contract = (int)value;
    return SBX_OK;
}

/* KEY=VALUE of option `option`, its key checked as `what` names it: *key
 * a copy (the caller's), *value pointing into `text`.  The message names
 * the option and never the value (it may be a secret). */
static sbx_status split_pair(const char *option, const char *what, const char *text,
                             char **key, const char **value, sbx_error *err)
{
    const char *equals = strchr(text, '=');
    if (equals == NULL || equals == text)
        return sbx_error_set(err, SBX_ERR_USAGE,
                             "option '%s' needs an argument of the form %s=VALUE", option,
                             what);
    char name_what[64], value_what[64];
    sbx_backend_format(name_what, sizeof name_what, "the %s of option '%s'", what, option);
    sbx_backend_format(value_what, sizeof value_what, "the VALUE of option '%s'", option);
    sbx_status status = check_text(text, (size_t)(equals - text), TEXT_NAME, name_what, err);
    if (status == SBX_OK)
        status = check_text(equals + 1, strlen(equals + 1), TEXT_ANY, value_what, err);
    if (status != SBX_OK)
        return status;
    *key = strndup(text, (size_t)(equals - text));
    if (*key == NULL)
        return out_of_memory(err);
    *value = equals + 1;
    return SBX_OK;
}

/* NAME=VALUE for the command's (or the sandbox's) environment. */
static sbx_status add_env(ctl_args *args, const char *text, sbx_error *err)
{
    char *name = NULL;
    const char *value = NULL;
    sbx_status status = split_pair("--env", "NAME", text, &name, &value, err);
    if (status != SBX_OK)
        return status;
    sbx_env_var *grown = realloc(args->env, (args->env_count + 1) * sizeof *grown);
    if (grown == NULL) {
        free(name);
        return out_of_memory(err);
    }
    args->env = grown;
    grown[args->env_count].name = name;
    grown[args->env_count].value = value;
    args->env_count++;
    return SBX_OK;
}

/* KEY=VALUE, a label of the sandbox (create, acquire) or of list's filter. */
static sbx_status add_label(ctl_args *args, const char *text, sbx_error *err)
{
    char *key = NULL;
    const char *value = NULL;
    sbx_status status = split_pair("--label", "KEY", text, &key, &value, err);
    if (status != SBX_OK)
        return status;
    sbx_label *grown = realloc(args->labels, (args->label_count + 1) * sizeof *grown);
    if (grown == NULL) {
        free(key);
        return out_of_memory(err);
    }
    args->labels = grown;
    grown[args->label_count].key = key;
    grown[args->label_count].value = value;
    args->label_count++;
    return SBX_OK;
}

/* Seconds, a decimal number above 0 (e.g. 30 or 0.5), as milliseconds. */
static sbx_status parse_timeout(ctl_args *args, const char *text, sbx_error *err)
{
    char *end = NULL;
    errno = 0;
    double seconds = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !(seconds > 0) ||
        seconds > 1e9 || seconds * 1000 < 1)
        return sbx_error_set(err, SBX_ERR_USAGE,
                             "option '--timeout' needs a number of seconds above 0 (at least "
                             "0.001), got '%s'", text);
    args->timeout_ms = (int64_t)(seconds * 1000 + 0.5);
    return SBX_OK;
}

static sbx_status apply_option(ctl_args *args, option_id id, const char *value,
                               sbx_error *err)
{
    if (id == OPT_BACKEND || id == OPT_THREAD || id == OPT_ID || id == OPT_USER) {
        sbx_status status = check_option_text(option_name(id), value, TEXT_NAME, err);
        if (status != SBX_OK)
            return status;
    }
    switch (id) {
    case OPT_CONFIG: args->config_path = value; return SBX_OK;
    case OPT_BACKEND: args->backend = value; return SBX_OK;
    case OPT_SET: return add_setting(args, value, err);
    case OPT_JSON: args->json = 1; return SBX_OK;
    case OPT_VERBOSE: args->verbose = 1; return SBX_OK;
    case OPT_HELP: args->help = 1; return SBX_OK;
    case OPT_VERSION: args->version = 1; return SBX_OK;
    case OPT_THREAD: args->thread_id = value; return SBX_OK;
    case OPT_ID: args->sandbox_id = value; return SBX_OK;
    case OPT_USER: args->user_id = value; return SBX_OK;
    case OPT_MOUNT: return add_mount(args, value, err);
    case OPT_LEGACY_SKILLS: args->legacy_skills = 1; return SBX_OK;
    case OPT_LARK_RUNTIME: args->lark_runtime = 1; return SBX_OK;
    case OPT_LARK_BROKER: args->lark_broker = 1; return SBX_OK;
    case OPT_REQUIRE_CONTRACT: return parse_contract(args, value, err);
    case OPT_KEEP_LEASE: args->keep_lease = 1; return SBX_OK;
    case OPT_ENV: return add_env(args, value, err);
    case OPT_WORKDIR: args->workdir = value; return check_option_text("--workdir", value, TEXT_ANY, err);
    case OPT_TIMEOUT: return parse_timeout(args, value, err);
    case OPT_INTERACTIVE: args->interactive = 1; return SBX_OK;
    case OPT_TTY: args->tty = 1; return SBX_OK;
    case OPT_DETACH: args->detach = 1; return SBX_OK;
    case OPT_FOLLOW: args->follow = 1; return SBX_OK;
    case OPT_IMAGE: args->image = value; return check_option_text("--image", value, TEXT_NAME, err);
    case OPT_LABEL: return add_label(args, value, err);
    case OPT_MEMORY: return ctl_parse_memory(value, &args->memory_bytes, err);
    case OPT_CPUS: return ctl_parse_cpus(value, &args->cpu_millicores, err);
    case OPT_PIDS: return ctl_parse_pids(value, &args->pids_limit, err);
    case OPT_DISK: return ctl_parse_disk(value, &args->disk_bytes, err);
    case OPT_NETWORK: return ctl_parse_network(value, &args->network, err);
    case OPT_EXPIRE_IN: return ctl_parse_duration("--expire-in", value, &args->expire_in_ms, err);
    }
    return sbx_error_set(err, SBX_ERR_INTERNAL, "unhandled option");
}

/* The commands of OPT_FOR_* bits `bits`, quoted and joined: "'create'",
 * "'exec' or 'shell'", "'create', 'acquire' or 'list'". */
static void commands_taking(unsigned bits, char *out, size_t size)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = { { OPT_FOR_CREATE, "create" }, { OPT_FOR_ACQUIRE, "acquire" },
                  { OPT_FOR_EXEC, "exec" },     { OPT_FOR_LOGS, "logs" },
                  { OPT_FOR_SHELL, "shell" },   { OPT_FOR_LIST, "list" } };
    size_t total = 0, seen = 0, used = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        total += (bits & names[i].bit) != 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0] && used < size; i++) {
        if ((bits & names[i].bit) == 0)
            continue;
        seen++;
        const char *joint = seen == 1 ? "" : seen == total ? " or " : ", ";
        int n = snprintf(out + used, size - used, "%s'%s'", joint, names[i].name);
        used += n > 0 ? (size_t)n : 0;
    }
}

/* Whether option `spec` may be used where the parse is: a global option
 * anywhere, another after its command. */
static sbx_status check_option_place(const option_spec *spec, const ctl_args *args,
                                     sbx_error *err)
{
    unsigned command_bit = args->command == CTL_CREATE    ? OPT_FOR_CREATE
                           : args->command == CTL_ACQUIRE ? OPT_FOR_ACQUIRE
                           : args->command == CTL_EXEC    ? OPT_FOR_EXEC
                           : args->command == CTL_LOGS    ? OPT_FOR_LOGS
                           : args->command == CTL_SHELL   ? OPT_FOR_SHELL
                           : args->command == CTL_LIST    ? OPT_FOR_LIST : 0;
    if (spec->commands == 0 || (spec->commands & command_bit) != 0)
        return SBX_OK;
    if (args->command == CTL_NO_COMMAND) {
        char names[96];
        commands_taking(spec->commands, names, sizeof names);
        return sbx_error_set(err, SBX_ERR_USAGE, "option '%s' must follow the command %s",
                             spec->long_name, names);
    }
    return sbx_error_set(err, SBX_ERR_USAGE, "option '%s' is not valid for command '%s'",
                         spec->long_name, args->command_name);
}

/* "-it", "-dit": short flags without values joined in one token, each
 * applied in turn.  Non-zero when `token` is such a group (the status then
 * says how it went); zero when it is not one (a single option, or letters
 * that are not all such flags: the caller reports the token). */
static int parse_flag_group(const char *token, ctl_args *args, sbx_status *status,
                            sbx_error *err)
{
    if (token[0] != '-' || token[1] == '-' || strlen(token) < 3)
        return 0;
    for (const char *c = token + 1; *c != '\0'; c++) {
        char name[3] = {'-', *c, '\0'};
        const option_spec *spec = find_option(name, 2);
        if (spec == NULL || spec->takes_value)
            return 0;
    }
    *status = SBX_OK;
    for (const char *c = token + 1; *c != '\0' && *status == SBX_OK; c++) {
        char name[3] = {'-', *c, '\0'};
        const option_spec *spec = find_option(name, 2);
        *status = check_option_place(spec, args, err);
        if (*status == SBX_OK)
            *status = apply_option(args, spec->id, NULL, err);
    }
    return 1;
}

/* argv[*index] starts with '-'; consumes its value too when it takes one. */
static sbx_status parse_option(int argc, char *const *argv, int *index,
                               ctl_args *args, sbx_error *err)
{
    const char *token = argv[*index];
    const char *equals = strncmp(token, "--", 2) == 0 ? strchr(token, '=') : NULL;
    size_t name_len = equals != NULL ? (size_t)(equals - token) : strlen(token);
    int name_width = name_len > INT_MAX ? INT_MAX : (int)name_len;

    const option_spec *spec = find_option(token, name_len);
    sbx_status status;
    if (spec == NULL && parse_flag_group(token, args, &status, err))
        return status;
    if (spec == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "unknown option '%.*s'", name_width, token);
    status = check_option_place(spec, args, err);
    if (status != SBX_OK)
        return status;

    const char *value = NULL;
    if (spec->takes_value) {
        if (equals != NULL) {
            value = equals + 1;
        } else if (*index + 1 < argc) {
            value = argv[++*index];
        } else {
            return sbx_error_set(err, SBX_ERR_USAGE, "option '%s' needs an argument",
                                 spec->long_name);
        }
    } else if (equals != NULL) {
        return sbx_error_set(err, SBX_ERR_USAGE, "option '%s' takes no argument",
                             spec->long_name);
    }
    return apply_option(args, spec->id, value, err);
}

static sbx_status parse_word(const char *word, ctl_args *args, sbx_error *err)
{
    if (args->command == CTL_NO_COMMAND) {
        const command_spec *spec = find_command(word);
        if (spec == NULL)
            return sbx_error_set(err, SBX_ERR_USAGE, "unknown command '%s'", word);
        args->command = spec->command;
        args->command_name = spec->name;
        return SBX_OK;
    }
    operands kind = find_command(args->command_name)->operands;
    if (kind != OPERANDS_NONE && args->operand == NULL) {
        char what[64];
        if (kind == OPERANDS_TWO_PATHS) {
            sbx_backend_format(what, sizeof what, "the SOURCE of command '%s'", args->command_name);
            sbx_status status = check_text(word, strlen(word), TEXT_ANY, what, err);
            if (status == SBX_OK)
                args->operand = word;
            return status;
        }
        sbx_backend_format(what, sizeof what, "the sandbox ID of command '%s'", args->command_name);
        sbx_status status = check_text(word, strlen(word), TEXT_NAME, what, err);
        if (status != SBX_OK)
            return status;
        args->operand = word;
        return SBX_OK;
    }
    if ((kind == OPERANDS_ID_PROCESS || kind == OPERANDS_ID_PROCESS_SIGNAL) &&
        args->operand2 == NULL) {
        char what[64];
        sbx_backend_format(what, sizeof what, "the PID of command '%s'", args->command_name);
        sbx_status status = check_text(word, strlen(word), TEXT_NAME, what, err);
        if (status == SBX_OK)
            args->operand2 = word;
        return status;
    }
    if (kind == OPERANDS_ID_DURATION && args->operand2 == NULL) {
        args->operand2 = word;
        return ctl_parse_duration("the DURATION of command 'extend'", word, &args->duration_ms,
                                  err);
    }
    if (kind == OPERANDS_ID_PROCESS_SIGNAL && !args->signal_given) {
        args->signal_given = 1;
        return ctl_signal_parse(word, &args->signal, err);
    }
    if ((kind == OPERANDS_ID_PATH || kind == OPERANDS_TWO_PATHS) && args->operand2 == NULL) {
        char what[64];
        sbx_backend_format(what, sizeof what, "the %s of command '%s'",
                           kind == OPERANDS_ID_PATH ? "PATH" : "DESTINATION", args->command_name);
        sbx_status status = check_text(word, strlen(word), TEXT_ANY, what, err);
        if (status == SBX_OK)
            args->operand2 = word;
        return status;
    }
    return sbx_error_set(err, SBX_ERR_USAGE, "unexpected argument '%s' for command '%s'",
                         word, args->command_name);
}

static sbx_status check_complete(const ctl_args *args, sbx_error *err)
{
    if (args->help || args->version)
        return SBX_OK;
    if (args->command == CTL_NO_COMMAND)
        return sbx_error_set(err, SBX_ERR_USAGE, "no command given (try 'sbxctl --help')");
    operands kind = find_command(args->command_name)->operands;
    if (kind == OPERANDS_TWO_PATHS && args->operand2 == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE,
                             "command '%s' needs a SOURCE and a DESTINATION (one of them "
                             "ID:PATH)", args->command_name);
    if (kind != OPERANDS_NONE && args->operand == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "command '%s' needs a sandbox ID",
                             args->command_name);
    if ((kind == OPERANDS_ID_PROCESS || kind == OPERANDS_ID_PROCESS_SIGNAL) &&
        args->operand2 == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "command '%s' needs a PID after the sandbox ID",
                             args->command_name);
    if (kind == OPERANDS_ID_DURATION && args->operand2 == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE,
                             "command 'extend' needs a DURATION after the sandbox ID (e.g. 30m)");
    if (kind == OPERANDS_ID_COMMAND && args->exec_argv == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE,
                             "command 'exec' needs a command after the sandbox ID");
    /* What streams the command's own bytes has no JSON result to print. */
    if (args->json && ((args->command == CTL_EXEC && !args->detach &&
                        (args->interactive || args->tty)) ||
                       args->command == CTL_LOGS || args->command == CTL_ATTACH))
        return sbx_error_set(err, SBX_ERR_USAGE, "option '--json' is not valid for '%s%s'",
                             args->command_name,
                             args->command != CTL_EXEC ? ""
                             : args->interactive      ? " --interactive" : " --tty");
    if (args->command == CTL_ACQUIRE && args->thread_id == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "command 'acquire' needs --thread");
    if (args->command == CTL_CREATE && args->thread_id == NULL && args->sandbox_id == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "command 'create' needs --thread or --id");
    return SBX_OK;
}

sbx_status ctl_args_parse(int argc, char *const *argv, ctl_args *args,
                              sbx_error *err)
{
    memset(args, 0, sizeof *args);
    args->required_contract = SBX_CONTRACT_NONE;
    args->timeout_ms = SBX_EXEC_DEFAULT;
    args->memory_bytes = args->cpu_millicores = args->pids_limit = args->disk_bytes =
        SBX_LIMIT_NONE;
    args->network = SBX_NETWORK_DEFAULT;
    args->signal = SIGTERM;
    sbx_error_clear(err);

    int options_ended = 0;
    for (int i = 1; i < argc; i++) {
        const char *token = argv[i];
        sbx_status status;
        if (!options_ended && strcmp(token, "--") == 0) {
            options_ended = 1;
            continue;
        }
        if (args->command == CTL_EXEC && args->operand != NULL &&
            (options_ended || token[0] != '-' || token[1] == '\0')) {
            /* exec ID CMD...: the rest is the command, its options its own.
             * argv[argc] is NULL, so the slice is NULL-terminated. */
            args->exec_argv = (const char *const *)&argv[i];
            break;
        }
        if (!options_ended && token[0] == '-' && token[1] != '\0')
            status = parse_option(argc, argv, &i, args, err);
        else
            status = parse_word(token, args, err);
        if (status != SBX_OK)
            return status;
    }
    return check_complete(args, err);
}

sbx_create_request ctl_args_create_request(const ctl_args *args)
{
    sbx_create_request request = SBX_CREATE_REQUEST_INIT;
    request.thread_id = args->thread_id;
    request.user_id = args->user_id;
    request.extra_mounts = args->mounts;
    request.extra_mount_count = args->mount_count;
    request.include_legacy_skills = args->legacy_skills;
    request.provision_lark_cli_runtime = args->lark_runtime;
    request.provision_lark_cli_broker = args->lark_broker;
    request.required_contract = args->required_contract;
    request.image = args->image;
    request.env = args->env;
    request.env_count = args->env_count;
    request.labels = args->labels;
    request.label_count = args->label_count;
    request.memory_bytes = args->memory_bytes;
    request.cpu_millicores = args->cpu_millicores;
    request.pids_limit = args->pids_limit;
    request.disk_bytes = args->disk_bytes;
    request.network = args->network;
    if (args->expire_in_ms > 0)
        request.expires_at = common_epoch_now_ms() + args->expire_in_ms;
    return request;
}

void ctl_args_free(ctl_args *args)
{
    if (args == NULL)
        return;
    for (size_t i = 0; i < args->setting_count; i++)
        free(args->settings[i].key);
    free(args->settings);
    for (size_t i = 0; i < args->mount_count; i++) {
        free((char *)args->mounts[i].host_path);
        free((char *)args->mounts[i].container_path);
    }
    free(args->mounts);
    for (size_t i = 0; i < args->env_count; i++)
        free((char *)args->env[i].name);
    free(args->env);
    for (size_t i = 0; i < args->label_count; i++)
        free((char *)args->labels[i].key);
    free(args->labels);
    args->labels = NULL;
    args->label_count = 0;
    args->env = NULL;
    args->env_count = 0;
    args->settings = NULL;
    args->mounts = NULL;
    args->setting_count = args->mount_count = 0;
}
