/* SPDX-License-Identifier: GPL-2.0 */
/* A cluster group's tests on node 1: who we are, commands on the other nodes, the host's controls. */
#ifndef RIG_CLUSTER_H
#define RIG_CLUSTER_H

#include <stddef.h>

/*
 * This node's number (rig.node= on the kernel command line) and the
 * cluster's size (rig.nodes=); 1 and 1 on an ordinary single-guest boot.
 * Node N is 10.0.0.N on eth0; every node has the host's shared directory
 * on /cluster.
 */
int cluster_self(void);
int cluster_size(void);

/*
 * Send one request to the host's cluster runner (the guest's rig-ctl):
 * "kill %d" powers that node off at once (node 1 may not be), "start %d"
 * boots a node that is off again.  Returns 0 when the host said ok, or -1
 * with rig-ctl's message (the host's answer) printed on stderr.
 */
int cluster_ctl(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Have node's agent run cmd, a shell command line, as root in /tmp, and
 * return at once: an id for cluster_wait(), or -1 with errno set.  The
 * command is /cluster/agent/NODE/cID.sh; a node that is off, or not yet
 * booted, runs it when its agent starts.
 */
int cluster_start(int node, const char *cmd);

/*
 * Wait up to timeout_ms for the command id started on node to finish.
 * Returns its exit status (0..255) with its output (stdout and stderr)
 * NUL-terminated in out (cut at outlen - 1; out may be NULL), or -1 if it
 * did not finish in time.  An id may be waited for again.  The command's
 * files stay, on the host in build/cluster-VARIANT/shared/agent/NODE/run/
 * (cID.sh, cID.out, cID.rc), until the next cluster run.
 */
int cluster_wait(int node, int id, int timeout_ms, char *out, size_t outlen);

/* cluster_start() and cluster_wait(): a command's exit status, or -1. */
int cluster_run(int node, const char *cmd, int timeout_ms, char *out,
		size_t outlen);

#endif /* RIG_CLUSTER_H */
