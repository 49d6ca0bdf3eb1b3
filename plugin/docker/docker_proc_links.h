/*
 * An instance's connections to the process servers of its sandboxes'
 * containers (docker_proc_server.h): the idle ones, kept for the next
 * call in the same container, and the containers where no server can run
 * (their calls go through an exec each).  Under `lock`; a call takes a
 * connection out for its own use, so no two calls ever share one.
 */
#ifndef SBX_DOCKER_PROC_LINKS_H
#define SBX_DOCKER_PROC_LINKS_H

#include "plugin/docker/docker_container.h"

#include <pthread.h>

/* How many idle connections an instance keeps (a burst of concurrent
 * calls opens more, closed again when they end). */
#define DOCKER_PROC_LINKS_IDLE 8
/* How many containers without a server an instance remembers. */
#define DOCKER_PROC_LINKS_REFUSED 8

/* One connection to a container's server (docker_proc_server.c). */
typedef struct docker_proc_link docker_proc_link;

typedef struct docker_proc_links {
    pthread_mutex_t lock;
    docker_proc_link *idle[DOCKER_PROC_LINKS_IDLE];   /* NULL: a free slot */
    unsigned idle_next;                               /* the slot replaced when all are used */
    char refused[DOCKER_PROC_LINKS_REFUSED][DOCKER_CONTAINER_ID_MAX];  /* "": free */
    unsigned refused_next;
} docker_proc_links;

/* An empty set (no connection is opened before a call needs one). */
void docker_proc_links_init(docker_proc_links *links);

/* Close every idle connection (each server then ends) and release the
 * set; no call of the instance may still run. */
void docker_proc_links_fini(docker_proc_links *links);

#endif
