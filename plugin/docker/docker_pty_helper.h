/*
 * The helper of docker processes (sbx-docker-pty, built from
 * sbx_docker_pty.c): the Engine API keeps no output of a detached exec,
 * so a process with a terminal runs under this static program inside its
 * container, which owns the terminal and copies it to the process
 * script's files; every other process runs under it too, to get back the
 * SIGINT and SIGQUIT its background start ignores.  This file puts it
 * there, on a container's first process start.
 */
#ifndef SBX_DOCKER_PTY_HELPER_H
#define SBX_DOCKER_PTY_HELPER_H

#include "plugin/docker/docker_instance.h"
#include "plugin/docker/docker_proc_script.h"

/* Where the helper lives in a container (the process script runs it as
 * $R/.pty). */
#define DOCKER_PTY_HELPER_PATH DOCKER_PROC_ROOT "/.pty"

/* Copy the helper (option pty_helper) into the sandbox's container,
 * executable.  SBX_ERR_CONFIG when the host's helper cannot be read
 * (named), else what the file write answers (SBX_ERR_NOT_FOUND: no such
 * sandbox).  Thread-safe as the instance is. */
sbx_status docker_pty_helper_install(sbx_backend_instance *inst, const char *sandbox_id,
                                     sbx_error *err);

#endif
