/*
 * The shell script that keeps live processes (ABI 1.4) inside a sandbox's
 * container: every process call is one exec of `/bin/sh -c SCRIPT sbx-proc
 * OP ARGS...`, because the Engine API can neither signal an exec nor give
 * its output to anyone but the connection that started it.  State lives
 * under DOCKER_PROC_ROOT in the container, one directory per process, so
 * any host process finds it by sandbox and process id.  The image needs
 * /bin/sh (read -t with a fraction of a second: busybox ash, bash, dash
 * does not), mkfifo, dd (iflag=skip_bytes,count_bytes), wc, setsid, rm,
 * cat, sleep and date.
 *
 * Answers: the first line of stdout, "sbx-OP WORDS..."; "sbx-OP none" for
 * an unknown process.  start ID T0 BUF STDIN TIMEOUT_MS MAX NENV PTY
 * ENV... ARGV... (PTY "-" or "ROWS,COLS") answers ok, "limit N",
 * "missing PROGRAM", failed, nohelper (no helper at DOCKER_PROC_ROOT/.pty:
 * every process runs under it); read ID
 * COUT CERR MAX NAPS answers "sbx-read AO BO AE BE EO EE STATE", a line
 * "sbx-runs[ S LEN]..." (the answer's runs in their order, S o or e), then
 * stdout bytes [AO, BO) and stderr bytes [AE, BE) on stderr (fewer when
 * a segment went meanwhile), or "past EO EE"; write ID DATA(0|1) CLOSE
 * (bytes on stdin) answers ok, closed, failed; resize ID ROWS COLS
 * answers ok, notty, failed; signal ID N; wait ID NAPS
 * and list answer info records, "P ID T0 ARGC STATE" ("T ..." for a
 * process on a terminal) and ARGC
 * NUL-terminated words; forget ID answers ok or running.  STATE is "run"
 * or "end CODE SECONDS TIMEDOUT".  A nap is about 10 ms.
 */
#ifndef SBX_DOCKER_PROC_SCRIPT_H
#define SBX_DOCKER_PROC_SCRIPT_H

/* Where the processes' directories are, in the container. */
#define DOCKER_PROC_ROOT "/tmp/.sbx/proc"

/* The script: static text, built on the first call (thread-safe). */
const char *docker_proc_script(void);

#endif
