/* The sbxctl commands.  Each prints its result or its error through `out`
 * and returns the process exit code (see exit_code.h). */
#ifndef CTL_COMMANDS_H
#define CTL_COMMANDS_H

#include <sbx/host.h>

#include "tools/sbxctl/args.h"
#include "tools/sbxctl/output.h"
#include "tools/sbxctl/session.h"

/* backends: list what the session's host can load. */
int ctl_cmd_backends(ctl_session *session, const ctl_output *out);

/* create: create (or find) the sandbox of --id, or of the id derived from
 * --thread and --user. */
int ctl_cmd_create(const ctl_args *args, sbx_backend *backend,
                       const ctl_output *out);

/* destroy ID: succeeds also when the sandbox was already gone. */
int ctl_cmd_destroy(const ctl_args *args, sbx_backend *backend,
                        const ctl_output *out);

/* extend ID DURATION: the sandbox now expires DURATION from now. */
int ctl_cmd_extend(const ctl_args *args, sbx_backend *backend, const ctl_output *out);

/* alive ID: exit 0 when it runs, 1 when not. */
int ctl_cmd_alive(const ctl_args *args, sbx_backend *backend,
                      const ctl_output *out);

/* discover ID: exit 1 (a not_found error) when there is no such sandbox. */
int ctl_cmd_discover(const ctl_args *args, sbx_backend *backend,
                         const ctl_output *out);

/* list: the running sandboxes. */
int ctl_cmd_list(const ctl_args *args, sbx_backend *backend,
                     const ctl_output *out);

/* capabilities: the backend's mount contract. */
int ctl_cmd_capabilities(const ctl_args *args, sbx_backend *backend,
                             const ctl_output *out);

/* reconcile ID: exit 0 when found, 1 when absent or unknown. */
int ctl_cmd_reconcile(const ctl_args *args, sbx_backend *backend,
                          const ctl_output *out);

/* acquire --thread T [--user U] [--keep-lease]: the sandbox of (U, T)
 * through a manager configured by the file's `manager` section, printed,
 * released and left running (its lease released, or kept to expire with
 * --keep-lease). */
int ctl_cmd_acquire(const ctl_args *args, ctl_session *session,
                        sbx_backend *backend, const ctl_output *out);

/* manage: a manager on `backend` until SIGINT or SIGTERM: reconciliation,
 * the reaper and the renewal, one line per event; then shutdown as
 * configured.  Exit 0, or the code of the shutdown's error. */
int ctl_cmd_manage(ctl_session *session, sbx_backend *backend,
                       const ctl_output *out);

/* leases: the leases of the configured store (sqlite or redis). */
int ctl_cmd_leases(ctl_session *session, const ctl_output *out);

/* exec ID [--env N=V] [--workdir D] [--timeout S] CMD ARGS...: run CMD in
 * the sandbox with stdin passed through (when it is not a terminal), its
 * output written as it comes; exit with its exit code, 124 when it timed
 * out, 128+N when signal N ended it.  With -i, -t or -d: ctl_cmd_exec_process. */
int ctl_cmd_exec(const ctl_args *args, sbx_backend *backend, const ctl_output *out);

/* exec -i/-t/-d: CMD as a live process (stdin kept open and forwarded with
 * -i, on a terminal with -t), followed to its end (exit codes as exec's;
 * the process is then forgotten), or with -d left running and its id
 * printed (exit 0). */
int ctl_cmd_exec_process(const ctl_args *args, sbx_backend *backend, const ctl_output *out);

/* ps ID: the sandbox's processes, running and ended. */
int ctl_cmd_ps(const ctl_args *args, sbx_backend *backend, const ctl_output *out);

/* logs ID PID [-f]: the process's output from the start of what is kept;
 * with -f followed until the process ends.  Exit 0. */
int ctl_cmd_logs(const ctl_args *args, sbx_backend *backend, const ctl_output *out);

/* kill ID PID [SIGNAL]: send SIGNAL (default TERM) to the process's group. */
int ctl_cmd_kill(const ctl_args *args, sbx_backend *backend, const ctl_output *out);

/* attach ID PID: the process's output from the start of what is kept,
 * followed to its end, with sbxctl's stdin and signals passed on (a
 * terminal process: sbxctl's terminal raw); exit codes as exec's. */
int ctl_cmd_attach(const ctl_args *args, sbx_backend *backend, const ctl_output *out);

/* shell ID [--env N=V] [--workdir D] [--timeout S]: a session in the
 * sandbox running stdin's lines one by one (empty ones skipped), each
 * with its own result; exit with the last command's code (0 with none,
 * 124 when it timed out, 125 when its shell was restarted before it
 * answered), or the code of the error that stopped the script. */
int ctl_cmd_shell(const ctl_args *args, sbx_backend *backend, const ctl_output *out);

/* cp FILE ID:PATH, cp ID:PATH FILE ("-": stdin or stdout): byte-exact. */
int ctl_cmd_cp(const ctl_args *args, sbx_backend *backend, const ctl_output *out);

/* ls ID [PATH]: the entries of a directory of the sandbox (PATH "."). */
int ctl_cmd_ls(const ctl_args *args, sbx_backend *backend, const ctl_output *out);

#endif
