/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the SSI tests share: each node's view of the membership
 * (/proc/cluster/nodes), waiting for the cluster to agree, and ics_test's
 * calls (modules/ics_test.c).  Static functions: each test includes it.
 */
#ifndef CLUSTER_TEST_H
#define CLUSTER_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cluster.h"
#include "kmod.h"
#include "variant.h"

#define NODES_FILE	"/proc/cluster/nodes"
#define PS_FILE		"/proc/cluster/ps"
#define LOAD_FILE	"/proc/cluster/load"
#define ICS_CALL	"/sys/kernel/debug/ics_test/call"
#define ICS_STATS	"/sys/kernel/debug/ics_test/stats"
#define ICS_TIMES	"/sys/kernel/debug/ics_test/times"
#define ICS_EVENTS	"/sys/kernel/debug/ics_test/events"
#define ICS_CALLS	"/sys/kernel/debug/ssi/ics_calls"
#define ICS_CALLER_READS "/sys/kernel/debug/ssi/ics_caller_reads"
#define ICS_JOBS	"/sys/kernel/debug/ssi/ics_jobs"
#define ICS_HELD_UNSEEN	"/sys/kernel/debug/ssi/ics_held_unseen"
#define ICS_HOLDING	"/sys/kernel/debug/ssi/ics_holding_unseen"
#define ICS_MSG_DELAY	"/sys/kernel/debug/ics_test/msg_delay_ms"
#define MAX_JOBS	"/sys/module/ssi/parameters/max_jobs"
#define FAIL_RECEIVE	"/sys/kernel/debug/fail_ics_receive"
#define MAX_NODE	63
#define PID_SHIFT	16
/* A command on a node that is up; a node booting again (debug, TCG). */
#define RUN_MS		30000
#define BOOT_MS		90000

struct view {
	unsigned long long epoch;
	int self, leader, listed;
	char state[MAX_NODE + 1];	/* 'u' up, 'd' down, 0 not listed */
};

static inline long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static inline void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Parses /proc/cluster/nodes' text: 0, or -1 if it is malformed. */
static inline int parse_view(const char *text, struct view *v)
{
	const char *line = text;
	int header = 0;

	memset(v, 0, sizeof(*v));
	v->self = v->leader = -1;
	while (line && *line) {
		char addr[32], state[16], since[32];
		int node;

		if (sscanf(line, "epoch %llu", &v->epoch) == 1 ||
		    sscanf(line, "self %d", &v->self) == 1 ||
		    sscanf(line, "leader %d", &v->leader) == 1) {
		} else if (!strncmp(line, "node address state since\n", 25)) {
			header = 1;
		} else if (sscanf(line, "%d %31s %15s %31s", &node, addr,
				  state, since) == 4 && node >= 1 &&
			   node <= MAX_NODE && header) {
			char want[32];

			snprintf(want, sizeof(want), "1.1.%d", node);
			if (strcmp(addr, want) || (strcmp(state, "up") &&
						   strcmp(state, "down")))
				return -1;
			v->state[node] = state[0];
			v->listed++;
		} else {
			return -1;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return header && v->self > 0 ? 0 : -1;
}

/* A file's content, NUL-terminated: its length, or -errno. */
static inline int read_text(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	while (len < size - 1 &&
	       (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	n = n < 0 ? -errno : (ssize_t)len;
	close(fd);
	buf[len] = '\0';
	return n;
}

/*
 * A shell command on any node, this one too: its exit status (-1 if it
 * did not finish), its output in @out.
 */
static inline int run_on(int node, const char *cmd, char *out, size_t size)
{
	size_t len = 0, n;
	FILE *f;
	int status;

	if (node != cluster_self())
		return cluster_run(node, cmd, RUN_MS, out, size);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (out && len < size - 1 &&
	       (n = fread(out + len, 1, size - 1 - len, f)) > 0)
		len += n;
	if (out)
		out[len] = '\0';
	status = pclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * The calls node @node has waiting for a reply, once none is (a call a
 * node makes of its own, CLMS's, lasts a moment); -1 if it could not be
 * read.  A call left behind by an error path never ends.
 */
static inline int calls_left(int node, int timeout_ms)
{
	long long end = now_ms() + timeout_ms;
	char out[64];
	int n = -1;

	do {
		/* Read here, not forked: a test may have left its PID namespace. */
		if ((node == cluster_self() ?
		     read_text(ICS_CALLS, out, sizeof(out)) <= 0 :
		     run_on(node, "cat " ICS_CALLS, out, sizeof(out)) != 0) ||
		    sscanf(out, "%d", &n) != 1)
			return -1;
		if (!n)
			break;
		sleep_ms(100);
	} while (now_ms() < end);
	return n;
}

/* Node @node's view: 0, or -1 if it could not be read or parsed. */
static inline int node_view(int node, struct view *v, int timeout_ms)
{
	char text[4096];

	if (node == cluster_self()) {
		if (read_text(NODES_FILE, text, sizeof(text)) < 0)
			return -1;
	} else if (cluster_run(node, "cat " NODES_FILE, timeout_ms, text,
			       sizeof(text))) {
		return -1;
	}
	return parse_view(text, v);
}

/* Nodes @up (a bit per node) are up in @v, the others listed down. */
static inline int view_is(const struct view *v, unsigned long up, int nodes)
{
	int node;

	for (node = 1; node <= nodes; node++)
		if (v->state[node] != ((up >> node) & 1 ? 'u' : 'd'))
			return 0;
	return 1;
}

/*
 * Waits until every node of @up sees exactly @up up (of @nodes) and they
 * all have one epoch: that epoch, or 0 after @timeout_ms.  The views last
 * read are left in @views.
 */
static inline unsigned long long wait_agreement(unsigned long up, int nodes,
						int timeout_ms,
						struct view *views)
{
	long long end = now_ms() + timeout_ms;

	do {
		unsigned long long epoch = 0;
		int node, ok = 1;

		for (node = 1; node <= nodes && ok; node++) {
			if (!((up >> node) & 1))
				continue;
			if (node_view(node, &views[node], RUN_MS) ||
			    !view_is(&views[node], up, nodes) ||
			    !views[node].epoch ||
			    (epoch && views[node].epoch != epoch))
				ok = 0;
			epoch = views[node].epoch;
		}
		if (ok)
			return epoch;
		sleep_ms(100);
	} while (now_ms() < end);
	return 0;
}

/* One ics_test command on this node: 0 or -errno. */
static inline int ics(const char *fmt, ...)
{
	char cmd[128];
	va_list ap;
	ssize_t n;
	int fd, len;

	va_start(ap, fmt);
	len = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fd = open(ICS_CALL, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, cmd, len);
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

/* ics_test loaded on every node of @nodes: 0, or the node that failed. */
static inline int ics_test_load(int nodes)
{
	int node;

	for (node = 1; node <= nodes; node++) {
		if (node == cluster_self()) {
			if (load_module(RIG_MODULE_PATH("cluster", "ics_test"),
					"") && errno != EEXIST)
				return node;
		} else if (cluster_run(node, "grep -q '^ics_test ' /proc/modules"
				       " || insmod /modules/cluster/ics_test.ko",
				       RUN_MS, NULL, 0)) {
			return node;
		}
	}
	return 0;
}

static inline int ics_test_unload(int nodes)
{
	int node, bad = 0;

	for (node = 1; node <= nodes; node++) {
		if (node == cluster_self())
			bad |= unload_module_wait("ics_test", 5000) ? node : 0;
		else if (cluster_run(node, "rmmod ics_test", RUN_MS, NULL, 0))
			bad |= node;
	}
	return bad;
}

/* What node @node's seq service counted from @from: 0, or -1. */
static inline int seq_stats(int node, int from, unsigned long long *in_order,
			    unsigned long long *repeated,
			    unsigned long long *missing)
{
	char out[2048], *p, want[32];

	if (run_on(node, "cat " ICS_STATS, out, sizeof(out)))
		return -1;
	snprintf(want, sizeof(want), "node %d ", from);
	p = strstr(out, want);
	*in_order = *repeated = *missing = 0;
	if (!p)
		return 0;
	return sscanf(p, "node %*d in-order %llu repeated %llu missing %llu",
		      in_order, repeated, missing) == 3 ? 0 : -1;
}

/*
 * Waits up to @timeout_ms until node @node's seq service has counted, from
 * @from, @count messages (in order or missing) above @base: 0, or -1 if
 * its stats could not be read.  What it counted last is left in @in,
 * @rep and @miss.
 */
static inline int wait_seq(int node, int from, unsigned long long base,
			   unsigned long long count, int timeout_ms,
			   unsigned long long *in, unsigned long long *rep,
			   unsigned long long *miss)
{
	long long end = now_ms() + timeout_ms;

	do {
		if (seq_stats(node, from, in, rep, miss))
			return -1;
		if (*in + *miss >= base + count)
			break;
		sleep_ms(100);
	} while (now_ms() < end);
	return 0;
}

/*
 * fail_ics_receive on node @node (the debug kernel): from now on,
 * @percent of its ICS receiving side's allocations fail, once @space
 * bytes have been asked for, @times of them at most (-1: no limit).
 */
static inline int fail_receive_at(int node, int percent, long space,
				  int times)
{
	char cmd[256];

	/* The probability last: the other settings are in place by then. */
	snprintf(cmd, sizeof(cmd),
		 "d=" FAIL_RECEIVE "; echo 0 >$d/verbose && echo 1 >$d/interval &&"
		 " echo %ld >$d/space && echo %d >$d/times &&"
		 " echo %d >$d/probability",
		 space, times, percent);
	return run_on(node, cmd, NULL, 0);
}

static inline int fail_receive(int node, int percent)
{
	return fail_receive_at(node, percent, 0, -1);
}

/* How many failures node @node's fail_ics_receive has left to give. */
static inline int fail_times_left(int node)
{
	char out[64];

	if (run_on(node, "cat " FAIL_RECEIVE "/times", out, sizeof(out)))
		return -100;
	return atoi(out);
}

/*
 * The node /proc/cluster/ps lists @pid on: 0 if none, -1 if unreadable,
 * -2 if listed twice.
 */
static inline int ps_node_of(pid_t pid)
{
	FILE *f = fopen(PS_FILE, "r");
	char line[512];
	int node, p, found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%d %d", &node, &p) == 2 && p == pid)
			found = found ? -2 : node;
	fclose(f);
	return found;
}

struct load {
	int cpus, run;
	char avg[48];			/* "L1 L5 L15" as printed */
};

/*
 * /proc/cluster/load into @l, MAX_NODE + 1 of them indexed by node (a
 * node not listed has 0 CPUs): the nodes listed, or -errno; -EPROTO for
 * a line that is not "NODE CPUS RUN L1 L5 L15", a node listed twice or
 * one without a CPU.
 */
static inline int read_load(struct load *l)
{
	char text[4096], *line, *save;
	int ret = read_text(LOAD_FILE, text, sizeof(text)), n = 0;
	unsigned long long seen = 0;

	if (ret < 0)
		return ret;
	memset(l, 0, sizeof(*l) * (MAX_NODE + 1));
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned int a[8];
		int node, len = 0;

		if (sscanf(line, "%d %d %d %u.%2u %u.%2u %u.%2u%n", &node,
			   &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6],
			   &a[7], &len) != 9 || line[len] || node < 1 ||
		    node > MAX_NODE || seen & 1ULL << node || a[0] < 1)
			return -EPROTO;
		seen |= 1ULL << node;
		l[node].cpus = a[0];
		l[node].run = a[1];
		snprintf(l[node].avg, sizeof(l[node].avg), "%s",
			 strchr(strchr(strchr(line, ' ') + 1, ' ') + 1, ' ') +
			 1);
		n++;
	}
	return n;
}

#endif /* CLUSTER_TEST_H */
