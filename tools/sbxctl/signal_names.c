/* The table of Linux signal names: the numbers are this host's, which are
 * the sandbox's too (every backend runs Linux processes). */
#include <config.h>

#include "tools/sbxctl/signal_names.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <strings.h>

typedef struct signal_entry {
    const char *name;
    int number;
} signal_entry;

static const signal_entry signals[] = {
    {"HUP", SIGHUP},       {"INT", SIGINT},     {"QUIT", SIGQUIT},   {"ILL", SIGILL},
    {"TRAP", SIGTRAP},     {"ABRT", SIGABRT},   {"BUS", SIGBUS},     {"FPE", SIGFPE},
    {"KILL", SIGKILL},     {"USR1", SIGUSR1},   {"SEGV", SIGSEGV},   {"USR2", SIGUSR2},
    {"PIPE", SIGPIPE},     {"ALRM", SIGALRM},   {"TERM", SIGTERM},   {"CHLD", SIGCHLD},
    {"CONT", SIGCONT},     {"STOP", SIGSTOP},   {"TSTP", SIGTSTP},   {"TTIN", SIGTTIN},
    {"TTOU", SIGTTOU},     {"URG", SIGURG},     {"XCPU", SIGXCPU},   {"XFSZ", SIGXFSZ},
    {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF},   {"WINCH", SIGWINCH}, {"IO", SIGIO},
    {"PWR", SIGPWR},       {"SYS", SIGSYS},
};

#define SIGNAL_COUNT (sizeof signals / sizeof signals[0])

sbx_status ctl_signal_parse(const char *text, int *signal, sbx_error *err)
{
    if (text[0] >= '0' && text[0] <= '9') {
        char *end = NULL;
        errno = 0;
        long number = strtol(text, &end, 10);
        if (errno == 0 && *end == '\0' && number >= 1 && number <= SBX_SIGNAL_MAX) {
            *signal = (int)number;
            return SBX_OK;
        }
        return sbx_error_set(err, SBX_ERR_USAGE,
                             "signal '%s' is not a number from 1 to %d", text, SBX_SIGNAL_MAX);
    }
    const char *name = strncasecmp(text, "SIG", 3) == 0 ? text + 3 : text;
    for (size_t i = 0; i < SIGNAL_COUNT; i++) {
        if (strcasecmp(signals[i].name, name) == 0) {
            *signal = signals[i].number;
            return SBX_OK;
        }
    }
    return sbx_error_set(err, SBX_ERR_USAGE,
                         "unknown signal '%s' (a name such as TERM, KILL or INT, or a number "
                         "from 1 to %d)", text, SBX_SIGNAL_MAX);
}

const char *ctl_signal_name(int signal)
{
    for (size_t i = 0; i < SIGNAL_COUNT; i++)
        if (signals[i].number == signal)
            return signals[i].name;
    return NULL;
}
