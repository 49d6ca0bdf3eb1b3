/* Test support: the real DeerFlow provisioner (FastAPI, with an in-memory
 * Kubernetes stand-in) as a child process on 127.0.0.1, found through
 * $SBX_DEERFLOW_PROVISIONER (the folder holding its run.sh), with its
 * control port for faults, delays and Pod phases. */
#ifndef SBX_TEST_DEERFLOW_PROVISIONER_H
#define SBX_TEST_DEERFLOW_PROVISIONER_H

#include <sys/types.h>

typedef struct sbx_test_deerflow {
    pid_t pid;            /* the run.sh process, leader of its own group */
    char url[64];         /* http://127.0.0.1:PORT */
    char control_url[64]; /* its fake Kubernetes' control API */
    char state_dir[4096]; /* its DeerFlow state directory (extra mounts' host
                           * paths must lie under it) */
} sbx_test_deerflow;

/* Why the real provisioner cannot run here (the variable is unset, its
 * run.sh is missing, or python3 lacks fastapi, uvicorn or kubernetes), or
 * NULL when it can.  The text is static. */
const char *sbx_test_deerflow_unavailable(void);

/* Start it with `api_key` and wait until GET /health answers (a deadline,
 * no sleeping).  Returns 1, or 0 with a message on stderr. */
int sbx_test_deerflow_start(sbx_test_deerflow *p, const char *api_key);

/* POST `json` to the control API path `path` ("/faults", "/delays",
 * "/phase", "/reset"); DELETE when json is NULL.  Returns 1 on a 2xx. */
int sbx_test_deerflow_control(const sbx_test_deerflow *p, const char *path, const char *json);

/* The fake Kubernetes' state (GET /state of the control API) as text the
 * caller frees, or NULL. */
char *sbx_test_deerflow_state(const sbx_test_deerflow *p);

/* Stop it (its whole process group) and reap it. */
void sbx_test_deerflow_stop(sbx_test_deerflow *p);

#endif
