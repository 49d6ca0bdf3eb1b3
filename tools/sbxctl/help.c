/* The usage summary; docs/sbxctl.1 is the full reference. */
#include <config.h>

#include "tools/sbxctl/help.h"

static const char help_text[] =
    "Usage: sbxctl [--config FILE] [--backend NAME] [--set KEY=VALUE]... [--json] [-v]\n"
    "              COMMAND [ARGS]\n"
    "\n"
    "Commands:\n"
    "  backends            list the backends that can be loaded\n"
    "  create [--thread T] [--id ID] [--user U] [--mount HOST:CONTAINER[:ro]]...\n"
    "         [--legacy-skills] [--lark-runtime] [--lark-broker] [--require-contract N]\n"
    "                      create (or find) a sandbox; without --id its id is\n"
    "                      derived from the thread and user\n"
    "  destroy ID          destroy a sandbox (also succeeds when it is gone)\n"
    "  alive ID            exit 0 when the sandbox runs, 1 when not\n"
    "  discover ID         show a sandbox (exit 1 when there is none)\n"
    "  list                list the running sandboxes\n"
    "  capabilities        show the backend's mount contract version\n"
    "  reconcile ID        found (exit 0), absent or unknown (exit 1)\n"
    "  acquire --thread T [--user U] [--keep-lease] [create options but --id]\n"
    "                      the thread's sandbox through the manager, left running\n"
    "  manage              run the manager (reaper, renewal) until SIGINT/SIGTERM\n"
    "  leases              the leases of the manager's sqlite or redis store\n"
    "  exec ID [-e NAME=VALUE]... [-w DIR] [--timeout SECONDS] [--] CMD [ARGS]...\n"
    "                      run CMD in the sandbox (stdin passed through when not a\n"
    "                      terminal); exit with its code, 124 on timeout, 128+N\n"
    "                      when signal N ended it\n"
    "  cp SRC DST          copy a file into (DST is ID:PATH) or out of (SRC is\n"
    "                      ID:PATH) a sandbox, byte-exact; \"-\" is stdin/stdout\n"
    "  ls ID [PATH]        the entries of a directory in the sandbox\n"
    "\n"
    "Options:\n"
    "  --config FILE       configuration file (default: $SBX_CONFIG, else none)\n"
    "  --backend NAME      backend to use (default: the file's, else \"local\")\n"
    "  --set KEY=VALUE     set an option of the selected backend (repeatable)\n"
    "  --json              print exactly one JSON object on stdout\n"
    "  -v, --verbose       show the backends' log lines on stderr\n"
    "  -h, --help          show this help\n"
    "  --version           show the version\n"
    "\n"
    "Exit codes: 0 ok, 1 negative answer, 2 usage/config, 3 transport,\n"
    "4 protocol, 5 contract changed, 6 refused, 7 unauthorized, 8 load,\n"
    "9 provisioner, 10 unsupported, 11 no such path, 12 not a directory,\n"
    "13 is a directory, 14 exists, 15 permission, 70 internal (exec: the\n"
    "command's own).  See sbxctl(1).\n";

void ctl_print_help(FILE *stream)
{
    fputs(help_text, stream);
}
