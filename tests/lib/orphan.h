/* SPDX-License-Identifier: GPL-2.0 */
/* Daemons for the tests: children of init, in a session of their own. */
#ifndef RIG_ORPHAN_H
#define RIG_ORPHAN_H

#include <sys/types.h>

struct orphan {
	int fd;		/* in the daemon, until it is ready: the caller's pipe */
};

/*
 * Forks a daemon: a child of init (the process between exits at once),
 * leading a session of its own, with /dev/null as its standard files,
 * every other file closed and "/" as its directory, nothing of this node
 * a checkpoint would have to take.  Like fork(), it returns twice: 0 in
 * the daemon, which calls orphan_ready() once it is set up (a child it
 * forks before that closes @o->fd); in the caller, once the daemon is
 * ready, its PID, or -1 if it could not start or exited before that.
 */
pid_t start_orphan(struct orphan *o);

/* In the daemon: tells start_orphan()'s caller it is ready.  0, or -1. */
int orphan_ready(struct orphan *o);

#endif /* RIG_ORPHAN_H */
